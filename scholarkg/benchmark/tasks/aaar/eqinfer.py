"""AAAR-1.0 EqInfer: pick the removed equation (A-D) from the LaTeX around it (v1 protocol).

Prompt from the graph: the last N words before and the first N words after the equation
(``--context-words``, default 1,000 per side, as in the paper). The reply is parsed the
released way (strip, SQuAD-normalise, must equal a letter) and scored as accuracy; random is
25 %. ``--context-words 100,300,1000,1500`` runs every budget and reports the curve
(``classes["context_words:<n>"]``, ``context_curve.json`` and ``context_curve.png`` with
``--out``); the headline accuracy is the one at the first budget listed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.results import PublishedRow, ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    Instance,
    PredictionFormat,
    StageProgress,
    TaskOption,
)
from scholarkg.benchmark.tasks.aaar.predictions import read_eqinfer_predictions
from scholarkg.benchmark.tasks.aaar.scoring import score_eqinfer
from scholarkg.benchmark.tasks.aaar.task import (
    AaarTaskBase,
    file_models,
    head_words,
    match_ids,
    tail_words,
)
from scholarkg.errors import InputError
from scholarkg.textio import atomic_write_text

if TYPE_CHECKING:
    from scholarkg.store.base import GraphReader

_SRC = "AAAR-1.0 Table (EqInfer, v1), real data"
PUBLISHED = tuple(
    PublishedRow(label, {"accuracy": acc}, _SRC, {"context_words": "1000"})
    for label, acc in (
        ("Random", 25.00), ("Claude 3.5 Sonnet", 61.10), ("o1-preview", 59.49),
        ("GPT-4", 49.85), ("GPT-4o", 43.18), ("Llama 3.1-70B", 38.13),
        ("Mixtral-8x22B", 37.08), ("Qwen 2.5-72B", 35.93), ("Gemini 1.5 Pro", 34.31),
        ("Mistral-7B", 22.21), ("OLMo-7B", 19.00), ("Falcon-40B", 4.39), ("Gemma 2-27B", 3.24),
    )
)  # fmt: skip
IMPORTED = "imported"


class EqInferTask(AaarTaskBase):
    name = "aaar-eqinfer"
    description = "AAAR-1.0 equation inference: choose the removed equation (accuracy)"
    metrics = (TaskMetric("accuracy", "percent", description="v1: reply must be the letter"),)
    options = (
        TaskOption("context_words", list, ["1000"],
                   "words per side of the equation; several values run a sweep (a curve)"),
        TaskOption("max_tokens", int, 16, "generation limit per call (the answer is a letter)"),
        TaskOption("concurrency", int, None,
                   "model requests in flight (default: SCHOLARKG_LLM_CONCURRENCY, else 1)"),
    )  # fmt: skip
    prediction_format = PredictionFormat(
        task="aaar-eqinfer",
        answer_field="pred",
        description="EqInfer item id -> the raw reply (a letter A-D); 'raw' holds the reply "
        "at every --context-words budget of the run",
    )
    layout = ReportLayout(
        title="AAAR-1.0 EqInfer (accuracy %, random 25 %)",
        columns=("accuracy",),
        config_keys=("context_words",),
        instance_label="paper",
        published=PUBLISHED,
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {"context_words": ",".join(options["context_words"])}

    @staticmethod
    def budgets(options: Mapping[str, Any]) -> list[int]:
        out = []
        for raw in options["context_words"]:
            try:
                n = int(raw)
            except ValueError as err:
                raise InputError(f"--context-words takes integers, got {raw!r}",
                                 field="context_words") from err  # fmt: skip
            if n < 1:
                raise InputError("--context-words must be >= 1", field="context_words")
            out.append(n)
        return out

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        self.budgets(options)
        rows = store.run_named("aaar/eqinfer_items", {})
        return [Instance(r["id"], dict(r)) for r in rows]

    def render(self, inst: Instance, words: int) -> str:
        d = inst.data
        return self.prompt("eqinfer").render(
            context_before=tail_words(d["context_before"], words),
            context_after=head_words(d["context_after"], words),
            options=d["options"],
        )

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        template = self.prompt("eqinfer")
        if source.kind == "predictions":
            assert source.path is not None
            return Answers(self.read_predictions(source.path, instances), source,
                           params={"path": str(source.path)},
                           models=file_models(source.path))  # fmt: skip
        by: dict[str, dict[str, str]] = {i.id: {} for i in instances}
        usage: dict[str, Any] = {}
        for words in self.budgets(options):
            prompts = [self.render(i, words) for i in instances]
            texts, spent = self.generate(source.client, prompts, options,
                                         stage=f"answer@{words}", progress=progress)  # fmt: skip
            usage[str(words)] = spent
            for inst, text in zip(instances, texts, strict=True):
                by[inst.id][str(words)] = text
        return Answers(by, source, params=dict(options), models={"llm": source.client.model},
                       extra={"usage": usage}, prompts={"eqinfer": template.text})  # fmt: skip

    def read_predictions(
        self, path: Path, instances: Sequence[Instance]
    ) -> dict[str, dict[str, str | None]]:
        """Each item's reply, as the one budget :data:`IMPORTED` (a file holds one reply per
        item, at whatever context the run that wrote it used)."""
        return {i: {IMPORTED: r} for i, r in self._replies(path, instances).items()}

    def _replies(self, path: Path, instances: Sequence[Instance]) -> dict[str, str | None]:
        preds = read_eqinfer_predictions(path)
        if preds.by_position is not None:
            ordered = sorted(instances, key=lambda i: i.data["idx"])
            if len(preds.by_position) != len(ordered):
                raise InputError(
                    f"{len(preds.by_position)} result rows for {len(ordered)} items; released "
                    "result files carry no ids, so they must cover the items in file order",
                    path=path,
                )
            out: dict[str, str | None] = {}
            for k, (inst, (reply, answer)) in enumerate(zip(ordered, preds.by_position,
                                                            strict=True)):  # fmt: skip
                if answer is not None and str(answer).strip().upper() != inst.data["answer"]:
                    raise InputError(
                        f"row's answer {answer!r} differs from item {k}'s gold "
                        f"{inst.data['answer']!r}: the rows are not in the data file's order",
                        path=path, line=k + 1, field=f"[{k}].answer",
                    )  # fmt: skip
                out[inst.id] = reply
            return out
        aliases = {i.id: [str(i.data["idx"])] for i in instances}
        return match_ids(preds.by_id, aliases, what="EqInfer item")

    def prediction_rows(
        self, instances: Sequence[Instance], answers: Answers
    ) -> list[dict[str, Any]]:
        """``{"id", "pred"}`` with the reply at the headline budget (the first one listed, the
        one :meth:`score` reports), every budget's reply in ``raw``."""
        model = answers.models.get("llm")
        rows = []
        for inst in instances:
            by_budget = answers.by_instance.get(inst.id)
            if not by_budget:
                continue
            head = next(iter(by_budget))
            row: dict[str, Any] = {"id": inst.id, "pred": by_budget[head]}
            if len(by_budget) > 1 or head != IMPORTED:
                row["raw"] = {"context_words": dict(by_budget)}
            if model:
                row["model"] = model
            rows.append(row)
        return rows

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        gold = {i.id: i.data["answer"] for i in instances}
        keys = sorted({k for v in answers.by_instance.values() for k in v},
                      key=lambda k: (k == IMPORTED, int(k) if k.isdigit() else 0))  # fmt: skip
        if not keys:
            return score_eqinfer(gold, {})
        ordered = [k for k in (str(b) for b in self.budgets(options)) if k in keys] or keys
        results = {
            k: score_eqinfer(gold, {i: v.get(k) for i, v in answers.by_instance.items()})
            for k in ordered
        }
        head = results[ordered[0]]
        if len(ordered) > 1:
            head.classes = {f"context_words:{k}": r.aggregate for k, r in results.items()}
        return head

    def write_outputs(
        self,
        out_dir: Path,
        instances: Sequence[Instance],
        answers: Answers,
        result: TaskResult,
        options: Mapping[str, Any],
    ) -> list[Path]:
        files = super().write_outputs(out_dir, instances, answers, result, options)
        if result.classes:
            curve = {k.split(":", 1)[1]: v["accuracy"] for k, v in result.classes.items()}
            path = Path(out_dir) / "context_curve.json"
            atomic_write_text(path, json.dumps({"context_words": curve}, indent=2) + "\n")
            files.append(path)
            files.append(plot_curve(curve, Path(out_dir) / "context_curve.png"))
        return files

    def released_instances(self, data: Path) -> list[Instance]:
        from scholarkg.loaders.aaar import eqinfer_file, parse_eqinfer

        items = parse_eqinfer(eqinfer_file(data))
        return [Instance(it.uid, {"idx": it.index, "answer": it.answer}) for it in items]


def plot_curve(curve: Mapping[str, float | None], path: Path) -> Path:
    """Accuracy against context words per side (matplotlib, headless)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [int(k) for k in curve]
    ys = [curve[k] or 0.0 for k in curve]
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot(xs, ys, marker="o")
    ax.axhline(25.0, linestyle="--", color="grey", label="random")
    ax.set_xlabel("context words per side")
    ax.set_ylabel("accuracy (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path

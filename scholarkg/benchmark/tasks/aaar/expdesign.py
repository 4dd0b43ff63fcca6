"""AAAR-1.0 ExpDesign: suggest a paper's experiments from its pre-experiment text, and explain
the gold (oracle) experiments; S-P/S-R/S-F1, S-Match, ROUGE-L, ROUGE-1 (v1 protocol).

Context from the graph: the paper's ``pre-experiment`` Section cut to ``--context-words``
(default 2,000, the paper's budget for open models), optionally followed by a related-work
block (``--related-work``). Two generations per paper: the experiment list (parsed with the
released regex list parser) and the explanations of the *gold* experiments, either in one call
for the whole list (released) or one call per experiment (``--explain-mode one-by-one``).
Baseline ``copy-input`` (a ranker-kind source, no model): five random input sentences as the
experiments and each gold experiment copied as its own explanation, as in the paper.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.metrics.lists import parse_numbered_list
from scholarkg.benchmark.results import PublishedRow, ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    Instance,
    PredictionFormat,
    StageProgress,
    TaskOption,
)
from scholarkg.benchmark.tasks.aaar.predictions import (
    ExpDesignPrediction,
    read_expdesign_predictions,
)
from scholarkg.benchmark.tasks.aaar.scoring import score_expdesign
from scholarkg.benchmark.tasks.aaar.task import (
    MODEL_OPTIONS,
    RELATED_OPTIONS,
    SIMILARITY_OPTION,
    AaarTaskBase,
    file_models,
    head_words,
    match_ids,
)

if TYPE_CHECKING:
    from scholarkg.store.base import GraphReader

COLUMNS = ("S-F1", "S-P", "S-R", "S-Match", "ROUGE-L", "ROUGE-1")
_SRC = "AAAR-1.0 Table (ExpDesign, v1), real data, all-mpnet-base-v2"
PUBLISHED = tuple(
    PublishedRow(label, dict(zip(COLUMNS, values, strict=True)), _SRC)
    for label, values in (
        ("Copy Input", (21.13, 17.94, 26.76, 40.32, 22.06, 25.28)),
        ("GPT-4o", (53.00, 51.24, 55.12, 54.79, 27.54, 34.31)),
        ("Gemini 1.5 Pro", (51.87, 50.77, 53.37, 52.87, 28.52, 33.80)),
        ("Claude 3.5 Sonnet", (48.74, 46.49, 51.53, 53.03, 18.75, 26.15)),
        ("o1-preview", (46.67, 45.04, 48.70, 58.55, 29.11, 36.70)),
        ("Qwen 2.5-72B", (43.24, 51.73, 37.55, 51.12, 29.46, 34.68)),
        ("Mistral-7B", (37.62, 43.09, 34.19, 50.18, 30.20, 34.69)),
    )
)
COPY_INPUT = "copy-input"
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def copy_input(text: str, gold_experiments: Sequence[str], rng: random.Random,
               n: int = 5) -> ExpDesignPrediction:  # fmt: skip
    """The paper's "Copy Input" baseline: ``n`` random input sentences, gold copied as why."""
    sentences = [s.strip() for s in _SENTENCE.split(" ".join(text.split())) if s.strip()]
    picked = rng.sample(sentences, min(n, len(sentences)))
    return ExpDesignPrediction([f"{k + 1}. {s}" for k, s in enumerate(picked)],
                               list(gold_experiments))  # fmt: skip


class ExpDesignTask(AaarTaskBase):
    name = "aaar-expdesign"
    description = "AAAR-1.0 experiment design: experiment lists and oracle explanations"
    metrics = (
        TaskMetric("S-F1", "percent", description="per-paper soft F1, macro over papers"),
        TaskMetric("S-P", "percent"),
        TaskMetric("S-R", "percent"),
        TaskMetric("S-Match", "percent", description="aligned oracle explanations, cosine"),
        TaskMetric("ROUGE-L", "percent"),
        TaskMetric("ROUGE-1", "percent"),
    )
    options = (
        TaskOption("context_words", int, 2000, "words of the pre-experiment text in the prompt"),
        TaskOption("explain_mode", str, "whole-list", "explain the gold experiments in one "
                   "call (released) or one call each", choices=("whole-list", "one-by-one")),
        TaskOption("open_model", bool, True, "list-parser fallback of open models: a reply "
                   "without a numbered item becomes one item (closed models: no item)"),
        TaskOption("seed", int, 42, "random seed of the copy-input baseline"),
        SIMILARITY_OPTION,
        *MODEL_OPTIONS,
        *RELATED_OPTIONS,
    )  # fmt: skip
    answer_kinds = frozenset({"model", "predictions", "ranker"})
    rankers = (COPY_INPUT,)
    baseline = COPY_INPUT
    prediction_format = PredictionFormat(
        task="aaar-expdesign",
        answer_field="experiments",
        description="paper id (graph or arXiv id) -> experiments and explanations lists; "
        "'raw' holds the model's replies",
    )
    layout = ReportLayout(
        title="AAAR-1.0 ExpDesign (%, v1 protocol)",
        columns=COLUMNS,
        config_keys=("context_words", "explain_mode", "related_work", "similarity_model"),
        instance_label="paper",
        published=PUBLISHED,
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("context_words", "explain_mode", "related_work", "similarity_model")
        return {k: (str(options[k]) if options[k] is not None else None) for k in keys}

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        papers: dict[str, dict[str, Any]] = {}
        for r in store.run_named("aaar/expdesign_experiments", {}):
            p = papers.setdefault(r["paper"], {"arxiv_id": r["arxiv_id"], "experiments": [],
                                               "explanations": []})  # fmt: skip
            p["experiments"].append(r["experiment"])
            p["explanations"].append(r["explanation"] or "")
        sections = self.sections(store, list(papers))
        related = self.related_work(store, list(papers), options)
        out = []
        for pid, p in papers.items():
            text = "".join(s["text"] for s in sections.get(pid, [])
                           if s["kind"] == "pre-experiment")  # fmt: skip
            out.append(Instance(pid, {**p, "input": text, "related": related.get(pid, "")}))
        return out

    def context(self, inst: Instance, options: Mapping[str, Any]) -> str:
        text = head_words(inst.data["input"], int(options["context_words"]))
        return f"{text}\n\n{inst.data['related']}" if inst.data.get("related") else text

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        enc_name = self.encoder_name(options)
        if source.kind == "ranker":
            rng = random.Random(int(options["seed"]))
            by = {i.id: copy_input(i.data["input"], i.data["experiments"], rng) for i in instances}
            return Answers(by, source, params={"seed": options["seed"], "n": 5},
                           models={"encoder": enc_name})  # fmt: skip
        if source.kind == "predictions":
            assert source.path is not None
            return Answers(self.read_predictions(source.path, instances), source,
                           params={"path": str(source.path)},
                           models={**file_models(source.path), "encoder": enc_name})  # fmt: skip
        open_model = bool(options["open_model"])
        contexts = [self.context(i, options) for i in instances]
        exp_t = self.prompt("expdesign_experiments")
        texts, usage_e = self.generate(
            source.client, [exp_t.render(context=c) for c in contexts], options,
            stage="experiments", progress=progress,
        )  # fmt: skip
        experiments = [parse_numbered_list(t, open_model=open_model) for t in texts]
        raw: dict[str, dict[str, Any]] = {
            i.id: {"experiments": t} for i, t in zip(instances, texts, strict=True)
        }
        prompts = {"expdesign_experiments": exp_t.text}
        if options["explain_mode"] == "whole-list":
            why_t = self.prompt("expdesign_explain_list")
            whys_raw, usage_w = self.generate(
                source.client,
                [why_t.render(context=c, experiment_list="\n".join(i.data["experiments"]))
                 for c, i in zip(contexts, instances, strict=True)],
                options, stage="explanations", progress=progress,
            )  # fmt: skip
            whys = [parse_numbered_list(t, open_model=open_model) for t in whys_raw]
            for i, t in zip(instances, whys_raw, strict=True):
                raw[i.id]["explanations"] = t
        else:
            why_t = self.prompt("expdesign_explain_one")
            flat = [(k, why_t.render(context=c, experiment=e))
                    for k, (c, i) in enumerate(zip(contexts, instances, strict=True))
                    for e in i.data["experiments"]]  # fmt: skip
            replies, usage_w = self.generate(source.client, [p for _, p in flat], options,
                                             stage="explanations", progress=progress)  # fmt: skip
            whys = [[] for _ in instances]
            for (k, _), reply in zip(flat, replies, strict=True):
                whys[k].append(f"{len(whys[k]) + 1}. {' '.join(reply.split())}")
                raw[instances[k].id].setdefault("explanations", []).append(reply)
        prompts[why_t.name] = why_t.text
        by = {i.id: ExpDesignPrediction(e, w)
              for i, e, w in zip(instances, experiments, whys, strict=True)}  # fmt: skip
        return Answers(by, source, params=dict(options),
                       models={"llm": source.client.model, "encoder": enc_name},
                       extra={"usage": {"experiments": usage_e, "explanations": usage_w}},
                       prompts=prompts, raw=raw)  # fmt: skip

    def prediction_rows(
        self, instances: Sequence[Instance], answers: Answers
    ) -> list[dict[str, Any]]:
        """``{"id", "experiments", "explanations"}`` (the JSONL layout the reader takes)."""
        model = answers.models.get("llm")
        rows = []
        for inst in instances:
            pred = answers.by_instance.get(inst.id)
            if pred is None:
                continue
            row: dict[str, Any] = {"id": inst.id, "experiments": list(pred.experiments)}
            if pred.explanations is not None:
                row["explanations"] = list(pred.explanations)
            if inst.id in answers.raw:
                row["raw"] = answers.raw[inst.id]
            if model:
                row["model"] = model
            rows.append(row)
        return rows

    def encoder_name(self, options: Mapping[str, Any]) -> str:
        if self._encoder is not None or options.get("similarity_model"):
            return self.encoder(options)[1]
        from scholarkg.benchmark.metrics.similarity import AAAR_ITF_IDF_MODEL

        return f"{AAAR_ITF_IDF_MODEL} (bundled)"

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        encoder, _ = self.encoder(options)
        preds = [answers.by_instance.get(i.id) for i in instances]
        return score_expdesign(
            [i.id for i in instances],
            [i.data["experiments"] for i in instances],
            [i.data["explanations"] for i in instances],
            [p.experiments if p else None for p in preds],
            [p.explanations if p else None for p in preds],
            encoder=encoder,
        )

    def released_instances(self, data: Path) -> list[Instance]:
        from scholarkg.loaders.aaar import parse_folder

        return [
            Instance(
                p.graph_id,
                {"arxiv_id": p.id, "experiments": p.experiments, "explanations": p.explanations},
            )
            for p in parse_folder(data, "expdesign")
        ]

    def read_predictions(self, path: Path, instances: Sequence[Instance]) -> dict[str, Any]:
        """Each paper's predicted experiments, by graph id or arXiv id."""
        aliases = {i.id: [i.data.get("arxiv_id") or i.id] for i in instances}
        return match_ids(read_expdesign_predictions(path), aliases, what="ExpDesign paper")

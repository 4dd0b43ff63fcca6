"""ReviewCritique (Du et al., EMNLP 2024): flag the deficient segments of a review.

Two prompts per review, as in the paper: **Labeling-All** (a Yes/No label and, for No, an
explanation for every segment) and **Select-Deficient** (list only the deficient segments
with why). ``--ensemble`` picks what is scored: one prompt, or **Both-No** (flagged by both)
or **Either-No** (flagged by one; the paper's best). P, R and F1 of the *deficient* class are
averaged per review by default (``--average``; the paper's unit is unpublished, its F1 is
not pooled). Explanations of correctly flagged segments are scored with ROUGE-1/2/L, and with
BERTScore only when ``--bertscore-model`` names a local model directory (the paper's model is
unpublished). The paper text comes from the graph (its ``body`` Section, ``--paper-words``).
"""

from __future__ import annotations

import re
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
from scholarkg.benchmark.tasks.aaar.predictions import (
    ReviewPrediction,
    read_reviewcritique_predictions,
)
from scholarkg.benchmark.tasks.aaar.scoring import (
    AVERAGES,
    ENSEMBLES,
    GoldReview,
    PredictedReview,
    combine,
    score_reviewcritique,
)
from scholarkg.benchmark.tasks.aaar.task import (
    MODEL_OPTIONS,
    RELATED_OPTIONS,
    AaarTaskBase,
    file_models,
    head_words,
)
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.store.base import GraphReader

_SRC = "Du et al. 2024, ReviewCritique, real data (averaging unit unpublished)"
PUBLISHED = (
    PublishedRow("Claude Opus", {"P": 16.94, "R": 42.12, "F1": 21.99}, _SRC,
                 {"ensemble": "either-no"}),
    PublishedRow("GPT-4", {"P": 14.72, "R": 47.68, "F1": 20.66}, _SRC, {"ensemble": "either-no"}),
    PublishedRow("Gemini 1.5", {"P": 14.46, "R": 50.37, "F1": 20.34}, _SRC,
                 {"ensemble": "either-no"}),
    PublishedRow("Llama3-70B", {"P": 12.46, "R": 50.02, "F1": 18.43}, _SRC,
                 {"ensemble": "either-no"}),
    PublishedRow("Claude Opus", {"P": 16.86, "R": 34.26, "F1": 20.35}, _SRC,
                 {"ensemble": "label-all"}),
    PublishedRow("Claude Opus (explanations)", {"ROUGE-1": 20.18, "ROUGE-2": 3.69,
                 "ROUGE-L": 17.52, "BERTScore": 57.28}, _SRC),
    PublishedRow("GPT-4 (explanations)", {"ROUGE-1": 17.13, "ROUGE-2": 2.71, "ROUGE-L": 14.64,
                 "BERTScore": 55.63}, _SRC),
)  # fmt: skip

_LABEL_LINE = re.compile(r"^\W*(?:segment\s*)?(\d+)\s*[.):\]-]*\s*\**(yes|no)\b\**\W*(.*)$", re.I)
_SELECT_LINE = re.compile(r"^\W*(?:segment\s*)?(\d+)\s*[.):\]-]+\s*(.*)$", re.I)


def parse_label_all(reply: str, n: int) -> tuple[list[bool], list[str | None]]:
    """Flags and explanations from a Labeling-All reply; unlabelled segments are not flagged."""
    flags, expl = [False] * n, [None] * n  # type: list[bool], list[str | None]
    for line in reply.splitlines():
        m = _LABEL_LINE.match(line.strip())
        if m and 1 <= int(m.group(1)) <= n:
            k = int(m.group(1)) - 1
            flags[k] = m.group(2).lower() == "no"
            expl[k] = m.group(3).strip() or None if flags[k] else None
    return flags, expl


def parse_select(reply: str, n: int) -> tuple[list[bool], list[str | None]]:
    """Flags and explanations from a Select-Deficient reply (``"<number>: why"`` lines)."""
    flags, expl = [False] * n, [None] * n  # type: list[bool], list[str | None]
    for line in reply.splitlines():
        m = _SELECT_LINE.match(line.strip())
        if m and 1 <= int(m.group(1)) <= n:
            k = int(m.group(1)) - 1
            flags[k] = True
            expl[k] = m.group(2).strip() or None
    return flags, expl


class ReviewCritiqueTask(AaarTaskBase):
    name = "reviewcritique"
    description = "ReviewCritique: find the deficient segments of a review (P/R/F1, ROUGE)"
    reference = "Lou et al., arXiv 2410.22394 v1; Du et al. EMNLP 2024 (arXiv 2406.16253)"
    metrics = (
        TaskMetric("P", "percent", description="precision of the deficient class"),
        TaskMetric("R", "percent"),
        TaskMetric("F1", "percent", description="per unit (--average), then the mean"),
        TaskMetric("ROUGE-1", "percent", description="explanations of true positives"),
        TaskMetric("ROUGE-2", "percent"),
        TaskMetric("ROUGE-L", "percent"),
        TaskMetric("BERTScore", "percent", description="only with a local --bertscore-model"),
    )
    options = (
        TaskOption("ensemble", str, "either-no", "which flags are scored", choices=ENSEMBLES),
        TaskOption("average", str, "review", "P/R/F1 per review, per paper, or pooled (micro)",
                   choices=AVERAGES),
        TaskOption("paper_words", int, 3000, "words of the paper text in the prompt"),
        TaskOption("bertscore_model", Path, None, "local model directory for BERTScore"),
        TaskOption("bertscore_layers", int, 9, "BERTScore layer of that model"),
        TaskOption("source", str, "reviewcritique", "Review.source of the reviews to critique"),
        *MODEL_OPTIONS,
        *RELATED_OPTIONS,
    )  # fmt: skip
    prediction_format = PredictionFormat(
        task="reviewcritique",
        answer_field="deficient",
        description="(paper, review) -> one flag per segment: 'deficient', or 'label_all' and "
        "'select_deficient' combined by --ensemble; 'explanations'; 'raw' holds the replies",
        id_fields=("paper", "review"),
    )
    layout = ReportLayout(
        title="ReviewCritique (deficient segments, %)",
        columns=("P", "R", "F1", "ROUGE-1", "ROUGE-2", "ROUGE-L", "BERTScore"),
        config_keys=("ensemble", "average", "related_work"),
        instance_label="paper",
        published=PUBLISHED,
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {k: options[k] for k in ("ensemble", "average", "paper_words", "related_work")}

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        papers: dict[str, dict[str, Any]] = {}
        for r in store.run_named("aaar/reviewcritique_segments", {"source": options["source"]}):
            p = papers.setdefault(r["paper"], {"title": r["title"], "reviews": {}})
            rev = p["reviews"].setdefault(r["review"], {"segments": [], "deficient": [],
                                                        "explanations": []})  # fmt: skip
            rev["segments"].append(r["text"])
            rev["deficient"].append(bool(r["deficient"]))
            rev["explanations"].append(r["explanation"])
        sections = self.sections(store, list(papers))
        related = self.related_work(store, list(papers), options)
        out = []
        for pid, p in papers.items():
            body = "\n".join(s["text"] for s in sections.get(pid, []) if s["kind"] == "body")
            out.append(Instance(pid, {**p, "body": body, "related": related.get(pid, "")}))
        return out

    def gold(self, instances: Sequence[Instance]) -> list[GoldReview]:
        return [GoldReview(i.id, key, r["deficient"], r["explanations"])
                for i in instances for key, r in i.data["reviews"].items()]  # fmt: skip

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        if source.kind == "predictions":
            assert source.path is not None
            return Answers(self.read_predictions(source.path, instances), source,
                           params={"path": str(source.path)},
                           models=file_models(source.path))  # fmt: skip
        ensemble = options["ensemble"]
        run_label = ensemble != "select-deficient"
        run_select = ensemble != "label-all"
        units = [(i, key, r) for i in instances for key, r in i.data["reviews"].items()]
        prompts_used: dict[str, str] = {}
        labels: dict[tuple[str, str], ReviewPrediction] = {}
        replies: dict[str, list[str]] = {}
        usage: dict[str, Any] = {}
        for name, wanted in (("reviewcritique_label_all", run_label),
                             ("reviewcritique_select_deficient", run_select)):  # fmt: skip
            if not wanted:
                continue
            t = self.prompt(name)
            prompts_used[name] = t.text
            texts = [t.render(paper=self._paper(i, options), segments=_numbered(r["segments"]))
                     for i, _, r in units]  # fmt: skip
            replies[name], usage[name] = self.generate(source.client, texts, options,
                                                       stage=name, progress=progress)  # fmt: skip
        raw: dict[tuple[str, str], dict[str, str]] = {}
        for k, (inst, key, r) in enumerate(units):
            raw[(inst.id, key)] = {name: texts[k] for name, texts in replies.items()}
            n = len(r["segments"])
            la = parse_label_all(replies["reviewcritique_label_all"][k], n) if run_label else None
            sd = (parse_select(replies["reviewcritique_select_deficient"][k], n)
                  if run_select else None)  # fmt: skip
            expl = [(la[1][j] if la else None) or (sd[1][j] if sd else None) for j in range(n)]
            labels[(inst.id, key)] = ReviewPrediction(None, la[0] if la else None,
                                                      sd[0] if sd else None, expl)  # fmt: skip
        return Answers(labels, source, params=dict(options), models={"llm": source.client.model},
                       extra={"usage": usage}, prompts=prompts_used, raw=raw)  # fmt: skip

    def prediction_rows(
        self, instances: Sequence[Instance], answers: Answers
    ) -> list[dict[str, Any]]:
        """One row per (paper, review) with the flags of each prompt that ran (so a rescore
        may choose another ``--ensemble``), the explanations and the raw replies."""
        model = answers.models.get("llm")
        rows = []
        for inst in instances:
            for key in inst.data["reviews"]:
                pred = answers.by_instance.get((inst.id, key))
                if pred is None:
                    continue
                row: dict[str, Any] = {"paper": inst.id, "review": key}
                for name in ("deficient", "label_all", "select_deficient", "explanations"):
                    value = getattr(pred, name)
                    if value is not None:
                        row[name] = list(value)
                if (inst.id, key) in answers.raw:
                    row["raw"] = answers.raw[(inst.id, key)]
                if model:
                    row["model"] = model
                rows.append(row)
        return rows

    def _paper(self, inst: Instance, options: Mapping[str, Any]) -> str:
        text = (
            f"{inst.data['title']}\n\n{head_words(inst.data['body'], int(options['paper_words']))}"
        )
        return f"{text}\n\n{inst.data['related']}" if inst.data.get("related") else text

    def read_predictions(
        self, path: Path, instances: Sequence[Instance]
    ) -> dict[tuple[str, str], ReviewPrediction]:
        """Paper refs resolved: graph id, 1-based line (``line`` in the data), or title."""
        raw = read_reviewcritique_predictions(path)
        refs: dict[str, str] = {}
        for i in instances:
            refs[i.id] = i.id
            refs[str(i.data["title"])] = i.id
            if i.data.get("line") is not None:
                refs[str(i.data["line"])] = i.id
        out = {}
        for (paper, review), pred in raw.items():
            if paper not in refs:
                raise InputError(f"prediction for unknown paper {paper!r}", path=path,
                                 field="paper")  # fmt: skip
            out[(refs[paper], review)] = pred
        return out

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        ensemble = options["ensemble"]
        preds: dict[tuple[str, str], PredictedReview] = {}
        for key, p in answers.by_instance.items():
            flags = (
                p.deficient
                if p.deficient is not None
                else combine(ensemble, p.label_all, p.select_deficient)
            )
            preds[key] = PredictedReview(flags, p.explanations)
        bert = options.get("bertscore_model")
        return score_reviewcritique(
            self.gold(instances), preds, average=options["average"],
            bertscore_model=str(bert) if bert else None,
            bertscore_layers=int(options["bertscore_layers"]),
        )  # fmt: skip

    def released_instances(self, data: Path) -> list[Instance]:
        from scholarkg.loaders.aaar import parse_reviewcritique

        instances = []
        for p in parse_reviewcritique(data):
            reviews = {r.key: {"segments": [s.text for s in r.segments],
                               "deficient": [s.deficient for s in r.segments],
                               "explanations": [s.explanation for s in r.segments]}
                       for r in p.reviews}  # fmt: skip
            instances.append(Instance(p.id, {"title": p.title, "line": p.line,
                                             "reviews": reviews}))  # fmt: skip
        return instances


def _numbered(segments: Sequence[str]) -> str:
    return "\n".join(f"{k}. {s}" for k, s in enumerate(segments, start=1))

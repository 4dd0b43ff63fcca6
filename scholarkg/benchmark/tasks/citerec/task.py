"""``citerec``: local citation recommendation on ``<REF>`` contexts (citeBench: Maharjan, arXiv
2412.07713).

One instance = one citing sentence holding exactly one citation (``n_refs = 1``), the marker
replaced by ``<REF>``; gold = the cited paper; answer = a ranked list of papers. Metrics
(the citeBench paper (Maharjan, arXiv 2412.07713), K = 10): Recall@10 = share of contexts whose
gold is in the top 10 (one
gold, so the hit rate) and MRR@10, both as fractions, overall and per class
(``TaskResult.classes``, labels ``"<diagnostic dataset>:<class>"``, e.g. ``"intent:method"``;
contexts outside a diagnostic dataset are grouped by ``"section:<name>"``). Platform rules
the paper leaves open: duplicate ids keep their first rank; a context without an answer
scores 0; the citing paper is removed from every ranking; no publication-date filter.

``--dataset`` is ``contexts`` (every loaded single-citation sentence; ``--source`` picks
``s2orc`` or ``unarxive``) or the name of a diagnostic dataset built by ``scholarkg bench
build citerec-diagnostics`` (e.g. ``citebench/fields``). Instances are split into ``dev`` and
``test`` by a hash of the *citing paper* (``--dev-share``), so no paper's contexts are on both
sides; ``hybrid-learned`` is fitted on ``dev`` and every ranker is scored on ``--split``.

The graph side of each context: the citing paper's other references (its ``CITES`` edges
minus the gold) seed the graph rankers (``recommenders.py``); graph features come from named
Cypher queries and from the resident projection (``graphalgo/projection.py``), cached next to
the store.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scholarkg.benchmark.metrics.ir import evaluate
from scholarkg.benchmark.results import ReportLayout, Score, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    BenchmarkTask,
    Instance,
    StageProgress,
    TaskOption,
)
from scholarkg.benchmark.tasks.citerec.recommenders import RANKERS, ContextQuery, LearnedFusion
from scholarkg.errors import InputError
from scholarkg.store.base import GraphReader, full_store
from scholarkg.textio import atomic_write_text

METRICS = ("Recall@10", "MRR@10")
_IR_NAMES = {"Recall@10": "R@10", "MRR@10": "MRR@10"}


def split_of(citing: str, dev_share: float) -> str:
    """``dev`` or ``test`` for a citing paper, stable across runs and machines."""
    h = int(hashlib.sha256(citing.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "dev" if h < dev_share else "test"


def context_queries(instances: Sequence[Instance]) -> list[ContextQuery]:
    return [
        ContextQuery(
            id=i.id,
            text=i.data["text"],
            citing=i.data["citing"],
            known_refs=tuple(i.data["known_refs"]),
            year=i.data.get("year"),
        )
        for i in instances
    ]


class CiteRecTask(BenchmarkTask):
    """Local citation recommendation; see the module docstring."""

    name = "citerec"
    family = "citerec"
    description = "rank the cited paper for a <REF> citing sentence (citeBench diagnostics)"
    reference = "Maharjan, arXiv 2412.07713 (Table 1 layout)"
    metrics = (
        TaskMetric("Recall@10", "fraction", decimals=3, description="gold in the top 10"),
        TaskMetric("MRR@10", "fraction", decimals=3, description="1/rank of the gold if <= 10"),
    )
    options = (
        TaskOption("dataset", str, "contexts", "'contexts' or a diagnostic dataset name"),
        TaskOption("source", str, None, "contexts: only this source (s2orc, unarxive)"),
        TaskOption(
            "split", str, "test", "which contexts are scored", choices=("test", "dev", "all")
        ),
        TaskOption("dev_share", float, 0.3, "share of citing papers in the dev split"),
        TaskOption("depth", int, 100, "candidates each component ranker contributes"),
        TaskOption("projection_cache", Path, None, "projection cache dir (default: store's)"),
    )
    rankers = RANKERS
    baseline = "bm25"
    #: the graph + text recommenders this project adds (bm25 is the published baseline)
    ours = ("ppr", "hybrid", "hybrid-dense", "hybrid-learned")
    layout = ReportLayout(
        title="Local citation recommendation (citeBench layout: Recall@10 / MRR@10 per class)",
        columns=METRICS,
        config_keys=("dataset", "split"),
        instance_label="context",
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {k: options[k] for k in ("dataset", "source", "split", "dev_share", "depth")}

    # -- instances -----------------------------------------------------------------------

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        return self._instances(store, options, options["split"])

    def _instances(
        self, store: GraphReader, options: Mapping[str, Any], split: str
    ) -> list[Instance]:
        if not 0.0 <= options["dev_share"] < 1.0:
            raise InputError("--dev-share must be in [0, 1)", field="dev_share")
        name = options["dataset"]
        if name == "contexts":
            rows = store.run_named("citerec/context_instances", {"source": options["source"]})
        else:
            rows = store.run_named("citerec/diagnostic_instances", {"dataset": f"diag:{name}"})
            if not rows:
                raise InputError(
                    f"no diagnostic dataset {name!r} in graph {store.graph!r}; build it with "
                    "'scholarkg bench build citerec-diagnostics'",
                    field="dataset",
                )
        refs: dict[str, list[str]] = {}
        out = []
        for r in rows:
            citing = str(r["citing"])
            if split != "all" and split_of(citing, options["dev_share"]) != split:
                continue
            if citing not in refs:
                refs[citing] = [
                    str(x["id"])
                    for x in store.run_named("citerec/citing_references", {"citing": citing})
                ]
            gold = str(r["gold"])
            classes = []
            if r.get("diag_dataset") and r.get("class"):
                classes.append(f"{r['diag_dataset']}:{r['class']}")
            elif r.get("section"):
                classes.append(f"section:{r['section']}")
            out.append(
                Instance(
                    id=str(r["id"]),
                    data={
                        "text": r["text"],
                        "citing": citing,
                        "gold": gold,
                        "year": r.get("year"),
                        "classes": classes,
                        "known_refs": [x for x in refs[citing] if x != gold],
                    },
                )
            )
        return out

    # -- answers ---------------------------------------------------------------------------

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        from scholarkg.benchmark.tasks.citerec.build import build_recommender

        extra: dict[str, Any] = {}
        graph = full_store(store, f"citation recommendation's {source.name!r} ranker")
        ranker = build_recommender(source.name, graph, source.params, options, extra, progress)
        if source.name == "hybrid-learned":
            dev = self._instances(store, options, "dev")
            assert isinstance(ranker, LearnedFusion)  # what build_recommender builds for it
            extra["fit"] = ranker.fit(context_queries(dev), {i.id: i.data["gold"] for i in dev})
        out: dict[str, list[str]] = {}
        queries = context_queries(instances)

        def encoded(done: int) -> None:
            if progress is not None:
                progress("encode queries", done, len(queries))

        ranker.prepare_contexts(queries, encoded)  # dense inputs: one batched encoding
        for n, q in enumerate(queries, start=1):
            out[q.id] = ranker.rank_context(q, 10).ids
            if progress is not None and (n % 200 == 0 or n == len(queries)):
                progress("answer", n, len(queries))
        return Answers(by_instance=out, source=source, params=dict(ranker.params), extra=extra)

    # -- scores ----------------------------------------------------------------------------

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        qrels = {i.id: {i.data["gold"]: 1.0} for i in instances}
        run = {i.id: list(answers.by_instance.get(i.id, [])) for i in instances}
        res = evaluate(qrels, run, list(_IR_NAMES.values()), on_unknown="ignore")
        per: dict[str, dict[str, Score]] = {
            q: {m: v[_IR_NAMES[m]] for m in METRICS} for q, v in res.per_query.items()
        }
        aggregate: dict[str, Score] = {m: res.aggregate[_IR_NAMES[m]] for m in METRICS}
        groups: dict[str, list[str]] = defaultdict(list)
        for i in instances:
            for label in i.data.get("classes", []):
                groups[label].append(i.id)
        classes: dict[str, dict[str, Score]] = {
            label: {m: sum(res.per_query[q][_IR_NAMES[m]] for q in ids) / len(ids) for m in METRICS}
            for label, ids in sorted(groups.items())
        }
        n = {m: len(instances) for m in METRICS}
        return TaskResult(aggregate=aggregate, per_instance=per, classes=classes, n=n)

    def write_outputs(
        self,
        out_dir: Path,
        instances: Sequence[Instance],
        answers: Answers,
        result: TaskResult,
        options: Mapping[str, Any],
    ) -> list[Path]:
        """``metrics.json``, ``table.md`` and ``run.jsonl`` (top 10 per context)."""
        files = super().write_outputs(out_dir, instances, answers, result, options)
        run_path = out_dir / "run.jsonl"
        lines = [
            json.dumps(
                {"id": i.id, "gold": i.data["gold"], "ranking": answers.by_instance.get(i.id, [])}
            )
            for i in instances
        ]
        atomic_write_text(run_path, "\n".join(lines) + "\n")
        return [*files, run_path]

    def results_table(self, result: TaskResult, source: str, options: Mapping[str, Any]) -> str:
        """citeBench's own shape: one row per diagnostic class (:func:`class_table`)."""
        return class_table(result, source)


def class_table(result: TaskResult, model: str) -> str:
    """The published layout: one row per class (dataset: class), Recall@10 and MRR@10."""
    rows = ["| class | Recall@10 | MRR@10 |", "|---|---:|---:|"]
    for label, scores in result.classes.items():
        rows.append(f"| {label} | {scores['Recall@10']:.3f} | {scores['MRR@10']:.3f} |")
    agg = result.aggregate
    rows.append(f"| **all** | {agg['Recall@10']:.3f} | {agg['MRR@10']:.3f} |")
    return f"### {model}\n\n" + "\n".join(rows) + "\n"

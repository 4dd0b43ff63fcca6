"""The DORIS-MAE task on the task interface: re-rank each query's pool, score as upstream.

Instances come from the graph: one per query (``--task full``; id = the query's list index
in ``Query``) or per two-aspect sub-query (``--task subquery``; id ``<qid>:<a>+<b>``), each
with its pool (abstract ids in pool order) and the query-level raw relevance S(p|Q) and
unit count |Q| from **one Cypher aggregation** (``queries/dorismae/relevance.cypher``).
Scoring is ``metrics.dorismae.evaluate_dorismae`` (upstream protocol: R@k/RP/MAP over
queries with a relevant abstract, NDCG/MRR over all), reported ×100 as published, with
seeded bootstrap 95 % intervals per metric.

``--pool corpus`` ranks every loaded abstract through the store's vector index (dense
rankers only); abstracts outside the pool are unjudged and count as raw S = 0.

Outputs (``--out DIR``): ``run.trec`` (qid = query id, docid = ``abstract_id``),
``metrics.json`` (``{"aggregate", "per_query", "units", "intervals"}``), ``table.md`` (our
means and intervals beside the published rows of the same configuration), and the two qrels
files that let ``scholarkg score ir`` re-score ``run.trec``: ``qrels.graded.trec`` (raw S
of every pool abstract: ``NDCG_10%``, ``NDCGexp_10%``, ``MRRmax@10``) and
``qrels.binary.trec`` (1 = relevant: ``R@5``, ``R@20``, ``RP``, ``MAP``; only queries with a
relevant abstract, as DORIS-MAE averages them). ``score ir --unjudged-queries ignore`` on the
binary qrels gives the same means as ``metrics.json``.
"""

from __future__ import annotations

import logging
import zlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from itertools import product
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from scholarkg.benchmark.metrics.dorismae import (
    PUBLISHED_METRICS,
    DorisRelevance,
    evaluate_dorismae,
)
from scholarkg.benchmark.metrics.stats import bootstrap_ci
from scholarkg.benchmark.rankers.base import Ranker, Ranking, RunQuery, RunRanker
from scholarkg.benchmark.rankers.bm25 import corpus_hash
from scholarkg.benchmark.rankers.fusion import RRF_K, RunFusion, comb_sum
from scholarkg.benchmark.results import PublishedRow, ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    BenchmarkTask,
    Instance,
    StageProgress,
    TaskOption,
)
from scholarkg.benchmark.tasks.dorismae import rankers as R
from scholarkg.errors import InputError, NotSupported
from scholarkg.loaders.dorismae import TEST_SPLIT_QIDS
from scholarkg.schema.dorismae import SOURCE
from scholarkg.store.base import GraphReader, GraphStore, full_store

log = logging.getLogger(__name__)

#: our metric names (issue 11's metrics.json keys) -> the metrics library's names
METRIC_NAMES: dict[str, str] = {
    "R@5": "R@5",
    "R@20": "R@20",
    "RP": "RP",
    "NDCG10%": "NDCG_10%",
    "NDCGexp10%": "NDCGexp_10%",
    "MRR@10": "MRR@10",
    "MAP": "MAP",
}
assert tuple(METRIC_NAMES.values()) == PUBLISHED_METRICS
BASELINES = ("random", "bm25", "tfidf", "dense", "sentence-maxsim")
OURS = ("aspect-bm25", "aspect-dense", "aspect-both", "graph-ppr", "hybrid-rrf", "fusion-learned")
#: rankers the learned fusion and the RRF hybrid combine
FUSED = ("bm25", "dense", "aspect-bm25", "aspect-dense")
_T11 = "DORIS-MAE Table 11 (100 queries, whole text), published on the real data"


def _row(label: str, values: Sequence[float], source: str, **config: str) -> PublishedRow:
    return PublishedRow(label, dict(zip(METRIC_NAMES, values, strict=True)), source, config)


PUBLISHED: tuple[PublishedRow, ...] = (
    _row("random", (4.41, 18.48, 16.29, 48.71, 7.31, 3.59, 19.63), _T11, task="full"),
    _row("ada-002", (15.38, 42.84, 35.81, 72.48, 27.46, 19.88, 40.37), _T11, task="full"),
    _row("E5-L-v2", (16.51, 43.77, 37.46, 70.11, 25.90, 14.85, 40.49), _T11, task="full"),
    _row("SimCSE", (14.90, 42.62, 35.27, 70.18, 26.88, 21.19, 39.02), _T11, task="full"),
    _row("SPECTER-v2", (14.50, 43.36, 33.41, 70.19, 25.65, 17.19, 37.12), _T11, task="full"),
    _row("SPLADE-v2", (14.78, 40.14, 31.65, 71.29, 26.08, 17.82, 37.23), _T11, task="full"),
    _row(
        "RocketQA-v2 (sentences, Table 12)",
        (15.55, 45.38, 34.43, 73.07, 30.27, 20.79, 40.25),
        _T11,
        task="full",
    ),
    _row("TF-IDF", (10.71, 29.22, 24.79, 58.31, 18.25, 12.41, 28.77), _T11, task="full"),
    _row("BM25", (8.47, 30.50, 21.94, 51.46, 13.23, 9.19, 25.99), _T11, task="full"),
    _row("SciBERT", (5.13, 17.99, 17.13, 47.28, 7.50, 3.41, 20.34), _T11, task="full"),
    *(
        _row(
            m,
            v,
            "DORIS-MAE Table 14 (60-query test split), published on the real data",
            task="full",
            queries="test",
        )
        for m, v in (
            ("random", (4.58, 17.91, 17.34, 50.22, 7.36, 3.32, 20.69)),
            ("ada-002", (15.80, 40.87, 37.64, 73.92, 28.47, 23.29, 41.72)),
            ("BM25", (6.86, 26.43, 22.45, 51.55, 12.29, 8.65, 26.00)),
        )
    ),
    *(
        _row(
            m,
            v,
            "DORIS-MAE Table 15 (two-aspect sub-queries), published on the real data",
            task="subquery",
        )
        for m, v in (
            ("random", (4.60, 18.76, 21.55, 41.10, 15.06, 5.92, 24.71)),
            ("ada-002", (13.47, 40.22, 47.34, 69.78, 38.97, 24.29, 51.65)),
            ("BM25", (9.14, 31.68, 31.22, 51.05, 25.52, 14.74, 33.94)),
        )
    ),
)


class DorisMaeTask(BenchmarkTask):
    """DORIS-MAE: re-rank each complex query's candidate pool (the DORIS-MAE paper (Wang et al.,
    arXiv 2310.04678))."""

    name = "dorismae"
    family = "dorismae"
    description = (
        "Re-rank the candidate pool of each complex multi-aspect query (or two-aspect "
        "sub-query); relevance is the sum of per-aspect GPT grades, metrics as upstream."
    )
    reference = (
        "Wang et al., arXiv 2310.04678, Tables 11, 14, 15; "
        "Real-Doris-Mae/Doris-Mae-Dataset:benchmarking/rank_performance_util.py"
    )
    metrics = tuple(TaskMetric(n, "percent") for n in METRIC_NAMES)
    options = (
        TaskOption(
            "task",
            str,
            "full",
            "full queries or two-aspect sub-queries",
            choices=("full", "subquery"),
        ),
        TaskOption(
            "pool",
            str,
            "candidates",
            "re-rank the pool, or search every abstract",
            choices=("candidates", "corpus"),
        ),
        TaskOption(
            "queries",
            str,
            "all",
            "query set: all, the 60-query test split, first 50",
            choices=("all", "test", "first50"),
        ),
        TaskOption("encoder", str, "minilm", "embedding model (alias, HF id or directory)"),
        TaskOption("backend", str, "torch", "embedding backend", choices=("torch", "torch-int8")),
        TaskOption("trials", int, 100, "random ranker: seeded trials averaged (upstream: 100)"),
        TaskOption(
            "judgements",
            str,
            "gpt",
            "whose grades define relevance: the dataset's GPT grades, or an LLM's (annotate.py)",
            choices=("gpt", "llm"),
        ),
    )
    answer_kinds = frozenset({"ranker"})
    rankers = BASELINES + OURS
    baseline = "bm25"
    ours = OURS
    layout = ReportLayout(
        title="DORIS-MAE (columns of Tables 11-15, ×100)",
        columns=tuple(METRIC_NAMES),
        config_keys=("task", "pool", "queries"),
        instance_label="query",
        published=PUBLISHED,
    )
    #: seeds of the bootstrap intervals (reports must be reproducible)
    bootstrap_seed: ClassVar[int] = 0

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        keep = ("task", "pool", "queries", "encoder", "backend", "judgements")
        return {k: options[k] for k in keep}

    # ------------------------------------------------------------------ instances
    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        sub = options["task"] == "subquery"
        params = {"source": SOURCE}
        heads = store.run_named("dorismae/subqueries" if sub else "dorismae/queries", params)
        rel_rows = store.run_named(
            "dorismae/subquery_relevance" if sub else "dorismae/relevance",
            {**params, "judge": options["judgements"]},
        )
        unit_rows = store.run_named(
            "dorismae/subquery_units" if sub else "dorismae/query_units", params
        )
        pool_rows = store.run_named("dorismae/pools", params)
        raw: dict[str, dict[int, tuple[int, float]]] = defaultdict(dict)
        n_units: dict[str, int] = {}
        for r in rel_rows:
            raw[str(r["qid"])][int(r["abstract_id"])] = (int(r["position"]), float(r["raw"]))
            n_units[str(r["qid"])] = int(r["n_units"])
        units: dict[str, list[str]] = defaultdict(list)
        for r in unit_rows:
            units[str(r["qid"])].append(r["text"] or "")
        texts: dict[str, dict[str, str]] = defaultdict(dict)
        papers: dict[str, str] = {}
        for r in pool_rows:
            aid = str(r["abstract_id"])
            texts[str(r["qid"])][aid] = r["abstract"] or r["title"] or ""
            papers[aid] = str(r["paper"])
        instances = []
        for h in heads:
            qid, parent = str(h["qid"]), str(h["parent"])
            if qid not in raw:
                continue  # a query without units or pool cannot be scored
            if options["queries"] == "test" and parent not in TEST_SPLIT_QIDS:
                continue
            if options["queries"] == "first50" and int(parent) >= 50:
                continue
            ordered = sorted(raw[qid].items(), key=lambda kv: kv[1][0])
            pool = [str(a) for a, _ in ordered]
            instances.append(
                Instance(
                    id=qid,
                    data={
                        "text": h["text"],
                        "parent": parent,
                        "type": h["type"],
                        "pool": pool,
                        "raw": {str(a): s for a, (_, s) in ordered},
                        "n_units": n_units[qid],
                        "units": sorted(set(units[qid])),
                        "texts": texts[parent],
                        "papers": {a: papers[a] for a in pool},
                    },
                )
            )
        instances.sort(key=_instance_order)
        return instances

    # ------------------------------------------------------------------ answers
    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        name = source.name
        if options["pool"] == "corpus":
            corpus = full_store(store, "ranking the whole corpus (its vectors are stored)")
            return self._answer_corpus(corpus, instances, source, options, progress)
        if name == "random":
            trials = int(source.params.get("trials", options["trials"]))
            if trials < 1:
                raise InputError("trials must be >= 1", field="trials")
            random_ranker = R.UpstreamRandomRanker(seed=0)
            by = {
                i.id: random_ranker.rank(
                    i.data["text"], len(i.data["pool"]), candidates=i.data["pool"]
                ).ids
                for i in instances
            }
            return Answers(
                by,
                source,
                params={**random_ranker.params, "trials": trials},
                extra={"run.trec": "trial 0 (seed 0)"},
            )
        built = RankerKit(store, instances, source, options, progress)
        ranker = built.ranker(name)
        rankings = built.rank_all(ranker, progress)
        return Answers(
            {q: r.ids for q, r in rankings.items()},
            source,
            params={"ranker": name, **ranker.params},
            models=built.models(),
            extra=built.extra,
        )

    def _answer_corpus(
        self,
        store: GraphStore,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None,
    ) -> Answers:
        from scholarkg.benchmark.rankers.dense import StoreDenseRanker
        from scholarkg.services.embeddings import embed_nodes

        if source.name != "dense":
            raise NotSupported("--pool corpus searches the vector index: use --ranker dense")
        embedder = _embedder(source, options)

        def step(done: int, total: int) -> None:
            if progress:
                progress("encode", done, total)

        report = embed_nodes(store, "Paper", ("abstract",), embedder=embedder, progress=step)
        ranker = StoreDenseRanker(store, "Paper", embedder)
        by_paper = _paper_to_abstract(store)
        out: dict[str, list[str]] = {}
        for n, inst in enumerate(instances, 1):
            k = len(inst.data["pool"])
            hits = ranker.rank(inst.data["text"], k + 5)
            out[inst.id] = [by_paper[p] for p in hits.ids if p in by_paper][:k]
            if progress:
                progress("answer", n, len(instances))
        return Answers(
            out,
            source,
            params={"ranker": "dense", "pool": "corpus", **ranker.params},
            models={"encoder": embedder.name},
            extra={"embedded": report.n_embedded, "skipped": report.n_skipped},
        )

    # ------------------------------------------------------------------ scores
    def relevance(
        self, instances: Sequence[Instance], answers: Answers | None = None
    ) -> DorisRelevance:
        """The library's relevance object from the instances (plus unjudged retrieved ids)."""
        raw = {i.id: dict(i.data["raw"]) for i in instances}
        if answers is not None:
            for q, ranking in answers.by_instance.items():
                for d in ranking:
                    raw.get(q, {}).setdefault(str(d), 0.0)  # corpus mode: unjudged = 0
        return DorisRelevance(raw, {i.id: int(i.data["n_units"]) for i in instances})

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        relevance = self.relevance(instances, answers)
        qids = [i.id for i in instances]
        trials = int(answers.params.get("trials", 1)) if answers.source.name == "random" else 1
        if trials > 1:
            per = _random_trials(relevance, instances, trials)
        else:
            res = evaluate_dorismae(relevance, answers.by_instance, PUBLISHED_METRICS, queries=qids)
            per = res.per_query
        per_instance: dict[str, dict[str, float | None]] = {}
        for q in qids:
            vals = per.get(q, {})
            per_instance[q] = {
                ours: (100.0 * vals[lib] if lib in vals else None)
                for ours, lib in METRIC_NAMES.items()
            }
        aggregate: dict[str, float | None] = {}
        intervals: dict[str, tuple[float, float]] = {}
        n: dict[str, int] = {}
        for ours in METRIC_NAMES:
            col = [value for v in per_instance.values() if (value := v[ours]) is not None]
            n[ours] = len(col)
            aggregate[ours] = float(np.mean(col)) if col else None
            if col:
                intervals[ours] = bootstrap_ci(col, seed=self.bootstrap_seed)
        return TaskResult(aggregate, per_instance, intervals=intervals, n=n)

    def results_table(self, result: TaskResult, source: str, options: Mapping[str, Any]) -> str:
        """The shared layout table, with DORIS-MAE's rule for published rows: a row that names
        no query set is the paper's full-set number, shown only for a run on every query."""
        from scholarkg.benchmark.outputs import layout_table
        from scholarkg.benchmark.tasks.dorismae.table import published_for

        configuration = self.configuration(options)
        published = published_for(self.layout, configuration)
        return layout_table(
            self.layout,
            [(source, result)],
            configuration,
            decimals=self.decimals(),
            published=published,
        )

    def write_outputs(
        self,
        out_dir: Path,
        instances: Sequence[Instance],
        answers: Answers,
        result: TaskResult,
        options: Mapping[str, Any],
    ) -> list[Path]:
        from scholarkg.benchmark.metrics.trec import write_qrels, write_run

        files = super().write_outputs(out_dir, instances, answers, result, options)
        relevance = self.relevance(instances, answers)
        run = {i.id: [str(d) for d in answers.by_instance.get(i.id, [])] for i in instances}
        tag = answers.source.name.replace(" ", "_") or "scholarkg"
        write_run(out_dir / "run.trec", {q: r for q, r in run.items() if r}, tag=tag)
        write_qrels(out_dir / "qrels.graded.trec", relevance.raw)
        # DORIS-MAE leaves a query without a relevant abstract out of R@k, RP and MAP, so the
        # binary qrels leave it out too: `score ir --unjudged-queries ignore` then gives the
        # same means as metrics.json
        binary = {
            q: {d: (1.0 if d in relevance.relevant(q) else 0.0) for d in docs}
            for q, docs in relevance.raw.items()
            if relevance.relevant(q)
        }
        write_qrels(out_dir / "qrels.binary.trec", binary)
        return [
            *files,
            out_dir / "run.trec",
            out_dir / "qrels.graded.trec",
            out_dir / "qrels.binary.trec",
        ]


def _instance_order(inst: Instance) -> tuple[int, str]:
    parent = inst.data.get("parent", inst.id)
    return (int(parent) if str(parent).isdigit() else 10**9, inst.id)


def _random_trials(
    relevance: DorisRelevance, instances: Sequence[Instance], trials: int
) -> dict[str, dict[str, float]]:
    """Upstream's random baseline: per-query metric means over trials t = 0..trials-1."""
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    qids = [i.id for i in instances]
    for t in range(trials):
        ranker = R.UpstreamRandomRanker(seed=t)
        run = {
            i.id: ranker.rank(i.data["text"], len(i.data["pool"]), candidates=i.data["pool"]).ids
            for i in instances
        }
        res = evaluate_dorismae(relevance, run, PUBLISHED_METRICS, queries=qids)
        for q, vals in res.per_query.items():
            for m, v in vals.items():
                sums[q][m] += v
    return {q: {m: v / trials for m, v in vals.items()} for q, vals in sums.items()}


def _embedder(source: AnswerSource, options: Mapping[str, Any]) -> Any:
    given = source.params.get("embedder")
    if given is not None:
        return given
    from scholarkg.services.embeddings import load_embedder

    # the model's own token limit: DORIS-MAE abstracts are long and the task's figures are
    # compared with the paper's encoders at full length
    return load_embedder(options["encoder"], backend=options["backend"], native_length=True)


def _paper_to_abstract(store: GraphStore) -> dict[str, str]:
    out: dict[str, str] = {}
    after = -1
    while True:
        rows = store.run_named("dorismae/corpus", {"after": after, "limit": 5000})
        for r in rows:
            out[str(r["paper"])] = str(r["abstract_id"])
        if len(rows) < 5000:
            return out
        after = int(rows[-1]["abstract_id"])


class RankerKit:
    """Builds any named ranker for a run, sharing the texts, vectors and citations it needs."""

    def __init__(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> None:
        self.store = store
        self.progress = progress
        self.instances = list(instances)
        self.source = source
        self.options = options
        self.texts: dict[str, str] = {}
        for inst in instances:
            self.texts.update(inst.data["texts"])
        self.units = {i.data["text"]: i.data["units"] for i in instances}
        self._vectors: R.VectorStore | None = None
        self._citations: dict[str, list[str]] | None = None
        #: which texts the run ranked (abstract id and text, in id order): two runs with
        #: equal configs and different scores show here whether the graph's text differed
        order = sorted(self.texts, key=lambda a: (len(a), a))  # abstract ids, numerically
        self.extra: dict[str, Any] = {
            "texts_sha256": corpus_hash(order, [self.texts[a] for a in order])
        }

    def vectors(self) -> R.VectorStore:
        if self._vectors is None:
            embedder = _embedder(self.source, self.options)
            n = len(self.texts)

            def step(done: int) -> None:
                if self.progress is not None:
                    self.progress("encode", done, n)

            self._vectors = R.VectorStore(embedder, self.texts, progress=step)
        return self._vectors

    def citations(self) -> dict[str, list[str]]:
        """Citations among the pool abstracts, from the graph (``edge_snapshot``)."""
        if self._citations is None:
            by_paper: dict[str, str] = {}
            for inst in self.instances:
                by_paper.update({p: a for a, p in inst.data["papers"].items()})
            store = full_store(self.store, "the citations among the pool abstracts")
            snap = store.edge_snapshot("Paper", "CITES", node_ids=sorted(by_paper))
            out: dict[str, list[str]] = defaultdict(list)
            for s, d in zip(snap.src.tolist(), snap.dst.tolist(), strict=True):
                out[by_paper[snap.ids[s]]].append(by_paper[snap.ids[d]])
            self._citations = dict(out)
        return self._citations

    def ranker(self, name: str) -> RunRanker:
        """The ranker called ``name``: a per-query :class:`Ranker` or a run-level fusion."""
        p = self.source.params
        if name == "bm25":
            return R.PoolBM25Ranker(self.texts)
        if name == "tfidf":
            return R.PoolTfidfRanker(self.texts)
        if name == "dense":
            return R.VectorRanker(self.vectors())
        if name == "sentence-maxsim":
            return R.SentenceMaxSimRanker(self.vectors())
        if name.startswith("aspect-"):
            mode = name.split("-", 1)[1]
            vec = self.vectors() if mode in ("dense", "both") else None
            return R.AspectRanker(self.units, mode=mode, texts=self.texts, vectors=vec)
        if name == "graph-ppr":
            base_name = str(p.get("base", "aspect-bm25"))
            base = self.ranker(base_name)
            if not isinstance(base, Ranker):
                raise NotSupported(
                    f"graph-ppr re-ranks one query at a time; {base_name!r} ranks whole runs"
                )
            return R.GraphRerankRanker(
                base,
                self.citations(),
                seeds=int(p.get("seeds", 10)),
                weight=float(p.get("weight", 0.5)),
            )
        if name == "hybrid-rrf":
            parts = [self.ranker(str(x)) for x in p.get("inputs", FUSED)]
            return RunFusion(
                parts,
                method="rrf",
                name=name,
                params={"inputs": [r.name for r in parts], "method": f"rrf k={RRF_K}"},
            )
        if name == "fusion-learned":
            parts = [self.ranker(str(x)) for x in p.get("inputs", FUSED)]
            return CrossFittedFusion(parts, self.instances, report=self.extra)
        raise InputError(f"unknown DORIS-MAE ranker {name!r}", field="ranker")

    def models(self) -> dict[str, str]:
        return {"encoder": self._vectors.embedder.name} if self._vectors is not None else {}

    def queries(self) -> list[RunQuery]:
        """Every instance as a run query: rank its whole pool."""
        return [
            RunQuery(i.id, i.data["text"], len(i.data["pool"]), i.data["pool"])
            for i in self.instances
        ]

    def rank_all(
        self, ranker: RunRanker, progress: StageProgress | None = None
    ) -> dict[str, Ranking]:
        def step(n: int, total: int) -> None:
            if progress:
                progress("answer", n, total)

        return ranker.rank_all(self.queries(), progress=step)


class CrossFittedFusion(RunFusion):
    """``fusion-learned``: weighted CombSUM, each query's weights fitted on the other fold.

    A run-level ranker (it needs every input's whole run and the judgements of the other
    fold before it can rank one query). The learned weights per fold land in ``report``
    (the run's ``extra``) as ``fusion_weights``.
    """

    def __init__(
        self,
        rankers: Sequence[RunRanker],
        instances: Sequence[Instance],
        *,
        report: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(
            rankers,
            method="combsum",
            name="fusion-learned",
            params={
                "inputs": [r.name for r in rankers],
                "method": "CombSUM, weights learned on the other fold",
            },
        )
        self.instances = list(instances)
        self.report = report if report is not None else {}

    def _fuse(
        self, queries: Sequence[RunQuery], parts: Sequence[Mapping[str, Ranking]]
    ) -> dict[str, Ranking]:
        weights = learned_fusion_weights(self.instances, parts)
        self.report["fusion_weights"] = dict(weights)
        fold = {i.id: _fold(i) for i in self.instances}
        return {
            q.id: comb_sum([p[q.id] for p in parts], weights=weights[fold[q.id]]) for q in queries
        }


def _fold(inst: Instance) -> str:
    """Two folds by parent query id parity: a query and its sub-queries share a fold."""
    parent = str(inst.data.get("parent", inst.id))
    # crc32, not hash(): str hashes change per process (PYTHONHASHSEED), folds must not
    key = int(parent) if parent.isdigit() else zlib.crc32(parent.encode())
    return "a" if key % 2 == 0 else "b"


#: weight grid of the learned fusion (per input ranker)
WEIGHT_GRID = (0.0, 0.5, 1.0, 2.0)


def learned_fusion_weights(
    instances: Sequence[Instance],
    parts: Sequence[Mapping[str, Ranking]],
    *,
    metric: str = "NDCG_10%",
) -> dict[str, tuple[float, ...]]:
    """Per fold, the CombSUM weights that maximise ``metric`` on the *other* fold.

    Cross-fitting (two folds by parent query parity) keeps every query's ranking from
    weights that never saw its judgements: the dev split is the other half.
    """
    task = DorisMaeTask()
    relevance = task.relevance(instances)
    folds: dict[str, list[Instance]] = defaultdict(list)
    for inst in instances:
        folds[_fold(inst)].append(inst)
    best: dict[str, tuple[float, ...]] = {}
    grid = [w for w in product(WEIGHT_GRID, repeat=len(parts)) if any(w)]
    for target in ("a", "b"):
        dev = folds["b" if target == "a" else "a"] or folds[target]
        qids = [i.id for i in dev]
        scored = []
        for w in grid:
            run = {q: comb_sum([p[q] for p in parts], weights=w).ids for q in qids}
            res = evaluate_dorismae(relevance, run, [metric], queries=qids)
            scored.append((res.aggregate[metric], tuple(-x for x in w), w))
        best[target] = max(scored)[2]
    return best

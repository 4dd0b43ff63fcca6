"""``retrieval``: ad-hoc retrieval on any loaded BEIR-layout collection, scored as BEIR does.

Why a family of its own: users bring their own scholarly test collections (SciFact, SCIDOCS,
NFCorpus, TREC-COVID, ACM-CR converted to BEIR) in BEIR's layout; nothing in them is specific
to citation recommendation, the text rankers answer them, and the numbers are comparable to
the BEIR leaderboard because the protocol is BEIR's:

* document text = ``title + " " + text``; the whole collection is ranked (no candidate
  pool), top ``--depth`` (default 1000) kept;
* BEIR's ``ignore_identical_ids`` (default on here too): a document whose id equals the
  query id is removed from that query's ranking (SCIDOCS/ArguAna-style collections where
  queries are documents);
* metrics over the split's qrels with trec_eval conventions (``metrics/ir.py``): nDCG@10
  (linear gain, the grades as given), R@10, R@100, MRR@10 and MAP over the ranking, as
  fractions; a judged query without a ranking scores 0.

Rankers: ``bm25`` (bm25s, ``rankers/bm25.py`` defaults: Lucene variant, k1 1.5, b 0.75,
lower-case, token pattern ``(?u)\\b\\w\\w+\\b``, bm25s' English stop-words, no stemmer —
exactly ``bm25s.tokenize(texts, stopwords="en")``), ``dense`` (the bundled all-MiniLM-L6-v2;
exact cosine; ``--max-length`` tokens), ``hybrid`` (RRF, k = ``--rrf-k``, default 60, over the two
rankers' top ``--fusion-depth``, default 100),
``hybrid-learned`` (four inputs, :func:`learned_fusion_inputs`: BM25 and dense on the
cleaned query, BM25 on the query with the ``--ref-window`` words around ``<REF>`` weighed,
and dense with Rocchio feedback from the RRF's top ``--rocchio-docs``; fused by the
candidate that maximises nDCG@10 on the collection's ``--fit-split`` qrels, default ``dev``,
among CombSUM of the inputs' min-max normalised scores with every weight vector in steps of
0.1 and RRF with k in 5 ... 100 on the BM25 + dense pair and on all four
(``fusion.fit_fusion``); scoring on the split it was fitted on is allowed and marked
``in_sample`` in the run record). The RRF of ``hybrid`` is among its candidates, so on the
fitting queries it never does worse than ``hybrid``. ``--ref-window 0 --rocchio-docs 0``
gives the two-input fit of BM25 and dense.

Query text is made citation-aware first (``--query-mode``, default ``clean``,
``querytext.citation_query``): ``<REF>``/``[CIT]`` placeholders, the sentence's other
citation markers and cross-reference boilerplate (``Theorem REF``, ``Table 2``,
``[FORMULA]``) are removed, as citeBench does before ranking; text without them (a
DORIS-MAE query) is unchanged. The defaults (query mode, RRF k, fusion depth, token limit)
were chosen on the dev queries of real collections, ``docs/results-real.md``.

Dense rankers read their corpus vectors through the file cache of ``services/embeddings``:
a collection is encoded once, and every later ``dense``/``hybrid*`` run reads it back.

Binary metrics (R@k, MRR, MAP) count a document as relevant when its grade is at least
``--relevance-threshold`` (default 1, trec_eval's); with fractional grades (DORIS-MAE's
normalised relevance) queries may have no relevant document at that threshold, and the run
says how many (they score 0 on those metrics).

Outputs (``--out DIR``): ``run.trec`` and ``metrics.json`` keyed by the collection's own
query and document ids, ``{"aggregate": {...}, "per_query": {...}, "units": ...}``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from scholarkg.benchmark.metrics.ir import evaluate
from scholarkg.benchmark.metrics.trec import write_run
from scholarkg.benchmark.outputs import metrics_payload
from scholarkg.benchmark.rankers.base import Ranker
from scholarkg.benchmark.rankers.dense import DenseRanker
from scholarkg.benchmark.rankers.fusion import RRF_K, FusionRanker
from scholarkg.benchmark.rankers.rocchio import ROCCHIO_DOCS
from scholarkg.benchmark.results import ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    BenchmarkTask,
    Instance,
    StageProgress,
    TaskOption,
)
from scholarkg.benchmark.tasks.retrieval.querytext import (
    QUERY_MODES,
    citation_query,
    weigh_ref_window,
)
from scholarkg.errors import InputError
from scholarkg.schema.retrieval import beir_source, collection_id
from scholarkg.store.base import GraphReader
from scholarkg.textio import atomic_write_text

METRICS = ("nDCG@10", "R@10", "R@100", "MRR@10", "MAP")
#: defaults chosen on the dev queries of real collections (``docs/results-real.md``,
#: ``benchmarks/real/bench_text_choices.py``); ScisummNet's citing sentences were kept out
#: of every choice and measured last
DEFAULT_QUERY_MODE = "clean"
DEFAULT_RRF_K = RRF_K
DEFAULT_MAX_LENGTH: int | None = None
DEFAULT_FUSION_DEPTH: int | None = 100
DEFAULT_REF_WINDOW = 3
PAGE = 20_000


log = logging.getLogger(__name__)


def collection_documents(store: GraphReader, collection: str) -> tuple[list[str], list[str]]:
    """``(doc ids, texts)`` of a collection in doc-id order; text = title + " " + text."""
    doc_ids: list[str] = []
    texts: list[str] = []
    skip = 0
    while True:
        rows = store.run_named(
            "retrieval/collection_docs", {"collection": collection, "skip": skip, "limit": PAGE}
        )
        for r in rows:
            doc_ids.append(str(r["doc_id"]))
            texts.append(" ".join(t for t in (r.get("title"), r.get("text")) if t))
        if len(rows) < PAGE:
            return doc_ids, texts
        skip += PAGE


def build_text_ranker(
    name: str,
    doc_ids: Sequence[str],
    texts: Sequence[str],
    params: Mapping[str, Any],
    progress: StageProgress | None = None,
) -> Ranker[str]:
    """``bm25``, ``dense`` or ``hybrid`` over the documents.

    ``params["embedder"]`` may hold an :class:`~scholarkg.services.embeddings.Embedder`
    (tests pass a small deterministic one); otherwise ``params["model"]`` (default the
    bundled MiniLM) is loaded, behind the file cache of corpus vectors, so a collection is
    encoded once for every later run. ``progress("encode", done, total)`` follows the
    corpus encoding.
    """
    from scholarkg.benchmark.rankers.bm25 import BM25Ranker
    from scholarkg.benchmark.rankers.fusion import FusionRanker

    if name == "bm25":
        return BM25Ranker(doc_ids, texts, strict_candidates=False)
    if name in ("dense", "hybrid", "hybrid-learned"):
        from scholarkg.benchmark.rankers.dense import DenseRanker

        embedder = params.get("embedder")
        if embedder is None:
            from scholarkg.services.embeddings import load_embedder

            max_length = params.get("max_length")
            embedder = load_embedder(
                str(params.get("model", "minilm")),
                max_seq_length=int(max_length) if max_length else None,
            )

        def step(done: int) -> None:
            if progress is not None:
                progress("encode", done, len(texts))

        dense = DenseRanker.from_texts(
            embedder, doc_ids, texts, strict_candidates=False, progress=step
        )
        if name == "dense":
            return dense
        bm25 = BM25Ranker(doc_ids, texts, strict_candidates=False)
        fusion_depth = params.get("fusion_depth")
        in_depth = int(fusion_depth) if fusion_depth else None
        rrf_k = int(params.get("rrf_k") or RRF_K)
        if name == "hybrid-learned":
            # the fusion is fitted by the task (it needs judged queries); plain RRF until then
            return learned_fusion_inputs(
                bm25, dense, query_mode=str(params.get("query_mode") or DEFAULT_QUERY_MODE),
                ref_window=int(params.get("ref_window") or 0),
                rocchio_docs=int(params.get("rocchio_docs") or 0), rrf_k=rrf_k, depth=in_depth,
            )  # fmt: skip
        return FusionRanker([bm25, dense], method="rrf", k=rrf_k, depth=in_depth)
    raise InputError(f"unknown ranker {name!r}", field="ranker")


def learned_fusion_inputs(
    bm25: Ranker[str],
    dense: DenseRanker,
    *,
    query_mode: str,
    ref_window: int,
    rocchio_docs: int,
    rrf_k: int,
    depth: int | None,
) -> FusionRanker:
    """``hybrid-learned`` before its fit: RRF over its inputs, each of which cleans the raw
    query text itself (``query_mode``), so that one of them can read the words around
    ``<REF>`` that cleaning removes the marker of:

    0. BM25 on the cleaned query;
    1. BM25 on the cleaned query with the ``ref_window`` words either side of ``<REF>``
       repeated (:func:`~.querytext.weigh_ref_window`; left out when ``ref_window`` is 0);
    2. dense on the cleaned query;
    3. dense with Rocchio feedback from the top ``rocchio_docs`` documents of the BM25 +
       dense RRF (:class:`~scholarkg.benchmark.rankers.rocchio.RocchioRanker`; left out
       when 0).

    Inputs and settings were chosen on the dev queries of unarXive and DORIS-MAE by
    cross-validating the fit (``benchmarks/real/bench_text_fusion_fit.py``,
    ``docs/results-real.md``). The task fits the fusion of these on its dev split.
    """
    from scholarkg.benchmark.rankers.query_rewrite import QueryRewriteRanker
    from scholarkg.benchmark.rankers.rocchio import RocchioRanker

    def clean(text: str) -> str:
        return citation_query(text, query_mode)

    def window(text: str) -> str:
        return weigh_ref_window(text, ref_window, query_mode)

    inputs: list[Ranker[str]] = [QueryRewriteRanker(bm25, clean, rewrite_label=query_mode)]
    if ref_window > 0:
        inputs.append(
            QueryRewriteRanker(
                bm25,
                window,
                rewrite_label=f"{query_mode}+ref-window={ref_window}",
                name="bm25-ref-window",
            )
        )
    inputs.append(QueryRewriteRanker(dense, clean, rewrite_label=query_mode))
    if rocchio_docs > 0:
        first = FusionRanker([bm25, dense], method="rrf", k=rrf_k, depth=depth)
        rocchio = RocchioRanker(dense, first, n_docs=rocchio_docs)
        inputs.append(QueryRewriteRanker(rocchio, clean, rewrite_label=query_mode))
    return FusionRanker(inputs, method="rrf", k=rrf_k, depth=depth, name="hybrid-learned")


def _encoding_extra(ranker: Ranker[str]) -> dict[str, Any]:
    """How the corpus vectors of this run were obtained: texts read from the vector cache
    vs encoded (``{}`` for rankers without an encoder)."""
    for part in [ranker, *getattr(ranker, "rankers", ())]:
        stats = getattr(getattr(part, "embedder", None), "stats", None)
        if stats is not None:
            return {"vectors": {"cached": stats.n_cached, "encoded": stats.n_encoded}}
    return {}


class RetrievalTask(BenchmarkTask):
    """Ad-hoc retrieval on a loaded BEIR-layout collection (see the module docstring)."""

    name = "retrieval"
    family = "retrieval"
    description = "rank a BEIR-layout collection's documents for its queries (BEIR protocol)"
    reference = "BEIR (Thakur et al., NeurIPS 2021 D&B); beir-cellar/beir EvaluateRetrieval"
    metrics = tuple(TaskMetric(m, "fraction", decimals=4) for m in METRICS)
    options = (
        TaskOption("dataset", str, None, "collection name given to 'scholarkg load beir'"),
        TaskOption("split", str, "test", "qrels split (qrels/<split>.tsv)"),
        TaskOption("depth", int, 1000, "documents ranked per query"),
        TaskOption("ignore_identical_ids", bool, True, "drop a document whose id is the query id"),
        TaskOption(
            "fusion_depth",
            int,
            None,
            "hybrid*: documents each ranker contributes to the fusion (default 100)",
        ),
        TaskOption(
            "rrf_k", int, DEFAULT_RRF_K, "hybrid: the RRF constant k (chosen on real dev queries)"
        ),
        TaskOption(
            "query_mode",
            str,
            DEFAULT_QUERY_MODE,
            "citation-aware query text: none (as given), ref (drop <REF>/[CIT]), markers "
            "(+ other citation markers), clean (+ cross-references and placeholders)",
            choices=QUERY_MODES,
        ),
        TaskOption(
            "max_length",
            int,
            DEFAULT_MAX_LENGTH,
            "dense: encoder token limit (longer texts are truncated)",
        ),
        TaskOption("fit_split", str, "dev", "hybrid-learned: qrels split its fusion is fit on"),
        TaskOption(
            "ref_window",
            int,
            DEFAULT_REF_WINDOW,
            "hybrid-learned: words either side of <REF> its BM25 window input weighs (0: none)",
        ),
        TaskOption(
            "rocchio_docs",
            int,
            ROCCHIO_DOCS,
            "hybrid-learned: feedback documents of its Rocchio dense input (0: none)",
        ),
        TaskOption(
            "relevance_threshold",
            float,
            1.0,
            "minimum qrels grade counted as relevant by R@k, MRR and MAP",
        ),
    )
    rankers = ("bm25", "dense", "hybrid", "hybrid-learned")
    baseline = "bm25"
    ours = ("hybrid", "hybrid-learned")
    layout = ReportLayout(
        title="Retrieval (BEIR protocol)",
        columns=METRICS,
        config_keys=("dataset", "split"),
        instance_label="query",
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        keys = ("dataset", "split", "depth", "ignore_identical_ids", "relevance_threshold",
                "query_mode")  # fmt: skip
        return {k: options[k] for k in keys}

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        name = options.get("dataset")
        if not name:
            raise InputError(
                "retrieval needs --dataset NAME (a loaded BEIR collection)", field="dataset"
            )
        if options["depth"] < 1:
            raise InputError(f"--depth must be >= 1, got {options['depth']}", field="depth")
        coll = collection_id("beir", name)
        info = store.run_named("retrieval/collection_info", {"collection": coll})
        if not info:
            raise InputError(
                f"no BEIR collection {name!r} in graph {store.graph!r}; load it "
                "with 'scholarkg load beir DIR --name NAME'",
                field="dataset",
            )
        if options.get("fusion_depth") is not None and options["fusion_depth"] < 1:
            raise InputError(
                f"--fusion-depth must be >= 1, got {options['fusion_depth']}", field="fusion_depth"
            )
        for opt in ("ref_window", "rocchio_docs"):
            if options.get(opt) is not None and options[opt] < 0:
                flag = "--" + opt.replace("_", "-")
                raise InputError(f"{flag} must be >= 0 (0: no such input), got {options[opt]}",
                                 field=opt)  # fmt: skip
        if not options["relevance_threshold"] > 0:
            raise InputError(
                f"--relevance-threshold must be > 0, got {options['relevance_threshold']} "
                "(unjudged documents have grade 0)",
                field="relevance_threshold",
            )
        params = {"source": beir_source(name), "collection": coll}
        rows = store.run_named("retrieval/beir_queries", {**params, "split": options["split"]})
        if not rows:
            splits = store.run_named("retrieval/beir_splits", params)
            found = ", ".join(f"{s['split']} ({s['n_queries']:,} queries)" for s in splits)
            raise InputError(
                f"collection {name!r} has no queries judged in split {options['split']!r}; "
                + (f"it was loaded with: {found} (choose one with --split)" if found
                   else "it was loaded without qrels"),
                field="split",
            )  # fmt: skip
        return [
            Instance(
                id=r["id"],
                data={
                    "qid": str(r["qid"]),
                    "text": r["text"],
                    "qrels": {str(q["doc_id"]): float(q["score"]) for q in r["qrels"]},
                },
            )
            for r in rows
        ]

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        if source.kind != "ranker":  # pragma: no cover - answer_kinds is ranker only
            raise InputError("retrieval is answered by a ranker", field="ranker")
        doc_ids, texts = collection_documents(store, collection_id("beir", options["dataset"]))
        depth = int(options["depth"])
        # hybrid: each input's depth; by default the whole ranking the task keeps (+1 for the
        # query's own id), as deep as the fused list
        fusion_depth = options["fusion_depth"] or DEFAULT_FUSION_DEPTH or depth + 1
        params = {
            "max_length": options["max_length"],
            "rrf_k": options["rrf_k"],
            "query_mode": options["query_mode"],
            "ref_window": options["ref_window"],
            "rocchio_docs": options["rocchio_docs"],
            **source.params,
            "fusion_depth": fusion_depth,
        }
        ranker = build_text_ranker(source.name, doc_ids, texts, params, progress)
        fit: dict[str, Any] = {}
        if source.name == "hybrid-learned":
            ranker, fit = self._fit_weight(store, ranker, options, progress)

        def qstep(done: int) -> None:
            if progress is not None:
                progress("encode queries", done, len(instances))

        # dense rankers encode all queries in one batched (cached) call instead of one each
        mode = str(options["query_mode"])
        queries = {inst.id: self._query_text(source.name, inst, mode) for inst in instances}
        ranker.prepare_queries(list(queries.values()), qstep)
        out: dict[str, dict[str, float]] = {}
        for n, inst in enumerate(instances, start=1):
            qid = inst.data["qid"]
            # one extra so dropping the query's own id still leaves ``depth`` documents
            ranking = ranker.rank(queries[inst.id], depth + 1, query_id=inst.id)
            scored = {
                d: s
                for d, s in zip(ranking.ids, ranking.scores, strict=True)
                if not (options["ignore_identical_ids"] and d == qid)
            }
            out[inst.id] = dict(list(scored.items())[:depth])
            if progress is not None and (n % 100 == 0 or n == len(instances)):
                progress("answer", n, len(instances))
        return Answers(
            by_instance=out,
            source=source,
            params={
                "ranker": ranker.name,
                **{("fusion_depth" if k == "depth" else k): v for k, v in ranker.params.items()},
                "depth": depth,
                "query_mode": mode,
            },
            extra={"n_docs": len(doc_ids), **_encoding_extra(ranker), **fit},
        )

    def _fit_weight(
        self,
        store: GraphReader,
        ranker: Ranker[str],
        options: Mapping[str, Any],
        progress: StageProgress | None,
    ) -> tuple[Ranker[str], dict[str, Any]]:
        """``hybrid-learned``: choose the fusion (CombSUM weight or RRF k,
        :func:`~scholarkg.benchmark.rankers.fusion.fit_fusion`) on the ``fit_split`` qrels;
        return the fused ranker it names and the fit for the run record."""
        from scholarkg.benchmark.rankers.fusion import FusionRanker, fit_fusion

        assert isinstance(ranker, FusionRanker)
        fit_split = str(options["fit_split"])
        try:
            dev = self.build_instances(store, {**options, "split": fit_split})
        except InputError:  # a split the collection was not loaded with
            dev = []
        if not dev:
            raise InputError(
                f"hybrid-learned fits its fusion weight on the {fit_split!r} qrels of "
                f"collection {options['dataset']!r}, which has none: load the collection with "
                f"a qrels/{fit_split}.tsv or pick another split with --fit-split",
                field="fit_split",
            )
        mode = str(options["query_mode"])
        texts = {inst.id: self._query_text("hybrid-learned", inst, mode) for inst in dev}
        ranker.prepare_queries(list(texts.values()))
        # the inputs' rankings as the run will fuse them: top input_depth(depth + 1) each
        k = int(options["depth"]) + 1
        in_depth = ranker.input_depth(k)
        parts = {}
        for n, inst in enumerate(dev, start=1):
            parts[inst.id] = tuple(r.rank(texts[inst.id], in_depth) for r in ranker.rankers)
            if progress is not None and (n % 100 == 0 or n == len(dev)):
                progress(f"fit ({fit_split})", n, len(dev))
        drop = {i.id: i.data["qid"] for i in dev} if options["ignore_identical_ids"] else None
        # the unfitted hybrid (RRF of BM25 and dense) first among the RRF candidates
        names = [r.name for r in ranker.rankers]
        pair = [names.index("bm25"), names.index("dense")]
        result = fit_fusion(
            parts, {i.id: i.data["qrels"] for i in dev}, depth=k, drop=drop,
            default_k=ranker.k, rrf_inputs=[pair, list(range(len(names)))],
        )  # fmt: skip
        if result.method == "rrf":
            used = result.inputs if result.inputs is not None else range(len(names))
            fitted = FusionRanker(
                [ranker.rankers[i] for i in used], method="rrf", k=int(result.k or ranker.k),
                depth=ranker.depth, name="hybrid-learned",
            )  # fmt: skip
        else:
            fitted = FusionRanker(
                ranker.rankers, method="combsum", weights=list(result.weights or ()),
                depth=ranker.depth, name="hybrid-learned",
            )  # fmt: skip
        info = {**result.as_dict(), "split": fit_split}
        info["in_sample"] = fit_split == options["split"]
        return fitted, {"fit": info}

    @staticmethod
    def _query_text(ranker: str, instance: Instance, mode: str) -> str:
        """The text a ranker is given: cleaned (``mode``) here, except for ``hybrid-learned``,
        whose inputs clean it themselves (one of them reads around ``<REF>``)."""
        text = str(instance.data["text"])
        return text if ranker == "hybrid-learned" else citation_query(text, mode)

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        qrels = {i.id: i.data["qrels"] for i in instances}
        # scored dicts: trec_eval order (score desc, docid desc on ties), as run.trec holds
        run = {i.id: answers.by_instance.get(i.id, {}) for i in instances}
        threshold = float(options["relevance_threshold"])
        res = evaluate(
            qrels, run, list(METRICS), relevance_threshold=threshold, on_unknown="ignore"
        )
        notes = []
        none = [i.data["qid"] for i in instances if not any(
            g >= threshold for g in i.data["qrels"].values())]  # fmt: skip
        if none:
            shown = ", ".join(none[:5]) + (" …" if len(none) > 5 else "")
            note = (
                f"{len(none)} of {len(instances)} queries have no document with grade >= "
                f"{threshold:g} ({shown}): they score 0 on R@k, MRR and MAP; "
                "lower --relevance-threshold for fractional grades"
            )
            log.warning(note)
            notes.append(note)
        aggregate: dict[str, float | None] = dict(res.aggregate)
        per_query: dict[str, dict[str, float | None]] = {
            q: dict(v) for q, v in res.per_query.items()
        }
        return TaskResult(
            aggregate=aggregate,
            per_instance=per_query,
            n=dict(res.n_queries),
            notes=notes,
        )  # fmt: skip

    def write_outputs(
        self,
        out_dir: Path,
        instances: Sequence[Instance],
        answers: Answers,
        result: TaskResult,
        options: Mapping[str, Any],
    ) -> list[Path]:
        """``metrics.json`` and ``run.trec``, both keyed by the collection's own ids."""
        out_dir.mkdir(parents=True, exist_ok=True)
        qid = {i.id: i.data["qid"] for i in instances}
        payload = metrics_payload(self, result)
        payload["per_query"] = {qid[k]: v for k, v in payload["per_query"].items()}
        metrics_path = out_dir / "metrics.json"
        atomic_write_text(metrics_path, json.dumps(payload, indent=2, allow_nan=False) + "\n")
        run_path = out_dir / "run.trec"
        run = {qid[i.id]: answers.by_instance.get(i.id, {}) for i in instances}
        tag = f"scholarkg-{answers.source.name}"
        write_run(run_path, {q: r for q, r in run.items() if r}, tag=tag)
        return [metrics_path, run_path]

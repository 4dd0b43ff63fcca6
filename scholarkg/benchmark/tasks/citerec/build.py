"""Assemble a recommender by name from the graph (paper texts, projection, named queries).

Kept apart from the task so benchmarks build a recommender once and time only the ranking.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scholarkg.benchmark.task import StageProgress
from scholarkg.benchmark.tasks.citerec.recommenders import (
    RANKERS,
    ContextQuery,
    ContextRanker,
    CypherGraphRanker,
    HybridRanker,
    LearnedFusion,
    PaperIndex,
    PopularityRanker,
    PPRRanker,
    ProjectionGraphRanker,
    TextContextRanker,
)
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore


def projection_for(store: GraphStore, cache_dir: Path | None = None) -> Any:
    """The resident ``(Paper, CITES)`` projection of ``store`` (the process-wide catalogue of
    ``cache_dir``, default next to the store, so repeated runs reuse it)."""
    from scholarkg.graphalgo.projection import default_catalog

    return default_catalog(cache_dir).get(store, "Paper", ("CITES",))


def build_recommender(
    name: str,
    store: GraphStore,
    params: Mapping[str, Any],
    options: Mapping[str, Any],
    extra: dict[str, Any] | None = None,
    progress: StageProgress | None = None,
) -> ContextRanker:
    """``name`` (one of :data:`RANKERS`) over the graph; ``extra`` receives provenance.

    ``params["embedder"]`` supplies an encoder for ``dense`` (else the bundled MiniLM, behind
    the file cache of corpus vectors); ``progress("encode", done, total)`` follows the corpus
    encoding.
    """
    from scholarkg.benchmark.rankers.bm25 import BM25Ranker

    if name not in RANKERS:
        raise InputError(
            f"unknown recommender {name!r}; choose one of {', '.join(RANKERS)}", field="ranker"
        )
    extra = extra if extra is not None else {}
    depth = int(options.get("depth", 100))
    papers = PaperIndex.from_store(store)
    extra["n_papers"] = len(papers.ids)

    def bm25() -> ContextRanker:
        return TextContextRanker(BM25Ranker(papers.ids, papers.texts, strict_candidates=False))

    def dense() -> ContextRanker:
        from scholarkg.benchmark.rankers.dense import DenseRanker

        embedder = params.get("embedder")
        if embedder is None:
            from scholarkg.services.embeddings import load_embedder

            embedder = load_embedder(str(params.get("model", "minilm")))
        extra["encoder"] = str(getattr(embedder, "name", type(embedder).__name__))
        from scholarkg.services.embeddings import embedder_settings

        settings = embedder_settings(embedder)
        extra["encoder_settings"] = {k: v for k, v in settings.items() if k != "cache"}
        n = len(papers.texts)

        def step(done: int) -> None:
            if progress is not None:
                progress("encode", done, n)

        return TextContextRanker(
            DenseRanker.from_texts(
                embedder, papers.ids, papers.texts, strict_candidates=False, progress=step
            )
        )

    if name == "bm25":
        return bm25()
    if name == "dense":
        return dense()
    if name == "hybrid-text":  # no graph: the baseline for the graph-aware hybrids
        return HybridRanker([bm25(), dense()], depth=depth, name=name)
    if name in ("cocitation", "coupling"):
        return CypherGraphRanker(store, name)
    proj = projection_for(store, options.get("projection_cache"))
    extra["projection"] = {"nodes": proj.n_nodes, "edges": proj.n_edges}
    if name == "ppr":
        return PPRRanker(proj)
    if name == "fastrp":
        from scholarkg.benchmark.tasks.citerec.fastrp_ranker import FastRPRanker

        return FastRPRanker(proj)
    if name == "popularity":
        return _PopularityOverBM25(PopularityRanker(proj), bm25(), depth)
    # the hybrids read co-citation/coupling from the projection: the same numbers as the
    # named queries (tested equal), without a server round trip per context and feature
    parts = [
        bm25(),
        PPRRanker(proj),
        ProjectionGraphRanker(proj, "cocitation"),
        ProjectionGraphRanker(proj, "coupling"),
    ]
    if name == "hybrid":
        # coupling is left out of the RRF: it is the weakest signal and, at equal weight,
        # pulls the fused MRR below BM25's on the synthetic corpus (measured)
        return HybridRanker([parts[0], parts[1], parts[2]], depth=depth)
    if name == "hybrid-dense":
        # the RRF hybrid plus the encoder's ranking: the text signal that BM25's exact term
        # match misses (paraphrased contexts); costs one corpus encoding per run
        return HybridRanker([parts[0], dense(), parts[1], parts[2]], depth=depth, name=name)
    if name in ("hybrid-fastrp", "hybrid-dense-fastrp"):
        # hybrid / hybrid-dense plus the graph embeddings' ranking
        from scholarkg.benchmark.tasks.citerec.fastrp_ranker import FastRPRanker

        text = [parts[0], dense()] if name == "hybrid-dense-fastrp" else [parts[0]]
        fused = [*text, parts[1], parts[2], FastRPRanker(proj)]
        return HybridRanker(fused, depth=depth, name=name)
    bm25_part, ppr_part, cocitation_part, coupling_part = parts
    return LearnedFusion(
        bm25_part,
        ppr_part,
        cocitation_part,
        coupling_part,
        PopularityRanker(proj),
        papers,
        depth=depth,
    )


class _PopularityOverBM25(ContextRanker):
    """``popularity`` as a stand-alone ranker: BM25's top ``depth`` re-ordered by in-degree
    (popularity alone would rank the same papers for every context)."""

    name = "popularity"

    def __init__(self, pop: PopularityRanker, bm25: ContextRanker, depth: int) -> None:
        self.pop, self.bm25, self.depth = pop, bm25, depth
        super().__init__({"pool": "bm25", "depth": depth})

    def _score(self, query: ContextQuery, k: int, candidates: Any) -> tuple[list[str], list[float]]:
        pool = self.bm25.rank_context(query, self.depth).ids
        r = self.pop.rank(query, k, candidates=pool)
        return r.ids, r.scores

"""RPG rankers: the paper's PageRank baseline, single-signal probes, and our pairwise ranker.

Every ranker answers one :class:`~.rpg.LeaderboardQuery` (task, dataset, metric: never the
leaderboard's entries) in two steps, *candidates* then *order*, and reads only
``Paper`` properties (title, abstract, date), ``CITES`` / ``COMPARES_WITH`` edges and ``Chunk``
text. None reads ``Leaderboard``, ``HAS_ENTRY`` or ``Result``: that is how leakage of the
target leaderboard is excluded (pinned by ``tests/legobench/test_rpg.py``).

They are :class:`~scholarkg.benchmark.rankers.base.StoreRanker` s, the store-aware side of the
one ranker interface BM25, dense and fusion implement: bound to a store with ``bind``, one-time
work in ``prepare``, and every :class:`~scholarkg.benchmark.rankers.base.Ranking` carries the
ranker's name, parameters and time (plus ``info["n_candidates"]``).

Rankers (:func:`make_ranker` names, :data:`RANKER_NAMES`):

* ``pagerank`` — the paper's baseline: strict unigram-AND candidates, subgraph of the
  configuration's graph among them, cosine edge weights, GDS-semantics PageRank.
* ``pagerank-hybrid`` — the same PageRank on our hybrid candidate set (isolates the ordering).
* ``date`` — newest first (single signal).
* ``indegree`` — fewest incoming edges among the candidates first (single signal: on the PCN
  a paper others report results *against* is a baseline; on the CN a heavily cited paper is
  usually older).
* ``ours`` — :class:`PairwiseRanker` on hybrid candidates; ``ours-strict`` on strict ones.

Our ranker, and why: the baseline ignores what orders a leaderboard in practice. Results
improve over time, so newer tends to be better, but dates are noisy and the trend is weak
against per-paper quality and per-result noise; what the graph adds beyond the date is edge
presence and direction among the candidates, 2-hop paths, whole-graph degrees and — when
Papers with Code ``Result`` nodes are loaded — the papers' standing on *other* leaderboards
(``rpg/features.py``). A logistic pairwise model over those features (``rpg/model.py``),
learned on the dev split only (``rpg/training.py``), orders the candidates. Text relevance
(BM25) is not a pairwise feature: every metric reads only the gold papers' relative order,
and relevance does not order gold papers.

Hybrid retrieval: strict unigram-AND ∪ the ``hybrid_k`` best BM25 (bm25s) hits for the
query text over title + abstract. The strict AND misses papers whose abstract omits, say,
the metric name; BM25 recovers them by ranking partial matches. Candidate-set size is
reported with every run so recall gains are not hidden.
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from scholarkg.benchmark.rankers.base import HasText, StoreRanker, TextQuery
from scholarkg.benchmark.rankers.pagerank import GraphPageRank
from scholarkg.benchmark.tasks.legobench.rpg.core import (
    LeaderboardQuery,
    PaperVectors,
    RPGConfig,
    ensure_edge_weights,
    strict_candidates,
    weight_property,
)
from scholarkg.benchmark.tasks.legobench.rpg.dates import filled_years, paper_years
from scholarkg.benchmark.tasks.legobench.rpg.features import (
    GraphIndex,
    context_matrix,
    context_quality,
    features,
    pair_features,
    sorted_by,
)
from scholarkg.benchmark.tasks.legobench.rpg.model import (
    PairwiseModel,
    aggregate_order,
    stored_params,
)
from scholarkg.errors import InputError
from scholarkg.services.embeddings import Embedder
from scholarkg.store.base import GraphStore

RANKER_NAMES: tuple[str, ...] = (
    "pagerank",
    "ours",
    "ours-strict",
    "date",
    "indegree",
    "pagerank-hybrid",
)
RETRIEVALS = ("strict", "hybrid")
DEFAULT_HYBRID_K = 100
PAGERANK_PARAMS: dict[str, Any] = {"damping_factor": 0.85, "max_iterations": 20, "tolerance": 1e-7}


def _as_leaderboard_query(query: HasText) -> LeaderboardQuery:
    if not isinstance(query, LeaderboardQuery):
        raise InputError(
            "RPG rankers answer a leaderboard query (task, dataset, metric), not free text",
            field="query",
        )
    return query


class RPGRanker(StoreRanker):
    """Candidates, then an order. Subclasses implement :meth:`order`.

    Scores in the :class:`Ranking` are the ranker's own where it has one (PageRank) and
    otherwise rank-derived (``n - position``): the order is what every RPG metric reads.
    """

    name = "rpg-ranker"

    def __init__(self, config: RPGConfig, *, retrieval: str = "strict", hybrid_k: int = 50) -> None:
        if retrieval not in RETRIEVALS:
            raise InputError(f"retrieval must be one of {RETRIEVALS}", field="retrieval")
        if hybrid_k < 0:
            raise InputError("hybrid_k must be >= 0", field="hybrid_k")
        super().__init__()
        self.config = config
        self.retrieval = retrieval
        self.hybrid_k = int(hybrid_k)
        self._bm25: Any = None
        self.params = self.describe()

    def describe(self) -> dict[str, Any]:
        """The parameters recorded with every ranking (kept in ``self.params``)."""
        out: dict[str, Any] = {"configuration": self.config.name, "retrieval": self.retrieval}
        if self.retrieval == "hybrid":
            out["hybrid_k"] = self.hybrid_k
        return out

    def bind(self, store: GraphStore) -> RPGRanker:
        if store is not self._store:
            self._bm25 = None
        super().bind(store)
        return self

    def prepare(self, progress: Callable[[int, int], None] | None = None) -> None:
        """One-time work per run: the BM25 index over every paper's title + abstract."""
        if self.retrieval == "hybrid" and self._bm25 is None:
            from scholarkg.benchmark.rankers.bm25 import BM25Ranker

            self._bm25 = BM25Ranker.from_store(
                self.store, "Paper", ("title", "abstract"), progress=progress
            )
        super().prepare(progress)
        self.params = self.describe()

    def candidates(self, query: LeaderboardQuery) -> list[str]:
        strict = strict_candidates(self.store, query, self.config)
        if self.retrieval == "strict":
            return strict
        if self._bm25 is None:
            self.prepare()
        extra = self._bm25.rank(query.text, self.hybrid_k).ids if self.hybrid_k else []
        return list(dict.fromkeys([*strict, *extra]))

    @abstractmethod
    def order(self, query: LeaderboardQuery, cands: list[str]) -> tuple[list[str], list[float]]:
        """The candidates best first, with scores (higher first)."""

    def _score_query(
        self, query: HasText, k: int | None, candidates: Sequence[str] | None
    ) -> tuple[Any, ...]:
        q = _as_leaderboard_query(query)
        cands = list(candidates) if candidates is not None else self.candidates(q)
        ids, scores = self.order(q, cands) if cands else ([], [])
        return ids, scores, {"n_candidates": len(cands)}


def _positional(ids: list[str]) -> tuple[list[str], list[float]]:
    return ids, [float(len(ids) - i) for i in range(len(ids))]


class PageRankRanker(RPGRanker):
    """The paper's baseline: weighted PageRank on the candidate subgraph (GDS semantics).

    Edges are in stored orientation (citing → cited, reporting → baseline), as a NATURAL GDS
    projection reads them. Ties (e.g. isolated candidates, all at 1 − d) break by paper id.
    """

    name = "pagerank"

    def __init__(
        self,
        config: RPGConfig,
        embedder: Embedder | None,
        *,
        retrieval: str = "strict",
        hybrid_k: int = 50,
    ) -> None:
        self.embedder = embedder
        self._vectors: PaperVectors | None = None
        # the shared (personalized) PageRank ranker, unpersonalized, on the candidate subgraph
        self._pagerank = GraphPageRank(
            "Paper", config.rel_type,
            weight_property=weight_property(embedder) if embedder else None, **PAGERANK_PARAMS,
        )  # fmt: skip
        super().__init__(config, retrieval=retrieval, hybrid_k=hybrid_k)

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        out["weights"] = weight_property(self.embedder) if self.embedder else None
        out["pagerank"] = dict(PAGERANK_PARAMS)
        return out

    def order(self, query: LeaderboardQuery, cands: list[str]) -> tuple[list[str], list[float]]:
        store = self.store
        if self.embedder is not None:
            if self._vectors is None or self._vectors.store is not store:
                self._vectors = PaperVectors(store, self.embedder)
            ensure_edge_weights(store, self.config.rel_type, cands, self._vectors)
        # candidates in id order, so ties (isolated candidates, all at 1 - d; GDS and scipy a
        # last bit apart, hence the ranker's rounded tie key) break by paper id on every backend
        ranking = self._pagerank.bind(store).rank_query(
            TextQuery(query.text), None, candidates=sorted(cands)
        )
        return ranking.ids, ranking.scores


class DateRanker(RPGRanker):
    """Newest first (publication date, arXiv id as fallback); ties by id."""

    name = "date"

    def order(self, query: LeaderboardQuery, cands: list[str]) -> tuple[list[str], list[float]]:
        years = paper_years(self.store, cands)
        ids = list(cands)
        score = np.asarray([years.get(i, math.nan) for i in ids])
        return _positional(sorted_by(ids, np.nan_to_num(score, nan=-np.inf)))


class InDegreeRanker(RPGRanker):
    """Fewest incoming edges (configuration's graph, among the candidates) first; ties by id."""

    name = "indegree"

    def order(self, query: LeaderboardQuery, cands: list[str]) -> tuple[list[str], list[float]]:
        f = features(self.store, self.config, cands)
        indeg = np.bincount(f.dst, minlength=len(f.ids)).astype(np.float64)
        return _positional(sorted_by(f.ids, -indeg))


def graph_has_results(store: GraphStore) -> bool:
    return bool(store.run_named("legobench/rpg_has_results"))


class PairwiseRanker(RPGRanker):
    """Ours: a learned logistic pairwise model over graph features, Borda + adjacent swaps.

    ``model=None`` uses the stored model for the configuration (``models/rpg_pairwise.json``):
    the context-trained set when the graph holds ``Result`` nodes, else the graph-only set
    (decided in :meth:`prepare`).
    """

    name = "ours"

    def __init__(
        self,
        config: RPGConfig,
        model: PairwiseModel | None,
        *,
        retrieval: str = "hybrid",
        hybrid_k: int = DEFAULT_HYBRID_K,
    ) -> None:
        self.model = model
        self._index: GraphIndex | None = None
        self._has_results: bool | None = None
        super().__init__(
            config, retrieval=retrieval, hybrid_k=model.hybrid_k if model else hybrid_k
        )

    def describe(self) -> dict[str, Any]:
        out = super().describe()
        if self.model is not None:
            out.update(self.model.to_params())
            out["context_used"] = bool(self._has_results) and self.model.uses_context
        return out

    def bind(self, store: GraphStore) -> PairwiseRanker:
        if store is not self._store:
            self._index = None
            self._has_results = None
        super().bind(store)
        return self

    def resolve_model(self) -> PairwiseModel:
        if self._has_results is None:
            self._has_results = graph_has_results(self.store)
        if self.model is None:
            self.model = PairwiseModel.from_params(
                stored_params(self.config.name, context=self._has_results)
            )
            self.hybrid_k = self.model.hybrid_k
        return self.model

    def prepare(self, progress: Callable[[int, int], None] | None = None) -> None:
        self.resolve_model()
        super().prepare(progress)

    def graph_index(self) -> GraphIndex:
        if self._index is None:
            self._index = GraphIndex(self.store, self.config.rel_type)
        return self._index

    def pair_tensor(
        self, query: LeaderboardQuery, cands: list[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(years, X): the feature tensor of every candidate pair (context only if used)."""
        model = self.resolve_model()
        store = self.store
        years = filled_years(store, cands)
        ctx = qual = None
        if self._has_results and model.uses_context:
            ctx = context_matrix(store, query, cands)
            qual, _ = context_quality(store, query, cands)
        x = pair_features(cands, years, self.graph_index(), context=ctx, quality=qual)
        return years, x

    def order(self, query: LeaderboardQuery, cands: list[str]) -> tuple[list[str], list[float]]:
        years, x = self.pair_tensor(query, cands)
        logit = x @ self.resolve_model().weights
        return _positional(aggregate_order(cands, years, logit))


def make_ranker(
    name: str,
    config: RPGConfig,
    *,
    embedder: Embedder | None = None,
    params: Mapping[str, Any] | None = None,
) -> RPGRanker:
    """Build a ranker by name; ``params`` (a :meth:`PairwiseModel.to_params` dict, e.g. from
    :func:`~.training.tune_pairwise`) replace the stored model for ``ours``; ``hybrid_k``
    alone sets the candidate depth of every hybrid ranker."""
    if name not in RANKER_NAMES:
        raise InputError(
            f"unknown RPG ranker {name!r}; choose one of {', '.join(RANKER_NAMES)}",
            field="ranker",
        )
    stored = stored_params(config.name, context=False)
    k = int((params or {}).get("hybrid_k", stored.get("hybrid_k", DEFAULT_HYBRID_K)))
    ranker: RPGRanker
    if name == "pagerank":
        ranker = PageRankRanker(config, embedder, retrieval="strict")
    elif name == "pagerank-hybrid":
        ranker = PageRankRanker(config, embedder, retrieval="hybrid", hybrid_k=k)
    elif name == "date":
        ranker = DateRanker(config, retrieval="hybrid", hybrid_k=k)
    elif name == "indegree":
        ranker = InDegreeRanker(config, retrieval="hybrid", hybrid_k=k)
    else:
        model = PairwiseModel.from_params(params) if params and "coef" in params else None
        ranker = PairwiseRanker(
            config, model, retrieval="strict" if name == "ours-strict" else "hybrid", hybrid_k=k
        )
    ranker.name = name
    return ranker


__all__ = [
    "DEFAULT_HYBRID_K",
    "RANKER_NAMES",
    "DateRanker",
    "InDegreeRanker",
    "PageRankRanker",
    "PairwiseRanker",
    "RPGRanker",
    "graph_has_results",
    "make_ranker",
]

"""RPG rankers: the paper's PageRank baseline, single-signal probes, and our pairwise ranker.

Every ranker answers one :class:`~.rpg.LeaderboardQuery` (task, dataset, metric: never the
leaderboard's entries) in two steps, *candidates* then *order*, and reads only
``Paper`` properties (title, abstract, date), ``CITES`` / ``COMPARES_WITH`` edges and ``Chunk``
text. None reads ``Leaderboard``, ``HAS_ENTRY`` or ``Result``: that is how leakage of the
target leaderboard is excluded (pinned by ``tests/legobench/test_rpg.py``).

Rankers (``make_ranker`` names):

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
against per-paper quality and per-result noise; what the graph adds beyond the date is:

* **edge presence and direction** among the candidates: ``a -[:COMPARES_WITH]-> b`` means
  *a* reports results against *b*. Authors record a comparison more often when the newer
  paper wins, so an edge between a pair (either way) favours its newer paper and silence
  favours the older one; ``a -[:CITES]-> b`` mostly says *a* is newer (it fixes noisy dates);
* **2-hop paths** a→x→b through any paper (transitive evidence the direct edge lacks);
* **whole-graph in-/out-degree**: a paper many later papers compare against is a strong
  baseline; one that compares against many is recent and claims wins;
* **leaderboard context**, when Papers with Code ``Result`` nodes are loaded: net wins on
  *other* leaderboards and the paper's time-detrended standing there (a method good on one
  benchmark tends to be good on others). Never the target leaderboard's own Results.

Each candidate pair (a, b) gets antisymmetric features :data:`PAIR_FEATURES` and an
L2-regularised logistic model without intercept gives ``P(a ≻ b)``; it is *learned* by
:func:`tune_pairwise` on GT pairs of the dev split's leaderboards (RMS-standardised
features, L2 strength by 5-fold cross-validation over leaderboards). The order is the Borda
count of the pairwise probabilities (the maximum-likelihood Kemeny order is NP-hard; Borda is
its standard 5-approximation and exact when the pairwise model is transitive, which a model
linear in node differences nearly is), then adjacent swaps where the pairwise odds disagree.
:data:`OURS_DEFAULTS` / :data:`OURS_DEFAULTS_CONTEXT` hold coefficients learned that way by
``benchmarks/bench_rpg.py``. Text relevance (BM25) is not a pairwise feature: every metric
reads only the gold papers' relative order, and relevance does not order gold papers.

Hybrid retrieval: strict unigram-AND ∪ the ``hybrid_k`` best BM25 (bm25s) hits for the
query text over title + abstract. The strict AND misses papers whose abstract omits, say,
the metric name; BM25 recovers them by ranking partial matches. Candidate-set size is
reported with every run so recall gains are not hidden.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from scholarkg.benchmark.tasks.legobench.rpg import (
    TASK_NAME,
    LeaderboardQuery,
    PaperVectors,
    ProgressFn,
    RPGConfig,
    RPGInstance,
    RPGScores,
    ensure_edge_weights,
    leaderboard_key,
    score_rpg,
    strict_candidates,
    weight_property,
)
from scholarkg.errors import InputError
from scholarkg.schema.ids import leaderboard_id
from scholarkg.services.embeddings import Embedder, node_text
from scholarkg.store.base import EdgeSnapshot, GraphStore

RANKER_NAMES: tuple[str, ...] = (
    "pagerank",
    "ours",
    "ours-strict",
    "date",
    "indegree",
    "pagerank-hybrid",
)
RETRIEVALS = ("strict", "hybrid")

# --------------------------------------------------------------------------- helpers


def fractional_year(value: Any, arxiv_id: Any = None) -> float:
    """``2019-07-01`` → 2019.5; year-only dates → mid-year; fallback to the arXiv id (YYMM)."""
    if isinstance(value, str) and value.strip():
        parts = value.strip().split("-")
        try:
            y = int(parts[0])
            m = int(parts[1]) if len(parts) > 1 else 7
            d = int(parts[2][:2]) if len(parts) > 2 else 1
            doy = (date(y, m, d) - date(y, 1, 1)).days
            return y + doy / 365.25
        except (ValueError, IndexError):
            pass
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) + 0.5
    if isinstance(arxiv_id, str) and len(arxiv_id) >= 4 and arxiv_id[:4].isdigit():
        yy, mm = int(arxiv_id[:2]), int(arxiv_id[2:4])
        if 1 <= mm <= 12:
            return 2000 + yy + (mm - 0.5) / 12
    return math.nan


def paper_years(store: GraphStore, ids: Sequence[str]) -> dict[str, float]:
    """Fractional publication year per paper (NaN when unknown)."""
    out: dict[str, float] = {}
    for start in range(0, len(ids), 20_000):
        for row in store.run_named(
            "legobench/rpg_paper_meta", {"ids": list(ids[start : start + 20_000])}
        ):
            raw = row.get("date") if row.get("date") else row.get("year")
            out[str(row["id"])] = fractional_year(raw, row.get("arxiv_id"))
    return out


@dataclass
class Features:
    """What the graph rankers need about one candidate set."""

    ids: list[str]
    years: np.ndarray  # NaN filled with the candidates' median
    src: np.ndarray  # edges among ids (positions), configuration's relationship type
    dst: np.ndarray
    #: ``context[a, b]`` = #other leaderboards where a beats b − #where b beats a (or None)
    context: np.ndarray | None = None


def features(
    store: GraphStore,
    config: RPGConfig,
    candidates: Sequence[str],
    *,
    query: LeaderboardQuery | None = None,
) -> Features:
    """Dates and edges among the candidates; with ``query``, also leaderboard context."""
    snap = store.edge_snapshot("Paper", config.rel_type, node_ids=list(candidates))
    years_by_id = paper_years(store, snap.ids)
    years = np.asarray([years_by_id.get(i, math.nan) for i in snap.ids], dtype=np.float64)
    if len(years) and np.isnan(years).any():
        fill = np.nanmedian(years) if (~np.isnan(years)).any() else 0.0
        years = np.where(np.isnan(years), fill, years)
    ctx = context_matrix(store, query, snap.ids) if query is not None else None
    return Features(
        list(snap.ids), years, snap.src.astype(np.int64), snap.dst.astype(np.int64), ctx
    )


def _other_board_rows(
    store: GraphStore, query_name: str, query: LeaderboardQuery, ids: Sequence[str]
) -> Iterator[dict[str, Any]]:
    """Rows of the named context query for ``ids``, on leaderboards other than ``query``'s.

    The Cypher drops the target leaderboard (by id and by case-insensitive task/dataset/
    metric); every row is checked again here, so a leak fails loudly instead of scoring.
    """
    target_id = leaderboard_id(query.task, query.dataset, query.metric)
    params = {
        "ids": list(ids),
        "target_id": target_id,
        "task": query.task.strip().lower(),
        "dataset": query.dataset.strip().lower(),
        "metric": query.metric.strip().lower(),
    }
    for row in store.run_named(query_name, params):
        key = leaderboard_key(str(row["task"]), str(row["dataset"]), str(row["metric"]))
        if key == query.key or row["board"] in (target_id, query.id):
            raise InputError(f"leaderboard context returned the target leaderboard {key!r}")
        yield row


def context_matrix(store: GraphStore, query: LeaderboardQuery, ids: Sequence[str]) -> np.ndarray:
    """Pairwise wins of the candidates on *other* leaderboards (Papers with Code Results).

    Leakage guard, twice: the named query drops the target leaderboard (by id and by
    case-insensitive task/dataset/metric) inside the database, and every returned row is
    checked again against the query's key here. ``HAS_ENTRY`` (ground truth) is never read.
    Boards whose metric direction is unknown are skipped; equal scores are no evidence.
    """
    n = len(ids)
    out = np.zeros((n, n))
    if n < 2:
        return out
    pos = {pid: i for i, pid in enumerate(ids)}
    boards: dict[str, list[tuple[int, float]]] = {}
    sign: dict[str, float] = {}
    for row in _other_board_rows(store, "legobench/rpg_context_results", query, ids):
        if row["direction"] not in ("higher", "lower") or str(row["paper"]) not in pos:
            continue
        sign[row["board"]] = 1.0 if row["direction"] == "higher" else -1.0
        boards.setdefault(row["board"], []).append((pos[str(row["paper"])], float(row["score"])))
    for board, entries in boards.items():
        if len(entries) < 2:
            continue
        idx = np.asarray([i for i, _ in entries])
        val = sign[board] * np.asarray([v for _, v in entries])
        wins = np.sign(val[:, None] - val[None, :])
        np.add.at(out, (idx[:, None], idx[None, :]), wins)
    return out


def _sorted_by(ids: Sequence[str], score: np.ndarray, tie: np.ndarray | None = None) -> list[str]:
    """Ids by score desc, then ``tie`` desc, then id asc (deterministic)."""
    tie_vals = tie if tie is not None else np.zeros(len(ids))
    order = sorted(range(len(ids)), key=lambda i: (-score[i], -tie_vals[i], ids[i]))
    return [ids[i] for i in order]


# --------------------------------------------------------------------------- rankers


class RPGRanker(ABC):
    """Candidates, then an order. Subclasses implement :meth:`order`."""

    name = "rpg-ranker"

    def __init__(self, *, retrieval: str = "strict", hybrid_k: int = 50) -> None:
        if retrieval not in RETRIEVALS:
            raise InputError(f"retrieval must be one of {RETRIEVALS}", field="retrieval")
        if hybrid_k < 0:
            raise InputError("hybrid_k must be >= 0", field="hybrid_k")
        self.retrieval = retrieval
        self.hybrid_k = int(hybrid_k)
        self._bm25: Any = None

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"retrieval": self.retrieval}
        if self.retrieval == "hybrid":
            out["hybrid_k"] = self.hybrid_k
        return out

    def prepare(
        self, store: GraphStore, progress: Callable[[int, int], None] | None = None
    ) -> None:
        """One-time work per run: the BM25 index over every paper's title + abstract."""
        if self.retrieval == "hybrid" and self._bm25 is None:
            self._bm25 = build_paper_bm25(store, progress=progress)

    def candidates(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery
    ) -> list[str]:
        strict = strict_candidates(store, query, config)
        if self.retrieval == "strict":
            return strict
        self.prepare(store)
        extra = self._bm25.rank(query.text, self.hybrid_k).ids if self.hybrid_k else []
        return list(dict.fromkeys([*strict, *extra]))

    @abstractmethod
    def order(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery, cands: list[str]
    ) -> list[str]:
        """The candidates, best first."""

    def rank(self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery) -> list[str]:
        cands = self.candidates(store, config, query)
        return self.order(store, config, query, cands) if cands else []


def build_paper_bm25(
    store: GraphStore, *, progress: Callable[[int, int], None] | None = None
) -> Any:
    """BM25 (bm25s via ``BM25Ranker``) over title + abstract of every Paper, read in pages."""
    from scholarkg.benchmark.rankers.bm25 import BM25Ranker

    ids: list[str] = []
    texts: list[str] = []
    after = ""
    while True:
        rows = store.run_named("legobench/rpg_paper_text_page", {"after": after, "limit": 5_000})
        for row in rows:
            ids.append(str(row["id"]))
            texts.append(node_text([row.get("title"), row.get("abstract")]))
        if len(rows) < 5_000:
            break
        after = str(rows[-1]["id"])
    return BM25Ranker(ids, texts, progress=progress)


class PageRankRanker(RPGRanker):
    """The paper's baseline: weighted PageRank on the candidate subgraph (GDS semantics).

    Edges are in stored orientation (citing → cited, reporting → baseline), as a NATURAL GDS
    projection reads them. Ties (e.g. isolated candidates, all at 1 − d) break by paper id.
    """

    name = "pagerank"

    def __init__(
        self, embedder: Embedder | None, *, retrieval: str = "strict", hybrid_k: int = 50
    ) -> None:
        super().__init__(retrieval=retrieval, hybrid_k=hybrid_k)
        self.embedder = embedder
        self._vectors: PaperVectors | None = None

    def params(self) -> dict[str, Any]:
        out = super().params()
        out["weights"] = weight_property(self.embedder) if self.embedder else None
        out["pagerank"] = {"damping_factor": 0.85, "max_iterations": 20, "tolerance": 1e-7}
        return out

    def order(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery, cands: list[str]
    ) -> list[str]:
        wp = None
        if self.embedder is not None:
            if self._vectors is None or self._vectors.store is not store:
                self._vectors = PaperVectors(store, self.embedder)
            ensure_edge_weights(store, config.rel_type, cands, self._vectors)
            wp = weight_property(self.embedder)
        res = store.pagerank("Paper", config.rel_type, node_ids=cands, weight_property=wp)
        ids = list(res.scores)
        return _sorted_by(ids, np.asarray([res.scores[i] for i in ids]))


class DateRanker(RPGRanker):
    """Newest first (publication date, arXiv id as fallback); ties by id."""

    name = "date"

    def order(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery, cands: list[str]
    ) -> list[str]:
        years = paper_years(store, cands)
        ids = list(cands)
        score = np.asarray([years.get(i, math.nan) for i in ids])
        return _sorted_by(ids, np.nan_to_num(score, nan=-np.inf))


class InDegreeRanker(RPGRanker):
    """Fewest incoming edges (configuration's graph, among the candidates) first; ties by id."""

    name = "indegree"

    def order(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery, cands: list[str]
    ) -> list[str]:
        f = features(store, config, cands)
        indeg = np.bincount(f.dst, minlength=len(f.ids)).astype(np.float64)
        return _sorted_by(f.ids, -indeg)


# --------------------------------------------------------------------------- learned model

#: Pairwise features φ(a, b), all antisymmetric (φ(b, a) = −φ(a, b)), so a model without
#: intercept gives P(a ≻ b) = 1 − P(b ≻ a) by construction.
PAIR_FEATURES: tuple[str, ...] = (
    "dyear",  # fractional year a − b
    "newer",  # sign(dyear)
    "edge_net",  # edge a→b − edge b→a (configuration's graph, presence)
    "edge_newer",  # [an edge either way] · sign(dyear): recorded comparisons favour the newer
    "two_hop_net",  # log1p(#a→x→b paths) − log1p(#b→x→a), x anywhere in the graph
    "out_deg",  # log1p(whole-graph out-degree) a − b
    "in_deg",  # log1p(whole-graph in-degree) a − b (citation count on the CN)
    "ctx_net",  # net wins of a over b on other leaderboards (clipped to ±3)
    "ctx_quality",  # time-detrended standing on other leaderboards, a − b
)
CONTEXT_FEATURES = frozenset({"ctx_net", "ctx_quality"})


@dataclass(frozen=True)
class PairwiseModel:
    """Logistic pairwise model: ``P(a ≻ b) = σ(Σ coef_k · φ_k(a, b) / scale_k)``.

    ``scale`` is each feature's root-mean-square on the dev pairs (no centring: centring would
    break antisymmetry); ``coef`` is on the standardised features, so coefficients compare.
    """

    coef: tuple[float, ...]
    scale: tuple[float, ...]
    l2: float = 1.0
    hybrid_k: int = 100
    features: tuple[str, ...] = PAIR_FEATURES
    fit_info: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = [f for f in self.features if f not in PAIR_FEATURES]
        if unknown:
            raise InputError(f"unknown pairwise features {unknown}", field="features")
        if not (len(self.coef) == len(self.scale) == len(self.features)):
            raise InputError("coef, scale and features must align", field="coef")
        if self.hybrid_k < 0:
            raise InputError("hybrid_k must be >= 0", field="hybrid_k")

    @property
    def weights(self) -> np.ndarray:
        """Weights on the raw features (coef / scale), in :data:`PAIR_FEATURES` order."""
        w = np.zeros(len(PAIR_FEATURES))
        for name, c, s in zip(self.features, self.coef, self.scale, strict=True):
            w[PAIR_FEATURES.index(name)] = c / s
        return w

    @property
    def uses_context(self) -> bool:
        return any(
            c != 0.0 for n, c in zip(self.features, self.coef, strict=True) if n in CONTEXT_FEATURES
        )

    def to_params(self) -> dict[str, Any]:
        return {
            "model": "logistic-pairwise",
            "features": list(self.features),
            "coef": [round(float(c), 6) for c in self.coef],
            "scale": [round(float(s), 6) for s in self.scale],
            "l2": self.l2,
            "hybrid_k": self.hybrid_k,
            **({"fit": dict(self.fit_info)} if self.fit_info else {}),
        }

    @classmethod
    def from_params(cls, p: Mapping[str, Any]) -> PairwiseModel:
        try:
            feats = tuple(p.get("features", PAIR_FEATURES))
            return cls(
                coef=tuple(float(c) for c in p["coef"]),
                scale=tuple(float(s) for s in p.get("scale", [1.0] * len(feats))),
                l2=float(p.get("l2", 1.0)),
                hybrid_k=int(p.get("hybrid_k", 100)),
                features=feats,
                fit_info=dict(p.get("fit", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"bad pairwise model parameters: {exc}", field="params") from None


#: the features the stored models use, without and with leaderboard context
_GRAPH_ONLY = ("dyear", "newer", "edge_net", "edge_newer", "two_hop_net", "out_deg", "in_deg")
_WITH_CONTEXT = (*_GRAPH_ONLY, "ctx_net", "ctx_quality")


def _stored(
    coef: list[float],
    scale: list[float],
    *,
    n_pairs: int,
    cv_pair_accuracy: float | None = None,
    date_pair_accuracy: float | None = None,
) -> dict[str, Any]:
    """One stored model's parameters (the shape :meth:`PairwiseModel.to_params` prints).

    Nine coefficients mean the context features were fitted too (``--with-pwc``).
    """
    context = len(coef) == len(_WITH_CONTEXT)
    fit: dict[str, Any] = {
        "split": "dev",
        "n_leaderboards": 101,
        "n_pairs": n_pairs,
        "context": context,
    }
    if cv_pair_accuracy is not None:
        fit |= {"cv_pair_accuracy": cv_pair_accuracy, "date_pair_accuracy": date_pair_accuracy}
    return {
        "model": "logistic-pairwise",
        "features": list(_WITH_CONTEXT if context else _GRAPH_ONLY),
        "coef": coef,
        "scale": scale,
        "l2": 0.001,
        "hybrid_k": 100,
        "fit": fit,
    }


#: Learned by :func:`tune_pairwise` on the *dev* split of the seeded synthetic corpus
#: (``benchmarks/bench_rpg.py --quality``: 4,000 papers, 200 leaderboards, seed 13, dev
#: fraction 0.5 → 101 dev leaderboards); never on the test split. ``OURS_DEFAULTS`` was fitted
#: on the graph without Papers with Code Results (context features all zero, so their
#: coefficients are 0); ``OURS_DEFAULTS_CONTEXT`` with ``--with-pwc``. The ranker uses the
#: context set only when the graph holds ``Result`` nodes (see :meth:`PairwiseRanker.prepare`).
OURS_DEFAULTS: dict[str, dict[str, Any]] = {
    "cn-tabs": _stored(
        [2.181176, 0.232274, 0.05247, -0.180893, 0.033324, -0.00787, -0.144138],
        [4.261904, 0.999792, 0.667291, 0.667291, 0.552328, 1.009259, 1.959304],
        n_pairs=2403,
    ),
    "pcn-tabs": _stored(
        [1.992381, -0.331127, 0.168899, 0.722074, 0.188122, 0.060729, -0.308359],
        [4.261904, 0.999792, 0.707548, 0.707842, 0.594516, 0.87941, 0.984455],
        n_pairs=2403,
    ),
    "cn-ft": _stored(
        [2.175878, 0.234605, 0.009938, -0.143432, 0.069444, -0.004457, -0.109883],
        [4.250613, 0.999816, 0.669231, 0.669231, 0.552197, 0.998857, 1.958923],
        n_pairs=2724,
    ),
    "pcn-ft": _stored(
        [1.979748, -0.336221, 0.144121, 0.742833, 0.171836, 0.099756, -0.300383],
        [4.250613, 0.999816, 0.707885, 0.708144, 0.593915, 0.875699, 0.978807],
        n_pairs=2724,
    ),
}
OURS_DEFAULTS_CONTEXT: dict[str, dict[str, Any]] = {
    "cn-tabs": _stored(
        [
            2.19064,
            0.217727,
            0.060535,
            -0.160419,
            0.050497,
            -0.000618,
            -0.186593,
            0.006599,
            0.452901,
        ],
        [4.261904, 0.999792, 0.667291, 0.667291, 0.552328, 1.009259, 1.959304, 0.067658, 0.747514],
        n_pairs=2403,
        cv_pair_accuracy=0.8348,
        date_pair_accuracy=0.8271,
    ),
    "pcn-tabs": _stored(
        [
            2.067697,
            -0.315964,
            0.153457,
            0.737332,
            0.190771,
            0.013299,
            -0.298966,
            0.008136,
            0.434958,
        ],
        [4.261904, 0.999792, 0.707548, 0.707842, 0.594516, 0.87941, 0.984455, 0.067658, 0.747514],
        n_pairs=2403,
        cv_pair_accuracy=0.8331,
        date_pair_accuracy=0.8271,
    ),
    "cn-ft": _stored(
        [
            2.180781,
            0.226679,
            0.00069,
            -0.113142,
            0.089569,
            -0.000595,
            -0.138898,
            0.008424,
            0.389927,
        ],
        [4.250613, 0.999816, 0.669231, 0.669231, 0.552197, 0.998857, 1.958923, 0.063547, 0.753053],
        n_pairs=2724,
        cv_pair_accuracy=0.83,
        date_pair_accuracy=0.8254,
    ),
    "pcn-ft": _stored(
        [2.031153, -0.319691, 0.131134, 0.760175, 0.175083, 0.057281, -0.29492, 0.00982, 0.382005],
        [4.250613, 0.999816, 0.707885, 0.708144, 0.593915, 0.875699, 0.978807, 0.063547, 0.753053],
        n_pairs=2724,
        cv_pair_accuracy=0.8308,
        date_pair_accuracy=0.8254,
    ),
}


class GraphIndex:
    """The configuration's whole graph as a sparse matrix (built once per run, beside the DB).

    Whole-graph degrees and 2-hop paths need edges outside the candidate set; one snapshot
    (scipy CSR) answers every query, instead of a Cypher round trip per query.
    """

    def __init__(self, store: GraphStore, rel_type: str) -> None:
        from scipy import sparse

        snap = store.edge_snapshot("Paper", rel_type)
        n = len(snap.ids)
        self.rel_type = rel_type
        self.pos = {pid: i for i, pid in enumerate(snap.ids)}
        data = np.ones(len(snap.src))
        adj = sparse.csr_matrix((data, (snap.src, snap.dst)), shape=(n, n))
        adj.data[:] = 1.0  # presence: duplicate (e.g. differently labelled) edges count once
        self.adj = adj.tocsr()
        self.adj_t = adj.T.tocsr()
        self.out_deg = np.asarray(adj.sum(axis=1)).ravel()
        self.in_deg = np.asarray(adj.sum(axis=0)).ravel()

    @classmethod
    def from_edges(
        cls, ids: Sequence[str], src: np.ndarray, dst: np.ndarray, rel_type: str = "edges"
    ) -> GraphIndex:
        """An index over given edges (positions into ``ids``), without a store."""
        snap = EdgeSnapshot(list(ids), np.asarray(src), np.asarray(dst), np.ones(len(src)))

        class _Snap:
            def edge_snapshot(self, *_: Any, **__: Any) -> EdgeSnapshot:
                return snap

        return cls(_Snap(), rel_type)  # type: ignore[arg-type]


def context_quality(
    store: GraphStore, query: LeaderboardQuery, ids: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """Per candidate: mean time-detrended z-score on *other* leaderboards, and #boards.

    On each other board (≥ 3 dated entries, known direction) the signed score is regressed on
    the entries' fractional year; a paper's residual / residual std says how much better it
    is than its time predicts, the part of its standing a date cannot give. Same leakage guard
    as :func:`context_matrix`: the target is dropped in Cypher and re-checked per row.
    """
    n = len(ids)
    quality, count = np.zeros(n), np.zeros(n)
    if n == 0:
        return quality, count
    pos = {pid: i for i, pid in enumerate(ids)}
    boards: dict[str, list[tuple[str, float, float]]] = {}
    for row in _other_board_rows(store, "legobench/rpg_context_boards", query, ids):
        if row["direction"] not in ("higher", "lower"):
            continue
        raw = row.get("date") if row.get("date") else row.get("year")
        year = fractional_year(raw, row.get("arxiv_id"))
        if math.isnan(year):
            continue
        sign = 1.0 if row["direction"] == "higher" else -1.0
        boards.setdefault(str(row["board"]), []).append(
            (str(row["paper"]), year, sign * float(row["score"]))
        )
    for entries in boards.values():
        if len(entries) < 3:
            continue
        t = np.asarray([e[1] for e in entries])
        s = np.asarray([e[2] for e in entries])
        if np.ptp(t) == 0:
            continue
        design = np.column_stack([np.ones_like(t), t - t.mean()])
        beta, *_ = np.linalg.lstsq(design, s, rcond=None)
        resid = s - design @ beta
        sd = float(resid.std())
        if sd <= 0:
            continue
        for (pid, _, _), r in zip(entries, resid / sd, strict=True):
            if pid in pos:
                quality[pos[pid]] += r
                count[pos[pid]] += 1
    return np.divide(quality, count, out=np.zeros(n), where=count > 0), count


def pair_features(
    ids: Sequence[str],
    years: np.ndarray,
    index: GraphIndex,
    *,
    context: np.ndarray | None = None,
    quality: np.ndarray | None = None,
) -> np.ndarray:
    """``X[a, b, k]`` = feature ``PAIR_FEATURES[k]`` of the pair (a, b); antisymmetric in a, b."""
    n = len(ids)
    x = np.zeros((n, n, len(PAIR_FEATURES)))
    if n == 0:
        return x
    rows = np.asarray([index.pos.get(i, -1) for i in ids])
    known = rows >= 0
    dy = years[:, None] - years[None, :]
    newer = np.sign(dy)
    x[..., 0], x[..., 1] = dy, newer
    edge = np.zeros((n, n))
    paths = np.zeros((n, n))
    outd, ind = np.zeros(n), np.zeros(n)
    if known.any():
        kr = rows[known]
        sub = index.adj[kr]
        edge_k = sub[:, kr].toarray()
        paths_k = (sub @ index.adj_t[kr].T).toarray()
        k = np.flatnonzero(known)
        edge[np.ix_(k, k)] = edge_k
        paths[np.ix_(k, k)] = paths_k
        outd[k], ind[k] = index.out_deg[kr], index.in_deg[kr]
    np.fill_diagonal(edge, 0.0)
    np.fill_diagonal(paths, 0.0)
    x[..., 2] = edge - edge.T
    x[..., 3] = np.minimum(edge + edge.T, 1.0) * newer
    lp = np.log1p(paths)
    x[..., 4] = lp - lp.T
    lo, li = np.log1p(outd), np.log1p(ind)
    x[..., 5] = lo[:, None] - lo[None, :]
    x[..., 6] = li[:, None] - li[None, :]
    if context is not None:
        x[..., 7] = np.clip(context, -3.0, 3.0)
    if quality is not None:
        x[..., 8] = quality[:, None] - quality[None, :]
    return x


def aggregate_order(ids: Sequence[str], years: np.ndarray, logit: np.ndarray) -> list[str]:
    """Borda count of pairwise probabilities, then adjacent swaps (see module docstring)."""
    n = len(ids)
    if n == 0:
        return []
    prob = 1.0 / (1.0 + np.exp(-np.clip(logit, -50, 50)))
    np.fill_diagonal(prob, 0.0)
    score = prob.sum(axis=1)
    order = sorted(range(n), key=lambda i: (-score[i], -years[i], ids[i]))
    for _ in range(n):  # bubble passes: adjacent pairs must agree with their pairwise odds
        swapped = False
        for k in range(n - 1):
            a, b = order[k], order[k + 1]
            if logit[b, a] > logit[a, b]:
                order[k], order[k + 1] = b, a
                swapped = True
        if not swapped:
            break
    return [ids[i] for i in order]


def _filled_years(store: GraphStore, ids: Sequence[str]) -> np.ndarray:
    by_id = paper_years(store, ids)
    years = np.asarray([by_id.get(i, math.nan) for i in ids], dtype=np.float64)
    if len(years) and np.isnan(years).any():
        fill = np.nanmedian(years) if (~np.isnan(years)).any() else 0.0
        years = np.where(np.isnan(years), fill, years)
    return years


class PairwiseRanker(RPGRanker):
    """Ours: a learned logistic pairwise model over graph features, Borda + adjacent swaps.

    ``model=None`` uses the stored defaults for the configuration: the context-trained set
    when the graph holds ``Result`` nodes, else the plain set (decided in :meth:`prepare`).
    """

    name = "ours"

    def __init__(
        self,
        model: PairwiseModel | None,
        *,
        retrieval: str = "hybrid",
        config_name: str | None = None,
        hybrid_k: int = 100,
    ) -> None:
        super().__init__(retrieval=retrieval, hybrid_k=model.hybrid_k if model else hybrid_k)
        self.model = model
        self.config_name = config_name
        self._index: GraphIndex | None = None
        self._index_key: tuple[int, str] | None = None
        self._has_results: bool | None = None

    def params(self) -> dict[str, Any]:
        out = super().params()
        if self.model is not None:
            out.update(self.model.to_params())
            out["context_used"] = bool(self._has_results) and self.model.uses_context
        return out

    def _resolve_model(self, store: GraphStore) -> PairwiseModel:
        if self._has_results is None:
            self._has_results = graph_has_results(store)
        if self.model is None:
            name = self.config_name or ""
            table = OURS_DEFAULTS_CONTEXT if self._has_results else OURS_DEFAULTS
            stored = table.get(name)  # both tables cover every configuration
            if stored is None:
                raise InputError(
                    f"no stored coefficients for configuration {name!r}; run with --tune",
                    field="config",
                )
            self.model = PairwiseModel.from_params(stored)
            self.hybrid_k = self.model.hybrid_k
        return self.model

    def prepare(
        self, store: GraphStore, progress: Callable[[int, int], None] | None = None
    ) -> None:
        self._resolve_model(store)
        super().prepare(store, progress=progress)

    def graph_index(self, store: GraphStore, rel_type: str) -> GraphIndex:
        key = (id(store), rel_type)
        if self._index is None or self._index_key != key:
            self._index = GraphIndex(store, rel_type)
            self._index_key = key
        return self._index

    def pair_tensor(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery, cands: list[str]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(years, X): the feature tensor of every candidate pair (context only if used)."""
        model = self._resolve_model(store)
        years = _filled_years(store, cands)
        ctx = qual = None
        if self._has_results and model.uses_context:
            ctx = context_matrix(store, query, cands)
            qual, _ = context_quality(store, query, cands)
        x = pair_features(
            cands, years, self.graph_index(store, config.rel_type), context=ctx, quality=qual
        )
        return years, x

    def order(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery, cands: list[str]
    ) -> list[str]:
        years, x = self.pair_tensor(store, config, query, cands)
        logit = x @ self._resolve_model(store).weights
        return aggregate_order(cands, years, logit)


def graph_has_results(store: GraphStore) -> bool:
    return bool(store.run_named("legobench/rpg_has_results"))


def make_ranker(
    name: str,
    config: RPGConfig,
    *,
    embedder: Embedder | None = None,
    params: Mapping[str, Any] | None = None,
) -> RPGRanker:
    """Build a ranker by name; ``params`` (a :meth:`PairwiseModel.to_params` dict, e.g. from
    :func:`tune_pairwise`) replace the stored defaults for ``ours``; ``hybrid_k`` alone sets
    the candidate depth of every hybrid ranker."""
    if name not in RANKER_NAMES:
        raise InputError(
            f"unknown RPG ranker {name!r}; choose one of {', '.join(RANKER_NAMES)}",
            field="ranker",
        )
    stored = OURS_DEFAULTS.get(config.name, {})
    k = int((params or {}).get("hybrid_k", stored.get("hybrid_k", DEFAULT_HYBRID_K)))
    if name == "pagerank":
        return PageRankRanker(embedder, retrieval="strict")
    if name == "pagerank-hybrid":
        r = PageRankRanker(embedder, retrieval="hybrid", hybrid_k=k)
        r.name = "pagerank-hybrid"
        return r
    if name == "date":
        return DateRanker(retrieval="hybrid", hybrid_k=k)
    if name == "indegree":
        return InDegreeRanker(retrieval="hybrid", hybrid_k=k)
    model = PairwiseModel.from_params(params) if params and "coef" in params else None
    ranker = PairwiseRanker(
        model,
        retrieval="strict" if name == "ours-strict" else "hybrid",
        config_name=config.name,
        hybrid_k=k,
    )
    ranker.name = name
    return ranker


# --------------------------------------------------------------------------- pipeline


@dataclass
class RPGRunResult:
    config: RPGConfig
    ranker: str
    ranker_params: dict[str, Any]
    predictions: dict[str, list[str]]
    candidate_counts: dict[str, int]
    scores: RPGScores
    timings: dict[str, float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)


def run_rpg(
    store: GraphStore,
    instances: Sequence[RPGInstance],
    config: RPGConfig,
    ranker: RPGRanker,
    *,
    progress: ProgressFn | None = None,
) -> RPGRunResult:
    """Rank every instance's query, then score against its ground truth.

    Only ``instance.query`` reaches the ranker; ``instance.gold`` is read by ``score_rpg``.
    """
    t0 = time.perf_counter()
    ranker.prepare(store)
    t_prep = time.perf_counter() - t0
    predictions: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    latencies: list[float] = []
    for n, inst in enumerate(instances, 1):
        q0 = time.perf_counter()
        cands = ranker.candidates(store, config, inst.query)
        predictions[inst.query.id] = ranker.order(store, config, inst.query, cands) if cands else []
        latencies.append(time.perf_counter() - q0)
        counts[inst.query.id] = len(cands)
        if progress is not None:
            progress(n, len(instances))
    t1 = time.perf_counter()
    scores = score_rpg(instances, predictions)
    for qid, c in counts.items():
        scores.per_instance[qid]["n_candidates"] = float(c)
    scores.metrics["mean_candidates"] = sum(counts.values()) / len(counts) if counts else 0.0
    t2 = time.perf_counter()
    return RPGRunResult(
        config=config,
        ranker=ranker.name,
        ranker_params=ranker.params(),
        predictions=predictions,
        candidate_counts=counts,
        scores=scores,
        timings={"prepare": t_prep, "rank": t1 - t0 - t_prep, "score": t2 - t1, "total": t2 - t0},
        latencies=latencies,
    )


def run_record(
    result: RPGRunResult,
    *,
    split: str,
    seed: int,
    dev_fraction: float,
    ground_truth: str,
    encoder: str | None,
    graph: str,
) -> Any:
    """A ``RunRecord`` (JSON + ``:Run``) so ``scholarkg runs compare`` can test significance."""
    from scholarkg.benchmark.runs import new_run

    config = {
        "configuration": result.config.name,
        "graph": "PCN" if result.config.rel_type == "COMPARES_WITH" else "CN",
        "text": result.config.text.upper(),
        "ranker": result.ranker,
        "ranker_params": result.ranker_params,
        "split": split,
        "split_seed": seed,
        "dev_fraction": dev_fraction,
        "missing_policy": "bottom",
        "ground_truth": ground_truth,
        "store_graph": graph,
    }
    if encoder:
        config["encoder"] = encoder
    metrics = {k: v for k, v in result.scores.metrics.items()}
    return new_run(
        f"{TASK_NAME}/{result.config.name}",
        metrics=metrics,
        per_instance=result.scores.per_instance,
        config=config,
        models={"encoder": encoder} if encoder else {},
        timings=result.timings,
        notes="BEM/CIS/CP in %; GT papers missing from the ranking tie at the bottom.",
    )


# --------------------------------------------------------------------------- learning

DEFAULT_HYBRID_K = 100
DEFAULT_L2_GRID: tuple[float, ...] = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
CV_FOLDS = 5


def _log_loss(w: np.ndarray, x: np.ndarray, y: np.ndarray, l2: float) -> tuple[float, np.ndarray]:
    """Mean logistic loss + (l2 / 2)·|w|² and its gradient (labels y ∈ {0, 1})."""
    z = x @ w
    loss = np.mean(np.logaddexp(0.0, z) - y * z) + 0.5 * l2 * float(w @ w)
    p = 1.0 / (1.0 + np.exp(-np.clip(z, -50, 50)))
    grad = x.T @ (p - y) / len(y) + l2 * w
    return float(loss), grad


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float) -> np.ndarray:
    """L2-regularised logistic regression without intercept (L-BFGS on the exact gradient).

    scikit-learn is deliberately not used: it is not a dependency, and this convex problem
    (a few thousand rows, nine columns) is a dozen lines with scipy.
    """
    from scipy.optimize import minimize

    if len(y) == 0:
        return np.zeros(x.shape[1])
    res = minimize(
        _log_loss, np.zeros(x.shape[1]), args=(x, y, l2), jac=True, method="L-BFGS-B",
        options={"maxiter": 500},
    )  # fmt: skip
    return np.asarray(res.x)


@dataclass
class PairData:
    """Training pairs: one row per ordered GT pair found among a query's candidates."""

    x: np.ndarray  # (rows, len(PAIR_FEATURES)), raw features
    y: np.ndarray  # 1 when the row's first paper is better
    group: np.ndarray  # leaderboard index (for grouped cross-validation)
    n_leaderboards: int


def collect_pairs(
    ranker: PairwiseRanker,
    store: GraphStore,
    dev: Sequence[RPGInstance],
    config: RPGConfig,
    *,
    progress: ProgressFn | None = None,
) -> PairData:
    """Feature rows of every GT pair of ``dev`` whose papers are both candidates.

    Each pair appears in both orientations (label 1 and 0): with antisymmetric features and
    no intercept that is the same fit as one random orientation, without the randomness.
    """
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    gs: list[np.ndarray] = []
    for g, inst in enumerate(dev):
        cands = ranker.candidates(store, config, inst.query)
        pos = {pid: i for i, pid in enumerate(cands)}
        found = [pos[p] for p in inst.gold if p in pos]
        if len(found) >= 2:
            _, x = ranker.pair_tensor(store, config, inst.query, cands)
            a = np.asarray([found[i] for i in range(len(found)) for _ in found[i + 1 :]])
            b = np.asarray([found[j] for i in range(len(found)) for j in range(i + 1, len(found))])
            xs.extend([x[a, b], x[b, a]])
            ys.extend([np.ones(len(a)), np.zeros(len(a))])
            gs.extend([np.full(len(a), g), np.full(len(a), g)])
        if progress is not None:
            progress(g + 1, len(dev))
    k = len(PAIR_FEATURES)
    return PairData(
        x=np.concatenate(xs) if xs else np.zeros((0, k)),
        y=np.concatenate(ys) if ys else np.zeros(0),
        group=np.concatenate(gs) if gs else np.zeros(0, dtype=int),
        n_leaderboards=len(dev),
    )


def tune_pairwise(
    store: GraphStore,
    dev: Sequence[RPGInstance],
    config: RPGConfig,
    *,
    hybrid_k: int = DEFAULT_HYBRID_K,
    l2_grid: Sequence[float] = DEFAULT_L2_GRID,
    progress: ProgressFn | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fit the pairwise model on ``dev``; returns (``PairwiseModel.to_params()``, CV trials).

    Features are scaled by their RMS on the dev pairs; the L2 strength is the grid value with
    the lowest mean held-out log loss over ``CV_FOLDS`` folds *of leaderboards* (pairs of one
    leaderboard are never split across train and validation), then the model is refitted on
    all of dev. Context features are used only when the graph holds ``Result`` nodes. Pass dev
    instances only: the caller guarantees the test split never reaches this function.
    """
    has_results = graph_has_results(store)
    feats = PAIR_FEATURES if has_results else tuple(
        f for f in PAIR_FEATURES if f not in CONTEXT_FEATURES
    )  # fmt: skip
    # all-ones coefficients: only so that pair_tensor computes the context features too
    probe = PairwiseModel(
        coef=tuple(1.0 for _ in PAIR_FEATURES), scale=tuple(1.0 for _ in PAIR_FEATURES),
        hybrid_k=hybrid_k,
    )  # fmt: skip
    ranker = PairwiseRanker(probe, retrieval="hybrid", config_name=config.name)
    ranker._has_results = has_results
    ranker.prepare(store)
    data = collect_pairs(ranker, store, dev, config, progress=progress)
    cols = [PAIR_FEATURES.index(f) for f in feats]
    x = data.x[:, cols]
    scale = np.sqrt(np.mean(x**2, axis=0)) if len(x) else np.ones(len(cols))
    scale = np.where(scale > 0, scale, 1.0)
    xs = x / scale
    folds = data.group % CV_FOLDS
    trials: list[dict[str, Any]] = []
    for l2 in l2_grid:
        losses, correct, total = [], 0, 0
        for f in range(CV_FOLDS):
            train, val = folds != f, folds == f
            if not val.any() or not train.any():
                continue
            w = fit_logistic(xs[train], data.y[train], l2)
            z = xs[val] @ w
            losses.append(float(np.mean(np.logaddexp(0.0, z) - data.y[val] * z)))
            correct += int(np.sum((z > 0) == (data.y[val] == 1)))
            total += int(val.sum())
        trials.append({
            "l2": l2, "cv_log_loss": float(np.mean(losses)) if losses else math.nan,
            "cv_pair_accuracy": correct / total if total else math.nan,
        })  # fmt: skip
    scored = [t for t in trials if not math.isnan(t["cv_log_loss"])]
    best_l2 = min(scored, key=lambda t: (t["cv_log_loss"], -t["l2"]))["l2"] if scored else 1.0
    w = fit_logistic(xs, data.y, best_l2)
    # the single strongest signal on the same pairs, for honesty (ties count one half)
    newer = data.x[:, PAIR_FEATURES.index("newer")]
    date_acc = float(np.mean(np.where(newer == 0, 0.5, (newer > 0) == (data.y == 1))))
    cv_acc = next((t["cv_pair_accuracy"] for t in trials if t["l2"] == best_l2), math.nan)
    model = PairwiseModel(
        coef=tuple(float(c) for c in w),
        scale=tuple(float(s) for s in scale),
        l2=float(best_l2),
        hybrid_k=hybrid_k,
        features=feats,
        fit_info={
            "split": "dev",
            "n_leaderboards": data.n_leaderboards,
            "n_pairs": int(len(data.y) // 2),
            "context": has_results,
            "cv_pair_accuracy": round(float(cv_acc), 4) if len(data.y) else None,
            "date_pair_accuracy": round(date_acc, 4) if len(data.y) else None,
        },
    )
    return model.to_params(), trials

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

Our ranker, and why: the baseline ignores the two things that order a leaderboard in
practice. (1) Direction: ``a -[:COMPARES_WITH]-> b`` means *a* reports results against *b*,
so *a* is newer and usually better; ``a -[:CITES]-> b`` at least says *a* is newer. (2) Time:
results improve, so newer tends to be better; but dates are noisy and the trend is weak
against per-result noise. So each candidate pair gets a log-odds that *a* beats *b*,
``gamma * (year_a - year_b) + c_edge * (edges a→b - edges b→a)``, the pairwise probabilities
are summed (Borda count of a Bradley–Terry-style pairwise model: the maximum-likelihood
Kemeny order is NP-hard; Borda is its standard 5-approximation and exact when the pairwise
model is transitive), and a final pass swaps adjacent papers whose pairwise probability
disagrees with their order. ``gamma`` and ``c_edge`` are tuned on the dev split
(:func:`tune_pairwise`); the defaults in :data:`OURS_DEFAULTS` came from that tuning.

Hybrid retrieval: strict unigram-AND ∪ the ``hybrid_k`` best BM25 (bm25s) hits for the
query text over title + abstract. The strict AND misses papers whose abstract omits, say,
the metric name; BM25 recovers them by ranking partial matches. Candidate-set size is
reported with every run so recall gains are not hidden.
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from itertools import product
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

#: Tuned on the *dev* split (104 leaderboards) of the seeded synthetic corpus with
#: :func:`tune_pairwise`'s default grid (``benchmarks/bench_rpg.py --quality``: 4,000 papers,
#: 200 leaderboards, seed 13, dev fraction 0.5); never on the test split.
OURS_DEFAULTS: dict[str, dict[str, float]] = {
    "cn-tabs": {"gamma": 4.0, "c_edge": 0.5, "c_absent": 1.0, "hybrid_k": 100},
    "pcn-tabs": {"gamma": 0.5, "c_edge": 2.0, "c_absent": 1.0, "hybrid_k": 100},
    "cn-ft": {"gamma": 2.0, "c_edge": 1.0, "c_absent": 1.0, "hybrid_k": 20},
    "pcn-ft": {"gamma": 0.25, "c_edge": 2.0, "c_absent": 0.5, "hybrid_k": 50},
}


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
        for row in store.run_named("rpg_paper_meta", {"ids": list(ids[start : start + 20_000])}):
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
    target_id = leaderboard_id(query.task, query.dataset, query.metric)
    params = {
        "ids": list(ids),
        "target_id": target_id,
        "task": query.task.strip().lower(),
        "dataset": query.dataset.strip().lower(),
        "metric": query.metric.strip().lower(),
    }
    pos = {pid: i for i, pid in enumerate(ids)}
    boards: dict[str, list[tuple[int, float]]] = {}
    sign: dict[str, float] = {}
    for row in store.run_named("rpg_context_results", params):
        key = leaderboard_key(str(row["task"]), str(row["dataset"]), str(row["metric"]))
        if key == query.id or row["board"] == target_id:
            raise InputError(f"leaderboard context returned the target leaderboard {key!r}")
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
        rows = store.run_named("rpg_paper_text_page", {"after": after, "limit": 5_000})
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


@dataclass(frozen=True)
class PairwiseParams:
    gamma: float = 1.0  # log-odds per year that the newer paper is better
    c_edge: float = 2.0  # log-odds added per edge a -> b in favour of a
    #: log-odds taken from the newer paper of a pair with no edge either way: a newer paper
    #: that beat an older one usually reports it, so silence is weak evidence it did not
    c_absent: float = 0.0
    #: log-odds per net win on other leaderboards (Papers with Code Results, if loaded)
    c_context: float = 0.0
    hybrid_k: int = 50


def pairwise_order(f: Features, params: PairwiseParams) -> list[str]:
    """Borda count of pairwise probabilities, then adjacent swaps (see module docstring)."""
    n = len(f.ids)
    if n == 0:
        return []
    logit = params.gamma * (f.years[:, None] - f.years[None, :])
    if len(f.src):
        edge = np.zeros((n, n))
        np.add.at(edge, (f.src, f.dst), 1.0)
        logit = logit + params.c_edge * (edge - edge.T)
        if params.c_absent:
            silent = (edge + edge.T) == 0
            logit = logit - params.c_absent * np.sign(f.years[:, None] - f.years[None, :]) * silent
    elif params.c_absent:
        logit = logit - params.c_absent * np.sign(f.years[:, None] - f.years[None, :])
    if params.c_context and f.context is not None:
        logit = logit + params.c_context * f.context
    prob = 1.0 / (1.0 + np.exp(-np.clip(logit, -50, 50)))
    np.fill_diagonal(prob, 0.0)
    score = prob.sum(axis=1)
    order = sorted(range(n), key=lambda i: (-score[i], -f.years[i], f.ids[i]))
    for _ in range(n):  # bubble passes: adjacent pairs must agree with their pairwise odds
        swapped = False
        for k in range(n - 1):
            a, b = order[k], order[k + 1]
            if logit[b, a] > 0:
                order[k], order[k + 1] = b, a
                swapped = True
        if not swapped:
            break
    return [f.ids[i] for i in order]


class PairwiseRanker(RPGRanker):
    """Ours: time prior + edge direction, pairwise log-odds, Borda + adjacent swaps."""

    name = "ours"

    def __init__(self, params: PairwiseParams, *, retrieval: str = "hybrid") -> None:
        super().__init__(retrieval=retrieval, hybrid_k=params.hybrid_k)
        self.pp = params

    def params(self) -> dict[str, Any]:
        return {
            **super().params(),
            "gamma": self.pp.gamma,
            "c_edge": self.pp.c_edge,
            "c_absent": self.pp.c_absent,
            "c_context": self.pp.c_context,
        }

    def order(
        self, store: GraphStore, config: RPGConfig, query: LeaderboardQuery, cands: list[str]
    ) -> list[str]:
        q = query if self.pp.c_context else None  # context is read only when it is used
        return pairwise_order(features(store, config, cands, query=q), self.pp)


def make_ranker(
    name: str,
    config: RPGConfig,
    *,
    embedder: Embedder | None = None,
    params: Mapping[str, float] | None = None,
) -> RPGRanker:
    """Build a ranker by name; ``params`` override :data:`OURS_DEFAULTS` for ``ours``."""
    if name not in RANKER_NAMES:
        raise InputError(
            f"unknown RPG ranker {name!r}; choose one of {', '.join(RANKER_NAMES)}",
            field="ranker",
        )
    tuned = {**OURS_DEFAULTS[config.name], **(params or {})}
    k = int(tuned["hybrid_k"])
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
    pp = PairwiseParams(
        gamma=float(tuned["gamma"]),
        c_edge=float(tuned["c_edge"]),
        c_absent=float(tuned.get("c_absent", 0.0)),
        c_context=float(tuned.get("c_context", 0.0)),
        hybrid_k=k,
    )
    ranker = PairwiseRanker(pp, retrieval="strict" if name == "ours-strict" else "hybrid")
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


# --------------------------------------------------------------------------- tuning

DEFAULT_GRID: dict[str, tuple[float, ...]] = {
    "gamma": (0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
    "c_edge": (0.0, 0.5, 1.0, 2.0, 4.0),
    "c_absent": (0.0, 0.5, 1.0),
    "c_context": (0.0, 0.5, 1.0),
    "hybrid_k": (0, 20, 50, 100),
}


def tune_pairwise(
    store: GraphStore,
    dev: Sequence[RPGInstance],
    config: RPGConfig,
    *,
    grid: Mapping[str, Sequence[float]] | None = None,
    progress: ProgressFn | None = None,
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """Grid search of :class:`PairwiseParams` on ``dev`` (mean KTau, then BEM, then CP).

    Candidates and graph features are computed once per (query, hybrid_k); only the cheap
    ordering is repeated per grid point. Pass dev instances only: the caller guarantees the
    test split never reaches this function.
    """
    g = {**DEFAULT_GRID, **(grid or {})}
    has_results = bool(store.run("MATCH (:Paper)-[:HAS_RESULT]->(r:Result) RETURN r LIMIT 1"))
    if not has_results:  # no Papers with Code results in this graph: context is all zeros
        g["c_context"] = (0.0,)
    base = PairwiseRanker(PairwiseParams(hybrid_k=int(max(g["hybrid_k"]))), retrieval="hybrid")
    base.prepare(store)
    pools: dict[str, tuple[list[str], list[str]]] = {}
    for n, inst in enumerate(dev, 1):
        strict = strict_candidates(store, inst.query, config)
        bm = base._bm25.rank(inst.query.text, base.hybrid_k).ids if base.hybrid_k else []
        pools[inst.query.id] = (strict, bm)
        if progress is not None:
            progress(n, len(dev))
    queries = {inst.query.id: inst.query for inst in dev}
    trials: list[dict[str, Any]] = []
    best: tuple[tuple[float, float, float], dict[str, float]] | None = None
    for k in g["hybrid_k"]:
        feats = {
            qid: features(
                store,
                config,
                list(dict.fromkeys([*s, *bm[: int(k)]])),
                query=queries[qid] if has_results else None,
            )
            for qid, (s, bm) in pools.items()
        }
        axes = product(g["gamma"], g["c_edge"], g["c_absent"], g["c_context"])
        for gamma, c_edge, c_absent, c_context in axes:
            point = {
                "gamma": gamma, "c_edge": c_edge, "c_absent": c_absent, "c_context": c_context,
                "hybrid_k": int(k),
            }  # fmt: skip
            pp = PairwiseParams(**point)
            preds = {qid: pairwise_order(f, pp) for qid, f in feats.items()}
            m = score_rpg(dev, preds).metrics
            trials.append({**point, **m})
            key = (m["KTau"] or -2.0, m["BEM"] or 0.0, m["CP"] or 0.0)
            if best is None or key > best[0]:
                best = (key, point)
    assert best is not None
    return best[1], trials

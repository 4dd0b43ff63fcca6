"""RPG features: what the graph says about a candidate set, as arrays.

* :func:`features`: dates and the configuration's edges among the candidates (single-signal
  rankers);
* :class:`GraphIndex`: the configuration's whole graph as a sparse matrix, built once per
  run, for whole-graph degrees and 2-hop paths;
* :func:`context_matrix` / :func:`context_quality`: the candidates' standing on *other*
  leaderboards (Papers with Code Results). Leakage guard, twice: the named query drops the
  target leaderboard inside the database and every returned row is checked again here;
  ``HAS_ENTRY`` (ground truth) is never read;
* :data:`PAIR_FEATURES` and :func:`pair_features`: the antisymmetric pairwise features of our
  learned ranker (``rpg/model.py``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from scholarkg.benchmark.tasks.legobench.rpg.core import (
    LeaderboardQuery,
    RPGConfig,
    leaderboard_key,
)
from scholarkg.benchmark.tasks.legobench.rpg.dates import filled_years, fractional_year
from scholarkg.errors import InputError
from scholarkg.schema.ids import leaderboard_id
from scholarkg.store.base import EdgeSnapshot, GraphStore


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
    years = filled_years(store, snap.ids)
    ctx = context_matrix(store, query, snap.ids) if query is not None else None
    return Features(
        list(snap.ids), years, snap.src.astype(np.int64), snap.dst.astype(np.int64), ctx
    )


def other_board_rows(
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
    for row in other_board_rows(store, "legobench/rpg_context_results", query, ids):
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


def sorted_by(ids: Sequence[str], score: np.ndarray, tie: np.ndarray | None = None) -> list[str]:
    """Ids by score desc, then ``tie`` desc, then id asc (deterministic)."""
    tie_vals = tie if tie is not None else np.zeros(len(ids))
    order = sorted(range(len(ids)), key=lambda i: (-score[i], -tie_vals[i], ids[i]))
    return [ids[i] for i in order]


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


class EdgeSnapshotSource(Protocol):
    """What :class:`GraphIndex` reads: one edge snapshot (a :class:`GraphStore`, or given edges)."""

    def edge_snapshot(self, node_label: str, rel_type: str) -> EdgeSnapshot: ...


class GraphIndex:
    """The configuration's whole graph as a sparse matrix (built once per run, beside the DB).

    Whole-graph degrees and 2-hop paths need edges outside the candidate set; one snapshot
    (scipy CSR) answers every query, instead of a Cypher round trip per query.
    """

    def __init__(self, store: EdgeSnapshotSource, rel_type: str) -> None:
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

        return cls(_Snap(), rel_type)


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
    for row in other_board_rows(store, "legobench/rpg_context_boards", query, ids):
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

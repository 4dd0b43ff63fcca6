"""PageRank with exactly the semantics of Neo4j GDS ``gds.pageRank`` (the Neo4j GDS manual,
PageRank).

Why not ``networkx.pagerank`` or FalkorDB's ``algo.pageRank``: both normalise scores to sum 1,
redistribute the mass of dangling nodes and stop on a global L1/L2 rule, so their numbers
differ from GDS by up to tens of percent on graphs with many dangling nodes (papers
without a reference list). Benchmark scores must not depend on the backend, so the embedded
store runs this function, which reproduces GDS's Pregel computation step by step:

* unnormalised scores, start value ``1 - d`` per node (or ``(1 - d) * bias`` for PPR sources);
* *delta form*: each superstep a node forwards only the increase it received in the previous
  one, and a node whose increase is ``<= tolerance`` stops sending (but keeps receiving);
* ``max_iterations`` counts supersteps including superstep 0, so 20 iterations are 19
  propagation steps and the result is *not* the stationary vector;
* dangling nodes send nothing: their mass is lost, never redistributed;
* weights: an edge carries ``w / sum(out-weights)`` of the sender's delta; parallel edges and
  self loops count; negative weights are dropped (as GDS ignores them).

Only scipy.sparse and numpy, float64 throughout. Deliberately not float32: a float32 sum of
k terms is off by up to ~k ulps, and citation hubs receive 10^4-10^5 edges, so float32
PageRank lands ~2e-5 (relative) off the float64 numbers on a preferential-attachment graph
(and 1.4e-6 absolute even on a uniform one), outside the 1e-6 that keeps the backends
interchangeable; summing hub rows in float64 and the rest in float32 stays within 1e-6 but
is no faster (``benchmarks/bench_pagerank.py`` prints all three).

Speed (issue 22): the transition matrix is built once per graph (:class:`TransitionOperator`,
cached by ``graphalgo.projection.Projection``) and the iteration allocates nothing: the product
goes into a preallocated buffer through scipy's own CSR kernel, and damping, score update and
the per-node halt run in place. The matrix is stored *receiver-major* (row ``v`` holds the
in-edges of ``v``), so each superstep is one pass over the edges.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

try:  # scipy's CSR kernel ``y += A @ x`` into a caller's array; private, hence the fallback
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
except ImportError:  # pragma: no cover - a scipy that moved it: same numbers, one allocation
    _csr_matvec = None

from scholarkg.errors import InputError
from scholarkg.store.base import EdgeSnapshot, PageRankConfig, PageRankResult
from scholarkg.store.pagerank_config import _check_parameters, check_pagerank_config

__all__ = [
    "TransitionOperator",
    "check_pagerank_config",
    "pagerank",
    "pagerank_on_snapshot",
    "transition_operator",
]


def _as_index_array(values: np.ndarray, name: str, n_nodes: int) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise InputError(f"must be a 1-D array, got shape {arr.shape}", field=name)
    if arr.size == 0:
        return arr.astype(np.int64)
    if not np.issubdtype(arr.dtype, np.integer):
        raise InputError(f"must hold integer node indexes, got dtype {arr.dtype}", field=name)
    arr = arr.astype(np.int64, copy=False)
    low, high = int(arr.min()), int(arr.max())
    if low < 0 or high >= n_nodes:
        bad = low if low < 0 else high
        raise InputError(f"node index {bad} outside [0, {n_nodes})", field=name)
    return arr


def _transition_matrix(
    n_nodes: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None
) -> sp.csr_matrix:
    """``M[v, u] = sum(w(u->v)) / out(u)``; columns of dangling nodes are empty."""
    if weight is None:
        w = np.ones(src.shape[0], dtype=np.float64)
    else:
        w = np.asarray(weight, dtype=np.float64)
        if w.shape != src.shape:
            raise InputError(
                f"weight has {w.shape[0] if w.ndim == 1 else w.shape} entries, "
                f"expected {src.shape[0]} (one per edge)",
                field="weight",
            )
        if not np.all(np.isfinite(w)):
            raise InputError("weights must be finite numbers (no NaN/inf)", field="weight")
        keep = w >= 0  # GDS ignores negative weights
        src, dst, w = src[keep], dst[keep], w[keep]
    out = np.bincount(src, weights=w, minlength=n_nodes)
    # A node whose out-weight is 0 (no edges, or only zero-weight ones) sends nothing.
    # GDS would divide by zero there; treating it as dangling is the only finite choice.
    share = np.divide(w, out[src], out=np.zeros_like(w), where=out[src] > 0)
    # coo -> csr sums duplicates, so parallel edges add up as GDS's message sum does.
    return sp.csr_matrix((share, (dst, src)), shape=(n_nodes, n_nodes), dtype=np.float64)


def _matvec(m: sp.csr_matrix, data: np.ndarray, x: np.ndarray, out: np.ndarray) -> None:
    """``out = M @ x`` for ``m``'s structure with values ``data``, written into ``out``."""
    out.fill(0.0)
    if _csr_matvec is not None:
        _csr_matvec(m.shape[0], m.shape[1], m.indptr, m.indices, data, x, out)
    else:  # pragma: no cover
        out[:] = sp.csr_matrix((data, m.indices, m.indptr), shape=m.shape) @ x


@dataclass(frozen=True)
class TransitionOperator:
    """The PageRank transition matrix of one graph, built once and reused by every run.

    ``matrix[v, u] = sum(w(u->v)) / out(u)`` (CSR, float64, receiver-major), so
    ``matrix @ delta`` is what every node receives in one superstep. The values times the
    damping factor are kept per damping factor used (one pass fewer per superstep).
    """

    n_nodes: int
    matrix: sp.csr_matrix
    _damped: dict[float, np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _extra: dict[str, sp.csr_matrix] = field(default_factory=dict, repr=False, compare=False)

    def senders(self) -> sp.csr_matrix:
        """The same matrix sender-major (row ``u``: what ``u`` sends to each out-neighbour), as
        :func:`personalized_pagerank` walks it; built on first use."""
        if "senders" not in self._extra:
            self._extra["senders"] = sp.csr_matrix(self.matrix.T)
        return self._extra["senders"]

    def damped(self, damping_factor: float) -> np.ndarray:
        """``d * matrix.data``, computed once per ``d``."""
        key = float(damping_factor)
        if key not in self._damped:
            if len(self._damped) >= 4:  # a sweep over many d: keep memory bounded
                self._damped.clear()
            self._damped[key] = self.matrix.data * key
        return self._damped[key]

    def run(
        self,
        start: np.ndarray,
        *,
        damping_factor: float,
        max_iterations: int,
        tolerance: float,
    ) -> tuple[np.ndarray, int, bool]:
        """GDS's supersteps from ``start`` (superstep 0's scores): ``(scores, ran, converged)``.

        Every buffer is allocated before the loop; each superstep is one CSR product (with
        the damping folded into the values) into ``received``, then in-place score update
        and halting — the former ``delta = d * (matrix @ delta)`` loop up to rounding
        (1e-15), without its four temporaries of ``n`` entries per superstep.
        """
        n = self.n_nodes
        data = self.damped(damping_factor)
        scores = np.array(start, dtype=np.float64)  # the one array handed back
        delta = scores.copy()  # superstep 0: every node sends its start value
        received = np.empty(n, dtype=np.float64)
        halted = np.empty(n, dtype=bool)
        for superstep in range(1, max_iterations):
            _matvec(self.matrix, data, delta, received)
            np.add(scores, received, out=scores)
            # nodes whose increase is <= tolerance vote to halt: they stop sending. Deltas
            # are >= 0, so "all halted" is exactly "nothing is sent any more".
            np.less_equal(received, tolerance, out=halted)
            np.copyto(received, 0.0, where=halted)
            if halted.all():
                return scores, superstep, True
            delta, received = received, delta
        return scores, max_iterations, False


def transition_operator(
    n_nodes: int, src: np.ndarray, dst: np.ndarray, weight: np.ndarray | None = None
) -> TransitionOperator:
    """Check the edge arrays and build the :class:`TransitionOperator` of ``src -> dst``."""
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, int | np.integer) or n_nodes < 0:
        raise InputError(f"must be a non-negative integer, got {n_nodes!r}", field="n_nodes")
    n_nodes = int(n_nodes)
    src_i = _as_index_array(src, "src", n_nodes)
    dst_i = _as_index_array(dst, "dst", n_nodes)
    if src_i.shape != dst_i.shape:
        raise InputError(
            f"src has {src_i.shape[0]} entries but dst has {dst_i.shape[0]}", field="dst"
        )
    return TransitionOperator(n_nodes, _transition_matrix(n_nodes, src_i, dst_i, weight))


def start_vector(
    n_nodes: int, damping_factor: float, source_bias: Mapping[int, float] | None = None
) -> np.ndarray:
    """Superstep 0's scores: ``1 - d`` everywhere, or ``(1 - d) * bias`` on the sources."""
    alpha = 1.0 - damping_factor
    if source_bias is None:
        return np.full(n_nodes, alpha, dtype=np.float64)
    start = np.zeros(n_nodes, dtype=np.float64)
    for node, bias in source_bias.items():
        if isinstance(node, bool) or not isinstance(node, int | np.integer):
            raise InputError(
                f"source node must be an integer index, got {node!r}", field="source_bias"
            )
        if not 0 <= node < n_nodes:
            raise InputError(f"source node {node} outside [0, {n_nodes})", field="source_bias")
        b = float(bias)
        if not math.isfinite(b) or b < 0:
            raise InputError(
                f"bias of source node {node} must be a finite number >= 0, got {bias!r}",
                field="source_bias",
            )
        start[int(node)] = alpha * b
    return start


def pagerank(
    n_nodes: int,
    src: np.ndarray,
    dst: np.ndarray,
    weight: np.ndarray | None = None,
    *,
    damping_factor: float = 0.85,
    max_iterations: int = 20,
    tolerance: float = 1e-7,
    source_bias: Mapping[int, float] | None = None,
    operator: TransitionOperator | None = None,
) -> tuple[np.ndarray, int, bool]:
    """GDS-identical PageRank / personalized PageRank on a directed graph given as arrays.

    Args:
        n_nodes: number of nodes; node ``i`` is index ``i`` (isolated nodes included).
        src, dst: edge ``k`` goes ``src[k] -> dst[k]`` (projection orientation; pass both
            directions for an undirected projection).
        weight: per-edge weights (``relationshipWeightProperty``); ``None`` = unweighted.
        damping_factor: GDS ``dampingFactor``, in ``[0, 1)``.
        max_iterations: GDS ``maxIterations`` (supersteps, superstep 0 included), ``>= 1``.
        tolerance: GDS ``tolerance``; a node stops sending once its delta is ``<= tolerance``.
        source_bias: ``{node index: bias}`` for personalized PageRank (GDS ``sourceNodes``);
            biases are used as given (not normalised); use 1.0 for the plain list form.
        operator: the graph's prebuilt :class:`TransitionOperator` (then ``src``/``dst``/
            ``weight`` are not read): how a cached projection skips rebuilding the matrix.

    Returns:
        ``(scores, ran_iterations, did_converge)`` as GDS's ``stream``/``stats`` report them.
    """
    _check_parameters(damping_factor, max_iterations, tolerance)
    if operator is None:
        operator = transition_operator(n_nodes, src, dst, weight)
    elif operator.n_nodes != n_nodes:
        raise InputError(
            f"the operator has {operator.n_nodes} nodes, n_nodes is {n_nodes}", field="operator"
        )
    start = start_vector(operator.n_nodes, damping_factor, source_bias)
    return operator.run(
        start,
        damping_factor=damping_factor,
        max_iterations=max_iterations,
        tolerance=tolerance,
    )


def pagerank_on_snapshot(
    snapshot: EdgeSnapshot,
    config: PageRankConfig,
    *,
    weighted: bool,
    label: str = "node",
    operator: TransitionOperator | None = None,
    position: Mapping[str, int] | None = None,
) -> PageRankResult:
    """:func:`pagerank` on a store's ``edge_snapshot``, keyed by application ids.

    Both stores compute PageRank this way when GDS is absent (always on the embedded
    store), so source-node checking and the result shape live here once. Source nodes
    that are not in the snapshot raise ``InputError`` naming them: GDS would fail too,
    and silently dropping them would turn personalized into a different PageRank.
    A cached projection passes its prebuilt ``operator`` and its ``position`` (id -> index).
    """
    check_pagerank_config(config)
    bias: dict[int, float] | None = None
    if config.source_nodes is not None:
        if position is None:
            position = {node_id: i for i, node_id in enumerate(snapshot.ids)}
        missing = [str(s) for s in config.source_nodes if str(s) not in position]
        if missing:
            raise InputError(
                f"PageRank source node(s) not in the {label} graph: {missing[:5]}",
                field="source_nodes",
            )
        bias = {position[str(s)]: float(b) for s, b in config.source_nodes.items()}
    t0 = time.perf_counter()
    scores, ran, converged = pagerank(
        len(snapshot.ids),
        snapshot.src,
        snapshot.dst,
        snapshot.weight if weighted else None,
        damping_factor=config.damping_factor,
        max_iterations=config.max_iterations,
        tolerance=config.tolerance,
        source_bias=bias,
        operator=operator,
    )
    return PageRankResult(
        scores={node_id: float(s) for node_id, s in zip(snapshot.ids, scores, strict=True)},
        ran_iterations=int(ran),
        did_converge=bool(converged),
        compute_millis=(time.perf_counter() - t0) * 1000.0,
    )


def personalized_pagerank(
    matrix: sp.csr_matrix,
    sources: Mapping[int, float],
    *,
    damping_factor: float = 0.85,
    max_iterations: int = 20,
    tolerance: float = 1e-7,
    exclude: Sequence[int] = (),
) -> tuple[np.ndarray, np.ndarray]:
    """Personalized PageRank, GDS semantics, on the sparse frontier: ``(node indexes, scores)``
    of every node that received mass. The one personalized-PageRank implementation rankers use
    (citation recommendation's ``ppr``, DORIS-MAE's ``graph-ppr``, ``Projection.personalized``).

    Why not :func:`pagerank` with ``source_bias``: the same supersteps, but that one sweeps all
    ``n`` nodes per superstep, while a personalized walk with a loose tolerance touches a few
    hundred; here only nodes with ``delta > tolerance`` send (GDS's halting rule), so a call
    costs the edges it reaches, not the graph.


    ``matrix`` row ``u`` (sender-major; :meth:`TransitionOperator.senders` for a natural
    projection): ``u``'s out-neighbours with share ``w / out(u)``. Superstep 0
    holds ``(1 - d) * bias`` on the sources; each later superstep forwards ``d * share *
    delta`` from the active nodes, adds it to the scores and keeps as active the receivers
    whose delta exceeds ``tolerance`` — exactly ``store.pagerank.pagerank`` restricted to
    the non-zero entries, hence equal to it (tested).
    """
    n = matrix.shape[0]
    alpha = 1.0 - damping_factor
    idx: np.ndarray = np.fromiter((int(k) for k in sources), dtype=np.int64, count=len(sources))
    val: np.ndarray = alpha * np.fromiter(
        (float(v) for v in sources.values()), np.float64, len(sources)
    )
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise InputError(f"source node outside [0, {n})", field="sources")
    excluded = np.zeros(n, dtype=bool)
    if len(exclude):
        excluded[np.asarray(exclude, dtype=np.int64)] = True
        val = np.where(excluded[idx], 0.0, val)
    order = np.argsort(idx, kind="stable")
    idx, val = idx[order], val[order]
    acc_idx: list[np.ndarray] = [idx]
    acc_val: list[np.ndarray] = [val]
    indptr, indices, data = matrix.indptr, matrix.indices, matrix.data
    for _ in range(1, max_iterations):
        starts, ends = indptr[idx], indptr[idx + 1]
        counts = ends - starts
        total = int(counts.sum())
        if total == 0:
            break
        rows = np.repeat(np.arange(idx.size), counts)
        offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
        pos = np.repeat(starts, counts) + offsets
        nbr = indices[pos]
        share = damping_factor * data[pos] * val[rows]
        keep = ~excluded[nbr]
        nbr, share = nbr[keep], share[keep]
        if nbr.size == 0:
            break
        uniq, inv = np.unique(nbr, return_inverse=True)
        delta = np.bincount(inv, weights=share)
        acc_idx.append(uniq)
        acc_val.append(delta)
        active = delta > tolerance
        idx, val = uniq[active], delta[active]
        if idx.size == 0:
            break
    all_idx = np.concatenate(acc_idx)
    all_val = np.concatenate(acc_val)
    nodes, inv = np.unique(all_idx, return_inverse=True)
    return nodes, np.bincount(inv, weights=all_val)

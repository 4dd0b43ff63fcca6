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

Only scipy.sparse and numpy, float64 throughout.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp

from scholarkg.errors import InputError
from scholarkg.store.base import EdgeSnapshot, PageRankConfig, PageRankResult

__all__ = ["check_pagerank_config", "pagerank", "pagerank_on_snapshot"]


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


def _check_parameters(damping_factor: float, max_iterations: int, tolerance: float) -> None:
    if not (0.0 <= damping_factor < 1.0) or math.isnan(damping_factor):
        raise InputError(f"must be in [0, 1), got {damping_factor!r}", field="damping_factor")
    if isinstance(max_iterations, bool) or int(max_iterations) != max_iterations:
        raise InputError(f"must be an integer, got {max_iterations!r}", field="max_iterations")
    if max_iterations < 1:
        raise InputError(f"must be >= 1, got {max_iterations}", field="max_iterations")
    if not tolerance >= 0.0:  # also rejects NaN
        raise InputError(f"must be >= 0, got {tolerance!r}", field="tolerance")


def check_pagerank_config(config: PageRankConfig) -> None:
    """Reject parameters GDS would reject, before any work (also for the GDS path).

    Source-node biases are checked here too, by node id: both stores report a bad bias
    the same way (``field="source_nodes"``) whether GDS or scipy computes the ranks.
    """
    _check_parameters(config.damping_factor, config.max_iterations, config.tolerance)
    if config.source_nodes is not None:
        bad = [
            str(node_id)
            for node_id, bias in config.source_nodes.items()
            if not (math.isfinite(float(bias)) and float(bias) >= 0)
        ]
        if bad:
            raise InputError(
                f"PageRank source bias must be a finite number >= 0; not so for {bad[:5]}",
                field="source_nodes",
            )


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

    Returns:
        ``(scores, ran_iterations, did_converge)`` as GDS's ``stream``/``stats`` report them.
    """
    if isinstance(n_nodes, bool) or not isinstance(n_nodes, int | np.integer) or n_nodes < 0:
        raise InputError(f"must be a non-negative integer, got {n_nodes!r}", field="n_nodes")
    n_nodes = int(n_nodes)
    _check_parameters(damping_factor, max_iterations, tolerance)

    src_i = _as_index_array(src, "src", n_nodes)
    dst_i = _as_index_array(dst, "dst", n_nodes)
    if src_i.shape != dst_i.shape:
        raise InputError(
            f"src has {src_i.shape[0]} entries but dst has {dst_i.shape[0]}", field="dst"
        )

    alpha = 1.0 - damping_factor
    if source_bias is None:
        start = np.full(n_nodes, alpha, dtype=np.float64)
    else:
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

    matrix = _transition_matrix(n_nodes, src_i, dst_i, weight)

    # Superstep 0: every node holds and sends its start value, whatever the tolerance.
    scores = start.copy()
    delta = start.copy()
    for superstep in range(1, max_iterations):
        delta = damping_factor * (matrix @ delta)
        scores += delta
        delta[delta <= tolerance] = 0.0  # these nodes vote to halt: they stop sending
        if not delta.any():
            return scores, superstep, True
    return scores, max_iterations, False


def pagerank_on_snapshot(
    snapshot: EdgeSnapshot,
    config: PageRankConfig,
    *,
    weighted: bool,
    label: str = "node",
) -> PageRankResult:
    """:func:`pagerank` on a store's ``edge_snapshot``, keyed by application ids.

    Both stores compute PageRank this way when GDS is absent (always on the embedded
    store), so source-node checking and the result shape live here once. Source nodes
    that are not in the snapshot raise ``InputError`` naming them: GDS would fail too,
    and silently dropping them would turn personalized into a different PageRank.
    """
    check_pagerank_config(config)
    bias: dict[int, float] | None = None
    if config.source_nodes is not None:
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
    )
    return PageRankResult(
        scores={node_id: float(s) for node_id, s in zip(snapshot.ids, scores, strict=True)},
        ran_iterations=int(ran),
        did_converge=bool(converged),
        compute_millis=(time.perf_counter() - t0) * 1000.0,
    )

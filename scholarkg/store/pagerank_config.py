"""PageRank parameter checks, apart from the scipy implementation so the GDS path (and the
CLI that calls it) validates without importing scipy: GDS's own limits (the Neo4j GDS
manual, PageRank), checked before any work on both backends with the same messages.
"""

from __future__ import annotations

import math

from scholarkg.errors import InputError
from scholarkg.store.base import PageRankConfig


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


__all__ = ["check_pagerank_config"]

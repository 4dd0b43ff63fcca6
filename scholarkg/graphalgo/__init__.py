"""Graph algorithms that run beside the database on arrays (``store.edge_snapshot``).

The embedded store has no GDS, so algorithms whose numbers benchmarks depend on are
re-implemented with GDS's exact semantics, making scores backend-independent. PageRank itself
lives in :mod:`scholarkg.store.pagerank` because the stores run it (``graph pagerank`` on a
backend without GDS); this package builds on it (cached projections, personalized runs) and
sits above the store layer.
"""

from typing import Any

__all__ = ["pagerank", "pagerank_on_snapshot"]


def __getattr__(name: str) -> Any:
    """``pagerank`` and ``pagerank_on_snapshot`` on first use: importing a submodule (e.g. the
    GDS path, ``graphalgo.resident``) must not import scipy."""
    if name in __all__:
        from scholarkg.store import pagerank as module

        return getattr(module, name)
    raise AttributeError(name)

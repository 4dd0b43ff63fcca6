"""Graph algorithms that run beside the database on arrays (``store.edge_snapshot``).

The embedded store has no GDS, so algorithms whose numbers benchmarks depend on are
re-implemented with GDS's exact semantics, making scores backend-independent. PageRank itself
lives in :mod:`scholarkg.store.pagerank` because the stores run it (``graph pagerank`` on a
backend without GDS); this package builds on it (cached projections, personalized runs) and
sits above the store layer.
"""

from scholarkg.store.pagerank import pagerank, pagerank_on_snapshot

__all__ = ["pagerank", "pagerank_on_snapshot"]

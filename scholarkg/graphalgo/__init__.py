"""Graph algorithms that run beside the database on arrays (``store.edge_snapshot``).

The embedded store has no GDS, so algorithms whose numbers benchmarks depend on are
re-implemented here with GDS's exact semantics, making scores backend-independent.
"""

from scholarkg.graphalgo.pagerank import pagerank, pagerank_on_snapshot

__all__ = ["pagerank", "pagerank_on_snapshot"]

"""Graph store layer: one ``GraphStore`` protocol, two backends.

``open_store(settings)`` is the only way the rest of scholarkg gets a store, so backend
choice (``--backend`` / ``SCHOLARKG_BACKEND``) is honoured everywhere.
"""

from __future__ import annotations

from scholarkg.config import Settings
from scholarkg.errors import ConfigError
from scholarkg.store.base import GraphStore, Hit, PageRankConfig, PageRankResult

__all__ = ["GraphStore", "Hit", "PageRankConfig", "PageRankResult", "open_store"]


def open_store(settings: Settings, *, graph: str | None = None) -> GraphStore:
    """Open the configured backend; the embedded server (or, for ``neo4j`` without
    ``NEO4J_URI``, the managed Neo4j) is started on demand."""
    if settings.backend == "embedded":
        from scholarkg.store.falkordb.store import FalkorDBStore

        return FalkorDBStore.from_settings(settings, graph=graph)
    if settings.backend == "neo4j":
        from scholarkg.store.neo4j.server import resolve_neo4j_settings
        from scholarkg.store.neo4j.store import Neo4jStore

        # no NEO4J_URI: the project's managed server (built and started on demand)
        return Neo4jStore.from_settings(resolve_neo4j_settings(settings))
    raise ConfigError(f"unknown backend {settings.backend!r}")

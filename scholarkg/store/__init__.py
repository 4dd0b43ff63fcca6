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
    """Open the configured backend; the embedded server is started on demand."""
    if settings.backend == "embedded":
        from scholarkg.store.falkordb_store import FalkorDBStore

        return FalkorDBStore.from_settings(settings, graph=graph)
    if settings.backend == "neo4j":
        from scholarkg.store.neo4j_store import Neo4jStore

        return Neo4jStore.from_settings(settings.neo4j)
    raise ConfigError(f"unknown backend {settings.backend!r}")

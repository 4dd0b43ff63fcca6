"""Graph store layer: one ``GraphStore`` protocol, two backends.

``open_store(settings)`` is the only way the rest of scholarkg gets a store, so backend
choice (``--backend`` / ``SCHOLARKG_BACKEND``) is honoured everywhere.
"""

from __future__ import annotations

import scholarkg.families  # noqa: F401  (registers the families' schema parts with the DDL)
from scholarkg.config import Settings
from scholarkg.errors import ConfigError
from scholarkg.store.base import (
    GraphExplorer,
    GraphReader,
    GraphStore,
    GraphWriter,
    Hit,
    PageRankConfig,
    PageRankResult,
)

__all__ = [
    "GraphExplorer",
    "GraphReader",
    "GraphStore",
    "GraphWriter",
    "Hit",
    "PageRankConfig",
    "PageRankResult",
    "open_store",
]


def open_store(
    settings: Settings, *, graph: str | None = None, allow_incomplete: bool = False
) -> GraphStore:
    """Open the configured backend; the embedded server (or, for ``neo4j`` without
    ``NEO4J_URI``, the managed Neo4j) is started on demand.

    ``allow_incomplete``: open an embedded graph whose bulk load never finished (refused
    otherwise) so that ``db reset`` can delete it; Neo4j has no such state.
    """
    if settings.backend == "embedded":
        from scholarkg.store.falkordb.store import FalkorDBStore

        return FalkorDBStore.from_settings(settings, graph=graph, allow_incomplete=allow_incomplete)
    if settings.backend == "neo4j":
        from scholarkg.store.neo4j.server import resolve_neo4j_settings
        from scholarkg.store.neo4j.store import Neo4jStore

        # no NEO4J_URI: the project's managed server (built and started on demand)
        return Neo4jStore.from_settings(resolve_neo4j_settings(settings))
    raise ConfigError(f"unknown backend {settings.backend!r}")

"""The resident GDS graph on Neo4j: one native projection per graph version, on the server.

Why: a Neo4j graph may not fit the client's memory (that is why it is on Neo4j), so on Neo4j
nothing proportional to the graph crosses Bolt. :func:`resident_gds_graph` projects
``(label, rel_types)`` natively (``gds.graph.project``: GDS reads the store files with
``readConcurrency`` threads) under a name that hashes the database's write fingerprint (its
last committed transaction), so every process finds the same graph while the data is
unchanged, and a graph of an older state is never used (it is dropped once the current one
exists). It is the entry point every algorithm that runs in GDS calls (PageRank in
:mod:`scholarkg.graphalgo.topk`, FastRP, …): ``resident_gds_graph(store).name`` is what GDS
procedures take.

Whole-graph PageRank is kept in that graph as a node property named by its configuration
(:func:`kept_pagerank_property`), so it is computed once per (graph version, configuration).
:func:`estimate` asks GDS for its own memory estimates, for the current graph or a fictitious
one of a given size (``benchmarks/bench_gds_capacity.py`` prints them for OpenAlex-size
graphs).
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from scholarkg.errors import InputError, NotSupported, StoreError
from scholarkg.schema.ddl import check_label, check_rel_type
from scholarkg.store.base import GdsCatalog, GraphStore, PageRankConfig, PageRankResult

log = logging.getLogger(__name__)

#: every resident GDS graph of scholarkg starts with this (``graph projections`` lists them)
PREFIX = "scholarkg_proj_"


@dataclass(frozen=True)
class ProjectionKey:
    """What a projection is of: one graph, one node label, some relationship types."""

    backend: str
    graph: str
    label: str
    rel_types: tuple[str, ...]

    def slug(self) -> str:
        text = "\x1f".join([self.backend, self.graph, self.label, *self.rel_types])
        return hashlib.sha256(text.encode()).hexdigest()[:20]

    @classmethod
    def of(cls, store: GraphStore, label: str, rel_types: Sequence[str]) -> ProjectionKey:
        """The key of ``(label, rel_types)`` in ``store``'s graph (names whitelist-checked)."""
        if not rel_types:
            raise InputError("a projection needs at least one relationship type", field="rel_types")
        return cls(
            store.backend,
            store.graph,
            check_label(label),
            # one projection per *set* of types: order and repeats change nothing
            tuple(sorted({check_rel_type(r) for r in rel_types})),
        )


class StaleProjection(StoreError):
    """The graph changed while (or since) it was projected: GDS cannot project that state."""


class ResidentCatalog(Protocol):
    """The GDS catalogue calls a resident graph needs (a ``GdsCatalog`` has them all)."""

    def write_fingerprint(self) -> str: ...

    def resident_graphs(self, prefix: str) -> dict[str, dict[str, Any]]: ...

    def project_native(
        self,
        name: str,
        node_label: str,
        rel_types: Sequence[str],
        *,
        node_properties: Mapping[str, Any] | None = None,
    ) -> dict[str, int]: ...

    def drop_projected(self, name: str) -> None: ...

    def pagerank_projected(
        self,
        name: str,
        node_label: str,
        config: PageRankConfig,
        *,
        weighted: bool = False,
        node_ids: Sequence[str] | None = None,
        property_name: str | None = None,
    ) -> PageRankResult: ...


def _properties_tag(node_properties: Mapping[str, Any] | None) -> str:
    if not node_properties:
        return ""
    text = "\x1f".join(f"{k}={node_properties[k]!r}" for k in sorted(node_properties))
    return "p" + hashlib.sha256(text.encode()).hexdigest()[:8] + "_"


class ResidentGdsGraph:
    """A native GDS projection of a :class:`ProjectionKey` kept on the Neo4j server.

    Named ``scholarkg_proj_<key slug>_[p<properties>_]<state>`` where ``<state>`` hashes the
    database's write fingerprint: :meth:`ensure` projects the current state on first use,
    checks no write moved the fingerprint meanwhile, then drops the key's older states.
    Concurrent processes are tolerated: a graph another process has just created under the
    same name is used as is. ``expected`` (node, relationship) counts, when given (the
    client arrays of the same state), are checked against what GDS projected.
    """

    PREFIX = PREFIX

    def __init__(
        self,
        gds: ResidentCatalog,
        key: ProjectionKey,
        fingerprint: str,
        n_nodes: int | None = None,
        n_edges: int | None = None,
        *,
        node_properties: Mapping[str, Any] | None = None,
    ) -> None:
        self.gds = gds
        self.key = key
        self.fingerprint = fingerprint
        self.node_properties = dict(node_properties or {})
        self.expected = None if n_nodes is None or n_edges is None else (n_nodes, n_edges)
        state = hashlib.sha256(fingerprint.encode()).hexdigest()[:12]
        self.prefix = f"{PREFIX}{key.slug()}_{_properties_tag(self.node_properties)}"
        self.name = f"{self.prefix}{state}"
        #: wall seconds of the projection this object made (0: it found the graph resident)
        self.projected_seconds = 0.0
        #: GDS's ``projectMillis`` of that projection (None: found resident)
        self.project_millis: int | None = None
        #: node properties the graph holds (kept scores, projected properties)
        self.properties: frozenset[str] = frozenset()
        #: node and relationship counts of the projected graph (known after :meth:`ensure`)
        self.nodes: int | None = None
        self.relationships: int | None = None
        self._ensured = False

    @property
    def found_resident(self) -> bool:
        """Whether :meth:`ensure` found the graph already projected (a warm call)."""
        return self._ensured and self.project_millis is None

    def ensure(self) -> str:
        """The GDS graph's name, projecting it on the first call (later calls: no query)."""
        if self._ensured:
            return self.name
        existing = self.gds.resident_graphs(self.prefix)
        if self.name in existing:
            info = existing[self.name]
            self.properties = frozenset(info["properties"])
            self.nodes, self.relationships = int(info["nodes"]), int(info["relationships"])
        else:
            t0 = time.perf_counter()
            try:
                got = self.gds.project_native(
                    self.name,
                    self.key.label,
                    self.key.rel_types,
                    node_properties=self.node_properties or None,
                )
            except StoreError as err:
                message = str(err).lower()
                if "already exists" not in message:
                    if "not found" in message and "projection" in message:
                        raise InputError(
                            f"cannot project ({self.key.label}, {', '.join(self.key.rel_types)})"
                            f": the database has never held them ({err})",
                            field="label",
                        ) from None
                    raise
            else:  # a write between the state check and the projection: never mislabel it
                counts = (got["nodes"], got["relationships"])
                moved = self.gds.write_fingerprint() != self.fingerprint
                if moved or (self.expected is not None and counts != self.expected):
                    self.gds.drop_projected(self.name)
                    raise StaleProjection(
                        f"the graph changed while it was being projected (projected "
                        f"{counts[0]} nodes / {counts[1]} relationships): run the command again"
                    )
                self.project_millis = int(got.get("project_millis", 0))
                self.nodes, self.relationships = counts
                self.properties = frozenset(self.node_properties)
            self.projected_seconds = time.perf_counter() - t0
        for old in existing:  # older states, only once the current one exists
            if old != self.name:
                try:
                    self.gds.drop_projected(old)
                except StoreError as err:  # another process may be dropping it too
                    log.info("could not drop old GDS projection %s: %s", old, err)
        self._ensured = True
        return self.name

    def pagerank(self, config: PageRankConfig) -> PageRankResult:
        """Every node's score (mutate, read back, drop): the client-projection path's
        ``Projection.pagerank``; :func:`pagerank_top` reads only the top ``k`` instead."""
        result: PageRankResult = self.gds.pagerank_projected(self.ensure(), self.key.label, config)
        return result

    def drop(self) -> None:
        """Drop every state of this key (with these node properties) from GDS's catalogue."""
        for name in self.gds.resident_graphs(self.prefix):
            self.gds.drop_projected(name)


def has_gds(store: GraphStore) -> bool:
    """Whether ``store`` runs graph algorithms in GDS on the server (Neo4j with the plugin)."""
    return store.gds is not None


def require_gds(store: GraphStore, what: str) -> GdsCatalog:
    """``store``'s GDS catalogue, or :class:`~scholarkg.errors.NotSupported` naming ``what``."""
    if store.gds is None:
        raise NotSupported(f"{what} need Neo4j with the Graph Data Science plugin")
    return store.gds


def resident_gds_graph(
    store: GraphStore,
    label: str = "Paper",
    rel_types: Sequence[str] = ("CITES",),
    *,
    node_properties: Mapping[str, Any] | None = None,
) -> ResidentGdsGraph:
    """**The** resident GDS graph of ``(label, rel_types)`` for the current graph version,
    projected natively on first use and shared by every process and algorithm until the data
    changes; ``.name`` is what GDS procedures take (``gds.fastRP.mutate(name, …)``).

    ``node_properties`` (``{property: defaultValue}``) projects node properties too (e.g.
    text vectors as FastRP ``featureProperties``); they are part of the graph's name, so a
    graph with properties is a second resident graph beside the plain one. Raises
    :class:`~scholarkg.errors.NotSupported` without GDS.
    """
    gds = require_gds(store, "resident GDS graphs")
    key = ProjectionKey.of(store, label, rel_types)
    graph = ResidentGdsGraph(
        gds, key, str(gds.write_fingerprint()), node_properties=node_properties
    )
    graph.ensure()
    return graph


def kept_pagerank_property(config: PageRankConfig) -> str:
    """The resident graph's property holding whole-graph PageRank of ``config``."""
    text = f"{config.damping_factor!r}|{config.max_iterations}|{config.tolerance!r}"
    return "pagerank_" + hashlib.sha256(text.encode()).hexdigest()[:10]


def estimate(
    store: GraphStore,
    label: str = "Paper",
    rel_types: Sequence[str] = ("CITES",),
    *,
    node_count: int = 0,
    relationship_count: int = 0,
    fastrp_dimension: int | None = None,
) -> dict[str, Any]:
    """GDS's own memory estimates (bytes) for projecting ``(label, rel_types)`` and running
    PageRank (and, with ``fastrp_dimension``, FastRP) on it, for the current graph or (counts
    given) a fictitious one of that size."""
    gds = require_gds(store, "memory estimates (GDS's own)")
    key = ProjectionKey.of(store, label, rel_types)
    result: dict[str, Any] = gds.estimates(
        key.label,
        key.rel_types,
        node_count=node_count,
        relationship_count=relationship_count,
        fastrp_dimension=fastrp_dimension,
    )
    return result


__all__ = [
    "PREFIX",
    "ProjectionKey",
    "ResidentGdsGraph",
    "StaleProjection",
    "estimate",
    "has_gds",
    "kept_pagerank_property",
    "require_gds",
    "resident_gds_graph",
]

"""Graph algorithms where the graph lives: in GDS on Neo4j, on a projection kept on the server.

Why: a Neo4j graph may not fit the client's memory (that is why it is on Neo4j), so on Neo4j
nothing proportional to the graph crosses Bolt:

* **one resident GDS graph per graph version** — :func:`resident_gds_graph` projects
  ``(label, rel_types)`` natively (``gds.graph.project``: GDS reads the store files with
  ``readConcurrency`` threads) under a name that hashes the database's write fingerprint
  (its last committed transaction), so every process finds the same graph while the data is
  unchanged, and a graph of an older state is never used (it is dropped once the current one
  exists). This is the entry point other algorithms (FastRP, …) call to run on the same graph;
* **whole-graph PageRank once per (graph version, configuration)**, ``gds.pageRank.mutate``
  into a property kept in that graph (named by the configuration); every later call reads
  the top ``k`` with ``ORDER BY … LIMIT k`` inside the server, or given nodes' scores with an
  index seek per id (:func:`pagerank_scores_of`);
* **personalized PageRank's top ``k`` in one round trip** (``gds.pageRank.stream`` with
  ``sourceNodes``, sorted in the server); a missing source is an error, never a silent
  global run.

Ties at the ``k``-th score are resolved as the embedded store does (score, then id): the top
query tells whether the ``k``-th score is shared with a node it left out, and only then a
second query returns the ``k`` best of the nodes at or above that score by (score, id).

Without GDS (the embedded store, or Neo4j without the plugin) the same functions run on the
client-side resident projection (:mod:`scholarkg.graphalgo.projection`, scipy with GDS's
semantics), which on Neo4j is an explicit choice (``client_projection=True``): it pays for
sweeps of thousands of personalized PageRank queries on a graph that fits the client's memory
(the citation-recommendation benchmark), where one edge pull is amortised over sub-millisecond
sparse queries.
"""

from __future__ import annotations

import hashlib
import heapq
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from scholarkg.errors import CypherError, InputError, NotSupported, StoreError
from scholarkg.store.base import GraphStore, PageRankConfig, PageRankResult
from scholarkg.store.pagerank import check_pagerank_config

if TYPE_CHECKING:
    from scholarkg.graphalgo.projection import ProjectionCatalog, ProjectionKey

log = logging.getLogger(__name__)

#: every resident GDS graph of scholarkg starts with this (``graph projections`` lists them)
PREFIX = "scholarkg_proj_"


class StaleProjection(StoreError):
    """The graph changed while (or since) it was projected: GDS cannot project that state."""


class GdsCatalogStore(Protocol):
    """The GDS catalogue calls of ``Neo4jStore`` a resident graph needs."""

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
        store: Any,
        key: ProjectionKey,
        fingerprint: str,
        n_nodes: int | None = None,
        n_edges: int | None = None,
        *,
        node_properties: Mapping[str, Any] | None = None,
    ) -> None:
        self.store = store
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
        existing = self.store.resident_graphs(self.prefix)
        if self.name in existing:
            info = existing[self.name]
            self.properties = frozenset(info["properties"])
            self.nodes, self.relationships = int(info["nodes"]), int(info["relationships"])
        else:
            t0 = time.perf_counter()
            try:
                got = self.store.project_native(
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
                moved = self.store.write_fingerprint() != self.fingerprint
                if moved or (self.expected is not None and counts != self.expected):
                    self.store.drop_projected(self.name)
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
                    self.store.drop_projected(old)
                except StoreError as err:  # another process may be dropping it too
                    log.info("could not drop old GDS projection %s: %s", old, err)
        self._ensured = True
        return self.name

    def pagerank(self, config: PageRankConfig) -> PageRankResult:
        """Every node's score (mutate, read back, drop): the client-projection path's
        ``Projection.pagerank``; :func:`pagerank_top` reads only the top ``k`` instead."""
        result: PageRankResult = self.store.pagerank_projected(
            self.ensure(), self.key.label, config
        )
        return result

    def drop(self) -> None:
        """Drop every state of this key (with these node properties) from GDS's catalogue."""
        for name in self.store.resident_graphs(self.prefix):
            self.store.drop_projected(name)


def has_gds(store: GraphStore) -> bool:
    """Whether ``store`` runs graph algorithms in GDS on the server (Neo4j with the plugin)."""
    return "gds" in getattr(store, "capabilities", frozenset()) and hasattr(store, "project_native")


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
    from scholarkg.graphalgo.projection import ProjectionKey

    if not has_gds(store):
        raise NotSupported("resident GDS graphs need Neo4j with the Graph Data Science plugin")
    key = ProjectionKey.of(store, label, rel_types)
    gds: Any = store
    graph = ResidentGdsGraph(
        gds, key, str(gds.write_fingerprint()), node_properties=node_properties
    )
    graph.ensure()
    return graph


def kept_pagerank_property(config: PageRankConfig) -> str:
    """The resident graph's property holding whole-graph PageRank of ``config``."""
    text = f"{config.damping_factor!r}|{config.max_iterations}|{config.tolerance!r}"
    return "pagerank_" + hashlib.sha256(text.encode()).hexdigest()[:10]


@dataclass
class TopPageRank:
    """The top ``k`` of (personalized) PageRank and where the time went."""

    rows: list[tuple[str, float]]
    #: "gds" (in the server) or "scipy" (client-side projection)
    engine: str
    #: how the projection was found: "resident", "projected" (GDS); the catalogue's source
    projection: str
    nodes: int | None = None
    edges: int | None = None
    ran_iterations: int | None = None
    did_converge: bool | None = None
    #: records the driver returned for the top k (None: no server query)
    records: int | None = None
    #: whether PageRank was computed by this call (False: read from the kept property)
    computed: bool = True
    written: int | None = None
    #: wall seconds per step and GDS's own milliseconds (pre/compute/post processing, …)
    timings: dict[str, float] = field(default_factory=dict)


_STAT_MILLIS = ("preProcessingMillis", "computeMillis", "postProcessingMillis", "mutateMillis")


def pagerank_top(
    store: GraphStore,
    k: int,
    config: PageRankConfig | None = None,
    *,
    label: str = "Paper",
    rel_types: Sequence[str] = ("CITES",),
    write: str | None = None,
    client_projection: bool = False,
    catalog: ProjectionCatalog | None = None,
) -> TopPageRank:
    """The ``k`` best nodes by (personalized, with ``config.source_nodes``) PageRank, ties by
    id; ``write`` also stores every score in that node property. In GDS on Neo4j (see the
    module doc), else — or with ``client_projection`` — on the client-side projection."""
    if k < 1:
        raise InputError("k must be >= 1", field="top")
    cfg = config or PageRankConfig()
    check_pagerank_config(cfg)
    if has_gds(store) and not client_projection:
        try:
            return _gds_top(store, k, cfg, label, rel_types, write)
        except NotSupported as err:  # biased sources on a GDS that takes none
            log.info("%s: on the client-side projection instead", err)
    return _client_top(store, k, cfg, label, rel_types, write, catalog)


def _gds_top(
    store: GraphStore,
    k: int,
    cfg: PageRankConfig,
    label: str,
    rel_types: Sequence[str],
    write: str | None,
) -> TopPageRank:
    gds: Any = store
    t0 = time.perf_counter()
    graph = resident_gds_graph(store, label, rel_types)
    timings: dict[str, float] = {"projection_seconds": time.perf_counter() - t0}
    if graph.project_millis is not None:
        timings["projectMillis"] = graph.project_millis
    out = TopPageRank(
        rows=[],
        engine="gds",
        projection="resident" if graph.found_resident else "projected",
        nodes=graph.nodes,
        edges=graph.relationships,
    )
    t1 = time.perf_counter()
    if cfg.source_nodes is not None:
        top = gds.personalized_top(graph.name, label, cfg, k)
        timings["pagerank_seconds"] = time.perf_counter() - t1
        timings["stream_server_millis"] = top.server_millis
    else:
        prop = kept_pagerank_property(cfg)
        out.computed = False
        if prop not in graph.properties:
            try:
                stats = gds.pagerank_keep(graph.name, cfg, prop)
            except CypherError as err:  # another process kept it meanwhile
                if "already exists" not in str(err):
                    raise
            else:
                out.computed = True
                out.ran_iterations = int(stats["ranIterations"])
                out.did_converge = bool(stats["didConverge"])
                for name in _STAT_MILLIS:
                    timings[name] = float(stats[name])
        timings["pagerank_seconds"] = time.perf_counter() - t1
        t2 = time.perf_counter()
        top = gds.top_kept_scores(graph.name, prop, k)
        timings["top_k_seconds"] = time.perf_counter() - t2
        timings["top_k_server_millis"] = top.server_millis
    out.rows, out.records = top.rows, top.records
    if write is not None:
        t3 = time.perf_counter()
        stats = gds.pagerank_write(graph.name, label, cfg, write)
        out.written = int(stats["nodePropertiesWritten"])
        timings["write_seconds"] = time.perf_counter() - t3
        timings["writeMillis"] = float(stats["writeMillis"])
    out.timings = timings
    return out


def _client_top(
    store: GraphStore,
    k: int,
    cfg: PageRankConfig,
    label: str,
    rel_types: Sequence[str],
    write: str | None,
    catalog: ProjectionCatalog | None,
) -> TopPageRank:
    from scholarkg.graphalgo.projection import default_catalog
    from scholarkg.queries import query_text

    cat = catalog if catalog is not None else default_catalog()
    t0 = time.perf_counter()
    proj = cat.get(store, label, rel_types)
    timings: dict[str, float] = {"projection_seconds": time.perf_counter() - t0}
    if cfg.source_nodes is not None:
        missing = [s for s in cfg.source_nodes if s not in proj.index]
        if missing:
            raise InputError(
                f"source id(s) not among the {proj.n_nodes} {label} nodes: {missing[:5]}",
                field="source",
            )
    t1 = time.perf_counter()
    result = proj.pagerank(cfg)
    timings["pagerank_seconds"] = time.perf_counter() - t1
    if result.compute_millis is not None:
        timings["computeMillis"] = float(result.compute_millis)
    best = heapq.nsmallest(k, result.scores.items(), key=lambda kv: (-kv[1], kv[0]))
    out = TopPageRank(
        rows=best,
        engine="gds" if proj.resident is not None else "scipy",
        projection=cat.last_source,
        nodes=proj.n_nodes,
        edges=proj.n_edges,
        ran_iterations=result.ran_iterations,
        did_converge=result.did_converge,
        timings=timings,
    )
    if write is not None:
        t2 = time.perf_counter()
        rows = ({"id": i, "score": v} for i, v in result.scores.items())
        query = query_text(store, "graphalgo/set_node_scores", label=label, prop=write)
        out.written = store.write_batches(query, rows)
        timings["write_seconds"] = time.perf_counter() - t2
    return out


def pagerank_scores_of(
    store: GraphStore,
    ids: Sequence[str],
    config: PageRankConfig | None = None,
    *,
    label: str = "Paper",
    rel_types: Sequence[str] = ("CITES",),
    catalog: ProjectionCatalog | None = None,
) -> dict[str, float]:
    """Whole-graph PageRank of the nodes ``ids`` (unknown ids absent): on Neo4j with GDS the
    kept scores by an index seek per id (computed once per graph version and configuration);
    elsewhere from the client-side projection."""
    cfg = config or PageRankConfig()
    check_pagerank_config(cfg)
    if cfg.source_nodes is not None:
        raise InputError("pagerank_scores_of is whole-graph PageRank", field="source_nodes")
    if has_gds(store):
        gds: Any = store
        graph = resident_gds_graph(store, label, rel_types)
        prop = kept_pagerank_property(cfg)
        if prop not in graph.properties:
            try:
                gds.pagerank_keep(graph.name, cfg, prop)
            except CypherError as err:
                if "already exists" not in str(err):
                    raise
            graph.properties |= {prop}
        scores: dict[str, float] = gds.kept_scores(graph.name, label, prop, ids)
        return scores
    from scholarkg.graphalgo.projection import default_catalog

    proj = (catalog if catalog is not None else default_catalog()).get(store, label, rel_types)
    array = proj.pagerank_array(cfg)
    index = proj.index
    return {i: float(array[index[i]]) for i in dict.fromkeys(map(str, ids)) if i in index}


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
    if not has_gds(store):
        raise NotSupported("memory estimates come from GDS: Neo4j with the plugin")
    from scholarkg.graphalgo.projection import ProjectionKey

    key = ProjectionKey.of(store, label, rel_types)
    gds: Any = store
    result: dict[str, Any] = gds.gds_estimates(
        key.label,
        key.rel_types,
        node_count=node_count,
        relationship_count=relationship_count,
        fastrp_dimension=fastrp_dimension,
    )
    return result


__all__ = [
    "PREFIX",
    "ResidentGdsGraph",
    "StaleProjection",
    "TopPageRank",
    "estimate",
    "has_gds",
    "kept_pagerank_property",
    "pagerank_scores_of",
    "pagerank_top",
    "resident_gds_graph",
]

"""Top-``k`` PageRank and candidates' scores on either backend, where the graph lives.

On Neo4j with GDS the work runs in the server on the resident graph
(:mod:`scholarkg.graphalgo.resident`): whole-graph PageRank kept per (graph version,
configuration), the top ``k`` sorted in the server, personalized PageRank's top ``k`` in one
``gds.pageRank.stream`` round trip, candidates' scores by an index seek per id; only ``k`` rows
(or the candidates') cross Bolt. Elsewhere, and on Neo4j when asked
(``client_projection=True``), on the client-side resident projection
(:mod:`scholarkg.graphalgo.projection`, scipy with GDS's semantics). That choice pays for
sweeps of thousands of personalized PageRank queries on a graph that fits the client's memory
(the citation-recommendation benchmark), where one edge pull is amortised over
sub-millisecond sparse queries.

Ties at the ``k``-th score are resolved as the embedded store does (score, then id): the top
query tells whether the ``k``-th score is shared with a node it left out, and only then a
second query returns the ``k`` best of the nodes at or above that score by (score, id).
The client-side projection module is imported only on that path (it imports scipy), so the
CLI's GDS path stays light.
"""

from __future__ import annotations

import heapq
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scholarkg.errors import CypherError, InputError, NotSupported
from scholarkg.graphalgo.resident import (
    has_gds,
    kept_pagerank_property,
    require_gds,
    resident_gds_graph,
)
from scholarkg.schema.ddl import check_label, check_property, declared_properties
from scholarkg.store.base import GraphStore, PageRankConfig
from scholarkg.store.pagerank_config import check_pagerank_config

if TYPE_CHECKING:
    from scholarkg.graphalgo.projection import ProjectionCatalog

log = logging.getLogger(__name__)


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


def check_score_property(label: str, prop: str) -> str:
    """``prop`` if PageRank may write its scores there: a whitelisted name that is neither a
    property the loaders declare for ``label`` nor an embedding's (``emb_*``, ``fastrp_*``),
    which a ``--write`` would silently overwrite on every node."""
    name = check_property(prop)
    if name in declared_properties(check_label(label)) or name.startswith(("emb_", "fastrp_")):
        raise InputError(
            f"--write {name!r} would overwrite loaded {label} data (or embeddings, emb_* / "
            "fastrp_*); choose a new property name (e.g. pagerank)",
            field="write",
        )
    return name


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
    if write is not None:
        check_score_property(label, write)
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
    gds = require_gds(store, "PageRank in the server")
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
        out.written = store.write_named("graphalgo/set_node_scores", rows, label=label, prop=write)
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
    if store.gds is not None:
        gds = store.gds
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


__all__ = ["TopPageRank", "pagerank_scores_of", "pagerank_top"]

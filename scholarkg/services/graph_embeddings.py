"""Graph embeddings (FastRP) stored on the nodes, and nearest neighbours from the vector index.

``embed_graph`` computes FastRP (:mod:`scholarkg.graphalgo.fastrp`) for every node of a
``(label, relationship types)`` graph and stores each vector in ``<label>.fastrp_<dim>``
under a cosine vector index, the same way text embeddings are stored (``set_vectors``,
``ensure_vector_index``):

* **Neo4j with GDS**: nothing proportional to the graph crosses Bolt. A native GDS projection
  (``gds.graph.project``, ``UNDIRECTED`` by default) is made for the run, ``gds.fastRP.write``
  computes and writes the vectors on the server, the projection is dropped. Why not the
  resident PageRank projection: it is ``NATURAL`` (PageRank needs the direction) and a
  citation graph embedded along out-edges only leaves every paper without references in the
  graph with a zero vector; adding an undirected relationship type to the resident graph
  would change what PageRank runs on.
* **Embedded store**: the resident projection's arrays (cached next to the store) go through
  the numpy FastRP; the vectors are written with ``set_vectors`` in batches (progress shown).
  Each node's random vector is seeded by its id (:func:`~scholarkg.graphalgo.fastrp.node_keys`).

``similar`` answers "the k nodes nearest to node X" in one round trip from the vector index:
the node's own vector is read inside the query (it never crosses the wire) and exactly ``k``
rows come back.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from scholarkg.errors import InputError, NotSupported
from scholarkg.graphalgo.fastrp import FastRPConfig, fastrp, node_keys
from scholarkg.graphalgo.projection import ProjectionCatalog, ProjectionKey, default_catalog
from scholarkg.schema.ddl import VectorIndex, check_label, check_property
from scholarkg.store.base import GraphStore

log = logging.getLogger(__name__)

ORIENTATIONS = ("undirected", "natural", "reverse")
#: the prefix of FastRP vector properties (``fastrp_<dimension>``): never loaded data
PROPERTY_PREFIX = "fastrp_"
#: GDS graphs this module projects for one embedding run (dropped after it)
GDS_PREFIX = "scholarkg_fastrp_"

ProgressFn = Callable[[str, int, int], None]


def fastrp_property(dimension: int) -> str:
    """``fastrp_<dimension>``: one property (and index) per dimension, so a rerun with
    another dimension never meets an index of the wrong size."""
    return check_property(f"{PROPERTY_PREFIX}{int(dimension)}")


def fastrp_index(label: str, dimension: int) -> VectorIndex:
    """The cosine vector index over ``label.fastrp_<dimension>``."""
    prop = fastrp_property(dimension)
    return VectorIndex(
        name=f"{check_label(label).lower()}_{prop}",
        label=label,
        property=prop,
        dimensions=int(dimension),
    )


@dataclass
class EmbedGraphReport:
    """What ``embed_graph`` did; the millisecond fields are GDS's own result columns on Neo4j
    (and their counterparts on the embedded store)."""

    backend: str
    engine: str  # "gds" or "numpy"
    label: str
    property: str
    index: str
    orientation: str
    node_count: int
    relationship_count: int
    written: int
    config: dict[str, Any]
    projection_seconds: float = 0.0
    pre_processing_millis: float = 0.0
    compute_millis: float = 0.0
    write_millis: float = 0.0
    wall_seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _has_gds(store: GraphStore) -> bool:
    return store.gds is not None


def _gds_projection_maps(
    label: str, rel_types: Sequence[str], orientation: str
) -> tuple[str, dict[str, Any]]:
    key_label = check_label(label)
    if orientation not in ORIENTATIONS:
        raise InputError(f"orientation must be one of {ORIENTATIONS}", field="orientation")
    rels = {
        r: {"type": r, "orientation": orientation.upper()}
        for r in sorted(set(rel_types))  # ProjectionKey.of checks each against the whitelist
    }
    return key_label, rels


def embed_graph(
    store: GraphStore,
    label: str = "Paper",
    rel_types: Sequence[str] = ("CITES",),
    config: FastRPConfig | None = None,
    *,
    orientation: str = "undirected",
    engine: str = "auto",
    catalog: ProjectionCatalog | None = None,
    progress: ProgressFn | None = None,
) -> EmbedGraphReport:
    """FastRP for every ``label`` node over ``rel_types``, stored and indexed (module doc).

    ``engine``: ``auto`` (GDS where the store has it, else numpy), ``gds`` or ``numpy`` (on
    Neo4j: the client projection, for comparison); ``catalog`` the projection catalogue
    the numpy engine reads (default: the process-wide one next to the store).
    """
    cfg = config or FastRPConfig()
    key = ProjectionKey.of(store, label, rel_types)
    if orientation not in ORIENTATIONS:
        raise InputError(f"orientation must be one of {ORIENTATIONS}", field="orientation")
    if engine not in ("auto", "gds", "numpy"):
        raise InputError("engine must be auto, gds or numpy", field="engine")
    if engine == "gds" and not _has_gds(store):
        raise NotSupported("engine 'gds' needs Neo4j with the Graph Data Science plugin")
    use_gds = engine == "gds" or (engine == "auto" and _has_gds(store))
    index = fastrp_index(key.label, cfg.embedding_dimension)
    if cfg.property_ratio > 0:
        raise InputError(
            "propertyRatio > 0 (node features) is not offered by `graph embed` yet",
            field="property_ratio",
        )
    t0 = time.perf_counter()
    if use_gds:
        report = _embed_gds(store, key, cfg, index, orientation)
    else:
        report = _embed_numpy(store, key, cfg, index, orientation, catalog, progress)
    report.wall_seconds = time.perf_counter() - t0
    return report


def _embed_gds(
    store: GraphStore,
    key: ProjectionKey,
    cfg: FastRPConfig,
    index: VectorIndex,
    orientation: str,
) -> EmbedGraphReport:
    label, rels = _gds_projection_maps(key.label, key.rel_types, orientation)
    name = f"{GDS_PREFIX}{key.slug()}_{os.getpid()}_{time.time_ns() % 10**9}"
    t0 = time.perf_counter()
    # the server's thread count, as every other GDS call gets it (GdsCatalog.concurrency:
    # the server's processors, Community's cap, SCHOLARKG_GDS_CONCURRENCY), not this client's
    assert store.gds is not None, "GDS runs on the Neo4j store with the plugin only"
    conc = store.gds.concurrency
    projected = store.run_named(
        "graphalgo/fastrp_project",
        {"graph": name, "label": label, "rels": rels, "concurrency": conc},
    )[0]
    projection_seconds = time.perf_counter() - t0
    try:
        params = {
            "graph": name,
            "config": {
                **cfg.gds(),
                "writeProperty": index.property,
                "concurrency": conc,
                "writeConcurrency": conc,
            },
        }
        row = store.run_named("graphalgo/fastrp_write", params)[0]
    finally:
        store.run_named("graphalgo/fastrp_drop", {"graph": name})
    store.ensure_vector_index(index)
    return EmbedGraphReport(
        backend=store.backend,
        engine="gds",
        label=key.label,
        property=index.property,
        index=index.name,
        orientation=orientation,
        node_count=int(row["nodeCount"]),
        relationship_count=int(projected["relationshipCount"]),
        written=int(row["nodePropertiesWritten"]),
        config=cfg.gds(),
        projection_seconds=projection_seconds,
        pre_processing_millis=float(row["preProcessingMillis"]),
        compute_millis=float(row["computeMillis"]),
        write_millis=float(row["writeMillis"]),
        extra={"gds_projection_millis": float(projected["projectMillis"]), "concurrency": conc},
    )


def _embed_numpy(
    store: GraphStore,
    key: ProjectionKey,
    cfg: FastRPConfig,
    index: VectorIndex,
    orientation: str,
    catalog: ProjectionCatalog | None,
    progress: ProgressFn | None,
) -> EmbedGraphReport:
    t0 = time.perf_counter()
    catalog = catalog or default_catalog()
    proj = catalog.get(store, key.label, key.rel_types)
    projection_seconds = time.perf_counter() - t0

    def step(done: int, total: int) -> None:
        if progress is not None:
            progress("iterate", done, total)

    result = fastrp(
        proj.n_nodes,
        proj.src,
        proj.dst,
        cfg,
        keys=node_keys(proj.ids),
        orientation=orientation,
        progress=step,
    )
    store.ensure_vector_index(index)
    t1 = time.perf_counter()
    emb = result.embeddings
    nonzero = np.flatnonzero(np.any(emb != 0, axis=1))  # isolated nodes: no vector to index
    batch, total = 2_000, int(nonzero.shape[0])

    def rows() -> Iterator[tuple[str, np.ndarray]]:
        # one set_vectors call: it formats a batch while the server writes the one before;
        # progress counts the rows handed over (at most one batch ahead of the server)
        for n, i in enumerate(nonzero.tolist(), 1):
            yield proj.ids[i], emb[i]
            if progress is not None and (n % batch == 0 or n == total):
                progress("write", n, total)

    written = store.set_vectors(key.label, index.property, rows(), batch_size=batch)
    return EmbedGraphReport(
        backend=store.backend,
        engine="numpy",
        label=key.label,
        property=index.property,
        index=index.name,
        orientation=orientation,
        node_count=proj.n_nodes,
        relationship_count=proj.n_edges,
        written=written,
        config=cfg.gds(),
        projection_seconds=projection_seconds,
        pre_processing_millis=result.pre_processing_millis,
        compute_millis=result.compute_millis,
        write_millis=(time.perf_counter() - t1) * 1000.0,
        extra={"projection": catalog.last_source, **result.timings},
    )


def estimate_embedding(
    store: GraphStore,
    label: str = "Paper",
    rel_types: Sequence[str] = ("CITES",),
    config: FastRPConfig | None = None,
    *,
    orientation: str = "undirected",
) -> dict[str, Any]:
    """GDS's own memory estimate (``gds.fastRP.write.estimate``) for projecting and embedding
    the current graph: what the heap must hold, before anything is projected."""
    if not _has_gds(store):
        raise NotSupported("--estimate asks GDS; it needs Neo4j with the GDS plugin")
    cfg = config or FastRPConfig()
    key = ProjectionKey.of(store, label, rel_types)
    node_label, rels = _gds_projection_maps(key.label, key.rel_types, orientation)
    row = store.run_named(
        "graphalgo/fastrp_estimate",
        {
            "projection": {"nodeProjection": node_label, "relationshipProjection": rels},
            "config": {**cfg.gds(), "writeProperty": fastrp_property(cfg.embedding_dimension)},
        },
    )[0]
    return dict(row)


def similar(
    store: GraphStore,
    node_id: str,
    *,
    label: str = "Paper",
    dimension: int = 128,
    k: int = 10,
    loaded_only: bool = False,
) -> list[dict[str, Any]]:
    """The ``k`` nodes nearest to ``node_id`` by FastRP cosine, from the vector index; score =
    (1 + cos) / 2 on both backends, best first (ties by id); ``stub`` flags reference stubs
    (label ``Stub``), which ``loaded_only`` leaves out (in the server). One query returns at
    most ``k`` rows; an index that answers short (deleted entries FalkorDB still counts, see
    ``FalkorDBStore.vector``, or the stubs ``loaded_only`` drops) is asked again for more
    candidates, never for more rows."""
    if k < 1:
        raise InputError("--top must be >= 1", field="top")
    index = fastrp_index(label, dimension)
    fetch = k + 1
    limit = 8 * (k + 1) + 64 if not loaded_only else max(8 * (k + 1) + 64, 4096)
    while True:
        rows = store.run_named(
            "graphalgo/fastrp_similar",
            {
                "id": node_id,
                "index": index.name,
                "k": int(k),
                "fetch": int(fetch),
                "loadedOnly": bool(loaded_only),
            },
            label=index.label,
            prop=index.property,
        )
        if len(rows) >= k or fetch >= limit:
            break
        if not rows and not loaded_only:
            _check_embedded(store, node_id, index)
        fetch *= 2
    if not rows:
        _check_embedded(store, node_id, index)
    return [
        {
            "id": str(r["id"]),
            "title": r.get("title"),
            "stub": bool(r.get("stub")),
            "score": float(r["score"]),
        }
        for r in rows
    ]


def _check_embedded(store: GraphStore, node_id: str, index: VectorIndex) -> None:
    rows = store.run_named(
        "graphalgo/fastrp_has_vector",
        {"id": node_id},
        label=index.label,
        prop=index.property,
    )
    if not rows:
        raise InputError(f"no {index.label} node with id {node_id!r}", field="node")
    if not rows[0]["has_vector"]:
        raise InputError(
            f"{index.label} {node_id!r} has no {index.property} vector: run "
            f"`scholarkg graph embed --dimension {index.dimensions}` first (an isolated node "
            "has none)",
            field="node",
        )

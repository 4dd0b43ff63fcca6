"""Resident graph projections for the embedded store, in the manner of GDS's graph catalogue.

Why: on the embedded store every whole-graph algorithm first pulls the edges out of the
server (``GraphStore.edge_snapshot``): at 1M papers / 5M citations that is ~16 s of a 17.8 s
PageRank. GDS avoids it by projecting the graph once into an in-memory CSR and running every
algorithm on that. This module does the same beside FalkorDB:

* a :class:`Projection` is built once per (graph, node label, relationship types, graph
  version): the node ids, the edge arrays and lazily the CSR matrices algorithms need;
* :class:`ProjectionCatalog` keeps projections in memory for the run and on disk next to the
  store (``<data dir>/projections/``, ``.npz`` + a JSON manifest, written atomically), so a
  new process loads 5M edges from disk in well under a second instead of re-pulling them;
* validity: the store's ``write_fingerprint()`` (Redis' write counter, last save, run id; one
  INFO call) is recorded with the projection. Unchanged → the projection is current. Changed
  (a write anywhere on the server, a save, a restart) → a server-side checksum of the
  projected graph (counts and sums of internal node ids and of edge endpoint pairs, computed
  in the server without transferring edges) decides: equal → still valid (fingerprint
  refreshed); different → rebuilt. So the cache is never stale and rarely rebuilt needlessly.

Algorithms on a projection keep GDS's semantics (the Neo4j GDS manual, PageRank): :meth:`Projection.
pagerank` is ``store.pagerank`` on the projection's transition operator, a CSR matrix
built on the first whole-graph run and kept with the projection, so a warm PageRank is only
the iteration (about 20 sparse products, no allocation inside the loop);
:meth:`Projection.personalized` is the same delta-form iteration run *sparsely* (only nodes
whose delta exceeds the tolerance send), which is what GDS's ``tolerance`` means, so with the
same parameters it returns the same numbers as :func:`scholarkg.store.pagerank.pagerank`
(tested), but in time proportional to the touched neighbourhood. It adds one option GDS
lacks, ``exclude``: nodes that neither receive nor send (the citing paper of a held-out
citation, so no score flows through the very edge being predicted).

**On Neo4j** this catalogue is an explicit choice, not the default: ``graph pagerank`` and
the rankers run in GDS on a resident server-side graph and read back only the top ``k``
(:mod:`scholarkg.graphalgo.resident`). The client arrays pay where a sweep runs thousands of
personalized PageRank queries on a graph that fits the client's memory (the
citation-recommendation benchmark: one edge pull, then sub-millisecond sparse queries, and an
``exclude`` GDS lacks). There a :class:`Projection` still runs whole-graph PageRank in GDS on
the resident graph (:class:`~scholarkg.graphalgo.resident.ResidentGdsGraph`, checked to hold
what the arrays hold). The write fingerprint is Neo4j's last committed transaction (plus
start and creation time), which moves only on writes, so no content checksum is needed
there; the checksum queries exist only in the FalkorDB dialect.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from scholarkg.errors import InputError, NotSupported, StoreError
from scholarkg.graphalgo.resident import ProjectionKey as ProjectionKey
from scholarkg.graphalgo.resident import ResidentGdsGraph, StaleProjection
from scholarkg.queries import has_query
from scholarkg.store.base import EdgeSnapshot, GraphStore, PageRankConfig, PageRankResult
from scholarkg.store.pagerank import (
    TransitionOperator,
    check_pagerank_config,
    pagerank,
    personalized_pagerank,
    transition_operator,
)

log = logging.getLogger(__name__)


FORMAT = "scholarkg-projection"
FORMAT_VERSION = 2  # 2: stronger checksums (older caches are rebuilt)
ORIENTATIONS = ("natural", "reverse", "undirected")


@dataclass
class Projection:
    """Node ids and directed edges (natural orientation) of a projected (sub)graph."""

    key: ProjectionKey
    ids: list[str]
    src: np.ndarray
    dst: np.ndarray
    fingerprint: str = ""
    checksum: str = ""
    built_seconds: float = 0.0
    loaded_from: str = "server"
    #: the GDS projection whole-graph algorithms run on (Neo4j with GDS), else None
    resident: ResidentGdsGraph | None = field(default=None, repr=False)
    _csr: dict[str, sp.csr_matrix] = field(default_factory=dict, repr=False)
    _operator: TransitionOperator | None = field(default=None, repr=False)

    @property
    def n_nodes(self) -> int:
        return len(self.ids)

    @property
    def n_edges(self) -> int:
        return int(self.src.shape[0])

    @cached_property
    def index(self) -> dict[str, int]:
        return {node_id: i for i, node_id in enumerate(self.ids)}

    def snapshot(self) -> EdgeSnapshot:
        return EdgeSnapshot(
            ids=self.ids, src=self.src, dst=self.dst, weight=np.ones(self.n_edges, np.float64)
        )

    def transition(self, orientation: str = "natural") -> sp.csr_matrix:
        """Row ``u`` holds ``u``'s out-edges (in ``orientation``) with weight ``1 / out(u)``.

        Cached per orientation. ``undirected`` = both directions (GDS ``UNDIRECTED``).
        """
        if orientation not in ORIENTATIONS:
            raise InputError(f"orientation must be one of {ORIENTATIONS}", field="orientation")
        if orientation not in self._csr:
            if orientation == "natural":
                s, d = self.src, self.dst
            elif orientation == "reverse":
                s, d = self.dst, self.src
            else:
                s, d = np.concatenate([self.src, self.dst]), np.concatenate([self.dst, self.src])
            n = self.n_nodes
            adj = sp.csr_matrix(
                (np.ones(s.shape[0], np.float64), (s, d)), shape=(n, n), dtype=np.float64
            )
            out = np.asarray(adj.sum(axis=1)).ravel()
            inv = np.divide(1.0, out, out=np.zeros_like(out), where=out > 0)
            self._csr[orientation] = sp.csr_matrix(sp.diags(inv) @ adj)
        return self._csr[orientation]

    def operator(self) -> TransitionOperator:
        """The PageRank transition operator (natural orientation, unweighted), built once."""
        if self._operator is None:
            self._operator = transition_operator(self.n_nodes, self.src, self.dst)
        return self._operator

    def degrees(self, orientation: str = "reverse") -> np.ndarray:
        """In-degree (``reverse``), out-degree (``natural``) or both, per node, parallel edges
        counted."""
        if orientation == "natural":
            return np.bincount(self.src, minlength=self.n_nodes)
        if orientation == "reverse":
            return np.bincount(self.dst, minlength=self.n_nodes)
        return np.bincount(self.src, minlength=self.n_nodes) + np.bincount(
            self.dst, minlength=self.n_nodes
        )

    def neighbours(self, node: int, orientation: str = "natural") -> np.ndarray:
        m = self.transition(orientation)
        neighbours: np.ndarray = m.indices[m.indptr[node] : m.indptr[node + 1]]
        return neighbours

    # -- algorithms ------------------------------------------------------------------------

    def pagerank(self, config: PageRankConfig | None = None) -> PageRankResult:
        """Global or personalized PageRank with GDS semantics (natural orientation):
        GDS on the resident projection on Neo4j, scipy on the cached operator otherwise."""
        from scholarkg.store.pagerank import pagerank_on_snapshot

        cfg = config or PageRankConfig()
        check_pagerank_config(cfg)
        resident = self._resident_pagerank(cfg)
        if resident is not None:
            return resident
        return pagerank_on_snapshot(
            self.snapshot(),
            cfg,
            weighted=False,
            label=self.key.label,
            operator=self.operator(),
            position=self.index if cfg.source_nodes is not None else None,
        )

    def _resident_pagerank(self, cfg: PageRankConfig) -> PageRankResult | None:
        """PageRank in GDS on the resident projection, or None where the client arrays must
        serve instead (same semantics, same numbers): no resident projection, a GDS that
        cannot weight source nodes, or a projection of a state the graph has since left."""
        if self.resident is None:
            return None
        try:
            return self.resident.pagerank(cfg)
        except NotSupported:
            log.info("personalized PageRank with biased sources runs on the client arrays")
        except StaleProjection:
            log.info("the graph changed since this projection: PageRank on its arrays")
        return None

    def pagerank_array(self, config: PageRankConfig | None = None) -> np.ndarray:
        """Global PageRank scores as an array in ``ids`` order (no 1M-entry dict)."""
        cfg = config or PageRankConfig()
        check_pagerank_config(cfg)
        if cfg.source_nodes is not None:
            raise InputError("pagerank_array is global PageRank; use personalized()")
        resident = self._resident_pagerank(cfg)
        if resident is not None:
            by_id = resident.scores
            missing = [i for i in self.ids if i not in by_id]
            if missing or len(by_id) != self.n_nodes:
                raise StoreError(
                    f"GDS PageRank scored {len(by_id)} nodes, the projection holds "
                    f"{self.n_nodes} (e.g. missing {missing[:3]}): the graph changed; rerun"
                )
            return np.array([by_id[node_id] for node_id in self.ids], np.float64)
        scores, _, _ = pagerank(
            self.n_nodes,
            self.src,
            self.dst,
            None,
            damping_factor=cfg.damping_factor,
            max_iterations=cfg.max_iterations,
            tolerance=cfg.tolerance,
            operator=self.operator(),
        )
        return scores

    def personalized(
        self,
        sources: Mapping[int, float],
        *,
        damping_factor: float = 0.85,
        max_iterations: int = 20,
        tolerance: float = 1e-7,
        orientation: str = "natural",
        exclude: Sequence[int] = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """Sparse GDS-semantics personalized PageRank: ``(node indexes, scores)`` of every
        node that received mass (see the module doc; ``exclude`` nodes get nothing)."""
        matrix = self.transition(orientation)
        return personalized_pagerank(
            matrix,
            sources,
            damping_factor=damping_factor,
            max_iterations=max_iterations,
            tolerance=tolerance,
            exclude=exclude,
        )


# ----------------------------------------------------------------------------- the catalogue


def _read_manifest(path: Path) -> dict[str, Any] | None:
    """A cache manifest of this format version, or None (absent, unreadable, foreign, old)."""
    if not path.is_file():
        return None
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if meta.get("format") != FORMAT or meta.get("format_version") != FORMAT_VERSION:
        return None
    return meta if isinstance(meta.get("key"), dict) else None


def _checksum(store: GraphStore, key: ProjectionKey) -> str:
    """Counts and id sums of the projected nodes and edges, computed inside the server.

    Only where the dialect has the checksum queries (FalkorDB); elsewhere ``""``: no content
    check, so a moved fingerprint means a rebuild (see the module doc).
    """
    if not has_query("graphalgo/projection_node_checksum", store.dialect):
        return ""
    row = store.run_named("graphalgo/projection_node_checksum", {}, label=key.label)[0]
    parts = [f"{row['n']}:{row['s']}:{row['len']}:{row['mix']}"]
    for rel in key.rel_types:
        r = store.run_named(
            "graphalgo/projection_edge_checksum", {}, label=key.label, rel_type=rel
        )[0]
        parts.append(f"{rel}:{r['n']}:{r['sa']}:{r['sb']}:{r['mix']}")
    return "|".join(parts)


def _fingerprint(store: GraphStore) -> str:
    return store.write_fingerprint()


def _resident(
    store: GraphStore, key: ProjectionKey, fingerprint: str, proj: Projection
) -> ResidentGdsGraph | None:
    """The GDS projection to run whole-graph algorithms on, where the store has GDS."""
    if store.gds is not None:
        return ResidentGdsGraph(store.gds, key, fingerprint, proj.n_nodes, proj.n_edges)
    return None


class ProjectionCatalog:
    """Projections by key, kept in memory and (with ``cache_dir``) on disk; see module doc."""

    def __init__(self, cache_dir: str | Path | None = None) -> None:
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._memory: dict[ProjectionKey, Projection] = {}
        #: what the last ``get`` did: "memory", "memory-revalidated", "disk",
        #: "disk-revalidated" or "built" (tests and benchmarks read it)
        self.last_source = ""

    def get(
        self, store: GraphStore, label: str = "Paper", rel_types: Sequence[str] = ("CITES",)
    ) -> Projection:
        """The current projection of ``(label, rel_types)`` in ``store``'s graph."""
        key = ProjectionKey.of(store, label, rel_types)
        try:
            fingerprint = _fingerprint(store)
        except (NotSupported, StoreError) as err:
            # e.g. a Neo4j role without SHOW DATABASES: correct but uncached, scipy on the arrays
            log.warning("projection not cached (cannot tell when the graph changes): %s", err)
            self.last_source = "built-uncached"
            return self._build(store, key, "")
        proj = self._current(store, key, fingerprint)
        proj.resident = _resident(store, key, fingerprint, proj)  # bound to this store session
        return proj

    def _current(self, store: GraphStore, key: ProjectionKey, fingerprint: str) -> Projection:
        cached = self._memory.get(key)
        source = "memory"
        if cached is None:
            cached = self._load(key)
            source = "disk"
        if cached is not None:
            if cached.fingerprint == fingerprint:
                self._memory[key] = cached
                self.last_source = source
                return cached
            checksum = _checksum(store, key)
            if checksum and checksum == cached.checksum:
                cached.fingerprint = fingerprint
                self._memory[key] = cached
                self._save(cached, arrays=False)
                self.last_source = f"{source}-revalidated"
                return cached
            log.info("projection %s is stale (graph changed): rebuilding", key)
        built = self._build(store, key, fingerprint)
        self._memory[key] = built
        self._save(built, arrays=True)
        self.last_source = "built"
        return built

    def drop(
        self, store: GraphStore, label: str = "Paper", rel_types: Sequence[str] = ("CITES",)
    ) -> bool:
        """Forget the projection: memory, disk cache and (Neo4j) its GDS projections.

        Returns whether a copy was cached on disk.
        """
        key = ProjectionKey.of(store, label, rel_types)
        self._memory.pop(key, None)
        on_disk = False
        paths = self._paths(key)
        for path in paths or ():
            on_disk |= path.is_file()
            path.unlink(missing_ok=True)
        if store.gds is not None:
            ResidentGdsGraph(store.gds, key, "", 0, 0).drop()
        return on_disk

    # -- internals -------------------------------------------------------------------------

    def _build(self, store: GraphStore, key: ProjectionKey, fingerprint: str) -> Projection:
        t0 = time.perf_counter()
        checksum = _checksum(store, key)
        snaps = [store.edge_snapshot(key.label, rel) for rel in key.rel_types]
        ids = snaps[0].ids
        srcs, dsts = [snaps[0].src], [snaps[0].dst]
        for snap in snaps[1:]:
            if snap.ids != ids:  # not expected (same label, same order), but be exact
                pos = {node_id: i for i, node_id in enumerate(ids)}
                remap = np.array([pos[i] for i in snap.ids], dtype=np.int64)
                srcs.append(remap[snap.src])
                dsts.append(remap[snap.dst])
            else:
                srcs.append(snap.src)
                dsts.append(snap.dst)
        src = np.concatenate(srcs).astype(np.int64, copy=False)
        dst = np.concatenate(dsts).astype(np.int64, copy=False)
        return Projection(
            key=key,
            ids=list(ids),
            src=src,
            dst=dst,
            fingerprint=fingerprint,
            checksum=checksum,
            built_seconds=time.perf_counter() - t0,
        )

    def _paths(self, key: ProjectionKey) -> tuple[Path, Path] | None:
        if self.cache_dir is None:
            return None
        return self.cache_dir / f"{key.slug()}.npz", self.cache_dir / f"{key.slug()}.json"

    def _save(self, proj: Projection, *, arrays: bool) -> None:
        paths = self._paths(proj.key)
        if paths is None:
            return
        array_path, manifest = paths
        array_path.parent.mkdir(parents=True, exist_ok=True)
        if arrays or not array_path.exists():
            ids_blob = np.frombuffer("\n".join(proj.ids).encode("utf-8"), dtype=np.uint8)
            fd, tmp = tempfile.mkstemp(dir=array_path.parent, suffix=".npz")
            os.close(fd)
            np.savez(tmp, src=proj.src, dst=proj.dst, ids=ids_blob)
            os.replace(tmp, array_path)
        meta = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "key": proj.key.__dict__,
            "n_nodes": proj.n_nodes,
            "n_edges": proj.n_edges,
            "fingerprint": proj.fingerprint,
            "checksum": proj.checksum,
        }
        from scholarkg.textio import atomic_write_text

        atomic_write_text(manifest, json.dumps(meta, default=list), fsync=False)

    def _manifest(self, key: ProjectionKey) -> dict[str, Any] | None:
        paths = self._paths(key)
        return None if paths is None else _read_manifest(paths[1])

    def _load(self, key: ProjectionKey) -> Projection | None:
        meta = self._manifest(key)
        paths = self._paths(key)
        if meta is None or paths is None or not paths[0].is_file():
            return None
        try:
            with np.load(paths[0]) as data:
                src, dst = data["src"], data["dst"]
                blob = data["ids"].tobytes().decode("utf-8")
        except (OSError, ValueError, KeyError) as err:
            log.warning("ignoring unreadable projection cache %s: %s", paths[0], err)
            return None
        ids = blob.split("\n") if blob else []
        if len(ids) != meta["n_nodes"] or src.shape[0] != meta["n_edges"]:
            return None
        return Projection(
            key=key,
            ids=ids,
            src=src,
            dst=dst,
            fingerprint=meta["fingerprint"],
            checksum=meta["checksum"],
            loaded_from=str(paths[0]),
        )


# ----------------------------------------------------------------------------- process-wide use

_CATALOGS: dict[str, ProjectionCatalog] = {}


def default_cache_dir() -> Path:
    """``<data dir>/projections``: next to the store whose graph they copy."""
    from scholarkg.config import load_settings

    return load_settings().data_dir / "projections"


def default_catalog(cache_dir: str | Path | None = None) -> ProjectionCatalog:
    """One catalogue per cache dir for the whole process, so every task, ranker and command
    of a run reuses the projections already in memory."""
    path = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = str(path)
    if key not in _CATALOGS:
        _CATALOGS[key] = ProjectionCatalog(path)
    return _CATALOGS[key]


def cached_projections(cache_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """The projections cached on disk: key, counts and size of the arrays.

    Read from the JSON manifests only (no arrays loaded), with the catalogue's own reader, so
    what is listed is exactly what :meth:`ProjectionCatalog.get` would use.
    """
    path = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    out: list[dict[str, Any]] = []
    for manifest in sorted(path.glob("*.json")) if path.is_dir() else ():
        meta = _read_manifest(manifest)
        if meta is None:
            continue
        arrays = manifest.with_suffix(".npz")
        key = meta["key"]
        out.append(
            {
                "backend": key.get("backend"),
                "graph": key.get("graph"),
                "label": key.get("label"),
                "rel_types": ",".join(key.get("rel_types") or ()),
                "nodes": meta.get("n_nodes"),
                "edges": meta.get("n_edges"),
                "bytes": arrays.stat().st_size if arrays.is_file() else None,
                "file": str(arrays),
            }
        )
    return out

"""``GraphStore`` on FalkorDB (the embedded default), over the native RESP client.

Shared MERGE text comes from ``cypher_common.py``, FalkorDB spellings from
``falkordb_dialect.py``; this module only moves rows in and plain dicts out. Numeric
contracts (PageRank) are computed beside the database with the GDS-identical scipy
implementation, because FalkorDB's ``algo.pageRank`` has different semantics
(graph-backends.md §4).
"""

from __future__ import annotations

import logging
import re
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from scholarkg.errors import InputError, ServerError, StoreError
from scholarkg.queries import load_query
from scholarkg.schema.ddl import (
    DEFAULT_SCHEMA,
    NODE_LABELS,
    REL_TYPES,
    SchemaSpec,
    VectorIndex,
    check_label,
    check_property,
    check_rel_type,
)
from scholarkg.store import falkordb_dialect as dialect
from scholarkg.store.base import (
    EdgeSnapshot,
    GraphCounts,
    Hit,
    PageRankConfig,
    PageRankResult,
    ProgressFn,
)
from scholarkg.store.cypher_common import (
    chunked,
    clean_props,
    merge_nodes_query,
    merge_relationships_query,
    node_rows,
    rel_rows,
)

if TYPE_CHECKING:
    import falkordb

    from scholarkg.config import Settings

log = logging.getLogger(__name__)

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")

#: Internal-id window per edge-export query: big enough that round trips do not dominate,
#: small enough that one reply stays a few tens of MB.
SNAPSHOT_WINDOW = 250_000
#: separator for joined application ids (ids containing it fall back to a list)
_ID_SEP = "\x1f"


def _int_array(joined: str) -> np.ndarray:
    """``'3,17,42'`` → int64 array (``''`` → empty)."""
    if not joined:
        return np.zeros(0, dtype=np.int64)
    return np.array(joined.split(","), dtype=np.int64)


def _plain(value: Any) -> Any:
    """FalkorDB client objects → plain Python (nodes/edges → property dicts, paths → lists)."""
    from falkordb.edge import Edge
    from falkordb.node import Node
    from falkordb.path import Path as FPath

    if isinstance(value, Node | Edge):
        return {k: _plain(v) for k, v in value.properties.items()}
    if isinstance(value, FPath):
        out: list[Any] = []
        nodes, edges = value.nodes(), value.edges()
        for i, node in enumerate(nodes):
            out.append(_plain(node))
            if i < len(edges):
                out.append(_plain(edges[i]))
        return out
    if isinstance(value, dict | OrderedDict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _quoted(name: str) -> str | None:
    """Backtick-quote a label/type the *server* reported, if it is a plain identifier."""
    return f"`{name}`" if name in NODE_LABELS or name in REL_TYPES or _IDENT.match(name) else None


class FalkorDBStore:
    """One FalkorDB graph (a Redis key) behind the ``GraphStore`` protocol."""

    backend = "embedded"
    capabilities: frozenset[str] = frozenset({"fulltext", "vector"})

    def __init__(self, db: falkordb.FalkorDB, graph: str) -> None:
        if not graph or any(c.isspace() for c in graph):
            raise InputError(f"invalid graph name {graph!r}")
        self.db = db
        self.graph = graph
        self._g = db.select_graph(graph)
        self._schema: SchemaSpec = DEFAULT_SCHEMA
        self._key_indexed: set[str] = set()

    @classmethod
    def from_settings(cls, settings: Settings, *, graph: str | None = None) -> FalkorDBStore:
        """Start (or reuse) the embedded server of ``settings.data_dir`` and open the graph."""
        from scholarkg.store.embedded import EmbeddedServer

        server = EmbeddedServer(settings.data_dir)
        server.ensure_running()
        return cls(server.connect(), graph or settings.graph)

    # -- raw access --------------------------------------------------------------------
    def _query(self, query: str, params: Mapping[str, Any] | None = None) -> Any:
        import redis

        try:
            return self._g.query(query, dict(params) if params else None)
        except redis.exceptions.ResponseError as err:
            raise dialect.cypher_error(err, query) from err
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
            raise ServerError(
                f"lost the embedded FalkorDB server ({err}); 'scholarkg db status' shows its state"
            ) from err

    def _command(self, *args: Any) -> Any:
        import redis

        try:
            return self.db.connection.execute_command(*args)
        except redis.exceptions.ResponseError as err:
            raise StoreError(f"FalkorDB {args[0]} failed: {err}") from err
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
            raise ServerError(f"lost the embedded FalkorDB server ({err})") from err

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        res = self._query(query, params)
        header = [h[1] if isinstance(h, list | tuple) else h for h in res.header]
        return [
            {str(col): _plain(val) for col, val in zip(header, row, strict=False)}
            for row in res.result_set
        ]

    def run_named(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        return self.run(load_query(name, dialect.DIALECT), params)

    # -- writes ------------------------------------------------------------------------
    def write_batches(
        self,
        query: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int:
        done = 0
        for batch in chunked(rows, batch_size):
            self._query(query, {"rows": [dict(r) for r in batch]})
            done += len(batch)
            if progress:
                progress(done)
        return done

    def _ensure_key_index(self, label: str) -> None:
        """Create the ``id`` range index if missing: MERGE without it is a label scan per row.

        Done lazily (once per label and store) so writes stay linear even when the caller
        has not run ``apply_schema`` yet; the unique constraint is still apply_schema's job.
        """
        if label in self._key_indexed:
            return
        if not dialect.has_index(dialect.list_indexes(self._g), label, "id", "RANGE"):
            try:
                self._query(dialect.range_index_ddl(label, "id"))
            except StoreError as err:  # a concurrent writer created it first
                if "already indexed" not in str(err):
                    raise
        self._key_indexed.add(label)

    def merge_nodes(
        self,
        label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int:
        check_label(label)
        self._ensure_key_index(label)
        query = merge_nodes_query(label)

        def checked() -> Iterable[Mapping[str, Any]]:
            for i, row in enumerate(rows, 1):
                if row.get("id") in (None, ""):
                    raise InputError(f"{label} node without an id", line=i, field="id")
                yield row

        return self.write_batches(
            query, node_rows(checked()), batch_size=batch_size, progress=progress
        )

    def merge_relationships(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int:
        query = merge_relationships_query(rel_type, start_label, end_label)
        self._ensure_key_index(start_label)
        self._ensure_key_index(end_label)
        written = seen = 0
        for batch in chunked(rel_rows(rows), batch_size):
            res = self._query(query, {"rows": batch})
            written += int(res.result_set[0][0]) if res.result_set else 0
            seen += len(batch)
            if progress:
                progress(seen)
        return written

    # -- schema ------------------------------------------------------------------------
    def apply_schema(self, schema: SchemaSpec | None = None) -> list[str]:
        """Create what is missing of ``schema`` and wait until it is online.

        Returns a description of each index/constraint created (empty on a re-run), which
        ``scholarkg schema apply`` prints.
        """
        spec = schema or DEFAULT_SCHEMA
        self._schema = spec
        steps = dialect.plan_schema(
            spec, dialect.list_indexes(self._g), dialect.list_constraints(self._g)
        )
        created: list[str] = []
        for step in steps:
            if step.kind == "range":
                self._query(dialect.range_index_ddl(step.label, step.properties[0]))
            elif step.kind == "unique":
                self._command(
                    *dialect.unique_constraint_command(self.graph, step.label, step.properties[0])
                )
            elif step.kind == "fulltext":
                self._query(dialect.fulltext_index_ddl(step.label, step.properties))
            elif step.kind == "vector":
                vec = next(
                    v
                    for v in spec.vector
                    if v.label == step.label and v.property == step.properties[0]
                )
                self._query(dialect.vector_index_ddl(vec))
            created.append(step.describe())
        if steps:
            dialect.await_indexes(self._g)
        return created

    def ensure_vector_index(self, index: VectorIndex) -> None:
        if not dialect.has_index(
            dialect.list_indexes(self._g), index.label, index.property, "VECTOR"
        ):
            self._query(dialect.vector_index_ddl(index))
            dialect.await_indexes(self._g)

    def set_vectors(
        self,
        label: str,
        property: str,
        rows: Iterable[tuple[str, Sequence[float]]],
        *,
        extra: Mapping[str, Mapping[str, Any]] | None = None,
        batch_size: int = 2_000,
    ) -> int:
        query = dialect.set_vectors_query(label, property)
        extra = extra or {}
        written = 0
        for batch in chunked(rows, batch_size):
            payload = [
                {
                    "id": str(node_id),
                    "v": [float(x) for x in vec],
                    "extra": clean_props(extra.get(str(node_id), {})),
                }
                for node_id, vec in batch
            ]
            res = self._query(query, {"rows": payload})
            written += int(res.result_set[0][0]) if res.result_set else 0
        return written

    # -- search ------------------------------------------------------------------------
    def fulltext(
        self, index: str, terms: Sequence[str], *, k: int = 100, require_all: bool = False
    ) -> list[Hit]:
        spec = self._fulltext_spec(index)
        q = dialect.fulltext_query_text(terms, require_all=require_all)
        if not q:
            return []
        res = self._query(dialect.fulltext_search_query(), {"label": spec.label, "q": q, "k": k})
        hits = []
        for node, score in res.result_set:
            props = _plain(node)
            hits.append(Hit(id=str(props.get("id")), score=float(score), properties=props))
        return hits

    def _fulltext_spec(self, index: str) -> Any:
        for spec in (self._schema, DEFAULT_SCHEMA):
            for ft in spec.fulltext:
                if ft.name == index:
                    return ft
        return self._schema.fulltext_index(index)  # raises InputError listing known names

    def vector(self, index: VectorIndex, vector: Sequence[float], *, k: int = 10) -> list[Hit]:
        res = self._query(
            dialect.vector_search_query(index.label, index.property),
            {"k": int(k), "v": [float(x) for x in vector]},
        )
        hits = []
        for node, distance in res.result_set:
            props = _plain(node)
            props.pop(index.property, None)
            hits.append(
                Hit(
                    id=str(props.get("id")),
                    score=dialect.similarity_from_distance(distance),
                    properties=props,
                )
            )
        hits.sort(key=lambda h: h.score, reverse=True)
        return hits

    # -- inspection --------------------------------------------------------------------
    def counts(self) -> GraphCounts:
        """Counts per label and type; every alias is referenced in ``count()``.

        (FalkorDB only existence-checks unreferenced relationship aliases, which can
        undercount: known-limitations.mdx.)
        """
        if not self._exists():
            return GraphCounts(nodes={}, relationships={})
        nodes: dict[str, int] = {}
        for (label,) in self._query("CALL db.labels()").result_set:
            q = _quoted(str(label))
            if q is None:
                continue
            n = self._query(f"MATCH (n:{q}) RETURN count(n)").result_set[0][0]
            if n:
                nodes[str(label)] = int(n)
        rels: dict[str, int] = {}
        for (rtype,) in self._query("CALL db.relationshipTypes()").result_set:
            q = _quoted(str(rtype))
            if q is None:
                continue
            n = self._query(f"MATCH ()-[r:{q}]->() RETURN count(r)").result_set[0][0]
            if n:
                rels[str(rtype)] = int(n)
        return GraphCounts(nodes=nodes, relationships=rels)

    def _exists(self) -> bool:
        return self.graph in set(self._command("GRAPH.LIST"))

    def edge_snapshot(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
    ) -> EdgeSnapshot:
        """Arrays of the subgraph, fetched as one joined string per column and window.

        Never one row per edge: the server joins internal ids into a comma-separated
        string per window of source nodes (``string.join``), which NumPy parses. Lists of
        integers cost one RESP element each and made a 1M-edge export ~5x slower with
        redis-py's pure-Python parser. Weights travel as a list (``toString`` would round
        them to 6 decimals).
        """
        check_label(node_label)
        check_rel_type(rel_type)
        if weight_property is not None:
            check_property(weight_property)
        empty = np.zeros(0, dtype=np.int64)
        if not self._exists():
            return EdgeSnapshot(ids=[], src=empty, dst=empty, weight=np.zeros(0))
        if node_ids is None:
            ids, internal = self._all_nodes(node_label)
        else:
            ids, internal = self._some_nodes(node_label, node_ids)
        if len(ids) == 0:
            return EdgeSnapshot(ids=[], src=empty, dst=empty, weight=np.zeros(0))
        w_col = f", collect(coalesce(r.{weight_property}, 1.0))" if weight_property else ""
        # WITH references r: FalkorDB collapses parallel edges of an unreferenced alias
        ret = (
            "WITH a, r, b RETURN string.join(collect(toString(id(a))), ','), "
            f"string.join(collect(toString(id(b))), ','){w_col}"
        )
        # b's label is checked in NumPy (pos = -1 outside the node set): ~30% faster
        pattern = f"MATCH (a:{node_label})-[r:{rel_type}]->(b) "
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
        if node_ids is None:
            top = int(internal.max())
            q = pattern + "WHERE id(a) >= $lo AND id(a) < $hi " + ret
            for lo in range(0, top + 1, SNAPSHOT_WINDOW):
                parts.append(self._edge_part(q, {"lo": lo, "hi": lo + SNAPSHOT_WINDOW}))
        else:
            q = "UNWIND $ids AS i " + pattern + "WHERE id(a) = i " + ret
            for batch in chunked(internal.tolist(), 50_000):
                parts.append(self._edge_part(q, {"ids": batch}))
        a_all = np.concatenate([p[0] for p in parts]) if parts else empty
        b_all = np.concatenate([p[1] for p in parts]) if parts else empty
        if weight_property:
            w_all = np.concatenate([p[2] for p in parts if p[2] is not None])
        else:
            w_all = np.ones(len(a_all), dtype=np.float64)
        # map internal ids to positions; drop edges leaving the node set (subgraph case)
        pos = np.full(int(max(internal.max(), b_all.max(initial=0))) + 1, -1, dtype=np.int64)
        pos[internal] = np.arange(len(internal), dtype=np.int64)
        src, dst = pos[a_all], pos[b_all]
        keep = (src >= 0) & (dst >= 0)
        return EdgeSnapshot(ids=ids, src=src[keep], dst=dst[keep], weight=w_all[keep])

    def _edge_part(
        self, query: str, params: Mapping[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        row = self._query(query, params).result_set[0]
        a, b = _int_array(row[0]), _int_array(row[1])
        w = np.asarray(row[2], dtype=np.float64) if len(row) > 2 else None
        if len(a) != len(b) or (w is not None and len(w) != len(a)):
            raise StoreError("edge export returned columns of different lengths")
        return a, b, w

    def _all_nodes(self, label: str) -> tuple[list[str], np.ndarray]:
        """Internal and application ids of every ``label`` node that has an ``id``.

        Nodes without ``id`` (created by hand) have no identity here and are left out,
        with their edges.
        """
        top = self._query(f"MATCH (n:{label}) RETURN max(id(n))").result_set[0][0]
        if top is None:
            return [], np.zeros(0, dtype=np.int64)
        ids: list[str] = []
        internal: list[np.ndarray] = []
        q = (
            f"MATCH (n:{label}) WHERE id(n) >= $lo AND id(n) < $hi AND n.id IS NOT NULL "
            "RETURN string.join(collect(toString(id(n))), ','), "
            "string.join(collect(toString(n.id)), $sep), count(n)"
        )
        for lo in range(0, int(top) + 1, SNAPSHOT_WINDOW):
            params = {"lo": lo, "hi": lo + SNAPSHOT_WINDOW, "sep": _ID_SEP}
            iids, joined, n = self._query(q, params).result_set[0]
            app_ids = joined.split(_ID_SEP) if n else []
            if len(app_ids) != n:  # an id contains the separator: fetch this window as a list
                lq = (
                    f"MATCH (n:{label}) WHERE id(n) >= $lo AND id(n) < $hi AND n.id IS NOT NULL "
                    "RETURN collect(toString(n.id))"
                )
                app_ids = self._query(lq, params).result_set[0][0]
            internal.append(_int_array(iids))
            ids.extend(app_ids)
        all_internal = np.concatenate(internal)
        order = np.argsort(all_internal, kind="stable")  # creation order: deterministic
        return [ids[i] for i in order], all_internal[order]

    def _some_nodes(self, label: str, node_ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        wanted = list(dict.fromkeys(str(x) for x in node_ids))
        found: dict[str, int] = {}
        q = f"UNWIND $ids AS x MATCH (n:{label} {{id: x}}) RETURN collect(n.id), collect(id(n))"
        for batch in chunked(wanted, 50_000):
            app_ids, iids = self._query(q, {"ids": batch}).result_set[0]
            found.update(zip((str(x) for x in app_ids), (int(i) for i in iids), strict=True))
        ids = [x for x in wanted if x in found]
        return ids, np.asarray([found[x] for x in ids], dtype=np.int64)

    def pagerank(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
        config: PageRankConfig | None = None,
    ) -> PageRankResult:
        """GDS-semantics PageRank computed in scipy on an edge snapshot (§4)."""
        from scholarkg.graphalgo.pagerank import pagerank

        cfg = config or PageRankConfig()
        snap = self.edge_snapshot(
            node_label, rel_type, node_ids=node_ids, weight_property=weight_property
        )
        bias: dict[int, float] | None = None
        if cfg.source_nodes is not None:
            index = {node_id: i for i, node_id in enumerate(snap.ids)}
            missing = [s for s in cfg.source_nodes if str(s) not in index]
            if missing:
                raise InputError(
                    f"PageRank source node(s) not in the {node_label} graph: {missing[:5]}",
                    field="source_nodes",
                )
            bias = {index[str(s)]: float(b) for s, b in cfg.source_nodes.items()}
        t0 = time.perf_counter()
        scores, ran, converged = pagerank(
            len(snap.ids),
            snap.src,
            snap.dst,
            snap.weight if weight_property else None,
            damping_factor=cfg.damping_factor,
            max_iterations=cfg.max_iterations,
            tolerance=cfg.tolerance,
            source_bias=bias,
        )
        millis = (time.perf_counter() - t0) * 1000.0
        return PageRankResult(
            scores={node_id: float(s) for node_id, s in zip(snap.ids, scores, strict=True)},
            ran_iterations=int(ran),
            did_converge=bool(converged),
            compute_millis=millis,
        )

    # -- lifecycle ---------------------------------------------------------------------
    def clear(self) -> None:
        """``GRAPH.DELETE``: nodes, relationships, indexes and constraints go at once."""
        import redis

        try:
            self.db.connection.execute_command("GRAPH.DELETE", self.graph)
        except redis.exceptions.ResponseError as err:
            if "empty key" not in str(err) and "not exist" not in str(err).lower():
                raise StoreError(f"GRAPH.DELETE {self.graph}: {err}") from err
        self._key_indexed.clear()

    def close(self) -> None:
        try:
            self.db.connection.close()
        except Exception as err:  # closing must never mask the caller's own error
            log.debug("closing FalkorDB connection: %s", err)

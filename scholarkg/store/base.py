"""The interface both graph backends implement, in roles a function takes the smallest of.

``GraphReader`` (named queries, searches, counts) ⊂ ``GraphWriter`` (batched writes, schema,
vectors) ⊂ ``GraphStore`` (also the graph algorithms' snapshots, PageRank and the write
fingerprint), which is also a ``GraphExplorer`` (a user's own Cypher under limits). Tasks,
loaders' writers and the CLI talk to these protocols only; everything that differs
between FalkorDB and Neo4j (DDL, index procedures, vector score direction, ``vecf32``,
``id()`` vs ``elementId()``, algorithms) lives in that backend's dialect module.

Rules every implementation keeps (pinned by ``tests/store/test_contract.py``):

* values travel as parameters; labels, relationship types and property names come from
  the whitelists in ``schema/ddl.py``;
* rows come back as plain ``dict``s of plain Python values (nodes as property dicts);
* node identity is the application ``id`` property, never an internal id;
* vector scores are similarities in [0, 1], higher is closer (Neo4j's scale:
  ``(1 + cos) / 2``);
* writes are idempotent ``UNWIND $rows AS row MERGE ...`` batches, safe to retry.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from scholarkg.schema.ddl import MARKER_LABELS, SchemaSpec, VectorIndex

#: ``progress(n_done)`` is called after each batch with the number of rows written so far.
ProgressFn = Callable[[int], None]


@dataclass(frozen=True)
class Hit:
    """One search result: the node's ``id``, a score (higher is better) and its properties."""

    id: str
    score: float
    properties: dict[str, Any] = field(default_factory=dict)


#: Both backends' vector indexes are HNSW graphs, i.e. approximate; FalkorDB searches with
#: ``efRuntime`` 10 unless told otherwise, and a top-10 query over 126 vectors missed 2 of
#: the exact 10 (measured; Neo4j found all 10). So ``vector`` asks every index for at least
#: this many neighbours and keeps the ``k`` best: the same hits on every backend.
VECTOR_MIN_FETCH = 100


def best_hits(hits: Sequence[Hit], k: int) -> list[Hit]:
    """The ``k`` best hits, score desc and then id asc: tied hits come back from each server
    in its own order, and rankings must not depend on the backend."""
    return sorted(hits, key=lambda h: (-h.score, h.id))[: max(0, int(k))]


@dataclass(frozen=True)
class GraphCounts:
    nodes: dict[str, int]
    relationships: dict[str, int]

    @property
    def total_nodes(self) -> int:
        """Nodes, each once: a marker label (``Stub``: a second label) is not a node kind."""
        return sum(n for label, n in self.nodes.items() if label not in MARKER_LABELS)

    @property
    def total_relationships(self) -> int:
        return sum(self.relationships.values())


@dataclass(frozen=True)
class EdgeSnapshot:
    """A subgraph as arrays, for algorithms that run beside the database.

    ``ids[i]`` is the application id of node ``i``; edge ``k`` goes ``src[k] -> dst[k]``
    with weight ``weight[k]`` (1.0 when unweighted). Isolated nodes are included.
    """

    ids: list[str]
    src: np.ndarray
    dst: np.ndarray
    weight: np.ndarray


@dataclass(frozen=True)
class PageRankConfig:
    """GDS PageRank parameters (the Neo4j GDS manual, PageRank); the embedded store obeys them
    too."""

    damping_factor: float = 0.85
    max_iterations: int = 20
    tolerance: float = 1e-7
    #: ``{node_id: bias}`` for personalized PageRank; ``None`` for global PageRank.
    source_nodes: Mapping[str, float] | None = None


@dataclass(frozen=True)
class PageRankResult:
    scores: dict[str, float]
    ran_iterations: int
    did_converge: bool
    compute_millis: float


#: bytes of reply a user's query may bring back to the explorer (more is cut, unread)
EXPLORE_MAX_BYTES = 8 << 20
#: and to ``scholarkg cypher``
CYPHER_MAX_BYTES = 256 << 20
#: seconds past a user's query's own time limit before scholarkg stops it itself (the
#: embedded server does not stop a query while it parses or inside one row)
WATCHDOG_GRACE = 1.0


@dataclass(frozen=True)
class ServerTop:
    """The top ``k`` (id, score) rows a server-side sort returned, ordered by score then id.

    ``records`` counts what the driver received (the proof that only ``k`` rows crossed
    Bolt); ``server_millis`` is the server's own time for the queries (available + consumed
    after, from the result summaries); ``tie_query``: a second query resolved a tie at the
    ``k``-th score."""

    rows: list[tuple[str, float]]
    records: int
    server_millis: float
    tie_query: bool = False


@runtime_checkable
class GdsCatalog(Protocol):
    """The Graph Data Science catalogue a store may have (``GraphStore.gds``; Neo4j with the
    plugin: ``store/neo4j/gds.py``): in-memory projections of the graph, kept resident between
    calls, and the algorithms run on them in the server."""

    @property
    def concurrency(self) -> int:
        """Threads every GDS call is given (the server's processors, the edition's cap)."""
        ...

    def write_fingerprint(self) -> str:
        """The store's write fingerprint: whether a resident projection is still current."""
        ...

    def project_native(
        self,
        name: str,
        node_label: str,
        rel_types: Sequence[str],
        *,
        node_properties: Mapping[str, Any] | None = None,
    ) -> dict[str, int]:
        """Project ``(node_label, rel_types)`` as ``name`` in the server; counts and timing."""
        ...

    def project_graph(
        self,
        name: str,
        node_label: str,
        rel_types: Sequence[str],
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
    ) -> dict[str, int]:
        """Project a (weighted, or a node subset's) graph as ``name``; node and edge counts."""
        ...

    def pagerank_projected(
        self,
        name: str,
        node_label: str,
        config: PageRankConfig,
        *,
        weighted: bool = False,
        node_ids: Sequence[str] | None = None,
        property_name: str | None = None,
    ) -> PageRankResult:
        """Every node's PageRank on the projected graph ``name``."""
        ...

    def resident_graphs(self, prefix: str) -> dict[str, dict[str, Any]]:
        """The projections named ``prefix…`` with their counts and node properties."""
        ...

    def projected_graphs(self, prefix: str) -> list[str]:
        """Names of the projections whose name starts with ``prefix``."""
        ...

    def drop_projected(self, name: str) -> None:
        """Drop a projection (none left is no error)."""
        ...

    def pagerank_keep(self, graph: str, config: PageRankConfig, prop: str) -> dict[str, Any]:
        """Whole-graph PageRank kept as ``prop`` of the resident graph; GDS's statistics."""
        ...

    def pagerank_write(
        self, graph: str, node_label: str, config: PageRankConfig, prop: str
    ) -> dict[str, Any]:
        """Every node's score written to the database property ``prop``; the statistics."""
        ...

    def top_kept_scores(self, graph: str, prop: str, k: int) -> ServerTop:
        """The ``k`` highest values of the kept ``prop``, sorted in the server."""
        ...

    def kept_scores(
        self, graph: str, node_label: str, prop: str, ids: Sequence[str]
    ) -> dict[str, float]:
        """The kept ``prop`` of the nodes ``ids``."""
        ...

    def personalized_top(
        self, graph: str, node_label: str, config: PageRankConfig, k: int
    ) -> ServerTop:
        """Personalized PageRank's top ``k`` in one round trip."""
        ...

    def estimates(
        self,
        node_label: str,
        rel_types: Sequence[str],
        *,
        node_count: int = 0,
        relationship_count: int = 0,
        fastrp_dimension: int | None = None,
    ) -> dict[str, Any]:
        """GDS's own memory estimates (bytes) of a projection and PageRank (and FastRP)."""
        ...


@runtime_checkable
class GraphReader(Protocol):
    """The reading role: what tasks, rankers and reports need to read a graph (named queries,
    searches, counts). The test double ``tests/_fakes.RecordingStore`` is one."""

    #: "embedded" or "neo4j"
    backend: str
    #: graph (FalkorDB key) or database (Neo4j) name
    graph: str
    #: optional abilities, e.g. {"gds", "fastrp"}; absent ones raise ``NotSupported``
    capabilities: frozenset[str]

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one parameterized Cypher statement; rows as dicts keyed by column name."""
        ...

    @property
    def dialect(self) -> str:
        """The dialect of its named queries (``falkordb``, ``neo4j``): which variant of a
        query it runs, and whether a dialect-only query exists for it
        (``queries.has_query(name, store.dialect)``)."""
        ...

    def run_named(
        self, name: str, params: Mapping[str, Any] | None = None, **identifiers: str
    ) -> list[dict[str, Any]]:
        """Run ``queries/<name>.cypher`` (or its ``<name>.<dialect>.cypher`` variant), its
        ``{{placeholders}}`` filled from ``identifiers`` after a whitelist check
        (``store/named.py``): the one way any named query runs."""
        ...

    def fulltext(
        self, index: str, terms: Sequence[str], *, k: int = 100, require_all: bool = False
    ) -> list[Hit]:
        """Full-text search by tokens; escaping and query syntax are the dialect's job.

        Scores are backend-specific (Lucene vs RediSearch): compare ranks, not values.
        """
        ...

    def vector(self, index: VectorIndex, vector: Sequence[float], *, k: int = 10) -> list[Hit]:
        """k nearest nodes by cosine; score = (1 + cos) / 2 in [0, 1], best first (ties by
        id); at least ``VECTOR_MIN_FETCH`` neighbours are searched (:func:`best_hits`)."""
        ...

    def counts(self) -> GraphCounts: ...

    def close(self) -> None: ...


@runtime_checkable
class GraphWriter(GraphReader, Protocol):
    """The writing role: idempotent batched writes, schema and vectors (the loaders)."""

    def write_named(
        self,
        name: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
        **identifiers: str,
    ) -> int:
        """:meth:`write_batches` of the named query ``name`` (which reads ``$rows``), its
        identifiers filled as :meth:`run_named` fills them; returns rows written."""
        ...

    def write_batches(
        self,
        query: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int:
        """Run ``query`` (which reads ``$rows``) once per batch of rows; returns rows written."""
        ...

    def merge_nodes(
        self,
        label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int:
        """MERGE nodes on ``id`` and set their other properties (``None`` values dropped)."""
        ...

    def merge_relationships(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
        key: Sequence[str] = (),
        new_starts: Collection[str] = frozenset(),
    ) -> int:
        """MERGE ``(start {id: row.start})-[:TYPE]->(end {id: row.end})``; ``row.props`` set.

        ``key``: property names that, with the endpoints, identify a relationship (one per
        (start, end, key values) instead of one per pair; values from ``row.key`` or the
        row's properties). Rows whose endpoints do not exist are skipped (counted out of the
        return value). ``new_starts``: start ids of nodes the caller just created, with no
        ``TYPE`` relationship yet: a store may CREATE their rows (nothing to merge with).
        """
        ...

    def existing_ids(self, label: str, ids: Iterable[str], *, batch_size: int = 10_000) -> set[str]:
        """The subset of ``ids`` that exist as ``label`` nodes (the loader's undo list)."""
        ...

    def delete_nodes(self, label: str, ids: Iterable[str], *, batch_size: int = 10_000) -> int:
        """Delete ``label`` nodes by id with their relationships; returns how many."""
        ...

    def apply_schema(self, schema: SchemaSpec | None = None) -> list[str] | None:
        """Create constraints and indexes idempotently; waits until they are online.

        Returns what was created (empty when everything existed), where the backend knows.
        """
        ...

    def ensure_vector_index(self, index: VectorIndex) -> None: ...

    def set_vectors(
        self,
        label: str,
        property: str,
        rows: Iterable[tuple[str, Sequence[float] | np.ndarray]],
        *,
        extra: Mapping[str, Mapping[str, Any]] | None = None,
        batch_size: int = 2_000,
    ) -> int:
        """Store vectors on existing nodes (``(id, vector)`` pairs) in the dialect's type."""
        ...

    def clear(self) -> None:
        """Delete every node, relationship and index of this graph."""
        ...

    def compact(self) -> None:
        """Fold what the server logged into its on-disk snapshot, so restarts stay fast.

        Called once at the end of every command that writes in bulk. The embedded store
        rewrites its append-only file; Neo4j manages its own files (no-op).
        """
        ...


@runtime_checkable
class GraphExplorer(Protocol):
    """The explorable role: a user's own Cypher under limits, for ``scholarkg explore`` and
    ``scholarkg cypher`` (``explorer/``)."""

    def explore(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        allow_writes: bool = False,
        timeout_ms: int = 10_000,
        row_limit: int = 1_000,
        max_bytes: int = EXPLORE_MAX_BYTES,
    ) -> ExploreResult:
        """Run a user's Cypher (``scholarkg explore``, ``scholarkg cypher``) under limits:
        read-only unless ``allow_writes``.

        Before it is sent, its shape is checked (``cypher_text.check_shape``: length,
        nesting, parse cost). Read-only is enforced by the database (FalkorDB
        ``GRAPH.RO_QUERY``, a Neo4j READ session). The time limit is the server's own, bounded
        by the server's configured maximum (:meth:`server_timeout_ms`); a query that outlives
        it by :data:`WATCHDOG_GRACE` is stopped (the embedded server is restarted on its
        files) and :class:`~scholarkg.errors.QueryLimitExceeded` says so. Rows are read as
        they arrive and the stream is cut after ``row_limit`` rows or ``max_bytes`` bytes
        (``truncated`` and ``limited_by`` say so); the rest is never read.
        """
        ...

    def server_timeout_ms(self) -> int | None:
        """The longest any query may run on this server (``None``: no limit): FalkorDB's
        ``TIMEOUT_MAX``, Neo4j's ``db.transaction.timeout``. A client's limit is bounded by it."""
        ...

    def explore_neighbours(
        self, ref: str, *, limit: int = 25, timeout_ms: int = 10_000
    ) -> ExploreResult:
        """A node (by its ``GraphNode.ref``) and up to ``limit`` relationships around it."""
        ...

    def explore_node_keys(
        self, refs: Sequence[str], *, timeout_ms: int = 10_000
    ) -> dict[str, GraphNode]:
        """The nodes ``refs`` (``GraphNode.ref``) as their labels and application ``id`` only
        (``properties`` holds ``id`` when the node has one): what a relationship's endpoints
        are shown as when the query returned the relationship without them (``scholarkg
        cypher``; a reply names an endpoint by internal id only). A ref no longer there is
        left out. Read-only, under ``timeout_ms``."""
        ...

    def explain(
        self, query: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int = 10_000
    ) -> QueryPlan:
        """The database's plan for ``query`` (``EXPLAIN``), nothing run: what the explorer
        checks before it runs a user's query (``explorer/guard.py``). Under the same limits
        as ``explore`` (planning parses, and FalkorDB folds constant expressions, so it can
        compute the whole of ``reduce(… range(1, 1e8) …)``)."""
        ...

    def explore_indexes(self) -> list[dict[str, Any]]:
        """Indexes and constraints as ``{label, properties, type, state}`` rows."""
        ...


@runtime_checkable
class GraphStore(GraphWriter, GraphExplorer, Protocol):
    """A graph backend, every role: reading, writing, exploring and the graph algorithms
    (snapshots, PageRank, the write fingerprint resident projections check). Open one with
    ``scholarkg.store.open_store``; a function takes the smallest role it needs."""

    @property
    def gds(self) -> GdsCatalog | None:
        """The store's GDS catalogue (:class:`GdsCatalog`), or ``None`` where there is none
        (the embedded store; a Neo4j server without the plugin)."""
        ...

    def edge_snapshot(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
    ) -> EdgeSnapshot:
        """Nodes of ``node_label`` (all, or ``node_ids``) and the ``rel_type`` edges among them."""
        ...

    def pagerank(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
        config: PageRankConfig | None = None,
    ) -> PageRankResult:
        """GDS-semantics PageRank over the (sub)graph: GDS on Neo4j, scipy on the embedded store."""
        ...

    def graph_names(self) -> list[str]:
        """The graphs the server holds, sorted: FalkorDB's graph keys (``GRAPH.LIST``), Neo4j's
        databases (``system`` left out)."""
        ...

    def graph_exists(self) -> bool:
        """Whether this store's graph is there (:meth:`graph_names`): the CLI refuses to read a
        graph that is not (``GraphNotFound``), as a read on the embedded store would create
        its key and answer as if an empty graph had been asked for."""
        ...

    def write_fingerprint(self) -> str:
        """A token that moves whenever a write may have changed the data (cheap to ask).

        Resident projections (``graphalgo/projection.py``) compare it to decide whether their
        cached copy of the graph is still current. The embedded store's also moves on saves
        and restarts (callers then re-check content); Neo4j's moves on committed writes only.
        """
        ...


def full_store(store: GraphReader, what: str) -> GraphStore:
    """``store`` as the whole ``GraphStore`` that ``what`` needs (a graph algorithm's
    snapshot, say), or ``NotSupported`` naming it: for code that takes the reading role and
    needs more on one path only (a ranker that reads citations)."""
    from scholarkg.errors import NotSupported

    if not isinstance(store, GraphStore):
        raise NotSupported(f"{what} needs a graph store; {type(store).__name__} only reads")
    return store


# -- the explorer's graph payload (scholarkg explore) -------------------------------------


@dataclass(frozen=True)
class GraphNode:
    """A node as the explorer draws it.

    ``ref`` is the backend's internal id as text (FalkorDB ``id(n)``, Neo4j ``elementId(n)``):
    the one identity every node has, so the view can draw nodes without an ``id``
    property and ask for their neighbours. It is only valid for the life of the graph,
    which is why nothing else in scholarkg uses it.
    """

    ref: str
    labels: tuple[str, ...]
    properties: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "labels": list(self.labels), "properties": self.properties}


@dataclass(frozen=True)
class GraphRel:
    """A relationship as the explorer draws it; ``start``/``end`` are node refs."""

    ref: str
    type: str
    start: str
    end: str
    properties: dict[str, Any]

    def as_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "type": self.type,
            "start": self.start,
            "end": self.end,
            "properties": self.properties,
        }


@dataclass
class ExploreResult:
    """Rows for the table and the nodes/relationships in them for the node-link view.

    A cell holding a node is ``{"~node": ref}``, a relationship ``{"~rel": ref}``, a path
    ``{"~path": [ref, ...]}`` (node, relationship, node, ...); everything else is a plain
    value. Each node and relationship is sent once, however many cells mention it.
    ``changes``: what a write changed, as the server counted it (:data:`CHANGE_COUNTERS`
    names, those above zero only).
    """

    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    nodes: dict[str, GraphNode] = field(default_factory=dict)
    relationships: dict[str, GraphRel] = field(default_factory=dict)
    truncated: bool = False
    elapsed_ms: float = 0.0
    #: what cut the rows short: ``rows`` (the row limit), ``bytes`` (the reply's size limit)
    #: or ``depth`` (a value nested too deep to read); ``None``: nothing was cut
    limited_by: str | None = None
    changes: dict[str, int] = field(default_factory=dict)
    #: what the user should know of what a write did beyond its counts (on the embedded
    #: store: nodes that now share a key, which its server does not refuse)
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "warnings": self.warnings,
            "columns": self.columns,
            "rows": self.rows,
            "nodes": [n.as_dict() for n in self.nodes.values()],
            "relationships": [r.as_dict() for r in self.relationships.values()],
            "truncated": self.truncated,
            "limited_by": self.limited_by,
            "changes": self.changes,
            "elapsed_ms": round(self.elapsed_ms, 1),
        }


#: What a write changed, as both servers count it, in the order it is said (FalkorDB's
#: statistics and Neo4j's summary counters under one name each; FalkorDB alone counts
#: properties removed, which Neo4j counts as set, and only Neo4j's Cypher makes constraints).
CHANGE_COUNTERS: tuple[str, ...] = (
    "nodes created",
    "nodes deleted",
    "relationships created",
    "relationships deleted",
    "properties set",
    "properties removed",
    "labels added",
    "labels removed",
    "indexes created",
    "indexes deleted",
    "constraints created",
    "constraints deleted",
)


def counted_changes(counts: Mapping[str, Any]) -> dict[str, int]:
    """``counts`` (by :data:`CHANGE_COUNTERS` name) as the ones above zero, in that order."""
    out: dict[str, int] = {}
    for name in CHANGE_COUNTERS:
        value = int(counts.get(name) or 0)
        if value > 0:
            out[name] = value
    return out


@dataclass(frozen=True)
class QueryPlan:
    """A query's plan as the database made it: operator names (``ProcedureCall``,
    ``LoadCSV``, ...; spaces and Neo4j's ``@neo4j`` suffix dropped) with their details, in
    tree order, and Neo4j's query type (``r``, ``rw``, ``w``, ``s``; ``None`` on FalkorDB,
    whose plan has no such field, and ``s`` for its schema commands, which have no plan).
    ``planned`` is false when the database could not plan the query because the graph does
    not exist yet (FalkorDB plans against a graph key); callers then read the text.
    """

    operators: tuple[tuple[str, str], ...]
    query_type: str | None = None
    planned: bool = True


#: refs asked at once by ``explore_node_keys`` (a parameter list the servers read in one go)
NODE_KEYS_CHUNK = 10_000


def node_keys_in_chunks(
    explore: Callable[..., ExploreResult], query: str, refs: Sequence[Any], timeout_ms: int
) -> dict[str, GraphNode]:
    """``explore_node_keys`` of both stores: ``query`` (their ``EXPLORE_NODE_KEYS``) over
    ``refs`` (each store's kind of internal id) in chunks of :data:`NODE_KEYS_CHUNK`."""
    out: dict[str, GraphNode] = {}
    for start in range(0, len(refs), NODE_KEYS_CHUNK):
        chunk = list(refs[start : start + NODE_KEYS_CHUNK])
        found = explore(query, {"refs": chunk}, timeout_ms=timeout_ms, row_limit=len(chunk))
        out.update(node_keys(found))
    return out


def node_keys(result: ExploreResult) -> dict[str, GraphNode]:
    """The ``ref, labels, id`` rows of an ``EXPLORE_NODE_KEYS`` query as nodes holding their
    labels (sorted: one order on both backends) and ``id``, if they have one."""
    out: dict[str, GraphNode] = {}
    for ref, labels, node_id in result.rows:
        props = {} if node_id is None else {"id": node_id}
        out[str(ref)] = GraphNode(ref=str(ref), labels=tuple(sorted(labels)), properties=props)
    return out


def bounded_timeout_ms(asked_ms: int, server_ms: int | None) -> int:
    """A client's time limit bounded by the server's own (``None``: the server has none)."""
    return int(asked_ms) if not server_ms else min(int(asked_ms), int(server_ms))


def explore_check_limits(timeout_ms: int, row_limit: int) -> None:
    """Both backends refuse the same nonsense limits with the same message."""
    from scholarkg.errors import InputError

    if not 1 <= int(timeout_ms) <= 3_600_000:
        raise InputError(f"timeout must be 1 ms .. 1 h, got {timeout_ms} ms", field="timeout_ms")
    if not 1 <= int(row_limit) <= 1_000_000:
        raise InputError(f"row limit must be 1 .. 1,000,000, got {row_limit}", field="row_limit")


#: lists of numbers longer than this are shown as a summary in the explorer
EXPLORE_MAX_VECTOR = 64


def explore_property(key: str, value: Any, vector_props: set[str]) -> Any:
    """A property as the explorer shows it: vectors as ``<vector, N values>``.

    Embedding properties (``emb_<model>``, or any the store knows of) would otherwise fill
    the reply and the node card with hundreds of floats per node.
    """
    if isinstance(value, list | tuple) and (
        key in vector_props
        or key.startswith("emb_")
        or (
            len(value) > EXPLORE_MAX_VECTOR
            and all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
        )
    ):
        return f"<vector, {len(value)} values>"
    return value

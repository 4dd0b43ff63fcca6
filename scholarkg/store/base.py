"""The one small interface both graph backends implement.

Tasks, loaders' writers and the CLI talk to ``GraphStore`` only; everything that differs
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

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from scholarkg.schema.ddl import SchemaSpec, VectorIndex

#: ``progress(n_done)`` is called after each batch with the number of rows written so far.
ProgressFn = Callable[[int], None]


@dataclass(frozen=True)
class Hit:
    """One search result: the node's ``id``, a score (higher is better) and its properties."""

    id: str
    score: float
    properties: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GraphCounts:
    nodes: dict[str, int]
    relationships: dict[str, int]

    @property
    def total_nodes(self) -> int:
        return sum(self.nodes.values())

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
    """GDS PageRank parameters (graph-backends.md §3-4); the embedded store obeys them too."""

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


@runtime_checkable
class GraphStore(Protocol):
    """A graph backend. Open one with ``scholarkg.store.open_store``."""

    #: "embedded" or "neo4j"
    backend: str
    #: graph (FalkorDB key) or database (Neo4j) name
    graph: str
    #: optional abilities, e.g. {"gds", "fastrp"}; absent ones raise ``NotSupported``
    capabilities: frozenset[str]

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one parameterized Cypher statement; rows as dicts keyed by column name."""
        ...

    def run_named(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run ``queries/<name>.cypher`` (or its ``<name>.<dialect>.cypher`` variant)."""
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
    ) -> int:
        """MERGE ``(start {id: row.start})-[:TYPE]->(end {id: row.end})``; ``row.props`` set.

        Rows whose endpoints do not exist are skipped (counted out of the return value).
        """
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
        rows: Iterable[tuple[str, Sequence[float]]],
        *,
        extra: Mapping[str, Mapping[str, Any]] | None = None,
        batch_size: int = 2_000,
    ) -> int:
        """Store vectors on existing nodes (``(id, vector)`` pairs) in the dialect's type."""
        ...

    def fulltext(
        self, index: str, terms: Sequence[str], *, k: int = 100, require_all: bool = False
    ) -> list[Hit]:
        """Full-text search by tokens; escaping and query syntax are the dialect's job.

        Scores are backend-specific (Lucene vs RediSearch): compare ranks, not values.
        """
        ...

    def vector(self, index: VectorIndex, vector: Sequence[float], *, k: int = 10) -> list[Hit]:
        """k nearest nodes by cosine; score = (1 + cos) / 2 in [0, 1], best first."""
        ...

    def counts(self) -> GraphCounts: ...

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

    def clear(self) -> None:
        """Delete every node, relationship and index of this graph."""
        ...

    def compact(self) -> None:
        """Fold what the server logged into its on-disk snapshot, so restarts stay fast.

        Called once at the end of every command that writes in bulk. The embedded store
        rewrites its append-only file; Neo4j manages its own files (no-op).
        """
        ...

    def close(self) -> None: ...

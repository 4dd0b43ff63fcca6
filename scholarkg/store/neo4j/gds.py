"""The GDS catalogue of a Neo4j store: projections, PageRank in the server, resident graphs.

Why its own module: ``Neo4jStore`` is the store (queries, writes, schema, search, the explorer);
what the Graph Data Science plugin adds is a catalogue of in-memory graphs and the algorithms
run on them, which only the graph algorithms (``graphalgo/``, ``services/graph_embeddings``)
and the store's own whole-graph PageRank use. ``Neo4jStore.gds`` is the one
:class:`Neo4jGds` of a store whose server has the plugin (``None`` otherwise); the
``GdsCatalog`` protocol (``store/base.py``) is what callers see of it.

Every call gives GDS its thread count explicitly (:attr:`Neo4jGds.concurrency`); top-``k``
reads sort in the server so only ``k`` rows cross Bolt (:class:`~scholarkg.store.base.ServerTop`).
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from scholarkg.errors import ConfigError, CypherError, InputError, NotSupported, StoreError
from scholarkg.schema.ddl import check_property
from scholarkg.store.base import PageRankConfig, PageRankResult, ServerTop
from scholarkg.store.neo4j import dialect

log = logging.getLogger(__name__)

_NO_SOURCE_BIAS = (
    "this GDS version takes personalized PageRank source nodes without biases only (all biases 1)"
)


def has_source_bias(config: PageRankConfig) -> bool:
    """Whether personalized PageRank weights its source nodes (any bias other than 1)."""
    return bool(config.source_nodes) and any(
        float(v) != 1.0 for v in (config.source_nodes or {}).values()
    )


_MEMORY = re.compile(r"([\d.]+)\s*(Bytes|KiB|MiB|GiB|TiB)")
_UNITS = {"Bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}


def memory_bytes(text: str) -> int:
    """GDS's human memory figure (``"230 MiB"``, ``"[314 MiB ... 677 MiB]"``) in bytes, the
    upper end of a range (the ``mapView`` components carry only this text)."""
    found = _MEMORY.findall(text)
    if not found:
        raise StoreError(f"unreadable GDS memory figure {text!r}")
    number, unit = found[-1]
    return int(float(number) * _UNITS[unit])


def _server_millis(summary: Any) -> float:
    """Server time of one query: until the first record, plus until the last was consumed."""
    return float((summary.result_available_after or 0) + (summary.result_consumed_after or 0))


class Connection(Protocol):
    """What the catalogue needs of its store (``Neo4jStore`` is one): its queries, run on
    the store's driver and database, and its write fingerprint."""

    def _execute(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        read: bool = False,
        transform: Callable[[Any], Any] | None = None,
    ) -> Any: ...

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]: ...

    def write_fingerprint(self) -> str: ...


class Neo4jGds:
    """The GDS catalogue of one Neo4j store (the ``GdsCatalog`` protocol): it runs its
    procedures through the store's connection, and keeps what it learned of the server
    (its thread count, whether PageRank's sources may carry biases)."""

    def __init__(self, store: Connection) -> None:
        self._store = store
        #: whether GDS takes [node, bias] source pairs (None: not tried yet)
        self._source_bias: bool | None = None
        self._concurrency: int | None = None

    @property
    def source_bias_refused(self) -> bool:
        """This GDS was found to take source nodes without biases only."""
        return self._source_bias is False

    def write_fingerprint(self) -> str:
        """The store's write fingerprint: whether a resident graph is still the data's."""
        return self._store.write_fingerprint()

    def _check_sources(
        self, label: str, config: PageRankConfig, node_ids: Sequence[str] | None
    ) -> list[dict[str, Any]] | None:
        """GDS ``sourceNodes`` rows, after checking they exist (GDS would fail obscurely)."""
        if config.source_nodes is None:
            return None
        sources = [{"id": str(k), "bias": float(v)} for k, v in config.source_nodes.items()]
        wanted = [s["id"] for s in sources]
        found = {
            r["id"] for r in self._store.run(dialect.existing_ids_query(label), {"ids": wanted})
        }
        if node_ids is not None:
            found &= {str(x) for x in node_ids}
        missing = [x for x in wanted if x not in found]
        if missing:
            raise InputError(
                f"PageRank source node(s) not in the {label} graph: {missing[:5]}",
                field="source_nodes",
            )
        return sources

    # -- projections (also kept resident by graphalgo.projection) -----------------------
    def project_graph(
        self,
        name: str,
        node_label: str,
        rel_types: Sequence[str],
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
    ) -> dict[str, int]:
        """Project ``(node_label, rel_types)`` into GDS's catalogue as ``name``; isolated
        nodes are kept (they score ``1 - d``). Returns node and relationship counts."""
        ids = None if node_ids is None else list(dict.fromkeys(str(x) for x in node_ids))
        row = self._store._execute(
            dialect.pagerank_projection_query(node_label, rel_types, weight_property),
            {"ids": ids, "graph": name},
        ).records[0]
        return {"nodes": int(row["nodeCount"]), "relationships": int(row["relationshipCount"])}

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
        """PageRank (global or personalized) on the projected graph ``name``.

        ``mutate`` then read back then drop the property, so a resident projection can be
        ranked any number of times (GDS refuses to overwrite a mutated property).
        """
        sources = self._check_sources(node_label, config, node_ids)
        prop = property_name or f"pr_{uuid.uuid4().hex[:12]}"
        params: dict[str, Any] = {
            "graph": name,
            "property": prop,
            "damping_factor": float(config.damping_factor),
            "max_iterations": int(config.max_iterations),
            "tolerance": float(config.tolerance),
            "concurrency": self.concurrency,
        }
        if sources is not None:
            params["sources"] = sources
        biased = has_source_bias(config)
        if biased and self._source_bias is False:
            raise NotSupported(_NO_SOURCE_BIAS)
        try:
            stats = self._store._execute(
                dialect.pagerank_mutate_query(
                    node_label, weighted=weighted, personalized=sources is not None, biased=biased
                ),
                params,
            ).records[0]
        except CypherError as err:
            # GDS 2.13 (the line built for Neo4j 5.26) takes node lists only; [node, bias]
            # pairs came later. Callers run the same semantics on the client arrays instead.
            if biased and "sourceNodes" in str(err):
                self._source_bias = False
                raise NotSupported(_NO_SOURCE_BIAS) from None
            raise
        if biased:
            self._source_bias = True
        try:
            cols = self._store._execute(
                dialect.PAGERANK_SCORES, {"graph": name, "property": prop}
            ).records[0]
            scores = dict(zip(map(str, cols["ids"]), map(float, cols["scores"]), strict=True))
        finally:
            if property_name is None:
                try:
                    self._store._execute(
                        dialect.DROP_NODE_PROPERTY, {"graph": name, "property": prop}
                    )
                except StoreError as err:  # never mask the real error
                    log.warning("could not drop property %s of GDS graph %s: %s", prop, name, err)
        return PageRankResult(
            scores=scores,
            ran_iterations=int(stats["ranIterations"]),
            did_converge=bool(stats["didConverge"]),
            compute_millis=float(stats["computeMillis"]),
        )

    # -- resident GDS graphs (graphalgo/resident.py): only the top k crosses Bolt ---------
    #: extra rows a server-side top-k sort keeps to resolve a tie at the k-th score in the
    #: same query (personalized PageRank ties often: a paper's references share its vote)
    TOP_K_SLACK = 256

    @property
    def concurrency(self) -> int:
        """Threads every GDS call is given, set explicitly: the server's processors
        (``availableCPUs``), at most 4 unless the edition is Enterprise (Community and
        OpenGDS refuse more). ``SCHOLARKG_GDS_CONCURRENCY`` overrides it. Asked once."""
        if self._concurrency is None:
            override = os.environ.get("SCHOLARKG_GDS_CONCURRENCY", "").strip()
            if override:
                if not override.isdigit() or int(override) < 1:
                    raise ConfigError(
                        f"SCHOLARKG_GDS_CONCURRENCY must be a positive integer, not {override!r}"
                    )
                self._concurrency = int(override)
            else:
                info = {str(r["key"]): r["value"] for r in self._store.run(dialect.GDS_SYSINFO)}
                cpus = max(1, int(info.get("availableCPUs") or 1))
                enterprise = str(info.get("gdsEdition", "")).lower() == "enterprise"
                self._concurrency = cpus if enterprise else min(cpus, 4)
        return self._concurrency

    def project_native(
        self,
        name: str,
        node_label: str,
        rel_types: Sequence[str],
        *,
        node_properties: Mapping[str, Any] | None = None,
    ) -> dict[str, int]:
        """Native projection of ``(node_label, rel_types)`` as ``name``: GDS reads the store
        with ``readConcurrency`` threads, nothing crosses Bolt. ``node_properties`` maps each
        projected property to its ``defaultValue`` (the property must exist in the database).
        Returns node and relationship counts and GDS's ``projectMillis``."""
        row = self._store._execute(
            dialect.NATIVE_PROJECTION,
            {
                "graph": name,
                "nodes": dialect.native_node_projection(node_label, node_properties),
                "relationships": dialect.native_relationship_projection(rel_types),
                "concurrency": self.concurrency,
            },
        ).records[0]
        return {
            "nodes": int(row["nodeCount"]),
            "relationships": int(row["relationshipCount"]),
            "project_millis": int(row["projectMillis"]),
        }

    def resident_graphs(self, prefix: str) -> dict[str, dict[str, Any]]:
        """The GDS graphs named ``prefix…``: node and relationship counts and the node
        properties each holds (``{name: {"nodes", "relationships", "properties"}}``)."""
        rows = self._store.run(dialect.LIST_PROJECTIONS_WITH_PROPERTIES, {"prefix": prefix})
        return {
            str(r["graphName"]): {
                "nodes": int(r["nodeCount"]),
                "relationships": int(r["relationshipCount"]),
                "properties": frozenset(map(str, r["properties"])),
            }
            for r in rows
        }

    def _pagerank_params(self, graph: str, config: PageRankConfig, prop: str) -> dict[str, Any]:
        return {
            "graph": graph,
            "property": prop,
            "damping_factor": float(config.damping_factor),
            "max_iterations": int(config.max_iterations),
            "tolerance": float(config.tolerance),
            "concurrency": self.concurrency,
        }

    def pagerank_keep(self, graph: str, config: PageRankConfig, prop: str) -> dict[str, Any]:
        """Whole-graph PageRank into ``prop`` of the resident graph (kept for later reads);
        GDS's statistics and timings. GDS refuses an existing ``prop`` (caller checks)."""
        row = self._store._execute(
            dialect.PAGERANK_KEEP, self._pagerank_params(graph, config, prop)
        ).records[0]
        return dict(row.items())

    def pagerank_write(
        self, graph: str, node_label: str, config: PageRankConfig, prop: str
    ) -> dict[str, Any]:
        """``gds.pageRank.write`` (personalized with ``config.source_nodes``): every node's
        score into the database property ``prop``; GDS's statistics and timings."""
        params = self._pagerank_params(graph, config, check_property(prop))
        personalized = config.source_nodes is not None
        if personalized:
            if has_source_bias(config):
                raise NotSupported(_NO_SOURCE_BIAS)
            params["sources"] = list(dict.fromkeys(map(str, config.source_nodes or {})))
        records = self._store._execute(
            dialect.pagerank_write_query(node_label, personalized=personalized), params
        ).records
        if not records:  # a source is missing
            self._check_sources(node_label, config, None)
            raise StoreError("gds.pageRank.write returned no statistics")
        return dict(records[0].items())

    def _top_rows(self, query: str, ties_query: str, params: dict[str, Any], k: int) -> ServerTop:
        """Run a top-``k`` query (ties within :attr:`TOP_K_SLACK` nodes are resolved in it)
        and, only when a tie at the ``k``-th score is wider, its ties variant (nodes at or
        above that score, by score then id), as the embedded store orders them. Counts the
        records the driver returned."""
        first = self._store._execute(
            query, params | {"k": int(k), "slack": int(self.TOP_K_SLACK)}, read=True
        )
        rows = [(str(r["id"]), float(r["score"])) for r in first.records]
        records, millis = len(first.records), _server_millis(first.summary)
        tie = bool(first.records and first.records[0]["tie"])
        if tie:
            again = self._store._execute(
                ties_query, params | {"k": int(k), "threshold": rows[-1][1]}, read=True
            )
            rows = [(str(r["id"]), float(r["score"])) for r in again.records]
            records += len(again.records)
            millis += _server_millis(again.summary)
        rows.sort(key=lambda kv: (-kv[1], kv[0]))
        return ServerTop(rows=rows, records=records, server_millis=millis, tie_query=tie)

    def top_kept_scores(self, graph: str, prop: str, k: int) -> ServerTop:
        """The ``k`` highest values of the kept property ``prop``: sorted in the server."""
        params = {"graph": graph, "property": prop}
        return self._top_rows(dialect.TOP_KEPT_PROPERTY, dialect.TOP_KEPT_PROPERTY_TIES, params, k)

    def kept_scores(
        self, graph: str, node_label: str, prop: str, ids: Sequence[str]
    ) -> dict[str, float]:
        """The kept ``prop`` of the nodes ``ids`` (index seek per id; unknown ids absent)."""
        wanted = list(dict.fromkeys(str(x) for x in ids))
        if not wanted:
            return {}
        records = self._store._execute(
            dialect.kept_scores_query(node_label),
            {"graph": graph, "property": prop, "ids": wanted},
            read=True,
        ).records
        return {str(r["id"]): float(r["score"]) for r in records}

    def personalized_top(
        self, graph: str, node_label: str, config: PageRankConfig, k: int
    ) -> ServerTop:
        """Personalized PageRank's top ``k`` in one round trip (``gds.pageRank.stream`` with
        ``sourceNodes``); a missing source is an :class:`InputError` naming it."""
        sources = list(dict.fromkeys(str(x) for x in (config.source_nodes or {})))
        if not sources:
            raise InputError("personalized PageRank needs source nodes", field="source_nodes")
        if has_source_bias(config):
            raise NotSupported(_NO_SOURCE_BIAS)
        params = self._pagerank_params(graph, config, "")
        del params["property"]
        params["sources"] = sources
        top = self._top_rows(
            dialect.personalized_top_query(node_label),
            dialect.personalized_top_query(node_label, ties=True),
            params,
            k,
        )
        if not top.rows:  # no row at all: a source is missing (or the graph is empty)
            self._check_sources(node_label, config, None)
        return top

    def estimates(
        self,
        node_label: str,
        rel_types: Sequence[str],
        *,
        node_count: int = 0,
        relationship_count: int = 0,
        fastrp_dimension: int | None = None,
    ) -> dict[str, Any]:
        """GDS's own memory estimates (bytes) of projecting ``(node_label, rel_types)`` and of
        PageRank on it (and FastRP of ``fastrp_dimension``): the current graph (counts 0) or
        a fictitious one of that size."""
        nodes = dialect.native_node_projection(node_label)
        rels = dialect.native_relationship_projection(rel_types)
        sizes: dict[str, int] = {}
        if node_count or relationship_count:
            sizes = {"nodeCount": int(node_count), "relationshipCount": int(relationship_count)}
        proj = self._store._execute(
            dialect.PROJECTION_ESTIMATE,
            {"nodes": nodes, "relationships": rels, "config": sizes},
            read=True,
        ).records[0]
        config = {"nodeProjection": nodes, "relationshipProjection": rels} | sizes
        algo = self._store._execute(
            dialect.PAGERANK_ESTIMATE,
            {"config": config, "concurrency": self.concurrency},
            read=True,
        ).records[0]
        parts = {c["name"]: c for c in (algo["mapView"] or {}).get("components", [])}
        extra: dict[str, Any] = {}
        if fastrp_dimension is not None:
            fastrp = self._store._execute(
                dialect.FASTRP_ESTIMATE,
                {
                    "config": config,
                    "concurrency": self.concurrency,
                    "dimension": int(fastrp_dimension),
                },
                read=True,
            ).records[0]
            extra = {"fastrp_min": int(fastrp["bytesMin"]), "fastrp_max": int(fastrp["bytesMax"])}
        return extra | {
            "nodes": int(proj["nodeCount"]),
            "relationships": int(proj["relationshipCount"]),
            "projection_min": int(proj["bytesMin"]),
            "projection_max": int(proj["bytesMax"]),
            "pagerank_min": int(algo["bytesMin"]),
            "pagerank_max": int(algo["bytesMax"]),
            "pagerank_algorithm": str(parts.get("algorithm", {}).get("memoryUsage", "")),
            "pagerank_algorithm_max": memory_bytes(
                str(parts.get("algorithm", {}).get("memoryUsage", "0 Bytes"))
            ),
            "concurrency": self.concurrency,
        }

    def projected_graphs(self, prefix: str) -> list[str]:
        """Names of the GDS projections whose name starts with ``prefix``."""
        return [
            str(r["graphName"])
            for r in self._store.run(dialect.LIST_PROJECTIONS, {"prefix": prefix})
        ]

    def drop_projected(self, name: str) -> None:
        """Drop a GDS projection (no error when it is already gone)."""
        self._store._execute(dialect.DROP_PROJECTION, {"graph": name})

"""Every Neo4j-specific piece of Cypher and DDL, in one place (the Neo4j Cypher manual and
FalkorDB's Cypher documentation).

The shared openCypher (MERGE, UNWIND) lives in ``cypher_common.py``; what Neo4j 5.26 spells
differently from FalkorDB is here, mirroring ``falkordb/dialect.py`` so the two can be
compared side by side:

* DDL has names and ``IF NOT EXISTS``, so it is idempotent as text (no catalogue listing);
* unique keys are Cypher constraints (which also create the backing range index);
* full-text indexes are named, span several properties and take Lucene query syntax;
* vectors are plain ``LIST<FLOAT>`` properties; ``db.index.vector.queryNodes`` already
  returns the similarity ``(1 + cos) / 2`` that the rest of scholarkg expects;
* PageRank runs in GDS: on a native projection kept resident per graph version (scores kept
  in it, only the top ``k`` read back), or on a Cypher-aggregation projection of a subset.

Every function here returns query *text*; values are always ``$parameters``. The Neo4j
conformance test (``tests/neo4j/test_cypher_lint.py``) calls :func:`all_statements` and
lints each string with Neo4j's own parser, so a new query belongs in that list too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from scholarkg.errors import InputError, StoreError
from scholarkg.schema.ddl import (
    FulltextIndex,
    SchemaSpec,
    VectorIndex,
    check_label,
    check_property,
    check_rel_type,
    default_schema,
)
from scholarkg.store import cypher_common
from scholarkg.store.cypher_common import Statement
from scholarkg.store.vector_batches import float64_text

if TYPE_CHECKING:
    import numpy as np

DIALECT = "neo4j"

#: GDS node property that ``gds.pageRank.mutate`` writes into the in-memory projection.
PAGERANK_PROPERTY = "pagerank"

# -- names -------------------------------------------------------------------------------


def _index_name(name: str) -> str:
    """Index / constraint names are pasted into DDL, so they must be plain identifiers."""
    try:
        return check_property(name)
    except InputError as err:
        raise InputError(f"invalid index name {name!r} (letters, digits, '_' only)") from err


def constraint_name(label: str, prop: str = "id") -> str:
    return f"key_{check_label(label)}_{check_property(prop)}"


def range_index_name(label: str, prop: str) -> str:
    return f"idx_{check_label(label)}_{check_property(prop)}"


# -- DDL rendering -----------------------------------------------------------------------


def unique_constraint_ddl(label: str, prop: str = "id") -> str:
    """Uniqueness constraint; Neo4j backs it with a range index, so no separate index."""
    return (
        f"CREATE CONSTRAINT {constraint_name(label, prop)} IF NOT EXISTS "
        f"FOR (n:{label}) REQUIRE n.{prop} IS UNIQUE"
    )


def range_index_ddl(label: str, prop: str) -> str:
    return (
        f"CREATE INDEX {range_index_name(label, prop)} IF NOT EXISTS FOR (n:{label}) ON (n.{prop})"
    )


def fulltext_index_ddl(index: FulltextIndex) -> str:
    """One named Lucene index over several properties of one label."""
    check_label(index.label)
    if not index.properties:
        raise InputError(f"full-text index {index.name!r} has no properties")
    fields = ", ".join(f"n.{check_property(p)}" for p in index.properties)
    return (
        f"CREATE FULLTEXT INDEX {_index_name(index.name)} IF NOT EXISTS "
        f"FOR (n:{index.label}) ON EACH [{fields}]"
    )


def vector_index_ddl(index: VectorIndex) -> str:
    """Neo4j 5 vector index (``LIST<FLOAT>`` property); cosine is all scholarkg uses."""
    check_label(index.label)
    check_property(index.property)
    if index.similarity != "cosine":
        raise StoreError(f"vector index {index.name!r}: only cosine similarity is supported")
    dims = int(index.dimensions)
    if not 0 < dims <= 4096:
        raise StoreError(f"vector index {index.name!r}: dimensions must be in 1..4096")
    return (
        f"CREATE VECTOR INDEX {_index_name(index.name)} IF NOT EXISTS "
        f"FOR (n:{index.label}) ON (n.{index.property}) "
        f"OPTIONS {{indexConfig: {{`vector.dimensions`: {dims}, "
        "`vector.similarity_function`: 'cosine', `vector.quantization.enabled`: false}}"
    )


def schema_ddl(schema: SchemaSpec) -> list[str]:
    """All DDL for ``schema``, constraints first; each statement is idempotent.

    A lookup on a property that already has a unique key is skipped: the constraint's own
    index serves it, and a second range index on the same property would be rejected.
    """
    statements = [unique_constraint_ddl(k.label, k.property) for k in schema.keys]
    keyed = {(k.label, k.property) for k in schema.keys}
    seen: set[tuple[str, str]] = set()
    for lk in schema.lookups:
        pair = (lk.label, lk.property)
        if pair in keyed or pair in seen:
            continue
        seen.add(pair)
        statements.append(range_index_ddl(lk.label, lk.property))
    statements += [fulltext_index_ddl(ft) for ft in schema.fulltext]
    statements += [vector_index_ddl(v) for v in schema.vector]
    return statements


#: Blocks until every index is ONLINE (or raises after ``$timeout`` seconds).
AWAIT_INDEXES = "CALL db.awaitIndexes($timeout)"

#: Index states, to report FAILED ones (``awaitIndexes`` only says "not online").
SHOW_INDEXES = (
    "SHOW INDEXES YIELD name, type, state, labelsOrTypes, properties, owningConstraint "
    "WHERE type <> 'LOOKUP' "
    "RETURN name, type, state, labelsOrTypes, properties, owningConstraint"
)
SHOW_CONSTRAINTS = "SHOW CONSTRAINTS YIELD name RETURN name"
#: The server's own cap on a transaction's time, which bounds a user's (``Neo4jStore.explore``)
TRANSACTION_TIMEOUT_SETTING = (
    "SHOW SETTINGS YIELD name, value WHERE name = 'db.transaction.timeout' RETURN value"
)
#: Names come from ``SHOW``; Neo4j 5 takes them as parameters, so nothing is pasted.
DROP_CONSTRAINT = "DROP CONSTRAINT $name IF EXISTS"
DROP_INDEX = "DROP INDEX $name IF EXISTS"

#: Deletes in batches: one huge transaction would need the whole graph in heap.
#: Needs an auto-commit (implicit) transaction, not a managed one.
DELETE_ALL = "MATCH (n) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS"
#: Relationships first, 10,000 a transaction: DETACH DELETE of 10,000 nodes also deletes all
#: their relationships in that transaction, which for a citation graph's nodes (a 20,000-work
#: graph: 515k relationships) went past ``db.memory.transaction.max`` with a 2 GB heap.
DELETE_ALL_RELATIONSHIPS = "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF 10000 ROWS"

#: Optional plugins: a capability is on when its version function exists.
SHOW_PLUGIN_FUNCTIONS = (
    "SHOW FUNCTIONS YIELD name WHERE name IN ['gds.version', 'apoc.version'] RETURN name"
)
SERVER_COMPONENTS = (
    "CALL dbms.components() YIELD name, versions, edition RETURN name, versions, edition"
)

# -- counts ------------------------------------------------------------------------------

DB_LABELS = "CALL db.labels() YIELD label RETURN label"
DB_REL_TYPES = "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType"


def count_nodes_query(label: str) -> str:
    """Served from Neo4j's count store: O(1), unlike a scan over ``labels(n)``."""
    return f"MATCH (n:{check_label(label)}) RETURN count(n) AS n"


def count_relationships_query(rel_type: str) -> str:
    return f"MATCH ()-[r:{check_rel_type(rel_type)}]->() RETURN count(r) AS n"


# -- full-text ---------------------------------------------------------------------------

_WORD = re.compile(r"\w", re.UNICODE)


def lucene_phrase(term: str) -> str:
    """Quote one user token as a Lucene phrase.

    Inside double quotes only ``"`` and ``\\`` are special to Lucene's query parser, so
    quoting neutralises every operator (``+ - && || ! ( ) { } [ ] ^ ~ * ? : /``) and the
    words ``AND``/``OR``/``NOT``. The analyzer then splits the phrase exactly as it split
    the indexed text, so ``state-of-the-art`` matches the indexed words in order.
    """
    return '"' + term.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fulltext_query_text(terms: Sequence[str], *, require_all: bool = False) -> str:
    """Lucene query from user tokens: OR-ed phrases, or AND-ed with ``require_all``.

    Tokens without a word character (pure punctuation) are dropped; '' means "search
    nothing" and the caller returns no hits.
    """
    phrases = [lucene_phrase(str(t).strip()) for t in terms if _WORD.search(str(t))]
    return (" AND " if require_all else " OR ").join(phrases)


#: Full-text search by index *name* (``$index``); ``$q`` is Lucene syntax.
FULLTEXT_SEARCH = (
    "CALL db.index.fulltext.queryNodes($index, $q, {limit: $k}) YIELD node, score "
    "RETURN node, score ORDER BY score DESC LIMIT $k"
)

# -- vectors -----------------------------------------------------------------------------


def vector_value(param: str) -> str:
    """Neo4j stores a vector as a plain ``LIST<FLOAT>`` (the VECTOR type is Enterprise);
    ``set_vectors`` sends it as text (:func:`vector_param`), read back here on the server."""
    return f"[x IN split({param}, ',') | toFloat(x)]"


def vector_param(vec: np.ndarray) -> str:
    """A checked vector as ``set_vectors`` sends it: components joined by commas, each with
    17 significant digits, so ``toFloat`` on the server gives the same double. One
    string crosses Bolt instead of one PackStream float per component (the driver packs
    those in Python: most of the client's time, ``vector_batches``)."""
    return float64_text(vec)


def set_vectors_query(label: str, prop: str) -> str:
    """Vectors onto existing nodes, in this dialect's vector type (text in cypher_common)."""
    return cypher_common.set_vectors_query(label, prop, vector_value)


def vector_search_query(prop: str) -> str:
    """kNN by index name, scored exactly: ``vector.similarity.cosine`` is (1 + cos) / 2 on
    the stored floats. The index's own score is approximate (measured on the live server:
    0.89993 for an exact 0.9), and scores must equal the embedded store's."""
    check_property(prop)
    return (
        "CALL db.index.vector.queryNodes($index, $k, $v) YIELD node "
        f"RETURN node, vector.similarity.cosine(node.{prop}, $v) AS score ORDER BY score DESC"
    )


# -- snapshots and paging ----------------------------------------------------------------


def snapshot_nodes_query(label: str, *, subset: bool) -> str:
    """Node ids of ``label`` in a stable order: all of them, or those listed in ``$ids``.

    The subset form is an index seek per id (``UNWIND`` + ``{id: x}``); a
    ``$ids IS NULL OR n.id IN $ids`` filter would scan the label instead.
    """
    check_label(label)
    if subset:
        return (
            f"UNWIND $ids AS x MATCH (n:{label} {{id: x}}) RETURN DISTINCT n.id AS id ORDER BY id"
        )
    return f"MATCH (n:{label}) RETURN n.id AS id ORDER BY id"


def snapshot_all_ids_query(label: str) -> str:
    """Every node id of ``label``, sorted, as one list (see :data:`PAGERANK_SCORES` on why
    columns and not records)."""
    return f"MATCH (n:{check_label(label)}) WITH n.id AS id ORDER BY id RETURN collect(id) AS ids"


def snapshot_edge_columns_query(label: str, rel_type: str, weight_property: str | None) -> str:
    """The edges leaving the nodes listed in ``$ids`` (one page of the snapshot), as three
    columns; an index seek per id."""
    check_label(label)
    check_rel_type(rel_type)
    weight = f"coalesce(r.{check_property(weight_property)}, 1.0)" if weight_property else "1.0"
    return (
        f"UNWIND $ids AS x MATCH (a:{label} {{id: x}})-[r:{rel_type}]->(b:{label}) "
        f"RETURN collect(a.id) AS src, collect(b.id) AS dst, collect({weight}) AS weight"
    )


def snapshot_edges_query(
    label: str, rel_type: str, weight_property: str | None, *, subset: bool
) -> str:
    """Edges among the snapshot nodes; weight 1.0 when unweighted or the property is missing."""
    check_label(label)
    check_rel_type(rel_type)
    weight = f"coalesce(r.{check_property(weight_property)}, 1.0)" if weight_property else "1.0"
    if subset:
        match = (
            f"UNWIND $ids AS x MATCH (a:{label} {{id: x}})-[r:{rel_type}]->(b:{label}) "
            "WHERE b.id IN $ids "
        )
    else:
        match = f"MATCH (a:{label})-[r:{rel_type}]->(b:{label}) "
    return f"{match}RETURN a.id AS src, b.id AS dst, {weight} AS weight"


def merge_grouped_relationships_query(
    rel_type: str, start_label: str, end_label: str, *, shared_props: bool
) -> str:
    """``merge_relationships`` (no merge key) with the rows grouped by start node: ``$groups``
    a list of ``[start id, ends]``, each pair of the batch once; ``ends`` are end ids when
    every row gets ``$props`` (``shared_props``), else ``[end id, props]`` pairs.

    A start node with no ``rel_type`` relationship yet (a work the load just created, its
    references, authorships and venue all new) gets its relationships by ``CREATE``: there
    is nothing to merge with. The others ``MERGE`` as before. What the server saves: the
    ``MERGE``'s two ``Expand(Into)`` walks of both nodes' relationship chains (before and
    after locking the pair) and one index seek of the start node per relationship instead
    of one per group. ``SET a.id = a.id`` (no change stored) takes the start node's write
    lock before its degree is read, so a second writer adding edges from it at the same
    time waits, as it would behind ``MERGE``'s lock. ``written`` counts the rows that found
    both endpoints, like :func:`cypher_common.merge_relationships_query`.
    """
    check_rel_type(rel_type)
    check_label(start_label)
    check_label(end_label)
    end_id, props = ("e", "$props") if shared_props else ("e[0]", "e[1]")
    write = (
        "UNWIND ends AS e "
        f"MATCH (b:{end_label} {{id: {end_id}}}) "
        "{verb} (a)-[r:" + rel_type + "]->(b) "
        f"SET r += {props} "
        "RETURN count(r) AS n"
    )
    return (
        "UNWIND $groups AS g "
        f"MATCH (a:{start_label} {{id: g[0]}}) "
        "SET a.id = a.id "
        f"WITH a, g[1] AS ends, EXISTS {{ (a)-[:{rel_type}]->() }} AS had "
        "CALL (a, ends, had) { "
        f"WITH a, ends WHERE NOT had {write.replace('{verb}', 'CREATE')} "
        "UNION ALL "
        f"WITH a, ends WHERE had {write.replace('{verb}', 'MERGE')} "
        "} "
        "RETURN sum(n) AS written"
    )


def group_by_start(rows: Iterable[Sequence[Any]]) -> list[list[Any]] | None:
    """``[start, end, *rest]`` rows as :func:`merge_grouped_relationships_query`'s groups
    (``[start, [end, …]]`` for plain pairs, ``[start, [[end, *rest], …]]`` otherwise), in
    the order starts first appear; ``None`` when a (start, end) pair repeats (the plain
    ``MERGE`` then keeps its row-by-row meaning)."""
    groups: dict[Any, list[Any]] = {}
    seen: set[tuple[Any, Any]] = set()
    for row in rows:
        start, end = row[0], row[1]
        if (start, end) in seen:
            return None
        seen.add((start, end))
        groups.setdefault(start, []).append(end if len(row) == 2 else [end, *row[2:]])
    return [[start, ends] for start, ends in groups.items()]


def existing_ids_query(label: str) -> str:
    """Which of ``$ids`` exist as ``label`` nodes (to reject unknown PageRank sources)."""
    return f"UNWIND $ids AS x MATCH (n:{check_label(label)} {{id: x}}) RETURN DISTINCT n.id AS id"


# -- PageRank through GDS ----------------------------------------------------------------


def pagerank_projection_query(
    label: str, rel_type: str | Sequence[str], weight_property: str | None
) -> str:
    """Cypher-aggregation projection (GDS >= 2.4) that keeps isolated nodes.

    ``OPTIONAL MATCH`` yields ``t = null`` for a node without (kept) out-edges, and
    ``gds.graph.project`` then adds the source alone, so it still gets its ``1 - d``.
    With ``$ids`` the projection is the subgraph induced by those ids (``null``: all).
    Several relationship types project as one (``CITES|COMPARES_WITH``), as the embedded
    store's projections concatenate them.
    """
    check_label(label)
    types = [rel_type] if isinstance(rel_type, str) else list(rel_type)
    if not types:
        raise InputError("a projection needs at least one relationship type", field="rel_types")
    pattern = "|".join(check_rel_type(t) for t in types)
    rel_config = ""
    if weight_property:
        prop = check_property(weight_property)
        rel_config = f", {{relationshipProperties: {{weight: coalesce(r.{prop}, 1.0)}}}}"
    return (
        f"MATCH (s:{label}) WHERE $ids IS NULL OR s.id IN $ids "
        f"OPTIONAL MATCH (s)-[r:{pattern}]->(t:{label}) WHERE $ids IS NULL OR t.id IN $ids "
        f"WITH gds.graph.project($graph, s, t{rel_config}) AS g "
        "RETURN g.graphName AS graph, g.nodeCount AS nodeCount, "
        "g.relationshipCount AS relationshipCount"
    )


def pagerank_mutate_query(
    label: str, *, weighted: bool, personalized: bool, biased: bool = False
) -> str:
    """Run PageRank once, keep scores in the projection, return GDS's run statistics.

    ``mutate`` (not ``stream``) because only it and ``stats`` report ``ranIterations`` and
    ``didConverge``; reading the scores back costs one cheap ``nodeProperty.stream``.
    Personalized PageRank takes ``$sources`` = ``[{id, bias}]``: a plain node list when every
    bias is 1 (the form every GDS 2.x accepts), ``[[node, bias], ...]`` otherwise. The
    property is ``$property``: a throw-away projection uses :data:`PAGERANK_PROPERTY`, a
    resident one a fresh name per run (dropped after reading), since GDS refuses to mutate
    a property that already exists.
    """
    check_label(label)
    config = [
        "dampingFactor: $damping_factor",
        "maxIterations: $max_iterations",
        "tolerance: $tolerance",
        "mutateProperty: $property",
        "concurrency: $concurrency",
    ]
    if weighted:
        config.append("relationshipWeightProperty: 'weight'")
    head = ""
    if personalized:
        head = (
            "UNWIND $sources AS src "
            f"MATCH (s:{label} {{id: src.id}}) "
            f"WITH collect({'[s, src.bias]' if biased else 's'}) AS sourceNodes "
        )
        config.append("sourceNodes: sourceNodes")
    return (
        f"{head}CALL gds.pageRank.mutate($graph, {{{', '.join(config)}}}) "
        "YIELD ranIterations, didConverge, computeMillis "
        "RETURN ranIterations, didConverge, computeMillis"
    )


#: the scores as two columns in one record: a million records cost the Python driver ~28 s
#: to decode, the same values as two lists 4 s (timed once by hand on the 1M-node graph of
#: bench_neo4j.py --parts bulk, whose warm GDS PageRank fell from 37.6 s to 14.3 s)
PAGERANK_SCORES = (
    "CALL gds.graph.nodeProperty.stream($graph, $property) "
    "YIELD nodeId, propertyValue "
    "RETURN collect(gds.util.asNode(nodeId).id) AS ids, collect(propertyValue) AS scores"
)
DROP_NODE_PROPERTY = (
    "CALL gds.graph.nodeProperties.drop($graph, [$property]) "
    "YIELD propertiesRemoved RETURN propertiesRemoved"
)
DROP_PROJECTION = "CALL gds.graph.drop($graph, false) YIELD graphName RETURN graphName"
#: resident projections by name prefix (``graphalgo.projection`` keeps one per key)
LIST_PROJECTIONS = (
    "CALL gds.graph.list() YIELD graphName "
    "WITH graphName WHERE graphName STARTS WITH $prefix RETURN graphName ORDER BY graphName"
)

# -- resident GDS graphs: native projection, kept scores, top k in the server ----------------

#: The machine GDS runs on: its processors (``availableCPUs``) and edition, from which the
#: store sets ``concurrency`` (Community and OpenGDS refuse more than 4).
GDS_SYSINFO = (
    "CALL gds.debug.sysInfo() YIELD key, value "
    "WITH key, value WHERE key IN ['availableCPUs', 'gdsEdition'] RETURN key, value"
)

#: Native projection (GDS reads the store files directly, ``readConcurrency`` threads): the
#: node and relationship projections are parameter maps built from whitelisted names by
#: :func:`native_node_projection` / :func:`native_relationship_projection`.
NATIVE_PROJECTION = (
    "CALL gds.graph.project($graph, $nodes, $relationships, {readConcurrency: $concurrency}) "
    "YIELD graphName, nodeCount, relationshipCount, projectMillis "
    "RETURN graphName, nodeCount, relationshipCount, projectMillis"
)


def native_node_projection(
    label: str, properties: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``{label: {label, properties: {p: {property, defaultValue}}}}`` for ``gds.graph.project``.

    Every property needs a ``defaultValue`` (the nodes without it get that value) and must
    exist somewhere in the database: GDS refuses a property key it has never seen.
    """
    check_label(label)
    props = {
        check_property(name): {"property": name, "defaultValue": default}
        for name, default in (properties or {}).items()
    }
    return {label: {"label": label, "properties": props}}


def native_relationship_projection(rel_types: Sequence[str]) -> dict[str, Any]:
    """One NATURAL projection per type; algorithms run on their union (``'*'``)."""
    if not rel_types:
        raise InputError("a projection needs at least one relationship type", field="rel_types")
    return {check_rel_type(t): {"type": t, "orientation": "NATURAL"} for t in rel_types}


#: scholarkg's resident graphs with their node properties (``keys`` of the schema per label),
#: so a caller knows whether a kept score already exists without computing it again
LIST_PROJECTIONS_WITH_PROPERTIES = (
    "CALL gds.graph.list() YIELD graphName, nodeCount, relationshipCount, schemaWithOrientation "
    "WITH graphName, nodeCount, relationshipCount, schemaWithOrientation "
    "WHERE graphName STARTS WITH $prefix "
    "RETURN graphName, nodeCount, relationshipCount, "
    "reduce(acc = [], l IN keys(schemaWithOrientation.nodes) | "
    "acc + keys(schemaWithOrientation.nodes[l])) AS properties ORDER BY graphName"
)

#: whole-graph PageRank once, into a property kept in the resident graph, with GDS's
#: own timings (``preProcessingMillis`` etc.) for ``graph pagerank --verbose``
PAGERANK_KEEP = (
    "CALL gds.pageRank.mutate($graph, {dampingFactor: $damping_factor, "
    "maxIterations: $max_iterations, tolerance: $tolerance, mutateProperty: $property, "
    "concurrency: $concurrency}) "
    "YIELD ranIterations, didConverge, preProcessingMillis, computeMillis, "
    "postProcessingMillis, mutateMillis "
    "RETURN ranIterations, didConverge, preProcessingMillis, computeMillis, "
    "postProcessingMillis, mutateMillis"
)


def pagerank_write_query(label: str, *, personalized: bool) -> str:
    """``graph pagerank --write``: the same PageRank (personalized from ``$sources`` ids),
    every score written to the database's nodes by ``gds.pageRank.write``."""
    check_label(label)
    head, sources = "", ""
    if personalized:
        head = (
            f"UNWIND $sources AS sid MATCH (s:{label} {{id: sid}}) "
            "WITH collect(s) AS sourceNodes WHERE size(sourceNodes) = size($sources) "
        )
        sources = "sourceNodes: sourceNodes, "
    return (
        f"{head}CALL gds.pageRank.write($graph, {{{sources}dampingFactor: $damping_factor, "
        "maxIterations: $max_iterations, tolerance: $tolerance, writeProperty: $property, "
        "concurrency: $concurrency, writeConcurrency: $concurrency}) "
        "YIELD nodePropertiesWritten, ranIterations, didConverge, preProcessingMillis, "
        "computeMillis, postProcessingMillis, writeMillis "
        "RETURN nodePropertiesWritten, ranIterations, didConverge, preProcessingMillis, "
        "computeMillis, postProcessingMillis, writeMillis"
    )


#: The ``$k`` best of a stream of ``nodeId, score`` rows, sorted in the server, in the
#: embedded store's order (score, then id). A heap of ``$k + $slack`` rows by score holds any
#: tie at the ``$k``-th score that is at most ``$slack`` nodes wide; only the rows at or
#: above that score are turned into ids and ordered by (score, id), and ``$k`` of them
#: cross the wire. ``tie`` (on every row) says the tie was wider than the heap: the caller
#: then runs the ``…_TIES`` variant.
_TOP_K_TAIL = (
    "WITH nodeId, score ORDER BY score DESC LIMIT $k + $slack "
    "WITH collect({node: nodeId, score: score}) AS top "
    "WITH top, top[$k - 1].score AS threshold "
    "WITH top, threshold, size(top) = $k + $slack AND top[-1].score = threshold AS tie "
    "UNWIND top AS row "
    "WITH row, threshold, tie WHERE threshold IS NULL OR row.score >= threshold "
    "WITH gds.util.asNode(row.node).id AS id, row.score AS score, tie "
    "RETURN id, score, tie ORDER BY score DESC, id ASC LIMIT $k"
)

#: The top ``$k`` of a kept score (see :data:`_TOP_K_TAIL`).
TOP_KEPT_PROPERTY = (
    "CALL gds.graph.nodeProperty.stream($graph, $property) YIELD nodeId, propertyValue "
    "WITH nodeId, propertyValue AS score " + _TOP_K_TAIL
)

#: Ties at the ``$k``-th score: every node scoring at least ``$threshold``, ordered by
#: score then id (the embedded store's order), ``$k`` of them.
TOP_KEPT_PROPERTY_TIES = (
    "CALL gds.graph.nodeProperty.stream($graph, $property) YIELD nodeId, propertyValue "
    "WITH nodeId, propertyValue WHERE propertyValue >= $threshold "
    "WITH gds.util.asNode(nodeId).id AS id, propertyValue AS score "
    "RETURN id, score ORDER BY score DESC, id ASC LIMIT $k"
)


def kept_scores_query(label: str) -> str:
    """The kept score of each node in ``$ids``: an index seek per id (the id constraint),
    then GDS's in-memory value; unknown ids are left out."""
    return (
        f"UNWIND $ids AS x MATCH (n:{check_label(label)} {{id: x}}) "
        "RETURN n.id AS id, gds.util.nodeProperty($graph, n, $property) AS score"
    )


def personalized_top_query(label: str, *, ties: bool = False) -> str:
    """Personalized PageRank top ``$k`` in one round trip: the sources by index seek (no row
    at all when one is missing: the caller names it, never runs a global PageRank instead),
    ``gds.pageRank.stream`` and the sort in the server. ``ties=True``: the variant for a tie
    at the ``$k``-th score (see :data:`TOP_KEPT_PROPERTY_TIES`)."""
    check_label(label)
    head = (
        f"UNWIND $sources AS sid MATCH (s:{label} {{id: sid}}) "
        "WITH collect(s) AS sourceNodes WHERE size(sourceNodes) = size($sources) "
        "CALL gds.pageRank.stream($graph, {sourceNodes: sourceNodes, "
        "dampingFactor: $damping_factor, maxIterations: $max_iterations, "
        "tolerance: $tolerance, concurrency: $concurrency}) YIELD nodeId, score "
    )
    if ties:
        return (
            head + "WITH nodeId, score WHERE score >= $threshold "
            "WITH gds.util.asNode(nodeId).id AS id, score "
            "RETURN id, score ORDER BY score DESC, id ASC LIMIT $k"
        )
    return head + _TOP_K_TAIL


# -- memory estimates (GDS's own, ``graph pagerank --estimate`` and bench_gds_capacity.py) --

#: projecting the graph; ``$config`` = ``{}`` for the current one (GDS counts the database)
#: or ``{nodeCount, relationshipCount}`` for a fictitious one of that size
PROJECTION_ESTIMATE = (
    "CALL gds.graph.project.estimate($nodes, $relationships, $config) "
    "YIELD bytesMin, bytesMax, nodeCount, relationshipCount "
    "RETURN bytesMin, bytesMax, nodeCount, relationshipCount"
)
#: PageRank on that projection (graph + algorithm; ``mapView`` splits them); ``$config`` is
#: the projection (``nodeProjection``, ``relationshipProjection``, optional counts)
PAGERANK_ESTIMATE = (
    "CALL gds.pageRank.mutate.estimate($config, {mutateProperty: 'pagerank', "
    "concurrency: $concurrency}) "
    "YIELD bytesMin, bytesMax, nodeCount, relationshipCount, mapView "
    "RETURN bytesMin, bytesMax, nodeCount, relationshipCount, mapView"
)
#: FastRP on that projection (the hook ``graph embed --estimate`` and the capacity table use)
FASTRP_ESTIMATE = (
    "CALL gds.fastRP.mutate.estimate($config, {mutateProperty: 'fastrp', "
    "embeddingDimension: $dimension, concurrency: $concurrency}) "
    "YIELD bytesMin, bytesMax RETURN bytesMin, bytesMax"
)


# -- change detection (resident projections) ----------------------------------------------

#: The state that moves on every committed write: Neo4j transaction ids only grow, and the
#: start time and creation time tell a restarted or re-created database apart. Run against
#: the ``system`` database (an administration command); ``$name`` = the database. In a
#: cluster every server hosting the database answers with its own row: only the writer's
#: counts (a lagging secondary would report an older transaction as current).
DATABASE_WRITE_STATE = (
    "SHOW DATABASES YIELD name, writer, currentStatus, lastCommittedTxn, lastStartTime, "
    "creationTime "
    "WHERE name = $name AND writer AND currentStatus = 'online' "
    "RETURN lastCommittedTxn, toString(lastStartTime) AS started, "
    "toString(creationTime) AS created"
)
#: The database a session without ``database_`` uses: the user's *home* database (which
#: may differ from the server's default one).
HOME_DATABASE = "SHOW HOME DATABASE YIELD name RETURN name"
#: The databases a store may be opened on (``system`` holds the DBMS's own records); one row
#: per name, as a cluster lists a database once per server that hosts it.
USER_DATABASES = (
    "SHOW DATABASES YIELD name, type WHERE type <> 'system' RETURN DISTINCT name ORDER BY name"
)
#: Community leaves ``lastCommittedTxn`` empty; the managed server's launcher adds this
#: procedure (neo4j-launcher/.../procedures/TransactionState.java) reading the same counter.
LAST_COMMITTED_TX = "CALL scholarkg.lastCommittedTxId() YIELD txId RETURN txId"
SHOW_SCHOLARKG_PROCEDURES = (
    "SHOW PROCEDURES YIELD name WHERE name = 'scholarkg.lastCommittedTxId' RETURN name"
)

# -- the full list, for the conformance lint ---------------------------------------------


_ROWS: list[dict[str, Any]] = [{"id": "p1", "props": {"title": "t"}}]
_REL_ROWS: list[dict[str, Any]] = [{"start": "p1", "end": "p2", "props": {}}]
_PR_PARAMS: dict[str, Any] = {
    "graph": "scholarkg_pr",
    "property": PAGERANK_PROPERTY,
    "damping_factor": 0.85,
    "max_iterations": 20,
    "tolerance": 1e-7,
    "concurrency": 2,
}


def all_statements(
    schema: SchemaSpec | None = None,
    *,
    vector_indexes: Iterable[VectorIndex] = (VectorIndex("paper_vec", "Paper", "embedding", 384),),
) -> list[Statement]:
    """Every statement text this module renders, with parameters (for the Neo4j lint)."""
    out: list[Statement] = []
    out += [
        Statement(f"ddl[{i}]", text)
        for i, text in enumerate(schema_ddl(schema or default_schema()))
    ]
    out += [Statement(f"vector_ddl[{v.name}]", vector_index_ddl(v)) for v in vector_indexes]
    out += [
        Statement("await_indexes", AWAIT_INDEXES, {"timeout": 300}),
        Statement("show_indexes", SHOW_INDEXES),
        Statement("show_constraints", SHOW_CONSTRAINTS),
        Statement("transaction_timeout_setting", TRANSACTION_TIMEOUT_SETTING),
        Statement("drop_constraint", DROP_CONSTRAINT, {"name": "key_Paper_id"}),
        Statement("drop_index", DROP_INDEX, {"name": "idx_Paper_year"}),
        Statement("delete_all", DELETE_ALL),
        Statement("delete_all_relationships", DELETE_ALL_RELATIONSHIPS),
        Statement("show_plugin_functions", SHOW_PLUGIN_FUNCTIONS),
        Statement("server_components", SERVER_COMPONENTS),
        Statement("db_labels", DB_LABELS),
        Statement("db_rel_types", DB_REL_TYPES),
        Statement("fulltext_search", FULLTEXT_SEARCH, {"index": "paper_text", "q": '"x"', "k": 5}),
        Statement(
            "vector_search",
            vector_search_query("embedding"),
            {"index": "paper_vec", "k": 5, "v": [0.1]},
        ),
        Statement("pagerank_scores", PAGERANK_SCORES, {"graph": "g", "property": "pr"}),
        Statement("drop_node_property", DROP_NODE_PROPERTY, {"graph": "g", "property": "pr"}),
        Statement("drop_projection", DROP_PROJECTION, {"graph": "scholarkg_pr"}),
        Statement("list_projections", LIST_PROJECTIONS, {"prefix": "scholarkg_"}),
        Statement("database_write_state", DATABASE_WRITE_STATE, {"name": "neo4j"}),
        Statement("home_database", HOME_DATABASE),
        Statement("user_databases", USER_DATABASES),
        Statement("show_scholarkg_procedures", SHOW_SCHOLARKG_PROCEDURES),
    ]
    out += [
        Statement(
            "merge_grouped_pairs",
            merge_grouped_relationships_query("CITES", "Paper", "Paper", shared_props=True),
            {"groups": [["p1", ["p2", "p3"]]], "props": {"from_openalex": True}},
        ),
        Statement(
            "merge_grouped_rows",
            merge_grouped_relationships_query("AUTHORED_BY", "Paper", "Author", shared_props=False),
            {"groups": [["p1", [["a1", {"position": 1}]]]]},
        ),
    ]
    out += [Statement(f"count_nodes[{lb}]", count_nodes_query(lb)) for lb in ("Paper", "Author")]
    out.append(Statement("count_rels[CITES]", count_relationships_query("CITES")))
    out.append(Statement("merge_nodes", cypher_common.merge_nodes_query("Paper"), {"rows": _ROWS}))
    out.append(
        Statement(
            "merge_relationships",
            cypher_common.merge_relationships_query("CITES", "Paper", "Paper"),
            {"rows": _REL_ROWS},
        )
    )
    out.append(
        Statement(
            "merge_relationships_keyed",
            cypher_common.merge_relationships_query("JUDGED", "Aspect", "Paper", ("key",)),
            {"rows": [{"start": "a1", "end": "p1", "key": {"key": "gpt:0"}, "props": {}}]},
        )
    )
    out.append(
        Statement(
            "set_vectors",
            set_vectors_query("Paper", "embedding"),
            {"rows": [{"id": "p1", "v": [0.1, 0.2], "extra": {}}]},
        )
    )
    ids: dict[str, Any] = {"ids": ["p1", "p2"]}
    out.append(Statement("existing_ids", existing_ids_query("Paper"), ids))
    out.append(Statement("snapshot_all_ids", snapshot_all_ids_query("Paper")))
    for weight in (None, "weight"):
        out.append(
            Statement(
                f"snapshot_edge_columns[{weight}]",
                snapshot_edge_columns_query("Paper", "CITES", weight),
                ids,
            )
        )
    for subset in (False, True):
        params = ids if subset else {}
        out.append(
            Statement(
                f"snapshot_nodes[subset={subset}]",
                snapshot_nodes_query("Paper", subset=subset),
                params,
            )
        )
        for weight in (None, "weight"):
            out.append(
                Statement(
                    f"snapshot_edges[{weight},subset={subset}]",
                    snapshot_edges_query("Paper", "CITES", weight, subset=subset),
                    params,
                )
            )
    for weight in (None, "weight"):
        out.append(
            Statement(
                f"pagerank_projection[{weight}]",
                pagerank_projection_query("Paper", "CITES", weight),
                ids | {"graph": "scholarkg_pr"},
            )
        )
    out.append(
        Statement(
            "pagerank_projection[CITES|COMPARES_WITH]",
            pagerank_projection_query("Paper", ("CITES", "COMPARES_WITH"), None),
            {"ids": None, "graph": "scholarkg_pr"},
        )
    )
    nodes = native_node_projection("Paper")
    rels = native_relationship_projection(("CITES", "COMPARES_WITH"))
    top: dict[str, Any] = {"graph": "g", "property": "pr", "k": 10}
    ppr = {k: v for k, v in _PR_PARAMS.items() if k != "property"}
    ppr |= {"sources": ["p1"], "k": 10}
    sizes = {"nodeCount": 10_000_000, "relationshipCount": 200_000_000}
    out += [
        Statement("gds_sysinfo", GDS_SYSINFO),
        Statement(
            "native_projection",
            NATIVE_PROJECTION,
            {"graph": "g", "nodes": nodes, "relationships": rels, "concurrency": 2},
        ),
        Statement(
            "list_projections_with_properties",
            LIST_PROJECTIONS_WITH_PROPERTIES,
            {"prefix": "scholarkg_"},
        ),
        Statement("pagerank_keep", PAGERANK_KEEP, _PR_PARAMS),
        Statement("pagerank_write", pagerank_write_query("Paper", personalized=False), _PR_PARAMS),
        Statement(
            "pagerank_write[personalized]",
            pagerank_write_query("Paper", personalized=True),
            _PR_PARAMS | {"sources": ["p1"]},
        ),
        Statement("top_kept_property", TOP_KEPT_PROPERTY, top | {"slack": 256}),
        Statement("top_kept_property_ties", TOP_KEPT_PROPERTY_TIES, top | {"threshold": 0.1}),
        Statement(
            "kept_scores", kept_scores_query("Paper"), {"graph": "g", "property": "pr"} | ids
        ),
        Statement("personalized_top", personalized_top_query("Paper"), ppr | {"slack": 256}),
        Statement(
            "personalized_top_ties",
            personalized_top_query("Paper", ties=True),
            ppr | {"threshold": 0.1},
        ),
        Statement(
            "projection_estimate",
            PROJECTION_ESTIMATE,
            {"nodes": nodes, "relationships": rels, "config": sizes},
        ),
        Statement(
            "fastrp_estimate",
            FASTRP_ESTIMATE,
            {
                "config": {"nodeProjection": nodes, "relationshipProjection": rels} | sizes,
                "concurrency": 2,
                "dimension": 256,
            },
        ),
        Statement(
            "pagerank_estimate",
            PAGERANK_ESTIMATE,
            {
                "config": {"nodeProjection": nodes, "relationshipProjection": rels} | sizes,
                "concurrency": 2,
            },
        ),
    ]
    for weighted in (False, True):
        for personalized, biased in ((False, False), (True, False), (True, True)):
            params = dict(_PR_PARAMS)
            if personalized:
                params["sources"] = [{"id": "p1", "bias": 1.0}]
            out.append(
                Statement(
                    f"pagerank_mutate[weighted={weighted},personalized={personalized},"
                    f"biased={biased}]",
                    pagerank_mutate_query(
                        "Paper", weighted=weighted, personalized=personalized, biased=biased
                    ),
                    params,
                )
            )
    return out


# -- explorer ----------------------------------------------------------------------------

#: A node by element id and up to ``$limit`` relationships around it (``scholarkg explore``);
#: OPTIONAL so a node without neighbours still comes back.
EXPLORE_NEIGHBOURS = (
    "MATCH (n) WHERE elementId(n) = $ref OPTIONAL MATCH (n)-[r]-(m) RETURN n, r, m LIMIT $limit"
)
#: Nodes by element id as their labels and application id (``explore_node_keys``): one seek
#: per id, and no property but ``id`` sent back (a node's text can be large).
EXPLORE_NODE_KEYS = (
    "UNWIND $refs AS ref MATCH (n) WHERE elementId(n) = ref "
    "RETURN elementId(n) AS ref, labels(n) AS labels, n.id AS id"
)

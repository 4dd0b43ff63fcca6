"""Every FalkorDB-specific piece of Cypher and DDL, in one place (the Neo4j Cypher manual and
FalkorDB's Cypher documentation).

The shared openCypher (MERGE, UNWIND, map projection) lives in ``cypher_common.py``; what
FalkorDB spells differently from Neo4j is here, so ``falkordb/store.py`` reads like the
Neo4j store and a reviewer can compare the two dialects side by side:

* no ``IF NOT EXISTS`` and no index names: indexes are created after listing
  ``CALL db.indexes()`` (re-creating one is an error);
* unique keys are a Redis command (``GRAPH.CONSTRAINT CREATE``), not Cypher, and need the
  range index first;
* full-text indexes are keyed by *label* and queried in RediSearch syntax;
* vectors are written with ``vecf32()`` and searched by label + property; the procedure
  returns cosine *distance*, which we turn into Neo4j's ``(1 + cos) / 2`` similarity;
* full-text and vector indexes build asynchronously: poll until 'OPERATIONAL'.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scholarkg.errors import CypherError, InputError, StoreError
from scholarkg.schema.ddl import (
    FulltextIndex,
    SchemaSpec,
    VectorIndex,
    check_label,
    check_property,
    check_rel_type,
    node_labels,
)
from scholarkg.store.vector_batches import float32_text

if TYPE_CHECKING:
    import numpy as np
    from falkordb import Graph

log = logging.getLogger(__name__)

DIALECT = "falkordb"

# -- index catalogue ---------------------------------------------------------------------


@dataclass(frozen=True)
class IndexInfo:
    """One row of ``CALL db.indexes()``: a label and, per property, its index types."""

    label: str
    entity_type: str
    status: str
    types: dict[str, frozenset[str]]


def list_indexes(graph: Graph) -> list[IndexInfo]:
    """``CALL db.indexes()`` as dataclasses (``SHOW INDEXES`` is a syntax error here)."""
    res = graph.query(
        "CALL db.indexes() YIELD label, types, entitytype, status "
        "RETURN label, types, entitytype, status"
    )
    out = []
    for label, types, entity_type, status in res.result_set:
        out.append(
            IndexInfo(
                label=str(label),
                entity_type=str(entity_type),
                status=str(status),
                types={str(p): frozenset(str(t) for t in ts) for p, ts in dict(types).items()},
            )
        )
    return out


def has_index(indexes: Iterable[IndexInfo], label: str, prop: str, kind: str) -> bool:
    """Whether ``label.prop`` already has an index of ``kind`` (RANGE, FULLTEXT, VECTOR)."""
    return any(
        i.entity_type == "NODE" and i.label == label and kind in i.types.get(prop, ())
        for i in indexes
    )


def list_constraints(graph: Graph) -> list[tuple[str, str, tuple[str, ...], str]]:
    """``(type, label, properties, status)`` for every node constraint."""
    rows = graph.query("CALL db.constraints()").result_set
    return [(str(r[0]), str(r[1]), tuple(str(p) for p in r[2]), str(r[4])) for r in rows]


# -- DDL rendering -----------------------------------------------------------------------


def range_index_ddl(label: str, *props: str) -> str:
    """``CREATE INDEX FOR (n:L) ON (n.p, n.q, …)`` (no name, no IF NOT EXISTS in FalkorDB).

    Several properties go into one statement because FalkorDB keeps a label's range fields
    in one index and repopulates all of it for each property added one at a time (measured
    once on 200k Papers: the twelfth single-property index cost three times the first)."""
    if not props:
        raise ValueError("a range index needs at least one property")
    check_label(label)
    fields = ", ".join(f"n.{check_property(p)}" for p in props)
    return f"CREATE INDEX FOR (n:{label}) ON ({fields})"


def drop_unique_constraint_command(graph_name: str, label: str, prop: str) -> list[Any]:
    """Redis command args dropping a unique constraint (a Redis command, not Cypher); the
    range index under it stays (:func:`plan_schema` says why scholarkg drops them)."""
    check_label(label)
    check_property(prop)
    return [
        "GRAPH.CONSTRAINT",
        "DROP",
        graph_name,
        "UNIQUE",
        "NODE",
        label,
        "PROPERTIES",
        1,
        prop,
    ]


def fulltext_index_ddl(label: str, props: Sequence[str]) -> str:
    """``CALL db.idx.fulltext.createNodeIndex('L', 'p1', ...)``: one index per label.

    Calling it again with new fields adds them to the label's index.
    """
    check_label(label)
    fields = ", ".join(f"'{check_property(p)}'" for p in props)
    return f"CALL db.idx.fulltext.createNodeIndex('{label}', {fields})"


#: HNSW ``efConstruction`` of the vector indexes scholarkg creates (FalkorDB's default: 200).
#: Building the index is what a vector write costs the server (~80 % of it); 64 makes that
#: 1.7-2.4x cheaper, and kNN with the over-fetch of ``VECTOR_MIN_FETCH`` (100) finds the
#: same exact top 10 on clustered embeddings (``benchmarks/bench_vectors.py --recall``;
#: docs/performance.md, "Vector writes"; docs/decisions.md).
VECTOR_EF_CONSTRUCTION = 64


def vector_index_ddl(index: VectorIndex) -> str:
    """FalkorDB's vector index DDL, on the vector nodes' label (:func:`vector_label`); cosine
    is the only similarity scholarkg uses (HNSW ``M`` and ``efRuntime`` are FalkorDB's
    defaults, ``efConstruction`` is ours)."""
    check_label(index.label)
    check_property(index.property)
    if index.similarity != "cosine":
        raise StoreError(f"vector index {index.name!r}: only cosine similarity is supported")
    if not 0 < int(index.dimensions) <= 4096:
        raise StoreError(f"vector index {index.name!r}: dimensions must be in 1..4096")
    return (
        f"CREATE VECTOR INDEX FOR (n:{vector_label(index.label, index.property)}) "
        f"ON (n.{index.property}) "
        f"OPTIONS {{dimension: {int(index.dimensions)}, similarityFunction: 'cosine', "
        f"efConstruction: {VECTOR_EF_CONSTRUCTION}}}"
    )


@dataclass(frozen=True)
class DDLStep:
    """One thing ``apply_schema`` may create; ``kind`` is range, unique, fulltext or vector."""

    kind: str
    label: str
    properties: tuple[str, ...]

    def describe(self) -> str:
        on = f":{self.label}({', '.join(self.properties)})"
        if self.kind == "drop-unique":
            return f"unique constraint on {on} dropped (FalkorDB's check crashed the server)"
        return f"{self.kind} index on {on}"


def plan_schema(
    schema: SchemaSpec,
    indexes: Sequence[IndexInfo],
    constraints: Sequence[tuple[str, str, tuple[str, ...], str]],
) -> list[DDLStep]:
    """The DDL steps still missing for ``schema``; empty when it is fully applied."""
    steps: list[DDLStep] = []
    seen_range: set[tuple[str, str]] = set()
    unique = {(c[1], c[2]) for c in constraints if c[0] == "UNIQUE"}
    for key in schema.keys:
        if not has_index(indexes, key.label, key.property, "RANGE"):
            steps.append(DDLStep("range", key.label, (key.property,)))
        seen_range.add((key.label, key.property))
        # a key is an exact-match index, not a unique constraint: FalkorDB 4.x's constraint
        # check crashes the server on a key with surrounding whitespace, an empty one or one
        # over 4,096 bytes (a user's own `SET p.id = ''` took it down), and its creation is
        # logged twice, the second failing on replay. Keys stay unique because every
        # scholarkg write MERGEs on them (FalkorDB runs writes one at a time) and a user's
        # write that makes two nodes share one is reported (FalkorDBStore.explore). A
        # store made before this keeps its constraint until the schema is applied again.
        if (key.label, (key.property,)) in unique:
            steps.append(DDLStep("drop-unique", key.label, (key.property,)))
    for lk in schema.lookups:
        if (lk.label, lk.property) in seen_range:
            continue
        seen_range.add((lk.label, lk.property))
        if not has_index(indexes, lk.label, lk.property, "RANGE"):
            steps.append(DDLStep("range", lk.label, (lk.property,)))
    for ft in _merge_fulltext(schema.fulltext):
        missing = tuple(p for p in ft.properties if not has_index(indexes, ft.label, p, "FULLTEXT"))
        if missing:
            steps.append(DDLStep("fulltext", ft.label, missing))
    for vec in schema.vector:
        if not has_index(indexes, vector_label(vec.label, vec.property), vec.property, "VECTOR"):
            steps.append(DDLStep("vector", vec.label, (vec.property,)))
    return steps


def _merge_fulltext(indexes: Sequence[FulltextIndex]) -> list[FulltextIndex]:
    """FalkorDB has one full-text index per label: merge logical indexes on the same label."""
    by_label: dict[str, list[str]] = {}
    for ft in indexes:
        props = by_label.setdefault(ft.label, [])
        props.extend(p for p in ft.properties if p not in props)
    return [FulltextIndex(label, label, tuple(props)) for label, props in by_label.items()]


def await_indexes(
    graph: Graph, timeout: float = 300.0, poll: float = 0.05, *, constraints_only: bool = False
) -> None:
    """Block until every index and constraint is OPERATIONAL (queries see 0 rows before).

    ``constraints_only``: the constraints alone (the bulk loader must have them enforced
    before its AOF rewrite forks, while the full-text index may still be populating)."""
    deadline = time.monotonic() + timeout
    while True:
        indexes = [] if constraints_only else list_indexes(graph)
        pending = [i.label for i in indexes if i.status != "OPERATIONAL"]
        failed = []
        for ctype, label, props, status in list_constraints(graph):
            if status == "FAILED":
                failed.append(f"{ctype} :{label}({', '.join(props)})")
            elif status != "OPERATIONAL":
                pending.append(label)
        if failed:
            raise StoreError(
                f"graph {graph.name!r}: constraint creation failed for {', '.join(failed)} "
                "(duplicate values in the existing data?)"
            )
        if not pending:
            return
        if time.monotonic() > deadline:
            raise StoreError(
                f"graph {graph.name!r}: indexes still building after {timeout:.0f} s "
                f"on {', '.join(sorted(set(pending)))}"
            )
        time.sleep(poll)


# -- full-text queries -------------------------------------------------------------------

#: RediSearch's default separators: the indexer splits text on these, so a query token
#: containing them must be split the same way to match (escaping alone finds nothing).
_SEPARATORS = re.compile(r"[\s,.<>{}\[\]\"':;!@#$%^&*()\-+=~|/\\?`]+")
_NON_WORD = re.compile(r"([^\w])", re.UNICODE)


def _case_variants(piece: str) -> list[str]:
    """Spellings of a non-ASCII token that together match it whatever its case in the text.

    RediSearch folds case for ASCII letters only, in the indexer and in the query parser
    alike (FalkorDB 4.16): ``Ärzte`` is indexed as ``Ärzte`` and ``naïve`` as ``naïve``, so
    ``ärzte`` and ``NAÏVE`` find nothing, where Lucene (Neo4j) finds both. Lower-case,
    capitalised and upper-case forms cover how words are written in titles; the engine
    folds the ASCII letters of each.
    """
    if piece.isascii():
        return [piece]
    forms = (piece.lower(), piece[:1].upper() + piece[1:].lower(), piece.upper(), piece)
    return list(dict.fromkeys(forms))


def _query_piece(piece: str) -> str:
    forms = [_NON_WORD.sub(r"\\\1", form) for form in _case_variants(piece)]
    return forms[0] if len(forms) == 1 else "(" + "|".join(forms) + ")"


def fulltext_query_text(terms: Sequence[str], *, require_all: bool = False) -> str:
    """RediSearch query from user tokens; '' when no token has a searchable character.

    Each token is split on the separators the indexer used; a token that yields several
    pieces (``state-of-the-art``) becomes an AND group ``(state of the art)``. Tokens are
    OR-ed (``|``) like Lucene's default, or AND-ed (space) with ``require_all``. Anything
    left that is not a word character is backslash-escaped, so no user text can inject
    query syntax. A piece with non-ASCII letters becomes an OR of its case forms
    (:func:`_case_variants`), so matching is case-insensitive as on Neo4j.
    """
    groups: list[str] = []
    for term in terms:
        pieces = [_query_piece(p) for p in _SEPARATORS.split(str(term)) if p]
        if not pieces:
            continue
        groups.append(pieces[0] if len(pieces) == 1 else "(" + " ".join(pieces) + ")")
    if not groups:
        return ""
    return " ".join(groups) if require_all else "|".join(groups)


def fulltext_search_query() -> str:
    """Full-text search by label; ``$label``, ``$q`` and ``$k`` are parameters."""
    return (
        "CALL db.idx.fulltext.queryNodes($label, $q) YIELD node, score "
        "RETURN node, score ORDER BY score DESC LIMIT $k"
    )


# -- vectors -----------------------------------------------------------------------------


def vector_value(param: str) -> str:
    """The expression that stores a parameter as a vector property."""
    return f"vecf32({param})"


def vector_param(vec: np.ndarray) -> str:
    """The components of a checked vector as FalkorDB's parameter text (without brackets):
    ``%.9g`` of each float32 value, which ``vecf32`` reads back to that float32."""
    return float32_text(vec)


def set_vectors_query(label: str, prop: str) -> str:
    """Vectors of existing ``label`` nodes, each onto the node's vector node (created on the
    first write, rewritten after; :func:`vector_label`), with the row's extra properties
    (the content hash and model of ``embed nodes``) beside it. The ``label`` node itself is
    not written, so none of its indexes is touched.

    ``REMOVE`` first, in a clause of its own: FalkorDB (4.x) compares two ``vecf32`` of one
    length as equal whatever their components (``vecf32([1,0]) = vecf32([0,1])`` is true)
    and skips a SET to an "equal" value, so a re-embedded text kept its old vector (also
    before, when vectors were on the nodes). Consecutive SET/REMOVE clauses are folded
    into one update, hence the ``WITH`` between them."""
    vlabel = vector_label(label, prop)
    return (
        "UNWIND $rows AS row "
        f"MATCH (n:{label} {{id: row.id}}) "
        f"MERGE (v:{vlabel})-[:{VECTOR_OF}]->(n) "
        f"REMOVE v.{prop} WITH v, row "
        f"SET v.{prop} = {vector_value('row.v')} SET v += row.extra "
        "RETURN count(v) AS written"
    )


def vector_search_query(label: str, prop: str) -> str:
    """kNN by label and property: the index of the vector nodes, each hit followed to the
    node it belongs to; returns that node, the vector node's extra properties (``extra``,
    without the vector) and the cosine *distance*. A vector node whose node was deleted
    has no edge and drops out."""
    vlabel = vector_label(label, prop)
    return (
        f"CALL db.idx.vector.queryNodes('{vlabel}', '{prop}', $k, {vector_value('$v')}) "
        f"YIELD node AS vec, score MATCH (vec)-[:{VECTOR_OF}]->(node:{label}) "
        "RETURN node, properties(vec) AS extra, score AS distance"
    )


def vector_count_query(label: str, prop: str) -> str:
    """How many ``label`` nodes hold a ``prop`` vector (through their vector nodes)."""
    return f"MATCH (:{vector_label(label, prop)})-[:{VECTOR_OF}]->(n:{label}) RETURN count(n)"


# -- where vectors live --------------------------------------------------------------------
#
# FalkorDB keeps one search index per label (its range, full-text and vector fields
# together) and re-adds the whole node to it when *any* property of the node changes: a
# vector property on a Paper made every later write to that Paper (another model's vector,
# a reload, ``graph pagerank --write``) re-insert each of its vectors into HNSW and
# re-tokenise its title and abstract. So each vector lives on a node of its own, one label
# per (label, property): ``(:Vec_Paper_emb_minilm_l6 {emb_minilm_l6: vecf32, …_hash,
# …_model})-[:VECTOR_OF]->(:Paper)``. The vector index is on that label; nothing else is.
# Neo4j indexes per property and keeps vectors on the node (docs/decisions.md).

#: prefix of the vector nodes' labels: ``Vec_<Label>_<property>``
VECTOR_LABEL_PREFIX = "Vec_"
#: the relationship from a vector node to the node it belongs to
VECTOR_OF = "VECTOR_OF"


def delete_vector_nodes_query(label: str) -> str:
    """Delete the vector nodes of the ``label`` nodes in ``$ids``: deleting a node alone
    would leave its vector nodes behind, unreachable, each holding a slot of its index."""
    check_label(label)
    return (
        f"UNWIND $ids AS x MATCH (v)-[:{VECTOR_OF}]->(:{label} {{id: x}}) DETACH DELETE v "
        "RETURN count(v) AS deleted"
    )


def vector_label(label: str, prop: str) -> str:
    """``Vec_<label>_<prop>``: the label of ``label`` nodes' ``prop`` vector nodes (whitelisted
    parts; scholarkg's labels hold no ``_``, so the name reads back unambiguously)."""
    return f"{VECTOR_LABEL_PREFIX}{check_label(label)}_{check_property(prop)}"


@dataclass(frozen=True)
class OldVectorIndex:
    """A vector index the previous layout made on the nodes themselves (``label.prop``)."""

    label: str
    property: str
    dimensions: int


#: the vector properties scholarkg writes: an encoder's (``emb_<slug>``) and FastRP's
#: (``fastrp_<dimension>``)
SCHOLARKG_VECTOR_PREFIXES = ("emb_", "fastrp_")


def old_vector_indexes(graph: Graph) -> list[OldVectorIndex]:
    """The vector indexes the previous layout made on the nodes themselves (a store written
    before vectors moved to nodes of their own: :meth:`FalkorDBStore.upgrade_vectors`).

    Only scholarkg's: on one of its labels, on a property it names its vectors by, with a
    dimension. Any other vector index is a user's (``scholarkg cypher "CREATE VECTOR INDEX
    …"``) and is left alone: taken for an old store, one on a label of the user's own made
    every command fail (the upgrade knows scholarkg's labels only), one with dimension 0
    too (the upgrade refused it, and the ``DROP`` it advised ran through a command that
    failed first), and one on a Paper property moved the user's values off the Papers."""
    known = node_labels()
    res = graph.query("CALL db.indexes() YIELD label, types, options RETURN label, types, options")
    out = []
    for label, types, options in res.result_set:
        if str(label) not in known or parse_vector_label(str(label)) is not None:
            continue
        for prop, kinds in dict(types).items():
            if "VECTOR" not in {str(k) for k in kinds}:
                continue
            if not str(prop).startswith(SCHOLARKG_VECTOR_PREFIXES):
                continue
            dims = int(dict(dict(options or {}).get(prop) or {}).get("dimension", 0))
            if dims >= 1:
                out.append(OldVectorIndex(str(label), str(prop), dims))
    return out


def await_dropped_vector_indexes(
    graph: Graph, dropped: Iterable[OldVectorIndex], timeout: float = 30.0, poll: float = 0.05
) -> None:
    """Block until :func:`old_vector_indexes` no longer lists ``dropped``: FalkorDB drops an
    index in the background, and a command run right after the upgrade (or the check that
    the store is upgraded) still saw it on a busy machine. Logs, not raises, after
    ``timeout``: the vectors have moved either way."""
    gone = {(i.label, i.property) for i in dropped}
    deadline = time.monotonic() + timeout
    while any((i.label, i.property) in gone for i in old_vector_indexes(graph)):
        if time.monotonic() > deadline:
            log.warning("FalkorDB still lists a dropped vector index after %.0f s", timeout)
            return
        time.sleep(poll)


def move_vectors_query(label: str, prop: str) -> str:
    """Up to ``$batch`` of ``label``'s ``prop`` vectors (with their hash and model) moved
    from the nodes onto vector nodes; returns how many moved (0: none left)."""
    vlabel = vector_label(label, prop)
    return (
        f"MATCH (n:{label}) WHERE n.{prop} IS NOT NULL WITH n LIMIT $batch "
        f"MERGE (v:{vlabel})-[:{VECTOR_OF}]->(n) "
        f"SET v.{prop} = n.{prop}, v.{prop}_hash = n.{prop}_hash, "
        f"v.{prop}_model = n.{prop}_model "
        f"REMOVE n.{prop}, n.{prop}_hash, n.{prop}_model "
        "RETURN count(v)"
    )


def drop_old_vector_index_ddl(label: str, prop: str) -> str:
    return f"DROP VECTOR INDEX FOR (n:{check_label(label)}) ON (n.{check_property(prop)})"


def parse_vector_label(name: str) -> tuple[str, str] | None:
    """``(label, property)`` of a vector nodes' label, ``None`` for any other label."""
    if not name.startswith(VECTOR_LABEL_PREFIX):
        return None
    label, sep, prop = name[len(VECTOR_LABEL_PREFIX) :].partition("_")
    if not sep or not prop:
        return None
    try:
        return check_label(label), check_property(prop)
    except InputError:
        return None


def similarity_from_distance(distance: float) -> float:
    """Cosine distance ``1 - cos`` in [0, 2] → Neo4j's similarity ``(1 + cos) / 2`` in [0, 1]."""
    return min(1.0, max(0.0, 1.0 - float(distance) / 2.0))


# -- inspection and snapshots -------------------------------------------------------------
#
# The queries ``FalkorDBStore.counts`` / ``edge_snapshot`` send. They lean on FalkorDB
# specifics: ``id()`` windows (internal ids are dense, so ``id(a) >= $lo AND id(a) < $hi``
# pages a label without SKIP), ``string.join`` to return one string per column instead of
# one RESP element per row, and relationship aliases that must be *referenced*
# (``WITH a, r, b``): FalkorDB collapses parallel edges of an unreferenced alias.

#: key of the marker a bulk load sets before its first ``GRAPH.BULK`` and deletes when the
#: graph is complete (a plain string key beside the graph; ``GRAPH.LIST`` ignores it)
INCOMPLETE_PREFIX = "scholarkg:incomplete:"


def incomplete_key(graph: str) -> str:
    return INCOMPLETE_PREFIX + graph


#: graphs whose vectors this version's layout holds (``FalkorDBStore.upgrade_vectors``)
VECTORS_UPGRADED_PREFIX = "scholarkg:vectors-on-nodes:"


def vectors_upgraded_key(graph: str) -> str:
    return VECTORS_UPGRADED_PREFIX + graph


def graph_total_queries() -> dict[str, str]:
    """All nodes and all relationships of a graph, whatever their labels (``db status``)."""
    return {
        "nodes": "MATCH (n) RETURN count(n)",
        "relationships": "MATCH ()-[r]->() RETURN count(r)",
    }


LABELS_QUERY = "CALL db.labels()"
REL_TYPES_QUERY = "CALL db.relationshipTypes()"


def merge_changed_nodes_query(label: str) -> str:
    """``merge_nodes_query`` that sets a row's properties only on a node they change: the
    same graph (FalkorDB keeps a stored value its equal would replace, ``1`` for ``1.0``
    too, and no row's map holds a null: ``node_rows`` drops them), without the write.
    An update's Authors and Venues are mostly what the graph holds already, and a reload
    with ``--all`` rewrites every node: an unchanged Author row costs 5.4 µs this way against
    9.4 µs written again, a changed one 10.9 against 9.8 (``benchmarks/bench_node_writes.py``,
    200,000 Authors, 4,000-row batches alternated)."""
    check_label(label)
    return (
        f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) "
        "WITH n, row WHERE any(k IN keys(row.props) WHERE n[k] IS NULL OR n[k] <> row.props[k]) "
        "SET n += row.props"
    )


def label_count_query(label: str) -> str:
    return f"MATCH (n:{check_label(label)}) RETURN count(n)"


def rel_count_query(rel_type: str) -> str:
    """Counts ``r``: referenced, so FalkorDB does not merely existence-check the pattern."""
    return f"MATCH ()-[r:{check_rel_type(rel_type)}]->() RETURN count(r)"


def count_with_query(label: str, prop: str) -> str:
    return (
        f"MATCH (n:{check_label(label)}) WHERE n.{check_property(prop)} IS NOT NULL RETURN count(n)"
    )


def edge_window_query(
    node_label: str, rel_type: str, weight_property: str | None, *, by_ids: bool
) -> str:
    """Internal ids of the edges leaving one window of ``node_label`` nodes, joined.

    ``by_ids``: the window is ``$ids`` (internal ids of a subgraph), else ``$lo <= id < $hi``.
    Weights come back as a list (``toString`` would round them to 6 decimals). ``b``'s
    label is checked by the caller in NumPy: ~30% faster than in the pattern.
    """
    check_label(node_label)
    check_rel_type(rel_type)
    w_col = ""
    if weight_property is not None:
        w_col = f", collect(coalesce(r.{check_property(weight_property)}, 1.0))"
    ret = (
        "WITH a, r, b RETURN string.join(collect(toString(id(a))), ','), "
        f"string.join(collect(toString(id(b))), ','){w_col}"
    )
    pattern = f"MATCH (a:{node_label})-[r:{rel_type}]->(b) "
    if by_ids:
        return "UNWIND $ids AS i " + pattern + "WHERE id(a) = i " + ret
    return pattern + "WHERE id(a) >= $lo AND id(a) < $hi " + ret


def max_node_id_query(label: str) -> str:
    return f"MATCH (n:{check_label(label)}) RETURN max(id(n))"


def node_window_query(label: str) -> str:
    """Internal ids and application ids of a ``$lo <= id < $hi`` window, joined by ``$sep``."""
    return (
        f"MATCH (n:{check_label(label)}) WHERE id(n) >= $lo AND id(n) < $hi "
        "AND n.id IS NOT NULL "
        "RETURN string.join(collect(toString(id(n))), ','), "
        "string.join(collect(toString(n.id)), $sep), count(n)"
    )


def node_window_list_query(label: str) -> str:
    """The application ids of a window as a list (when an id contains the separator)."""
    return (
        f"MATCH (n:{check_label(label)}) WHERE id(n) >= $lo AND id(n) < $hi "
        "AND n.id IS NOT NULL RETURN collect(toString(n.id))"
    )


def nodes_by_ids_query(label: str) -> str:
    """Application ids ``$ids`` → (found ids, internal ids), as two lists."""
    return (
        f"UNWIND $ids AS x MATCH (n:{check_label(label)} {{id: x}}) "
        "RETURN collect(n.id), collect(id(n))"
    )


# -- errors ------------------------------------------------------------------------------

_ERR_MSG = re.compile(
    r"errMsg:\s*(?P<msg>.*?)\s*(?:line:\s*(?P<line>\d+),\s*column:\s*(?P<col>\d+)"
    r"(?:,\s*offset:\s*\d+)?)?\s*(?:errCtx:.*)?$",
    re.DOTALL,
)


def cypher_error(err: Exception, query: str | None = None) -> CypherError:
    """One clear line from a FalkorDB error reply, e.g. ``Cypher error: 'm' not defined``.

    Syntax errors arrive as ``errMsg: … line: 1, column: 10, offset: 9 errCtx: …``; we
    keep the message and the position and drop the echoed context.
    """
    text = " ".join(str(err).split())
    m = _ERR_MSG.match(text)
    if m:
        msg = m.group("msg")
        if m.group("line"):
            msg += f" (line {m.group('line')}, column {m.group('col')})"
    else:
        msg = text
    snippet = ""
    if query:
        q = " ".join(query.split())
        snippet = f" in: {q[:120]}{'…' if len(q) > 120 else ''}"
    return CypherError(f"FalkorDB rejected the query: {msg}{snippet}")


# -- explorer ----------------------------------------------------------------------------

#: A node by internal id and up to ``$limit`` relationships around it (``scholarkg explore``);
#: OPTIONAL so a node without neighbours still comes back.
EXPLORE_NEIGHBOURS = (
    "MATCH (n) WHERE id(n) = $ref OPTIONAL MATCH (n)-[r]-(m) RETURN n, r, m LIMIT $limit"
)
#: Nodes by internal id as their labels and application id (``explore_node_keys``): one seek
#: per id, and no property but ``id`` sent back (a node's text can be large).
EXPLORE_NODE_KEYS = (
    "UNWIND $refs AS ref MATCH (n) WHERE id(n) = ref "
    "RETURN id(n) AS ref, labels(n) AS labels, n.id AS id"
)


def create_grouped_by_node_query(rel_type: str, start_label: str, end_label: str) -> str:
    """``cypher_common.create_grouped_query`` for ends taken by their internal node id:
    ``$groups`` a list of ``[start id, [end id, …], [node id, …]]`` (the node ids as text,
    as the look-up reads them: a list of strings is sent as one join), every relationship
    gets ``$props``. An end is written only if its node still has the label and carries the id
    (FalkorDB gives a deleted node's id to the next node created), so a row never lands on
    another node; ``written`` counts the rows written, as there.

    Why: the id index seek of each end was ~60 % of the server's cost of a new work's
    ``CITES`` (``bench_relationship_ends.py``); a node id is a direct look-up. Each id is
    bound to a variable before the ``MATCH`` (``WITH … AS n``): FalkorDB seeks a node by
    ``id(b) = n`` only when ``n`` is a variable or parameter, and scans every node for
    ``id(b) = g[2][i]``."""
    check_rel_type(rel_type)
    check_label(start_label)
    check_label(end_label)
    return (
        "UNWIND $groups AS g "
        f"MATCH (a:{start_label} {{id: g[0]}}) "
        "WITH a, g[1] AS ends, g[2] AS nodes "
        "UNWIND range(0, size(ends) - 1) AS i "
        "WITH a, toInteger(nodes[i]) AS n, ends[i] AS k "
        f"MATCH (b) WHERE id(b) = n AND b:{end_label} AND b.id = k "
        f"CREATE (a)-[r:{rel_type}]->(b) SET r += $props "
        "RETURN count(r) AS written"
    )

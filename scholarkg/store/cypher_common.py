"""openCypher text that both dialects accept verbatim, and the row handling both stores share.

Only whitelisted labels / relationship types / property names are pasted in (see
``schema/ddl.py``); every value travels in ``$rows``. Dialect-specific text lives in
``falkordb/dialect.py`` and ``neo4j/dialect.py``. Everything that is the same on both
backends (row validation, property cleaning, the batch loop, the full-text index lookup)
lives here once, so the two stores differ only in how they send a statement.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TypeVar

from scholarkg.errors import InputError
from scholarkg.schema.ddl import (
    FulltextIndex,
    SchemaSpec,
    check_label,
    check_property,
    check_rel_type,
    default_schema,
)
from scholarkg.schema.text import key_too_long, key_too_long_message


@dataclass(frozen=True)
class Statement:
    """A query a store can send, with example values for its parameters: what the Neo4j
    conformance lint checks of the Cypher built in Python (``neo4j/dialect.py``,
    ``store/transfer.py``)."""

    name: str
    text: str
    parameters: dict[str, Any] = field(default_factory=dict)


T = TypeVar("T")

#: ``progress(n_done)`` after each batch (same shape as ``store.base.ProgressFn``).
BatchProgress = Callable[[int], None]

#: Properties named like this hold embeddings (``services/embeddings.py``: ``emb_<model>``).
VECTOR_PREFIX = "emb_"


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Yield lists of at most ``size`` items without materialising ``items``."""
    if size < 1:
        raise ValueError("batch size must be >= 1")
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


#: the types :func:`storable_value` returns unchanged, tested by exact type before anything
#: else: nearly every value a load writes is one, and the ``Mapping`` test below is an ABC
#: check that cost more than the rest of a node row's preparation (``bench_node_rows.py``)
_PLAIN_TYPES = frozenset({str, int, float, bool})


def storable_value(value: Any) -> Any:
    """One property value in a form both backends (and ``GRAPH.BULK``) can store.

    Neither backend stores maps, nested lists or nulls inside lists, so: dicts and lists
    holding dicts/lists become JSON strings, and lists lose their ``None`` members (lists
    must be homogeneous scalars on Neo4j). ``None`` itself is returned as is; callers drop
    it (FalkorDB rejects ``null`` in ``SET n += $p``).
    """
    if type(value) in _PLAIN_TYPES:
        return value
    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, list | tuple):
        items = [v for v in value if v is not None]
        if any(isinstance(v, Mapping | list | tuple) for v in items):
            return json.dumps(items, ensure_ascii=False, sort_keys=True)
        return list(items)
    return value


def clean_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """A property map storable on both backends: ``None`` dropped, see :func:`storable_value`."""
    return {key: storable_value(value) for key, value in props.items() if value is not None}


#: what no backend can take in a query parameter: NUL (FalkorDB's parser stops at it, so the
#: query text is cut and the server answers with a syntax error) and UTF-16 surrogates
#: (not encodable as UTF-8, the client raises ``UnicodeEncodeError``)
_UNSENDABLE = re.compile("[\x00\ud800-\udfff]")
_INT64 = (-(2**63), 2**63 - 1)


def unstorable(value: Any, path: str = "$") -> tuple[str, str] | None:
    """The first parameter value no backend stores faithfully, as ``(path, what)``; else None.

    Defence in depth behind the record sanitiser (``schema/text.py``): loaders never send
    such values, but a query built elsewhere (a search string, a hand-written row) must get
    a clear refusal naming the value, not a server-side syntax error about a cut query, a
    traceback from the client's encoder, or an integer silently clamped to 2^63 - 1
    (FalkorDB does that), or NaN and infinities (FalkorDB's parameter text has no literal for
    them: its parser said "Invalid input at end of input").
    """
    if isinstance(value, str):
        m = _UNSENDABLE.search(value)
        if m is None:
            return None
        what = "a NUL character (U+0000)" if m.group() == "\x00" else "a lone surrogate"
        return path, f"holds {what} at position {m.start()}"
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return path, f"is a non-finite number ({value})"
        return None
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        if not _INT64[0] <= value <= _INT64[1]:
            return path, f"is an integer outside the 64-bit range ({value})"
        return None
    if isinstance(value, Mapping):
        for k, v in value.items():
            found = unstorable(v, f"{path}.{k}")
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for i, v in enumerate(value):
            found = unstorable(v, f"{path}[{i}]")
            if found:
                return found
    return None


def _plainly_storable(params: Mapping[str, Any]) -> bool:
    """True when one C pass shows :func:`unstorable` would find nothing: orjson refuses a
    lone surrogate and (strict) an integer past 53 bits, and writes a NUL as ``\\u0000``.
    Anything else (a NUL, a large integer, a value orjson cannot encode, a backslash
    followed by ``u0000`` in the text) sends the caller to the item-by-item walk, which
    decides. A batch of 20,000 rows
    spent more time in that walk than in its encoding."""
    import orjson

    try:
        encoded = orjson.dumps(params, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_STRICT_INTEGER)
    except (orjson.JSONEncodeError, TypeError):
        return False
    return b"\\u0000" not in encoded


def check_params(params: Mapping[str, Any] | None) -> None:
    """Raise ``InputError`` naming the parameter (``$rows[3].props.title``) :func:`unstorable`
    finds, before the statement is sent."""
    if not params or _plainly_storable(params):
        return
    found = unstorable(params, "")
    if found:
        where, what = found
        raise InputError(
            f"the value {what}; the graph store cannot take it, so the query was not sent "
            "(loaders clean every record field; this is a value from elsewhere)",
            field=where.lstrip("."),
        )


def existing_ids_query(label: str) -> str:
    """Which of ``$ids`` exist as ``label`` nodes (the writer's undo list before a flush)."""
    return f"UNWIND $ids AS x MATCH (n:{check_label(label)} {{id: x}}) RETURN n.id AS id"


def delete_nodes_query(label: str) -> str:
    """Delete the ``label`` nodes in ``$ids`` with their relationships (a failed flush's undo)."""
    return (
        f"UNWIND $ids AS x MATCH (n:{check_label(label)} {{id: x}}) DETACH DELETE n "
        "RETURN count(*) AS deleted"
    )


def merge_nodes_query(label: str) -> str:
    """``UNWIND $rows AS row MERGE (n:Label {id: row.id}) SET n += row.props``."""
    check_label(label)
    return f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) SET n += row.props"


def merge_relationships_query(
    rel_type: str, start_label: str, end_label: str, key: Sequence[str] = ()
) -> str:
    """MERGE one relationship per row between existing nodes; missing endpoints skip the row.

    Without ``key`` there is one relationship per (start, end) pair. With ``key`` (property
    names, whitelisted like labels) there is one per (start, end, key values): the MERGE
    pattern carries ``{name: row.key.name}``, so two rows of one pair with different key
    values make two relationships, and rerunning either makes none.
    Returns the number of rows that found both endpoints as ``written``.
    """
    check_rel_type(rel_type)
    check_label(start_label)
    check_label(end_label)
    if len(set(key)) != len(key):
        raise InputError(f"repeated merge key property in {list(key)}", field="key")
    pattern = ", ".join(f"{check_property(k)}: row.key.{k}" for k in key)
    return (
        "UNWIND $rows AS row "
        f"MATCH (a:{start_label} {{id: row.start}}) "
        f"MATCH (b:{end_label} {{id: row.end}}) "
        f"MERGE (a)-[r:{rel_type}{f' {{{pattern}}}' if key else ''}]->(b) SET r += row.props "
        "RETURN count(r) AS written"
    )


def merge_pairs_query(rel_type: str, start_label: str, end_label: str) -> str:
    """:func:`merge_relationships_query` for rows that share their properties: ``$pairs`` a
    list of ``[start id, end id]``, ``$props`` the properties every one of them gets (the
    writer groups a batch's rows by their properties: every OpenAlex reference carries
    ``{from_openalex: true}``). Half the parameter text of a map per row, and no map to
    build, check and quote per row on the client."""
    check_rel_type(rel_type)
    check_label(start_label)
    check_label(end_label)
    return (
        "UNWIND $pairs AS p "
        f"MATCH (a:{start_label} {{id: p[0]}}) "
        f"MATCH (b:{end_label} {{id: p[1]}}) "
        f"MERGE (a)-[r:{rel_type}]->(b) SET r += $props "
        "RETURN count(r) AS written"
    )


def create_grouped_query(
    rel_type: str, start_label: str, end_label: str, *, own_props: bool = False
) -> str:
    """``CREATE`` the relationships of start nodes that have none of ``rel_type`` yet (the
    writer's new nodes): ``$groups`` a list of ``[start id, [end ids]]``, each pair once,
    every relationship gets ``$props``. One index seek of the start node per group, and no
    ``MERGE`` (nothing to match): on a 200,000-work FalkorDB graph 20,000 references of new
    works took the server ~0.45 s this way against ~0.9 s as ``merge_pairs_query``.
    ``own_props``: relationships that carry their own properties (an authorship's position
    and the names it was stated with), ``[start id, [[end id, props], …]]`` groups.
    ``written`` counts the rows that found both endpoints, as a ``MERGE`` a row does."""
    check_rel_type(rel_type)
    check_label(start_label)
    check_label(end_label)
    end, props = ("e[0]", "e[1]") if own_props else ("e", "$props")
    return (
        "UNWIND $groups AS g "
        f"MATCH (a:{start_label} {{id: g[0]}}) "
        "UNWIND g[1] AS e "
        f"MATCH (b:{end_label} {{id: {end}}}) "
        f"CREATE (a)-[r:{rel_type}]->(b) SET r += {props} "
        "RETURN count(r) AS written"
    )


def set_vectors_query(label: str, prop: str, vector_value: Callable[[str], str]) -> str:
    """Store ``row.v`` as ``label.prop`` on existing nodes; ``vector_value`` is the dialect's
    spelling of a vector (``vecf32(…)`` on FalkorDB, a plain list on Neo4j)."""
    check_label(label)
    check_property(prop)
    return (
        "UNWIND $rows AS row "
        f"MATCH (n:{label} {{id: row.id}}) "
        f"SET n.{prop} = {vector_value('row.v')} SET n += row.extra "
        "RETURN count(n) AS written"
    )


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() == "")


def node_rows(rows: Iterable[Mapping[str, Any]], label: str = "node") -> Iterator[dict[str, Any]]:
    """Turn flat node dicts (with ``id``) into ``{id, props}`` rows for ``merge_nodes_query``.

    A row without an ``id`` cannot be MERGEd: it raises ``InputError`` naming the record
    (1-based) instead of being written under the id ``"None"``.
    """
    for i, row in enumerate(rows, 1):
        if _blank(row.get("id")):
            raise InputError(f"{label} node without an id", line=i, field="id")
        # clean_props of the row less its id, in one comprehension
        props = {k: storable_value(v) for k, v in row.items() if k != "id" and v is not None}
        # keys are stripped on both backends (records already are): FalkorDB's unique
        # constraint crashes the server on a key with surrounding whitespace, or one over
        # schema.text.MAX_KEY_BYTES (refused here, as the records refuse it)
        key = str(row["id"]).strip()
        if key_too_long(key):
            raise InputError(f"{label} node: {key_too_long_message(key)}", line=i, field="id")
        yield {"id": key, "props": props}


def rel_rows(
    rows: Iterable[Mapping[str, Any]], key: Sequence[str] = ()
) -> Iterator[dict[str, Any]]:
    """Normalise ``{start, end, **props}`` or ``{start, end, props}`` dicts.

    A missing or blank endpoint raises ``InputError`` naming the record (1-based) and the
    field; ``str(None)`` would otherwise silently match a node whose id is ``"None"``.
    With merge ``key`` properties, each row gets ``key: {name: value}`` (from the row's
    ``key`` map, else from its properties); a missing value is an ``InputError`` too,
    since a MERGE on ``null`` fails on Neo4j and would match nothing on FalkorDB.
    """
    for i, row in enumerate(rows, 1):
        for end in ("start", "end"):
            if _blank(row.get(end)):
                raise InputError("relationship record without an endpoint id", line=i, field=end)
        if "props" in row:
            props = clean_props(row["props"] or {})
        else:
            skip = {"start", "end"} | ({"key"} if isinstance(row.get("key"), Mapping) else set())
            props = clean_props({k: v for k, v in row.items() if k not in skip})
        out = {"start": str(row["start"]).strip(), "end": str(row["end"]).strip(), "props": props}
        if key:
            given = row.get("key")
            source = given if isinstance(given, Mapping) else props
            values = {k: storable_value(source.get(k)) for k in key}
            for k, v in values.items():
                if _blank(v):
                    raise InputError("relationship record without its merge key", line=i, field=k)
            out["key"] = values
        yield out


def run_batches(
    send: Callable[[list[dict[str, Any]]], int],
    rows: Iterable[Mapping[str, Any]],
    *,
    batch_size: int,
    progress: BatchProgress | None = None,
) -> tuple[int, int]:
    """Send ``rows`` in batches; ``send(batch)`` returns what the server reports written.

    Returns ``(rows_sent, rows_written)``; ``progress`` gets the rows sent so far.
    """
    sent = written = 0
    for batch in chunked(rows, batch_size):
        written += send([dict(r) for r in batch])
        sent += len(batch)
        if progress:
            progress(sent)
    return sent, written


def find_fulltext_index(name: str, schema: SchemaSpec) -> FulltextIndex:
    """The full-text index called ``name`` in the applied ``schema``, else the default one.

    A store that never ran ``apply_schema`` still finds the default indexes; an unknown name
    raises ``InputError`` listing the known ones.
    """
    for spec in (schema, default_schema()):
        for ft in spec.fulltext:
            if ft.name == name:
                return ft
    return schema.fulltext_index(name)


def without_vectors(props: dict[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """``props`` minus stored embeddings (the ``known`` vector properties and ``emb_*``).

    Search hits carry a node's properties for display and re-ranking; a node holds one
    vector per model, and shipping them back with every hit costs kilobytes per hit.
    """
    drop = set(known)
    return {k: v for k, v in props.items() if k not in drop and not k.startswith(VECTOR_PREFIX)}


# -- graph transfer (``store/transfer.py``: export / import between backends) -------------


def page_nodes_query(label: str, *, vector_nodes: bool = False) -> str:
    """One page of ``label`` nodes after ``$after`` in ``id`` order (keyset paging).

    ``vector_nodes`` (the embedded store, which keeps each vector on a node of its own,
    ``(v)-[:VECTOR_OF]->(n)``): also ``vector_props``, the properties of the page's vector
    nodes (each vector with its hash and model), as a list of maps per node."""
    if vector_nodes:
        return (
            f"MATCH (n:{check_label(label)}) WHERE n.id > $after "
            "WITH n ORDER BY n.id LIMIT $limit "
            "OPTIONAL MATCH (v)-[:VECTOR_OF]->(n) "
            "RETURN n.id AS id, labels(n) AS labels, properties(n) AS props, "
            "collect(properties(v)) AS vector_props "
            "ORDER BY id"
        )
    return (
        f"MATCH (n:{check_label(label)}) WHERE n.id > $after "
        "RETURN n.id AS id, labels(n) AS labels, properties(n) AS props "
        "ORDER BY n.id LIMIT $limit"
    )


def outgoing_relationships_query(label: str) -> str:
    """Every relationship leaving the ``label`` nodes whose ids are in ``$ids``."""
    return (
        f"UNWIND $ids AS x MATCH (a:{check_label(label)} {{id: x}})-[r]->(b) "
        "RETURN a.id AS start, type(r) AS type, labels(b) AS end_labels, b.id AS end, "
        "properties(r) AS props"
    )


def missing_id_count_query(label: str) -> str:
    return f"MATCH (n:{check_label(label)}) WHERE n.id IS NULL RETURN count(n) AS n"


def add_label_query(label: str, extra_label: str) -> str:
    """Give already-merged ``label`` nodes a second label (multi-label nodes)."""
    return (
        f"UNWIND $ids AS x MATCH (n:{check_label(label)} {{id: x}}) "
        f"SET n:{check_label(extra_label)}"
    )

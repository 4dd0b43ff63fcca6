"""openCypher text that both dialects accept verbatim, and batching helpers.

Only whitelisted labels / relationship types / property names are pasted in (see
``schema/ddl.py``); every value travels in ``$rows``. Dialect-specific text lives in
``falkordb_dialect.py`` and ``neo4j_dialect.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice
from typing import Any, TypeVar

from scholarkg.schema.ddl import check_label, check_rel_type

T = TypeVar("T")


def chunked(items: Iterable[T], size: int) -> Iterator[list[T]]:
    """Yield lists of at most ``size`` items without materialising ``items``."""
    if size < 1:
        raise ValueError("batch size must be >= 1")
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


def clean_props(props: Mapping[str, Any]) -> dict[str, Any]:
    """Make a property map storable on both backends.

    Neither backend stores maps or nulls; FalkorDB rejects ``null`` in ``SET n += $p``.
    So ``None`` is dropped, dicts become JSON strings, lists of dicts become JSON strings,
    and lists lose their ``None`` members (lists must be homogeneous scalars on Neo4j).
    """
    out: dict[str, Any] = {}
    for key, value in props.items():
        if value is None:
            continue
        if isinstance(value, Mapping):
            out[key] = json.dumps(value, ensure_ascii=False, sort_keys=True)
        elif isinstance(value, list | tuple):
            items = [v for v in value if v is not None]
            if any(isinstance(v, Mapping | list | tuple) for v in items):
                out[key] = json.dumps(items, ensure_ascii=False, sort_keys=True)
            else:
                out[key] = list(items)
        else:
            out[key] = value
    return out


def merge_nodes_query(label: str) -> str:
    """``UNWIND $rows AS row MERGE (n:Label {id: row.id}) SET n += row.props``."""
    check_label(label)
    return f"UNWIND $rows AS row MERGE (n:{label} {{id: row.id}}) SET n += row.props"


def merge_relationships_query(rel_type: str, start_label: str, end_label: str) -> str:
    """MERGE one relationship per row between existing nodes; missing endpoints skip the row.

    Returns the number of rows that found both endpoints as ``written``.
    """
    check_rel_type(rel_type)
    check_label(start_label)
    check_label(end_label)
    return (
        "UNWIND $rows AS row "
        f"MATCH (a:{start_label} {{id: row.start}}) "
        f"MATCH (b:{end_label} {{id: row.end}}) "
        f"MERGE (a)-[r:{rel_type}]->(b) SET r += row.props "
        "RETURN count(r) AS written"
    )


def node_rows(rows: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Turn flat node dicts (with ``id``) into ``{id, props}`` rows for ``merge_nodes_query``."""
    for row in rows:
        props = clean_props({k: v for k, v in row.items() if k != "id"})
        yield {"id": str(row["id"]), "props": props}


def rel_rows(rows: Iterable[Mapping[str, Any]]) -> Iterator[dict[str, Any]]:
    """Normalise ``{start, end, **props}`` or ``{start, end, props}`` dicts."""
    for row in rows:
        if "props" in row:
            props = clean_props(row["props"] or {})
        else:
            props = clean_props({k: v for k, v in row.items() if k not in ("start", "end")})
        yield {"start": str(row["start"]), "end": str(row["end"]), "props": props}

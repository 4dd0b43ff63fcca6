"""A statement's parameters into FalkorDB's ``CYPHER name=value …`` header, and a reply of
plain values back, in fewer Python steps than the falkordb client.

Why: FalkorDB takes parameters only as text in front of the query, and falkordb-py builds
that text with one recursive call and one f-string per value (``stringify_param_value``), and
reads a reply with one call per cell (``parse_scalar``). An update of 22,000 OpenAlex works
sends ~500,000 reference ids and reads back ~450,000 look-up rows: ~9 % of the loading
process's samples (``py-spy`` over ``benchmarks/bench_openalex.py --update-new``) were those
two. Here a list of strings is one ``join`` (its escaping once over the joined text), a map's
keys are quoted once per key set, and a reply whose cells are all scalars (null, string,
integer, boolean, double, arrays of them) is read by one comprehension; anything else (nodes,
edges, paths, maps, points, vectors, dates) goes to the client's own ``QueryResult``.

Not a library: no package writes Cypher parameter text (it is FalkorDB's own convention),
and a C encoder for a few lines of string joins is not worth a compiled dependency.
``tests/store/test_falkordb_wire.py`` checks both directions against the client's functions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: compact-reply scalar type codes (falkordb.query_result.ResultSetScalarTypes)
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY = 1, 2, 3, 4, 5, 6


def _quote(text: str) -> str:
    """falkordb-py's ``quote_string``: backslashes and double quotes escaped."""
    if "\\" in text or '"' in text:
        text = text.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


#: map keys seen, as their quoted text (property names: a few dozen)
_KEYS: dict[Any, str] = {}


def _identifier(key: Any, what: str) -> str:
    """``key`` as a name between backticks can hold, or the client's ``ValueError`` for
    ``what`` ("map key", "parameter name")."""
    name = key.decode() if isinstance(key, bytes) else str(key)
    if name == "":
        raise ValueError(f"Cypher {what} cannot be empty")
    if "`" in name:
        raise ValueError(
            f"Cypher {what} cannot contain a backtick: {name!r} (FalkorDB does not support "
            "escaped backticks in identifiers)"
        )
    return name


def _key(key: Any) -> str:
    name = _identifier(key, "map key")
    text = f"`{name}`:"
    if type(key) is str and len(_KEYS) < 4096:
        _KEYS[key] = text
    return text


def _strings(value: list[Any] | tuple[Any, ...]) -> str | None:
    """A list of strings as one join, when none needs escaping; else ``None``."""
    try:
        joined = '","'.join(value)
    except TypeError:  # not all strings
        return None
    if "\\" in joined or joined.count('"') != 2 * (len(value) - 1):
        return None
    return f'["{joined}"]'


def _string_lists(value: list[Any] | tuple[Any, ...]) -> str | None:
    """A list of non-empty lists of strings (id pairs, ``[start, ends]`` groups' ends) as
    one join, when none needs escaping; else ``None``. Every string adds two quotes: any
    other count means an empty list or a quote inside a value (both only add quotes)."""
    if set(map(type, value)) != {list}:
        return None
    try:
        text = '"],["'.join(['","'.join(p) for p in value])
    except TypeError:
        return None
    if "\\" in text or text.count('"') + 2 != 2 * sum(map(len, value)):
        return None
    return f'[["{text}"]]'


def encode_value(value: Any) -> str:
    """``value`` as parameter text, the same text as falkordb-py's ``stringify_param_value``."""
    kind = type(value)
    if kind is str:
        if "\\" in value or '"' in value:
            return _quote(value)
        return f'"{value}"'
    if kind is list or kind is tuple:
        if not value:
            return "[]"
        first = type(value[0])
        if first is str and type(value[-1]) is str:
            text = _strings(value)
        elif first is list:
            text = _string_lists(value)
        else:
            text = None
        if text is not None:
            return text
        return "[" + ",".join([encode_value(v) for v in value]) + "]"
    if kind is dict:
        keys = _KEYS
        return (
            "{"
            + ",".join([(keys.get(k) or _key(k)) + encode_value(v) for k, v in value.items()])
            + "}"
        )
    if value is None:
        return "null"
    if kind is int or kind is bool or kind is float:
        return str(value)
    if isinstance(value, str):  # a str subclass: its characters, as the client sends them
        return _quote(str.__str__(value))
    if isinstance(value, bytes):
        return _quote(value.decode())
    if isinstance(value, list | tuple):
        return "[" + ",".join([encode_value(v) for v in value]) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join([_key(k) + encode_value(v) for k, v in value.items()]) + "}"
    return str(value)


def params_header(params: Mapping[str, Any]) -> str:
    """The ``CYPHER `name`=value … `` text falkordb-py's ``Graph._build_params_header`` makes."""
    parts = ["CYPHER "]
    for key, value in params.items():
        name = _identifier(key, "parameter name")
        parts.append(f"`{name}`={encode_value(value)} ")
    return "".join(parts)


class PlainReply:
    """A reply read by :func:`plain_reply`: ``header`` and ``result_set`` as the client's
    ``QueryResult`` has them."""

    __slots__ = ("header", "result_set")

    def __init__(self, header: list[Any], result_set: list[list[Any]]) -> None:
        self.header = header
        self.result_set = result_set


def _scalar(cell: list[Any]) -> Any:
    kind, value = cell[0], cell[1]
    if kind == _STRING:
        return value.decode() if isinstance(value, bytes) else str(value)
    if kind == _INTEGER:
        return int(value)
    if kind == _NULL:
        return None
    if kind == _BOOLEAN:
        return (value.decode() if isinstance(value, bytes) else value) == "true"
    if kind == _DOUBLE:
        return float(value)
    if kind == _ARRAY:  # most arrays hold ids: their strings read inline, as plain_reply's
        string = _STRING
        return [v[1] if v[0] == string and type(v[1]) is str else _scalar(v) for v in value]
    raise _NotPlain


class _NotPlain(Exception):
    """A cell :func:`plain_reply` leaves to the client (a node, an edge, a map …)."""


def plain_reply(raw: Any) -> PlainReply | None:
    """The rows of a ``--compact`` reply whose cells are all scalars; ``None`` when the reply
    holds anything else (an error, a node …): the caller then reads it with ``QueryResult``.

    Strings come from the server as ``str`` (the client decodes replies), integers as ``int``;
    each cell is ``[type, value]`` (falkordb.query_result.parse_scalar)."""
    if not isinstance(raw, list) or len(raw) < 1:
        return None
    if len(raw) == 1:  # statistics only: a write without RETURN
        return PlainReply([], []) if not isinstance(raw[0], Exception) else None
    if isinstance(raw[0], Exception) or isinstance(raw[-1], Exception):
        return None
    header = raw[0]
    if not header:
        return PlainReply([], [])
    rows = raw[1]
    string, integer = _STRING, _INTEGER
    try:
        result = [
            [
                c[1]
                if (k := c[0]) == string and type(c[1]) is str
                else c[1]
                if k == integer and type(c[1]) is int
                else _scalar(c)
                for c in row
            ]
            for row in rows
        ]
    except _NotPlain:
        return None
    return PlainReply(header, result)

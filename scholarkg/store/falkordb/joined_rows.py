"""A read's rows as one string per column: FalkorDB joins them (``string.join``), the
client splits them, and the rows come out as the plain read gives them.

Why: returning a look-up's rows costs the server little beyond finding them; reading them
costs the loader a third as much again, one Python object per row and per cell. The identity
look-up's two OpenAlex branches for 36,317 keys in a 200,000-Paper graph
(``benchmarks/bench_joined_rows.py``, machine otherwise idle): the server's CPU is the same
whether it returns the rows or only counts them (0.48 against 0.45 s), but the call takes
0.79 s with 0.29 s of the loader's CPU (hiredis makes a Python list per row and per cell, the
store a dict per row); as two joined strings 0.57 s and 0.10 s. An update's identity
resolution reads ~40,000 such rows a chunk, and the loading thread waits for them.

Opt-in per named query, by a header line naming each column with its kind::

    // falkordb-joined-rows: key str, id str, alias bool

``str`` a string never null, ``bool`` a boolean or null, ``strs`` a list of strings never
null (none of them empty). The query runs as ``CALL { query } RETURN string.join(collect(…))``
per column, with the row count and, per ``strs`` column, the count of its strings; a value
holding a separator (or a null ``str``) makes a count differ, and the store then runs the
plain query: the rows are always the plain read's, only the cost differs. The rows keep
their order (``collect`` keeps the order of the rows it is given).

Not a library: this is FalkorDB's reply format, and ``string.join`` its function.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from scholarkg.store.cypher_text import comment_header

#: between rows, and between the strings of a ``strs`` cell (ASCII's unit and record
#: separators: no identifier holds them, and one that did only costs the plain read)
ROW_SEPARATOR = "\x1f"
LIST_SEPARATOR = "\x1e"
_COLUMN = r"[A-Za-z_]\w* (?:str|bool|strs)"
_HEADER = re.compile(rf"^// falkordb-joined-rows: ({_COLUMN}(?:, {_COLUMN})*)$", re.M)
_BOOLS = {"t": True, "f": False, "n": None}


@dataclass(frozen=True)
class JoinedRead:
    """A read wrapped to return its rows joined (:func:`joined_read`)."""

    #: the wrapped query
    query: str
    #: the read's columns and their kinds, in order
    columns: tuple[tuple[str, str], ...]

    def rows(self, row: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The read's rows from the wrapped query's one row; ``None`` when a count says a
        value held a separator (the caller then runs the plain read)."""
        n = int(row["__rows"])
        if n == 0:
            return []
        cells: list[list[Any]] = []
        for name, kind in self.columns:
            parts = str(row[name]).split(ROW_SEPARATOR)
            if len(parts) != n:
                return None
            if kind == "bool":
                cells.append(list(map(_BOOLS.__getitem__, parts)))
            elif kind == "strs":
                lists = [part.split(LIST_SEPARATOR) if part else [] for part in parts]
                if sum(map(len, lists)) != int(row[f"__{name}_strings"]):
                    return None
                cells.append(lists)
            else:
                cells.append(parts)
        names = [name for name, _ in self.columns]
        return [dict(zip(names, values, strict=True)) for values in zip(*cells, strict=True)]


def joined_read(query: str) -> JoinedRead | None:
    """``query`` wrapped to return its rows joined, when its header asks for it (a line
    ``// falkordb-joined-rows: c1 kind, c2 kind``); else ``None``."""
    if not query.startswith("//"):  # the marker is a header line: the usual statement
        return None  # returns here, before the cache hashes its text
    return _joined_read(query)


@functools.lru_cache(maxsize=512)  # a load sends the same few texts again and again
def _joined_read(query: str) -> JoinedRead | None:
    found = _HEADER.search(comment_header(query))
    if found is None:
        return None
    columns = tuple(
        (name, kind) for name, _, kind in (c.partition(" ") for c in found.group(1).split(", "))
    )
    sep = _literal(ROW_SEPARATOR)
    out = []
    for name, kind in columns:
        if kind == "bool":
            cell = f"CASE {name} WHEN true THEN 't' WHEN false THEN 'f' ELSE 'n' END"
        elif kind == "strs":
            cell = f"string.join({name}, {_literal(LIST_SEPARATOR)})"
            out.append(f"sum(size({name})) AS __{name}_strings")
        else:
            cell = name
        out.append(f"string.join(collect({cell}), {sep}) AS {name}")
    return JoinedRead(f"CALL {{\n{query}\n}}\nRETURN {', '.join(out)}, count(*) AS __rows", columns)


def _literal(text: str) -> str:
    """A separator as a Cypher string literal (FalkorDB reads no ``\\u`` escape: the
    character itself, which needs no quoting)."""
    return f"'{text}'"

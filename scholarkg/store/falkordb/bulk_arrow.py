"""The columnar fast path of ``store/falkordb/bulk.py``: node and edge files read as Arrow
tables (``store/bulk_files.py``, the reader both backends share), checked for the types
``GRAPH.BULK`` takes and encoded by pyarrow, in native code.

Why pyarrow: ``benchmarks/bench_load.py --readers`` measures the candidates on the same
files (pyarrow's JSON and CSV readers, polars, orjson line by line, the stdlib line reader);
pyarrow's readers are the fastest that keep our semantics exactly (see docs/performance),
and the GRAPH.BULK encoding itself is done with Arrow compute kernels
(``binary_join_element_wise`` concatenates the encoded values of a row), so no Python code
runs per node or per edge.

The fast path takes a file only when it can reproduce the line reader's result exactly;
otherwise it raises :class:`Unsupported` and ``falkordb/bulk.py`` reads that file line by line as
before, which also finds the bad line for the ``file:line`` error. Not taken (by design):

* a JSON number column with a fraction anywhere (Arrow widens the whole column to double,
  the line reader keeps ``3`` an integer), nested objects (Arrow fills missing struct keys
  with nulls), mixed types in a column, integers beyond 64 bits, lists of strings or
  edge files whose strings need cleaning (below);
* a missing/empty/duplicate id, an invalid property name, an empty endpoint, a row with the
  wrong number of columns, CSV edge files with property columns (their per-cell type
  inference is the line reader's);
* anything Arrow itself rejects (BOM, quoted newlines, ...).

Text defects in node string columns (NUL, other control characters, CR/CRLF, BOMs) are
cleaned by the shared reader (``bulk_files.clean_string_columns``) with Arrow kernels by
exactly the rules of ``schema.text.clean_text`` (the record layer's sanitiser) and counted
with its phrases, so a bulk load stores what the MERGE loaders store and a file with one NUL
in a million abstracts stays on the fast path. Lone surrogates cannot occur: Arrow holds
valid UTF-8 only (its JSON reader refuses them, and the line reader cleans them).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scholarkg.errors import InputError
from scholarkg.schema.ddl import check_property
from scholarkg.store import bulk_files
from scholarkg.store.bulk_files import (
    Cleaned,
    Unsupported,
    clean_string_columns,
    count_true,
    read_table,
    string_ids,
    stripped_keys,
    without_empty_columns,
)

if TYPE_CHECKING:
    import pyarrow as pa


_SIMPLE_LIST_ITEMS = ("string", "large_string", "int64", "bool", "null")


def _check_column(name: str, col: pa.ChunkedArray) -> None:
    """A valid property name and a type the encoder takes. Strings need no NUL check (GRAPH.BULK
    would end a string at one): the callers clean every string column first
    (``clean_string_columns`` removes NUL, or refuses a list column that would need it)."""
    import pyarrow as pa

    try:
        check_property(name)
    except InputError:
        raise Unsupported(f"property name {name!r}") from None
    t = col.type
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        if str(t.value_type) not in _SIMPLE_LIST_ITEMS:
            raise Unsupported(f"a list of {t.value_type}")
    elif not (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_int64(t)
        or pa.types.is_boolean(t)
        or pa.types.is_null(t)
    ):
        raise Unsupported(f"column {name!r} of type {t}")  # double, struct, ...


def read_node_table(path: Path) -> tuple[pa.Table, pa.Array, Cleaned]:
    """``(table, ids as strings, what was cleaned)`` of a JSONL node file, or
    :class:`Unsupported`. Text is cleaned first, so ids come from cleaned text as in the
    record layer."""
    table, cleaned = clean_string_columns(without_empty_columns(read_table(path)))
    if "id" not in table.column_names:
        raise Unsupported("no id column")
    cleaned += stripped_keys(table.column("id"))
    for name in table.column_names:
        _check_column(name, table.column(name))
    ids = string_ids(table.column("id"))
    import pyarrow.compute as pc

    if pc.count_distinct(ids).as_py() != len(ids):
        raise Unsupported("duplicate ids")
    return table, ids, cleaned


def _fixed(code: int, values: np.ndarray, fmt: str) -> pa.Array:
    """``[code byte][8-byte value]`` per row as a binary array."""
    import pyarrow as pa

    rec = np.empty(values.shape[0], dtype=np.dtype([("t", "u1"), ("v", fmt)]))
    rec["t"] = code
    rec["v"] = values
    fixed = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(9), values.shape[0], [None, pa.py_buffer(rec.tobytes())]
    )
    return fixed.cast(pa.binary())


def _encoded_column(col: pa.Array) -> pa.Array | pa.Scalar:
    """Each value's GRAPH.BULK encoding (``bulk.encode_value``) as a binary array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from scholarkg.store.falkordb.bulk_values import T_LONG, _BadValue, encode_value

    null = pa.scalar(b"\x00", pa.binary())
    t = col.type
    if pa.types.is_null(t):
        return null
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        enc = pc.binary_join_element_wise(
            pa.scalar(b"\x03"), col.cast(pa.binary()), pa.scalar(b"\x00"), pa.scalar(b"")
        )
    elif pa.types.is_int64(t):
        values = col.fill_null(0).to_numpy(zero_copy_only=False)
        enc = _fixed(T_LONG, values, "=i8")
        if col.null_count:
            enc = pc.if_else(col.is_valid(), enc, null)
        return enc
    elif pa.types.is_boolean(t):
        enc = pc.if_else(col, pa.scalar(b"\x01\x01"), pa.scalar(b"\x01\x00"))
    elif pa.types.is_list(t) and str(t.value_type) in ("string", "int64", "bool", "null"):
        return _encoded_list(col)
    else:  # other simple lists: encode_value gives them the MERGE path's form
        try:
            enc = pa.array([encode_value(v) for v in col.to_pylist()], pa.binary())
        except _BadValue as err:
            raise Unsupported(str(err)) from None
    return pc.fill_null(enc, null) if enc.null_count else enc


def _encoded_list(col: pa.Array) -> pa.Array:
    """A list column's values as ``encode_value`` encodes them (``T_ARRAY``, the count of
    non-null items, each item's encoding; a null list is ``T_NULL``), in Arrow kernels.

    ``encode_value`` per row cost more than the rest of a Paper file's encoding (topics
    and their scores on every work, institutions on every authorship). ``None`` items are
    dropped, as ``storable_value`` drops them. Lists of other item types keep the per-row
    path.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from scholarkg.store.falkordb.bulk_values import T_ARRAY, T_LONG

    n = len(col)
    values = col.flatten()  # the items of the valid lists, slicing offset applied
    rows = pc.list_parent_indices(col)
    if len(values) != len(rows):  # pragma: no cover - Arrow's contract
        raise Unsupported("list items and their rows disagree")
    if values.null_count:
        valid = values.is_valid()
        values, rows = values.filter(valid), rows.filter(valid)
    t = values.type
    if pa.types.is_null(t) or len(values) == 0:
        items = pa.array([], pa.binary())
    elif pa.types.is_string(t):
        if count_true(pc.match_substring(values, "\x00")):  # GRAPH.BULK ends strings at NUL
            raise Unsupported("a string with NUL in a list")
        items = pc.binary_join_element_wise(
            pa.scalar(b"\x03"), values.cast(pa.binary()), pa.scalar(b"\x00"), pa.scalar(b"")
        )
    elif pa.types.is_int64(t):
        items = _fixed(T_LONG, values.to_numpy(zero_copy_only=False), "=i8")
    else:  # bool
        items = pc.if_else(values, pa.scalar(b"\x01\x01"), pa.scalar(b"\x01\x00"))
    counts = np.bincount(np.asarray(rows.to_numpy(zero_copy_only=False), dtype=np.int64),
                         minlength=n)[:n]  # fmt: skip
    offsets = np.zeros(n + 1, dtype=np.int32)
    np.cumsum(counts, out=offsets[1:])
    joined = pc.binary_join(pa.ListArray.from_arrays(pa.array(offsets), items), pa.scalar(b""))
    enc = pc.binary_join_element_wise(_fixed(T_ARRAY, counts, "=i8"), joined, pa.scalar(b""))
    if col.null_count:
        enc = pc.if_else(col.is_valid(), enc, pa.scalar(b"\x00", pa.binary()))
    return enc


def node_token(table: pa.Table, label: str) -> bytes:
    """One GRAPH.BULK label token: header (``id`` first) + every row's encoded values."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from scholarkg.store.falkordb.bulk_values import _header

    props = ["id", *(c for c in table.column_names if c != "id")]
    parts = []
    for name in props:
        col = table.column(name).combine_chunks()
        if name == "id":
            col = string_ids(col)
        parts.append(_encoded_column(col))
    rows = pc.binary_join_element_wise(*parts, pa.scalar(b""))
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int32, count=len(rows) + 1,
                            offset=rows.offset * 4)  # fmt: skip
    body = memoryview(rows.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
    return b"".join([_header(label, props), body])


def read_edge_endpoints(path: Path, fmt: str) -> tuple[pa.Array, pa.Array, int, pa.Table | None]:
    """:func:`~scholarkg.store.bulk_files.read_edge_endpoints`, its JSONL properties also
    of types the ``GRAPH.BULK`` encoder takes (:class:`Unsupported` otherwise)."""
    starts, ends, first_line, props = bulk_files.read_edge_endpoints(path, fmt)
    if props is not None:
        for name in props.column_names:
            _check_column(name, props.column(name))
    return starts, ends, first_line, props


def edge_rows(a: np.ndarray, b: np.ndarray, props: pa.Table) -> bytes:
    """Edges with properties: ``uint64 src, uint64 dst`` + each property's encoding."""
    import pyarrow as pa
    import pyarrow.compute as pc

    pair = np.empty(a.shape[0], dtype=np.dtype([("s", "=u8"), ("d", "=u8")]))
    pair["s"], pair["d"] = a, b
    ends = pa.FixedSizeBinaryArray.from_buffers(
        pa.binary(16), a.shape[0], [None, pa.py_buffer(pair.tobytes())]
    ).cast(pa.binary())
    parts = [_encoded_column(props.column(n).combine_chunks()) for n in props.column_names]
    rows = pc.binary_join_element_wise(ends, *parts, pa.scalar(b""))
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int32, count=len(rows) + 1,
                            offset=rows.offset * 4)  # fmt: skip
    return bytes(memoryview(rows.buffers()[2])[int(offsets[0]) : int(offsets[-1])])


def slices(table: pa.Table, size: int) -> Iterator[pa.Table]:
    for lo in range(0, table.num_rows, size):
        yield table.slice(lo, size)

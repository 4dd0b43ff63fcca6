"""The columnar fast path of ``store/falkordb/bulk.py``: node and edge files parsed and encoded by
pyarrow, in native code.

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
  inference is the line reader's), JSONL edge properties missing on the first edge;
* anything Arrow itself rejects (BOM, quoted newlines, ...).

Text defects in node string columns (NUL, other control characters, CR/CRLF, BOMs) are
cleaned here with Arrow kernels by exactly the rules of ``schema.text.clean_text`` (the
record layer's sanitiser) and counted with its phrases, so a bulk load stores what the MERGE
loaders store and a file with one NUL in a million abstracts stays on the fast path. Lone
surrogates cannot occur: Arrow holds valid UTF-8 only (its JSON reader refuses them, and the
line reader cleans them).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scholarkg.errors import InputError
from scholarkg.schema.ddl import check_property

if TYPE_CHECKING:
    import pyarrow as pa


class Unsupported(Exception):
    """This file needs the line reader (which reproduces every case and names bad lines)."""


def _stream(path: Path) -> Any:
    import pyarrow as pa

    return pa.input_stream(str(path), compression="detect")


#: node files in Arrow's IPC file format (Feather v2): a loader that builds its rows as Arrow
#: columns hands them over without a JSON round trip
ARROW_SUFFIXES = (".arrow", ".feather")


def read_table(path: Path) -> pa.Table:
    """A JSON Lines file, or an Arrow IPC file (:data:`ARROW_SUFFIXES`, memory-mapped), as
    a table."""
    if path.name.lower().endswith(ARROW_SUFFIXES):
        return _read_arrow(path)
    return _read_json(path)


def without_empty_columns(table: pa.Table) -> pa.Table:
    """``table`` without the columns that are null on every row: a property no node has. A
    JSON file has such a column only for a key given as ``null`` everywhere; an Arrow file
    with a fixed schema (the OpenAlex Paper file's ``pmid``, say) has them whenever no row
    sets the field, and they should not reach the store's schema as property names."""
    empty = [i for i, col in enumerate(table.columns) if col.null_count == len(col) > 0]
    for i in reversed(empty):
        table = table.remove_column(i)
    return table


def _read_arrow(path: Path) -> pa.Table:
    import pyarrow as pa
    import pyarrow.ipc as paipc

    try:
        with pa.memory_map(str(path)) as source:
            return paipc.open_file(source).read_all()
    except (pa.ArrowException, OSError, ValueError) as err:
        raise InputError(f"not a readable Arrow IPC file: {err}", path=path) from None


def _read_json(path: Path) -> pa.Table:
    """The JSONL file as a table. Arrow turns date-like strings (S2's ``publicationdate``)
    into timestamps; such columns are read again as the strings they are."""
    import pyarrow as pa
    import pyarrow.json as pajson

    try:
        with _stream(path) as fh:
            table = pajson.read_json(fh)
        dated = [
            f.name
            for f in table.schema
            if pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)
        ]
        if dated:
            strings = pa.schema([(name, pa.string()) for name in dated])
            options = pajson.ParseOptions(
                explicit_schema=strings, unexpected_field_behavior="infer"
            )
            with _stream(path) as fh:
                table = pajson.read_json(fh, parse_options=options)
    except (pa.ArrowException, OSError, ValueError) as err:
        raise Unsupported(str(err)) from None
    return table


#: RE2 (Arrow's regex engine) forms of ``schema.text``'s character classes; a test checks
#: they match the same characters as the Python patterns there
_ARROW_SUSPECT = r"[\x00-\x08\x0b-\x1f\x{FEFF}]"
_ARROW_CONTROLS = r"[\x00-\x08\x0b\x0c\x0e-\x1f]"
_ARROW_CONTROLS_BUT_NUL = r"[\x01-\x08\x0b\x0c\x0e-\x1f]"

#: ``(column, what, values changed)`` for the cleaning summary
Cleaned = list[tuple[str, str, int]]


def _count(mask: pa.ChunkedArray | pa.Array) -> int:
    import pyarrow.compute as pc

    return int(pc.sum(mask).as_py() or 0)


def _may_need_cleaning(col: pa.ChunkedArray) -> bool:
    """Whether any byte of the column's string data is a C0 control other than TAB/LF or
    starts a BOM: a numpy pass over the data buffers, about twice as fast as the RE2 scan on
    clean text (measured once on 300k synthetic abstracts), and nearly every file is clean. Bytes of
    a buffer outside the column's slice can only give a false "maybe" (the exact scan then
    decides), never a miss."""
    for chunk in col.chunks:
        data = chunk.buffers()[2]
        if data is None:
            continue
        a = np.frombuffer(data, dtype=np.uint8)
        if ((a < 0x20) & (a != 0x09) & (a != 0x0A)).any():
            return True
        lead = np.flatnonzero(a[:-2] == 0xEF)
        if ((a[lead + 1] == 0xBB) & (a[lead + 2] == 0xBF)).any():
            return True
    return False


def clean_string_columns(table: pa.Table) -> tuple[pa.Table, Cleaned]:
    """``table`` with every string column cleaned as ``schema.text.clean_text`` cleans a
    field, and what was changed. One regex scan per column when nothing needs cleaning.

    A list-of-strings column that needs cleaning raises :class:`Unsupported` (the line
    reader cleans it value by value); so does the same in edge files (rare; not worth the
    kernels).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from scholarkg.schema.text import BOM_REMOVED, CONTROLS_REMOVED, CR_MADE_LF, NUL_REMOVED

    cleaned: Cleaned = []
    for i, name in enumerate(table.column_names):
        col = table.column(i)
        t = col.type
        if pa.types.is_list(t) or pa.types.is_large_list(t):
            flat = pc.list_flatten(col)
            is_text = pa.types.is_string(flat.type) or pa.types.is_large_string(flat.type)
            if (
                is_text
                and _may_need_cleaning(flat)
                and _count(pc.match_substring_regex(flat, _ARROW_SUSPECT))
            ):
                raise Unsupported(f"list column {name!r} needs text cleaning")
            continue
        if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
            continue
        if not _may_need_cleaning(col) or not _count(pc.match_substring_regex(col, _ARROW_SUSPECT)):
            continue
        # the order of clean_text: NUL noted, CR/CRLF -> LF, BOM removed, other controls
        # noted (after the CR step), then every control removed
        found = [(NUL_REMOVED, _count(pc.match_substring(col, "\x00")))]
        if n_cr := _count(pc.match_substring(col, "\r")):
            col = pc.replace_substring(pc.replace_substring(col, "\r\n", "\n"), "\r", "\n")
        found.append((CR_MADE_LF, n_cr))
        if n_bom := _count(pc.match_substring(col, "\ufeff")):
            col = pc.replace_substring(col, "\ufeff", "")
        found.append((BOM_REMOVED, n_bom))
        n_controls = _count(pc.match_substring_regex(col, _ARROW_CONTROLS_BUT_NUL))
        found.append((CONTROLS_REMOVED, n_controls))
        col = pc.replace_substring_regex(col, _ARROW_CONTROLS, "")
        table = table.set_column(i, name, col)
        cleaned += [(name, what, n) for what, n in found if n]
    return table, cleaned


def stripped_keys(col: pa.ChunkedArray) -> Cleaned:
    """How many string ids ``_string_ids`` strips (counted as the line reader counts them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from scholarkg.schema.text import KEY_STRIPPED

    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        return []
    n = _count(pc.not_equal(pc.utf8_trim_whitespace(col), col))
    return [("id", KEY_STRIPPED, n)] if n else []


def _string_ids(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    """Ids as strings as ``str(value).strip()`` gives them: string or integer columns only."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks()
    if pa.types.is_integer(col.type) or pa.types.is_large_string(col.type):
        col = col.cast(pa.string())
    elif not pa.types.is_string(col.type):
        raise Unsupported(f"ids of type {col.type}")
    col = pc.utf8_trim_whitespace(col)  # keys: see schema.text.KEY_STRIPPED
    if col.null_count or _has_empty(col):
        raise Unsupported("a missing or empty id")
    return col


def _has_empty(col: pa.Array) -> bool:
    """Any ``""`` in a string array without nulls: two equal consecutive offsets."""
    offsets = np.frombuffer(col.buffers()[1], dtype=np.int32, count=len(col) + 1,
                            offset=col.offset * 4)  # fmt: skip
    return bool((offsets[1:] == offsets[:-1]).any())


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
    ids = _string_ids(table.column("id"))
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
        if _count(pc.match_substring(values, "\x00")):  # GRAPH.BULK ends strings at NUL
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
            col = _string_ids(col)
        parts.append(_encoded_column(col))
    rows = pc.binary_join_element_wise(*parts, pa.scalar(b""))
    if isinstance(rows, pa.ChunkedArray):
        rows = rows.combine_chunks()
    offsets = np.frombuffer(rows.buffers()[1], dtype=np.int32, count=len(rows) + 1,
                            offset=rows.offset * 4)  # fmt: skip
    body = memoryview(rows.buffers()[2])[int(offsets[0]) : int(offsets[-1])]
    return b"".join([_header(label, props), body])


def read_edge_endpoints(path: Path, fmt: str) -> tuple[pa.Array, pa.Array, int, pa.Table | None]:
    """``(start ids, end ids, first data line, properties or None)`` of an edge file.

    Properties only from JSONL (the caller checks that the first stored edge has them all).
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    props: pa.Table | None = None
    if fmt == "jsonl":
        table = _read_json(path)
        if "start" not in table.column_names or "end" not in table.column_names:
            raise Unsupported("missing endpoints")
        starts, ends = table.column("start"), table.column("end")
        first_line = 1
        names = [c for c in table.column_names if c not in ("start", "end")]
        if names:
            props = table.select(names)
            if clean_string_columns(props)[1]:
                raise Unsupported("edge properties that need text cleaning")
            for name in names:
                _check_column(name, props.column(name))
    else:
        from scholarkg.textio import open_text

        try:
            with open_text(path) as fh:
                header_line = fh.readline()
        except UnicodeDecodeError as err:  # the line reader names line and column
            raise Unsupported(str(err)) from None
        delimiter = "\t" if fmt == "tsv" else ","
        header = [h.strip().lower() for h in header_line.rstrip("\r\n").split(delimiter)]
        if len(header) != 2 or sorted(header) != ["end", "start"] or '"' in header_line:
            raise Unsupported("edge properties, quoting or an unusual header")
        try:
            with _stream(path) as fh:
                table = pacsv.read_csv(
                    fh,
                    read_options=pacsv.ReadOptions(skip_rows=1, column_names=["a", "b"]),
                    parse_options=pacsv.ParseOptions(delimiter=delimiter),
                    convert_options=pacsv.ConvertOptions(
                        column_types={"a": pa.string(), "b": pa.string()},
                        strings_can_be_null=False,
                        quoted_strings_can_be_null=False,
                    ),
                )
        except (pa.ArrowException, OSError, ValueError) as err:
            raise Unsupported(str(err)) from None
        pair = (table.column("a"), table.column("b"))
        starts, ends = pair if header[0] == "start" else pair[::-1]
        starts, ends = pc.utf8_trim_whitespace(starts), pc.utf8_trim_whitespace(ends)
        first_line = 2
    out = []
    for col in (starts, ends):
        col = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
        if pa.types.is_integer(col.type) or pa.types.is_large_string(col.type):
            col = col.cast(pa.string())
        elif not pa.types.is_string(col.type):
            raise Unsupported(f"endpoints of type {col.type}")
        col = pc.utf8_trim_whitespace(col)  # as the node ids (CSV cells: trimmed already)
        if col.null_count or _has_empty(col):
            raise Unsupported("an empty endpoint")
        if _count(pc.match_substring_regex(col, _ARROW_SUSPECT)):
            raise Unsupported("an endpoint that needs text cleaning")
        out.append(col)
    return out[0], out[1], first_line, props


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


def line_numbers(path: Path, first_line: int, n_rows: int) -> np.ndarray | None:
    """Row ``i`` is on line ``first_line + i`` when the file has no blank lines: checked by
    counting newlines (plain files only); ``None`` when that cannot be told cheaply."""
    if path.name.lower().endswith(".gz"):
        return None
    newlines, last = 0, b"\n"
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 24):
            newlines += chunk.count(b"\n")
            last = chunk[-1:]
    lines = newlines + (0 if last == b"\n" else 1)
    if lines != first_line - 1 + n_rows:
        return None
    return np.arange(first_line, first_line + n_rows)


def slices(table: pa.Table, size: int) -> Iterator[pa.Table]:
    for lo in range(0, table.num_rows, size):
        yield table.slice(lo, size)

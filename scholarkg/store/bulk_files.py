"""Reading the files of a bulk load, for both backends: node and edge files as Arrow tables or
line by line, their text cleaned as the record layer cleans it, their keys checked.

What a bulk load reads does not depend on the database it builds: the embedded store encodes
the result as ``GRAPH.BULK`` tokens (``falkordb/bulk.py``, ``falkordb/bulk_arrow.py``), the
managed Neo4j as its offline importer's CSVs (``neo4j/importer.py``); both take the same
:class:`NodeSource` and :class:`EdgeSource` and read them here, so neither backend reaches
into the other.

* files: JSON Lines (``.gz`` too) or Arrow IPC (:data:`ARROW_SUFFIXES`) node files; edge files
  as ``start,end[,props…]`` CSV/TSV or JSONL ``{start, end, …props}`` (:func:`edge_format`);
* the columnar reader (:func:`read_table`, :func:`read_edge_endpoints`) raises
  :class:`Unsupported` where it cannot give exactly the line reader's result; the line reader
  (:func:`read_edge_rows`) then reads the file and names a bad line (``InputError`` with
  file, line and field);
* text cleaning (:func:`clean_string_columns`, :func:`sanitised`) follows
  ``schema.text.clean_text``: NUL and control characters removed, CR/CRLF made LF, BOMs
  removed, counted with the record layer's phrases; string ids are stripped
  (:func:`string_ids`, :func:`stripped_keys`).

Which value types a backend can store is its own check (``bulk_arrow._check_column`` for
``GRAPH.BULK``; the Neo4j importer types its columns itself).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scholarkg.errors import InputError
from scholarkg.schema.ddl import check_property
from scholarkg.schema.text import MAX_KEY_BYTES, sanitise_value
from scholarkg.textio import decoded_lines, iter_jsonl, open_binary, open_text

if TYPE_CHECKING:
    import pyarrow as pa


@dataclass(frozen=True)
class NodeSource:
    """A JSONL file of nodes: one object per line with at least ``id``."""

    path: Path
    label: str = "Paper"
    #: labels every node of the file carries besides ``label`` (``("Stub",)``): sent in the
    #: node token's name (``Paper:Stub``); ids and positions are ``label``'s
    extra_labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class EdgeSource:
    """CSV/TSV with header ``start,end[,props…]`` or JSONL ``{start, end, …props}``."""

    path: Path
    rel_type: str = "CITES"
    start_label: str = "Paper"
    end_label: str = "Paper"
    #: the same properties on every edge of a ``start,end`` file (a source's mark, e.g.
    #: ``(("from_openalex", True),)``): encoded once, not read from a column per edge
    properties: tuple[tuple[str, Any], ...] = ()


def edge_format(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith(".tsv"):
        return "tsv"
    if name.endswith(".csv"):
        return "csv"
    with open_text(path) as fh:
        first = fh.readline()
    if first.lstrip().startswith("{"):
        return "jsonl"
    return "tsv" if "\t" in first else "csv"


# -- the columnar reader (pyarrow) --------------------------------------------------------


class Unsupported(Exception):
    """This file needs the line reader (which reproduces every case and names bad lines)."""


class KeyTooLong(Unsupported):
    """An id over ``schema.text.MAX_KEY_BYTES``: the line reader names its line; a file
    without lines (Arrow) is refused at ``record`` (1-based)."""

    def __init__(self, record: int, key: str) -> None:
        super().__init__(f"an id over {MAX_KEY_BYTES:,} bytes (record {record})")
        self.record = record
        self.key = key


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


def count_true(mask: pa.ChunkedArray | pa.Array) -> int:
    """How many values of a boolean array are true."""
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
                and count_true(pc.match_substring_regex(flat, _ARROW_SUSPECT))
            ):
                raise Unsupported(f"list column {name!r} needs text cleaning")
            continue
        if not (pa.types.is_string(t) or pa.types.is_large_string(t)):
            continue
        if not _may_need_cleaning(col) or not count_true(
            pc.match_substring_regex(col, _ARROW_SUSPECT)
        ):
            continue
        # the order of clean_text: NUL noted, CR/CRLF -> LF, BOM removed, other controls
        # noted (after the CR step), then every control removed
        found = [(NUL_REMOVED, count_true(pc.match_substring(col, "\x00")))]
        if n_cr := count_true(pc.match_substring(col, "\r")):
            col = pc.replace_substring(pc.replace_substring(col, "\r\n", "\n"), "\r", "\n")
        found.append((CR_MADE_LF, n_cr))
        if n_bom := count_true(pc.match_substring(col, "\ufeff")):
            col = pc.replace_substring(col, "\ufeff", "")
        found.append((BOM_REMOVED, n_bom))
        n_controls = count_true(pc.match_substring_regex(col, _ARROW_CONTROLS_BUT_NUL))
        found.append((CONTROLS_REMOVED, n_controls))
        col = pc.replace_substring_regex(col, _ARROW_CONTROLS, "")
        table = table.set_column(i, name, col)
        cleaned += [(name, what, n) for what, n in found if n]
    return table, cleaned


def stripped_keys(col: pa.ChunkedArray) -> Cleaned:
    """How many string ids :func:`string_ids` strips (counted as the line reader counts them)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from scholarkg.schema.text import KEY_STRIPPED

    if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
        return []
    n = count_true(pc.not_equal(pc.utf8_trim_whitespace(col), col))
    return [("id", KEY_STRIPPED, n)] if n else []


def string_ids(col: pa.ChunkedArray | pa.Array) -> pa.Array:
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
    too_long = pc.greater(pc.binary_length(col), MAX_KEY_BYTES)
    if pc.any(too_long).as_py():  # schema.text.MAX_KEY_BYTES says why
        at = pc.index(too_long, True).as_py()
        raise KeyTooLong(at + 1, col[at].as_py())
    return col


def _has_empty(col: pa.Array) -> bool:
    """Any ``""`` in a string array without nulls: two equal consecutive offsets."""
    offsets = np.frombuffer(col.buffers()[1], dtype=np.int32, count=len(col) + 1,
                            offset=col.offset * 4)  # fmt: skip
    return bool((offsets[1:] == offsets[:-1]).any())


def read_edge_endpoints(path: Path, fmt: str) -> tuple[pa.Array, pa.Array, int, pa.Table | None]:
    """``(start ids, end ids, first data line, properties or None)`` of an edge file.

    Properties only from JSONL; a key an edge lacks is a null in its column (no value).
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
            for name in names:  # the property types are each backend's to check
                try:
                    check_property(name)
                except InputError:
                    raise Unsupported(f"property name {name!r}") from None
    else:
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
        if any(pc.any(pc.match_substring_regex(c, "[\r\n]")).as_py() for c in pair):
            # a quote opened and never closed took the later lines into one value (Arrow
            # reads it so): the line-by-line reader names the line where it opens
            raise Unsupported("a line break inside a value")
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
        if count_true(pc.match_substring_regex(col, _ARROW_SUSPECT)):
            raise Unsupported("an endpoint that needs text cleaning")
        out.append(col)
    return out[0], out[1], first_line, props


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


# -- the line reader ---------------------------------------------------------------------


def sanitised(
    obj: dict[str, Any], label: str, path: Path, line: int, *, required: Sequence[str]
) -> dict[str, Any]:
    """``obj``'s values through the record layer's sanitiser (``schema.text``): NUL and
    control characters removed, CR/CRLF made LF, BOMs removed, lone surrogates replaced,
    non-finite numbers stored as missing (refused for ``required`` keys), over-long strings
    refused with ``file:line: field``. So the bulk path stores what the MERGE loaders store."""
    out = obj
    for key, value in obj.items():
        if isinstance(value, str | float | list):  # ints: encode_value checks the range
            try:
                new = sanitise_value(value, label=label, field=key, required=key in required)
            except ValueError as err:
                raise InputError(str(err), path=path, line=line, field=key) from None
            if new is not value:
                out = dict(obj) if out is obj else out
                out[key] = new
    return out


def check_property_at(name: str, path: Path, line: int) -> None:
    """``check_property`` whose error names the file, line and offending key."""
    try:
        check_property(name)
    except InputError as err:
        raise InputError(err.message, path=path, line=line, field=name) from None


def _infer_cell(text: str) -> Any:
    """CSV cell → int, float, bool or str (the bulk loader's inference); '' → null."""
    text = text.strip()
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
        if math.isfinite(number):
            return number
    except ValueError:
        pass
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    return text


def read_edge_rows(
    path: Path, fmt: str, rel: str = "edge"
) -> Iterator[tuple[int, str, str, dict[str, Any] | None]]:
    """``(line, start, end, props or None)`` for every data line of an edge file, its
    text cleaned as the record layer cleans it (``rel`` names the counts)."""
    for lineno, start, end, props in raw_edge_rows(path, fmt):
        pair = {"start": start, "end": end}
        ends = sanitised(pair, rel, path, lineno, required=("start", "end"))
        if props is not None:
            props = sanitised(props, rel, path, lineno, required=())
        yield lineno, ends["start"], ends["end"], props


def raw_edge_rows(path: Path, fmt: str) -> Iterator[tuple[int, str, str, dict[str, Any] | None]]:
    if fmt == "jsonl":
        for lineno, obj in iter_jsonl(path):
            for key in ("start", "end"):
                if obj.get(key) in (None, "") or isinstance(obj.get(key), dict | list):
                    raise InputError(f"missing {key}", path=path, line=lineno, field=key)
            props = {k: v for k, v in obj.items() if k not in ("start", "end")}
            start, end = str(obj["start"]).strip(), str(obj["end"]).strip()
            if not start or not end:
                raise InputError(
                    "empty endpoint", path=path, line=lineno, field="end" if start else "start"
                )
            yield lineno, start, end, props or None
        return
    with open_binary(path) as fh:
        # decoded line by line: a byte that is not UTF-8 is an InputError at its line
        lines = decoded_lines(fh, path=path)
        # strict: a quote never closed is an error, not the rest of the file read into one
        # value (ids hold no line break, so a value that spans lines is refused below too)
        reader = csv.reader(lines, delimiter="\t" if fmt == "tsv" else ",", strict=True)
        try:
            header = [h.strip() for h in next(reader)]
        except StopIteration:
            return
        except csv.Error as err:
            raise InputError(f"not a readable CSV/TSV line ({err})", path=path, line=1) from None
        low = [h.lower() for h in header]
        if "start" not in low or "end" not in low:
            raise InputError(
                f"edge file header must name 'start' and 'end' columns, got {header}",
                path=path,
                line=1,
            )
        i_s, i_e = low.index("start"), low.index("end")
        extra = [(i, h) for i, h in enumerate(header) if i not in (i_s, i_e)]
        width = len(header)
        rows = iter(reader)
        while True:
            opened = reader.line_num + 1
            try:
                row = next(rows)
            except StopIteration:
                return
            except csv.Error as err:
                raise InputError(
                    f"not a readable CSV/TSV line ({err}): a quote opened here is never "
                    "closed, or closed inside a value",
                    path=path,
                    line=opened,
                ) from None
            lineno = opened
            if reader.line_num != opened:  # one record over several lines: a quoted break
                raise InputError(
                    "a value spans lines from here: a quote opened on this line closes "
                    f"on line {reader.line_num} (edge ids hold no line break)",
                    path=path,
                    line=opened,
                )
            if not row:
                continue
            if len(row) != width:
                raise InputError(
                    f"expected {width} columns, found {len(row)}", path=path, line=lineno
                )
            start, end = row[i_s].strip(), row[i_e].strip()
            if not start or not end:
                raise InputError(
                    "empty endpoint",
                    path=path,
                    line=lineno,
                    field="start" if not start else "end",
                )
            cells = {h: _infer_cell(row[i]) for i, h in extra} if extra else None
            yield lineno, start, end, cells

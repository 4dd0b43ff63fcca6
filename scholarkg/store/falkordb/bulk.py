"""Build a *new* FalkorDB graph from large node/edge files with ``GRAPH.BULK``.

``UNWIND … MERGE`` runs at ~8k relationships/s on FalkorDB (docs/performance.md): two
hours for a 50M-citation corpus. ``GRAPH.BULK`` takes pre-encoded binary node and edge
blocks and writes them straight into the graph matrices, which is what
``falkordb-bulk-loader`` drives.

Why we encode the protocol ourselves instead of depending on ``falkordb-bulk-loader``
(1.2.0): it is a CLI over CSV files only (our papers come as JSONL with varying keys),
it reports bad rows with ``sys.exit`` and click progress bars instead of exceptions, and
it pulls in ``pathos``. The format is small and stable (``bulk_insert.c`` in FalkorDB):

* command: ``GRAPH.BULK <graph> [BEGIN] <n_nodes> <n_edges> <n_label_tokens>
  <n_reltype_tokens> <label tokens…> <reltype tokens…>`` (``BEGIN`` only on the first
  command; it fails if the key exists);
* token header: ``name\\0`` + uint32 property count + ``prop\\0`` per property;
* node: one encoded value per header property; edge: uint64 source + uint64 destination
  (internal node ids) + values;
* value: 1-byte type — 0 null (property not set), 1 bool (1 byte), 2 double, 3 string
  (``\\0``-terminated), 4 int64, 5 array (int64 length + values).

Nodes get internal ids 0, 1, 2… in the order they are sent to a new graph, so edges can
reference them without a lookup on the server. All native byte order ("=").

Speed (issue 22): files are parsed and encoded by pyarrow in native code where that gives
exactly the line reader's result (``store/falkordb/bulk_arrow.py``), else line by line as before;
a parser thread hands finished tokens to the sender, so parsing overlaps the server's work;
and the AOF is rewritten once, after the indexes are built, instead of once after the data
and again after the indexes. Issue 28: one range index statement per label, and the AOF
rewrite runs beside the full-text index's population (``_finish_schema_and_snapshot`` says
why that is safe); list columns are encoded by Arrow kernels too.

A bad line raises ``InputError`` with file, line and field (found by the line reader when
the fast reader refuses a file). Since sending starts before the last file is parsed, a bad
line found after the first command deletes the partial graph before raising: either way the
graph is not created, and an existing graph is never touched (bulk loading refuses them).
"""

from __future__ import annotations

import contextvars
import logging
import queue
import struct
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scholarkg.errors import InputError, StoreError
from scholarkg.schema.ddl import (
    SchemaSpec,
    check_label,
    check_property,
    check_rel_type,
    default_schema,
)
from scholarkg.schema.text import (
    KEY_STRIPPED,
    collect_cleaning,
    describe_cleaning,
    key_too_long,
    key_too_long_message,
    note_cleaning,
)
from scholarkg.store import bulk_files
from scholarkg.store.bulk_files import EdgeSource, NodeSource
from scholarkg.store.falkordb import bulk_arrow
from scholarkg.store.falkordb.bulk_values import (
    _BadValue,
    _header,
    encode_value,
)
from scholarkg.store.falkordb.persistence import (
    automatic_rewrites_paused,
    compact_aof,
    persistence_info,
    start_aof_rewrite,
    wait_aof_rewrite,
)
from scholarkg.textio import iter_jsonl

if TYPE_CHECKING:
    from scholarkg.store.falkordb.store import FalkorDBStore

log = logging.getLogger(__name__)

#: ``progress(stage, done)``: stage is "parse nodes", "parse edges", "send nodes",
#: "send edges" or "schema"; ``done`` counts items of that stage so far.
BulkProgress = Callable[[str, int], None]

#: bytes per GRAPH.BULK command (falkordb-bulk-loader's default; Redis caps a bulk
#: string at 512 MB and a query buffer at 1 GB)
MAX_COMMAND_BYTES = 64_000_000
#: nodes per label token: each token gets the union of its nodes' keys as header
NODES_PER_TOKEN = 50_000
#: edges per reltype token
EDGES_PER_TOKEN = 500_000
#: edges whose endpoints the columnar path looks up at once (one hash table of the ids
#: per chunk; smaller chunks start sending sooner)
LOOKUP_CHUNK = 1_000_000
_EDGE_DTYPE = np.dtype([("s", "=u8"), ("d", "=u8")])
#: a command is sent once this many bytes of tokens are parsed (smaller than the cap, so
#: the server starts while the parser is still reading)
STREAM_COMMAND_BYTES = 16_000_000


@dataclass(frozen=True)
class EdgePositions:
    """Edges given by where their endpoints stand among the nodes of their labels in this
    load (``0``: the first ``start_label`` node sent, in the order of the node sources and
    their rows), not by id.

    Why: a loader that wrote the node files itself already knows each endpoint's row, so
    writing ids out only to look them up again is wasted work; a 1M-work OpenAlex snapshot
    has ~20M references, and their id file and the hash lookup of 40M ids were ~15 % of its
    bulk load. ``name`` says what the edges are in messages (there is no file).
    """

    start: np.ndarray
    end: np.ndarray
    name: str
    rel_type: str = "CITES"
    start_label: str = "Paper"
    end_label: str = "Paper"
    #: the same properties on every edge, as :attr:`EdgeSource.properties`
    properties: tuple[tuple[str, Any], ...] = ()


def _constant(properties: tuple[tuple[str, Any], ...]) -> tuple[list[str], bytes]:
    """``(names, encoded values)`` of constant edge ``properties``, appended to every edge
    record."""
    for name, _ in properties:
        check_property(name)
    return [n for n, _ in properties], b"".join(encode_value(v) for _, v in properties)


def _edge_records(a: Any, b: Any, suffix: bytes) -> bytes:
    """``uint64 src, uint64 dst`` (+ the constant properties' bytes) per edge, in numpy."""
    dtype = (
        _EDGE_DTYPE
        if not suffix
        else np.dtype([("s", "=u8"), ("d", "=u8"), ("c", f"V{len(suffix)}")])
    )
    arr = np.empty(len(a), dtype=dtype)
    arr["s"] = a
    arr["d"] = b
    if suffix:
        arr["c"] = np.void(suffix)
    return arr.tobytes()


@dataclass
class BulkResult:
    nodes: int = 0
    relationships: int = 0
    #: edges whose endpoint is not among the loaded nodes (skipped unless strict)
    skipped_relationships: int = 0
    skipped_examples: list[str] = field(default_factory=list)
    #: wall time of the parser thread (overlaps ``send_seconds``)
    parse_seconds: float = 0.0
    #: time spent in GRAPH.BULK commands (and the AOF rewrite when there is no schema step)
    send_seconds: float = 0.0
    #: index/constraint creation and the one AOF rewrite after it (the two parts below)
    schema_seconds: float = 0.0
    index_seconds: float = 0.0
    compact_seconds: float = 0.0
    schema_created: list[str] = field(default_factory=list)
    #: files read by the columnar reader / line by line (by path)
    fast_files: list[str] = field(default_factory=list)
    line_files: list[str] = field(default_factory=list)
    #: wall time of the whole load (parse and send overlap, so not their sum)
    total_seconds: float = 0.0
    #: what the text sanitiser changed, as ``Label.field: what in n value(s)`` lines
    cleaned: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        if self.total_seconds:
            return self.total_seconds
        return self.parse_seconds + self.send_seconds + self.schema_seconds


# -- value encoding ----------------------------------------------------------------------


# -- file reading ------------------------------------------------------------------------


@dataclass
class _LabelNodes:
    """The id → internal id map of one label's nodes.

    Kept as Arrow arrays for the columnar path (a hash lookup of 5M endpoints in native
    code) and as a dict for the line reader; each view is completed from the other when
    first needed after the other grew.
    """

    label: str
    ids: dict[str, int] = field(default_factory=dict)
    #: (ids, internal ids) chunks added by the columnar path
    chunks: list[tuple[Any, np.ndarray]] = field(default_factory=list)
    _in_dict: int = 0  # chunks already copied into ``ids``
    _from_dict: list[tuple[str, int]] = field(default_factory=list)  # line-reader ids
    _arrays: tuple[Any, np.ndarray] | None = None
    #: internal ids in the order the nodes were sent, whichever reader took them
    _sent: list[np.ndarray] = field(default_factory=list)

    def add_chunk(self, ids: Any, internal: np.ndarray) -> None:
        self.chunks.append((ids, internal))
        self._sent.append(internal)
        self._arrays = None

    def add_line_ids(self, pairs: list[tuple[str, int]]) -> None:
        self._from_dict.extend(pairs)
        self._sent.append(np.fromiter((v for _, v in pairs), np.int64, len(pairs)))
        self._arrays = None

    def in_sent_order(self) -> np.ndarray:
        """Internal id of the label's ``i``-th node sent (what :class:`EdgePositions` index)."""
        if len(self._sent) != 1:
            self._sent = [np.concatenate(self._sent) if self._sent else np.zeros(0, np.int64)]
        return self._sent[0]

    def as_dict(self) -> dict[str, int]:
        for ids, internal in self.chunks[self._in_dict :]:
            self.ids.update(zip(ids.to_pylist(), internal.tolist(), strict=True))
        self._in_dict = len(self.chunks)
        return self.ids

    def as_arrays(self) -> tuple[Any, np.ndarray]:
        """``(ids, internal ids)`` of every node of the label."""
        import pyarrow as pa

        if self._arrays is None:
            ids = [c[0] for c in self.chunks]
            internal = [c[1] for c in self.chunks]
            if self._from_dict:
                ids.append(pa.array([k for k, _ in self._from_dict], pa.string()))
                internal.append(np.array([v for _, v in self._from_dict], np.int64))
            if not ids:
                ids, internal = [pa.array([], pa.string())], [np.zeros(0, np.int64)]
            self._arrays = (pa.concat_arrays(ids), np.concatenate(internal))
        return self._arrays


Token = tuple[str, int, bytes]  # ("n" | "e", count, token)


class _Parser:
    """Parses and encodes the inputs into GRAPH.BULK tokens, in the order they must be sent
    (internal node ids are assigned in creation order; nodes before edges)."""

    def __init__(self, progress: BulkProgress | None, *, columnar: bool = True) -> None:
        self.progress = progress
        self.columnar = columnar
        self.next_id = 0
        self.labels: dict[str, _LabelNodes] = {}
        self.result = BulkResult()

    def tokens(
        self,
        nodes: Sequence[NodeSource],
        edges: Sequence[EdgeSource | EdgePositions],
        *,
        strict: bool,
    ) -> Iterator[Token]:
        for src in nodes:
            for count, token in self.nodes(src):
                yield "n", count, token
        for esrc in edges:
            for count, token in self.edges(esrc, strict=strict):
                yield "e", count, token

    def _entry(self, label: str) -> _LabelNodes:
        entry = self.labels.get(label)
        if entry is None:
            entry = self.labels[label] = _LabelNodes(label)
        return entry

    def nodes(self, src: NodeSource) -> Iterator[tuple[int, bytes]]:
        label = check_label(src.label)
        entry = self._entry(label)
        token_label = ":".join([label, *map(check_label, src.extra_labels)])
        arrow_file = src.path.name.lower().endswith(bulk_files.ARROW_SUFFIXES)
        if self.columnar or arrow_file:  # an Arrow file has no lines to read one by one
            try:
                tokens = self._nodes_columnar(src, entry, token_label)
            except ImportError:  # pragma: no cover - pyarrow is a dependency
                self.columnar = False
            except bulk_files.Unsupported as why:
                if arrow_file and isinstance(why, bulk_files.KeyTooLong):
                    raise InputError(
                        key_too_long_message(why.key),
                        path=src.path, line=why.record, field="id", unit="record",
                    ) from None  # fmt: skip
                if arrow_file:
                    raise InputError(
                        f"cannot bulk-load this Arrow node file: {why} (the encoder takes "
                        "string, int64, bool and lists of those; give floats or nested "
                        "values as JSON Lines)",
                        path=src.path,
                    ) from None
                log.info("%s: read line by line (%s)", src.path, why)
            else:
                self.result.fast_files.append(str(src.path))
                yield from tokens
                return
        self.result.line_files.append(str(src.path))
        entry.as_dict()
        yield from self._nodes_by_line(src, entry, token_label)

    def _nodes_columnar(
        self, src: NodeSource, entry: _LabelNodes, token_label: str
    ) -> Iterator[tuple[int, bytes]]:
        """Reads and checks the whole file first (``Unsupported`` before any id is
        assigned), then returns the generator that encodes it token by token."""
        import pyarrow.compute as pc

        table, ids, cleaned = bulk_arrow.read_node_table(src.path)
        if entry.chunks or entry.ids:
            known, _ = entry.as_arrays()
            if pc.any(pc.is_in(ids, value_set=known)).as_py():
                raise bulk_files.Unsupported("an id already loaded from another file")
        for name, what, n in cleaned:  # counted once the file is taken (no double count)
            note_cleaning(entry.label, name, what, n)
        entry.add_chunk(ids, np.arange(self.next_id, self.next_id + len(ids), dtype=np.int64))
        self.next_id += len(ids)

        def encode() -> Iterator[tuple[int, bytes]]:
            for part in bulk_arrow.slices(table, NODES_PER_TOKEN):
                token = bulk_arrow.node_token(part, token_label)
                self.result.nodes += part.num_rows
                if self.progress:
                    self.progress("parse nodes", self.result.nodes)
                yield part.num_rows, token

        return encode()

    def _nodes_by_line(
        self, src: NodeSource, entry: _LabelNodes, token_label: str
    ) -> Iterator[tuple[int, bytes]]:
        label = entry.label
        pending: list[tuple[int, dict[str, Any]]] = []
        checked_keys = {"id"}  # property names already validated
        for lineno, raw in iter_jsonl(src.path):
            obj = bulk_files.sanitised(raw, label, src.path, lineno, required=("id",))
            node_id = obj.get("id")
            if isinstance(node_id, str) and node_id != node_id.strip():
                node_id = node_id.strip()  # keys: see schema.text.KEY_STRIPPED
                note_cleaning(label, "id", KEY_STRIPPED)
            if node_id is None or node_id == "" or isinstance(node_id, dict | list | bool):
                raise InputError("missing or non-scalar id", path=src.path, line=lineno, field="id")
            node_id = str(node_id)
            if key_too_long(node_id):  # see schema.text.MAX_KEY_BYTES
                raise InputError(
                    key_too_long_message(node_id), path=src.path, line=lineno, field="id"
                )
            if node_id in entry.ids:
                raise InputError(
                    f"duplicate {label} id {node_id!r}", path=src.path, line=lineno, field="id"
                )
            obj["id"] = node_id
            for key in obj:
                if key not in checked_keys:
                    bulk_files.check_property_at(key, src.path, lineno)
                    checked_keys.add(key)
            pending.append((lineno, obj))
            entry.ids[node_id] = -1  # reserved; real internal id set when the token closes
            if len(pending) >= NODES_PER_TOKEN:
                yield self._close_token(entry, pending, src.path, token_label)
                pending = []
        if pending:
            yield self._close_token(entry, pending, src.path, token_label)

    def _close_token(
        self,
        entry: _LabelNodes,
        rows: list[tuple[int, dict[str, Any]]],
        path: Path,
        token_label: str,
    ) -> tuple[int, bytes]:
        """Encode a block of nodes under one header: the union of their keys (null = unset)."""
        keys: dict[str, None] = {"id": None}
        for _, row in rows:
            for k in row:
                keys.setdefault(k, None)
        props = list(keys)
        parts = [_header(token_label, props)]
        for lineno, row in rows:
            for key in props:
                try:
                    parts.append(encode_value(row.get(key)))
                except _BadValue as err:
                    raise InputError(str(err), path=path, line=lineno, field=key) from None
        pairs = []
        for _, row in rows:
            entry.ids[row["id"]] = self.next_id
            pairs.append((row["id"], self.next_id))
            self.next_id += 1
        entry.add_line_ids(pairs)
        self.result.nodes += len(rows)
        if self.progress:
            self.progress("parse nodes", self.result.nodes)
        return len(rows), b"".join(parts)

    def edges(
        self, src: EdgeSource | EdgePositions, *, strict: bool
    ) -> Iterator[tuple[int, bytes]]:
        rel = check_rel_type(src.rel_type)
        for lab in (src.start_label, src.end_label):
            check_label(lab)
        if isinstance(src, EdgePositions):
            yield from self._edges_by_position(src, rel)
            return
        fmt = bulk_files.edge_format(src.path)
        if self.columnar:
            try:
                tokens = self._edges_columnar(src, rel, fmt, strict=strict)
            except bulk_files.Unsupported as why:
                log.info("%s: read line by line (%s)", src.path, why)
            else:
                self.result.fast_files.append(str(src.path))
                yield from tokens
                return
        self.result.line_files.append(str(src.path))
        yield from self._edges_by_line(src, rel, fmt, strict=strict)

    def _edges_columnar(
        self, src: EdgeSource, rel: str, fmt: str, *, strict: bool
    ) -> Iterator[tuple[int, bytes]]:
        """Reads and checks the whole file eagerly (``Unsupported`` comes before any token or
        count); returns the token iterator. Without properties the endpoints are looked up
        chunk by chunk inside that iterator, so the first edges are sent while later ones
        are still being looked up."""
        starts, ends, first_line, props = bulk_arrow.read_edge_endpoints(src.path, fmt)
        if props is None:
            return self._edge_chunks(src, rel, fmt, starts, ends, first_line, strict=strict)
        if src.properties:
            raise InputError("constant edge properties need a start,end file", path=src.path)
        (a_ok, a), (b_ok, b) = self._lookup(src, starts, ends)
        ok = a_ok & b_ok
        missing = np.flatnonzero(~ok)
        if missing.size:
            if strict:
                raise bulk_files.Unsupported("an unknown endpoint (the line reader names it)")
            rows = [(i, not a_ok[i]) for i in missing[:5].tolist()]
            self._skipped_examples(src, fmt, starts, ends, rows, first_line)
            self.result.skipped_relationships += int(missing.size)
            a, b = a[ok], b[ok]
            props = props.filter(ok)
        # a key an edge lacks is a null in its column, sent as no value: what the line
        # reader sends for it (an OpenAlex authorship lists institutions or not)
        return self._edge_tokens(rel, a, b, props)

    def _edges_by_position(self, src: EdgePositions, rel: str) -> Iterator[tuple[int, bytes]]:
        """Positions → internal ids by one gather per end; a position past the label's
        nodes is the caller's bug, refused before any edge is sent."""
        if src.start.shape != src.end.shape:
            raise InputError(f"{src.name}: {src.start.size} start and {src.end.size} end positions")
        ends = []
        for label, positions in ((src.start_label, src.start), (src.end_label, src.end)):
            internal = self._entry(label).in_sent_order()
            if positions.size and (positions.min() < 0 or positions.max() >= internal.size):
                raise InputError(
                    f"{src.name}: a {rel} endpoint position outside the {internal.size} "
                    f"{label} nodes of this load"
                )
            ends.append(internal[positions])
        return self._edge_tokens(rel, ends[0], ends[1], None, _constant(src.properties))

    def _lookup(
        self, src: EdgeSource, starts: Any, ends: Any
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """``[(found?, internal id)]`` for the start and the end column (Arrow hash lookup;
        one table and one probe pass when both ends have the same label)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if src.start_label == src.end_label:
            columns = [(pa.concat_arrays([starts, ends]), src.start_label)]
        else:
            columns = [(starts, src.start_label), (ends, src.end_label)]
        found = []
        for col, label in columns:
            ids, internal = self._entry(label).as_arrays()
            pos = pc.index_in(col, value_set=ids)
            valid = pos.is_valid().to_numpy(zero_copy_only=False)
            where = pos.fill_null(0).to_numpy(zero_copy_only=False)
            found.append((valid, internal[where] if internal.size else where))
        if len(found) == 1:
            n = len(starts)
            valid, internal_ids = found[0]
            found = [(valid[:n], internal_ids[:n]), (valid[n:], internal_ids[n:])]
        return found

    def _edge_chunks(
        self,
        src: EdgeSource,
        rel: str,
        fmt: str,
        starts: Any,
        ends: Any,
        first_line: int,
        *,
        strict: bool,
    ) -> Iterator[tuple[int, bytes]]:
        examples: list[tuple[int, bool]] = []
        for lo in range(0, len(starts), LOOKUP_CHUNK):
            s_part, e_part = starts.slice(lo, LOOKUP_CHUNK), ends.slice(lo, LOOKUP_CHUNK)
            (a_ok, a), (b_ok, b) = self._lookup(src, s_part, e_part)
            ok = a_ok & b_ok
            missing = np.flatnonzero(~ok)
            if missing.size:
                if strict:  # the line reader names the line; it raises before we go on
                    for _ in self._edges_by_line(src, rel, fmt, strict=True):
                        pass
                    raise InputError("unknown edge endpoint", path=src.path)  # pragma: no cover
                self.result.skipped_relationships += int(missing.size)
                room = 5 - len(examples)
                examples += [(lo + i, not a_ok[i]) for i in missing[:room].tolist()]
                a, b = a[ok], b[ok]
            yield from self._edge_tokens(rel, a, b, None, _constant(src.properties))
        if examples:
            self._skipped_examples(src, fmt, starts, ends, examples, first_line)

    def _edge_tokens(
        self,
        rel: str,
        a: np.ndarray,
        b: np.ndarray,
        props: Any,
        constant: tuple[list[str], bytes] = ([], b""),
    ) -> Iterator[tuple[int, bytes]]:
        header = _header(rel, props.column_names if props is not None else constant[0])
        for lo in range(0, a.shape[0], EDGES_PER_TOKEN):
            n = min(EDGES_PER_TOKEN, a.shape[0] - lo)
            if props is not None:
                body = bulk_arrow.edge_rows(a[lo : lo + n], b[lo : lo + n], props.slice(lo, n))
            else:
                body = _edge_records(a[lo : lo + n], b[lo : lo + n], constant[1])
            self.result.relationships += n
            if self.progress:
                self.progress("parse edges", self.result.relationships)
            yield n, header + body

    def _skipped_examples(
        self,
        src: EdgeSource,
        fmt: str,
        starts: Any,
        ends: Any,
        rows: list[tuple[int, bool]],
        first_line: int,
    ) -> None:
        """The first skipped edges as ``file:line (id)``, as the line reader reports them."""
        room = 5 - len(self.result.skipped_examples)
        if room <= 0:
            return
        lines = bulk_files.line_numbers(src.path, first_line, len(starts))
        if lines is None:  # blank lines or a compressed file: find them line by line
            known_s = self._entry(src.start_label).as_dict()
            known_e = self._entry(src.end_label).as_dict()
            # only files without text to clean get here (columnar path): raw rows
            for lineno, start, end, _ in bulk_files.raw_edge_rows(src.path, fmt):
                if start not in known_s or end not in known_e:
                    bad = start if start not in known_s else end
                    self.result.skipped_examples.append(f"{src.path}:{lineno} ({bad})")
                    room -= 1
                    if room == 0:
                        return
            return
        for i, start_missing in rows[:room]:
            bad = starts[i].as_py() if start_missing else ends[i].as_py()
            self.result.skipped_examples.append(f"{src.path}:{int(lines[i])} ({bad})")

    def _edges_by_line(
        self, src: EdgeSource, rel: str, fmt: str, *, strict: bool
    ) -> Iterator[tuple[int, bytes]]:
        starts = self._entry(src.start_label).as_dict()
        ends = self._entry(src.end_label).as_dict()
        rows = bulk_files.read_edge_rows(src.path, fmt, rel)
        s_buf: list[int] = []
        d_buf: list[int] = []
        props_buf: list[bytes] = []
        #: the properties the edges so far carried, in the order first met
        prop_names: list[str] = []
        constant = _constant(src.properties)
        for lineno, start, end, props in rows:
            if props and src.properties:
                raise InputError(
                    "constant edge properties need a start,end file", path=src.path, line=lineno
                )
            a = starts.get(start)
            b = ends.get(end)
            if a is None or b is None:
                missing = start if a is None else end
                if strict:
                    raise InputError(
                        f"unknown {src.start_label if a is None else src.end_label} id {missing!r}",
                        path=src.path,
                        line=lineno,
                        field="start" if a is None else "end",
                    )
                self.result.skipped_relationships += 1
                if len(self.result.skipped_examples) < 5:
                    self.result.skipped_examples.append(f"{src.path}:{lineno} ({missing})")
                continue
            if props and (extra := [k for k in props if k not in prop_names]):
                # a key first seen here (an OpenAlex authorship with institutions after
                # one without): the edges before go with the names so far, as a token of
                # their own (each token names its properties), and every later edge
                # lacking one of the names sends no value for it
                for p in extra:
                    bulk_files.check_property_at(p, src.path, lineno)
                if s_buf:
                    yield self._close_edges(rel, s_buf, d_buf, props_buf, prop_names, constant)
                    s_buf, d_buf, props_buf = [], [], []
                prop_names = prop_names + extra
            if prop_names:
                props = props or {}
                try:
                    enc = b"".join(encode_value(props.get(p)) for p in prop_names)
                except _BadValue as err:
                    raise InputError(str(err), path=src.path, line=lineno) from None
                props_buf.append(enc)
            s_buf.append(a)
            d_buf.append(b)
            if len(s_buf) >= EDGES_PER_TOKEN:
                yield self._close_edges(rel, s_buf, d_buf, props_buf, prop_names, constant)
                s_buf, d_buf, props_buf = [], [], []
                if self.progress:
                    self.progress("parse edges", self.result.relationships)
        if s_buf:
            yield self._close_edges(rel, s_buf, d_buf, props_buf, prop_names, constant)
            if self.progress:
                self.progress("parse edges", self.result.relationships)

    def _close_edges(
        self,
        rel_type: str,
        s: list[int],
        d: list[int],
        props: list[bytes],
        prop_names: list[str],
        constant: tuple[list[str], bytes] = ([], b""),
    ) -> tuple[int, bytes]:
        if not prop_names:
            header = _header(rel_type, constant[0])
            body = _edge_records(s, d, constant[1])
        else:
            header = _header(rel_type, prop_names)
            pack = struct.Struct("=QQ").pack
            body = b"".join(pack(a, b) + p for a, b, p in zip(s, d, props, strict=True))
        self.result.relationships += len(s)
        return len(s), header + body


# -- sending -----------------------------------------------------------------------------


class _Producer(threading.Thread):
    """Runs the parser in a thread and hands its tokens over a bounded queue.

    pyarrow's readers, numpy and the server (a separate process) release the GIL, so the
    parse of the next file overlaps the server's work on the previous commands. An error in
    the parser is passed on to the consumer, which raises it.
    """

    _DONE = object()

    def __init__(self, tokens: Iterator[Token]) -> None:
        super().__init__(name="bulk-parser", daemon=True)
        # the parser runs in this thread: it must see the caller's context variables (the
        # cleaning collector of schema.text), which a new thread would not inherit
        self.context = contextvars.copy_context()
        self.tokens = tokens
        self.queue: queue.Queue[Any] = queue.Queue(maxsize=8)
        self.stop = threading.Event()
        self.seconds = 0.0

    def run(self) -> None:
        self.context.run(self._run)

    def _run(self) -> None:
        t0 = time.perf_counter()
        try:
            for item in self.tokens:
                if not self._put(item):
                    return
            self.seconds = time.perf_counter() - t0
            self._put(self._DONE)
        except BaseException as err:
            self.seconds = time.perf_counter() - t0
            self._put(err)

    def _put(self, item: Any) -> bool:
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self) -> Iterator[Token]:
        while True:
            item = self.queue.get()
            if item is self._DONE:
                return
            if isinstance(item, BaseException):
                raise item
            yield item


def _commands(tokens: Iterator[Token]) -> Iterator[tuple[int, int, list[bytes], list[bytes]]]:
    """Group tokens, in order, into GRAPH.BULK commands: one is ready once it holds
    ``STREAM_COMMAND_BYTES`` (never more than ``MAX_COMMAND_BYTES``). Node tokens all come
    before edge tokens, so every edge's endpoints exist when it is sent."""
    batch_n: list[bytes] = []
    batch_e: list[bytes] = []
    n_nodes = n_edges = size = 0
    for kind, count, token in tokens:
        if size and size + len(token) > MAX_COMMAND_BYTES:
            yield n_nodes, n_edges, batch_n, batch_e
            batch_n, batch_e, n_nodes, n_edges, size = [], [], 0, 0, 0
        if kind == "n":
            batch_n.append(token)
            n_nodes += count
        else:
            batch_e.append(token)
            n_edges += count
        size += len(token)
        if size >= STREAM_COMMAND_BYTES:
            yield n_nodes, n_edges, batch_n, batch_e
            batch_n, batch_e, n_nodes, n_edges, size = [], [], 0, 0, 0
    if batch_n or batch_e:
        yield n_nodes, n_edges, batch_n, batch_e


def _finish_schema_and_snapshot(
    store: FalkorDBStore,
    spec: SchemaSpec | None,
    result: BulkResult,
    progress: BulkProgress | None,
    *,
    since: float,
) -> None:
    """Wait for the indexes ``store.issue_schema`` started at ``since`` (``perf_counter``; ``spec``
    None: none) and rewrite the AOF once, the rewrite overlapping the rest of the index build:

    * constraints (none of scholarkg's since keys became indexes; a caller's own schema may
      have some) are awaited *before* the rewrite forks: FalkorDB logs a constraint's
      creation again when it is enforced, and that second entry fails on replay, so it must
      land before the snapshot, not in the log after it;
    * then the rewrite starts and the remaining index population (the full-text index) is
      awaited beside it: the snapshot holds index definitions, not their contents (FalkorDB
      rebuilds them on load), so the fork writes the same file whether the population has
      finished or not.

    Both are waited for before this returns: a ``kill -9`` after the load loses nothing and
    restarts from the snapshot. Automatic rewrites stay paused (the caller's block), so no
    other fork runs meanwhile.
    """
    from scholarkg.store.falkordb import dialect

    conn = store.db.connection
    t0 = since
    if spec is None:
        compact_aof(conn)
        result.compact_seconds = result.schema_seconds = time.perf_counter() - t0
        return
    dialect.await_indexes(store._g, timeout=3600.0, constraints_only=True)
    aof = int(persistence_info(conn).get("aof_enabled", 0))
    rewrite = start_aof_rewrite(conn) if aof else None
    dialect.await_indexes(store._g, timeout=3600.0)
    if progress:
        progress("schema", len(result.schema_created))
    t1 = time.perf_counter()
    result.index_seconds = t1 - t0
    if rewrite is not None:
        wait_aof_rewrite(conn, rewrite)
    else:
        compact_aof(conn)  # RDB-only: a BGSAVE; no persistence: nothing
    result.compact_seconds = time.perf_counter() - t1
    result.schema_seconds = time.perf_counter() - t0


def bulk_load(
    store: FalkorDBStore,
    nodes: Sequence[NodeSource],
    edges: Sequence[EdgeSource | EdgePositions] = (),
    *,
    schema: SchemaSpec | None = None,
    apply_schema: bool = True,
    strict_edges: bool = False,
    progress: BulkProgress | None = None,
    columnar: bool = True,
) -> BulkResult:
    """Create ``store.graph`` from node and edge files (or :class:`EdgePositions`) in one
    pass of GRAPH.BULK commands.

    ``columnar=False`` reads every file line by line (the pre-issue-22 reader; the
    benchmark compares the two).

    Refuses a graph that already has nodes (bulk loading only builds new graphs; use
    ``store.merge_nodes`` / ``merge_relationships`` to add to one). An existing *empty*
    graph key (e.g. only indexes) is replaced. Edges whose endpoints are not in the node
    files are skipped and counted, or raise with ``strict_edges``. Afterwards the schema
    (default: ``ddl.default_schema()``) is applied, unless ``apply_schema=False``; the call
    returns when the indexes are online and the AOF rewritten.

    Crash safety: a marker key is set before the first ``GRAPH.BULK`` and deleted after the
    last step; opening a graph that still carries it raises "this graph is incomplete",
    so an interrupted load is never mistaken for a finished one.
    """
    import redis

    if not nodes:
        raise InputError("bulk load needs at least one node file")
    existing = store.counts()
    if existing.total_nodes:
        raise StoreError(
            f"graph {store.graph!r} already has {existing.total_nodes} nodes; bulk loading only "
            "builds a new graph — load into an empty graph name, 'scholarkg db reset' it, "
            "or use the incremental MERGE loaders"
        )
    t0 = time.perf_counter()
    parser = _Parser(progress, columnar=columnar)
    with collect_cleaning() as cleaning:
        producer = _Producer(parser.tokens(nodes, edges, strict=strict_edges))
    producer.start()
    result = parser.result
    conn = store.db.connection
    files = [str(src.path) for src in nodes]
    files += [src.name if isinstance(src, EdgePositions) else str(src.path) for src in edges]
    sent_nodes = sent_edges = 0
    started = False
    spec: SchemaSpec | None = None  # the schema whose DDL was sent (None: not applied)
    try:
        with automatic_rewrites_paused(conn):
            for n_nodes, n_edges, ntoks, etoks in _commands(iter(producer)):
                t1 = time.perf_counter()
                args: list[Any] = ["GRAPH.BULK", store.graph]
                if not started:
                    store.clear()  # an empty key with only indexes would make BEGIN fail
                    # from here until the schema is applied the graph is partial: say so
                    store.mark_incomplete(f"the bulk load of {', '.join(files)}")
                    started = True
                    args.append("BEGIN")
                args += [n_nodes, n_edges, len(ntoks), len(etoks), *ntoks, *etoks]
                try:
                    conn.execute_command(*args)
                except redis.exceptions.ResponseError as err:
                    raise StoreError(
                        f"GRAPH.BULK into {store.graph!r} failed after {sent_nodes} nodes and "
                        f"{sent_edges} edges: {err} (the partial graph is left, marked "
                        f"incomplete; delete it with 'scholarkg --graph {store.graph} db reset "
                        "--yes')"
                    ) from err
                sent_nodes += n_nodes
                sent_edges += n_edges
                result.send_seconds += time.perf_counter() - t1
                if progress:
                    if n_nodes:
                        progress("send nodes", sent_nodes)
                    if n_edges:
                        progress("send edges", sent_edges)
            result.parse_seconds = producer.seconds
            if not started:  # no node at all (empty files): an empty graph, as before
                store.clear()
                store.mark_incomplete(f"the bulk load of {', '.join(files)}")
                started = True
            t_schema = time.perf_counter()
            if apply_schema:
                # after the last GRAPH.BULK command: sent as soon as the last node was in,
                # so that the index threads would build beside the edges' commands, the DDL
                # made those commands wait for the graph lock instead (200k works, alternated
                # runs on the same files: the bulk step 44 s instead of 37-41 s)
                spec = schema or default_schema()
                result.schema_created = store.issue_schema(spec)
            _finish_schema_and_snapshot(store, spec, result, progress, since=t_schema)
    except InputError:
        producer.stop.set()
        if started:  # a bad line after the first command: remove the partial graph
            store.clear()
        raise
    except BaseException:
        producer.stop.set()
        raise
    finally:
        producer.join(timeout=5)
    result.total_seconds = time.perf_counter() - t0
    result.cleaned = describe_cleaning(cleaning)
    store.mark_complete()
    log.info(
        "bulk-loaded %d nodes and %d relationships into %r in %.1f s (%d edges skipped)",
        result.nodes,
        result.relationships,
        store.graph,
        result.seconds,
        result.skipped_relationships,
    )
    return result


def bulk_load_papers(
    store: FalkorDBStore,
    papers: Path,
    citations: Path | None = None,
    **kwargs: Any,
) -> BulkResult:
    """Papers JSONL + citation edge list → Paper nodes + CITES (the common case)."""
    edges = [EdgeSource(Path(citations))] if citations else []
    return bulk_load(store, [NodeSource(Path(papers))], edges, **kwargs)

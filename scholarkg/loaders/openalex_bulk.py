"""``scholarkg load openalex --bulk``: an OpenAlex snapshot into a *new* graph, fast.

Why: the incremental path resolves every id against the graph and MERGEs row by row, a few
thousand works per second; a snapshot-size load into an empty database needs none of that.
This module reads the same works with the same parser (``loaders/openalex.parse_work``, so
the Papers are identical) and writes the node and edge files that the existing bulk loaders
take: ``GRAPH.BULK`` on the embedded store (``store/falkordb/bulk.bulk_load``) and Neo4j's
offline importer on the managed Neo4j (``store/neo4j/importer.import_files``); both get the
same Paper, Author, Venue, CITES, AUTHORED_BY and IN_VENUE data, list properties included.
The Paper nodes are an Arrow IPC file built in the parse workers (no JSON round trip: see
:func:`paper_table`); the references stay row numbers for the embedded store
(``bulk.EdgePositions``) and become an id file only for Neo4j's importer.

Identity within one snapshot is OpenAlex's: one record per work id. Partitions are read
newest first and a work already read is skipped, so the newest version wins; works listed in
``merged_ids`` are dropped and references to them point at the surviving work. A reference
to a work the snapshot lacks gets a stub Paper (``openalex:W…``), as on the incremental path.

Memory: references are kept as two integer arrays (16 bytes per reference) and each work's
node id as a string until the edge file is written (~100 bytes per work), so a 1M-work,
20M-reference snapshot needs ~0.5 GB; node rows stream to disk.
"""

from __future__ import annotations

import gc
import json
import re
import tempfile
import time
from array import array
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import orjson

from scholarkg.errors import InputError
from scholarkg.loaders.left_out import collect_left_out
from scholarkg.loaders.openalex import (
    WorkFields,
    iter_work_objects,
    page_record_error,
    read_merged_ids,
    work_fields,
)
from scholarkg.schema import ids
from scholarkg.schema.plain_records import needs_no_cleaning
from scholarkg.schema.text import clean_text, max_field_chars, note_cleaning
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from numpy.typing import NDArray

    from scholarkg.config import Settings


class BulkProgress(Protocol):
    """``progress(stage, done, total=None)``: the command's progress display."""

    def __call__(self, stage: str, done: int, total: int | None = None) -> None: ...


#: the Paper node file: Arrow's IPC format (see :func:`paper_table`); the stubs (works only
#: referenced) follow in a file of their own, after the loaded works' rows
PAPER_FILE = "nodes-Paper.arrow"
STUB_FILE = "nodes-Paper-stubs.arrow"


_ISO_DATE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?$")


def _encode(row: dict[str, Any]) -> bytes:
    """One row as a JSON line's bytes: orjson (~4x the stdlib encoder here), or the stdlib
    encoder for what orjson refuses (an integer past 64 bits: GRAPH.BULK then names it)."""
    try:
        return orjson.dumps(row)
    except orjson.JSONEncodeError:
        return _stdlib_encode(row).encode("utf-8")


_stdlib_encode = json.JSONEncoder(
    ensure_ascii=False, check_circular=False, separators=(",", ":")
).encode


def _clean_str(value: str, label: str, name: str, path: Path, line: int) -> str:
    """The record layer's string rule (length cap, ``clean_text``, stripped), without pydantic."""
    if len(value) > _CAP[0]:
        raise InputError(
            f"{len(value):,} characters, over the {_CAP[0]:,}-character field limit "
            "(SCHOLARKG_MAX_FIELD_CHARS); refused rather than truncated",
            path=path, line=line, field=name,
        )  # fmt: skip
    cleaned, done = clean_text(value)
    for what in done:
        note_cleaning(label, name, what)
    return cleaned.strip()


def _clean_fields(values: dict[str, Any], label: str, path: Path, line: int) -> dict[str, Any]:
    """``values`` without the ``None`` ones, every string (also in a list) cleaned as the
    record layer cleans it (:func:`_clean_str`): stripped only when :func:`_needs_no_cleaning`
    says no string can need more."""
    if _needs_no_cleaning(values):
        return _stripped(values)
    return _cleaned(values, label, path, line)


def _needs_no_cleaning(values: object) -> bool:
    """True when no string in ``values`` can be changed or refused by :func:`_clean_str`
    but for its surrounding whitespace (``plain_records.needs_no_cleaning`` at the cap this
    file was read with): one C pass over the whole record instead of a ``clean_text`` call
    per string (~25 strings a work; this halves the rows' cost). A backslash in the text
    itself (a LaTeX title) takes the per-string path: slower, same result.
    ``tests/loaders/test_catalogue_loaders.py`` checks both paths agree on dirty records.
    """
    return needs_no_cleaning(values, _CAP[0])


def _stripped(values: dict[str, Any]) -> dict[str, Any]:
    """:func:`_cleaned` of values that need no cleaning: only ``str.strip`` per string."""
    return {
        name: value.strip()
        if type(value) is str
        else [v.strip() if type(v) is str else v for v in value]
        if type(value) is list
        else value
        for name, value in values.items()
        if value is not None
    }


def _cleaned(values: dict[str, Any], label: str, path: Path, line: int) -> dict[str, Any]:
    """The per-string rule for every field: ``_clean_str`` on each string (inlined type
    checks: this is the path of every record :func:`_needs_no_cleaning` turns away)."""
    row: dict[str, Any] = {}
    for name, value in values.items():
        kind = type(value)
        if kind is str:
            row[name] = _clean_str(value, label, name, path, line)
        elif kind is list:
            row[name] = [
                _clean_str(v, label, name, path, line) if type(v) is str else v for v in value
            ]
        elif value is not None:
            row[name] = value
    return row


#: the field cap, read once per file (``max_field_chars`` reads the environment)
_CAP = [max_field_chars()]


def paper_row(fields: WorkFields, *, path: Path, line: int) -> dict[str, Any]:
    """The Paper row ``Paper(**fields.paper).row()`` would give, computed directly (the bulk
    path's hot loop; ``tests/loaders/test_catalogue_loaders.py`` checks they agree)."""
    row = _clean_fields(fields.paper, "Paper", path, line)
    if row.get("title"):
        row["title_norm"] = ids.normalize_title(row["title"])
    if "date" in row:
        date = row["date"] = row["date"][:10]
        if not _ISO_DATE.match(date):
            raise InputError(f"not an ISO date (YYYY[-MM[-DD]]): {date!r}", path=path,
                             line=line, field="date")  # fmt: skip
        if "year" not in row:
            row["year"] = int(date[:4])
    row_id = ids.paper_id(
        arxiv_id=row.get("arxiv_id"), doi=row.get("doi"), openalex_id=row.get("openalex_id"),
        title=row.get("title"), year=row.get("year"),
    )  # fmt: skip
    return {"id": row_id, **row}


def _author_rows(
    fields: WorkFields, paper_id: str, path: Path, line: int
) -> list[tuple[str, bytes, bytes]]:
    out = []
    # one test for all of a work's authors and authorships (see ``_clean_fields``)
    plain = _needs_no_cleaning((fields.authors, fields.authorships))
    for author, ship in zip(fields.authors, fields.authorships, strict=True):
        a = _stripped(author) if plain else _cleaned(author, "Author", path, line)
        aid = ids.author_id(
            a["name"],
            orcid=a.get("orcid"),
            openalex_author_id=a.get("openalex_id"),
            listed_on=paper_id,
        )
        # the mark the incremental path sets (``Authorship.from_openalex``): a later update of
        # the work replaces OpenAlex's author list and leaves other sources' edges
        edge = _stripped(ship) if plain else _cleaned(ship, "AUTHORED_BY", path, line)
        edge["from_openalex"] = True
        out.append(
            (aid, _encode({"id": aid, **a}), _encode({"start": paper_id, "end": aid, **edge}))
        )
    if len({aid for aid, _, _ in out}) < len(out):
        # one person listed twice: one AUTHORED_BY, the later one's, as MERGE leaves it
        last: dict[str, tuple[str, bytes, bytes]] = {}
        for row in out:
            last[row[0]] = row
        out = list(last.values())
    return out


#: the Paper rows' columns and their Arrow types: every key ``paper_row`` gives (checked per
#: file, so a field added to ``work_fields`` cannot be dropped silently) and the stubs'
#: ``alt_ids``. Strings unless listed.
_PAPER_TYPES = {
    "year": "int64", "citation_count": "int64", "is_oa": "bool", "topics": "list<string>",
    "topic_scores_e4": "list<int64>", "related": "list<string>", "alt_ids": "list<string>",
}  # fmt: skip
PAPER_COLUMNS = (
    "id", "title", "abstract", "year", "date", "arxiv_id", "doi", "openalex_id", "mag_id",
    "pmid", "pmcid", "work_type", "language", "is_oa", "oa_status", "oa_url",
    "citation_count", "venue", "topics", "topic_scores_e4", "related", "url", "source",
    "title_norm", "alt_ids", "openalex_updated",
)  # fmt: skip


def _paper_schema() -> pa.Schema:
    import pyarrow as pa

    kinds = {
        "string": pa.string(), "int64": pa.int64(), "bool": pa.bool_(),
        "list<string>": pa.list_(pa.string()), "list<int64>": pa.list_(pa.int64()),
    }  # fmt: skip
    return pa.schema([(c, kinds[_PAPER_TYPES.get(c, "string")]) for c in PAPER_COLUMNS])


def paper_table(rows: list[dict[str, Any]], *, path: Path, lines: Sequence[int]) -> pa.Table:
    """``rows`` (``paper_row``'s dicts; ``lines[i]`` is row ``i``'s line in ``path``) as an
    Arrow table of :data:`PAPER_COLUMNS`.

    Why Arrow and not JSON lines: both bulk loaders read the node file into Arrow anyway;
    building the columns here, in the parse workers, costs about what encoding JSON did, and
    the JSON reader's pass over a 1M-work file (~15 s) disappears. A value Arrow cannot hold
    (an integer past 64 bits) is an ``InputError`` naming its line and field.
    """
    import pyarrow as pa

    keys: set[str] = set()
    for row in rows:
        keys.update(row)
    unknown = keys.difference(PAPER_COLUMNS)
    if unknown:  # pragma: no cover - a field added to work_fields but not here
        raise RuntimeError(f"Paper fields without an Arrow column: {sorted(unknown)}")
    schema = _paper_schema()
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowException, OverflowError, TypeError) as err:
        for row, line in zip(rows, lines, strict=True):
            for name, value in row.items():
                try:
                    pa.array([value], schema.field(name).type)
                except (pa.ArrowException, OverflowError, TypeError):
                    raise InputError(
                        f"{value!r} does not fit a {schema.field(name).type} property",
                        path=path, line=line, field=name,
                    ) from None  # fmt: skip
        raise InputError(f"the Paper rows do not fit their columns: {err}", path=path) from None


@dataclass
class _FileRows:
    """One file's works as the bulk files need them (computed in a worker process): per
    work its W number, node id, Paper row (together an Arrow table), reference count, author
    count and venue; the references (W numbers) and authors of all works in order. Integers
    travel as the bytes of ``array("q")`` (pickling a list of 1M ints costs more than the
    work)."""

    ws: bytes
    ids: list[str]
    papers: pa.Table  # of PAPER_COLUMNS
    ref_counts: bytes
    refs: bytes
    author_counts: bytes
    authors: list[tuple[str, bytes, bytes]]
    venues: list[str | None]
    #: each work's line in the file (array("q") bytes): an id-sharing work is re-read by it
    lines: bytes = b""
    #: the relationships the parser left out of a work (``loaders/left_out.py``): (the
    #: work's position in the file, rel type, why, n), for the few works that have any
    left_out: list[tuple[int, str, str, int]] = field(default_factory=list)


def _read_file(path: Path) -> _FileRows:
    """Parse one snapshot file into :class:`_FileRows` (runs in a worker process).

    The collector is off while parsing: nothing here makes reference cycles, and with a
    file's rows alive every generation-2 pass walks all of them (~30 % of the parse time).
    """
    _CAP[0] = max_field_chars()
    ws, ref_counts, refs, author_counts = array("q"), array("q"), array("q"), array("q")
    node_ids: list[str] = []
    papers: list[dict[str, Any]] = []
    lines = array("q")
    authors: list[tuple[str, bytes, bytes]] = []
    venues: list[str | None] = []
    left_out: list[tuple[int, str, str, int]] = []
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        with collect_left_out() as noted:
            for line, obj in iter_work_objects(path):
                try:
                    fields = work_fields(obj, path=path, line=line)
                    row = paper_row(fields, path=path, line=line)
                    work_authors = _author_rows(fields, row["id"], path, line)
                except InputError as err:  # an API page's works are records, not lines
                    raise page_record_error(err, path, obj) from None
                if noted:  # a self-citation, say: counted for the work if it is the one kept
                    left_out += [(len(ws), rel, why, n) for (rel, why), n in noted.items()]
                    noted.clear()
                ws.append(int(row["openalex_id"][1:]))
                node_ids.append(row["id"])
                papers.append(row)
                lines.append(line)
                ref_counts.append(len(fields.references))
                refs.extend([int(r[1:]) for r in fields.references])
                author_counts.append(len(work_authors))
                authors.extend(work_authors)
                venues.append(row.get("venue"))
        table = paper_table(papers, path=path, lines=lines)
    finally:
        if gc_was_on:
            gc.enable()
    return _FileRows(
        ws.tobytes(), node_ids, table, ref_counts.tobytes(), refs.tobytes(),
        author_counts.tobytes(), authors, venues, lines.tobytes(), left_out,
    )  # fmt: skip


def _write_lines(fh: Any, lines: list[bytes]) -> None:
    if lines:
        fh.write(b"\n".join(lines) + b"\n")


def write_bulk_files(
    works: Sequence[Path],
    merged: Sequence[Path],
    out: Path,
    *,
    progress: BulkProgress | None = None,
    workers: int = 2,
) -> SnapshotRows:
    """Write the Paper nodes (:data:`PAPER_FILE`), ``nodes-<Label>.jsonl`` of authors and
    venues and their ``edges-<TYPE>.jsonl`` under ``out``; returns the counts and the
    references (:class:`SnapshotRows`).

    ``workers`` processes parse the files (one file each at a time; 0: here); this process
    keeps the newest record of each work, drops retired ones, dedups authors and venues,
    and resolves references to node ids at the end (:class:`_SnapshotWriter`).
    """
    import multiprocessing

    ordered = list(reversed(works))  # newest partition first: the newest record wins
    writer = _SnapshotWriter(merged, out, files=len(ordered))
    pool = multiprocessing.get_context("spawn").Pool(workers) if workers > 0 else None
    try:
        results = pool.imap(_read_file, ordered) if pool else map(_read_file, ordered)
        for file_no, rows in enumerate(results):
            writer.add_file(file_no, rows)
            if progress:
                progress("read works", writer.n)
        # works sharing an id with another (a preprint and its article): left to the
        # incremental path after the import (:func:`load_id_sharing`), so they merge as there
        id_sharing = writer.set_aside_id_sharing(ordered)
        end_index = writer.resolve_references()
        if pool is not None:  # reaped, so their CPU time counts as the caller's children's
            pool.close()
            pool.join()
            pool = None
    finally:
        if pool is not None:
            pool.terminate()
        writer.close()
    writer.author_fill.rewrite(out / "nodes-Author.jsonl")
    if id_sharing:  # their Paper rows out of the node file (their edges' lines are skipped)
        _drop_rows(out / PAPER_FILE, writer.kept_rows)
    return SnapshotRows(
        writer.counts(id_sharing),
        writer.work_ids + writer.stub_ids,
        writer.src,
        end_index,
        id_sharing,
    )


class _SnapshotWriter:
    """The parent process's side of :func:`write_bulk_files`: the files' rows arrive in
    partition order (newest first); it keeps each work's newest record (a retired work's
    none), writes the Paper rows and the authors', venues' and their edges' lines, then sets
    the works that share an id aside and resolves the references to node positions, the
    works nothing describes becoming stubs."""

    def __init__(self, merged: Sequence[Path], out: Path, *, files: int) -> None:
        import numpy as np
        import pyarrow.ipc as paipc

        self.out = out
        self.retired: dict[int, int] = {}
        for path in merged:
            for old, new in read_merged_ids(path):
                self.retired[int(old[1:])] = int(new[1:])
        self.retired_old = np.array(sorted(self.retired), dtype=np.int64)
        self.retired_new = np.array(
            [self.retired[w] for w in self.retired_old.tolist()], dtype=np.int64
        )
        self.seen: set[int] = set()
        self.referenced_retired: set[int] = set()
        self.work_w = array("q")
        self.work_ids: list[str] = []
        self.src_parts: list[Any] = []
        self.dst_parts: list[Any] = []
        # an Author's first line (in this reading order) is written as seen; a later line
        # of the same Author that differs is kept aside (:class:`_AuthorFill`)
        self.authors_seen: dict[str, int] = {}
        self.author_fill = _AuthorFill(files)
        self.venues_seen: set[str] = set()
        self.venue_ids: dict[str, bytes] = {}  # name → its node id as JSON (names repeat a lot)
        names = ("nodes-Author.jsonl", "nodes-Venue.jsonl", "edges-AUTHORED_BY.jsonl",
                 "edges-IN_VENUE.jsonl")  # fmt: skip
        self.files = {name: (out / name).open("wb") for name in names}
        self.paper_file = paipc.new_file(str(out / PAPER_FILE), _paper_schema())
        self.n = 0
        # per kept row: where it was read (file number in ``ordered``, line) and a hash per id
        # slot it fills, to find the works that share an id (:func:`_id_sharing_rows`)
        self.row_file, self.row_line, self.row_edges = array("q"), array("q"), array("q")
        self.slot_hash, self.slot_row = array("q"), array("q")
        self.shared: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.kept_rows: NDArray[np.bool_] = np.ones(0, dtype=bool)
        self.stub_w: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.stub_ids: list[str] = []
        self.src: NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.n_references = 0
        #: the relationships the kept works' records leave out (``loaders/left_out.py``)
        self.left_out: Counter[tuple[str, str]] = Counter()

    def add_file(self, file_no: int, rows: _FileRows) -> None:
        """One parsed file: its works not seen in a newer partition (nor retired)."""
        import numpy as np
        import pyarrow as pa

        ws = array("q", rows.ws)
        keep: list[bool] = []
        for w in ws:
            first = w not in self.seen and w not in self.retired
            if first:
                self.seen.add(w)
            keep.append(first)
        kept = np.array(keep, dtype=bool)
        base = len(self.work_ids)
        self.work_w.extend(compress(ws, keep))
        self.work_ids.extend(compress(rows.ids, keep))
        papers = rows.papers if kept.all() else rows.papers.filter(pa.array(kept))
        self.paper_file.write_table(papers)
        self.row_file.extend([file_no] * papers.num_rows)
        self.row_line.extend(compress(array("q", rows.lines), keep))
        self.row_edges.extend(
            compress(
                (
                    a + (v is not None)
                    for a, v in zip(array("q", rows.author_counts), rows.venues, strict=True)
                ),
                keep,
            )
        )
        for slot in SHARED_SLOTS:
            for i, value in enumerate(papers.column(slot).to_pylist()):
                if value is not None:
                    self.slot_hash.append(hash((slot, value)))
                    self.slot_row.append(base + i)
        self._add_references(rows, kept, base, papers.num_rows)
        self._write_authors_and_venues(file_no, rows, keep, kept)
        # counted for the works kept only, as the incremental path counts a record once: a
        # work's older version (or a retired work) stores nothing here to leave out of
        for at, rel_type, why, n in rows.left_out:
            if keep[at]:
                self.left_out[(rel_type, why)] += n
        self.n += papers.num_rows

    def _add_references(self, rows: _FileRows, kept: Any, base: int, n_kept: int) -> None:
        """The kept works' references, vectorised (~20 a work, 20M at 1M works); a reference
        to a retired work goes to its survivor."""
        import numpy as np

        ref_counts = np.frombuffer(rows.ref_counts, dtype=np.int64)
        refs = np.frombuffer(rows.refs, dtype=np.int64)[np.repeat(kept, ref_counts)]
        retired_old = self.retired_old
        if len(retired_old) and len(refs):  # references to retired works → the survivor
            at = np.minimum(np.searchsorted(retired_old, refs), len(retired_old) - 1)
            hit = retired_old[at] == refs
            self.referenced_retired.update(refs[hit].tolist())
            refs = np.where(hit, self.retired_new[at], refs)
        index = base + np.arange(n_kept, dtype=np.int64)
        src = np.repeat(index, ref_counts[kept])
        if len(retired_old) and len(refs) and hit.any():
            # a work citing a work retired into itself: no CITES loop, as the incremental
            # merge leaves none (``identity``: "no self-citation"); the bulk files had one
            own = np.repeat(np.frombuffer(rows.ws, dtype=np.int64)[kept], ref_counts[kept])
            not_loop = refs != own
            src, refs = src[not_loop], refs[not_loop]
            # a work citing both a retired work and its survivor: one CITES, as the
            # incremental merge leaves it
            pairs = np.unique(np.stack([src, refs], axis=1), axis=0)
            src, refs = pairs[:, 0].copy(), pairs[:, 1].copy()
        self.src_parts.append(src)
        self.dst_parts.append(refs)

    def _write_authors_and_venues(
        self, file_no: int, rows: _FileRows, keep: list[bool], kept: Any
    ) -> None:
        """Authors and venues: a set lookup per row and one write per file and label (a
        write call per line was a third of this process's time)."""
        import numpy as np

        authors = rows.authors
        if not kept.all():
            author_counts = np.frombuffer(rows.author_counts, dtype=np.int64)
            authors = list(compress(authors, np.repeat(kept, author_counts).tolist()))
        new_authors: list[bytes] = []
        fresh: set[str] = set()  # first seen in this file
        for at, (aid, author_line, _) in enumerate(authors):
            line_hash = hash(author_line)
            first_hash = self.authors_seen.get(aid)
            if first_hash is None:
                self.authors_seen[aid] = line_hash
                fresh.add(aid)
                new_authors.append(author_line)
            elif first_hash != line_hash:
                self.author_fill.later(aid, author_line, file_no, at, same_file=aid in fresh)
        _write_lines(self.files["nodes-Author.jsonl"], new_authors)
        _write_lines(self.files["edges-AUTHORED_BY.jsonl"], [edge for _, _, edge in authors])
        new_venues, in_venue = [], []
        for paper_id, venue in compress(zip(rows.ids, rows.venues, strict=True), keep):
            if not venue:
                continue
            venue_end = self.venue_ids.get(venue)
            if venue_end is None:
                vid = ids.venue_id(venue)
                if vid is None:  # a name too long for a key: no Venue, as incrementally
                    continue
                venue_end = self.venue_ids[venue] = orjson.dumps(vid)
                if vid not in self.venues_seen:  # two spellings, one venue
                    self.venues_seen.add(vid)
                    new_venues.append(_encode({"id": vid, "name": venue}))
            in_venue.append(b'{"start":' + orjson.dumps(paper_id) + b',"end":' + venue_end + b"}")
        _write_lines(self.files["nodes-Venue.jsonl"], new_venues)
        _write_lines(self.files["edges-IN_VENUE.jsonl"], in_venue)

    def set_aside_id_sharing(self, ordered: Sequence[Path]) -> list[tuple[Path, int, str]]:
        """The works whose id slots another work fills too, as (file, line, node id): out of
        the rows and references (``kept_rows`` marks the rows that stay)."""
        import numpy as np

        self.shared = _id_sharing_rows(self.slot_hash, self.slot_row)
        self.kept_rows = np.ones(len(self.work_ids), dtype=bool)
        self.kept_rows[self.shared] = False
        id_sharing = [
            (ordered[self.row_file[i]], int(self.row_line[i]), self.work_ids[i])
            for i in self.shared.tolist()
        ]
        if len(self.shared):
            new_pos = np.cumsum(self.kept_rows) - 1
            src_all = self._all(self.src_parts)
            dst_all = self._all(self.dst_parts)
            stated = self.kept_rows[src_all]
            self.src_parts, self.dst_parts = [new_pos[src_all[stated]]], [dst_all[stated]]
            self.work_w = array("q", compress(self.work_w, self.kept_rows.tolist()))
            self.work_ids = list(compress(self.work_ids, self.kept_rows.tolist()))
        return id_sharing

    @staticmethod
    def _all(parts: list[Any]) -> NDArray[np.int64]:
        import numpy as np

        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    def resolve_references(self) -> NDArray[np.int64]:
        """References → node positions (the cited end of each; ``self.src`` the citing):
        loaded works by binary search, the rest become stubs (their own node file,
        :data:`STUB_FILE`), and the aliases retired works leave (``alt-ids.jsonl``)."""
        import numpy as np

        loaded_w = np.frombuffer(self.work_w, dtype=np.int64)
        order = np.argsort(loaded_w, kind="stable")
        sorted_w = loaded_w[order]
        d = self._all(self.dst_parts)
        self.src = self._all(self.src_parts)
        self.n_references = len(d)
        pos = np.searchsorted(sorted_w, d)
        if len(sorted_w):
            pos_clipped = np.minimum(pos, len(sorted_w) - 1)
            found = sorted_w[pos_clipped] == d
        else:
            pos_clipped, found = pos, np.zeros(len(d), dtype=bool)
        self.stub_w = np.unique(d[~found])
        # a retired work that was referenced keeps its id as an alias of the survivor, as
        # the incremental path's merge of its stub leaves it (identity.retire_ids)
        alt_ids: dict[int, list[str]] = {}
        for old_w in sorted(self.referenced_retired):
            alt_ids.setdefault(self.retired[old_w], []).append(f"openalex:W{old_w}")
        stub_aliases = self._write_stubs(alt_ids)
        # loaded survivors get their alt_ids after the load; every survivor (stubs too) gets
        # the PaperAlias nodes the incremental path's merge leaves (identity.alias_records)
        with (self.out / "alt-ids.jsonl").open("wb") as fh:
            position = (
                dict(zip(self.work_w.tolist(), self.work_ids, strict=True)) if alt_ids else {}
            )
            for w, aliases in sorted(alt_ids.items()):
                row = {"id": position[w], "props": {"alt_ids": sorted(aliases)}}
                fh.write(_encode(row) + b"\n")
            for row in stub_aliases:
                fh.write(_encode({**row, "stub": True}) + b"\n")
        end_index = np.empty(len(d), dtype=np.int64)
        end_index[found] = order[pos_clipped[found]]
        end_index[~found] = len(self.work_ids) + np.searchsorted(self.stub_w, d[~found])
        return end_index

    def _write_stubs(self, alt_ids: dict[int, list[str]]) -> list[dict[str, Any]]:
        """The stubs' node file (its nodes carry the second label Stub); takes the stubs'
        own aliases out of ``alt_ids`` and returns them as rows."""
        import pyarrow as pa
        import pyarrow.ipc as paipc

        # a stub is known by its OpenAlex id only: "W…" in the openalex_id slot, the node id
        # "openalex:W…" (what the id rule gives a record with nothing else)
        stub_numbers = [f"W{w}" for w in self.stub_w.tolist()]
        self.stub_ids = [f"openalex:{w}" for w in stub_numbers]
        stub_aliases: list[dict[str, Any]] = []
        stub_alt_ids: list[list[str] | None] = []
        for w, stub_id in zip(self.stub_w.tolist(), self.stub_ids, strict=True):
            aliases = sorted(alt_ids.pop(w)) if w in alt_ids else None
            if aliases:
                stub_aliases.append({"id": stub_id, "props": {"alt_ids": aliases}})
            stub_alt_ids.append(aliases)
        stubs = {
            "id": pa.array(self.stub_ids, pa.string()),
            "openalex_id": pa.array(stub_numbers, pa.string()),
            "alt_ids": pa.array(stub_alt_ids, pa.list_(pa.string())),
        }
        schema = _paper_schema()
        with paipc.new_file(str(self.out / STUB_FILE), schema) as stub_file:
            stub_file.write_table(
                pa.table(
                    [
                        stubs.get(c, pa.nulls(len(self.stub_w), schema.field(c).type))
                        for c in PAPER_COLUMNS
                    ],
                    schema=schema,
                )
            )
        return stub_aliases

    def counts(self, id_sharing: list[tuple[Path, int, str]]) -> dict[str, Any]:
        import numpy as np

        return {
            "works": self.n - len(id_sharing),
            "id_sharing_works": len(id_sharing),
            "id_sharing_edge_lines": int(
                np.frombuffer(self.row_edges, dtype=np.int64)[self.shared].sum()
            )
            if id_sharing
            else 0,
            "stubs": len(self.stub_w),
            "references": self.n_references,
            "authors": len(self.authors_seen),
            "venues": len(self.venues_seen),
            "retired": len(self.retired),
            "left_out": self.left_out,
        }

    def close(self) -> None:
        for fh in self.files.values():
            fh.close()
        self.paper_file.close()  # before the caller reads it: a file's footer is written here


def _line_id(line: bytes) -> str | None:
    """The ``id`` of a node line ``_encode`` wrote (``{"id":"…",…}``, the id first) without
    decoding the line; ``None`` when it is not that plain (an escaped character), and the
    caller then decodes it."""
    if not line.startswith(b'{"id":"'):
        return None
    end = line.find(b'"', 7)
    text = line[7:end]
    return None if end < 0 or b"\\" in text else text.decode("utf-8", "replace")


class _AuthorFill:
    """Author nodes as the incremental path leaves them when records of one Author differ
    (one names an ORCID, another does not; a name spelled two ways).

    ``load openalex`` reads the partitions oldest first and sets each record's properties
    over the node's: each property holds the value of the last record (partition, then
    line, then position) that states it. The bulk path reads newest first
    and writes an Author's first line as it meets it; the later lines that differ are kept
    here and the few nodes concerned are rewritten at the end. Identical repeats (nearly all
    of them) cost a hash each.

    A line's rank in the incremental order is ``(partition, position)``: the partition's
    index oldest first, the position in the file's author list. The first line written
    ranks after every line met later in an older file, and before every later line of its
    own file.
    """

    def __init__(self, files: int) -> None:
        self.files = files
        self.first_rank: dict[str, tuple[int, int]] = {}
        self.lines: dict[str, list[tuple[tuple[int, int], bytes]]] = {}

    def later(self, aid: str, line: bytes, file_no: int, pos: int, *, same_file: bool) -> None:
        """A line of ``aid`` that differs from its first, met in file ``file_no`` (newest
        first) at ``pos``; ``same_file``: the first line was met in this file too."""
        partition = self.files - 1 - file_no
        if aid not in self.first_rank:
            # the first line's rank: before this one in its own file, else after all
            self.first_rank[aid] = (partition, -1) if same_file else (self.files, 0)
        self.lines.setdefault(aid, []).append(((partition, pos), line))

    def rewrite(self, path: Path) -> None:
        """Rewrite the Author node file ``path`` with the filled lines (nothing to do when
        every record of every Author agreed)."""
        if not self.lines:
            return
        tmp = path.with_suffix(".part")
        with path.open("rb") as src, tmp.open("wb") as dst:
            for line in src:
                quick = _line_id(line)
                if quick is not None and quick not in self.lines:  # nearly every line
                    dst.write(line)
                    continue
                row = orjson.loads(line)
                aid = row["id"]
                if aid in self.lines:
                    stated = [(self.first_rank[aid], row)]
                    stated += [(rank, orjson.loads(text)) for rank, text in self.lines[aid]]
                    filled: dict[str, Any] = {}
                    for _, props in sorted(stated, key=lambda pair: pair[0]):
                        for key, value in props.items():
                            if value is not None:
                                filled[key] = value
                    line = _encode(filled) + b"\n"
                dst.write(line)
        tmp.replace(path)


#: the id slots two OpenAlex works can share (their own ``W`` ids never are)
SHARED_SLOTS = ("doi", "arxiv_id", "mag_id", "pmid", "pmcid")


def _id_sharing_rows(hashes: array[int], rows: array[int]) -> NDArray[np.int64]:
    """The rows whose id slots another row holds too (by a hash per ``(slot, value)``: a
    collision only sends a work down the incremental path, which is exact anyway)."""
    import numpy as np

    h = np.frombuffer(hashes, dtype=np.int64)
    r = np.frombuffer(rows, dtype=np.int64)
    if not len(h):
        return np.zeros(0, dtype=np.int64)
    _, inverse, counts = np.unique(h, return_inverse=True, return_counts=True)
    dup = counts[inverse] > 1
    return np.unique(r[dup])


def _drop_rows(path: Path, keep: NDArray[np.bool_]) -> None:
    """Rewrite the Arrow node file ``path`` with only the rows ``keep`` marks."""
    import pyarrow as pa
    import pyarrow.ipc as paipc

    with pa.memory_map(str(path)) as source:
        table = paipc.open_file(source).read_all().filter(pa.array(keep))
    tmp = path.with_suffix(".part")
    with paipc.new_file(str(tmp), table.schema) as sink:
        sink.write_table(table)
    tmp.replace(path)


def load_id_sharing(
    store: GraphStore,
    works: Sequence[Path],
    rows: Sequence[tuple[Path, int, str]],
    *,
    batch_size: int = 2_000,
) -> dict[str, Any]:
    """Load the works that share an id with another (``SnapshotRows.id_sharing``: file,
    line) through the incremental path, in its order (oldest partition first), after the
    import: they merge into one node per work exactly as ``load openalex`` merges them, and
    the stubs the import made for them are merged into their nodes. Returns the resolver's
    report and what was written."""
    from scholarkg.loaders.checkpoint import run_resumable
    from scholarkg.loaders.identity import IdentityResolver
    from scholarkg.loaders.openalex import work_group

    wanted: dict[Path, set[int]] = {}
    for path, line, _ in rows:
        wanted.setdefault(path, set()).add(line)
    resolver = IdentityResolver(store, chunk=batch_size)

    def groups() -> Iterator[Any]:
        for path in works:  # the incremental order
            lines = wanted.get(path)
            if not lines:
                continue
            for number, obj in iter_work_objects(path):
                if number not in lines:
                    continue
                try:
                    group = work_group(obj, path=path, line=number)
                except InputError as err:
                    raise page_record_error(err, path, obj) from None
                yield number, group

    stats = run_resumable(
        store, resolver.resolve(groups()), source="id-sharing works", batch_size=batch_size
    )
    resolver.finish()
    return {"records": stats.records, "merges": len(resolver.report.merges)}


@dataclass
class SnapshotRows:
    """What :func:`write_bulk_files` leaves besides its files: the counts, the Paper ids in
    the rows of :data:`PAPER_FILE` (loaded works, then stubs) and the references as row
    numbers in that file (citing, cited). The references stay numbers: the embedded store's
    bulk loader takes them as they are (``bulk.EdgePositions``); only Neo4j's importer
    needs them written out as ids (:func:`write_cites_file`)."""

    counts: dict[str, Any]
    paper_ids: list[str]
    cites_start: NDArray[np.int64]
    cites_end: NDArray[np.int64]
    #: (file, line, node id) of the works left to :func:`load_id_sharing`
    id_sharing: list[tuple[Path, int, str]]


def write_cites_file(rows: SnapshotRows, out: Path) -> Path:
    """The references as a ``start,end`` id file for Neo4j's importer: ``edges-CITES.tsv``
    unquoted, or quoted CSV when an id needs quoting."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    ids = pa.array(rows.paper_ids, pa.string())
    table = pa.table(
        [ids.take(pa.array(rows.cites_start)), ids.take(pa.array(rows.cites_end))],
        names=["start", "end"],
    )
    path = out / "edges-CITES.tsv"
    try:
        with path.open("wb") as fh:
            fh.write(b"start\tend\n")  # pyarrow quotes the header whatever the style
            options = pacsv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
            pacsv.write_csv(table, fh, options)
    except pa.ArrowInvalid:  # an id with a tab or a quote: quoted CSV, read line by line
        path.unlink(missing_ok=True)
        path = out / "edges-CITES.csv"
        pacsv.write_csv(table, str(path))
    return path


#: the incremental path's mark on a CITES that OpenAlex states (``Citation.from_openalex``):
#: a later update prunes a reference OpenAlex dropped by it, and leaves other sources' edges
_CITES_MARK = (("from_openalex", True),)


def bulk_load_openalex(
    store: GraphStore,
    works: Sequence[Path],
    merged: Sequence[Path],
    *,
    settings: Settings,
    workdir: Path | None = None,
    progress: BulkProgress | None = None,
    workers: int = 2,
) -> dict[str, Any]:
    """Build ``store``'s (empty) graph from the snapshot files (see the module doc).

    On Neo4j the importer replaces the managed server's database and restarts it: ``store``
    is stale afterwards, and the caller applies the schema in a new session.
    """
    if not works:
        raise InputError("no OpenAlex work files to load")
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=workdir, prefix="openalex-bulk-") as tmp:
        out = Path(tmp)
        rows = write_bulk_files(works, merged, out, progress=progress, workers=workers)
        counts = rows.counts
        counts["read_seconds"] = time.perf_counter() - t0
        node_files = [("Paper", out / PAPER_FILE), ("Paper", out / STUB_FILE)]
        node_files += [(label, out / f"nodes-{label}.jsonl") for label in ("Author", "Venue")
                       if (out / f"nodes-{label}.jsonl").stat().st_size]  # fmt: skip
        edge_files = [(rel, out / f"edges-{rel}.jsonl", end)
                      for rel, end in (("AUTHORED_BY", "Author"), ("IN_VENUE", "Venue"))
                      if (out / f"edges-{rel}.jsonl").stat().st_size]  # fmt: skip
        if settings.backend == "neo4j":
            from scholarkg.store.bulk_files import EdgeSource, NodeSource
            from scholarkg.store.neo4j.importer import import_files
            from scholarkg.store.neo4j.server import managed_server

            result = import_files(
                managed_server(settings),
                [NodeSource(path, label) for label, path in node_files],
                [EdgeSource(write_cites_file(rows, out), "CITES", properties=_CITES_MARK)]
                + [EdgeSource(path, rel, "Paper", end) for rel, path, end in edge_files],
                node_count=store.counts().total_nodes,
                progress=progress,
            )
            counts["nodes"], counts["relationships"] = result.nodes, result.relationships
            counts["skipped_relationships"] = result.skipped_relationships
            counts["import_convert_seconds"] = result.convert_seconds
            counts["import_seconds"] = result.import_seconds
        else:
            from scholarkg.store.bulk_files import EdgeSource, NodeSource
            from scholarkg.store.falkordb.bulk import EdgePositions, bulk_load
            from scholarkg.store.falkordb.store import FalkorDBStore

            nodes = [
                NodeSource(
                    path, label=label, extra_labels=("Stub",) if path.name == STUB_FILE else ()
                )
                for label, path in node_files
            ]
            cites = EdgePositions(
                rows.cites_start, rows.cites_end, "the snapshot's referenced_works",
                properties=_CITES_MARK,
            )  # fmt: skip
            edges: list[EdgeSource | EdgePositions] = [cites]
            edges += [
                EdgeSource(path, rel_type=rel, end_label=end) for rel, path, end in edge_files
            ]
            res = bulk_load(cast(FalkorDBStore, store), nodes, edges, progress=progress)
            counts["nodes"], counts["relationships"] = res.nodes, res.relationships
            counts["skipped_relationships"] = res.skipped_relationships
            counts["bulk_seconds"] = res.seconds
            counts["bulk_parse_send_schema_seconds"] = (
                f"{res.parse_seconds:.1f} / {res.send_seconds:.1f} / {res.schema_seconds:.1f}"
            )
            # the schema step's two parts: waiting for the indexes after the last command,
            # then for the AOF rewrite still running after them
            counts["bulk_index_compact_seconds"] = (
                f"{res.index_seconds:.1f} / {res.compact_seconds:.1f}"
            )
            counts["bulk_line_files"] = len(res.line_files)
        aliases = [orjson.loads(line) for line in (out / "alt-ids.jsonl").read_bytes().splitlines()]
    stubs = rows.paper_ids[len(rows.paper_ids) - counts["stubs"] :]
    if rows.id_sharing:  # their AUTHORED_BY/IN_VENUE lines had no Paper: written below
        counts["skipped_relationships"] = max(
            0, counts.get("skipped_relationships", 0) - counts.pop("id_sharing_edge_lines")
        )
    t1 = time.perf_counter()
    _after_import(store, aliases, stubs, settings=settings, works=works, snapshot=rows)
    counts["after_import_seconds"] = round(time.perf_counter() - t1, 1)
    counts["seconds"] = time.perf_counter() - t0
    return counts


def _after_import(
    store: GraphStore,
    rows: list[dict[str, Any]],
    stubs: Sequence[str],
    *,
    settings: Settings,
    works: Sequence[Path] = (),
    snapshot: SnapshotRows | None = None,
) -> None:
    """What the node files cannot say: the ``Stub`` label of the Papers only referenced
    (``stubs``), the ``alt_ids`` of loaded works that retired works were merged into (a few:
    OpenAlex drops merged works from the snapshot, only old references name them), and a
    ``PaperAlias`` node per retired id so that a later record naming it finds the survivor.
    On Neo4j the importer restarted the server, so a new session writes them."""
    from scholarkg.loaders.identity import mark_stub_ids, write_aliases

    sharing = snapshot.id_sharing if snapshot is not None else []
    if not rows and not stubs and not sharing:
        return

    def apply(target: GraphStore) -> None:
        if settings.backend == "neo4j":  # the id lookups below need the keys' indexes
            target.apply_schema()
            mark_stub_ids(target, stubs)  # the embedded store's import labelled them
        props = [{"id": r["id"], "props": r["props"]} for r in rows if not r.get("stub")]
        if props:
            target.run_named("identity/set_paper_properties", {"rows": props})
        if rows:
            write_aliases(target, {row["id"]: row["props"]["alt_ids"] for row in rows})
        if sharing:
            load_id_sharing(target, works, sharing)

    if settings.backend == "neo4j":
        from scholarkg.store import open_store

        fresh = open_store(settings)
        try:
            apply(fresh)
        finally:
            fresh.close()
    else:
        apply(store)

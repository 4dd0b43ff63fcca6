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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import compress
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import orjson

from scholarkg.errors import InputError
from scholarkg.loaders.openalex import WorkFields, iter_work_objects, read_merged_ids, work_fields
from scholarkg.schema import ids
from scholarkg.schema.text import clean_text, max_field_chars, note_cleaning
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    import numpy as np
    import pyarrow as pa
    from numpy.typing import NDArray

    from scholarkg.config import Settings

BulkProgress = Callable[[str, int], None]

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


#: UTF-8 of U+FEFF: orjson writes the BOM as these bytes (it escapes only controls, ``"``, ``\``)
_BOM_UTF8 = "\ufeff".encode()


def _needs_no_cleaning(values: object) -> bool:
    """True when no string in ``values`` can be changed or refused by :func:`_clean_str`
    but for its surrounding whitespace: one C pass over the whole record instead of a
    ``clean_text`` call per string (~25 strings a work; this halves the rows' cost).

    Decided on the values, by orjson's encoding of them: it escapes every character below
    U+0020 (the NUL, the other controls and CR that ``clean_text`` handles; TAB and LF too,
    which only costs the fast path), so an encoding without a backslash holds none; it
    refuses a lone surrogate (not UTF-8); it writes the BOM as its three UTF-8 bytes; and
    no string is longer in characters than the encoding is in bytes, so an encoding within
    the field cap holds no string over it. Anything it refuses (a lone surrogate, an
    integer past 64 bits) takes the per-string path, which cleans or names it. A backslash
    in the text itself (a LaTeX title) takes that path too: slower, same result.
    ``tests/loaders/test_catalogue_loaders.py`` checks both paths agree on dirty records.
    """
    try:
        encoded = orjson.dumps(values)
    except orjson.JSONEncodeError:
        return False
    return len(encoded) <= _CAP[0] and b"\\" not in encoded and _BOM_UTF8 not in encoded


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
            a["name"], orcid=a.get("orcid"), openalex_author_id=a.get("openalex_id")
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
    "title_norm", "alt_ids",
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
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        for line, obj in iter_work_objects(path):
            fields = work_fields(obj, path=path, line=line)
            row = paper_row(fields, path=path, line=line)
            ws.append(int(row["openalex_id"][1:]))
            node_ids.append(row["id"])
            papers.append(row)
            lines.append(line)
            ref_counts.append(len(fields.references))
            refs.extend([int(r[1:]) for r in fields.references])
            work_authors = _author_rows(fields, row["id"], path, line)
            author_counts.append(len(work_authors))
            authors.extend(work_authors)
            venues.append(row.get("venue"))
        table = paper_table(papers, path=path, lines=lines)
    finally:
        if gc_was_on:
            gc.enable()
    return _FileRows(
        ws.tobytes(), node_ids, table, ref_counts.tobytes(), refs.tobytes(),
        author_counts.tobytes(), authors, venues, lines.tobytes(),
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
    and resolves references to node ids at the end.
    """
    import multiprocessing

    import numpy as np
    import pyarrow as pa
    import pyarrow.ipc as paipc

    retired: dict[int, int] = {}
    for path in merged:
        for old, new in read_merged_ids(path):
            retired[int(old[1:])] = int(new[1:])
    retired_old = np.array(sorted(retired), dtype=np.int64)
    retired_new = np.array([retired[w] for w in retired_old.tolist()], dtype=np.int64)
    seen: set[int] = set()
    referenced_retired: set[int] = set()
    work_w = array("q")
    work_ids: list[str] = []
    src_parts: list[Any] = []
    dst_parts: list[Any] = []
    authors_seen: set[str] = set()
    venues_seen: set[str] = set()
    venue_ids: dict[str, bytes] = {}  # name → its node id as JSON (names repeat a lot)
    names = ("nodes-Author.jsonl", "nodes-Venue.jsonl", "edges-AUTHORED_BY.jsonl",
             "edges-IN_VENUE.jsonl")  # fmt: skip
    files = {name: (out / name).open("wb") for name in names}
    paper_file = paipc.new_file(str(out / PAPER_FILE), _paper_schema())
    ordered = list(reversed(works))  # newest partition first: the newest record wins
    n = 0
    # per kept row: where it was read (file number in ``ordered``, line) and a hash per id
    # slot it fills, to find the works that share an id (:func:`_id_sharing_rows`)
    row_file, row_line, row_edges = array("q"), array("q"), array("q")
    slot_hash, slot_row = array("q"), array("q")
    pool = multiprocessing.get_context("spawn").Pool(workers) if workers > 0 else None
    try:
        results = pool.imap(_read_file, ordered) if pool else map(_read_file, ordered)
        for file_no, rows in enumerate(results):
            ws = array("q", rows.ws)
            keep: list[bool] = []
            for w in ws:
                first = w not in seen and w not in retired
                if first:
                    seen.add(w)
                keep.append(first)
            kept = np.array(keep, dtype=bool)
            base = len(work_ids)
            work_w.extend(compress(ws, keep))
            work_ids.extend(compress(rows.ids, keep))
            papers = rows.papers if kept.all() else rows.papers.filter(pa.array(kept))
            paper_file.write_table(papers)
            row_file.extend([file_no] * papers.num_rows)
            row_line.extend(compress(array("q", rows.lines), keep))
            row_edges.extend(
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
                        slot_hash.append(hash((slot, value)))
                        slot_row.append(base + i)
            # references of the kept works, vectorised: ~20 a work, 20M at 1M works
            ref_counts = np.frombuffer(rows.ref_counts, dtype=np.int64)
            refs = np.frombuffer(rows.refs, dtype=np.int64)[np.repeat(kept, ref_counts)]
            if len(retired_old) and len(refs):  # references to retired works → the survivor
                at = np.minimum(np.searchsorted(retired_old, refs), len(retired_old) - 1)
                hit = retired_old[at] == refs
                referenced_retired.update(refs[hit].tolist())
                refs = np.where(hit, retired_new[at], refs)
            index = base + np.arange(papers.num_rows, dtype=np.int64)
            src = np.repeat(index, ref_counts[kept])
            if len(retired_old) and len(refs) and hit.any():
                # a work citing both a retired work and its survivor: one CITES, as the
                # incremental merge leaves it
                pairs = np.unique(np.stack([src, refs], axis=1), axis=0)
                src, refs = pairs[:, 0].copy(), pairs[:, 1].copy()
            src_parts.append(src)
            dst_parts.append(refs)
            # authors and venues: a set lookup per row and one write per file and label
            # (a write call per line was a third of this process's time)
            authors = rows.authors
            if not kept.all():
                author_counts = np.frombuffer(rows.author_counts, dtype=np.int64)
                authors = list(compress(authors, np.repeat(kept, author_counts).tolist()))
            new_authors = []
            for aid, author_line, _ in authors:
                if aid not in authors_seen:
                    authors_seen.add(aid)
                    new_authors.append(author_line)
            _write_lines(files["nodes-Author.jsonl"], new_authors)
            _write_lines(files["edges-AUTHORED_BY.jsonl"], [edge for _, _, edge in authors])
            new_venues, in_venue = [], []
            for paper_id, venue in compress(zip(rows.ids, rows.venues, strict=True), keep):
                if not venue:
                    continue
                venue_end = venue_ids.get(venue)
                if venue_end is None:
                    vid = ids.named_id("venue", venue)
                    venue_end = venue_ids[venue] = orjson.dumps(vid)
                    if vid not in venues_seen:  # two spellings, one venue
                        venues_seen.add(vid)
                        new_venues.append(_encode({"id": vid, "name": venue}))
                in_venue.append(
                    b'{"start":' + orjson.dumps(paper_id) + b',"end":' + venue_end + b"}"
                )
            _write_lines(files["nodes-Venue.jsonl"], new_venues)
            _write_lines(files["edges-IN_VENUE.jsonl"], in_venue)
            n += papers.num_rows
            if progress:
                progress("read works", n)
        # works sharing an id with another (a preprint and its article): left to the
        # incremental path after the import (:func:`load_id_sharing`), so they merge as there
        shared = _id_sharing_rows(slot_hash, slot_row)
        kept_rows = np.ones(len(work_ids), dtype=bool)
        kept_rows[shared] = False
        id_sharing = [
            (ordered[row_file[i]], int(row_line[i]), work_ids[i]) for i in shared.tolist()
        ]
        if len(shared):
            new_pos = np.cumsum(kept_rows) - 1
            src_all = np.concatenate(src_parts) if src_parts else np.zeros(0, dtype=np.int64)
            dst_all = np.concatenate(dst_parts) if dst_parts else np.zeros(0, dtype=np.int64)
            stated = kept_rows[src_all]
            src_parts, dst_parts = [new_pos[src_all[stated]]], [dst_all[stated]]
            work_w = array("q", compress(work_w, kept_rows.tolist()))
            work_ids = list(compress(work_ids, kept_rows.tolist()))
        # references → node ids: loaded works by binary search, the rest become stubs
        loaded_w = np.frombuffer(work_w, dtype=np.int64)
        order = np.argsort(loaded_w, kind="stable")
        sorted_w = loaded_w[order]
        d = np.concatenate(dst_parts) if dst_parts else np.zeros(0, dtype=np.int64)
        src = np.concatenate(src_parts) if src_parts else np.zeros(0, dtype=np.int64)
        pos = np.searchsorted(sorted_w, d)
        if len(sorted_w):
            pos_clipped = np.minimum(pos, len(sorted_w) - 1)
            found = sorted_w[pos_clipped] == d
        else:
            pos_clipped, found = pos, np.zeros(len(d), dtype=bool)
        stub_w = np.unique(d[~found])
        # a retired work that was referenced keeps its id as an alias of the survivor, as
        # the incremental path's merge of its stub leaves it (identity.retire_ids)
        alt_ids: dict[int, list[str]] = {}
        for old_w in sorted(referenced_retired):
            alt_ids.setdefault(retired[old_w], []).append(f"openalex:W{old_w}")
        # a stub is known by its OpenAlex id only: "W…" in the openalex_id slot, the node id
        # "openalex:W…" (what the id rule gives a record with nothing else)
        stub_numbers = [f"W{w}" for w in stub_w.tolist()]
        stub_ids = [f"openalex:{w}" for w in stub_numbers]
        stub_aliases: list[dict[str, Any]] = []
        stub_alt_ids: list[list[str] | None] = []
        for w, stub_id in zip(stub_w.tolist(), stub_ids, strict=True):
            aliases = sorted(alt_ids.pop(w)) if w in alt_ids else None
            if aliases:
                stub_aliases.append({"id": stub_id, "props": {"alt_ids": aliases}})
            stub_alt_ids.append(aliases)
        stubs = {
            "id": pa.array(stub_ids, pa.string()),
            "openalex_id": pa.array(stub_numbers, pa.string()),
            "alt_ids": pa.array(stub_alt_ids, pa.list_(pa.string())),
        }
        schema = _paper_schema()
        # the stubs in a file of their own: its nodes carry the second label Stub
        with paipc.new_file(str(out / STUB_FILE), schema) as stub_file:
            stub_file.write_table(
                pa.table(
                    [
                        stubs.get(c, pa.nulls(len(stub_w), schema.field(c).type))
                        for c in PAPER_COLUMNS
                    ],
                    schema=schema,
                )
            )
        # loaded survivors get their alt_ids after the load; every survivor (stubs too) gets
        # the PaperAlias nodes the incremental path's merge leaves (identity.alias_records)
        with (out / "alt-ids.jsonl").open("wb") as fh:
            position = dict(zip(work_w.tolist(), work_ids, strict=True)) if alt_ids else {}
            for w, aliases in sorted(alt_ids.items()):
                row = {"id": position[w], "props": {"alt_ids": sorted(aliases)}}
                fh.write(_encode(row) + b"\n")
            for row in stub_aliases:
                fh.write(_encode({**row, "stub": True}) + b"\n")
        end_index = np.empty(len(d), dtype=np.int64)
        end_index[found] = order[pos_clipped[found]]
        end_index[~found] = len(work_ids) + np.searchsorted(stub_w, d[~found])
        if pool is not None:  # reaped, so their CPU time counts as the caller's children's
            pool.close()
            pool.join()
            pool = None
    finally:
        if pool is not None:
            pool.terminate()
        for fh in files.values():
            fh.close()
        paper_file.close()  # before the caller reads it: a file's footer is written here
    if id_sharing:  # their Paper rows out of the node file (their edges' lines are skipped)
        _drop_rows(out / PAPER_FILE, kept_rows)
    counts = {
        "works": n - len(id_sharing),
        "id_sharing_works": len(id_sharing),
        "id_sharing_edge_lines": int(np.frombuffer(row_edges, dtype=np.int64)[shared].sum())
        if id_sharing
        else 0,
        "stubs": len(stub_w),
        "references": len(d),
        "authors": len(authors_seen),
        "venues": len(venues_seen),
        "retired": len(retired),
    }
    return SnapshotRows(counts, work_ids + stub_ids, src, end_index, id_sharing)


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
                yield number, work_group(obj, path=path, line=number)

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
            from scholarkg.store.neo4j.importer import (
                ImportNodes,
                ImportRelationships,
                import_files,
            )
            from scholarkg.store.neo4j.server import managed_server

            result = import_files(
                managed_server(settings),
                [ImportNodes(path, label) for label, path in node_files],
                [ImportRelationships(write_cites_file(rows, out), "CITES", properties=_CITES_MARK)]
                + [ImportRelationships(path, rel, "Paper", end) for rel, path, end in edge_files],
                node_count=store.counts().total_nodes,
                progress=(lambda m: progress(m, 0)) if progress else None,
            )
            counts["nodes"], counts["relationships"] = result.nodes, result.relationships
            counts["skipped_relationships"] = result.skipped_relationships
            counts["import_convert_seconds"] = result.convert_seconds
            counts["import_seconds"] = result.import_seconds
        else:
            from scholarkg.store.falkordb.bulk import (
                EdgePositions,
                EdgeSource,
                NodeSource,
                bulk_load,
            )
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

"""``scholarkg load openalex --bulk``: an OpenAlex snapshot into a *new* graph, fast.

Why: the incremental path resolves every id against the graph and MERGEs row by row, a few
thousand works per second; a snapshot-size load into an empty database needs none of that.
This module reads the same works with the same parser (``loaders/openalex.parse_work``, so
the Papers are identical) and writes the node and edge files that the existing bulk loaders
take: ``GRAPH.BULK`` on the embedded store (``store/falkordb/bulk.bulk_load``: Paper, Author,
Venue, CITES, AUTHORED_BY, IN_VENUE) and Neo4j's offline importer on the managed Neo4j
(``store/neo4j/importer.import_into_managed``: Paper and CITES, the importer path's scope).

Identity within one snapshot is OpenAlex's: one record per work id. Partitions are read
newest first and a work already read is skipped, so the newest version wins; works listed in
``merged_ids`` are dropped and references to them point at the surviving work. A reference
to a work the snapshot lacks gets a stub Paper (``openalex:W…``), as on the incremental path.

Memory: references are kept as two integer arrays (16 bytes per reference) and each work's
node id as a string until the edge file is written (~100 bytes per work), so a 1M-work,
20M-reference snapshot needs ~0.5 GB; node rows stream to disk.
"""

from __future__ import annotations

import json
import re
import tempfile
import time
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from scholarkg.errors import InputError
from scholarkg.loaders.openalex import WorkFields, iter_work_objects, read_merged_ids, work_fields
from scholarkg.schema import ids
from scholarkg.schema.text import clean_text, max_field_chars, note_cleaning
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from scholarkg.config import Settings

BulkProgress = Callable[[str, int], None]
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode


_ISO_DATE = re.compile(r"^\d{4}(?:-\d{2}(?:-\d{2})?)?$")


def _clean(value: Any, label: str, name: str, path: Path, line: int) -> Any:
    """The record layer's string rule (length cap, ``clean_text``, stripped), without pydantic."""
    if isinstance(value, str):
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
    if isinstance(value, list):
        return [_clean(v, label, name, path, line) for v in value]
    return value


#: the field cap, read once per file (``max_field_chars`` reads the environment)
_CAP = [max_field_chars()]


def paper_row(fields: WorkFields, *, path: Path, line: int) -> dict[str, Any]:
    """The Paper row ``Paper(**fields.paper).row()`` would give, computed directly (the bulk
    path's hot loop; ``tests/loaders/test_catalogue_loaders.py`` checks they agree)."""
    row = {k: _clean(v, "Paper", k, path, line) for k, v in fields.paper.items() if v is not None}
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
) -> list[tuple[str, str, str]]:
    out = []
    for author, ship in zip(fields.authors, fields.authorships, strict=True):
        a = {k: _clean(v, "Author", k, path, line) for k, v in author.items() if v is not None}
        aid = ids.author_id(
            a["name"], orcid=a.get("orcid"), openalex_author_id=a.get("openalex_id")
        )
        edge = {
            k: _clean(v, "AUTHORED_BY", k, path, line) for k, v in ship.items() if v is not None
        }
        out.append(
            (aid, _encode({"id": aid, **a}), _encode({"start": paper_id, "end": aid, **edge}))
        )
    return out


@dataclass
class _FileRows:
    """One file's works as the bulk files need them (computed in a worker process)."""

    ws: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    papers: list[str] = field(default_factory=list)
    ref_counts: list[int] = field(default_factory=list)
    refs: list[int] = field(default_factory=list)
    author_counts: list[int] = field(default_factory=list)
    authors: list[tuple[str, str, str]] = field(default_factory=list)
    venues: list[str | None] = field(default_factory=list)


def _read_file(path: Path) -> _FileRows:
    _CAP[0] = max_field_chars()
    out = _FileRows()
    for line, obj in iter_work_objects(path):
        fields = work_fields(obj, path=path, line=line)
        row = paper_row(fields, path=path, line=line)
        out.ws.append(int(row["openalex_id"][1:]))
        out.ids.append(row["id"])
        out.papers.append(_encode(row))
        out.ref_counts.append(len(fields.references))
        out.refs.extend(int(r[1:]) for r in fields.references)
        authors = _author_rows(fields, row["id"], path, line)
        out.author_counts.append(len(authors))
        out.authors.extend(authors)
        out.venues.append(row.get("venue"))
    return out


def write_bulk_files(
    works: Sequence[Path],
    merged: Sequence[Path],
    out: Path,
    *,
    progress: BulkProgress | None = None,
    workers: int = 2,
) -> dict[str, Any]:
    """Write ``nodes-<Label>.jsonl`` and ``edges-<TYPE>`` files under ``out``; returns counts.

    ``workers`` processes parse the files (one file each at a time; 0: here); this process
    keeps the newest record of each work, drops retired ones, dedups authors and venues,
    and resolves references to node ids at the end.
    """
    import multiprocessing

    import numpy as np
    import pyarrow as pa

    retired: dict[int, int] = {}
    for path in merged:
        for old, new in read_merged_ids(path):
            retired[int(old[1:])] = int(new[1:])
    seen: set[int] = set()
    work_w = array("q")
    work_ids: list[str] = []
    src = array("q")
    dst = array("q")
    authors_seen: set[str] = set()
    venues_seen: set[str] = set()
    names = ("nodes-Paper.jsonl", "nodes-Author.jsonl", "nodes-Venue.jsonl",
             "edges-AUTHORED_BY.jsonl", "edges-IN_VENUE.jsonl")  # fmt: skip
    files = {name: (out / name).open("w", encoding="utf-8") for name in names}
    ordered = list(reversed(works))  # newest partition first: the newest record wins
    n = 0
    pool = multiprocessing.get_context("spawn").Pool(workers) if workers > 0 else None
    try:
        results = pool.imap(_read_file, ordered) if pool else map(_read_file, ordered)
        for rows in results:
            ref_end = author_end = 0
            for i, w in enumerate(rows.ws):
                ref_start, ref_end = ref_end, ref_end + rows.ref_counts[i]
                author_start, author_end = author_end, author_end + rows.author_counts[i]
                if w in seen or w in retired:
                    continue
                seen.add(w)
                index = len(work_ids)
                paper_id = rows.ids[i]
                work_w.append(w)
                work_ids.append(paper_id)
                files["nodes-Paper.jsonl"].write(rows.papers[i] + "\n")
                for r in rows.refs[ref_start:ref_end]:
                    src.append(index)
                    dst.append(retired.get(r, r))
                for aid, author_line, edge_line in rows.authors[author_start:author_end]:
                    if aid not in authors_seen:
                        authors_seen.add(aid)
                        files["nodes-Author.jsonl"].write(author_line + "\n")
                    files["edges-AUTHORED_BY.jsonl"].write(edge_line + "\n")
                venue = rows.venues[i]
                if venue:
                    vid = ids.named_id("venue", venue)
                    if vid not in venues_seen:
                        venues_seen.add(vid)
                        files["nodes-Venue.jsonl"].write(_encode({"id": vid, "name": venue}) + "\n")
                    files["edges-IN_VENUE.jsonl"].write(
                        _encode({"start": paper_id, "end": vid}) + "\n"
                    )
                n += 1
            if progress:
                progress("read works", n)
        # references → node ids: loaded works by binary search, the rest become stubs
        ws = np.frombuffer(work_w, dtype=np.int64)
        order = np.argsort(ws, kind="stable")
        sorted_w = ws[order]
        d = np.frombuffer(dst, dtype=np.int64)
        pos = np.searchsorted(sorted_w, d)
        if len(sorted_w):
            pos_clipped = np.minimum(pos, len(sorted_w) - 1)
            found = sorted_w[pos_clipped] == d
        else:
            pos_clipped, found = pos, np.zeros(len(d), dtype=bool)
        stub_w = np.unique(d[~found])
        for w in stub_w.tolist():
            files["nodes-Paper.jsonl"].write(
                _encode({"id": f"openalex:W{w}", "openalex_id": f"W{w}"}) + "\n"
            )
        end_index = np.empty(len(d), dtype=np.int64)
        end_index[found] = order[pos_clipped[found]]
        end_index[~found] = len(work_ids) + np.searchsorted(stub_w, d[~found])
        all_ids = pa.array(work_ids + [f"openalex:W{w}" for w in stub_w.tolist()], pa.string())
        starts = all_ids.take(pa.array(np.frombuffer(src, dtype=np.int64)))
        ends = all_ids.take(pa.array(end_index))
        _write_edge_list(pa.table([starts, ends], names=["start", "end"]), out)
    finally:
        if pool is not None:
            pool.terminate()
        for fh in files.values():
            fh.close()
    return {
        "works": n,
        "stubs": len(stub_w),
        "references": len(d),
        "authors": len(authors_seen),
        "venues": len(venues_seen),
        "retired": len(retired),
    }


def _write_edge_list(table: Any, out: Path) -> Path:
    """``edges-CITES.tsv`` unquoted (the bulk loaders' columnar reader takes that; a quoted
    header sends the file to the line reader), or quoted CSV when an id needs quoting."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

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


def _cites_file(out: Path) -> Path:
    tsv = out / "edges-CITES.tsv"
    return tsv if tsv.exists() else out / "edges-CITES.csv"


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
        counts = write_bulk_files(works, merged, out, progress=progress, workers=workers)
        counts["read_seconds"] = time.perf_counter() - t0
        if settings.backend == "neo4j":
            from scholarkg.store.neo4j.importer import import_into_managed
            from scholarkg.store.neo4j.server import managed_server

            result = import_into_managed(
                managed_server(settings), out / "nodes-Paper.jsonl", _cites_file(out),
                rel_type="CITES", node_count=store.counts().total_nodes,
                progress=(lambda m: progress(m, 0)) if progress else None,
            )  # fmt: skip
            counts["nodes"], counts["relationships"] = result.nodes, result.relationships
        else:
            from scholarkg.store.falkordb.bulk import EdgeSource, NodeSource, bulk_load
            from scholarkg.store.falkordb.store import FalkorDBStore

            nodes = [NodeSource(out / f"nodes-{label}.jsonl", label=label)
                     for label in ("Paper", "Author", "Venue")
                     if (out / f"nodes-{label}.jsonl").stat().st_size]  # fmt: skip
            edges = [EdgeSource(_cites_file(out), rel_type="CITES")]
            edges += [EdgeSource(out / f"edges-{rel}.jsonl", rel_type=rel, end_label=end)
                      for rel, end in (("AUTHORED_BY", "Author"), ("IN_VENUE", "Venue"))
                      if (out / f"edges-{rel}.jsonl").stat().st_size]  # fmt: skip
            res = bulk_load(cast(FalkorDBStore, store), nodes, edges, progress=progress)
            counts["nodes"], counts["relationships"] = res.nodes, res.relationships
            counts["skipped_relationships"] = res.skipped_relationships
            counts["bulk_seconds"] = res.seconds
            counts["bulk_parse_send_schema_seconds"] = (
                f"{res.parse_seconds:.1f} / {res.send_seconds:.1f} / {res.schema_seconds:.1f}"
            )
            counts["bulk_line_files"] = len(res.line_files)
    counts["seconds"] = time.perf_counter() - t0
    return counts

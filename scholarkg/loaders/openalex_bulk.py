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
import tempfile
import time
from array import array
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from scholarkg.errors import InputError
from scholarkg.loaders.openalex import iter_work_objects, parse_work, read_merged_ids
from scholarkg.schema.records import NodeRecord
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from scholarkg.config import Settings

BulkProgress = Callable[[str, int], None]
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode


def _row(record: NodeRecord) -> dict[str, Any]:
    skip = record.NOT_STORED
    return {k: v for k, v in record.__dict__.items() if v is not None and k not in skip}


def write_bulk_files(
    works: Sequence[Path],
    merged: Sequence[Path],
    out: Path,
    *,
    progress: BulkProgress | None = None,
) -> dict[str, Any]:
    """Write ``nodes-<Label>.jsonl`` and ``edges-<TYPE>.csv`` under ``out``; returns counts."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pacsv

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
    files = {name: (out / name).open("w", encoding="utf-8") for name in (
        "nodes-Paper.jsonl", "nodes-Author.jsonl", "nodes-Venue.jsonl",
        "edges-AUTHORED_BY.jsonl", "edges-IN_VENUE.jsonl",
    )}  # fmt: skip
    n = 0
    try:
        for path in reversed(works):  # newest partition first: the newest record wins
            for line, obj in iter_work_objects(path):
                work = parse_work(obj, path=path, line=line)
                w = int((work.paper.openalex_id or "W0")[1:])
                if w in seen or w in retired:
                    continue
                seen.add(w)
                index = len(work_ids)
                work_w.append(w)
                work_ids.append(work.paper.id)
                files["nodes-Paper.jsonl"].write(_encode(_row(work.paper)) + "\n")
                for ref in work.references:
                    r = int(ref[1:])
                    src.append(index)
                    dst.append(retired.get(r, r))
                for author, authorship in zip(work.authors, work.authorships, strict=True):
                    if author.id not in authors_seen:
                        authors_seen.add(author.id)
                        files["nodes-Author.jsonl"].write(_encode(_row(author)) + "\n")
                    files["edges-AUTHORED_BY.jsonl"].write(
                        _encode({"start": work.paper.id, "end": author.id,
                                 **authorship.properties()}) + "\n"
                    )  # fmt: skip
                if work.venue is not None:
                    if work.venue.id not in venues_seen:
                        venues_seen.add(work.venue.id)
                        files["nodes-Venue.jsonl"].write(_encode(_row(work.venue)) + "\n")
                    files["edges-IN_VENUE.jsonl"].write(
                        _encode({"start": work.paper.id, "end": work.venue.id}) + "\n"
                    )
                n += 1
                if progress and n % 10_000 == 0:
                    progress("read works", n)
        if progress:
            progress("read works", n)
        # references → node ids: loaded works by binary search, the rest become stubs
        ws = np.frombuffer(work_w, dtype=np.int64)
        order = np.argsort(ws, kind="stable")
        sorted_w = ws[order]
        d = np.frombuffer(dst, dtype=np.int64)
        pos = np.searchsorted(sorted_w, d)
        pos_clipped = np.minimum(pos, max(len(sorted_w) - 1, 0))
        found = (len(sorted_w) > 0) & (sorted_w[pos_clipped] == d) if len(d) else np.zeros(0, bool)
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
        pacsv.write_csv(
            pa.table([starts, ends], names=["start", "end"]), str(out / "edges-CITES.csv")
        )
    finally:
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


def bulk_load_openalex(
    store: GraphStore,
    works: Sequence[Path],
    merged: Sequence[Path],
    *,
    settings: Settings,
    workdir: Path | None = None,
    progress: BulkProgress | None = None,
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
        counts = write_bulk_files(works, merged, out, progress=progress)
        counts["read_seconds"] = time.perf_counter() - t0
        if settings.backend == "neo4j":
            from scholarkg.store.neo4j.importer import import_into_managed
            from scholarkg.store.neo4j.server import managed_server

            result = import_into_managed(
                managed_server(settings), out / "nodes-Paper.jsonl", out / "edges-CITES.csv",
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
            edges = [EdgeSource(out / "edges-CITES.csv", rel_type="CITES")]
            edges += [EdgeSource(out / f"edges-{rel}.jsonl", rel_type=rel, end_label=end)
                      for rel, end in (("AUTHORED_BY", "Author"), ("IN_VENUE", "Venue"))
                      if (out / f"edges-{rel}.jsonl").stat().st_size]  # fmt: skip
            res = bulk_load(cast(FalkorDBStore, store), nodes, edges, progress=progress)
            counts["nodes"], counts["relationships"] = res.nodes, res.relationships
            counts["skipped_relationships"] = res.skipped_relationships
            counts["bulk_seconds"] = res.seconds
    counts["seconds"] = time.perf_counter() - t0
    return counts

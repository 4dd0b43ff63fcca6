"""``scholarkg load s2 --bulk``: the S2 readers' records into a *new* graph with GRAPH.BULK.

Why: the incremental path MERGEs every node and relationship (idempotent, resumable) at a
few thousand relationships per second; 1M citing sentences bring 3M+ relationships
(IN_PAPER, GOLD, CITES), i.e. tens of minutes. A new graph can be built in one pass of
``GRAPH.BULK`` (``store/falkordb/bulk.py``) at several hundred thousand rows per second.

The same readers produce the same records as the MERGE path; this module only changes where
they go: node records are merged per id in memory (papers, authors, venues: later
properties win, as MERGE ... SET would), citing sentences and edges are streamed to
temporary JSONL files (duplicate context ids and duplicate ``CITES`` pairs dropped, as MERGE
would), then everything is sent. Corpus ids resolve against the papers read in this run
(an in-memory map), so ``--papers`` must be given. Memory grows with the number of papers,
not of contexts.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from scholarkg.errors import InputError
from scholarkg.loaders.checkpoint import AnyRecord, Group
from scholarkg.loaders.tolerant import SkipReport
from scholarkg.schema.records import EdgeRecord, NodeRecord, Paper

#: node labels streamed to disk instead of merged in memory (one row per id)
STREAMED_LABELS = frozenset({"CitationContext"})
#: relationship types whose duplicate (start, end) pairs are dropped (MERGE semantics)
DEDUPED_TYPES = frozenset({"CITES", "AUTHORED_BY", "IN_VENUE"})
_encode = json.JSONEncoder(ensure_ascii=False, check_circular=False, separators=(",", ":")).encode


def _node_row(record: NodeRecord) -> dict[str, Any]:
    """``record.row()`` without pydantic's serialiser (the values are already plain: this
    runs for millions of records, where ``model_dump`` dominated the profile)."""
    skip = record.NOT_STORED
    return {k: v for k, v in record.__dict__.items() if v is not None and k not in skip}


class BulkSink:
    """Collects records for one GRAPH.BULK load (see the module doc)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.nodes: dict[str, dict[str, dict[str, Any]]] = {}
        self.streams: dict[Any, IO[str]] = {}
        self.seen_nodes: dict[str, set[str]] = {}
        self.seen_edges: dict[str, set[tuple[str, str]]] = {}
        self.paths: dict[Any, Path] = {}
        self.records = 0

    def _stream(self, key: Any, name: str) -> IO[str]:
        if key not in self.streams:
            path = self.workdir / name
            self.paths[key] = path
            self.streams[key] = path.open("w", encoding="utf-8")
        return self.streams[key]

    def add(self, record: AnyRecord) -> None:
        if not isinstance(record, NodeRecord | EdgeRecord):
            return  # a reload's mark (StatedList): a new graph has nothing to prune
        self.records += 1
        if isinstance(record, NodeRecord):
            label = record.LABEL
            row = _node_row(record)
            if label in STREAMED_LABELS:
                seen = self.seen_nodes.setdefault(label, set())
                if record.id in seen:
                    return
                seen.add(record.id)
                self._stream(("node", label), f"nodes-{label}.jsonl").write(_encode(row) + "\n")
            else:
                self.nodes.setdefault(label, {}).setdefault(record.id, {}).update(row)
            return
        assert isinstance(record, EdgeRecord)
        if record.TYPE in DEDUPED_TYPES:
            seen_e = self.seen_edges.setdefault(record.TYPE, set())
            pair = (record.start, record.end)
            if pair in seen_e:
                return
            seen_e.add(pair)
        key = ("edge", record.TYPE, record.START, record.END)
        name = f"edges-{record.TYPE}-{record.START}-{record.END}.jsonl"
        row = {"start": record.start, "end": record.end, **record.properties()}
        self._stream(key, name).write(_encode(row) + "\n")

    def add_groups(self, groups: Iterable[Group]) -> int:
        n = 0
        for _, records in groups:
            n += 1
            for rec in records:
                self.add(rec)
        return n

    def sources(self) -> tuple[list[Any], list[Any]]:
        """Node and edge sources for ``bulk_load`` (files closed and written)."""
        from scholarkg.store.bulk_files import EdgeSource, NodeSource

        for label, rows in self.nodes.items():
            path = self.workdir / f"nodes-{label}.jsonl"
            with path.open("w", encoding="utf-8") as fh:
                for row in rows.values():
                    fh.write(_encode(row) + "\n")
            self.paths[("node", label)] = path
        for stream in self.streams.values():
            stream.close()
        nodes = [NodeSource(p, label=k[1]) for k, p in self.paths.items() if k[0] == "node"]
        edges = [
            EdgeSource(p, rel_type=k[1], start_label=k[2], end_label=k[3])
            for k, p in self.paths.items()
            if k[0] == "edge"
        ]
        return nodes, edges


def bulk_load_s2(
    store: Any,
    files: Mapping[str, Path | None],
    report: SkipReport,
    *,
    workdir: Path | None = None,
    progress: Callable[[str, int], None] | None = None,
    workers: int = 0,
    columnar: bool = True,
) -> dict[str, Any]:
    """Read every given S2 file and build ``store.graph`` with one GRAPH.BULK pass
    (S2ORC parsed by ``workers`` extra processes, 0 = here: same records, see ``read_s2orc``;
    ``columnar`` is ``bulk_load``'s reader choice, for the benchmark's comparison)."""
    import time

    from scholarkg.loaders import citerec_s2 as s2
    from scholarkg.schema.citerec import S2Paper
    from scholarkg.store.falkordb.bulk import bulk_load

    if not files.get("papers"):
        raise InputError("--bulk needs --papers: corpus ids resolve against the papers read")
    with tempfile.TemporaryDirectory(dir=workdir, prefix="s2bulk-") as tmp:
        sink = BulkSink(Path(tmp))
        corpus: dict[int, str] = {}

        def lookup(ids: Sequence[int]) -> dict[int, str]:
            return {c: corpus[c] for c in ids if c in corpus}

        counts: dict[str, int] = {}
        t0 = time.perf_counter()
        order = s2.dataset_readers(report, lookup, workers=workers)
        for kind, read in order:
            path = s2.dataset_path(kind, files)
            if path is None:
                continue
            groups = read(path)
            if kind == "papers":
                groups = _recording(groups, corpus, S2Paper)
            counts[kind] = sink.add_groups(groups)
            if progress:
                progress(f"read {kind}", counts[kind])
        nodes, edges = sink.sources()
        read_seconds = time.perf_counter() - t0
        result = bulk_load(store, nodes, edges, columnar=columnar)
    return {
        "lines": counts,
        "nodes": result.nodes,
        "relationships": result.relationships,
        "skipped_relationships": result.skipped_relationships,
        #: reading the S2 files into records (S2ORC: JSON, masking, sentence splitting)
        "read_seconds": read_seconds,
        "parse_seconds": result.parse_seconds,
        "send_seconds": result.send_seconds,
        "schema_seconds": result.schema_seconds,
    }


def _recording(
    groups: Iterable[Group], corpus: dict[int, str], paper_cls: type[Paper]
) -> Iterator[Group]:
    """Pass groups through, remembering each S2 paper's corpus id → Paper id."""
    for number, records in groups:
        for rec in records:
            if isinstance(rec, paper_cls) and rec.corpus_id is not None:
                corpus[int(rec.corpus_id)] = rec.id
        yield number, records

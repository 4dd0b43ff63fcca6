"""Write a DORIS-MAE record stream: the shared writer, plus JUDGED edges MERGEd on their key.

``RecordWriter`` MERGEs one relationship per (start, end) pair, which is right for every
DORIS-MAE edge except ``JUDGED``: the dataset sums duplicate annotations and keeps three
human grades per pair, so each judgement is its own edge, keyed ``gpt:<index>`` or
``human:<index>:<annotator>`` (``queries/dorismae/merge_judged.cypher``). Loading twice
therefore changes nothing, and duplicates are not collapsed.

On a bad record (``InputError`` from the reader) everything read before it is flushed, so
nothing already validated is lost, and the error propagates.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scholarkg.errors import InputError
from scholarkg.loaders.writer import RecordWriter, WriteReport
from scholarkg.schema.records import EdgeRecord, Judgement, NodeRecord
from scholarkg.store.base import GraphStore


def write_dorismae(
    store: GraphStore,
    records: Iterable[NodeRecord | EdgeRecord],
    *,
    batch_size: int = 5_000,
) -> WriteReport:
    """Write ``records``; returns nodes/relationships written and skipped edges."""
    writer = RecordWriter(store, batch_size=batch_size)
    judged: list[dict[str, Any]] = []

    def flush_judged() -> None:
        if not judged:
            return
        writer.flush()  # the aspects and papers the judgements point at
        rows = store.run_named("dorismae/merge_judged", {"rows": list(judged)})
        written = int(rows[0]["written"]) if rows else 0
        writer.report.relationships["JUDGED"] += written
        if written < len(judged):
            writer.report.skipped_relationships["JUDGED"] += len(judged) - written
        judged.clear()

    try:
        for rec in records:
            if isinstance(rec, Judgement):
                writer.report.records += 1
                judged.append(
                    {
                        "start": rec.start,
                        "end": rec.end,
                        "key": rec.key or f"{rec.source}:{rec.start}:{rec.end}",
                        "score": rec.score,
                        "source": rec.source,
                        "annotator": rec.annotator,
                    }
                )
                if len(judged) >= batch_size:
                    flush_judged()
            else:
                writer.add(rec)
    except InputError:
        writer.flush()
        flush_judged()
        raise
    writer.flush()
    flush_judged()
    return writer.report

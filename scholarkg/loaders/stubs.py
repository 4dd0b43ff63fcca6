"""Fill the graph's stubs in from files the user has (``load openalex --only-stubs``).

A stub (``:Paper:Stub``) is a work the graph knows only by an id, as someone's reference. A
user who loaded a slice (a group's works) has thousands of them, and usually a snapshot or
saved API pages that describe many. This module finds, in those files, the records that
describe a stub, and hands only them to the normal load:

1. **scan** (:func:`scan_for_stubs`): every record is read and its ids taken by the
   reader's key function (no full parse); the ids are looked up in batches, one query a
   batch (``identity/lookup_stubs``: stubs only, by id, id slot or alias), and the records
   that name a stub are noted by their position in their file. Nothing is written during
   the scan, so the records chosen are those describing what the graph held as stubs when
   the job started, whatever the batch size and the order of the files (filling a work
   adds stubs for its own references; those are not chased: run again to go one step
   further);
2. **load**: the reader yields only those records, through the normal path (identity
   resolution, provenance, checkpoints), so every identity rule holds.

The scan's answer is kept in a journal beside the checkpoints (:class:`StubJournal`) until
the load completes: a works filled before an interruption is no longer a stub, so a rerun
(with or without ``--resume``) must load the records the first scan chose, not scan again.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.loaders.identity import SLOTS
from scholarkg.store.base import GraphStore

#: ``progress(stage, records done, total or None)``
ScanProgress = Callable[[str, int, "int | None"], None]


@dataclass
class StubScan:
    """What a scan found: per file (its path as text) the positions (0-based, in the
    reader's order) of the records that describe a stub."""

    selected: dict[str, list[int]] = field(default_factory=dict)
    #: records read, stubs the chosen records describe (distinct), stubs in the graph then
    records: int = 0
    stubs: int = 0
    stubs_before: int = 0

    @property
    def chosen(self) -> int:
        return sum(len(v) for v in self.selected.values())


def count_stubs(store: GraphStore) -> int:
    rows = store.run_named("identity/count_stubs")
    return int(rows[0]["stubs"]) if rows else 0


def lookup_stubs(store: GraphStore, keys: Iterable[str]) -> dict[str, str]:
    """``key → stub id`` for the scheme-prefixed ids (``openalex:W2``, ``doi:10.1/x``) that
    name a stub Paper (by its id, an id slot or a ``PaperAlias``)."""
    by_scheme = {scheme: slot for slot, scheme in SLOTS.items()}
    params: dict[str, set[Any]] = {"ids": set(), **{slot: set() for slot in SLOTS}}
    for key in keys:
        params["ids"].add(key)
        scheme, _, value = key.partition(":")
        slot = by_scheme.get(scheme)
        if slot is None or not value:
            continue
        if slot == "corpus_id":
            if value.isdigit():
                params[slot].add(int(value))
        else:
            params[slot].add(value)
    if not params["ids"]:
        return {}
    rows = store.run_named("identity/lookup_stubs", {k: sorted(v) for k, v in params.items()})
    return {str(r["key"]): str(r["id"]) for r in rows}


def scan_for_stubs(
    store: GraphStore,
    files: Sequence[Path],
    items: Callable[[Path], Iterable[tuple[int, Any]]],
    keys: Callable[[Any, Path, int], Iterable[str]],
    *,
    batch_size: int = 5_000,
    progress: ScanProgress | None = None,
) -> StubScan:
    """Which records of ``files`` describe a stub of the graph (see the module doc).

    ``items(path)`` yields ``(line, record)`` as the loader reads the file; ``keys(record,
    path, line)`` gives the record's ids as scheme-prefixed keys (an ``InputError`` for a
    record without one). Memory: one batch of keys, the chosen positions, and the ids of
    the stubs found (to count each once)."""
    scan = StubScan(stubs_before=count_stubs(store))
    found: set[str] = set()
    for path in files:
        stage = f"scanning for stubs ({path.name})"
        chosen: list[int] = []
        batch: list[tuple[int, list[str]]] = []

        def look(batch: list[tuple[int, list[str]]], chosen: list[int] = chosen) -> None:
            hits = lookup_stubs(store, {k for _, ks in batch for k in ks})
            for position, ks in batch:
                stub_ids = {hits[k] for k in ks if k in hits}
                if stub_ids:
                    chosen.append(position)
                    found.update(stub_ids)

        position = -1
        for position, (line, record) in enumerate(items(path)):
            batch.append((position, list(keys(record, path, line))))
            if len(batch) >= batch_size:
                look(batch)
                batch = []
                if progress is not None:
                    progress(stage, position + 1, None)
        if batch:
            look(batch)
        scan.records += position + 1
        if chosen:
            scan.selected[str(path)] = chosen
        if progress is not None:
            progress(stage, position + 1, position + 1)
    scan.stubs = len(found)
    return scan


class StubJournal:
    """A scan's answer kept until its load completes (see the module doc): one JSON file
    under ``directory`` per job, named by ``scope`` (store, graph, kind) and the files; it
    holds each file's size and modification time, and is not used when one changed."""

    def __init__(self, directory: Path, scope: str, files: Sequence[Path]) -> None:
        self.files = [Path(f) for f in files]
        digest = hashlib.sha256(
            "\n".join([scope, *(str(f.resolve()) for f in self.files)]).encode()
        ).hexdigest()[:24]
        self.path = Path(directory) / f"stub-scan-{digest}.json"

    def _identity(self) -> list[list[Any]]:
        out = []
        for f in self.files:
            st = f.stat()
            out.append([str(f), st.st_size, st.st_mtime_ns])
        return out

    def load(self) -> StubScan | None:
        """The scan of an unfinished job over these unchanged files, else None."""
        try:
            doc = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(doc, dict) or doc.get("files") != self._identity():
            return None
        return StubScan(
            selected={str(k): [int(i) for i in v] for k, v in doc["selected"].items()},
            records=int(doc["records"]),
            stubs=int(doc["stubs"]),
            stubs_before=int(doc["stubs_before"]),
        )

    def save(self, scan: StubScan) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        doc = {
            "files": self._identity(),
            "selected": scan.selected,
            "records": scan.records,
            "stubs": scan.stubs,
            "stubs_before": scan.stubs_before,
        }
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc), encoding="utf-8")
        os.replace(tmp, self.path)  # whole or absent, whenever the process dies

    def clear(self) -> None:
        self.path.unlink(missing_ok=True)


def filled_note(scan: StubScan, stubs_after: int, *, continued: bool = False) -> list[str]:
    """The summary lines of an ``--only-stubs`` job: stubs filled, records skipped, stubs
    left (and how many of those the filled works' references added)."""
    skipped = scan.records - scan.chosen
    new = max(0, stubs_after - (scan.stubs_before - scan.stubs))
    lines = [
        f"filled {scan.stubs:,} of {scan.stubs_before:,} stub(s) from {scan.chosen:,} "
        f"record(s); {skipped:,} of {scan.records:,} record(s) read describe no stub "
        "(skipped)",
        f"{stubs_after:,} stub(s) remain"
        + (f" ({new:,} new: references of the filled works)" if new else ""),
    ]
    if continued:
        lines.insert(
            0, "continued an unfinished --only-stubs job (its scan is kept until its load ends)"
        )
    return lines

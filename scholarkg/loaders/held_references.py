"""References held until their work's record comes: a work cited before its record is written
once, as a new node, not as a stub that its record then describes.

Why: a stub costs the embedded server five steps when its record arrives (created, read by
the writer's state read, described, its ``Stub`` label taken off, the label matrix settled),
and FalkorDB re-indexes the node, its full-text fields included, when it is described: in an
update most new works are cited before their record, and those steps were a quarter of the
server's execution at 1M + 110k (``bench_openalex_server_time.py``). With the load's
foresight (``loaders/coming_works.py``), identity resolution leaves out of a reference list
the ends that the graph lacks and that a later record of the load describes, and holds them
here; when that record is resolved, the held references go out with it as ``CITES`` to its
node (``IdentityResolver``). The graph is the one the stubs gave.

Durability: a checkpoint claims the records before it, so the references they hold must
outlive the process. Every change is appended to a journal (JSON lines beside the load's
checkpoints) and synced before the chunk's checkpoint is saved (:meth:`save`, called as a
chunk is resolved, before its flush). Releases are not journalled: after an interruption the
references released before the checkpoint come back held, their work's record is not read
again, and they are written at the end of the load like any reference whose record never
came (:meth:`leftovers`: looked up then, ``MERGE``d, a stub where the work is still
missing). The journal belongs to the graph, not to one run: any later ``load openalex``
into the same graph writes what an abandoned one left held, and only then deletes it.

A list restated by a newer record of its work (a later partition's copy) supersedes what an
earlier chunk held for it, as the newer list's prune supersedes the older list's edges. Each
hold names its source record (file and record number), and a record read again (a resumed
load resolves the records its checkpoint claims, and those after it that an interrupted run
had resolved) never supersedes its own holds: the work it cites may be in the graph by then
(written by a chunk the interruption left unclaimed) while the reference to it is not, and
dropping the hold then lost that reference.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

import orjson

from scholarkg.loaders.coming_works import ComingWorks

#: the most references held at once (~200 bytes each with both indexes): past it, the load
#: writes stubs as without foresight, so its memory does not grow with its input
MAX_HELD = 1_000_000
#: a replayed reference's chunk: before every chunk of this run (any list of its work that
#: this run reads supersedes it)
_REPLAYED = -1


class HeldReferences:
    """The references held, by cited work (W id) and by citing Paper, and the journal."""

    def __init__(
        self, coming: ComingWorks | None, journal: Path | None = None, *, limit: int = MAX_HELD
    ) -> None:
        self.coming = coming
        self.limit = limit
        #: W id → the Paper ids that cite it
        self._by_work: dict[str, set[str]] = {}
        #: citing Paper id → (the chunk that held its references, the source records whose
        #: lists held them, the W ids it holds)
        self._by_start: dict[str, tuple[int, set[str], set[str]]] = {}
        self.count = 0
        #: references released with their work's record, and written at the end
        self.released = 0
        self.leftover = 0
        self._journal_path = journal
        self._journal: IO[bytes] | None = None
        self._events: list[bytes] = []
        if journal is not None and journal.exists():
            self._replay(journal)

    # -- holding --------------------------------------------------------------------------
    def can_hold(self) -> bool:
        return self.coming is not None and self.count < self.limit

    def coming_mask(self, values: Sequence[str]) -> list[bool]:
        assert self.coming is not None
        return self.coming.coming(values)

    def hold(self, start: str, works: Sequence[str], chunk: int, record: str) -> None:
        """``start`` cites ``works``, whose records come later, as source ``record`` (file
        and record number) states it: held (journalled at :meth:`save`)."""
        self.supersede(start, chunk, record)
        self._hold(start, works, chunk, record)
        self._events.append(orjson.dumps(["h", start, list(works), record]))

    def supersede(self, start: str, chunk: int, record: str) -> None:
        """A list of ``start`` read in ``chunk`` from source ``record`` restates its
        references: what an earlier chunk held for it from another record goes."""
        entry = self._by_start.get(start)
        if entry is None or entry[0] >= chunk or record in entry[1]:
            return
        self._drop(start)
        self._events.append(orjson.dumps(["d", start]))

    def moved(self, old: str, new: str) -> None:
        """Paper ``old`` is now ``new`` (renamed, or merged into it)."""
        if old == new or old not in self._by_start:
            return
        self._move(old, new)
        self._events.append(orjson.dumps(["m", old, new]))

    def release(self, work: str) -> list[str]:
        """The Papers (their ids now) that cite ``work``, no longer held."""
        starts = self._by_work.pop(work, None)
        if not starts:
            return []
        out = []
        for s in starts:
            entry = self._by_start.get(s)
            if entry is not None:
                entry[2].discard(work)
                if not entry[2]:
                    del self._by_start[s]
            out.append(s)
        self.count -= len(starts)
        self.released += len(starts)
        return sorted(set(out))

    def waiting(self, works: Sequence[str]) -> list[str]:
        """Those of ``works`` that held references cite."""
        by_work = self._by_work
        return [w for w in works if w in by_work]

    def __bool__(self) -> bool:
        return bool(self._by_work)

    def leftovers(self) -> Iterator[tuple[str, list[str]]]:
        """Every reference still held, as ``(citing Paper id now, W ids)``, citing Paper by
        citing Paper; they stay held (and journalled) until :meth:`clear`."""
        per: dict[str, set[str]] = {}
        for work, starts in self._by_work.items():
            for s in starts:
                per.setdefault(s, set()).add(work)
        for start in sorted(per):
            yield start, sorted(per[start])

    # -- the journal ----------------------------------------------------------------------
    def save(self) -> None:
        """Append this chunk's changes to the journal and sync it: called before the chunk's
        checkpoint can be saved."""
        if not self._events or self._journal_path is None:
            self._events.clear()
            return
        if self._journal is None:
            self._journal_path.parent.mkdir(parents=True, exist_ok=True)
            self._journal = self._journal_path.open("ab")
        self._journal.write(b"\n".join(self._events) + b"\n")
        self._events.clear()
        self._journal.flush()
        os.fsync(self._journal.fileno())

    def clear(self) -> None:
        """Everything held was written: forget it, and delete the journal."""
        self.close()
        self._by_work.clear()
        self._by_start.clear()
        self.count = 0
        self._events.clear()
        if self._journal_path is not None:
            self._journal_path.unlink(missing_ok=True)

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def _replay(self, path: Path) -> None:
        """The state an earlier run left: its events in order. A line cut by a crash (the
        last one, not synced) is ignored: its chunk was not claimed by a checkpoint."""
        for raw in path.read_bytes().splitlines():
            try:
                event = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if not isinstance(event, list) or not event:
                continue
            kind = event[0]
            if kind == "h" and len(event) == 4:  # a hold adds (a supersession is a "d")
                self._hold(str(event[1]), [str(w) for w in event[2]], _REPLAYED, str(event[3]))
            elif kind == "d" and len(event) == 2:
                self._drop(str(event[1]))
            elif kind == "m" and len(event) == 3:
                self._move(str(event[1]), str(event[2]))

    # -- the state ------------------------------------------------------------------------
    def _hold(self, start: str, works: Sequence[str], chunk: int, record: str) -> None:
        entry = self._by_start.get(start)
        if entry is None:
            entry = self._by_start[start] = (chunk, set(), set())
        entry[1].add(record)
        for w in works:
            if w not in entry[2]:
                entry[2].add(w)
                self._by_work.setdefault(w, set()).add(start)
                self.count += 1

    def _drop(self, start: str) -> None:
        entry = self._by_start.pop(start, None)
        if entry is None:
            return
        for w in entry[2]:
            starts = self._by_work.get(w)
            if starts is not None:
                starts.discard(start)
                if not starts:
                    del self._by_work[w]
        self.count -= len(entry[2])

    def _move(self, old: str, new: str) -> None:
        """Every reference ``old`` holds, now ``new``'s (a newer list of ``new`` supersedes
        them, and they are released as ``new``'s)."""
        entry = self._by_start.pop(old, None)
        if entry is None:
            return
        have = self._by_start.get(new)
        if have is None:
            self._by_start[new] = entry
        else:
            self._by_start[new] = (min(have[0], entry[0]), have[1] | entry[1], have[2] | entry[2])
        for w in entry[2]:
            starts = self._by_work.get(w)
            if starts is not None and old in starts:
                starts.discard(old)
                if new in starts:
                    self.count -= 1
                starts.add(new)


def journal_path(directory: Path, scope: str) -> Path:
    """The journal of one graph (``scope``: ``checkpoint_scope_prefix`` of the store and
    graph), under the load checkpoints' ``directory``."""
    import hashlib

    digest = hashlib.sha256(scope.encode()).hexdigest()[:24]
    return Path(directory) / f"held-references-{digest}.jsonl"

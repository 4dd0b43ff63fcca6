"""Resumable loads: remember how many *source records* of a file are durably in the graph.

Loads are idempotent anyway (MERGE on stable ids), so a checkpoint only saves time: after a
crash or a bad record at line 50 000 of a large dump, ``--resume`` skips what was already
written instead of re-sending it.

A checkpoint is one small JSON file under ``<home>/checkpoints/`` per (source file, scope),
where the scope names the graph and the loader (the same file loaded into another graph must
not be skipped). It records the file's size and mtime and a list of *flush points*
``[records_done, sha256 of those records]``, updated after every flush (atomically, with
``os.replace``), so it never claims more than the store holds.

Resuming when the file is unchanged (same size and mtime) skips ``records_done`` records
outright. When the file changed, typically because the user fixed the bad line, the skipped
prefix is re-read and re-hashed: at each stored flush point the digest must match, and at the
first mismatch the load falls back to writing from the previous verified point. So "fix line
50 and ``--resume``" skips only what is provably unchanged.

Loaders feed this module *groups*: ``(source record number, [records of that source
record])``, so a source record is either wholly written or not at all.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from pydantic import BaseModel, ValidationError

from scholarkg.errors import InputError, ScholarKGError
from scholarkg.loaders.base import validation_input_error
from scholarkg.loaders.collection_pace import fewer_collections
from scholarkg.loaders.left_out import collect_left_out
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.loaders.unchanged_edges import UnchangedEdge
from scholarkg.loaders.writer import RecordWriter, WriteReport
from scholarkg.schema.records import EdgeRecord, NodeRecord
from scholarkg.schema.text import collect_cleaning
from scholarkg.store.base import GraphStore
from scholarkg.textio import atomic_write_text

if TYPE_CHECKING:
    from scholarkg.config import Settings

log = logging.getLogger(__name__)


def checkpoint_scope_prefix(cfg: Settings, graph: str | None) -> str:
    """The start of every load-checkpoint scope for ``graph`` (all graphs: ``None``).

    A checkpoint says how much of a file one graph *in one store* holds, so the scope names
    the store's location too (the embedded data directory, or the Neo4j URI): two data
    directories under one ``SCHOLARKG_HOME`` must not share progress, or ``--resume`` in
    the second would skip records it never received.
    """
    location = (
        str(cfg.data_dir)
        if cfg.backend == "embedded"
        else (cfg.neo4j.uri or str(cfg.home / "neo4j"))  # no URI: the managed server
    )
    head = f"{cfg.backend}@{location}:"
    return head if graph is None else f"{head}{graph}:"


#: a graph record, a reference list standing for many (``loaders/reference_lists.py``), or
#: an edge record the graph already holds (``loaders/unchanged_edges.py``)
AnyRecord = NodeRecord | EdgeRecord | ReferenceList | UnchangedEdge
#: one source record (a JSONL line, a JSON array item, a spreadsheet row) and its records
Group = tuple[int, Sequence[AnyRecord]]
#: what a reader may yield between its source records to have everything before written now
#: (identity resolution asks for it before it looks a chunk up, so the chunk before it is in
#: the store: ``loaders/identity.py``). The flush is sent, not waited for: the store runs
#: statements in the order they are sent, so the look-up that follows reads the graph with
#: them written. Not a source record: not counted, never checkpointed on its own, ignored
#: while a resumed load skips what is stored.
FLUSH: Group = (0, ())


def _file_identity(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_size, st.st_mtime_ns


@dataclass
class Checkpoint:
    """The checkpoint of one source file in one scope (see module doc)."""

    file: Path
    source: Path
    scope: str
    size: int | None = None
    mtime_ns: int | None = None
    points: list[tuple[int, str]] = field(default_factory=list)
    complete: bool = False

    @classmethod
    def open(cls, source: str | Path, *, directory: str | Path, scope: str) -> Checkpoint:
        """Load the checkpoint of ``source`` in ``scope`` (an empty one if none was saved)."""
        source = Path(source).resolve()
        key = hashlib.sha256(f"{source}\x1f{scope}".encode()).hexdigest()[:20]
        file = Path(directory) / f"{key}.json"
        cp = cls(file=file, source=source, scope=scope)
        if file.is_file():
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
                cp.size = data.get("size")
                cp.mtime_ns = data.get("mtime_ns")
                cp.points = [(int(n), str(d)) for n, d in data.get("points", [])]
                cp.complete = bool(data.get("complete"))
            except (ValueError, TypeError, OSError) as err:  # a torn file is just no checkpoint
                log.warning("ignoring unreadable checkpoint %s: %s", file, err)
        return cp

    @property
    def done(self) -> int:
        """Source records durably written at the last flush."""
        return self.points[-1][0] if self.points else 0

    def skipped_outright(self, *, resume: bool) -> int:
        """How many source records :func:`run_resumable` (``resume=resume``) will skip
        without comparing them: all the checkpoint claims when the file is unchanged (same
        size and mtime), else none (a changed file's prefix is re-read and re-hashed)."""
        return self.done if resume and self.points and self.file_unchanged() else 0

    def file_unchanged(self) -> bool:
        if self.size is None or not self.source.is_file():
            return False
        return (self.size, self.mtime_ns) == _file_identity(self.source)

    def save(self, points: list[tuple[int, str]], *, complete: bool = False) -> None:
        self.points = list(points)
        self.complete = complete
        if self.source.is_file():
            self.size, self.mtime_ns = _file_identity(self.source)
        self.file.parent.mkdir(parents=True, exist_ok=True)
        payload: dict[str, Any] = {
            "source": str(self.source),
            "scope": self.scope,
            "size": self.size,
            "mtime_ns": self.mtime_ns,
            "points": self.points,
            "complete": complete,
        }
        # no fsync: rewritten after every flush, and a lost update only means redoing a batch
        atomic_write_text(self.file, json.dumps(payload), fsync=False)

    def clear(self) -> None:
        self.points = []
        self.file.unlink(missing_ok=True)


@dataclass
class LoadStats:
    """What one resumable load did; ``write`` is the writer's node/relationship report."""

    source: str
    records: int = 0
    skipped_on_resume: int = 0
    written_records: int = 0
    write: WriteReport = field(default_factory=WriteReport)
    prefix_changed: bool = False
    #: fields the record sanitiser cleaned: ``{(label, field, what): n}`` (``schema/text.py``)
    cleaned: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    #: relationships the reader chose not to store: ``{(rel type, why): n}``
    #: (``loaders/left_out.py``)
    left_out: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: a write failed (the store refused or the server went away), as opposed to bad input
    write_failed: bool = False
    #: nodes deleted to undo a failed write (the graph is back at the last checkpoint)
    rolled_back: int = 0
    #: that undo failed too (the server was gone): part of the batch after the checkpoint
    #: is in the graph, its nodes maybe without their relationships, until ``--resume``
    undo_failed: bool = False
    #: a second pass over a file another step read (``steps.Step.reread``): its groups are
    #: not source records of their own
    reread: bool = False


def _digest_value(value: Any) -> Any:
    """What ``orjson`` cannot write itself, for the digest: a nested record as its fields, a
    set in a fixed order."""
    if isinstance(value, BaseModel):
        return value.__dict__
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    raise TypeError(f"not digestible: {type(value).__name__}")


def _digest_update(h: Any, records: Sequence[AnyRecord]) -> None:
    """Add a group's records to the running digest of the load (the flush points').

    A record's fields are written by ``orjson`` from the model's ``__dict__`` (records are
    frozen and forbid extra fields, so it holds their whole state), not by pydantic's
    ``model_dump_json``: that took ~90 µs of the loader's ~1 ms of Python a work in an OpenAlex
    update, this about half (``benchmarks/bench_checkpoint_digest.py``). A checkpoint written
    by an older version hashed differently: resuming with the file unchanged skips by count
    and never compares digests; with the file changed the prefix is written again, as for any
    mismatch."""
    dumps, update = orjson.dumps, h.update
    for rec in records:
        if isinstance(rec, UnchangedEdge):  # what the graph held decides it: not digested
            rec = rec.record
        update(type(rec).__name__.encode())
        if isinstance(rec, ReferenceList):
            update(dumps([rec.start, rec.ends, rec.values, rec.stubs, rec.slot]))
        else:
            update(dumps(rec.__dict__, default=_digest_value, option=orjson.OPT_NON_STR_KEYS))
        update(b"\x1e")


class SourceDigests:
    """The running digest of a file's groups *as read*, before identity resolution rewrites
    them, for :func:`run_resumable`'s flush points (``wrap`` the reader, hand this to it).

    Why: a resolved group depends on the graph as well as on the file (a reference to a
    work stored since is no longer a new stub; an unchanged one is not written again), so a
    digest of resolved groups never matched on a rerun: "fix line 150 and ``--resume``"
    wrote the whole file again ("changed after record 0"). The source records are what
    the flush points must vouch for."""

    def __init__(self) -> None:
        self._h = hashlib.sha256()
        #: (group number, digest through it), oldest first: the resolver reads a chunk or
        #: two ahead of what it yields, and yields every group it read, in order
        self._after: deque[tuple[int, str]] = deque()

    def wrap(self, groups: Iterable[tuple[int, Sequence[Any]]]) -> Iterator[Any]:
        """``groups`` unchanged, each digested as it passes."""
        h, after = self._h, self._after
        for group in groups:
            _digest_update(h, group[1])
            after.append((group[0], h.hexdigest()))
            yield group

    def through(self, number: int) -> str:
        """The digest through the next group read, which must be ``number``."""
        got, digest = self._after.popleft()
        if got != number:  # the resolver yields what it read, in order: a bug otherwise
            raise RuntimeError(f"source group {got} digested, group {number} written")
        return digest


def run_resumable(
    store: GraphStore,
    groups: Iterable[Group],
    *,
    source: str | Path,
    checkpoint: Checkpoint | None = None,
    resume: bool = False,
    batch_size: int = 5_000,
    max_records: int = 50_000,
    progress: Callable[[int], None] | None = None,
    stats: LoadStats | None = None,
    undo: bool = True,
    digests: SourceDigests | None = None,
) -> LoadStats:
    """Write ``groups`` through a ``RecordWriter``, flushing every ``batch_size`` groups.

    A flush also happens once ``max_records`` graph records are buffered: one source record
    can be huge (a PwC top-level task holds thousands of results), and the checkpoint should
    advance at a steady pace whatever the grouping.

    ``undo=False`` skips the undo list (one id lookup per node batch): for throwaway graphs
    and for ``benchmarks/bench_load_guard.py``, which measures what it costs.

    ``digests``: the source groups' digests (:class:`SourceDigests`, wrapped around the
    reader before identity resolution) for the flush points; without it the groups given
    here are digested (a loader whose groups are the file's records as read).

    After each flush the checkpoint (if any) is saved, once the flush's replies are read: the
    loop does not wait for them (``RecordWriter.flush(then=…)``), so on a store that writes
    ahead the next records are read, resolved and added while the server writes, and the
    next call that reaches the server (a look-up, the next batch's id check) reads them
    first; a failure there rolls back to the last saved checkpoint. On a bad record
    (``InputError`` from the loader) every complete group read before it is flushed and
    checkpointed, then the error propagates, so a rerun with ``resume=True`` continues where
    this one stopped.
    """
    stats = stats if stats is not None else LoadStats(source=str(source))
    writer = RecordWriter(store, batch_size=batch_size, undo=undo)
    stats.write = writer.report
    saved = list(checkpoint.points) if (checkpoint and resume) else []
    trusted = checkpoint is not None and checkpoint.skipped_outright(resume=resume) > 0
    h = hashlib.sha256()
    #: the digest through the last group, when ``digests`` gives it
    through = ""

    def digest() -> str:
        return through if digests is not None else h.hexdigest()

    points: list[tuple[int, str]] = []
    n = pending = buffered = 0
    point_idx = 0
    skipping = bool(saved)
    held: list[Sequence[AnyRecord]] = []

    def add(records: Sequence[AnyRecord]) -> None:
        nonlocal pending, buffered
        for rec in records:
            writer.add(rec)
        pending += 1
        buffered += len(records)
        stats.written_records += 1

    def flush(*, complete: bool = False, wait: bool = True) -> None:
        """Write what is buffered, then claim it in the checkpoint. ``wait=False`` (every
        flush but the last): return once it is sent; the checkpoint is saved when its
        replies are read (the next call that reaches the server), so the loader's Python
        (the next records, the resolver's next chunk) runs while the server writes."""
        nonlocal pending, buffered
        pending = buffered = 0
        if not points or points[-1][0] != n:
            points.append((n, digest()))
        claimed, done = list(points), n

        def durable() -> None:
            # off the undo list first, claimed second: an interrupt between the two leaves
            # written records unclaimed (--resume MERGEs them again), never claimed records
            # that the interrupt's rollback then deletes (--resume would skip them)
            writer.mark()
            if checkpoint is not None:
                checkpoint.save(claimed, complete=complete)
            if progress:
                progress(done)

        if wait:
            writer.flush()
            durable()
        else:
            writer.flush(then=durable)

    try:
        with (
            collect_cleaning() as stats.cleaned,
            collect_left_out() as stats.left_out,
            fewer_collections(),
        ):
            for group in groups:
                if group is FLUSH:
                    if not skipping and pending:
                        flush(wait=False)
                    continue
                records = group[1]
                n += 1
                if digests is None:
                    _digest_update(h, records)
                else:
                    through = digests.through(group[0])
                if skipping:
                    if not trusted:
                        held.append(records)
                    want_n, want_digest = saved[point_idx]
                    if n == want_n:
                        if trusted or want_digest == digest():
                            points.append((n, want_digest))
                            stats.skipped_on_resume = n
                            held.clear()
                            point_idx += 1
                            skipping = point_idx < len(saved)
                        else:
                            log.warning(
                                "%s changed after record %d: writing from there instead of "
                                "skipping", source, stats.skipped_on_resume,
                            )  # fmt: skip
                            stats.prefix_changed = True
                            skipping = False
                            for rec_group in held:
                                add(rec_group)
                            held.clear()
                    if progress and n % 1000 == 0:
                        progress(n)
                    continue
                add(records)
                if pending >= batch_size or buffered >= max_records:
                    flush(wait=False)
                elif progress and n % 1000 == 0:
                    progress(n)
            if held:  # the file got shorter than the checkpoint: write what we held back
                stats.prefix_changed = True
                for rec_group in held:
                    add(rec_group)
            flush(complete=True)
    except ValidationError as err:
        # a loader built a record without naming its line (``loaders.base.validating`` does):
        # still a clear InputError, located by the source record count
        _stop_on_bad_input(writer, flush, skipping)
        stats.records = n
        raise validation_input_error(err, path=source, line=None, record=n + 1) from err
    except InputError:
        if writer.failed:
            _undo(writer, stats, n)
            raise
        # the loader raised before yielding the bad group, so ``n`` groups are complete:
        # keep them and say so in the checkpoint
        _stop_on_bad_input(writer, flush, skipping)
        stats.records = n
        raise
    except ScholarKGError:
        _undo(writer, stats, n)
        raise
    except KeyboardInterrupt:
        # Ctrl-C or SIGTERM (the CLI raises it for both): the batch being written may be
        # half sent (its nodes without their relationships), and the checkpoint does not
        # claim it; undone like a failed write, its new nodes are deleted again, so no
        # record is left in the graph without its relationships. Before, they stayed until
        # a --resume wrote the batch again (a user who never resumed kept Papers without
        # their authors). As after a failed write, a stored node the batch changed (a stub
        # it described) keeps the change until --resume writes the batch again. A second
        # Ctrl-C waits for the undo (``writer.rollback``); a third stops it, and --resume
        # then completes the batch as before.
        stats.rolled_back = writer.rollback()
        stats.undo_failed = writer.undo_failed
        stats.records = n
        raise
    stats.records = n
    return stats


def _stop_on_bad_input(writer: RecordWriter, flush: Callable[[], None], skipping: bool) -> None:
    """Store the complete groups read before a bad one; a write failing meanwhile undoes."""
    if skipping:
        return
    try:
        flush()
    except (ScholarKGError, KeyboardInterrupt):  # Ctrl-C meanwhile too: nothing half-written
        writer.rollback()
        raise


def _undo(writer: RecordWriter, stats: LoadStats, n: int) -> None:
    """After a failed write: back to the last checkpoint (see ``writer.RecordWriter``)."""
    stats.write_failed = True
    stats.rolled_back = writer.rollback()
    stats.undo_failed = writer.undo_failed
    stats.records = n


def single_groups(records: Iterable[AnyRecord]) -> Iterator[Group]:
    """One record per source record (edge lists: one line → one relationship)."""
    for i, rec in enumerate(records, start=1):
        yield i, (rec,)

"""One bulk-writing command per graph at a time: a load, an import, a schema apply, an
embedding run (the CLI's ``store_session(write=True)``).

Why: on the embedded store a node's key is an index, not a unique constraint (FalkorDB's
constraint check crashed the server: ``store/falkordb/dialect.plan_schema``). Keys stay
unique because each load MERGEs on them, or CREATEs a reference stub only after reading that
its id is absent, and FalkorDB runs one write at a time. Two loads into one graph at once
could both read a stub's id as absent and both create it (the constraint used to refuse
the second). A second writer is refused at once, naming the first, rather than made to
wait: a command that seems to hang behind another is worse than one that says why it
cannot run. The lock is an ``flock`` on a file under the scholarkg home, released by the
kernel when its process ends (a killed load leaves nothing to clean up); a process may
take it again while holding it (nested sessions). A process forked while it is held (a
parse worker pool) closes its copy at once: an flock belongs to the open file, which a
child would otherwise keep locked after its parent was killed.

A command that replaces the whole store (``db restore``) takes the store's lock
(:func:`replacing_store`) that every graph's writer holds shared: it is refused while any
graph is written, and a writer is refused while it runs (a restore stops the server and
puts other files in place; a load would otherwise write on into the restored graph).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from scholarkg.errors import StoreError
from scholarkg.store.process import pid_alive

if TYPE_CHECKING:
    from scholarkg.config import Settings

#: locks this process holds, with how many sessions hold each (reentrant per process)
_HELD: dict[Path, int] = {}
#: the open lock file of each lock held
_FDS: dict[Path, int] = {}
#: the locks this process holds shared (a shared hold is not an exclusive one)
_SHARED: set[Path] = set()


def _close_inherited() -> None:
    """In a forked child: let go of the parent's lock files (see the module doc)."""
    for fd in _FDS.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    _FDS.clear()
    _HELD.clear()
    _SHARED.clear()


os.register_at_fork(after_in_child=_close_inherited)


class GraphBusy(StoreError):
    """Another process is writing to the graph (``writing_graph``); the message names it."""


def lock_path(folder: Path, graph: str) -> Path:
    """The lock file of ``graph`` in ``folder``: its name made safe for a file name, with a
    hash of it (``lab/slice`` and ``lab_slice`` are two graphs)."""
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", graph)[:60]
    digest = hashlib.sha256(graph.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return folder / f"{safe}-{digest}.lock"


def lock_folder(settings: Settings) -> Path:
    """Where the write locks of the configured store's graphs live: beside the embedded
    server's data (one server per data folder, whatever the home), or per Neo4j server (its
    URI; the managed one's home)."""
    if settings.backend == "embedded":
        return settings.data_dir / "locks"
    where = settings.neo4j.uri or f"managed:{settings.home.resolve()}"
    return settings.home / "locks" / f"neo4j-{hashlib.sha256(where.encode()).hexdigest()[:12]}"


#: the file every graph's writer holds shared and a whole-store replacement exclusively
STORE_LOCK = "store.lock"


def _holder_of(fd: int) -> str:
    """Who holds the lock file ``fd``: what its holder wrote into it, and whether that
    process has ended (a process it started may hold it still)."""
    holder = os.pread(fd, 500, 0).decode("utf-8", "replace").strip() or "another process"
    if (pid := re.match(r"pid (\d+)", holder)) and not pid_alive(int(pid.group(1))):
        holder += " (which has ended: a process it started still holds the lock)"
    return holder


def _this_command() -> str:
    command = " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]) if sys.argv else "?"
    return f"pid {os.getpid()} ({command[:300]})"


@contextlib.contextmanager
def _holding(path: Path, *, shared: bool, busy: Callable[[int], StoreError]) -> Iterator[None]:
    """Hold the flock of ``path`` (shared or exclusive) for the block, reentrant in this
    process (a shared hold is not taken for an exclusive one); ``busy(fd)`` makes the error
    raised when another process holds it. An
    exclusive holder writes who it is into the file (shared holders cannot: they would
    overwrite one another)."""
    if path in _HELD and not (path in _SHARED and not shared):
        _HELD[path] += 1
        try:
            yield
        finally:
            _HELD[path] -= 1
        return
    if path in _HELD:  # held shared by this process, asked for exclusively
        raise busy(_FDS[path])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except BlockingIOError:
            raise busy(fd) from None
        if not shared:
            os.ftruncate(fd, 0)
            os.pwrite(fd, _this_command().encode(), 0)
        _HELD[path] = 1
        _FDS[path] = fd
        if shared:
            _SHARED.add(path)
        try:
            yield
        finally:
            _HELD.pop(path, None)
            _FDS.pop(path, None)
            _SHARED.discard(path)
            with contextlib.suppress(OSError):
                if not shared:
                    os.ftruncate(fd, 0)
                fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@contextlib.contextmanager
def writing_graph(folder: Path, graph: str) -> Iterator[None]:
    """Hold ``graph``'s write lock (a file in ``folder``: :func:`lock_folder`) for the block;
    :class:`GraphBusy` if another process holds it or replaces the store."""

    def restoring(fd: int) -> StoreError:
        return GraphBusy(
            f"the store is being replaced by {_holder_of(fd)} (a restore); wait for it "
            f"to end before writing to graph {graph!r}"
        )

    def busy(fd: int) -> StoreError:
        return GraphBusy(
            f"graph {graph!r} is being written by {_holder_of(fd)}; run one load (import, "
            "embedding run) at a time per graph: wait for it to end, or write to "
            "another --graph"
        )

    with (
        _holding(folder / STORE_LOCK, shared=True, busy=restoring),
        _holding(lock_path(folder, graph), shared=False, busy=busy),
    ):
        yield


def _writers(folder: Path) -> list[str]:
    """The processes holding a graph's write lock in ``folder``, as they named themselves."""
    found = []
    for path in sorted(folder.glob("*.lock")) if folder.is_dir() else []:
        if path.name == STORE_LOCK:
            continue
        with contextlib.suppress(OSError):
            fd = os.open(path, os.O_RDWR)
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    found.append(_holder_of(fd))
                else:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
    return found


@contextlib.contextmanager
def replacing_store(folder: Path) -> Iterator[None]:
    """Hold the whole store's lock for the block (``db restore``): :class:`GraphBusy`,
    naming the writers, while any graph of ``folder`` is being written."""

    def busy(fd: int) -> StoreError:
        writers = _writers(folder) or ["another process"]
        return GraphBusy(
            f"the store is being written by {'; '.join(writers)}; a restore replaces every "
            "graph: wait for the writes to end (or stop them) and run it again"
        )

    with _holding(folder / STORE_LOCK, shared=False, busy=busy):
        yield

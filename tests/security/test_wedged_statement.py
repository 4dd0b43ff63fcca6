"""A statement waiting on an embedded server that stopped working ends with a clear error.

Seen in CI: the first ``CREATE`` on a freshly started server never got its reply and the test
waited the full 600 s (FalkorDB's deadlock, FalkorDB/FalkorDB#2129: every thread parked on
a lock, nothing answered). The store's connection has no socket timeout (a load's statement
may rightly run for minutes), so nothing ended the wait. Here the server is stopped for real
(SIGSTOP) with a statement in flight, which looks from outside exactly like that deadlock: no
CPU time, no answer.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import redis

from scholarkg.errors import ServerWedged
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

pytestmark = pytest.mark.embedded

WEDGE_S = 2.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EmbeddedServer]:
    srv = EmbeddedServer(tmp_path / "store", memory=4 << 30, statement_wedge_timeout=WEDGE_S)
    srv.start()
    yield srv
    pid = srv.pid()
    if pid is not None:  # never leave a stopped server behind, whatever happened
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    srv.stop(compact=False)


def _gone(pid: int) -> bool:
    """Whether ``pid`` ended (a zombie counts: its parent may reap it at any moment, even
    between two looks, which made one look then the other raise ``NoSuchProcess``)."""
    try:
        return bool(psutil.Process(pid).status() == psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return True


def stop_server(server: EmbeddedServer) -> tuple[int, float]:
    """SIGSTOP the server (it then looks exactly like a deadlocked one: no CPU, no answer);
    its pid and when it stopped. The fixture sends SIGCONT whatever the test did."""
    pid = server.pid()
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    return pid, time.monotonic()


def test_a_statement_on_a_stopped_server_is_ended_and_nothing_stored_is_lost(
    server: EmbeddedServer,
) -> None:
    store = FalkorDBStore(server.connect(), "wedge", server=server)
    try:
        store.run("CREATE (:Paper {id: 'p1'})-[:CITES]->(:Paper {id: 'p2'})")
        pid, t0 = stop_server(server)
        with pytest.raises(ServerWedged, match=r"stopped working .* no CPU time and no answer"):
            store.run("MATCH (p:Paper) RETURN count(p) AS n")
        took = time.monotonic() - t0
        # seen after WEDGE_S of standstill (+ a poll, + the PING's own wait), not never
        assert WEDGE_S <= took < WEDGE_S + 10, took
        assert _gone(pid)
        note = [line for line in server.log_file.read_text().splitlines() if "is wedged" in line]
        assert len(note) == 1 and f"pid {pid}" in note[0] and "Its threads:" in note[0]

        # the next command starts it again on its files: the acknowledged write is there
        server.ensure_running()
        assert server.pid() not in (None, pid)
        assert store.run("MATCH (a:Paper)-[:CITES]->(b) RETURN a.id AS a, b.id AS b") == [
            {"a": "p1", "b": "p2"}
        ]
    finally:
        store.close()


def test_a_long_statement_that_works_is_waited_for(server: EmbeddedServer) -> None:
    """A statement that keeps the server busy for several times the wedge timeout uses CPU
    time all along: it is answered, and nothing is killed."""
    server.statement_wedge_timeout = 0.5  # a poll sees the clock moved, or it is killed
    store = FalkorDBStore(server.connect(), "busy", server=server)
    pid = server.pid()
    try:
        t0 = time.monotonic()
        rows = store.run(
            "UNWIND range(1, 5000) AS a UNWIND range(1, 5000) AS b "
            "WITH a * b AS x WHERE x % 7 = 0 RETURN count(x) AS n"
        )
        took = time.monotonic() - t0
        assert rows == [{"n": 25000000 - (5000 - 5000 // 7) ** 2}]
        assert took > 4 * server.statement_wedge_timeout, f"took {took:.1f} s: too short to tell"
        assert server.pid() == pid
        assert "is wedged" not in server.log_file.read_text()
    finally:
        store.close()


def test_a_client_timeout_still_applies(server: EmbeddedServer) -> None:
    """A client made with a socket timeout never waits for ever: it times out as before (at
    its timeout, not later), and the server is not killed."""
    server.statement_wedge_timeout = 0.5
    client = server.connect(socket_timeout=1.5).connection
    pid, _ = stop_server(server)
    try:
        t0 = time.monotonic()
        with pytest.raises(redis.exceptions.TimeoutError):
            client.ping()
        assert 1.4 <= time.monotonic() - t0 < 3
        assert server.pid() == pid
    finally:
        os.kill(pid, signal.SIGCONT)
        client.close()
    assert server.answers()


def test_a_statement_written_ahead_on_a_stopped_server_fails_at_settle(
    server: EmbeddedServer,
) -> None:
    """A load's statements are sent and read by the store's sender thread: the wedge ends
    that read too, and the load sees ``ServerWedged`` where it reads the replies, with its
    failure callback called (the checkpoint is not advanced past it)."""
    store = FalkorDBStore(server.connect(), "ahead", server=server)
    written: list[int] = []
    failures: list[bool] = []
    try:
        store.run("CREATE (:Paper {id: 'p0'})")
        _, t0 = stop_server(server)
        with (
            pytest.raises(ServerWedged),
            store.writes_ahead(written.append, lambda: failures.append(True)),
        ):
            store.write_batches(
                "UNWIND $rows AS r CREATE (:Paper {id: r.id})",
                [{"id": f"p{i}"} for i in range(1, 5)],
                batch_size=2,
            )
            store.settle()
        assert time.monotonic() - t0 < WEDGE_S + 10
        assert failures == [True] and written == []
        server.ensure_running()
        assert store.run("MATCH (p:Paper) RETURN p.id AS id") == [{"id": "p0"}]
    finally:
        store.close()


def test_a_server_killed_by_someone_else_is_a_lost_server_not_a_wedge(
    server: EmbeddedServer,
) -> None:
    """Only a read the watch itself ended says ``ServerWedged``: a server that died under a
    statement for another reason is the lost-server error it always was."""
    from scholarkg.errors import ServerError

    store = FalkorDBStore(server.connect(), "killed", server=server)
    pid = server.pid()
    assert pid is not None
    try:
        killer = threading.Timer(0.5, os.kill, (pid, signal.SIGKILL))
        killer.start()
        with pytest.raises(ServerError) as err:
            store.run("UNWIND range(1, 5000) AS a UNWIND range(1, 5000) AS b RETURN count(*) AS n")
        killer.join()
        assert not isinstance(err.value, ServerWedged)
        assert "lost the embedded FalkorDB server" in str(err.value)
    finally:
        store.close()

"""A user's query may grow the embedded server by its memory share
(``SCHOLARKG_FALKORDB_QUERY_MEMORY``) and no more, whatever FalkorDB counts: past it the
server is restarted on its files and the query is told why. FalkorDB's own
``QUERY_MEM_CAPACITY`` let ``UNWIND range(1, 1000000000)`` grow the server by 5 GB and on
towards the machine's memory; a query returning millions of whole nodes had the server
build its reply until the address-space limit aborted it."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarkg.errors import QueryLimitExceeded
from scholarkg.store.falkordb.resp import OverMemory, send_limited
from scholarkg.store.falkordb.server import EmbeddedServer, query_memory, resident_bytes
from scholarkg.store.falkordb.store import FalkorDBStore


def test_a_reply_awaited_is_given_up_once_over_memory_says_so(tmp_path: Path) -> None:
    """A server that accepts and never answers: ``over_memory`` is asked every quarter
    second while the reply is awaited, and its first yes ends the wait."""
    path = str(tmp_path / "silent.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(listener.accept()[0]), daemon=True).start()
    asked: list[float] = []

    def over() -> bool:
        asked.append(time.monotonic())
        return len(asked) >= 3

    t0 = time.monotonic()
    with pytest.raises(OverMemory):
        send_limited(path, ("PING",), deadline=t0 + 30, row_limit=10, max_bytes=1 << 20,
                     over_memory=over)  # fmt: skip
    assert 0.5 <= time.monotonic() - t0 < 5 and len(asked) == 3
    listener.close()


def test_the_share_and_the_resident_memory_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SCHOLARKG_FALKORDB_QUERY_MEMORY", "256m")
    assert query_memory() == 256 << 20
    monkeypatch.setenv("SCHOLARKG_FALKORDB_QUERY_MEMORY", "0")
    assert query_memory() is None
    monkeypatch.delenv("SCHOLARKG_FALKORDB_QUERY_MEMORY")
    assert query_memory() == 2 << 30
    import os

    assert (resident_bytes(os.getpid()) or 0) > 10 << 20


@pytest.fixture
def persistent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FalkorDBStore]:
    """A server that keeps its files (only such a server is restarted), its queries' share
    256 MiB. FalkorDB's own per-query capacity, which the share sets too, is raised here to
    4 GiB: it counts a reply's rows, and on a loaded machine it stopped ``a-huge-result``
    before the share's watcher (polled every quarter second) did, so the test did not
    always see the share at work."""
    monkeypatch.setenv("SCHOLARKG_FALKORDB_QUERY_MEMORY", "256m")
    server = EmbeddedServer(
        tmp_path / "db",
        memory=32 << 30,  # range(1, 1e9) fits: 16 GB
        module_args={"QUERY_MEM_CAPACITY": 4 << 30},
    )
    server.start()
    store = FalkorDBStore(server.connect(), "share", server=server)
    store.run("CREATE (:Paper {id: 'p1', title: 'kept'})-[:CITES]->(:Paper {id: 'p2'})")
    yield store
    store.close()
    server.stop(compact=False)


@pytest.mark.embedded
@pytest.mark.parametrize(
    "query",
    [
        "UNWIND range(1, 1000000000) AS x RETURN count(x) AS n",
        "UNWIND range(1, 30000000) AS x RETURN x, toString(x) + 'padding padding' AS s",
    ],
    ids=["one-list", "a-huge-result"],
)
def test_a_query_past_its_share_is_stopped_and_the_server_restarted(
    persistent: FalkorDBStore, query: str
) -> None:
    store = persistent
    server = store._server
    assert server is not None
    pid = server.pid()
    t0 = time.monotonic()
    with pytest.raises(
        QueryLimitExceeded, match=r"more than 0\.2 GiB of the server's memory"
    ) as err:
        store.explore(query, timeout_ms=600_000)
    assert "restarted the embedded server" in str(err.value)
    assert time.monotonic() - t0 < 60
    assert server.pid() not in (None, pid)
    rows = store.run("MATCH (a:Paper)-[:CITES]->(b) RETURN a.title AS t, b.id AS b")
    assert rows == [{"t": "kept", "b": "p2"}]


@pytest.mark.embedded
def test_a_killed_server_is_started_again_by_the_next_users_query(
    persistent: FalkorDBStore,
) -> None:
    """``scholarkg explore`` keeps one store open for hours: after a ``kill -9`` of its server
    every query said "lost the embedded FalkorDB server" until another command started it."""
    import os
    import signal

    store = persistent
    server = store._server
    assert server is not None
    pid = server.pid()
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while server.pid() == pid and time.monotonic() < deadline:
        time.sleep(0.05)
    result = store.explore("MATCH (p:Paper {id: 'p1'}) RETURN p.title AS t")
    assert result.rows == [["kept"]]
    assert server.pid() not in (None, pid)

"""A connection lost while a user's query runs, told apart from a server that is down.

A TCP relay between the driver and the session's Neo4j cuts the connection (a reset, as the
server's own close looked in the CI run that failed) while a query computes: with the server
still answering, the user's query ends as an answer saying so; with nothing listening any
more, the error still says Neo4j is not reachable.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Iterator
from urllib.parse import urlparse

import pytest

from scholarkg.config import Neo4jSettings
from scholarkg.errors import QueryLimitExceeded, ServerError, StoreError
from scholarkg.store.base import GraphStore

#: computes for tens of seconds inside the server, one row at the end
SLOW = "UNWIND range(1, 1000000000) AS x WITH x WHERE x % 7 = 99 RETURN count(*) AS n"


class ResettingRelay:
    """Relays TCP connections to ``target``; ``reset()`` ends every relayed connection at once
    (shut down, then closed with ``SO_LINGER`` 0), ``close()`` also stops listening."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.sockets: list[socket.socket] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            with self.lock:
                self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass

    def reset(self) -> None:
        with self.lock:
            for s in self.sockets:
                try:
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    s.shutdown(socket.SHUT_RDWR)  # wakes the pumps blocked in recv
                    s.close()
                except OSError:
                    pass
            self.sockets.clear()

    def close(self) -> None:
        with contextlib.suppress(OSError):  # else the blocked accept keeps it listening
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        self.reset()


@pytest.fixture
def relayed(
    neo4j_env: Neo4jSettings, neo4j_store: GraphStore
) -> Iterator[tuple[GraphStore, ResettingRelay]]:
    from scholarkg.store.neo4j.store import Neo4jStore

    url = urlparse(neo4j_env.uri or "")
    relay = ResettingRelay((url.hostname or "127.0.0.1", int(url.port or 7687)))
    settings = Neo4jSettings(
        uri=f"bolt://127.0.0.1:{relay.port}",
        user=neo4j_env.user,
        password=neo4j_env.password,
        database=neo4j_env.database,
    )
    store = Neo4jStore.from_settings(settings)
    try:
        yield store, relay
    finally:
        relay.close()
        store.close()
        _end_the_cut_query(neo4j_store)  # it computes on until its own limit otherwise


def _end_the_cut_query(store: GraphStore) -> None:
    rows = store.run(
        "SHOW TRANSACTIONS YIELD transactionId, currentQuery "
        "WHERE currentQuery CONTAINS '% 7 = 99' AND NOT currentQuery STARTS WITH 'SHOW' "
        "RETURN transactionId"
    )
    for row in rows:
        with contextlib.suppress(StoreError):  # ended by itself meanwhile
            store.run("TERMINATE TRANSACTION $id", {"id": row["transactionId"]})


def _cut_while_running(
    store: GraphStore, watcher: GraphStore, relay: ResettingRelay, *, stop_listening: bool
) -> BaseException | None:
    """Runs ``SLOW`` through the relay, cuts it once the server lists the query, and returns
    what ``explore`` raised."""
    caught: list[BaseException] = []

    def run() -> None:
        try:
            store.explore(SLOW, timeout_ms=60_000)
        except BaseException as err:  # handed to the test's thread
            caught.append(err)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        listed = watcher.run(
            "SHOW TRANSACTIONS YIELD currentQuery "
            "WHERE currentQuery CONTAINS '% 7 = 99' AND NOT currentQuery STARTS WITH 'SHOW' "
            "RETURN count(*) AS n"
        )
        if listed[0]["n"]:
            break
        time.sleep(0.1)
    else:
        pytest.fail("the query never showed in SHOW TRANSACTIONS")
    if stop_listening:
        relay.close()
    else:
        relay.reset()
    thread.join(timeout=30)
    assert not thread.is_alive(), "explore did not return after its connection was cut"
    return caught[0] if caught else None


def test_a_connection_cut_while_the_server_answers_again_ends_the_query_as_an_answer(
    relayed: tuple[GraphStore, ResettingRelay], neo4j_store: GraphStore
) -> None:
    store, relay = relayed
    err = _cut_while_running(store, neo4j_store, relay, stop_listening=False)
    assert isinstance(err, QueryLimitExceeded), repr(err)
    assert "closed the connection while it ran this query and answers again" in str(err)
    assert "it wrote nothing" in str(err)
    assert store.run("RETURN 1 AS x") == [{"x": 1}]


def test_a_connection_cut_with_nothing_listening_still_says_not_reachable(
    relayed: tuple[GraphStore, ResettingRelay], neo4j_store: GraphStore
) -> None:
    store, relay = relayed
    err = _cut_while_running(store, neo4j_store, relay, stop_listening=True)
    assert isinstance(err, ServerError), repr(err)
    assert "not reachable" in str(err)

"""The embedded server's keeper stops what no client watches any more.

A user's query is watched by the client that sent it (its limit, its memory share, Ctrl-C);
a client killed outright (``kill -9``) watched nothing: its one-row runaway ran on (FalkorDB's
limit does not stop the work within one row), and a write held the whole server, every other
client frozen. Here ``scholarkg cypher`` runs in its own process and is killed with SIGKILL
while the server runs its query; the keeper restarts the server on its files. The rules
themselves are checked on hand-built looks (:func:`judge`), without a server.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from _held_server import cypher_process, hold_with_a_write, once, wait_until_held

from scholarkg.store.falkordb import keeper
from scholarkg.store.falkordb.keeper import (
    CLIENT_ALIVE_GRACE,
    CLIENT_GONE_GRACE,
    HELD_GRACE,
    UNWATCHED_GRACE,
    Look,
    judge,
    stale,
)
from scholarkg.store.falkordb.keeper_process import KEEPER_LOG_FILE, keeper_pid
from scholarkg.store.falkordb.persistence import redis_command
from scholarkg.store.falkordb.running_queries import (
    QUERIES_DIR,
    RunningQuery,
    WatchedQuery,
    watched_queries,
    watching,
)
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.process import pid_alive

pytestmark = pytest.mark.embedded

#: one row computed for about half a minute: past any limit a test gives it
RUNAWAY = "RETURN size([x IN range(1, 40000) | size([y IN range(1, 40000) WHERE y = x])]) AS n"

NOW = 1_000_000.0
LIVE, GONE = 11, 22
#: the running server's pid, and an earlier one's
SERVER, EARLIER = 33, 44


def _alive(pid: int) -> bool:
    return pid == LIVE


def _watched(
    client: int,
    query: str = "q",
    *,
    deadline: float = NOW - 10,
    writes: bool = False,
    base: int | None = None,
    budget: int | None = None,
    server: int = SERVER,
) -> WatchedQuery:
    return WatchedQuery(
        client, server, "g", query, deadline, writes, base, budget, Path(f"/{client}/{query}")
    )


def _running(query: str = "q", ms: float = 10_000, *, waiting: bool = False) -> Look:
    return Look(running=[RunningQuery("g", query, ms, waiting)])


def test_a_query_whose_client_is_gone_is_stopped_just_past_its_limit() -> None:
    gone = _watched(GONE, deadline=NOW - CLIENT_GONE_GRACE - 0.5)
    verdict = judge(_running(), [gone], now=NOW, server_limit=900, alive=_alive)
    assert verdict is not None and f"client (pid {GONE}) is gone" in verdict.why
    assert verdict.reads is True  # sent as a read: its restart rewrites the log first
    # within the grace, FalkorDB's own limit may still end it: left
    within = _watched(GONE, deadline=NOW - CLIENT_GONE_GRACE + 0.5)
    assert judge(_running(), [within], now=NOW, server_limit=900, alive=_alive) is None
    # a waiting query holds nothing: left whoever sent it
    assert judge(_running(waiting=True), [gone], now=NOW, server_limit=900, alive=_alive) is None


def test_a_query_whose_client_lives_is_left_to_that_client_for_a_while() -> None:
    live = _watched(LIVE, deadline=NOW - CLIENT_ALIVE_GRACE + 1)
    assert judge(_running(), [live], now=NOW, server_limit=900, alive=_alive) is None
    stuck = _watched(LIVE, deadline=NOW - CLIENT_ALIVE_GRACE - 1, writes=True)
    verdict = judge(_running(), [stuck], now=NOW, server_limit=900, alive=_alive)
    assert verdict is not None and "did not stop it" in verdict.why
    assert verdict.reads is None  # sent as GRAPH.QUERY: its plan says whether it writes
    # the same text sent by a live client and a dead one: the live one's limit governs
    both = [_watched(GONE, deadline=NOW - 100), live]
    assert judge(_running(), both, now=NOW, server_limit=900, alive=_alive) is None


def test_a_query_whose_client_is_gone_is_stopped_past_its_memory_share() -> None:
    hog = _watched(GONE, deadline=NOW + 60, base=1 << 30, budget=1 << 30)
    grown = Look(running=_running().running, resident=(2 << 30) + 1)
    verdict = judge(grown, [hog], now=NOW, server_limit=900, alive=_alive)
    assert verdict is not None and "memory share" in verdict.why
    small = Look(running=_running().running, resident=(2 << 30) - 1)
    assert judge(small, [hog], now=NOW, server_limit=900, alive=_alive) is None


def test_a_server_held_by_a_write_of_a_gone_client_is_restarted_after_a_few_seconds() -> None:
    write = _watched(GONE, deadline=NOW + 60, writes=True)
    held = Look(running=None, held_since=NOW - HELD_GRACE - 0.1)
    verdict = judge(held, [write], now=NOW, server_limit=900, alive=_alive)
    assert verdict is not None and "held the server" in verdict.why
    assert verdict.reads is False
    briefly = Look(running=None, held_since=NOW - HELD_GRACE + 1)
    assert judge(briefly, [write], now=NOW, server_limit=900, alive=_alive) is None
    # a read cannot hold the server: not blamed
    read = _watched(GONE, deadline=NOW - 60)
    assert judge(held, [read], now=NOW, server_limit=900, alive=_alive) is None


def test_what_nobody_watches_is_stopped_past_the_servers_own_limit() -> None:
    limit = 900.0
    past = (limit + UNWATCHED_GRACE + 1) * 1000
    verdict = judge(_running("other", past), [], now=NOW, server_limit=limit, alive=_alive)
    assert verdict is not None and "past the server's limit" in verdict.why
    assert verdict.reads is None  # its plan says
    within = (limit + UNWATCHED_GRACE - 1) * 1000
    assert judge(_running("other", within), [], now=NOW, server_limit=limit, alive=_alive) is None
    assert judge(_running("other", past), [], now=NOW, server_limit=None, alive=_alive) is None
    held = Look(running=None, held_since=NOW - limit - UNWATCHED_GRACE - 1)
    verdict = judge(held, [], now=NOW, server_limit=limit, alive=_alive)
    assert verdict is not None and "held the server" in verdict.why


def test_files_of_queries_that_ended_are_removed_but_not_those_still_running() -> None:
    ended = _watched(GONE, "ended")
    running = _watched(GONE, "q")
    live_recent = _watched(LIVE, "other", deadline=NOW + 5)
    old = _watched(LIVE, "old", deadline=NOW - CLIENT_ALIVE_GRACE - 1)
    found = stale(
        _running(), [ended, running, live_recent, old], now=NOW, alive=_alive, server=SERVER
    )
    assert found == [ended, old]
    assert stale(Look(running=None), [ended], now=NOW, alive=_alive, server=SERVER) == []


def test_files_sent_to_an_earlier_server_are_removed_even_while_the_server_is_held() -> None:
    """A client killed, then the server stopped (the keeper first: it cleaned nothing): its
    file stayed, and the next keeper blamed the next user's long write on it and restarted
    the server under that user. The file names the server it was sent to."""
    earlier = _watched(GONE, writes=True, server=EARLIER)
    held = Look(running=None, held_since=NOW - 60)
    assert stale(held, [earlier], now=NOW, alive=_alive, server=SERVER) == [earlier]
    assert stale(_running(), [earlier], now=NOW, alive=_alive, server=SERVER) == [earlier]


def test_a_watched_query_is_written_whole_and_read_back(tmp_path: Path) -> None:
    watch = watching(tmp_path, 77, "g", "RETURN 1", deadline=NOW, writes=True, memory_base=5)
    [found] = watched_queries(tmp_path)
    assert (found.client, found.server, found.graph) == (os.getpid(), 77, "g")
    assert found.query == "RETURN 1"
    assert (found.deadline, found.writes, found.memory_base) == (NOW, True, 5)
    (tmp_path / "queries" / "half.json").write_text('{"client": 1, "gra')
    assert len(watched_queries(tmp_path)) == 1
    watch.close()
    assert [w.query for w in watched_queries(tmp_path)] == []


# -- with a real server and a real client process -----------------------------------------
def _keepers_of(data_dir: Path) -> list[int]:
    """Keeper processes of ``data_dir`` (``/proc``)."""
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"scholarkg.store.falkordb.keeper" in cmd and str(data_dir).encode() in cmd:
            out.append(int(proc.name))
    return out


def _wait(condition: object, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not callable(condition) or not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_the_keeper_runs_once_beside_a_server_a_user_queries(tmp_path: Path) -> None:
    """Started by the first user query (or ``db start``), once per server, again after it was
    killed, and ended by the stop; a server only loaded into has none."""
    server = EmbeddedServer(tmp_path / "store")
    server.start()
    store = FalkorDBStore(server.connect(), "papers", server=server)
    try:
        store.run("CREATE (:Paper {id: 'p1'})")
        time.sleep(0.5)
        assert keeper_pid(server.data_dir) is None and server.status().keeper is None
        assert store.explore("MATCH (p:Paper) RETURN p.id AS id").rows == [["p1"]]
        _wait(lambda: keeper_pid(server.data_dir) is not None, 10, "no keeper started")
        first = keeper_pid(server.data_dir)
        assert server.status().keeper == first
        EmbeddedServer(tmp_path / "store").ensure_keeper()  # another client: no second one
        store.explore("RETURN 1 AS one")
        time.sleep(0.5)
        assert _keepers_of(server.data_dir) == [first]
        assert first is not None
        os.kill(first, signal.SIGKILL)  # a keeper killed: the next user query starts one
        _wait(lambda: not pid_alive(first), 5, "the keeper survived SIGKILL")
        store.explore("RETURN 1 AS one")
        _wait(lambda: keeper_pid(server.data_dir) is not None, 10, "no keeper restarted")
        second = keeper_pid(server.data_dir)
    finally:
        store.close()
        server.stop(compact=False)
    assert second is not None and not pid_alive(second), "db stop left the keeper running"
    assert keeper_pid(server.data_dir) is None


def test_no_keeper_beside_a_server_that_keeps_no_files(tmp_path: Path) -> None:
    """It could not restart one (the data would go with it)."""
    server = EmbeddedServer(tmp_path / "store", persistent=False)
    server.start()
    try:
        time.sleep(0.5)
        assert server.status().keeper is None and _keepers_of(server.data_dir) == []
    finally:
        server.stop()


@pytest.fixture
def kept(tmp_path: Path) -> Iterator[tuple[EmbeddedServer, FalkorDBStore]]:
    server = EmbeddedServer(tmp_path / "store", memory=4 << 30)
    server.start()
    store = FalkorDBStore(server.connect(), "papers", server=server)
    store.run("UNWIND range(1, 100) AS i CREATE (:Paper {id: 'p' + toString(i)})")
    try:
        yield server, store
    finally:
        store.close()
        server.stop(compact=False)


def _cypher_killed_once_running(
    server: EmbeddedServer, graph: str, query: str, *args: str
) -> float:
    """``scholarkg cypher`` in its own process, SIGKILLed once the server runs ``query``
    (listed running, or holding the server); when it was killed (``time.monotonic()``)."""
    proc = cypher_process(server, graph, *args, query)
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        try:
            if any(q["query"] == query for q in server.running_queries(timeout=0.5)):
                break
        except redis.exceptions.TimeoutError:
            break
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    return time.monotonic()


def _restarted(server: EmbeddedServer, before: int | None, seconds: float) -> None:
    _wait(lambda: server.pid() not in (None, before), seconds, "the keeper did not restart")
    _wait(server.answers, 30, "the restarted server does not answer")


@pytest.mark.slow  # a CLI process and a restart each: the slow half runs them
def test_a_runaway_read_whose_client_was_killed_is_stopped_by_the_keeper(
    kept: tuple[EmbeddedServer, FalkorDBStore],
) -> None:
    server, store = kept
    before = server.pid()
    killed = _cypher_killed_once_running(server, store.graph, RUNAWAY, "--timeout", "2")
    _restarted(server, before, 20)
    took = time.monotonic() - killed
    assert took < 15, took  # its 2 s limit, the keeper's 2 s grace, a look a second
    assert server.running_queries() == []
    log = (server.data_dir / KEEPER_LOG_FILE).read_text()
    assert "past its limit and its client (pid" in log and "is gone" in log
    assert store.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 100}]
    _wait(lambda: watched_queries(server.data_dir) == [], 5, "the killed client's file is left")


@pytest.mark.slow  # a CLI process and a restart each: the slow half runs them
def test_a_write_whose_client_was_killed_does_not_hold_the_server_nor_land(
    kept: tuple[EmbeddedServer, FalkorDBStore],
) -> None:
    server, store = kept
    store.run("MATCH (p:Paper {id: 'p7'}) SET p.kept = true")
    before = server.pid()
    write = "CREATE (n:Hq {id: 'killed'}) WITH n " + RUNAWAY
    killed = _cypher_killed_once_running(server, store.graph, write)  # its limit: 15 min
    _restarted(server, before, 30)
    assert time.monotonic() - killed < 20
    assert "held the server" in (server.data_dir / KEEPER_LOG_FILE).read_text()
    assert store.run("MATCH (n:Hq) RETURN count(n) AS n") == [{"n": 0}]
    assert store.run("MATCH (p:Paper {id: 'p7'}) RETURN p.kept AS kept") == [{"kept": True}]


@pytest.mark.slow  # half a minute past a limit: the slow half runs it
def test_a_runaway_nobody_watches_is_stopped_past_the_servers_limit(tmp_path: Path) -> None:
    """A query sent by another client (``redis-cli``, an older scholarkg) that FalkorDB's own
    limit does not stop (one row): the keeper stops it once it ran its grace past that limit."""
    server = EmbeddedServer(
        tmp_path / "store", module_args={"TIMEOUT_MAX": 1000, "TIMEOUT_DEFAULT": 1000}
    )
    server.start()
    try:
        server.ensure_keeper()  # as `db start` does
        _wait(lambda: keeper_pid(server.data_dir) is not None, 10, "no keeper started")
        before = server.pid()
        client = once(server, timeout=300)
        slow = RUNAWAY.replace("40000", "80000")  # minutes
        sent = time.monotonic()
        with pytest.raises(redis.exceptions.ConnectionError):  # ended by the restart
            redis_command(client, "GRAPH.QUERY", "g", slow)
        assert UNWATCHED_GRACE < time.monotonic() - sent < UNWATCHED_GRACE + 20
        _restarted(server, before, 30)
        assert "past the server's limit of 1 s" in (server.data_dir / KEEPER_LOG_FILE).read_text()
    finally:
        server.stop(compact=False)


@pytest.mark.slow  # a held server and a stop: the slow half runs it
def test_stopping_a_server_held_by_a_write_does_not_wait_for_the_write(
    kept: tuple[EmbeddedServer, FalkorDBStore],
) -> None:
    """``db stop`` of a server a write holds waited for the write (up to its limit) and then
    compacted: 93 s seen. Now it waits a few seconds for a statement that ends by itself and
    then kills the server: the running write is not applied, every acknowledged one is kept."""
    server, store = kept
    store.run("MATCH (p:Paper {id: 'p9'}) SET p.kept = true")
    hold_with_a_write(server, store.graph, "CREATE (n:Hq) WITH n " + RUNAWAY)
    t0 = time.monotonic()
    assert server.stop()
    assert time.monotonic() - t0 < 15
    assert server.pid() is None
    server.start()
    assert store.run("MATCH (n:Hq) RETURN count(n) AS n") == [{"n": 0}]
    assert store.run("MATCH (p:Paper {id: 'p9'}) RETURN p.kept AS kept") == [{"kept": True}]


def test_a_restart_no_longer_needed_once_the_lock_is_held_is_not_made(tmp_path: Path) -> None:
    """The keeper decides, then waits for the server's lock (another process starting or
    stopping it): the decision is checked again under the lock, and a server that answers
    again by then is left running."""
    server = EmbeddedServer(tmp_path / "store")
    server.start()
    try:
        pid = server.pid()
        assert pid is not None
        assert server.restart_runaway(pid, "a test", still_needed=lambda: False) is None
        assert server.pid() == pid and server.answers()
    finally:
        server.stop(compact=False)


def test_a_copied_directorys_keeper_file_names_no_keeper_of_the_copy(tmp_path: Path) -> None:
    """``cp -a`` copies ``keeper.pid``: taken for the copy's own, the copy never got a
    keeper and its ``db stop`` ended the original's."""
    import shutil

    from scholarkg.store.falkordb.keeper_process import KEEPER_PID_FILE

    server = EmbeddedServer(tmp_path / "a")
    server.start()
    try:
        server.ensure_keeper()
        _wait(lambda: keeper_pid(server.data_dir) is not None, 10, "no keeper started")
        copy = tmp_path / "b"
        copy.mkdir()
        shutil.copy(server.data_dir / KEEPER_PID_FILE, copy / KEEPER_PID_FILE)
        assert keeper_pid(copy) is None
        assert keeper_pid(server.data_dir) is not None
    finally:
        server.stop(compact=False)


@pytest.mark.slow  # a CLI process and a held server: the slow half runs it
def test_a_server_stopped_on_purpose_under_a_running_query_stays_stopped(
    kept: tuple[EmbeddedServer, FalkorDBStore],
) -> None:
    """``db stop`` of a server a user's write holds: the user's command lost its server and
    took that for a crash, starting it again at once (and a restore's stop, on half-moved
    files). It now says the server was stopped, and the server stays stopped."""
    server, store = kept
    write = "CREATE (n:Hq {id: 'stopped'}) WITH n " + RUNAWAY
    proc = cypher_process(server, store.graph, "--timeout", "120", write)
    wait_until_held(server)
    assert proc.poll() is None, proc.communicate()
    assert server.stop()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert "was stopped ('scholarkg db stop'" in err, err
    time.sleep(1.0)
    assert server.pid() is None and server.stopped_on_purpose()
    server.start()
    assert not server.stopped_on_purpose()
    assert store.run("MATCH (n:Hq) RETURN count(n) AS n") == [{"n": 0}]


def test_a_quiet_server_is_looked_at_less_often_until_a_client_awaits_a_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing running and no client waiting: the next look comes after
    ``QUIET_LOOK_SECONDS`` (a look a second cost ~0.6 % of a core for a server left running
    idle), unless a client's file appears, which brings it within a poll."""
    monkeypatch.setattr(keeper, "POLL_SECONDS", 0.1)
    monkeypatch.setattr(keeper, "QUIET_LOOK_SECONDS", 1.5)
    queries = tmp_path / QUERIES_DIR
    queries.mkdir()
    watcher = keeper.Keeper(tmp_path)
    watcher._quiet = True
    t0 = time.monotonic()
    watcher._pause()
    assert 1.5 <= time.monotonic() - t0 < 3.0
    (queries / ".half-written.json").write_text("{")  # a client still writing: not yet
    t0 = time.monotonic()
    watcher._pause()
    assert time.monotonic() - t0 >= 1.5
    (queries / "1-2-3.json").write_text("{}")
    t0 = time.monotonic()
    watcher._pause()
    assert time.monotonic() - t0 < 0.5
    watcher._quiet = False  # something ran at the last look: a look a poll
    (queries / "1-2-3.json").unlink()
    t0 = time.monotonic()
    watcher._pause()
    assert time.monotonic() - t0 < 0.5


def test_a_stop_on_purpose_under_a_load_is_said_as_a_stop_not_a_crash(tmp_path: Path) -> None:
    """``db stop`` while a load (or the explorer's schema read) used the store: the store's
    own statements said "lost the embedded FalkorDB server (… Connection reset by peer)",
    a crash, where a user's query said the server was stopped (found by a user's review)."""
    from scholarkg.errors import ServerError

    server = EmbeddedServer(tmp_path / "store")
    server.start()
    store = FalkorDBStore(server.connect(), "papers", server=server)
    try:
        store.run("CREATE (:Paper {id: 'p1'})")
        server.stop(compact=False)
        with pytest.raises(ServerError, match="was stopped \\('scholarkg db stop'"):
            store.run("CREATE (:Paper {id: 'p2'})")
        with (
            pytest.raises(ServerError, match="was stopped"),
            store.writes_ahead(lambda n: None, lambda: None),
        ):  # a write sent ahead, as a load's, its reply read later
            store.merge_nodes("Paper", [{"id": "p3"}])
            store.settle()
    finally:
        store.close()
        server.stop(compact=False)

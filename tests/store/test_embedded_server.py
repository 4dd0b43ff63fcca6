"""Lifecycle of the embedded server: real redis-server processes in temp dirs.

Each test uses its own data dir (never the session server), so stopping, killing or
corrupting it cannot disturb other tests.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import stat
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from scholarkg.errors import ServerError
from scholarkg.store.falkordb.server import MAX_SOCKET_PATH, EmbeddedServer, socket_path_for
from scholarkg.store.process import CHILDREN

#: the embedded tier: the test starts servers of its own (no fixture shows it; tests/conftest.py)
pytestmark = pytest.mark.embedded


@pytest.fixture
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A short data dir (the socket lives inside it) that is cleaned up with its server."""
    path = tmp_path_factory.mktemp("srv")
    yield path
    EmbeddedServer(path).stop(timeout=10)


def _count(server: EmbeddedServer, graph: str = "g") -> int:
    g = server.connect().select_graph(graph)
    return int(g.query("MATCH (n:Paper) RETURN count(n)").result_set[0][0])


def test_start_is_idempotent_and_status(data_dir: Path) -> None:
    srv = EmbeddedServer(data_dir)
    assert srv.status().state == "stopped"
    first = srv.start()
    assert first.state == "running" and first.pid
    again = EmbeddedServer(data_dir).start()
    assert again.pid == first.pid
    assert first.versions["falkordb"].count(".") == 2 and first.versions["redis"]
    info = json.loads((data_dir / "server.json").read_text())
    assert info["pid"] == first.pid and info["socket"] == first.socket
    srv.connect().select_graph("g").query("CREATE (:Paper {id: 'a'})")
    st = srv.status()
    assert st.graphs == ["g"] and st.used_memory and st.used_memory > 0
    assert srv.stop() is True
    assert srv.status().state == "stopped"
    assert not (data_dir / "redis.pid").exists() and not Path(first.socket).exists()
    assert srv.stop() is False


def test_data_survives_stop_and_start(data_dir: Path) -> None:
    srv = EmbeddedServer(data_dir)
    srv.start()
    srv.connect().select_graph("g").query("UNWIND range(1, 50) AS i CREATE (:Paper {id: i})")
    srv.stop()
    assert (data_dir / "appendonlydir").is_dir()
    srv.start()
    assert _count(srv) == 50


def test_a_copy_of_a_running_stores_directory_starts_a_server_of_its_own(
    data_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """``cp -a`` of a store's directory while its server runs copies its ``server.json`` and
    pid file, which name the original's socket and pid. Starting the copy removed the
    original's socket as a stale leftover (the original then answered no one, and a command
    on it waited for ever) and could take the original's live pid for its own."""
    import shutil

    original = EmbeddedServer(data_dir)
    first = original.start()
    original.connect().select_graph("g").query("UNWIND range(1, 7) AS i CREATE (:Paper {id: i})")
    copy_dir = tmp_path_factory.mktemp("copy")
    shutil.rmtree(copy_dir)
    shutil.copytree(data_dir, copy_dir, ignore=shutil.ignore_patterns("redis.sock"))
    copy = EmbeddedServer(copy_dir)
    try:
        second = copy.start()
        assert second.pid != first.pid and second.socket != first.socket
        assert Path(first.socket).exists()  # the original's socket is left alone
        assert original.status().state == "running" and _count(original) == 7
        assert json.loads((copy_dir / "server.json").read_text())["data_dir"] == str(copy_dir)
    finally:
        copy.stop(timeout=10)
    assert original.status().state == "running"


def test_killed_server_restarts_with_data(data_dir: Path) -> None:
    srv = EmbeddedServer(data_dir)
    pid = srv.start().pid
    assert pid is not None
    srv.connect().select_graph("g").query("UNWIND range(1, 20) AS i CREATE (:Paper {id: i})")
    time.sleep(1.5)  # appendfsync everysec: the AOF is on disk within ~1 s
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != "zombie":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert srv.status().state == "stale"
    st = srv.ensure_running()
    assert st.state == "running" and st.pid != pid
    assert _count(srv) == 20


@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_hung_server_is_replaced_with_data(data_dir: Path) -> None:
    """A live redis-server that does not answer (here: SIGSTOP) is terminated and replaced."""
    srv = EmbeddedServer(data_dir)
    pid = srv.start().pid
    assert pid is not None
    srv.connect().select_graph("g").query("UNWIND range(1, 5) AS i CREATE (:Paper {id: i})")
    os.kill(pid, signal.SIGSTOP)
    try:
        # 3 s: the new server's own start must not look stalled either (at 0.5 s it did,
        # on a 2-core machine at load 4)
        st = EmbeddedServer(data_dir, stall_timeout=3.0).start()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    assert st.state == "running" and st.pid != pid
    assert _count(srv) == 5


def test_stale_pid_file_and_socket_are_recovered(data_dir: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    (data_dir / "redis.pid").write_text(f"{dead.pid}\n")
    sock_path = socket_path_for(data_dir)
    leftover = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    leftover.bind(str(sock_path))  # a socket file nobody listens on
    leftover.close()
    srv = EmbeddedServer(data_dir)
    assert srv.status().state == "stale"
    st = srv.start()
    assert st.state == "running" and st.pid != dead.pid
    assert srv.connect().select_graph("g").query("RETURN 1").result_set == [[1]]


def test_pid_file_of_unrelated_process_is_stale(data_dir: Path) -> None:
    (data_dir / "redis.pid").write_text(f"{os.getpid()}\n")  # alive, but not redis-server
    srv = EmbeddedServer(data_dir)
    assert srv.status().state == "stale"
    assert srv.start().pid != os.getpid()


def test_concurrent_starts_share_one_server(data_dir: Path) -> None:
    pids: list[int | None] = []
    errors: list[BaseException] = []

    def start() -> None:
        try:
            pids.append(EmbeddedServer(data_dir).start().pid)
        except BaseException as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=start) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(pids)) == 1
    redis_children = [
        p for p in psutil.Process().children() if "redis" in p.name() and p.pid in pids
    ]
    assert len(redis_children) == 1


def test_lock_held_by_another_process_blocks_start(data_dir: Path) -> None:
    fd = os.open(data_dir / "server.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(ServerError, match="lock"):
            EmbeddedServer(data_dir, lock_timeout=0.3).start()
        assert not (data_dir / "redis.pid").exists()
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def test_no_tcp_listener_and_private_permissions(data_dir: Path) -> None:
    srv = EmbeddedServer(data_dir)
    st = srv.start()
    proc = psutil.Process(st.pid)
    inet = [c for c in proc.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert inet == []
    assert stat.S_IMODE(os.stat(st.socket).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(data_dir).st_mode) == 0o700
    assert "--port" in proc.cmdline() or proc.cmdline()  # redis rewrites its title
    assert "unixsocket" in " ".join(proc.cmdline())


def test_long_data_dir_gets_short_socket(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    assert len(os.fsencode(deep / "redis.sock")) > MAX_SOCKET_PATH
    with EmbeddedServer(deep, persistent=False) as srv:
        st = srv.status()
        assert st.state == "running"
        assert len(os.fsencode(st.socket)) <= MAX_SOCKET_PATH
        assert not st.socket.startswith(str(deep))
        assert json.loads((deep / "server.json").read_text())["socket"] == st.socket
        assert stat.S_IMODE(os.stat(Path(st.socket).parent).st_mode) == 0o700
        assert srv.connect().select_graph("g").query("RETURN 2").result_set == [[2]]
        sock = Path(st.socket)
    assert not sock.exists()
    assert EmbeddedServer(deep).status().state == "stopped"


def test_ephemeral_context_manager_keeps_nothing(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, persistent=False) as srv:
        srv.connect().select_graph("g").query("CREATE (:Paper {id: 'x'})")
        pid = srv.status().pid
    assert (pid is not None and not psutil.pid_exists(pid)) or psutil.Process(pid).status() == (
        "zombie"
    )
    assert not (tmp_path / "appendonlydir").exists()
    with EmbeddedServer(tmp_path, persistent=False) as srv:
        assert srv.status().graphs == []


def test_startup_failure_reports_log_tail(tmp_path: Path) -> None:
    srv = EmbeddedServer(tmp_path, persistent=False, module_args={"THREAD_COUNT": "many"})
    with pytest.raises(ServerError) as info:
        srv.start()
    assert "exited during startup" in str(info.value)
    assert "falkordb.log" in str(info.value)
    assert srv.status().state in ("stopped", "stale")


def test_server_without_progress_is_not_left_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a spawned server that never became ready kept running, holding the data
    dir's AOF and socket (and, when persistent, outliving the process). Here the server
    never answers and its CPU clock stands still (both probes pinned), i.e. no progress."""
    from scholarkg.store.falkordb import server as embedded

    monkeypatch.setattr(EmbeddedServer, "_probe", lambda self, pid, sock, elapsed: ("busy", None))
    monkeypatch.setattr(embedded, "_cpu_ticks", lambda pid: 0)
    before = set(CHILDREN)
    srv = EmbeddedServer(tmp_path, persistent=False, stall_timeout=0.3)
    with pytest.raises(ServerError, match="made no progress for 0 s") as info:
        srv.start()
    assert "run 'scholarkg db start' again" in str(info.value)
    spawned = [pid for pid in CHILDREN if pid not in before]
    assert spawned == []  # reaped and forgotten
    assert not srv.pid_file.exists() and not socket_path_for(tmp_path).exists()
    assert srv.status().state == "stopped"
    owners = [
        p.pid
        for p in psutil.process_iter(["cmdline"])
        if str(tmp_path) in " ".join(p.info["cmdline"] or [])
    ]
    assert owners == []


def test_module_args_are_passed(tmp_path: Path) -> None:
    with EmbeddedServer(tmp_path, persistent=False, module_args={"THREAD_COUNT": 1}) as srv:
        with srv._raw_client(srv.socket_path) as client:
            mods = client.execute_command("MODULE", "LIST")
        graph = next(m for m in mods if m["name"] == "graph")
        args = dict(zip(graph["args"][::2], graph["args"][1::2], strict=True))
        # the caller's option, beside the locked-down defaults it does not replace
        assert args["THREAD_COUNT"] == "1"
        assert args["IMPORT_FOLDER"] == f"{tmp_path / 'import'}/"
        assert int(args["QUERY_MEM_CAPACITY"]) > 0
        # no finished-query log: its task races the module's start (server.py says how)
        assert args["CMD_INFO"] == "no"


def test_a_module_arg_given_as_none_is_left_to_falkordb(tmp_path: Path) -> None:
    srv = EmbeddedServer(tmp_path, persistent=False, module_args={"CMD_INFO": None})
    assert "CMD_INFO" not in srv.module_args
    assert "CMD_INFO" not in srv._command(srv.socket_path)


def test_connect_without_server_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ServerError, match="db start"):
        EmbeddedServer(tmp_path).connect()


#: the end of a server's log as FalkorDB 4.16 and Redis 7 write it (pid 4242 starting after an
#: earlier server, pid 4100, and one of its forks, 4101, wrote theirs)
_LOG_OF_A_START = """\
4100:M 06 Dec 2026 15:10:01.100 * Ready to accept connections unix
4101:C 06 Dec 2026 15:12:00.000 * Fork CoW for AOF rewrite: current 1 MB
4242:M 06 Dec 2026 15:14:45.000 * DB loaded from base file appendonly.aof.4.base.rdb: 0.1 seconds
"""
_DECODING = "4242:M 06 Dec 2026 15:14:46.366 * <module> Graph 'g' loading label matrices\n"
_INDEXING = "4242:M 06 Dec 2026 15:14:46.697 * <module> Graph 'g' Constructing indexes.\n"
_READY = "4242:M 06 Dec 2026 15:15:15.803 * Ready to accept connections unix\n"


def test_a_busy_starting_server_is_described_by_its_own_last_log_line() -> None:
    """What ``db start`` and ``db status`` say of a server that answers nothing: FalkorDB
    building its indexes (minutes on a large graph with abstracts) was called a log replay."""
    from scholarkg.store.falkordb.server import WaitProgress, starting_activity

    assert starting_activity(_LOG_OF_A_START, 4242) == "replaying its log"
    assert starting_activity(_LOG_OF_A_START + _DECODING, 4242) == "loading its data"
    assert starting_activity(_LOG_OF_A_START + _DECODING + _INDEXING, 4242) == (
        "building its indexes"
    )
    assert starting_activity(_LOG_OF_A_START + _INDEXING + _READY, 4242) is None  # started
    assert starting_activity(_LOG_OF_A_START, 4100) is None  # an earlier server: it started
    assert starting_activity(_LOG_OF_A_START, 4101) is None  # a fork's lines are not its own
    assert starting_activity("", 4242) is None
    busy = WaitProgress(pid=4242, phase="busy", elapsed=31.4, doing="building its indexes")
    assert busy.describe() == "embedded FalkorDB (pid 4242) is building its indexes (31 s so far)"
    unknown = WaitProgress(pid=4242, phase="busy", elapsed=3.0)
    assert unknown.describe().endswith("is busy replaying its log (3 s so far)")


def test_a_started_server_that_answers_nothing_is_held_by_a_query() -> None:
    """A server whose log says it started and that answers nothing is held by a query (a
    user's long write), not replaying its log as a new user was told."""
    from scholarkg.store.falkordb.server import HELD_BY_A_QUERY, busy_activity

    assert busy_activity(_LOG_OF_A_START + _INDEXING + _READY, 4242) == HELD_BY_A_QUERY
    assert busy_activity(_LOG_OF_A_START, 4242) == "replaying its log"  # still starting
    assert busy_activity(_LOG_OF_A_START + _READY, 4101) is None  # another pid's lines
    # a server whose start left the log's end long ago (later saves pushed it out)
    assert busy_activity(_LOG_OF_A_START, 4300, age=3600.0) == HELD_BY_A_QUERY
    assert busy_activity(_LOG_OF_A_START, 4300, age=1.0) is None  # just spawned: not yet

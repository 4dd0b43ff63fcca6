"""Persistence of the embedded store: compact files, restarts, loading, backup/restore.

Real servers on real files, each test in its own data dir (never the session server),
stopped in teardown. The slow-marked test replays issue 9's 20k-paper scenario.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok, runner
from _fakes import num

from scholarkg.cli import app
from scholarkg.config import load_settings
from scholarkg.errors import InputError, StoreError
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb import bulk
from scholarkg.store.falkordb.backup import BACKUP_FORMAT, BACKUP_VERSION, read_backup_manifest
from scholarkg.store.falkordb.server import EmbeddedServer, WaitProgress
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.graph_lock import GraphBusy, lock_folder, writing_graph

#: the embedded tier: the test starts servers of its own (no fixture shows it; tests/conftest.py)
pytestmark = pytest.mark.embedded

GRAPH = "scholarkg"


@pytest.fixture
def own_store(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, scholarkg_home: Path
) -> Iterator[Path]:
    """A persistent data dir of its own for the in-process CLI; its server stops afterwards."""
    data = tmp_path_factory.mktemp("persist")
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(data))
    monkeypatch.setenv("SCHOLARKG_GRAPH", GRAPH)
    yield data
    EmbeddedServer(data).stop(timeout=10, compact=False)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory, scholarkg_home: Path) -> Path:
    """A small synthetic LEGOBench corpus in the real file formats (written, not loaded)."""
    out = tmp_path_factory.mktemp("corpus")
    cli_ok(["load", "synthetic-legobench", "--out", str(out), "--papers", "300",
            "--leaderboards", "10", "--no-load"])  # fmt: skip
    return out


def _apc_args(corpus: Path) -> list[str]:
    return ["load", "apc", "--papers", str(corpus / "papers.jsonl"),
            "--citations", str(corpus / "citations.csv"),
            "--comparisons", str(corpus / "comparisons.csv")]  # fmt: skip


def store_state(store: GraphStore) -> dict[str, Any]:
    """Counts per label/type and a checksum over every node's and relationship's properties
    (any backend: the Neo4j crash test compares the same state)."""
    counts = store.counts()
    h = hashlib.sha256()
    for query in (
        "MATCH (n) RETURN labels(n), properties(n) ORDER BY n.id",
        "MATCH (a)-[r]->(b) RETURN a.id, type(r), b.id, properties(r) ORDER BY a.id, type(r), b.id",
    ):
        for row in store.run(query):
            h.update(json.dumps(row, sort_keys=True, default=str).encode())
    return {"nodes": counts.nodes, "rels": counts.relationships, "sha": h.hexdigest()}


def graph_state(server: EmbeddedServer, graph: str = GRAPH) -> dict[str, Any]:
    """:func:`store_state` of one graph of an embedded server."""
    db = server.connect()
    try:
        return store_state(FalkorDBStore(db, graph))
    finally:
        db.connection.close()


def aof_files(data: Path) -> dict[str, int]:
    """``{"base": bytes, "incr": bytes}`` of the append-only dir."""
    out = {"base": 0, "incr": 0}
    for f in (data / "appendonlydir").iterdir():
        if ".base." in f.name:
            out["base"] += f.stat().st_size
            assert f.name.endswith(".base.rdb"), f"base is not an RDB preamble: {f.name}"
        elif ".incr." in f.name:
            out["incr"] += f.stat().st_size
    return out


def kill9(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists():
        stat = Path(f"/proc/{pid}/stat").read_text(errors="replace")
        if stat.rsplit(")", 1)[1].split()[0] == "Z":
            break
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_load_leaves_compact_files_and_restart_is_identical(own_store: Path, corpus: Path) -> None:
    cli_ok(_apc_args(corpus))
    server = EmbeddedServer(own_store)
    files = aof_files(own_store)
    # the load ended with an AOF rewrite: the data are in the RDB base, the log is empty
    assert files["base"] > 100_000 and files["incr"] <= files["base"] // 100, files
    before = graph_state(server)
    assert before["nodes"]["Paper"] == 300 and before["rels"]["CITES"] > 1000
    server.stop()
    server.start()
    assert graph_state(server) == before
    # kill -9 right after the load: the same, from the snapshot (nothing left to replay)
    kill9(server.status().pid or 0)
    assert server.ensure_running().state == "running"
    assert graph_state(server) == before
    log = (own_store / "falkordb.log").read_text()
    assert "already exists" not in log and "CRITICAL" not in log


def test_writes_after_the_snapshot_survive_kill9_and_schema_replays_cleanly(
    own_store: Path,
) -> None:
    """Schema on a fresh store is compacted at once (FalkorDB logs each constraint twice;
    replaying them flooded the log with 'Constraint already exists'); rows written after it
    are in the log and come back from it after kill -9."""
    server = EmbeddedServer(own_store)
    server.start()
    store = FalkorDBStore(server.connect(), GRAPH)
    assert store.apply_schema()
    assert aof_files(own_store)["incr"] == 0
    store.merge_nodes("Paper", [{"id": f"p{i}", "title": f"t{i}"} for i in range(500)])
    store.close()
    time.sleep(0.2)  # appendfsync always: acknowledged means on disk already
    assert aof_files(own_store)["incr"] > 0
    before = graph_state(server)
    kill9(server.status().pid or 0)
    server.start()
    assert graph_state(server) == before
    store = FalkorDBStore(server.connect(), GRAPH)
    assert store.apply_schema() == []  # constraints and indexes came back too
    store.close()
    log = (own_store / "falkordb.log").read_text()
    assert "already exists" not in log and "CRITICAL" not in log
    # stop compacts: the next start loads only the snapshot
    server.stop()
    assert aof_files(own_store)["incr"] == 0
    server.start()
    assert graph_state(server) == before


def test_a_failed_write_and_a_later_effect_on_what_it_left_come_back_after_kill9(
    own_store: Path,
) -> None:
    """A crash hunt's find: a user's write that fails part-way leaves a node in memory that
    the log lacks (upstream FalkorDB 2235), a later write logs its effects on that node, and
    after a ``kill -9`` every start crashed replaying them: the store never came back. The
    log is rewritten from memory after a failed user write, so the restart holds what the
    graph held."""
    cli_ok(["cypher", "UNWIND range(1, 3) AS i CREATE (:Paper {id: toString(i)})"])
    failed = runner.invoke(
        app, ["cypher", "CREATE (x:T) DELETE x MERGE (:T)<-[:A]-(:T) DELETE x CREATE (x)-[:B]->()"]
    )
    assert failed.exit_code != 0 and "endpoint was not found" in str(failed.exception)
    cli_ok(["cypher", "MATCH (n:T) SET n.r = rand()"])  # logged as effects naming the node
    # a LOAD CSV write was logged as its text, replayed by reading a file since gone
    (own_store / "import").mkdir(exist_ok=True)
    (own_store / "import" / "y.csv").write_text("a\nb\n", encoding="utf-8")
    cli_ok(["cypher", "LOAD CSV FROM 'file://y.csv' AS row CREATE (:Csv {v: row[0]})"])
    cli_ok(["cypher", "MATCH (c:Csv) SET c.r = rand()"])
    (own_store / "import" / "y.csv").unlink()
    server = EmbeddedServer(own_store)
    before = graph_state(server)
    kill9(server.status().pid or 0)
    server.start()
    assert graph_state(server) == before


def _wait_for_progress(
    seen: list[WaitProgress],
    wanted: Callable[[WaitProgress], bool],
    thread: threading.Thread,
    *,
    within: float,
) -> None:
    """Until a progress report of the starting ``thread``'s server is ``wanted`` (its start
    must not end first, nor take longer than ``within`` s)."""
    deadline = time.monotonic() + within
    while not any(wanted(p) for p in seen):
        assert thread.is_alive() and time.monotonic() < deadline, seen
        time.sleep(0.02)


@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_readiness_waits_for_a_loading_server(own_store: Path) -> None:
    """A server that is loading is waited for and reported, never killed (issue 9).

    The slow load is real loading, slowed down: 3,000 keys in the snapshot and Redis'
    ``key-load-delay`` (1.5 ms per key), with events served every KB so INFO answers.
    """
    server = EmbeddedServer(own_store)
    server.start()
    db = server.connect()
    db.select_graph(GRAPH).query("UNWIND range(1, 50) AS i CREATE (:Paper {id: toString(i)})")
    pipe = db.connection.pipeline()
    for i in range(3000):
        pipe.set(f"filler:{i}", "x" * 64)
    pipe.execute()
    db.connection.close()
    before = graph_state(server)
    server.stop()

    slow = {"key-load-delay": 1500, "loading-process-events-interval-bytes": 1024}
    seen: list[WaitProgress] = []
    first = EmbeddedServer(own_store, server_args=slow, progress=seen.append, stall_timeout=30)
    started: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: started.update(st=first.start()))
    thread.start()
    try:
        _wait_for_progress(seen, lambda p: p.phase == "loading", thread, within=20)
        assert EmbeddedServer(own_store).status().state == "loading"
        # what 'db start' does while another command's server is loading: wait, not kill
        # (a short stall window: progress, not a deadline, keeps it waiting)
        other: list[WaitProgress] = []
        second = EmbeddedServer(own_store, progress=other.append, stall_timeout=2).start()
    finally:
        thread.join(60)
    loading = [p for p in seen if p.phase == "loading"]
    measured = [p for p in loading if p.percent is not None]
    assert measured and 0 <= num(measured[0].percent) < 100
    assert "loading its data" in measured[0].describe()
    assert second.pid == started["st"].pid == loading[0].pid  # one server throughout
    assert any(p.phase == "loading" for p in other)
    assert graph_state(server) == before


@pytest.mark.slow  # ~20 s: a full-text index that takes seconds to build at each start
def test_a_server_building_its_indexes_is_reported_so_not_stale(
    own_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FalkorDB builds every index's contents again at each start, before it answers anything
    (PING included): minutes for a large graph with abstracts. ``db start`` said the server
    was replaying its log, and ``db status`` called it stale; both now say it builds its
    indexes. Real: 50,000 Papers with 200-word abstracts of a 150,000-word vocabulary."""
    from scholarkg.store.falkordb import server as embedded

    server = EmbeddedServer(own_store)
    server.start()
    graph = server.connect().select_graph(GRAPH)
    graph.query(
        "UNWIND range(1, 50000) AS i CREATE (:Paper {id: toString(i), abstract: reduce(s = '', "
        "j IN range(1, 200) | s + ' w' + toString((i * 7919 + j * 104729) % 150000))})"
    )
    graph.query("CALL db.idx.fulltext.createNodeIndex('Paper', 'abstract')")
    deadline = time.monotonic() + 120
    states = "CALL db.indexes() YIELD status RETURN status"
    while any(r[0] != "OPERATIONAL" for r in graph.query(states).result_set):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    server.stop()

    monkeypatch.setattr(embedded, "STATUS_PING_TIMEOUT", 0.5)
    seen: list[WaitProgress] = []
    starting = EmbeddedServer(own_store, progress=seen.append)
    thread = threading.Thread(target=starting.start)
    thread.start()
    try:
        _wait_for_progress(seen, lambda p: p.doing == "building its indexes", thread, within=60)
        status = EmbeddedServer(own_store).status()
    finally:
        thread.join(120)
    busy = next(p for p in seen if p.doing)
    assert busy.phase == "busy" and "is building its indexes" in busy.describe()
    assert status.state == "loading", status  # was "stale"
    assert status.loading is not None and status.loading.doing == "building its indexes"
    assert EmbeddedServer(own_store).status().state == "running"
    hits = (
        EmbeddedServer(own_store)
        .connect()
        .select_graph(GRAPH)
        .query("CALL db.idx.fulltext.queryNodes('Paper', 'w112648') YIELD node RETURN count(node)")
    )  # Paper 1's first word: the index was built, not skipped
    assert hits.result_set[0][0] > 0


def test_backup_and_restore_round_trip(
    own_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_ok(["cypher", "UNWIND range(1, 200) AS i CREATE (:Paper {id: toString(i), n: i})"])
    cli_ok(["cypher", "MATCH (a:Paper {id: '1'}), (b:Paper {id: '2'}) CREATE (a)-[:CITES]->(b)"])
    server = EmbeddedServer(own_store)
    saved = graph_state(server)
    out = cli_ok(["db", "backup", str(tmp_path / "bk")])
    assert "200 nodes" in out
    manifest = json.loads((tmp_path / "bk" / "backup.json").read_text())
    assert manifest["graphs"] == {GRAPH: {"nodes": 200, "relationships": 1}}
    assert manifest["versions"]["falkordb"] and manifest["files"]["dump.rdb"]["sha256"]
    assert not (own_store / "dump.rdb").exists()  # the AOF store keeps no stray RDB

    cli_ok(["cypher", "CREATE (:Paper {id: 'later'})"])
    refused = runner.invoke(app, ["db", "restore", str(tmp_path / "bk")])
    assert refused.exit_code != 0 and "--force" in str(refused.exception)
    assert "201" in json.dumps(EmbeddedServer(own_store).status().graph_counts)  # untouched
    # nor while a load writes a graph (it would see its server stop, or write on into the
    # restored graph): refused at once, naming the load, nothing touched
    with writing_graph(lock_folder(load_settings()), GRAPH), pytest.raises(GraphBusy) as busy:
        runner.invoke(app, ["db", "restore", str(tmp_path / "bk"), "--force"],
                      catch_exceptions=False)  # fmt: skip
    assert f"pid {os.getpid()}" in str(busy.value) and "restore" in str(busy.value)
    assert "201" in json.dumps(EmbeddedServer(own_store).status().graph_counts)
    cli_ok(["db", "restore", str(tmp_path / "bk"), "--force"])
    assert graph_state(server) == saved

    # into a fresh, empty store (no --force needed): Redis 8 with appendonly on would
    # ignore a lone dump.rdb and start empty; the restore must still bring the data back
    fresh = tmp_path / "fresh"
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(fresh))
    try:
        assert "counts match" in cli_ok(["db", "restore", str(tmp_path / "bk")])
        other = EmbeddedServer(fresh)
        assert graph_state(other) == saved
        assert (fresh / "appendonlydir").is_dir() and not (fresh / "dump.rdb").exists()
        other.stop()
        other.start()  # from the AOF made out of the backup, not from an empty start
        assert graph_state(other) == saved
    finally:
        EmbeddedServer(fresh).stop(timeout=10, compact=False)


def test_damaged_backup_is_refused_before_anything_changes(own_store: Path, tmp_path: Path) -> None:
    cli_ok(["cypher", "CREATE (:Paper {id: 'a'})"])
    cli_ok(["db", "backup", str(tmp_path / "bk")])
    with (tmp_path / "bk" / "dump.rdb").open("ab") as fh:
        fh.write(b"x")
    result = runner.invoke(app, ["db", "restore", str(tmp_path / "bk"), "--force"])
    assert result.exit_code != 0 and "SHA-256" in str(result.exception)
    assert EmbeddedServer(own_store).status().graph_counts[GRAPH]["nodes"] == 1


def test_interrupted_bulk_load_is_reported_incomplete(
    own_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bulk load cut after its first GRAPH.BULK command leaves a marked graph: opening
    it says what to do; 'db status' flags it; 'db reset' clears it; then the load works."""
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(json.dumps({"id": f"p{i}"}) + "\n" for i in range(3000)))
    edges = tmp_path / "cites.csv"
    edges.write_text("start,end\n" + "".join(f"p{i},p{(i * 7) % 3000}\n" for i in range(3000)))
    real_commands = bulk._commands

    def cut_after_first(*args: Any, **kwargs: Any) -> Iterator[Any]:
        gen = real_commands(*args, **kwargs)
        yield next(gen)
        raise RuntimeError("simulated crash")  # the process dies here (kill -9, OOM)

    monkeypatch.setattr(bulk, "MAX_COMMAND_BYTES", 20_000)
    monkeypatch.setattr(bulk, "_commands", cut_after_first)
    with pytest.raises(RuntimeError, match="simulated crash"):
        runner.invoke(
            app, ["load", "bulk", "--papers", str(papers), "--edges", str(edges)],
            catch_exceptions=False,
        )  # fmt: skip
    monkeypatch.setattr(bulk, "_commands", real_commands)
    server = EmbeddedServer(own_store)
    kill9(server.status().pid or 0)  # and the server with it: the marker is in the log
    server.ensure_running()
    assert server.status().incomplete == [GRAPH]
    result = runner.invoke(app, ["stats"])
    assert result.exit_code != 0
    assert "incomplete" in str(result.exception) and "db reset" in str(result.exception)
    assert isinstance(result.exception, StoreError)
    assert "INCOMPLETE" in cli_ok(["db", "status"])
    cli_ok(["db", "reset", "--yes"])
    cli_ok(["load", "bulk", "--papers", str(papers), "--edges", str(edges)])
    st = EmbeddedServer(own_store).status()
    assert st.incomplete == [] and st.graph_counts[GRAPH] == {"nodes": 3000, "relationships": 3000}


# 10 s: make test's 5-minute budget; runs in make test-marked (CI runs both)
@pytest.mark.slow
def test_bulk_load_returns_with_indexes_and_snapshot_that_survive_kill9(
    own_store: Path, tmp_path: Path
) -> None:
    """Issue 28: the bulk loader rewrites the AOF while the full-text index is still
    populating (after the unique constraints are enforced). When ``load bulk`` returns, a
    kill -9 loses nothing: the same graph comes back from the snapshot, with every index
    and constraint (none left to create), the full-text index answering, and no failed
    replay in the log (a constraint logged after the snapshot would fail there)."""
    n = 20_000
    papers = tmp_path / "papers.jsonl"
    papers.write_text("".join(
        json.dumps({"id": f"p{i}", "title": f"graph paper {i}", "year": 2000 + i % 25,
                    "abstract": f"citation graph number {i} " + "scholarly text " * 20})
        + "\n" for i in range(n)
    ))  # fmt: skip
    edges = tmp_path / "cites.csv"
    edges.write_text("start,end\n" + "".join(f"p{i},p{(i * 7 + 1) % n}\n" for i in range(n)))
    cli_ok(["load", "bulk", "--papers", str(papers), "--edges", str(edges)])
    server = EmbeddedServer(own_store)
    files = aof_files(own_store)
    assert files["base"] > 1_000_000 and files["incr"] <= files["base"] // 100, files
    before = graph_state(server)
    assert before["nodes"]["Paper"] == n and before["rels"]["CITES"] == n
    kill9(server.status().pid or 0)
    assert server.ensure_running().state == "running"
    assert graph_state(server) == before
    store = FalkorDBStore(server.connect(), GRAPH)
    try:
        assert store.apply_schema() == []
        hits = store.fulltext("paper_text", ["number", "12345"], require_all=True)
        assert [h.id for h in hits] == ["p12345"]
    finally:
        store.close()
    assert server.status().incomplete == []
    log = (own_store / "falkordb.log").read_text()
    assert "already exists" not in log and "CRITICAL" not in log


def test_resume_after_reset_or_restore_rewrites_what_the_graph_lost(
    own_store: Path, corpus: Path, tmp_path: Path
) -> None:
    """Checkpoints say how much of a file a graph holds; after 'db reset' or 'db restore'
    it holds less, so they are forgotten and '--resume' writes everything again (before,
    it skipped every record and left the graph empty)."""
    cli_ok(["db", "backup", str(tmp_path / "empty")])
    cli_ok(_apc_args(corpus))
    server = EmbeddedServer(own_store)
    full = graph_state(server)
    assert "forgot 3 load checkpoint(s)" in cli_ok(["db", "reset", "--yes"])
    cli_ok([*_apc_args(corpus), "--resume"])
    assert graph_state(server) == full
    assert "forgot 3 load checkpoint(s)" in cli_ok(
        ["db", "restore", str(tmp_path / "empty"), "--force"]
    )
    assert EmbeddedServer(own_store).status().graph_counts == {}
    cli_ok([*_apc_args(corpus), "--resume"])
    assert graph_state(server) == full


@pytest.mark.neo4j
@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_resume_after_reset_rewrites_what_the_neo4j_database_lost(
    neo4j_store: GraphStore, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same on Neo4j, whose loads scope their checkpoints by the database (``neo4j``),
    not by ``--graph``: 'db reset' once forgot nothing there, and '--resume' after it skipped
    whole files (found at 20k papers: every COMPARES_WITH edge missing)."""
    monkeypatch.setenv("SCHOLARKG_BACKEND", "neo4j")
    cli_ok(_apc_args(corpus))
    full = store_state(neo4j_store)
    assert "forgot 3 load checkpoint(s)" in cli_ok(["db", "reset", "--yes"])
    assert neo4j_store.counts().total_nodes == 0
    cli_ok([*_apc_args(corpus), "--resume"])
    assert store_state(neo4j_store) == full


def test_db_status_shows_files_and_counts(own_store: Path) -> None:
    cli_ok(["cypher", "UNWIND range(1, 30) AS i CREATE (:Paper {id: toString(i)})"])
    cli_ok(["db", "stop"])
    cli_ok(["db", "start"])
    st = json.loads(cli_ok(["db", "status", "--format", "json"]))
    assert st["state"] == "running" and st["persistence"] == "aof"
    assert st["graph_counts"] == {GRAPH: {"nodes": 30, "relationships": 0}}
    names = [f["name"] for f in st["files"]]
    assert any(n.endswith(".base.rdb") for n in names) and st["last_rewrite"]
    assert st["disk_bytes"] >= sum(f["bytes"] for f in st["files"]) > 0
    table = cli_ok(["db", "status"])
    assert "30 nodes, 0 relationships" in table and "last rewrite" in table


# -- the 20k-paper scenario -------------------------------------------------------


def _cli_proc(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "scholarkg.cli", *args], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip


def _run(env: dict[str, str], *args: str) -> None:
    proc = _cli_proc(env, *args)
    _, err = proc.communicate(timeout=900)
    assert proc.returncode == 0, err.decode(errors="replace")


@pytest.mark.slow
def test_20k_papers_restart_and_kill9_resume(tmp_path: Path) -> None:
    """Issue 9: 20k papers / ~150k citations; clean stop/start within 5 s; kill -9 of the
    server mid-load, restart, ``--resume``: the graph equals a clean load's."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCHOLARKG_")}
    env["SCHOLARKG_HOME"] = str(tmp_path / "home")
    corpus = tmp_path / "c"
    sizes = ["--papers", "20000", "--leaderboards", "100"]
    unused = {**env, "SCHOLARKG_DATA_DIR": str(tmp_path / "unused")}
    _run(unused, "load", "synthetic-legobench", "--out", str(corpus), *sizes, "--no-load")
    clean_dir, crash_dir = tmp_path / "clean", tmp_path / "crash"
    clean_srv, crash_srv = EmbeddedServer(clean_dir), EmbeddedServer(crash_dir)
    try:
        # separate homes: load checkpoints are kept per home, graph and file, not per
        # data dir, so the clean load's would make the crashed one's --resume skip files
        clean_env = {**env, "SCHOLARKG_DATA_DIR": str(clean_dir)}
        clean_env["SCHOLARKG_HOME"] = str(tmp_path / "home-clean")
        _run(clean_env, *_apc_args(corpus))
        clean = graph_state(clean_srv)
        assert clean["nodes"]["Paper"] == 20000 and clean["rels"]["CITES"] > 140_000
        clean_srv.stop()
        t0 = time.monotonic()
        clean_srv.start()
        took = time.monotonic() - t0
        assert took <= 5.0, f"the start after a clean stop took {took:.2f} s"
        assert graph_state(clean_srv) == clean

        crash_env = {**env, "SCHOLARKG_DATA_DIR": str(crash_dir)}
        crash_env["SCHOLARKG_HOME"] = str(tmp_path / "home-crash")
        pid = crash_srv.start().pid or 0
        load = _cli_proc(crash_env, *_apc_args(corpus))
        half = clean["rels"]["CITES"] // 2
        while True:  # kill the server half-way through the citations
            assert load.poll() is None, "load finished before the kill point"
            db = crash_srv.connect()
            try:
                n = FalkorDBStore(db, GRAPH).counts().relationships.get("CITES", 0)
            finally:
                db.connection.close()
            if n >= half:
                break
            time.sleep(0.05)
        kill9(pid)
        load.communicate(timeout=120)
        assert load.returncode != 0
        logged = sum(f.stat().st_size for f in crash_dir.rglob("*.incr.aof"))
        t0 = time.monotonic()
        crash_srv.start()
        took = time.monotonic() - t0
        assert took <= 5.0, f"the start after kill -9 took {took:.2f} s ({logged} B of log)"
        _run(crash_env, *_apc_args(corpus), "--resume")
        assert graph_state(crash_srv) == clean
    finally:
        clean_srv.stop(timeout=10, compact=False)
        crash_srv.stop(timeout=10, compact=False)


@pytest.mark.parametrize(
    ("header", "field"),
    [
        ({"format": "scholarkg-graph", "format_version": 1}, "format"),
        ({"format": BACKUP_FORMAT, "format_version": BACKUP_VERSION + 1}, "format_version"),
        ({"format": BACKUP_FORMAT, "format_version": "1"}, "format_version"),
    ],
)
def test_backup_manifest_of_another_format_or_a_newer_version_is_refused(
    tmp_path: Path, header: dict[str, Any], field: str
) -> None:
    (tmp_path / "backup.json").write_text(json.dumps({**header, "graphs": {}}))
    with pytest.raises(InputError) as err:
        read_backup_manifest(tmp_path)
    assert err.value.field == field


@pytest.mark.parametrize("files", [["dump.rdb"], "dump.rdb", 3])
def test_backup_manifest_whose_files_is_not_a_mapping_names_the_field(
    tmp_path: Path, files: Any
) -> None:
    """A hand-edited or truncated ``files`` entry is bad input, not an AttributeError."""
    (tmp_path / "dump.rdb").write_bytes(b"x")
    header = {"format": BACKUP_FORMAT, "format_version": BACKUP_VERSION}
    (tmp_path / "backup.json").write_text(json.dumps({**header, "graphs": {}, "files": files}))
    with pytest.raises(InputError) as err:
        read_backup_manifest(tmp_path)
    assert err.value.field == "files"
    assert err.value.path == str(tmp_path / "backup.json")


def test_compact_on_an_rdb_only_store_saves_a_snapshot_of_every_write(own_store: Path) -> None:
    """On ``rdb`` persistence ``compact`` is one waited-for ``BGSAVE``: after it, ``dump.rdb``
    holds the writes made before the call, and with nothing new to save it does nothing."""
    server = EmbeddedServer(own_store, persistence="rdb")
    server.start()
    try:
        db = server.connect()
        db.select_graph(GRAPH).query("UNWIND range(1, 20) AS i CREATE (:Paper {id: toString(i)})")
        db.connection.close()
        assert server.compact() is True
        with server.admin_client() as client:
            info = client.info("persistence")
        assert int(info["rdb_changes_since_last_save"]) == 0
        assert info["rdb_last_bgsave_status"] == "ok"
        assert (own_store / "dump.rdb").is_file()
        assert server.compact() is False  # nothing written since the snapshot
        server.stop(compact=False)
        server.start()
        assert graph_state(server)["nodes"] == {"Paper": 20}
    finally:
        server.stop(timeout=10, compact=False)

"""The managed Neo4j server (``store/neo4j/server.py``) as a user meets it: loopback only,
auth on with a generated password that never leaks, allow-listed procedures, clear errors.

The session's server (``managed_neo4j``) is checked where it is the managed one; the lifecycle
test (start, reuse, stop, restart with the data kept, a crash) starts its own and is slow.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.config import Neo4jSettings
from scholarkg.errors import ConfigError, StoreError
from scholarkg.store.neo4j.server import ManagedNeo4j, _java_major, java_available
from scholarkg.store.neo4j.store import Neo4jStore

pytestmark = pytest.mark.neo4j


def _listening(pid: int) -> list[tuple[str, int]]:
    proc = psutil.Process(pid)
    return [
        (c.laddr.ip, c.laddr.port)
        for c in proc.net_connections(kind="inet")
        if c.status == psutil.CONN_LISTEN
    ]


def test_bolt_listens_on_loopback_only(managed_neo4j: ManagedNeo4j) -> None:
    server = managed_neo4j
    st = server.status(details=False)
    assert st.pid is not None
    sockets = _listening(st.pid)
    assert sockets, "the managed Neo4j listens on nothing"
    for ip, _port in sockets:
        assert ip in ("127.0.0.1", "::ffff:127.0.0.1"), f"listening on {ip}"
    # Bolt only: no HTTP connector unless asked for
    assert {port for _, port in sockets} == {int(str(st.uri).rsplit(":", 1)[1])}


def test_the_jvm_logs_its_collections_and_safepoints(managed_neo4j: ManagedNeo4j) -> None:
    """The pause log is written from the start, so a stall can be explained after the fact."""
    log = managed_neo4j.pause_log_file
    assert log.exists(), f"the server wrote no {log}"
    text = log.read_text(encoding="utf-8", errors="replace")
    assert 'Safepoint "' in text
    # the start's lines, in the earlier file if a busy session filled the current one since
    earlier = managed_neo4j.earlier_pause_log_file
    if earlier.exists():
        text = earlier.read_text(encoding="utf-8", errors="replace") + text
    assert "Using G1" in text
    # a start fills the 64 MiB young generation many times over: its collections are there
    assert "Pause Young" in text


def test_password_is_private_and_never_printed(managed_neo4j: ManagedNeo4j) -> None:
    server = managed_neo4j
    mode = stat.S_IMODE(server.password_file.stat().st_mode)
    assert mode == 0o600
    password = server.password()
    assert len(password) >= 24 and password != "neo4j"
    st = server.status(details=False)
    assert st.pid is not None
    assert password not in " ".join(psutil.Process(st.pid).cmdline())
    assert password not in server.log_file.read_text(errors="replace")
    assert password not in json.dumps(st.as_dict())


def test_only_the_procedures_scholarkg_uses_are_allowed(
    managed_neo4j: ManagedNeo4j, neo4j_store: Neo4jStore
) -> None:
    """Of GDS's and APOC's ~600 procedures and functions, exactly the allow-list is loaded
    (``tests/security/test_procedure_allowlist.py`` ties the list to the code)."""
    from scholarkg.store.neo4j.server import ALLOWED_PROCEDURES

    plugins = ("gds.", "apoc.", "scholarkg.")
    procedures = [r["name"] for r in neo4j_store.run("SHOW PROCEDURES YIELD name RETURN name")]
    functions = [r["name"] for r in neo4j_store.run("SHOW FUNCTIONS YIELD name RETURN name")]
    # Neo4j's own procedures (db.*, dbms.*, tx.*) are part of the server, not plugins
    assert [n for n in procedures if not n.startswith(("db.", "dbms.", "tx.", *plugins))] == []
    loaded = {n for n in procedures + functions if n.startswith(plugins)}
    assert loaded == set(ALLOWED_PROCEDURES)
    assert {"gds", "apoc", "tx_id"} <= neo4j_store.capabilities


def test_wrong_password_is_one_clear_line(neo4j_env: Neo4jSettings) -> None:
    bad = Neo4jSettings(uri=neo4j_env.uri, user="neo4j", password="not-the-password")
    with pytest.raises(StoreError) as info:
        Neo4jStore.from_settings(bad)
    message = str(info.value)
    assert "\n" not in message and "not-the-password" not in message
    assert "refused the credentials" in message and "NEO4J_PASSWORD" in message


def test_unreachable_uri_from_the_cli_exits_non_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NEO4J_URI", "bolt://127.0.0.1:1")
    monkeypatch.setenv("NEO4J_PASSWORD", "whatever-secret")
    result = runner.invoke(app, ["--backend", "neo4j", "stats"])
    assert result.exit_code != 0
    assert "whatever-secret" not in str(result.exception) + result.output


def test_java_version_parsing() -> None:
    assert _java_major('openjdk version "17.0.15" 2025-04-15') == 17
    assert _java_major('java version "1.8.0_392"') == 8
    assert _java_major('openjdk version "25" 2025-09-16') == 25
    assert _java_major("no version here") is None


def test_missing_java_is_a_config_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no java, no mvn
    assert java_available() is not None
    with pytest.raises(ConfigError, match="java"):
        ManagedNeo4j(tmp_path / "neo4j").start()


@pytest.mark.slow
def test_start_reuse_stop_restart_and_crash(tmp_path: Path) -> None:
    if java_available():
        pytest.skip(f"no managed Neo4j here: {java_available()}")
    server = ManagedNeo4j(tmp_path / "neo4j")
    try:
        first = server.start()
        assert first.state == "running" and first.versions["gds"].startswith("2.")
        assert server.start().pid == first.pid  # a live server is reused
        settings = Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        st = Neo4jStore.from_settings(settings)
        st.merge_nodes("Paper", [{"id": f"p{i}", "title": f"T{i}"} for i in range(50)])
        st.close()
        t0 = time.monotonic()
        assert server.stop() and server.status().state == "stopped"
        # a clean stop (checkpointed) without netty's 5-s quiet period twice: it took 10.4 s
        assert time.monotonic() - t0 < 5.0
        assert not server.stop()  # nothing to stop
        second = server.start()  # the data and the password survive a restart
        assert second.pid != first.pid
        st = Neo4jStore.from_settings(settings)
        assert st.counts().nodes.get("Paper") == 50
        st.close()
        assert second.pid is not None
        # a crash: the pid file is stale, the next start recovers
        os.kill(second.pid, signal.SIGKILL)
        assert server.status(details=False).state in ("running", "stale")
        third = server.start()
        st = Neo4jStore.from_settings(settings)
        try:
            assert st.counts().nodes.get("Paper") == 50
        finally:
            st.close()
        assert third.state == "running"
    finally:
        server.stop()  # never leave a JVM behind, whatever failed


def test_bulk_import_refuses_a_database_with_nodes(tmp_path: Path) -> None:
    from scholarkg.errors import NotSupported
    from scholarkg.store.neo4j.importer import import_into_managed

    papers = tmp_path / "papers.jsonl"
    papers.write_text('{"id": "p1"}\n')
    with pytest.raises(NotSupported, match="holds 3 nodes"):
        import_into_managed(ManagedNeo4j(tmp_path / "neo4j"), papers, None, node_count=3)


def test_import_csvs_are_typed_and_keep_every_row(tmp_path: Path) -> None:
    from scholarkg.store.neo4j.importer import write_import_csvs

    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        '{"id": "p1", "title": "A, with a comma", "year": 2020, "open": true}\n'
        '{"id": "p2", "title": "B \\"quoted\\"", "year": 2021, "open": false}\n'
    )
    edges = tmp_path / "cites.csv"
    edges.write_text("start,end\np1,p2\np2,p9\n")
    nodes_csv, rels_csv, left_out, multiline = write_import_csvs(
        papers, edges, tmp_path, label="Paper"
    )
    lines = nodes_csv.read_text().splitlines()
    assert lines[0] == '"id:ID(Paper)","title:string","year:long","open:boolean"'
    assert len(lines) == 3 and left_out == [] and not multiline
    scored = tmp_path / "scored.jsonl"
    scored.write_text(
        '{"id": "p1", "score": 0.5, "venue": {"name": "X"}}\n{"id": "p2", "score": 2}\n'
    )
    nodes_csv, _, left_out, _ = write_import_csvs(scored, None, tmp_path, label="Paper")
    assert nodes_csv.read_text().splitlines() == [
        '"id:ID(Paper)","score:double"',
        '"p1",0.5',
        '"p2",2',
    ]
    assert left_out == ["venue"]
    assert rels_csv is not None
    assert rels_csv.read_text().splitlines() == [
        '":START_ID(Paper)",":END_ID(Paper)"',
        '"p1","p2"',
        '"p2","p9"',
    ]


def test_import_csvs_clean_text_as_the_record_layer_does(tmp_path: Path) -> None:
    """A NUL from PDF extraction, CRLF, a BOM: cleaned (not refused), counted in the record
    layer's words; a value with a line break asks for the importer's multiline mode."""
    import csv

    from scholarkg.schema.text import collect_cleaning, describe_cleaning
    from scholarkg.store.neo4j.importer import write_import_csvs

    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        '{"id": "p1", "body": "nul\\u0000 here\\r\\nnext"}\n{"id": "p2", "body": "\\ufeffok"}\n'
    )
    with collect_cleaning() as counts:
        nodes_csv, _, _, multiline = write_import_csvs(papers, None, tmp_path, label="Paper")
    with open(nodes_csv, newline="", encoding="utf-8") as fh:
        rows = list(csv.reader(fh))
    assert rows[1:] == [["p1", "nul here\nnext"], ["p2", "ok"]]
    assert multiline
    assert describe_cleaning(counts) == [
        "Paper.body: CR/CRLF line ends made LF in 1 value(s)",
        "Paper.body: NUL character(s) removed in 1 value(s)",
        "Paper.body: byte-order mark(s) removed in 1 value(s)",
    ]


@pytest.mark.slow
def test_load_bulk_on_the_managed_neo4j(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Neo4j's offline importer into a new database: counts, skipped edges, the schema."""
    if java_available():
        pytest.skip(f"no managed Neo4j here: {java_available()}")
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("NEO4J_URI", raising=False)
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        "".join(f'{{"id": "p{i}", "title": "T{i}"}}\n' for i in range(29))
        + '{"id": "p29", "title": "PDF\\u0000 text\\r\\nover two lines"}\n'
    )
    edges = tmp_path / "cites.csv"
    edges.write_text("start,end\n" + "".join(f"p{i},p{(i * 7) % 31}\n" for i in range(30)))
    server = ManagedNeo4j(tmp_path / "home" / "neo4j")
    try:
        result = runner.invoke(
            app,
            ["--backend", "neo4j", "load", "bulk", "--papers", str(papers), "--edges", str(edges)],
        )
        assert result.exit_code == 0, result.output
        assert "relationships skipped" in result.output
        st = Neo4jStore.from_settings(
            Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        )
        try:
            counts = st.counts()
            skipped = sum(1 for i in range(30) if (i * 7) % 31 == 30)
            assert counts.nodes == {"Paper": 30}
            assert counts.relationships == {"CITES": 30 - skipped}
            names = {r["name"] for r in st.run("SHOW CONSTRAINTS YIELD name RETURN name")}
            assert "key_Paper_id" in names
            title = st.run("MATCH (p:Paper {id: 'p29'}) RETURN p.title AS t")[0]["t"]
            assert title == "PDF text\nover two lines"  # cleaned; multiline mode kept it whole
            assert "NUL character(s) removed in 1 value(s)" in result.output
        finally:
            st.close()
        again = runner.invoke(app, ["--backend", "neo4j", "load", "bulk", "--papers", str(papers)])
        assert again.exit_code != 0 and "holds 30 nodes" in str(again.exception)
    finally:
        server.stop()


@pytest.mark.slow
def test_20k_papers_kill9_mid_load_then_resume_equals_a_clean_load(tmp_path: Path) -> None:
    """The embedded store's crash test, on the managed Neo4j: 20k papers / ~150k citations
    loaded cleanly; the database reset; the same load with the JVM killed (SIGKILL) half-way
    through the citations; ``db start`` (Neo4j recovers its store); ``--resume``: the graph
    equals the clean load's, property for property."""
    from store.test_persistence import _apc_args, _cli_proc, _run, store_state

    if java_available():
        pytest.skip(f"no managed Neo4j here: {java_available()}")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCHOLARKG_", "NEO4J_"))}
    env["SCHOLARKG_HOME"] = str(tmp_path / "home")
    env["SCHOLARKG_BACKEND"] = "neo4j"
    corpus = tmp_path / "c"
    _run({**env, "SCHOLARKG_BACKEND": "embedded", "SCHOLARKG_DATA_DIR": str(tmp_path / "unused")},
         "load", "synthetic-legobench", "--out", str(corpus), "--papers", "20000",
         "--leaderboards", "100", "--no-load")  # fmt: skip
    server = ManagedNeo4j(tmp_path / "home" / "neo4j")

    def state() -> dict[str, Any]:
        st = Neo4jStore.from_settings(
            Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        )
        try:
            return store_state(st)
        finally:
            st.close()

    try:
        _run(env, *_apc_args(corpus))
        clean = state()
        assert clean["nodes"]["Paper"] == 20000 and clean["rels"]["CITES"] > 140_000
        _run(env, "db", "reset", "--yes")  # also forgets the load checkpoints
        assert state()["nodes"] == {}
        load = _cli_proc(env, *_apc_args(corpus))
        half = clean["rels"]["CITES"] // 2
        probe = Neo4jStore.from_settings(
            Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        )
        try:
            while probe.counts().relationships.get("CITES", 0) < half:
                assert load.poll() is None, "load finished before the kill point"
                time.sleep(0.2)
        finally:
            probe.close()
        pid = server.status(details=False).pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        load.communicate(timeout=300)
        assert load.returncode != 0
        _run(env, "db", "start")
        _run(env, *_apc_args(corpus), "--resume")
        assert state() == clean
    finally:
        server.stop()


def _http(port: int, path: str, accept: str = "*/*") -> tuple[int, dict[str, str], bytes]:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", path, headers={"Accept": accept})
        res = conn.getresponse()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, res.read()
    finally:
        conn.close()


def _bolt_over_websocket(port: int) -> tuple[bytes, bytes]:
    """What the Browser page does to reach Bolt: a WebSocket handshake on the Bolt port, then
    Bolt's version negotiation in one binary frame. Returns the handshake's status line and
    the agreed Bolt version (4 bytes: 0, 0, minor, major)."""
    import base64
    import socket

    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += s.recv(1024)
        status = head.split(b"\r\n", 1)[0]
        # Bolt preamble + "5.0 to 5.4", then three empty proposals; a client frame is masked
        payload = bytes.fromhex("6060b01700040405000000000000000000000000")
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        s.sendall(bytes([0x82, 0x80 | len(payload)]) + mask + masked)
        frame = s.recv(16)
    assert frame[0] == 0x82 and frame[1] == 4, frame  # one unmasked binary frame, 4 bytes
    return status, frame[2:6]


@pytest.mark.slow
def test_neo4j_browser_on_loopback_reaching_bolt(tmp_path: Path) -> None:
    """``db start --backend neo4j --browser``: Neo4j Browser's static app and its discovery
    document on 127.0.0.1, nothing outside ``browser/`` served, and the Bolt port answering
    the WebSocket handshake the Browser opens (its login then goes over Bolt with the same
    user and password)."""
    if java_available():
        pytest.skip(f"no managed Neo4j here: {java_available()}")
    server = ManagedNeo4j(tmp_path / "neo4j", browser=True)
    try:
        st = server.start()
        assert st.pid is not None and st.browser is not None
        bolt = int(str(st.uri).rsplit(":", 1)[1])
        port = int(st.browser.split("://127.0.0.1:", 1)[1].split("/", 1)[0])
        assert st.browser.endswith(f"?dbms=bolt://neo4j@127.0.0.1:{bolt}")
        for ip, _port in _listening(st.pid):
            assert ip in ("127.0.0.1", "::ffff:127.0.0.1"), f"listening on {ip}"
        assert {p for _, p in _listening(st.pid)} == {bolt, port}
        status, headers, body = _http(port, "/", accept="application/json")
        assert status == 200 and json.loads(body)["bolt_direct"] == st.uri
        status, headers, _ = _http(port, "/")
        assert status == 303 and headers["location"] == "/browser/"
        status, headers, body = _http(port, "/browser/")
        assert status == 200 and headers["content-type"].startswith("text/html")
        assert b"<title>Neo4j Browser</title>" in body
        for bad in ("/browser/../Launcher.class", "/org/scholarkg/neo4j/Launcher.class",
                    "/browser/nope.js"):  # fmt: skip
            assert _http(port, bad)[0] == 404, bad
        status_line, version = _bolt_over_websocket(bolt)
        assert b" 101 " in status_line and version[3] == 5, (status_line, version)
        # asked for the Browser while a server without it runs: a clear error
        server.stop()
        plain = ManagedNeo4j(tmp_path / "neo4j", browser=False)
        plain.start()
        with pytest.raises(ConfigError, match="without Neo4j Browser"):
            ManagedNeo4j(tmp_path / "neo4j", browser=True).start()
        plain.stop()
    finally:
        server.stop()


def test_import_csvs_carry_lists_as_array_columns(tmp_path: Path) -> None:
    """Lists become the importer's array columns (``string[]``, ``long[]``), elements joined
    by a control character cleaned text cannot hold (the default ``;`` and commas stay
    text); a list whose elements would need cleaning (the delimiter is one such character)
    is refused, never split; edges get their JSONL properties and the constant ones."""
    from scholarkg.errors import InputError
    from scholarkg.store.neo4j.importer import (
        ARRAY_DELIMITER,
        write_node_csv,
        write_relationship_csv,
    )

    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        '{"id": "p1", "topics": ["Graphs; networks", "a, b"], "scores": [9100, 5000]}\n'
        '{"id": "p2", "topics": ["one\\nline break"]}\n'
        '{"id": "p3", "scores": []}\n'
    )
    left_out, multiline = write_node_csv(papers, tmp_path / "n.csv", label="Paper")
    assert left_out == [] and multiline
    text = (tmp_path / "n.csv").read_text()
    assert text.splitlines()[0] == '"id:ID(Paper)","topics:string[]","scores:long[]"'
    assert text.splitlines()[1] == (
        f'"p1","Graphs; networks{ARRAY_DELIMITER}a, b","9100{ARRAY_DELIMITER}5000"'
    )
    assert '"p2","one\nline break",\n"p3",,""\n' in text
    dirty = tmp_path / "dirty.jsonl"
    dirty.write_text('{"id": "p1", "topics": ["a\\u001fb"]}\n')
    with pytest.raises(InputError, match="needs text cleaning"):
        write_node_csv(dirty, tmp_path / "d.csv", label="Paper")
    edges = tmp_path / "wrote.jsonl"
    edges.write_text('{"start": "p1", "end": "a1", "position": 0, "inst": ["U1", "U2"]}\n')
    write_relationship_csv(edges, tmp_path / "r.csv", rel_type="AUTHORED_BY",
                           start_label="Paper", end_label="Author",
                           properties=(("from_openalex", True),))  # fmt: skip
    assert (tmp_path / "r.csv").read_text().splitlines() == [
        '":START_ID(Paper)",":END_ID(Author)","position:long","inst:string[]",'
        '"from_openalex:boolean"',
        f'"p1","a1",0,"U1{ARRAY_DELIMITER}U2",true',
    ]

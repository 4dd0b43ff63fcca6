"""Hostile queries against both backends, live: each is refused or stopped, and the server
answers afterwards.

Two layers are attacked, as a user with a token or a shell would:

* the explorer's read-only mode (``explorer/guard.py``), the same promise on both backends:
  no file read, no URL fetch, no write, no schema change, no procedure off its list, and its
  own time limit; a query that would exhaust memory is stopped by the server's limit;
* the servers themselves (what ``scholarkg cypher`` and Neo4j Browser reach): file URLs
  confined to the import folder, no URL fetch from the managed Neo4j, APOC's loaders not
  loaded, a transaction timeout and a memory limit in force.

A local HTTP server counts the requests a URL fetch would make: none may arrive.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from scholarkg.errors import CypherError, QueryLimitExceeded, ScholarKGError
from scholarkg.explorer.app import Explorer, ExplorerConfig
from scholarkg.explorer.guard import LOAD_REFUSED, WRITES_REFUSED, QueryRefused, QueryStopped
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore

BACKENDS = ["embedded", "neo4j"]
#: ten billion rows: runs far past any time limit, holds almost no memory
ENDLESS = "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*) AS n"
#: a list of 500-character strings, grown until a memory limit stops it (the strings are
#: built per row, so no lazy list or count rewrite makes it cheap)
GREEDY = (
    "UNWIND range(1, 10000000) AS x "
    f"WITH collect(toString(x) + '{'x' * 500}') AS big RETURN size(big) AS n"
)


class _Counter(BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Counter.hits.append(self.path)
        body = b"a,b\n1,2\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def web() -> Iterator[str]:
    """A loopback web server that counts requests; yields its base URL."""
    _Counter.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Counter)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(params=BACKENDS)
def graph(request: pytest.FixtureRequest) -> GraphStore:
    """A small graph (three papers, two citations) on the embedded store or Neo4j."""
    store: GraphStore = request.getfixturevalue(
        "store" if request.param == "embedded" else "neo4j_store"
    )
    store.run(
        "CREATE (a:Paper {id: 'p1', title: 'A'}), (b:Paper {id: 'p2', title: 'B'}), "
        "(c:Paper {id: 'p3', title: 'C'}), (a)-[:CITES]->(b), (b)-[:CITES]->(c)"
    )
    return store


def explorer(store: GraphStore, tmp_path: Path, **config: Any) -> Explorer:
    return Explorer(store, tmp_path / "runs", ExplorerConfig(**config))


def still_answers(store: GraphStore) -> None:
    assert store.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 3}]


# -- the explorer: read-only is one promise on both backends -------------------------------


def test_explorer_refuses_file_reads(graph: GraphStore, tmp_path: Path) -> None:
    app = explorer(graph, tmp_path)
    for url in ("file:///etc/passwd", "file:///../../../../etc/passwd", "file://passwd"):
        with pytest.raises(QueryRefused) as err:
            app.query(f"LOAD CSV FROM '{url}' AS row RETURN row")
        assert str(err.value) == LOAD_REFUSED
    # the URL as a parameter, and with writes allowed: still no file access
    with pytest.raises(QueryRefused, match="LOAD CSV"):
        explorer(graph, tmp_path, allow_writes=True).query(
            "LOAD CSV FROM $u AS row RETURN row", {"u": "file:///etc/passwd"}
        )
    still_answers(graph)


def test_explorer_refuses_url_fetches(graph: GraphStore, tmp_path: Path, web: str) -> None:
    app = explorer(graph, tmp_path)
    for query in (
        f"LOAD CSV FROM '{web}/a.csv' AS row RETURN row",
        f"LOAD CSV WITH HEADERS FROM '{web.replace('http', 'https')}/a.csv' AS row RETURN row",
        f"MATCH (p:Paper) WITH p LIMIT 1 LOAD CSV FROM '{web}/' + p.id AS row RETURN row",
    ):
        with pytest.raises(QueryRefused, match="LOAD CSV reads files or URLs"):
            app.query(query)
    with pytest.raises(ScholarKGError):  # off the list; on the managed Neo4j not even loaded
        app.query(f"CALL apoc.load.json('{web}/x.json') YIELD value RETURN value")
    assert _Counter.hits == []
    still_answers(graph)


@pytest.mark.parametrize(
    "query",
    [
        "CREATE (:Paper {id: 'evil'})",
        "MERGE (:Paper {id: 'evil'})",
        "MATCH (p:Paper {id: 'p1'}) SET p.title = 'evil'",
        "MATCH (p:Paper {id: 'p1'}) DETACH DELETE p",
        "MATCH (p:Paper {id: 'p1'}) REMOVE p.title",
        "MATCH (a:Paper {id: 'p1'}), (c:Paper {id: 'p3'}) CREATE (a)-[:CITES]->(c)",
        "UNWIND [1] AS x CALL { CREATE (:Paper {id: 'evil'}) } RETURN x",
    ],
)
def test_explorer_refuses_writes(graph: GraphStore, tmp_path: Path, query: str) -> None:
    before = graph.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS t ORDER BY id")
    with pytest.raises(QueryRefused) as err:
        explorer(graph, tmp_path).query(query)
    assert str(err.value) == WRITES_REFUSED
    assert graph.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS t ORDER BY id") == before
    assert graph.run("MATCH ()-[r:CITES]->() RETURN count(r) AS n") == [{"n": 2}]


def test_explorer_refuses_schema_changes(graph: GraphStore, tmp_path: Path) -> None:
    indexes = graph.explore_indexes()
    app = explorer(graph, tmp_path)
    for query in (
        "CREATE INDEX FOR (p:Paper) ON (p.evil)",
        "DROP INDEX ON :Paper(id)"
        if graph.backend != "neo4j"
        else "CREATE CONSTRAINT FOR (p:Paper) REQUIRE p.evil IS UNIQUE",
    ):
        with pytest.raises((QueryRefused, CypherError)) as err:
            app.query(query)
        assert isinstance(err.value, QueryRefused) or "syntax" in str(err.value).lower()
    assert graph.explore_indexes() == indexes
    still_answers(graph)


def test_explorer_refuses_procedures_off_its_list(graph: GraphStore, tmp_path: Path) -> None:
    app = explorer(graph, tmp_path)
    # allowed: schema listings (the text may hide a CALL in strings and comments)
    out = app.query(
        "// CALL db.idx.fulltext.drop('Paper')\n"
        "CALL db.labels() YIELD label RETURN label, 'CALL dbms.listConfig()' AS s"
    )
    assert ["Paper", "CALL dbms.listConfig()"] in out["rows"]
    off_list = {
        # a built-in that reads the server's configuration
        "neo4j": "CALL dbms.listConfig() YIELD name RETURN name",
        # a write procedure, spelled to slip past a naive text check
        "embedded": "CALL /* x */ db . idx . fulltext . createNodeIndex('Paper', 'evil')",
    }[graph.backend]
    with pytest.raises(QueryRefused, match=r"read-only explorer: procedure \S+ is not on"):
        app.query(off_list)
    # a user may add one
    name = "dbms.listConfig" if graph.backend == "neo4j" else "db.idx.fulltext.createNodeIndex"
    widened = explorer(
        graph, tmp_path, procedures=(*ExplorerConfig().procedures, name), allow_writes=False
    )
    if not isinstance(graph, FalkorDBStore):
        assert widened.query(off_list)["rows"]
    else:  # on the list now, and still a write: the database refuses it
        with pytest.raises(QueryRefused, match="changes the graph"):
            widened.query(off_list)
    still_answers(graph)


def test_explorer_stops_a_query_at_its_time_limit(graph: GraphStore, tmp_path: Path) -> None:
    import time

    app = explorer(graph, tmp_path, timeout_ms=500)
    start = time.monotonic()
    # stopped by the server at its limit, or (a loaded machine) by scholarkg 1 s after it
    with pytest.raises(QueryLimitExceeded, match=r"time limit of 0.5 s"):
        app.query(ENDLESS)
    assert time.monotonic() - start < 10
    still_answers(graph)


def test_a_query_that_would_exhaust_memory_is_stopped(
    graph: GraphStore, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    """The server's per-query memory limit stops it (the explorer says which limit).

    The managed Neo4j's limit is a quarter of its heap (512 MiB of 2 GiB), reached in a few
    seconds; the embedded server's default is 2 GiB, lowered here for the test's duration to
    keep it fast (the same setting, ``QUERY_MEM_CAPACITY``, changed at run time).
    """
    if not isinstance(graph, FalkorDBStore):
        limit = graph.run(
            "CALL dbms.listConfig('db.memory.transaction.max') YIELD value RETURN value"
        )
        if limit == [{"value": "0B"}]:
            pytest.skip("this Neo4j has no transaction memory limit (an external server)")
        with pytest.raises(QueryStopped, match="more memory than one query may use"):
            explorer(graph, tmp_path, timeout_ms=60_000).query(GREEDY)
    else:
        from scholarkg.store.falkordb.server import DEFAULT_QUERY_MEMORY

        conn = request.getfixturevalue("embedded_server").connect().connection
        config = dict(conn.execute_command("GRAPH.CONFIG", "GET", "*"))
        assert config["QUERY_MEM_CAPACITY"] == DEFAULT_QUERY_MEMORY
        conn.execute_command("GRAPH.CONFIG", "SET", "QUERY_MEM_CAPACITY", 64 << 20)
        try:
            with pytest.raises(QueryStopped, match="more memory than one query may use"):
                explorer(graph, tmp_path, timeout_ms=60_000).query(GREEDY)
        finally:
            conn.execute_command("GRAPH.CONFIG", "SET", "QUERY_MEM_CAPACITY", DEFAULT_QUERY_MEMORY)
    still_answers(graph)


def test_reads_still_work(graph: GraphStore, tmp_path: Path) -> None:
    out = explorer(graph, tmp_path, row_limit=2).query(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) RETURN a.id AS a, b.id AS b ORDER BY a"
    )
    assert out["rows"] == [["p1", "p2"], ["p2", "p3"]] and not out["truncated"]
    out = explorer(graph, tmp_path, row_limit=1).query("MATCH (p:Paper) RETURN p.id ORDER BY p.id")
    assert out["rows"] == [["p1"]] and out["truncated"]


# -- the servers themselves -----------------------------------------------------------------


def test_embedded_server_reads_files_from_its_import_folder_only(
    store: GraphStore, embedded_server: Any
) -> None:
    store.run("CREATE (:Paper {id: 'p1'})")
    folder = Path(embedded_server.data_dir) / "import"
    (folder / "ok.csv").write_text("a\n1\n", encoding="utf-8")
    try:
        assert store.run("LOAD CSV FROM 'file://ok.csv' AS row RETURN row") != []
        for url in ("file:///etc/passwd", "file://../../../../../etc/passwd"):
            with pytest.raises(CypherError, match="Error opening CSV URI"):
                store.run(f"LOAD CSV FROM '{url}' AS row RETURN row")
    finally:
        (folder / "ok.csv").unlink()
    assert store.run("RETURN 1 AS ok") == [{"ok": 1}]


def test_managed_neo4j_reads_files_from_its_import_folder_only(
    managed_neo4j: Any, neo4j_store: GraphStore
) -> None:
    (Path(managed_neo4j.import_dir) / "ok.csv").write_text("a\n1\n", encoding="utf-8")
    try:
        assert neo4j_store.run("LOAD CSV FROM 'file:///ok.csv' AS row RETURN row") == [
            {"row": ["a"]},
            {"row": ["1"]},
        ]
        for url in ("file:///etc/passwd", "file:///../../../../../etc/passwd"):
            with pytest.raises(CypherError, match="Couldn't load the external resource"):
                neo4j_store.run(f"LOAD CSV FROM '{url}' AS row RETURN row")
    finally:
        (Path(managed_neo4j.import_dir) / "ok.csv").unlink()


def test_managed_neo4j_fetches_no_url(
    managed_neo4j: Any, neo4j_store: GraphStore, web: str
) -> None:
    with pytest.raises(CypherError, match="cypher_ip_blocklist"):
        neo4j_store.run(f"LOAD CSV FROM '{web}/a.csv' AS row RETURN row")
    with pytest.raises(CypherError, match="ProcedureNotFound"):
        neo4j_store.run(f"CALL apoc.load.json('{web}/x.json') YIELD value RETURN value")
    assert _Counter.hits == []
    assert neo4j_store.run("RETURN 1 AS ok") == [{"ok": 1}]


def test_managed_neo4j_limits_and_reporting(managed_neo4j: Any, neo4j_store: GraphStore) -> None:
    from scholarkg.store.neo4j.server import DEFAULT_TX_TIMEOUT

    config = {
        r["name"]: r["value"]
        for r in neo4j_store.run("CALL dbms.listConfig() YIELD name, value RETURN name, value")
    }
    assert config["db.transaction.timeout"] == f"{DEFAULT_TX_TIMEOUT // 60}m"
    from scholarkg.store.neo4j.server import _size_bytes

    quarter = _size_bytes(managed_neo4j.heap) // 4  # a quarter of the heap (512 MiB of 2 GiB)
    assert config["db.memory.transaction.max"] == f"{quarter / (1 << 20):.2f}MiB"
    assert config["dbms.usage_report.enabled"] == "false"
    assert config["dbms.security.allow_csv_import_from_file_urls"] == "true"
    client = {
        r["name"]: r["value"]
        for r in neo4j_store.run("CALL dbms.clientConfig() YIELD name, value RETURN name, value")
    }
    assert client["client.allow_telemetry"] == "false"
    assert client["browser.remote_content_hostname_whitelist"] == "127.0.0.1,localhost"
    # a client's own shorter timeout still applies (the explorer's), and the server answers
    # (on a loaded machine the server's own answer may come after scholarkg's 1 s of grace)
    with pytest.raises(
        (CypherError, QueryLimitExceeded), match=r"TransactionTimedOut|ran past its time limit"
    ):
        neo4j_store.explore(ENDLESS, timeout_ms=300)
    assert neo4j_store.run("RETURN 1 AS ok") == [{"ok": 1}]


def test_no_graph_yet_is_no_way_around_the_guard(store: GraphStore, tmp_path: Path) -> None:
    """FalkorDB plans against a graph: before the first write there is no plan, and the
    guard reads the text instead (writes allowed, so the query would otherwise run)."""
    app = explorer(store, tmp_path, allow_writes=True)
    with pytest.raises(QueryRefused, match="LOAD CSV reads files or URLs"):
        app.query("LOAD CSV FROM 'file:///etc/passwd' AS row CREATE (:Paper {id: row[0]})")
    assert app.query("CREATE (p:Paper {id: 'w1'}) RETURN p.id")["rows"] == [["w1"]]


def test_a_clients_time_limit_is_bounded_by_the_servers(graph: GraphStore, tmp_path: Path) -> None:
    """`explore --timeout 90` outlived a server's 20 s limit (issue #37): the client's limit is
    now bounded by the server's own, on both backends (15 minutes by default)."""
    server_ms = graph.server_timeout_ms()
    assert server_ms == 900_000
    app = explorer(graph, tmp_path, timeout_ms=3_600_000)
    assert app.timeout_ms() == server_ms
    assert app.info()["timeout_ms"] == server_ms
    assert explorer(graph, tmp_path, timeout_ms=5_000).timeout_ms() == 5_000


@pytest.mark.parametrize(
    "write",
    [
        "CREATE (:Paper {id: ' padded'})",
        "CREATE (:Paper {id: ''})",
        "MATCH (p:Paper {id: 'p3'}) SET p.id = 'p3 '",
        "CREATE (:Paper {id: '" + "k" * 5000 + "'})",
    ],
    ids=["space-led", "empty", "set-padded", "over-4096-bytes"],
)
def test_a_users_write_of_an_odd_key_leaves_the_server_up(graph: GraphStore, write: str) -> None:
    """FalkorDB's unique-constraint check segfaulted on a key with surrounding whitespace, an
    empty one or one over 4,096 bytes, whoever wrote it: keys are indexes on the embedded
    store now, so a user's own write of one is stored (Neo4j may refuse a key too large for
    its index) and the server answers afterwards."""
    try:
        graph.explore(write, allow_writes=True)
    except CypherError:
        assert not isinstance(graph, FalkorDBStore)  # Neo4j may refuse a key it cannot index
    assert graph.run("MATCH (p:Paper) WHERE p.title IS NOT NULL RETURN count(p) AS n") == [{"n": 3}]


def test_a_users_write_that_repeats_a_key_is_warned_or_refused(graph: GraphStore) -> None:
    """Two nodes sharing a key break every look-up by id. The managed Neo4j's constraint
    refuses the write; the embedded store, whose keys are indexes (its constraint crashed the
    server), runs it and says which id is now shared; a write that sets no key scans nothing."""
    graph.apply_schema()
    duplicate = "CREATE (:Paper {id: 'p1', title: 'again'})"
    if not isinstance(graph, FalkorDBStore):
        with pytest.raises(CypherError):
            graph.explore(duplicate, allow_writes=True)
        return
    result = graph.explore(duplicate, allow_writes=True)
    assert len(result.warnings) == 1
    assert "2 :Paper nodes now share the id 'p1'" in result.warnings[0]
    # a write that sets no key is not followed by a scan (the shared id is still there)
    assert graph.explore("MATCH (p:Paper {id: 'p2'}) SET p.title = 'B2'", allow_writes=True
                         ).warnings == []  # fmt: skip
    graph.run("MATCH (p:Paper {title: 'again'}) DELETE p")
    assert graph.explore("MATCH (p:Paper {id: 'p2'}) SET p.id = 'p2'", allow_writes=True
                         ).warnings == []  # fmt: skip

"""The hostile-query suite (issue #37): what a hostile or mistaken user types, on both backends,
through the read-only explorer and through ``scholarkg cypher``, live.

Every query must be answered (refused, stopped, cut short, or run) within its time limit plus
5 s; afterwards the server still has its pid, or is back (restarted by scholarkg) with the
same counts; ``RETURN 1`` answers within 2 s; nothing was created (nodes, relationships,
indexes, GDS graphs); on Neo4j, no thread dump (the guard's look at a thread) held every thread
for 200 ms or more. A second client queries the same store the whole time and must get
right answers (it may see the one restart of its server fail).

The default suite runs one query of each kind (:data:`FAST`); the rest are marked slow and run
in CI with ``make test-marked``. The embedded server here is a persistent one of its own
(scholarkg restarts only a server that keeps its files), with a 4 GiB memory limit.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _jvm_pauses as jvm_pauses
import pytest

from scholarkg.errors import CypherError, QueryLimitExceeded, ScholarKGError
from scholarkg.explorer.app import Explorer, ExplorerConfig
from scholarkg.explorer.guard import QueryRefused
from scholarkg.store.base import GraphStore
from scholarkg.store.cypher_text import QueryTooComplex

#: the explorer's time limit here, and `scholarkg cypher --timeout`
LIMIT_S = 1.0
GRAPH = "hostile"


def _nest(depth: int, open_: str = "(", close: str = ")") -> str:
    return open_ * depth + "1" + close * depth


def _nested_list(depth: int) -> list[Any]:
    value: list[Any] = [1]
    for _ in range(depth - 1):
        value = [value]
    return value


@dataclass(frozen=True)
class Hostile:
    id: str
    query: str
    #: what may come of it, per backend (default: within the limits, any outcome for what
    #: tests a limit, a refusal or the server's own error for what tests the guard)
    may: dict[str, frozenset[str]] = field(default_factory=dict)
    params: dict[str, Any] = field(default_factory=dict)
    #: also through ``scholarkg cypher`` (which allows writes: not the side-effecting ones)
    cypher: bool = True
    #: the backends it runs on
    backends: tuple[str, ...] = ("embedded", "neo4j")
    #: on Neo4j, only a server whose guard can stop a query survives it (the launcher's
    #: ServerGuard on Java 17; docs/backends.md, Security): skipped on another
    needs_guard: bool = False

    def outcomes(self, backend: str) -> frozenset[str]:
        if backend in self.may:
            return self.may[backend]
        return ANY if self.cypher else frozenset({"refused", "error"})


ANY = frozenset({"refused", "stopped", "cut", "error", "ok"})
PROJECT = "MATCH (n:Paper) WITH gds.graph.project('evil', n, null) AS g RETURN g.graphName"

HOSTILE: list[Hostile] = [
    # -- memory
    Hostile("mem-range-1e10", "UNWIND range(1, 10000000000) AS x RETURN count(x)"),
    Hostile(
        "mem-collect",
        "UNWIND range(1, 10000000) AS x "
        f"WITH collect(toString(x) + '{'x' * 500}') AS big RETURN size(big) AS n",
    ),
    Hostile("mem-one-list", "RETURN size(range(1, 500000000)) AS n"),
    # Neo4j neither times out nor counts memory inside one row: these lists keep growing after
    # the transaction ended and took the whole heap (the JVM died of OutOfMemoryError) until
    # the launcher's guard stopped such rows (docs/backends.md, Security)
    Hostile(
        "mem-reduce-grow",
        "RETURN size(reduce(s = [], x IN range(1, 100000000) | s + x))",
        needs_guard=True,
    ),
    Hostile(
        "mem-reduce-concat-lists",
        "RETURN size(reduce(s = [], x IN range(1, 30000000) | s + [x])) AS n",
        needs_guard=True,
    ),
    Hostile(
        "mem-listcomp-grow",
        "RETURN size([x IN range(1, 100000000) | [x, x, x]]) AS n",
        needs_guard=True,
    ),
    Hostile(
        "mem-range-in-a-variable",
        "WITH range(1, 100000000) AS r RETURN size([x IN r | toString(x)]) AS n",
        needs_guard=True,
    ),
    # -- parser depth and size
    Hostile("depth-parens-100", f"RETURN {_nest(100)} AS x", may={"neo4j": ANY}),
    Hostile("depth-parens-1000", f"RETURN {_nest(1000)} AS x"),
    Hostile("depth-lists-300", f"RETURN {_nest(300, '[', ']')} AS x"),
    Hostile("depth-not-30", "RETURN " + "NOT " * 30 + "true AS x", may={"neo4j": ANY}),
    Hostile(
        "depth-case-20",
        "RETURN " + "CASE WHEN true THEN " * 20 + "1" + " END" * 20 + " AS x",
        may={"neo4j": ANY},
    ),
    Hostile("depth-signs-40", "RETURN " + "- " * 40 + "1 AS x", may={"neo4j": ANY}),
    Hostile("depth-unicode-parens", "RETURN " + "\\u0028" * 400 + "1" + ")" * 400 + " AS x"),
    Hostile(
        "cost-many-nests",
        "RETURN " + ", ".join(f"{_nest(12)} AS a{i}" for i in range(60)),
        may={"neo4j": ANY},
    ),
    Hostile("length-200k", "RETURN 1" + " + 1" * 50_000 + " AS x"),
    Hostile(
        "param-nesting",
        "RETURN size($p) AS n",
        params={"p": _nested_list(24)},
        may={"neo4j": ANY},
        cypher=False,
    ),
    # -- CPU in one row, and across rows
    Hostile(
        "cpu-listcomp",
        "RETURN size([x IN range(1, 20000) | size([y IN range(1, 20000) WHERE y = x])]) AS n",
    ),
    Hostile(
        "cpu-cartesian",
        "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*) AS n",
    ),
    Hostile("cpu-reduce", "RETURN reduce(s = 0, x IN range(1, 200000000) | s + x) AS n"),
    # on a Neo4j without the guard, computes for hours after its transaction ended
    Hostile(
        "cpu-string-grow",
        "RETURN size(reduce(s = '', x IN range(1, 2000000) | s + 'xxxxxxxxxx')) AS n",
    ),
    # -- result size
    Hostile("rows-2m", "UNWIND range(1, 2000000) AS x RETURN x"),
    Hostile("bytes-one-list", "RETURN range(1, 3000000) AS xs"),
    Hostile(
        "bytes-wide-rows",
        "UNWIND range(1, 900) AS x "
        "RETURN x, reduce(s = '', i IN range(1, 2000) | s + 'xxxxxxxxxx') AS pad",
    ),
    Hostile("deep-value", "RETURN reduce(acc = [], x IN range(1, 3000) | [acc]) AS v"),
    # -- side-effecting functions (the read-only explorer only)
    Hostile("fn-gds-project", PROJECT, cypher=False),
    Hostile(
        "fn-unicode-dots", PROJECT.replace("gds.graph.", "gds\\u002Egraph\\u002E"), cypher=False
    ),
    Hostile(
        "fn-backticks",
        PROJECT.replace("gds.graph.project", "`gds`.`graph`.`project`"),
        cypher=False,
    ),
    Hostile(
        "fn-comments",
        PROJECT.replace("gds.graph.project", "gds /* a */ . graph // b\n . project"),
        cypher=False,
    ),
    Hostile(
        "fn-in-a-string-that-ends-early",
        "MATCH (n:Paper) RETURN \"a\\u0022 AS s, gds.graph.project('evil', n, null) AS g //\"",
        cypher=False,
    ),
    Hostile(
        "fn-after-a-comment-that-ends-early",
        "MATCH (n:Paper) RETURN 1 AS s // \\u000a, gds.graph.project('evil', n, null) AS g",
        cypher=False,
    ),
    Hostile(
        "fn-apoc-runs-cypher",
        "RETURN apoc.cypher.runFirstColumnSingle('CREATE (n:Evil) RETURN n', {}) AS n",
        cypher=False,
    ),
    # -- procedures, their aliases and spellings
    Hostile("proc-project", "CALL gds.graph.project('evil', 'Paper', 'CITES')", cypher=False),
    Hostile(
        "proc-project-cypher",
        "CALL gds.graph.project.cypher('evil', 'MATCH (n) RETURN id(n) AS id', "
        "'MATCH (a)-->(b) RETURN id(a) AS source, id(b) AS target')",
        cypher=False,
    ),
    Hostile(
        "proc-beta-subgraph",
        "CALL gds.beta.graph.project.subgraph('evil', 'g', '*', '*')",
        cypher=False,
    ),
    Hostile(
        "proc-unicode-dots",
        "CALL db\\u002Eidx\\u002Efulltext\\u002EcreateNodeIndex('Paper', 'title')",
        cypher=False,
    ),
    Hostile("proc-one-backtick-name", "CALL `db.idx.fulltext.drop`('Paper')", cypher=False),
    Hostile(
        "proc-upper-case", "CALL DB.IDX.FULLTEXT.CREATENODEINDEX('Paper', 'title')", cypher=False
    ),
    Hostile(
        "proc-behind-a-quoted-backtick",
        "WITH 1 AS `'` CALL db.idx.fulltext.drop('Paper') RETURN 1 AS `'`",
        cypher=False,
    ),
    Hostile("proc-list-config", "CALL dbms.listConfig() YIELD name RETURN name", cypher=False),
    Hostile("show-settings", "SHOW SETTINGS YIELD name RETURN name", cypher=False),
    Hostile("show-transactions", "SHOW TRANSACTIONS YIELD transactionId RETURN 1", cypher=False),
    Hostile("terminate-transactions", "TERMINATE TRANSACTIONS 'neo4j-transaction-1'", cypher=False),
    Hostile(
        "load-csv-unicode-space",
        "LOAD\\u0020CSV FROM 'file:///etc/passwd' AS row RETURN row",
        cypher=False,
    ),
]

#: one of each kind: the default suite (the rest are marked slow)
FAST = {
    "mem-range-1e10",
    "mem-reduce-grow",
    "depth-parens-1000",
    "cpu-listcomp",
    "rows-2m",
    "fn-unicode-dots",
    "proc-one-backtick-name",
    "show-settings",
}


def test_the_suite_has_at_least_thirty_queries() -> None:
    assert len(HOSTILE) >= 30
    assert len({h.id for h in HOSTILE}) == len(HOSTILE)


#: of those, through ``scholarkg cypher`` in the default suite (the explorer's path is the same
#: store call; the CLI adds its options and output)
FAST_CYPHER = {"mem-range-1e10", "mem-reduce-grow", "depth-parens-1000", "rows-2m"}


def _cases(path: str) -> list[Any]:
    out = []
    fast = FAST if path == "explorer" else FAST_CYPHER
    for backend in ("embedded", "neo4j"):
        for h in HOSTILE:
            if (path == "cypher" and not h.cypher) or backend not in h.backends:
                continue
            marks = [] if h.id in fast else [pytest.mark.slow]
            out.append(pytest.param(backend, h, id=f"{backend}-{h.id}", marks=marks))
    return out


# -- the stores under attack -------------------------------------------------------------


@dataclass
class Target:
    """A store with a small graph, what to compare after each query, and its second client."""

    backend: str
    store: GraphStore
    second: GraphStore
    pid: Any
    #: on Neo4j: the server's guard can stop a query (see Hostile.needs_guard)
    guarded: bool = True
    #: the server's own log (the managed Neo4j's launcher.log: the guard's lines), if any
    log: Path | None = None
    #: … and its JVM's log of collections and safepoints (jvm-pauses.log), if any
    pauses: Path | None = None
    #: where that log was when the test began: what was logged since is the test's
    pauses_from: jvm_pauses.Mark = None
    baseline: dict[str, Any] = field(default_factory=dict)
    answers: list[tuple[float, object]] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)

    def snapshot(self) -> dict[str, Any]:
        counts = self.store.counts()
        snap: dict[str, Any] = {
            "nodes": counts.nodes,
            "relationships": counts.relationships,
            "indexes": sorted(str(sorted(r.items())) for r in self.store.explore_indexes()),
        }
        if self.backend == "neo4j":
            snap["gds graphs"] = self.store.run(
                "CALL gds.graph.list() YIELD graphName RETURN count(*) AS n"
            )
        return snap


def _second_client(target: Target) -> None:
    """Query the store the whole time from another connection; record what came back."""
    while not target.stop.is_set():
        try:
            rows = target.second.run("MATCH (p:Paper) RETURN count(p) AS n")
            target.answers.append((time.monotonic(), rows[0]["n"]))
        except ScholarKGError as err:
            target.answers.append((time.monotonic(), err))
        time.sleep(0.1)


def _fill(store: GraphStore) -> None:
    store.run(
        "CREATE (a:Paper {id: 'p1', title: 'A'}), (b:Paper {id: 'p2', title: 'B'}), "
        "(c:Paper {id: 'p3', title: 'C'}), (a)-[:CITES]->(b), (b)-[:CITES]->(c)"
    )


@pytest.fixture(scope="module")
def embedded_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Target]:
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    server = EmbeddedServer(tmp_path_factory.mktemp("hostile"), memory=4 << 30)
    server.start()
    store = FalkorDBStore(server.connect(), GRAPH, server=server)
    second = FalkorDBStore(server.connect(), GRAPH, server=server)
    _fill(store)
    target = Target("embedded", store, second, pid=server.pid)
    yield from _with_second_client(target)
    store.close()
    second.close()
    server.stop(compact=False)


@pytest.fixture(scope="module")
def neo4j_target(neo4j_env: Any, request: pytest.FixtureRequest) -> Iterator[Target]:
    from scholarkg.store.neo4j import dialect
    from scholarkg.store.neo4j.store import Neo4jStore

    store = Neo4jStore.from_settings(neo4j_env)
    second = Neo4jStore.from_settings(neo4j_env)
    store.run(dialect.DELETE_ALL)
    _fill(store)
    # the session's managed server, from the root conftest (none: an external server)
    root = next(
        p
        for p in request.config.pluginmanager.get_plugins()
        if str(getattr(p, "__file__", "")).endswith(f"tests{os.sep}conftest.py")
    )
    managed = root._MANAGED_NEO4J.get("server")
    target = Target(
        "neo4j",
        store,
        second,
        pid=lambda: managed.status().pid if managed else 0,
        guarded=bool(managed and managed.guard_stops_queries()),
        log=managed.log_file if managed else None,
        pauses=managed.pause_log_file if managed else None,
    )
    yield from _with_second_client(target)
    store.run(dialect.DELETE_ALL)
    store.close()
    second.close()


def _with_second_client(target: Target) -> Iterator[Target]:
    target.baseline = target.snapshot()
    thread = threading.Thread(target=_second_client, args=(target,), daemon=True)
    thread.start()
    try:
        yield target
    finally:
        # the last query may have restarted the server: the second client gets its answers
        # again within seconds (it is asked after the restart, not during it)
        end = time.monotonic()
        deadline = end + 15
        while time.monotonic() < deadline and not any(
            t > end and not isinstance(v, Exception) for t, v in list(target.answers)
        ):
            time.sleep(0.1)
        target.stop.set()
        thread.join(timeout=10)
    # the second client got only right answers, and the last ones were answers
    values = [v for _, v in target.answers]
    assert values, "the second client never got to ask"
    assert {v for v in values if not isinstance(v, Exception)} <= {3}
    assert not isinstance(values[-1], Exception), values[-1]


@pytest.fixture
def target(request: pytest.FixtureRequest, backend: str) -> Target:
    name = "embedded_target" if backend == "embedded" else "neo4j_target"
    value: Target = request.getfixturevalue(name)
    value.pauses_from = jvm_pauses.mark(value.pauses) if value.pauses is not None else None
    return value


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- running one query and checking the store after it -----------------------------------


def _outcome(run: Any) -> tuple[str, str]:
    """(refused | stopped | cut | error | ok, message) of running ``run()``."""
    try:
        result = run()
    except (QueryRefused, QueryTooComplex) as err:
        return "refused", str(err)
    except QueryLimitExceeded as err:
        return "stopped", str(err)
    except CypherError as err:
        return "error", str(err)
    truncated = result.get("truncated") if isinstance(result, dict) else None
    return ("cut" if truncated else "ok"), str(result)[:200]


#: seconds within which ``RETURN 1`` answers after a hostile query, on both backends. On Neo4j
#: this holds after a row that grows a list of gigabytes too (``needs_guard``) because the
#: managed server bounds its young generation (``DEFAULT_MAX_YOUNG`` in store/neo4j/server.py):
#: with the collector's own sizing, one pause copying that live list held every client for
#: 4-5 s in 2 of ~5 full suites on 2 cores (docs/backends.md, Security)
ANSWER_AFTER_S = 2.0


#: a collection or safepoint that held every thread this long is named in a failure
LONG_PAUSE_MS = 300.0


def _what_the_server_said(target: Target) -> str:
    """The server's last guard lines, its JVM's last long pauses and the second client's last
    answers: why it was slow (a str, so pytest shows all of it, not a shortened repr)."""
    said = ""
    if target.log is not None and target.log.exists():
        lines = target.log.read_text(errors="replace").splitlines()
        said = "\n".join(line for line in lines if "SCHOLARKG-GUARD" in line)[-1500:]
    if target.pauses is not None:
        logged = jvm_pauses.since(target.pauses, target.pauses_from)
        long = [line for line in logged.splitlines() if jvm_pauses.held_ms(line) >= LONG_PAUSE_MS]
        said += "\nthe JVM's long pauses in this test:\n" + "\n".join(long[-8:])
    return f"{said}\nsecond client: {target.answers[-6:]}"


#: the longest the Neo4j guard's look at one thread may hold every thread (``Safepoint
#: "ThreadDump"``, time at the safepoint): a stack walk takes milliseconds. Asking for the
#: thread's ``java.util.concurrent`` locks too walked the whole heap, full of the grower's
#: objects just then: 0.3-0.8 s after each memory grower here (now at most 7 ms; the bound
#: leaves a slower machine room)
THREAD_DUMP_MS = 200.0


def _skip_unguarded(target: Target, hostile: Hostile) -> None:
    if hostile.needs_guard and not target.guarded:
        pytest.skip(
            "this Neo4j's guard cannot stop a query (an external server, or a Java without "
            "Thread.stop0): the query would take its whole heap"
        )


def _check_after(target: Target, hostile: Hostile, outcome: str, message: str, took: float) -> None:
    assert outcome in hostile.outcomes(target.backend), (hostile.id, outcome, message)
    assert took <= LIMIT_S + 5 + (2 if "restarted" in message or "started it" in message else 0), (
        hostile.id,
        took,
        message,
    )
    t0 = time.monotonic()
    assert target.store.run("RETURN 1 AS x") == [{"x": 1}]
    answered = time.monotonic() - t0
    assert answered < ANSWER_AFTER_S, (
        f"{hostile.id}: RETURN 1 answered after {answered:.1f} s\n{_what_the_server_said(target)}"
    )
    assert target.pid() is not None
    assert target.snapshot() == target.baseline, hostile.id
    dumps = (
        jvm_pauses.thread_dumps_ms(jvm_pauses.since(target.pauses, target.pauses_from))
        if target.pauses is not None
        else []
    )
    assert max(dumps, default=0.0) < THREAD_DUMP_MS, (
        f"{hostile.id}: a thread dump held every client for {max(dumps):.0f} ms"
    )


@pytest.mark.parametrize(("backend", "hostile"), _cases("explorer"), indirect=["backend"])
def test_through_the_explorer(target: Target, hostile: Hostile, tmp_path: Path) -> None:
    _skip_unguarded(target, hostile)
    app = Explorer(target.store, tmp_path / "runs", ExplorerConfig(timeout_ms=int(LIMIT_S * 1000)))
    pid = target.pid()
    t0 = time.monotonic()
    outcome, message = _outcome(lambda: app.query(hostile.query, hostile.params or None))
    took = time.monotonic() - t0
    if target.pid() != pid:  # restarted: it must say so
        assert "restarted" in message or "started it again" in message, message
    _check_after(target, hostile, outcome, message, took)


@pytest.mark.parametrize(("backend", "hostile"), _cases("cypher"), indirect=["backend"])
def test_through_scholarkg_cypher(
    target: Target, hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    from _cli import runner

    from scholarkg.cli import app

    _skip_unguarded(target, hostile)
    if target.backend == "embedded":
        server = target.store._server  # type: ignore[attr-defined]  # the store's own server
        monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(server.data_dir))
        monkeypatch.setenv("SCHOLARKG_BACKEND", "embedded")
    else:
        monkeypatch.setenv("SCHOLARKG_BACKEND", "neo4j")
    monkeypatch.setenv("SCHOLARKG_GRAPH", GRAPH if target.backend == "embedded" else "neo4j")
    t0 = time.monotonic()
    result = runner.invoke(
        app, ["cypher", hostile.query, "--timeout", str(LIMIT_S), "--format", "json"]
    )
    took = time.monotonic() - t0
    err = result.exception
    if err is None:
        outcome = "cut" if "only the first" in result.output else "ok"
        message = result.output[-300:]
    else:
        outcome, message = _outcome(lambda: (_ for _ in ()).throw(err))
    _check_after(target, hostile, outcome, message, took)

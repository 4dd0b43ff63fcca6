"""Shared fixtures: one real embedded FalkorDB server per test session, one graph per test.

Why a real server: the store layer's whole job is to speak FalkorDB's dialect correctly,
which no mock can check. One ephemeral server (no AOF, no RDB) keeps the suite fast;
a unique graph key per test keeps tests independent; ``GRAPH.DELETE`` cleans up.

``SCHOLARKG_HOME`` / ``SCHOLARKG_DATA_DIR`` point at the session's temp dirs for the whole
run, so CLI commands invoked in-process (typer's ``CliRunner``) find the same server and
never touch the user's real data.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from _tiers import MARKED_TIER_TESTS, NEO4J_RUNS_IN_MARKED_TIER

from scholarkg import console as _console
from scholarkg.config import Neo4jSettings, Settings, load_settings
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.neo4j.server import ManagedNeo4j

if TYPE_CHECKING:
    from scholarkg.store.neo4j.store import Neo4jStore

# The tests read the CLI's output as data (a table row per line, a message on one line); a
# user's piped output is 100 columns wide (``scholarkg.console``), which would fold them.
# Widened on the two consoles themselves: COLUMNS would widen pytest's own output too.
_console.console.width = 1000
_console.err_console.width = 1000
# typer's CliRunner mixes stderr into the output the tests parse (a JSON document, a table),
# and a command's progress lines go to stderr in a pipe: the in-process CLI runs without
# them. The progress tests (tests/core/test_progress.py) turn them on, through the real CLI.
os.environ[_console.PROGRESS_ENV] = "off"


def _command_built_once() -> None:
    """typer's ``CliRunner.invoke`` builds the whole click command tree from the ``Typer`` app
    on every call (``typer.main.get_command``: every command's signature and type hints read
    again), 0.12 s an invocation, and the suite invokes the CLI in-process over a thousand
    times. The tree depends only on the app, so each app's is built once per process (the
    commands' functions look their helpers up when they run: a test's monkeypatch of a helper
    still takes). The installed CLI builds it once per process too. A ``Typer`` hashes by
    identity, and the cache keeps each app alive, so an app is never mistaken for another."""
    import functools

    import typer.main
    import typer.testing

    build = typer.main.get_command
    # the name the runner calls it by: a typer that renamed it must fail here, not go slow
    assert vars(typer.testing).get("_get_command") is build, "typer.testing changed"
    vars(typer.testing)["_get_command"] = functools.cache(build)


_command_built_once()


#: The tiers (``pytest -m unit``, ``-m embedded``, ``-m neo4j``; docs/contributing.md). A test's
#: tier is read off the fixtures it uses: these reach the session's embedded FalkorDB (all the
#: store fixtures are built on ``embedded_server``; ``any_store`` and ``getfixturevalue`` pick a
#: store at run time, which the fixture closure cannot see) ...
EMBEDDED_FIXTURES = frozenset({"embedded_server", "any_store"})
#: ... and these the session's Neo4j
NEO4J_FIXTURES = frozenset({"neo4j_env"})
TIERS = ("unit", "embedded", "neo4j")


def tier_of(item: pytest.Item) -> str:
    """``neo4j``, ``embedded`` or ``unit`` (no server). The fixtures decide, or a store chosen
    by parameter (``any_store[neo4j]``: the suite's backend parameters are named
    ``embedded`` and ``neo4j``), or a tier mark the test sets itself (a test that starts its
    own server, or picks a store fixture by another name at run time, says so); Neo4j first,
    as a test that uses both needs both."""
    names = set(getattr(item, "fixturenames", ()))
    spec = getattr(item, "callspec", None)
    params = {str(v) for v in spec.params.values()} if spec is not None else set()
    if (
        item.get_closest_marker("neo4j")
        or names & NEO4J_FIXTURES
        or "neo4j" in params
        or "neo4j" in item.nodeid.lower()
    ):
        return "neo4j"
    if item.get_closest_marker("embedded") or names & EMBEDDED_FIXTURES or "embedded" in params:
        return "embedded"
    return "unit"


def pytest_itemcollected(item: pytest.Item) -> None:
    """Each test gets its tier mark (:func:`tier_of`). Under pytest-xdist (``make test`` runs
    two workers), every test that talks to the session's Neo4j goes to one worker: the
    database is one per server, and tests clear it, so two workers sharing it would wipe each
    other's data. ``--dist loadgroup`` keeps each ``xdist_group`` on one worker; the embedded
    tests spread over both (each worker has its own FalkorDB server, SCHOLARKG_HOME and temp
    dirs). Marked here, as each item is collected: xdist reads the marks in its own
    ``pytest_collection_modifyitems``."""
    tier = tier_of(item)
    if item.nodeid in MARKED_TIER_TESTS:
        item.add_marker(pytest.mark.slow)  # the default suite's budget: tests/_tiers.py
    if tier == "unit" and (item.get_closest_marker("slow") or item.get_closest_marker("model")):
        return  # slow and model tests are tiers of their own: the unit tier is quick
    if item.get_closest_marker(tier) is None:
        item.add_marker(getattr(pytest.mark, tier))
    if tier == "neo4j":
        item.add_marker(pytest.mark.xdist_group("neo4j"))
        if item.nodeid.split("::")[0] in NEO4J_RUNS_IN_MARKED_TIER:
            item.add_marker(pytest.mark.slow)  # the default suite's budget: tests/_tiers.py


@pytest.fixture(autouse=True)
def _unit_tier_reaches_no_server(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unit tier's promise, checked rather than trusted: in a test marked ``unit``,
    starting, finding or connecting to a server (embedded FalkorDB or Neo4j, however the code
    gets there: a fixture, ``open_store``, the CLI in-process) fails the test, naming the fix.
    Not seen: a server reached from a subprocess the test starts."""
    if request.node.get_closest_marker("unit") is None:
        return
    from scholarkg.store.neo4j.store import Neo4jStore

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError(
            f"{request.node.nodeid} is in the unit tier (no server) but reached a server: "
            "use a store fixture, or mark it embedded / neo4j (tests/conftest.py, tier_of)"
        )

    for cls, names in (
        (EmbeddedServer, ("start", "ensure_running", "connect")),
        (ManagedNeo4j, ("start", "ensure_running")),
        (FalkorDBStore, ("from_settings",)),
        (Neo4jStore, ("from_settings",)),  # a store around a test's fake driver is no server
    ):
        for name in names:
            monkeypatch.setattr(cls, name, refuse)


@pytest.fixture(scope="session")
def scholarkg_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A throwaway ``SCHOLARKG_HOME`` (+ data dir) for the whole session."""
    home = tmp_path_factory.mktemp("skghome")
    mp = pytest.MonkeyPatch()
    mp.setenv("SCHOLARKG_HOME", str(home))
    mp.setenv("SCHOLARKG_DATA_DIR", str(home / "falkordb"))
    mp.setenv("HF_HUB_OFFLINE", "1")
    for var in ("SCHOLARKG_CONFIG", "SCHOLARKG_BACKEND", "SCHOLARKG_GRAPH"):
        mp.delenv(var, raising=False)
    yield home
    mp.undo()


@pytest.fixture(scope="session")
def embedded_server(scholarkg_home: Path) -> Iterator[EmbeddedServer]:
    """The session's ephemeral server (stopped at the end, and at exit if pytest dies)."""
    server = EmbeddedServer(Path(os.environ["SCHOLARKG_DATA_DIR"]), persistent=False)
    with server:
        yield server


@pytest.fixture
def settings(scholarkg_home: Path, embedded_server: EmbeddedServer) -> Settings:
    """Settings resolved from the session environment (embedded backend, temp home)."""
    return load_settings()


@pytest.fixture
def graph_name() -> str:
    return f"t_{uuid.uuid4().hex[:12]}"


@pytest.fixture
def store(embedded_server: EmbeddedServer, graph_name: str) -> Iterator[FalkorDBStore]:
    """A FalkorDBStore on a fresh graph (schema not applied); deleted after the test."""
    st = FalkorDBStore(embedded_server.connect(), graph_name)
    try:
        yield st
    finally:
        st.clear()
        st.close()


@pytest.fixture(scope="module")
def module_store(embedded_server: EmbeddedServer) -> Iterator[FalkorDBStore]:
    """One fresh graph for a whole test module: for data that tests only read, loaded once
    by a module-scoped fixture instead of once per test (a test that writes takes ``store``)."""
    st = FalkorDBStore(embedded_server.connect(), f"m_{uuid.uuid4().hex[:12]}")
    try:
        yield st
    finally:
        st.clear()
        st.close()


@pytest.fixture
def graph_env(
    monkeypatch: pytest.MonkeyPatch, settings: Settings, graph_name: str
) -> Iterator[str]:
    """Point the in-process CLI at a fresh graph on the session server; delete it afterwards."""
    from _cli import runner

    from scholarkg.cli import app

    monkeypatch.setenv("SCHOLARKG_GRAPH", graph_name)
    yield graph_name
    runner.invoke(app, ["db", "reset", "--yes"])


#: the ``GraphStore`` contract runs on every backend available: "embedded" always, "neo4j"
#: on the managed Neo4j (Java present) or the server at ``NEO4J_URI``; see neo4j_env
CONTRACT_BACKENDS = ["embedded", "neo4j"]


@pytest.fixture(scope="session")
def neo4j_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Neo4jSettings]:
    """A live Neo4j + GDS for the session, exported as ``NEO4J_URI``/``NEO4J_PASSWORD``.

    ``NEO4J_URI`` set: that server (docker compose, Aura). Otherwise the project's managed
    server: the one running under ``$SCHOLARKG_TEST_NEO4J_HOME`` is reused (and left running),
    else one is started in a temp dir for this session and stopped at its end. Without Java
    the Neo4j tests skip, saying why.
    """
    from scholarkg.store.neo4j.server import java_available

    mp = pytest.MonkeyPatch()
    server: ManagedNeo4j | None = None
    if not os.environ.get("NEO4J_URI"):
        reason = java_available()
        if reason:
            pytest.skip(f"neo4j tests skipped: NEO4J_URI is not set and {reason}")
        reuse = os.environ.get("SCHOLARKG_TEST_NEO4J_HOME")
        home = Path(reuse) if reuse else tmp_path_factory.mktemp("neo4j")
        _claim_for_this_session(home)
        server = ManagedNeo4j(home)
        keep_running = bool(reuse) and server.status(details=False).state == "running"
        server.ensure_running()
        _MANAGED_NEO4J["server"] = server
        mp.setenv("NEO4J_URI", server.uri() or "")
        mp.setenv("NEO4J_USER", "neo4j")
        mp.setenv("NEO4J_PASSWORD", server.password())
        mp.delenv("NEO4J_DATABASE", raising=False)
        if keep_running:
            server = None
    try:
        yield load_settings().neo4j
    finally:
        mp.undo()
        if server is not None:
            server.stop()


def _claim_for_this_session(home: Path) -> None:
    """Hold an exclusive lock on the Neo4j home for the rest of this process.

    Tests clear the one database a Neo4j server has, so two pytest processes (two xdist
    workers, or two suites run at once) sharing it would wipe each other's data and fail
    in ways that look like bugs. The lock turns that into one clear error instead; it is
    released when the process exits."""
    import fcntl

    handle = (home.parent / f".{home.name}.test-session.lock").open("w")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        pytest.fail(
            f"another pytest process is using the Neo4j at {home}: the Neo4j tests must run "
            "in one process (under xdist, on one worker: the xdist_group set in "
            "pytest_itemcollected did not take effect — see pyproject.toml's pytest pin)",
            pytrace=False,
        )
    _SESSION_LOCKS.append(handle)


#: the open lock files of _claim_for_this_session, kept open (and locked) until exit
_SESSION_LOCKS: list[object] = []

#: the session's managed server (absent when NEO4J_URI names an external one)
_MANAGED_NEO4J: dict[str, ManagedNeo4j] = {}


@pytest.fixture
def managed_neo4j(neo4j_env: Neo4jSettings) -> ManagedNeo4j:
    """The session's managed Neo4j (skipped when the session uses an external server)."""
    if "server" not in _MANAGED_NEO4J:
        pytest.skip("the session's Neo4j is an external server (NEO4J_URI)")
    return _MANAGED_NEO4J["server"]


@pytest.fixture
def neo4j_store(neo4j_env: Neo4jSettings) -> Iterator[GraphStore]:
    """An empty Neo4j database (see ``neo4j_env``) that may already hold the default schema.

    Why not ``clear()`` (which also drops every constraint and index) around each test:
    dropping and re-creating the default schema's ~50 constraints and indexes costs about
    2 s per test on Neo4j, most of the time of the tests that load a family. So the schema
    a previous test applied is kept, and what any test added beside it is dropped: a test
    starts with no data, no GDS projection of ours and at most the default schema, and its
    own ``apply_schema()`` then finds it in place. A test that needs no schema at all
    clears the store itself (``st.clear()``)."""
    from scholarkg.store.neo4j.store import Neo4jStore

    st = Neo4jStore.from_settings(neo4j_env)
    _empty_keeping_the_default_schema(st)
    try:
        yield st
    finally:
        _empty_keeping_the_default_schema(st)
        st.close()


def _empty_keeping_the_default_schema(st: Neo4jStore) -> None:
    """Delete the data and our GDS projections; drop any constraint or index that is not
    one of the default schema's (a test's own, or a changed definition)."""
    from scholarkg.store.neo4j import dialect

    if st.gds is not None:
        for name in st.gds.projected_graphs("scholarkg_"):
            st.gds.drop_projected(name)
    # in batches, as the store's own clear: a test's data is small, but a developer's test
    # server may hold what a benchmark loaded into it (one transaction over 470k
    # relationships passes Neo4j's 512 MiB transaction limit and every Neo4j test errors)
    st.run(dialect.DELETE_ALL)
    wanted = _default_schema_definitions(st)
    for row in st.run(_SHOW_CONSTRAINTS):
        if _definition(row) != wanted.get(row["name"]):
            st.run(dialect.DROP_CONSTRAINT, {"name": row["name"]})
    for row in st.run(_SHOW_INDEXES):
        if row["owningConstraint"] is None and _definition(row) != wanted.get(row["name"]):
            st.run(dialect.DROP_INDEX, {"name": row["name"]})


_SHOW_CONSTRAINTS = "SHOW CONSTRAINTS YIELD name, labelsOrTypes, properties, type, options"
_SHOW_INDEXES = (
    "SHOW INDEXES YIELD name, labelsOrTypes, properties, type, options, owningConstraint"
)


def _definition(row: dict[str, Any]) -> tuple[object, ...]:
    return (row["labelsOrTypes"], row["properties"], row["type"], json.dumps(row["options"],
            sort_keys=True, default=str))  # fmt: skip


#: the default schema's constraints and indexes as Neo4j shows them (name -> labels,
#: properties, type), read once per session from a database where only it was applied
_DEFAULT_SCHEMA: dict[str, tuple[object, ...]] = {}


def _default_schema_definitions(st: Neo4jStore) -> dict[str, tuple[object, ...]]:
    if not _DEFAULT_SCHEMA:
        st.clear()
        st.apply_schema()
        for query in (_SHOW_CONSTRAINTS, _SHOW_INDEXES):
            for row in st.run(query):
                _DEFAULT_SCHEMA[row["name"]] = _definition(row)
    return _DEFAULT_SCHEMA


@pytest.fixture(params=CONTRACT_BACKENDS)
def any_store(request: pytest.FixtureRequest) -> GraphStore:
    """The embedded test store, or a cleared Neo4j database (skipped without Neo4j)."""
    name = "store" if request.param == "embedded" else "neo4j_store"
    store: GraphStore = request.getfixturevalue(name)
    return store

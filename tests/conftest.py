"""Shared fixtures: one real embedded FalkorDB server per test session, one graph per test.

Why a real server: the store layer's whole job is to speak FalkorDB's dialect correctly,
which no mock can check. One ephemeral server (no AOF, no RDB) keeps the suite fast;
a unique graph key per test keeps tests independent; ``GRAPH.DELETE`` cleans up.

``SCHOLARKG_HOME`` / ``SCHOLARKG_DATA_DIR`` point at the session's temp dirs for the whole
run, so CLI commands invoked in-process (typer's ``CliRunner``) find the same server and
never touch the user's real data.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarkg.config import Settings, load_settings
from scholarkg.store.base import GraphStore
from scholarkg.store.embedded import EmbeddedServer
from scholarkg.store.falkordb_store import FalkorDBStore


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
#: when ``NEO4J_URI`` is set (``docker compose up``); see tests/store/test_contract.py
CONTRACT_BACKENDS = ["embedded", "neo4j"]


@pytest.fixture
def neo4j_store() -> Iterator[GraphStore]:
    """A cleared Neo4j database at ``NEO4J_URI`` (skipped without it), cleared again after."""
    if not os.environ.get("NEO4J_URI"):
        pytest.skip("neo4j contract run skipped: NEO4J_URI is not set")
    from scholarkg.store.neo4j_store import Neo4jStore

    st = Neo4jStore.from_settings(load_settings().neo4j)
    st.clear()
    try:
        yield st
    finally:
        st.clear()
        st.close()


@pytest.fixture(params=CONTRACT_BACKENDS)
def any_store(request: pytest.FixtureRequest) -> GraphStore:
    """The embedded test store, or a cleared Neo4j database (skipped without NEO4J_URI)."""
    name = "store" if request.param == "embedded" else "neo4j_store"
    return request.getfixturevalue(name)

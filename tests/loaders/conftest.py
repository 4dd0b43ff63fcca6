"""Fixtures of the loader tests that drive the in-process CLI on either backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholarkg.store.base import GraphStore


@pytest.fixture(params=["embedded", "neo4j"])
def cli_store(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[GraphStore]:
    """A cleared store the in-process CLI writes to (the embedded test graph, or Neo4j).
    Afterwards ``db reset``: the graph goes and so do the load checkpoints the test's loads
    left (on Neo4j they are scoped by the one database, so a later test that counts the
    checkpoints a reset forgets would count these too)."""
    from _cli import runner

    from scholarkg.cli import app

    if request.param == "embedded":
        request.getfixturevalue("graph_env")  # resets the test graph itself afterwards
        store: GraphStore = request.getfixturevalue("store")
        yield store
        return
    store = request.getfixturevalue("neo4j_store")
    request.getfixturevalue("settings")
    monkeypatch.setenv("SCHOLARKG_BACKEND", "neo4j")
    yield store
    runner.invoke(app, ["db", "reset", "--yes"])

"""Fixtures for ``scholarkg explore``: a small synthetic graph, a run, and live servers.

The graph is the synthetic LEGOBench world loaded by the real CLI (as a user would:
``scholarkg load synthetic-legobench``), once per test module because loading is the slow
part; tests only read it. The explorer servers run in this process on a free loopback
port and are stopped after the module.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarkg.benchmark.runs import RunRegistry, new_run
from scholarkg.explorer.app import Explorer, ExplorerConfig
from scholarkg.explorer.server import ExplorerServer
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

from ._explorer import LEADERBOARDS, PAPERS, Client


@pytest.fixture(scope="module")
def loaded_graph(
    embedded_server: EmbeddedServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A graph with the synthetic world in it (name yielded); deleted after the module."""
    from _cli import cli_ok

    name = f"t_explore_{uuid.uuid4().hex[:8]}"
    out = tmp_path_factory.mktemp("explore-corpus")
    mp = pytest.MonkeyPatch()
    mp.setenv("SCHOLARKG_GRAPH", name)
    try:
        cli_ok(
            [
                "load",
                "synthetic-legobench",
                "--out",
                str(out),
                "--papers",
                str(PAPERS),
                "--leaderboards",
                str(LEADERBOARDS),
            ]
        )
        yield name
    finally:
        mp.undo()
        st = FalkorDBStore(embedded_server.connect(), name)
        st.clear()
        st.close()


@pytest.fixture(scope="module")
def gstore(embedded_server: EmbeddedServer, loaded_graph: str) -> Iterator[FalkorDBStore]:
    st = FalkorDBStore(embedded_server.connect(), loaded_graph)
    try:
        yield st
    finally:
        st.close()


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One recorded run (20 instances) in its own runs directory."""
    path = tmp_path_factory.mktemp("explore-runs")
    per = {f"q{i}": {"ndcg@10": (i % 7) / 7} for i in range(20)}
    run = new_run(
        "toy/explore", metrics={"ndcg@10": 0.4286}, per_instance=per,
        config={"graph": "toy", "configuration": {"dataset": "toy-set"},
                "answer": {"kind": "ranker", "name": "hybrid", "baseline": False, "ours": True}},
    )  # fmt: skip
    RunRegistry(path).save(run)
    return path


def _serve(store: FalkorDBStore, runs: Path, config: ExplorerConfig) -> Iterator[Client]:
    server = ExplorerServer(Explorer(store, runs, config))
    server.start_background()
    try:
        yield Client(server)
    finally:
        server.stop()


@pytest.fixture(scope="module")
def client(gstore: FalkorDBStore, runs_dir: Path) -> Iterator[Client]:
    """A read-only explorer on the loaded graph (row limit 50, timeout 2 s)."""
    yield from _serve(gstore, runs_dir, ExplorerConfig(row_limit=50, timeout_ms=2_000))


@pytest.fixture
def write_client(store: FalkorDBStore, runs_dir: Path) -> Iterator[Client]:
    """An explorer started with ``--allow-writes`` on a fresh, empty graph."""
    yield from _serve(store, runs_dir, ExplorerConfig(allow_writes=True))

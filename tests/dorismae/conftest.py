"""A small synthetic DORIS-MAE world, written in the released v1 schema: loaded once per test
module on the live server, or answered by the recording double."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _fakes import LoadedGraph, RecordingStore

from scholarkg.loaders.dorismae import DorisLoadReport, DorisReader
from scholarkg.loaders.writer import write_records
from scholarkg.store.base import GraphStore
from scholarkg.synthetic.dorismae import SyntheticDoris, write_json, write_subqueries

from ._doris_double import doris_loaded_graph, doris_recording_store


@pytest.fixture(scope="session")
def doris_world() -> SyntheticDoris:
    return SyntheticDoris(n_queries=10, pool_size=24, n_background=30, seed=11)


@pytest.fixture(scope="session")
def doris_file(doris_world: SyntheticDoris, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_json(doris_world, tmp_path_factory.mktemp("doris") / "DORIS-MAE_dataset_v1.json")


@pytest.fixture(scope="session")
def doris_json(doris_file: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(doris_file.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def doris_subquery_file(doris_world: SyntheticDoris, doris_file: Path) -> Path:
    return write_subqueries(doris_world, doris_file.parent / "subquery-2.txt")


def load(store: GraphStore, path: Path, **kw: Any) -> DorisLoadReport:
    report = DorisLoadReport()
    store.apply_schema()
    write_records(store, DorisReader(path, report=report, **kw).records(), batch_size=500)
    return report


@pytest.fixture(scope="module")
def doris_graph(module_store: GraphStore, doris_file: Path) -> GraphStore:
    """The synthetic release loaded once per test module (its tests read it)."""
    load(module_store, doris_file)
    return module_store


@pytest.fixture
def fresh_doris_graph(store: GraphStore, doris_file: Path) -> GraphStore:
    """The same on a graph of the test's own, for a test that adds to it."""
    load(store, doris_file)
    return store


@pytest.fixture(scope="session")
def doris_loaded(doris_file: Path) -> LoadedGraph:
    """The release as a load leaves it, in memory (read once; the doubles only read it)."""
    return doris_loaded_graph(doris_file)


@pytest.fixture
def doris_double(doris_loaded: LoadedGraph, scholarkg_home: Path) -> RecordingStore:
    """The same release on the recording double (the unit tier: the task's Python logic, no
    server), recording afresh for each test; ``test_doris_double.py`` checks its rows against
    ``doris_graph``'s. The session's temp home holds anything a ranker caches."""
    return doris_recording_store(doris_loaded)

"""AAAR fixtures: the synthetic released files loaded into a graph (or answered by the
recording double), and an OpenAI-protocol HTTP server on loopback that answers from a
function of the prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from _fakes import CannedServer, LoadedGraph, RecordingStore

from scholarkg.loaders.writer import write_records
from scholarkg.store.base import GraphStore

from ._aaar_double import aaar_recording_store, aaar_records

FIX = Path(__file__).parent.parent / "fixtures" / "aaar"


@pytest.fixture(scope="module")
def aaar_store(module_store: GraphStore) -> GraphStore:
    """Every fixture layout loaded (EqInfer, ExpDesign, Weakness, ReviewCritique), once per
    test module: the tests read it (runs they record add nodes no task reads back)."""
    return load_aaar(module_store)


@pytest.fixture
def fresh_aaar_store(store: GraphStore) -> GraphStore:
    """The same data on a graph of the test's own, for a test that adds to it."""
    return load_aaar(store)


def load_aaar(store: GraphStore) -> GraphStore:
    store.apply_schema()
    write_records(store, aaar_records(FIX))
    return store


@pytest.fixture(scope="session")
def aaar_graph() -> LoadedGraph:
    """What ``load_aaar`` leaves in a graph, in memory (read once; the doubles only read it)."""
    return LoadedGraph(aaar_records(FIX))


@pytest.fixture
def aaar_double(aaar_graph: LoadedGraph, scholarkg_home: Path) -> RecordingStore:
    """The same data on the recording double (the unit tier: the tasks' prompts, answers and
    scores, no server), recording afresh for each test; ``test_aaar_double.py`` checks its
    rows against ``aaar_store``'s. The session's temp home holds anything a run caches."""
    return aaar_recording_store(aaar_graph)


@pytest.fixture
def canned() -> Callable[[Callable[[str], str]], CannedServer]:
    return CannedServer

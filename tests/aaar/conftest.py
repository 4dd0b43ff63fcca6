"""AAAR fixtures: the synthetic released files loaded into a fresh graph, and an
OpenAI-protocol HTTP server on loopback that answers from a function of the prompt."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from _fakes import CannedServer

from scholarkg.loaders.aaar import aaar_groups, reviewcritique_groups, task_sources
from scholarkg.loaders.writer import write_records
from scholarkg.store.base import GraphStore

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
    records = []
    for task, path in task_sources(FIX):
        records += [r for _, group in aaar_groups(task, path) for r in group]
    records += [
        r for _, group in reviewcritique_groups(FIX / "ReviewCritique.jsonl") for r in group
    ]
    write_records(store, records)
    return store


@pytest.fixture
def canned() -> Callable[[Callable[[str], str]], CannedServer]:
    return CannedServer

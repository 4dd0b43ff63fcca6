"""Shared fixtures of the retrieval tests: the live store the in-process CLI writes to, and
beir-mini on the recording double (the unit tier: the task's Python logic, no server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _fakes import RecordingStore

from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

from ._beir_double import beir_recording_store


@pytest.fixture
def graph(graph_env: str, embedded_server: EmbeddedServer) -> Iterator[FalkorDBStore]:
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    yield st
    st.close()


@pytest.fixture
def mini(scholarkg_home: Path) -> RecordingStore:
    """beir-mini, as ``load beir DIR --name mini`` leaves it, on the recording double (the
    session's temp home holds any vector cache a dense ranker writes)."""
    return beir_recording_store()

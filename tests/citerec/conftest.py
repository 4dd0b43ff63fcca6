"""Shared fixture of the citerec tests: the store on the graph the in-process CLI writes to."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore


@pytest.fixture
def graph(graph_env: str, embedded_server: EmbeddedServer) -> Iterator[FalkorDBStore]:
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    yield st
    st.close()

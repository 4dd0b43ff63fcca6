"""LEGOBench fixtures shared by the RPLM/LGPLM run tests: the synthetic world and its graph.

The world (``tests/fixtures/legobench/lgplm/world.py``: 300 papers with full text, 15
leaderboards, written in the real file formats and loaded with the real loaders) used to be
imported and loaded by a copy of the same block in every test module. Loading is the slow
part, so the graph stays module-scoped: each test module gets its own loaded graph and may
only add ``Run`` nodes to it.
"""

from __future__ import annotations

import importlib.util
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _fakes import LoadedGraph, RecordingStore

from scholarkg.store.falkordb.store import FalkorDBStore

from ._lego_double import lego_loaded_graph, lego_recording_store

_WORLD = Path(__file__).parents[1] / "fixtures" / "legobench" / "lgplm" / "world.py"


def _world_module() -> ModuleType:
    """The world builder; fixtures are not a package, so the file is imported by path."""
    if "lgplm_world" not in sys.modules:
        spec = importlib.util.spec_from_file_location("lgplm_world", _WORLD)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["lgplm_world"] = module
        spec.loader.exec_module(module)
    return sys.modules["lgplm_world"]


@pytest.fixture(scope="session")
def world_mod() -> ModuleType:
    """The world module (``make_world``, ``load_world``, ``N_LEADERBOARDS`` ...)."""
    return _world_module()


@pytest.fixture(scope="module")
def world(world_mod: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The world's files written to a module temp dir."""
    return world_mod.make_world(tmp_path_factory.mktemp("lego-world"))


@pytest.fixture(scope="module")
def wstore(
    embedded_server: Any, world_mod: ModuleType, world: Any, request: pytest.FixtureRequest
) -> Iterator[FalkorDBStore]:
    """One loaded graph per test module; ``WORLD_WITH_RPLM = True`` in the module also loads
    the rplm.xlsx leaderboards (TitleLine entries)."""
    with_rplm = bool(getattr(request.module, "WORLD_WITH_RPLM", False))
    st = FalkorDBStore(embedded_server.connect(), f"t_world_{uuid.uuid4().hex[:8]}")
    world_mod.load_world(st, world, rplm=with_rplm)
    try:
        yield st
    finally:
        st.clear()
        st.close()


@pytest.fixture(scope="module")
def wgraph(world_mod: ModuleType, world: Any, request: pytest.FixtureRequest) -> LoadedGraph:
    """The world as ``wstore`` holds it (``WORLD_WITH_RPLM`` the same way), in memory."""
    return lego_loaded_graph(
        world_mod, world, rplm=bool(getattr(request.module, "WORLD_WITH_RPLM", False))
    )


@pytest.fixture
def wdouble(wgraph: LoadedGraph, scholarkg_home: Path) -> RecordingStore:
    """The same world on the recording double (the unit tier: prompt building, answer import
    and scoring, no server), recording afresh for each test; ``test_lego_double.py`` checks
    its rows against ``wstore``'s. The session's temp home holds the runs a test records."""
    return lego_recording_store(wgraph)

"""A research group's synthetic OpenAlex records loaded the way a user loads them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ._group import group_works, write_group


def load_group(store: Any, path: Path) -> None:
    """``scholarkg load openalex FILE`` into the store's graph (in-process CLI): the works the
    records cite but do not describe become stubs (label ``Stub``), as for a user."""
    from _cli import cli_ok

    backend = "neo4j" if store.backend == "neo4j" else "embedded"
    args = ["--backend", backend, "--graph", store.graph, "load", "openalex", str(path)]
    if backend == "embedded":
        cli_ok(args)
        return
    # Neo4j loads keep their checkpoints per database, not per --graph: kept in the session's
    # home they would outlive this test's data (and count in another test's 'db reset'), so
    # they go to a home of this load's own (the server is found by NEO4J_URI)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SCHOLARKG_HOME", str(path.parent / f"{path.stem}-home"))
        cli_ok(args)


@pytest.fixture
def group_loader(tmp_path: Path) -> Callable[..., None]:
    """``load(store, works=None)``: the group's records (or ``works``) into ``store``."""
    counter = iter(range(1000))

    def load(store: Any, works: list[dict[str, Any]] | None = None) -> None:
        path = write_group(tmp_path / f"works-{next(counter)}.jsonl", works or group_works())
        load_group(store, path)

    return load

"""``load openalex`` without ``--batch-size`` resolves and writes 2,000 works at a time, or
4,000 on a graph already holding half a million Papers (``loaders/chunk_size.py``); the
graph's Papers are counted on both backends; the summary says when the larger chunk was
chosen; an explicit ``--batch-size`` always wins; and the graph is the same either way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.commands import load_catalogues
from scholarkg.loaders import chunk_size
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore

from .test_bulk_equals_incremental import everything


def test_the_chunk_follows_the_graphs_size() -> None:
    assert chunk_size.chunk_for(0) == chunk_size.DEFAULT_CHUNK == 2_000
    assert chunk_size.chunk_for(499_999) == 2_000
    assert chunk_size.chunk_for(500_000) == chunk_size.LARGE_GRAPH_CHUNK == 4_000
    assert chunk_size.chunk_for(3_000_000) == 4_000


def test_the_graphs_papers_are_counted_stubs_included(any_store: GraphStore) -> None:
    any_store.apply_schema()
    assert chunk_size.stored_papers(any_store) == 0
    any_store.merge_nodes("Paper", [{"id": f"openalex:W{i}", "title": f"t{i}"} for i in range(5)])
    any_store.run_named(
        "identity/create_stub_papers", {"rows": [{"id": "openalex:W99", "props": {}}]}
    )
    any_store.merge_nodes("Author", [{"id": "openalexauthor:A1", "name": "Someone"}])
    assert chunk_size.stored_papers(any_store) == 6


def _work(w: int) -> dict[str, Any]:
    """Work ``w``, citing the one before it, by one of four authors."""
    return openalex_work(
        1, id=f"https://openalex.org/W{w}", title=f"Work {w}", doi=None, ids={},
        locations=[], referenced_works=[f"https://openalex.org/W{w - 1}"] if w > 1 else [],
        authorships=[{"author": {"id": f"https://openalex.org/A{w % 4}",
                                 "display_name": f"Author {w % 4}"}}],
    )  # fmt: skip


def _works(first: int, n: int) -> list[dict[str, Any]]:
    return [_work(w) for w in range(first, first + n)]


@pytest.fixture
def chunks_used(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The chunk of every resolver ``load openalex`` makes."""
    used: list[int] = []

    class Recording(IdentityResolver):
        def __init__(self, store: GraphStore, **kwargs: Any) -> None:
            used.append(int(kwargs["chunk"]))
            super().__init__(store, **kwargs)

    monkeypatch.setattr(load_catalogues, "IdentityResolver", Recording)
    return used


def test_a_large_graph_is_updated_in_larger_chunks(
    graph_env: str,
    store: FalkorDBStore,
    tmp_path: Path,
    chunks_used: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # "large" scaled down to this test's graph: the rule is the module's, not its numbers
    monkeypatch.setattr(chunk_size, "LARGE_GRAPH_PAPERS", 10)
    monkeypatch.setattr(chunk_size, "LARGE_GRAPH_CHUNK", 3)
    # part files named on the command line: each is read whatever the graph took
    base = write_openalex(tmp_path / "base", _works(1, 6))
    update = write_openalex(tmp_path / "update", _works(7, 8), date="2024-06-01")

    first = runner.invoke(app, ["load", "openalex", str(base)])
    assert first.exit_code == 0, first.output
    assert chunks_used == [2_000]  # an empty graph: the default chunk, said nowhere
    assert "chunks of" not in first.output

    second = runner.invoke(app, ["load", "openalex", str(update)])
    assert second.exit_code == 0, second.output
    assert chunks_used == [2_000, 2_000]  # 6 Papers, fewer than "large"
    assert "chunks of" not in second.output

    monkeypatch.setattr(chunk_size, "LARGE_GRAPH_PAPERS", 6)
    again = runner.invoke(app, ["load", "openalex", str(update)])
    assert again.exit_code == 0, again.output
    assert chunks_used[-1] == 3
    assert "chunks of 3 works: the graph held 14 Papers" in " ".join(again.output.split())
    chunked = everything(store)

    # an explicit --batch-size wins, and says nothing; the graph is the same either way
    runner.invoke(app, ["db", "reset", "--yes"])
    for path in (base, update, update):
        res = runner.invoke(app, ["load", "openalex", str(path), "--batch-size", "2000"])
        assert res.exit_code == 0, res.output
        assert "chunks of" not in res.output
    assert chunks_used[-3:] == [2_000, 2_000, 2_000]
    assert everything(store) == chunked

"""A chunk's reference-only keys answered from an earlier chunk's look-up
(``IdentityResolver._lookup_with_finds``) leave exactly the graph that looking every key up
again leaves, on both backends, when what a key names changes between the chunks: a work
merged into another (its id then names the survivor), a stub described later, a reference to
a work keyed by its DOI. Chunks of one work make every chunk a later one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import citing_work as _work
from _catalogue_works import load_work_by_work, write_openalex

from scholarkg.loaders import openalex
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.store.base import GraphStore

from .test_bulk_equals_incremental import everything


def _stored(store: GraphStore) -> None:
    """Before the load: W50 as a stub of its OpenAlex id, and the same work as a node keyed by
    its DOI (a Crossref record's), so W50's own record, when it comes, merges the two."""
    store.apply_schema()
    store.run("CREATE (:Paper:Stub {id: 'openalex:W50', openalex_id: 'W50'})")
    store.run("CREATE (:Paper {id: 'doi:10.5555/50', doi: '10.5555/50', title: 'Work 50'})")


def test_reused_lookups_leave_the_graph_fresh_lookups_leave(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))  # checkpoints apart
    works = [
        _work(1, [50, 60]),  # W50 found as its stub, W60 unknown: its stub is written
        _work(2, [50, 60, 3]),  # both answered from chunk 1's look-up ... W60 as written
        _work(50, [1], doi="10.5555/50"),  # W50 described: its stub merges into the DOI node
        _work(3, [50, 60, 1]),  # W50 now names the survivor
        _work(60, [2], doi="10.5555/60"),  # the stub W60 described, under its DOI
        _work(4, [50, 60, 2, 3]),  # both keys name the works' nodes as they are now
        _work(5, [50, 60, 4]),
    ]
    path = write_openalex(tmp_path / "snap", works)
    graphs = []
    for reuse in (True, False):
        any_store.clear()
        _stored(any_store)
        resolver = load_work_by_work(
            any_store, openalex.snapshot_files([path.parents[2]])[0][0], reuse_lookups=reuse
        )
        assert (resolver.report.lookups_reused > 0) is reuse
        graphs.append(everything(any_store))
    assert graphs[0] == graphs[1]
    cites = any_store.run(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) WHERE b.openalex_id IN ['W50', 'W60'] "
        "RETURN a.openalex_id AS a, b.id AS b ORDER BY a, b"
    )
    survivors = {r["b"] for r in cites}
    assert len(survivors) == 2 and all(not b.startswith("openalex:W50") for b in survivors)
    assert {r["a"] for r in cites} == {"W1", "W2", "W3", "W4", "W5"}


def test_a_rename_keeps_what_earlier_look_ups_found_for_other_works(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename drops only the finds that name the renamed Paper: a stored work every chunk
    cites is sought once, not again after each chunk that renames a stub to its DOI; and
    what a later look-up finds for the renamed Paper is kept."""
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    asked: list[set[str]] = []
    params = IdentityResolver._lookup_params

    def recording(keys: Any) -> dict[str, list[Any]]:
        asked.append(set(keys))
        return params(keys)

    monkeypatch.setattr(IdentityResolver, "_lookup_params", staticmethod(recording))
    works = [
        _work(1, [80, 60, 70]),  # W80 stored, found; W60 and W70 unknown: stubs written
        _work(60, [1], doi="10.5555/60"),  # the stub W60 described: renamed to its DOI
        _work(2, [80, 60, 1]),  # W80 from chunk 1's look-up; W60 sought afresh
        _work(70, [2], doi="10.5555/70"),  # another rename
        _work(3, [80, 60, 70]),  # W60 found again, under its new id: kept
        _work(4, [80, 60]),
    ]
    path = write_openalex(tmp_path / "snap", works)
    graphs = []
    for reuse in (True, False):
        any_store.clear()
        any_store.apply_schema()
        any_store.run("CREATE (:Paper {id: 'openalex:W80', openalex_id: 'W80', title: 'Work 80'})")
        asked.clear()
        resolver = load_work_by_work(
            any_store, openalex.snapshot_files([path.parents[2]])[0][0], reuse_lookups=reuse
        )
        assert resolver.report.renamed == 2
        seeks = sum("openalex:W80" in keys for keys in asked)
        assert seeks == (1 if reuse else 4)  # the four works citing it, one a chunk
        if reuse:  # what the look-up found for the renamed stub afterwards is kept
            assert resolver._finds.get("openalex:W60") == "doi:10.5555/60"
        graphs.append(everything(any_store))
    assert graphs[0] == graphs[1]
    rows = any_store.run(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) WHERE b.id IN ['doi:10.5555/60', 'doi:10.5555/70'] "
        "RETURN a.openalex_id AS a, b.id AS b ORDER BY a, b"
    )
    assert [(r["a"], r["b"]) for r in rows] == [
        ("W1", "doi:10.5555/60"), ("W1", "doi:10.5555/70"), ("W2", "doi:10.5555/60"),
        ("W3", "doi:10.5555/60"), ("W3", "doi:10.5555/70"), ("W4", "doi:10.5555/60"),
    ]  # fmt: skip


def test_the_memory_starts_again_past_its_limit_and_leaves_the_same_graph(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``finds_limit``: past it ``_finds`` is emptied, so it never outgrows the limit (a
    load's memory stays bounded whatever its input), and the graph is the one without it."""
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(IdentityResolver, "finds_limit", 2)
    works = [_work(1, [80, 81, 82]), _work(2, [80, 81, 82]), _work(3, [80, 81]), _work(4, [80])]
    path = write_openalex(tmp_path / "snap", works)
    graphs = []
    for reuse in (True, False):
        any_store.clear()
        any_store.apply_schema()
        for w in (80, 81, 82):
            any_store.run(
                "CREATE (:Paper {id: $id, openalex_id: $w, title: 'Work'})",
                {"id": f"openalex:W{w}", "w": f"W{w}"},
            )
        resolver = load_work_by_work(
            any_store, openalex.snapshot_files([path.parents[2]])[0][0], reuse_lookups=reuse
        )
        assert len(resolver._finds) <= 2
        graphs.append(everything(any_store))
    assert graphs[0] == graphs[1]

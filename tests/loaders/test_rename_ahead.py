"""How a chunk's rename runs on a store that writes ahead (the embedded one): written ahead,
not waited for, when every renamed node keeps its old key in its id slot (the rename alone
leaves each key findable), after every queued statement when an alias must follow it
(rename, ``alt_ids`` and alias are one statement, ``identity/rename_papers_aliased``, and the
``alt_ids`` it extends are read first, which must see what the chunk before wrote). Both
leave the graph the load would leave in strict order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import citing_work as _work
from _catalogue_works import load_work_by_work, write_openalex

from scholarkg.loaders import openalex
from scholarkg.store.falkordb.store import FalkorDBStore


def test_a_rename_is_written_ahead_only_when_no_alias_must_follow_it(
    store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))  # checkpoints apart
    calls: list[tuple[str, bool]] = []  # (how it ran, inside a writes_ahead block)
    send = store.send_named
    strict = store.run_named

    def spy_send(name: str, params: Any = None, **kw: Any) -> None:
        if name == "identity/rename_papers":
            calls.append(("ahead", store._ahead_to is not None))
        send(name, params, **kw)

    def spy_strict(name: str, params: Any = None, **kw: Any) -> list[dict[str, Any]]:
        if name in ("identity/rename_papers", "identity/rename_papers_aliased"):
            calls.append(("strict", False))
        return strict(name, params, **kw)

    monkeypatch.setattr(store, "send_named", spy_send)
    monkeypatch.setattr(store, "run_named", spy_strict)
    store.apply_schema()
    # W70 stored as a stub keyed by its OpenAlex id but without the slot: renamed to its DOI,
    # that key is kept only by an alias written after the rename
    store.run("CREATE (:Paper:Stub {id: 'openalex:W70'})")
    works = [
        _work(1, [60, 70]),  # W60 unknown: its stub is written with its slot
        _work(60, [1], doi="10.5555/60"),  # the stub W60 described under its DOI: slot kept
        _work(2, [60, 70]),
        _work(70, [2], doi="10.5555/70"),  # the stub W70 described: an alias must follow
        _work(3, [60, 70]),
    ]
    path = write_openalex(tmp_path / "snap", works)
    resolver = load_work_by_work(store, openalex.snapshot_files([path.parents[2]])[0][0])

    assert resolver.report.renamed == 2
    assert calls == [("ahead", True), ("strict", False)]
    rows = store.run(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) RETURN a.openalex_id AS a, b.id AS b ORDER BY a, b"
    )
    assert [(r["a"], r["b"]) for r in rows] == [
        ("W1", "doi:10.5555/60"), ("W1", "doi:10.5555/70"), ("W2", "doi:10.5555/60"),
        ("W2", "doi:10.5555/70"), ("W3", "doi:10.5555/60"), ("W3", "doi:10.5555/70"),
        ("W60", "openalex:W1"), ("W70", "openalex:W2"),
    ]  # fmt: skip
    aliases = store.run("MATCH (a:PaperAlias)-[:ALIAS_OF]->(p:Paper) RETURN a.id AS a, p.id AS p")
    assert aliases == [{"a": "openalex:W70", "p": "doi:10.5555/70"}]
    assert store.run("MATCH (p:Paper:Stub) RETURN count(p) AS n") == [{"n": 0}]


def test_an_aliased_rename_keeps_its_old_key_in_alt_ids_beside_what_the_record_adds(
    store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stub ``openalex:W70`` (no ``openalex_id`` slot; MAG id 1) is renamed to its work's
    DOI with the old key as an alias and in ``alt_ids``; the record's own MAG id (999) takes
    the slot, so the stub's goes to ``alt_ids`` too. That write comes after the rename, so it
    must start from what the rename wrote: started from the ids read before it, it dropped the
    old key from ``alt_ids`` again."""
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    store.apply_schema()
    store.run("CREATE (:Paper:Stub {id: 'openalex:W70', mag_id: '1'})")
    work = _work(70, [], doi="10.5555/70")
    work["ids"] = {**work["ids"], "mag": "999"}
    path = write_openalex(tmp_path / "snap", [_work(1, [70]), work])
    resolver = load_work_by_work(store, openalex.snapshot_files([path.parents[2]])[0][0])

    assert resolver.report.renamed == 1
    [row] = store.run(
        "MATCH (p:Paper {id: 'doi:10.5555/70'}) RETURN p.alt_ids AS alt, p.mag_id AS mag"
    )
    assert row["mag"] == "999"
    assert set(row["alt"]) >= {"openalex:W70", "mag:1"}

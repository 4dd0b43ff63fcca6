"""``load openalex <snapshot folder>`` reads only what changed: the ``updated_date=``
partitions newer than those the graph took (recorded in the graph, a ``LoadState`` node) and
the ``merged_ids`` files since then; it says what it skipped, ``--all`` reads everything, an
interrupted update starts again at the partition it stopped in, and the graph after an update
is exactly the graph a clean load of the whole snapshot gives."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

from _catalogue_works import openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.loaders.openalex import snapshot_files
from scholarkg.loaders.openalex_updates import (
    TakenState,
    plan_update,
    record_taken,
    taken_state,
)
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore

from .test_bulk_equals_incremental import everything


def _work(w: int, *, title: str | None = None, refs: tuple[int, ...] = ()) -> dict[str, Any]:
    return openalex_work(
        1, id=f"https://openalex.org/W{w}", title=title or f"Work {w}", doi=None, ids={},
        locations=[], referenced_works=[f"https://openalex.org/W{r}" for r in refs],
        authorships=[{"author": {"id": f"https://openalex.org/A{w % 3}",
                                 "display_name": f"Author {w % 3}"}}],
    )  # fmt: skip


def _merged(root: Path, day: str, pairs: list[tuple[int, int]]) -> Path:
    folder = root / "data" / "merged_ids" / "works"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{day}.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("merge_date,id,merge_into_id\n")
        fh.writelines(f"{day},W{a},W{b}\n" for a, b in pairs)
    return path


def _base(root: Path) -> None:
    write_openalex(root, [_work(1, refs=(2, 3)), _work(2, refs=(9,))], date="2024-01-01")
    write_openalex(root, [_work(3, refs=(1,)), _work(4, refs=(1, 2))], date="2024-02-01")
    _merged(root, "2024-02-01", [(8, 1)])


def _update(root: Path) -> None:
    """What a newer snapshot adds: a day with a changed work and a new one, merged_ids."""
    write_openalex(
        root, [_work(2, title="Work 2, revised", refs=(4,)), _work(5, refs=(3, 2))],
        date="2024-03-01",
    )  # fmt: skip
    write_openalex(root, [_work(6, refs=(5, 1))], date="2024-04-01")
    _merged(root, "2024-04-02", [(3, 4)])


def _spoil(root: Path, day: str) -> None:
    """Overwrite a partition's file with a line that is not JSON: reading it fails."""
    part = root / "data" / "works" / f"updated_date={day}" / "part_000.gz"
    with gzip.open(part, "wt", encoding="utf-8") as fh:
        fh.write("{not json\n")


def _load(*args: str) -> str:
    res = runner.invoke(app, ["load", "openalex", *args])
    assert res.exit_code == 0, res.output
    return str(res.output)


def test_plan_skips_the_taken_partitions_and_merged_files(tmp_path: Path) -> None:
    root = tmp_path / "snap"
    _base(root)
    _update(root)
    works, merged = snapshot_files([root])
    state = TakenState(updated_through="2024-02-01", merged_through="2024-02-01")
    plan = plan_update([root], works, merged, state)
    assert [p.parent.name for p in plan.works] == ["updated_date=2024-03-01",
                                                   "updated_date=2024-04-01"]  # fmt: skip
    assert [p.parent.name for p in plan.skipped_works] == ["updated_date=2024-01-01",
                                                           "updated_date=2024-02-01"]  # fmt: skip
    assert [p.name for p in plan.merged] == ["2024-04-02.csv.gz"]
    assert sorted(plan.completes.values()) == ["2024-03-01", "2024-04-01"]
    assert plan.merged_through == "2024-04-02"
    notes = " ".join(plan.notes())
    assert "skipped 2 work file(s) in 2 updated_date partition(s) 2024-01-01 … 2024-02-01" in notes
    assert "--all" in notes
    # --all skips nothing; a file named on the command line is read and moves no record
    assert plan_update([root], works, merged, state, everything=True).skipped_works == []
    named = plan_update([works[0]], [works[0]], [], state)
    assert named.works == [works[0]] and named.completes == {}


def test_an_update_reads_only_the_newer_partitions_and_equals_a_clean_load(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    root = tmp_path / "snap"
    _base(root)
    _load(str(root))
    assert taken_state(store) == TakenState("2024-02-01", "2024-02-01")

    _update(root)
    whole = tmp_path / "whole"
    shutil.copytree(root, whole)  # the snapshot as a clean load reads it
    _spoil(root, "2024-01-01")  # were a taken partition read again, the load would fail
    _spoil(root, "2024-02-01")
    out = _load(str(root))
    assert "skipped 2 work file(s) in 2 updated_date partition(s)" in out
    assert "2024-04-02.csv.gz: 1 stored work(s) retired as merged" in out
    assert "2024-02-01.csv.gz" not in out  # the applied merged_ids file is not applied again
    assert taken_state(store) == TakenState("2024-04-01", "2024-04-02")
    title = store.run("MATCH (p:Paper {openalex_id: 'W2'}) RETURN p.title AS t")
    assert title == [{"t": "Work 2, revised"}]
    updated = everything(store)

    # nothing newer: nothing read, said so
    out = _load(str(root))
    assert "nothing newer than what the graph holds" in out
    assert everything(store) == updated

    runner.invoke(app, ["db", "reset", "--yes"])
    _load(str(whole))
    assert everything(store) == updated

    # --all reads every partition again (the spoiled one fails: it was read)
    res = runner.invoke(app, ["load", "openalex", str(root), "--all"])
    assert res.exit_code != 0
    assert "updated_date=2024-01-01/part_000.gz:line 1" in str(res.exception)


def test_an_interrupted_update_starts_again_where_it_stopped(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    root = tmp_path / "snap"
    _base(root)
    _load(str(root))
    _update(root)
    good = root / "data" / "works" / "updated_date=2024-04-01" / "part_000.gz"
    kept = good.read_bytes()
    _spoil(root, "2024-04-01")
    res = runner.invoke(app, ["load", "openalex", str(root)])
    assert res.exit_code != 0
    assert "updated_date=2024-04-01/part_000.gz:line 1" in str(res.exception)
    # the partition before the failure is recorded; the merged_ids file is not applied yet
    assert taken_state(store) == TakenState("2024-03-01", "2024-02-01")

    good.write_bytes(kept)
    _spoil(root, "2024-03-01")  # taken: the re-run must not read it again
    out = _load(str(root))
    assert "skipped 3 work file(s) in 3 updated_date partition(s)" in out
    assert taken_state(store) == TakenState("2024-04-01", "2024-04-02")
    assert store.run("MATCH (p:Paper {openalex_id: 'W6'}) RETURN p.title AS t") == [{"t": "Work 6"}]


def test_the_record_only_moves_forward(any_store: GraphStore) -> None:
    assert taken_state(any_store) == TakenState()
    record_taken(any_store, updated_through="2024-03-01")
    record_taken(any_store, updated_through="2024-02-01", merged_through="2024-01-05")
    assert taken_state(any_store) == TakenState("2024-03-01", "2024-01-05")
    assert any_store.counts().nodes == {"LoadState": 1}


def test_a_walk_of_one_partition_folder_moves_no_record(tmp_path: Path) -> None:
    """A walk of ``data/works/updated_date=D`` cannot tell that the partitions before D were
    taken: it reads D and records nothing, so a later walk of ``data/works`` still reads
    them (it once recorded D, and the older partitions were skipped, never loaded)."""
    root = tmp_path / "snap"
    _base(root)
    newest = root / "data" / "works" / "updated_date=2024-02-01"
    works, merged = snapshot_files([newest])
    plan = plan_update([newest], works, merged, TakenState())
    assert plan.works == works and plan.completes == {}
    whole = root / "data" / "works"
    works, merged = snapshot_files([whole])
    plan = plan_update([whole], works, merged, TakenState())
    assert sorted(plan.completes.values()) == ["2024-01-01", "2024-02-01"]


def test_one_partition_then_the_folder_loads_every_partition(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    root = tmp_path / "snap"
    _base(root)
    _load(str(root / "data" / "works" / "updated_date=2024-02-01"))
    assert taken_state(store).updated_through is None
    out = _load(str(root / "data"))
    assert "work file(s) in" not in out  # no partition skipped
    described = store.run("MATCH (p:Paper) WHERE NOT p:Stub RETURN p.openalex_id AS w ORDER BY w")
    assert [r["w"] for r in described] == ["W1", "W2", "W3", "W4"]
    assert taken_state(store).updated_through == "2024-02-01"


def _entity_part(root: Path, entity: str, obj: dict[str, Any]) -> Path:
    part = root / "data" / entity / "updated_date=2024-01-01" / "part_000.gz"
    part.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(part, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(obj) + "\n")
    return part


def test_the_whole_snapshot_folder_reads_works_and_merged_ids_only(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """``aws s3 sync s3://openalex/data`` brings authors/, sources/, institutions/, … next to
    works/: a load of ``data/`` reads works/ and merged_ids/ (it once read an author record
    as a work and stopped: "a work needs its OpenAlex id"); ``data/authors`` itself is
    refused, naming what the folder holds."""
    root = tmp_path / "snap"
    _base(root)
    author = {"id": "https://openalex.org/A5023888391", "display_name": "Someone",
              "works_count": 3}  # fmt: skip
    _entity_part(root, "authors", author)
    _entity_part(root, "sources", {"id": "https://openalex.org/S1", "display_name": "J"})
    works, merged = snapshot_files([root / "data"])
    assert {p.parts[-3] for p in works} == {"works"}
    assert [p.name for p in merged] == ["2024-02-01.csv.gz"]
    for bulk in ((), ("--bulk",)):
        runner.invoke(app, ["db", "reset", "--yes"])
        _load(str(root / "data"), *bulk)
        described = store.run("MATCH (p:Paper) WHERE NOT p:Stub RETURN count(p) AS n")
        assert described == [{"n": 4}], bulk
    res = runner.invoke(app, ["load", "openalex", str(root / "data" / "authors")])
    assert res.exit_code != 0
    assert "holds OpenAlex authors, not works" in str(res.exception) + res.output

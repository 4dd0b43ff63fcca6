"""One reader and one id rule for ``leaderboards.jsonl``, checked on non-arXiv paper ids.

The bug this pins: the graph loader stored ``HAS_ENTRY -> "xyz"`` (no such node: the edge was
skipped) while RPG read the same line as ``apc:xyz``. Now the loader, RPG and LGPLM read the
file through ``read_leaderboards`` and the Paper id rule is ``ids.paper_ref_id`` everywhere,
the one the APC loader stores papers under.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scholarkg.benchmark.tasks.legobench.lgplm import read_gold_file
from scholarkg.benchmark.tasks.legobench.rpg import core as rpg
from scholarkg.errors import InputError
from scholarkg.loaders.apc import read_papers, resolve_paper_ref
from scholarkg.loaders.legobench_graph import read_ground_truth, read_leaderboards
from scholarkg.loaders.writer import write_records
from scholarkg.schema import ids
from scholarkg.schema.records import HasPaperEntry
from scholarkg.store.falkordb.store import FalkorDBStore

ROWS: list[dict[str, Any]] = [
    {"task": "Glorp Modelling", "dataset": "Glorp-2k", "metric": "Zorbness",
     "ranking": ["xyz", "2001.00011v2", "doi:10.1/abc", "s2:42"],
     "scores": [4.0, 3.0, None, 1.0], "methods": ["X", "A", "D", "S"]},
    {"task": "Frob Tagging", "dataset": "Frob", "metric": "F1", "ranking": ["P-7", "xyz"]},
]  # fmt: skip


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_paper_ref_rule_is_the_apc_loaders() -> None:
    for raw in ("xyz", " P-7 ", "2001.00011v2", "arXiv:2001.00011", "doi:10.1/abc", "apc:q"):
        assert ids.paper_ref_id(raw) == resolve_paper_ref(raw)
    assert ids.paper_ref_id("xyz") == "apc:xyz"
    assert ids.paper_ref_id("2001.00011v2") == "arxiv:2001.00011"
    assert ids.paper_ref_id("s2:42") == "s2:42"


def test_loader_rpg_and_lgplm_read_the_same_ids(tmp_path: Path) -> None:
    path = _write(tmp_path / "leaderboards.jsonl", ROWS)
    boards = list(read_leaderboards(path))
    want_papers = ("apc:xyz", "arxiv:2001.00011", "doi:10.1/abc", "s2:42")
    assert boards[0].papers == want_papers
    assert boards[1].papers == ("apc:P-7", "apc:xyz")
    board_id = ids.leaderboard_id("Glorp Modelling", "Glorp-2k", "Zorbness")
    assert boards[0].id == board_id

    entries = [
        (r.start, r.end)
        for _, group in read_ground_truth(path)
        for r in group
        if isinstance(r, HasPaperEntry)
    ]
    assert entries[:4] == [(board_id, p) for p in want_papers]

    insts = rpg.read_ground_truth(path)
    assert [i.query.id for i in insts] == [b.id for b in boards]
    assert insts[0].gold == want_papers


def test_lgplm_gold_needs_methods(tmp_path: Path) -> None:
    path = _write(tmp_path / "leaderboards.jsonl", ROWS)
    with pytest.raises(InputError) as err:
        read_gold_file(path)
    assert (err.value.line, err.value.field) == (2, "methods")
    only = _write(tmp_path / "one.jsonl", ROWS[:1])
    gold = read_gold_file(only)
    board_id = ids.leaderboard_id("Glorp Modelling", "Glorp-2k", "Zorbness")
    assert list(gold) == [board_id]
    assert gold[board_id][0] == ("X", 4.0) and gold[board_id][2][0] == "D"


def test_non_arxiv_entries_reach_their_papers_in_the_graph(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """Loaded through the APC loader and the ground-truth loader, a non-arXiv paper gets its
    HAS_ENTRY edge, and RPG reads the same gold from the graph as from the file."""
    store.apply_schema()
    papers = _write(
        tmp_path / "papers.jsonl",
        [{"id": "xyz", "title": "Xyz"}, {"id": "P-7", "title": "Pseven"}],
    )
    write_records(store, read_papers(papers))
    path = _write(tmp_path / "leaderboards.jsonl", ROWS[1:])
    write_records(store, (r for _, group in read_ground_truth(path) for r in group))
    from_graph = {i.query.id: i.gold for i in rpg.load_instances(store)}
    from_file = {i.query.id: i.gold for i in rpg.read_ground_truth(path)}
    assert (
        from_graph
        == from_file
        == {ids.leaderboard_id("Frob Tagging", "Frob", "F1"): ("apc:P-7", "apc:xyz")}
    )

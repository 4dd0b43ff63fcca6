"""The PwC loader against the real embedded FalkorDB: idempotence, edges, leaderboard queries.

Expected orders are worked out by hand from ``tests/fixtures/pwc/evaluation-tables.json``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.leaderboards import (
    list_leaderboards,
    ranked_results,
    resolve_leaderboard,
)
from scholarkg.loaders import pwc
from scholarkg.loaders.checkpoint import run_resumable
from scholarkg.schema import ids
from scholarkg.store.falkordb.store import FalkorDBStore

FIX = Path(__file__).parent.parent / "fixtures" / "pwc"


def _load_all(store: FalkorDBStore) -> pwc.PwcReport:
    report = pwc.PwcReport()
    for groups, src in (
        (pwc.read_papers_with_abstracts(FIX / "papers-with-abstracts.json"), "pwa"),
        (pwc.read_evaluation_tables(FIX / "evaluation-tables.json", report=report), "tables"),
        (pwc.read_links(FIX / "links-between-papers-and-code.json"), "links"),
    ):
        run_resumable(store, groups, source=src, batch_size=2)
    return report


def test_load_twice_gives_identical_counts(store: FalkorDBStore) -> None:
    store.apply_schema()
    _load_all(store)
    first = store.counts()
    _load_all(store)
    second = store.counts()
    assert first == second
    # 7 row papers (one shared with the abstracts file's two) + 1 unrelated paper
    assert first.nodes["Paper"] == 8
    assert first.nodes["Result"] == 14
    assert first.nodes["Leaderboard"] == 5
    assert first.nodes["Task"] == 3 and first.nodes["Dataset"] == 4 and first.nodes["Metric"] == 4
    assert first.nodes["Method"] == 10  # 9 row methods + "Dropout" from the abstracts file
    assert first.nodes["Repository"] == 2 and first.nodes["Author"] == 3
    rels = first.relationships
    assert rels["HAS_RESULT"] == 11 and rels["IN_LEADERBOARD"] == 14
    assert rels["FOR_METHOD"] == 14 and rels["SUBTASK_OF"] == 1 and rels["HAS_CODE"] == 2
    assert rels["ON_DATASET"] == 14 + 5 and rels["FOR_TASK"] == 14 + 5
    assert rels["USING_METRIC"] == 14 + 5 and rels["AUTHORED_BY"] == 3


def test_paper_records_merge_across_files(store: FalkorDBStore) -> None:
    _load_all(store)
    mira = ids.paper_id(title="MiraFormer for zorbs")
    rows = store.run(
        "MATCH (p:Paper {id: $id})-[c:HAS_CODE]->(r:Repository) "
        "OPTIONAL MATCH (p)-[:HAS_RESULT]->(res:Result) "
        "RETURN p.venue AS venue, c.is_official AS official, r.url AS url, count(res) AS n",
        {"id": mira},
    )
    assert rows == [
        {"venue": "ZORBCONF 2021", "official": False,
         "url": "https://github.com/someone/miraformer.git/", "n": 2},
    ]  # fmt: skip


def _order(store: FalkorDBStore, task: str, dataset: str, metric: str) -> tuple[str, list[Any]]:
    board = resolve_leaderboard(store, task, dataset, metric)
    direction, rows = ranked_results(store, board["id"])
    return direction, [(r["rank"], r["method"], r["score"]) for r in rows]


def test_show_higher_is_better_with_ties(store: FalkorDBStore) -> None:
    _load_all(store)
    direction, rows = _order(store, "Zorbic Classification", "Zorb-10", "Top-1 Accuracy")
    assert direction == "higher"
    assert rows == [
        (1, "MiraFormer", 91.5), (1, "TenVo", 91.5), (3, "KaloNet", 85.2),
        (4, "Baseline CNN", 72.0),
    ]  # fmt: skip


def test_show_lower_is_better_unscored_last(store: FalkorDBStore) -> None:
    _load_all(store)
    direction, rows = _order(store, "Zorbic Classification", "Zorb-10", "Error Rate")
    assert direction == "lower"
    assert rows == [
        (1, "MiraFormer", 8.5), (1, "TenVo", 8.5), (3, "KaloNet", 14.8),
        (None, "Baseline CNN", None),
    ]  # fmt: skip
    direction, rows = _order(store, "Glorp Modelling", "Glorp-2k", "Perplexity")
    assert direction == "lower"
    assert rows == [(1, "Beta", 20.4), (2, "Gamma", 28.0), (3, "Alpha", 35.1)]


def test_show_rows_carry_paper_title_and_arxiv(store: FalkorDBStore) -> None:
    _load_all(store)
    board = resolve_leaderboard(store, "Glorp Modelling", "Glorp-2k", "Perplexity")
    _, rows = ranked_results(store, board["id"])
    assert (rows[0]["paper"], rows[0]["arxiv_id"], rows[0]["date"]) == (
        "Beta glorps", "2001.00022", "2020-01-05",
    )  # fmt: skip


def test_name_matching_exact_then_case_insensitive_then_error(store: FalkorDBStore) -> None:
    _load_all(store)
    board = resolve_leaderboard(store, "zorbic classification", "ZORB-10", "error rate")
    assert board["id"] == ids.leaderboard_id("Zorbic Classification", "Zorb-10", "Error Rate")
    with pytest.raises(InputError) as info:
        resolve_leaderboard(store, "Zorbic Clasification", "Zorb-10", "Error Rate")
    assert "Zorbic Classification" in str(info.value) and info.value.field == "task"
    with pytest.raises(InputError) as info:
        resolve_leaderboard(store, "Zorbic Classification", "Zorb-10", "Accuracy@1")
    assert info.value.field == "metric" and "close names" in str(info.value)


def test_list_counts_entries(store: FalkorDBStore) -> None:
    _load_all(store)
    rows = list_leaderboards(store)
    got = {(r["task"], r["dataset"], r["metric"]): (r["results"], r["direction"]) for r in rows}
    assert got == {
        ("Few-Shot Zorbic Classification", "Zorb-FS", "Zorbness"): (2, "unknown"),
        ("Glorp Modelling", "Glorp-2k", "Perplexity"): (3, "lower"),
        ("Zorbic Classification", "Zorb-10", "Error Rate"): (4, "lower"),
        ("Zorbic Classification", "Zorb-10", "Top-1 Accuracy"): (4, "higher"),
        ("Zorbic Classification", "Zorb-10 Hard", "Top-1 Accuracy"): (1, "higher"),
    }
    only = list_leaderboards(store, task="glorp modelling", limit=10)
    assert [r["metric"] for r in only] == ["Perplexity"]
    assert len(list_leaderboards(store, limit=2)) == 2
    with pytest.raises(InputError, match="Glorp Modelling"):
        list_leaderboards(store, task="Glorp Modeling")


def test_list_by_task_covers_every_spelling_the_name_matched(store: FalkorDBStore) -> None:
    """A typed name matching several stored spellings lists the leaderboards of all of them."""
    from scholarkg.loaders.writer import write_records
    from scholarkg.schema.records import Leaderboard

    _load_all(store)
    write_records(store, [Leaderboard(task="GLORP modelling", dataset="Glorp-9", metric="BPC")])
    rows = list_leaderboards(store, task="glorp MODELLING", limit=10)
    assert [(r["task"], r["dataset"]) for r in rows] == [
        ("GLORP modelling", "Glorp-9"), ("Glorp Modelling", "Glorp-2k"),
    ]  # fmt: skip
    assert len(list_leaderboards(store, task="glorp MODELLING", limit=1)) == 1

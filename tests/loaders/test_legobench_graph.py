"""LEGOBench leaderboards in the graph: rplm.xlsx rows (verbatim title lines) and ground truth."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook

from scholarkg.errors import InputError
from scholarkg.loaders.checkpoint import run_resumable
from scholarkg.loaders.legobench_graph import (
    link_title_lines,
    option_indices,
    read_ground_truth,
    read_rplm_graph,
)
from scholarkg.loaders.pwc import records
from scholarkg.schema import ids
from scholarkg.schema.records import HasEntry, Metric, Paper, RPLMLeaderboard, TitleLine
from scholarkg.store.falkordb.store import FalkorDBStore

Q = "Query - Rank the performance of the following papers on the {t} task on dataset {d} using metric {m}:"  # noqa: E501

# invented titles with the release's defects: a title split at ", " into two lines, a quoted
# title, a LaTeX escape, and a duplicated line
GT0 = [
    "Zorb Nets: Methods",
    "Analysis and Insights from Glorps",
    '"Kalo\'s Trick for Zorbs"',
    'Sch\\"on Zorbs',
    "Plain Zorb Paper",
    "Plain Zorb Paper",
]
OPT0 = [GT0[4], GT0[2], GT0[0], GT0[5], GT0[3], GT0[1]]
GT1 = ["Beta glorps", "Alpha glorps"]


def _xlsx(path: Path, rows: list[tuple[str, list[str], list[str]]]) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append([None, "instruction", "model_options", "GT"])
    for i, (query, options, gt) in enumerate(rows):
        ws.append([i, f"Rank them.\n{query}", "\n".join(options), "\n".join(gt)])
    wb.save(path)
    return path


@pytest.fixture
def rplm(tmp_path: Path) -> Path:
    return _xlsx(
        tmp_path / "rplm.xlsx",
        [
            (Q.format(t="Zorbic Classification", d="Zorb-10 (v2)", m="Top-1 Accuracy"), OPT0, GT0),
            (Q.format(t="Glorp Modelling", d="Glorp-2k", m="Zorbness"), GT1[::-1], GT1),
        ],
    )


def test_option_indices_pair_duplicates_in_order() -> None:
    assert option_indices(["b", "a", "a", "c"], ["a", "c", "a", "b"]) == [1, 3, 2, 0]


def test_rplm_records_keep_lines_verbatim(rplm: Path) -> None:
    groups = list(read_rplm_graph(rplm))
    assert [n for n, _ in groups] == [1, 2]
    recs = list(records(groups))
    boards = [r for r in recs if isinstance(r, RPLMLeaderboard)]
    assert [(b.id, b.dataset, b.source) for b in boards] == [
        ("lego:rplm:0", "Zorb-10 (v2)", "legobench-rplm"),
        ("lego:rplm:1", "Glorp-2k", "legobench-rplm"),
    ]
    assert boards[0].properties()["row"] == 0
    lines = [r for r in recs if isinstance(r, TitleLine) and r.leaderboard == "lego:rplm:0"]
    assert [t.text for t in lines] == GT0  # never cleaned
    assert len({t.id for t in lines}) == 6  # duplicates stay two entries
    entries = [r for r in recs if isinstance(r, HasEntry) and r.start == "lego:rplm:0"]
    assert [(e.gt_rank, e.option_index) for e in entries] == [
        (1, 2), (2, 5), (3, 1), (4, 4), (5, 0), (6, 3),
    ]  # fmt: skip
    metrics = {m.name: m.direction for m in recs if isinstance(m, Metric)}
    assert metrics == {"Top-1 Accuracy": "higher", "Zorbness": "unknown"}


def test_rplm_graph_and_title_linking(store: FalkorDBStore, rplm: Path) -> None:
    store.apply_schema()
    # papers that some lines resolve to; the split fragments must not resolve
    store.merge_nodes(
        "Paper",
        [Paper(arxiv_id="2001.00022", title="Beta glorps").row(),
         Paper(arxiv_id="2001.00011", title="Alpha Glorps").row(),
         Paper(arxiv_id="2101.00005", title="Plain zorb paper").row(),
         Paper(arxiv_id="2101.00006", title="Zorb Nets: Methods, Analysis and Insights from "
               "Glorps").row()],
    )  # fmt: skip
    stats = run_resumable(store, read_rplm_graph(rplm), source=rplm, batch_size=1)
    assert stats.records == 2
    counts = store.counts()
    assert counts.nodes["Leaderboard"] == 2 and counts.nodes["TitleLine"] == 8
    assert counts.relationships["HAS_ENTRY"] == 8
    assert link_title_lines(store) == 4  # Beta, Alpha, and both "Plain Zorb Paper" lines
    assert link_title_lines(store) == 4  # idempotent
    rows = store.run(
        "MATCH (lb:Leaderboard {id: 'lego:rplm:0'})-[e:HAS_ENTRY]->(t:TitleLine) "
        "OPTIONAL MATCH (t)-[:OF_PAPER]->(p:Paper) "
        "RETURN e.gt_rank AS rank, t.text AS text, p.id AS paper ORDER BY rank"
    )
    assert [r["text"] for r in rows] == GT0
    assert [r["paper"] for r in rows] == [None, None, None, None, "arxiv:2101.00005",
                                          "arxiv:2101.00005"]  # fmt: skip
    gold = store.run_named("leaderboard_gold", {"leaderboardId": "lego:rplm:1"})
    assert [(g["gt_rank"], g["line"], g["arxiv_id"]) for g in gold] == [
        (1, "Beta glorps", "2001.00022"), (2, "Alpha glorps", "2001.00011"),
    ]  # fmt: skip


def test_rplm_bad_row_names_spreadsheet_row(tmp_path: Path) -> None:
    path = _xlsx(
        tmp_path / "bad.xlsx",
        [(Q.format(t="T", d="D", m="F1"), ["a", "b"], ["b", "a"]),
         ("no query line here", ["a"], ["a"])],
    )  # fmt: skip
    with pytest.raises(InputError) as info:
        list(read_rplm_graph(path))
    assert info.value.line == 3 and info.value.field == "instruction"


def _gt(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_ground_truth_into_graph(store: FalkorDBStore, tmp_path: Path) -> None:
    store.apply_schema()
    store.merge_nodes("Paper", [{"id": f"arxiv:2001.0001{i}"} for i in (1, 2, 3)])
    path = _gt(
        tmp_path / "leaderboards.jsonl",
        [{"task": "Glorp Modelling", "dataset": "Glorp-2k", "metric": "Zorbness",
          "higher_is_better": False, "ranking": ["2001.00012", "2001.00013", "2001.00011",
                                                 "2001.00019"],
          "scores": [1.5, 2.0, 3.25, 4.0], "methods": ["B", "C", "A", "Z"]}],
    )  # fmt: skip
    stats = run_resumable(store, read_ground_truth(path), source=path)
    # the fourth paper is not in the graph: its entry is skipped and counted, not invented
    assert stats.write.skipped_relationships["HAS_ENTRY"] == 1
    lb = ids.leaderboard_id("Glorp Modelling", "Glorp-2k", "Zorbness")
    gold = store.run_named("leaderboard_gold", {"leaderboardId": lb})
    assert [(g["gt_rank"], g["paper_id"], g["score"], g["method"]) for g in gold] == [
        (1, "arxiv:2001.00012", 1.5, "B"), (2, "arxiv:2001.00013", 2.0, "C"),
        (3, "arxiv:2001.00011", 3.25, "A"),
    ]  # fmt: skip
    # the file's explicit direction beats the pattern table (which does not know "Zorbness")
    rows = store.run("MATCH (m:Metric) RETURN m.name AS name, m.direction AS d")
    assert rows == [{"name": "Zorbness", "d": "lower"}]


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"task": "T", "dataset": "D", "metric": ""}, "metric"),
        ({"task": "T", "dataset": "D", "metric": "M", "ranking": []}, "ranking"),
        ({"task": "T", "dataset": "D", "metric": "M", "ranking": ["1"], "scores": [1, 2]},
         "scores"),
        ({"task": "T", "dataset": "D", "metric": "M", "ranking": ["1"],
          "higher_is_better": "yes"}, "higher_is_better"),
        ({"task": "T", "dataset": "D", "metric": "M", "ranking": [7]}, "ranking[0]"),
    ],
)  # fmt: skip
def test_ground_truth_bad_lines(tmp_path: Path, row: dict[str, Any], field: str) -> None:
    good = {"task": "T", "dataset": "D", "metric": "M", "ranking": ["2001.00011"]}
    path = _gt(tmp_path / "gt.jsonl", [good, row])
    with pytest.raises(InputError) as info:
        list(read_ground_truth(path))
    assert info.value.line == 2 and info.value.field == field

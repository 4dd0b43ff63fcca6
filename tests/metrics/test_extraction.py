"""LGPLM table extraction and MR / MP / SP against values computed by hand."""

from __future__ import annotations

import pytest

from scholarkg.benchmark.metrics.extraction import (
    NOT_COMPARABLE_NOTE,
    ScoreTolerance,
    clean_cell,
    evaluate_leaderboard_tables,
    extract_entries,
    normalize_method,
    parse_markdown_tables,
    parse_score,
    score_leaderboard,
)
from scholarkg.errors import InputError

MESSY = """Sure! Here is the leaderboard you asked for:

| Rank | **Method** | Accuracy (%) | Params |
|---|:---|---:|---|
| 1 | **Zebra-Net Large**† | **85.3** ± 0.2 | 340M |
| 2 | Quokka [3] | 1,234.5 | 355M
| 3 | Lemur | 87.1% |
| 4 | *Heron-2* | - | 1.5B | extra |

Note that results may vary. A second table:
Model | F1
Otter | 0.853
"""


# ----------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    ("cell", "value", "percent"),
    [
        ("85.3", 85.3, False),
        ("**85.3**†", 85.3, False),
        ("85.3<sup>a</sup>", 85.3, False),
        ("91.2 ± 0.4", 91.2, False),
        ("91.2 +/- 0.4", 91.2, False),
        ("1,234.5", 1234.5, False),
        ("87.1%", 87.1, True),
        ("−3.2", -3.2, False),
        ("92.3 (dev)", 92.3, False),
        ("12.5e-1", 1.25, False),
    ],
)
def test_parse_score(cell: str, value: float, percent: bool) -> None:
    parsed = parse_score(cell)
    assert parsed is not None
    assert parsed.value == pytest.approx(value) and parsed.percent is percent


@pytest.mark.parametrize("cell", ["", "-", "—", "N/A", "F1", "Top-1", "340M", "about five"])
def test_parse_score_rejects_non_scores(cell: str) -> None:
    assert parse_score(cell) is None


def test_clean_cell() -> None:
    assert clean_cell("**Zebra-Net Large**†") == "Zebra-Net Large"
    assert clean_cell("Quokka [3]") == "Quokka"
    assert clean_cell("  _Lemur_*  ") == "Lemur"


def test_parse_tables_in_prose_ragged_and_multiple() -> None:
    tables = parse_markdown_tables(MESSY)
    assert len(tables) == 2
    first, second = tables
    assert first.header == ["Rank", "Method", "Accuracy (%)", "Params", ""]  # widened
    assert len(first.rows) == 4 and all(len(r) == 5 for r in first.rows)
    assert first.rows[1][3] == "355M" and first.rows[2][3] == ""  # short rows padded
    assert first.first_line == 2
    # no separator: first row is the header because none of its cells is a number
    assert second.header == ["Model", "F1"] and second.rows == [["Otter", "0.853"]]


def test_table_without_header() -> None:
    tables = parse_markdown_tables("| A | 1.0 |\n| B | 2.0 |")
    assert len(tables) == 1 and not tables[0].has_header
    assert tables[0].header == ["col1", "col2"] and len(tables[0].rows) == 2


def test_no_table() -> None:
    assert parse_markdown_tables("I cannot produce this leaderboard.") == []
    assert extract_entries("just prose") == []


def test_extract_entries_picks_columns() -> None:
    entries = extract_entries(MESSY)
    got = [(e.method, e.score, e.percent) for e in entries]
    assert got == [
        ("Zebra-Net Large", 85.3, False),  # rank and params columns are never the score
        ("Quokka", 1234.5, False),
        ("Lemur", 87.1, True),
        ("Heron-2", None, False),
        ("Otter", 0.853, False),
    ]


def test_extract_entries_uses_metric_name() -> None:
    text = "| Method | EM | F1 |\n|---|---|---|\n| Kiwi | 70.0 | 80.5 |"
    assert extract_entries(text)[0].score == 70.0  # first numeric column after the method
    assert extract_entries(text, metric="F1")[0].score == 80.5


def test_normalize_method_and_aliases() -> None:
    assert normalize_method("**Zebra-Net Large**†") == normalize_method("zebra net large")
    assert normalize_method("Zebra_Net (large)") == "zebranetlarge"
    aliases = {"Quokka": "Quick Optimised Kernel"}
    assert normalize_method("quokka", aliases) == normalize_method(
        "Quick-Optimised Kernel", aliases
    )


def test_tolerance() -> None:
    tol = ScoreTolerance()  # abs 0.01, rel 0.001, percent scaling on
    assert tol.matches(85.31, 85.3)  # |d| = 0.01 <= max(0.01, 0.0853)
    assert tol.matches(85.38, 85.3)  # 0.08 <= 0.0853 (relative bound)
    assert not tol.matches(85.4, 85.3)
    assert tol.matches(0.853, 85.3)  # fraction vs percent
    assert not ScoreTolerance(scale_percent=False).matches(0.853, 85.3)
    assert not tol.matches(None, 85.3)
    assert ScoreTolerance(abs_tol=0.5, rel_tol=0.0).matches(85.7, 85.3)


# ----------------------------------------------------------------------------- MR / MP / SP

GOLD = [
    [("Zebra-Net Large", 85.3), ("Quokka", 88.1), ("Lemur", 87.1), ("Heron", 89.0)],
    [("Kiwi", 10.0), ("Moa", 20.0)],
    [("Otter", 50.0)],
]
OUTPUTS: list[str | None] = [
    "| Method | Score |\n|---|---|\n"
    "| Zebra Net large | 85.3 |\n"  # correct method, correct score
    "| Quokka | 88.2 |\n"  # correct method, score off by 0.1 > max(0.01, 0.0881)
    "| lemur | 0.871 |\n"  # correct method, fraction of 87.1 -> correct score
    "| MadeUpNet | 90.0 |\n"  # not on the leaderboard
    "| **zebra-net LARGE** | 70.0 |\n",  # duplicate of row 1: ignored
    None,  # no answer
    "Leaderboard:\n| Model | Score |\n|--|--|\n| otter | 50.004 |",
]
# per leaderboard (gold, generated, correct methods, correct scores):
# (4, 4, 3, 2), (2, 0, 0, 0), (1, 1, 1, 1)


def test_micro_hand_computed() -> None:
    s = evaluate_leaderboard_tables(GOLD, OUTPUTS)
    assert (s.n_gold_methods, s.n_generated, s.n_correct_methods, s.n_correct_scores) == (
        7,
        5,
        4,
        3,
    )
    assert s.mr == pytest.approx(100 * 4 / 7)
    assert s.mp == pytest.approx(100 * 4 / 5)
    assert s.sp_generated == pytest.approx(100 * 3 / 5)  # paper §3.4 definition
    assert s.sp_correct == pytest.approx(100 * 3 / 4)  # paper §4.3 definition
    assert s.comparable is False and s.note == NOT_COMPARABLE_NOTE
    assert s.per_instance[0]["correct_scores"] == ["Zebra-Net Large", "Lemur"]
    assert "per_instance" not in s.to_dict()


def test_macro_hand_computed() -> None:
    s = evaluate_leaderboard_tables(GOLD, OUTPUTS, average="macro")
    assert s.mr == pytest.approx((75 + 0 + 100) / 3)
    assert s.mp == pytest.approx((75 + 100) / 2)  # leaderboard 2 generated nothing: skipped
    assert s.sp_generated == pytest.approx((50 + 100) / 2)
    assert s.sp_correct == pytest.approx((100 * 2 / 3 + 100) / 2)


def test_options_change_the_counts() -> None:
    strict = evaluate_leaderboard_tables(
        GOLD, OUTPUTS, tolerance=ScoreTolerance(scale_percent=False)
    )
    assert strict.n_correct_scores == 2  # lemur's 0.871 no longer matches 87.1
    aliased = evaluate_leaderboard_tables(
        [[("Quick Optimised Kernel", 88.1)]],
        ["| Method | Score |\n|-|-|\n| Quokka | 88.1 |"],
        aliases={"Quokka": "Quick Optimised Kernel"},
    )
    assert aliased.mr == 100.0 and aliased.sp_correct == 100.0
    one = score_leaderboard(
        [("Quick Optimised Kernel", 88.1), ("Kiwi", 70.0)],
        "| Method | Score |\n|-|-|\n| Quokka | 88.1 |\n| quick optimised kernel | 1.0 |",
        aliases={"Quokka": "Quick Optimised Kernel"},
    )
    # both rows name the same method: the first (Quokka, 88.1) wins, the repeat is dropped
    assert (one["n_gold"], one["n_generated"]) == (2, 1)
    assert one["correct_methods"] == one["correct_scores"] == ["Quick Optimised Kernel"]


def test_all_empty_is_undefined() -> None:
    s = evaluate_leaderboard_tables([[("Kiwi", 1.0)]], ["no table here"])
    assert s.mr == 0.0 and s.mp is None and s.sp_generated is None and s.sp_correct is None


def test_bad_arguments() -> None:
    with pytest.raises(InputError, match="average"):
        evaluate_leaderboard_tables(GOLD, OUTPUTS, average="weighted")
    with pytest.raises(InputError, match="outputs"):
        evaluate_leaderboard_tables(GOLD, OUTPUTS[:2])
    with pytest.raises(InputError, match="metric names"):
        evaluate_leaderboard_tables(GOLD, OUTPUTS, metrics=["F1"])

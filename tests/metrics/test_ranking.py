"""Ranked-list metrics (LEGOBench RPLM and RPG) against values computed by hand."""

from __future__ import annotations

import math

import pytest
from scipy.stats import kendalltau

from scholarkg.benchmark.metrics.ranking import (
    RankedListScores,
    clean_line,
    concordant_pairs,
    decode_response,
    evaluate_ranked_lists,
    evaluate_rankings,
    is_complete,
    is_exact,
    kendall_tau_b,
    match_positions,
    normalize_title,
    raw_response,
)
from scholarkg.errors import InputError

# ----------------------------------------------------------------------------- decoding


def test_decode_list_literal_joins_lines() -> None:
    cell = "['Alpha Nets', 'Beta: Don\\'t Stop']"  # as GPT-4's cells store it
    assert "\\'" in cell  # the stored text carries the escape ...
    assert decode_response(cell) == "Alpha Nets\nBeta: Don't Stop"  # ... clean decodes it
    assert raw_response(cell) == cell  # legobench-paper keeps it


@pytest.mark.parametrize("cell", [None, float("nan"), "", "   \n"])
def test_blank_cells_become_empty(cell: object) -> None:
    assert decode_response(cell) == ""
    assert raw_response(cell) == ""


@pytest.mark.parametrize(
    "cell",
    [
        "[1, 2]",  # not strings
        "[Alpha Nets]",  # not a literal
        "[__import__('os').system('true')]",  # a call: never evaluated
        "Intro text ['a', 'b']",  # literal not the whole cell
    ],
)
def test_decode_leaves_non_literals_alone(cell: str) -> None:
    assert decode_response(cell) == cell


def test_decode_numeric_cell_is_text() -> None:
    assert decode_response(3) == "3"


# ----------------------------------------------------------------------------- matchers


def test_substring_matcher_first_occurrence_lowercase() -> None:
    resp = "intro: ALPHA beta\nAlpha Beta again"
    # "alpha beta" first occurs at offset 7 (case-insensitive); "gamma" absent
    assert match_positions(["Alpha Beta", "gamma"], resp) == [7, -1]


def test_substring_matcher_nested_titles_tie() -> None:
    resp = "Graph Walkers for Molecules\nGraph Walkers"
    assert match_positions(["Graph Walkers", "Graph Walkers for Molecules"], resp) == [0, 0]


def test_normalized_matcher() -> None:
    resp = "1) ＺＥＢＲＡ-nets   for vision!\n2) quokka — tiny transformers"
    pos = match_positions(
        ["Zebra Nets for Vision", "Quokka: Tiny Transformers", "***"], resp, matcher="normalized"
    )
    assert pos[0] >= 0 and pos[1] > pos[0]
    assert pos[2] == -1  # normalises to nothing: absent, not "found at 0"
    assert normalize_title("  **Quokka:**  Tiny\tTransformers ") == "quokka tiny transformers"


def test_line_matcher_strips_markers_quotes_bold_html() -> None:
    resp = (
        "Here is the ranking:\n"
        "1. **Zebra Nets for Vision**\n"
        '- "Quokka: Tiny Transformers"\n'
        "<li>Lemur Pooling</li>\n"
        "I also like Heron Embeddings a lot"
    )
    titles = [
        "Zebra Nets for Vision",
        "Quokka: Tiny Transformers",
        "Lemur Pooling",
        "Heron Embeddings",
    ]
    assert match_positions(titles, resp, matcher="line") == [1, 2, 3, -1]
    # the substring matcher does find the title inside prose
    assert match_positions(["Heron Embeddings"], resp)[0] > 0
    assert clean_line("(2) 'Lemur Pooling'") == "lemur pooling"
    assert clean_line("3D Pose Nets") == "3d pose nets"  # leading digits are not a marker


def test_unknown_matcher_rejected() -> None:
    with pytest.raises(InputError, match="matcher"):
        match_positions(["a"], "a", matcher="fuzzy")


# ----------------------------------------------------------------------------- per instance


def test_complete_exact_and_ties() -> None:
    assert not is_complete([])
    assert not is_complete([0, -1])
    assert is_exact([5])  # n = 1 counts as exact
    assert is_exact([0, 0, 7])  # equal offsets count as ordered
    assert not is_exact([3, 1])


def test_concordant_pairs_hand_values() -> None:
    # pairs (0,1) ok, (0,2) absent, (0,3) ok, (1,2) absent, (1,3) tie -> no, (2,3) absent
    assert concordant_pairs([0, 10, -1, 10]) == pytest.approx(2 / 6)
    assert concordant_pairs([7]) == 0.0
    assert concordant_pairs([]) == 0.0


def test_kendall_tau_b_hand_value_with_ties() -> None:
    # x = 0,1,2 ; y = 42,0,0: pairs (0,1) D, (0,2) D, (1,2) tied in y.
    # tau_b = (C-D)/sqrt((C+D+Tx)(C+D+Ty)) = (0-2)/sqrt((2+0)(2+1)) = -2/sqrt(6)
    assert kendall_tau_b([0, 1, 2], [42, 0, 0]) == pytest.approx(-2 / math.sqrt(6))
    # a tie in both variables counts nowhere: x=(0,0,1), y=(0,0,1) -> C=2, D=0, Tx=Ty=0 -> 1
    assert kendall_tau_b([0, 0, 1], [0, 0, 1]) == pytest.approx(1.0)
    # matches scipy on a larger tied example
    x, y = [0, 1, 2, 3, 4, 5], [3, 3, 1, 9, 9, 2]
    assert kendall_tau_b(x, y) == pytest.approx(kendalltau(x, y, variant="b").statistic)


@pytest.mark.parametrize(("x", "y"), [([0], [3]), ([0, 1], [4, 4]), ([], [])])
def test_kendall_tau_b_undefined_is_nan(x: list[int], y: list[int]) -> None:
    assert math.isnan(kendall_tau_b(x, y))


# ----------------------------------------------------------------------------- RPLM aggregate

GOLD = [
    ["Zebra Nets", "Quokka Tiny", "Lemur Pooling"],
    ["Heron", "Otter", "Beaver and Mink"],
    ["Solo Paper"],
    ["Kiwi", "Moa"],
]
RESPONSES: list[str | None] = [
    "1. Zebra Nets\n2. Quokka Tiny\n3. Lemur Pooling",  # exact, tau 1, cp 1
    "Beaver and Mink\nHeron\nOtter",  # pos (16, 22, 0): tau -1/3, cp 1/3
    None,  # blank: incomplete, cp 0 (n < 2)
    "Moa, Kiwi",  # pos (5, 0): tau -1, cp 0
]


def test_evaluate_clean_hand_computed() -> None:
    s = evaluate_ranked_lists(GOLD, RESPONSES)
    assert isinstance(s, RankedListScores)
    assert (s.n_instances, s.n_scored, s.n_complete, s.n_exact, s.n_tau) == (4, 4, 3, 1, 3)
    assert s.cis == pytest.approx(75.0)
    assert s.bem == pytest.approx(1 / 3)
    assert s.ktau == pytest.approx((1 - 1 / 3 - 1) / 3)
    assert s.cp == pytest.approx(100 * (1 + 1 / 3 + 0 + 0) / 4)
    assert s.per_instance[1]["positions"] == [16, 22, 0]
    d = s.to_dict()
    assert {"cis", "bem", "ktau", "cp", "n_instances", "n_scored", "n_complete"} <= d.keys()
    assert "per_instance" not in d and "per_instance" in s.to_dict(per_instance=True)


def test_single_title_instance_is_exact_without_tau() -> None:
    s = evaluate_ranked_lists([["Solo Paper"]], ["solo paper!"])
    assert (s.cis, s.bem, s.ktau, s.cp) == (100.0, 1.0, None, 0.0)


def test_no_complete_instance_gives_undefined_bem() -> None:
    s = evaluate_ranked_lists([["A1", "B1"]], ["nothing"])
    assert s.cis == 0.0 and s.bem is None and s.ktau is None and s.cp == 0.0


def _rows(n: int, complete: set[int]) -> tuple[list[list[str]], list[str]]:
    gold = [[f"title-{i}-a", f"title-{i}-b"] for i in range(n)]
    resp = [f"title-{i}-a\ntitle-{i}-b" if i in complete else f"title-{i}-a" for i in range(n)]
    return gold, resp


def test_paper_protocol_scores_first_101_but_divides_cis_by_all() -> None:
    gold, resp = _rows(110, {0, 1, 2, 105, 106, 107, 108, 109})
    paper = evaluate_ranked_lists(gold, resp, protocol="legobench-paper")
    assert (paper.n_scored, paper.n_complete) == (101, 3)
    assert paper.cis == pytest.approx(100 * 3 / 110)
    assert paper.bem == 1.0 and paper.ktau == pytest.approx(1.0)
    assert paper.cp == pytest.approx(100 * 3 / 101)  # one pair per instance, 3 concordant
    clean = evaluate_ranked_lists(gold, resp)
    assert (clean.n_scored, clean.n_complete) == (110, 8)
    assert clean.cis == pytest.approx(100 * 8 / 110)
    assert clean.cp == pytest.approx(100 * 8 / 110)


def test_paper_protocol_hides_bem_ktau_below_one_percent() -> None:
    gold, resp = _rows(150, {0})  # 1/150 = 0.67 % < 1 %
    s = evaluate_ranked_lists(gold, resp, protocol="legobench-paper")
    assert s.cis == pytest.approx(100 / 150)
    assert s.bem is None and s.ktau is None
    assert any("CIS < 1%" in n for n in s.notes)
    assert evaluate_ranked_lists(gold, resp).bem == 1.0  # clean reports it


def test_paper_protocol_keeps_literal_escapes() -> None:
    gold = [["Don't Stop", "Alpha"]]
    cell = "['Don\\'t Stop', 'Alpha']"  # GPT-4 style: the apostrophe is stored escaped
    assert evaluate_ranked_lists(gold, [cell]).n_complete == 1
    assert evaluate_ranked_lists(gold, [cell], protocol="legobench-paper").n_complete == 0


def test_line_matcher_rejects_echo_inside_prose() -> None:
    gold = [["Zebra Nets", "Quokka Tiny"]]
    resp = ["I would rank Zebra Nets above Quokka Tiny."]
    assert evaluate_ranked_lists(gold, resp).n_complete == 1
    assert evaluate_ranked_lists(gold, resp, matcher="line").n_complete == 0


def test_bad_arguments() -> None:
    with pytest.raises(InputError, match="protocol"):
        evaluate_ranked_lists([["a"]], ["a"], protocol="paper")
    with pytest.raises(InputError, match="align"):
        evaluate_ranked_lists([["a"]], ["a", "b"])


def test_progress_callback() -> None:
    calls: list[tuple[int, int]] = []
    evaluate_ranked_lists(GOLD, RESPONSES, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]


# ----------------------------------------------------------------------------- RPG

RPG_GOLD = [["a", "b", "c"], ["x", "y", "z", "w"], ["p", "q"]]
RPG_PRED = [["a", "zz", "b", "c", "a"], ["w", "x", "y"], []]


def test_rpg_bottom_policy_hand_computed() -> None:
    # LB0: extra "zz" and repeated "a" ignored -> identical -> exact, tau 1
    # LB1: ranks w0 x1 y2, z missing -> 3; GT order x,y,z,w -> y=(1,2,3,0):
    #      C: (0,1)(0,2)(1,2) = 3, D: (0,3)(1,3)(2,3) = 3 -> tau 0
    # LB2: nothing found -> y constant -> NaN, skipped
    s = evaluate_rankings(RPG_GOLD, RPG_PRED)
    assert s.bem == pytest.approx(100 / 3)  # percentage, unlike RPLM
    assert (s.n_leaderboards, s.n_exact, s.n_tau) == (3, 1, 2)
    assert s.ktau == pytest.approx((1 + 0) / 2)
    assert "per_instance" not in s.to_dict()


def test_rpg_drop_policy_hand_computed() -> None:
    # LB1 keeps x,y,w: x=(0,1,3), y=(1,2,0): (0,1) C, (0,2) D, (1,2) D -> -1/3
    s = evaluate_rankings(RPG_GOLD, RPG_PRED, missing="drop")
    assert s.ktau == pytest.approx((1 - 1 / 3) / 2)
    assert s.bem == pytest.approx(100 / 3)


def test_rpg_bad_input() -> None:
    with pytest.raises(InputError, match="duplicate"):
        evaluate_rankings([["a", "a"]], [["a"]])
    with pytest.raises(InputError, match="missing"):
        evaluate_rankings([["a"]], [["a"]], missing="top")

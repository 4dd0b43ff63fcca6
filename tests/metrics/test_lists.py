"""AAAR-1.0 semantic list metrics against values computed by hand with a bag-of-words encoder."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from scholarkg.benchmark.metrics.lists import (
    PRF,
    f1_score,
    itf_idf,
    parse_numbered_list,
    pick_reviewer_list,
    s_match,
    s_scores,
    sn_scores,
    soft_prf,
)
from scholarkg.benchmark.metrics.similarity import l2_normalise
from scholarkg.errors import InputError

R2 = 1 / math.sqrt(2)


class Bow:
    """Deterministic encoder: word counts over a fixed vocabulary, L2-normalised."""

    def __init__(self, vocab: str = "a b c d e none") -> None:
        self.vocab = {w: i for i, w in enumerate(vocab.split())}
        self.encoded: list[str] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.encoded.extend(texts)
        out = np.zeros((len(texts), len(self.vocab)))
        for r, text in enumerate(texts):
            for word in text.lower().split():
                out[r, self.vocab[word]] += 1
        return l2_normalise(out)


class Fixed:
    """Encoder returning given vectors (normalised) for given strings."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def encode(self, texts: list[str]) -> np.ndarray:
        return l2_normalise(np.array([self.vectors[t] for t in texts], dtype=float))


# --- parsing ---------------------------------------------------------------------------------


def test_parse_numbered_list_keeps_prefixes_and_loses_continuations() -> None:
    reply = (
        "\n Here you go:\n1. First idea\n   continued here\n2. Second, see v2.0 notes\n- bullet\n"
    )
    assert parse_numbered_list(reply) == ["1. First idea", "2. Second, see v2.0 notes"]
    assert parse_numbered_list("use model v2.0 today") == ["2.0 today"]


def test_parse_numbered_list_fallbacks() -> None:
    assert parse_numbered_list("  no numbers here  ") == []
    assert parse_numbered_list("  no numbers here  ", open_model=True) == ["1. no numbers here"]
    assert parse_numbered_list("") == []


# --- S-P / S-R / S-F1 ------------------------------------------------------------------------


def test_soft_prf_kernel() -> None:
    sim = np.array([[1.0, 0.0], [0.0, 0.0]])
    assert soft_prf(sim) == PRF(0.5, 0.5, f1_score(0.5, 0.5))
    assert f1_score(0.5, 0.5) == pytest.approx(0.5)
    assert soft_prf(np.zeros((0, 3))) == PRF(0.0, 0.0, 0.0)
    assert f1_score(0.0, 0.0) == 0.0


def test_s_scores_per_paper_then_macro() -> None:
    preds = [["a", "b"], ["a"], []]
    golds = [["a"], ["a", "b", "c"], ["a"]]
    res = s_scores(preds, golds, encoder=Bow())
    # paper 1: P = (1 + 0)/2, R = 1; paper 2: P = 1, R = 1/3; paper 3: empty -> 0
    assert [p.precision for p in res.per_paper] == pytest.approx([0.5, 1.0, 0.0])
    assert [p.recall for p in res.per_paper] == pytest.approx([1.0, 1 / 3, 0.0])
    f1s = [2 * 0.5 / 1.5, 2 * (1 / 3) / (4 / 3), 0.0]
    assert [p.f1 for p in res.per_paper] == pytest.approx(f1s)
    assert res.precision == pytest.approx(0.5)
    assert res.recall == pytest.approx((1 + 1 / 3) / 3)
    assert res.f1 == pytest.approx(sum(f1s) / 3)
    # macro F1 is not the harmonic mean of the macro P and R
    assert res.f1 != pytest.approx(2 * res.precision * res.recall / (res.precision + res.recall))


def test_s_scores_all_match_none_match_single_item() -> None:
    assert s_scores([["a", "b"]], [["b", "a"]], encoder=Bow()).f1 == pytest.approx(1.0)
    none = s_scores([["a", "b"]], [["c", "d"]], encoder=Bow())
    assert (none.precision, none.recall, none.f1) == (0.0, 0.0, 0.0)
    single = s_scores([["a b"]], [["a"]], encoder=Bow())
    assert (single.precision, single.recall) == pytest.approx((R2, R2))
    assert single.f1 == pytest.approx(R2)


def test_s_scores_unclipped_negative_cosines() -> None:
    res = s_scores([["down"]], [["up"]], encoder=Fixed({"up": [1, 0], "down": [-1, 0]}))
    assert res.precision == -1.0
    assert res.recall == -1.0
    assert res.f1 == pytest.approx(-1.0)


def test_s_scores_encodes_each_text_once() -> None:
    enc = Bow()
    s_scores([["a", "b"], ["a"]], [["a"], ["a", "b"]], encoder=enc)
    assert sorted(enc.encoded) == ["a", "b"]


def test_s_scores_bad_input() -> None:
    with pytest.raises(InputError, match="2 prediction lists but 1"):
        s_scores([["a"], ["b"]], [["a"]], encoder=Bow())
    with pytest.raises(InputError, match=r"'p2'.*empty gold"):
        s_scores([["a"], ["b"]], [["a"], []], encoder=Bow(), ids=["p1", "p2"])
    with pytest.raises(InputError, match="item 1: expected a string"):
        s_scores([["a", 5]], [["a"]], encoder=Bow())  # type: ignore[list-item]  # the wrong type is the test
    with pytest.raises(InputError, match="no papers"):
        s_scores([], [], encoder=Bow())


# --- S-Match ---------------------------------------------------------------------------------


def test_s_match_aligned_and_cut_to_shorter() -> None:
    res = s_match([["a", "b", "c"], [], ["c"]], [["a", "a b"], ["a"], ["c"]], encoder=Bow())
    assert res.per_paper == pytest.approx([(1 + R2) / 2, 0.0, 1.0])
    assert res.value == pytest.approx(((1 + R2) / 2 + 1.0) / 3)


def test_s_match_none_match() -> None:
    assert s_match([["a"]], [["b"]], encoder=Bow()).value == 0.0


# --- SN-P / SN-R / SN-F1 ---------------------------------------------------------------------


def test_sn_scores_skips_empty_reviewers() -> None:
    preds = [["a", "b"], []]
    golds = [[["a"], ["b", "c"], []], [["a"]]]
    res = sn_scores(preds, golds, encoder=Bow())
    # pred a: reviewer1 best 1, reviewer2 best 0 -> .5; pred b: 0, 1 -> .5  => SN-P = .5
    # reviewer1 recall 1; reviewer2 recall (1 + 0)/2 = .5  => SN-R = .75 (K = 2, empty skipped)
    first = res.per_paper[0]
    assert (first.precision, first.recall) == pytest.approx((0.5, 0.75))
    assert first.f1 == pytest.approx(2 * 0.5 * 0.75 / 1.25)
    assert res.per_paper[1] == PRF(0.0, 0.0, 0.0)
    assert res.f1 == pytest.approx(0.6 / 2)
    assert res.precision == pytest.approx(0.25)


def test_sn_scores_single_reviewer_equals_s_scores() -> None:
    preds, gold = [["a b", "c"]], [["a", "d"]]
    sn = sn_scores(preds, [gold], encoder=Bow())
    s = s_scores(preds, gold, encoder=Bow())
    assert (sn.precision, sn.recall, sn.f1) == pytest.approx((s.precision, s.recall, s.f1))


def test_sn_scores_all_empty_reviewers_rejected() -> None:
    with pytest.raises(InputError, match="every reviewer list is empty"):
        sn_scores([["a"]], [[[], []]], encoder=Bow())


# --- ITF-IDF ---------------------------------------------------------------------------------


def test_itf_idf_hand_example() -> None:
    res = itf_idf([["a", "a b"], ["a"], ["c"]], encoder=Bow())
    o = 1 + R2  # both items of paper 1: self 1 + the other at 0.7071 (>= 0.5)
    item_a = math.log(2 / o) * math.log(3 / (1 + 1.0))  # cross max vs paper 2: 1.0
    item_ab = math.log(2 / o) * math.log(3 / (1 + 0.71))  # 0.7071 rounded to 0.71 first
    assert res.per_item[0] == pytest.approx([item_a, item_ab])
    assert res.per_item[1] == pytest.approx([0.0], abs=1e-12)  # one-item list
    assert res.per_item[2] == pytest.approx([0.0], abs=1e-12)
    assert res.score == pytest.approx((item_a + item_ab) / 2 / 3)


def test_itf_idf_threshold_zeroes_low_similarity() -> None:
    # paper 1 items are orthogonal; paper 2's item is 1/sqrt(5) = 0.447 -> 0.45 < 0.5 -> 0
    res = itf_idf([["a", "b"], ["a b c d e"]], encoder=Bow())
    assert res.per_item[0] == pytest.approx([math.log(2) ** 2] * 2)
    assert res.score == pytest.approx(math.log(2) ** 2 / 2)


def test_itf_idf_rounds_before_threshold() -> None:
    y = [0.4972, math.sqrt(1 - 0.4972**2), 0.0]
    enc = Fixed({"x": [1, 0, 0], "z": [0, 0, 1], "y": y})
    res = itf_idf([["x", "z"], ["y"]], encoder=enc)
    # x: cross max 0.4972 rounds to 0.50, which passes the threshold
    assert res.per_item[0] == pytest.approx(
        [math.log(2) * math.log(2 / 1.5), math.log(2) * math.log(2)]
    )
    unrounded = itf_idf([["x", "z"], ["y"]], encoder=enc, decimals=6)
    assert unrounded.per_item[0][0] == pytest.approx(math.log(2) ** 2)


def test_itf_idf_empty_list_becomes_placeholder() -> None:
    res = itf_idf([["a", "b"], []], encoder=Bow())
    assert len(res.per_item[1]) == 1
    assert res.per_item[0] == pytest.approx([math.log(2) ** 2] * 2)
    assert res.score == pytest.approx(math.log(2) ** 2 / 2)


def test_itf_idf_all_identical_is_zero_and_blocks_agree() -> None:
    same = itf_idf([["a", "a"], ["a", "a"]], encoder=Bow())
    # O = 2 -> ln(2/2) = 0
    assert same.score == pytest.approx(0.0)
    lists = [["a", "a b", "c"], ["b", "c d"], ["e", "a"], ["d"]]
    small = itf_idf(lists, encoder=Bow(), block_rows=2)
    large = itf_idf(lists, encoder=Bow(), block_rows=100)
    for got, want in zip(small.per_item, large.per_item, strict=True):
        assert got == pytest.approx(want)


def test_itf_idf_bad_input() -> None:
    with pytest.raises(InputError, match="no papers"):
        itf_idf([], encoder=Bow())
    with pytest.raises(InputError, match="self-similarity"):
        itf_idf([["a", "zzz"]], encoder=Fixed({"a": [1, 0], "zzz": [0, 0]}))


def test_pick_reviewer_list() -> None:
    lists = [[], ["x", "y"], ["z"]]
    assert pick_reviewer_list(lists, "longest") == ["x", "y"]
    assert pick_reviewer_list(lists, "all") == ["x", "y", "z"]
    picked = pick_reviewer_list(lists, "random", rng=random.Random(0))
    assert picked in (["x", "y"], ["z"])
    with pytest.raises(InputError):
        pick_reviewer_list([[], []], "random")
    with pytest.raises(InputError):
        pick_reviewer_list(lists, "best")  # type: ignore[arg-type]  # the wrong value is the test

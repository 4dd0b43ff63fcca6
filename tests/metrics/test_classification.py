"""Binary P/R/F1, ReviewCritique ensembles and EqInfer parsing, against hand-computed values."""

from __future__ import annotations

import pytest

from scholarkg.benchmark.metrics.classification import (
    Counts,
    binary_prf,
    both_no,
    correctly_flagged,
    counts,
    either_no,
    eqinfer_accuracy,
    eqinfer_binary_prf,
    eqinfer_choice,
    grouped_prf,
    harmonic,
    normalize_answer,
    parse_binary_label,
)
from scholarkg.errors import InputError
from scholarkg.loaders.aaar import parse_reliability

T, F = True, False


def test_counts_and_prf() -> None:
    gold = [T, T, F, F, T]
    pred = [T, F, T, F, F]
    assert counts(gold, pred) == Counts(tp=1, fp=1, fn=2, tn=1)
    s = binary_prf(gold, pred)
    assert s.precision == pytest.approx(1 / 2)
    assert s.recall == pytest.approx(1 / 3)
    assert s.f1 == pytest.approx(2 * (1 / 2) * (1 / 3) / (1 / 2 + 1 / 3))


def test_prf_all_match_none_match_empty() -> None:
    assert binary_prf([T, F], [T, F]).f1 == 1.0
    none = binary_prf([T, F], [F, T])
    assert (none.precision, none.recall, none.f1) == (0.0, 0.0, 0.0)
    empty = binary_prf([], [])
    assert (empty.precision, empty.recall, empty.f1) == (0.0, 0.0, 0.0)
    single = binary_prf([T], [T])
    assert (single.precision, single.recall, single.f1) == (1.0, 1.0, 1.0)


def test_prf_length_mismatch() -> None:
    with pytest.raises(InputError, match="2 gold labels but 1"):
        binary_prf([T, F], [T])


def test_grouped_micro_and_macro() -> None:
    review1 = ([T, F, F, F], [T, T, F, F])  # tp 1 fp 1 -> P .5 R 1 F1 2/3
    review2 = ([T, T, F], [F, T, F])  # tp 1 fn 1 -> P 1 R .5 F1 2/3
    review3 = ([F, F], [F, F])  # nothing -> 0, 0, 0
    micro = grouped_prf([review1, review2, review3], "micro")
    assert micro.counts == Counts(tp=2, fp=1, fn=1, tn=5)
    assert (micro.precision, micro.recall) == pytest.approx((2 / 3, 2 / 3))
    assert micro.units == 3
    macro = grouped_prf([review1, review2, review3], "macro")
    assert macro.precision == pytest.approx(1.5 / 3)
    assert macro.recall == pytest.approx(1.5 / 3)
    assert macro.f1 == pytest.approx((2 / 3 + 2 / 3) / 3)
    with pytest.raises(InputError):
        grouped_prf([], "micro")
    with pytest.raises(InputError):
        grouped_prf([review1], "weighted")  # type: ignore[arg-type]  # the wrong type is the test


def test_reviewcritique_ensembles() -> None:
    label_all = [T, T, F, F]
    select = [T, F, T, F]
    assert both_no(label_all, select) == [T, F, F, F]
    assert either_no(label_all, select) == [T, T, T, F]
    with pytest.raises(InputError):
        both_no([T], [T, F])
    with pytest.raises(InputError):
        either_no([T], [])


def test_parse_reliability() -> None:
    assert parse_reliability("No") is True
    assert parse_reliability(" yes ") is False
    with pytest.raises(InputError, match="segment r1#3: reliability"):
        parse_reliability(float("nan"), record="r1#3")


def test_correctly_flagged() -> None:
    assert correctly_flagged([T, T, F], [T, F, T]) == [0]


def test_normalize_answer_squad_without_articles() -> None:
    assert normalize_answer("  The (A).  answer ") == "the a answer"


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("A", "A"),
        ("(A).", "A"),
        ("**A**", "A"),
        (" b\n", "B"),
        ("Option A", None),
        ("The answer is A", None),
        ("E", None),
        ("", None),
    ],
)
def test_eqinfer_choice(reply: str, letter: str | None) -> None:
    assert eqinfer_choice(reply) == letter


def test_eqinfer_accuracy() -> None:
    acc = eqinfer_accuracy(["A", "(B).", "Option C", "D"], ["A", "C", "C", "d"])
    assert (acc.correct, acc.total, acc.unparsed) == (2, 4, 1)
    assert acc.value == 0.5
    assert eqinfer_accuracy(["A"], ["A"]).value == 1.0
    assert eqinfer_accuracy(["B"], ["A"]).value == 0.0
    with pytest.raises(InputError, match="item 0: answer"):
        eqinfer_accuracy(["A"], ["E"])
    with pytest.raises(InputError):
        eqinfer_accuracy([], [])


def test_eqinfer_binary_protocol() -> None:
    assert parse_binary_label(" 1. ") == 1
    assert parse_binary_label("yes") is None
    # one item, 4 options, option 1 correct; always answering 1 -> P .25 R 1 F1 .4
    always = eqinfer_binary_prf(["1", "1", "1", "1"], [1, 0, 0, 0])
    assert (always.precision, always.recall, always.f1) == pytest.approx((0.25, 1.0, 0.4))
    # unparseable replies take the wrong label: on a gold-1 option that is 0 (a miss),
    # on a gold-0 option it is 1 (a false positive)
    junk = eqinfer_binary_prf(["?", "?", "0", "0"], [1, 0, 0, 0])
    assert junk.counts == Counts(tp=0, fp=1, fn=1, tn=2)
    with pytest.raises(InputError):
        eqinfer_binary_prf(["1"], [2])


def test_harmonic_shows_reviewcritique_f1_is_not_pooled() -> None:
    assert harmonic(0.1694, 0.4212) == pytest.approx(0.2416, abs=1e-4)
    assert harmonic(0.0, 0.0) == 0.0

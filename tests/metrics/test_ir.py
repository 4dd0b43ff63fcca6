"""IR metrics against values computed by hand in each test."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from math import log2
from typing import Any

import pytest

from scholarkg.benchmark.metrics import METRICS, evaluate, metric_names, parse_metric
from scholarkg.benchmark.metrics.ir import MetricSpec, Run, ndcg, parse_metrics, rank_scores
from scholarkg.errors import InputError

# q1: relevant (grade >= 1) = a, c, d, e (R = 4); x is unjudged.
QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "d": 3, "e": 1}}
RUN = {"q1": ["b", "a", "x", "c", "d"]}  # grades 0, 2, -, 1, 3 ; relevant at ranks 2, 4, 5


def one(
    metric: str,
    qrels: Mapping[str, Mapping[str, float]] = QRELS,
    run: Run = RUN,
    **kw: Any,
) -> float:
    res = evaluate(qrels, run, [metric], **kw)
    return res.per_query["q1"][metric]


@pytest.mark.parametrize(
    ("metric", "expected"),
    [
        ("P@1", 0.0),
        ("P@2", 1 / 2),
        ("P@5", 3 / 5),
        ("P@10", 3 / 10),  # divides by k even though only 5 were returned
        ("R@2", 1 / 4),
        ("R@5", 3 / 4),
        ("R@100", 3 / 4),
        ("Hit@1", 0.0),
        ("Hit@2", 1.0),
        ("MRR", 1 / 2),
        ("MRR@1", 0.0),
        ("MRR@10", 1 / 2),
        ("MAP", (1 / 2 + 2 / 4 + 3 / 5) / 4),
        ("MAP@2", (1 / 2) / 4),
        ("MAP@4", (1 / 2 + 2 / 4) / 4),
        ("RP", 2 / 4),  # top 4 = b a x c -> a, c
    ],
)
def test_binary_metrics_by_hand(metric: str, expected: float) -> None:
    assert one(metric) == pytest.approx(expected, abs=1e-12)


def test_ndcg_linear_and_exp_by_hand() -> None:
    # DCG@3 of gains [0, 2, 0]; ideal gains [3, 2, 1]
    dcg = 2 / log2(3)
    idcg = 3 / log2(2) + 2 / log2(3) + 1 / log2(4)
    assert one("nDCG@3") == pytest.approx(dcg / idcg, abs=1e-12)
    # exponential gain 2^g - 1: [0, 3, 0] vs ideal [7, 3, 1]
    dcg_e = 3 / log2(3)
    idcg_e = 7 + 3 / log2(3) + 1 / log2(4)
    assert one("nDCGexp@3") == pytest.approx(dcg_e / idcg_e, abs=1e-12)
    # whole ranking: gains [0,2,0,1,3]; ideal over all five judged grades [3,2,1,1,0]
    dcg_all = 2 / log2(3) + 1 / log2(5) + 3 / log2(6)
    idcg_all = 3 + 2 / log2(3) + 1 / log2(4) + 1 / log2(5)
    assert one("nDCG") == pytest.approx(dcg_all / idcg_all, abs=1e-12)


def test_ndcg_convenience_function_gains() -> None:
    assert ndcg(QRELS, RUN, 3) == {"q1": pytest.approx(one("nDCG@3"))}
    assert ndcg(QRELS, RUN, 3, gain="exp") == {"q1": pytest.approx(one("nDCGexp@3"))}
    # whole-ranking exponential: gains [0,3,0,1,7] vs ideal [7,3,1,1,0]
    dcg = 3 / log2(3) + 1 / log2(5) + 7 / log2(6)
    idcg = 7 + 3 / log2(3) + 1 / log2(4) + 1 / log2(5)
    assert ndcg(QRELS, RUN, gain="exp")["q1"] == pytest.approx(dcg / idcg, abs=1e-12)
    with pytest.raises(InputError, match="gain"):
        ndcg(QRELS, RUN, 3, gain="log")  # type: ignore[arg-type]  # the wrong value is the test


def test_ndcg_gain_ignores_threshold_like_trec_eval() -> None:
    # with threshold 2, c/e are not relevant for binary metrics but still gain in nDCG
    assert one("P@5", relevance_threshold=2) == pytest.approx(2 / 5)
    assert one("nDCG@3", relevance_threshold=2) == pytest.approx(one("nDCG@3"))


def test_negative_grades_gain_zero_and_never_relevant() -> None:
    qrels = {"q1": {"a": -1, "b": 2}}
    run = {"q1": ["a", "b"]}
    assert one("nDCG@2", qrels, run) == pytest.approx((2 / log2(3)) / 2)
    assert one("MRR", qrels, run) == pytest.approx(1 / 2)


def test_scored_run_ties_break_by_docid_descending() -> None:
    assert rank_scores({"a": 1.0, "b": 1.0, "c": 0.5, "d10": 1.0, "d9": 1.0}) == [
        "d9",
        "d10",
        "b",
        "a",
        "c",
    ]
    qrels = {"q1": {"a": 1}}
    # a and b tie: b comes first, so a is at rank 2
    assert one("MRR", qrels, {"q1": {"a": 3.0, "b": 3.0, "c": 1.0}}) == pytest.approx(1 / 2)
    # no tie: the fast numpy path
    assert rank_scores({"a": 0.1, "b": 0.3, "c": 0.2}) == ["b", "c", "a"]


def test_duplicate_docids_keep_first_rank() -> None:
    qrels = {"q1": {"a": 1, "b": 1}}
    run = {"q1": ["c", "a", "a", "b"]}  # -> c a b
    assert one("P@3", qrels, run) == pytest.approx(2 / 3)
    assert one("MAP", qrels, run) == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_empty_single_all_and_none_relevant() -> None:
    empty = evaluate({"q1": {"a": 1}}, {"q1": []}, ["P@5", "MRR", "MAP", "nDCG@5", "RP"])
    assert empty.per_query["q1"] == {"P@5": 0.0, "MRR": 0.0, "MAP": 0.0, "nDCG@5": 0.0, "RP": 0.0}

    single = evaluate({"q1": {"a": 1}}, {"q1": ["a"]}, ["P@1", "P@10", "MRR", "MAP", "RP", "nDCG"])
    assert single.per_query["q1"] == pytest.approx(
        {"P@1": 1.0, "P@10": 0.1, "MRR": 1.0, "MAP": 1.0, "RP": 1.0, "nDCG": 1.0}
    )

    names = ["P@2", "R@2", "MAP", "RP", "nDCG@2", "Hit@1", "MRR"]
    all_rel = evaluate({"q1": {"a": 1, "b": 1}}, {"q1": ["a", "b"]}, names)
    assert all_rel.per_query["q1"] == pytest.approx(dict.fromkeys(names, 1.0))

    none_rel = evaluate({"q1": {"a": 0, "b": 0}}, {"q1": ["a", "b"]}, names)
    assert none_rel.per_query["q1"] == dict.fromkeys(names, 0.0)


def test_query_without_run_scores_zero_and_counts() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    res = evaluate(qrels, {"q1": ["a"]}, ["P@1", "nDCG@1"])
    assert res.per_query["q2"] == {"P@1": 0.0, "nDCG@1": 0.0}
    assert res.aggregate == {"P@1": 0.5, "nDCG@1": 0.5}
    assert res.n_queries == {"P@1": 2, "nDCG@1": 2}
    assert res.to_dict() == {"aggregate": res.aggregate, "per_query": res.per_query}


def test_run_query_not_in_qrels(caplog: pytest.LogCaptureFixture) -> None:
    qrels = {"q1": {"a": 1}}
    run = {"q1": ["a"], "zz": ["a"]}
    with pytest.raises(InputError, match="'zz'"):
        evaluate(qrels, run, ["P@1"])
    with caplog.at_level(logging.WARNING):
        res = evaluate(qrels, run, ["P@1"], on_unknown="ignore")
    assert list(res.per_query) == ["q1"]
    assert "zz" in caplog.text


def test_percentage_ndcg_and_mrr_max_by_hand() -> None:
    # a pool of 20 judged docs, raw grades; 10% of a 20-long ranking -> c = 2
    pool = {f"p{i:02d}": 0.0 for i in range(20)}
    pool.update({"p00": 5.0, "p01": 3.0, "p02": 5.0, "p03": 1.0})
    ranking = ["p03", "p01", "p00", *[f"p{i:02d}" for i in range(4, 20)], "p02"]
    qrels, run = {"q1": pool}, {"q1": ranking}
    dcg = 1 / log2(2) + 3 / log2(3)
    idcg = 5 / log2(2) + 5 / log2(3)
    assert one("NDCG_10%", qrels, run) == pytest.approx(dcg / idcg, abs=1e-12)
    dcg_e = 2**1 + 2**3 / log2(3)
    idcg_e = 2**5 + 2**5 / log2(3)
    assert one("NDCGexp_10%", qrels, run) == pytest.approx(dcg_e / idcg_e, abs=1e-12)
    # c depends on the submitted length: 30% of 20 = 6 (p00 at rank 3 adds 5/log2(4))
    dcg6 = dcg + 5 / log2(4)
    idcg6 = 5 + 5 / log2(3) + 3 / log2(4) + 1 / log2(5)
    assert one("NDCG_30%", qrels, run) == pytest.approx(dcg6 / idcg6, abs=1e-12)
    # targets are the docs at the pool maximum (p00, p02): first in the top 10 at rank 3
    assert one("MRRmax@10", qrels, run) == pytest.approx(1 / 3)
    assert one("MRRmax@2", qrels, run) == 0.0


def test_percentage_cutoff_zero_is_an_error() -> None:
    with pytest.raises(InputError, match="cut-off"):
        evaluate({"q1": {"a": 1}}, {"q1": ["a", "b", "c"]}, ["NDCG_10%"])
    # a query without any ranking simply scores 0
    res = evaluate({"q1": {"a": 1}}, {}, ["NDCG_10%"])
    assert res.per_query["q1"]["NDCG_10%"] == 0.0


def test_parse_metric_names() -> None:
    assert parse_metric("P@10") == MetricSpec("P@10", "P@k", k=10)
    assert parse_metric("ndcg@5") == MetricSpec("nDCG@5", "nDCG@k", k=5)
    assert parse_metric("recall@20").name == "R@20"
    assert parse_metric("map").name == "MAP"
    assert parse_metric("NDCG_10%") == MetricSpec("NDCG_10%", "NDCG_p%", pct=10.0)
    assert parse_metric("MRRmax@10").family == "MRRmax@k"
    assert [s.name for s in parse_metrics("P@10, MAP,P@10")] == ["P@10", "MAP"]


@pytest.mark.parametrize("bad", ["P@0", "P@x", "nDCG_10", "Foo", "NDCG_0%", "NDCG_150%", ""])
def test_unknown_metric_lists_the_table(bad: str) -> None:
    with pytest.raises(InputError) as err:
        parse_metrics([bad])
    if bad in {"P@0", "NDCG_0%", "NDCG_150%"}:
        # range errors say what is wrong with the parameter instead
        assert ("cut-off" if bad == "P@0" else "percentage") in str(err.value)
        return
    for template in metric_names():
        assert template in str(err.value)
    assert list(METRICS) == metric_names()


def test_metrics_given_as_specs_and_names_are_merged() -> None:
    res = evaluate(QRELS, RUN, [parse_metric("P@2"), "p@2", "MAP"])
    assert list(res.aggregate) == ["P@2", "MAP"]
    assert res.aggregate["P@2"] == pytest.approx(1 / 2)
    with pytest.raises(InputError, match="no metric"):
        evaluate(QRELS, RUN, [])


def test_bad_inputs_raise() -> None:
    with pytest.raises(InputError, match="threshold"):
        evaluate(QRELS, RUN, ["P@1"], relevance_threshold=0)
    with pytest.raises(InputError, match="no query"):
        evaluate({}, {}, ["P@1"])
    with pytest.raises(InputError, match="non-finite"):
        evaluate(QRELS, {"q1": {"a": float("nan")}}, ["P@1"])
    with pytest.raises(InputError, match="not a number"):
        evaluate({"q1": {"a": "high"}}, {"q1": ["a"]}, ["P@1"])  # type: ignore[dict-item]  # the wrong type is the test
    with pytest.raises(InputError, match="string"):
        evaluate(QRELS, {"q1": "abc"}, ["P@1"])


def test_inputs_are_not_modified_and_progress_is_reported() -> None:
    qrels = {f"q{i}": {"a": 1} for i in range(5)}
    run = {f"q{i}": ["b", "a", "a"] for i in range(5)}
    before = (repr(qrels), repr(run))
    calls: list[tuple[int, int]] = []
    evaluate(qrels, run, ["MAP"], progress=lambda d, t: calls.append((d, t)))
    assert (repr(qrels), repr(run)) == before
    assert calls[-1] == (5, 5)

"""DORIS-MAE relevance and metrics on a synthetic v1-schema dataset, checked by hand."""

from __future__ import annotations

import json
from math import log2
from typing import Any

import pytest

from scholarkg.benchmark.metrics.dorismae import (
    EXCLUDED_ABSTRACTS,
    PUBLISHED_METRICS,
    build_relevance,
    evaluate_dorismae,
    parse_dorismae_metric,
    query_units,
    random_expected_recall,
)
from scholarkg.errors import InputError
from scholarkg.loaders.dorismae import TEST_SPLIT_QIDS, grade_from_response

FILLER = list(range(100, 116))  # 16 zero-score abstracts -> pools of 20


def dataset() -> dict[str, Any]:
    """Two queries in the v1 schema, as a JSON round trip (int keys become strings)."""
    queries = [
        {
            "query_text": "synthetic query zero",
            "query_type": "ML",
            "candidate_pool": [10, 11, 12, 28674, *FILLER],
            # aspect "2" is also a sub-aspect of "1": four distinct units {1, 2, 3, 4}
            "aspects": {"1": ["2", "3"], "4": [], "2": []},
        },
        {
            "query_text": "synthetic query one",
            "query_type": "CV",
            "candidate_pool": [20, 21, 30, 31, *FILLER],
            "aspects": {"7": ["8"]},
        },
    ]
    ann = []
    for unit in ("1", "2", "3", "4"):
        ann.append({"aspect_id": unit, "abstract_id": 10, "score": 2})  # S=8, S/|Q|=2
        ann.append({"aspect_id": unit, "abstract_id": 28674, "score": 2})  # S=8 but excluded
    ann += [
        {"aspect_id": "1", "abstract_id": 11, "score": 2},  # S=4 -> 1.0, relevant (inclusive)
        {"aspect_id": "2", "abstract_id": 11, "score": 1},
        {"aspect_id": "3", "abstract_id": 11, "score": 1},
        {"aspect_id": "1", "abstract_id": 12, "score": 2},  # duplicates add: 2 + 1 - 1 = 2
        {"aspect_id": "1", "abstract_id": 12, "score": 1},
        {"aspect_id": "2", "abstract_id": 12, "score": -1},
        {"aspect_id": "9", "abstract_id": 12, "score": 2},  # unit of no query: ignored
        {"aspect_id": "7", "abstract_id": 20, "score": 1},  # query 1: best S/|Q| = 0.5
    ]
    data: dict[str, Any] = json.loads(json.dumps({"Query": queries, "Annotation": ann}))
    return data


def test_units_are_distinct_ids() -> None:
    assert query_units({"1": ["2", "3"], "4": [], "2": []}) == {"1", "2", "3", "4"}
    assert query_units({1: [2]}) == {"1", "2"}


def test_relevance_sums_thresholds_and_excludes() -> None:
    data = dataset()
    rel = build_relevance(data["Query"], data["Annotation"])
    assert rel.n_units == {"0": 4, "1": 2}
    raw0 = rel.raw["0"]
    assert (raw0["10"], raw0["11"], raw0["12"], raw0["28674"], raw0["100"]) == (8, 4, 2, 8, 0)
    assert rel.normalised("0")["11"] == 1.0
    assert rel.relevant("0") == {"10", "11"}  # 28674 excluded, 12 at 0.5
    assert rel.relevant("1") == set()
    assert rel.queries_with_relevant() == ["0"]
    assert "28674" in EXCLUDED_ABSTRACTS


def ranking_q0() -> list[int]:
    return [12, 10, 11, 28674, *FILLER]  # 20 abstracts -> c = int(0.1 * 20) = 2


def test_published_metrics_by_hand_upstream_protocol() -> None:
    data = dataset()
    rel = build_relevance(data["Query"], data["Annotation"])
    run = {0: ranking_q0(), 1: [21, 20, 30, 31, *FILLER]}
    res = evaluate_dorismae(rel, run)
    q0 = res.per_query["0"]
    assert q0["R@5"] == 1.0
    assert q0["R@20"] == 1.0
    assert q0["RP"] == pytest.approx(1 / 2)  # top 2 = 12, 10
    assert q0["MAP"] == pytest.approx((1 / 2 + 2 / 3) / 2)
    # gains are raw S; the ideal takes the pool's two best (10 and the excluded 28674)
    assert q0["NDCG_10%"] == pytest.approx((2 + 8 / log2(3)) / (8 + 8 / log2(3)))
    assert q0["NDCGexp_10%"] == pytest.approx((2**2 + 2**8 / log2(3)) / (2**8 + 2**8 / log2(3)))
    assert q0["MRR@10"] == pytest.approx(1 / 2)  # 10 ties 28674 at the maximum

    q1 = res.per_query["1"]  # no relevant abstract: only NDCG and MRR
    assert set(q1) == {"NDCG_10%", "NDCGexp_10%", "MRR@10"}
    # raw S of query 1: 20 -> 1, all others 0; ranking puts 21 (0) first, c = 2
    assert q1["NDCG_10%"] == pytest.approx((1 / log2(3)) / 1)
    assert q1["NDCGexp_10%"] == pytest.approx((1 + 2 / log2(3)) / (2 + 1 / log2(3)))
    assert q1["MRR@10"] == pytest.approx(1 / 2)

    assert res.n_queries == {
        "R@5": 1, "R@20": 1, "RP": 1, "NDCG_10%": 2, "NDCGexp_10%": 2, "MRR@10": 2, "MAP": 1,
    }  # fmt: skip
    assert list(res.aggregate) == list(PUBLISHED_METRICS)
    assert res.aggregate["R@5"] == 1.0
    assert res.aggregate["NDCG_10%"] == pytest.approx((q0["NDCG_10%"] + q1["NDCG_10%"]) / 2)


def test_paper_protocol_drops_queries_without_relevant_everywhere() -> None:
    data = dataset()
    rel = build_relevance(data["Query"], data["Annotation"])
    res = evaluate_dorismae(rel, {0: ranking_q0(), 1: [21, 20, 30, 31, *FILLER]}, protocol="paper")
    assert set(res.n_queries.values()) == {1}
    assert res.per_query["1"] == {}
    assert res.aggregate["NDCG_10%"] == pytest.approx(res.per_query["0"]["NDCG_10%"])


def test_missing_ranking_scores_zero_and_query_subset() -> None:
    data = dataset()
    rel = build_relevance(data["Query"], data["Annotation"])
    res = evaluate_dorismae(rel, {}, ["R@5", "MRR@10"])
    assert res.per_query["0"] == {"R@5": 0.0, "MRR@10": 0.0}
    only1 = evaluate_dorismae(rel, {1: [21, 20, 30, 31, *FILLER]}, ["MRR@10"], queries=["1"])
    assert list(only1.per_query) == ["1"]
    empty = evaluate_dorismae(rel, {}, ["R@5"], queries=["1"])  # nobody qualifies
    assert empty.n_queries["R@5"] == 0
    assert empty.aggregate["R@5"] != empty.aggregate["R@5"]  # NaN


def test_errors() -> None:
    data = dataset()
    rel = build_relevance(data["Query"], data["Annotation"])
    with pytest.raises(InputError, match="candidate pool"):
        evaluate_dorismae(rel, {0: [999, *ranking_q0()]})
    with pytest.raises(InputError, match="cut-off"):
        evaluate_dorismae(rel, {0: [10, 11, 12]}, ["NDCG_10%"])
    with pytest.raises(InputError, match="not a DORIS-MAE query"):
        evaluate_dorismae(rel, {5: [10]})
    with pytest.raises(InputError, match="protocol"):
        evaluate_dorismae(rel, {}, protocol="nope")  # type: ignore[arg-type]  # the wrong value is the test
    with pytest.raises(InputError, match="valid names"):
        evaluate_dorismae(rel, {}, ["nDCG@10"])
    bad = dataset()
    bad["Annotation"][3]["score"] = "two"
    with pytest.raises(InputError, match="Annotation record 3") as err:
        build_relevance(bad["Query"], bad["Annotation"], source="v1.json")
    assert err.value.field == "score"
    del bad["Query"][1]["aspects"]
    with pytest.raises(InputError, match="Query record 1"):
        build_relevance(bad["Query"], [], source="v1.json")


def test_metric_labels_map_to_doris_semantics() -> None:
    label, generic, binary = parse_dorismae_metric("MRR@10")
    assert (label.name, generic.family, binary) == ("MRR@10", "MRRmax@k", False)
    assert parse_dorismae_metric("R@5")[2] is True


@pytest.mark.parametrize(
    ("text", "grade"),
    [
        ("Reasoning ... so I CONCUR", 2),
        ("final answer: AGREE", 1),
        ("I DISPUTE this", 1),
        ("DISAGREE", 0),
        ("no verdict here", -1),
        ("AGREE or DISAGREE?", -1),
        ("", -1),
        (None, -1),
    ],
)
def test_grade_from_response(text: str | None, grade: int) -> None:
    assert grade_from_response(text) == grade


def test_constants_and_random_baseline() -> None:
    assert len(TEST_SPLIT_QIDS) == 60 and TEST_SPLIT_QIDS[:3] == ("1", "8", "10")
    # E[R@5] = mean(min(5, N)/N) over pools of 100 and 125
    assert random_expected_recall([100, 125], 5) == pytest.approx((5 / 100 + 5 / 125) / 2)
    with pytest.raises(InputError):
        random_expected_recall([], 5)

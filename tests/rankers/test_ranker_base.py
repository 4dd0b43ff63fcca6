"""The shared Ranker contract: ordering rule, timing/params on Ranking, candidate handling."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from scholarkg.benchmark.rankers import Ranker, Ranking, rankings_to_run, top_k
from scholarkg.errors import InputError


class FixedRanker(Ranker[str]):
    """Scores documents from a fixed table; the query is ignored."""

    name = "fixed"

    def __init__(self, scores: dict[str, float]) -> None:
        super().__init__({"n": len(scores)})
        self.table = scores
        self.seen_candidates: list[Sequence[str] | None] = []

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[Sequence[str], Sequence[float]]:
        self.seen_candidates.append(candidates)
        ids = list(self.table) if candidates is None else list(candidates)
        idx, vals = top_k(np.array([self.table.get(i, 0.0) for i in ids]), k)
        return [ids[i] for i in idx], vals.tolist()


def test_top_k_orders_by_score_then_position() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.1, 0.9, 0.5])
    idx, vals = top_k(scores, 4)
    # two 0.9 ties by position (1, 4), then the first 0.5 ties in position order (0, 2)
    assert idx.tolist() == [1, 4, 0, 2]
    assert vals.tolist() == [0.9, 0.9, 0.5, 0.5]


def test_top_k_edge_cases() -> None:
    assert top_k(np.array([1.0, 2.0]), 0)[0].tolist() == []
    assert top_k(np.array([1.0, 2.0]), 10)[0].tolist() == [1, 0]
    assert top_k(np.zeros(0), 3)[0].tolist() == []


def test_rank_records_name_params_timing_and_query_id() -> None:
    r = FixedRanker({"a": 1.0, "b": 3.0, "c": 2.0})
    ranking = r.rank("anything", 2, query_id="q1")
    assert ranking.ids == ["b", "c"]
    assert ranking.scores == [3.0, 2.0]
    assert ranking.ranker == "fixed"
    assert ranking.params == {"n": 3}
    assert ranking.query_id == "q1"
    assert ranking.elapsed_s >= 0.0
    assert ranking.as_dict() == {"b": 3.0, "c": 2.0}


def test_candidates_are_deduplicated_in_order() -> None:
    r = FixedRanker({"a": 1.0, "b": 1.0})
    ranking = r.rank("q", 5, candidates=["b", "a", "b"])
    assert r.seen_candidates[-1] == ["b", "a"]
    # equal scores: candidate order breaks the tie
    assert ranking.ids == ["b", "a"]


def test_negative_k_is_input_error() -> None:
    with pytest.raises(InputError, match="k must be >= 0"):
        FixedRanker({"a": 1.0}).rank("q", -1)


def test_rank_many_and_run_dict() -> None:
    r = FixedRanker({"a": 1.0, "b": 2.0, "c": 3.0})
    out = r.rank_many({"q1": "x", "q2": "y"}, 2, candidates={"q2": ["a", "b"]})
    assert out["q1"].ids == ["c", "b"]
    assert out["q2"].ids == ["b", "a"]
    assert rankings_to_run(out) == {"q1": {"c": 3.0, "b": 2.0}, "q2": {"b": 2.0, "a": 1.0}}


def test_ranking_rejects_mismatched_lengths() -> None:
    with pytest.raises(ValueError, match="2 ids but 1 scores"):
        Ranking(ids=["a", "b"], scores=[1.0], ranker="x")

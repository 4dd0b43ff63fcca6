"""``GraphPageRank``: (personalized) PageRank under the shared ranker interface."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from scholarkg.benchmark.rankers.base import Ranker, StoreRanker
from scholarkg.benchmark.rankers.pagerank import GraphPageRank
from scholarkg.errors import InputError
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.pagerank import pagerank

EDGES = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "c"), ("e", "d")]


@dataclass(frozen=True)
class SeededQuery:
    text: str
    seeds: tuple[str, ...]


@pytest.fixture
def graph(store: FalkorDBStore) -> FalkorDBStore:
    store.apply_schema()
    store.merge_nodes("Paper", [{"id": i} for i in "abcde"])
    store.merge_relationships("CITES", "Paper", "Paper", [{"start": s, "end": t} for s, t in EDGES])
    return store


def _by_hand(ids: list[str], bias: dict[str, float] | None = None) -> dict[str, float]:
    pos = {n: i for i, n in enumerate(ids)}
    sub = [(pos[s], pos[t]) for s, t in EDGES if s in pos and t in pos]
    scores, _, _ = pagerank(
        len(ids), np.asarray([s for s, _ in sub]), np.asarray([t for _, t in sub]), None,
        source_bias={pos[k]: v for k, v in bias.items()} if bias else None,
    )  # fmt: skip
    return {n: float(scores[pos[n]]) for n in ids}


def test_global_pagerank_on_the_candidates_with_name_params_timing(graph: FalkorDBStore) -> None:
    ranker = GraphPageRank().bind(graph)
    assert isinstance(ranker, StoreRanker) and isinstance(ranker, Ranker)
    got = ranker.rank("ignored text", 3, candidates=["a", "b", "c", "d"], query_id="q1")
    want = _by_hand(["a", "b", "c", "d"])
    order = sorted(want, key=lambda n: (-want[n], "abcd".index(n)))[:3]
    assert got.ids == order
    assert got.scores == pytest.approx([want[n] for n in order])
    assert got.ranker == "pagerank" and got.params["rel_type"] == "CITES"
    assert got.query_id == "q1" and got.elapsed_s >= 0.0


def test_personalized_pagerank_restarts_at_the_seeds(graph: FalkorDBStore) -> None:
    ranker = GraphPageRank(personalized=True).bind(graph)
    got = ranker.rank_query(SeededQuery("q", ("e",)), candidates=["a", "b", "c", "d"])
    want = _by_hand(["a", "b", "c", "d", "e"], {"e": 1.0})
    order = sorted("abcd", key=lambda n: (-want[n], "abcd".index(n)))
    assert got.ids == order and "e" not in got.ids  # seeds walk, candidates are ranked
    assert got.ranker == "personalized-pagerank" and got.info["ran_iterations"] >= 1
    with pytest.raises(InputError, match="seed nodes"):
        ranker.rank("no seeds here", 2, candidates=["a", "b"])
    with pytest.raises(InputError, match="candidate set"):
        GraphPageRank().bind(graph).rank("q", 2)
    with pytest.raises(InputError, match="not bound"):
        GraphPageRank().rank("q", 2, candidates=["a"])

"""Our DORIS-MAE rankers on hand-made pools: what each signal adds, computed by hand."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from scholarkg.benchmark.rankers.base import Ranker
from scholarkg.benchmark.tasks.dorismae.rankers import (
    AspectRanker,
    GraphRerankRanker,
    PoolBM25Ranker,
    clean_abstract,
    split_sentences,
)
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore


class FixedRanker(Ranker[str]):
    """Scores given by hand."""

    name = "fixed"

    def __init__(self, scores: dict[str, float]) -> None:
        self.scores = scores
        super().__init__({})

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[Sequence[str], Sequence[float]]:
        ids = sorted(candidates or self.scores, key=lambda c: -self.scores[c])
        return ids[:k], [self.scores[c] for c in ids[:k]]


def test_graph_rerank_lifts_the_cited_neighbour_of_the_top_hit() -> None:
    # base: a > b = c = d (0); a cites d, so PPR seeded at a (and b, c with bias ~0) lifts d
    base = FixedRanker({"a": 1.0, "b": 0.5, "c": 0.0, "d": 0.0})
    ranker = GraphRerankRanker(base, {"a": ["d"]}, seeds=1, weight=1.0)
    ranking = ranker.rank("q", 4, candidates=["a", "b", "c", "d"])
    # min-max base: a 1, b 0.5, c 0, d 0. PPR seeded at a on the undirected edge a-d: a starts
    # at 0.15, d receives 0.85 x 0.15 = 0.1275 in superstep 1 and sends 0.85 of it back, so
    # ppr(d) / ppr(a) = 0.1275 (1 + 0.7225 + ...) / (0.15 (1 + 0.7225 + ...)) = 0.85 after
    # min-max (b = c = 0): final a = 2, d = 0.85, b = 0.5, c = 0
    assert ranking.ids == ["a", "d", "b", "c"]
    assert ranking.scores[1] == pytest.approx(0.85, abs=1e-6)


def test_aspect_sum_prefers_covering_several_units_over_repeating_one() -> None:
    texts = {
        "cover": "graph neural network. citation recommendation. contrastive loss.",
        "repeat": "graph graph graph graph neural neural network network network network.",
        "none": "unrelated words only here.",
    }
    units = {"the query": ["graph neural network", "citation recommendation", "contrastive loss"]}
    ranker = AspectRanker(units, mode="bm25", texts=texts)
    assert ranker.rank("the query", 3, candidates=list(texts)).ids == ["cover", "repeat", "none"]
    # whole-query BM25 is fooled by the repetition
    whole = PoolBM25Ranker(texts)
    assert whole.rank("graph neural network", 3, candidates=list(texts)).ids[0] == "repeat"
    with pytest.raises(InputError, match="no aspects stored"):
        ranker.rank("another query", 3, candidates=list(texts))


def test_upstream_cleaning_and_sentence_split() -> None:
    assert clean_abstract("see https://x.org/a $x$\nnext") == "see  x next"
    assert split_sentences("First one here. Ok. Third sentence!") == [
        "First one here.",
        "Third sentence!",
    ]


def test_llm_annotations_define_relevance_for_new_queries(fresh_doris_graph: GraphStore) -> None:
    """The optional pipeline: verdict words -> grades -> JUDGED {source: llm} -> relevance."""
    from dataclasses import dataclass

    from scholarkg.benchmark.tasks.dorismae.annotate import annotate_pairs
    from scholarkg.benchmark.tasks.dorismae.task import DorisMaeTask
    from scholarkg.loaders.writer import write_records

    @dataclass
    class Done:
        text: str

    class Client:
        model = "fake-llm"

        def complete_many(self, prompts: Sequence[str], **_: Any) -> list[Done]:
            # the first abstract of the pool satisfies everything, the rest nothing
            return [Done("... CONCUR" if first in p else "... DISAGREE") for p in prompts]

    task = DorisMaeTask()
    inst = task.build_instances(fresh_doris_graph, task.resolve_options({}))[0]
    units = {
        r["unit"]: r["text"]
        for r in fresh_doris_graph.run_named("dorismae/query_units", {"source": "dorismae"})
        if r["qid"] == inst.id
    }
    first_id = inst.data["pool"][0]
    first = inst.data["texts"][first_id]
    abstracts = {a: (inst.data["papers"][a], inst.data["texts"][a]) for a in inst.data["pool"]}
    records = annotate_pairs(Client(), units, abstracts)
    assert {r.score for r in records} == {0.0, 2.0} and all(r.source == "llm" for r in records)
    write_records(fresh_doris_graph, records)
    llm = {
        i.id: i
        for i in task.build_instances(
            fresh_doris_graph, task.resolve_options({"judgements": "llm"})
        )
    }
    raw = llm[inst.id].data["raw"]
    assert raw[first_id] == 2.0 * len(units) and sum(raw.values()) == raw[first_id]

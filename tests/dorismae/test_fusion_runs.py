"""The two fusion rankers' whole runs, recomputed here from their inputs' runs by the formulas.

``hybrid-rrf`` is RRF (k = 60) of the four input runs per query; ``fusion-learned`` is
Σ w·minmax(score) with, for each fold (parent query parity), the weight vector of the grid
that maximises NDCG_10% on the *other* fold (ties: the smaller weights). Both are written out
here independently of ``rankers/fusion.py``, so a refactor of the fusion code that changes a
single position of a fused run fails. They read the release through the recording double
(``doris_double``: the rows the live graph returns, ``test_doris_double.py``).
"""

from __future__ import annotations

from itertools import product

import pytest
from _fakes import HashEmbedder, RecordingStore

from scholarkg.benchmark.metrics.dorismae import evaluate_dorismae
from scholarkg.benchmark.rankers.base import Ranking
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import AnswerSource
from scholarkg.benchmark.tasks.dorismae.task import FUSED, DorisMaeTask, RankerKit


def _order(scores: dict[str, float]) -> list[str]:
    """Score descending, ties by first appearance (dicts keep insertion order)."""
    first = {d: i for i, d in enumerate(scores)}
    return sorted(scores, key=lambda d: (-scores[d], first[d]))


def _rrf(rankings: list[Ranking]) -> list[str]:
    fused: dict[str, float] = {}
    for r in rankings:
        for rank, d in enumerate(r.ids, 1):
            fused[d] = fused.get(d, 0.0) + 1.0 / (60 + rank)
    return _order(fused)


def _weighted(rankings: list[Ranking], weights: tuple[float, ...]) -> list[str]:
    fused: dict[str, float] = {}
    for r, w in zip(rankings, weights, strict=True):
        lo, hi = min(r.scores), max(r.scores)
        for d, s in zip(r.ids, r.scores, strict=True):
            fused[d] = fused.get(d, 0.0) + w * ((s - lo) / max(hi - lo, 1e-9))
    return _order(fused)


@pytest.mark.parametrize("task_kind", ["full", "subquery"])
def test_fused_runs_follow_the_formulas(doris_double: RecordingStore, task_kind: str) -> None:
    task = DorisMaeTask()
    embedder = HashEmbedder()
    options = task.resolve_options({"task": task_kind})
    instances = task.build_instances(doris_double, options)
    kit = RankerKit(
        doris_double, instances, AnswerSource.ranker("dense", embedder=embedder), options
    )
    parts = [kit.rank_all(kit.ranker(name)) for name in FUSED]
    for part in parts:  # every input ranks the whole pool, so RRF depth = pool size
        assert all(len(part[i.id]) == len(i.data["pool"]) for i in instances)

    rrf_run = run_task(task, doris_double, AnswerSource.ranker("hybrid-rrf", embedder=embedder),
                       {"task": task_kind})  # fmt: skip
    assert rrf_run.answers.by_instance == {i.id: _rrf([p[i.id] for p in parts]) for i in instances}
    assert rrf_run.answers.params == {
        "ranker": "hybrid-rrf", "inputs": list(FUSED), "method": "rrf k=60",
    }  # fmt: skip

    relevance = task.relevance(instances)
    parity = {i.id: int(i.data["parent"]) % 2 for i in instances}
    grid = [w for w in product((0.0, 0.5, 1.0, 2.0), repeat=len(FUSED)) if any(w)]
    best: dict[int, tuple[float, ...]] = {}
    for fold in (0, 1):
        dev = [q for q, p in parity.items() if p != fold]
        scored = []
        for w in grid:
            run = {q: _weighted([p[q] for p in parts], w) for q in dev}
            ndcg = evaluate_dorismae(relevance, run, ["NDCG_10%"], queries=dev)
            scored.append((ndcg.aggregate["NDCG_10%"], tuple(-x for x in w), w))
        best[fold] = max(scored)[2]
    learned = run_task(task, doris_double, AnswerSource.ranker("fusion-learned", embedder=embedder),
                       {"task": task_kind})  # fmt: skip
    expected = {i.id: _weighted([p[i.id] for p in parts], best[parity[i.id]]) for i in instances}
    assert learned.answers.by_instance == expected
    assert learned.answers.extra["fusion_weights"] == {"a": best[0], "b": best[1]}
    assert learned.answers.params["method"] == "CombSUM, weights learned on the other fold"
    # the fusion is not a copy of one input: it differs from each input on some query
    for part in parts:
        assert any(expected[q] != part[q].ids for q in expected)

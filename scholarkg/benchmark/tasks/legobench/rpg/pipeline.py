"""RPG as a library call: rank every leaderboard query with a bound ranker, then score.

For benchmarks and tests that want the numbers without a recorded run
(``benchmarks/bench_rpg.py``); a recorded run goes through ``run_task`` with
:class:`~.tasks.RPGTask`, which ranks and scores the same way. Only ``instance.query``
reaches the ranker; ``instance.gold`` is read by ``score_rpg``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scholarkg.benchmark.tasks.legobench.rpg.core import (
    ProgressFn,
    RPGConfig,
    RPGInstance,
    RPGScores,
    score_rpg,
)
from scholarkg.benchmark.tasks.legobench.rpg.rankers import RPGRanker
from scholarkg.store.base import GraphStore


@dataclass
class RPGRunResult:
    config: RPGConfig
    ranker: str
    ranker_params: dict[str, Any]
    predictions: dict[str, list[str]]
    candidate_counts: dict[str, int]
    scores: RPGScores
    timings: dict[str, float] = field(default_factory=dict)
    latencies: list[float] = field(default_factory=list)


def run_rpg(
    store: GraphStore,
    instances: Sequence[RPGInstance],
    config: RPGConfig,
    ranker: RPGRanker,
    *,
    progress: ProgressFn | None = None,
) -> RPGRunResult:
    """Rank every instance's query, then score against its ground truth.

    Only ``instance.query`` reaches the ranker; ``instance.gold`` is read by ``score_rpg``.
    """
    if ranker.config.name != config.name:
        raise ValueError(f"ranker built for {ranker.config.name!r}, run on {config.name!r}")
    t0 = time.perf_counter()
    ranker.bind(store).prepare()
    t_prep = time.perf_counter() - t0
    predictions: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    latencies: list[float] = []
    for n, inst in enumerate(instances, 1):
        q0 = time.perf_counter()
        ranking = ranker.rank_query(inst.query, query_id=inst.query.id)
        predictions[inst.query.id] = ranking.ids
        latencies.append(time.perf_counter() - q0)
        counts[inst.query.id] = int(ranking.info.get("n_candidates", len(ranking.ids)))
        if progress is not None:
            progress(n, len(instances))
    t1 = time.perf_counter()
    scores = score_rpg(instances, predictions)
    for qid, c in counts.items():
        scores.per_instance[qid]["n_candidates"] = float(c)
    scores.metrics["mean_candidates"] = sum(counts.values()) / len(counts) if counts else 0.0
    t2 = time.perf_counter()
    return RPGRunResult(
        config=config,
        ranker=ranker.name,
        ranker_params=ranker.describe(),
        predictions=predictions,
        candidate_counts=counts,
        scores=scores,
        timings={"prepare": t_prep, "rank": t1 - t0 - t_prep, "score": t2 - t1, "total": t2 - t0},
        latencies=latencies,
    )

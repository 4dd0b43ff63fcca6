"""RPLM end to end against the real local model (SmolLM2-135M behind ``start_local_server``).

One test, marked ``model``: prompts from the graph, completion-mode generation by a real
model over HTTP, scoring, the run record and the ANSWERED edges. What a 135M model answers
is not something to hard-code, so the test recomputes the per-instance scores by hand from
the answers the run stored. ``max_tokens`` is cut to keep it near half a minute on two cores.
The converted model is cached in pytest's cache dir, as in ``tests/services/test_llm_server``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.tasks.legobench.rplm import (
    RPLMSettings,
    build_rplm_instances,
)
from scholarkg.benchmark.tasks.legobench.run import run_rplm
from scholarkg.services.llm import LLMClient
from scholarkg.store.falkordb.store import FalkorDBStore


@pytest.mark.model
def test_rplm_with_smollm2(
    wstore: FalkorDBStore, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    from scholarkg.services.llm_server import start_local_server

    cache = getattr(request.config, "cache", None)  # None under -p no:cacheprovider
    cache_dir = Path(cache.mkdir("scholarkg-llm")) if cache is not None else tmp_path / "llm"
    # the three smallest leaderboards keep prompts and answers short
    smallest = sorted(build_rplm_instances(wstore), key=lambda i: (len(i.gt), i.id))[:3]
    ids = [i.id for i in smallest]
    settings = RPLMSettings(max_tokens=64, seed=1, concurrency=1)
    registry = RunRegistry(tmp_path / "runs")
    with (
        start_local_server(cache_dir=cache_dir) as server,
        LLMClient(server.base_url, timeout=300, max_retries=0) as client,
    ):
        run = run_rplm(wstore, client, ids=ids, seed=0, settings=settings, registry=registry)
        assert server.stats["served"] == 3
    assert run.models["llm"] == "smollm2-135m-instruct"
    usage = run.config["answer"]["extra"]["usage"]
    assert usage["requests"] == 3
    assert usage["completion_tokens"] > 0
    assert registry.load(run.id).per_instance == run.per_instance

    rows = wstore.run(
        "MATCH (:Run {id: $id})-[a:ANSWERED]->(lb:Leaderboard) RETURN lb.id AS id, a.text AS t",
        {"id": run.id},
    )
    answers = {r["id"]: r["t"] for r in rows}
    assert set(answers) == set(ids)
    by_id = {i.id: i for i in build_rplm_instances(wstore, ids=ids, seed=0)}
    n_complete = 0
    for lb_id, text in answers.items():
        # clean protocol by hand: lower-cased substring, first occurrence
        pos = [text.lower().find(t.lower()) for t in by_id[lb_id].gt]
        complete = all(p >= 0 for p in pos)
        n_complete += complete
        assert run.per_instance[lb_id]["complete"] == float(complete)
        n = len(pos)
        good = sum(
            1 for j in range(n) for k in range(j + 1, n) if 0 <= pos[j] < pos[k] and pos[k] >= 0
        )
        assert run.per_instance[lb_id]["CP"] == pytest.approx(100 * good / (n * (n - 1) / 2))
    assert run.metrics["CIS"] == pytest.approx(100 * n_complete / 3)
    print(f"\nSmolLM2 RPLM: {run.metrics} in {run.timings['total']:.1f} s")

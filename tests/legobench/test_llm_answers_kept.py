"""Model answers are kept (RPLM, LGPLM): a model run writes its raw completions as the task's
prediction file (``predictions.jsonl`` under ``--out``, ``predictions`` in the run record),
and importing that file (``bench run --predictions`` / ``bench import-predictions``: the
LEGOBench tasks build their instances from the graph) gives the run's metrics exactly.

The model is the loopback OpenAI-protocol server of ``tests/_fakes.py``; the graph is the
synthetic LEGOBench world on the session's embedded server.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _fakes import CANNED_MODEL, CannedServer

from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.task import AnswerSource, BenchmarkTask
from scholarkg.benchmark.tasks.legobench.task import LGPLMTask, RPLMTask
from scholarkg.services.llm import LLMClient
from scholarkg.store.falkordb.store import FalkorDBStore


def _round_trip(
    task: BenchmarkTask, store: FalkorDBStore, answer: Any, tmp_path: Path
) -> tuple[Any, list[dict[str, Any]]]:
    options = {"ids": None}
    with CannedServer(answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_task(task, store, AnswerSource.model(client), options, limit=4,
                       runs_dir=tmp_path / "runs", out_dir=tmp_path / "out",
                       record_in_graph=False)  # fmt: skip
    path = tmp_path / "out" / "predictions.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert RunRegistry(tmp_path / "runs").load(run.record.id).predictions == rows
    assert len(rows) == 4 and all(r["model"] == CANNED_MODEL for r in rows)
    again = run_task(task, store, AnswerSource.predictions(path), options, limit=4,
                     record_in_graph=False)  # fmt: skip
    assert again.result.aggregate == run.result.aggregate
    assert again.result.per_instance == run.result.per_instance
    assert again.record.models == {"llm": CANNED_MODEL}  # the file names its model
    assert again.record.config["answer"]["model"] == CANNED_MODEL
    return run, rows


def test_rplm_answers_round_trip(wstore: FalkorDBStore, tmp_path: Path) -> None:
    def answer(prompt: str) -> str:  # the titles in the order offered: complete, not all exact
        return prompt.split("metric", 1)[1].split(":", 1)[1]

    run, rows = _round_trip(RPLMTask(), wstore, answer, tmp_path)
    assert run.result.aggregate["CIS"] == pytest.approx(100.0)
    assert {r["id"] for r in rows} == {i.id for i in run.instances}
    assert all(isinstance(r["response"], str) for r in rows)


def test_lgplm_answers_round_trip(wstore: FalkorDBStore, tmp_path: Path) -> None:
    def answer(prompt: str) -> str:
        return "| Method | score |\n|---|---|\n| Anything | 1.0 |\n| Other | 2.5 |"

    run, rows = _round_trip(LGPLMTask(), wstore, answer, tmp_path)
    assert all(r["answer"].startswith("| Method") for r in rows)
    assert run.result.aggregate["n_generated"] == pytest.approx(2.0 * len(run.instances))

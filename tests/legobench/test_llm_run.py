"""The LLM-task run plumbing (``benchmark/tasks/llm_run.py``) on its own, without a graph.

RPLM and LGPLM exercise it end to end (``test_rplm_run*.py``, ``test_lgplm.py``); these
tests pin what the helpers put into a run record so both tasks keep recording the same keys.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.tasks.legobench.rplm import RPLMSettings
from scholarkg.benchmark.tasks.llm_run import (
    StageClock,
    check_answer_source,
    collect_answers,
    record_llm_run,
)
from scholarkg.errors import InputError


def test_exactly_one_answer_source(tmp_path: Path) -> None:
    for client, path in ((None, None), (object(), tmp_path / "p.jsonl")):
        with pytest.raises(InputError, match="exactly one of a model client or --predictions"):
            check_answer_source(client, path)
    check_answer_source(None, tmp_path / "p.jsonl")


def test_collect_answers_from_a_file_aligns_and_counts(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    rows = [
        {"id": "lb:a", "response": "A1\nA2", "model": "m1"},
        {"id": "lb:zzz", "response": "ignored"},
        {"id": "lb:c", "response": "  "},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = collect_answers(
        "legobench-rplm", ["lb:a", "lb:b", "lb:c"], ["p1", "p2", "p3"], client=None,
        predictions_path=path, settings=RPLMSettings(),
    )  # fmt: skip
    assert got.answers == ["A1\nA2", None, "  "]
    assert got.models == {"llm": "m1"}
    assert got.config == {
        "source": "predictions",
        "predictions": str(path),
        "layout": "jsonl",
        "n_blank_predictions": 1,
        "n_unmatched_predictions": 1,
        "n_missing_predictions": 1,
    }


def test_record_llm_run_merges_config_and_saves(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "lb:a", "response": "x"}\n', encoding="utf-8")
    collected = collect_answers(
        "legobench-rplm", ["lb:a"], ["p"], client=None, predictions_path=path,
        settings=RPLMSettings(),
    )  # fmt: skip
    clock = StageClock()
    for stage in ("build", "answer", "score"):
        clock.mark(stage)
    registry = RunRegistry(tmp_path / "runs")
    run = record_llm_run(
        None, "legobench/rplm", ids=["lb:a"], collected=collected, metrics={"cis": 50.0},
        per_instance={"lb:a": {"cis": 50.0}}, config={"seed": 3}, prompts={"rplm": "text"},
        clock=clock, notes=None, registry=registry, record_in_graph=True, write_answers=True,
    )  # fmt: skip
    assert run.config["seed"] == 3 and run.config["source"] == "predictions"
    assert run.models == {"llm": "answers"}  # no model name in the file: the file stem
    timings = run.timings
    assert set(timings) == {"build", "answer", "score", "total"}
    assert all(v >= 0 for v in timings.values())
    assert timings["total"] == pytest.approx(
        timings["build"] + timings["answer"] + timings["score"]
    )
    assert registry.load(run.id).metrics == {"cis": 50.0}

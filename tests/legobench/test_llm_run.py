"""The LLM-task answer plumbing (``benchmark/tasks/llm_run.py``) on its own, without a graph.

RPLM and LGPLM exercise it end to end (``test_rplm_run*.py``, ``test_lgplm.py``); these
tests pin what the helpers hand to the run record so both tasks keep recording the same keys.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scholarkg.benchmark.tasks.legobench.rplm import RPLMSettings
from scholarkg.benchmark.tasks.llm_run import check_answer_source, collect_answers
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

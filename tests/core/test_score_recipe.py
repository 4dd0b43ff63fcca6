"""Scoring files is one recipe: ``BenchmarkTask.score_files`` reads the released instances,
reads the predictions against them and calls the task's pure ``score``; a task implements the
two hooks (``released_instances``, ``read_predictions``) and never writes the recipe out again.

Why a test: the recipe was written out in five tasks, with drifting hook names and drifting
details (one resolved its options, one did not; one filtered ``--only-answered`` its own way).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from scholarkg.benchmark.registry import load_task, task_names
from scholarkg.benchmark.task import BenchmarkTask
from scholarkg.errors import NotSupported


def test_every_file_scoring_task_implements_the_two_hooks_and_not_the_recipe() -> None:
    scorers = []
    for name in task_names():
        task = type(load_task(name))
        assert task.score_files is BenchmarkTask.score_files, f"{name} rewrites score_files"
        if task.scores_files:
            scorers.append(name)
            for hook in ("released_instances", "read_predictions"):
                assert getattr(task, hook) is not getattr(BenchmarkTask, hook), (name, hook)
    # the families that score released files: AAAR's four, SciReplicate, LEGOBench's RPLM
    assert len(scorers) == 6, scorers


def test_a_task_without_the_hooks_says_it_does_not_score_files(tmp_path: Path) -> None:
    plain = next(n for n in task_names() if not type(load_task(n)).scores_files)
    with pytest.raises(NotSupported, match="does not score files"):
        load_task(plain).score_files(tmp_path, tmp_path, {})

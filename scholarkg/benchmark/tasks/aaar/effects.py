"""Does related-work context help? The same task run with and without ``--related-work``,
compared per paper with a paired test (``metrics/stats.py``).

A claim that the graph context helps needs the per-paper differences and a p-value, not two
means: this runs the task twice on the same instances and answer source and reports both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.metrics.stats import PairedTestResult, paired_test
from scholarkg.benchmark.runner import TaskRun, run_task
from scholarkg.benchmark.task import AnswerSource, BenchmarkTask

if TYPE_CHECKING:
    from scholarkg.store.base import GraphStore


@dataclass(frozen=True)
class ContextEffect:
    """Both runs, the metric compared, and the paired test (b = with related work)."""

    metric: str
    without: TaskRun
    with_related: TaskRun
    test: PairedTestResult


def related_work_effect(
    task: BenchmarkTask,
    store: GraphStore,
    source: AnswerSource,
    metric: str,
    options: Mapping[str, Any] | None = None,
    **run_kwargs: Any,
) -> ContextEffect:
    """Run ``task`` without and with related-work context; paired test on ``metric``."""
    base = dict(options or {})
    without = run_task(task, store, source, {**base, "related_work": False}, **run_kwargs)
    with_rel = run_task(task, store, source, {**base, "related_work": True}, **run_kwargs)
    ids = sorted(set(without.result.per_instance) & set(with_rel.result.per_instance))
    a = [without.result.per_instance[i].get(metric) for i in ids]
    b = [with_rel.result.per_instance[i].get(metric) for i in ids]
    return ContextEffect(metric, without, with_rel, paired_test(a, b))

"""What a task's scores are: metrics with units, results, and the report layout they print in.

Plain values, no behaviour beyond checking themselves: the task interface
(:mod:`scholarkg.benchmark.task`) declares them, :mod:`scholarkg.benchmark.outputs` and
:mod:`scholarkg.benchmark.report` turn them into ``metrics.json`` and tables, the runner
records them. They live here, below all three, so none of those modules needs another to name
a result (``outputs`` and ``task`` imported each other for these types before).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "UNITS",
    "PublishedRow",
    "ReportLayout",
    "Score",
    "TaskMetric",
    "TaskResult",
    "Unit",
]

#: How a metric value is recorded. ``percent`` = 0-100 as the paper prints it; ``fraction`` =
#: 0-1; ``score`` = any other real (Kendall's tau, CodeBLEU's own scale is a fraction);
#: ``count`` and ``seconds`` for bookkeeping columns.
Unit = Literal["percent", "fraction", "score", "count", "seconds"]
UNITS: tuple[str, ...] = ("percent", "fraction", "score", "count", "seconds")

#: a metric's value; ``None`` where it is undefined (no gold, nothing answered)
Score = float | None


@dataclass(frozen=True)
class TaskMetric:
    """A metric a task reports: its canonical name (as published), unit and direction."""

    name: str
    unit: Unit
    higher_is_better: bool = True
    #: decimals the published table prints
    decimals: int = 2
    description: str = ""

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"metric {self.name!r}: unit {self.unit!r} not in {UNITS}")


@dataclass(frozen=True)
class PublishedRow:
    """One row of a paper's results table, printed beside our runs and labelled as published.

    ``configuration`` names the table the row belongs to (e.g. ``{"task": "full"}``);
    ``source`` says where the numbers come from, e.g. ``"DORIS-MAE Table 3, real data"``.
    """

    label: str
    values: Mapping[str, float]
    source: str
    configuration: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ReportLayout:
    """How a task's runs are tabulated: metric columns in the published order, and which
    configuration keys separate tables (runs of different configurations are never compared).
    """

    title: str
    columns: tuple[str, ...]
    config_keys: tuple[str, ...] = ()
    #: what an instance is ("query", "leaderboard", "paper", "task"): names the per-instance
    #: key of ``metrics.json`` (``per_query`` ...) and report headings
    instance_label: str = "instance"
    published: tuple[PublishedRow, ...] = ()


@dataclass
class TaskResult:
    """Scores: the aggregate as the benchmark defines it, and values per instance.

    ``classes`` holds optional per-class aggregates (``"<group>:<class>"`` labels, e.g.
    citeBench's ``"intent:method"``); ``intervals`` optional confidence intervals per
    aggregate metric; ``n`` how many instances each aggregate is over.
    """

    aggregate: dict[str, Score]
    per_instance: dict[str, dict[str, Score]]
    classes: dict[str, dict[str, Score]] = field(default_factory=dict)
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    n: dict[str, int] = field(default_factory=dict)
    #: caveats the scoring found (e.g. "'-' cells: CIS < 1 %"); :func:`run_task` records them
    #: in the run's notes
    notes: list[str] = field(default_factory=list)

"""The benchmark task registry: task name → what it is, how it runs, what it reports.

One table that ``scholarkg bench list`` prints and ``bench run`` / ``bench score`` validate
against, so an unknown task name fails with the list of valid ones (``TaskNotFound``) rather
than a typer usage error. Entries are data only (no heavy imports): listing tasks must stay
instant. Task owners add their entry here when their ``bench run``/``bench score`` lands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scholarkg.errors import TaskNotFound

if TYPE_CHECKING:
    from scholarkg.benchmark.task import BenchmarkTask


@dataclass(frozen=True)
class TaskInfo:
    name: str
    family: str
    description: str
    #: "run" (ranks/generates on the graph) and/or "score" (scores existing answer files)
    modes: tuple[str, ...]
    metrics: tuple[str, ...]
    configs: tuple[str, ...] = ()
    rankers: tuple[str, ...] = ()
    reference: str = ""


TASKS: dict[str, TaskInfo] = {
    "legobench-rpg": TaskInfo(
        name="legobench-rpg",
        family="legobench",
        description="Ranked paper generation: rank the papers of a leaderboard "
        "⟨task, dataset, metric⟩ from the graph and text (paper's PageRank baseline + ours).",
        modes=("run",),
        metrics=("BEM", "KTau", "KTau_found", "CIS", "CP"),
        configs=("cn-tabs", "pcn-tabs", "cn-ft", "pcn-ft"),
        rankers=("pagerank", "ours", "ours-strict", "date", "indegree", "pagerank-hybrid"),
        reference="legobench.md §1, §2.3, Table 3",
    ),
    "legobench-rplm": TaskInfo(
        name="legobench-rplm",
        family="legobench",
        description="Ranked paper list modelling: an LLM orders a shuffled list of a "
        "leaderboard's paper titles (run with a model, import answers, or score the release).",
        modes=("run", "score"),
        metrics=("CIS", "BEM", "KTau", "CP"),
        configs=("clean", "legobench-paper"),
        reference="legobench.md §2.1-2.2, Table 4",
    ),
    "legobench-lgplm": TaskInfo(
        name="legobench-lgplm",
        family="legobench",
        description="Leaderboard generation: an LLM writes the (method, score) table from the "
        "top-10 BM25 passages of the leaderboard papers' full text.",
        modes=("run",),
        metrics=("MR", "MP", "SP_generated", "SP_correct"),
        reference="legobench.md §1, §2.4 (name matching and tolerance are ours: not comparable "
        "to Table 5)",
    ),
}


def get_task(name: str, *, mode: str | None = None) -> TaskInfo:
    """The task called ``name`` (optionally one that supports ``mode``), else ``TaskNotFound``."""
    info = TASKS.get(name)
    if info is None or (mode is not None and mode not in info.modes):
        valid = sorted(n for n, t in TASKS.items() if mode is None or mode in t.modes)
        what = f"{mode}-able task" if mode else "task"
        raise TaskNotFound(f"unknown {what} {name!r}; known: {', '.join(valid)}")
    return info


def list_tasks() -> list[TaskInfo]:
    return [TASKS[n] for n in sorted(TASKS)]


# ----------------------------------------------------------------------------- task classes
#
# Tasks built on :class:`scholarkg.benchmark.task.BenchmarkTask`, by name, as
# ``"module:Class"`` strings: nothing is imported until a task is asked for, so listing stays
# instant and a family's heavy dependencies load only when it runs. A new family adds one
# line here (CONTRIBUTING.md, "Adding a benchmark family").
TASK_CLASSES: dict[str, str] = {
    "retrieval": "scholarkg.benchmark.tasks.citerec.retrieval:RetrievalTask",
    "citerec": "scholarkg.benchmark.tasks.citerec.citerec:CiteRecTask",
}


def load_task(name: str) -> BenchmarkTask:
    """An instance of the task called ``name``; ``TaskNotFound`` lists the known ones."""
    import importlib

    target = TASK_CLASSES.get(name)
    if target is None:
        known = ", ".join(sorted(TASK_CLASSES)) or "(none)"
        raise TaskNotFound(f"unknown task {name!r}; known: {known}")
    module_name, _, class_name = target.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    task = cls()
    if task.name != name:
        raise TaskNotFound(f"registry entry {name!r} points at task {task.name!r} ({target})")
    return task


def task_names() -> list[str]:
    return sorted(TASK_CLASSES)

"""The benchmark task registry: task name → the task class that declares everything else.

``scholarkg bench list`` prints it and ``bench run`` / ``bench score`` /
``bench import-predictions`` dispatch through it, so an unknown task name fails with the list
of valid ones (``TaskNotFound``) rather than a typer usage error. Entries are
``"module:Class"`` strings (no import until a task is asked for; task modules keep heavy
imports inside methods, so listing stays instant). What a task is — metrics and units,
options, rankers, report layout, prediction format — is declared once, on its class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scholarkg.errors import TaskNotFound

if TYPE_CHECKING:
    from scholarkg.benchmark.task import BenchmarkTask


@dataclass(frozen=True)
class TaskInfo:
    """What ``scholarkg bench list`` prints about a task: derived from the task class's own
    declarations (:func:`task_info`), never kept by hand beside them."""

    name: str
    family: str
    description: str
    #: "run" (ranks/generates on the graph) and/or "score" (scores existing answer files)
    modes: tuple[str, ...]
    metrics: tuple[str, ...]
    configs: tuple[str, ...] = ()
    rankers: tuple[str, ...] = ()
    reference: str = ""


def task_info(task: BenchmarkTask) -> TaskInfo:
    """The listing of ``task``: modes from ``scores_files``, metrics from its report layout,
    configs from the choices of its first configuration option (RPG's ``--config``, RPLM's
    ``--protocol``)."""
    modes = ("run", "score") if task.scores_files else ("run",)
    configs: tuple[str, ...] = ()
    for option in task.options:
        if option.choices and option.name in task.layout.config_keys:
            configs = option.choices
            break
    return TaskInfo(
        name=task.name,
        family=task.family,
        description=task.description,
        modes=modes,
        metrics=task.layout.columns,
        configs=configs,
        rankers=task.rankers,
        reference=task.reference,
    )


def get_task(name: str, *, mode: str | None = None) -> TaskInfo:
    """The task called ``name`` (optionally one that supports ``mode``), else ``TaskNotFound``."""
    info = task_info(load_task(name)) if name in task_classes() else None
    if info is None or (mode is not None and mode not in info.modes):
        valid = [t.name for t in list_tasks() if mode is None or mode in t.modes]
        what = f"{mode}-able task" if mode else "task"
        raise TaskNotFound(f"unknown {what} {name!r}; known: {', '.join(valid)}")
    return info


def list_tasks() -> list[TaskInfo]:
    return [task_info(load_task(n)) for n in task_names()]


# ----------------------------------------------------------------------------- task classes
#
# Tasks built on :class:`scholarkg.benchmark.task.BenchmarkTask`, by name, as
# ``"module:Class"`` strings declared by each family (``Family.tasks``, read through the
# catalog ``scholarkg.families``): nothing is imported until a task is asked for, so listing
# stays instant and a family's heavy dependencies load only when it runs.


def task_classes() -> dict[str, str]:
    """Task name -> ``"module:Class"`` across every family in the catalog."""
    from scholarkg.families import task_classes as declared

    return declared()


def load_task(name: str) -> BenchmarkTask:
    """An instance of the task called ``name``; ``TaskNotFound`` lists the known ones."""
    from scholarkg.families import resolve

    classes = task_classes()
    target = classes.get(name)
    if target is None:
        known = ", ".join(sorted(classes)) or "(none)"
        raise TaskNotFound(f"unknown task {name!r}; known: {known}")
    task: BenchmarkTask = resolve(target)()
    if task.name != name:
        raise TaskNotFound(f"registry entry {name!r} points at task {task.name!r} ({target})")
    return task


def task_names() -> list[str]:
    return sorted(task_classes())

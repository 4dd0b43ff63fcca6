"""A task's own options from the words left on a ``bench`` command line.

``bench run NAME`` (and ``bench score``, ``bench fit``) declare only the options every task
shares; typer hands the rest of the command line over unparsed, and :func:`parse_task_args`
reads it against the task's declared :class:`~scholarkg.benchmark.task.TaskOption` list, so a
new task needs no CLI code and an option it does not take is a clear error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from scholarkg.benchmark.task import TaskOption
from scholarkg.errors import InputError


class DeclaresOptions(Protocol):
    """What the parser needs: a benchmark task, or one of ``bench score``'s file scorers."""

    @property
    def name(self) -> str: ...

    @property
    def options(self) -> tuple[TaskOption, ...]: ...

    @property
    def fit_options(self) -> tuple[TaskOption, ...]: ...

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]: ...

    def resolve_fit_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]: ...


def parse_task_args(
    task: DeclaresOptions, args: Sequence[str], *, fit: bool = False
) -> dict[str, Any]:
    """Task options from leftover command-line words (``--pool corpus --no-split``).

    ``bench run NAME`` declares only the options every task shares; the rest of the command
    line is parsed here against the task's own :class:`TaskOption` list, so a new task needs
    no CLI code and an option it does not take is a clear error. Bool options take
    ``--flag`` / ``--no-flag``; others ``--flag VALUE`` or ``--flag=VALUE``. With ``fit``
    the words are ``bench fit``'s, parsed against :attr:`BenchmarkTask.fit_options`.
    """
    resolve = task.resolve_fit_options if fit else task.resolve_options
    declared = {o.flag: o for o in (task.fit_options if fit else task.options)}
    given: dict[str, Any] = {}
    words = list(args)
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("--"):
            raise InputError(f"task {task.name!r}: unexpected argument {word!r}")
        flag, has_value, inline = word.partition("=")
        option = declared.get(flag)
        if option is None and flag.startswith("--no-"):
            negated = declared.get("--" + flag[5:])
            if negated is not None and negated.kind is bool and not has_value:
                given[negated.name] = False
                i += 1
                continue
        if option is None:
            # resolve_options words the error (it lists what the task takes)
            resolve({flag: None})
            raise AssertionError("unreachable")  # pragma: no cover
        if option.kind is bool and not has_value:
            given[option.name] = True
            i += 1
            continue
        if has_value:
            given[option.name] = inline
            i += 1
            continue
        if i + 1 >= len(words):
            raise InputError(f"task {task.name!r}: {flag} needs a value", field=option.name)
        given[option.name] = words[i + 1]
        i += 2
    return given

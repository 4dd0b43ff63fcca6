"""Terminal presentation shared by the CLI and the demo: consoles, row tables, counters, summaries.

Not under ``commands/`` because the demo (and anything else that is not a CLI verb) prints
the same tables; the dependency goes CLI → library, never back. Library functions that do
work take a ``progress`` callback and return data; the drawing lives here.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from scholarkg.textio import json_safe

if TYPE_CHECKING:
    from rich.progress import Progress


#: Width of output that is not a terminal (a pipe, a file). Rich's default there is 80
#: columns, which folds wide tables and splits numbers across lines; a reader of piped output
#: (grep, a file, a CI log) wants one row per line. ``COLUMNS`` still wins when set.
PIPE_WIDTH = 100


def _console(*, stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    width = None if tty or os.environ.get("COLUMNS") else PIPE_WIDTH
    return Console(stderr=stderr, width=width)


console = _console()
err_console = _console(stderr=True)

OUTPUT_FORMATS = ("table", "json", "csv")


def to_json(data: Any) -> str:
    return json.dumps(json_safe(data), ensure_ascii=False)


def print_rows(
    rows: Sequence[dict[str, Any]],
    fmt: str = "table",
    *,
    title: str | None = None,
    out: Console | None = None,
    nowrap: Sequence[str] = (),
) -> None:
    """Print query rows as a rich table (on ``out``, default stdout), a JSON list, or CSV.

    ``nowrap``: columns a table never folds (ids: a reader copies them whole); the other
    columns give way, long titles are cut with an ellipsis."""
    if fmt == "json":
        print(to_json(list(rows)))
        return
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k)) for k in columns})
        print(buf.getvalue(), end="")
        return
    out = out or console
    table = Table(title=title, show_lines=False)
    widths = {c: max((len(_cell(r.get(c))) for r in rows), default=0) for c in columns}
    squeeze = "title" if nowrap and "title" in columns else None
    for col in columns:
        if col in nowrap or (nowrap and col != squeeze and widths[col] <= 12):
            # ids, ranks, years: whole, never folded
            table.add_column(col, no_wrap=True, min_width=max(widths[col], len(col)))
        elif col == squeeze:
            # what is left of the width once every other column has its minimum
            others = [c for c in columns if c != col]
            fixed = sum(
                max(widths[c], len(c)) if (c in nowrap or widths[c] <= 12) else min(widths[c], 28)
                for c in others
            )
            room = out.width - fixed - 3 * len(columns) - 1
            table.add_column(col, overflow="ellipsis", no_wrap=True, max_width=max(16, room))
        elif nowrap:
            table.add_column(col, overflow="fold", min_width=min(widths[col], 28))
        else:
            table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(row.get(c)) for c in columns))
    out.print(table)
    out.print(f"[dim]{len(rows)} row(s)[/dim]")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return to_json(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def counter_bar(count_column: str, *, out: Console | None = None) -> Progress:
    """Spinner, description, a running count, elapsed time: totals are unknown while
    streaming, so a count rather than a bar (kept on screen after the load)."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        TextColumn(count_column),
        TimeElapsedColumn(),
        console=out or err_console,
        transient=False,
    )


@contextmanager
def stage_counter(
    count_column: str = "{task.completed:,} records", *, out: Console | None = None
) -> Iterator[Callable[[str, int, int | None], None]]:
    """A ``progress(stage, done, total)`` callback drawing one :func:`counter_bar` row per stage.

    ``total`` is ``None`` while a stage streams (the row counts) and the final count when it
    ends (the row completes). Leaving the block stops the bar, so a message printed after
    an error comes below it.
    """
    with counter_bar(count_column, out=out) as bar:
        stages: dict[str, Any] = {}

        def progress(stage: str, done: int, total: int | None = None) -> None:
            if stage not in stages:
                stages[stage] = bar.add_task(stage, total=None)
            bar.update(stages[stage], completed=done, total=total)

        yield progress

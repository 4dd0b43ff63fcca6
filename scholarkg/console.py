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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from scholarkg.textio import json_safe

if TYPE_CHECKING:
    from rich.progress import Progress

    from scholarkg.loaders.steps import LoadSummary

#: Width of output that is not a terminal (a pipe, a file). Rich's default there is 80
#: columns, which folds wide tables and splits numbers across lines; a reader of piped output
#: (grep, a file, a CI log) wants one row per line. ``COLUMNS`` still wins when set.
PIPE_WIDTH = 4096


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
) -> None:
    """Print query rows as a rich table (on ``out``, default stdout), a JSON list, or CSV."""
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
    for col in columns:
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


def print_summary(summary: LoadSummary, *, title: str, out: Console | None = None) -> None:
    """Nodes/relationships written, skipped edges, notes, and unknown metric directions."""
    from scholarkg.loaders.metric_direction import UNKNOWN_HINT

    out = out or console
    nodes, rels, skipped = summary.totals()
    table = Table(title=title)
    table.add_column("kind")
    table.add_column("name")
    table.add_column("merged", justify="right")
    table.add_column("skipped", justify="right")
    graph = summary.graph
    if graph is not None:
        table.add_column("in graph", justify="right")

    def in_graph(counts: dict[str, int] | None, name: str) -> list[str]:
        return [] if counts is None else [f"{counts.get(name, 0):,}"]

    for name, count in sorted(nodes.items()):
        table.add_row("node", name, f"{count:,}", "", *in_graph(graph and graph.nodes, name))
    for name in sorted(set(rels) | set(skipped)):
        table.add_row(
            "relationship", name, f"{rels[name]:,}", f"{skipped[name]:,}",
            *in_graph(graph and graph.relationships, name),
        )  # fmt: skip
    out.print(table)
    out.print(
        "[dim]merged = rows sent (MERGE; several files may merge the same node); in graph = "
        "totals after the load[/dim]"
    )
    records = sum(st.records for st in summary.stats)
    folders = sum(1 for st in summary.stats if Path(st.source).is_dir())
    files = len(summary.stats) - folders
    where = " and ".join(
        part
        for part in (f"{files} file(s)" if files else "", f"{folders} folder(s)" if folders else "")
        if part
    )
    out.print(f"[dim]{records:,} source record(s) from {where or '0 file(s)'}[/dim]")
    if sum(skipped.values()):
        out.print(
            f"[yellow]{sum(skipped.values()):,} relationship(s) skipped: an endpoint is not in "
            "the graph (load the papers first)[/yellow]"
        )
    for note in summary.notes:
        out.print(note)
    if summary.unknown_directions:
        names = ", ".join(sorted(summary.unknown_directions))
        err_console.print(
            f"[yellow]warning: {len(summary.unknown_directions)} metric(s) with unknown "
            f"direction: {names}[/yellow]\n[yellow]hint: {UNKNOWN_HINT}[/yellow]",
            soft_wrap=True,
        )

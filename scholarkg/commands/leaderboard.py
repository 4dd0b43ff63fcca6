"""``scholarkg leaderboard``: leaderboards as graph queries.

``show`` ranks a ⟨task, dataset, metric⟩ leaderboard from its Result nodes (ORKG-style
pattern, loaded from Papers with Code) in the direction the Metric node says; ``list`` shows
leaderboards with entry counts. Names match exactly first, then case-insensitively (and
ignoring punctuation, via ``ids.normalize_text``); otherwise the error lists close names.

The ranking logic is plain functions in :mod:`scholarkg.leaderboards` (``resolve_leaderboard``,
``ranked_results``, ``list_leaderboards``), shared with the explorer, the demo and tests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    err_console,
    print_rows,
    store_session,
)
from scholarkg.leaderboards import (
    gold_entries,
    list_leaderboards,
    ranked_results,
    resolve_leaderboard,
)
from scholarkg.loaders.metric_direction import UNKNOWN_HINT

app = typer.Typer(help="Leaderboards stored in the graph.", no_args_is_help=True)


@app.command("show")
def show(
    task: Annotated[str, typer.Option("--task", help="Task name.")],
    dataset: Annotated[str, typer.Option("--dataset", help="Dataset name.")],
    metric: Annotated[str, typer.Option("--metric", help="Metric name.")],
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """The ranked table of one leaderboard, best first in the metric's direction."""
    with store_session() as store:
        board = resolve_leaderboard(store, task, dataset, metric)
        direction, rows = ranked_results(store, board["id"])
        gold: list[dict[str, Any]] = []
        if not rows:
            gold = gold_entries(store, board["id"])
    title = f"{board['task']} / {board['dataset']} / {board['metric']} ({direction} is better)"
    warn: Callable[[str], None] = lambda msg: err_console.print(  # noqa: E731
        f"[yellow]{msg}[/yellow]", soft_wrap=True
    )
    if direction == "unknown":
        warn(
            f"warning: direction of metric {board['metric']!r} is unknown; ranked as higher "
            f"is better. hint: {UNKNOWN_HINT}"
        )
    if rows:
        print_rows(rows, fmt, title=title)
    elif gold:
        warn("no Result nodes on this leaderboard; showing its ground-truth order")
        print_rows(gold, fmt, title=f"{title} — ground truth")
    else:
        print_rows([], fmt, title=title)


@app.command("list")
def list_(
    task: Annotated[str | None, typer.Option("--task", help="Only this task.")] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most this many.")] = 100,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Leaderboards with their number of results and ground-truth entries."""
    with store_session() as store:
        rows = list_leaderboards(store, task=task, limit=limit)
    print_rows(rows, fmt, title="leaderboards")

"""``scholarkg load dorismae FILE.json [--subqueries subquery-2.txt]``.

Streams the released DORIS-MAE JSON (``loaders/dorismae.py``) into the graph with a progress
bar over the file's bytes, then prints what was merged, what the sheet's tolerated oddities
counted, and the graph totals. Idempotent: every node and edge is MERGEd on a stable id
(JUDGED on its own key), so a second load of the same file changes nothing. No checkpoint:
a rerun re-sends the file (a few minutes for the v1 file) and merges onto what is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.common import console, err_console, store_session
from scholarkg.errors import InputError


def load_dorismae(
    file: Annotated[
        Path, typer.Argument(help="DORIS-MAE_dataset_v1.json (or v0)", exists=True, dir_okay=False)
    ],
    subqueries: Annotated[
        Path | None,
        typer.Option(
            "--subqueries",
            exists=True,
            dir_okay=False,
            help="subquery-2.txt: record its numbering on the sub-queries built by the rule.",
        ),
    ] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Rows per write.")] = 5_000,
) -> None:
    """DORIS-MAE: queries, aspects, sentences, abstracts as Papers, citations, pools, judgements."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

    from scholarkg.console import print_summary
    from scholarkg.loaders.checkpoint import LoadStats
    from scholarkg.loaders.dorismae import DorisLoadReport, DorisReader
    from scholarkg.loaders.steps import LoadSummary
    from scholarkg.loaders.writer import write_records

    report = DorisLoadReport()
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=False,
    )
    with store_session() as store, bar:
        store.apply_schema()
        task = bar.add_task(f"dorismae ({file.name})", total=file.stat().st_size)
        reader = DorisReader(
            file,
            report=report,
            subqueries=subqueries,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )
        try:
            written = write_records(store, reader.records(), batch_size=batch_size)
        except InputError:
            bar.stop()
            err_console.print(
                f"[yellow]{file}: everything read before the error is stored; fix the file "
                "and rerun (the load is idempotent).[/yellow]"
            )
            raise
        summary = LoadSummary(stats=[LoadStats(source=str(file), write=written)])
        summary.stats[0].records = written.records
        summary.notes.extend(report.summary_lines())
        summary.graph = store.counts()
    print_summary(summary, title="load dorismae")
    console.print("[dim]JUDGED edges are merged on their own key (gpt:<i>, human:<i>:<who>)[/dim]")

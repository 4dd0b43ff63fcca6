"""``scholarkg bench``: benchmark commands.

Structure: ``bench score <task>`` scores existing answer files (one command per task, on the
``score_app`` sub-typer). ``bench run <task>`` and ``bench list`` are meant to be added to
``app`` here (or as further sub-typers) by the task owners; nothing below assumes they are
absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from scholarkg.commands.common import console, err_console, print_rows, to_json
from scholarkg.errors import InputError

app = typer.Typer(help="Run and score the benchmarks.", no_args_is_help=True)
score_app = typer.Typer(
    help="Score existing answer files against a benchmark's gold data.", no_args_is_help=True
)
app.add_typer(score_app, name="score")

RPLM_FORMATS = ("table", "json")


def _fmt(value: Any, digits: int) -> str:
    if value is None:
        return "-"
    return f"{value:.{digits}f}"


@score_app.command("legobench-rplm")
def legobench_rplm(
    gold: Annotated[Path, typer.Option("--gold", help="rplm.xlsx (sheet Sheet1).")],
    predictions: Annotated[
        list[Path],
        typer.Option(
            "--predictions",
            help="Answer workbook(s) with a <model>_gen_rank column; repeat for several models.",
        ),
    ],
    protocol: Annotated[
        str,
        typer.Option(help="clean (platform definition) or legobench-paper (published Table 4)."),
    ] = "clean",
    matcher: Annotated[
        str, typer.Option(help="Title matcher: substring (default), normalized or line.")
    ] = "substring",
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
    per_instance: Annotated[
        bool, typer.Option(help="Include per-instance detail in JSON output.")
    ] = False,
) -> None:
    """LEGOBench RPLM: CIS, BEM, KTau, CP of model answers against rplm.xlsx.

    CIS and CP are percentages, BEM a fraction, KTau Kendall tau-b; "-" = undefined.
    """
    from scholarkg.benchmark.metrics.ranking import MATCHERS, PROTOCOLS
    from scholarkg.benchmark.tasks.legobench.rplm_scoring import score_rplm_many

    if fmt not in RPLM_FORMATS:
        raise InputError(f"--format {fmt!r}: choose one of {RPLM_FORMATS}")
    if protocol not in PROTOCOLS:
        raise InputError(f"--protocol {protocol!r}: choose one of {PROTOCOLS}")
    if matcher not in MATCHERS:
        raise InputError(f"--matcher {matcher!r}: choose one of {MATCHERS}")

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err_console,
        transient=True,
        disable=fmt == "json" and not err_console.is_terminal,
    ) as bar:
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(f"scoring {name}", total=total)
            bar.update(tasks[name], completed=done)

        results = score_rplm_many(
            gold, predictions, protocol=protocol, matcher=matcher, progress=progress
        )

    if fmt == "json":
        rows = []
        for model, scores in results:
            row = {"model": model, **scores.to_dict(per_instance=per_instance)}
            rows.append(row)
        print(to_json(rows[0] if len(rows) == 1 else rows))
        return
    table_rows = [
        {
            "model": model,
            "CIS": _fmt(s.cis, 2),
            "BEM": _fmt(s.bem, 3),
            "KTau": _fmt(s.ktau, 3),
            "CP": _fmt(s.cp, 2),
            "complete": f"{s.n_complete}/{s.n_scored}",
        }
        for model, s in results
    ]
    print_rows(table_rows, "table", title=f"LEGOBench RPLM ({protocol}, matcher={matcher})")
    for model, s in results:
        for note in s.notes:
            console.print(f"[dim]{model}: {note}[/dim]")

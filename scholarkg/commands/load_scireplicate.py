"""``scholarkg load scireplicate Data.json [--papers-dir DIR] [--repos-dir DIR]``.

Registered on the ``load`` group in ``commands/load.py``. ``Data.json`` has no licence and
embeds third-party code, so it is always read from the user's path, never shipped.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from scholarkg.commands.common import console
from scholarkg.commands.load_common import BatchOpt, ResumeOpt, load_and_report
from scholarkg.loaders.steps import LoadSummary, Step


def load_scireplicate(
    data: Annotated[
        Path, typer.Argument(help="SciReplicate-Bench Data.json", exists=True, dir_okay=False)
    ],
    papers_dir: Annotated[
        Path | None,
        typer.Option(
            "--papers-dir",
            exists=True,
            file_okay=False,
            help="LaTeX sources: <dir>/<latex_code_path> (or its last part, or <paper_id>).",
        ),
    ] = None,
    repos_dir: Annotated[
        Path | None,
        typer.Option(
            "--repos-dir",
            exists=True,
            file_okay=False,
            help="Repositories: <dir>/<project_path> (or its last part, or <paper_id>).",
        ),
    ] = None,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 8,
) -> None:
    """SciReplicate-Bench: papers, sections, citations, repository code, tasks, reasoning graphs."""
    from scholarkg.loaders.scireplicate import ScireplicateReport, read_scireplicate, report_rows

    report = ScireplicateReport()
    # the checkpoint scope names the source folders: other folders are another load
    dirs = f"{papers_dir and papers_dir.resolve()}|{repos_dir and repos_dir.resolve()}"
    kind = "scireplicate-" + hashlib.sha256(dirs.encode()).hexdigest()[:8]
    step = Step(
        "scireplicate",
        data,
        kind,
        lambda: read_scireplicate(data, papers_dir=papers_dir, repos_dir=repos_dir, report=report),
    )

    def after(_store: object, summary: LoadSummary) -> None:
        summary.notes += report.notes
        summary.notes += [f"{m} (looked under the given folder)" for m in report.missing_sources]

    load_and_report(
        [step], title="load scireplicate", resume=resume, batch_size=batch_size, after=after
    )
    table = Table(title="SciReplicate-Bench (as read from the file)")
    table.add_column("what")
    table.add_column("count", justify="right")
    for name, value in report_rows(report):
        table.add_row(name, str(value))
    console.print(table)

"""``scholarkg report RUN... --out DIR``: Markdown, JSON and HTML reports of recorded runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from scholarkg.benchmark.report import write_report
from scholarkg.benchmark.runs import RunRegistry
from scholarkg.commands.common import console, settings
from scholarkg.console import progress_display
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.benchmark.metrics.stats import Method


def report(
    run_ids: Annotated[
        list[str],
        typer.Argument(help="Runs (ids, unique prefixes or run files); the first is the baseline."),
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Directory to write the report to.")],
    method: Annotated[
        str, typer.Option(help="Paired test against the first run: randomization or bootstrap.")
    ] = "randomization",
    resamples: Annotated[int, typer.Option(help="Resamples for tests and intervals.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Random seed (reports are reproducible).")] = 0,
) -> None:
    """Write report.md, report.json and a self-contained report.html (with plots)."""
    if method not in ("randomization", "bootstrap"):
        raise InputError(f"unknown --method {method!r}; choose randomization or bootstrap")
    _check_out_dir(out)
    registry = RunRegistry(settings().runs_dir)
    runs = [registry.load(ref) for ref in run_ids]
    with progress_display(unit="steps", transient=True) as show:
        paths = write_report(
            runs,
            out,
            method=cast("Method", method),  # checked above
            n_resamples=resamples,
            seed=seed,
            progress=lambda done, total: show("building report", done, total),
        )
    for path in paths[:3]:
        console.print(f"wrote {path}")
    if len(paths) > 3:
        console.print(f"wrote {len(paths) - 3} plot(s) under {out / 'plots'}")


def _check_out_dir(out: Path) -> None:
    """``--out`` must be a directory (or not exist yet, nor anything above it but
    directories): the report is several files. A file there reached the command as
    Python's own ``FileExistsError`` (exit 1), which named neither the option nor the fix;
    checked before any run is read or plotted."""
    for path in (out, *out.parents):
        if path.exists():
            if not path.is_dir():
                what = "is a file" if path == out else f"is under {str(path)!r}, a file"
                raise InputError(
                    f"--out {str(out)!r} {what}: it must be a directory, where the report "
                    "writes report.md, report.json, report.html and plots/"
                )
            return

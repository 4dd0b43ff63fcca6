"""What every ``scholarkg load`` verb shares: its options, ``run_steps`` with a progress bar,
and ``load_and_report`` (schema, steps, summary table).

Its own module so that ``commands/load.py`` (which registers the verbs) and each family's
``commands/load_<family>.py`` import it, and not each other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scholarkg.commands.common import (
    err_console,
    set_interrupted_note,
    settings,
    store_session,
)
from scholarkg.console import stage_counter
from scholarkg.errors import ScholarKGError
from scholarkg.loaders import steps as steps_lib
from scholarkg.loaders.steps import LoadSummary, Step
from scholarkg.loaders.summary import print_summary
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from scholarkg.loaders.tolerant import SkipReport

ResumeOpt = Annotated[
    bool, typer.Option("--resume", help="Skip records an interrupted earlier run already stored.")
]
BatchOpt = Annotated[int, typer.Option("--batch-size", min=1, help="Source records per flush.")]
DirectionsOpt = Annotated[
    Path | None,
    typer.Option(
        "--directions",
        exists=True,
        dir_okay=False,
        help='Metric direction overrides: JSON/TOML {"metric": "higher"|"lower"}.',
    ),
]


def run_steps(
    store: GraphStore,
    steps: Sequence[Step],
    *,
    resume: bool = False,
    batch_size: int = 5_000,
    summary: LoadSummary | None = None,
) -> LoadSummary:
    """:func:`scholarkg.loaders.steps.run_steps` with the CLI's settings and a counter bar.

    On bad input, says below the bar how much of the file is stored and how to go on.
    """
    summary = summary if summary is not None else LoadSummary()
    try:
        with stage_counter() as progress:
            return steps_lib.run_steps(
                store, steps, settings=settings(), resume=resume, batch_size=batch_size,
                summary=summary, progress=progress,
            )  # fmt: skip
    except ScholarKGError:
        if summary.stopped is not None:
            err_console.print(f"[yellow]{stop_hint(summary)}[/yellow]")
        raise
    except KeyboardInterrupt:
        set_interrupted_note(interrupt_hint(summary))
        raise


def interrupt_hint(summary: LoadSummary) -> str:
    """What an interrupted load left in the graph and how to go on (``cli.main`` says it)."""
    stopped = summary.stopped[0].name if summary.stopped is not None else None
    done = [
        f"{Path(st.source).name} loaded" for st in summary.stats if Path(st.source).name != stopped
    ]
    if summary.stopped is None:
        where = "before the first file"
    else:
        source, stored = summary.stopped
        where = (
            f"{stored:,} source record(s) of {source.name} stored whole"
            if stored
            else f"nothing of {source.name} stored yet"
        )
    if summary.undo_failed:
        return (
            f"{'; '.join([*done, where])}, and part of the batch being written too: its undo "
            "failed (the server was gone), so some of its nodes may lack their relationships. "
            "Rerun the same command with --resume: it writes that batch whole"
        )
    return (
        f"{'; '.join([*done, where])}. Rerun the same command with --resume to go on from "
        "there (whole batches are kept; the new nodes of the one being written were deleted again, "
        "and --resume writes it whole)"
    )


def stop_hint(summary: LoadSummary) -> str:
    """What a stopped load left in the graph and how to go on (printed under the error)."""
    assert summary.stopped is not None
    source, done = summary.stopped
    if summary.undo_failed:
        return (
            f"{done:,} source record(s) of {source} are stored whole; the batch after them was "
            "partly written and its undo failed too (the server was gone), so some of its "
            "nodes may lack their relationships: rerun with --resume, which writes it whole."
        )
    if summary.stopped_by_store:
        kept = (
            f"the graph is as its checkpoint left it: {done:,} source record(s) of {source} "
            "stored whole, with their relationships"
            if done
            else f"nothing of {source} is stored (the partial batch was undone)"
        )
        return f"{kept}; fix the cause above and rerun with --resume to continue."
    if not done:
        return f"{source}: nothing of this file is stored; fix it and run the load again."
    return (
        f"{source}: the {done:,} source record(s) before the error are stored whole; fix the "
        "file and rerun with --resume to continue after them."
    )


def load_and_report(
    steps: Sequence[Step],
    *,
    title: str,
    resume: bool = False,
    batch_size: int = 5_000,
    after: Callable[[GraphStore, LoadSummary], None] | None = None,
) -> LoadSummary:
    """What every ``load`` verb does: schema, the steps, ``after`` (same session), summary.

    ``after(store, summary)`` adds the command's own notes or post-load work (e.g. linking
    title lines) before the summary table is printed.
    """
    with store_session(write=True, creates_graph=True) as store:
        store.apply_schema()
        summary = run_steps(store, steps, resume=resume, batch_size=batch_size)
        if after is not None:
            after(store, summary)
    print_summary(summary, title=title)
    return summary


def skip_notes(report: SkipReport) -> Callable[[GraphStore, LoadSummary], None]:
    """The skipped lines' notes of a tolerant reader (``SkipReport``), added to the load's
    summary once the steps ran (the citation and BEIR loaders skip and count bad lines)."""

    def after(_store: GraphStore, summary: LoadSummary) -> None:
        summary.notes.extend(report.notes())
        refuse_if_nothing_read(summary, report)

    return after


def refuse_if_nothing_read(summary: LoadSummary, report: SkipReport) -> None:
    """A tolerant reader that skipped every line of a file stored nothing from it: that is
    a wrong file or format, not a load, so it ends with an ``InputError`` (non-zero exit)
    naming the file, how many lines were skipped and the first reason."""
    from scholarkg.errors import InputError

    # per file, not per step: two steps may read one file (S2's papers, then the reference
    # lists they hold), and the second storing nothing is no reason to call the file empty
    stored = {s.source for s in summary.stats if s.records or s.skipped_on_resume}
    for stats in summary.stats:
        skipped = report.counts.get(stats.source, 0)
        if stats.source in stored or not skipped:
            continue
        first = next((e for e in report.examples if e.path == stats.source), None)
        why = f"; the first: line {first.line}: {first.reason}" if first else ""
        field = first.field if first else None
        raise InputError(
            f"nothing stored: all {skipped:,} line(s) were skipped{why}",
            path=stats.source, line=first.line if first else None, field=field,
        )  # fmt: skip

"""``scholarkg load s2|unarxive``: the citation-recommendation family's loaders.

Each command builds :class:`~scholarkg.loaders.steps.Step`s over the family's streaming
readers and runs them through the shared resumable path (``load_and_report``). Malformed
lines are skipped and counted (``SkipReport``); the summary prints the counts per file and
the first examples with file and line number.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scholarkg.commands.common import console, store_session
from scholarkg.commands.load_common import (
    BatchOpt,
    ResumeOpt,
    load_and_report,
    refuse_if_nothing_read,
    run_steps,
    skip_notes,
)
from scholarkg.errors import InputError
from scholarkg.loaders.corpus_lookup import corpus_lookup
from scholarkg.loaders.steps import Step

if TYPE_CHECKING:
    from scholarkg.loaders.tolerant import SkipReport


def load_s2(
    papers: Annotated[
        Path | None, typer.Option(help="papers JSONL(.gz)", exists=True, dir_okay=False)
    ] = None,
    abstracts: Annotated[
        Path | None, typer.Option(help="abstracts JSONL(.gz)", exists=True, dir_okay=False)
    ] = None,
    citations: Annotated[
        Path | None, typer.Option(help="citations JSONL(.gz)", exists=True, dir_okay=False)
    ] = None,
    s2orc: Annotated[
        Path | None, typer.Option(help="s2orc JSONL(.gz)", exists=True, dir_okay=False)
    ] = None,
    authors: Annotated[
        Path | None, typer.Option(help="authors JSONL(.gz)", exists=True, dir_okay=False)
    ] = None,
    venues: Annotated[
        Path | None, typer.Option(help="publication-venues JSONL(.gz)", exists=True, dir_okay=False)
    ] = None,
    tldrs: Annotated[
        Path | None, typer.Option(help="tldrs JSONL(.gz)", exists=True, dir_okay=False)
    ] = None,
    bulk: Annotated[
        bool, typer.Option("--bulk", help="Build a NEW graph with GRAPH.BULK (fast; embedded).")
    ] = False,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 5_000,
    workers: Annotated[
        int,
        typer.Option(
            min=0,
            help="Processes parsing S2ORC besides the loader (0: parse in the loader). "
            "Same output for any N; pays off only with cores to spare (docs/performance).",
        ),
    ] = 0,
) -> Any:
    """Semantic Scholar datasets: papers, authors, venues, abstracts, TLDRs, citations, S2ORC.

    Files load in dependency order (venues, authors, papers, abstracts, tldrs, citations,
    s2orc): citations and S2ORC find their papers by corpus id among those already loaded.
    ``--workers N`` parses S2ORC lines (JSON, masking, sentence splitting) in N processes.
    """
    from scholarkg.loaders.steps import s2_steps
    from scholarkg.loaders.summary import print_summary
    from scholarkg.loaders.tolerant import SkipReport

    given = {
        "venues": venues,
        "authors": authors,
        "papers": papers,
        "abstracts": abstracts,
        "tldrs": tldrs,
        "citations": citations,
        "s2orc": s2orc,
    }
    if not any(given.values()):
        raise InputError(
            "give at least one of --papers, --abstracts, --citations, --s2orc, "
            "--authors, --venues, --tldrs"
        )
    report = SkipReport()
    n_workers = workers
    if bulk:
        _load_s2_bulk(given, report, n_workers)
        return None
    with store_session(write=True, creates_graph=True) as store:
        store.apply_schema()
        lookup = corpus_lookup(store)
        steps = s2_steps(given, report, lookup, workers=n_workers)
        summary = run_steps(store, steps, resume=resume, batch_size=batch_size)
        summary.notes.extend(report.notes())
    print_summary(summary, title="load s2")
    refuse_if_nothing_read(summary, report)
    return summary


def _load_s2_bulk(files: dict[str, Path | None], report: SkipReport, workers: int) -> None:
    from rich.table import Table

    from scholarkg.errors import NotSupported
    from scholarkg.loaders.citerec_bulk import bulk_load_s2

    with store_session(write=True, creates_graph=True) as store:
        if store.backend != "embedded":
            raise NotSupported("--bulk uses FalkorDB's GRAPH.BULK; on Neo4j load without --bulk")
        res = bulk_load_s2(store, files, report, workers=workers)
    table = Table(title=f"load s2 --bulk into {store.graph!r}")
    table.add_column("what")
    table.add_column("value", justify="right")
    from scholarkg.loaders.citerec_s2 import PAPER_LISTS

    for kind, n in res["lines"].items():
        # the papers file's reference lists: its papers that have one, not a file's lines
        what = f"{PAPER_LISTS[kind]} with {kind}" if kind in PAPER_LISTS else f"{kind} lines"
        table.add_row(what, f"{n:,}")
    table.add_row("nodes written", f"{res['nodes']:,}")
    table.add_row("relationships written", f"{res['relationships']:,}")
    table.add_row("relationships skipped", f"{res['skipped_relationships']:,}")
    table.add_row("seconds reading the S2 files", f"{res['read_seconds']:.1f}")
    table.add_row(
        "seconds (bulk parse / send / schema)",
        f"{res['parse_seconds']:.1f} / {res['send_seconds']:.1f} / {res['schema_seconds']:.1f}",
    )
    console.print(table)
    for note in report.notes():
        console.print(note)


def load_unarxive(
    file: Annotated[
        Path, typer.Argument(help="unarXive JSONL(.gz) file", exists=True, dir_okay=False)
    ],
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 500,
) -> Any:
    """unarXive full text: papers, cited papers, <REF>-masked citing sentences, CITES."""
    from scholarkg.loaders.citerec_unarxive import read_unarxive
    from scholarkg.loaders.tolerant import SkipReport

    report = SkipReport()
    steps = [Step("unarxive", file, "unarxive", lambda: read_unarxive(file, report))]
    return load_and_report(
        steps,
        title="load unarxive",
        resume=resume,
        batch_size=batch_size,
        after=skip_notes(report),
    )

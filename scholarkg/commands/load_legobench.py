"""LEGOBench's ``scholarkg load`` commands: APC, Papers with Code, RPLM gold, ground truth,
and the synthetic world. Declared in the family (``benchmark/tasks/legobench``), registered
by ``commands/load.py``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from scholarkg.commands.common import console
from scholarkg.commands.load_common import BatchOpt, DirectionsOpt, ResumeOpt, load_and_report
from scholarkg.errors import InputError
from scholarkg.loaders.metric_direction import DirectionResolver
from scholarkg.loaders.steps import LoadSummary, Step, apc_steps, pwc_steps, synthetic_steps
from scholarkg.store.base import GraphStore

# --------------------------------------------------------------------------- step builders


def _pwc_notes(summary: LoadSummary, report: Any) -> None:
    summary.unknown_directions |= set(report.unknown_directions)
    if report.unparseable_scores:
        summary.notes.append(
            f"{report.unparseable_scores} score(s) not parseable as numbers: stored with "
            f"score=null and raw_score kept (e.g. {', '.join(report.unparseable_examples[:3])})"
        )
    if report.results_without_paper:
        summary.notes.append(
            f"{report.results_without_paper} result(s) name no paper (no paper_url or title): "
            "stored without HAS_RESULT"
        )
    if report.rows_without_method:
        summary.notes.append(
            f"{report.rows_without_method} row(s) without model_name or paper_title skipped"
        )


# --------------------------------------------------------------------------- commands


def load_apc(
    papers: Annotated[Path, typer.Option(help="papers.jsonl(.gz)", exists=True, dir_okay=False)],
    citations: Annotated[
        Path | None, typer.Option(help="Citation edge list (csv/tsv/jsonl).", exists=True)
    ] = None,
    comparisons: Annotated[
        Path | None, typer.Option(help="Comparison edge list (csv/tsv/jsonl).", exists=True)
    ] = None,
    no_chunks: Annotated[
        bool, typer.Option("--no-chunks", help="Do not split full texts into Chunk nodes.")
    ] = False,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 5_000,
) -> None:
    """An arXiv papers collection (APC): papers, citations, comparisons."""
    steps = apc_steps(papers, citations, comparisons, chunks=not no_chunks)
    load_and_report(steps, title="load apc", resume=resume, batch_size=batch_size)


def load_pwc(
    evaluation_tables: Annotated[
        Path | None, typer.Option(help="evaluation-tables.json(.gz)", exists=True, dir_okay=False)
    ] = None,
    papers: Annotated[
        Path | None,
        typer.Option(help="papers-with-abstracts.json(.gz)", exists=True, dir_okay=False),
    ] = None,
    links: Annotated[
        Path | None,
        typer.Option(help="links-between-papers-and-code.json(.gz)", exists=True, dir_okay=False),
    ] = None,
    directions: DirectionsOpt = None,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 2_000,
) -> None:
    """Papers with Code dumps: leaderboards as Result nodes, papers, code links."""
    from scholarkg.loaders.pwc import PwcReport

    if not (evaluation_tables or papers or links):
        raise InputError("give at least one of --evaluation-tables, --papers, --links")
    report = PwcReport(directions=DirectionResolver.from_file(directions))
    load_and_report(
        pwc_steps(evaluation_tables, papers, links, report), title="load pwc", resume=resume,
        batch_size=batch_size, after=lambda _store, summary: _pwc_notes(summary, report),
    )  # fmt: skip


def load_rplm(
    gold: Annotated[Path, typer.Option(help="LEGOBench rplm.xlsx", exists=True, dir_okay=False)],
    link: Annotated[
        bool, typer.Option(help="Link title lines to papers with the same normalised title.")
    ] = True,
    directions: DirectionsOpt = None,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 500,
) -> None:
    """LEGOBench RPLM gold leaderboards (title lines kept verbatim)."""
    from scholarkg.loaders.legobench_graph import link_title_lines, read_rplm_graph

    resolver = DirectionResolver.from_file(directions)
    steps = [
        Step("rplm", gold, "legobench-rplm", lambda: read_rplm_graph(gold, directions=resolver))
    ]

    def after(store: GraphStore, summary: LoadSummary) -> None:
        if link:
            linked = link_title_lines(store)
            summary.notes.append(f"{linked} title line(s) linked to a paper (OF_PAPER)")
        summary.unknown_directions |= resolver.unknown

    load_and_report(steps, title="load rplm", resume=resume, batch_size=batch_size, after=after)


def load_leaderboards(
    ground_truth: Annotated[
        Path, typer.Option(help="leaderboards.jsonl (ground truth)", exists=True, dir_okay=False)
    ],
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 1_000,
) -> None:
    """Ground-truth leaderboards (HAS_ENTRY {gt_rank} → Paper); load papers first."""
    from scholarkg.loaders.legobench_graph import read_ground_truth

    steps = [
        Step("ground truth", ground_truth, "ground-truth", lambda: read_ground_truth(ground_truth))
    ]
    load_and_report(steps, title="load leaderboards", resume=resume, batch_size=batch_size)


def load_synthetic_legobench(
    out: Annotated[Path, typer.Option(help="Directory to write the corpus files into.")],
    papers: Annotated[int, typer.Option("--papers", min=5, help="Number of papers.")] = 600,
    leaderboards: Annotated[
        int, typer.Option("--leaderboards", min=1, help="Number of leaderboards.")
    ] = 40,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 13,
    no_load: Annotated[bool, typer.Option("--no-load", help="Only write the files.")] = False,
    batch_size: BatchOpt = 2_000,
) -> None:
    """Generate the synthetic LEGOBench world, write every format, and load it (apc+pwc+gt)."""
    from scholarkg.loaders.pwc import PwcReport
    from scholarkg.synthetic.legobench_corpus import generate, write_corpus

    corpus = generate(n_papers=papers, n_leaderboards=leaderboards, seed=seed)
    files = write_corpus(corpus, out)
    console.print(
        f"wrote {len(corpus.papers)} papers, {len(corpus.leaderboards)} leaderboards, "
        f"{len(corpus.citations)} citations to {out}"
    )
    for name, path in files.items():
        console.print(f"  {name}: {path}", highlight=False)
    if no_load:
        return
    report = PwcReport()
    load_and_report(
        synthetic_steps(files, report), title=f"load synthetic-legobench (seed {seed})",
        batch_size=batch_size, after=lambda _store, summary: _pwc_notes(summary, report),
    )  # fmt: skip

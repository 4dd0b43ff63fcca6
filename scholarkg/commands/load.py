"""``scholarkg load``: files in their real formats → the graph.

Every subcommand applies the schema first, streams the loader's records through
``loaders.steps.run_steps`` (idempotent MERGE batches, a checkpoint after every flush), draws a
rich progress bar and ends with a summary table (``console.print_summary``). ``--resume``
skips what an earlier, interrupted run of the same file into the same graph durably wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from scholarkg.commands import load_aaar, load_citerec
from scholarkg.commands.common import console, settings, store_session
from scholarkg.commands.load_common import (
    BatchOpt,
    DirectionsOpt,
    ResumeOpt,
    load_and_report,
)
from scholarkg.commands.load_dorismae import load_dorismae
from scholarkg.commands.load_scireplicate import load_scireplicate
from scholarkg.console import counter_bar
from scholarkg.errors import InputError, NotSupported
from scholarkg.loaders.metric_direction import DirectionResolver
from scholarkg.loaders.steps import LoadSummary, Step, apc_steps, pwc_steps, synthetic_steps
from scholarkg.store.base import GraphStore

app = typer.Typer(
    help="Load files into the graph (idempotent: MERGE on stable ids).", no_args_is_help=True
)

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


@app.command("apc")
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


@app.command("pwc")
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


@app.command("rplm")
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


@app.command("leaderboards")
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


@app.command("bulk")
def load_bulk(
    papers: Annotated[Path, typer.Option(help="Paper nodes JSONL (id, …)", exists=True)],
    edges: Annotated[
        Path | None, typer.Option(help="Edge list (csv/tsv start,end or jsonl).", exists=True)
    ] = None,
    rel: Annotated[str, typer.Option(help="Relationship type of the edges.")] = "CITES",
) -> None:
    """Build a NEW graph fast: FalkorDB's GRAPH.BULK on the embedded store, Neo4j's offline
    importer on the managed Neo4j (both refuse a graph that has nodes)."""
    from scholarkg.schema.ddl import check_rel_type
    from scholarkg.store.bulk import EdgeSource, NodeSource, bulk_load

    check_rel_type(rel)
    if settings().backend == "neo4j":
        _load_bulk_neo4j(papers, edges, rel)
        return
    with store_session(write=True) as store, counter_bar("{task.completed:,}") as bar:
        stages: dict[str, Any] = {}

        def progress(stage: str, done: int) -> None:
            if stage not in stages:
                stages[stage] = bar.add_task(stage, total=None)
            bar.update(stages[stage], completed=done)

        result = bulk_load(
            store,  # type: ignore[arg-type]
            [NodeSource(papers)],
            [EdgeSource(edges, rel_type=rel)] if edges else [],
            progress=progress,
        )
    table = Table(title=f"load bulk into {store.graph!r}")
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("nodes written", f"{result.nodes:,}")
    table.add_row(f"{rel} relationships written", f"{result.relationships:,}")
    table.add_row("relationships skipped", f"{result.skipped_relationships:,}")
    table.add_row(
        "seconds (parse / send, overlapping)",
        f"{result.parse_seconds:.1f} / {result.send_seconds:.1f}",
    )
    table.add_row(
        "seconds (indexes / AOF rewrite)",
        f"{result.index_seconds:.1f} / {result.compact_seconds:.1f}",
    )
    table.add_row("seconds in all", f"{result.seconds:.1f}")
    console.print(table)
    if result.skipped_examples:
        console.print(f"[yellow]skipped e.g.: {', '.join(result.skipped_examples[:5])}[/yellow]")


def _load_bulk_neo4j(papers: Path, edges: Path | None, rel: str) -> None:
    """The managed Neo4j: Neo4j's offline importer into a new database, then the schema."""
    import time

    from scholarkg.store.neo4j_import import import_into_managed
    from scholarkg.store.neo4j_server import managed_server

    cfg = settings()
    if cfg.neo4j.uri:
        raise NotSupported(
            "the offline importer needs the database files, so it runs on the managed Neo4j "
            "only; on the server at NEO4J_URI run 'neo4j-admin database import full' there, "
            "or load incrementally ('scholarkg load apc')"
        )
    with store_session() as store:
        nodes = store.counts().total_nodes
    with console.status("importing") as status:
        result = import_into_managed(
            managed_server(cfg),
            papers,
            edges,
            rel_type=rel,
            node_count=nodes,
            progress=lambda message: status.update(message),
        )
        status.update("creating the schema (constraints, indexes)")
        t0 = time.perf_counter()
        with store_session(write=True) as store:
            store.apply_schema()
        result.schema_seconds = time.perf_counter() - t0
    table = Table(title="load bulk into Neo4j (offline importer)")
    table.add_column("what")
    table.add_column("value", justify="right")
    table.add_row("nodes written", f"{result.nodes:,}")
    table.add_row(f"{rel} relationships written", f"{result.relationships:,}")
    table.add_row("relationships skipped (unknown endpoint)", f"{result.skipped_relationships:,}")
    table.add_row("seconds (CSV files / importer + restart)",
                  f"{result.convert_seconds:.1f} / {result.import_seconds:.1f}")  # fmt: skip
    table.add_row("seconds (schema)", f"{result.schema_seconds:.1f}")
    table.add_row("seconds in all", f"{result.seconds + result.schema_seconds:.1f}")
    console.print(table)


@app.command("synthetic-legobench")
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


# --------------------------------------------------------------------------- family loaders
# Each benchmark family's loader command lives in its own module (commands/load_<family>.py),
# sharing the options and helpers of commands/load_common.py; registered here.
app.command("dorismae")(load_dorismae)
load_aaar.register(app)
load_citerec.register(app)  # beir, s2, unarxive
app.command("scireplicate")(load_scireplicate)

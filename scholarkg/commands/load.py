"""``scholarkg load``: files in their real formats → the graph.

Every subcommand applies the schema first, streams the loader's records through
``loaders.steps.run_steps`` (idempotent MERGE batches, a checkpoint after every flush), draws a
rich progress bar and ends with a summary table (``loaders.summary.print_summary``). ``--resume``
skips what an earlier, interrupted run of the same file into the same graph durably wrote.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.table import Table

from scholarkg.commands.common import console, settings, store_session
from scholarkg.console import progress_display
from scholarkg.errors import NotSupported

if TYPE_CHECKING:
    from scholarkg.store.falkordb.store import FalkorDBStore

app = typer.Typer(
    help="Load files into the graph (idempotent: MERGE on stable ids).", no_args_is_help=True
)


@app.command("bulk")
def load_bulk(
    papers: Annotated[
        Path,
        typer.Option(
            help="Paper nodes: JSONL (id, …) or an Arrow IPC file (.arrow/.feather).", exists=True
        ),
    ],
    edges: Annotated[
        Path | None, typer.Option(help="Edge list (csv/tsv start,end or jsonl).", exists=True)
    ] = None,
    rel: Annotated[str, typer.Option(help="Relationship type of the edges.")] = "CITES",
) -> None:
    """Build a NEW graph fast: FalkorDB's GRAPH.BULK on the embedded store, Neo4j's offline
    importer on the managed Neo4j (both refuse a graph that has nodes)."""
    from scholarkg.schema.ddl import check_rel_type
    from scholarkg.store.bulk_files import EdgeSource, NodeSource
    from scholarkg.store.falkordb.bulk import bulk_load

    check_rel_type(rel)
    if settings().backend == "neo4j":
        _load_bulk_neo4j(papers, edges, rel)
        return
    units = {"nodes": "nodes", "edges": "relationships", "schema": "indexes and constraints"}
    with (
        store_session(write=True, creates_graph=True) as store,
        progress_display(unit=lambda stage: units.get(stage.split()[-1], "")) as show,
    ):

        def progress(stage: str, done: int) -> None:
            show(stage, done, None)

        result = bulk_load(
            cast("FalkorDBStore", store),  # not neo4j: the embedded FalkorDB (open_store)
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
    _print_cleaned(result.cleaned)


def _print_cleaned(lines: list[str]) -> None:
    """What the text sanitiser changed, in the words the MERGE loaders' summaries use."""
    if lines:
        console.print("text cleaned (NUL/control characters, line ends, BOMs):")
        for line in lines:
            console.print(f"  {line}", highlight=False)


def _load_bulk_neo4j(papers: Path, edges: Path | None, rel: str) -> None:
    """The managed Neo4j: Neo4j's offline importer into a new database, then the schema."""
    import time

    from scholarkg.store.graph_lock import lock_folder, writing_graph
    from scholarkg.store.neo4j.importer import import_into_managed
    from scholarkg.store.neo4j.server import managed_server

    cfg = settings()
    if cfg.neo4j.uri:
        raise NotSupported(
            "the offline importer needs the database files, so it runs on the managed Neo4j "
            "only; on the server at NEO4J_URI run 'neo4j-admin database import full' there, "
            "or load incrementally ('scholarkg load apc')"
        )
    with store_session(creates_graph=True) as store:
        graph = store.graph
    # the whole import holds the graph's write lock (the schema's session takes it again)
    with (
        writing_graph(lock_folder(cfg), graph),
        progress_display(unit=lambda stage: "%" if stage.startswith("importer ") else "") as show,
    ):
        with store_session(creates_graph=True) as store:
            nodes = store.counts().total_nodes
        result = import_into_managed(
            managed_server(cfg), papers, edges, rel_type=rel, node_count=nodes, progress=show
        )
        show("creating the schema (constraints, indexes)", 1, 1)
        t0 = time.perf_counter()
        with store_session(write=True, creates_graph=True) as store:
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
    _print_cleaned(result.cleaned)


# --------------------------------------------------------------------------- family loaders
# Every benchmark family declares its ``load`` sub-commands (``Family.load_commands``); they
# are registered here from the catalog, so a new family needs no edit in this file.


def register_family_commands(target: typer.Typer) -> None:
    """Add every family's ``load`` sub-commands to ``target``, in catalog order."""
    from scholarkg.families import families, resolve

    for fam in families():
        for name, command in fam.load_commands.items():
            target.command(name)(resolve(command))


register_family_commands(app)


def _register_catalogues(target: typer.Typer) -> None:
    """The open catalogues and BibTeX (not a benchmark family: any graph may hold them)."""
    from scholarkg.commands import load_catalogues

    target.command("openalex")(load_catalogues.load_openalex)
    target.command("arxiv")(load_catalogues.load_arxiv)
    target.command("crossref")(load_catalogues.load_crossref)
    target.command("bibtex")(load_catalogues.load_bibtex)
    target.command("mark-stubs")(load_catalogues.mark_stubs)


_register_catalogues(app)

"""``scholarkg export`` / ``scholarkg import``: move a graph between backends as JSON Lines.

Typical use: build a corpus in the embedded store, then load it into Neo4j::

    scholarkg export --out corpus-dump
    SCHOLARKG_BACKEND=neo4j scholarkg import corpus-dump

The library functions live in ``scholarkg.store.transfer``; this module only parses options,
opens the configured store and draws progress.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.common import console, settings, store_session
from scholarkg.console import progress_display
from scholarkg.store import transfer


def export_graph(
    out: Annotated[
        Path,
        typer.Option(
            "--out", "-o", help="Directory to write (created if missing).", file_okay=False
        ),
    ],
    page_size: Annotated[int, typer.Option("--page-size", min=1, help="Nodes per query.")] = 5_000,
) -> None:
    """Export the current graph (nodes, relationships, vectors) as JSON Lines + manifest."""
    s = settings()
    with store_session() as store:
        counts = store.counts()
        total = counts.total_nodes + counts.total_relationships
        stage = f"export {s.graph} ({s.backend})"
        with progress_display(unit="records") as show:
            manifest = transfer.export_graph(
                store,
                out,
                page_size=page_size,
                progress=lambda n: show(stage, n, total or None),
            )
    console.print(
        f"exported {manifest.total_nodes:,} nodes and {manifest.total_relationships:,} "
        f"relationships from {s.backend}:{s.graph} to {out}"
    )
    for label, n in sorted(manifest.skipped_nodes.items()):
        console.print(f"[yellow]skipped {n:,} {label} node(s) without an id[/yellow]")


def import_graph(
    directory: Annotated[
        Path,
        typer.Argument(
            help="A directory written by 'scholarkg export'.", exists=True, file_okay=False
        ),
    ],
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, help="Rows per write.")] = 5_000,
    vector_indexes: Annotated[
        bool,
        typer.Option(help="Create a cosine vector index for each imported vector property."),
    ] = True,
) -> None:
    """Import an export into the current graph (MERGE on id: safe to repeat)."""
    s = settings()
    manifest = transfer.Manifest.read(directory)
    total = manifest.total_nodes + manifest.total_relationships
    stage = f"import into {s.graph} ({s.backend})"
    with (
        store_session(write=True, creates_graph=True) as store,
        progress_display(unit="records") as show,
    ):
        report = transfer.import_graph(
            store,
            directory,
            batch_size=batch_size,
            create_vector_indexes=vector_indexes,
            progress=lambda n: show(stage, n, total or None),
        )
    console.print(
        f"imported {report.nodes:,} nodes, {report.relationships:,} relationships and "
        f"{report.vectors:,} vectors into {s.backend}:{s.graph}"
    )
    if report.skipped_relationships:
        console.print(
            f"[yellow]{report.skipped_relationships:,} relationship(s) skipped: "
            "an endpoint was not in the export[/yellow]"
        )

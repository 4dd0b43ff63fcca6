"""``scholarkg schema apply``: create the graph model's constraints and indexes.

Loaders MERGE on ``id``; without the key index every MERGE scans its label, so applying
the schema first is what keeps loads linear. Re-running it is safe (nothing is created
twice).
"""

from __future__ import annotations

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    print_rows,
    settings,
    store_session,
)
from scholarkg.schema.ddl import default_schema

app = typer.Typer(help="Graph schema: unique keys, lookup, full-text and vector indexes.")


@app.command()
def apply(
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Apply the default schema to the current graph and print what was created."""
    cfg = settings()
    with store_session(write=True, creates_graph=True) as store:
        created = store.apply_schema(default_schema())
    if created is None:  # a backend that does not report what it created
        console.print(f"schema applied to {cfg.graph!r} ({cfg.backend})", highlight=False)
        return
    if not created and fmt == "table":
        console.print(f"schema already applied to {cfg.graph!r}: nothing to create")
        return
    print_rows([{"created": item} for item in created], fmt, title=f"graph {cfg.graph!r}")

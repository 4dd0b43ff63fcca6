"""The table a load ends with: what each file merged, what was skipped, and why.

Every ``scholarkg load`` command and the demo print a :class:`~scholarkg.loaders.steps.LoadSummary`
the same way; the rendering lives beside the loaders (the console module is below them and
knows nothing of loads).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from scholarkg.console import console, err_console

if TYPE_CHECKING:
    from scholarkg.loaders.steps import LoadSummary


def print_summary(summary: LoadSummary, *, title: str, out: Console | None = None) -> None:
    """Nodes/relationships written, skipped edges, notes, warnings (a file that held no
    records) and unknown metric directions."""
    from scholarkg.loaders.metric_direction import UNKNOWN_HINT

    out = out or console
    nodes, rels, skipped = summary.totals()
    table = Table(title=title)
    table.add_column("kind")
    table.add_column("name")
    table.add_column("merged", justify="right")
    table.add_column("skipped", justify="right")
    graph = summary.graph
    if graph is not None:
        table.add_column("in graph", justify="right")

    def in_graph(counts: dict[str, int] | None, name: str) -> list[str]:
        return [] if counts is None else [f"{counts.get(name, 0):,}"]

    for name, count in sorted(nodes.items()):
        table.add_row(
            "node", name, f"{count:,}", "", *in_graph(graph.nodes if graph else None, name)
        )
    for name in sorted(set(rels) | set(skipped)):
        table.add_row(
            "relationship", name, f"{rels[name]:,}", f"{skipped[name]:,}",
            *in_graph(graph.relationships if graph else None, name),
        )  # fmt: skip
    out.print(table)
    out.print(
        "[dim]merged = rows sent (MERGE; several files may merge the same node); in graph = "
        "totals after the load[/dim]"
    )
    records = sum(st.records for st in summary.stats if not st.reread)
    sources = {st.source for st in summary.stats}
    folders = sum(1 for source in sources if Path(source).is_dir())
    files = len(sources) - folders
    where = " and ".join(
        part
        for part in (f"{files} file(s)" if files else "", f"{folders} folder(s)" if folders else "")
        if part
    )
    read = f"{records:,} source record(s) from {where or '0 file(s)'}"
    # a --resume reads the records it skips too: how many of them this run stored
    resumed = sum(st.skipped_on_resume for st in summary.stats if not st.reread)
    if resumed:
        read += (
            f": {resumed:,} skipped as already stored (--resume), {records - resumed:,} loaded now"
        )
    out.print(f"[dim]{read}[/dim]")
    # the writer's skips only: what a reader left out on purpose has a note of its own
    no_endpoint = sum(sum(st.write.skipped_relationships.values()) for st in summary.stats)
    if no_endpoint:
        out.print(
            f"[yellow]{no_endpoint:,} relationship(s) skipped: an endpoint is not in "
            "the graph (load the papers first)[/yellow]"
        )
    for note in summary.notes:
        out.print(note)
    for warning in summary.warnings:
        err_console.print(f"[yellow]warning: {warning}[/yellow]", soft_wrap=True)
    if summary.unknown_directions:
        names = ", ".join(sorted(summary.unknown_directions))
        err_console.print(
            f"[yellow]warning: {len(summary.unknown_directions)} metric(s) with unknown "
            f"direction: {names}[/yellow]\n[yellow]hint: {UNKNOWN_HINT}[/yellow]",
            soft_wrap=True,
        )

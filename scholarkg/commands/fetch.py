"""``scholarkg fetch NAME [--dest DIR]``: download a benchmark dataset from the registry.

Shows the licence first (``--yes`` accepts it without asking), draws a progress bar per file,
and explains what to do when the data must be requested by hand or the network is down.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scholarkg.commands.common import console, print_rows, settings
from scholarkg.console import progress_display
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.services.fetch import DatasetSpec


def _size(n: float | None) -> str:
    if not n:
        return "?"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return "?"


def _first_sentence(text: str, limit: int = 60) -> str:
    """Short licence for the --list table; the full text is shown before each download."""
    head = text.split(". ", 1)[0].rstrip(".")
    return head if len(head) <= limit else head[: limit - 1] + "…"


def _show_licence(spec: DatasetSpec) -> None:
    console.print(f"[bold]{spec.name}[/bold]: {spec.title}")
    console.print(f"[bold]Licence:[/bold] {spec.licence}", highlight=False)
    if spec.licence_url:
        console.print(f"  {spec.licence_url}", highlight=False)
    if spec.notes:
        console.print(f"[dim]{spec.notes}[/dim]", highlight=False)


def fetch(
    name: Annotated[str | None, typer.Argument(help="Dataset name (see --list).")] = None,
    dest: Annotated[
        Path | None,
        typer.Option(help="Target directory (default: $SCHOLARKG_HOME/datasets/NAME)."),
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the known datasets.")] = False,
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Accept the licence without asking.")
    ] = False,
) -> None:
    """Download, verify (sha256) and unpack a benchmark dataset; safe to re-run (resumes)."""
    # httpx is imported here, not at module level, so that `scholarkg --help` stays fast
    from scholarkg.services.fetch import fetch_dataset, get_dataset, load_registry

    registry = load_registry()
    if list_:
        rows = [
            {
                "name": s.name + (f" ({', '.join(s.aliases)})" if s.aliases else ""),
                "benchmark": s.benchmark,
                "kind": s.kind,
                "size": _size(s.total_size) if s.kind == "download" else "",
                "licence": _first_sentence(s.licence),
            }
            for s in registry.values()
        ]
        print_rows(rows, "table", title="datasets (scholarkg fetch NAME)")
        return
    if not name:
        raise InputError("give a dataset NAME or --list")
    spec = get_dataset(name, registry)
    target = dest or settings().home / "datasets" / spec.name
    _show_licence(spec)

    def accept(s: DatasetSpec) -> bool:
        return yes or typer.confirm("Accept this licence and download?", default=False)

    with progress_display(as_bytes=True) as progress:
        result = fetch_dataset(spec, target, accept_licence=accept, progress=progress)
    for f in result.files:
        state = "kept (verified)" if f.reused else "downloaded"
        console.print(f"{state}: {f.path} ({_size(f.size)}) sha256 {f.sha256}", highlight=False)
        if f.extracted_to:
            console.print(f"  unpacked into {f.extracted_to}", highlight=False)
        if f.recorded_sum:
            console.print(
                f"[yellow]note:[/yellow] the registry has no sha256 for {f.path.name}; recorded "
                f"it in {result.sums_file} and later downloads will be checked against it. "
                "Please report it so it can be added to the registry.",
                highlight=False,
            )

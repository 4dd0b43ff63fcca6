"""``scholarkg demo``: run the end-to-end demo on synthetic data (see scholarkg/demo.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.common import console, settings


def demo(
    out: Annotated[Path, typer.Option(help="Where the demo writes its files.")] = Path("demo-out"),
    papers: Annotated[int, typer.Option(help="Synthetic papers.")] = 400,
    leaderboards: Annotated[int, typer.Option(help="Synthetic leaderboards.")] = 24,
    citerec_papers: Annotated[
        int, typer.Option("--citerec-papers", help="Papers in the synthetic S2 world.")
    ] = 300,
    llm: Annotated[bool, typer.Option(help="Run the LLM tasks on the local model.")] = True,
    family: Annotated[
        list[str] | None,
        typer.Option(
            "--family",
            help="Only this benchmark family's steps (repeatable; e.g. dorismae). Default: all.",
        ),
    ] = None,
) -> None:
    """Every family's synthetic corpus in one graph: load, query, embed, rank, LLM tasks, report."""
    from scholarkg.demo import run_demo

    run_demo(
        settings(), out_dir=out, n_papers=papers, n_leaderboards=leaderboards,
        n_citerec=citerec_papers, with_llm=llm, console=console, only=family,
    )  # fmt: skip

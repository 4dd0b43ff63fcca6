"""``scholarkg bench build citerec-diagnostics``: build citeBench's diagnostic datasets.

Registered under ``bench build`` (one line in ``commands/bench.py``); the family's tasks run
through the generic ``bench run citerec`` like every other task.
"""

from __future__ import annotations

from typing import Annotated

import typer

from scholarkg.commands.common import FormatOpt, OutputFormat, console, print_rows, store_session

build_app = typer.Typer(help="Build benchmark datasets from what is loaded.", no_args_is_help=True)


@build_app.command("citerec-diagnostics")
def build_citerec_diagnostics(
    name: Annotated[
        str, typer.Option(help="Build name: datasets are '<name>/<dataset>'.")
    ] = "citebench",
    seed: Annotated[
        int, typer.Option(help="Sampling seed (same seed, same graph: same examples).")
    ] = 0,
    per_class: Annotated[int, typer.Option("--per-class", min=1, help="Examples per class.")] = 50,
    tagger: Annotated[
        str, typer.Option(help="POS tagger: auto, rules (offline fallback) or nltk.")
    ] = "auto",
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Stratified diagnostic datasets (fields, years, citation count, length, location,
    intent, POS before/after <REF>, low-resource fields) from the loaded citing sentences."""
    from scholarkg.benchmark.tasks.citerec.diagnostics import build_diagnostics, summary_rows
    from scholarkg.benchmark.tasks.citerec.textfeatures import load_tagger
    from scholarkg.commands.common import check_choice

    check_choice("--tagger", tagger, ("auto", "rules", "nltk"))
    # it writes the diagnostic examples: compact the log afterwards like every bulk write
    with store_session(write=True) as store:
        report = build_diagnostics(
            store, build=name, seed=seed, per_class=per_class, tagger=load_tagger(tagger)
        )
    print_rows(summary_rows(report), fmt=fmt, title=f"{name} {report.version}")
    if fmt == "table":
        console.print(
            f"population: {report.population:,} single-citation sentences; version "
            f"{report.version}; run one with: scholarkg bench run citerec --dataset "
            f"{name}/fields --ranker bm25"
        )

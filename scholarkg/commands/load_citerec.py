"""``scholarkg load beir|s2|unarxive``: the citation-recommendation family's loaders.

Each command builds :class:`~scholarkg.commands.load.Step`s over the family's streaming
readers and runs them through the shared resumable path (``load_and_report``). Malformed
lines are skipped and counted (``SkipReport``); the summary prints the counts per file and
the first examples with file and line number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.load import BatchOpt, LoadSummary, ResumeOpt, Step, load_and_report
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore


def beir_steps(directory: Path, name: str, report: object) -> list[Step]:
    """Corpus, then queries, then every ``qrels/<split>.tsv``: nodes before the edges."""
    from scholarkg.loaders import citerec_beir as beir

    corpus = beir.find_file(directory, "corpus.jsonl")
    queries = beir.find_file(directory, "queries.jsonl")
    splits = beir.qrels_files(directory)
    steps = [
        Step(
            "corpus", corpus, f"beir-corpus:{name}", lambda: beir.read_corpus(corpus, name, report)
        ),  # type: ignore[arg-type]
        Step(
            "queries",
            queries,
            f"beir-queries:{name}",
            lambda: beir.read_queries(queries, name, report),
        ),  # type: ignore[arg-type]
    ]
    for split, path in splits.items():
        steps.append(
            Step(
                f"qrels {split}",
                path,
                f"beir-qrels:{name}:{split}",
                lambda path=path, split=split: beir.read_qrels(path, name, split, report),  # type: ignore[misc]
            )
        )
    return steps


def _skip_notes(report: object) -> object:
    def after(_store: GraphStore, summary: LoadSummary) -> None:
        summary.notes.extend(report.notes())  # type: ignore[attr-defined]

    return after


def load_beir(
    directory: Annotated[
        Path, typer.Argument(help="Collection directory (corpus.jsonl, queries.jsonl, qrels/).")
    ],
    name: Annotated[
        str | None, typer.Option("--name", help="Collection name (default: the directory name).")
    ] = None,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 5_000,
) -> LoadSummary:
    """A BEIR-layout test collection: documents as Papers, queries, qrels per split."""
    from scholarkg.loaders.citerec_common import SkipReport

    if not directory.is_dir():
        raise InputError("not a directory", path=directory)
    name = (name or directory.resolve().name).strip()
    if not name or any(c in name for c in " \t\n/:"):
        raise InputError(
            f"collection name {name!r} must be non-empty, without spaces, '/' or ':'", field="name"
        )
    report = SkipReport()
    return load_and_report(
        beir_steps(directory, name, report),
        title=f"load beir {name}",
        resume=resume,
        batch_size=batch_size,
        after=_skip_notes(report),  # type: ignore[arg-type]
    )


def register(app: typer.Typer) -> None:
    """Add this family's ``load`` verbs to ``scholarkg load`` (called once from load.py)."""
    app.command("beir")(load_beir)

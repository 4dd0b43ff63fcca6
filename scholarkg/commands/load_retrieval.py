"""``scholarkg load beir``: the retrieval family's loader (a BEIR-layout test collection).

Builds :class:`~scholarkg.loaders.steps.Step`s over the BEIR readers (corpus, queries, one
step per qrels split) and runs them through the shared resumable path (``load_and_report``).
Malformed lines are skipped and counted (``SkipReport``); the summary prints the counts per
file and the first examples with file and line number.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scholarkg.commands.common import console
from scholarkg.commands.load_common import BatchOpt, ResumeOpt, load_and_report, skip_notes
from scholarkg.errors import InputError
from scholarkg.loaders.steps import Step

if TYPE_CHECKING:
    from scholarkg.loaders.tolerant import SkipReport


def beir_steps(
    directory: Path, name: str, report: SkipReport, *, qrels_split: str = "test"
) -> list[Step]:
    """Corpus, then queries, then every ``qrels/<split>.tsv``: nodes before the edges."""
    from scholarkg.loaders import beir

    corpus = beir.find_file(directory, "corpus.jsonl")
    queries = beir.find_file(directory, "queries.jsonl")
    splits = beir.qrels_files(directory, top_level_split=qrels_split)
    found = ", ".join(f"{s} ({p.relative_to(directory)})" for s, p in splits.items())
    console.print(f"qrels split(s) found: {found}")
    steps = [
        Step(
            "corpus", corpus, f"beir-corpus:{name}", lambda: beir.read_corpus(corpus, name, report)
        ),
        Step(
            "queries",
            queries,
            f"beir-queries:{name}",
            lambda: beir.read_queries(queries, name, report),
        ),
    ]
    for split, path in splits.items():
        steps.append(
            Step(
                f"qrels {split}",
                path,
                f"beir-qrels:{name}:{split}",
                partial(beir.read_qrels, path, name, split, report),
            )
        )
    return steps


def load_beir(
    directory: Annotated[
        Path, typer.Argument(help="Collection directory (corpus.jsonl, queries.jsonl, qrels/).")
    ],
    name: Annotated[
        str | None, typer.Option("--name", help="Collection name (default: the directory name).")
    ] = None,
    qrels_split: Annotated[
        str,
        typer.Option(
            "--qrels-split",
            help="Split name of a top-level qrels.tsv (qrels/<split>.tsv: the file name).",
        ),
    ] = "test",
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 5_000,
) -> Any:
    """A BEIR-layout test collection: documents as Papers, queries, qrels per split."""
    from scholarkg.loaders.tolerant import SkipReport

    if not directory.is_dir():
        raise InputError("not a directory", path=directory)
    name = (name or directory.resolve().name).strip()
    if not name or any(c in name for c in " \t\n/:"):
        raise InputError(
            f"collection name {name!r} must be non-empty, without spaces, '/' or ':'", field="name"
        )
    report = SkipReport()
    return load_and_report(
        beir_steps(directory, name, report, qrels_split=qrels_split),
        title=f"load beir {name}",
        resume=resume,
        batch_size=batch_size,
        after=skip_notes(report),
    )

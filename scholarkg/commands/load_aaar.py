"""``scholarkg load aaar PATH`` and ``scholarkg load reviewcritique FILE``.

The same path as every other load (schema, resumable MERGE batches, summary table); what is
AAAR-specific is finding the task a file or folder holds (``--task`` or auto-detected from the
content), and that one source record is one *paper* (or one EqInfer item / ReviewCritique
line), so a bad record stops the load with everything before it stored.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.load_common import BatchOpt, ResumeOpt, load_and_report
from scholarkg.loaders.steps import Step

TaskOpt = Annotated[
    str | None,
    typer.Option(
        "--task",
        help="eqinfer | expdesign | weakness (default: detected from the content; a root "
        "folder with Equation_Inference/, Experiment_Design/, Paper_Weakness/ loads all).",
    ),
]


def load_aaar(
    path: Annotated[
        Path,
        typer.Argument(
            help="AAAR-1.0 task folder or file (or the folder holding all three).", exists=True
        ),
    ],
    task: TaskOpt = None,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 200,
) -> None:
    """AAAR-1.0: EqInfer items, ExpDesign papers + experiments, Weakness papers + reviewers."""
    from scholarkg.loaders.aaar import aaar_groups, task_sources

    sources = task_sources(path, task)
    steps = [
        Step(f"aaar {t}", p, f"aaar-{t}", functools.partial(aaar_groups, t, p)) for t, p in sources
    ]
    load_and_report(steps, title="load aaar", resume=resume, batch_size=batch_size)


def load_reviewcritique(
    file: Annotated[
        Path,
        typer.Argument(
            help="ReviewCritique.jsonl or ReviewCritique_LLM.jsonl", exists=True, dir_okay=False
        ),
    ],
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 50,
) -> None:
    """ReviewCritique: papers, reviews and their labelled segments (deficient or not)."""
    from scholarkg.loaders.aaar import reviewcritique_groups

    steps = [Step("reviewcritique", file, "reviewcritique", lambda: reviewcritique_groups(file))]
    load_and_report(steps, title="load reviewcritique", resume=resume, batch_size=batch_size)

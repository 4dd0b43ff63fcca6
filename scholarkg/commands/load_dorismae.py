"""``scholarkg load dorismae FILE.json [--subqueries subquery-2.txt]``.

Streams the released DORIS-MAE JSON (``loaders/dorismae.py``) into the graph with a record
counter, then prints what was merged, what the sheet's tolerated oddities
counted, and the graph totals. Idempotent: every node and edge is MERGEd on a stable id
(JUDGED on its own key), so a second load of the same file changes nothing. It runs through the
shared load steps like every ``load`` verb: a checkpoint after every flush, and ``--resume``
continues after a stop (the file is re-read to rebuild the reader's state; what the checkpoint
claims is not written again).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scholarkg.commands.common import console
from scholarkg.commands.load_common import BatchOpt, ResumeOpt
from scholarkg.console import err_console
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.loaders.checkpoint import Group


def load_dorismae(
    file: Annotated[
        Path,
        typer.Argument(
            help="DORIS-MAE_dataset_v1.json (or v0), or a file/checkout of the authors' "
            "repository (queries.txt, ranking pickles, ...)",
            exists=True,
        ),
    ],
    subqueries: Annotated[
        Path | None,
        typer.Option(
            "--subqueries",
            exists=True,
            dir_okay=False,
            help="subquery-2.txt: record its numbering on the sub-queries built by the rule.",
        ),
    ] = None,
    runs_out: Annotated[
        Path | None,
        typer.Option(
            "--runs-out",
            file_okay=False,
            help="Write the published query-level ranking pickles found as TREC runs here.",
        ),
    ] = None,
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 5_000,
) -> None:
    """DORIS-MAE: queries, aspects, sentences, abstracts as Papers, citations, pools, judgements."""
    from scholarkg.loaders import dorismae_release as rel

    found = rel.release_files(file) if file.is_dir() else [(rel.classify(file), file)]
    datasets = [p for k, p in found if k == "dataset"]
    queries = [p for k, p in found if k == "queries"]
    rankings = [p for k, p in found if k == "ranking"]
    if subqueries is None and datasets:
        subqueries = next((p for k, p in found if k == "subqueries"), None)
    notes: list[str] = []
    for kind, path in found:
        if kind in ("subqueries", "best_candidates", "lfs_pointer", "unknown"):
            if kind == "subqueries" and datasets:
                continue  # used as --subqueries
            if not file.is_dir():
                raise InputError(rel.refusal(kind, path), path=path)
            notes.append(f"skipped {path.relative_to(file)}: {rel.refusal(kind, path)}")
    if not datasets and not queries and not rankings:
        raise InputError(
            f"no DORIS-MAE file scholarkg can load here ({len(found)} recognised, all "
            f"skipped above); {rel.NEEDS}",
            path=file,
        )
    for note in notes:
        err_console.print(f"[yellow]{note}[/yellow]")
    for path in datasets:
        _load_dataset(path, subqueries, batch_size, resume)
    if queries and datasets:
        console.print(
            f"[dim]skipped {', '.join(p.name for p in queries)}: the dataset holds the same "
            "queries with its own aspect ids[/dim]"
        )
    elif queries:
        _load_queries_txt(queries, batch_size, resume)
    if rankings:
        _published_runs(rankings, runs_out)


def _load_queries_txt(paths: list[Path], batch_size: int, resume: bool) -> None:
    from scholarkg.commands.load_common import load_and_report
    from scholarkg.loaders.dorismae_release import NEEDS, queries_txt_groups
    from scholarkg.loaders.steps import Step

    steps = [
        Step("dorismae queries", p, "dorismae-queries", partial(queries_txt_groups, p))
        for p in paths
    ]
    load_and_report(
        steps, title="load dorismae (queries.txt)", resume=resume, batch_size=batch_size
    )
    console.print(
        "[dim]queries.txt gives queries, aspects and sub-aspects only: to rank and score, "
        f"{NEEDS}[/dim]"
    )


def _published_runs(paths: list[Path], runs_out: Path | None) -> None:
    from scholarkg.loaders.dorismae_release import ranking_level, ranking_to_trec

    query_level = [p for p in paths if ranking_level(p) == "query"]
    other = len(paths) - len(query_level)
    if runs_out is None:
        console.print(
            f"found {len(paths)} published ranking file(s) ({len(query_level)} query-level): "
            "pass --runs-out DIR to write the query-level ones as TREC runs"
        )
        return
    for path in query_level:
        target, n = ranking_to_trec(path, runs_out)
        console.print(f"wrote {target} ({n} queries)")
    if other:
        console.print(
            f"[yellow]{other} sub-query/aspect-level ranking file(s) not converted: their "
            "order is the dataset's own sub-query list[/yellow]"
        )
    if query_level:
        console.print(
            "[dim]score one with 'scholarkg score ir --qrels qrels.graded.trec --run RUN' (qrels "
            "from 'scholarkg bench run dorismae --out DIR' on the loaded dataset)[/dim]"
        )


def _load_dataset(file: Path, subqueries: Path | None, batch_size: int, resume: bool) -> None:
    """The dataset JSON through the shared load steps: checkpoints after every flush, so
    ``--resume`` continues after a stop; the reader's own counts join the summary."""
    from scholarkg.commands.load_common import load_and_report
    from scholarkg.loaders.checkpoint import single_groups
    from scholarkg.loaders.dorismae import DorisLoadReport, DorisReader
    from scholarkg.loaders.steps import LoadSummary, Step
    from scholarkg.store.base import GraphStore

    report = DorisLoadReport()

    def groups() -> Iterator[Group]:
        # one group per record: the stream is flat (a paper, its citations come at the end),
        # and a resumed read re-parses the file to rebuild the reader's state, writing nothing
        # the checkpoint already claims
        return single_groups(DorisReader(file, report=report, subqueries=subqueries).records())

    def notes(_store: GraphStore, summary: LoadSummary) -> None:
        summary.notes.extend(report.summary_lines())
        summary.notes.append("JUDGED edges are merged on their own key (gpt:<i>, human:<i>:<who>)")

    step = Step(f"dorismae ({file.name})", file, "dorismae", groups)
    load_and_report(
        [step], title="load dorismae", resume=resume, batch_size=batch_size, after=notes
    )

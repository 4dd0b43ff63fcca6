"""``scholarkg bench import-predictions`` and ``bench run-llm``: the LLM tasks from the CLI.

Two plain typer functions (registered by ``commands/bench.py``):

* :func:`import_predictions` scores answers produced elsewhere (JSONL in the format documented
  in ``scholarkg/benchmark/tasks/predictions.py``, or a released LEGOBench workbook) against the
  instances built from the graph, and records the run;
* :func:`run_llm` generates the answers with an OpenAI-compatible endpoint (``--base-url`` or
  ``SCHOLARKG_LLM_BASE_URL``; ``scholarkg llm serve`` starts a local one), then does the same.

Both print the aggregate metrics and the run id; ``--format json`` prints the whole record.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scholarkg.commands.common import (
    check_choice,
    console,
    print_rows,
    settings,
    stage_progress,
    store_session,
)
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.benchmark.runs import RunRecord
    from scholarkg.services.llm import LLMClient
    from scholarkg.store.base import GraphStore

LLM_TASKS = ("legobench-rplm", "legobench-lgplm")
FORMATS = ("table", "json")

TaskOpt = Annotated[str, typer.Argument(help=f"LLM task: {', '.join(LLM_TASKS)}.")]
ProtocolOpt = Annotated[
    str, typer.Option(help="RPLM: clean (platform definition) or legobench-paper (Table 4).")
]
MatcherOpt = Annotated[str, typer.Option(help="RPLM title matcher: substring, normalized, line.")]
SeedOpt = Annotated[int, typer.Option(help="RPLM: seed of the per-leaderboard option shuffle.")]
EntriesOpt = Annotated[
    str,
    typer.Option(
        help="RPLM leaderboards: auto (rplm.xlsx rows if loaded, else ground truth), "
        "titleline, paper or all."
    ),
]
ShuffleOpt = Annotated[
    str, typer.Option(help="RPLM option order: seeded, or stored (the release's order).")
]
LimitOpt = Annotated[int | None, typer.Option(help="Only the first N leaderboards.")]
GoldOpt = Annotated[
    Path | None,
    typer.Option(help="LGPLM: leaderboards.jsonl with methods and scores (default: the graph)."),
]
KOpt = Annotated[int, typer.Option("-k", help="LGPLM: BM25 passages per leaderboard.")]
AverageOpt = Annotated[str, typer.Option(help="LGPLM: micro (pooled counts) or macro.")]
RecordOpt = Annotated[
    bool, typer.Option(help="Save the run file and write :Run, scores and answers to the graph.")
]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help="table or json.")]


def _check(task: str, fmt: str) -> None:
    if task not in LLM_TASKS:
        raise InputError(f"unknown LLM task {task!r}; choose one of {', '.join(LLM_TASKS)}")
    check_choice("--format", fmt, FORMATS)


def _execute(
    task: str,
    store: GraphStore,
    client: LLMClient | None,
    predictions: Path | None,
    *,
    protocol: str,
    matcher: str,
    seed: int,
    entries: str,
    shuffle: str,
    limit: int | None,
    gold: Path | None,
    k: int,
    average: str,
    record: bool,
    progress: Callable[[str, int, int], None],
    generation: dict[str, Any] | None = None,
) -> RunRecord:
    """Dispatch to ``run_rplm`` / ``run_lgplm``; ``generation`` overrides their settings."""
    from scholarkg.benchmark.runs import RunRegistry

    registry = RunRegistry(settings().runs_dir) if record else None
    if task == "legobench-rplm":
        from scholarkg.benchmark.tasks.legobench.rplm import RPLMSettings, run_rplm

        return run_rplm(
            store, client, predictions_path=predictions, protocol=protocol, matcher=matcher,
            seed=seed, entries=entries, shuffle=shuffle, limit=limit, registry=registry,
            record_in_graph=record, progress=progress,
            settings=RPLMSettings(**generation) if generation else None,
        )  # fmt: skip
    from scholarkg.benchmark.tasks.legobench.lgplm import LGPLMSettings, run_lgplm

    return run_lgplm(
        store, client, predictions_path=predictions, k=k, limit=limit, gold_path=gold,
        average=average, registry=registry, record_in_graph=record, progress=progress,
        settings=LGPLMSettings(**generation) if generation else None,
    )  # fmt: skip


def _show(run: RunRecord, fmt: str, record: bool) -> None:
    from scholarkg.commands.common import to_json

    if fmt == "json":
        print(to_json(run.model_dump()))
        return
    rows = [{"metric": k, "value": v} for k, v in run.metrics.items()]
    print_rows(rows, "table", title=f"{run.task} ({run.models.get('llm', '?')})")
    if run.notes:
        console.print(f"[dim]{run.notes}[/dim]")
    console.print(f"run {run.id}" + ("" if record else " (not recorded)"))


def import_predictions(
    task: TaskOpt,
    file: Annotated[Path, typer.Argument(help="JSONL predictions or a released .xlsx workbook.")],
    protocol: ProtocolOpt = "clean",
    matcher: MatcherOpt = "substring",
    seed: SeedOpt = 0,
    entries: EntriesOpt = "auto",
    shuffle: ShuffleOpt = "seeded",
    limit: LimitOpt = None,
    gold: GoldOpt = None,
    k: KOpt = 10,
    average: AverageOpt = "micro",
    record: RecordOpt = True,
    fmt: FormatOpt = "table",
) -> None:
    """Score an LLM task's answers produced elsewhere against instances built from the graph.

    JSONL: one {"id": <Leaderboard id>, "response"|"answer": "..."} per line (response for
    legobench-rplm, answer for legobench-lgplm). Released workbooks: the <model>_gen_rank or
    <model>_ldb column, rows matched by id, task/dataset/metric, GT, prompt or position.
    """
    _check(task, fmt)
    with store_session() as store, stage_progress(quiet=fmt == "json") as progress:
        run = _execute(
            task, store, None, file, protocol=protocol, matcher=matcher, seed=seed,
            entries=entries, shuffle=shuffle, limit=limit, gold=gold, k=k, average=average,
            record=record, progress=progress,
        )  # fmt: skip
    _show(run, fmt, record)


def run_llm(
    task: TaskOpt,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8089/v1.")
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="Model name (default: the only one served).")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="Override the paper's limit (RPLM 4096, LGPLM 1600).")
    ] = None,
    mode: Annotated[
        str, typer.Option(help="completion (paper: no chat template) or chat.")
    ] = "completion",
    concurrency: Annotated[int, typer.Option(help="Requests in flight.")] = 4,
    cache: Annotated[bool, typer.Option(help="Use the response cache (repeatable runs).")] = True,
    protocol: ProtocolOpt = "clean",
    matcher: MatcherOpt = "substring",
    seed: SeedOpt = 0,
    entries: EntriesOpt = "auto",
    shuffle: ShuffleOpt = "seeded",
    limit: LimitOpt = None,
    gold: GoldOpt = None,
    k: KOpt = 10,
    average: AverageOpt = "micro",
    record: RecordOpt = True,
    fmt: FormatOpt = "table",
) -> None:
    """Run an LLM task with a model: prompts from the graph, answers, scores, a recorded run."""
    from scholarkg.services.llm import LLMClient

    _check(task, fmt)
    check_choice("--mode", mode, ("completion", "chat"))
    generation: dict[str, Any] = {"mode": mode, "concurrency": concurrency}
    if max_tokens is not None:
        generation["max_tokens"] = max_tokens
    client = LLMClient.from_settings(settings(), base_url=base_url, model=model, use_cache=cache)
    with client, store_session() as store, stage_progress(quiet=fmt == "json") as progress:
        run = _execute(
            task, store, client, None, protocol=protocol, matcher=matcher, seed=seed,
            entries=entries, shuffle=shuffle, limit=limit, gold=gold, k=k, average=average,
            record=record, progress=progress,
            generation=generation,
        )  # fmt: skip
    _show(run, fmt, record)

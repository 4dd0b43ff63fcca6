"""``scholarkg runs list | show RUN | compare RUN_A RUN_B``: the recorded benchmark runs.

Runs live as JSON files in ``$SCHOLARKG_HOME/runs`` (see ``scholarkg.benchmark.runs``);
these commands only read them, so they work without a graph server.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from scholarkg.benchmark.runs import (
    RunRegistry,
    RunSummary,
    compare_runs,
    setting_differences,
    why_not_comparable,
)
from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    err_console,
    explicit_graph,
    print_rows,
    running_store_session,
    settings,
    to_json,
)
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.benchmark.metrics.stats import Method

app = typer.Typer(help="List, show and compare recorded benchmark runs.", no_args_is_help=True)


def _registry() -> RunRegistry:
    return RunRegistry(settings().runs_dir)


@app.command("list")
def list_runs(
    task: Annotated[
        str | None, typer.Option(help="Only this task or task family (e.g. legobench).")
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Recorded runs, oldest first: what answered (ranker or model; baseline/ours), on which
    dataset and graph, and the configuration that tells runs of one task apart (the settings
    in which they differ, e.g. task=subquery). The global --graph (or SCHOLARKG_GRAPH) lists
    only that graph's runs.

    JSON: a list of {id, task, created, answered_by, answer_kind, role, dataset, graph,
    configuration, models, instances, metrics}.
    """
    graph = explicit_graph()
    _forget_half_recorded()
    runs = _registry().summaries(task, graph=graph)
    if fmt == "json":
        keys = ("id", "task", "created", "answered_by", "answer_kind", "role", "dataset",
                "graph", "configuration", "models", "instances", "metrics")  # fmt: skip
        print(to_json([{k: getattr(r, k) for k in keys} for r in runs]))
        return
    telling = _telling_settings(runs)
    rows = [
        {
            "id": r.id,
            "task": r.task,
            "answered by": (r.answered_by or "–") + (f" ({r.role})" if r.role else ""),
            "dataset": r.dataset or "–",
            "config": ", ".join(f"{k}={_setting(r.configuration.get(k))}" for k in telling[r.task])
            or "–",
            "graph": r.graph or "–",
            "n": r.instances,
            "metrics": ", ".join(
                f"{k}={v:.4g}" if v is not None else f"{k}=–"
                for k, v in list(r.metrics.items())[:4]
            ),
        }
        for r in runs
    ]
    where = f" (graph {graph!r})" if graph else ""
    print_rows(rows, fmt, title=f"runs in {settings().runs_dir}{where}")


def _setting(value: object) -> str:
    return "–" if value is None else value if isinstance(value, str) else to_json(value)


def _telling_settings(runs: list[RunSummary]) -> dict[str, list[str]]:
    """Per task, the configuration keys whose values differ among its listed runs (the
    dataset has a column of its own): two runs that differ only there, DORIS-MAE's full
    queries and its sub-queries say, looked the same in the listing. All keys would not fit
    a row (DORIS-MAE records six, retrieval five)."""
    keys: dict[str, set[str]] = {}
    for r in runs:
        keys.setdefault(r.task, set()).update(r.configuration)
    seen: dict[str, dict[str, set[str]]] = {}
    for r in runs:
        for key in keys[r.task]:
            seen.setdefault(r.task, {}).setdefault(key, set()).add(
                to_json(r.configuration.get(key))
            )
    return {
        task: sorted(
            k for k, values in seen.get(task, {}).items() if len(values) > 1 and k != "dataset"
        )
        for task in keys
    }


def _forget_half_recorded() -> None:
    """Remove from the graph (when its server runs) every ``:Run`` left without its run file
    by an interrupted recording (before runs were recorded whole), saying so: a listing must
    not hide one, and the graph must not keep a run that has no scores or file."""
    from scholarkg.benchmark.runs import forget_run_in_graph, half_recorded_runs
    from scholarkg.errors import ScholarKGError

    try:
        with running_store_session() as store:
            if store is None:
                return
            for run_id in half_recorded_runs(store, _registry()):
                forget_run_in_graph(store, run_id)
                err_console.print(
                    f"removed run {run_id} from graph {store.graph!r}: it was left half-recorded "
                    "(no run file) by an interrupted command",
                    highlight=False,
                )
    except ScholarKGError as err:  # the listing reads files; the graph check is a bonus
        err_console.print(f"could not check the graph for half-recorded runs: {err}")


@app.command("predictions")
def predictions(
    run: Annotated[str, typer.Argument(help="Run id, unique id prefix, or path to a run file.")],
    out: Annotated[
        Path | None, typer.Option("--out", "-o", help="Write here (default: stdout).")
    ] = None,
) -> None:
    """A run's answers as its task's prediction file (JSONL): what 'bench score --predictions'
    and 'bench run --predictions' read, so the run can be scored again without the model."""
    from scholarkg.benchmark.outputs import write_prediction_rows

    record = _registry().load(run)
    if not record.predictions:
        raise InputError(
            f"run {record.id} kept no answers (a ranker run, or recorded before answers were kept)",
            field="run",
        )
    if out is None:
        for row in record.predictions:
            print(to_json(row))
        return
    write_prediction_rows(out, record.predictions)
    err_console.print(f"wrote {len(record.predictions)} answer(s) to {out}", highlight=False)


@app.command("show")
def show(
    run: Annotated[str, typer.Argument(help="Run id, unique id prefix, or path to a run file.")],
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """One run: provenance, configuration and metrics (JSON: the whole record)."""
    record = _registry().load(run)
    if fmt == "json":
        print(record.model_dump_json(indent=2))
        return
    if fmt == "table":
        console.print(f"[bold]{record.id}[/bold]  task {record.task}  created {record.created}")
        console.print(
            f"scholarkg {record.version}  commit {record.git_commit or '–'}  "
            f"{len(record.per_instance)} instance(s)"
        )
        for label, data in (
            ("models", record.models),
            ("config", record.config),
            ("prompts", record.prompt_hashes),
            ("timings (s)", record.timings),
        ):
            if data:
                console.print(f"{label}: {to_json(data)}", highlight=False)
        if record.notes:
            console.print(f"notes: {record.notes}")
    rows = [{"metric": k, "value": v} for k, v in record.metrics.items()]
    rows += [
        {"metric": f"{name} [{label}]", "value": v}
        for label, scores in record.classes.items()
        for name, v in scores.items()
    ]
    print_rows(rows, fmt, title="metrics")


@app.command("compare")
def compare(
    run_a: Annotated[str, typer.Argument(help="Baseline run (id, prefix or file).")],
    run_b: Annotated[str, typer.Argument(help="Run compared against the baseline.")],
    method: Annotated[
        str, typer.Option(help="Paired test: randomization (sign-flip) or bootstrap.")
    ] = "randomization",
    resamples: Annotated[int, typer.Option(help="Resamples for the Monte Carlo tests.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Random seed (results are reproducible).")] = 0,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Compare runs of different tasks or units, or with no shared instance "
            "(refused otherwise).",
        ),
    ] = False,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Per-metric deltas (B − A) with a paired significance test over shared instances.

    Runs of different tasks, or with no instance in common, are refused (saying what
    differs) unless --force: their deltas would mix benchmarks and units (percent against
    fractions), or pair nothing. Runs of one task in other configurations (an encoder, a
    backend, an agent against another) compare, and the settings that differ are said."""
    if method not in ("randomization", "bootstrap"):
        raise InputError(f"unknown --method {method!r}; choose randomization or bootstrap")
    reg = _registry()
    a, b = reg.load(run_a), reg.load(run_b)
    if problems := why_not_comparable(a, b):
        if not force:
            raise InputError(
                f"runs {a.id} and {b.id} do not compare: {'; '.join(problems)} "
                "(--force compares them anyway)"
            )
        for problem in problems:
            err_console.print(f"[yellow]warning:[/yellow] {problem}", highlight=False)
    if settings_apart := setting_differences(a, b):
        err_console.print(f"note: the runs differ in {settings_apart}", highlight=False)
    checked = cast("Method", method)  # one of the two, checked above
    deltas = compare_runs(a, b, method=checked, n_resamples=resamples, seed=seed)
    rows = [d.as_dict() for d in deltas]
    print_rows(rows, fmt, title=f"{b.id} against the baseline {a.id} ({method})")

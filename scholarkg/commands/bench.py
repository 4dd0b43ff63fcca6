"""``scholarkg bench``: benchmark commands, generic over the task registry.

Every verb takes a task NAME, looks it up in ``scholarkg.benchmark.registry`` and lets the
task's own declarations drive the rest; nothing here knows a task:

* ``bench list`` — the registry; ``bench show NAME`` — one task's answers, metrics, options;
* ``bench run NAME [--ranker R | --model M [--base-url URL] | --predictions FILE]
  [--out DIR] [--limit N] [--no-record] [--format table|json] [task options]`` — one run
  through :func:`~scholarkg.benchmark.runner.run_task`;
* ``bench import-predictions NAME FILE [task options]`` — ``bench run NAME --predictions FILE``;
* ``bench score NAME --data PATH --predictions PATH... [task options]`` — released/JSONL
  files scored without a store (tasks with ``scores_files``, or the file scorers ``ir`` and
  ``lists`` of ``commands/score.py`` for files that belong to no task);
* ``bench fit NAME [--out FILE] [--check] [fit options]`` — re-fit a task's stored models.

Task options (``--config``, ``--protocol``, ...) are the words the shared flags leave over,
parsed by :func:`~scholarkg.commands.task_args.parse_task_args` against the task's declared
options: an option the task does not take is an error naming the ones it does take.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    fmt_number,
    no_csv,
    print_rows,
    stage_progress,
    to_json,
)
from scholarkg.console import activity
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.benchmark.results import TaskResult
    from scholarkg.benchmark.task import AnswerSource, BenchmarkTask

app = typer.Typer(help="Run and score the benchmarks.", no_args_is_help=True)

#: typer settings of the verbs that pass task options through
TASK_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True}

TaskArg = Annotated[str, typer.Argument(help="Task name (see 'bench list').")]
LimitOpt = Annotated[int | None, typer.Option(help="Only the first N instances (a smoke run).")]
RecordOpt = Annotated[
    bool, typer.Option(help="Save the run (JSON file + :Run node and answers in the graph).")
]
OutOpt = Annotated[
    Path | None, typer.Option(help="Also write the task's files (metrics.json, ...) here.")
]


def _task(name: str) -> BenchmarkTask:
    from scholarkg.benchmark.registry import load_task

    return load_task(name)


def _unit_suffix(unit: str) -> str:
    return {"percent": " %", "seconds": " s"}.get(unit, "")


def _ordered_metrics(task: BenchmarkTask, aggregate: dict[str, Any]) -> list[Any]:
    """Declared metrics present in ``aggregate``: the layout's columns first, in its order."""
    names = [c for c in task.layout.columns if c in aggregate]
    names += [m.name for m in task.metrics if m.name in aggregate and m.name not in names]
    return [task.metric(n) for n in names]


def _metric_cells(task: BenchmarkTask, aggregate: dict[str, Any]) -> dict[str, str]:
    """The layout's columns (then any other declared metric), headed with their unit."""
    return {
        f"{m.name}{_unit_suffix(m.unit)}": fmt_number(aggregate.get(m.name), m.decimals)
        for m in _ordered_metrics(task, aggregate)
        if m.unit != "count"
    }


def _config_text(configuration: dict[str, Any], keys: tuple[str, ...]) -> str:
    shown = [f"{k}={configuration[k]}" for k in keys if k in configuration]
    return ", ".join(shown)


# --------------------------------------------------------------------------- list


@app.command("list")
def list_tasks(fmt: FormatOpt = OutputFormat.table) -> None:
    """The benchmark tasks: name, family, modes (run/score) and what each does.

    'bench show TASK' gives one task's rankers, metrics and options with their defaults;
    JSON lists everything (configs, rankers, metrics) for every task.
    """
    from rich.table import Table

    from scholarkg.benchmark.registry import list_tasks as tasks

    no_csv(fmt, "the task list")
    infos = tasks()
    if fmt == "json":
        print(to_json([
            {"task": t.name, "family": t.family, "modes": list(t.modes),
             "configs": list(t.configs), "rankers": list(t.rankers),
             "metrics": list(t.metrics), "description": t.description}
            for t in infos
        ]))  # fmt: skip
        return
    # Three short columns that never wrap and the description in the rest: six columns in
    # 80 characters wrapped every cell one letter per line.
    table = Table(title="benchmark tasks", title_justify="left")
    table.add_column("task", no_wrap=True)
    table.add_column("family", no_wrap=True)
    table.add_column("modes", no_wrap=True)
    table.add_column("description", overflow="fold", ratio=1)
    for t in infos:
        table.add_row(t.name, t.family, "+".join(t.modes), t.description)
    console.print(table)
    console.print("[dim]'scholarkg bench show TASK': its rankers, metrics and options[/dim]")


@app.command("show")
def show_task(task: TaskArg, fmt: FormatOpt = OutputFormat.table) -> None:
    """One task: what answers it (rankers, baseline/ours, model, predictions), its metrics
    with units, its own options with defaults (the words 'bench run TASK' takes after the
    shared flags), and the format of its prediction files."""
    from scholarkg.benchmark.registry import task_info

    no_csv(fmt, "a task's description")
    bench = _task(task)
    info = task_info(bench)
    options = [
        {"option": o.flag, "type": o.kind.__name__, "default": _default_text(o.default),
         "choices": ", ".join(o.choices), "help": o.help}
        for o in bench.options
    ]  # fmt: skip
    metrics = [
        {"metric": m.name, "unit": m.unit, "higher is better": m.higher_is_better,
         "description": m.description}
        for m in bench.metrics
    ]  # fmt: skip
    pf = bench.prediction_format
    if fmt == "json":
        print(to_json({
            "task": bench.name, "family": bench.family, "description": bench.description,
            "reference": bench.reference, "modes": list(info.modes),
            "answer_kinds": sorted(bench.answer_kinds), "rankers": list(bench.rankers),
            "baseline": bench.baseline, "ours": list(bench.ours), "metrics": metrics,
            "options": [{**o, "default": d.default} for o, d in zip(options, bench.options,
                                                                      strict=True)],
            "prediction_format": None if pf is None else {
                "file": pf.file_name, "id_fields": list(pf.id_fields),
                "answer_field": pf.answer_field, "description": pf.description},
        }))  # fmt: skip
        return
    console.print(f"[bold]{bench.name}[/bold] ({bench.family}): {bench.description}")
    if bench.reference:
        console.print(f"[dim]reference: {bench.reference}[/dim]", highlight=False)
    answers = []
    if "ranker" in bench.answer_kinds and bench.rankers:
        marks: dict[str | None, str] = {
            bench.baseline: " (baseline)",
            **{r: " (ours)" for r in bench.ours},
        }
        answers.append("--ranker " + ", ".join(r + marks.get(r, "") for r in bench.rankers))
    if "model" in bench.answer_kinds:
        answers.append("--model/--base-url (an OpenAI-compatible endpoint)")
    if "predictions" in bench.answer_kinds:
        answers.append("--predictions FILE")
    console.print("answered by: " + "; ".join(answers), highlight=False)
    console.print("modes: " + " + ".join(info.modes), highlight=False)
    print_rows(metrics, "table", title="metrics")
    if options:
        print_rows(options, "table", title=f"options of 'bench run {bench.name}'")
    else:
        console.print("no task options")
    if pf is not None:
        ids = ", ".join(f'"{f}"' for f in pf.id_fields)
        console.print(
            f"predictions (JSONL, one object per line; 'bench run --out DIR' writes "
            f'DIR/{pf.file_name}): {{{ids}, "{pf.answer_field}": ...}} - {pf.description}',
            highlight=False,
        )


def _default_text(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


# --------------------------------------------------------------------------- run


def _source(
    task: BenchmarkTask,
    *,
    ranker: str | None,
    model: str | None,
    base_url: str | None,
    predictions: Path | None,
    cache: bool = True,
    timeout: float | None = None,
) -> tuple[AnswerSource, Any]:
    """The answer source the flags ask for (and an LLM client to close, if one was opened).

    Nothing given: the task's baseline ranker (or its first), else a model at the configured
    endpoint (``SCHOLARKG_LLM_BASE_URL``)."""
    from scholarkg.benchmark.task import AnswerSource

    given = [x for x in (ranker, predictions) if x is not None]
    if len(given) > 1 or (given and (model or base_url)):
        raise InputError("give one answer source: --ranker, --model/--base-url or --predictions")
    if predictions is not None:
        return AnswerSource.predictions(predictions), None
    if ranker is None and not (model or base_url) and "ranker" in task.answer_kinds:
        ranker = task.baseline or (task.rankers[0] if task.rankers else None)
    if ranker is not None:
        return AnswerSource.ranker(ranker), None
    if "model" not in task.answer_kinds:
        raise InputError(
            f"task {task.name!r} cannot be answered by a model; it takes "
            f"{', '.join(sorted(task.answer_kinds))}",
            field="model",
        )
    from scholarkg.commands.common import settings
    from scholarkg.services.llm import LLMClient

    client = LLMClient.from_settings(
        settings(), base_url=base_url, model=model, use_cache=cache, timeout=timeout
    )
    return AnswerSource.model(client), client


def _show_run(task: BenchmarkTask, tr: Any, fmt: str, recorded: bool) -> None:
    record = tr.record
    config = record.config
    answer = config.get("answer", {})
    if fmt == "json":
        print(
            to_json(
                {
                    "task": record.task,
                    "run_id": record.id if recorded else None,
                    "configuration": config.get("configuration", {}),
                    "answer": answer,
                    "models": record.models,
                    "metrics": record.metrics,
                    "units": config.get("units", {}),
                    "timings": record.timings,
                    "notes": record.notes,
                    "files": [str(p) for p in tr.files],
                }
            )
        )
        return
    label = answer.get("name", "?") + (" (paper's baseline)" if answer.get("baseline") else "")
    if answer.get("kind") == "predictions" and answer.get("model"):
        # what produced the answers, then where they were read from
        label = f"{answer['model']} (predictions {answer.get('path', answer.get('name'))})"
    rows = [
        {"metric": m.name, "value": fmt_number(record.metrics.get(m.name), m.decimals),
         "unit": m.unit}
        for m in _ordered_metrics(task, record.metrics)
    ]  # fmt: skip
    n = config.get("n_instances", len(record.per_instance))
    where = _config_text(config.get("configuration", {}), task.layout.config_keys)
    title = task.layout.title + (f" — {where}" if where else "") + f", n={n}"
    print_rows(rows, "table", title=title)
    models = ", ".join(f"{k} {v}" for k, v in record.models.items())
    console.print(f"answered by: {label}" + (f"; {models}" if models else ""), highlight=False)
    if record.notes:
        console.print(f"[dim]{record.notes}[/dim]")
    params = answer.get("params")
    if params:
        console.print(f"[dim]{answer.get('kind')} params: {to_json(params)}[/dim]")
    console.print(f"run recorded: {record.id}" if recorded else f"run {record.id} (not recorded)")


def _run(
    name: str,
    extra: list[str],
    *,
    ranker: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    predictions: Path | None = None,
    out: Path | None = None,
    limit: int | None = None,
    record: bool = True,
    fmt: str = "table",
    cache: bool = True,
    timeout: float | None = None,
) -> None:
    from scholarkg.benchmark.runner import run_task
    from scholarkg.commands.common import set_interrupted_note, settings, store_session
    from scholarkg.commands.task_args import parse_task_args

    no_csv(fmt, "a run's result")
    task = _task(name)
    options = task.resolve_options(parse_task_args(task, extra))  # errors before any work
    source, client = _source(
        task, ranker=ranker, model=model, base_url=base_url, predictions=predictions, cache=cache,
        timeout=timeout,
    )  # fmt: skip
    task.check_source(source)
    try:
        with store_session() as store, stage_progress() as progress:
            tr = run_task(
                task, store, source, options, runs_dir=settings().runs_dir if record else None,
                out_dir=out, record_in_graph=record, limit=limit, progress=progress,
            )  # fmt: skip
            if record:  # an interruption from here on (closing the store, the table) loses nothing
                set_interrupted_note(
                    f"the run was already recorded whole: {tr.record.id} ('scholarkg runs show "
                    f"{tr.record.id}')"
                )
    finally:
        if client is not None:
            client.close()
    _show_run(task, tr, fmt, record)


@app.command("run", context_settings=TASK_ARGS)
def run(
    ctx: typer.Context,
    task: TaskArg,
    ranker: Annotated[
        str | None, typer.Option("--ranker", "-r", help="Ranker (default: the task's baseline).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="LLM tasks: model name.")] = None,
    base_url: Annotated[
        str | None, typer.Option(help="LLM tasks: OpenAI-compatible endpoint (.../v1).")
    ] = None,
    predictions: Annotated[
        Path | None, typer.Option(help="Score answers produced elsewhere (JSONL or .xlsx).")
    ] = None,
    out: OutOpt = None,
    limit: LimitOpt = None,
    record: RecordOpt = True,
    fmt: FormatOpt = OutputFormat.table,
    cache: Annotated[
        bool, typer.Option(help="LLM tasks: use the response cache (repeatable runs).")
    ] = True,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=0.1,
            help="LLM tasks: seconds per request (default: SCHOLARKG_LLM_TIMEOUT, \\[llm] "
            "timeout, else 600).",
        ),
    ] = None,
) -> None:
    """Run a benchmark task on the current graph (--graph) and record the run.

    Task options follow the shared ones (e.g. legobench-rpg --config pcn-tabs --encoder
    hashing; legobench-rplm --protocol legobench-paper); 'bench show TASK' lists a task's
    options with their defaults. LLM tasks also take --concurrency and --max-tokens (task
    options; defaults SCHOLARKG_LLM_CONCURRENCY / SCHOLARKG_LLM_MAX_TOKENS).
    """
    _run(
        task, list(ctx.args), ranker=ranker, model=model, base_url=base_url,
        predictions=predictions, out=out, limit=limit, record=record, fmt=fmt, cache=cache,
        timeout=timeout,
    )  # fmt: skip


@app.command("import-predictions", context_settings=TASK_ARGS)
def import_predictions(
    ctx: typer.Context,
    task: TaskArg,
    file: Annotated[Path, typer.Argument(help="JSONL predictions or a released .xlsx workbook.")],
    out: OutOpt = None,
    limit: LimitOpt = None,
    record: RecordOpt = True,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Score answers produced elsewhere against instances built from the graph, and record.

    JSONL: one {"id": <instance id>, "<answer field>": "..."} per line (the task's format:
    "response" for legobench-rplm, "answer" for legobench-lgplm). Released workbooks: the
    <model>_gen_rank or <model>_ldb column, rows matched by id, query, GT, prompt or position.
    """
    _run(task, list(ctx.args), predictions=file, out=out, limit=limit, record=record, fmt=fmt)


# --------------------------------------------------------------------------- score


def _prediction_files(paths: list[Path], task: BenchmarkTask) -> list[Path]:
    """Files as given; a directory stands for its ``*.xlsx`` and ``*.jsonl`` files, sorted,
    unless the task reads a directory as one released result folder."""
    out: list[Path] = []
    for p in paths:
        if p.is_dir() and not task.predictions_folder_is_one_run:
            found = sorted(
                q for q in p.iterdir() if q.suffix.lower() in (".xlsx", ".jsonl", ".json")
            )
            if not found:
                raise InputError("no .xlsx or .jsonl prediction files in the folder", path=p)
            out.extend(found)
        else:
            out.append(p)
    return out


@app.command("score", context_settings=TASK_ARGS)
def score(
    ctx: typer.Context,
    task: TaskArg,
    data: Annotated[
        Path,
        typer.Option(
            "--data", "--gold", "--qrels", help="The benchmark's released data (gold, qrels)."
        ),
    ],
    predictions: Annotated[
        list[Path],
        typer.Option(
            "--predictions",
            "--run",
            help="Answer file(s) or a folder of them; repeat for several models.",
        ),
    ],
    fmt: FormatOpt = OutputFormat.table,
    per_instance: Annotated[
        bool,
        typer.Option(help="JSON output: per-instance scores (per_paper, per_task ...) too."),
    ] = True,
    record: Annotated[
        bool, typer.Option(help="Save each scoring as a run (JSON file, like 'bench run').")
    ] = True,
    only_answered: Annotated[
        bool,
        typer.Option(
            help="Score only the instances the file answers (the file of a 'bench run "
            "--limit N' run); default: unanswered instances score as empty answers."
        ),
    ] = False,
) -> None:
    """Score answer files against gold files (no graph needed): a task's, or 'ir' / 'lists'.

    TASK is a task that scores files (see 'bench list'), e.g. legobench-rplm: --data rplm.xlsx
    --predictions llm_responses/ [--protocol legobench-paper]; a 'bench run --out DIR' wrote
    DIR/predictions.jsonl, and scoring it gives the run's metrics.

    Or one of two scorers for files that belong to no task ('scholarkg score ir|lists' are
    their aliases): 'ir' scores a TREC/JSONL run against TREC or BEIR qrels
    (--data QRELS --predictions RUN [--metrics P@10,nDCG@10,...] [--threshold 1]
    [--per-query] [--unjudged-queries error|ignore]); 'lists' scores ranked title lists
    (--data GOLD.jsonl --predictions ANSWERS.jsonl [--protocol clean|legobench-paper]
    [--matcher substring|normalized|line]). They print their scores and record no run.
    """
    from scholarkg.benchmark.outputs import metrics_payload
    from scholarkg.benchmark.runner import score_task_files
    from scholarkg.commands.common import settings
    from scholarkg.commands.score import FILE_SCORERS, run_file_scorer
    from scholarkg.commands.task_args import parse_task_args

    if task in FILE_SCORERS:
        run_file_scorer(task, data, predictions, list(ctx.args), fmt)
        return
    no_csv(fmt, "a score's result")
    bench = _task(task)
    options = bench.resolve_options(parse_task_args(bench, list(ctx.args)))
    if not bench.scores_files:
        from scholarkg.errors import NotSupported

        raise NotSupported(f"task {bench.name!r} does not score files; use 'bench run'")
    files = _prediction_files(predictions, bench)
    results: list[tuple[Path, TaskResult, Any]] = []
    runs_dir = settings().runs_dir if record else None
    with stage_progress() as progress:
        for n, path in enumerate(files, 1):
            result, run = score_task_files(
                bench, data, path, options, runs_dir=runs_dir, only_answered=only_answered,
                progress=progress,
            )  # fmt: skip
            results.append((path, result, run))
            progress("score", n, len(files))
    if fmt == "json":
        rows = []
        for path, result, run in results:
            payload = metrics_payload(bench, result)
            if not per_instance:
                payload = {k: v for k, v in payload.items() if not k.startswith("per_")}
            rows.append({"predictions": str(path), "model": run.config["answer"]["name"],
                         "run_id": run.id if record else None, **payload,
                         "notes": result.notes})  # fmt: skip
        print(to_json(rows[0] if len(rows) == 1 else rows))
        return
    # the model a file names (files 'bench run' writes do), else the file's stem
    table = [
        {"model": run.config["answer"]["name"], **_metric_cells(bench, r.aggregate)}
        for _, r, run in results
    ]
    where = _config_text(bench.configuration(options), bench.layout.config_keys)
    print_rows(table, "table", title=bench.layout.title + (f" — {where}" if where else ""))
    for path, result, run in results:
        name = run.config["answer"]["name"]
        console.print(f"[dim]{name}: predictions {path}[/dim]", highlight=False)
        for note in result.notes:
            console.print(f"[dim]{name}: {note}[/dim]")
        if record:
            console.print(f"[dim]{name}: run recorded: {run.id}[/dim]", highlight=False)


# --------------------------------------------------------------------------- fit


@app.command("fit", context_settings=TASK_ARGS)
def fit(
    ctx: typer.Context,
    task: TaskArg,
    out: Annotated[
        Path | None, typer.Option(help="Write the fitted models here (default: print JSON).")
    ] = None,
    check: Annotated[
        bool, typer.Option(help="Compare with the models the package ships; exit 1 if unequal.")
    ] = False,
) -> None:
    """Re-fit a task's stored models from scratch in a throwaway graph (reproducibility).

    legobench-rpg: the seeded synthetic world (--papers 4000 --leaderboards 200 --seed 13),
    dev split only; the result equals scholarkg/benchmark/tasks/legobench/models/rpg_pairwise.json.
    On Neo4j (one database, which a throwaway name cannot select) it runs only on an empty
    database, which it clears afterwards; a database holding data is refused.
    """
    import uuid

    from scholarkg.commands.common import settings
    from scholarkg.store import open_store

    bench = _task(task)
    given = _fit_args(bench, list(ctx.args))
    if settings().backend == "neo4j":
        _refuse_fit_over_data()
    store = open_store(settings(), graph=f"fit_{bench.name}_{uuid.uuid4().hex[:8]}")
    try:
        with activity(f"fitting {bench.name} (minutes)"):
            doc = bench.fit(store, given)
    finally:
        store.clear()
        store.close()
    text = json.dumps(doc, indent=1) + "\n"
    if out is not None:
        from scholarkg.textio import atomic_write_text

        atomic_write_text(out, text)
        console.print(f"wrote {out}")
    elif not check:
        print(text, end="")
    if check:
        shipped = bench.stored_models()
        if shipped is None:
            raise InputError(f"task {bench.name!r} ships no models to compare with")
        diffs = _differences(doc, shipped)
        if diffs:
            console.print(f"[red]differs from the shipped models at: {', '.join(diffs)}[/red]")
            raise typer.Exit(1)
        console.print("same as the shipped models")


def _refuse_fit_over_data() -> None:
    """``bench fit`` builds its synthetic world in a throwaway graph and clears it at the
    end. Neo4j Community has one database, which the throwaway name cannot select: the fit
    would have written into it and then cleared the user's graph. Allowed only on an empty
    database (nothing to lose); else refused before anything is written."""
    from scholarkg.commands.common import settings
    from scholarkg.store import open_store

    store = open_store(settings())
    try:
        holds = bool(store.run("MATCH (n) RETURN 1 AS x LIMIT 1"))
        name = store.graph
    finally:
        store.close()
    if holds:
        raise InputError(
            f"bench fit builds a synthetic graph and deletes it afterwards; on Neo4j it "
            f"would use the database {name!r}, which holds data, and clear it. Run it on the "
            "embedded store (--backend embedded: a throwaway graph beside yours), or set "
            "NEO4J_DATABASE to an empty database"
        )


def _differences(fitted: Any, shipped: Any, where: str = "") -> list[str]:
    """Paths where ``fitted`` differs from ``shipped``; mappings are compared on the keys
    ``fitted`` has (a fit of some configurations checks just those)."""
    if isinstance(fitted, dict) and isinstance(shipped, dict):
        out: list[str] = []
        for key, value in fitted.items():
            path = f"{where}.{key}" if where else str(key)
            out += _differences(value, shipped.get(key), path) if key in shipped else [path]
        return out
    return [] if fitted == shipped else [where or "(root)"]


def _fit_args(bench: BenchmarkTask, words: list[str]) -> dict[str, Any]:
    """``--name value`` words against the task's ``fit_options`` (same rules as run)."""
    from scholarkg.commands.task_args import parse_task_args

    return parse_task_args(bench, words, fit=True)


# dataset builders of the families ('bench build citerec-diagnostics')
from scholarkg.commands.citerec import build_app as citerec_build_app  # noqa: E402

app.add_typer(citerec_build_app, name="build")

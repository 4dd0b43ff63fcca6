"""``scholarkg bench``: benchmark commands.

Structure: ``bench score <task>`` scores existing answer files (one command per task, on the
``score_app`` sub-typer); ``bench run <task>`` runs a task on the current graph and records the
run; ``bench list`` prints the task registry (``scholarkg.benchmark.registry``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from scholarkg.commands.common import (
    check_choice,
    console,
    fmt_number,
    print_rows,
    stage_progress,
    to_json,
)
from scholarkg.commands.predictions import LLM_TASKS, import_predictions, run_llm
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore

app = typer.Typer(help="Run and score the benchmarks.", no_args_is_help=True)
score_app = typer.Typer(
    help="Score existing answer files against a benchmark's gold data.", no_args_is_help=True
)
app.add_typer(score_app, name="score")
app.command("import-predictions")(import_predictions)
app.command("run-llm")(run_llm)

RPLM_FORMATS = ("table", "json")


@score_app.command("legobench-rplm")
def legobench_rplm(
    gold: Annotated[Path, typer.Option("--gold", help="rplm.xlsx (sheet Sheet1).")],
    predictions: Annotated[
        list[Path],
        typer.Option(
            "--predictions",
            help="Answer workbook(s) with a <model>_gen_rank column; repeat for several models.",
        ),
    ],
    protocol: Annotated[
        str,
        typer.Option(help="clean (platform definition) or legobench-paper (published Table 4)."),
    ] = "clean",
    matcher: Annotated[
        str, typer.Option(help="Title matcher: substring (default), normalized or line.")
    ] = "substring",
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
    per_instance: Annotated[
        bool, typer.Option(help="Include per-instance detail in JSON output.")
    ] = False,
) -> None:
    """LEGOBench RPLM: CIS, BEM, KTau, CP of model answers against rplm.xlsx.

    CIS and CP are percentages, BEM a fraction, KTau Kendall tau-b; "-" = undefined.
    """
    from scholarkg.benchmark.metrics.ranking import MATCHERS, PROTOCOLS
    from scholarkg.benchmark.tasks.legobench.rplm_scoring import score_rplm_many

    check_choice("--format", fmt, RPLM_FORMATS)
    check_choice("--protocol", protocol, PROTOCOLS)
    check_choice("--matcher", matcher, MATCHERS)

    with stage_progress(quiet=fmt == "json") as progress:
        results = score_rplm_many(
            gold,
            predictions,
            protocol=protocol,
            matcher=matcher,
            progress=lambda name, done, total: progress(f"scoring {name}", done, total),
        )

    if fmt == "json":
        rows = []
        for model, scores in results:
            row = {"model": model, **scores.to_dict(per_instance=per_instance)}
            rows.append(row)
        print(to_json(rows[0] if len(rows) == 1 else rows))
        return
    table_rows = [
        {
            "model": model,
            "CIS": fmt_number(s.cis, 2),
            "BEM": fmt_number(s.bem, 3),
            "KTau": fmt_number(s.ktau, 3),
            "CP": fmt_number(s.cp, 2),
            "complete": f"{s.n_complete}/{s.n_scored}",
        }
        for model, s in results
    ]
    print_rows(table_rows, "table", title=f"LEGOBench RPLM ({protocol}, matcher={matcher})")
    for model, s in results:
        for note in s.notes:
            console.print(f"[dim]{model}: {note}[/dim]")


# --------------------------------------------------------------------------- list / run

RUN_FORMATS = ("table", "json")


@app.command("list")
def list_tasks(
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
) -> None:
    """The benchmark tasks: modes (run/score), configurations, rankers, metrics."""
    from scholarkg.benchmark.registry import list_tasks as tasks

    check_choice("--format", fmt, RUN_FORMATS)
    rows = [
        {
            "task": t.name,
            "modes": ", ".join(t.modes),
            "configs": ", ".join(t.configs),
            "rankers": ", ".join(t.rankers),
            "metrics": ", ".join(t.metrics),
            "description": t.description,
        }
        for t in tasks()
    ]
    print_rows(rows, fmt, title="benchmark tasks")


@app.command("run")
def run(
    task: Annotated[str, typer.Argument(help="Task name (see 'bench list').")],
    config: Annotated[
        str, typer.Option("--config", "-c", help="cn-tabs, pcn-tabs, cn-ft or pcn-ft.")
    ] = "cn-tabs",
    ranker: Annotated[
        str, typer.Option("--ranker", "-r", help="pagerank (paper baseline), ours, ...")
    ] = "pagerank",
    ground_truth: Annotated[
        Path | None,
        typer.Option(help="leaderboards.jsonl; default: the graph's Leaderboard nodes."),
    ] = None,
    split: Annotated[str, typer.Option(help="test (held out), dev or all.")] = "test",
    seed: Annotated[int, typer.Option(help="Seed of the dev/test split.")] = 13,
    dev_fraction: Annotated[float, typer.Option(help="Share of leaderboards in dev.")] = 0.5,
    encoder: Annotated[
        str,
        typer.Option(help="Edge-weight encoder: minilm (bundled) or hashing (cheap, lexical)."),
    ] = "minilm",
    tune: Annotated[
        bool, typer.Option(help="Tune 'ours' on the dev split first (never on test).")
    ] = False,
    record: Annotated[bool, typer.Option(help="Save the run (JSON + :Run node).")] = True,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
    base_url: Annotated[
        str | None, typer.Option(help="LLM tasks: OpenAI-compatible endpoint (.../v1).")
    ] = None,
    model: Annotated[str | None, typer.Option(help="LLM tasks: model name.")] = None,
    max_tokens: Annotated[
        int | None, typer.Option(help="LLM tasks: override the paper's token limit.")
    ] = None,
    predictions: Annotated[
        Path | None,
        typer.Option(help="LLM tasks: score answers produced elsewhere (JSONL or .xlsx)."),
    ] = None,
    protocol: Annotated[
        str, typer.Option(help="legobench-rplm: clean or legobench-paper.")
    ] = "clean",
    limit: Annotated[int | None, typer.Option(help="LLM tasks: first N instances.")] = None,
) -> None:
    """Run a benchmark task on the current graph (--graph) and record the run.

    legobench-rpg: candidates from the full-text index, order from the ranker, BEM/KTau/CIS/CP
    (BEM, CIS, CP in %) against the leaderboards; GT papers not retrieved tie at the bottom.

    legobench-rplm / legobench-lgplm: prompts built from the graph's leaderboards, answered by
    the model at --base-url (SCHOLARKG_LLM_BASE_URL; `scholarkg llm serve` starts a local one)
    or read from --predictions; `bench run-llm` / `bench import-predictions` have every option.
    """
    from scholarkg.benchmark.registry import get_task

    get_task(task, mode="run")
    if task in LLM_TASKS:
        if predictions is not None:
            import_predictions(
                task, predictions, protocol=protocol, limit=limit, record=record, fmt=fmt
            )
        else:
            run_llm(
                task, base_url=base_url, model=model, max_tokens=max_tokens, protocol=protocol,
                limit=limit, record=record, fmt=fmt,
            )  # fmt: skip
        return
    check_choice("--format", fmt, RUN_FORMATS)
    if not 0.0 < dev_fraction < 1.0:
        raise InputError("--dev-fraction must be in (0, 1)", field="dev_fraction")
    _run_rpg(config, ranker, ground_truth, split, seed, dev_fraction, encoder, tune, record, fmt)


def execute_rpg(
    store: GraphStore,
    *,
    config_name: str,
    ranker_name: str,
    ground_truth: Path | None = None,
    split: str = "test",
    seed: int = 13,
    dev_fraction: float = 0.5,
    encoder: str = "minilm",
    tune: bool = False,
    runs_dir: Path | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> tuple[Any, str | None]:
    """Run RPG once (optionally tuning ``ours`` on dev first); record it when ``runs_dir``.

    Returns ``(RPGRunResult, run id or None)``. ``progress(stage, done, total)``.
    """
    from scholarkg.benchmark.tasks.legobench import rpg
    from scholarkg.benchmark.tasks.legobench.rpg_rankers import (
        make_ranker,
        run_record,
        run_rpg,
        tune_pairwise,
    )

    cfg = rpg.get_config(config_name)
    if encoder not in ("minilm", "hashing"):
        raise InputError(f"--encoder {encoder!r}: choose minilm or hashing", field="encoder")
    if tune and not ranker_name.startswith("ours"):
        raise InputError("--tune applies to the 'ours' rankers only", field="tune")
    # only PageRank reads edge weights; the other rankers never load a model
    embedder = rpg.load_rpg_embedder(encoder) if ranker_name.startswith("pagerank") else None
    report = progress or (lambda stage, done, total: None)
    instances = rpg.load_instances(store, ground_truth)
    chosen = rpg.select_split(instances, split, seed=seed, dev_fraction=dev_fraction)
    if not chosen:
        raise InputError(f"no leaderboards in split {split!r}", field="split")
    params = None
    if tune:
        dev = rpg.select_split(instances, "dev", seed=seed, dev_fraction=dev_fraction)
        params, _ = tune_pairwise(
            store, dev, cfg, progress=lambda d, t: report("tuning on dev", d, t)
        )
    ranker = make_ranker(ranker_name, cfg, embedder=embedder, params=params)
    result = run_rpg(
        store, chosen, cfg, ranker,
        progress=lambda d, t: report(f"{cfg.name} {ranker_name}", d, t),
    )  # fmt: skip
    run_id = None
    if runs_dir is not None:
        from scholarkg.benchmark.runs import RunRegistry, record_run_in_graph

        rec = run_record(
            result, split=split, seed=seed, dev_fraction=dev_fraction,
            ground_truth=str(ground_truth) if ground_truth else "graph",
            encoder=embedder.name if embedder is not None else None, graph=store.graph,
        )  # fmt: skip
        RunRegistry(runs_dir).save(rec)
        record_run_in_graph(store, rec)
        run_id = rec.id
    return result, run_id


def _run_rpg(
    config_name: str,
    ranker_name: str,
    ground_truth: Path | None,
    split: str,
    seed: int,
    dev_fraction: float,
    encoder: str,
    tune: bool,
    record: bool,
    fmt: str,
) -> None:
    from scholarkg.commands.common import settings, store_session

    with store_session() as store, stage_progress(quiet=fmt == "json") as progress:
        result, run_id = execute_rpg(
            store, config_name=config_name, ranker_name=ranker_name,
            ground_truth=ground_truth, split=split, seed=seed, dev_fraction=dev_fraction,
            encoder=encoder, tune=tune, runs_dir=settings().runs_dir if record else None,
            progress=progress,
        )  # fmt: skip
    cfg_name = result.config.name
    m = result.scores.metrics
    if fmt == "json":
        print(
            to_json(
                {
                    "task": "legobench-rpg",
                    "configuration": cfg_name,
                    "ranker": result.ranker,
                    "ranker_params": result.ranker_params,
                    "split": split,
                    "run_id": run_id,
                    "metrics": m,
                    "timings": result.timings,
                }
            )
        )
        return
    row = {
        "config": cfg_name,
        "ranker": result.ranker,
        "BEM %": fmt_number(m["BEM"], 2),
        "KTau": fmt_number(m["KTau"], 3),
        "KTau_found": fmt_number(m["KTau_found"], 3),
        "CIS %": fmt_number(m["CIS"], 2),
        "CP %": fmt_number(m["CP"], 2),
        "n": int(m["n_leaderboards"] or 0),
        "candidates": fmt_number(m["mean_candidates"], 1),
    }
    print_rows([row], "table", title=f"LEGOBench RPG ({split} split)")
    console.print(f"[dim]ranker params: {to_json(result.ranker_params)}[/dim]")
    if run_id:
        console.print(f"run recorded: {run_id}")


# the citation-recommendation family's dataset builders ('bench build citerec-diagnostics')
from scholarkg.commands.citerec import build_app as citerec_build_app  # noqa: E402

app.add_typer(citerec_build_app, name="build")

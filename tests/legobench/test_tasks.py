"""LEGOBench's tasks as ``BenchmarkTask`` s: declarations, shared instance ids, the CLI verbs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scholarkg.benchmark.metrics.ranking import MATCHERS, PROTOCOLS
from scholarkg.benchmark.registry import load_task, task_names
from scholarkg.benchmark.tasks.legobench import task as tasks
from scholarkg.errors import InputError
from scholarkg.store.falkordb.store import FalkorDBStore


def test_declarations_match_the_code_they_stand_for() -> None:
    # the names the task's option choices are made of (imported there: read as such)
    names = vars(tasks)
    assert names["PROTOCOLS"] == PROTOCOLS and names["MATCHERS"] == MATCHERS
    from scholarkg.benchmark.tasks.legobench.rpg.core import CONFIGS
    from scholarkg.benchmark.tasks.legobench.rpg.rankers import RANKER_NAMES

    rpg = load_task("legobench-rpg")
    assert rpg.rankers == RANKER_NAMES and rpg.baseline == "pagerank"
    assert next(o for o in rpg.options if o.name == "config").choices == tuple(CONFIGS)
    # the paper's tables as published rows: Table 3 (4 configs x 4 encoders), Table 4 (14)
    assert len(rpg.layout.published) == 16
    rplm_rows = {r.label: r.values for r in load_task("legobench-rplm").layout.published}
    assert len(rplm_rows) == 14 and rplm_rows["Vicuna 7B (paper)"]["CP"] == 36.87
    assert "BEM" not in rplm_rows["Llama 2 13B (paper)"]  # printed "-" in the paper
    for name in ("legobench-rpg", "legobench-rplm", "legobench-lgplm"):
        task = load_task(name)
        assert name in task_names() and task.family == "legobench"
        assert set(task.layout.columns) <= {m.name for m in task.metrics}


def test_listing_tasks_imports_no_heavy_library() -> None:
    # numpy (~0.1 s) is allowed: a family's task module may declare its metrics from a numpy
    # metrics module (DORIS-MAE); torch, scipy and bm25s (seconds) must wait for a run
    code = (
        "import sys; from scholarkg.benchmark.registry import list_tasks; list_tasks(); "
        "print(sorted(m for m in ('scipy', 'torch', 'bm25s', 'transformers', "
        "'sentence_transformers', 'sklearn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_options_a_task_does_not_take_are_errors() -> None:
    with pytest.raises(InputError, match="does not take --protocol; it takes: --config"):
        load_task("legobench-rpg").resolve_options({"protocol": "clean"})
    with pytest.raises(InputError, match="--config 'cn-abstracts' is not one of"):
        load_task("legobench-rpg").resolve_options({"config": "cn-abstracts"})
    with pytest.raises(InputError, match="does not take --papers"):
        load_task("legobench-rplm").resolve_fit_options({"papers": 3})


def test_instance_ids_are_leaderboard_ids_shared_by_the_three_tasks(wstore: FalkorDBStore) -> None:
    """Per-leaderboard results join across RPG, RPLM and LGPLM: one id per leaderboard."""
    board_ids = {r["id"] for r in wstore.run("MATCH (l:Leaderboard) RETURN l.id AS id")}
    rpg = load_task("legobench-rpg")
    got: dict[str, set[str]] = {}
    for name, opts in (
        ("legobench-rpg", {"split": "all"}),
        ("legobench-rplm", {}),
        ("legobench-lgplm", {}),
    ):
        task = load_task(name)
        got[name] = {i.id for i in task.build_instances(wstore, task.resolve_options(opts))}
        assert got[name] <= board_ids, name
    assert got["legobench-rpg"] == got["legobench-rplm"]
    assert got["legobench-lgplm"] and got["legobench-lgplm"] <= got["legobench-rpg"]
    assert rpg.configuration(rpg.resolve_options({}))["missing_policy"] == "bottom"


# slow: refits one configuration on the 4,000-paper synthetic world (25-40 s here)
@pytest.mark.slow
def test_bench_fit_check_reproduces_one_stored_configuration(settings: Any) -> None:
    from scholarkg.cli import app

    res = CliRunner().invoke(
        app,
        ["bench", "fit", "legobench-rpg", "--configs", "cn-tabs", "--model-sets", "graph_only",
         "--check"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "same as the shipped models" in res.stdout


def test_bench_fit_is_for_tasks_with_stored_models(settings: Any) -> None:
    from scholarkg.cli import app

    res = CliRunner().invoke(app, ["bench", "fit", "legobench-rplm"])
    assert res.exit_code != 0 and "no stored models" in str(res.exception)


def test_bench_score_is_for_tasks_that_score_files(tmp_path: Path) -> None:
    from scholarkg.cli import app

    res = CliRunner().invoke(
        app, ["bench", "score", "legobench-rpg", "--data", str(tmp_path), "--predictions",
              str(tmp_path)],
    )  # fmt: skip
    assert res.exit_code != 0 and "does not score files" in str(res.exception)


def test_run_task_gives_the_library_pipelines_numbers(wstore: FalkorDBStore) -> None:
    """``run_task`` + RPGTask and ``rpg.pipeline.run_rpg`` rank and score the same way."""
    from scholarkg.benchmark.runner import run_task
    from scholarkg.benchmark.task import AnswerSource
    from scholarkg.benchmark.tasks.legobench.rpg import core as rpg
    from scholarkg.benchmark.tasks.legobench.rpg.pipeline import run_rpg
    from scholarkg.benchmark.tasks.legobench.rpg.rankers import make_ranker

    cfg = rpg.CONFIGS["pcn-tabs"]
    for ranker in ("date", "ours"):
        tr = run_task(
            load_task("legobench-rpg"), wstore, AnswerSource.ranker(ranker),
            {"config": "pcn-tabs", "split": "all"},
        )  # fmt: skip
        lib = run_rpg(wstore, rpg.load_instances(wstore), cfg, make_ranker(ranker, cfg))
        assert tr.record.metrics == pytest.approx(lib.scores.metrics, nan_ok=True)
        assert {i: r.ids for i, r in tr.answers.by_instance.items()} == lib.predictions
        assert tr.record.config["answer"]["params"]["configuration"] == "pcn-tabs"

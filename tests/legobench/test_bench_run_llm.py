"""``scholarkg bench run`` dispatches the LLM tasks: imported predictions or a model endpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from scholarkg.benchmark.tasks.legobench.rplm import build_rplm_instances
from scholarkg.cli import app
from scholarkg.store.falkordb.store import FalkorDBStore


@pytest.fixture
def graph(
    settings: Any, store: FalkorDBStore, world: Any, world_mod: Any
) -> Iterator[FalkorDBStore]:
    """The synthetic world in this test's graph (the CLI is pointed at it with --graph)."""
    world_mod.load_world(store, world)
    yield store


def test_bench_run_rplm_with_imported_predictions(graph: FalkorDBStore, tmp_path: Path) -> None:
    instances = build_rplm_instances(graph, limit=3)
    perfect = tmp_path / "perfect.jsonl"
    perfect.write_text(
        "".join(json.dumps({"id": i.id, "response": "\n".join(i.gt)}) + "\n" for i in instances)
    )
    res = CliRunner().invoke(
        app,
        ["--graph", graph.graph, "bench", "run", "legobench-rplm",
         "--predictions", str(perfect), "--limit", "3", "--no-record", "-f", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    run = json.loads(res.stdout)
    assert run["task"] == "legobench-rplm"
    assert (run["metrics"]["CIS"], run["metrics"]["BEM"], run["metrics"]["KTau"]) == (
        100.0,
        1.0,
        1.0,
    )
    reversed_ = tmp_path / "reversed.jsonl"
    reversed_.write_text(
        "".join(
            json.dumps({"id": i.id, "response": "\n".join(reversed(i.gt))}) + "\n"
            for i in instances
        )
    )
    res = CliRunner().invoke(
        app,
        ["--graph", graph.graph, "bench", "run", "legobench-rplm",
         "--predictions", str(reversed_), "--limit", "3", "--no-record", "-f", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["metrics"]["KTau"] == -1.0


def test_bench_run_rejects_unknown_tasks_with_the_valid_list() -> None:
    res = CliRunner().invoke(app, ["bench", "run", "legobench-nope"])
    assert res.exit_code != 0
    message = str(res.exception)
    assert "legobench-rpg" in message and "legobench-rplm" in message


def test_bench_run_rejects_bad_options_before_any_request() -> None:
    """--format, task options, options a task does not take and answer sources it cannot use
    are errors before a client or a store is opened."""
    for args, wording in (
        (["legobench-rplm", "--mode", "stream"], "--mode 'stream' is not one of completion, chat"),
        (["legobench-rplm", "-f", "csv"], "--format csv: a run's result is not one table of rows"),
        (["legobench-rplm", "--config", "cn-tabs"], "does not take --config; it takes: --protocol"),
        (["legobench-rpg", "--protocol", "clean"], "does not take --protocol"),
        (["legobench-rpg", "--model", "m"], "cannot be answered by a model"),
        (["legobench-rpg", "--ranker", "oracle"], "has no ranker 'oracle'"),
    ):
        res = CliRunner().invoke(app, ["bench", "run", *args])
        assert res.exit_code != 0
        assert wording in str(res.exception), (args, res.exception)

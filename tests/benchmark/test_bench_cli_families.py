"""Every family through the generic ``bench`` verbs, as a user types them.

The families' own suites test their tasks through ``run_task``; this module checks that the
command line reaches each one through the registry alone: ``bench list`` shows them,
``bench run NAME`` parses the task's own flags, and ``bench score NAME`` reads released files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.commands.common import OutputFormat

FIXTURES = Path(__file__).parent.parent / "fixtures"
FAMILY_TASKS = {
    "legobench-rpg", "legobench-rplm", "legobench-lgplm", "dorismae", "aaar-eqinfer",
    "aaar-expdesign", "aaar-weakness", "reviewcritique", "retrieval", "citerec", "scireplicate",
}  # fmt: skip


def _json_stdout(args: list[str]) -> dict[str, Any]:
    """The command's JSON on stdout (a model loading may write warnings to stderr)."""
    result = runner.invoke(app, args)
    assert result.exit_code == 0, (args, result.output, result.exception)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_bench_list_shows_every_family() -> None:
    rows = json.loads(cli_ok(["bench", "list", "--format", "json"]))
    assert {r["task"] for r in rows} >= FAMILY_TASKS


def test_dorismae_run_through_the_cli(graph_env: str, tmp_path: Path) -> None:
    from scholarkg.synthetic.dorismae import SyntheticDoris, write_json

    data = write_json(
        SyntheticDoris(n_queries=4, pool_size=14, n_background=5), tmp_path / "d.json"
    )
    cli_ok(["load", "dorismae", str(data)])
    out = tmp_path / "out"
    cli_ok(["bench", "run", "dorismae", "--ranker", "bm25", "--task", "full", "--out", str(out)])
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics["aggregate"]) == {
        "R@5", "R@20", "RP", "NDCG10%", "NDCGexp10%", "MRR@10", "MAP"
    }  # fmt: skip
    assert len(metrics["per_query"]) == 4 and (out / "run.trec").stat().st_size > 0
    # a flag the task does not take is an error that names what it takes
    bad = runner.invoke(
        app, ["bench", "run", "dorismae", "--ranker", "bm25", "--context-words", "5"]
    )
    assert bad.exit_code != 0 and "does not take --context-words" in str(bad.output) + str(
        bad.exception
    )


def test_retrieval_run_through_the_cli(graph_env: str, tmp_path: Path) -> None:
    cli_ok(["load", "beir", str(FIXTURES / "retrieval" / "beir-mini"), "--name", "mini"])
    out = tmp_path / "out"
    cli_ok(
        ["bench", "run", "retrieval", "--dataset", "mini", "--ranker", "bm25", "--out", str(out)]
    )
    metrics = json.loads((out / "metrics.json").read_text())
    assert set(metrics["aggregate"]) == {"nDCG@10", "R@10", "R@100", "MRR@10", "MAP"}
    assert all(0.0 <= v <= 1.0 for v in metrics["aggregate"].values())  # fractions


@pytest.mark.parametrize(
    ("task", "data", "predictions", "keys"),
    [
        pytest.param(
            "aaar-weakness",
            "Paper_Weakness",
            "results/weakness",
            {"SN-P", "SN-R", "SN-F1", "ITF-IDF"},
            # the CLI scores with the bundled MiniLM (~6 s to load); the weakness metrics'
            # logic on the same files is tested by hand in tests/aaar/test_score_files.py
            marks=pytest.mark.model,
        ),
        ("aaar-eqinfer", "Equation_Inference", "results/eqinfer", {"accuracy"}),
        (
            "reviewcritique",
            "ReviewCritique.jsonl",
            "results/reviewcritique.jsonl",
            {"P", "R", "F1"},
        ),
    ],
)
def test_aaar_score_released_layouts(
    task: str, data: str, predictions: str, keys: set[str]
) -> None:
    root = FIXTURES / "aaar"
    out = _json_stdout(
        [
            "bench",
            "score",
            task,
            "--data",
            str(root / data),
            "--predictions",
            str(root / predictions),
            "--format",
            "json",
        ]
    )
    assert keys <= set(out["aggregate"]) and out["per_paper"]


def test_scireplicate_score_reference_code(tmp_path: Path) -> None:
    from scholarkg.synthetic.scireplicate import generate, write_benchmark

    data = write_benchmark(tmp_path, generate(2, 4, seed=3), seed=3)
    released = json.loads(data.read_text())
    preds = tmp_path / "pred.jsonl"
    with preds.open("w") as fh:
        for paper in released:
            for task in paper["task_details"]:
                answer = {"paper_id": paper["paper_id"], "task_id": task["task_id"],
                          "code": task["ReferenceCode_With_Comments"]}  # fmt: skip
                fh.write(json.dumps(answer) + "\n")
    out = _json_stdout(
        [
            "bench",
            "score",
            "scireplicate",
            "--data",
            str(data),
            "--predictions",
            str(preds),
            "--format",
            "json",
        ]
    )
    agg = out["aggregate"]
    assert agg["codebleu"] == pytest.approx(1.0) and agg["exec_acc"] is None
    assert len(out["per_task"]) == sum(len(p["task_details"]) for p in released)


def test_bench_list_fits_an_80_column_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Task names whole on one line, no line wider than the terminal (six columns used to
    wrap one letter per line)."""
    import io

    from rich.console import Console

    from scholarkg.benchmark.registry import task_names
    from scholarkg.commands import bench

    buf = io.StringIO()
    monkeypatch.setattr(bench, "console", Console(file=buf, width=80, force_terminal=False))
    bench.list_tasks(OutputFormat.table)
    lines = buf.getvalue().splitlines()
    assert max(len(ln) for ln in lines) <= 80
    for name in task_names():
        assert any(f"│ {name} " in ln for ln in lines), name


def test_bench_show_lists_the_tasks_own_options_with_defaults() -> None:
    shown = json.loads(cli_ok(["bench", "show", "retrieval", "-f", "json"]))
    options = {o["option"]: o for o in shown["options"]}
    assert options["--depth"]["default"] == 1000 and options["--split"]["default"] == "test"
    assert options["--relevance-threshold"]["type"] == "float"
    assert shown["rankers"] == ["bm25", "dense", "hybrid", "hybrid-learned"]
    assert shown["baseline"] == "bm25"
    assert shown["ours"] == ["hybrid", "hybrid-learned"] and shown["prediction_format"] is None
    weak = json.loads(cli_ok(["bench", "show", "aaar-weakness", "-f", "json"]))
    assert weak["prediction_format"]["answer_field"] == "weaknesses"
    assert {o["option"] for o in weak["options"]} >= {"--window-words", "--max-tokens"}
    table = cli_ok(["bench", "show", "legobench-rplm"])
    assert "--protocol" in table and "clean" in table and "legobench-paper" in table
    assert '"response"' in table

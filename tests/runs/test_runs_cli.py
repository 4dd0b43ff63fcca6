"""``scholarkg runs ...`` and ``scholarkg report`` through the real CLI app."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scholarkg.benchmark.runs import RunRecord, RunRegistry, new_run
from scholarkg.cli import app, main
from scholarkg.errors import InputError

runner = CliRunner()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path))
    # a store of its own, never started: 'runs list' looks at a running server's graph (for
    # half-recorded runs), and the session's may be running (the unit tier reaches none)
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(tmp_path / "falkordb"))
    monkeypatch.delenv("SCHOLARKG_CONFIG", raising=False)
    reg = RunRegistry(tmp_path / "runs")
    a = new_run(
        "old-task",
        metrics={"R@5": 0.25, "MRR@10": 0.5},
        per_instance={str(i): {"R@5": 0.0, "MRR@10": 0.5} for i in range(6)},
        models={"ranker": "bm25"},
        created=datetime(2026, 11, 1, 10, 0, 0, tzinfo=UTC),
    )
    b = new_run(
        "old-task",
        metrics={"R@5": 0.75, "MRR@10": 0.5},
        per_instance={str(i): {"R@5": 1.0, "MRR@10": 0.5} for i in range(6)},
        models={"ranker": "dense"},
        created=datetime(2026, 11, 2, 10, 0, 0, tzinfo=UTC),
    )
    c = new_run(
        "legobench/rplm/clean",
        metrics={"CIS": 10.0},
        created=datetime(2026, 11, 3, 10, 0, 0, tzinfo=UTC),
    )
    for r in (a, b, c):
        reg.save(r)
    return tmp_path


def test_runs_list_json(home: Path) -> None:
    res = runner.invoke(app, ["runs", "list", "--format", "json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.stdout)
    assert [r["task"] for r in rows] == ["old-task", "old-task", "legobench/rplm/clean"]
    assert set(rows[0]) == {"id", "task", "created", "answered_by", "answer_kind", "role",
                            "dataset", "graph", "configuration", "models", "instances",
                            "metrics"}  # fmt: skip
    assert rows[0]["metrics"] == {"R@5": 0.25, "MRR@10": 0.5}
    res = runner.invoke(app, ["runs", "list", "--task", "legobench", "-f", "json"])
    assert [r["task"] for r in json.loads(res.stdout)] == ["legobench/rplm/clean"]
    res = runner.invoke(app, ["runs", "list"])
    assert res.exit_code == 0 and "3 row(s)" in res.stdout


def test_runs_show_and_compare(home: Path) -> None:
    res = runner.invoke(app, ["runs", "show", "20261102", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["models"] == {"ranker": "dense"}
    res = runner.invoke(app, ["runs", "show", "20261102"])
    assert res.exit_code == 0 and "R@5" in res.stdout and "dense" in res.stdout
    res = runner.invoke(app, ["runs", "compare", "20261101", "20261102", "-f", "json"])
    assert res.exit_code == 0, res.output
    rows = {r["metric"]: r for r in json.loads(res.stdout)}
    # six paired diffs of +1 -> exact sign-flip p = 2 / 64
    assert rows["R@5"]["delta"] == 1.0 and rows["R@5"]["p_value"] == pytest.approx(2 / 64)
    assert rows["MRR@10"]["delta"] == 0.0 and rows["MRR@10"]["p_value"] == 1.0
    res = runner.invoke(app, ["runs", "show", "1999"])
    assert isinstance(res.exception, InputError) and "no run" in str(res.exception)


def test_report_command(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "rep"
    res = runner.invoke(app, ["report", "20261101", "20261102", "20261103", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "wrote" in res.stdout
    data = json.loads((out / "report.json").read_text())
    assert [s["key"] for s in data["sections"]] == ["old-task", "legobench/rplm/clean"]
    md = (out / "report.md").read_text()
    # runs recorded before units were: the report says so instead of guessing a scale
    assert "| what ran | run | n | R@5 (unit not recorded) | MRR@10 (unit not recorded) |" in md
    assert "| what ran | run | n | CIS (unit not recorded) |" in md
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("where", ["file", "under a file"])
def test_report_out_that_is_a_file_is_a_usage_error_naming_the_option(
    home: Path,
    tmp_path: Path,
    where: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A file at --out reached the user as "error: FileExistsError: [Errno 17] File exists",
    exit 1; now a usage error (exit 3) naming --out, and nothing is written."""
    existing = tmp_path / "f"
    existing.write_text("mine\n")
    out = existing if where == "file" else existing / "rep"
    monkeypatch.setattr(sys, "argv", ["scholarkg", "report", "20261101", "--out", str(out)])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 3
    err = capsys.readouterr().err
    assert f"error: --out '{out}'" in err and "it must be a directory" in err, err
    assert "FileExistsError" not in err and "NotADirectoryError" not in err
    assert existing.read_text() == "mine\n"


def _task_run(task: str, graph: str | None, answer: dict[str, object], day: int) -> RunRecord:
    """A record with the config ``run_task`` / ``bench score`` write."""
    return new_run(
        task,
        metrics={"nDCG@10": 0.123456789, "R@100": 0.987654321, "MRR@10": 0.5, "MAP": 0.25},
        per_instance={"q1": {"nDCG@10": 0.1}},
        config={"family": "citerec", "graph": graph, "answer": answer,
                "configuration": {"dataset": "scifact-like", "split": "test"}},
        created=datetime(2026, 11, day, 10, 0, 0, tzinfo=UTC),
    )  # fmt: skip


def test_runs_list_names_what_ran_and_filters_by_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ranker or model, baseline/ours, dataset and graph in the table and the JSON; the
    global --graph lists only that graph's runs; piped, every row stays on one line."""
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path))
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(tmp_path / "falkordb"))  # as in ``home``
    monkeypatch.delenv("SCHOLARKG_CONFIG", raising=False)
    monkeypatch.delenv("SCHOLARKG_GRAPH", raising=False)
    reg = RunRegistry(tmp_path / "runs")
    runs = [
        _task_run("retrieval", "g_one", {"kind": "ranker", "name": "bm25", "baseline": True,
                                          "ours": False}, 1),
        _task_run("retrieval", "g_one", {"kind": "ranker", "name": "hybrid", "baseline": False,
                                          "ours": True}, 2),
        _task_run("retrieval", "g_two", {"kind": "model", "name": "smollm2", "model": "smollm2",
                                          "baseline": False, "ours": False}, 3),
    ]  # fmt: skip
    for r in runs:
        reg.save(r)
    res = runner.invoke(app, ["runs", "list", "-f", "json"])
    rows = json.loads(res.stdout)
    assert [(r["answered_by"], r["role"], r["answer_kind"], r["graph"]) for r in rows] == [
        ("bm25", "baseline", "ranker", "g_one"),
        ("hybrid", "ours", "ranker", "g_one"),
        ("smollm2", None, "model", "g_two"),
    ]
    assert {r["dataset"] for r in rows} == {"scifact-like"}
    res = runner.invoke(app, ["--graph", "g_one", "runs", "list", "-f", "json"])
    assert [r["answered_by"] for r in json.loads(res.stdout)] == ["bm25", "hybrid"]
    table = runner.invoke(app, ["runs", "list"]).stdout
    for r in runs:
        line = next(ln for ln in table.splitlines() if r.id in ln)
        assert "scifact-like" in line and "nDCG@10=0.1235" in line and "MAP=0.25" in line
    assert "bm25 (baseline)" in table and "hybrid (ours)" in table
    # runs compare, piped: one line per metric, numbers whole
    out = runner.invoke(app, ["runs", "compare", runs[0].id, runs[1].id]).stdout
    assert max(len(ln) for ln in out.splitlines()) > 80  # wider than a terminal, not folded
    assert sum("nDCG@10" in ln for ln in out.splitlines()) == 1


def test_old_summaries_are_rebuilt_with_what_ran(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path))
    reg = RunRegistry(tmp_path / "runs")
    run = _task_run("retrieval", "g_one", {"kind": "ranker", "name": "bm25"}, 1)
    reg.save(run)
    old = {"id": run.id, "task": "retrieval", "created": run.created, "instances": 1}
    reg.summary_path(run.id).write_text(json.dumps(old))
    assert reg.summaries()[0].answered_by == "bm25"


def _doris(setting: str, ids: range, day: int, *, task: str = "dorismae", unit: str = "percent"
           ) -> RunRecord:  # fmt: skip
    """A DORIS-MAE-like run of one ``task`` setting (full queries or sub-queries)."""
    return new_run(
        task,
        metrics={"NDCG@10": 40.0 + day},
        per_instance={f"q{i}": {"NDCG@10": 40.0 + day} for i in ids},
        config={"configuration": {"task": setting, "pool": "all", "encoder": "minilm"},
                "units": {"NDCG@10": unit}, "answer": {"kind": "ranker", "name": "bm25"}},
        created=datetime(2026, 11, day, 10, 0, 0, tzinfo=UTC),
    )  # fmt: skip


@pytest.fixture
def doris_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[RunRecord]:
    """Full queries, sub-queries (other instances), a second full-query run, and a citerec
    run in fractions on the full queries' instance ids."""
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path))
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(tmp_path / "falkordb"))  # as in ``home``
    monkeypatch.delenv("SCHOLARKG_CONFIG", raising=False)
    monkeypatch.delenv("SCHOLARKG_GRAPH", raising=False)
    runs = [
        _doris("full", range(4), 1),
        _doris("subquery", range(10, 14), 2),
        _doris("full", range(4), 3),
        _doris("full", range(4), 4, task="citerec", unit="fraction"),
    ]
    reg = RunRegistry(tmp_path / "runs")
    for r in runs:
        reg.save(r)
    return runs


def test_compare_refuses_runs_that_do_not_compare_saying_what_differs(
    doris_runs: list[RunRecord], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Full queries against sub-queries printed deltas over n=0 pairs with no warning, and
    DORIS-MAE against citerec warned but mixed percent and fractions."""
    full, sub, full2, citerec = (r.id for r in doris_runs)
    res = runner.invoke(app, ["runs", "compare", full, sub])
    assert isinstance(res.exception, InputError) and res.stdout == ""
    message = str(res.exception)
    assert message.startswith(f"runs {full} and {sub} do not compare: ")
    assert "configurations" not in message  # a setting alone is no reason: see below
    assert "no instance in both runs (4 and 4 instances: nothing to pair)" in message
    assert message.endswith("(--force compares them anyway)")
    message = str(runner.invoke(app, ["runs", "compare", full, citerec]).exception)
    assert "different tasks (dorismae vs citerec)" in message
    assert "different units (NDCG@10: percent vs fraction)" in message
    assert "no instance" not in message and "configurations" not in message
    monkeypatch.setattr(sys, "argv", ["scholarkg", "runs", "compare", full, sub])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 3
    # --force: the deltas, each difference said on stderr
    res = runner.invoke(app, ["runs", "compare", full, citerec, "--force", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["n"] == 4
    assert "warning: different tasks (dorismae vs citerec)" in res.stderr
    # one task, one configuration, the same instances: compared as before
    res = runner.invoke(app, ["runs", "compare", full, full2, "-f", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)[0]["delta"] == 2.0
    assert "differ in" not in res.stderr


def test_compare_of_one_task_in_two_settings_is_an_ablation_said_not_refused(
    doris_runs: list[RunRecord], tmp_path: Path
) -> None:
    """An encoder against another on the same instances is what a paired test is for: the
    review's fix refused every configuration difference; the settings are said instead."""
    full = doris_runs[0]
    ablated = new_run(
        "dorismae",
        metrics={"NDCG@10": 45.0},
        per_instance={f"q{i}": {"NDCG@10": 45.0} for i in range(4)},
        config={"configuration": {"task": "full", "pool": "all", "encoder": "specter2"},
                "units": {"NDCG@10": "percent"}, "answer": {"kind": "ranker", "name": "dense"}},
        created=datetime(2026, 11, 5, 10, 0, 0, tzinfo=UTC),
    )  # fmt: skip
    RunRegistry(tmp_path / "runs").save(ablated)
    res = runner.invoke(app, ["runs", "compare", full.id, ablated.id, "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["n"] == 4
    assert 'note: the runs differ in encoder: "minilm" vs "specter2"' in res.stderr


def test_runs_list_shows_the_setting_that_tells_runs_apart(doris_runs: list[RunRecord]) -> None:
    table = runner.invoke(app, ["runs", "list"]).stdout
    for run, shown in zip(doris_runs, ["task=full", "task=subquery", "task=full", "–"],
                          strict=True):  # fmt: skip
        line = next(ln for ln in table.splitlines() if run.id in ln)
        assert f" {shown} " in line, line
    assert "encoder=" not in table  # the same in every run: no column space spent on it
    rows = json.loads(runner.invoke(app, ["runs", "list", "-f", "json"]).stdout)
    assert rows[1]["configuration"] == {"task": "subquery", "pool": "all", "encoder": "minilm"}

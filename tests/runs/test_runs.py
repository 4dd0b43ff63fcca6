"""Run records: ids, atomic JSON files, prefix resolution, listing and paired comparison."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from _fakes import num

from scholarkg.benchmark.runs import (
    RunRecord,
    RunRegistry,
    compare_runs,
    make_run_id,
    new_run,
    prompt_hash,
)
from scholarkg.errors import InputError


def _run(task: str, scores: dict[str, float | None], when: datetime, **kw: Any) -> RunRecord:
    per = {iid: {"MRR@10": v} for iid, v in scores.items()}
    vals = [v for v in scores.values() if v is not None]
    return new_run(
        task,
        metrics={"MRR@10": sum(vals) / len(vals)},
        per_instance=per,
        created=when,
        **kw,
    )


def test_new_run_fills_provenance() -> None:
    when = datetime(2026, 11, 22, 4, 12, 5, tzinfo=UTC)
    run = new_run(
        "legobench/rplm/clean",
        metrics={"CIS": 50.0, "KTau": float("nan")},
        per_instance={"0": {"CP": 1.0}},
        config={"protocol": "clean", "k": 10},
        models={"llm": "toy"},
        prompts={"rank": "Rank these papers: {options}"},
        timings={"total": 1.5},
        created=when,
    )
    assert run.id.startswith("20261122-041205-legobench-rplm-clean-")
    assert len(run.id.rsplit("-", 1)[1]) == 6
    assert run.created == "2026-11-22T04:12:05+00:00"
    assert run.metrics == {"CIS": 50.0, "KTau": None}  # NaN stored as null
    assert run.prompt_hashes == {"rank": prompt_hash("Rank these papers: {options}")}
    assert len(run.prompt_hashes["rank"]) == 16
    assert run.version
    # inside this checkout the commit is a 40-hex sha (optionally +dirty)
    assert run.git_commit is None or len(run.git_commit.split("+")[0]) == 40
    assert run.metric_names() == ["CIS", "KTau", "CP"]


def test_ids_sort_chronologically_and_differ_within_a_second() -> None:
    t1 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    t2 = datetime(2026, 1, 2, 3, 4, 6, tzinfo=UTC)
    a, b = make_run_id("dorismae", t1), make_run_id("dorismae", t1)
    assert a != b
    later = make_run_id("aaa", t2)
    assert sorted([later, a]) == [a, later]  # time prefix sorts before the task slug


def test_registry_save_load_resolve_list(tmp_path: Path) -> None:
    reg = RunRegistry(tmp_path / "runs")
    assert reg.list() == []
    r1 = _run("citerec/field", {"q0": 1.0, "q1": 0.5}, datetime(2026, 1, 1, tzinfo=UTC))
    r2 = _run("citerec/years", {"q0": 0.0, "q1": 1.0}, datetime(2026, 1, 2, tzinfo=UTC))
    r3 = _run("dorismae", {"q0": 0.2}, datetime(2026, 1, 3, tzinfo=UTC))
    for r in (r3, r1, r2):
        path = reg.save(r)
        assert path.name == f"{r.id}.json"
    assert not list((tmp_path / "runs").glob("*.tmp"))  # no temp files left behind
    assert [r.id for r in reg.list()] == [r1.id, r2.id, r3.id]
    assert [r.id for r in reg.list("citerec")] == [r1.id, r2.id]
    assert [r.id for r in reg.list("citerec/years")] == [r2.id]
    assert reg.list("cite") == []  # prefix of a task name is not a task family
    assert reg.load(r1.id) == r1
    assert reg.load("20260102").id == r2.id  # unique prefix
    assert reg.load(str(reg.path_for(r3.id))).id == r3.id  # path to a file
    with pytest.raises(InputError, match="ambiguous"):
        reg.resolve("2026010")
    with pytest.raises(InputError, match="no run"):
        reg.resolve("1999")


def test_bad_run_file_names_file_and_field(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    reg = RunRegistry(tmp_path)
    good = _run("dorismae", {"q0": 1.0}, datetime(2026, 1, 1, tzinfo=UTC))
    reg.save(good)
    broken = tmp_path / "20260101-000001-dorismae-abcdef.json"
    broken.write_text('{"id": "x",\n "task": }', encoding="utf-8")
    with pytest.raises(InputError) as info:
        reg.load("20260101-000001")
    assert str(broken) in str(info.value) and "line 2" in str(info.value)
    wrong = tmp_path / "20260101-000002-dorismae-abcdef.json"
    data = json.loads(reg.path_for(good.id).read_text())
    data["metrics"] = {"R@5": "high"}
    wrong.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=r"metrics\.R@5"):
        reg.load("20260101-000002")
    # listing skips unreadable files with a warning instead of failing
    assert [r.id for r in reg.list()] == [good.id]
    assert "skipping unreadable run file" in caplog.text


def test_listing_reads_summaries_not_the_run_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``summaries`` (``runs list``, the explorer's runs tab) gives what ``list`` gives
    without opening a run file, so per-instance scores are never parsed for a listing; a
    run without a current summary (copied in, or edited after it) is read in full."""
    import os

    from scholarkg.benchmark import runs as runs_mod
    from scholarkg.explorer.app import Explorer

    reg = RunRegistry(tmp_path)
    r1 = _run("citerec/field", {"q0": 1.0, "q1": 0.5}, datetime(2026, 1, 1, tzinfo=UTC))
    r2 = _run("citerec/years", {"q0": 0.0, "q1": 1.0, "q2": None},
              datetime(2026, 1, 2, tzinfo=UTC), models={"llm": "toy"})  # fmt: skip
    r3 = _run("aspect-bm25", {"q0": 0.2}, datetime(2026, 1, 3, tzinfo=UTC),
              config={"family": "dorismae"})  # fmt: skip
    for r in (r1, r2, r3):
        reg.save(r)
    expected = [(r.id, r.task, r.created, r.models, r.metrics, len(r.per_instance))
                for r in (r1, r2, r3)]  # fmt: skip

    def rows(summaries: list[runs_mod.RunSummary]) -> list[tuple[object, ...]]:
        return [(s.id, s.task, s.created, s.models, s.metrics, s.instances) for s in summaries]

    def no_run_file(path: Path) -> RunRecord:
        raise AssertionError(f"a listing read the run file {path}")

    monkeypatch.setattr(runs_mod, "load_run_file", no_run_file)
    assert rows(reg.summaries()) == expected
    assert [s.id for s in reg.summaries("citerec")] == [r1.id, r2.id]
    assert [s.id for s in reg.summaries("dorismae")] == [r3.id]  # by config family
    listed = Explorer(None, tmp_path).runs()  # type: ignore[arg-type]  # no store needed
    assert [(r["id"], r["instances"], r["metrics"]) for r in listed] == [
        (r3.id, 1, r3.metrics), (r2.id, 3, r2.metrics), (r1.id, 2, r1.metrics)
    ]  # fmt: skip
    monkeypatch.undo()
    # no summary (a run file copied in): read in full
    reg.summary_path(r3.id).unlink()
    assert rows(reg.summaries()) == expected
    # ... and its summary written, so the next listing does not read it again
    assert reg.summary_path(r3.id).is_file()
    monkeypatch.setattr(runs_mod, "load_run_file", no_run_file)
    assert rows(reg.summaries()) == expected
    monkeypatch.undo()
    # run file edited after its summary: the summary is stale, the file wins
    path = reg.path_for(r1.id)
    data = json.loads(path.read_text())
    data["metrics"] = {"MRR@10": 0.25}
    path.write_text(json.dumps(data), encoding="utf-8")
    summary_ns = reg.summary_path(r1.id).stat().st_mtime_ns
    os.utime(path, ns=(summary_ns + 1_000_000, summary_ns + 1_000_000))
    assert reg.summaries()[0].metrics == {"MRR@10": 0.25}


def test_compare_runs_paired_over_shared_instances() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    a = _run("citerec/field", {"s1": 0.0, "s2": 0.5, "s3": 1.0, "s4": None}, when)
    b = _run("citerec/field", {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0, "s9": 0.0}, when)
    [d] = compare_runs(a, b)
    # shared: s1..s4; s4 undefined in a -> pair dropped; diffs 1, 0.5, 0
    assert d.metric == "MRR@10" and d.n == 3
    assert d.mean_a == pytest.approx(0.5) and d.mean_b == pytest.approx(1.0)
    assert d.delta == pytest.approx(0.5)
    # exact sign flips of (1, 0.5, 0): |sum| >= 1.5 for 4 of 8 assignments
    assert d.p_value == pytest.approx(0.5)
    assert d.value_a == pytest.approx(0.5) and d.value_b == pytest.approx(0.8)
    assert d.method == "randomization"
    [boot] = compare_runs(a, b, method="bootstrap", n_resamples=500)
    assert boot.method == "bootstrap" and 0 < num(boot.p_value) <= 1


def test_compare_runs_without_instances_reports_aggregate_delta() -> None:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    a = new_run("x", metrics={"F1": 0.25, "only_a": 1.0}, created=when)
    b = new_run("x", metrics={"F1": 0.5, "only_b": 2.0}, created=when)
    deltas = {d.metric: d for d in compare_runs(a, b)}
    assert list(deltas) == ["F1", "only_a", "only_b"]
    assert deltas["F1"].delta == pytest.approx(0.25) and deltas["F1"].p_value is None
    assert deltas["only_a"].delta is None and deltas["only_a"].n == 0


def test_git_commit_outside_checkout_is_none(tmp_path: Path) -> None:
    from scholarkg.benchmark.runs import git_commit

    assert git_commit(tmp_path) is None


def test_git_commit_of_a_checkout_and_dirty_flag(tmp_path: Path) -> None:
    """Against a real throw-away repository: the HEAD sha, then ``+dirty`` once a tracked
    file changes (untracked files do not count)."""
    import subprocess

    from scholarkg.benchmark.runs import git_commit

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    git("init", "-q")
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    git("add", "a.txt")
    git("commit", "-q", "-m", "first")
    sha = git("rev-parse", "HEAD")
    assert len(sha) == 40
    (tmp_path / "untracked.txt").write_text("x\n", encoding="utf-8")
    assert git_commit(tmp_path) == sha
    (tmp_path / "a.txt").write_text("two\n", encoding="utf-8")
    assert git_commit(tmp_path) == f"{sha}+dirty"

"""A run is recorded whole or not at all (issue #37): no ``:Run`` node without its scores and
its run file, whatever fails or interrupts the recording; a half-recorded run an older version
left behind is removed by ``runs list``; Ctrl-C and SIGTERM end a command with 130 / 143 and a
line saying what is stored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scholarkg.benchmark.runs import (
    RunRecord,
    RunRegistry,
    half_recorded_runs,
    interrupts_deferred,
    new_run,
    record_run,
    record_run_in_graph,
)
from scholarkg.config import Settings
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore


def _run() -> RunRecord:
    return new_run(
        "toy-task",
        metrics={"R@1": 50.0},
        per_instance={"q1": {"R@1": 100.0}, "q2": {"R@1": 0.0}},
        config={"family": "toy"},
    )


def _runs_in_graph(store: FalkorDBStore) -> list[str]:
    return [r["id"] for r in store.run_named("runs/recorded_runs")]


def test_a_failure_while_recording_leaves_nothing(store: FalkorDBStore, tmp_path: Path) -> None:
    registry = RunRegistry(tmp_path / "runs")
    run = _run()

    def answers_fail() -> None:
        raise RuntimeError("the task's answers could not be written")

    with pytest.raises(RuntimeError):
        record_run(store, registry, run, answers_fail)
    assert _runs_in_graph(store) == []
    assert store.run("MATCH (m:MetricResult) RETURN count(m) AS n") == [{"n": 0}]
    assert registry.ids() == []


def test_a_run_file_that_cannot_be_written_takes_the_graph_record_back(
    store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry = RunRegistry(tmp_path / "runs")

    def disk_full(run: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(registry, "save", disk_full)
    with pytest.raises(OSError, match="No space"):
        record_run(store, registry, _run())
    assert _runs_in_graph(store) == []
    assert store.run("MATCH (m:MetricResult) RETURN count(m) AS n") == [{"n": 0}]


def test_an_interrupt_waits_until_the_run_is_recorded(store: FalkorDBStore, tmp_path: Path) -> None:
    """SIGTERM arriving while the run is written is delivered after: the run is whole."""
    registry = RunRegistry(tmp_path / "runs")
    run = _run()
    seen: list[str] = []

    def handler(signum: int, frame: object) -> None:
        seen.append("delivered")
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:

        def interrupted_midway() -> None:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            seen.append("answers written")

        with pytest.raises(KeyboardInterrupt):
            record_run(store, registry, run, interrupted_midway)
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert seen == ["answers written", "delivered"]
    assert registry.ids() == [run.id]
    assert _runs_in_graph(store) == [run.id]
    with interrupts_deferred():  # nothing pending: leaves the handlers as they were
        pass
    assert signal.getsignal(signal.SIGTERM) is previous


def test_runs_list_removes_a_run_left_half_recorded(
    store: FalkorDBStore, graph_env: str, settings: Settings, tmp_path: Path
) -> None:
    """A :Run an interrupted older version left without its file: gone after `runs list`."""
    from datetime import UTC, datetime, timedelta

    from _cli import cli_ok

    store.graph = graph_env
    store._g = store.db.select_graph(graph_env)
    old = new_run(
        "toy-task",
        metrics={"R@1": 1.0},
        created=datetime.now(UTC) - timedelta(hours=2),
    )
    fresh = new_run("toy-task", metrics={"R@1": 1.0})  # may be being recorded right now
    record_run_in_graph(store, old)
    record_run_in_graph(store, fresh)
    registry = RunRegistry(settings.runs_dir)
    assert half_recorded_runs(store, registry) == [old.id]
    out = cli_ok(["runs", "list"])
    assert f"removed run {old.id}" in out
    assert _runs_in_graph(store) == [fresh.id]
    assert store.run("MATCH (m:MetricResult) RETURN count(m) AS n") == [{"n": 1}]


@pytest.mark.parametrize(
    ("sig", "code", "name"), [(signal.SIGINT, 130, "Ctrl-C"), (signal.SIGTERM, 143, "SIGTERM")]
)
def test_an_interrupted_command_exits_with_the_signals_status_and_says_what_is_stored(
    settings: Settings, embedded_server: EmbeddedServer, sig: int, code: int, name: str
) -> None:
    from _cli import cli_ok

    cli_ok(["--graph", "interrupted", "cypher", "MERGE (:Paper {id: 'x'})"])  # a read needs it
    proc = subprocess.Popen(
        [
            sys.executable, "-m", "scholarkg.cli", "cypher", "--timeout", "5",
            f"UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b RETURN count(*) AS n{code}",
        ],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=os.environ | {"SCHOLARKG_GRAPH": "interrupted"},
    )  # fmt: skip
    deadline = time.monotonic() + 120  # started, connected, waiting for the server's answer
    while not any(f"AS n{code}" in str(q["query"]) for q in embedded_server.running_queries()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == code, (out, err)
    assert f"interrupted by {name}" in err, err
    # a cypher command says what became of its query: the session's server keeps no files,
    # so it was not restarted to stop it (tests/security/test_watchdog_restart.py: one that
    # keeps them is), and the query ends at its limit
    assert "keeps no files (persistence 'none'), so scholarkg did not restart it" in err
    assert "what was stored before it is kept" in err

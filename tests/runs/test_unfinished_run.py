"""A run is recorded only when it completed: a store that dies midway leaves no run behind.

Each test starts its own embedded FalkorDB (the session's server must survive) and kills it
with SIGKILL at a chosen step of a real run: while answering, and after scoring, when only
the recording is left (the step that used to leave a run file whose graph record never came).
Through the CLI, the user sees one line saying the store was lost, and ``runs list`` is empty.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from scholarkg.benchmark.metrics.ir import evaluate
from scholarkg.benchmark.results import ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.task import Answers, AnswerSource, BenchmarkTask, Instance, StageProgress
from scholarkg.errors import ServerError
from scholarkg.store.base import GraphReader
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

#: the embedded tier: it starts and kills servers of its own (tests/conftest.py)
pytestmark = pytest.mark.embedded

PAPERS = [(f"arxiv:2001.0000{i}", f"paper number {i} about topic {i}") for i in range(1, 6)]


def kill(server: EmbeddedServer) -> None:
    """SIGKILL: the server dies without a goodbye, as an OOM kill or a crash would."""
    pid = server.status(details=False).pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)


class DyingStoreTask(BenchmarkTask):
    """Look a paper up by its title; the server is killed at step ``die_at``."""

    name = "toy-dying-store"
    family = "toy"
    description = "a title lookup whose store is killed midway"
    metrics = (TaskMetric("R@1", "percent"),)
    answer_kinds = frozenset({"ranker"})
    rankers = ("exact",)
    baseline = "exact"
    layout = ReportLayout(title="Toy", columns=("R@1",), instance_label="query")

    def __init__(self, server: EmbeddedServer, die_at: str) -> None:
        self.server = server
        self.die_at = die_at

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        rows = store.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS t ORDER BY p.id", {})
        return [Instance(r["id"], {"title": r["t"]}) for r in rows]

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        out: dict[str, list[str]] = {}
        for k, inst in enumerate(instances):
            if self.die_at == "answer" and k == 2:
                kill(self.server)
            rows = store.run(
                "MATCH (p:Paper) WHERE p.title = $t RETURN p.id AS id", {"t": inst.data["title"]}
            )
            out[inst.id] = [r["id"] for r in rows]
        return Answers(out, source)

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        res = evaluate({i.id: {i.id: 1} for i in instances}, answers.by_instance, ["R@1"])
        if self.die_at == "record":
            kill(self.server)  # everything computed; only writing the record is left
        return TaskResult(
            aggregate={k: 100 * v for k, v in res.aggregate.items()},
            per_instance={q: {k: 100 * v for k, v in s.items()} for q, s in res.per_query.items()},
        )


@pytest.fixture
def own_server(tmp_path: Path, scholarkg_home: Path) -> Iterator[EmbeddedServer]:
    """A private ephemeral server with the papers loaded, on its own data dir."""
    server = EmbeddedServer(tmp_path / "falkordb", persistent=False)
    server.start()
    try:
        store = FalkorDBStore(server.connect(), "dying")
        store.merge_nodes("Paper", [{"id": i, "title": t} for i, t in PAPERS])
        store.close()
        yield server
    finally:
        server.stop(compact=False)


@pytest.mark.parametrize("die_at", ["answer", "record"])
def test_run_task_whose_store_dies_records_nothing(
    own_server: EmbeddedServer, tmp_path: Path, die_at: str
) -> None:
    store = FalkorDBStore(own_server.connect(), "dying")
    task = DyingStoreTask(own_server, die_at)
    runs = tmp_path / "runs"
    with pytest.raises(ServerError, match="lost the embedded FalkorDB server"):
        run_task(task, store, AnswerSource.ranker("exact"), runs_dir=runs)
    assert RunRegistry(runs).ids() == []
    assert not runs.exists() or not any(runs.iterdir())  # no summary, no temp file either


def test_bench_run_whose_store_dies_says_so_in_one_line(
    own_server: EmbeddedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from scholarkg import cli
    from scholarkg.commands import bench, common

    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(own_server.data_dir))
    monkeypatch.setenv("SCHOLARKG_GRAPH", "dying")
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))  # its runs/ is empty
    monkeypatch.setattr(bench, "_task", lambda name: DyingStoreTask(own_server, "record"))
    common.set_global_options()  # settings are re-read from this environment
    monkeypatch.setattr(sys, "argv", ["scholarkg", "bench", "run", "toy-dying-store"])
    with pytest.raises(SystemExit) as exit_info:
        cli.main()
    assert exit_info.value.code != 0
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("error: lost the embedded FalkorDB server"), err

    common.set_global_options()
    monkeypatch.setattr(sys, "argv", ["scholarkg", "runs", "list", "--format", "json"])
    cli.main()
    assert capsys.readouterr().out.strip() == "[]"
    assert not (tmp_path / "home" / "runs").exists() or not any(
        (tmp_path / "home" / "runs").iterdir()
    )

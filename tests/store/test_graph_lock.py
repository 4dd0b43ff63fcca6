"""One bulk writer per graph: a second load into a graph another process is loading is
refused at once, naming the first; a killed holder leaves the graph free.

Keys are indexes on the embedded store (its unique constraint crashed the server), so two
loads at once could both create the same reference stub; the lock is what keeps them apart.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.config import Settings
from scholarkg.store.graph_lock import (
    GraphBusy,
    lock_folder,
    lock_path,
    replacing_store,
    writing_graph,
)

HOLD = """
import sys, time
from pathlib import Path
from scholarkg.store.graph_lock import writing_graph
with writing_graph(Path(sys.argv[1]), sys.argv[2]):
    print("held", flush=True)
    time.sleep(120)
"""


#: holds the whole store's lock, as ``db restore`` does
HOLD_STORE = """
import sys, time
from pathlib import Path
from scholarkg.store.graph_lock import replacing_store
with replacing_store(Path(sys.argv[1])):
    print("held", flush=True)
    time.sleep(120)
"""


#: as HOLD, with a child forked while the lock is held (a parse worker pool), left running
HOLD_AND_FORK = """
import os, sys, time
from pathlib import Path
from scholarkg.store.graph_lock import writing_graph
with writing_graph(Path(sys.argv[1]), sys.argv[2]):
    ready, say = os.pipe()
    child = os.fork()
    if child == 0:
        os.write(say, b"x")  # the child runs its own code: its fork hooks have run
        time.sleep(120)
        os._exit(0)
    os.read(ready, 1)  # on a loaded machine the child may not have run at all yet
    print("held", child, flush=True)
    time.sleep(120)
"""


def _holder(home: Path, graph: str, script: str = HOLD) -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(home), graph], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline().startswith("held")
    return proc


def test_a_second_process_is_refused_naming_the_first_and_a_killed_holder_frees_it(
    tmp_path: Path,
) -> None:
    holder = _holder(tmp_path, "lab/slice")  # a graph name that is no file name
    try:
        busy = rf"graph 'lab/slice' is being written by pid {holder.pid}"
        with pytest.raises(GraphBusy, match=busy), writing_graph(tmp_path, "lab/slice"):
            pass
        with writing_graph(tmp_path, "other"):  # another graph is free
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    with (
        writing_graph(tmp_path, "lab/slice"),  # the kernel released it
        writing_graph(tmp_path, "lab/slice"),  # and it nests in a process
    ):
        pass
    assert lock_path(tmp_path, "lab/slice") != lock_path(tmp_path, "lab_slice")


def test_a_child_forked_while_the_lock_is_held_does_not_keep_it_after_its_parent(
    tmp_path: Path,
) -> None:
    """A review found it: ``load s2 --workers`` forks its parse pool while holding the lock,
    and a ``kill -9`` of the load left the workers holding it (an flock is the open file's,
    which they shared), so every later load was refused. Forked children let go of it."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD_AND_FORK, str(tmp_path), "g"], stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    child = int(proc.stdout.readline().split()[1])
    try:
        with pytest.raises(GraphBusy), writing_graph(tmp_path, "g"):
            pass
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        with writing_graph(tmp_path, "g"):  # the child runs on, without the lock
            os.kill(child, 0)  # the forked child still runs: it is not what held the lock
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(child, signal.SIGKILL)


def test_a_load_into_a_graph_another_process_loads_is_refused_before_it_writes(
    graph_env: str, settings: Settings, tmp_path: Path
) -> None:
    folder = lock_folder(settings)
    papers = tmp_path / "papers.jsonl"
    papers.write_text('{"id": "p1", "title": "One"}\n', encoding="utf-8")
    holder = _holder(folder, graph_env)
    try:
        started = time.monotonic()
        result = runner.invoke(app, ["load", "bulk", "--papers", str(papers)])
        assert isinstance(result.exception, GraphBusy), result.output
        assert time.monotonic() - started < 30  # refused at once, not after a wait
        assert f"pid {holder.pid}" in str(result.exception)
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    result = runner.invoke(app, ["load", "bulk", "--papers", str(papers)])
    assert result.exit_code == 0, result.output
    # nor is the graph reset under a load (it would go on writing into the emptied graph)
    holder = _holder(folder, graph_env)
    try:
        result = runner.invoke(app, ["db", "reset", "--yes"])
        assert isinstance(result.exception, GraphBusy), result.output
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert "deleted graph" in runner.invoke(app, ["db", "reset", "--yes"]).output


def test_a_restore_and_the_graphs_writers_exclude_one_another(tmp_path: Path) -> None:
    """``db restore`` stops the server and replaces every graph: it is refused while any
    graph is written (naming the writer), and no writer starts while it runs; writers of
    two graphs still run side by side (they hold the store's lock shared)."""
    holder = _holder(tmp_path, "lab")
    try:
        with writing_graph(tmp_path, "other"):  # another graph's writer runs beside it
            pass
        with (
            pytest.raises(GraphBusy, match=rf"written by pid {holder.pid} .*restore"),
            replacing_store(tmp_path),
        ):
            pass
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    restorer = _holder(tmp_path, "-", HOLD_STORE)
    try:
        for graph in ("lab", "new"):  # a graph never written before too
            with (
                pytest.raises(GraphBusy, match=rf"replaced by pid {restorer.pid}"),
                writing_graph(tmp_path, graph),
            ):
                pass
    finally:
        restorer.send_signal(signal.SIGKILL)
        restorer.wait()
    with replacing_store(tmp_path), writing_graph(tmp_path, "lab"):  # nests in one process
        pass
    with (  # a writer cannot replace the store under itself
        writing_graph(tmp_path, "lab"),
        pytest.raises(GraphBusy, match=rf"written by pid {os.getpid()} "),
        replacing_store(tmp_path),
    ):
        pass

"""A restarted embedded server that stops before it ever answers is replaced (issue #37).

Seen once in a full ``make test-marked`` (hostile suite, ``mem-reduce-concat-lists`` through
``scholarkg cypher``, a loaded 2-core machine): the watchdog stopped the server running the
query and started it again; the new server decoded its 3-node graph ("Done decoding graph"
in its log), then its main thread never ran again (no CPU time, no answer, SIGTERM ignored
for 30 s), and scholarkg waited the full 300 s without progress before giving up with a
``ServerError``: the store was down until the next command. Now a server this process spawned
that neither answers nor uses CPU time for ``wedge_timeout`` seconds before it ever answered
is killed and spawned again on the same files (docs/backends.md, Security).

Here the wedge is made with a real server: the restarted process is stopped (SIGSTOP) where the
one seen stopped, right after "Done decoding graph" (``key-load-delay`` holds the load open
long enough), which looks from the outside exactly like it: no answer, no CPU time, before
"Ready to accept connections".
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import psutil
import pytest

from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.process import CHILDREN

pytestmark = pytest.mark.embedded

#: the restarted server sleeps this long (µs) per key it loads: the window for the SIGSTOP,
#: and what a server that is merely slow looks like (it must not be taken for a wedged one)
LOAD_DELAY_US = 500_000
WEDGE_S = 3.0


def _stop_the_next_server(
    server: EmbeddedServer, old: int, stopped: list[int], done: threading.Event
) -> None:
    """SIGSTOP the first server started after ``old`` where the one seen stopped: once its
    log says it decoded the graph (it then sleeps ``LOAD_DELAY_US`` before reading on)."""
    while not done.is_set():
        try:
            pid = int(server.pid_file.read_text().strip())
        except (OSError, ValueError):
            pid = old
        if pid != old and f"{pid}:M" in _decoded(server):
            os.kill(pid, signal.SIGSTOP)
            stopped.append(pid)
            return
        time.sleep(0.002)


def _decoded(server: EmbeddedServer) -> str:
    text = server.log_file.read_text(errors="replace")
    return "\n".join(line for line in text.splitlines() if "Done decoding graph" in line)


@pytest.mark.slow  # make test's 5-minute budget: runs in make test-marked (CI runs both)
def test_a_restarted_server_that_wedges_before_it_answers_is_replaced(tmp_path: Path) -> None:
    server = EmbeddedServer(
        tmp_path / "store",
        memory=4 << 30,
        server_args={"key-load-delay": LOAD_DELAY_US},
        wedge_timeout=WEDGE_S,
    )
    server.start()
    store = FalkorDBStore(server.connect(), "wedge", server=server)
    try:
        store.run(
            "CREATE (a:Paper {id: 'p1'}), (b:Paper {id: 'p2'}), (c:Paper {id: 'p3'}), "
            "(a)-[:CITES]->(b), (b)-[:CITES]->(c)"
        )
        server.compact(force=True)  # the graph in the snapshot the restart loads, as in CI
        old = server.pid()
        assert old is not None
        stopped: list[int] = []
        done = threading.Event()
        watcher = threading.Thread(
            target=_stop_the_next_server, args=(server, old, stopped, done), daemon=True
        )
        watcher.start()
        t0 = time.monotonic()
        try:
            server.restart_runaway(old)
        finally:
            done.set()
            watcher.join(5)
            for pid in stopped:  # never leave a stopped process behind, whatever happened
                if psutil.pid_exists(pid):
                    os.kill(pid, signal.SIGKILL)
        took = time.monotonic() - t0

        assert len(stopped) == 1, "the restarted server answered before it could be stopped"
        wedged = stopped[0]
        new = server.pid()
        assert new not in (None, old, wedged)
        # killed and reaped, not left running (a stopped server would hold the AOF files)
        assert wedged not in CHILDREN
        assert not psutil.pid_exists(wedged)
        # replaced after WEDGE_S of standstill, not after the 300 s a stall was waited for
        assert took < WEDGE_S + 15, took
        # what its threads were doing is in the server's log, for the report
        note = [line for line in server.log_file.read_text().splitlines() if "is wedged" in line]
        assert len(note) == 1 and f"pid {wedged}" in note[0] and "Its threads:" in note[0]

        # nothing stored was lost, and the store answers
        assert store.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 3}]
        assert store.run("MATCH ()-[r:CITES]->() RETURN count(r) AS n") == [{"n": 2}]
    finally:
        store.close()
        server.stop(compact=False)


def test_a_server_slow_to_load_is_not_taken_for_a_wedged_one(tmp_path: Path) -> None:
    """A load that sleeps (here ``key-load-delay``: no CPU time, no answer) for less than the
    wedge timeout is waited for: one server, never killed."""
    server = EmbeddedServer(
        tmp_path / "store", server_args={"key-load-delay": LOAD_DELAY_US}, wedge_timeout=WEDGE_S
    )
    server.start()
    store = FalkorDBStore(server.connect(), "slow", server=server)
    try:
        store.run("CREATE (:Paper {id: 'p1'})")
        old = server.pid()
        assert old is not None
        server.restart_runaway(old)
        assert "is wedged" not in server.log_file.read_text()
        assert store.run("MATCH (p:Paper) RETURN count(p) AS n") == [{"n": 1}]
    finally:
        store.close()
        server.stop(compact=False)

"""The managed Neo4j's guard (``neo4j-launcher``'s ``ServerGuard.java``), live: what Neo4j's own
limits cannot stop is stopped inside the server, and the server keeps its pid.

* a row that grows one list until the heap is full (no time limit would come in time: the
  limit here is 10 minutes) is stopped when a collection finds the heap 85 % full;
* a row that goes on computing after its transaction ended is stopped a second later, so the
  server's CPU is free again;
* GDS graphs that scholarkg did not make hold at most a quarter of the heap: repeated
  projections from ``scholarkg cypher`` or the Browser (they killed the JVM, issue #37) drop
  the oldest instead;
* with most of the heap held by scholarkg's own GDS graphs, the list growers still end as
  answers and the server keeps its pid (a server whose heap was this full died of
  OutOfMemoryError: a grower's array found no room, and the JVM ended on it).

Each needs a server whose guard can stop a query (Java 17); the tests skip otherwise, saying so.
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from scholarkg.errors import QueryLimitExceeded, ScholarKGError
from scholarkg.store.base import GraphStore

#: grows one list by copying, inside one row: ~5 GB at the end, far past any test heap
HEAP_HOG = "RETURN size(reduce(s = [], x IN range(1, 100000000) | s + x)) AS n"
#: a string grown 2 million times: computes for hours after its transaction ended
OVERRUN = "RETURN size(reduce(s = '', x IN range(1, 2000000) | s + 'xxxxxxxxxx')) AS n"


@pytest.fixture
def guarded(managed_neo4j: Any) -> Any:
    if not managed_neo4j.guard_stops_queries():
        pytest.skip(
            f"this Neo4j's guard cannot stop a query ({managed_neo4j.status().guard or 'none'})"
        )
    return managed_neo4j


def _guard_lines(server: Any) -> list[str]:
    text = server.log_file.read_text(encoding="utf-8", errors="replace")
    return [ln for ln in text.splitlines() if ln.startswith("SCHOLARKG-GUARD:")]


def _stopped_since(server: Any, said: int) -> bool:
    """Whether the guard logged stopping a query after its first ``said`` lines (its line is
    printed right after the stop, as the stopped thread unwinds: waited for a moment)."""
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        if any("stopped the query" in ln for ln in _guard_lines(server)[said:]):
            return True
        time.sleep(0.1)
    return False


def _answers_at_once(store: GraphStore) -> None:
    t0 = time.monotonic()
    assert store.run("RETURN 1 AS x") == [{"x": 1}]
    assert time.monotonic() - t0 < 2.0


def test_the_young_generation_is_bounded_and_the_heap_touched(managed_neo4j: Any) -> None:
    """The running JVM has the bound (a collection copies at most this much of a live list)
    and touched its heap at start, and holds it: its resident memory is at least the heap."""
    from pathlib import Path

    from scholarkg.store.neo4j.server import PRE_TOUCH, _size_bytes, young_generation_arguments

    bound = young_generation_arguments(managed_neo4j.heap)
    pid = managed_neo4j.status().pid
    cmdline = Path(f"/proc/{pid}/cmdline")
    if not bound or not cmdline.exists():
        pytest.skip("SCHOLARKG_NEO4J_MAX_YOUNG=0, or no /proc to read the JVM's arguments")
    args = cmdline.read_bytes().decode().split("\0")
    assert bound[0] in args, [a for a in args if a.startswith("-X")]
    assert PRE_TOUCH in args, [a for a in args if a.startswith("-X")]
    status = Path(f"/proc/{pid}/status").read_text()
    vm_rss = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
    assert vm_rss is not None, status
    resident_kib = int(vm_rss.group(1))
    assert resident_kib * 1024 >= _size_bytes(managed_neo4j.heap), resident_kib


def test_the_guard_stops_no_thread_to_watch_them(guarded: Any, neo4j_store: GraphStore) -> None:
    """The guard samples every Bolt worker twice a second; it lists them without a thread dump
    (``Thread.getAllStackTraces`` held every thread of the JVM at a safepoint each time: five
    in these 2.5 s). Its one look at a thread (a query past its end) may still dump one."""
    import _jvm_pauses as jvm_pauses

    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and _other_transactions(neo4j_store):
        time.sleep(0.2)  # an earlier test's query still unwinding: the guard looks at it
    start = jvm_pauses.mark(guarded.pause_log_file)
    assert start is not None, f"the server wrote no {guarded.pause_log_file}"
    time.sleep(2.5)
    logged = jvm_pauses.since(guarded.pause_log_file, start)
    assert len(jvm_pauses.thread_dumps_ms(logged)) <= 1, logged[-2000:]


def _other_transactions(store: GraphStore) -> int:
    rows = store.run("SHOW TRANSACTIONS YIELD transactionId RETURN count(*) AS n")
    return int(rows[0]["n"]) - 1  # this one


def test_a_row_that_takes_the_heap_is_stopped(guarded: Any, neo4j_store: GraphStore) -> None:
    """Neo4j counts no memory inside one row: without the guard this query took the whole
    heap and the JVM died of OutOfMemoryError 39 s later (1 GiB heap)."""
    pid = guarded.status().pid
    before = len(_guard_lines(guarded))
    t0 = time.monotonic()
    with pytest.raises(QueryLimitExceeded, match=r"heap in use") as stopped:
        neo4j_store.explore(HEAP_HOG, timeout_ms=600_000)
    took = time.monotonic() - t0
    assert took < 60, took
    assert "guard" in str(stopped.value)
    assert guarded.status().pid == pid
    _answers_at_once(neo4j_store)
    new = _guard_lines(guarded)[before:]
    assert any("heap in use after a collection; stopped the query" in ln for ln in new), new


def test_a_row_past_its_transaction_is_stopped_in_the_server(
    guarded: Any, neo4j_store: GraphStore
) -> None:
    """Neo4j ends the transaction at its time limit but lets the row compute on (for hours,
    here): the guard stops it a second later, so the server's CPU is free again.

    The string is grown by copying, gigabytes of garbage a second: on a small heap (the 1 GiB
    of a test server) a collection can find it over the heap rule's share first, and that
    rule stops it instead; either way it is stopped in the server, by the guard."""
    pid = guarded.status().pid
    before = len(_guard_lines(guarded))
    with pytest.raises(QueryLimitExceeded):
        neo4j_store.explore(OVERRUN, timeout_ms=1000)

    def running() -> list[dict[str, Any]]:
        return neo4j_store.run(
            "SHOW TRANSACTIONS YIELD currentQuery WHERE currentQuery CONTAINS 'xxxxxxxxxx' "
            "AND NOT currentQuery STARTS WITH 'SHOW' RETURN currentQuery"
        )

    deadline = time.monotonic() + 6
    while running() and time.monotonic() < deadline:
        time.sleep(0.2)
    new = _guard_lines(guarded)[before:]
    assert not running(), f"the row was still computing 6 s after its time limit; guard: {new}"
    assert any(
        "after its transaction ended" in ln or "heap in use after a collection" in ln for ln in new
    ), new
    assert guarded.status().pid == pid
    _answers_at_once(neo4j_store)


@pytest.mark.slow
def test_the_gds_catalogue_is_bounded(guarded: Any, neo4j_store: GraphStore) -> None:
    """Repeated projections (the aggregation function, from an administrator's shell) filled
    the heap and killed the JVM (issue #37): graphs scholarkg did not make now hold at most
    their share of the heap, the oldest dropped past it, and the server keeps its pid."""
    from scholarkg.store.neo4j.server import _size_bytes

    rule = re.search(r"GDS catalogue ([0-9.]+)", guarded.status().guard or "")
    assert rule is not None, guarded.status().guard
    share = float(rule.group(1))
    budget = share * _size_bytes(guarded.heap)
    project = (
        "UNWIND range(1, 1000000) AS x WITH gds.graph.project($name, x, x + 1) AS g "
        "RETURN g.nodeCount AS nodes"
    )
    catalogue = (
        "CALL gds.graph.list() YIELD graphName, sizeInBytes "
        "WHERE graphName STARTS WITH 'evil' RETURN graphName, sizeInBytes"
    )
    pid = guarded.status().pid
    before = len(_guard_lines(guarded))
    graph_bytes = 0
    try:
        # past the budget twice over (each graph ~70 MiB)
        for i in range(50):
            said = len(_guard_lines(guarded))
            try:
                neo4j_store.run(project, {"name": f"evil{i}"})
            except ScholarKGError as err:  # stopped by the heap rule: an answer too
                if "guard" not in str(err):
                    # GDS can wrap the guard's error in its own: a stop that lands in the
                    # stormpot pool GDS claims its builders from comes back as its
                    # PoolException (ServerGuard.SHARED_STATE). Then the guard's log must
                    # say that it stopped a query meanwhile: any other failure is a defect
                    assert "stormpot.PoolException" in str(err), err
                    assert _stopped_since(guarded, said), err
            rows = neo4j_store.run(catalogue)
            graph_bytes = max([graph_bytes] + [int(r["sizeInBytes"]) for r in rows])
            if graph_bytes and (i + 1) * graph_bytes > 2 * budget + graph_bytes:
                break
        assert graph_bytes > 0
        time.sleep(3)  # the guard looks at the catalogue after a collection, every 2 s at most
        held = sum(int(r["sizeInBytes"]) for r in neo4j_store.run(catalogue))
        assert held <= budget + graph_bytes, (held, budget)
        assert any("dropped GDS graph 'evil" in ln for ln in _guard_lines(guarded)[before:])
        assert guarded.status().pid == pid
        _answers_at_once(neo4j_store)
    finally:
        neo4j_store.run(
            "CALL gds.graph.list() YIELD graphName WHERE graphName STARTS WITH 'evil' "
            "CALL gds.graph.drop(graphName, false) YIELD graphName AS dropped RETURN count(*)"
        )


#: the hostile suite's one-row list growers (tests/security/test_hostile_suite.py)
GROWERS = [
    HEAP_HOG,
    "RETURN size(reduce(s = [], x IN range(1, 30000000) | s + [x])) AS n",
    "RETURN size([x IN range(1, 100000000) | [x, x, x]]) AS n",
    "WITH range(1, 100000000) AS r RETURN size([x IN r | toString(x)]) AS n",
    OVERRUN,
]


@pytest.mark.slow
def test_growers_on_a_heap_mostly_held_by_graphs(guarded: Any, neo4j_store: GraphStore) -> None:
    """The growers again, with scholarkg's own GDS graphs holding ~60 % of the heap (a large
    corpus's projections on a small heap): each ends as an answer, `RETURN 1` answers at once
    and the pid stays. Before, such a server died: the guard stopped a grower too late, or the
    grower asked for one array of 100+ MiB that a heap in pieces had no room for, and
    ``-XX:+ExitOnOutOfMemoryError`` ended the JVM on an error that was that query's alone."""
    from scholarkg.store.neo4j.server import _size_bytes

    heap = _size_bytes(guarded.heap)
    project = (
        "UNWIND range(1, $n) AS x WITH gds.graph.project($name, x, x + 1) AS g "
        "RETURN g.nodeCount AS nodes"
    )
    size = "CALL gds.graph.list($name) YIELD sizeInBytes RETURN sizeInBytes AS bytes"
    pid = guarded.status().pid
    held = 0
    names: list[str] = []
    try:
        while held < 0.6 * heap and len(names) < 20:
            names.append(f"scholarkg_test_fill{len(names)}")
            neo4j_store.run(project, {"n": 2_000_000, "name": names[-1]})
            held += int(neo4j_store.run(size, {"name": names[-1]})[0]["bytes"])
        for query in GROWERS:
            before = len(_guard_lines(guarded))
            t0 = time.monotonic()
            with pytest.raises(QueryLimitExceeded):
                neo4j_store.explore(query, timeout_ms=1000)
            assert time.monotonic() - t0 < 10, (query, _guard_lines(guarded)[before:])
            assert guarded.status().pid == pid, (query, _guard_lines(guarded)[before:])
            _answers_at_once(neo4j_store)
    finally:
        for name in names:
            drop = "CALL gds.graph.drop($name, false) YIELD graphName RETURN 1"
            neo4j_store.run(drop, {"name": name})

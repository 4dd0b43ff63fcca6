"""Many watchdog restarts in a row: does every restarted embedded server become ready?

Issue #37: once in a full ``make test-marked`` a server the watchdog restarted never became
ready (its log ended at "Done decoding graph", no CPU time for 300 s). This loops what the
hostile suite does: a persistent store with a 3-node graph, a second client querying it every
0.1 s, and queries FalkorDB cannot stop or that pass the server's address-space limit (one-row
list growers, ``range(1, 1e10)``, 20,000 x 20,000 in one row), each sent with a 1 s limit, so
the watchdog restarts the server (or the memory limit ends it and it is started again):

    python benchmarks/bench_restart_stress.py /tmp/restarts --restarts 500 [--write] [--cli]

``--write``: a small write before each query, so each restart replays a log and the new
server forks a log rewrite right after it answers; ``--cli``: each query through ``scholarkg
cypher`` in-process (a fresh store and server object per command, as in the test), else
through ``FalkorDBStore.explore``. To load the machine as CI does, run two
``python -c 'while 1: pass'`` beside it.

It prints one line per query and at the end the restarts, how many restarted servers were
wedged and replaced (``is wedged`` lines in ``falkordb.log``), the slowest restart, and any
query that failed. The store's server is stopped at the end.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import threading
import time
from pathlib import Path

from scholarkg.errors import QueryLimitExceeded, ScholarKGError
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

GRAPH = "hostile"
QUERIES = [
    "RETURN size(reduce(s = [], x IN range(1, 30000000) | s + [x])) AS n",
    "RETURN size(reduce(s = [], x IN range(1, 100000000) | s + x))",
    "RETURN size([x IN range(1, 100000000) | [x, x, x]]) AS n",
    "UNWIND range(1, 10000000000) AS x RETURN count(x)",
    "RETURN size([x IN range(1, 20000) | size([y IN range(1, 20000) WHERE y = x])]) AS n",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--restarts", type=int, default=200, help="queries to send (default 200)")
    ap.add_argument("--write", action="store_true", help="a write before each query")
    ap.add_argument("--cli", action="store_true", help="through 'scholarkg cypher'")
    args = ap.parse_args()

    server = EmbeddedServer(args.data_dir, memory=4 << 30)
    server.start()
    store = FalkorDBStore(server.connect(), GRAPH, server=server)
    second = FalkorDBStore(server.connect(), GRAPH, server=server)
    if store.run("MATCH (n:Paper) RETURN count(n) AS n")[0]["n"] == 0:
        store.run(
            "CREATE (a:Paper {id: 'p1'}), (b:Paper {id: 'p2'}), (c:Paper {id: 'p3'}), "
            "(a)-[:CITES]->(b), (b)-[:CITES]->(c)"
        )
    stop = threading.Event()

    def ask() -> None:
        while not stop.is_set():
            # the restart itself may fail one of these: the hostile suite allows it too
            with contextlib.suppress(ScholarKGError):
                second.run("MATCH (p:Paper) RETURN count(p) AS n")
            time.sleep(0.1)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    if args.cli:
        from typer.testing import CliRunner

        from scholarkg.cli import app

        runner = CliRunner()
        os.environ.update(
            SCHOLARKG_DATA_DIR=str(args.data_dir),
            SCHOLARKG_BACKEND="embedded",
            SCHOLARKG_GRAPH=GRAPH,
        )
    restarts, slowest, failed = 0, 0.0, []
    try:
        for i in range(args.restarts):
            query = QUERIES[i % len(QUERIES)]
            if args.write:
                store.run("MERGE (c:Counter {id: 'c'}) SET c.n = $i", {"i": i})
            pid = server.pid()
            t0 = time.monotonic()
            err: BaseException | None
            if args.cli:
                err = runner.invoke(app, ["cypher", query, "--timeout", "1"]).exception
            else:
                own = EmbeddedServer(args.data_dir)  # a fresh object, as each command has
                cli = FalkorDBStore(own.connect(), GRAPH, server=own)
                try:
                    cli.explore(query, timeout_ms=1000)
                    err = None
                except ScholarKGError as caught:
                    err = caught
                finally:
                    cli.close()
            took = time.monotonic() - t0
            if err is not None and not isinstance(err, QueryLimitExceeded):
                failed.append(f"[{i}] {query[:50]}: {type(err).__name__}: {err}")
            new = server.pid()
            if new != pid:
                restarts += 1
                slowest = max(slowest, took)
            assert store.run("RETURN 1 AS x") == [{"x": 1}]
            print(f"[{i}] {took:5.1f} s  pid {pid} -> {new}  restarts {restarts}", flush=True)
    finally:
        stop.set()
        thread.join(5)
        store.close()
        second.close()
        wedged = server.log_file.read_text(errors="replace").count(" is wedged: ")
        server.stop(compact=False)
    print(f"restarts: {restarts}  wedged and replaced: {wedged}  slowest: {slowest:.1f} s")
    for line in failed:
        print("FAILED", line)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

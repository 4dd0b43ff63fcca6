"""How long the embedded watchdog's restart takes, by store size (issue #37: "the store answers
the next query within a second").

A query FalkorDB cannot stop (one row's list comprehension over 20,000 x 20,000) is sent, and
the watchdog's restart (``EmbeddedServer.restart_runaway``) is timed in its parts:

* ``shutdown``: ``SHUTDOWN`` sent until the old process is gone;
* ``start``: the new process spawned until it answers (loading the RDB-preamble AOF);
* ``first query``: a count of Papers on the new server (index seek of one id too);

then the same with the store's server idle, for comparison. Run against a store made with
``scholarkg load openalex --bulk`` (``benchmarks/bench_openalex.py`` generates the snapshots):

    SCHOLARKG_HOME=/tmp/home-20k python benchmarks/bench_watchdog_restart.py --repeat 3

It prints one line per restart and the medians. The server of ``SCHOLARKG_HOME`` is used
(started if needed) and left running.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import threading
import time
from typing import Any

RUNAWAY = "RETURN size([x IN range(1, 20000) | size([y IN range(1, 20000) WHERE y = x])]) AS n"


def _timed_restart(server: Any, graph: str, *, busy: bool) -> dict[str, float]:
    from scholarkg.store.falkordb import server as embedded

    pid = server.pid()
    assert pid is not None
    if busy:
        conn = server.connect()

        def hang() -> None:
            with contextlib.suppress(Exception):  # the restart drops the connection
                conn.connection.execute_command("GRAPH.RO_QUERY", graph, RUNAWAY)

        threading.Thread(target=hang, daemon=True).start()
        time.sleep(1.0)  # the worker is inside the row
    parts: dict[str, float] = {}
    t0 = time.monotonic()
    real_start = server.start

    def start() -> Any:
        parts["shutdown"] = time.monotonic() - t0
        t1 = time.monotonic()
        out = real_start()
        parts["start"] = time.monotonic() - t1
        return out

    server.start = start
    try:
        server.restart_runaway(pid)
    finally:
        del server.start
    t2 = time.monotonic()
    client = server.connect()
    client.connection.execute_command("GRAPH.RO_QUERY", graph, "MATCH (p:Paper) RETURN count(p)")
    client.connection.execute_command(
        "GRAPH.RO_QUERY", graph, "MATCH (p:Paper {id: 'W77'}) RETURN p.title"
    )
    parts["first query"] = time.monotonic() - t2
    parts["total"] = time.monotonic() - t0
    client.connection.close()
    del embedded
    return parts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    from scholarkg.config import load_settings
    from scholarkg.store.falkordb.server import EmbeddedServer

    cfg = load_settings()
    server = EmbeddedServer(cfg.data_dir)
    server.ensure_running()
    client = server.connect()
    papers = client.connection.execute_command(
        "GRAPH.RO_QUERY", cfg.graph, "MATCH (p:Paper) RETURN count(p)"
    )[1][0][0]
    client.connection.close()
    files = sorted((cfg.data_dir / "appendonlydir").glob("*"))
    size = sum(f.stat().st_size for f in files)
    print(f"store: {papers:,} papers, AOF dir {size / 1e6:.1f} MB ({cfg.data_dir})")
    for busy in (True, False):
        rows = []
        for i in range(args.repeat):
            parts = _timed_restart(server, cfg.graph, busy=busy)
            rows.append(parts)
            print(
                f"  {'runaway' if busy else 'idle   '} #{i + 1}: "
                + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items())
            )
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(
            f"  median ({'runaway query' if busy else 'idle server'}): "
            + ", ".join(f"{k} {v:.2f} s" for k, v in med.items())
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

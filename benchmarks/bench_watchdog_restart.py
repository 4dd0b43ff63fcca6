"""How soon the store answers after the embedded watchdog's restart (issue #37: "the store
answers the next query within a second").

A query FalkorDB cannot stop (one row's list comprehension over 20,000 x 20,000) is sent on a
connection of its own, and the watchdog's restart (``EmbeddedServer.restart_runaway``) is
timed in its parts, for both ways the new server may start:

* ``indexes first``: the old way, FalkorDB builds every index before it answers;
* ``background``: what the watchdog does now (``start(background_indexes=True)``: FalkorDB's
  ``DELAY_INDEXING``), the indexes built after the server answers; a scholarkg store waits
  for them only before a write or a full-text / vector query.

Parts: ``shutdown`` (SHUTDOWN until the old process is gone), ``start`` (the new process
spawned until it answers), then, through a ``FalkorDBStore`` as the CLI opens it, ``count``
(the Papers counted), ``by id`` (one Paper by id: an index seek, or a scan while the index is
built), ``full-text`` (a search of titles and abstracts: waits for the index) and ``total``
(from the stop to the full-text answer). The two modes alternate, so a machine shared with
other jobs slows both alike. Run against a store made with ``scholarkg load openalex --bulk``
(``benchmarks/bench_openalex.py`` generates the snapshots):

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
MODES = {"indexes first": False, "background": True}


def _timed_restart(server: Any, graph: str, *, background: bool) -> dict[str, float]:
    from scholarkg.store.falkordb.store import FalkorDBStore

    pid = server.pid()
    assert pid is not None
    conn = server.connect()

    def hang() -> None:
        with contextlib.suppress(Exception):  # the restart drops the connection
            conn.connection.execute_command("GRAPH.RO_QUERY", graph, RUNAWAY)

    threading.Thread(target=hang, daemon=True).start()
    time.sleep(1.0)  # the worker is inside the row
    parts: dict[str, float] = {}
    t0 = time.monotonic()
    real_start = server.start

    def start(**_: Any) -> Any:
        parts["shutdown"] = time.monotonic() - t0
        t1 = time.monotonic()
        out = real_start(background_indexes=background)
        parts["start"] = time.monotonic() - t1
        return out

    server.start = start
    try:
        server.restart_runaway(pid)
    finally:
        del server.start
    store = FalkorDBStore(server.connect(), graph, server=server)
    store._indexes_settling = server.indexes_in_background()
    try:
        t = time.monotonic()
        store.run("MATCH (p:Paper) RETURN count(p) AS n")
        parts["count"] = time.monotonic() - t
        t = time.monotonic()
        store.run("MATCH (p:Paper {id: $id}) RETURN p.title AS t", {"id": "doi:10.5555/77"})
        parts["by id"] = time.monotonic() - t
        t = time.monotonic()
        hits = store.fulltext("paper_text", ["graph"], k=10)
        parts["full-text"] = time.monotonic() - t
        assert hits, "the full-text search found nothing"
        parts["total"] = time.monotonic() - t0
    finally:
        store.close()
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
    rows: dict[str, list[dict[str, float]]] = {mode: [] for mode in MODES}
    for i in range(args.repeat):
        for mode, background in MODES.items():
            parts = _timed_restart(server, cfg.graph, background=background)
            rows[mode].append(parts)
            print(f"  {mode:13} #{i + 1}: " + ", ".join(f"{k} {v:.2f} s" for k, v in parts.items()))
    for mode, runs in rows.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        print(f"  median, {mode}: " + ", ".join(f"{k} {v:.2f} s" for k, v in med.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

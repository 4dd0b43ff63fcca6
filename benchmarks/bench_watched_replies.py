"""What awaiting each reply under the wedge watch costs: round trips on the embedded server
through the store's watched connection against the FalkorDB client's own, in the same run.

``store/falkordb/wedge_watch.py`` waits for each reply with a readiness poll before reading it
(so that a server that stopped working is noticed); the client's own connection just reads.
Both send the same statements to one server, alternated in rounds, alone and then with a
thread of pure Python work beside them, as a load's statements are sent and read by a thread
of their own while the loading thread parses (each reply then waits for the interpreter):

    python benchmarks/bench_watched_replies.py [--round-trips 20000] [--rounds 3]

It prints the mean time of a round trip of ``RETURN 1`` and of a 1,000-row read for each, and
the difference per reply.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from falkordb import FalkorDB

from scholarkg.store.falkordb.server import EmbeddedServer

ROWS_QUERY = "UNWIND range(1, 1000) AS i RETURN i, toString(i) AS s"


def per_call(graph: Any, query: str, n: int) -> float:
    """Mean seconds of one ``GRAPH.QUERY`` round trip of ``query`` (on a falkordb ``Graph``)
    over ``n`` calls."""
    send, name = graph.execute_command, graph.name
    t0 = time.perf_counter()
    for _ in range(n):
        send("GRAPH.QUERY", name, query, "--compact")
    return (time.perf_counter() - t0) / n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--round-trips", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="watched-") as tmp:
        server = EmbeddedServer(Path(tmp) / "db", persistent=False)
        server.start()
        try:
            watched = server.connect().select_graph("g")
            plain = FalkorDB(unix_socket_path=str(server.socket_path)).select_graph("g")
            watched.query("RETURN 1")
            plain.query("RETURN 1")
            results: dict[str, list[float]] = {}
            cases = (
                ("RETURN 1", "RETURN 1", args.round_trips),
                ("1,000 rows", ROWS_QUERY, args.round_trips // 10),
            )
            for beside in ("", " + busy thread"):
                busy = _BusyThread() if beside else None
                try:
                    for _ in range(args.rounds):
                        for label, graph in (("watched", watched), ("plain", plain)):
                            for what, query, n in cases:
                                n = n if busy is None else max(n // 40, 50)
                                results.setdefault(f"{label} {what}{beside}", []).append(
                                    per_call(graph, query, n)
                                )
                finally:
                    if busy is not None:
                        busy.stop()
        finally:
            server.stop(compact=False)
    for key, values in results.items():
        print(f"{key:36} {min(values) * 1e6:9.1f} µs a round trip (best of {args.rounds})")
    for beside in ("", " + busy thread"):
        for what, _, _ in cases:
            diff = min(results[f"watched {what}{beside}"]) - min(results[f"plain {what}{beside}"])
            print(f"watch cost, {what}{beside}: {diff * 1e6:+.1f} µs a reply")
    return 0


class _BusyThread:
    """A thread of pure Python work, as the loading thread is while statements are read."""

    def __init__(self) -> None:
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._work, daemon=True)
        self._thread.start()

    def _work(self) -> None:
        while not self._stopped.is_set():
            sum(i * i for i in range(1000))

    def stop(self) -> None:
        self._stopped.set()
        self._thread.join()


if __name__ == "__main__":
    raise SystemExit(main())

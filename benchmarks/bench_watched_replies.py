"""What awaiting each reply under the wedge watch costs: round trips on the embedded server
through the store's watched connection against the FalkorDB client's own, in the same run.

``store/falkordb/wedge_watch.py`` waits for each reply with a readiness poll before reading it
(so that a server that stopped working is noticed); the client's own connection just reads.
Both send the same statements to one server, alternated in rounds:

    python benchmarks/bench_watched_replies.py [--round-trips 20000] [--rounds 3]

It prints the mean time of a round trip of ``RETURN 1`` and of a 1,000-row read for each, and
the difference per reply.
"""

from __future__ import annotations

import argparse
import tempfile
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
            for _ in range(args.rounds):
                for label, graph in (("watched", watched), ("plain", plain)):
                    for what, query, n in (
                        ("RETURN 1", "RETURN 1", args.round_trips),
                        ("1,000 rows", ROWS_QUERY, args.round_trips // 10),
                    ):
                        results.setdefault(f"{label} {what}", []).append(per_call(graph, query, n))
        finally:
            server.stop(compact=False)
    for key, values in results.items():
        print(f"{key:22} {min(values) * 1e6:8.1f} µs a round trip (best of {args.rounds})")
    for what in ("RETURN 1", "1,000 rows"):
        diff = min(results[f"watched {what}"]) - min(results[f"plain {what}"])
        print(f"watch cost, {what}: {diff * 1e6:+.1f} µs a reply")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

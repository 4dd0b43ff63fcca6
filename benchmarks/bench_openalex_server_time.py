"""Where the embedded server's time goes in an incremental ``load openalex`` into a graph that
holds data: each statement of ``bench_openalex.py``'s update phase with the time FalkorDB says
it spent executing it (``bench_openalex_statements.py`` measures the other side: how long the
loader waits for each statement, loading into an empty graph).

    python benchmarks/bench_openalex_server_time.py --works 200000 --update-new 20000 \\
        --update-changed 2000 --snapshot-dir /tmp/openalex-snapshots

The base graph is bulk-built from ``--works`` works (in a child process, as
``bench_openalex.py`` does), then the update is loaded in this process with every
``GRAPH.QUERY`` reply's statistics read: FalkorDB reports its "Query internal execution
time" in each reply. The statements are grouped by the named query they come from (their
text ends as its file does) or, for the statements the store builds (node and relationship
batches), by the end of their text. The table lists the server's execution time, the calls,
the statement text sent (parameters included) and the share of the total.

Why the connection is wrapped, not ``QueryResult.run_time_ms`` read: the store reads most
write replies raw in its sender thread (``FalkorDBStore.writes_ahead``), and every
statement of both paths goes through redis-py's connection. The server's own CPU (``/proc``)
is printed too: execution time leaves out parsing the statement's parameter header and
writing the AOF, which the CPU includes.
"""

from __future__ import annotations

import argparse
import queue
import re
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_openalex as base_bench  # the sibling script's phases


def _statement_names() -> dict[str, str]:
    """The last 200 characters of each named query's FalkorDB text → its name."""
    from scholarkg.queries import _files

    names: dict[str, str] = {}
    for fname, text in _files().items():
        if fname.endswith(".neo4j.cypher"):
            continue
        name = fname.removesuffix(".cypher").removesuffix(".falkordb")
        names[text.strip()[-200:]] = name
    return names


class StatementTimes:
    """Per statement kind: calls, server milliseconds, bytes of statement text."""

    def __init__(self) -> None:
        self.by_kind: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0])
        self._names = _statement_names()
        self._kinds: dict[str, str] = {}
        self._lock = threading.Lock()

    def kind(self, text: str) -> str:
        tail = text[-200:]
        found = self._kinds.get(tail)
        if found is None:
            found = self._names.get(tail) or "… " + re.sub(r"\s+", " ", text[-110:])
            self._kinds[tail] = found
        return found

    def add(self, kind: str, millis: float, size: int) -> None:
        with self._lock:
            entry = self.by_kind[kind]
            entry[0] += 1
            entry[1] += millis
            entry[2] += size

    def install(self) -> None:
        """Wrap redis-py's connection: a ``GRAPH.QUERY`` sent is remembered on its
        connection, and its reply's execution time is added when the reply is read."""
        import redis.connection as rc

        send, read = rc.AbstractConnection.send_command, rc.AbstractConnection.read_response
        times = self

        def send_command(conn: Any, *args: Any, **kwargs: Any) -> Any:
            conn._bench_statement = (
                (times.kind(args[2]), len(args[2])) if args and args[0] == "GRAPH.QUERY" else None
            )
            return send(conn, *args, **kwargs)

        def read_response(conn: Any, *args: Any, **kwargs: Any) -> Any:
            reply = read(conn, *args, **kwargs)
            sent = getattr(conn, "_bench_statement", None)
            if sent is not None and isinstance(reply, list) and reply:
                times.add(sent[0], _execution_millis(reply[-1]), sent[1])
            return reply

        rc.AbstractConnection.send_command = send_command  # type: ignore[method-assign]
        rc.AbstractConnection.read_response = read_response  # type: ignore[method-assign]


def _execution_millis(stats: Any) -> float:
    """'Query internal execution time: 1.2 milliseconds' from a reply's statistics."""
    if not isinstance(stats, list):
        return 0.0
    for line in stats:
        text = line.decode() if isinstance(line, bytes) else str(line)
        if "execution time" in text:
            return float(text.split(":", 1)[1].split()[0])
    return 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, default=200_000, help="works in the bulk-built base")
    ap.add_argument("--update-new", type=int, default=20_000)
    ap.add_argument("--update-changed", type=int, default=2_000)
    ap.add_argument("--update-merged", type=int, default=0)
    ap.add_argument("--snapshot-dir", type=Path, default=None, help="reuse generated snapshots")
    ap.add_argument("--top", type=int, default=20, help="statement kinds listed")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-statements-"))
    home = tmp / "home"
    root = args.snapshot_dir or tmp
    snap = root / f"snap-{args.works}"
    if not (snap / "done").exists():
        base_bench.generate(snap, args.works)
        (snap / "done").touch()
    upd = root / (f"upd-{args.works}-{args.update_new}-{args.update_changed}-{args.update_merged}")
    if not (upd / "done").exists():
        base_bench.generate_update(
            upd, args.works, new=args.update_new, updated=args.update_changed,
            merged=args.update_merged,
        )  # fmt: skip
        (upd / "done").touch()
    try:
        base_bench._fresh("embedded", home)
        built = base_bench._run(base_bench._bulk, str(snap), "embedded", keep=True)
        times = StatementTimes()
        times.install()
        out: queue.Queue[dict[str, Any]] = queue.Queue()
        base_bench._incremental(str(upd), "embedded", out, None, False)
        res = out.get()
    finally:
        base_bench.cleanup(tmp, home)
    n = args.update_new + args.update_changed
    total = sum(v[1] for v in times.by_kind.values())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"update (embedded): {n:,} works into {args.works:,} bulk-built "
          f"({built['wall_seconds']:.0f} s), {when}")  # fmt: skip
    print(f"  {res['wall_seconds']:.1f} s = {n / res['wall_seconds']:,.0f} works/s; "
          f"{res.get('server_cpu_seconds', float('nan'))} CPU-s of the server, of which "
          f"{total / 1000:.1f} s executing {sum(int(v[0]) for v in times.by_kind.values())} "
          "statements")  # fmt: skip
    print(f"  {'server s':>9} {'share':>6} {'calls':>6} {'text MB':>8}  statement")
    ranked = sorted(times.by_kind.items(), key=lambda kv: -kv[1][1])
    for kind, (calls, millis, size) in ranked[: args.top]:
        print(f"  {millis / 1000:9.2f} {millis / total:6.1%} {int(calls):6d} "
              f"{size / 1e6:8.1f}  {kind}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

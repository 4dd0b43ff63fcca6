"""Where the server's time goes in an incremental ``load openalex`` into a graph that holds
data: each statement of ``bench_openalex.py``'s update phase with the time the server says it
spent executing it (``bench_openalex_statements.py`` measures the other side: how long the
loader waits for each statement, loading into an empty graph).

    python benchmarks/bench_openalex_server_time.py --works 200000 --update-new 20000 \\
        --update-changed 2000 --snapshot-dir /tmp/openalex-snapshots

The base graph is bulk-built from ``--works`` works (in a child process, as
``bench_openalex.py`` does), then the update is loaded in this process with every
``GRAPH.QUERY`` reply's statistics read: FalkorDB reports its "Query internal execution
time" in each reply. The statements are grouped by the named query they come from (their
text ends as its file does) or, for the statements the store builds (node and relationship
batches), by the end of their text. The table lists the server's execution time, the calls,
the statement text sent (parameters included) and the share of the total, each marked
``r`` (it only reads) or ``w`` (a write clause among its words). The last line adds each
side up and says how many works a second the writes alone would allow: the floor no change
to the loader's reads can go under, since FalkorDB executes a graph's writes one at a time.

Why the connection is wrapped, not ``QueryResult.run_time_ms`` read: the store reads most
write replies raw in its sender thread (``FalkorDBStore.writes_ahead``), and every
statement of both paths goes through redis-py's connection. The server's own CPU (``/proc``)
is printed too: execution time leaves out parsing the statement's parameter header and
writing the AOF, which the CPU includes.

``--backend neo4j --home <managed Neo4j home>`` does the same on the managed Neo4j (its
offline importer builds the base): every statement goes through the driver's
``execute_query``, whose summary carries the server's ``result_available_after`` and
``result_consumed_after``; their sum is the "server" column. It leaves out the commit (the
transaction's changes applied to the store and its indexes), so the table adds each call's
wall time as the loader saw it: the commit, the Bolt round trips and the driver's encoding
and decoding are the difference.

``--falkordb-config NAME=VALUE`` (embedded, repeatable) changes a FalkorDB setting that the
server takes at run time (``GRAPH.CONFIG SET``, e.g. ``EFFECTS_THRESHOLD=0``; one it takes
only at load time, such as ``OMP_THREAD_COUNT``, is refused) after the base is built and
before the update, so one setting's cost is measured on the same update as the default's.
``DELTA_MAX_PENDING_CHANGES`` is refused: since round 44 a load sets it itself for its
duration (``store/falkordb/pending_changes.py``); the code before that is measured with its
``scholarkg/`` first on ``PYTHONPATH``.
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

from scholarkg.store.cypher_text import writes


def _statement_names(backend: str = "embedded") -> dict[str, tuple[str, str]]:
    """The last 200 characters of each named query's text for ``backend`` → its name and
    its whole text."""
    from scholarkg.queries import _files

    other = ".neo4j.cypher" if backend == "embedded" else ".falkordb.cypher"
    names: dict[str, tuple[str, str]] = {}
    for fname, text in _files().items():
        if fname.endswith(other):
            continue
        name = fname.removesuffix(".cypher").removesuffix(".falkordb").removesuffix(".neo4j")
        names[text.strip()[-200:]] = (name, text)
    return names


class StatementTimes:
    """Per statement kind: calls, server milliseconds, bytes of statement text."""

    def __init__(self, backend: str = "embedded") -> None:
        self.by_kind: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0])
        #: Neo4j only: per kind, the calls' wall time in the loader (commit included)
        self.wall: dict[str, float] = defaultdict(float)
        self._names = _statement_names(backend)
        #: set when the load is over (the graph's fingerprint read after it is not counted)
        self.stopped = False
        self._kinds: dict[str, str] = {}
        #: the kinds that write (``cypher_text.writes``); the others only read
        self.writing: set[str] = set()
        self._lock = threading.Lock()

    def kind(self, text: str) -> str:
        tail = text[-200:]
        found = self._kinds.get(tail)
        if found is None:
            named = self._names.get(tail)
            # a statement the store builds is short and starts at its first `UNWIND $`: its
            # last 600 characters hold it, after the end of the parameter header (whose
            # strings may hold any word)
            body = named[1] if named else text[-600:][max(text[-600:].find("UNWIND $"), 0) :]
            # a short statement's last 110 characters would hold some of its ids: cut from
            # its body (one kind for the existence reads of every batch)
            found = named[0] if named else "… " + re.sub(r"\s+", " ", body[-110:])
            merged = re.search(r"MERGE \(\w+:(\w+) \{", text[-600:])
            if found.startswith("…") and merged:  # node batches of each label apart
                found = f"[{merged.group(1)}] {found}"
            if writes(body):
                self.writing.add(found)
            self._kinds[tail] = found
        return found

    def add(self, kind: str, millis: float, size: int, wall: float = 0.0) -> None:
        if self.stopped:
            return
        with self._lock:
            entry = self.by_kind[kind]
            entry[0] += 1
            entry[1] += millis
            entry[2] += size
            self.wall[kind] += wall

    def install_neo4j(self) -> None:
        """Wrap the driver's ``execute_query`` (every statement of the loader, managed
        transactions, some in its write-ahead thread): the summary's server times, the
        call's wall time. The text column stays 0: the parameters go out as PackStream."""
        import neo4j

        execute = neo4j.Driver.execute_query
        times = self

        def execute_query(driver: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            result = execute(driver, query, *args, **kwargs)
            wall = (time.perf_counter() - t0) * 1000
            summary = getattr(result, "summary", None)
            server = 0.0
            if summary is not None:
                server = float(summary.result_available_after or 0) + float(
                    summary.result_consumed_after or 0
                )
            times.add(times.kind(str(query)), server, 0, wall)
            return result

        neo4j.Driver.execute_query = execute_query  # type: ignore[method-assign]

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


def _by_thread_name(
    before: dict[str, tuple[str, int]], after: dict[str, tuple[str, int]]
) -> dict[str, float]:
    """CPU seconds between two ``bench_openalex._neo4j_thread_ticks`` readings, by thread name
    with its trailing number dropped, so a pool's threads add up ("GC Thread#0" and "GC
    Thread#1" are "GC Thread"); finer than ``bench_openalex.py``'s kinds."""
    import os

    kinds: dict[str, float] = defaultdict(float)
    for tid, (name, ticks) in after.items():
        kind = re.sub(r"[#-]?\d+$", "", name).strip() or name
        kinds[kind] += (ticks - before.get(tid, (name, 0))[1]) / os.sysconf("SC_CLK_TCK")
    return kinds


def _set_falkordb_config(name: str, value: str) -> None:
    """``GRAPH.CONFIG SET name value`` through the store (the embedded server the base phase
    left running); read back, so a setting the server refuses or rewrites is not reported
    as measured."""
    from scholarkg.config import load_settings
    from scholarkg.store import open_store
    from scholarkg.store.falkordb.store import FalkorDBStore

    store = open_store(load_settings())
    try:
        if not isinstance(store, FalkorDBStore):
            raise SystemExit("--falkordb-config: the update's store is not the embedded one")
        store._command("GRAPH.CONFIG", "SET", name, value)
        now = store._command("GRAPH.CONFIG", "GET", name)
    finally:
        store.close()
    if str(now[1]) != value:
        raise SystemExit(f"FalkorDB took {name}={value} as {now[1]!r}")


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
    base_bench.add_slice_options(ap)
    ap.add_argument("--snapshot-dir", type=Path, default=None, help="reuse generated snapshots")
    ap.add_argument("--top", type=int, default=20, help="statement kinds listed")
    ap.add_argument("--backend", choices=("embedded", "neo4j"), default="embedded")
    ap.add_argument("--home", type=Path, default=None, help="the managed Neo4j's home (neo4j)")
    ap.add_argument(
        "--falkordb-config", action="append", default=[], metavar="NAME=VALUE",
        help="a FalkorDB run-time setting (GRAPH.CONFIG SET) before the update (embedded)",
    )  # fmt: skip
    args = ap.parse_args(argv)
    settings = [item.partition("=") for item in args.falkordb_config]
    if any(name == "DELTA_MAX_PENDING_CHANGES" for name, _, _ in settings):
        ap.error(
            "--falkordb-config: a load sets DELTA_MAX_PENDING_CHANGES itself for its duration "
            "(store/falkordb/pending_changes.py), so a value set here would not be measured"
        )
    if any(not name or not value for name, _, value in settings):
        ap.error("--falkordb-config takes NAME=VALUE")
    if settings and args.backend != "embedded":
        ap.error("--falkordb-config is for the embedded store")
    if args.backend == "neo4j" and args.home is None:
        ap.error("--backend neo4j needs --home (a managed Neo4j's, started)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-statements-"))
    home = tmp / "home"
    root = args.snapshot_dir or tmp
    snap = base_bench.base_snapshot(root, args)
    upd = base_bench.update_snapshot(root, args)
    backend = args.backend
    if backend == "neo4j":
        home = args.home
    try:
        base_bench._fresh(backend, home)
        built = base_bench._run(base_bench._bulk, str(snap), backend, keep=True)
        for name, _, value in settings:
            _set_falkordb_config(name, value)
        times = StatementTimes(backend)
        times.install() if backend == "embedded" else times.install_neo4j()
        threads_before = base_bench._neo4j_thread_ticks(home) if backend == "neo4j" else {}
        threads: dict[str, float] = {}
        fingerprint = base_bench._fingerprint

        def load_over(store: Any, *a: Any, **kw: Any) -> str:
            """The load is over: the fingerprint's reads are not the load's."""
            times.stopped = True
            if backend == "neo4j":
                after = base_bench._neo4j_thread_ticks(home)
                threads.update(_by_thread_name(threads_before, after))
            return str(fingerprint(store, *a, **kw))

        base_bench._fingerprint = load_over
        out: queue.Queue[dict[str, Any]] = queue.Queue()
        # neo4j: keep the base (the phase clears the database otherwise), so the graph's
        # fingerprint is read too; the embedded phase reads none here
        base_bench._incremental(str(upd), backend, out, None, backend == "neo4j")
        res = out.get()
    finally:
        base_bench.cleanup(tmp, home if backend == "embedded" else None)
    n = args.update_new + args.update_changed
    total = sum(v[1] for v in times.by_kind.values())
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    changed = "".join(f", {name}={value}" for name, _, value in settings)
    print(f"update ({backend}): {n:,} works into {args.works:,} bulk-built "
          f"({built['wall_seconds']:.0f} s), {when}{changed}")  # fmt: skip
    print(f"  {res['wall_seconds']:.1f} s = {n / res['wall_seconds']:,.0f} works/s; "
          f"{res.get('server_cpu_seconds', float('nan'))} CPU-s of the server, of which "
          f"{total / 1000:.1f} s executing {sum(int(v[0]) for v in times.by_kind.values())} "
          "statements")  # fmt: skip
    last = "text MB" if backend == "embedded" else "wall s"
    print(f"  {'server s':>9} {'share':>6} {'calls':>6} {last:>8}  statement")
    ranked = sorted(times.by_kind.items(), key=lambda kv: -kv[1][1])
    for kind, (calls, millis, size) in ranked[: args.top]:
        extra = size / 1e6 if backend == "embedded" else times.wall[kind] / 1000
        mark = "w" if kind in times.writing else "r"
        print(f"  {millis / 1000:9.2f} {millis / total:6.1%} {int(calls):6d} "
              f"{extra:8.1f}  {mark} {kind}")  # fmt: skip
    # the floor reads cannot lower: the write statements alone, one after another (FalkorDB
    # runs a graph's writes on one thread; on Neo4j the commits come on top)
    split = {w: [0, 0.0] for w in (True, False)}
    for kind, (calls, millis, _) in times.by_kind.items():
        split[kind in times.writing][0] += int(calls)
        split[kind in times.writing][1] += millis
    (w_calls, w_ms), (r_calls, r_ms) = split[True], split[False]
    print(f"  reads (r) {r_ms / 1000:.1f} s in {r_calls} statements, writes (w) "
          f"{w_ms / 1000:.1f} s in {w_calls}: the writes alone allow "
          f"{n / (w_ms / 1000):,.0f} works/s at most"
          + (" (their commits not counted)" if backend == "neo4j" else ""))  # fmt: skip
    if backend == "neo4j":
        print(f"  wall of all calls: {sum(times.wall.values()) / 1000:.1f} s; "
              f"graph {res['fingerprint']}")  # fmt: skip
        print("  the server's CPU during the load by thread kind (CPU-s):")
        for kind, cpu in sorted(threads.items(), key=lambda kv: -kv[1])[:12]:
            if cpu >= 0.1:
                print(f"    {cpu:7.1f}  {kind}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

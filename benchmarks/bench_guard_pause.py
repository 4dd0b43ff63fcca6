"""How long the managed Neo4j answers no one while a row grows a list of gigabytes: the JVM's
young generation sized by G1 itself (``SCHOLARKG_NEO4J_MAX_YOUNG=0``, the server before) vs
bounded (the default, 64 MiB), in the same run, alternated, on one fresh server home each.

Each configuration starts the managed server, then runs the hostile suite's four list growers
(``tests/security/test_hostile_suite.py``, ``needs_guard``) with the suite's 1 s limit,
``--rounds`` times, while a second client sends ``RETURN 1`` every 20 ms; ``--hogs`` busy
processes share the cores meanwhile (the full suite's two xdist workers beside the server).
A quiet query (``noop``, held 2.5 s) in each round is the control: the delay a ping sees
when the server is not collecting. Per configuration it prints the worst ping delay while
each grower ran (until 1 s after it ended), how many were over 1 s and over 2 s, the
``RETURN 1`` right after each, the longest collector pause in the server's
``jvm-pauses.log``, and the longest thread dump (the server guard's look at a thread holds
every thread meanwhile).

    .venv/bin/python benchmarks/bench_guard_pause.py                    # 2 GiB heap, 2 hogs
    .venv/bin/python benchmarks/bench_guard_pause.py --reps 3 --rounds 3 --heap 1g
    .venv/bin/python benchmarks/bench_guard_pause.py --compare pre-touch

``--compare pre-touch`` alternates the heap paged in by the queries that grow into it
(``SCHOLARKG_NEO4J_PRE_TOUCH=0``) with the heap touched when the JVM starts (the default);
it also prints the longest wait for a safepoint: a thread paging in fresh heap inside the
JVM holds every other one there.

Needs Java 17 and the launcher (``make neo4j-launcher``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from scholarkg.store.neo4j.server import ManagedNeo4j, java_available

GROWERS = {
    "reduce-grow": "RETURN size(reduce(s = [], x IN range(1, 100000000) | s + x))",
    "reduce-concat": "RETURN size(reduce(s = [], x IN range(1, 30000000) | s + [x])) AS n",
    "listcomp-grow": "RETURN size([x IN range(1, 100000000) | [x, x, x]]) AS n",
    "range-var": "WITH range(1, 100000000) AS r RETURN size([x IN r | toString(x)]) AS n",
}
NOOP = "RETURN 1 AS x"
#: the two configurations each comparison alternates: a label and the environment it starts
#: the server with
CONFIGS = {
    "young": {
        "G1's own young sizing (before)": {"SCHOLARKG_NEO4J_MAX_YOUNG": "0"},
        "young generation <= 64 MiB (now)": {"SCHOLARKG_NEO4J_MAX_YOUNG": "64m"},
    },
    "pre-touch": {
        "heap paged in by the queries (before)": {"SCHOLARKG_NEO4J_PRE_TOUCH": "0"},
        "heap touched at start (now)": {"SCHOLARKG_NEO4J_PRE_TOUCH": "1"},
    },
}


def _pauses(log_text: str) -> list[float]:
    """Milliseconds of each stop-the-world pause in a ``-Xlog:gc`` log."""
    out = []
    for line in log_text.splitlines():
        m = re.search(r"Pause (Young|Full|Remark|Cleanup).* ([\d.]+)ms$", line)
        if m:
            out.append(float(m.group(2)))
    return out


#: what each safepoint figure reads from a ``-Xlog:safepoint`` line (its nanoseconds): how long
#: the last thread took to reach it (every other thread stands still meanwhile, and no
#: collection pause counts it), and how long a thread dump (the guard's look at a thread) held
#: every thread
SAFEPOINT_FIGURES = {
    "reaching": r"Reaching safepoint: (\d+) ns",
    "thread dump": r'Safepoint "ThreadDump".* Total: (\d+) ns',
}


def _safepoint_ms(log_text: str, figure: str) -> list[float]:
    """Milliseconds of one :data:`SAFEPOINT_FIGURES` figure, per safepoint that logged it."""
    pattern = re.compile(SAFEPOINT_FIGURES[figure])
    out = []
    for line in log_text.splitlines():
        m = pattern.search(line)
        if m:
            out.append(int(m.group(1)) / 1e6)
    return out


def run_config(
    label: str, config: dict[str, str], args: argparse.Namespace, root: Path
) -> dict[str, Any]:
    from neo4j import GraphDatabase, Query
    from neo4j.exceptions import Neo4jError, ServiceUnavailable

    stamp = time.monotonic_ns()
    home = root / f"neo4j-{stamp}"
    env = {**config, "SCHOLARKG_NEO4J_HEAP": args.heap}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    server = ManagedNeo4j(home, pagecache="256m")
    try:
        server.ensure_running()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.hogs)]
    auth = ("neo4j", server.password())
    main = GraphDatabase.driver(server.uri() or "", auth=auth)
    second = GraphDatabase.driver(server.uri() or "", auth=auth)
    pings: list[tuple[float, float]] = []
    stop = threading.Event()

    def pinger() -> None:
        with second.session() as s:
            while not stop.is_set():
                t = time.monotonic()
                s.run(NOOP).consume()
                pings.append((t, time.monotonic() - t))
                time.sleep(0.02)

    thread = threading.Thread(target=pinger, daemon=True)
    thread.start()
    rows: list[dict[str, Any]] = []
    try:
        for _ in range(args.rounds):
            for name, query in [("noop", NOOP), *GROWERS.items()]:
                t0 = time.monotonic()
                try:
                    with main.session() as s:
                        s.run(Query(query, timeout=1.0)).consume()
                except Neo4jError:
                    pass  # stopped by the guard: what is expected
                if name == "noop":
                    time.sleep(2.5)
                t1 = time.monotonic()
                closed = False
                try:
                    with main.session() as s:
                        s.run(NOOP).consume()
                except ServiceUnavailable:
                    # the server closed the stopped query's connection after handing it
                    # back: what Neo4jStore answers again on a new one; so does this
                    closed = True
                    with main.session() as s:
                        s.run(NOOP).consume()
                after = time.monotonic() - t1
                time.sleep(1.0)
                worst = max((d for t, d in pings if t0 - 0.1 <= t <= t1 + 1.0), default=0.0)
                rows.append({"q": name, "worst": worst, "after": after, "closed": closed})
    finally:
        stop.set()
        thread.join(timeout=30)
        main.close()
        second.close()
        for h in hogs:
            h.kill()
            h.wait()
        server.stop()
    grow = [r for r in rows if r["q"] != "noop"]
    # the server's own log of its collections and safepoints (a fresh home: this run's only,
    # the earlier file first if the run filled one)
    log_text = "".join(
        f.read_text(errors="replace")
        for f in (server.earlier_pause_log_file, server.pause_log_file)
        if f.exists()
    )
    pauses = _pauses(log_text)
    reaching = _safepoint_ms(log_text, "reaching")
    dumps = _safepoint_ms(log_text, "thread dump")
    return {
        "config": label,
        "growers": len(grow),
        "worst ping s": round(max(r["worst"] for r in grow), 2),
        "pings > 1 s": sum(r["worst"] > 1 for r in grow),
        "pings > 2 s": sum(r["worst"] > 2 for r in grow),
        "RETURN 1 after, worst s": round(max(r["after"] for r in grow), 2),
        "connections closed": sum(r["closed"] for r in grow),
        "control worst ping s": round(max(r["worst"] for r in rows if r["q"] == "noop"), 2),
        "longest pause ms": round(max(pauses, default=0.0)),
        "pauses > 500 ms": sum(p > 500 for p in pauses),
        "longest wait to reach a safepoint ms": round(max(reaching, default=0.0)),
        "longest thread dump ms": round(max(dumps, default=0.0)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2, help="alternations of the two configs")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the four growers each")
    ap.add_argument("--hogs", type=int, default=2, help="busy processes beside the server")
    ap.add_argument("--heap", default="2g")
    ap.add_argument(
        "--compare",
        choices=sorted(CONFIGS),
        default="young",
        help="the young generation bounded or not, or the heap touched at start or not",
    )
    args = ap.parse_args(argv)
    reason = java_available()
    if reason:
        print(f"managed Neo4j unavailable: {reason}")
        return 1
    print(
        f"heap {args.heap}, {args.hogs} busy processes, {args.rounds} rounds of 4 growers per "
        f"run, {args.reps} runs per configuration, alternated; load average "
        f"{os.getloadavg()[0]:.1f} at the start"
    )
    with tempfile.TemporaryDirectory(prefix="bench-guard-pause-") as tmp:
        for rep in range(args.reps):
            for label, config in CONFIGS[args.compare].items():
                out = run_config(label, config, args, Path(tmp))
                print(json.dumps({"run": rep + 1, **out}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

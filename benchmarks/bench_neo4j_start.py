"""How long the managed Neo4j takes to start, with its class-data archive and without.

    python benchmarks/bench_neo4j_start.py --rounds 3

Each round starts a managed Neo4j on a new temporary home twice, alternated: once mapping
the class-data archive ``make neo4j-launcher`` recorded (``store/neo4j/class_archive.py``),
once with ``SCHOLARKG_NEO4J_CLASS_ARCHIVE=0`` (the JVM loading, verifying and linking every
class of Neo4j, GDS and APOC itself, as every start did before). A start is timed from the
call to the first Bolt answer (``ManagedNeo4j.start``: the server's ready line, then the
versions query); the JVM's CPU seconds up to then are read from ``/proc``. The server is then
stopped (timed too) and its home removed. Without a usable archive the script records one
first, and says so.

    python benchmarks/bench_neo4j_start.py --rounds 3 --compare pre-touch

compares the same start with the heap touched when the JVM starts (``-XX:+AlwaysPreTouch``,
the default) against ``SCHOLARKG_NEO4J_PRE_TOUCH=0``: what the start pays so that no query
later pages the heap in while every other thread waits at a safepoint.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from scholarkg.store.neo4j import class_archive
from scholarkg.store.neo4j.server import (
    ManagedNeo4j,
    java_available,
    java_version_text,
    prepare_launcher,
)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime


#: what each comparison starts: a kind's name and the environment it starts with
KINDS = {
    "archive": {
        "archive": {"SCHOLARKG_NEO4J_CLASS_ARCHIVE": "1"},
        "no archive": {"SCHOLARKG_NEO4J_CLASS_ARCHIVE": "0"},
    },
    "pre-touch": {
        "pre-touch": {"SCHOLARKG_NEO4J_PRE_TOUCH": "1"},
        "no pre-touch": {"SCHOLARKG_NEO4J_PRE_TOUCH": "0"},
    },
}


def _one_start(env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds to the first answer, the JVM's CPU seconds then, seconds to stop."""
    os.environ.update(env)
    with tempfile.TemporaryDirectory(prefix="bench-neo4j-start-") as tmp:
        server = ManagedNeo4j(Path(tmp) / "neo4j", browser=False)
        t0 = time.perf_counter()
        st = server.start()
        wall = time.perf_counter() - t0
        assert st.pid is not None
        cpu = _cpu_seconds(st.pid)
        t1 = time.perf_counter()
        server.stop()
        return wall, cpu, time.perf_counter() - t1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="starts of each kind, alternated")
    ap.add_argument(
        "--compare",
        choices=sorted(KINDS),
        default="archive",
        help="the class-data archive against none, or the heap touched at start against not",
    )
    args = ap.parse_args(argv)
    if reason := java_available():
        print(f"managed Neo4j unavailable: {reason}", file=sys.stderr)
        return 1
    target = prepare_launcher(print)  # records the archive if there is none yet
    if not class_archive.usable(target, java_version_text() or ""):
        print("no usable class-data archive (SCHOLARKG_NEO4J_CLASS_ARCHIVE=0?)", file=sys.stderr)
        return 1
    size = class_archive.archive_path(target).stat().st_size
    print(f"class-data archive: {size / 2**20:,.0f} MB")
    kinds = KINDS[args.compare]
    first, second = kinds
    runs: dict[str, list[tuple[float, float, float]]] = {first: [], second: []}
    for i in range(args.rounds):
        for name in (first, second) if i % 2 == 0 else (second, first):
            wall, cpu, stop = _one_start(kinds[name])
            runs[name].append((wall, cpu, stop))
            print(
                f"round {i + 1}, {name}: ready in {wall:.1f} s, {cpu:.1f} CPU-s; stop {stop:.1f} s"
            )
    print()
    for name, got in runs.items():
        walls, cpus = [w for w, _, _ in got], [c for _, c, _ in got]
        print(
            f"{name:>10}: ready in {statistics.median(walls):.1f} s median "
            f"({min(walls):.1f}-{max(walls):.1f}), {statistics.median(cpus):.1f} CPU-s median"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

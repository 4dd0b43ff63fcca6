"""Fresh embedded servers, each sent its first graph write as soon as it answers: how many
never answer it?

A FalkorDB 4.16 server starts its cron thread, and with ``CMD_INFO`` on (FalkorDB's default)
the recurring task that streams finished queries, *before* the module initialises its
globals: the task takes and releases the globals' read-write lock while the main thread may
be re-initialising that very lock (``pthread_rwlock_init`` in ``Globals_Init``, at the end of
the module's load). When the two meet, the lock is left corrupt and the first thread to ask
for it as a writer waits for ever: ``Globals_AddGraph`` for the first graph a query creates,
or for the first graph decoded from the snapshot at a restart. The process then answers
nothing and uses no CPU time (issue #36's CI run; issue #37's wedged restart).

This starts ``--starts`` servers, ``--parallel`` at a time, on fresh data dirs, with
``--burners`` busy processes beside them (the race needs a loaded machine), sends each one
``CREATE``, and counts the servers that never answered it (the store's wedge watch kills them
after ``--wedge`` seconds), with FalkorDB's ``CMD_INFO`` as given:

    python benchmarks/bench_first_query_race.py --starts 600 --cmd-info yes
    python benchmarks/bench_first_query_race.py --starts 600 --cmd-info no
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from scholarkg.errors import ServerError, ServerWedged
from scholarkg.store.falkordb.server import EmbeddedServer


def one_start(root: Path, i: int, cmd_info: str, wedge: float) -> tuple[str, float, str]:
    """``(outcome, seconds, crash frames)`` of one fresh server and its first write: the
    outcome ``ok``, ``wedged`` (never answered the write) or ``crashed`` (died starting)."""
    server = EmbeddedServer(
        root / f"s{i}",
        memory=4 << 30,
        # "yes": FalkorDB's own default, the option not passed (naming it on at load
        # crashes the server, FalkorDB/FalkorDB#1682)
        module_args={"CMD_INFO": "no" if cmd_info == "no" else None},
        statement_wedge_timeout=wedge,
    )
    t0 = time.monotonic()
    try:
        server.start()
    except ServerError:
        log = server.log_file.read_text(errors="replace")
        frames = [line.strip() for line in log.splitlines() if "falkordb.so(" in line]
        return "crashed", time.monotonic() - t0, " | ".join(frames[:6])
    outcome = "ok"
    try:
        server.connect().select_graph("g").query("CREATE (:Paper {id: 'p1'})")
    except ServerWedged:
        outcome = "wedged"
    finally:
        server.stop(compact=False)
    return outcome, time.monotonic() - t0, ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--starts", type=int, default=300, help="servers to start (default 300)")
    ap.add_argument("--parallel", type=int, default=4, help="started at a time (default 4)")
    ap.add_argument("--burners", type=int, default=4, help="busy processes beside (default 4)")
    ap.add_argument("--cmd-info", choices=["yes", "no"], default="yes")
    ap.add_argument("--wedge", type=float, default=5.0, help="wedge watch seconds (default 5)")
    args = ap.parse_args()

    # ``yes`` into /dev/null: busy, and a system call per line, so the scheduler switches
    # often (the load the race was seen under; a pure Python loop did not show it)
    burners = [subprocess.Popen(["yes"], stdout=subprocess.DEVNULL) for _ in range(args.burners)]
    try:
        with tempfile.TemporaryDirectory(prefix="first-query-") as tmp:
            root = Path(tmp)
            t0 = time.monotonic()
            with ThreadPoolExecutor(args.parallel) as pool:
                results = list(
                    pool.map(
                        lambda i: one_start(root, i, args.cmd_info, args.wedge),
                        range(args.starts),
                    )
                )
            took = time.monotonic() - t0
    finally:
        for proc in burners:
            proc.kill()
    wedged = sum(1 for outcome, _, _ in results if outcome == "wedged")
    crashed = [frames for outcome, _, frames in results if outcome == "crashed"]
    ok = [s for outcome, s, _ in results if outcome == "ok"]
    print(
        f"CMD_INFO {args.cmd_info}: {args.starts} fresh servers ({args.parallel} at a time, "
        f"{args.burners} busy processes beside): {wedged} never answered their first write, "
        f"{len(crashed)} died starting; slowest start + write of the others "
        f"{max(ok, default=0.0):.2f} s; {took:.0f} s in all"
    )
    for frames in crashed[:3]:
        print(f"  a crash: {frames}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

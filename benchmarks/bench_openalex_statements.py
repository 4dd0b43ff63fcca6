"""Where the incremental ``load openalex`` waits: every statement it sends to the embedded
server, counted and timed per query text (a wrapper around ``FalkorDBStore._query``; a
write sent ahead, ``FalkorDBStore.writes_ahead``, is counted when sent and timed while its
reply is awaited),
for this code and, with ``--baseline-ref``, another commit's, on the same snapshot.

    python benchmarks/bench_openalex.py --skip-bulk --incremental-works 5000 \\
        --snapshot-dir /tmp/openalex-snapshots          # makes /tmp/openalex-snapshots/snap2-5000
    python benchmarks/bench_openalex_statements.py /tmp/openalex-snapshots/snap2-5000 \\
        --baseline-ref c5802ac

Prints, per code: wall and CPU seconds, the statements sent, the seconds spent waiting on
them, and the queries that waited longest; for a code that writes ahead, also how long the
loader ran between sending such a statement and reading its reply (the overlap) and how long
it then still waited.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_openalex import _extract_code, _fresh, cleanup


def _load(snapshot: str, out: Any, code: str | None = None) -> None:
    if code:  # another commit's scholarkg, before the editable install's finder
        sys.path.insert(0, code)
    from scholarkg.store.falkordb.store import FalkorDBStore

    counts: collections.Counter[str] = collections.Counter()
    waits: collections.defaultdict[str, float] = collections.defaultdict(float)
    real = FalkorDBStore._query
    settled = [0.0]  # seconds spent reading replies of statements written ahead
    #: statements written ahead: how many, the loader's time between sending one and reading
    #: its reply (what ran while the server executed it), and the time it then still waited
    ahead_stats = {"statements": 0, "overlapped_seconds": 0.0, "waited_seconds": 0.0}
    sent_at = [0.0]

    def query(self: Any, q: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        t, before = time.perf_counter(), settled[0]
        try:
            return real(self, q, params, *args, **kwargs)
        finally:
            key = " ".join(q.split())[:80]
            counts[key] += 1
            # its own wait: a reply of a statement written ahead read first is that one's
            waits[key] += time.perf_counter() - t - (settled[0] - before)

    # the store's one door to the server (since 02f55f3 it sends GRAPH.QUERY itself, so a
    # wrapper around the client's Graph.query no longer sees the load's statements)
    FalkorDBStore._query = query  # type: ignore[method-assign,assignment]  # counting wrapper
    if hasattr(FalkorDBStore, "_send_ahead"):  # writes sent ahead: counted when sent, and
        send_ahead, settle = FalkorDBStore._send_ahead, FalkorDBStore.settle  # timed while
        # their reply is awaited (the server ran them while the loader went on)

        def ahead(self: Any, q: str, params: Any, *, counted: bool) -> None:
            counts[" ".join(q.split())[:80]] += 1
            send_ahead(self, q, params, counted=counted)
            sent_at[0] = time.perf_counter()

        def settle_timed(self: Any) -> None:
            # one statement (before 2026-11-29's sender thread) or a queue of them
            unanswered = self._unanswered
            queued = [unanswered] if hasattr(unanswered, "query") else list(unanswered or ())
            if not queued:
                return
            t = time.perf_counter()
            try:
                settle(self)
            finally:
                spent = time.perf_counter() - t
                settled[0] += spent
                ahead_stats["statements"] += len(queued)
                ahead_stats["overlapped_seconds"] += t - sent_at[0]
                ahead_stats["waited_seconds"] += spent
                for item in queued:
                    waits[" ".join(item.query.split())[:80]] += spent / len(queued)

        FalkorDBStore._send_ahead = ahead  # type: ignore[method-assign,assignment]  # counting
        FalkorDBStore.settle = settle_timed  # type: ignore[method-assign]  # timing wrapper

    import scholarkg
    from scholarkg.config import load_settings
    from scholarkg.loaders import openalex
    from scholarkg.loaders.identity import IdentityResolver
    from scholarkg.loaders.steps import Step, run_steps
    from scholarkg.store import open_store

    cfg = load_settings()
    works, _ = openalex.snapshot_files([Path(snapshot)])
    store = open_store(cfg)
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        store.apply_schema()
        resolver = IdentityResolver(store, chunk=2_000)
        steps = [
            Step("w", f, "bench-statements",
                 lambda f=f: resolver.resolve(openalex.read_works(f)), family=False)
            for f in works
        ]  # fmt: skip
        run_steps(store, steps, settings=cfg, batch_size=2_000)
        resolver.finish()
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    finally:
        store.clear()
        store.close()
    top = sorted(waits.items(), key=lambda kv: -kv[1])[:15]
    out.put({
        "code": str(Path(scholarkg.__file__).parent), "wall_seconds": wall,
        "cpu_seconds": cpu, "statements": sum(counts.values()),
        "waiting_seconds": sum(waits.values()),
        "top": [(q, counts[q], w) for q, w in top], "ahead": ahead_stats,
    })  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("snapshot", type=Path, help="an OpenAlex snapshot folder (or part files)")
    ap.add_argument("--baseline-ref", default=None, help="also run this git ref's code")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-statements-"))
    try:
        codes: list[str | None] = [None]
        if args.baseline_ref:
            codes.append(_extract_code(args.baseline_ref, tmp / "baseline"))
        for code in codes:
            _fresh("embedded", tmp / "home")
            q: Any = mp.get_context("spawn").Queue()
            p = mp.get_context("spawn").Process(target=_load, args=(str(args.snapshot), q, code))
            p.start()
            res = q.get()
            p.join()
            print(f"{res['code']}: wall {res['wall_seconds']:.1f} s, "
                  f"CPU {res['cpu_seconds']:.1f} s, {res['statements']:,} statements, "
                  f"{res['waiting_seconds']:.1f} s waiting on them")  # fmt: skip
            if res["ahead"]["statements"]:
                a = res["ahead"]
                print(f"  written ahead: {int(a['statements']):,} statements; the loader ran "
                      f"{a['overlapped_seconds']:.1f} s while they executed, then waited "
                      f"{a['waited_seconds']:.1f} s for their replies")  # fmt: skip
            for text, n, w in res["top"]:
                print(f"  {w:6.2f} s {n:5d}  {text}")
        return 0
    finally:
        cleanup(tmp, tmp / "home")


if __name__ == "__main__":
    sys.exit(main())

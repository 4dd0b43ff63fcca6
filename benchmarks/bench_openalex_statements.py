"""Where the incremental ``load openalex`` waits: every statement it sends to the embedded
server, counted and timed per query text (a wrapper around ``FalkorDBStore._query``),
for this code and, with ``--baseline-ref``, another commit's, on the same snapshot.

    python benchmarks/bench_openalex.py --skip-bulk --incremental-works 5000 \\
        --snapshot-dir /tmp/openalex-snapshots          # makes /tmp/openalex-snapshots/snap-5000
    python benchmarks/bench_openalex_statements.py /tmp/openalex-snapshots/snap-5000 \\
        --baseline-ref c5802ac

Prints, per code: wall and CPU seconds, the statements sent, the seconds spent waiting on
them, and the queries that waited longest.
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
    waits: collections.Counter[str] = collections.Counter()
    real = FalkorDBStore._query

    def query(self: Any, q: str, params: Any = None, *args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return real(self, q, params, *args, **kwargs)
        finally:
            key = " ".join(q.split())[:80]
            counts[key] += 1
            waits[key] += time.perf_counter() - t

    # the store's one door to the server (since 02f55f3 it sends GRAPH.QUERY itself, so a
    # wrapper around the client's Graph.query no longer sees the load's statements)
    FalkorDBStore._query = query  # type: ignore[method-assign,assignment]  # counting wrapper

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
        "top": [(q, counts[q], w) for q, w in top],
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
            for text, n, w in res["top"]:
                print(f"  {w:6.2f} s {n:5d}  {text}")
        return 0
    finally:
        cleanup(tmp, tmp / "home")


if __name__ == "__main__":
    sys.exit(main())

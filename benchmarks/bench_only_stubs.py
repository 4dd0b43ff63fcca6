"""``load openalex --only-stubs``: a graph holding a slice of a snapshot (its first
``--slice`` works, so thousands of their references are stubs) has its stubs filled in from
the whole snapshot, through the real CLI on a throwaway embedded server. Prints the time of
the slice's load, of the scan alone (every record's ids read and looked up, nothing
written) and of the ``--only-stubs`` job (the scan plus the load of the chosen records), its
summary lines, and the stubs and works in the graph after.

    python benchmarks/bench_only_stubs.py --works 5000 --slice 300 \\
        --snapshot-dir /tmp/openalex-snapshots
"""

from __future__ import annotations

import argparse
import gzip
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_openalex import _fresh, cleanup, generate


def _cli(*args: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "scholarkg.cli", *args], capture_output=True, text=True,
        env=os.environ | {"SCHOLARKG_PROGRESS": "off", "COLUMNS": "200"}, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"scholarkg {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return time.perf_counter() - t0, done.stdout


def _scan(snapshot: Path) -> tuple[float, int]:
    """The scan ``--only-stubs`` starts with, alone (it writes nothing)."""
    from scholarkg.config import load_settings
    from scholarkg.loaders import openalex, stubs
    from scholarkg.store import open_store

    works, _ = openalex.snapshot_files([snapshot])
    store = open_store(load_settings())
    try:
        t0 = time.perf_counter()
        scan = stubs.scan_for_stubs(
            store, works, openalex.iter_work_objects, openalex.work_keys, batch_size=2_000
        )
        return time.perf_counter() - t0, scan.chosen
    finally:
        store.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--works", type=int, default=5_000, help="works in the snapshot")
    ap.add_argument("--slice", type=int, default=300, help="works loaded first")
    ap.add_argument("--snapshot-dir", type=Path, default=None, help="reuse snapshots here")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-only-stubs-"))
    try:
        where = (args.snapshot_dir or tmp) / f"snap2-{args.works}"
        snap = where if (where / "done").exists() else generate(where, args.works)
        (snap / "done").touch()
        first = sorted(snap.rglob("part_*.gz"))[0]
        part = tmp / "slice" / "part_000.gz"
        part.parent.mkdir(parents=True)
        with gzip.open(first, "rt") as src, gzip.open(part, "wt") as dst:
            for n, line in enumerate(src):
                if n == args.slice:
                    break
                dst.write(line)
        _fresh("embedded", tmp / "home")
        took, _ = _cli("load", "openalex", str(part))
        print(f"slice: {args.slice:,} works loaded in {took:.1f} s")
        took, chosen = _scan(snap)
        print(f"the scan alone: {args.works:,} records in {took:.1f} s "
              f"({args.works / took:,.0f} records/s), {chosen:,} chosen")  # fmt: skip
        took, out = _cli("load", "openalex", "--only-stubs", str(snap))
        print(f"--only-stubs over {args.works:,} records: {took:.1f} s")
        for line in out.splitlines():
            if "stub(s)" in line:
                print(f"  {line.strip()}")
        _, out = _cli(
            "cypher", "MATCH (p:Paper) RETURN count(p) AS papers, "
            "sum(CASE WHEN p:Stub THEN 1 ELSE 0 END) AS stubs",
        )  # fmt: skip
        print(out.strip())
        return 0
    finally:
        cleanup(tmp, tmp / "home")


if __name__ == "__main__":
    sys.exit(main())

"""A reader's per-work parse, this tree against the same function at ``--baseline-ref`` in the
same run: the bulk reader's (``--reader bulk``, the default: one snapshot part through
``openalex_bulk._read_file``, what each of ``load openalex --bulk``'s worker processes runs
per file) or the incremental path's (``--reader incremental``: the part's lines, 2,000 at a
time, through ``openalex._parse_block``, what ``load openalex``'s parse worker runs on each
block it is handed; the records it returns are compared field by field, and the time the
loading process then takes to unpickle them is printed too).

The part is the first of a snapshot ``bench_openalex.py`` generates (50,000 works a part;
reused from ``--snapshot-dir``). Each measurement is a fresh interpreter; the two trees
alternate, so a change in the machine's load hits both; the best of ``--rounds`` counts,
wall and CPU seconds (each interpreter calls it ``--calls`` times: a worker process reads
file after file). Both must give the same rows (a digest of everything ``_read_file``
returns is compared): the speed-up may change nothing.

    python benchmarks/bench_openalex_parse.py --baseline-ref 82a01cb \\
        --snapshot-dir /tmp/openalex-snapshots --works 200000
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_openalex import _extract_code, generate

# runs in the child: time _read_file ``calls`` times (a worker reads file after file: the later
# calls find the memory the earlier ones freed), print the best wall and CPU seconds and the
# digest of what it returned
_CHILD = """
import hashlib, json, sys, time
code = sys.argv[2]
if code:
    sys.path.insert(0, code)  # before the editable install's finder (a meta-path append)
from pathlib import Path
from scholarkg.loaders.openalex_bulk import _read_file
part = Path(sys.argv[1])
wall = cpu = float("inf")
for _ in range(int(sys.argv[3])):
    rows = None  # the last call's rows freed first, as a worker's next file finds them
    c, w = time.process_time(), time.perf_counter()
    rows = _read_file(part)
    wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
digest = hashlib.sha256()
for name in ("ws", "ref_counts", "refs", "author_counts"):
    digest.update(getattr(rows, name))
# Paper rows as canonical JSON, whichever form this tree returns them in (JSON lines before
# the workers built Arrow columns; an Arrow table since), a field left unset being no field
papers = (rows.papers.to_pylist() if hasattr(rows.papers, "to_pylist")
          else [json.loads(line) for line in rows.papers])
for row in papers:
    row = {k: v for k, v in row.items() if v is not None}
    digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
for row in rows.authors:
    digest.update(repr(row).encode())
digest.update(repr((rows.ids, rows.venues)).encode())
print(json.dumps({"wall": wall, "cpu": cpu, "works": len(rows.ids),
                  "digest": digest.hexdigest()[:16]}))
"""


# runs in the child: the incremental path's parse worker over the part's lines, blocks of
# 2,000 (its records and cleaning counts digested: class, every field in order, set fields)
_INCREMENTAL_CHILD = """
import gzip, hashlib, json, sys, time
code = sys.argv[2]
if code:
    sys.path.insert(0, code)
from scholarkg.loaders.openalex import _parse_block
part = sys.argv[1]
with gzip.open(part, "rb") as fh:
    lines = list(enumerate(fh, 1))
blocks = [lines[i:i + 2000] for i in range(0, len(lines), 2000)]
wall = cpu = float("inf")
for _ in range(int(sys.argv[3])):
    out = None
    c, w = time.process_time(), time.perf_counter()
    out = [_parse_block(part, block) for block in blocks]
    wall, cpu = min(wall, time.perf_counter() - w), min(cpu, time.process_time() - c)
digest = hashlib.sha256()
works = 0
for block in out:
    digest.update(repr((sorted(block.cleaned.items()), block.error)).encode())
    for line, (work, stated, authors_known) in block.works:
        works += 1
        recs = [work.paper, *work.authors, *work.authorships, work.venue]
        for r in recs:
            if r is not None:
                digest.update(repr((type(r).__name__, list(r.__dict__.items()),
                                    sorted(r.__pydantic_fields_set__))).encode())
        digest.update(repr((line, work.references, work.references_known, stated,
                            authors_known)).encode())
# what the loading process then spends unpickling the blocks (its executor's result thread),
# under the collector's pace of a load in each tree; the parsed records let go first
import pickle
pickled = [pickle.dumps(block, protocol=pickle.HIGHEST_PROTOCOL) for block in out]
out = None
from scholarkg.loaders.collection_pace import fewer_collections
unpickle = float("inf")
with fewer_collections():
    for _ in range(int(sys.argv[3])):
        w = time.perf_counter()
        for data in pickled:
            pickle.loads(data)
        unpickle = min(unpickle, time.perf_counter() - w)
print(json.dumps({"wall": wall, "cpu": cpu, "works": works, "unpickle": unpickle,
                  "pickled_bytes": sum(map(len, pickled)), "digest": digest.hexdigest()[:16]}))
"""


def child_result(child: str, *args: str) -> dict[str, float | str]:
    """Run ``child`` (Python source) in a fresh interpreter with ``args``; the JSON object
    its last line prints (the parse benchmarks' measurements)."""
    out = subprocess.run(
        [sys.executable, "-c", child, *args], check=True, capture_output=True, text=True
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def _measure(part: Path, code: str, calls: int, reader: str) -> dict[str, float | str]:
    child = _CHILD if reader == "bulk" else _INCREMENTAL_CHILD
    return child_result(child, str(part), code, str(calls))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-ref", required=True, help="git ref of the code to compare with")
    ap.add_argument("--works", type=int, default=200_000, help="works in the generated snapshot")
    ap.add_argument("--snapshot-dir", type=Path, default=None, help="reuse snapshots kept here")
    ap.add_argument("--rounds", type=int, default=3, help="fresh interpreters per tree")
    ap.add_argument("--calls", type=int, default=2, help="parses of the part per interpreter")
    ap.add_argument(
        "--reader",
        choices=("bulk", "incremental"),
        default="bulk",
        help="the bulk path's _read_file, or the incremental path's parse worker",
    )
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-openalex-parse-") as tmp:
        where = (args.snapshot_dir or Path(tmp)) / f"snap2-{args.works}"
        snap = where if (where / "done").exists() else generate(where, args.works)
        (snap / "done").touch()
        part = sorted(snap.rglob("part_*.gz"))[0]
        trees = {args.baseline_ref: _extract_code(args.baseline_ref, Path(tmp) / "baseline"),
                 "this tree": ""}  # fmt: skip
        runs: dict[str, list[dict[str, float | str]]] = {name: [] for name in trees}
        for round_no in range(1, args.rounds + 1):
            for name, code in trees.items():
                # a line per measurement (~10-40 s each), on a terminal or in a log alike
                print(f"  round {round_no}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
                runs[name].append(_measure(part, code, args.calls, args.reader))
        works = runs["this tree"][0]["works"]
        print(
            f"{part} ({works:,} works), {args.reader} reader, "
            f"best of {args.rounds} x {args.calls} calls:"
        )
        best = {}
        for name, results in runs.items():
            wall = min(float(r["wall"]) for r in results)
            cpu = min(float(r["cpu"]) for r in results)
            best[name] = cpu
            digests = {r["digest"] for r in results}
            per = cpu / float(works) * 1e6
            print(
                f"  {name:>12}: {wall:6.2f} s wall, {cpu:6.2f} s CPU ({per:.0f} µs a work), "
                f"digest {digests}"
            )
            if "unpickle" in results[0]:  # the incremental reader: what the loader unpickles
                unpickle = min(float(r["unpickle"]) for r in results)
                print(
                    f"  {'':>12}  unpickled by the loading process in {unpickle:.3f} s "
                    f"({unpickle / float(works) * 1e6:.1f} µs a work), "
                    f"{int(results[0]['pickled_bytes']):,} bytes pickled"
                )
        same = {r["digest"] for rs in runs.values() for r in rs}
        change = best["this tree"] / best[args.baseline_ref] - 1
        print(f"  CPU per work {change:+.1%}; output identical: {len(same) == 1}")
        return 0 if len(same) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())

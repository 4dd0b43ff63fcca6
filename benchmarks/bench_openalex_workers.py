"""The incremental load's parse workers: what ``load openalex`` runs in its worker processes
(``openalex._parse_block`` over blocks of ``BLOCK_LINES`` raw lines: JSON, the work's fields,
the validated Paper, Author, Authorship and Venue records, then the pickle the worker sends
back), this tree against ``--baseline-ref`` in the same run.

The lines are an update snapshot's that ``bench_openalex.py`` generates (``--works`` in the
graph, ``--update-new`` + ``--update-changed`` works in the update; reused from
``--snapshot-dir``). Each measurement is a fresh interpreter (a worker's own process); the two
trees alternate, so a change in the machine's load hits both; the best of ``--rounds`` counts.
Both must give the same records (a digest of every record's JSON, the fields each work
states and the cleaning counts): the speed-up may change nothing.

    python benchmarks/bench_openalex_workers.py --baseline-ref main \\
        --snapshot-dir /tmp/openalex-snapshots --works 200000
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_openalex import _extract_code, generate_update
from bench_openalex_parse import child_result

# runs in the child: parse every line of the update in blocks, as the workers do, and pickle
# each block's result as a worker sends it back; print the CPU seconds and the digest
_CHILD = """
import hashlib, json, pickle, sys, time
code = sys.argv[2]
if code:
    sys.path.insert(0, code)  # before the editable install's finder (a meta-path append)
from pathlib import Path
from scholarkg.loaders import openalex
files, _ = openalex.snapshot_files([Path(sys.argv[1])])
blocks = []
for f in files:
    with openalex.open_binary(f) as handle:
        lines = list(enumerate(handle, start=1))
    size = openalex.BLOCK_LINES
    blocks += [(str(f), lines[i : i + size]) for i in range(0, len(lines), size)]
c = time.process_time()
sent = [pickle.dumps(openalex._parse_block(f, block)) for f, block in blocks]
cpu = time.process_time() - c
digest = hashlib.sha256()
works = 0
for data in sent:
    block = pickle.loads(data)
    assert block.error is None, block.error
    digest.update(repr(sorted(block.cleaned.items())).encode())
    for number, (work, stated, authors_known) in block.works:
        works += 1
        recs = [work.paper, *work.authors, *work.authorships, work.venue]
        digest.update(repr((number, stated, authors_known, work.references,
                            work.references_known)).encode())
        for rec in recs:
            digest.update(b"-" if rec is None else rec.model_dump_json().encode())
print(json.dumps({"cpu": cpu, "works": works, "bytes": sum(map(len, sent)),
                  "digest": digest.hexdigest()[:16]}))
"""


def _measure(folder: Path, code: str) -> dict[str, float | str]:
    return child_result(_CHILD, str(folder), code)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline-ref", required=True, help="git ref of the code to compare with")
    ap.add_argument("--works", type=int, default=200_000, help="works in the bulk snapshot")
    ap.add_argument("--update-new", type=int, default=20_000)
    ap.add_argument("--update-changed", type=int, default=2_000)
    ap.add_argument("--snapshot-dir", type=Path, default=None, help="reuse snapshots kept here")
    ap.add_argument("--rounds", type=int, default=3, help="fresh interpreters per tree")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-openalex-workers-") as tmp:
        name = f"upd2-{args.works}-{args.update_new}-{args.update_changed}-0"
        where = (args.snapshot_dir or Path(tmp)) / name
        if not (where / "done").exists():
            generate_update(
                where, args.works, new=args.update_new, updated=args.update_changed, merged=0
            )
            (where / "done").touch()
        trees = {args.baseline_ref: _extract_code(args.baseline_ref, Path(tmp) / "baseline"),
                 "this tree": ""}  # fmt: skip
        runs: dict[str, list[dict[str, float | str]]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for tree, code in trees.items():
                runs[tree].append(_measure(where, code))
        works = int(runs["this tree"][0]["works"])
        print(f"{where} ({works:,} works), parse workers' blocks, best of {args.rounds}:")
        best = {}
        for tree, results in runs.items():
            cpu = min(float(r["cpu"]) for r in results)
            best[tree] = cpu
            sent = int(results[0]["bytes"])
            digests = {r["digest"] for r in results}
            print(
                f"  {tree:>12}: {cpu:6.2f} CPU-s ({cpu / works * 1e6:.0f} µs a work), "
                f"{sent / works:,.0f} bytes a work sent back, records digest {digests}"
            )
        same = {r["digest"] for rs in runs.values() for r in rs}
        change = best["this tree"] / best[args.baseline_ref] - 1
        print(f"  CPU per work {change:+.1%}; records identical: {len(same) == 1}")
        return 0 if len(same) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())

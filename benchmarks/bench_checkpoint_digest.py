"""The checkpoint digest's cost per work: ``loaders/checkpoint._digest_update`` (each record's
fields written by ``orjson``) against pydantic's ``model_dump_json`` per record (what it used
before, the obvious way), on the same groups in the same run.

Every group a resumable load writes goes through the digest (the flush points of
``--resume`` are ``[records done, sha256 of those records]``), so its cost is paid per work
of every load, on the loader's process, where the identity resolver also runs. The groups
are the first ``--works`` works of a snapshot ``bench_openalex.py`` generates, read by
``load openalex``'s reader (a Paper, its authors, venue, authorships and reference list).

    python benchmarks/bench_checkpoint_digest.py --works 5000 --rounds 9
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson
from bench_openalex import generate

from scholarkg.loaders import openalex
from scholarkg.loaders.checkpoint import _digest_update
from scholarkg.loaders.reference_lists import ReferenceList


def pydantic_digest(h: Any, records: Sequence[Any]) -> None:
    """The digest as it was: pydantic serialises each record."""
    for rec in records:
        h.update(type(rec).__name__.encode())
        if isinstance(rec, ReferenceList):
            h.update(orjson.dumps([rec.start, rec.ends, rec.values, rec.stubs, rec.slot]))
        else:
            h.update(rec.model_dump_json().encode())
        h.update(b"\x1e")


def read_groups(root: Path, works: int) -> list[list[Any]]:
    """The record lists of the snapshot's first ``works`` works (marks of stated lists left
    out: the loader's resolver consumes them before the checkpoint sees a group)."""
    files, _ = openalex.snapshot_files([root])
    groups: list[list[Any]] = []
    for path in files:
        for _, recs in openalex.read_works(path):
            groups.append([r for r in recs if not type(r).__name__.startswith("Stated")])
            if len(groups) >= works:
                return groups
    return groups


def best_of(
    fn: Callable[[Any, Sequence[Any]], None], groups: list[list[Any]], rounds: int
) -> float:
    """Best seconds over ``rounds`` passes of ``fn`` over every group."""
    best = float("inf")
    for _ in range(rounds):
        h = hashlib.sha256()
        t0 = time.perf_counter()
        for g in groups:
            fn(h, g)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, default=5_000)
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-digest-") as tmp:
        generate(Path(tmp), args.works)
        groups = read_groups(Path(tmp), args.works)
    records = sum(len(g) for g in groups)
    print(f"{len(groups):,} works, {records:,} records (reference lists as one each)")
    for name, fn in (
        ("pydantic model_dump_json", pydantic_digest),
        ("orjson of the fields", _digest_update),
    ):
        seconds = best_of(fn, groups, args.rounds)
        print(f"  {name:26s} {seconds * 1e6 / len(groups):6.1f} µs a work (best of {args.rounds})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

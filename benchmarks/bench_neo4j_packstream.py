"""What the Neo4j driver's message encoding costs the loading process, with and without
``neo4j-rust-ext`` (the driver's own Rust extension, declared with the ``neo4j`` extra):
the same statements' parameters packed, and the same result rows unpacked, both ways in one
process (the driver picks the extension when it is installed; its pure-Python packer and
unpacker stay in the module and are called here directly for the comparison).

    python benchmarks/bench_neo4j_packstream.py --groups 10000 --ends 20 --rows 50000

The shapes are an incremental ``load openalex``'s: a ``CITES`` group statement's
``$groups`` (``[start id, [end id, …]]`` per work, ``dialect.merge_grouped_relationships_query``)
and the ``{key, id}`` rows ``identity/lookup_papers`` returns (two strings a row, one
message each). Best of ``--rounds`` for each.
"""

from __future__ import annotations

import argparse
import io
import time
from collections.abc import Callable
from typing import Any


def _best(fn: Callable[[], Any], rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--groups", type=int, default=10_000, help="works in a CITES group batch")
    ap.add_argument("--ends", type=int, default=20, help="references a work")
    ap.add_argument("--rows", type=int, default=50_000, help="look-up rows unpacked")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)

    from neo4j._codec.packstream import v1

    if v1._rust_pack is None:
        print("neo4j-rust-ext is not installed: only the pure-Python codec can be measured")
        return 1
    groups = [
        [f"doi:10.5555/{w}", [f"doi:10.5555/{(w * 7919 + e) % 210_000}" for e in range(args.ends)]]
        for w in range(args.groups)
    ]
    params = {"groups": groups, "props": {"from_openalex": True}}
    hooks = v1.Packer._inject_hooks(None)

    def pack(rust: bool) -> bytes:
        buf = io.BytesIO()
        packer = v1.Packer(buf)
        (packer._pack if rust else packer._py_pack)(params, hooks)
        return buf.getvalue()

    assert pack(True) == pack(False), "the two packers disagree"
    packed = {rust: _best(lambda r=rust: pack(r), args.rounds) for rust in (True, False)}

    rows = []
    for i in range(args.rows):
        buf = io.BytesIO()
        v1.Packer(buf)._py_pack([f"openalex:W{i}", f"doi:10.5555/{i}"], hooks)
        rows.append(bytearray(buf.getvalue()))

    def unpack(rust: bool) -> list[Any]:
        out = []
        for data in rows:
            unpacker = v1.Unpacker(v1.UnpackableBuffer(data))
            out.append(unpacker.unpack() if rust else unpacker._unpack())
        return out

    assert unpack(True) == unpack(False), "the two unpackers disagree"
    unpacked = {rust: _best(lambda r=rust: unpack(r), args.rounds) for rust in (True, False)}

    refs = args.groups * args.ends
    print(f"pack a CITES group batch ({args.groups:,} works x {args.ends} references, "
          f"{len(pack(True)) / 1e6:.1f} MB):")  # fmt: skip
    for rust in (True, False):
        name = "neo4j-rust-ext" if rust else "pure Python"
        print(f"  {name:>15}: {packed[rust] * 1000:8.1f} ms = "
              f"{packed[rust] / refs * 1e6:.2f} µs a reference")  # fmt: skip
    print(f"unpack {args.rows:,} look-up rows (one record message each):")
    for rust in (True, False):
        name = "neo4j-rust-ext" if rust else "pure Python"
        print(f"  {name:>15}: {unpacked[rust] * 1000:8.1f} ms = "
              f"{unpacked[rust] / args.rows * 1e6:.2f} µs a row")  # fmt: skip
    print(f"speed-up: pack {packed[False] / packed[True]:.1f}x, "
          f"unpack {unpacked[False] / unpacked[True]:.1f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

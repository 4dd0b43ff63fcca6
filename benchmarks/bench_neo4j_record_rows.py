"""What a record costs the Neo4j driver: one read returning its rows as records against the
same rows as one record (``store/neo4j/store.py``, ``rows_in_one_record``).

    python benchmarks/bench_neo4j_record_rows.py --home <managed Neo4j home> --keys 40000

Needs a managed Neo4j holding OpenAlex Papers (``bench_openalex.py --backend neo4j`` leaves
one). The read is the identity look-up's OpenAlex-slot branch: ``--keys`` random W ids
(``W1`` … ``W<--max-w>``), each sought in the ``openalex_id`` index, ``(key, id)`` returned.
Per form, best of ``--repeat``: the call's wall time in the loader, the server's
(``result_available_after + result_consumed_after``) and the rows; both forms must return the
same pairs.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from pathlib import Path
from typing import Any

QUERY = (
    "// rows-in-one-record: key, id\n"
    "UNWIND $v AS v MATCH (p:Paper {openalex_id: v}) RETURN 'openalex:' + v AS key, p.id AS id"
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="the managed Neo4j's home")
    ap.add_argument("--keys", type=int, default=40_000)
    ap.add_argument("--max-w", type=int, default=230_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    os.environ["SCHOLARKG_HOME"] = str(args.home)
    os.environ["SCHOLARKG_BACKEND"] = "neo4j"
    from scholarkg.config import load_settings
    from scholarkg.store import open_store
    from scholarkg.store.neo4j.store import plain, rows_in_one_record

    store: Any = open_store(load_settings())
    rng = random.Random(7)
    keys = sorted({f"W{rng.randrange(1, args.max_w)}" for _ in range(args.keys)})
    one = rows_in_one_record(QUERY)
    assert one is not None
    wrapped = one[0]

    def as_records() -> list[tuple[str, str]]:
        res = store._execute(QUERY, {"v": keys})
        timing.append(res.summary)
        return [(plain(r["key"]), plain(r["id"])) for r in res.records]

    def as_one_record() -> list[tuple[str, str]]:
        res = store._execute(wrapped, {"v": keys})
        timing.append(res.summary)
        return [(plain(a), plain(b)) for a, b in res.records[0]["rows_in_one_record"]]

    results: dict[str, list[tuple[str, str]]] = {}
    print(f"{len(keys):,} keys; best of {args.repeat} (wall in the loader, server)")
    try:
        for name, form in (("a record a row", as_records), ("one record", as_one_record)):
            best = (float("inf"), 0.0)
            for _ in range(args.repeat):
                timing: list[Any] = []
                t0 = time.perf_counter()
                results[name] = form()
                wall = (time.perf_counter() - t0) * 1000
                s = timing[0]
                server = float(s.result_available_after or 0) + float(s.result_consumed_after or 0)
                best = min(best, (wall, server))
            print(f"  {name:<16} {best[0]:8.0f} ms wall {best[1]:8.0f} ms server "
                  f"{len(results[name]):8,} rows")  # fmt: skip
    finally:
        store.close()
    if sorted(results["a record a row"]) != sorted(results["one record"]):
        print("  the two forms returned different pairs")
        return 1
    print("  the same pairs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

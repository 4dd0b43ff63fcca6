"""``merge_nodes`` on nodes the graph already holds, on the embedded store: the plain
``MERGE … SET n += row.props`` (``cypher_common.merge_nodes_query``, what every node batch
sent before) against the write of changed properties only
(``falkordb/dialect.merge_changed_nodes_query``, what ``FalkorDBStore.merge_nodes`` sends),
alternated batch by batch on the same throwaway server.

    python benchmarks/bench_node_writes.py --authors 200000 --batch 4000 --rounds 12

An update's Authors and Venues are mostly stored already with the same values, and a reload
with ``--all`` rewrites every node: the rows here are existing Authors (an id, a name and an
OpenAlex id, as ``load openalex`` writes them), sent again unchanged, then once changed (the
check must not cost a write that changes something much more).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


def _rows(first: int, n: int, suffix: str = "") -> list[dict[str, Any]]:
    return [
        {"id": f"openalexauthor:A{i}", "name": f"Author {i}{suffix}", "openalex_id": f"A{i}"}
        for i in range(first, first + n)
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--authors", type=int, default=200_000, help="Authors in the graph")
    ap.add_argument("--batch", type=int, default=4_000, help="rows a statement")
    ap.add_argument("--rounds", type=int, default=12, help="batches of each kind, alternated")
    args = ap.parse_args()

    from scholarkg.store.cypher_common import merge_nodes_query, node_rows
    from scholarkg.store.falkordb.dialect import merge_changed_nodes_query
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    with tempfile.TemporaryDirectory(prefix="bench-node-writes-") as tmp:
        server = EmbeddedServer(Path(tmp) / "falkordb", persistent=False)
        server.start()
        try:
            store = FalkorDBStore(server.connect(), "bench_node_writes")
            store.apply_schema()  # the indexes a load writes into (Author: id, name, …)
            store.merge_nodes("Author", _rows(0, args.authors), batch_size=10_000)
            queries = {
                "plain SET": merge_nodes_query("Author"),
                "changed only": merge_changed_nodes_query("Author"),
            }
            for change, suffix in (("unchanged", ""), ("changed", " (revised)")):
                times: dict[str, list[float]] = {name: [] for name in queries}
                for r in range(args.rounds):
                    order = list(queries) if r % 2 == 0 else list(queries)[::-1]
                    for k, name in enumerate(order):
                        first = ((2 * r + k) * args.batch) % max(1, args.authors - args.batch)
                        rows = list(node_rows(_rows(first, args.batch, suffix), "Author"))
                        t0 = time.perf_counter()
                        store.run(queries[name], {"rows": rows})
                        times[name].append((time.perf_counter() - t0) / args.batch * 1e6)
                for name, per_row in times.items():
                    print(
                        f"{change:9s} rows, {name:12s}: median {statistics.median(per_row):5.1f}"
                        f" µs a row, best {min(per_row):5.1f} ({args.rounds} batches of "
                        f"{args.batch:,} into {args.authors:,} Authors)"
                    )
            store.clear()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

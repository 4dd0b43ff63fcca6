"""What it costs the embedded store to take the ``Stub`` label off a Paper
(``identity/unmark_stubs``, run for every work an update describes that the graph held as a
cited-only stub), against the obvious alternative of a marker property, by graph size and
share of stubs.

    python benchmarks/bench_label_changes.py --papers 60000,240000 --stubs 0.5,0.125

Each size gets a throwaway server with the load's schema (the Paper range and full-text
indexes) and that many Papers (a title and an abstract of synthetic words), a share of them
(``--stubs``) created as stubs by the loader's own ``identity/create_stub_papers``, each stub
also holding a ``marker`` property. Then, after a round that warms up (the first change after the
creations also settles their pending writes), alternated batch by batch on stubs in random
order (an update's cited works lie anywhere in the graph):

* ``REMOVE p:Stub``: ``identity/unmark_stubs``, what the writer runs;
* ``REMOVE p:Stub, no labels() read``: the same before its FalkorDB text read ``labels(p)``
  first (2026-12-01);
* ``SET p:Marked`` with and without a read of ``labels(p)`` first: adding a label, as the
  one-shot upgrade of an old graph does (``identity/mark_unlabelled_stubs``);
* ``REMOVE p.marker``: the same nodes' marker property removed instead;
* ``SET p.title_norm``: a changed plain property, for scale (FalkorDB re-indexes a node on any
  change to it, as for the two above).

``--isolated`` times each statement on a server and graph of its own: on a shared server a
``labels()`` read in one statement synchronises the node-label matrix for the next.
``--restart`` then restarts the server, which reloads the graph from disk, and measures again.

On the server as ``scholarkg db start`` runs it (persistent), taking the label off costs about
twice a property change, whatever the graph's size. On an in-memory server (``--in-memory``,
as the tests and the demo run it) it costs far more and grows with the graph. Where it is
dear, the time goes into re-indexing each node after its label change: its labels are read
first, and that read prunes the node-label matrix of the entry just removed (``perf`` on the
server: ``Graph_GetNodeLabels`` → GraphBLAS ``GB_wait``, linear in the matrix), once per node.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

_WORDS = [
    *("graph", "citation", "model", "data", "learning", "network", "paper", "method"),
    *("result", "analysis", "retrieval", "query", "ranking", "corpus", "embedding"),
    *("benchmark", "evaluation", "score", "dataset", "task", "metric"),
]


#: ``identity/unmark_stubs`` before its FalkorDB text read ``labels(p)`` first (that read
#: synchronises the node-label matrix before the removals; see the query's comment)
_UNMARK_UNSYNCHRONISED = (
    "UNWIND $ids AS v MATCH (p:Paper {id: v}) WHERE p:Stub OPTIONAL MATCH (p)-[o]->() "
    "WITH p, count(o) AS out REMOVE p:Stub RETURN p.id AS id, out = 0 AS bare"
)


def _props(rng: random.Random, i: int) -> dict[str, Any]:
    return {
        "title": " ".join(rng.choice(_WORDS) for _ in range(8)),
        "abstract": " ".join(rng.choice(_WORDS) for _ in range(120)),
        "title_norm": f"title {i}",
        "year": 2000 + i % 25,
    }


def _graph(store: Any, papers: int, stubs_share: float, rng: random.Random) -> list[str]:
    """``papers`` Papers, ``stubs_share`` of them stubs with a marker (spread over the
    graph); the stubs' ids."""
    every = max(1, round(1 / stubs_share))
    described = [
        {"id": f"openalex:W{i}", "props": _props(rng, i)} for i in range(papers) if i % every
    ]
    stubs = [
        {"id": f"openalex:W{i}", "props": {**_props(rng, i), "marker": True}}
        for i in range(0, papers, every)
    ]
    store.merge_nodes("Paper", described, batch_size=5_000)
    for k in range(0, len(stubs), 5_000):
        store.run_named("identity/create_stub_papers", {"rows": stubs[k : k + 5_000]})
    ids = [str(row["id"]) for row in stubs]
    rng.shuffle(ids)
    return ids


def _size(
    papers: int,
    stubs_share: float,
    batch: int,
    rounds: int,
    restart: bool,
    in_memory: bool,
    only: str | None = None,
) -> dict[str, list[float]]:
    """Per statement (prefixed ``after restart:`` for the second pass), µs a node; ``only``:
    that statement alone, on a server of its own."""
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    statements = {
        "REMOVE p:Stub": lambda st, ids: st.run_named("identity/unmark_stubs", {"ids": ids}),
        "REMOVE p:Stub, no labels() read": lambda st, ids: st.run(
            _UNMARK_UNSYNCHRONISED, {"ids": ids}
        ),
        "SET p:Marked": lambda st, ids: st.run(
            "UNWIND $ids AS v MATCH (p:Paper {id: v}) SET p:Marked", {"ids": ids}
        ),
        "SET p:Marked, labels() read first": lambda st, ids: st.run(
            "UNWIND $ids AS v MATCH (p:Paper {id: v}) WITH p, size(labels(p)) AS synchronised "
            "SET p:Marked",
            {"ids": ids},
        ),
        "REMOVE p.marker": lambda st, ids: st.run(
            "UNWIND $ids AS v MATCH (p:Paper {id: v}) REMOVE p.marker", {"ids": ids}
        ),
        "SET p.title_norm": lambda st, ids: st.run(
            "UNWIND $ids AS v MATCH (p:Paper {id: v}) SET p.title_norm = v", {"ids": ids}
        ),
    }
    assert set(statements) == set(STATEMENT_NAMES)
    if only is not None:
        statements = {only: statements[only]}
    rng = random.Random(7)
    times: dict[str, list[float]] = {}

    def measure(store: Any, ids: list[str], prefix: str) -> None:
        for r in range(rounds + 1):  # round 0 warms up: the creations' pending writes
            order = list(statements) if r % 2 == 0 else list(statements)[::-1]
            for name in order:
                part, ids[:] = ids[:batch], ids[batch:]
                t0 = time.perf_counter()
                statements[name](store, part)
                if r:
                    us = (time.perf_counter() - t0) / len(part) * 1e6
                    times.setdefault(prefix + name, []).append(us)

    with tempfile.TemporaryDirectory(prefix="bench-label-changes-") as tmp:
        # persistent by default, as `scholarkg db start` runs it (the AOF on); an in-memory
        # server (tests, demos) commits differently, and its label changes cost far more
        server = EmbeddedServer(Path(tmp) / "falkordb", persistent=not in_memory)
        server.start()
        try:
            store = FalkorDBStore(server.connect(), "bench_label_changes")
            store.apply_schema()
            ids = _graph(store, papers, stubs_share, rng)
            measure(store, ids, "")
            if restart:
                server.stop()
                server.start()
                store = FalkorDBStore(server.connect(), "bench_label_changes")
                measure(store, ids, "after restart: ")
            return times
        finally:
            server.stop()


#: the statements ``_size`` times, in its order
STATEMENT_NAMES = (
    "REMOVE p:Stub",
    "REMOVE p:Stub, no labels() read",
    "SET p:Marked",
    "SET p:Marked, labels() read first",
    "REMOVE p.marker",
    "SET p.title_norm",
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--papers", default="60000,240000", help="graph sizes, comma-separated")
    ap.add_argument("--batch", type=int, default=2_000, help="nodes a statement")
    ap.add_argument("--rounds", type=int, default=4, help="batches of each kind, alternated")
    ap.add_argument(
        "--stubs", default="0.5", help="shares of the Papers that are stubs, comma-separated"
    )
    ap.add_argument(
        "--in-memory",
        action="store_true",
        help="a server without persistence (as the tests and the demo run it)",
    )
    ap.add_argument(
        "--restart",
        action="store_true",
        help="then restart the server (it reloads the graph) and measure again",
    )
    ap.add_argument(
        "--isolated",
        action="store_true",
        help="each statement on a server and graph of its own (a labels() read in one "
        "statement synchronises the node-label matrix for the next on a shared server)",
    )
    args = ap.parse_args()
    sizes = [int(s) for s in args.papers.split(",") if s.strip()]
    shares = [float(s) for s in args.stubs.split(",") if s.strip()]
    kinds = 1 if args.isolated else len(STATEMENT_NAMES)
    need = kinds * args.batch * (args.rounds + 1) * (2 if args.restart else 1)
    for papers in sizes:
        for share in shares:
            if papers // max(1, round(1 / share)) < need:
                ap.error(f"{papers} Papers with {share} stubs: fewer than the {need} to change")
    head = f"{'Papers':>9} {'stubs':>8} {'statement':<34} {'median µs/node':>15}"
    print(f"{head} {'min':>7} {'max':>7}")
    for papers in sizes:
        for share in shares:
            stubs = papers // max(1, round(1 / share))
            params = (papers, share, args.batch, args.rounds, args.restart, args.in_memory)
            if args.isolated:
                times: dict[str, list[float]] = {}
                for only in STATEMENT_NAMES:
                    times.update(_size(*params, only=only))
            else:
                times = _size(*params)
            for name, values in times.items():
                med = statistics.median(values)
                print(
                    f"{papers:>9,} {stubs:>8,} {name:<34} {med:>15.1f}"
                    f" {min(values):>7.1f} {max(values):>7.1f}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

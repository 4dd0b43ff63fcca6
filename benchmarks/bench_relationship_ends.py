"""What it costs the embedded store to find a relationship's end node: sought by its id in the
index, as the writer's grouped ``CREATE`` does (``store/cypher_common.create_grouped_query``,
every reference of a work an update writes for the first time), against taking it by its
internal node id (FalkorDB's ``NodeByIdSeek``), with and without checking that the node found
carries the id it should.

    python benchmarks/bench_relationship_ends.py --papers 200000 --rounds 3

A throwaway server (persistent, as ``scholarkg db start`` runs it) with the load's schema and
``--papers`` Papers; then, per round and form (the forms alternated), ``--starts`` new Papers
each get ``--refs`` ``CITES`` to Papers drawn at random, in one statement. Printed: the
server's own execution time of that statement (its reply's statistics) and µs a relationship.

Why the check: FalkorDB gives a deleted node's internal id to the next node created, and an
update deletes nodes (a merge of two works) between the look-up that would have read the
ends' internal ids and the write, so a writer taking ends by internal id must check each
end's id and write the rows whose check fails again by id (not done: performance.md, round 43).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

#: the three forms, each ``UNWIND $groups AS g`` of ``[start id, [end, …]]``
FORMS = {
    # the writer's statement (create_grouped_query("CITES", "Paper", "Paper")), ends as ids
    "end by id (the writer's)": None,
    # ends as internal ids; the WITH makes each a plain variable, which FalkorDB seeks by id
    # (an expression inside id() = … is planned as a scan of every node)
    "end by internal id": (
        "UNWIND $groups AS g MATCH (a:Paper {id: g[0]}) WITH a, g[1] AS es "
        "UNWIND es AS n WITH a, n MATCH (b) WHERE id(b) = n "
        "CREATE (a)-[r:CITES]->(b) SET r += $props RETURN count(r) AS written"
    ),
    # ends as [internal id, id]: the node found must carry the id the row names
    "end by internal id, checked": (
        "UNWIND $groups AS g MATCH (a:Paper {id: g[0]}) WITH a, g[1] AS es "
        "UNWIND es AS e WITH a, e[0] AS n, e[1] AS k MATCH (b) WHERE id(b) = n "
        "WITH a, b, k WHERE b.id = k "
        "CREATE (a)-[r:CITES]->(b) SET r += $props RETURN count(r) AS written"
    ),
}


@contextlib.contextmanager
def throwaway_store(graph: str, prefix: str) -> Iterator[Any]:
    """A ``FalkorDBStore`` on graph ``graph`` of a server of its own (persistent, as ``scholarkg
    db start`` runs it, in a temporary folder named from ``prefix``) with the load's schema,
    stopped and removed afterwards (``bench_lookup_branches.py`` and
    ``bench_fulltext_writes.py`` use it too)."""
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        server = EmbeddedServer(Path(tmp) / "falkordb", persistent=True)
        server.start()
        try:
            store = FalkorDBStore(server.connect(), graph)
            store.apply_schema()
            yield store
        finally:
            server.stop()


def execution_ms(store: Any, query: str, params: dict[str, Any]) -> tuple[float, int]:
    """The server's execution time of ``query`` (ms) and its first column's first value (its
    ``written`` count), from its reply (``bench_pending_label_removals.py`` uses it too)."""
    reply = raw_reply(store, query, params)
    return reply_ms(reply), int(reply[1][0][0])


def raw_reply(store: Any, query: str, params: dict[str, Any]) -> Any:
    """``GRAPH.QUERY``'s reply to ``query`` as the server sends it: header, rows, statistics
    (``bench_lookup_branches.py`` reads its rows' last column)."""
    from scholarkg.store.falkordb.wire import params_header

    return store._command("GRAPH.QUERY", store.graph, params_header(params) + query)


def reply_ms(reply: Any) -> float:
    """The "Query internal execution time" (ms) of a :func:`raw_reply`."""
    stats = [s.decode() if isinstance(s, bytes) else str(s) for s in reply[-1]]
    return next(float(s.split(":")[1].split()[0]) for s in stats if "execution time" in s)


def run(papers: int, starts: int, refs: int, rounds: int) -> dict[str, list[float]]:
    """Per form, µs a relationship of each measured round."""
    from scholarkg.store.cypher_common import create_grouped_query

    rng = random.Random(11)
    by_id = create_grouped_query("CITES", "Paper", "Paper")
    times: dict[str, list[float]] = {}
    with throwaway_store("bench_relationship_ends", "bench-relationship-ends-") as store:
        rows = [
            {"id": f"openalex:W{i}", "props": {"openalex_id": f"W{i}", "year": 2000 + i % 25}}
            for i in range(papers)
        ]
        store.merge_nodes("Paper", rows, batch_size=10_000)
        found = store.run("MATCH (p:Paper) RETURN p.id AS id, id(p) AS node")
        ids = [str(r["id"]) for r in found]
        nodes = [int(r["node"]) for r in found]
        for r in range(rounds + 1):  # round 0 warms up (the creations' pending writes)
            order = list(FORMS) if r % 2 == 0 else list(FORMS)[::-1]
            for name in order:
                new = [f"bench:{r}:{name}:{i}" for i in range(starts)]
                store.run("UNWIND $ids AS x CREATE (:Paper {id: x})", {"ids": new})
                picks = [rng.sample(range(len(ids)), refs) for _ in new]
                if name == "end by id (the writer's)":
                    groups: list[Any] = [
                        [s, [ids[j] for j in p]] for s, p in zip(new, picks, strict=True)
                    ]
                elif name == "end by internal id":
                    groups = [[s, [nodes[j] for j in p]] for s, p in zip(new, picks, strict=True)]
                else:
                    groups = [
                        [s, [[nodes[j], ids[j]] for j in p]]
                        for s, p in zip(new, picks, strict=True)
                    ]
                query = FORMS[name] or by_id
                params = {"groups": groups, "props": {"from_openalex": True}}
                ms, written = execution_ms(store, query, params)
                if written != starts * refs:
                    raise SystemExit(f"{name}: wrote {written} of {starts * refs}")
                if r:
                    times.setdefault(name, []).append(ms * 1000 / written)
    return times


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=200_000, help="Papers in the graph")
    ap.add_argument("--starts", type=int, default=1_000, help="new Papers a statement")
    ap.add_argument("--refs", type=int, default=20, help="CITES of each new Paper")
    ap.add_argument("--rounds", type=int, default=3, help="measured rounds a form")
    args = ap.parse_args()
    times = run(args.papers, args.starts, args.refs, args.rounds)
    n = args.starts * args.refs
    print(f"{args.papers:,} Papers; {n:,} CITES a statement ({args.starts:,} new Papers x "
          f"{args.refs}); server execution time, {args.rounds} rounds")  # fmt: skip
    base = statistics.median(times["end by id (the writer's)"])
    for name in FORMS:
        us = times[name]
        med = statistics.median(us)
        print(f"  {name:30s} median {med:5.2f} µs a relationship ({med * n / 1000:6.1f} ms), "
              f"runs {min(us):.2f}-{max(us):.2f}; {med / base:.2f}x the writer's")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

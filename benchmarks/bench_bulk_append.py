"""What appending new works with ``GRAPH.BULK`` would save the embedded server, against the
statements the incremental load sends today, on a graph that already holds data.

    python benchmarks/bench_bulk_append.py --works 200000 --new 22000 --snapshot-dir DIR

A base graph is bulk-built (``load openalex --bulk``'s path) from ``bench_openalex.py``'s
generated snapshot (``--snapshot-dir`` reuses one), then ``--new`` new Papers, each citing
``--refs`` Papers of the base, are written two ways, each into a base built anew (a
throwaway persistent server, as ``scholarkg db start`` runs it):

* ``statements``: what the load's writer sends for them, through the store's own calls
  (``merge_nodes``, then ``merge_relationships`` with the new works as ``new_starts``: the
  grouped ``CREATE``);
* ``GRAPH.BULK append``: FalkorDB's bulk-insert command without ``BEGIN``, which adds to an
  existing graph (the new nodes are indexed like any other): the nodes, then their internal
  ids read back by key (FalkorDB gives a new node a deleted node's id first, so they cannot
  be predicted), then the relationships by internal ids. The base ends' internal ids are read
  too but not counted: identity resolution's look-up could return them with its rows.

Each prints its wall time and the server's CPU (``INFO cpu``), and both graphs are checked to
hold as many Papers and the same ``CITES`` pairs. Then, on the last base, what a
``GRAPH.COPY`` of the whole graph costs (a way back kept before an append), and what reading an id
map of the whole graph costs (every Paper's key and internal id, read as the store reads them
for ``edge_snapshot``: windows of internal ids joined into strings on the server): the price
of answering identity resolution's look-up in the loader instead of on the server.

Why it is a measurement, not a loader path: a ``GRAPH.BULK`` command that FalkorDB refuses
deletes the whole graph key (``cmd_bulk_insert.c``), and the saving is a small share of an
update's server time (docs/performance.md, issue 36's round 20).
"""

from __future__ import annotations

import argparse
import os
import random
import struct
import tempfile
import time
from pathlib import Path
from typing import Any

import bench_openalex  # the sibling script's snapshot generator


def _cpu(conn: Any, whose: str = "") -> float:
    """The server's CPU-s so far (``whose="_children"``: its forked children's)."""
    info = conn.info("cpu")
    return float(info[f"used_cpu_user{whose}"]) + float(info[f"used_cpu_sys{whose}"])


def _base(snapshot: Path, home: Path) -> tuple[Any, Any]:
    """A server on ``home`` and a store holding the snapshot, bulk-built."""
    from scholarkg.config import load_settings
    from scholarkg.loaders.openalex import snapshot_files
    from scholarkg.loaders.openalex_bulk import bulk_load_openalex
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    server = EmbeddedServer(home / "falkordb", persistent=True)
    server.start()
    store = FalkorDBStore(server.connect(), "bench_bulk_append")
    works, merged = snapshot_files([snapshot])
    bulk_load_openalex(store, works, merged, settings=load_settings())
    store.close()  # the update comes later, on a connection of its own, as a user's would
    return server, FalkorDBStore(server.connect(), "bench_bulk_append")


def _statements(store: Any, new: list[dict[str, Any]], refs: dict[str, list[str]]) -> None:
    store.merge_nodes("Paper", [{"id": r["id"], "props": r} for r in new], batch_size=2_000)
    rows = [{"start": s, "end": e, "props": {}} for s, ends in refs.items() for e in ends]
    store.merge_relationships("CITES", "Paper", "Paper", rows, new_starts=set(refs))
    store.settle()


def _internal_ids(store: Any, keys: list[str]) -> dict[str, int]:
    """The store's own read of ids → internal ids (what ``edge_snapshot`` reads for a subset)."""
    ids, internal = store._some_nodes("Paper", keys)
    return dict(zip(ids, internal.tolist(), strict=True))


def _bulk_append(
    store: Any, new: list[dict[str, Any]], refs: dict[str, list[str]]
) -> tuple[float, float]:
    """Appends by GRAPH.BULK; returns the (wall, server CPU) of reading the base ends' ids,
    which the caller leaves out of the figure."""
    from scholarkg.store.falkordb.bulk_values import _header, encode_value

    conn = store.db.connection
    props = sorted(new[0])
    for i in range(0, len(new), 10_000):
        part = new[i : i + 10_000]
        token = _header("Paper", props) + b"".join(
            b"".join(encode_value(r[k]) for k in props) for r in part
        )
        conn.execute_command("GRAPH.BULK", store.graph, len(part), 0, 1, 0, token)
    ids = _internal_ids(store, [r["id"] for r in new])
    t0, c0 = time.perf_counter(), _cpu(conn)
    ids.update(_internal_ids(store, sorted({e for ends in refs.values() for e in ends})))
    skipped = (time.perf_counter() - t0, _cpu(conn) - c0)
    pairs = [(ids[s], ids[e]) for s, ends in refs.items() for e in ends]
    pack = struct.Struct("=QQ").pack
    for i in range(0, len(pairs), 100_000):
        part = pairs[i : i + 100_000]
        token = _header("CITES", []) + b"".join(pack(a, b) for a, b in part)
        conn.execute_command("GRAPH.BULK", store.graph, 0, len(part), 0, 1, token)
    return skipped


def _written(store: Any, new_ids: list[str]) -> tuple[int, set[tuple[str, str]]]:
    """What both ways must leave: the number of Papers and the new works' ``CITES`` pairs."""
    papers = store.run("MATCH (p:Paper) RETURN count(p) AS n")[0]["n"]
    rows = store.run(
        "UNWIND $ids AS s MATCH (a:Paper {id: s})-[:CITES]->(b) RETURN a.id AS s, b.id AS e",
        {"ids": new_ids},
    )
    return int(papers), {(str(r["s"]), str(r["e"])) for r in rows}


def _id_map(store: Any) -> tuple[int, float, float]:
    """(Papers, wall, server CPU) of reading every Paper's key and internal id: the store's
    own windowed read (``edge_snapshot``'s, joined into strings on the server)."""
    conn = store.db.connection
    t0, c0 = time.perf_counter(), _cpu(conn)
    ids, _ = store._all_nodes("Paper")
    return len(ids), time.perf_counter() - t0, _cpu(conn) - c0


def _graph_copy(store: Any) -> tuple[float, float, float]:
    """(wall, server CPU, its forked children's CPU) of ``GRAPH.COPY`` of the whole graph,
    the copy deleted after: what keeping a way back before an append would cost (a refused
    ``GRAPH.BULK`` deletes the graph key; the copy could be renamed back)."""
    conn = store.db.connection
    t0, c0, k0 = time.perf_counter(), _cpu(conn), _cpu(conn, "_children")
    copy = f"{store.graph}-way-back"
    conn.execute_command("GRAPH.COPY", store.graph, copy)
    wall, cpu = time.perf_counter() - t0, _cpu(conn) - c0
    children = _cpu(conn, "_children") - k0
    conn.execute_command("GRAPH.DELETE", copy)
    return wall, cpu, children


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--works", type=int, default=200_000, help="works in the base graph")
    ap.add_argument("--new", type=int, default=22_000, help="new Papers to append")
    ap.add_argument("--refs", type=int, default=20, help="references a new Paper")
    ap.add_argument("--snapshot-dir", type=Path, help="keep and reuse generated snapshots here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-bulk-append-") as tmp:
        where = (args.snapshot_dir or Path(tmp)) / f"snap2-{args.works}"
        snapshot = (
            where if (where / "done").exists() else bench_openalex.generate(where, args.works)
        )
        (snapshot / "done").touch()
        os.environ["SCHOLARKG_HOME"] = str(Path(tmp) / "home")  # the bulk loader's scratch
        rng = random.Random(7)
        new = [
            {"id": f"openalex:W{900_000_000 + i}", "openalex_id": f"W{900_000_000 + i}",
             "title": f"a new work {i}", "year": 2026, "cited_by_count": i % 50}
            for i in range(args.new)
        ]  # fmt: skip
        results: dict[str, tuple[int, set[tuple[str, str]]]] = {}
        for n, (name, write) in enumerate(
            (("statements", _statements), ("GRAPH.BULK append", _bulk_append))
        ):
            print(f"bulk-building the {args.works:,}-work base for {name}…", flush=True)
            server, store = _base(snapshot / "data", Path(tmp) / f"run{n}")
            try:
                if n == 0:
                    base = [str(r["id"]) for r in store.run("MATCH (p:Paper) RETURN p.id AS id")]
                    refs = {r["id"]: rng.sample(base, args.refs) for r in new}
                conn = store.db.connection
                t0, c0 = time.perf_counter(), _cpu(conn)
                skipped = write(store, new, refs)
                wall, cpu = time.perf_counter() - t0, _cpu(conn) - c0
                if skipped:
                    wall, cpu = wall - skipped[0], cpu - skipped[1]
                results[name] = _written(store, list(refs))
                print(
                    f"{name:<18} {args.new:,} Papers, {len(results[name][1]):,} CITES into "
                    f"{args.works:,} works: {wall:.2f} s, {cpu:.2f} CPU-s of the server",
                    flush=True,
                )
                if n == 1:
                    wall, cpu, children = _graph_copy(store)
                    print(
                        f"{'GRAPH.COPY':<18} the whole graph: {wall:.2f} s, {cpu:.2f} CPU-s of"
                        f" the server, {children:.2f} of its forked child",
                        flush=True,
                    )
                    for _ in range(2):  # the first read also settles the appended writes
                        papers, wall, cpu = _id_map(store)
                        print(
                            f"{'id map':<18} {papers:,} Papers (key, internal id):"
                            f" {wall:.2f} s, {cpu:.2f} CPU-s of the server",
                            flush=True,
                        )
            finally:
                store.close()
                server.stop()
        first, second = results.values()
        same = first == second
        print("the same Papers and CITES pairs from both" if same else "the graphs DIFFER")
        return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())

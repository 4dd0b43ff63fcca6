"""``set_vectors`` throughput: the code before (one list parameter of floats per vector) vs
the text-per-vector path (``store/vector_batches.py``), in the same run, on both backends.

A store holding ``--papers`` Paper nodes (title + a 150-word abstract, the default schema:
the ``paper_text`` full-text index, the ``id`` keys) gets ``--vectors`` vectors of each of
``--dims`` dimensions, under a cosine vector index created first (as ``embed nodes`` and
``graph embed`` do), in batches of 2,000 (their batch). For each write it prints vectors/s,
the client's CPU seconds and the server's CPU seconds (its process, from /proc), so a reader
can tell the client's part from the server's on a shared machine. Each write goes to a fresh
property whose index and values are dropped afterwards: FalkorDB keeps one search index per
label and re-indexes a node's other vectors when any property of it changes, so a property
left behind would tax the next write (``--text-index`` measures exactly that tax: the FastRP
write of ``graph embed`` on a graph whose papers hold 384-dimension text embeddings).
``--no-index`` adds the new path without a vector index: the write alone, what the index
maintenance costs by difference. ``--recall`` (embedded) builds the index with FalkorDB's
default ``efConstruction`` (200) and with ours (``VECTOR_EF_CONSTRUCTION``) on clustered and
on independent random vectors, and prints the build's cost and recall@10 of
``store.vector`` against exact cosine.

    .venv/bin/python benchmarks/bench_vectors.py                       # both backends
    .venv/bin/python benchmarks/bench_vectors.py --backends embedded --vectors 20000
    .venv/bin/python benchmarks/bench_vectors.py --neo4j-home /work/n4j/neo4j  # reuse one

Without ``--neo4j-home`` a managed Neo4j is started in a temp dir and stopped at the end
(Java 17+ needed; ``SCHOLARKG_NEO4J_HEAP`` sets its heap).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from scholarkg.schema.spec import VectorIndex
from scholarkg.store.base import GraphStore
from scholarkg.store.batch_writes import BatchWriteStore
from scholarkg.store.cypher_common import clean_props, set_vectors_query

BATCH = 2_000
WORDS = [
    "graph", "citation", "model", "data", "learning", "network", "paper", "method", "result",
    "analysis", "study", "corpus", "query", "ranking", "retrieval", "benchmark", "evaluation",
    "open", "scholarly", "identity",
]  # fmt: skip


def old_rows(
    rows: Iterable[tuple[str, Sequence[float]]], extra: Mapping[str, Mapping[str, Any]]
) -> Iterator[dict[str, Any]]:
    """``cypher_common.vector_rows`` as it was: a list of Python floats per row."""
    for node_id, vec in rows:
        yield {
            "id": str(node_id),
            "v": [float(x) for x in vec],
            "extra": clean_props(extra.get(str(node_id), {})),
        }


def old_set_vectors(
    store: GraphStore, label: str, prop: str, rows: list[tuple[str, list[float]]]
) -> int:
    """``BatchWriteStore.set_vectors`` before: the dialect's plain list parameter, sent
    through the generic path (``check_params``, the client library's encoder)."""
    assert isinstance(store, BatchWriteStore)
    value = (lambda p: f"vecf32({p})") if store.backend != "neo4j" else (lambda p: p)
    query = set_vectors_query(label, prop, value)
    return store._write_counted(query, old_rows(rows, {}), BATCH)


def new_set_vectors(
    store: GraphStore, label: str, prop: str, rows: list[tuple[str, list[float]]]
) -> int:
    return store.set_vectors(label, prop, rows, batch_size=BATCH)


def cpu_seconds(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


def drop_vectors(store: GraphStore, prop: str, indexed: bool) -> None:
    """The property's vector index, then its values (in batches: Neo4j's transaction cap)."""
    if store.backend == "neo4j":
        if indexed:
            store.run(f"DROP INDEX bench_{prop} IF EXISTS")
        store.run(
            f"MATCH (n:Paper) WHERE n.{prop} IS NOT NULL "
            f"CALL (n) {{ REMOVE n.{prop} }} IN TRANSACTIONS OF 5000 ROWS"
        )
    else:
        if indexed:
            store.run(f"DROP VECTOR INDEX FOR (n:Paper) ON (n.{prop})")
        store.run(f"MATCH (n:Paper) WHERE n.{prop} IS NOT NULL REMOVE n.{prop}")


def create_index(store: GraphStore, prop: str, dims: int, *, before: bool) -> None:
    """The vector index as the code before made it (FalkorDB: HNSW efConstruction 200, the
    server's default) or as it is made now (``dialect.vector_index_ddl``)."""
    if before and store.backend != "neo4j":
        store.run(
            f"CREATE VECTOR INDEX FOR (n:Paper) ON (n.{prop}) "
            f"OPTIONS {{dimension: {dims}, similarityFunction: 'cosine'}}"
        )
    else:
        store.ensure_vector_index(VectorIndex(f"bench_{prop}", "Paper", prop, dims))


def measure(
    store: GraphStore,
    server: psutil.Process,
    write: Callable[[GraphStore, str, str, list[tuple[str, list[float]]]], int],
    rows: list[tuple[str, list[float]]],
    prop: str,
    dims: int,
    *,
    indexed: bool,
) -> dict[str, float]:
    if indexed:
        create_index(store, prop, dims, before=write is old_set_vectors)
    c0, s0, t0 = time.process_time(), cpu_seconds(server), time.perf_counter()
    n = write(store, "Paper", prop, rows)
    wall = time.perf_counter() - t0
    out = {
        "n": float(n),
        "wall": wall,
        "client": time.process_time() - c0,
        "server": cpu_seconds(server) - s0,
    }
    assert n == len(rows), (n, len(rows))
    drop_vectors(store, prop, indexed)
    return out


def fill(store: GraphStore, papers: int, seed: int) -> None:
    rng = random.Random(seed)
    store.apply_schema()
    store.merge_nodes(
        "Paper",
        (
            {
                "id": f"p{i}",
                "title": " ".join(rng.choices(WORDS, k=10)),
                "abstract": " ".join(rng.choices(WORDS, k=150)),
            }
            for i in range(papers)
        ),
    )


def line(name: str, f: dict[str, float]) -> str:
    return (
        f"  {name:<34} {f['n'] / f['wall']:>8,.0f} vectors/s   wall {f['wall']:6.1f} s   "
        f"client CPU {f['client']:5.1f} s   server CPU {f['server']:5.1f} s"
    )


def bench_store(
    backend: str, store: GraphStore, server: psutil.Process, args: argparse.Namespace
) -> None:
    t0 = time.perf_counter()
    fill(store, args.papers, args.seed)
    print(
        f"\n{backend}: {args.papers:,} papers (title + 150-word abstract, default schema) "
        f"in {time.perf_counter() - t0:.1f} s",
        flush=True,
    )
    rng = np.random.default_rng(args.seed)
    for dims in args.dims:
        matrix = rng.standard_normal((args.vectors, dims)).astype(np.float32)
        rows = [(f"p{i}", matrix[i].tolist()) for i in range(args.vectors)]
        print(f" {args.vectors:,} vectors of {dims} dimensions, batches of {BATCH:,}:")
        for rep in range(args.repeat):
            for name, write in (("before", old_set_vectors), ("now", new_set_vectors)):
                f = measure(store, server, write, rows, f"v{dims}_{name}", dims, indexed=True)
                print(line(f"{name}, under a vector index", f), flush=True)
            if args.no_index and rep == 0:
                f = measure(store, server, new_set_vectors, rows, f"v{dims}_w", dims, indexed=False)
                print(line("now, no vector index (the write)", f), flush=True)
    if args.text_index:
        text = rng.standard_normal((args.vectors, 384)).astype(np.float32)
        create_index(store, "v_text", 384, before=True)
        new_set_vectors(
            store, "Paper", "v_text", [(f"p{i}", text[i].tolist()) for i in range(args.vectors)]
        )
        fastrp = rng.standard_normal((args.vectors, 128)).astype(np.float32)
        rows = [(f"p{i}", fastrp[i].tolist()) for i in range(args.vectors)]
        print(f" {args.vectors:,} 128-dimension vectors onto papers holding indexed 384-d ones:")
        for name, write in (("before", old_set_vectors), ("now", new_set_vectors)):
            f = measure(store, server, write, rows, f"v128_{name}", 128, indexed=True)
            print(line(f"{name}, under a vector index", f), flush=True)
        drop_vectors(store, "v_text", True)


def vectors(kind: str, n: int, dims: int, rng: np.random.Generator) -> np.ndarray:
    """``clustered``: 200 centres plus noise (embeddings of a corpus gather by topic);
    ``iid``: independent normal components, no neighbourhood structure (the worst case)."""
    if kind == "iid":
        return rng.standard_normal((n, dims)).astype(np.float32)
    centres = rng.standard_normal((200, dims))
    return (centres[rng.integers(0, 200, n)] + 0.6 * rng.standard_normal((n, dims))).astype(
        np.float32
    )


def recall(store: GraphStore, server: psutil.Process, args: argparse.Namespace) -> None:
    """What efConstruction costs and buys: the index build per server CPU second, and
    recall@10 of ``store.vector(k=10)`` (which asks the index for 100) against exact cosine."""
    from scholarkg.store.falkordb.dialect import VECTOR_EF_CONSTRUCTION

    print(f" recall@10 of store.vector(k=10) against exact cosine, {args.queries} queries:")
    for kind in ("clustered", "iid"):
        for dims in args.dims:
            rng = np.random.default_rng(args.seed + dims)
            data = vectors(kind, args.vectors + args.queries, dims, rng)
            x, q = data[: args.vectors], data[args.vectors :]
            xn = x / np.linalg.norm(x, axis=1, keepdims=True)
            qn = q / np.linalg.norm(q, axis=1, keepdims=True)
            truth = np.argsort(-(qn @ xn.T), axis=1)[:, :10]
            rows = [(f"p{i}", x[i].tolist()) for i in range(args.vectors)]
            for ef, before in ((200, True), (VECTOR_EF_CONSTRUCTION, False)):
                prop = f"r{dims}_{ef}"
                create_index(store, prop, dims, before=before)
                s0 = cpu_seconds(server)
                store.set_vectors("Paper", prop, rows, batch_size=BATCH)
                spent = cpu_seconds(server) - s0
                index = VectorIndex(f"bench_{prop}", "Paper", prop, dims)
                found = 0
                for i in range(args.queries):
                    hits = {h.id for h in store.vector(index, q[i].tolist(), k=10)}
                    found += len(hits & {f"p{j}" for j in truth[i]})
                print(
                    f"  {kind:<9} {dims:>3} dims, efConstruction {ef:>3}: "
                    f"{args.vectors / spent:>7,.0f} vectors per server CPU second, "
                    f"recall@10 {found / (10 * args.queries):.3f}",
                    flush=True,
                )
                drop_vectors(store, prop, True)


def run_embedded(args: argparse.Namespace, root: Path) -> None:
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    server = EmbeddedServer(root / "falkordb", persistent=False)
    server.start()
    try:
        store = FalkorDBStore(server.connect(), "bench_vectors")
        proc = psutil.Process(server.status().pid or 0)
        bench_store("embedded FalkorDB", store, proc, args)
        if args.recall:
            recall(store, proc, args)
        store.clear()
    finally:
        server.stop()


def run_neo4j(args: argparse.Namespace, root: Path) -> None:
    from scholarkg.config import Neo4jSettings
    from scholarkg.store.neo4j.server import ManagedNeo4j
    from scholarkg.store.neo4j.store import Neo4jStore

    reuse = args.neo4j_home is not None
    server = ManagedNeo4j(args.neo4j_home or root / "neo4j")
    status = server.ensure_running() if reuse else server.start()
    try:
        settings = Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        store = Neo4jStore.from_settings(settings)
        store.clear()
        bench_store("managed Neo4j", store, psutil.Process(status.pid or 0), args)
        store.clear()
        store.close()
    finally:
        if not reuse:
            server.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("--vectors", type=int, default=20_000)
    ap.add_argument("--dims", type=lambda s: [int(x) for x in s.split(",")], default=[384, 128])
    ap.add_argument("--backends", default="embedded,neo4j")
    ap.add_argument("--repeat", type=int, default=1, help="before/now pairs per dimension")
    ap.add_argument("--no-index", action="store_true", help="also the write without an index")
    ap.add_argument("--text-index", action="store_true", help="also 128-d onto indexed 384-d")
    ap.add_argument("--recall", action="store_true", help="embedded: efConstruction vs recall")
    ap.add_argument("--queries", type=int, default=200, help="--recall: kNN queries")
    ap.add_argument("--neo4j-home", type=Path, default=None, help="reuse this managed Neo4j")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    if args.vectors > args.papers:
        ap.error("--vectors must not exceed --papers (vectors go onto existing papers)")
    load = psutil.getloadavg()[0]
    print(f"machine: {psutil.cpu_count()} cores, load average {load:.1f} at the start")
    with tempfile.TemporaryDirectory(prefix="bench-vectors-") as tmp:
        for backend in args.backends.split(","):
            if backend == "embedded":
                run_embedded(args, Path(tmp))
            elif backend == "neo4j":
                run_neo4j(args, Path(tmp))
            else:
                ap.error(f"unknown backend {backend!r}")
    print(f"load average {psutil.getloadavg()[0]:.1f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``set_vectors`` throughput on the embedded store: vectors on the papers (the code before)
vs vectors on nodes of their own (now, ``store/falkordb/dialect.py``, "where vectors
live"), in the same run; and the managed Neo4j (unchanged: vectors stay on the nodes).

A store holding ``--papers`` Paper nodes (title + a 150-word abstract, the default schema:
the ``paper_text`` full-text index, the ``id`` keys) gets ``--vectors`` vectors of each of
``--dims`` dimensions, under a cosine vector index created first (as ``embed nodes`` and
``graph embed`` do), in batches of 2,000 (their batch). For each write it prints vectors/s,
the client's CPU seconds and the server's CPU seconds (its process, from /proc), so a reader
can tell the client's part from the server's on a shared machine. ``--kind`` picks the
vectors: ``clustered`` (200 centres plus noise: embeddings of a corpus gather by topic) or
``iid`` (independent normal components, no neighbourhood structure: HNSW's worst case).
Each write goes to a fresh property whose index and values are dropped afterwards.

``--text-index``: 128-dimension vectors (FastRP, what ``graph embed`` writes) onto papers
that hold indexed 384-dimension text embeddings, then one scalar property written onto
every paper (what ``graph pagerank --write`` or a reload of the papers does) — before, both
re-inserted every paper's 384-d vector into the HNSW index. ``--no-index`` adds the write
without a vector index. ``--recall``: recall@10 of ``store.vector(k=10)`` against exact
cosine after the write (now).

    .venv/bin/python benchmarks/bench_vectors.py --backends embedded --text-index
    .venv/bin/python benchmarks/bench_vectors.py --backends embedded --papers 100000 \
        --vectors 100000 --dims 384
    .venv/bin/python benchmarks/bench_vectors.py --backends neo4j --neo4j-home /work/n4j/neo4j

Without ``--neo4j-home`` a managed Neo4j is started in a temp dir and stopped at the end
(Java 17+ needed; ``SCHOLARKG_NEO4J_HEAP`` sets its heap).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psutil

from scholarkg.schema.spec import VectorIndex
from scholarkg.store.base import GraphStore
from scholarkg.store.cypher_common import set_vectors_query
from scholarkg.store.falkordb.dialect import VECTOR_EF_CONSTRUCTION, vector_label
from scholarkg.store.vector_batches import VectorBatch, vector_batches

BATCH = 2_000
WORDS = [
    "graph", "citation", "model", "data", "learning", "network", "paper", "method", "result",
    "analysis", "study", "corpus", "query", "ranking", "retrieval", "benchmark", "evaluation",
    "open", "scholarly", "identity",
]  # fmt: skip
Rows = list[tuple[str, list[float]]]


def before_set_vectors(store: GraphStore, label: str, prop: str, rows: Rows) -> int:
    """The embedded store's ``set_vectors`` before: the same parameter text per vector
    (``FalkorDBStore._send_vectors``), written onto the papers themselves."""
    from scholarkg.store.falkordb.store import FalkorDBStore

    assert isinstance(store, FalkorDBStore)
    query = set_vectors_query(label, prop, lambda p: f"vecf32({p})")
    batches: list[VectorBatch] = list(vector_batches(rows, None, BATCH))
    return sum(store._send_vectors(query, b) for b in batches)


def now_set_vectors(store: GraphStore, label: str, prop: str, rows: Rows) -> int:
    return store.set_vectors(label, prop, rows, batch_size=BATCH)


WRITES: dict[str, Callable[[GraphStore, str, str, Rows], int]] = {
    "before": before_set_vectors,
    "now": now_set_vectors,
}


def cpu_seconds(proc: psutil.Process) -> float:
    times = proc.cpu_times()
    return float(times.user + times.system)


def create_index(store: GraphStore, prop: str, dims: int, how: str) -> None:
    """The vector index as the code before made it on the embedded store (on the papers,
    efConstruction 64) or as ``ensure_vector_index`` makes it now."""
    if how == "before":
        store.run(
            f"CREATE VECTOR INDEX FOR (n:Paper) ON (n.{prop}) OPTIONS {{dimension: {dims}, "
            f"similarityFunction: 'cosine', efConstruction: {VECTOR_EF_CONSTRUCTION}}}"
        )
    else:
        store.ensure_vector_index(VectorIndex(f"bench_{prop}", "Paper", prop, dims))


def drop_vectors(store: GraphStore, prop: str, how: str, indexed: bool) -> None:
    """The property's vector index, then its values (in batches: Neo4j's transaction cap)."""
    if store.backend == "neo4j":
        if indexed:
            store.run(f"DROP INDEX bench_{prop} IF EXISTS")
        store.run(
            f"MATCH (n:Paper) WHERE n.{prop} IS NOT NULL "
            f"CALL (n) {{ REMOVE n.{prop} }} IN TRANSACTIONS OF 5000 ROWS"
        )
    elif how == "before":
        if indexed:
            store.run(f"DROP VECTOR INDEX FOR (n:Paper) ON (n.{prop})")
        store.run(f"MATCH (n:Paper) WHERE n.{prop} IS NOT NULL REMOVE n.{prop}")
    else:
        vlabel = vector_label("Paper", prop)
        if indexed:
            store.run(f"DROP VECTOR INDEX FOR (n:{vlabel}) ON (n.{prop})")
        store.run(f"MATCH (v:{vlabel}) DETACH DELETE v")


def timed(server: psutil.Process, work: Callable[[], int]) -> dict[str, float]:
    c0, s0, t0 = time.process_time(), cpu_seconds(server), time.perf_counter()
    n = work()
    return {
        "n": float(n),
        "wall": time.perf_counter() - t0,
        "client": time.process_time() - c0,
        "server": cpu_seconds(server) - s0,
    }


def measure(
    store: GraphStore,
    server: psutil.Process,
    how: str,
    rows: Rows,
    prop: str,
    dims: int,
    *,
    indexed: bool = True,
    keep: bool = False,
) -> dict[str, float]:
    if indexed:
        create_index(store, prop, dims, how)
    f = timed(server, lambda: WRITES[how](store, "Paper", prop, rows))
    assert f["n"] == len(rows), (f["n"], len(rows))
    if not keep:
        drop_vectors(store, prop, how, indexed)
    return f


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


def line(name: str, f: dict[str, float], unit: str = "vectors/s") -> str:
    return (
        f"  {name:<44} {f['n'] / f['wall']:>8,.0f} {unit}   wall {f['wall']:6.1f} s   "
        f"client CPU {f['client']:5.1f} s   server CPU {f['server']:5.1f} s"
    )


def vectors(kind: str, n: int, dims: int, rng: np.random.Generator) -> np.ndarray:
    """``clustered``: 200 centres plus noise (embeddings of a corpus gather by topic);
    ``iid``: independent normal components, no neighbourhood structure (the worst case)."""
    if kind == "iid":
        return rng.standard_normal((n, dims)).astype(np.float32)
    centres = rng.standard_normal((200, dims))
    return (centres[rng.integers(0, 200, n)] + 0.6 * rng.standard_normal((n, dims))).astype(
        np.float32
    )


def as_rows(matrix: np.ndarray) -> Rows:
    return [(f"p{i}", matrix[i].tolist()) for i in range(len(matrix))]


def recall(store: GraphStore, data: np.ndarray, queries: np.ndarray, prop: str) -> float:
    """recall@10 of ``store.vector(k=10)`` against exact cosine."""
    xn = data / np.linalg.norm(data, axis=1, keepdims=True)
    qn = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    truth = np.argsort(-(qn @ xn.T), axis=1)[:, :10]
    index = VectorIndex(f"bench_{prop}", "Paper", prop, data.shape[1])
    found = 0
    for i in range(len(queries)):
        hits = {h.id for h in store.vector(index, queries[i].tolist(), k=10)}
        found += len(hits & {f"p{j}" for j in truth[i]})
    return found / (10 * len(queries))


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
    hows = ["now"] if store.backend == "neo4j" else ["before", "now"]
    rng = np.random.default_rng(args.seed)
    for dims in args.dims:
        data = vectors(args.kind, args.vectors + args.queries, dims, rng)
        rows = as_rows(data[: args.vectors])
        print(f" {args.vectors:,} {args.kind} vectors of {dims} dimensions, batches of {BATCH:,}:")
        for _ in range(args.repeat):
            for how in hows:
                keep = args.recall and how == "now"
                f = measure(store, server, how, rows, f"v{dims}_{how}", dims, keep=keep)
                print(line(f"{how}, under a vector index", f), flush=True)
                if keep:
                    r = recall(store, data[: args.vectors], data[args.vectors :], f"v{dims}_now")
                    print(
                        f"  {how}: recall@10 of store.vector(k=10), {args.queries} queries: {r:.3f}"
                    )
                    drop_vectors(store, f"v{dims}_now", how, True)
        if args.no_index:
            for how in hows:
                f = measure(store, server, how, rows, f"v{dims}_w{how}", dims, indexed=False)
                print(line(f"{how}, no vector index (the write)", f), flush=True)
    if args.text_index:
        text = as_rows(vectors(args.kind, args.vectors, 384, rng))
        fastrp = as_rows(vectors(args.kind, args.vectors, 128, rng))
        print(
            f" {args.vectors:,} 128-dimension vectors onto papers holding indexed 384-d ones, "
            "then one number written onto every paper:"
        )
        for how in hows:
            measure(store, server, how, text, "v_text", 384, keep=True)
            f = measure(store, server, how, fastrp, f"v128_{how}", 128, keep=True)
            print(line(f"{how}, 128-d under a vector index", f), flush=True)
            f = timed(server, lambda: score_papers(store, args.papers))
            print(line(f"{how}, a number onto every paper", f, "papers/s "), flush=True)
            store.run("MATCH (n:Paper) REMOVE n.score")
            drop_vectors(store, f"v128_{how}", how, True)
            drop_vectors(store, "v_text", how, True)


def score_papers(store: GraphStore, papers: int) -> int:
    """One number onto every paper, in batches (``graph pagerank --write``, a reload)."""
    query = "UNWIND $ids AS i MATCH (n:Paper {id: i}) SET n.score = 1.5 RETURN count(n) AS c"
    ids = [f"p{i}" for i in range(papers)]
    return sum(
        int(store.run(query, {"ids": ids[s : s + BATCH]})[0]["c"])
        for s in range(0, len(ids), BATCH)
    )


def run_embedded(args: argparse.Namespace, root: Path) -> None:
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    server = EmbeddedServer(root / "falkordb", persistent=False)
    server.start()
    try:
        store = FalkorDBStore(server.connect(), "bench_vectors")
        proc = psutil.Process(server.status().pid or 0)
        bench_store("embedded FalkorDB", store, proc, args)
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
    ap.add_argument("--kind", choices=("clustered", "iid"), default="clustered")
    ap.add_argument("--backends", default="embedded,neo4j")
    ap.add_argument("--repeat", type=int, default=1, help="before/now pairs per dimension")
    ap.add_argument("--no-index", action="store_true", help="also the write without an index")
    ap.add_argument("--text-index", action="store_true", help="also 128-d onto indexed 384-d")
    ap.add_argument("--recall", action="store_true", help="recall@10 of the index (now)")
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

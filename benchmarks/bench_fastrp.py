"""FastRP at 1M nodes / 5M relationships: GDS (``gds.fastRP.mutate``) vs the numpy FastRP the
embedded store runs, in one run.

Both sides embed a graph of the same law: every node cites ``--degree`` nodes drawn uniformly
at random (GDS: ``gds.graph.generate`` with ``relationshipDistribution: 'UNIFORM'``, projected
``UNDIRECTED``; numpy: the same draw with numpy's generator, embedded ``undirected``), with
the same FastRP configuration (GDS defaults, ``--dimension``, ``randomSeed`` 42). They are two
draws of that law, not one graph: the numbers they compute are checked equal on a shared
graph by ``tests/graphalgo/test_fastrp_contract.py``; this script measures time and memory.

Printed per side: GDS's own ``preProcessingMillis`` / ``computeMillis`` / ``mutateMillis``
beside wall time, and GDS's memory estimate (``gds.fastRP.mutate.estimate``) for the graph;
for numpy the adjacency build, random vectors and propagation, and the process's peak RSS.

    .venv/bin/python benchmarks/bench_fastrp.py                         # 1M / 5M, 128 dims
    .venv/bin/python benchmarks/bench_fastrp.py --nodes 100000 --parts numpy   # quick
    .venv/bin/python benchmarks/bench_fastrp.py --heap 6g               # GDS heap
    .venv/bin/python benchmarks/bench_fastrp.py --parts estimate        # OpenAlex sizes

``--parts estimate`` asks GDS for its memory estimate (``gds.fastRP.write.estimate`` on
fictitious graphs: ``nodeCount`` / ``relationshipCount``, projected ``UNDIRECTED``) for
``--estimate-works`` works × ``--estimate-refs`` references each: the heap a lab needs to embed an
OpenAlex-size citation graph, computed by GDS, not guessed.

Needs Java 17+ and Maven for the GDS part (a managed Neo4j is started in a temp dir and
stopped at the end).
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np

from scholarkg.graphalgo.fastrp import FastRPConfig, fastrp


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench_numpy(nodes: int, degree: int, cfg: FastRPConfig, seed: int) -> None:
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()
    src = np.repeat(np.arange(nodes, dtype=np.int64), degree)
    dst = rng.integers(0, nodes, nodes * degree)
    made = time.perf_counter() - t0
    rss0 = peak_rss_mb()
    t1 = time.perf_counter()
    res = fastrp(nodes, src, dst, cfg, orientation="undirected")
    wall = time.perf_counter() - t1
    t = res.timings
    print(
        f"numpy FastRP  {nodes:,} nodes / {src.shape[0]:,} relationships (undirected), "
        f"{cfg.embedding_dimension} dims, 1 thread (scipy sparse products):\n"
        f"  graph drawn {made:.1f} s; adjacency {t['adjacency_s']:.1f} s, random vectors "
        f"{t['random_vectors_s']:.1f} s, propagation {t['propagation_s']:.1f} s; "
        f"preProcessingMillis {res.pre_processing_millis:.0f}, computeMillis "
        f"{res.compute_millis:.0f}; wall {wall:.1f} s; peak RSS {peak_rss_mb():.0f} MB "
        f"(before: {rss0:.0f} MB)",
        flush=True,
    )


def bench_gds(nodes: int, degree: int, cfg: FastRPConfig, heap: str, seed: int) -> None:
    from scholarkg.config import Neo4jSettings
    from scholarkg.store.neo4j.server import ManagedNeo4j, java_available
    from scholarkg.store.neo4j.store import Neo4jStore

    reason = java_available()
    if reason:
        print(f"GDS part skipped: {reason}")
        return
    with tempfile.TemporaryDirectory(prefix="bench-fastrp-") as tmp:
        server = ManagedNeo4j(Path(tmp) / "neo4j", heap=heap, pagecache="512m")
        server.ensure_running()
        try:
            settings = Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
            neo = Neo4jStore.from_settings(settings)
            assert neo.gds is not None
            conc = neo.gds.concurrency  # the server's, as scholarkg's own GDS calls use
            t0 = time.perf_counter()
            gen = neo.run(
                "CALL gds.graph.generate('bench_fastrp', $n, $d, {relationshipDistribution: "
                "'UNIFORM', orientation: 'UNDIRECTED', relationshipSeed: $seed}) "
                "YIELD nodes, relationships, generateMillis RETURN *",
                {"n": nodes, "d": degree, "seed": seed},
            )[0]
            generated = time.perf_counter() - t0
            config = {**cfg.gds(), "concurrency": conc, "mutateProperty": "fastrp"}
            est = neo.run(
                "CALL gds.fastRP.mutate.estimate('bench_fastrp', $c) "
                "YIELD requiredMemory, bytesMin, bytesMax RETURN *",
                {"c": config},
            )[0]
            t1 = time.perf_counter()
            row = neo.run(
                "CALL gds.fastRP.mutate('bench_fastrp', $c) YIELD nodePropertiesWritten, "
                "preProcessingMillis, computeMillis, mutateMillis RETURN *",
                {"c": config},
            )[0]
            wall = time.perf_counter() - t1
            print(
                f"GDS FastRP    {int(gen['nodes']):,} nodes / {int(gen['relationships']):,} "
                f"relationship entries (UNDIRECTED: each relationship both ways), "
                f"{cfg.embedding_dimension} dims, concurrency {conc}, heap {heap}:\n"
                f"  graph generated in GDS {generated:.1f} s; estimate {est['requiredMemory']}; "
                f"preProcessingMillis {row['preProcessingMillis']}, computeMillis "
                f"{row['computeMillis']}, mutateMillis {row['mutateMillis']}; wall (one Bolt "
                f"call) {wall:.1f} s; {row['nodePropertiesWritten']:,} embeddings in the "
                "projection",
                flush=True,
            )
            neo.run("CALL gds.graph.drop('bench_fastrp', false) YIELD graphName RETURN 1")
            neo.close()
        finally:
            server.stop()


def _tree_line(tree: str, name: str) -> str:
    for line in tree.splitlines():
        if line.startswith(f"|-- {name}:"):
            return line.split(":", 1)[1].strip()
    return "?"


def bench_estimate(works: list[int], refs: int, cfg: FastRPConfig, heap: str) -> None:
    from scholarkg.config import Neo4jSettings
    from scholarkg.store.neo4j.server import ManagedNeo4j, java_available
    from scholarkg.store.neo4j.store import Neo4jStore

    reason = java_available()
    if reason:
        print(f"estimate part skipped: {reason}")
        return
    with tempfile.TemporaryDirectory(prefix="bench-fastrp-est-") as tmp:
        server = ManagedNeo4j(Path(tmp) / "neo4j", heap=heap, pagecache="256m")
        server.ensure_running()
        try:
            settings = Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
            neo = Neo4jStore.from_settings(settings)
            print(
                f"GDS memory estimate, gds.fastRP.write.estimate, {cfg.embedding_dimension} dims, "
                f"{refs} references per work, UNDIRECTED:"
            )
            print("  works | relationships | graph | FastRP | total")
            for n in works:
                row = neo.run(
                    "CALL gds.fastRP.write.estimate({nodeCount: $n, relationshipCount: $m, "
                    "nodeProjection: '*', relationshipProjection: {CITES: {type: '*', "
                    "orientation: 'UNDIRECTED'}}}, $c) YIELD requiredMemory, treeView RETURN *",
                    {"n": n, "m": n * refs, "c": {**cfg.gds(), "writeProperty": "fastrp"}},
                )[0]
                tree = str(row["treeView"])
                print(
                    f"  {n:,} | {n * refs:,} | {_tree_line(tree, 'graph')} | "
                    f"{_tree_line(tree, 'algorithm')} | {row['requiredMemory']}",
                    flush=True,
                )
            neo.close()
        finally:
            server.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--degree", type=int, default=5, help="relationships per node")
    ap.add_argument("--dimension", type=int, default=128)
    ap.add_argument("--heap", default="6g", help="GDS heap of the managed Neo4j")
    ap.add_argument("--parts", default="numpy,gds")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--estimate-works", default="10000000,100000000,250000000")
    ap.add_argument("--estimate-refs", type=int, default=20)
    args = ap.parse_args()
    cfg = FastRPConfig(embedding_dimension=args.dimension, random_seed=42)
    parts = set(args.parts.split(","))
    if "numpy" in parts:
        bench_numpy(args.nodes, args.degree, cfg, args.seed)
    if "gds" in parts:
        bench_gds(args.nodes, args.degree, cfg, args.heap, args.seed)
    if "estimate" in parts:
        works = [int(x) for x in args.estimate_works.split(",")]
        bench_estimate(works, args.estimate_refs, cfg, "1g")


if __name__ == "__main__":
    main()

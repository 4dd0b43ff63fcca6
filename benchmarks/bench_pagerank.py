"""Time scholarkg's GDS-semantics PageRank (scipy) against ``networkx.pagerank``.

Why: the embedded store runs PageRank client-side on an edge snapshot, so its cost at
corpus scale must be known. networkx is the usual Python baseline; it computes a
*different* PageRank (normalised, converged, dangling mass redistributed), so only the
timings are compared, not the scores.

    .venv/bin/python benchmarks/bench_pagerank.py                       # 1M nodes / 5M edges
    .venv/bin/python benchmarks/bench_pagerank.py --nx-nodes 200000 --nx-edges 1000000

The graph is uniformly random (seeded). networkx runs on its own, possibly smaller, graph
when ``--nx-nodes/--nx-edges`` are given, because building a 5M-edge ``DiGraph`` costs
several GB of RAM.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import time

import numpy as np

from scholarkg.store.pagerank import pagerank


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def random_graph(n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m, dtype=np.int64), rng.integers(0, n, m, dtype=np.int64)


def bench_scipy(n: int, m: int, seed: int) -> dict[str, float | int | bool]:
    src, dst = random_graph(n, m, seed)
    rss_before = peak_rss_mb()
    start = time.perf_counter()
    scores, ran, converged = pagerank(n, src, dst)
    seconds = time.perf_counter() - start
    return {
        "nodes": n,
        "edges": m,
        "seconds": round(seconds, 3),
        "ran_iterations": ran,
        "did_converge": converged,
        "score_sum": round(float(scores.sum()), 3),
        "peak_rss_growth_mb": round(peak_rss_mb() - rss_before, 1),
    }


def bench_networkx(n: int, m: int, seed: int) -> dict[str, float | int]:
    import networkx as nx

    src, dst = random_graph(n, m, seed)
    rss_before = peak_rss_mb()
    start = time.perf_counter()
    graph = nx.DiGraph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(zip(src.tolist(), dst.tolist(), strict=True))
    build = time.perf_counter() - start
    start = time.perf_counter()
    scores = nx.pagerank(graph, alpha=0.85)
    seconds = time.perf_counter() - start
    result = {
        "nodes": n,
        "edges": m,
        "distinct_edges": graph.number_of_edges(),  # DiGraph collapses parallel edges
        "build_seconds": round(build, 3),
        "seconds": round(seconds, 3),
        "score_sum": round(sum(scores.values()), 3),
        "peak_rss_growth_mb": round(peak_rss_mb() - rss_before, 1),
    }
    del graph, scores
    gc.collect()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=1_000_000)
    parser.add_argument("--edges", type=int, default=5_000_000)
    parser.add_argument("--nx-nodes", type=int, default=None, help="networkx graph size")
    parser.add_argument("--nx-edges", type=int, default=None)
    parser.add_argument("--skip-networkx", action="store_true")
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    results: dict[str, object] = {"scipy": bench_scipy(args.nodes, args.edges, args.seed)}
    print(json.dumps({"scipy": results["scipy"]}), flush=True)
    if not args.skip_networkx:
        nx_n = args.nx_nodes or args.nodes
        nx_m = args.nx_edges or args.edges
        results["networkx"] = bench_networkx(nx_n, nx_m, args.seed)
        print(json.dumps({"networkx": results["networkx"]}), flush=True)
        if (nx_n, nx_m) != (args.nodes, args.edges):
            small = bench_scipy(nx_n, nx_m, args.seed)
            results["scipy_same_size_as_networkx"] = small
            print(json.dumps({"scipy_same_size_as_networkx": small}), flush=True)


if __name__ == "__main__":
    main()

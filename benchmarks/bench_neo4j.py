"""Embedded FalkorDB vs the managed Neo4j (+ GDS) on the same graph, in one run.

Prints: server start time (first start, which creates the store, and a restart) and RSS;
loading N papers / M citations through the shared ``UNWIND … MERGE`` writer on each backend;
whole-graph PageRank on the resident projection (cold: build it; warm: reuse it; the embedded
store's scipy operator vs GDS's ``pageRank.mutate``), the largest score difference between the
two; personalized PageRank per query (mean over ``--queries`` single-source queries).

    .venv/bin/python benchmarks/bench_neo4j.py                      # 20k papers / 150k cites
    .venv/bin/python benchmarks/bench_neo4j.py --papers 2000 --citations 15000   # quick
    .venv/bin/python benchmarks/bench_neo4j.py --parts bulk     # 1M papers / 5M citations

``--parts bulk`` builds a NEW graph of ``--bulk-papers`` / ``--bulk-citations`` three ways
in one run: the embedded store's GRAPH.BULK loader, Neo4j's offline importer
(``load bulk --backend neo4j``) and, on a ``--merge-slice`` of it, the batched
``UNWIND … MERGE`` writer on Neo4j, extrapolated linearly to the full size; and whole-graph
PageRank (cold, warm) plus single-source personalized PageRank on each built graph, with the
largest score difference between the two.

Needs Java 17+ and Maven (the managed Neo4j); the graph is random (uniform citing paper,
cited paper skewed towards low ids, as citations are), seeded.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_load's generator

from scholarkg.config import Neo4jSettings
from scholarkg.graphalgo.projection import ProjectionCatalog
from scholarkg.store.base import GraphStore, PageRankConfig
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.neo4j.server import ManagedNeo4j, java_available
from scholarkg.store.neo4j.store import Neo4jStore


def corpus(n_papers: int, n_cites: int, seed: int) -> tuple[list[dict], list[dict]]:
    rng = np.random.default_rng(seed)
    papers = [{"id": f"p{i}", "title": f"Synthetic paper {i}", "year": 1990 + i % 30}
              for i in range(n_papers)]  # fmt: skip
    src = rng.integers(0, n_papers, n_cites)
    dst = (rng.pareto(1.2, n_cites) * n_papers / 50).astype(np.int64) % n_papers
    pairs = {(int(a), int(b)) for a, b in zip(src, dst, strict=True) if a != b}
    edges = [{"start": f"p{a}", "end": f"p{b}"} for a, b in sorted(pairs)]
    return papers, edges


def load(store: GraphStore, papers: list[dict], edges: list[dict]) -> float:
    t0 = time.perf_counter()
    store.apply_schema()
    for i in range(0, len(papers), 5_000):
        store.merge_nodes("Paper", papers[i : i + 5_000])
    for i in range(0, len(edges), 10_000):
        store.merge_relationships("CITES", "Paper", "Paper", edges[i : i + 10_000])
    return time.perf_counter() - t0


def pagerank_figures(store: GraphStore, cache: Path, queries: list[str]) -> dict[str, object]:
    catalog = ProjectionCatalog(cache)
    t0 = time.perf_counter()
    proj = catalog.get(store)
    first = proj.pagerank()
    cold = time.perf_counter() - t0
    warm = []
    for _ in range(3):
        t0 = time.perf_counter()
        proj.pagerank()
        warm.append(time.perf_counter() - t0)
    ppr = []
    for q in queries:
        t0 = time.perf_counter()
        proj.pagerank(PageRankConfig(source_nodes={q: 1.0}))
        ppr.append(time.perf_counter() - t0)
    return {"cold": cold, "warm": min(warm), "ppr": statistics.mean(ppr), "scores": first.scores}


def bulk_part(args: argparse.Namespace, root: Path) -> None:
    """Embedded GRAPH.BULK vs Neo4j's importer vs Neo4j UNWIND … MERGE (slice, extrapolated)."""
    import itertools
    import json

    from bench_load import generate

    from scholarkg.store.falkordb.bulk import bulk_load_papers
    from scholarkg.store.neo4j.importer import import_into_managed

    papers, cites = generate(root, args.bulk_papers, args.bulk_citations)
    print(f"bulk: {args.bulk_papers:,} papers, {args.bulk_citations:,} citations")
    embedded = EmbeddedServer(root / "falkordb-bulk", persistent=False)
    embedded.start()
    try:
        emb = FalkorDBStore(embedded.connect(), "bulk")
        t0 = time.perf_counter()
        res = bulk_load_papers(emb, papers, cites)
        t_emb = time.perf_counter() - t0
        # whole-graph PageRank on what was just built (the scipy operator on the resident
        # projection), then a few single-source personalized runs
        gen = np.random.default_rng(args.seed + 1)
        queries = [f"p{int(i)}" for i in gen.integers(0, args.bulk_papers, 3)]
        pr_emb = pagerank_figures(emb, root / "cache-emb-bulk", queries)
        emb.clear()
    finally:
        embedded.stop()
    server = ManagedNeo4j(root / "neo4j-bulk")
    server.start()
    try:
        t0 = time.perf_counter()
        imp = import_into_managed(server, papers, cites, node_count=0)
        settings = Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        neo = Neo4jStore.from_settings(settings)
        t1 = time.perf_counter()
        neo.apply_schema()
        t_schema = time.perf_counter() - t1
        t_imp = time.perf_counter() - t0
        pr_neo = pagerank_figures(neo, root / "cache-neo-bulk", queries)
        a, b = pr_emb["scores"], pr_neo["scores"]
        assert isinstance(a, dict) and isinstance(b, dict)
        diff = max(abs(a[k] - b[k]) for k in a)
        neo.clear()
        # the incremental writer on a slice: the first N papers, then 5 N citations among
        # them drawn like the full file's (uniform); nodes and edges timed apart and each
        # extrapolated by its own count (a slice of the file itself holds almost no edges)
        n = args.merge_slice
        with papers.open(encoding="utf-8") as fh:
            rows = [json.loads(line) for line in itertools.islice(fh, n)]
        gen = np.random.default_rng(args.seed)
        ids = [r["id"] for r in rows]
        pairs = gen.integers(0, len(ids), (5 * len(ids), 2))
        edges = [{"start": ids[a], "end": ids[b]} for a, b in pairs]
        neo.apply_schema()
        t1 = time.perf_counter()
        for i in range(0, len(rows), 5_000):
            neo.merge_nodes("Paper", rows[i : i + 5_000])
        t_nodes = time.perf_counter() - t1
        t1 = time.perf_counter()
        for i in range(0, len(edges), 10_000):
            neo.merge_relationships("CITES", "Paper", "Paper", edges[i : i + 10_000])
        t_edges = time.perf_counter() - t1
        neo.clear()
        neo.close()
    finally:
        server.stop()
    node_rate, edge_rate = len(rows) / t_nodes, len(edges) / t_edges
    merge_full = args.bulk_papers / node_rate + args.bulk_citations / edge_rate
    print(
        f"  embedded GRAPH.BULK (load bulk): {t_emb:.1f} s "
        f"({res.nodes:,} nodes, {res.relationships:,} relationships)"
    )
    restart = imp.seconds - imp.convert_seconds - imp.import_seconds
    print(
        f"  Neo4j offline importer (load bulk --backend neo4j): {t_imp:.1f} s "
        f"(CSV files {imp.convert_seconds:.1f} s, stop + import {imp.import_seconds:.1f} s, "
        f"restart {restart:.1f} s, schema {t_schema:.1f} s; {imp.nodes:,} nodes, "
        f"{imp.relationships:,} relationships)"
    )
    for name, pr in (("embedded (scipy operator)", pr_emb), ("Neo4j GDS pageRank", pr_neo)):
        print(f"  whole-graph PageRank, {name}: cold {pr['cold']:.1f} s (projection built), "
              f"warm {pr['warm']:.2f} s; personalized {pr['ppr']:.2f} s per query")  # fmt: skip
    print(f"  max |score difference| embedded vs GDS, whole graph: {diff:.1e}")
    print(f"  Neo4j UNWIND … MERGE on a slice: {len(rows):,} papers in {t_nodes:.1f} s "
          f"({node_rate:,.0f}/s), {len(edges):,} citations in {t_edges:.1f} s "
          f"({edge_rate:,.0f}/s) => about {merge_full:,.0f} s for the full size")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("--citations", type=int, default=150_000)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--parts", default="rows", help="rows, bulk or rows,bulk")
    ap.add_argument("--bulk-papers", type=int, default=1_000_000)
    ap.add_argument("--bulk-citations", type=int, default=5_000_000)
    ap.add_argument("--merge-slice", type=int, default=50_000)
    args = ap.parse_args(argv)
    reason = java_available()
    if reason:
        print(f"cannot run the managed Neo4j here: {reason}")
        return 1
    parts = set(args.parts.split(","))
    if "bulk" in parts:
        with tempfile.TemporaryDirectory(prefix="bench-neo4j-bulk-") as tmp:
            bulk_part(args, Path(tmp))
    if "rows" not in parts:
        return 0
    papers, edges = corpus(args.papers, args.citations, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    queries = [f"p{int(i)}" for i in rng.integers(0, args.papers, args.queries)]
    print(f"graph: {len(papers):,} papers, {len(edges):,} citations (seed {args.seed})")
    rows: list[tuple[str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-neo4j-") as tmp:
        root = Path(tmp)
        server = ManagedNeo4j(root / "neo4j")
        t0 = time.perf_counter()
        st = server.start()
        first_start = time.perf_counter() - t0
        server.stop()
        t0 = time.perf_counter()
        st = server.start()
        restart = time.perf_counter() - t0
        assert st.pid is not None
        settings = Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        neo = Neo4jStore.from_settings(settings)
        embedded = EmbeddedServer(root / "falkordb", persistent=False)
        embedded.start()
        emb = FalkorDBStore(embedded.connect(), "bench")
        try:
            t_emb = load(emb, papers, edges)
            t_neo = load(neo, papers, edges)
            rss_neo = psutil.Process(st.pid).memory_info().rss
            rss_emb = psutil.Process(embedded.status().pid or 0).memory_info().rss
            pr_emb = pagerank_figures(emb, root / "cache-emb", queries)
            pr_neo = pagerank_figures(neo, root / "cache-neo", queries)
            a, b = pr_emb["scores"], pr_neo["scores"]
            assert isinstance(a, dict) and isinstance(b, dict)
            diff = max(abs(a[k] - b[k]) for k in a)
        finally:
            neo.clear()
            neo.close()
            emb.clear()
            embedded.stop()
            server.stop()
    rows += [
        ("server start (first: creates the store)", "-", f"{first_start:.1f} s"),
        ("server restart", "-", f"{restart:.1f} s"),
        ("server RSS after the load", f"{rss_emb / 2**20:.0f} MB", f"{rss_neo / 2**20:.0f} MB"),
        ("load (UNWIND … MERGE batches)", f"{t_emb:.1f} s", f"{t_neo:.1f} s"),
        ("PageRank, cold (projection built)", f"{pr_emb['cold']:.2f} s", f"{pr_neo['cold']:.2f} s"),
        ("PageRank, warm (resident projection)", f"{pr_emb['warm']:.3f} s",
         f"{pr_neo['warm']:.3f} s"),
        ("personalized PageRank per query", f"{pr_emb['ppr'] * 1000:.0f} ms",
         f"{pr_neo['ppr'] * 1000:.0f} ms"),
        ("max |score difference| (whole graph)", f"{diff:.1e}", ""),
    ]  # fmt: skip
    width = max(len(r[0]) for r in rows)
    print(f"{'':{width}}  {'embedded':>12}  {'neo4j+gds':>12}")
    for name, e, n in rows:
        print(f"{name:{width}}  {e:>12}  {n:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

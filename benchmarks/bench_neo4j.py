"""Embedded FalkorDB vs the managed Neo4j (+ GDS) on the same graph, in one run.

Prints: server start time (first start, which creates the store, and a restart) and RSS;
loading N papers / M citations through the shared ``UNWIND … MERGE`` writer on each backend;
top-10 PageRank through ``graphalgo.topk.pagerank_top`` (cold: projection built; warm:
reused; the embedded store's scipy operator on the client-side projection vs GDS on the
resident server-side projection, only 10 rows returned), GDS's own milliseconds
(``computeMillis`` …) beside the wall time, the top 10 compared between the two; personalized
PageRank top 10 per query (mean over ``--queries`` single-source queries).

    .venv/bin/python benchmarks/bench_neo4j.py                      # 20k papers / 150k cites
    .venv/bin/python benchmarks/bench_neo4j.py --papers 2000 --citations 15000   # quick
    .venv/bin/python benchmarks/bench_neo4j.py --parts bulk     # 1M papers / 5M citations
    .venv/bin/python benchmarks/bench_neo4j.py --parts cli      # the CLI targets, 1M / 5M

``--parts bulk`` builds a NEW graph of ``--bulk-papers`` / ``--bulk-citations`` three ways
in one run: the embedded store's GRAPH.BULK loader, Neo4j's offline importer
(``load bulk --backend neo4j``) and, on a ``--merge-slice`` of it, the batched
``UNWIND … MERGE`` writer on Neo4j, extrapolated linearly to the full size; and top-10
PageRank (cold, warm) plus single-source personalized PageRank on each built graph.

``--parts cli`` measures what a user runs, each command its own process:
``scholarkg [--backend neo4j] load bulk`` on the same files, then ``graph pagerank --top 10``
cold / warm and ``--source Q`` twice, the peak RSS of each CLI process, the records the
server returned and the top 10 of both backends compared.

Needs Java 17+ and Maven (the managed Neo4j); the graph is random (uniform citing paper,
cited paper skewed towards low ids, as citations are), seeded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_load's generator

from scholarkg.config import Neo4jSettings
from scholarkg.graphalgo.projection import ProjectionCatalog
from scholarkg.graphalgo.topk import pagerank_top
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


def pagerank_figures(
    store: GraphStore, cache: Path, queries: list[str], k: int = 10
) -> dict[str, object]:
    """Top-``k`` whole-graph PageRank (cold: projection built; warm: reused) and single-source
    personalized PageRank per query, through ``graphalgo.topk.pagerank_top``: in GDS on
    Neo4j (only k rows come back), on the client-side projection on the embedded store."""
    catalog = ProjectionCatalog(cache)
    t0 = time.perf_counter()
    first = pagerank_top(store, k, catalog=catalog)
    cold = time.perf_counter() - t0
    warm = []
    for _ in range(3):
        t0 = time.perf_counter()
        pagerank_top(store, k, catalog=catalog)
        warm.append(time.perf_counter() - t0)
    ppr = []
    for q in queries:
        t0 = time.perf_counter()
        pagerank_top(store, k, PageRankConfig(source_nodes={q: 1.0}), catalog=catalog)
        ppr.append(time.perf_counter() - t0)
    return {
        "cold": cold,
        "warm": min(warm),
        "ppr": statistics.mean(ppr),
        "top": first.rows,
        "timings": first.timings,
    }


def top_difference(a: list[tuple[str, float]], b: list[tuple[str, float]]) -> str:
    """ "same ids, max |score difference| x" or what differs."""
    if [i for i, _ in a] != [i for i, _ in b]:
        return f"DIFFERENT ids: {[i for i, _ in a]} vs {[i for i, _ in b]}"
    diff = max(abs(x - y) for (_, x), (_, y) in zip(a, b, strict=True))
    return f"same ids, max |score difference| {diff:.1e}"


def gds_millis(timings: dict[str, float]) -> str:
    """GDS's own milliseconds beside the wall time (Neo4j only)."""
    keys = ("projectMillis", "preProcessingMillis", "computeMillis", "postProcessingMillis",
            "mutateMillis", "top_k_server_millis", "stream_server_millis")  # fmt: skip
    return ", ".join(f"{k} {timings[k]:.0f}" for k in keys if k in timings)


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
        a, b = pr_emb["top"], pr_neo["top"]
        assert isinstance(a, list) and isinstance(b, list)
        diff = top_difference(a, b)
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
    print(f"  GDS's own time (first call): {gds_millis(pr_neo['timings'])}")  # type: ignore[arg-type]
    print(f"  top 10 embedded vs GDS: {diff}")
    print(f"  Neo4j UNWIND … MERGE on a slice: {len(rows):,} papers in {t_nodes:.1f} s "
          f"({node_rate:,.0f}/s), {len(edges):,} citations in {t_edges:.1f} s "
          f"({edge_rate:,.0f}/s) => about {merge_full:,.0f} s for the full size")  # fmt: skip


@dataclass
class CliRun:
    """One ``scholarkg`` process: wall seconds, peak RSS, parsed JSON output."""

    wall: float
    peak_rss: int
    out: dict[str, Any]


def run_cli(home: Path, args: list[str]) -> CliRun:
    """Run ``scholarkg ARGS`` as its own process (env ``SCHOLARKG_HOME=home``): the wall time
    and the peak RSS of that very process (``os.wait4``'s ``ru_maxrss``, KiB on Linux)."""
    exe = Path(sys.executable).with_name("scholarkg")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NEO4J_")}
    env["SCHOLARKG_HOME"] = str(home)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([str(exe), *args], stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode()
        if proc.returncode != 0:
            raise SystemExit(f"scholarkg {' '.join(args)} failed: {err.read().decode()[-2000:]}")
    parsed: dict[str, Any] = {}
    if "-f" in args or "--format" in args:
        parsed = json.loads(text)
    return CliRun(wall, usage.ru_maxrss * 1024, parsed)


def cli_part(args: argparse.Namespace, root: Path) -> None:
    """The issue's targets, end to end through the CLI on both backends in one run.

    ``scholarkg load bulk`` (embedded) and ``scholarkg --backend neo4j load bulk`` (Neo4j's
    offline importer into the managed server) on the same files, then as separate processes:
    ``graph pagerank --top 10`` cold (first call after the load: projection built), warm
    (min of 3), ``--source Q`` twice (the second call is the target); peak RSS of each
    process; the top-10 ids and scores compared between the backends.
    """
    from bench_load import generate

    papers, cites = generate(root, args.bulk_papers, args.bulk_citations)
    n = args.bulk_papers
    gen = np.random.default_rng(args.seed + 1)
    source = f"p{int(gen.integers(0, n))}"
    print(f"cli: {n:,} papers, {args.bulk_citations:,} citations; PPR source {source}")
    results: dict[str, dict[str, Any]] = {}
    for backend in ("embedded", "neo4j"):
        home = root / f"home-{backend}"
        flag = ["--backend", "neo4j"] if backend == "neo4j" else []
        load = run_cli(
            home, [*flag, "load", "bulk", "--papers", str(papers), "--edges", str(cites)]
        )
        top = [*flag, "graph", "pagerank", "--top", "10", "-f", "json"]
        try:
            cold = run_cli(home, top)
            warm = [run_cli(home, top) for _ in range(3)]
            ppr = [run_cli(home, [*top, "--source", source]) for _ in range(2)]
        finally:
            run_cli(home, [*flag, "db", "stop"])
        results[backend] = {"load": load, "cold": cold, "warm": warm, "ppr": ppr}
    rows: list[tuple[str, str, str]] = []

    def both(name: str, fn: Any) -> None:
        rows.append((name, fn(results["embedded"]), fn(results["neo4j"])))

    both("load bulk (CLI)", lambda r: f"{r['load'].wall:.1f} s")
    both("graph pagerank --top 10, cold", lambda r: f"{r['cold'].wall:.1f} s")
    both("graph pagerank --top 10, warm (min of 3)",
         lambda r: f"{min(w.wall for w in r['warm']):.2f} s")  # fmt: skip
    both("graph pagerank --source Q --top 10, 1st", lambda r: f"{r['ppr'][0].wall:.2f} s")
    both("graph pagerank --source Q --top 10, 2nd", lambda r: f"{r['ppr'][1].wall:.2f} s")

    def peak(r: dict[str, Any]) -> str:
        return f"{max(c.peak_rss for c in [r['cold'], *r['warm'], *r['ppr']]) / 2**20:.0f} MB"

    both("peak RSS of the CLI process (max of these calls)", peak)
    both("records returned for the top 10 (cold / warm / PPR)",
         lambda r: "/".join(str(c.out['summary']['records']) for c in
                            (r['cold'], r['warm'][0], r['ppr'][1])))  # fmt: skip
    width = max(len(r[0]) for r in rows)
    print(f"{'':{width}}  {'embedded':>14}  {'neo4j+gds':>14}")
    for name, e, g in rows:
        print(f"{name:{width}}  {e:>14}  {g:>14}")
    neo = results["neo4j"]
    for what, run in (("cold", neo["cold"]), ("warm", neo["warm"][0]), ("PPR 2nd", neo["ppr"][1])):
        t = run.out["summary"]["timings"]
        walls = ", ".join(f"{k} {v:.2f}" for k, v in t.items() if k.endswith("_seconds"))
        print(f"  neo4j {what}: process {run.wall:.2f} s; {walls}; GDS: {gds_millis(t)}")
    for what, key in (("PageRank", "cold"), ("personalized PageRank", "ppr")):
        a, b = results["embedded"][key], results["neo4j"][key]
        a_run = a if isinstance(a, CliRun) else a[1]
        b_run = b if isinstance(b, CliRun) else b[1]
        top_a = [(r["id"], r["score"]) for r in a_run.out["top"]]
        top_b = [(r["id"], r["score"]) for r in b_run.out["top"]]
        print(f"  top 10 {what}, embedded vs Neo4j: {top_difference(top_a, top_b)}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--papers", type=int, default=20_000)
    ap.add_argument("--citations", type=int, default=150_000)
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--parts", default="rows", help="rows, bulk, cli or a comma list")
    ap.add_argument("--bulk-papers", type=int, default=1_000_000)
    ap.add_argument("--bulk-citations", type=int, default=5_000_000)
    ap.add_argument("--merge-slice", type=int, default=50_000)
    args = ap.parse_args(argv)
    reason = java_available()
    if reason:
        print(f"cannot run the managed Neo4j here: {reason}")
        return 1
    parts = set(args.parts.split(","))
    if "cli" in parts:
        with tempfile.TemporaryDirectory(prefix="bench-neo4j-cli-") as tmp:
            cli_part(args, Path(tmp))
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
            a, b = pr_emb["top"], pr_neo["top"]
            assert isinstance(a, list) and isinstance(b, list)
            diff = top_difference(a, b)
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
        ("PageRank top 10, cold (projection built)", f"{pr_emb['cold']:.2f} s",
         f"{pr_neo['cold']:.2f} s"),
        ("PageRank top 10, warm (resident projection)", f"{pr_emb['warm']:.3f} s",
         f"{pr_neo['warm']:.3f} s"),
        ("personalized PageRank top 10 per query", f"{pr_emb['ppr'] * 1000:.0f} ms",
         f"{pr_neo['ppr'] * 1000:.0f} ms"),
        ("top 10, embedded vs GDS", diff, ""),
        ("GDS's own time, first call", "", gds_millis(pr_neo["timings"])),  # type: ignore[arg-type]
    ]  # fmt: skip
    width = max(len(r[0]) for r in rows)
    print(f"{'':{width}}  {'embedded':>12}  {'neo4j+gds':>12}")
    for name, e, n in rows:
        print(f"{name:{width}}  {e:>12}  {n:>12}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

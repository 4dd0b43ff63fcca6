"""What an OpenAlex-size citation graph needs on Neo4j + GDS, from GDS's own estimates.

This machine cannot hold 250M works, so the figures are computed, not guessed:

* **projection, PageRank, FastRP memory**: GDS's memory estimation procedures
  (``gds.graph.project.estimate``, ``gds.pageRank.mutate.estimate``,
  ``gds.fastRP.mutate.estimate``) on *fictitious* graphs of each size (their ``nodeCount`` /
  ``relationshipCount`` configuration form: GDS sizes its own data structures, no data is
  needed), through ``graphalgo.resident.estimate`` — what ``graph pagerank --estimate`` prints
  for the current graph;
* **page cache**: the store on disk of a sample imported by Neo4j's offline importer (the
  importer ``scholarkg --backend neo4j load bulk`` runs, with its schema: id constraint,
  full-text and range indexes), split into bytes per node (node, property, string stores and
  indexes) and per relationship (relationship and relationship-group stores), then scaled to
  each size. The sample's papers carry a title, year and author count as ``bench_load.py``
  writes them; works with abstracts need proportionally more;
* **machine**: heap = the larger of the projection's peak and the resident graph with PageRank
  (and, in the second column, FastRP too: both run on the one resident graph, so the graph
  counts once), GDS's maxima, plus 1 GiB for Neo4j's own transactions and queries (our margin);
  RAM = heap + page cache + 2 GiB for the operating system (our margin).

    .venv/bin/python benchmarks/bench_gds_capacity.py            # 10M, 100M, 250M works
    .venv/bin/python benchmarks/bench_gds_capacity.py --works 1000000 --refs 5

Needs Java 17+ and Maven (starts its own managed Neo4j in a temporary directory).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from scholarkg.config import Neo4jSettings
from scholarkg.graphalgo.resident import estimate
from scholarkg.store.neo4j.importer import import_into_managed
from scholarkg.store.neo4j.server import ManagedNeo4j, java_available
from scholarkg.store.neo4j.store import Neo4jStore

GIB = 2**30
#: store files that grow with relationships; every other file of the database grows with nodes
REL_FILES = ("neostore.relationshipstore.db", "neostore.relationshipgroupstore.db")


def store_bytes(database_dir: Path) -> tuple[int, int]:
    """(bytes that grow with nodes, bytes that grow with relationships) of a database."""
    rel = node = 0
    for path in database_dir.rglob("*"):
        if not path.is_file() or path.name.startswith("neostore.transaction"):
            continue
        size = path.stat().st_size
        if path.name in REL_FILES or path.name.startswith(tuple(f + "." for f in REL_FILES)):
            rel += size
        else:
            node += size
    return node, rel


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, nargs="+", default=[10_000_000, 100_000_000, 250_000_000])
    ap.add_argument("--refs", type=int, default=20, help="references per work")
    ap.add_argument("--fastrp-dimension", type=int, default=256)
    ap.add_argument("--sample-works", type=int, default=100_000)
    args = ap.parse_args(argv)
    reason = java_available()
    if reason:
        print(f"cannot run the managed Neo4j here: {reason}")
        return 1
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_load import generate

    with tempfile.TemporaryDirectory(prefix="bench-gds-capacity-") as tmp:
        root = Path(tmp)
        papers, cites = generate(root, args.sample_works, args.sample_works * args.refs)
        server = ManagedNeo4j(root / "neo4j")
        server.start()
        try:
            t0 = time.perf_counter()
            imp = import_into_managed(server, papers, cites, node_count=0)
            settings = Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
            store = Neo4jStore.from_settings(settings)
            try:
                store.apply_schema()
                loaded = time.perf_counter() - t0
                per_node_b, per_rel_b = store_bytes(
                    server.dbms_dir / "data" / "databases" / "neo4j"
                )
                per_node = per_node_b / imp.nodes
                per_rel = per_rel_b / imp.relationships
                rows = []
                for works in args.works:
                    rels = works * args.refs
                    est = estimate(
                        store,
                        node_count=works,
                        relationship_count=rels,
                        fastrp_dimension=args.fastrp_dimension,
                    )
                    rows.append((works, rels, est))
            finally:
                store.close()
        finally:
            server.stop()
    print(
        f"sample: {imp.nodes:,} works, {imp.relationships:,} citations imported + schema in "
        f"{loaded:.0f} s; store {per_node:.0f} B per work (nodes, properties, indexes), "
        f"{per_rel:.0f} B per citation (relationship stores)"
    )
    print(f"GDS concurrency {rows[0][2]['concurrency']}; FastRP dimension {args.fastrp_dimension}")
    head = (
        "works", "citations", "projection GiB", "PageRank GiB (graph+algo)",
        f"FastRP-{args.fastrp_dimension} GiB (graph+algo)", "heap GiB: PageRank",
        "heap GiB: + FastRP", "page cache GiB", "RAM GiB: PageRank", "RAM GiB: + FastRP",
    )  # fmt: skip
    print(" | ".join(head))
    for works, rels, est in rows:
        projection = est["projection_max"] / GIB
        pagerank = est["pagerank_max"] / GIB
        fastrp = est["fastrp_max"] / GIB
        # the resident graph is shared: the graph once, plus PageRank's and FastRP's own parts
        pagerank_own = est["pagerank_algorithm_max"] / GIB
        heap_pr = max(projection, pagerank) + 1.0
        heap_all = max(projection, fastrp + pagerank_own) + 1.0
        cache = (works * per_node + rels * per_rel) / GIB
        print(
            f"{works / 1e6:,.0f}M | {rels / 1e9:,.1f}B | "
            f"{est['projection_min'] / GIB:.1f}–{projection:.1f} | "
            f"{est['pagerank_min'] / GIB:.1f}–{pagerank:.1f} "
            f"(PageRank's own {est['pagerank_algorithm']}) | "
            f"{est['fastrp_min'] / GIB:.1f}–{fastrp:.1f} | {heap_pr:.0f} | {heap_all:.0f} | "
            f"{cache:.0f} | {heap_pr + cache + 2:.0f} | {heap_all + cache + 2:.0f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``scholarkg suggest`` latency on a large graph: one suggestion, warm, embedded and Neo4j.

A generated OpenAlex snapshot (``bench_openalex.generate``: the real layout, titles and
abstracts, ``--refs`` references a work, ~5% of them to works outside the snapshot, i.e.
stubs) is bulk-loaded into a throwaway graph (``--home``), or an existing graph is used
(``--graph``/``--backend`` with ``--no-load``). Then, in this process:

* **cold**: a :class:`~scholarkg.recommend.model.Recommender` is built and prepared — BM25
  index over every work with text (kept beside the store), the client-side projection
  (embedded) or the resident GDS graph (Neo4j), FastRP levels where the fusion uses FastRP —
  each step timed;
* **warm**: ``--queries`` suggestions (each a generated work's title and abstract), one at a
  time, the wall time of each ``suggest`` call (text, graph inputs, fusion, the titles of the
  10 rows); median, p90 and max printed; then the same with each query's work excluded.
  On Neo4j the current route (``new``: every graph input in the server, personalized
  PageRank by the ``scholarkg.recommend.ppr`` procedure, ``exclude`` included) and the route
  before it (``old``: PageRank by ``gds.pageRank.stream`` over the whole resident graph;
  excluded queries on the client-side projection, pulled once over Bolt, that pull timed as
  ``old_exclude_cold_projection_s``) run in the same process, alternated query by query, and
  ``same_top10_*`` counts the queries whose top 10 the two give alike (``--no-old``: the new
  route only). ``--fit-queries N`` also times the leave-one-out fit on ``N`` works on each
  route (the old one with the projection already pulled); ``--per-input N`` times each
  server input alone on ``N`` queries, and all of them with ``popular`` (whose in-degree
  query reads the others' rows).

The fusion is fixed, not fitted (a fit on a million works is a separate, one-off cost, and
a fixed fusion makes runs comparable): ``--fusion all`` is RRF of every input the graph
offers (the most work a query can ask for: FastRP included), ``--fusion fitted`` the
weights fitted on the ScisummNet/AAN group graph (dense, refs, co-citation). The generated
works hold no text vectors (``embed nodes`` on a million works takes hours here), so the
dense input is absent: its cost is one query encoding (~20 ms) and one vector-index search.

    python benchmarks/bench_suggest.py --works 1000000 --snapshot-dir /tmp/oa-1m
    python benchmarks/bench_suggest.py --works 1000000 --snapshot-dir /tmp/oa-1m --backend neo4j
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _load(snapshot: Path, backend: str) -> float:
    from scholarkg.config import load_settings
    from scholarkg.loaders.openalex import snapshot_files
    from scholarkg.loaders.openalex_bulk import bulk_load_openalex
    from scholarkg.store import open_store

    cfg = load_settings()
    works, merged = snapshot_files([snapshot])
    t0 = time.perf_counter()
    store = open_store(cfg)
    try:
        if backend == "neo4j":
            store.clear()
        bulk_load_openalex(store, works, merged, settings=cfg)
    finally:
        store.close()
    if backend == "neo4j":
        store = open_store(cfg)
        store.apply_schema()
        store.close()
    return time.perf_counter() - t0


def _texts(snapshot: Path, n: int, seed: int) -> list[tuple[str, str]]:
    """``(work id, title + abstract)`` of ``n`` generated works (the first part file)."""
    import gzip

    from scholarkg.schema.ids import paper_id

    part = sorted(snapshot.glob("data/works/*/part_*.gz"))[0]
    rows = []
    with gzip.open(part, "rt", encoding="utf-8") as fh:
        for line in fh:
            w = json.loads(line)
            index = w["abstract_inverted_index"]
            words = {p: word for word, ps in index.items() for p in ps}
            text = w["title"] + "\n" + " ".join(words[p] for p in sorted(words))
            doi = (w.get("doi") or "").replace("https://doi.org/", "") or None
            wid = paper_id(doi=doi, openalex_id=w["id"].rsplit("/", 1)[-1])
            rows.append((wid, text))
            if len(rows) >= 20 * n:
                break
    return random.Random(seed).sample(rows, n)


def _stats(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {
        "median_s": round(statistics.median(xs), 3),
        "p90_s": round(xs[int(0.9 * (len(xs) - 1))], 3),
        "max_s": round(xs[-1], 3),
    }


ALL_INPUTS = "refs+cocited+coupled+ppr+popular"


def _gds_pagerank(store: Any) -> Any:
    """The server route before ``scholarkg.recommend.ppr`` (for old-vs-new figures): the
    same signals, personalized PageRank by ``gds.pageRank.stream`` over the whole resident
    GDS graph (which cannot leave works out)."""
    from scholarkg.benchmark.rankers.base import Ranking
    from scholarkg.graphalgo.resident import require_gds, resident_gds_graph
    from scholarkg.recommend.signals import PPR, ServerSignals, _ranking
    from scholarkg.store.base import PageRankConfig

    class GdsPageRank(ServerSignals):
        engine = "server-gds-ppr"

        def _ppr(self, seeds: Any, exclude: frozenset[str], depth: int) -> Ranking:
            if exclude:
                raise RuntimeError("GDS PageRank cannot leave works out")
            gds = require_gds(self.store, "personalized PageRank on the server")
            graph = resident_gds_graph(self.store, "Paper", ("CITES",))
            cfg = PageRankConfig(
                PPR.damping_factor,
                PPR.max_iterations,
                PPR.tolerance,
                source_nodes=dict.fromkeys(seeds, 1.0),
            )
            top = gds.personalized_top(graph.name, "Paper", cfg, depth + len(seeds))
            drop = set(seeds)
            scores = {i: float(v) for i, v in top.rows if i not in drop and v > 0}
            return _ranking("ppr", scores, depth)

    return GdsPageRank(store)


def _use(rec: Any, route: Any) -> bool:
    """Route ``rec``'s graph inputs: a server signals object, or None (the projection)."""
    rec.server = route
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, default=1_000_000)
    ap.add_argument("--refs", type=int, default=5, help="references a work (5: 5M citations)")
    ap.add_argument("--backend", choices=("embedded", "neo4j"), default="embedded")
    ap.add_argument("--snapshot-dir", type=Path, default=None)
    ap.add_argument("--home", type=Path, default=None, help="throwaway SCHOLARKG_HOME")
    ap.add_argument("--no-load", action="store_true", help="the graph is loaded already")
    ap.add_argument("--queries", type=int, default=20)
    ap.add_argument("--fusion", choices=("all", "fitted"), default="fitted")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fit-queries", type=int, default=0, help="also time a fit on this many works")
    ap.add_argument(
        "--per-input", type=int, default=0, help="Neo4j: time each server input on N queries"
    )
    ap.add_argument(
        "--no-old", action="store_true", help="Neo4j: skip the old routes (GDS PPR, projection)"
    )
    args = ap.parse_args(argv)

    home = args.home or Path(tempfile.mkdtemp(prefix="bench-suggest-"))
    os.environ["SCHOLARKG_HOME"] = str(home)
    os.environ["SCHOLARKG_BACKEND"] = args.backend
    os.environ.setdefault("SCHOLARKG_GRAPH", "bench_suggest")
    snapshot = args.snapshot_dir or home / "snapshot"
    out: dict[str, Any] = {"works": args.works, "refs": args.refs, "backend": args.backend}
    if not (snapshot / "data").is_dir():
        from bench_openalex import generate

        t0 = time.perf_counter()
        generate(snapshot, args.works, refs=args.refs)
        out["generate_s"] = round(time.perf_counter() - t0, 1)
    if not args.no_load:
        out["bulk_load_s"] = round(_load(snapshot, args.backend), 1)

    from scholarkg.config import load_settings
    from scholarkg.recommend.fusion import Fusion
    from scholarkg.recommend.model import Recommender
    from scholarkg.store import open_store

    store = open_store(load_settings())
    try:
        out["graph"] = {k: v for k, v in store.counts().nodes.items() if k in ("Paper", "Stub")}
        out["graph"]["CITES"] = store.counts().relationships.get("CITES")
        stages: dict[str, float] = {}
        last = [time.perf_counter()]

        def progress(stage: str, done: int, total: int | None) -> None:
            now = time.perf_counter()
            stages[stage] = round(stages.get(stage, 0.0) + now - last[0], 1)
            last[0] = now

        t0 = time.perf_counter()
        rec = Recommender(store, progress=progress)
        rec.prepare(fit=False)
        if args.fusion == "fitted":  # the AAN group graph's fit (docs/results-real.md)
            rec.fusion = Fusion("combsum", ("dense", "refs", "cocited"), (0.2, 0.5, 0.3))
        else:
            rec.fusion = Fusion("rrf", rec.available(), None, 60)
        queries = _texts(snapshot, args.queries, args.seed)
        rec.suggest(queries[0][1], 10)  # the first query builds what the inputs need
        out["cold_s"] = round(time.perf_counter() - t0, 1)
        out["cold_stages_s"] = dict(stages)
        out["engine"] = "server" if rec.server is not None else "projection"
        out["fusion"] = rec.fusion.describe()
        # Neo4j, old and new in the same run, alternated query by query: "new" is the server
        # route (PPR by the scholarkg.recommend.ppr procedure, exclude in the server); "old"
        # is the route before it (PPR by gds.pageRank.stream over the whole resident graph;
        # exclude on the client-side projection of the whole graph, pulled once over Bolt)
        server = rec.server
        old = _gds_pagerank(store) if server is not None and not args.no_old else None
        routes: dict[str, Any] = {"new": server} if old is None else {"new": server, "old": old}
        if old is not None:  # once, so that the GDS graph is resident before timing
            _use(rec, old)
            rec.suggest(queries[0][1], 10)
            _use(rec, server)
        warm: dict[str, list[float]] = {name: [] for name in routes}
        tops: dict[str, list[list[str]]] = {name: [] for name in routes}
        for _, text in queries:
            for name, route in routes.items():
                _use(rec, route)
                t1 = time.perf_counter()
                got = rec.suggest(text, 10)
                warm[name].append(time.perf_counter() - t1)
                tops[name].append([r.id for r in got.rows])
        _use(rec, server)
        for name in routes:
            out[f"warm_{name}" if old is not None else "warm"] = _stats(warm[name])
        if old is not None:
            same = zip(tops["new"], tops["old"], strict=True)
            out["same_top10_old_new"] = sum(a == b for a, b in same)
        # with each query's work excluded; old on Neo4j: the client-side projection
        ex_routes: dict[str, Any] = {"new": server}
        if old is not None:
            ex_routes["old"] = None
            _use(rec, None)
            t1 = time.perf_counter()
            rec.suggest(queries[0][1], 10, exclude=[queries[0][0]])  # pulls the projection
            out["old_exclude_cold_projection_s"] = round(time.perf_counter() - t1, 1)
            _use(rec, server)
        else:
            rec.suggest(queries[0][1], 10, exclude=[queries[0][0]])
        excl: dict[str, list[float]] = {name: [] for name in ex_routes}
        ex_tops: dict[str, list[list[str]]] = {name: [] for name in ex_routes}
        for wid, text in queries:
            for name, route in ex_routes.items():
                _use(rec, route)
                t1 = time.perf_counter()
                got = rec.suggest(text, 10, exclude=[wid])
                excl[name].append(time.perf_counter() - t1)
                ex_tops[name].append([r.id for r in got.rows])
        _use(rec, server)
        for name in ex_routes:
            key = f"warm_exclude_{name}" if old is not None else "warm_exclude"
            out[key] = _stats(excl[name])
        if old is not None:
            out["same_top10_exclude_old_new"] = sum(
                a == b for a, b in zip(ex_tops["new"], ex_tops["old"], strict=True)
            )
        if args.fit_queries:  # the leave-one-out fit (every query excludes its own work)
            from scholarkg.recommend.fit import fit_recommender

            inputs = rec.graph_inputs
            for name, route in ex_routes.items():
                _use(rec, route)
                if route is None and server is not None:  # the old fit's inputs: the server's
                    rec.graph_inputs = server.available  # type: ignore[method-assign]  # old
                t1 = time.perf_counter()
                record = fit_recommender(rec, n_queries=args.fit_queries)
                rec.graph_inputs = inputs  # type: ignore[method-assign]  # restored
                out[f"fit_{name}_s"] = round(time.perf_counter() - t1, 1)
                out[f"fit_{name}"] = record.fusion.describe()
            _use(rec, server)
        if args.per_input and server is not None:  # each server input alone
            per: dict[str, list[float]] = {}
            for wid, text in queries[: args.per_input]:
                seeds = rec.seeds(rec.text.bm25_ranking(text, 100, frozenset()), None)
                for ex in (frozenset(), frozenset({wid})):
                    for name in ("refs", "cocited", "coupled", "ppr", ALL_INPUTS):
                        t1 = time.perf_counter()
                        server.signals(seeds, ex, 100, set(name.split("+")))
                        key = f"{name}{' exclude' if ex else ''}"
                        per.setdefault(key, []).append(time.perf_counter() - t1)
            out["per_input"] = {k: _stats(v) for k, v in sorted(per.items())}
        bm = []
        for _, text in queries:
            t1 = time.perf_counter()
            rec.suggest(text, 10, method="bm25")
            bm.append(time.perf_counter() - t1)
        out["warm_bm25_only"] = _stats(bm)
    finally:
        store.close()
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

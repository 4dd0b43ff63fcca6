"""``load openalex`` throughput: a generated snapshot in OpenAlex's real layout
(``data/works/updated_date=YYYY-MM-DD/part_NNN.gz``, gzipped JSON Lines, ~20 references a
work, authorships, venue, topics, an abstract inverted index), loaded

* with ``--bulk`` (``loaders/openalex_bulk``: snapshot → GRAPH.BULK) into a new graph, and
* incrementally (identity resolution + resumable MERGE batches, what a daily update runs),

on a throwaway embedded server, printing works/s and the process's peak RSS for each. The
incremental load is the obvious alternative to the bulk path, measured in the same run (on
``--incremental-works`` works: it is ~two orders of magnitude slower).

    python benchmarks/bench_openalex.py --works 1000000 --incremental-works 20000 \\
        --snapshot-dir /tmp/openalex-snapshots
    python benchmarks/bench_openalex.py --works 20000 --backend neo4j   # managed Neo4j

Each phase runs in its own process, so peak memory is that phase's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import multiprocessing as mp
import random
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WORDS = [
    "graph", "citation", "model", "data", "learning", "network", "paper", "method", "result",
    "analysis", "study", "corpus", "query", "ranking", "retrieval", "benchmark", "evaluation",
    "open", "scholarly", "identity",
]  # fmt: skip


def generate(
    root: Path, works: int, *, refs: int = 20, per_part: int = 50_000, seed: int = 7
) -> Path:
    """A synthetic snapshot: works W1..Wn over several updated_date partitions; ~5% of the
    references point outside the snapshot (stubs)."""
    rng = random.Random(seed)
    base = root / "data" / "works"
    n_parts = max(1, (works + per_part - 1) // per_part)
    for part in range(n_parts):
        date = f"2025-{1 + part // 28 % 12:02d}-{1 + part % 28:02d}"
        path = base / f"updated_date={date}" / f"part_{part:03d}.gz"
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as fh:
            for w in range(part * per_part + 1, min(works, (part + 1) * per_part) + 1):
                k = max(0, int(rng.gauss(refs, 5)))
                cited = [rng.randint(1, int(works * 1.05)) for _ in range(k)]
                words = [rng.choice(WORDS) for _ in range(rng.randint(80, 160))]
                index: dict[str, list[int]] = {}
                for pos, word in enumerate(words):
                    index.setdefault(word, []).append(pos)
                work: dict[str, Any] = {
                    "id": f"https://openalex.org/W{w}",
                    "doi": f"https://doi.org/10.5555/{w}" if w % 4 else None,
                    "title": " ".join(rng.choice(WORDS) for _ in range(8)),
                    "publication_year": 2000 + w % 25,
                    "publication_date": f"{2000 + w % 25}-01-01",
                    "type": "article",
                    "language": "en",
                    "ids": {"openalex": f"https://openalex.org/W{w}", "mag": str(w * 7)},
                    "cited_by_count": w % 100,
                    "open_access": {"is_oa": bool(w % 2), "oa_status": "green", "oa_url": None},
                    "authorships": [
                        {"author_position": "first" if i == 0 else "middle",
                         "author": {"id": f"https://openalex.org/A{rng.randint(1, works)}",
                                    "display_name": f"Author {rng.randint(1, works)}",
                                    "orcid": None},
                         "institutions": [{"display_name": f"Institute {w % 500}"}],
                         "raw_author_name": "A. Author"}
                        for i in range(3)
                    ],
                    "primary_location": {"source": {"display_name": f"Venue {w % 2000}"}},
                    "topics": [{"display_name": rng.choice(WORDS), "score": 0.9}],
                    "referenced_works": [f"https://openalex.org/W{c}" for c in cited if c != w],
                    "related_works": [],
                    "abstract_inverted_index": index,
                }  # fmt: skip
                fh.write(json.dumps(work) + "\n")
    return root


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _bulk(snapshot: str, backend: str, out: Any) -> None:
    from scholarkg.config import load_settings
    from scholarkg.loaders.openalex import snapshot_files
    from scholarkg.loaders.openalex_bulk import bulk_load_openalex
    from scholarkg.store import open_store

    cfg = load_settings()
    works, merged = snapshot_files([Path(snapshot)])
    t0 = time.perf_counter()
    store = open_store(cfg)
    try:
        res = bulk_load_openalex(store, works, merged, settings=cfg)
    finally:
        store.close()
    if backend == "neo4j":
        store = open_store(cfg)
        store.apply_schema()
        store.close()
    res["wall_seconds"] = time.perf_counter() - t0
    res["peak_rss_mb"] = _peak_mb()
    out.put(res)


def _incremental(snapshot: str, backend: str, out: Any) -> None:
    from scholarkg.config import load_settings
    from scholarkg.loaders import openalex
    from scholarkg.loaders.identity import IdentityResolver
    from scholarkg.loaders.steps import Step, run_steps
    from scholarkg.store import open_store

    cfg = load_settings()
    works, _ = openalex.snapshot_files([Path(snapshot)])
    store = open_store(cfg)
    t0 = time.perf_counter()
    try:
        store.apply_schema()
        resolver = IdentityResolver(store, chunk=2_000)
        steps = [
            Step("w", f, "bench-openalex", lambda f=f: resolver.resolve(openalex.read_works(f)))
            for f in works
        ]
        summary = run_steps(store, steps, settings=cfg, batch_size=2_000)
        resolver.finish()
        counts = store.counts()
    finally:
        store.close()
    out.put({
        "works": sum(s.records for s in summary.stats),
        "nodes": counts.total_nodes,
        "relationships": counts.total_relationships,
        "wall_seconds": time.perf_counter() - t0,
        "peak_rss_mb": _peak_mb(),
    })  # fmt: skip


def _run(target: Any, *args: Any) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=(*args, q))
    p.start()
    res = q.get()
    p.join()
    return dict(res)


def _fresh(backend: str, home: Path) -> None:
    """Point the phase processes at a new, empty graph (embedded) or the managed Neo4j."""
    import os

    os.environ["SCHOLARKG_HOME"] = str(home)
    os.environ["SCHOLARKG_DATA_DIR"] = str(home / "falkordb")
    os.environ["SCHOLARKG_BACKEND"] = backend
    os.environ["SCHOLARKG_GRAPH"] = f"bench_{int(time.time() * 1000)}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, default=100_000, help="works in the bulk snapshot")
    ap.add_argument("--incremental-works", type=int, default=20_000)
    ap.add_argument("--backend", choices=("embedded", "neo4j"), default="embedded")
    ap.add_argument("--skip-bulk", action="store_true")
    ap.add_argument("--skip-incremental", action="store_true")
    ap.add_argument(
        "--snapshot-dir",
        type=Path,
        default=None,
        help="keep generated snapshots here and reuse them (generation is slow)",
    )
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-openalex-"))
    home = tmp / "home"
    try:
        rows = []
        for phase, n, skip, fn in (
            ("bulk", args.works, args.skip_bulk, _bulk),
            ("incremental", args.incremental_works, args.skip_incremental, _incremental),
        ):
            if skip:
                continue
            t0 = time.perf_counter()
            where = (args.snapshot_dir or tmp) / f"snap-{n}"
            snap = where if (where / "done").exists() else generate(where, n)
            (snap / "done").touch()
            gen = time.perf_counter() - t0
            size = sum(f.stat().st_size for f in snap.rglob("*.gz")) / 1e6
            _fresh(args.backend, home)
            res = _run(fn, str(snap), args.backend)
            rows.append((phase, n, res))
            print(f"{phase} ({args.backend}): {n:,} works, {size:,.0f} MB gzipped "
                  f"(generated in {gen:.0f} s)")  # fmt: skip
            print(f"  {res['wall_seconds']:.1f} s = {n / res['wall_seconds']:,.0f} works/s; "
                  f"peak RSS {res['peak_rss_mb']:,.0f} MB", flush=True)  # fmt: skip
            print(f"  {json.dumps(res)}", flush=True)
        return 0
    finally:
        if args.backend == "embedded":
            try:
                from scholarkg.store.falkordb.server import EmbeddedServer

                EmbeddedServer(home / "falkordb").stop()
            except Exception as err:  # best effort: report, don't mask the result
                print(f"could not stop the benchmark server: {err}", file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())

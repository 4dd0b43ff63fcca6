"""Load-path benchmark: GRAPH.BULK vs UNWIND/MERGE on the embedded FalkorDB server.

Generates a synthetic corpus (papers JSONL + ``start,end`` CSV citation list, random
edges with a fixed seed), then in the same run:

1. bulk path: ``scholarkg.store.falkordb.bulk.bulk_load_papers`` into a new graph (parse, send
   and schema phases timed separately), then a whole-graph ``edge_snapshot`` and
   PageRank on it;
2. plain path: ``merge_nodes`` + ``merge_relationships`` (10k-row UNWIND batches, MERGE
   on the ``id`` index) on a *slice* (``--merge-nodes`` / ``--merge-edges``), because the
   full size would take many minutes; the full-size time is extrapolated linearly from
   the measured rates and printed as such.

3. ``--readers``: the parse candidates for the bulk path on the same two files, each
   to columns (no encoding): the stdlib line reader (``json.loads`` / ``csv``), orjson
   line by line, pyarrow's JSON and CSV readers, polars' ``read_ndjson`` / ``read_csv``
   (where installed) — the figures behind the choice of pyarrow in ``store/falkordb/bulk_arrow.py``;
4. ``--dirty N``: a copy of the papers file with a NUL and a CRLF planted in every Nth title
   (what PDF-extracted releases carry), bulk-loaded twice on the same server: the columnar
   reader, which cleans such text with Arrow kernels, and the line reader (the record
   sanitiser per value), which is where such a file used to go (before that, it was refused);
5. ``--previous REF``: the same bulk load with ``store/falkordb/bulk.py`` as it is at git ``REF``
   (e.g. ``main``, the pre-issue-22 path), loaded from git into this process, so both are
   measured in the same run on the same server; the ratio is printed.

Peak RSS of the server and of this client process are sampled every 50 ms per phase.

    .venv/bin/python benchmarks/bench_load.py            # 1M papers / 5M citations
    .venv/bin/python benchmarks/bench_load.py --small    # 100k / 500k
    .venv/bin/python benchmarks/bench_load.py --persistent --readers --previous main \
        --skip-merge                                     # issue 22's figures
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import psutil

from scholarkg.store.falkordb.bulk import BulkResult, bulk_load_papers
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

WORDS = [
    "graph",
    "neural",
    "citation",
    "retrieval",
    "ranking",
    "benchmark",
    "dataset",
    "model",
    "learning",
    "scientific",
    "transformer",
    "attention",
    "embedding",
    "knowledge",
    "query",
    "leaderboard",
    "review",
    "code",
    "paper",
    "network",
]


def generate(workdir: Path, n_nodes: int, n_edges: int, seed: int = 7) -> tuple[Path, Path]:
    """Synthetic papers (id, title, year, n_authors) and uniformly random citations."""
    rng = random.Random(seed)
    papers = workdir / f"papers_{n_nodes}.jsonl"
    edges = workdir / f"cites_{n_nodes}_{n_edges}.csv"
    if not papers.exists():
        with papers.open("w", encoding="utf-8") as fh:
            for i in range(n_nodes):
                title = " ".join(rng.choice(WORDS) for _ in range(6))
                row = {"id": f"p{i}", "title": title, "year": 1990 + i % 35, "n_authors": i % 9}
                fh.write(json.dumps(row) + "\n")
    if not edges.exists():
        gen = np.random.default_rng(seed)
        with edges.open("w", encoding="utf-8") as fh:
            fh.write("start,end\n")
            step = 1_000_000
            for lo in range(0, n_edges, step):
                k = min(step, n_edges - lo)
                src = gen.integers(0, n_nodes, k)
                dst = gen.integers(0, n_nodes, k)
                fh.write("".join(f"p{a},p{b}\n" for a, b in zip(src, dst, strict=True)))
    return papers, edges


def dirty_copy(papers: Path, every: int) -> Path:
    """``papers`` with ``"\\u0000"`` and ``"\\r\\n"`` in every ``every``-th title."""
    out = papers.with_name(f"{papers.stem}_dirty{every}.jsonl")
    with papers.open(encoding="utf-8") as src, out.open("w", encoding="utf-8") as dst:
        for i, line in enumerate(src):
            if i % every == 0:
                row = json.loads(line)
                row["title"] = row["title"].replace(" ", "\u0000 ", 1) + "\r\nsecond line"
                line = json.dumps(row) + "\n"
            dst.write(line)
    return out


def bench_dirty(server: EmbeddedServer, papers: Path, cites: Path, every: int) -> dict[str, Any]:
    """The dirty copy bulk-loaded by the columnar reader (cleaning in Arrow) and by the line
    reader, on the same server; both must store the same cleaned graph size."""
    dirty = dirty_copy(papers, every)
    out: dict[str, Any] = {"every": every}
    for name, columnar in (("columnar_clean_s", True), ("line_reader_s", False)):
        store = FalkorDBStore(server.connect(), f"bench_dirty_{name}")
        t = time.perf_counter()
        res = bulk_load_papers(store, dirty, cites, columnar=columnar)
        out[name] = time.perf_counter() - t
        out[f"{name[:-2]}_cleaned"] = res.cleaned
        assert (len(res.fast_files) == 2) == columnar, res
        store.clear()
        store.close()
    out["speedup"] = out["line_reader_s"] / out["columnar_clean_s"]
    dirty.unlink()
    return out


class PeakRSS:
    """Samples the RSS of the server and of this process; ``phase()`` resets the peaks."""

    def __init__(self, server_pid: int) -> None:
        self.server = psutil.Process(server_pid)
        self.client = psutil.Process(os.getpid())
        self.peak = {"server": 0, "client": 0}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.peak["server"] = max(self.peak["server"], self.server.memory_info().rss)
                self.peak["client"] = max(self.peak["client"], self.client.memory_info().rss)
            except psutil.Error:
                pass
            time.sleep(0.05)

    @contextmanager
    def phase(self) -> Iterator[dict[str, int]]:
        self.peak = {"server": 0, "client": 0}
        out: dict[str, int] = {}
        yield out
        time.sleep(0.06)
        out.update(self.peak)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()


def _timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bench_readers(papers: Path, cites: Path, repeat: int) -> dict[str, dict[str, float]]:
    """Seconds to read the node JSONL and the edge CSV into columns, per candidate (min of
    ``repeat``); each candidate's row counts are checked against the stdlib reader's."""

    def stdlib_nodes() -> int:
        with papers.open(encoding="utf-8") as fh:
            return len([json.loads(line) for line in fh if line.strip()])

    def stdlib_edges() -> int:
        with cites.open(encoding="utf-8", newline="") as fh:
            rows = csv.reader(fh)
            next(rows)
            return len([(r[0], r[1]) for r in rows if r])

    out: dict[str, dict[str, float]] = {}
    candidates: dict[str, tuple[Callable[[], int], Callable[[], int]]] = {
        "stdlib (json/csv, line by line)": (stdlib_nodes, stdlib_edges)
    }
    try:
        import orjson

        def orjson_nodes() -> int:
            with papers.open("rb") as fh:
                return len([orjson.loads(line) for line in fh if line.strip()])

        def orjson_edges() -> int:  # no CSV in orjson: bytes split, as a best case
            with cites.open("rb") as fh:
                next(fh)
                return len([line.rstrip(b"\n").split(b",") for line in fh if line.strip()])

        candidates["orjson (line by line)"] = (orjson_nodes, orjson_edges)
    except ImportError:
        pass
    import pyarrow.csv as pacsv
    import pyarrow.json as pajson

    candidates["pyarrow (json/csv readers)"] = (
        lambda: pajson.read_json(papers).num_rows,
        lambda: pacsv.read_csv(cites).num_rows,
    )
    try:
        import polars as pl

        candidates["polars (read_ndjson/read_csv)"] = (
            lambda: pl.read_ndjson(papers).height,
            lambda: pl.read_csv(cites, schema={"start": pl.String, "end": pl.String}).height,
        )
    except ImportError:
        pass
    expected: tuple[int, int] | None = None
    for name, (nodes_fn, edges_fn) in candidates.items():
        n_s, n = _timed(nodes_fn, repeat)
        e_s, e = _timed(edges_fn, repeat)
        if expected is None:
            expected = (int(n), int(e))  # type: ignore[arg-type]
        assert (n, e) == expected, (name, n, e, expected)
        out[name] = {
            "nodes_s": round(n_s, 2),
            "edges_s": round(e_s, 2),
            "total_s": round(n_s + e_s, 2),
        }
        print(json.dumps({"reader": name} | out[name]), flush=True)
    return out


def previous_bulk_module(ref: str) -> Any:
    """``scholarkg/store/falkordb/bulk.py`` as it is at git ``ref``, imported under another name."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "-C", str(root), "show", f"{ref}:scholarkg/store/falkordb/bulk.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    spec = importlib.util.spec_from_loader("scholarkg_bulk_previous", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    exec(compile(source, f"{ref}:scholarkg/store/falkordb/bulk.py", "exec"), module.__dict__)
    return module


def bulk_figures(res: BulkResult, wall: float, nodes: int, edges: int) -> dict[str, float]:
    return {
        "parse_s": round(res.parse_seconds, 2),
        "send_s": round(res.send_seconds, 2),
        "schema_s": round(res.schema_seconds, 2),
        "of_which_indexes_s": round(getattr(res, "index_seconds", 0.0), 2),
        "of_which_aof_rewrite_s": round(getattr(res, "compact_seconds", 0.0), 2),
        "total_s": round(wall, 2),
        "nodes_per_s": round(nodes / wall),
        "rels_per_s": round(edges / wall),
    }


def mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MB"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--nodes", type=int, default=1_000_000)
    ap.add_argument("--edges", type=int, default=5_000_000)
    ap.add_argument("--small", action="store_true", help="100k nodes / 500k edges")
    ap.add_argument("--merge-nodes", type=int, default=50_000, help="plain-path slice (nodes)")
    ap.add_argument("--merge-edges", type=int, default=250_000, help="plain-path slice (edges)")
    ap.add_argument("--workdir", type=Path, default=None, help="keep generated files here")
    ap.add_argument("--persistent", action="store_true", help="AOF on (default: ephemeral)")
    ap.add_argument("--no-schema", action="store_true", help="skip apply_schema after bulk")
    ap.add_argument("--json", type=Path, default=None, help="also write figures as JSON")
    ap.add_argument("--readers", action="store_true", help="time the parse candidates too")
    ap.add_argument("--repeat", type=int, default=2, help="runs per reader figure (min kept)")
    ap.add_argument("--previous", metavar="REF", default=None, help="also load with bulk.py@REF")
    ap.add_argument("--skip-merge", action="store_true", help="skip the UNWIND/MERGE slice")
    ap.add_argument(
        "--dirty", type=int, default=0, metavar="N", help="NUL + CRLF in every Nth title"
    )
    args = ap.parse_args(argv)
    if args.small:
        args.nodes, args.edges = 100_000, 500_000
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="skg-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    data_dir = Path(tempfile.mkdtemp(prefix="skg-bench-db-"))
    figures: dict[str, object] = {"nodes": args.nodes, "edges": args.edges, "cpus": os.cpu_count()}

    t = time.perf_counter()
    papers, cites = generate(workdir, args.nodes, args.edges)
    print(
        f"generated {args.nodes:,} papers / {args.edges:,} citations "
        f"in {time.perf_counter() - t:.1f} s ({workdir})"
    )
    if not args.skip_merge:
        m_papers, m_cites = generate(workdir, args.merge_nodes, args.merge_edges, seed=11)
    if args.readers:
        figures["readers"] = bench_readers(papers, cites, args.repeat)

    server = EmbeddedServer(data_dir, persistent=args.persistent)
    server.start()
    rss = PeakRSS(server.status().pid or 0)
    try:
        # -- bulk path -----------------------------------------------------------------
        if args.previous:
            previous = previous_bulk_module(args.previous)
            store = FalkorDBStore(server.connect(), "bench_bulk_previous")
            t = time.perf_counter()
            res = previous.bulk_load_papers(store, papers, cites, apply_schema=not args.no_schema)
            store.compact()  # what the CLI's session does at the end (a no-op when clean)
            wall = time.perf_counter() - t
            counts = store.counts()
            assert counts.relationships.get("CITES") == args.edges, counts
            figures["bulk_previous"] = {"ref": args.previous} | bulk_figures(
                res, wall, args.nodes, args.edges
            )
            print(json.dumps({"bulk_previous": figures["bulk_previous"]}), flush=True)
            store.clear()
            store.compact()
            store.close()
        store = FalkorDBStore(server.connect(), "bench_bulk")
        with rss.phase() as mem:
            t = time.perf_counter()
            res = bulk_load_papers(store, papers, cites, apply_schema=not args.no_schema)
            store.compact()
            wall = time.perf_counter() - t
        figures["bulk_now"] = bulk_figures(res, wall, args.nodes, args.edges) | {
            "fast_files": len(res.fast_files),
            "line_files": len(res.line_files),
        }
        if args.previous:
            ratio = figures["bulk_previous"]["total_s"] / figures["bulk_now"]["total_s"]
            figures["bulk_now"]["speedup_vs_previous"] = round(ratio, 2)
        print(json.dumps({"bulk_now": figures["bulk_now"]}), flush=True)
        counts = store.counts()
        assert counts.nodes.get("Paper") == args.nodes, counts
        assert counts.relationships.get("CITES") == args.edges, counts
        load_s = res.parse_seconds + res.send_seconds
        figures["bulk"] = {
            "parse_s": res.parse_seconds,
            "send_s": res.send_seconds,
            "schema_s": res.schema_seconds,
            "total_s": res.seconds,
            "nodes_per_s": args.nodes / load_s,
            "rels_per_s": args.edges / load_s,
            "server_peak_rss": mem["server"],
            "client_peak_rss": mem["client"],
        }
        with rss.phase() as mem:
            t = time.perf_counter()
            snap = store.edge_snapshot("Paper", "CITES")
            snap_s = time.perf_counter() - t
            t = time.perf_counter()
            pr = store.pagerank("Paper", "CITES")
            pr_s = time.perf_counter() - t
        assert len(snap.ids) == args.nodes and len(snap.src) == args.edges
        figures["snapshot"] = {
            "edge_snapshot_s": snap_s,
            "pagerank_total_s": pr_s,
            "pagerank_compute_ms": pr.compute_millis,
            "server_peak_rss": mem["server"],
            "client_peak_rss": mem["client"],
        }
        store.clear()
        store.close()

        if args.dirty:
            figures["dirty"] = bench_dirty(server, papers, cites, args.dirty)
            print(json.dumps({"dirty": figures["dirty"]}), flush=True)

        if not args.skip_merge:
            # -- plain UNWIND/MERGE path on a slice -----------------------------------------
            store = FalkorDBStore(server.connect(), "bench_merge")
            store.apply_schema()
            with rss.phase() as mem:
                t = time.perf_counter()
                with papers_rows(m_papers) as rows:
                    store.merge_nodes("Paper", rows)
                nodes_s = time.perf_counter() - t
                t = time.perf_counter()
                with edge_rows(m_cites) as rows:
                    written = store.merge_relationships("CITES", "Paper", "Paper", rows)
                rels_s = time.perf_counter() - t
            n_rate, r_rate = args.merge_nodes / nodes_s, args.merge_edges / rels_s
            figures["merge"] = {
                "slice_nodes": args.merge_nodes,
                "slice_edges": args.merge_edges,
                "written_edges": written,
                "nodes_s": nodes_s,
                "rels_s": rels_s,
                "nodes_per_s": n_rate,
                "rels_per_s": r_rate,
                "extrapolated_full_s": args.nodes / n_rate + args.edges / r_rate,
                "server_peak_rss": mem["server"],
                "client_peak_rss": mem["client"],
            }
            store.clear()
            store.close()
    finally:
        rss.close()
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)

    b, s = figures["bulk"], figures["snapshot"]
    print(f"\nGRAPH.BULK, {args.nodes:,} nodes + {args.edges:,} CITES ({os.cpu_count()} CPUs)")
    print(
        f"  parse+encode {b['parse_s']:.1f} s, send {b['send_s']:.1f} s, "
        f"schema {b['schema_s']:.1f} s, total {b['total_s']:.1f} s"
    )
    print(f"  {b['nodes_per_s']:,.0f} nodes/s, {b['rels_per_s']:,.0f} rels/s (parse+send)")
    print(f"  peak RSS server {mb(b['server_peak_rss'])}, client {mb(b['client_peak_rss'])}")
    print(
        f"edge_snapshot {s['edge_snapshot_s']:.1f} s; pagerank total {s['pagerank_total_s']:.1f} s "
        f"(compute {s['pagerank_compute_ms']:.0f} ms); peak RSS server "
        f"{mb(s['server_peak_rss'])}, client {mb(s['client_peak_rss'])}"
    )
    if "merge" in figures:
        m = figures["merge"]
        print(
            f"UNWIND/MERGE slice {m['slice_nodes']:,} nodes + {m['slice_edges']:,} edges: "
            f"{m['nodes_per_s']:,.0f} nodes/s, {m['rels_per_s']:,.0f} rels/s; "
            f"peak RSS server {mb(m['server_peak_rss'])}, client {mb(m['client_peak_rss'])}"
        )
        print(f"  extrapolated (linear) to the full size: {m['extrapolated_full_s']:,.0f} s")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


@contextmanager
def papers_rows(path: Path) -> Iterator[Iterator[dict[str, object]]]:
    with path.open(encoding="utf-8") as fh:
        yield (json.loads(line) for line in fh)


@contextmanager
def edge_rows(path: Path) -> Iterator[Iterator[dict[str, object]]]:
    with path.open(encoding="utf-8") as fh:
        next(fh)
        yield ({"start": a, "end": b} for a, b in (ln.rstrip("\n").split(",") for ln in fh))


if __name__ == "__main__":
    sys.exit(main())

"""SciReplicate-Bench: loading Data.json into the graph, and scoring 100 predictions.

Targets (issue 14): loading ``Data.json`` <= 10 s; scoring 100 predictions (everything but
execution: CodeBLEU, reasoning-graph accuracy with the offline embedding matcher, recall)
<= 30 s. Measured in one run, each beside the obvious alternative:

* **load**: the loader's batched path (``read_scireplicate`` -> ``run_resumable``, UNWIND/MERGE
  batches, what ``scholarkg load scireplicate`` runs) vs one MERGE statement per record, on a
  synthetic benchmark at the released size (36 papers, 100 tasks, with LaTeX sources and
  repositories), and the batched path on the released file when given (``--data``);
* **score**: ``score_files`` with the step texts of all tasks encoded in one batch (ours) vs
  ``embedding_matches`` called per task (one encoder call per task, as a plain loop over the
  metrics library would do), on predictions whose step descriptions are reworded (so the
  matcher really encodes them); plus the reference as predictions (no encoding needed), the
  int8 backend, and a second scoring with the reference step vectors already cached.
  (Measured: the one batch gains nothing over per-task calls on one thread; the cache and
  int8 do.) Wall and CPU seconds are both printed.

    .venv/bin/python benchmarks/bench_scireplicate.py
    .venv/bin/python benchmarks/bench_scireplicate.py --data /path/to/Data.json

The machine is shared: the load average is printed with the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scholarkg.loaders.checkpoint import run_resumable
from scholarkg.loaders.scireplicate import ScireplicateReport, read_scireplicate
from scholarkg.loaders.scireplicate_data import read_benchmark
from scholarkg.schema.ddl import default_schema
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.synthetic.scireplicate import generate, write_benchmark

_SNIPPET = re.compile(r"^(\s*#\s*Snippet\s+\d+\s*:)(.*)$", re.MULTILINE)


def load_batched(
    store: FalkorDBStore, data: Path, papers: Path | None, repos: Path | None
) -> dict[str, Any]:
    store.clear()
    store.apply_schema(default_schema())
    report = ScireplicateReport()
    t, c = time.perf_counter(), cpu_seconds()
    groups = read_scireplicate(data, papers_dir=papers, repos_dir=repos, report=report)
    stats = run_resumable(store, groups, source=data, batch_size=8)
    return {
        "seconds": round(time.perf_counter() - t, 2),
        "client_cpu_seconds": round(cpu_seconds() - c, 2),
        "papers": report.papers,
        "tasks": dict(report.tasks),
        "steps": report.steps,
        "data_flow_edges": report.data_flow_edges,
        "nodes": sum(stats.write.nodes.values()),
        "relationships": sum(stats.write.relationships.values()),
    }


def load_per_record(
    store: FalkorDBStore, data: Path, papers: Path | None, repos: Path | None
) -> dict[str, Any]:
    """The alternative: one MERGE statement per record (no batching)."""
    from scholarkg.schema.records import NodeRecord

    store.clear()
    store.apply_schema(default_schema())
    t = time.perf_counter()
    n = 0
    groups = list(read_scireplicate(data, papers_dir=papers, repos_dir=repos))
    for _, records in groups:  # nodes first, then edges, as the writer does
        for rec in records:
            if isinstance(rec, NodeRecord):
                store.merge_nodes(rec.LABEL, [rec.row()])
                n += 1
        for rec in records:
            if not isinstance(rec, NodeRecord):
                store.merge_relationships(rec.TYPE, rec.START, rec.END, [rec.row()])
                n += 1
    return {"seconds": round(time.perf_counter() - t, 2), "records": n}


def _reword(text: str, how: str) -> str:
    words = text.split()
    if how == "reverse":
        return " ".join(reversed(words))
    return " ".join(words[1:] + words[:1])  # rotate: first word last


def write_predictions(data: Path, out: Path, *, reword: str) -> Path:
    """Reference bodies as predictions; step descriptions reworded (``reverse``/``rotate``)."""
    with out.open("w", encoding="utf-8") as fh:
        for paper in read_benchmark(data):
            for t in paper.tasks:
                body = t.reference_body
                if reword != "none":
                    body = _SNIPPET.sub(
                        lambda m: m.group(1) + " " + _reword(m.group(2), reword), body
                    )
                fh.write(
                    json.dumps({"paper_id": t.paper_index, "task_id": t.task_index, "code": body})
                    + "\n"
                )
    return out


def cpu_seconds() -> float:
    """This process's CPU time (user + system, all threads): robust to a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def score(data: Path, pred: Path, **options: Any) -> dict[str, Any]:
    from scholarkg.benchmark.tasks.scireplicate.task import ScireplicateTask

    t, c = time.perf_counter(), cpu_seconds()
    result = ScireplicateTask().score_files(data, pred, {"judge": "embedding", **options})
    keep = ("codebleu", "rg_acc", "recall_intra", "recall_cross", "recall_api")
    return {
        "seconds": round(time.perf_counter() - t, 2),
        "cpu_seconds": round(cpu_seconds() - c, 2),
        "aggregate": {k: round(v, 4) for k, v in result.aggregate.items() if k in keep},
    }


def rg_per_task_encoding(data: Path, pred: Path) -> dict[str, Any]:
    """The alternative for the RG part: ``embedding_matches`` per task (one encode per task)."""
    from scholarkg.benchmark.metrics.code import embedding_matches
    from scholarkg.benchmark.metrics.code_graph import build_reasoning_graph, reasoning_graph_score
    from scholarkg.benchmark.tasks.scireplicate.scoring import answer_function, read_predictions
    from scholarkg.benchmark.tasks.scireplicate.step_vectors import step_encoder

    specs = [t for p in read_benchmark(data) for t in p.tasks]
    codes = read_predictions(pred, {s.key: s for s in specs})
    encoder = step_encoder("torch", threads=1)  # same model and threads as ours, no cache
    t, c = time.perf_counter(), cpu_seconds()
    scores = []
    for s in specs:
        ref = build_reasoning_graph(s.reference_body)
        gen = build_reasoning_graph(answer_function(s, codes[s.uid] or "").graph_code)
        scores.append(
            reasoning_graph_score(
                ref, gen, embedding_matches(ref.texts, gen.texts, encoder=encoder)
            ).score
        )
    return {
        "seconds": round(time.perf_counter() - t, 2),
        "cpu_seconds": round(cpu_seconds() - c, 2),
        "rg_acc": round(sum(scores) / len(scores), 4),
    }


@contextlib.contextmanager
def _cache_dir(path: Path) -> Iterator[None]:
    """Point the task's step-vector cache (``<home>/cache``) at a fresh folder."""
    old = os.environ.get("SCHOLARKG_HOME")
    os.environ["SCHOLARKG_HOME"] = str(path)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SCHOLARKG_HOME", None)
        else:
            os.environ["SCHOLARKG_HOME"] = old


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data",
        type=Path,
        default=os.environ.get("SCIREPLICATE_DATA"),
        help="the released Data.json (optional; never committed)",
    )
    ap.add_argument(
        "--alternative",
        action="store_true",
        help="also time per-task encoding (slow: one model call per task)",
    )
    args = ap.parse_args()
    figures: dict[str, Any] = {"loadavg_start": os.getloadavg()[0]}
    tmp = Path(tempfile.mkdtemp(prefix="skg-bench-scirep-"))
    syn = write_benchmark(tmp / "syn", generate(36, 100, seed=3), seed=3)
    papers, repos = syn.parent / "papers", syn.parent / "repos"
    from scholarkg.benchmark.metrics.similarity import default_encoder

    default_encoder().encode(["warm up"])  # model load is not scoring time
    with EmbeddedServer(tmp / "db", persistent=False) as server:
        store = FalkorDBStore(server.connect(), "bench_scirep")
        figures["load_synthetic_batched"] = load_batched(store, syn, papers, repos)
        figures["load_synthetic_per_record"] = load_per_record(store, syn, papers, repos)
        if args.data:
            figures["load_released_batched"] = load_batched(store, args.data, None, None)
        store.clear()
        store.close()
    for name, data in [("synthetic", syn), ("released", args.data)]:
        if data is None:
            continue
        ref = write_predictions(data, tmp / f"{name}-ref.jsonl", reword="none")
        a = write_predictions(data, tmp / f"{name}-a.jsonl", reword="reverse")
        b = write_predictions(data, tmp / f"{name}-b.jsonl", reword="rotate")
        cache = tmp / f"cache-{name}"

        def run(label: str, pred: Path, data: Path = data, **options: Any) -> None:
            figures[label] = score(data, pred, **options)
            print(label, figures[label], file=sys.stderr, flush=True)

        run(f"score_{name}_reference", ref, embedding_cache=False)
        run(f"score_{name}_reworded_fp32", a, embedding_cache=False)
        run(f"score_{name}_reworded_int8", a, embedding_cache=False, embedding_backend="torch-int8")
        # a second set of predictions after a first run: reference step vectors are cached
        with _cache_dir(cache):
            run(f"score_{name}_reworded_fp32_cache_cold", a)
            run(f"score_{name}_reworded2_fp32_cache_warm", b)
        if args.alternative:
            figures[f"rg_{name}_reworded_per_task_encoding"] = rg_per_task_encoding(data, a)
            print(figures[f"rg_{name}_reworded_per_task_encoding"], file=sys.stderr, flush=True)
    figures["loadavg_end"] = os.getloadavg()[0]
    shutil.rmtree(tmp, ignore_errors=True)
    json.dump(figures, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``suggest --exclude`` against a graph loaded without the work: how many of the top 10 agree.

For each of ``--n`` works (the first of a queries file, e.g. ``suggest_queries.py``'s test
split), the group's OpenAlex records are loaded again without that work into a second graph
(``--variant absent``: the work's record and every reference to it left out, so the work
and all its edges are absent; ``record``: only its record, so other works' references keep
it as a stub), with the text vectors (``embed nodes``, from the encoder's cache), and the
work's title and abstract are asked of both graphs: of the full graph with the work
excluded, of the smaller one as is. Both use the full graph's fitted fusion (the question is
whether ``exclude`` reads the graph as the smaller one does; a refit there is another
question). Prints the overlap of the two top 10s per work and its mean.

    python benchmarks/real/suggest_exclude_check.py --graph aangrp \\
        --records aan-group/works.jsonl --queries aangrp-eval/queries-test.jsonl --n 10
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def _cli(*args: str) -> None:
    exe = Path(sys.executable).with_name("scholarkg")
    subprocess.run([str(exe), *args], check=True, capture_output=True, text=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graph", required=True, help="the full graph (loaded, fitted)")
    ap.add_argument("--records", type=Path, required=True, help="the records it was loaded from")
    ap.add_argument("--queries", type=Path, required=True)
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--variant", choices=("absent", "record"), default="absent")
    args = ap.parse_args()

    from scholarkg.config import load_settings
    from scholarkg.recommend.model import Recommender
    from scholarkg.store import open_store

    records = [json.loads(x) for x in args.records.read_text(encoding="utf-8").splitlines() if x]
    queries = [json.loads(x) for x in args.queries.read_text(encoding="utf-8").splitlines() if x]
    full_store = open_store(load_settings(graph=args.graph))
    full = Recommender(full_store)
    full.prepare()  # the stored fit
    from scholarkg.services.paper_lookup import resolve_papers

    found = resolve_papers(full_store, [r["id"] for r in records])
    url_of = {ps[0].id: url for url, ps in found.items() if len(ps) == 1}
    small_graph = f"{args.graph}_without"
    overlaps = []
    tmp = Path(tempfile.mkdtemp(prefix="suggest-exclude-"))
    try:
        for q in queries[: args.n]:
            node = q["exclude"][0]
            url = url_of.get(node)
            if url is None:
                continue
            kept = []
            for r in records:
                if r["id"] == url:
                    continue
                if args.variant == "absent":
                    r = {**r, "referenced_works": [x for x in r["referenced_works"] if x != url]}
                kept.append(r)
            path = tmp / "works.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")
            _cli("--graph", small_graph, "db", "reset", "--yes")
            _cli("--graph", small_graph, "load", "openalex", str(path))
            _cli("--graph", small_graph, "embed", "nodes")
            small_store = open_store(load_settings(graph=small_graph))
            try:
                small = Recommender(small_store)
                small.prepare(fit=False)
                small.fusion = full.fusion
                a = [r.id for r in full.suggest(q["text"], 10, exclude=[node]).rows]
                b = [r.id for r in small.suggest(q["text"], 10).rows]
            finally:
                small_store.close()
            overlaps.append(len(set(a) & set(b)))
            print(f"{node}: {overlaps[-1]}/10", flush=True)
    finally:
        _cli("--graph", small_graph, "db", "reset", "--yes")
        full_store.close()
    if overlaps:
        mean = sum(overlaps) / len(overlaps)
        print(f"{args.variant}: mean overlap {mean:.2f}/10 over {len(overlaps)} works, "
              f"min {min(overlaps)}/10")  # fmt: skip


if __name__ == "__main__":
    os.environ.setdefault("SCHOLARKG_PROGRESS", "off")
    main()

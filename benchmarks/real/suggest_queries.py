"""Queries and qrels for measuring ``scholarkg suggest`` on a loaded graph: each query a work's
title and abstract with the work excluded, relevant = its references that are nodes of the
graph.

Works are chosen by the SHA-256 of their id, so the choice is reproducible and apart from
the works ``suggest``'s own fit learns from (the lowest hashes; ``recommend/fit.py``):
``--split dev`` takes works whose hash starts with 8–b, ``--split test`` with c–f, each the
``--n`` lowest of its range; ``--split all`` every qualifying work (a graph too small to
split, where the fit learns from the same works, leave-one-out, as a user's would).
A work qualifies when a source record described it (no
``Stub`` label), it has a title or an abstract, and it cites at least ``--min-refs`` works of
the graph. Written to OUT_DIR: ``queries-<split>.jsonl`` (``{"id", "text", "exclude"}``) and
``qrels-<split>.trec``.

Usage (the store and graph as for any command: ``--backend``/``--graph`` or SCHOLARKG_*)::

    python benchmarks/real/suggest_queries.py --graph aan --split test --n 500 OUT_DIR
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

RANGES = {"dev": "89ab", "test": "cdef", "all": "0123456789abcdef"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--graph", default=None)
    parser.add_argument("--backend", default=None)
    parser.add_argument("--split", choices=sorted(RANGES), default="test")
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--min-refs", type=int, default=2)
    args = parser.parse_args()

    from scholarkg.benchmark.metrics.trec import write_qrels
    from scholarkg.config import load_settings
    from scholarkg.graphalgo.projection import default_catalog
    from scholarkg.recommend.text import work_text
    from scholarkg.store import open_store

    overrides = {k: v for k, v in (("graph", args.graph), ("backend", args.backend)) if v}
    store = open_store(load_settings(**overrides))
    try:
        proj = default_catalog().get(store, "Paper", ("CITES",))
        natural = proj.transition("natural")
        out_deg = natural.indptr[1:] - natural.indptr[:-1]

        def key(i: str) -> str:
            return hashlib.sha256(i.encode("utf-8")).hexdigest()

        pool = sorted(
            (i for n, i in enumerate(proj.ids) if out_deg[n] >= args.min_refs
             and key(i)[0] in RANGES[args.split]),
            key=key,
        )  # fmt: skip
        queries, qrels = [], {}
        for lo in range(0, len(pool), 500):
            batch = pool[lo : lo + 500]
            rows = {
                str(r["id"]): r for r in store.run_named("recommend/work_texts", {"ids": batch})
            }
            for wid in batch:
                r = rows.get(wid)
                text = work_text(r.get("title"), r.get("abstract")) if r else ""
                if not r or r.get("stub") or not text:
                    continue
                pos = proj.index[wid]
                refs = [
                    proj.ids[j]
                    for j in natural.indices[natural.indptr[pos] : natural.indptr[pos + 1]]
                ]
                queries.append({"id": wid, "text": text, "exclude": [wid]})
                qrels[wid] = dict.fromkeys(refs, 1)
                if len(queries) >= args.n:
                    break
            if len(queries) >= args.n:
                break
    finally:
        store.close()
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / f"queries-{args.split}.jsonl").open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps(q, ensure_ascii=False) + "\n")
    write_qrels(args.out / f"qrels-{args.split}.trec", qrels)
    refs = sum(len(v) for v in qrels.values())
    print(f"{len(queries)} queries, {refs} relevant references ({refs / max(1, len(queries)):.1f} "
          f"per query) -> {args.out}")  # fmt: skip


if __name__ == "__main__":
    main()

"""What the embedded store's full-text index on Papers (``paper_text``: title, abstract)
costs the writes of a load, by the text's vocabulary and by the order of a statement's
clauses.

    python benchmarks/bench_fulltext_writes.py --papers 50000 --batches 3

FalkorDB (4.16) keeps a node's full-text entry up to date by indexing the node again at each
clause that changes its properties or labels, whatever the change; what that costs grows with
the number of distinct terms the index meets. Per ``--text`` kind (``zipf``: titles and
abstracts with a real text's vocabulary, ``pool``: from the 20 words of
``bench_openalex.py --text pool``; both as ``bench_openalex.py`` generates them), a throwaway
server (persistent, as ``scholarkg db start`` runs it) with the load's schema
(``apply_schema``), ``--papers`` Papers with a title and an abstract and as many stubs
(``:Paper:Stub``, an id only), the load's ``DELTA_MAX_PENDING_CHANGES`` and its settling of
removed labels after each statement; then ``--batches`` statements of ``--batch`` rows per
way, on rows not touched before, and the server's own execution time a row (median):

* ``new Paper`` — the writer's node statement (``MERGE``, then ``SET`` if anything differs);
* ``stub described, SET then REMOVE`` — ``identity/describe_stubs`` before round 56;
* ``stub described, REMOVE then SET`` — ``identity/describe_stubs`` (FalkorDB's) now;
* ``a property no index holds`` — ``SET`` of ``citation_count`` on a Paper with text;
* ``the same Papers' id read`` — a ``MATCH`` by id alone, for scale.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

from bench_openalex import WORDS, zipf_text  # the sibling script's text generators
from bench_relationship_ends import execution_ms, throwaway_store  # its reply reading, server

DESCRIBE_BEFORE = (
    "UNWIND $rows AS row MERGE (p:Paper {id: row.id}) "
    "WITH p, row, size(labels(p)) AS synchronised SET p += row.props REMOVE p:Stub "
    "RETURN count(p) AS n"
)
WAYS = {
    "new Paper": (
        "UNWIND $rows AS row MERGE (n:Paper {id: row.id}) WITH n, row "
        "WHERE any(k IN keys(row.props) WHERE n[k] IS NULL OR n[k] <> row.props[k]) "
        "SET n += row.props RETURN count(n) AS n"
    ),
    "stub described, SET then REMOVE": DESCRIBE_BEFORE,
    "stub described, REMOVE then SET": None,  # identity/describe_stubs.falkordb.cypher
    "a property no index holds": (
        "UNWIND $rows AS row MATCH (p:Paper {id: row.id}) SET p.citation_count = 7 "
        "RETURN count(p) AS n"
    ),
    "the same Papers' id read": (
        "UNWIND $rows AS row MATCH (p:Paper {id: row.id}) RETURN count(p) AS n"
    ),
}


def text_of(w: int, kind: str) -> tuple[str, str]:
    """Work ``w``'s title and abstract: ``zipf`` exactly as ``bench_openalex.py --text zipf``
    writes them; ``pool`` from the same 20 words and of the same lengths (that script takes
    each abstract from 64 drawn a part file; one drawn a work is the same to the index)."""
    import json
    import random

    if kind == "pool":
        rng = random.Random(w)
        title = " ".join(rng.choice(WORDS) for _ in range(8))
        return title, " ".join(rng.choice(WORDS) for _ in range(rng.randint(80, 160)))
    title, index = zipf_text(w)
    words = sorted((p, word) for word, ps in json.loads(index).items() for p in ps)
    return title, " ".join(word for _, word in words)


def props(w: int, kind: str) -> dict[str, Any]:
    """A Paper record's properties as the load writes them (the ones the indexes hold)."""
    title, abstract = text_of(w, kind)
    return {
        "title": title, "title_norm": title, "abstract": abstract, "year": 2000 + w % 25,
        "openalex_id": f"W{w}", "mag_id": str(7 * w), "source": "openalex",
    }  # fmt: skip


def run_kind(kind: str, papers: int, batch: int, batches: int) -> dict[str, float]:
    """Per way: the server's execution µs a row, median over the statements."""
    from scholarkg.queries import load_query
    from scholarkg.store.falkordb import pending_changes as pc

    ways = dict(WAYS)
    ways["stub described, REMOVE then SET"] = (
        load_query("identity/describe_stubs", dialect="falkordb") + " RETURN count(p) AS n"
    )
    out: dict[str, list[float]] = {}
    with throwaway_store("bench_fulltext_writes", "bench-fulltext-writes-") as store:
        for first in range(0, papers, batch):
            rows = [{"id": f"openalex:W{w}", "props": props(w, kind)}
                    for w in range(first, min(papers, first + batch))]  # fmt: skip
            store.run("UNWIND $rows AS row CREATE (p:Paper {id: row.id}) SET p += row.props",
                      {"rows": rows})  # fmt: skip
        store.run(
            "UNWIND range($a, $b) AS w CREATE (:Paper:Stub {id: 'openalex:W' + toString(w)})",
            {"a": papers, "b": 2 * papers - 1},
        )
        store.run("MATCH (p:Paper) WITH p LIMIT 1 RETURN labels(p) AS labels")
        store._command(*pc.setting_command(pc.LOAD_PENDING_CHANGES))
        fresh = iter(range(2 * papers, 10 * papers))  # ids no Paper has yet
        stubs = iter(range(papers, 2 * papers))
        texted = iter(range(papers))
        for _ in range(batches):
            for way, query in ways.items():
                pool = fresh if way == "new Paper" else stubs if "stub" in way else texted
                rows = [{"id": f"openalex:W{w}", "props": props(w, kind)}
                        for w in (next(pool) for _ in range(batch))]  # fmt: skip
                ms, n = execution_ms(store, query, {"rows": rows})
                assert n == batch, (way, n)
                store._command(*pc.setting_command(1))  # labels settled, as labels_removed
                store.run(pc.SETTLE_LABELS)
                store._command(*pc.setting_command(pc.LOAD_PENDING_CHANGES))
                out.setdefault(way, []).append(ms * 1000 / batch)
    return {way: statistics.median(v) for way, v in out.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=50_000, help="Papers with text, and stubs")
    ap.add_argument("--batch", type=int, default=2_000, help="rows a statement")
    ap.add_argument("--batches", type=int, default=3, help="statements a way")
    ap.add_argument("--text", choices=("zipf", "pool"), action="append", default=None)
    args = ap.parse_args()
    kinds = args.text or ["zipf", "pool"]
    if args.batches * args.batch > args.papers:
        ap.error("--batches x --batch must be at most --papers (rows are never reused)")
    results = {}
    for kind in kinds:  # a line each, so a log shows where a long run is
        print(f"{kind}: {args.papers:,} Papers with text and as many stubs, then the ways…",
              flush=True)  # fmt: skip
        results[kind] = run_kind(kind, args.papers, args.batch, args.batches)
    print(
        f"{args.papers:,} Papers with text and {args.papers:,} stubs; {args.batches} "
        f"statements of {args.batch:,} rows a way; the server's µs a row (median)"
    )
    print(f"  {'way':36s}" + "".join(f"{kind:>10s}" for kind in kinds))
    for way in WAYS:
        print(f"  {way:36s}" + "".join(f"{results[k][way]:10.1f}" for k in kinds))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    raise SystemExit(main())

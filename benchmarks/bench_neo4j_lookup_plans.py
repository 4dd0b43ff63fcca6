"""What planning the identity look-ups costs on Neo4j, with every branch and with only the
branches whose list is not empty (``store/named.py``, ``skip-empty-branches``).

Neo4j caches a plan per statement text and per size bucket of each list parameter (0, 1, 2,
up to 10, up to 100, …), so a load whose batches bring lists of new sizes plans the look-up
again. This runs the same sequence of look-ups both ways against a running managed Neo4j:
``--calls`` calls of ``identity/lookup_papers`` whose lists have the sizes of a small load's
batches (OpenAlex ids and aliases always, DOIs mostly, the rarer slots now and then; the
sizes drawn with a fixed seed). Each run renames the look-up's variable (``v``), so every
plan is new to the server, as it is to a just-started one (a comment would not do: Neo4j
caches logical plans by the parsed statement, comments gone). Read-only: the look-ups match, they
write nothing.

    scholarkg --backend neo4j db start          # the managed Neo4j of SCHOLARKG_HOME
    python benchmarks/bench_neo4j_lookup_plans.py --home ~/.scholarkg --calls 40

Prints the seconds of each way, the distinct (list-size bucket) combinations met, and the
median time of a call whose plan was cached (the second pass over the same sequence).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

#: the look-up's list parameters: (name, chance a batch has any, largest size)
_LISTS = (
    ("openalex", 1.0, 60),
    ("aliases", 1.0, 120),
    ("doi", 0.8, 40),
    ("ids", 0.3, 3),
    ("mag", 0.2, 5),
    ("pmid", 0.2, 5),
    ("pmcid", 0.1, 2),
    ("arxiv", 0.2, 4),
    ("corpus", 0.05, 2),
    ("corpus_slot", 0.0, 0),
    ("s2paper", 0.05, 2),
)


def _bucket(n: int) -> int:
    """Neo4j's size bucket of a list parameter, as measured: 0, 1, 2, ≤ 10, ≤ 100, …"""
    if n <= 2:
        return n
    return int(10 ** len(str(n - 1)))


def _batches(calls: int, seed: int) -> list[dict[str, list[Any]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(calls):
        params: dict[str, list[Any]] = {}
        for name, chance, most in _LISTS:
            size = rng.randint(1, most) if most and rng.random() < chance else 0
            if name in ("corpus", "corpus_slot"):
                params[name] = [rng.randint(1, 10**9) for _ in range(size)]
            else:
                params[name] = [f"bench-{uuid.uuid4().hex[:12]}" for _ in range(size)]
        out.append(params)
    return out


def _seconds(store: Any, text: str, params: dict[str, list[Any]]) -> float:
    t0 = time.perf_counter()
    store.run(text, params)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--home", type=Path, required=True, help="the managed Neo4j's SCHOLARKG_HOME")
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    os.environ["SCHOLARKG_HOME"] = str(args.home)
    os.environ["SCHOLARKG_BACKEND"] = "neo4j"
    os.environ.pop("NEO4J_URI", None)  # the managed server of that home

    from scholarkg.config import load_settings
    from scholarkg.store import open_store
    from scholarkg.store.named import render_named, without_empty_branches

    store = open_store(load_settings())
    try:
        batches = _batches(args.calls, args.seed)
        combos = {tuple(_bucket(len(p[n])) for n, _, _ in _LISTS) for p in batches}
        whole = render_named("identity/lookup_papers", "neo4j")
        print(f"{args.calls} look-ups, {len(combos)} distinct list-size bucket combinations")
        for way in ("every branch", "non-empty branches"):
            fresh = f"v{uuid.uuid4().hex}"

            def text_of(params: dict[str, list[Any]], fresh: str = fresh, way: str = way) -> str:
                text = whole
                if way == "non-empty branches":
                    pruned = without_empty_branches("identity/lookup_papers", whole, params)
                    assert pruned is not None  # openalex and aliases are never empty here
                    text = pruned
                return re.sub(r"\bv\b", fresh, text)

            first = [_seconds(store, text_of(p), p) for p in batches]
            cached = [_seconds(store, text_of(p), p) for p in batches]
            a_call = sum(first) / len(first) * 1000
            print(
                f"  {way:18s}: {sum(first):6.2f} s first pass ({a_call:5.0f} ms a call), "
                f"cached: {statistics.median(cached) * 1000:5.1f} ms a call"
            )
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

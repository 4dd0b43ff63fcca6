"""What identity resolution costs a benchmark family's load, against loading without it.

Every family step that ``loaders/steps.run_steps`` runs goes through
``IdentityResolver(family=True)``: one batched id lookup per batch of source records (every id
of the batch's Papers, one ``UNWIND … MATCH`` per id slot) and a ``family_key`` mark on each
Paper. Same run, same synthetic S2 world (citation recommendation's ``load s2`` files: papers,
abstracts, citations, S2ORC contexts), into a fresh embedded FalkorDB graph each time, steps
with ``family=True`` (the default) against ``family=False`` (the loader before resolution),
alternated because the shared machine's load drifts:

    .venv/bin/python benchmarks/bench_family_identity.py                 # 5,000 papers
    .venv/bin/python benchmarks/bench_family_identity.py --papers 1000 --repeats 2
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import tempfile
import time
from pathlib import Path

from scholarkg.config import load_settings
from scholarkg.loaders.corpus_lookup import corpus_lookup
from scholarkg.loaders.steps import run_steps, s2_steps
from scholarkg.loaders.tolerant import SkipReport
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.synthetic.citation_world import generate
from scholarkg.synthetic.citerec_corpus import write_world


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", type=int, default=5_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=5_000)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        files = write_world(generate(args.papers, seed=13), Path(tmp) / "s2")
        os.environ["SCHOLARKG_HOME"] = str(Path(tmp) / "home")  # checkpoints go there
        settings = load_settings()
        times: dict[bool, list[float]] = {False: [], True: []}
        counts: dict[bool, tuple[int, int]] = {}
        with EmbeddedServer(Path(tmp) / "db", persistent=False) as srv:
            for i, family in enumerate((False, True) * args.repeats):
                store = FalkorDBStore(srv.connect(), f"family_{family}_{i}")
                store.clear()
                store.apply_schema()
                steps = [
                    dataclasses.replace(step, family=family)
                    for step in s2_steps(dict(files), SkipReport(), corpus_lookup(store))
                ]
                t = time.perf_counter()
                summary = run_steps(store, steps, settings=settings, batch_size=args.batch_size)
                times[family].append(time.perf_counter() - t)
                graph = summary.graph
                assert graph is not None
                counts[family] = (graph.total_nodes, graph.total_relationships)
                store.clear()
                store.close()
        records = sum(s.records for s in summary.stats)
        print(f"S2 world of {args.papers:,} papers: {records:,} source records, "
              f"graph {counts[True][0]:,} nodes / {counts[True][1]:,} relationships")  # fmt: skip
        assert counts[True] == counts[False], counts  # resolution changes nothing here
        for family in (False, True):
            med = statistics.median(times[family])
            runs = ", ".join(f"{x:.2f}" for x in times[family])
            label = "with identity resolution   " if family else "without (family=False)     "
            print(f"{label}: median {med:.2f} s ({records / med:,.0f} source records/s), "
                  f"fastest {min(times[family]):.2f} s; runs {runs}")  # fmt: skip
        for name, pick in (("median", statistics.median), ("fastest run", min)):
            cost = pick(times[True]) / pick(times[False]) - 1
            print(f"resolution costs {cost:+.0%} of the load time ({name})")


if __name__ == "__main__":
    main()

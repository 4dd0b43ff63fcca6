"""Time our IR metrics beside ranx and pytrec-eval-terrier on the same data, in one run.

Why: we compute the metrics ourselves (numpy, trec_eval conventions, DORIS-MAE variants)
instead of calling ranx; this checks the cost of that choice and the target of <= 2 s for
10,000 queries x 1,000 ranked documents on the build machine.

    .venv/bin/python benchmarks/bench_metrics.py                       # 10k x 1k
    .venv/bin/python benchmarks/bench_metrics.py --queries 1000 --depth 100

Data: synthetic, seeded. Each query ranks ``--depth`` documents drawn from 5,000 ids and
has 30 judged documents with grades 0-3; run scores are distinct random floats (no ties, so
all three libraries order the same way). Metrics: P@10, R@100, nDCG@10, MRR@10, MAP, RP;
trec_eval has no RR@10, so pytrec-eval computes ``recip_rank`` over the whole ranking.

Timings (wall clock, ``time.perf_counter``, one run each):

- ours: ``evaluate`` on ranked lists and on ``{doc: score}`` dicts (sorting included);
- ranx: ``Qrels``/``Run`` construction and ``evaluate`` timed separately. ranx JIT-compiles
  (numba) on first use; a warm-up on 10 queries runs first and is **excluded**;
- pytrec-eval: ``RelevanceEvaluator`` construction and ``evaluate`` timed separately.

The script also prints the largest difference between our means and ranx's.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time

import numpy as np

from scholarkg.benchmark.metrics import evaluate

OURS = ["P@10", "R@100", "nDCG@10", "MRR@10", "MAP", "RP"]
RANX = ["precision@10", "recall@100", "ndcg@10", "mrr@10", "map", "r-precision"]
PYTREC = {"P_10", "recall_100", "ndcg_cut_10", "recip_rank", "map", "Rprec"}


def make_data(
    n_queries: int, depth: int, seed: int
) -> tuple[dict[str, dict[str, int]], dict[str, list[str]], dict[str, dict[str, float]]]:
    rng = np.random.default_rng(seed)
    names = np.array([f"d{i}" for i in range(5000)])
    qrels, lists, scored = {}, {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = names[rng.permutation(5000)[:depth]].tolist()
        judged = names[rng.choice(5000, 30, replace=False)].tolist()
        qrels[qid] = dict(zip(judged, rng.integers(0, 4, 30).tolist(), strict=True))
        lists[qid] = docs
        scores = np.sort(rng.random(depth))[::-1]
        scored[qid] = dict(zip(docs, scores.tolist(), strict=True))
    return qrels, lists, scored


def timed(fn, *args, **kw):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    out = fn(*args, **kw)
    return out, time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--depth", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    qrels, lists, scored = make_data(args.queries, args.depth, args.seed)
    report: dict[str, object] = {
        "queries": args.queries,
        "depth": args.depth,
        "cpus": os.cpu_count(),
        "metrics": OURS,
    }

    ours_lists, t = timed(evaluate, qrels, lists, OURS)
    report["ours_lists_s"] = round(t, 3)
    ours_scored, t = timed(evaluate, qrels, scored, OURS)
    report["ours_scored_s"] = round(t, 3)

    try:
        import ranx
    except ImportError:
        report["ranx"] = "not installed"
    else:
        few = dict(list(qrels.items())[:10])
        ranx.evaluate(ranx.Qrels(few), ranx.Run({q: scored[q] for q in few}), RANX)  # JIT
        rq, t_q = timed(ranx.Qrels, qrels)
        rr, t_r = timed(ranx.Run, scored)
        means, t_e = timed(ranx.evaluate, rq, rr, RANX)
        report["ranx_build_s"] = round(t_q + t_r, 3)
        report["ranx_evaluate_s"] = round(t_e, 3)
        report["max_abs_diff_vs_ranx"] = max(
            abs(ours_scored.aggregate[o] - float(means[r])) for o, r in zip(OURS, RANX, strict=True)
        )

    try:
        import pytrec_eval
    except ImportError:
        report["pytrec_eval"] = "not installed"
    else:
        ev, t_b = timed(pytrec_eval.RelevanceEvaluator, qrels, PYTREC)
        _, t_e = timed(ev.evaluate, scored)
        report["pytrec_build_s"] = round(t_b, 3)
        report["pytrec_evaluate_s"] = round(t_e, 3)

    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    if args.json:
        print(json.dumps(report))
        return
    for key, value in report.items():
        print(f"{key:>22}: {value}")
    print(f"{'ours (lists) means':>22}: {json.dumps(ours_lists.aggregate)}")


if __name__ == "__main__":
    main()

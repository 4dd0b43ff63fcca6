"""Paired comparison of ``scholarkg suggest`` runs (TREC files) against one qrels file.

Each run's mean nDCG@10 (and R@10, MRR@10, R@100) over the qrels' queries, and for every
run after the first its difference from the first and from ``--against`` runs, with the
paired randomization (sign-flip) test ``scholarkg runs compare`` prints (10,000 resamples,
seed 0; p = 0.0001 is its floor). Queries a run does not answer score 0.

Usage::

    python benchmarks/real/suggest_compare.py qrels-test.trec bm25.trec text-refs.trec \\
        fused.trec [--against text-refs.trec]
"""

from __future__ import annotations

import argparse
from pathlib import Path

METRICS = ("nDCG@10", "R@10", "MRR@10", "R@100")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("qrels", type=Path)
    parser.add_argument("runs", type=Path, nargs="+")
    parser.add_argument("--against", type=Path, action="append", default=[])
    parser.add_argument("--resamples", type=int, default=10_000)
    args = parser.parse_args()

    from scholarkg.benchmark.metrics.ir import evaluate
    from scholarkg.benchmark.metrics.stats import paired_test
    from scholarkg.benchmark.metrics.trec import read_qrels, read_run

    qrels = read_qrels(args.qrels)
    queries = sorted(qrels)
    per: dict[Path, dict[str, list[float]]] = {}
    for path in [*args.runs, *args.against]:
        if path in per:
            continue
        run = read_run(path)
        full = {q: run.get(q, {}) for q in queries}
        res = evaluate(qrels, full, list(METRICS), on_unknown="ignore")
        per[path] = {m: [float(res.per_query[q][m]) for q in queries] for m in METRICS}
    print(f"{len(queries)} queries ({args.qrels})")
    print(f"{'run':34s} " + " ".join(f"{m:>8s}" for m in METRICS))
    for path in args.runs:
        means = [sum(per[path][m]) / len(queries) for m in METRICS]
        print(f"{path.name:34s} " + " ".join(f"{v:8.4f}" for v in means))
    for base in [args.runs[0], *args.against]:
        for path in args.runs:
            if path == base:
                continue
            t = paired_test(per[base]["nDCG@10"], per[path]["nDCG@10"],
                            n_resamples=args.resamples)  # fmt: skip
            print(f"nDCG@10 {path.name} - {base.name}: {t.delta:+.4f} (p = {t.p_value:.4f})")


if __name__ == "__main__":
    main()

"""What ``hybrid-learned`` should fuse and fit, judged on a real collection's *dev* queries.

Why: issue 30's last gap (held-out citing sentences: ``hybrid-learned`` +0.047 nDCG@10 over
BM25 against a target of +0.05) is to be closed by principled changes chosen on the dev
splits of unarXive and DORIS-MAE only. ``hybrid-learned`` fits its fusion on each
collection's dev split at run time, so a candidate *design* (which inputs it fuses, how it
normalises, how deep) must be judged by how well its *fit* generalises: this script
cross-validates the fit inside the dev queries (``--folds``, the fold's queries never seen by
the fit that scores them) and prints, per design, the in-sample fitted nDCG@10, the
cross-validated nDCG@10 and the paired randomization test (``metrics/stats.paired_test``,
10,000 resamples) of the cross-validated per-query scores against the current design
(``base``: BM25 + dense, min-max CombSUM weights or RRF k, depth 100) and against BM25.

    python benchmarks/real/bench_text_fusion_fit.py /tmp/text-data/ux-raw

Inputs a design may fuse (each ranks the whole collection, its top ``depth`` is fused):

* ``bm25`` / ``dense``: the task's rankers on the ``clean`` query
  (:func:`~scholarkg.benchmark.tasks.retrieval.querytext.citation_query`);
* ``bm25win`` / ``densewin``: the same on the query with the ``--window`` words either side
  of ``<REF>`` repeated (:func:`~.querytext.weigh_ref_window`; a query without ``<REF>`` is
  the clean query, so on DORIS-MAE these equal ``bm25``/``dense``);
* ``prf``: dense pseudo-relevance feedback, Rocchio on vectors: the query vector plus
  ``beta`` times the mean of the top ``n`` document vectors of the BM25+dense RRF, cosine
  against every document;
* ``bm25 k1=..,b=..``: BM25 with other constants (``--bm25-grid``).

Fusion candidates fitted per design: RRF (unweighted) with k in 5 ... 100 on BM25 + dense
(the unfitted ``hybrid``, preferred on ties) and on all the design's inputs, and CombSUM of
the inputs' normalised scores (``minmax`` or ``zscore`` over each input's top ``depth``; a
document outside an input's list gets that list's lowest normalised score) with weights on
the simplex in steps of 0.1. nDCG@10 is computed here with numpy (linear gains, trec_eval's
definition; ties broken by corpus order, which can differ from trec_eval's on exact ties).
ScisummNet is not to be passed to this script: it is the collection held out of every choice.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fusion_candidates import read_beir

DISCOUNT = 1.0 / np.log2(np.arange(2, 12))


def ndcg10(fused: np.ndarray, gains: np.ndarray, ideal: np.ndarray) -> np.ndarray:
    """Per-query nDCG@10 of score rows ``fused`` against the gain rows ``gains``."""
    top = np.argsort(-fused, axis=1, kind="stable")[:, :10]
    dcg = (np.take_along_axis(gains, top, axis=1) * DISCOUNT[: top.shape[1]]).sum(axis=1)
    return np.where(ideal > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)


def top_lists(scores: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's top ``depth`` document indexes and a mask of them."""
    idx = np.argsort(-scores, axis=1, kind="stable")[:, :depth]
    mask = np.zeros_like(scores, dtype=bool)
    np.put_along_axis(mask, idx, True, axis=1)
    return idx, mask


def normalise(scores: np.ndarray, depth: int, how: str) -> np.ndarray:
    """Each row's top ``depth`` scaled (``minmax``/``zscore``); the rest get the list's floor."""
    _, mask = top_lists(scores, depth)
    big = np.where(mask, scores, np.nan)
    if how == "minmax":
        lo, hi = np.nanmin(big, axis=1, keepdims=True), np.nanmax(big, axis=1, keepdims=True)
        out = (big - lo) / np.maximum(hi - lo, 1e-9)
    else:
        mu, sd = np.nanmean(big, axis=1, keepdims=True), np.nanstd(big, axis=1, keepdims=True)
        out = (big - mu) / np.maximum(sd, 1e-9)
    floor = np.nanmin(out, axis=1, keepdims=True)
    return np.where(mask, out, floor)


def rrf(scores: np.ndarray, depth: int, k: int) -> np.ndarray:
    idx, _ = top_lists(scores, depth)
    out = np.zeros_like(scores)
    np.put_along_axis(out, idx, 1.0 / (k + np.arange(1, idx.shape[1] + 1)), axis=1)
    return out


def simplex(n: int, step: int = 10) -> list[tuple[float, ...]]:
    return [
        tuple(c / step for c in combo)
        for combo in itertools.product(range(step + 1), repeat=n)
        if sum(combo) == step
    ]


@dataclass
class Design:
    name: str
    inputs: Sequence[str]
    norm: str = "minmax"
    depth: int = 100


def candidates(
    design: Design, inputs: dict[str, np.ndarray], gains: np.ndarray, ideal: np.ndarray
) -> tuple[list[str], np.ndarray]:
    """Every fusion candidate of ``design`` and its per-query nDCG@10 (candidates x queries).

    Candidate order is the preference order on ties: RRF k = 60 first, as ``fit_fusion``."""
    mats = [inputs[i] for i in design.inputs]
    labels, rows = [], []
    # as ``retrieval``'s fit: RRF on the BM25 + dense pair (the unfitted hybrid) first, then
    # on all the design's inputs
    subsets = [["bm25", "dense"]] if {"bm25", "dense"} <= set(design.inputs) else []
    if list(design.inputs) not in subsets:
        subsets.append(list(design.inputs))
    for names in subsets:
        for k in (60, 5, 10, 20, 30, 100):
            labels.append(f"rrf k={k}" + ("" if names == list(design.inputs) else " of pair"))
            rows.append(ndcg10(sum(rrf(inputs[i], design.depth, k) for i in names), gains, ideal))
    normed = [normalise(m, design.depth, design.norm) for m in mats]
    for w in simplex(len(mats)):
        labels.append(f"{design.norm} w={w}")
        rows.append(ndcg10(sum(wi * m for wi, m in zip(w, normed, strict=True)), gains, ideal))
    return labels, np.asarray(rows)


def cross_validate(per_query: np.ndarray, folds: int, seed: int = 0) -> np.ndarray:
    """Each query's score under the candidate chosen on the other folds' queries."""
    n = per_query.shape[1]
    fold = np.random.default_rng(seed).permutation(n) % folds
    out = np.zeros(n)
    for f in range(folds):
        train = fold != f
        best = int(np.argmax(per_query[:, train].mean(axis=1)))  # first max = preferred
        out[~train] = per_query[best, ~train]
    return out


def main() -> None:
    from scholarkg.benchmark.metrics.stats import paired_test
    from scholarkg.benchmark.rankers.bm25 import BM25Params, BM25Ranker
    from scholarkg.benchmark.tasks.retrieval.querytext import citation_query, weigh_ref_window
    from scholarkg.services.embeddings import load_embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("beir", type=Path)
    ap.add_argument("--split", default="dev")
    ap.add_argument("--window", type=int, default=3)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--prf", default="3:0.5,5:0.5,10:0.5,5:1.0", help="n:beta,...")
    ap.add_argument("--bm25-grid", default="0.9:0.4,1.2:0.75,2.0:0.75,1.5:0.5,1.5:0.9")
    ap.add_argument("--depths", default="20,50,200,1000")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/text-data/vcache"))
    args = ap.parse_args()

    ids, texts, queries, qrels = read_beir(args.beir)
    truth = qrels[args.split]
    qids = sorted(truth)
    pos = {d: i for i, d in enumerate(ids)}
    gains = np.zeros((len(qids), len(ids)))
    for n, q in enumerate(qids):
        for d, g in truth[q].items():
            if d in pos:
                gains[n, pos[d]] = g
    ideal = (-np.sort(-gains, axis=1)[:, :10] * DISCOUNT).sum(axis=1)
    clean = [citation_query(queries[q], "clean") for q in qids]
    window = [weigh_ref_window(queries[q], args.window, "clean") for q in qids]
    print(f"{args.beir.name} {args.split}: {len(qids)} queries, {len(ids)} documents; "
          f"{sum(a != b for a, b in zip(clean, window, strict=True))} queries hold <REF>",
          flush=True)  # fmt: skip

    t0 = time.perf_counter()
    inputs: dict[str, np.ndarray] = {}
    bm = BM25Ranker(ids, texts)
    inputs["bm25"] = np.asarray([bm.scores(t) for t in clean], dtype=np.float64)
    inputs["bm25win"] = np.asarray([bm.scores(t) for t in window], dtype=np.float64)
    for spec in filter(None, args.bm25_grid.split(",")):
        k1, b = map(float, spec.split(":"))
        alt = BM25Ranker(ids, texts, params=BM25Params(k1=k1, b=b))
        inputs[f"bm25 k1={k1},b={b}"] = np.asarray([alt.scores(t) for t in clean], np.float64)
        inputs[f"bm25win k1={k1},b={b}"] = np.asarray([alt.scores(t) for t in window], np.float64)
    emb = load_embedder("minilm", max_seq_length=128, cache_dir=args.cache)
    docs = emb.encode(texts, batch_size=32).astype(np.float64)
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    qv = emb.encode(clean, batch_size=64).astype(np.float64)
    qv /= np.linalg.norm(qv, axis=1, keepdims=True)
    qw = emb.encode(window, batch_size=64).astype(np.float64)
    qw /= np.linalg.norm(qw, axis=1, keepdims=True)
    inputs["dense"] = qv @ docs.T
    inputs["densewin"] = qw @ docs.T
    first = rrf(inputs["bm25"], 100, 60) + rrf(inputs["dense"], 100, 60)
    order = np.argsort(-first, axis=1, kind="stable")
    for spec in filter(None, args.prf.split(",")):
        n_fb, beta = int(spec.split(":")[0]), float(spec.split(":")[1])
        fb = docs[order[:, :n_fb]].mean(axis=1)
        q2 = qv + beta * fb
        q2 /= np.linalg.norm(q2, axis=1, keepdims=True)
        inputs[f"prf n={n_fb},beta={beta}"] = q2 @ docs.T
    print(f"inputs: {time.perf_counter() - t0:.1f} s", flush=True)

    base_design = Design("base", ["bm25", "dense"])
    _, base_rows = candidates(base_design, inputs, gains, ideal)
    base_cv = cross_validate(base_rows, args.folds)
    bm25_q = ndcg10(inputs["bm25"], gains, ideal)
    print(f"bm25 alone {bm25_q.mean():.4f}; dense alone "
          f"{ndcg10(inputs['dense'], gains, ideal).mean():.4f}")  # fmt: skip

    designs = [base_design]
    for norm in ("minmax", "zscore"):
        sets = [
            ["bm25", "dense"],
            ["bm25win", "dense"],
            ["bm25win", "densewin"],
            ["bm25", "bm25win", "dense"],
            ["bm25", "dense", "densewin"],
            ["bm25", "bm25win", "dense", "densewin"],
        ]
        sets += [["bm25", "dense", p] for p in inputs if p.startswith("prf")]
        sets += [["bm25", p] for p in inputs if p.startswith("prf")]
        sets += [["bm25", "bm25win", "dense", p] for p in inputs if p.startswith("prf")]
        sets += [[b, "dense"] for b in inputs if b.startswith("bm25 k1")]
        sets += [[b, b.replace("bm25 ", "bm25win "), "dense"] for b in inputs
                 if b.startswith("bm25 k1")]  # fmt: skip
        designs += [Design(f"{norm} " + " + ".join(s), s, norm) for s in sets]
        for d in map(int, filter(None, args.depths.split(","))):
            designs.append(Design(f"{norm} depth={d} bm25 + dense", ["bm25", "dense"], norm, d))
            designs.append(
                Design(
                    f"{norm} depth={d} bm25 + bm25win + dense",
                    ["bm25", "bm25win", "dense"],
                    norm,
                    d,
                )
            )
    header = f"{'design':58s} {'fit in-sample':>22s} {'cross-validated':>16s}"
    print(header + f" {'vs base (p)':>20s} {'vs bm25 (p)':>20s}")
    for design in designs:
        labels, rows = candidates(design, inputs, gains, ideal)
        means = rows.mean(axis=1)
        best = int(np.argmax(means))
        cv = cross_validate(rows, args.folds)
        vb = paired_test(base_cv.tolist(), cv.tolist())
        v25 = paired_test(bm25_q.tolist(), cv.tolist())
        print(f"{design.name:58s} {means[best]:.4f} {labels[best]:>15s} {cv.mean():16.4f} "
              f"{vb.delta:+.4f} (p={vb.p_value:.3f}) {v25.delta:+.4f} (p={v25.p_value:.3f})",
              flush=True)  # fmt: skip


if __name__ == "__main__":
    main()

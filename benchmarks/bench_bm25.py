"""Index and query throughput of our bm25s-backed ranker vs rank-bm25, in one run.

Why: BM25 is the lexical baseline of every task; the library choice (bm25s) rests on its
speed, which this measures on the build machine instead of quoting the bm25s README.

    .venv/bin/python benchmarks/bench_bm25.py                          # 100k docs
    .venv/bin/python benchmarks/bench_bm25.py --docs 10000 --queries 50

Corpus: synthetic documents of made-up words (``t0``..``tV``) drawn from a Zipf law
(s = 1.1, like real term frequencies), lengths uniform in [80, 220] tokens. Queries:
3-8 terms sampled from the same law. Both libraries get the same token lists and the
same variant (``BM25Params.rank_bm25_okapi``), so the script also reports how often their
top-10 agree; differences come only from terms in more than half of the documents
(rank-bm25 floors those idfs at 0.25·mean idf, bm25s at 0 — see rankers/bm25.py).

rank-bm25 scores every document in pure Python per query term, so it gets
``--rb-queries`` queries (default 20) to keep the run short; throughputs are per query.
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import numpy as np

from scholarkg.benchmark.rankers.bm25 import BM25Params, BM25Ranker, TokenizerConfig


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_corpus(
    n_docs: int, n_queries: int, vocab: int, seed: int
) -> tuple[list[str], list[str], list[str]]:
    rng = np.random.default_rng(seed)
    ranks = np.arange(1, vocab + 1)
    p = 1.0 / ranks**1.1
    p /= p.sum()
    words = np.array([f"t{i}" for i in range(vocab)])
    lengths = rng.integers(80, 221, n_docs)
    flat = rng.choice(vocab, size=int(lengths.sum()), p=p)
    texts, start = [], 0
    for n in lengths:
        texts.append(" ".join(words[flat[start : start + n]]))
        start += n
    queries = [
        " ".join(words[rng.choice(vocab, rng.integers(3, 9), p=p)]) for _ in range(n_queries)
    ]
    return [f"d{i}" for i in range(n_docs)], texts, queries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=1_000)
    ap.add_argument("--rb-queries", type=int, default=20)
    ap.add_argument("--vocab", type=int, default=50_000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    t = time.perf_counter()
    ids, texts, queries = make_corpus(args.docs, args.queries, args.vocab, args.seed)
    gen_s = time.perf_counter() - t
    tok = TokenizerConfig(stopwords=None)
    params = BM25Params.rank_bm25_okapi()

    import bm25s  # noqa: F401  (import time, ~2 s with numba, is not index time)

    t = time.perf_counter()
    ours = BM25Ranker(ids, texts, params=params, tokenizer=tok)
    ours_index_s = time.perf_counter() - t
    ours.rank(queries[0], args.k)  # first query pays one-off costs (numba/np warm-up)
    t = time.perf_counter()
    ours_results = [ours.rank(q, args.k).ids for q in queries]
    ours_query_s = time.perf_counter() - t

    from rank_bm25 import BM25Okapi

    tokenize = tok.tokenizer()
    t = time.perf_counter()
    ref = BM25Okapi([tokenize(x) for x in texts], k1=params.k1, b=params.b)
    rb_index_s = time.perf_counter() - t
    rb_queries = queries[: args.rb_queries]
    t = time.perf_counter()
    rb_results = []
    for q in rb_queries:
        scores = ref.get_scores(tokenize(q))
        order = np.lexsort((np.arange(len(ids)), -scores))[: args.k]
        rb_results.append([ids[i] for i in order])
    rb_query_s = time.perf_counter() - t

    agree = sum(a == b for a, b in zip(ours_results, rb_results, strict=False))
    # queries whose terms all occur in at most half the documents: the variants coincide
    half = len(ids) / 2
    common = {t for t, df in ((t, sum(1 for d in ref.doc_freqs if t in d)) for t in
              {w for q in rb_queries for w in tokenize(q)}) if df > half}  # fmt: skip
    rare = [i for i, q in enumerate(rb_queries) if not common & set(tokenize(q))]
    agree_rare = sum(ours_results[i] == rb_results[i] for i in rare)
    out = {
        "docs": args.docs,
        "avg_doc_tokens": round(float(np.mean([len(x.split()) for x in texts[:10_000]])), 1),
        "vocab": args.vocab,
        "corpus_generation_s": round(gen_s, 2),
        "bm25s": {
            "index_s": round(ours_index_s, 2),
            "docs_per_s": round(args.docs / ours_index_s),
            "queries": len(queries),
            "query_s": round(ours_query_s, 3),
            "queries_per_s": round(len(queries) / ours_query_s, 1),
        },
        "rank_bm25": {
            "index_s": round(rb_index_s, 2),
            "docs_per_s": round(args.docs / rb_index_s),
            "queries": len(rb_queries),
            "query_s": round(rb_query_s, 3),
            "queries_per_s": round(len(rb_queries) / rb_query_s, 2),
        },
        "query_speedup": round((len(queries) / ours_query_s) / (len(rb_queries) / rb_query_s), 1),
        "top10_identical": f"{agree}/{len(rb_queries)}",
        "top10_identical_no_term_in_over_half_the_docs": f"{agree_rare}/{len(rare)}",
        "peak_rss_mb": round(peak_rss_mb()),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

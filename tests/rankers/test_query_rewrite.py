"""QueryRewriteRanker: the inner ranker sees the rewritten text, in rank and in batches."""

from __future__ import annotations

from _fakes import HashEmbedder

from scholarkg.benchmark.rankers.bm25 import BM25Ranker
from scholarkg.benchmark.rankers.dense import DenseRanker
from scholarkg.benchmark.rankers.query_rewrite import QueryRewriteRanker
from scholarkg.benchmark.tasks.retrieval.querytext import citation_query, weigh_ref_window

IDS = ["a", "b"]
TEXTS = ["lattice protein folding", "theorem proving with lattices"]
QUERY = "Smith <REF> studied lattice folding in Table 2 of a theorem"


def test_rewritten_query_reaches_the_inner_ranker() -> None:
    bm25 = BM25Ranker(IDS, TEXTS)
    window = QueryRewriteRanker(
        bm25, lambda t: weigh_ref_window(t, 2), rewrite_label="clean+ref-window=2",
        name="bm25-ref-window",
    )  # fmt: skip
    got = window.rank(QUERY, 2)
    want = bm25.rank(weigh_ref_window(QUERY, 2), 2)
    assert (got.ids, got.scores) == (want.ids, want.scores)
    assert got.ranker == "bm25-ref-window"
    assert got.params["query_rewrite"] == "clean+ref-window=2"
    assert got.params["variant"] == bm25.params["variant"]
    # the window repeats "studied lattice": a (lattice) gains over the whole-sentence query
    assert got.scores[0] > bm25.rank(citation_query(QUERY), 1).scores[0]


def test_batches_are_rewritten_and_the_encoder_stays_visible() -> None:
    emb = HashEmbedder()
    dense = DenseRanker.from_texts(emb, IDS, TEXTS)
    clean = QueryRewriteRanker(dense, citation_query, rewrite_label="clean")
    assert clean.embedder is emb and clean.name == "dense"
    emb.encoded.clear()
    clean.prepare_queries([QUERY])
    assert emb.encoded == [citation_query(QUERY)]
    clean.rank(QUERY, 2)
    assert emb.encoded == [citation_query(QUERY)]  # answered from the prepared vector

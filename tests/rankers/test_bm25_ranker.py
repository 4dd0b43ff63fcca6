"""BM25 ranker: hand-computed scores, rank-bm25 parity, candidates, save/load."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from _fakes import synthetic_corpus
from rank_bm25 import BM25Okapi

from scholarkg.benchmark.rankers.bm25 import BM25Params, BM25Ranker, TokenizerConfig
from scholarkg.errors import InputError

TINY_IDS = ["d1", "d2", "d3"]
TINY_TEXTS = ["Graph neural graph", "the neural ranking", "Citation graph ranking model"]


def test_lucene_scores_match_hand_computation() -> None:
    r = BM25Ranker(TINY_IDS, TINY_TEXTS)  # defaults: lucene, k1=1.5, b=0.75, en stopwords
    # tokens: d1 [graph, neural, graph] (3), d2 [neural, ranking] (2; "the" is a stopword),
    # d3 [citation, graph, ranking, model] (4); N = 3, avgdl = 3
    idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # df(graph) = df(ranking) = 2

    def tfc(tf: int, dl: int) -> float:
        return tf / (tf + 1.5 * (1 - 0.75 + 0.75 * dl / 3))

    expected = {
        "d1": idf * tfc(2, 3),
        "d2": idf * tfc(1, 2),
        "d3": idf * tfc(1, 4) + idf * tfc(1, 4),
    }
    ranking = r.rank("graph RANKING", 3)
    assert ranking.ids == ["d3", "d1", "d2"]
    for doc_id, score in zip(ranking.ids, ranking.scores, strict=True):
        assert score == pytest.approx(expected[doc_id], abs=1e-6)
    assert ranking.ranker == "bm25"
    assert ranking.params["variant"]["method"] == "lucene"
    assert ranking.params["tokenizer"]["stopwords"]["n"] > 0


def test_parity_with_rank_bm25_okapi() -> None:
    ids, texts = synthetic_corpus()
    tok = TokenizerConfig(stopwords=None)
    ours = BM25Ranker(ids, texts, params=BM25Params.rank_bm25_okapi(), tokenizer=tok)
    tokenize = tok.tokenizer()
    ref = BM25Okapi([tokenize(t) for t in texts], k1=1.5, b=0.75)
    # every term is rare (df << N/2), the regime where the two idfs coincide
    assert max(sum(t in d for d in ref.doc_freqs) for t in ref.idf) < 30
    queries = [texts[i].split()[:3] for i in range(0, 60, 6)] + [["w001", "w001", "w999"]]
    for q in queries:
        text = " ".join(q)
        expected = ref.get_scores(tokenize(text))
        got = ours.scores(text)
        np.testing.assert_allclose(got, expected, atol=1e-6, rtol=0)
        ranking = ours.rank(text, 10)
        best = np.lexsort((np.arange(len(ids)), -expected))[:10]
        assert ranking.ids == [ids[i] for i in best]


def test_robertson_is_okapi_divided_by_k1_plus_1() -> None:
    ids, texts = synthetic_corpus()
    tok = TokenizerConfig(stopwords=None)
    okapi = BM25Ranker(ids, texts, params=BM25Params.rank_bm25_okapi(), tokenizer=tok)
    rob = BM25Ranker(
        ids, texts, params=BM25Params(method="robertson", dtype="float64"), tokenizer=tok
    )
    q = texts[3]
    np.testing.assert_allclose(rob.scores(q) * 2.5, okapi.scores(q), atol=1e-9)
    assert rob.rank(q, 10).ids == okapi.rank(q, 10).ids


def test_documented_divergence_for_terms_in_most_documents() -> None:
    # "common" occurs in 3 of 4 docs: rank-bm25 floors its negative idf at 0.25*mean idf,
    # bm25s (robertson idf) at 0 — the one case where parity does not hold
    texts = ["common alpha", "common beta", "common gamma", "delta"]
    tok = TokenizerConfig(stopwords=None)
    ours = BM25Ranker(
        ["a", "b", "c", "d"], texts, params=BM25Params.rank_bm25_okapi(), tokenizer=tok
    )
    ref = BM25Okapi([t.split() for t in texts])
    assert ours.scores("common").tolist() == [0.0, 0.0, 0.0, 0.0]
    assert ref.get_scores(["common"])[0] > 0


def test_candidates_restrict_and_keep_scores() -> None:
    r = BM25Ranker(TINY_IDS, TINY_TEXTS)
    full = r.rank("graph ranking", 3).as_dict()
    sub = r.rank("graph ranking", 5, candidates=["d2", "d1"])
    assert sub.ids == ["d1", "d2"]
    assert sub.scores == [full["d1"], full["d2"]]


def test_unknown_candidates_strict_and_lenient() -> None:
    with pytest.raises(InputError, match=r"1 candidate id.*'zz'"):
        BM25Ranker(TINY_IDS, TINY_TEXTS).rank("graph", 3, candidates=["d1", "zz"])
    lenient = BM25Ranker(TINY_IDS, TINY_TEXTS, strict_candidates=False)
    ranking = lenient.rank("graph", 3, candidates=["zz", "d2", "d1"])
    assert ranking.ids == ["d1", "d2", "zz"]  # d2 and zz both 0: candidate order, known first
    assert ranking.scores[1:] == [0.0, 0.0]


def test_query_without_known_terms_returns_zero_scores_in_corpus_order() -> None:
    r = BM25Ranker(TINY_IDS, TINY_TEXTS)
    ranking = r.rank("the unknownword", 2)
    assert ranking.ids == ["d1", "d2"]
    assert ranking.scores == [0.0, 0.0]


def test_bad_corpus_is_input_error() -> None:
    with pytest.raises(InputError, match="duplicate document id 'a'"):
        BM25Ranker(["a", "a"], ["x y", "y z"])
    with pytest.raises(InputError, match="2 ids but 1 texts"):
        BM25Ranker(["a", "b"], ["x"])
    with pytest.raises(InputError, match="unknown BM25 method"):
        BM25Params(method="okapi")
    with pytest.raises(InputError, match="invalid token pattern"):
        TokenizerConfig(pattern="(")


def test_progress_reaches_corpus_size() -> None:
    ids, texts = synthetic_corpus(n_docs=250)
    calls: list[tuple[int, int]] = []
    BM25Ranker(ids, texts, progress=lambda done, total: calls.append((done, total)))
    assert calls[-1] == (250, 250)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_save_load_round_trip(tmp_path: Path) -> None:
    ids, texts = synthetic_corpus()
    tok = TokenizerConfig(lower=False, stopwords=("w000", "w001"))
    params = BM25Params(k1=1.2, b=0.6, method="atire", dtype="float64")
    r = BM25Ranker(ids, texts, params=params, tokenizer=tok)
    target = r.save(tmp_path / "idx")
    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["variant"]["k1"] == 1.2
    assert manifest["variant"]["method"] == "atire"
    assert manifest["tokenizer"] == {
        "lower": False,
        "pattern": r"(?u)\b\w\w+\b",
        "stopwords": ["w000", "w001"],
        "stemmer": None,
    }
    assert manifest["n_docs"] == 60
    loaded = BM25Ranker.load(target)
    assert loaded.tokenizer_config == tok
    assert loaded.bm25_params == params
    for q in (texts[0], texts[10], "W005 w006"):
        np.testing.assert_array_equal(loaded.scores(q), r.scores(q))
        assert loaded.rank(q, 7).ids == r.rank(q, 7).ids
    assert loaded.params == r.params
    # saving again over the same directory replaces it atomically
    r.save(target)
    assert BM25Ranker.load(target).rank(texts[0], 3).ids == r.rank(texts[0], 3).ids


def test_load_rejects_non_index(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no manifest\.json"):
        BM25Ranker.load(tmp_path)
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(InputError, match="corrupt BM25 index"):
        BM25Ranker.load(tmp_path)


def test_empty_corpus_and_documents_without_tokens(tmp_path: Path) -> None:
    assert BM25Ranker([], []).rank("anything", 5).ids == []
    # "the" is a stopword: d2 and d3 have no tokens at all
    r = BM25Ranker(["d1", "d2", "d3"], ["graph model", "", "the"])
    ranking = r.rank("graph", 3)
    # N = 3, df = 1, avgdl = 2/3, dl = 2: idf = ln(1 + 2.5/1.5); tfc = 1 / (1 + 1.5 * 2.5)
    expected = math.log(1 + 2.5 / 1.5) * 1 / (1 + 1.5 * (0.25 + 0.75 * 2 / (2 / 3)))
    assert ranking.ids == ["d1", "d2", "d3"]
    assert ranking.scores == pytest.approx([expected, 0.0, 0.0], abs=1e-6)
    no_tokens = BM25Ranker(["a", "b"], ["", "the of"])
    assert no_tokens.rank("graph", 2).scores == [0.0, 0.0]
    loaded = BM25Ranker.load(no_tokens.save(tmp_path / "empty"))
    assert loaded.rank("graph", 2).ids == ["a", "b"]

"""Rocchio dense feedback: the updated query vector and its cosines computed by hand."""

from __future__ import annotations

import numpy as np
import pytest
from _fakes import TableEmbedder

from scholarkg.benchmark.rankers.bm25 import BM25Ranker
from scholarkg.benchmark.rankers.dense import DenseRanker
from scholarkg.benchmark.rankers.rocchio import RocchioRanker
from scholarkg.errors import InputError

TEXTS = {
    "a": "graph neural networks for citation",
    "b": "citation recommendation with graphs",
    "c": "protein folding with lattice models",
}
TABLE = {
    TEXTS["a"]: [1.0, 0.0, 0.0],
    TEXTS["b"]: [0.0, 1.0, 0.0],
    TEXTS["c"]: [0.0, 0.0, 1.0],
    "citation graphs": [1.0, 0.0, 1.0],
}


def _rankers() -> tuple[DenseRanker, BM25Ranker]:
    emb = TableEmbedder(TABLE)
    dense = DenseRanker.from_texts(emb, list(TEXTS), list(TEXTS.values()))
    return dense, BM25Ranker(list(TEXTS), list(TEXTS.values()))


def test_rocchio_moves_the_query_towards_the_first_stage_top() -> None:
    dense, bm25 = _rankers()
    # BM25's top 1 for "citation graphs": b holds both words ("graphs"), a only "citation"
    assert bm25.rank("citation graphs", 1).ids == ["b"]
    ranker = RocchioRanker(dense, bm25, n_docs=1, beta=0.5)
    q = np.array([1.0, 0.0, 1.0]) / np.sqrt(2) + 0.5 * np.array([0.0, 1.0, 0.0])
    q /= np.linalg.norm(q)
    np.testing.assert_allclose(ranker.query_vector("citation graphs"), q, rtol=1e-6)
    got = ranker.rank("citation graphs", 3)
    # cosines against the unit document vectors are q's own coordinates: a = c > b
    assert got.ids == ["a", "c", "b"]
    assert got.scores == pytest.approx([q[0], q[2], q[1]], rel=1e-6)
    # the plain dense ranking puts b last with cosine 0: feedback lifted it
    assert dense.rank("citation graphs", 3).scores[-1] == pytest.approx(0.0)
    assert got.ranker == "dense-rocchio" and got.params["feedback_docs"] == 1
    assert got.params["n_docs"] == 3  # the dense ranker's collection size, not overwritten
    assert got.params["first_stage"]["ranker"] == "bm25"
    # candidates restrict the pool, as for the dense ranker
    assert ranker.rank("citation graphs", 3, candidates=["b", "c"]).ids == ["c", "b"]


def test_rocchio_with_beta_zero_is_the_dense_ranking_and_bad_settings_fail() -> None:
    dense, bm25 = _rankers()
    plain = dense.rank("citation graphs", 3)
    same = RocchioRanker(dense, bm25, n_docs=2, beta=0.0).rank("citation graphs", 3)
    assert same.ids == plain.ids and same.scores == pytest.approx(plain.scores)
    with pytest.raises(InputError, match="n_docs"):
        RocchioRanker(dense, bm25, n_docs=0)
    with pytest.raises(InputError, match="beta"):
        RocchioRanker(dense, bm25, beta=-1.0)

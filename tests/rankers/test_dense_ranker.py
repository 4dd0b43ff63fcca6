"""Dense ranker: cosines computed by hand over hand-chosen vectors; candidates; errors."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _fakes import TableEmbedder

from scholarkg.benchmark.rankers.dense import DenseRanker
from scholarkg.errors import InputError

TABLE = {
    "doc a": [1.0, 0.0, 0.0],
    "doc b": [1.0, 1.0, 0.0],
    "doc c": [0.0, 0.0, 2.0],
    "query": [1.0, 0.0, 1.0],
}


def _ranker(**kw: Any) -> DenseRanker:
    emb = TableEmbedder(TABLE)
    return DenseRanker.from_texts(emb, ["a", "b", "c"], ["doc a", "doc b", "doc c"], **kw)


def test_cosine_scores_by_hand() -> None:
    r = _ranker()
    ranking = r.rank("query", 3)
    # query = (1,0,1)/√2; a = (1,0,0): 1/√2; b = (1,1,0)/√2: 1/2; c = (0,0,1): 1/√2
    assert ranking.ids == ["a", "c", "b"]  # a and c tie: corpus order
    assert ranking.scores == pytest.approx([1 / math.sqrt(2), 1 / math.sqrt(2), 0.5], abs=1e-6)
    assert ranking.ranker == "dense"
    assert ranking.params == {
        "model": "table-embedder",
        "dim": 3,
        "n_docs": 3,
        # the encoder settings the run record shows (a test double: its name and dimension)
        "encoder": {"model": "table-embedder", "dim": 3},
    }


def test_candidates_and_unknown_ids() -> None:
    r = _ranker()
    assert r.rank("query", 5, candidates=["b", "c"]).ids == ["c", "b"]
    with pytest.raises(InputError, match="have no vector: 'x'"):
        r.rank("query", 5, candidates=["x", "b"])
    lenient = _ranker(strict_candidates=False)
    ranking = lenient.rank("query", 5, candidates=["x", "b"])
    assert ranking.ids == ["b", "x"]
    assert ranking.scores == pytest.approx([0.5, -1.0])


def test_from_vectors_normalises_rows() -> None:
    emb = TableEmbedder(TABLE)
    r = DenseRanker.from_vectors(emb, ["a", "b"], np.array([[3.0, 4.0, 0.0], [0.0, 0.0, 0.0]]))
    np.testing.assert_allclose(np.linalg.norm(r.matrix, axis=1), [1.0, 0.0], atol=1e-6)
    assert r.rank("query", 2).scores == pytest.approx([3 / 5 / math.sqrt(2), 0.0], abs=1e-6)


def test_shape_and_id_errors() -> None:
    emb = TableEmbedder(TABLE)
    with pytest.raises(InputError, match="one 3-d vector per id"):
        DenseRanker(emb, ["a", "b"], np.zeros((3, 3)))
    with pytest.raises(InputError, match="2-d but table-embedder makes 3-d"):
        DenseRanker(emb, ["a"], np.zeros((1, 2)))
    with pytest.raises(InputError, match="duplicate document id 'a'"):
        DenseRanker(emb, ["a", "a"], np.ones((2, 3)))
    with pytest.raises(InputError, match="2 ids but 1 texts"):
        DenseRanker.from_texts(emb, ["a", "b"], ["doc a"])

"""Embedding plumbing: normalisation, one encoding per distinct text, the real bundled MiniLM."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from scholarkg.benchmark.metrics.similarity import (
    EmbeddingTable,
    Encoder,
    SentenceTransformerEncoder,
    cosine_matrix,
    default_encoder,
    l2_normalise,
)
from scholarkg.errors import InputError, NotSupported


class CountingBow:
    """Bag-of-words over a fixed vocabulary; records every batch it is asked to encode."""

    def __init__(self, vocab: list[str]) -> None:
        self.vocab = {w: i for i, w in enumerate(vocab)}
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), len(self.vocab)))
        for r, text in enumerate(texts):
            for word in text.lower().split():
                if word in self.vocab:
                    out[r, self.vocab[word]] += 1
        return l2_normalise(out)


def test_l2_normalise_keeps_zero_rows() -> None:
    m = l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert m.tolist() == [[0.6, 0.8], [0.0, 0.0]]


def test_l2_normalise_rejects_vectors() -> None:
    with pytest.raises(InputError):
        l2_normalise(np.array([1.0, 2.0]))


def test_table_encodes_each_distinct_text_once_in_batches() -> None:
    enc = CountingBow(["a", "b", "c"])
    assert isinstance(enc, Encoder)
    seen: list[tuple[int, int]] = []
    table = EmbeddingTable(
        ["a", "b", "a", "c", "b", "a b"],
        enc,
        batch_size=3,
        progress=lambda d, t: seen.append((d, t)),
    )
    assert enc.calls == [["a", "b", "c"], ["a b"]]
    assert seen == [(3, 4), (4, 4)]
    sim = table.cosine(["a", "a b"], ["a", "c"])
    assert sim[0].tolist() == [1.0, 0.0]
    assert sim[1, 0] == pytest.approx(1 / math.sqrt(2))
    assert sim[1, 1] == 0.0


def test_table_rejects_non_strings_and_bad_shapes() -> None:
    with pytest.raises(InputError, match="item 1"):
        EmbeddingTable(["a", 3], CountingBow(["a"]))  # type: ignore[list-item]  # the wrong type is the test

    class Broken:
        def encode(self, texts: list[str]) -> np.ndarray:
            return np.zeros((1, 2))

    with pytest.raises(InputError, match="encoder returned shape"):
        EmbeddingTable(["a", "b"], Broken())


def test_cosine_matrix_unclipped() -> None:
    class Signed:
        def encode(self, texts: list[str]) -> np.ndarray:
            return np.array([[1.0, 0.0] if t == "up" else [-1.0, 0.0] for t in texts])

    assert cosine_matrix(["up"], ["up", "down"], Signed()).tolist() == [[1.0, -1.0]]


def test_encoder_rejects_bad_batch_size() -> None:
    with pytest.raises(InputError):
        SentenceTransformerEncoder(batch_size=0)


@pytest.mark.model
def test_bundled_minilm_orders_similarities_sensibly() -> None:
    enc = default_encoder()
    emb = enc.encode(
        [
            "The cat sits on the mat.",
            "A cat is sitting on a rug.",
            "Quarterly revenue of the bank rose by four percent.",
        ]
    )
    assert emb.shape == (3, 384)
    assert np.allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    sim = emb @ emb.T
    assert sim[0, 1] > 0.5
    assert sim[0, 1] > sim[0, 2] + 0.3
    assert default_encoder() is enc


def test_missing_model_is_not_supported_offline(tmp_path: Path) -> None:
    with pytest.raises(NotSupported, match="not available offline"):
        SentenceTransformerEncoder(tmp_path / "absent").encode(["x"])

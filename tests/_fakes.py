"""Test doubles shared across test folders: a synthetic corpus and deterministic embedders.

A plain module, not a conftest: tests import these classes directly. It is importable from
every test folder because pytest (default ``prepend`` import mode) puts ``tests/`` on
``sys.path`` when it loads ``tests/conftest.py``; the test folders are not packages.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable, Sequence

import numpy as np


def synthetic_corpus(
    n_docs: int = 60, vocab_size: int = 240, doc_len: int = 18, seed: int = 7
) -> tuple[list[str], list[str]]:
    """Documents of made-up words (``w000``..): no third-party text, controlled frequencies.

    With 60 docs of 18 words from 240 words every term's df stays far below N/2, the regime
    where bm25s and rank-bm25 agree exactly.
    """
    rng = random.Random(seed)
    vocab = [f"w{i:03d}" for i in range(vocab_size)]
    ids = [f"d{i:03d}" for i in range(n_docs)]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(5, doc_len))) for _ in ids]
    return ids, texts


class FakeEmbedder:
    """The ``Embedder`` protocol for tests: subclasses give raw vectors, this L2-normalises
    them (as the real model does) and reports progress once per call."""

    name = "fake-embedder"
    slug = "fake"
    dim: int

    def _vectors(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        out = np.asarray(self._vectors(list(texts)), dtype=np.float32).reshape(-1, self.dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        if progress is not None:
            progress(len(texts))
        return out / norms


class TableEmbedder(FakeEmbedder):
    """Embedder whose vectors are given per text: lets tests compute cosines by hand."""

    name = "table-embedder"
    slug = "table"

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = table
        self.dim = len(next(iter(table.values())))
        self.calls = 0

    def _vectors(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.asarray([self.table[t] for t in texts], dtype=np.float32)


class HashEmbedder(FakeEmbedder):
    """Bag-of-words hashed into 32 dims: cheap, deterministic, records its encoded texts.

    Stands in for a model where only bookkeeping is under test (which texts get encoded).
    """

    dim = 32

    def __init__(self, name: str = "hash-embedder") -> None:
        self.name = name
        self.slug = "hash32"
        self.encoded: list[str] = []

    def _vectors(self, texts: list[str]) -> np.ndarray:
        self.encoded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for tok in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(tok.encode()).hexdigest(), 16) % self.dim] += 1.0
        return out

"""Shared helpers for ranker tests: a synthetic corpus and a tiny deterministic embedder.

A plain module (not conftest) so tests can import the helpers; the test folders are not packages.
"""

from __future__ import annotations

import random
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


class TableEmbedder:
    """Embedder whose vectors are given per text: lets tests compute cosines by hand."""

    name = "table-embedder"
    slug = "table"

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = table
        self.dim = len(next(iter(table.values())))
        self.calls = 0

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        self.calls += 1
        out = np.asarray([self.table[t] for t in texts], dtype=np.float32).reshape(-1, self.dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1
        if progress is not None:
            progress(len(texts))
        return out / norms

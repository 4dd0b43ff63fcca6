"""Dense pseudo-relevance feedback: Rocchio's query update on embedding vectors.

Why: a short query (a citing sentence, a DORIS-MAE aspect list) and the documents it should
find share few words and sit apart in embedding space; the best few documents a first-stage
ranker returns are mostly relevant and say more about the topic than the query does. Moving
the query vector towards their mean (Rocchio, "Relevance feedback in information
retrieval", 1971, with no negative feedback; the dense form of e.g. Li et al., "Pseudo
Relevance Feedback with Deep Language Models and Dense Retrievers", TOIS 2023) ranks by

    cos(q / |q| + beta * mean(d_1 .. d_n), d)

with ``d_1 .. d_n`` the (unit) vectors of the first stage's top ``n`` documents. On the dev
queries of unarXive and DORIS-MAE it helped as an extra input of ``hybrid-learned``'s fusion
(``docs/results-real.md``); the first stage there is the BM25 + dense RRF, whose top is
better than either ranker's alone.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from scholarkg.benchmark.rankers.base import Ranker
from scholarkg.benchmark.rankers.dense import DenseRanker
from scholarkg.errors import InputError

#: feedback documents and their weight, chosen on the dev queries of unarXive and DORIS-MAE
ROCCHIO_DOCS = 10
ROCCHIO_BETA = 0.5


class RocchioRanker(Ranker[str]):
    """Cosine ranking over ``dense``'s vectors with the query moved towards the mean of
    ``first_stage``'s top ``n_docs`` documents (weight ``beta``)."""

    name = "dense-rocchio"

    def __init__(
        self,
        dense: DenseRanker,
        first_stage: Ranker[str],
        *,
        n_docs: int = ROCCHIO_DOCS,
        beta: float = ROCCHIO_BETA,
    ) -> None:
        if n_docs < 1:
            raise InputError(f"Rocchio needs n_docs >= 1, got {n_docs}", field="n_docs")
        if beta < 0:
            raise InputError(f"Rocchio needs beta >= 0, got {beta}", field="beta")
        self.dense = dense
        self.first_stage = first_stage
        self.n_docs = n_docs
        self.beta = beta
        self.embedder = dense.embedder
        super().__init__(
            {
                **dense.params,
                "feedback_docs": n_docs,
                "beta": beta,
                "first_stage": {"ranker": first_stage.name, "params": first_stage.params},
            }
        )

    def prepare_queries(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> None:
        self.first_stage.prepare_queries(texts, progress)
        self.dense.prepare_queries(texts)

    def query_vector(self, query: str) -> np.ndarray:
        """The updated query vector (unit length), as the module docstring defines it."""
        q = self.dense.query_vector(query).astype(np.float64)
        q = q / max(float(np.linalg.norm(q)), 1e-12)
        top = self.first_stage.rank(query, self.n_docs).ids
        feedback = self.dense.vectors_of(top)
        if len(feedback):
            q = q + self.beta * feedback.astype(np.float64).mean(axis=0)
        out: np.ndarray = (q / max(float(np.linalg.norm(q)), 1e-12)).astype(np.float32)
        return out

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        return self.dense.rank_vector(self.query_vector(query), k, candidates)

"""Dense (embedding) ranking: cosine similarity between the query and document vectors.

Two sources of document vectors, one ranker:

* in memory (:meth:`DenseRanker.from_texts` / :meth:`DenseRanker.from_vectors`): an
  ``(n, dim)`` float32 matrix; a query is one matrix-vector product. Exact, and fast enough
  for the candidate pools benchmarks use (100k x 384 floats = 150 MB, ~20 ms a query).
* the graph (:class:`StoreDenseRanker`): the store's vector index (HNSW on FalkorDB,
  Lucene on Neo4j) for whole-label search; candidate subsets fetch their vectors by id.

Scores are cosines in [-1, 1] in both cases (the store's ``(1 + cos) / 2`` is mapped back),
so the two are interchangeable in fusion and in run files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from scholarkg.benchmark.metrics.similarity import l2_normalise
from scholarkg.benchmark.rankers.base import Ranker, rank_pool, split_candidates, top_k
from scholarkg.errors import InputError
from scholarkg.services.embeddings import (
    Embedder,
    embedder_settings,
    property_name,
    vector_index_for,
)
from scholarkg.store.base import GraphStore


def _record_settings(embedder: Embedder) -> dict[str, Any]:
    """Encoder settings for the run record, without the local cache path (not a setting)."""
    return {k: v for k, v in embedder_settings(embedder).items() if k != "cache"}


class DenseRanker(Ranker[str]):
    """Exact cosine ranking over an in-memory matrix of document vectors."""

    name = "dense"

    def __init__(
        self,
        embedder: Embedder,
        ids: Sequence[str],
        vectors: np.ndarray,
        *,
        strict_candidates: bool = True,
    ) -> None:
        ids = [str(i) for i in ids]
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(ids):
            raise InputError(
                f"need one {embedder.dim}-d vector per id: got {len(ids)} ids and an array "
                f"of shape {vectors.shape}",
                field="vectors",
            )
        if vectors.shape[0] and vectors.shape[1] != embedder.dim:
            raise InputError(
                f"vectors are {vectors.shape[1]}-d but {embedder.name} makes {embedder.dim}-d",
                field="vectors",
            )
        pos: dict[str, int] = {}
        for n, doc_id in enumerate(ids):
            if doc_id in pos:
                raise InputError(f"duplicate document id {doc_id!r}", line=n, field="id")
            pos[doc_id] = n
        self.embedder = embedder
        self.ids = ids
        self._pos = pos
        self.matrix = l2_normalise(vectors, dtype=np.float32)
        self.strict_candidates = strict_candidates
        self._queries: dict[str, np.ndarray] = {}
        params = {"model": embedder.name, "dim": embedder.dim, "n_docs": len(ids)}
        super().__init__({**params, "encoder": _record_settings(embedder)})

    @classmethod
    def from_texts(
        cls,
        embedder: Embedder,
        ids: Sequence[str],
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
        strict_candidates: bool = True,
    ) -> DenseRanker:
        """Encode ``texts`` (progress after each batch) and rank over them."""
        if len(ids) != len(texts):
            raise InputError(f"{len(ids)} ids but {len(texts)} texts", field="texts")
        vectors = embedder.encode(list(texts), batch_size=batch_size, progress=progress)
        return cls(embedder, ids, vectors, strict_candidates=strict_candidates)

    @classmethod
    def from_vectors(
        cls, embedder: Embedder, ids: Sequence[str], vectors: np.ndarray
    ) -> DenseRanker:
        return cls(embedder, ids, vectors)

    def prepare_queries(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> None:
        """Encode every query text of a run in one batched call; kept for :meth:`rank`."""
        todo = list(dict.fromkeys(t for t in texts if t not in self._queries))
        if todo:
            vecs = self.embedder.encode(todo, progress=progress)
            self._queries.update(zip(todo, np.asarray(vecs, dtype=np.float32), strict=True))

    def query_vector(self, query: str) -> np.ndarray:
        vec = self._queries.get(query)
        if vec is not None:
            return vec
        return np.asarray(self.embedder.encode([query])[0], dtype=np.float32)

    def vectors_of(self, doc_ids: Sequence[str]) -> np.ndarray:
        """The unit vectors of ``doc_ids`` (ids without a vector are skipped)."""
        rows = [self._pos[d] for d in doc_ids if d in self._pos]
        return self.matrix[rows]

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        return self.rank_vector(self.query_vector(query), k, candidates)

    def rank_vector(
        self, q: np.ndarray, k: int, candidates: Sequence[str] | None = None
    ) -> tuple[list[str], list[float]]:
        """``(ids, cosines)`` of the ``k`` documents nearest the query vector ``q`` (of
        unit length), among ``candidates`` when given; for rankers that make their own
        query vector (:class:`~.rocchio.RocchioRanker`)."""
        if candidates is None:
            idx, vals = top_k(self.matrix @ q, k)
            return [self.ids[i] for i in idx], vals.tolist()
        known, missing = split_candidates(
            candidates, self._pos, strict=self.strict_candidates, missing_what="have no vector"
        )
        sub = self.matrix[[self._pos[c] for c in known]] @ q if known else np.zeros(0, np.float32)
        # unknown candidates (non-strict) rank last: below any cosine
        return rank_pool(known, sub, missing, -1.0, k)


class StoreDenseRanker(Ranker[str]):
    """Cosine ranking through the graph store's vector index on ``label``.

    Needs the vectors written by ``services.embeddings.embed_nodes`` with the same embedder.
    With ``candidates`` the index is bypassed: the candidates' vectors are read by id and
    scored exactly, because an ANN index cannot be asked to search inside an arbitrary set.
    """

    name = "dense-store"

    def __init__(self, store: GraphStore, label: str, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.index = vector_index_for(label, embedder)
        self.property = property_name(embedder)
        super().__init__(
            {
                "model": embedder.name,
                "dim": embedder.dim,
                "label": label,
                "property": self.property,
                "backend": store.backend,
            }
        )

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        q = np.asarray(self.embedder.encode([query])[0], dtype=np.float32)
        if candidates is None:
            if k == 0:
                return [], []
            # The index finds the hits; their scores come from the stored vectors, as for
            # candidates below. Each server computes its cosine in float32 its own way (two
            # hits measured: FalkorDB 0.86640850 and 0.86640847, Neo4j 0.86640847 for both),
            # and tied hits come back in each one's own order: re-scored here and taken in
            # id order, the ranking is the same on every backend (ties by id).
            hits = self.store.vector(self.index, q.tolist(), k=k)
            candidates = sorted(h.id for h in hits)
        rows = self.store.run_named(
            "rankers/dense_candidate_vectors", {"ids": list(candidates)},
            label=self.index.label, prop=self.property,
        )  # fmt: skip
        found: dict[str, Any] = {str(r["id"]): r["v"] for r in rows}
        pool = [c for c in candidates if c in found]
        if not pool:
            return [], []
        matrix = l2_normalise(np.asarray([found[c] for c in pool]), dtype=np.float32)
        idx, vals = top_k(matrix @ q, k)
        return [pool[i] for i in idx], vals.tolist()

"""The text side of the recommender: BM25 over the works that have text, and dense vectors.

* **BM25** (:class:`~scholarkg.benchmark.rankers.bm25.BM25Ranker`, bm25s): every Paper with
  a title or an abstract, title and abstract joined as for embeddings. Built once per graph
  version and saved beside the store (``<cache>/bm25-<version>``, read back memory-mapped),
  because tokenising a million abstracts takes minutes and a query takes milliseconds.
* **Dense**: the vectors ``scholarkg embed nodes`` stores (``Paper.emb_<model>``), searched
  through the store's vector index, on the server on both backends. No vectors stored: no
  dense input (the recommender says so); a query text is encoded with the same model. A
  work of the graph used as a query (the fit, an evaluation) is its own stored vector.

A query that excludes works asks each ranker for as many more results as it excludes and
drops them (their text statistics stay in BM25's idf, the one trace a graph without them
would not have).
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scholarkg.benchmark.rankers.base import Ranking
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from scholarkg.benchmark.rankers.bm25 import BM25Ranker
    from scholarkg.services.embeddings import Embedder

log = logging.getLogger(__name__)

TEXT_FIELDS = ("title", "abstract")
PAGE = 5_000

__all__ = ["TEXT_FIELDS", "TextSearch", "work_text"]


def work_text(title: str | None, abstract: str | None) -> str:
    """A work's text as every text ranker here reads it (title and abstract, one per line)."""
    from scholarkg.services.embeddings import node_text

    return node_text([title, abstract])


#: the BM25 cache's layout: 2 = the corpus in id order on every backend
CACHE_FORMAT = 2
#: internal-id window of the FalkorDB reader (rows of one reply: ~20 MB of abstracts)
WINDOW = 20_000


def _read_corpus(
    store: GraphStore, progress: Callable[[int, int], None] | None
) -> tuple[list[str], list[str]]:
    """``(ids, texts)`` of every Paper with text. FalkorDB: windows of internal node ids
    (a seek; paging by ``p.id`` sorted the whole label for every page, quadratic in the
    graph). Neo4j: pages by ``p.id`` after the last one (its index gives the order)."""
    from scholarkg.queries import has_query

    ids: list[str] = []
    texts: list[str] = []

    def take(rows: list[dict[str, object]]) -> None:
        for r in rows:
            title, abstract = r.get("title"), r.get("abstract")
            text = work_text(
                title if isinstance(title, str) else None,
                abstract if isinstance(abstract, str) else None,
            )
            if text:
                ids.append(str(r["id"]))
                texts.append(text)
        if progress is not None:
            progress(len(ids), 0)

    if has_query("recommend/text_window", store.dialect):
        top_rows = store.run_named("recommend/text_window_top", {})
        top = top_rows[0].get("top") if top_rows else None
        for lo in range(0, int(top) + 1 if top is not None else 0, WINDOW):
            take(store.run_named("recommend/text_window", {"lo": lo, "hi": lo + WINDOW}))
        # in id order, as Neo4j reads them: BM25 breaks ties by corpus position, and the
        # rankings must not depend on the backend
        order = sorted(range(len(ids)), key=ids.__getitem__)
        return [ids[i] for i in order], [texts[i] for i in order]
    after = ""
    while True:
        rows = store.run_named("recommend/text_page", {"after": after, "limit": PAGE})
        take(rows)
        if len(rows) < PAGE:
            return ids, texts
        after = str(rows[-1]["id"])


@dataclass
class TextSearch:
    """BM25 and dense search over the works with text, for one graph version."""

    store: GraphStore
    version: str
    cache: Path | None = None
    model: str = "minilm"
    embedder: Embedder | None = None
    _bm25: BM25Ranker | None = field(default=None, repr=False)
    _dense: bool | None = field(default=None, repr=False)
    _prop: str | None = field(default=None, repr=False)
    _pos: dict[str, int] | None = field(default=None, repr=False)

    # -- BM25 --------------------------------------------------------------------------

    def bm25(self, progress: Callable[[str, int, int | None], None] | None = None) -> BM25Ranker:
        """The index, loaded from the cache or built (and saved) on first use."""
        if self._bm25 is not None:
            return self._bm25
        from scholarkg.benchmark.rankers.bm25 import BM25Ranker

        path = None if self.cache is None else self.cache / f"bm25-{CACHE_FORMAT}-{self.version}"
        if path is not None and (path / "manifest.json").is_file():
            try:
                self._bm25 = BM25Ranker.load(path, strict_candidates=False, mmap=True)
                return self._bm25
            except InputError as err:
                log.warning("rebuilding the BM25 index (%s)", err)

        def read(done: int, _total: int) -> None:
            if progress is not None:
                progress("reading the works' text", done, None)

        ids, texts = _read_corpus(self.store, read)
        if progress is not None:
            progress("reading the works' text", len(ids), len(ids))

        def index(done: int, total: int) -> None:
            if progress is not None:
                progress("indexing text (BM25)", done, total)

        ranker = BM25Ranker(ids, texts, strict_candidates=False, progress=index)
        if path is not None:
            ranker.save(path)
            for old in path.parent.glob("bm25-*"):  # earlier versions' indexes
                if old != path and old.is_dir():
                    shutil.rmtree(old, ignore_errors=True)
        self._bm25 = ranker
        return ranker

    def bm25_ranking(self, text: str, depth: int, exclude: frozenset[str] = frozenset()) -> Ranking:
        """BM25's ``depth`` best works; the excluded ones out of the corpus (idf included)."""
        from scholarkg.benchmark.rankers.base import top_k

        ranker = self.bm25()
        if self._pos is None:
            self._pos = {d: i for i, d in enumerate(ranker.ids)}
        gone = [self._pos[x] for x in exclude if x in self._pos]
        scores = ranker.scores(text, without=gone, per_term=True)
        idx, vals = top_k(scores, depth)
        keep = np.isfinite(vals) & (vals > 0)  # a work sharing no term with the query is no find
        return Ranking([ranker.ids[i] for i in idx[keep]], vals[keep].tolist(), "bm25")

    # -- dense -------------------------------------------------------------------------

    def vector_property(self) -> str:
        """``emb_<slug>``: what ``scholarkg embed nodes --model <model>`` writes (no model is
        loaded to know it)."""
        if self._prop is None:
            from scholarkg.schema.ddl import check_property
            from scholarkg.services.embeddings import model_slug

            slug = self.embedder.slug if self.embedder is not None else model_slug(self.model)
            self._prop = check_property(f"emb_{slug}")
        return self._prop

    def dense_available(self) -> bool:
        """Whether the works hold vectors of this model (``scholarkg embed nodes``)."""
        if self._dense is None:
            rows = self.store.run_named(
                "recommend/count_vectors",
                {},
                label="Paper",
                prop=self.vector_property(),
            )
            self._dense = bool(rows and int(rows[0]["n"]) > 0)
        return self._dense

    def encoder(self) -> Embedder:
        if self.embedder is None:
            from scholarkg.services.embeddings import load_embedder

            self.embedder = load_embedder(self.model)
        return self.embedder

    def query_vector(self, text: str) -> np.ndarray:
        return np.asarray(self.encoder().encode([text])[0], dtype=np.float32)

    def stored_vectors(self, ids: Sequence[str]) -> dict[str, np.ndarray]:
        """The stored vectors of works of the graph (the fit's queries are works)."""
        if not ids or not self.dense_available():
            return {}
        rows = self.store.run_named(
            "rankers/dense_candidate_vectors",
            {"ids": list(ids)},
            label="Paper",
            prop=self.vector_property(),
        )
        return {str(r["id"]): np.asarray(r["v"], dtype=np.float32) for r in rows}

    def dense_ranking(
        self, vector: np.ndarray, depth: int, exclude: frozenset[str] = frozenset()
    ) -> Ranking:
        from scholarkg.schema.ddl import VectorIndex

        dim = int(vector.shape[0])
        prop = self.vector_property()
        index = VectorIndex(name=f"paper_{prop}", label="Paper", property=prop, dimensions=dim)
        hits = self.store.vector(index, vector.tolist(), k=depth + len(exclude))
        ids = [h.id for h in hits]
        scores = [2.0 * float(h.score) - 1.0 for h in hits]  # back to the cosine
        return _drop(Ranking(ids, scores, "dense"), exclude, depth, "dense")


def _drop(r: Ranking, exclude: frozenset[str], depth: int, name: str) -> Ranking:
    pairs = [(i, s) for i, s in zip(r.ids, r.scores, strict=True) if i not in exclude][:depth]
    return Ranking([i for i, _ in pairs], [s for _, s in pairs], name, params=dict(r.params))

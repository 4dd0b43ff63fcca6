"""Works related to one work, each row saying why: ``scholarkg related WORK``.

Four lists, fused by RRF (k = 60; no graph-specific fit: there is no held-out answer to fit
"related" on):

* **co-citation** — works cited together with it, by how many works cite both
  (``recommend/related_cocited``, in the server on both backends);
* **bibliographic coupling** — works citing what it cites, by how many references they
  share (``recommend/related_coupled``);
* **FastRP** — nearest works by FastRP embedding: the stored ``fastrp_<dim>`` vectors
  (``graph embed``) through the vector index; on the embedded store without them, the
  recommender's own FastRP of the projection (the same numbers ``graph embed`` would store);
* **text** — nearest works by the stored text vectors (``embed nodes``) through the vector
  index; without them, BM25 on the work's title and abstract.

Every row then gets all four numbers (the counts by one query over the listed ids, the
similarities from the vectors), so a reader sees e.g. "12 works cite both, 3 shared
references, FastRP 0.81, text 0.64" and can judge each reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scholarkg.benchmark.rankers.base import Ranking
from scholarkg.benchmark.rankers.fusion import rrf
from scholarkg.store.base import GraphStore

__all__ = ["RelatedResult", "RelatedRow", "related_works"]

#: each list's depth before fusion
DEPTH = 50


@dataclass
class RelatedRow:
    rank: int
    id: str
    score: float
    title: str | None = None
    year: int | None = None
    stub: bool = False
    shared_citing: int = 0
    shared_cited: int = 0
    fastrp: float | None = None
    text: float | None = None
    #: what ``text`` is: a cosine of stored text vectors, or a BM25 score
    text_kind: str = "text"
    found_by: list[str] = field(default_factory=list)

    def why(self) -> str:
        parts = []
        if self.shared_citing:
            n = self.shared_citing
            parts.append(f"{n} work{'s cite' if n != 1 else ' cites'} both")
        if self.shared_cited:
            parts.append(
                f"{self.shared_cited} shared reference{'s' if self.shared_cited != 1 else ''}"
            )
        if self.fastrp is not None:
            parts.append(f"FastRP {self.fastrp:.2f}")
        if self.text is not None:
            parts.append(f"{self.text_kind} {self.text:.2f}")
        return "; ".join(parts)

    def as_row(self) -> dict[str, Any]:
        return {
            "rank": self.rank,
            "id": self.id,
            "stub": "stub" if self.stub else "",
            "year": self.year,
            "title": self.title or "(no title: a reference known by its id)",
            "why": self.why(),
        }

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "why": self.why()}


@dataclass
class RelatedResult:
    rows: list[RelatedRow]
    lists: list[str]
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "lists": self.lists,
            "notes": self.notes,
            "related": [r.as_dict() for r in self.rows],
        }


def _cosines(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1) * float(np.linalg.norm(query))
    out: np.ndarray = np.divide(
        matrix @ query, norms, out=np.zeros(matrix.shape[0]), where=norms > 0
    )
    return out


class _Vectors:
    """Stored vectors of one property, read by id."""

    def __init__(self, store: GraphStore, prop: str) -> None:
        self.store, self.prop = store, prop

    def of(self, ids: list[str]) -> dict[str, np.ndarray]:
        if not ids:
            return {}
        rows = self.store.run_named(
            "rankers/dense_candidate_vectors",
            {"ids": ids},
            label="Paper",
            prop=self.prop,
        )
        return {str(r["id"]): np.asarray(r["v"], np.float64) for r in rows}

    def count(self) -> int:
        rows = self.store.run_named("recommend/count_vectors", {}, label="Paper", prop=self.prop)
        return int(rows[0]["n"]) if rows else 0


def related_works(
    store: GraphStore,
    work_id: str,
    *,
    k: int = 10,
    loaded_only: bool = False,
    model: str = "minilm",
    fastrp_dimension: int = 128,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> RelatedResult:
    """The ``k`` works most related to the Paper ``work_id`` (see the module doc)."""
    from scholarkg.graphalgo.resident import has_gds
    from scholarkg.recommend.signals import ProjectionSignals
    from scholarkg.recommend.state import cache_dir
    from scholarkg.schema.ddl import VectorIndex
    from scholarkg.services.embeddings import model_slug
    from scholarkg.services.graph_embeddings import fastrp_index

    depth = max(DEPTH, 4 * k if loaded_only else k)
    lists: dict[str, Ranking] = {}
    notes: list[str] = []
    for name, query, column in (
        ("cocited", "recommend/related_cocited", "shared_citing"),
        ("coupled", "recommend/related_coupled", "shared_cited"),
    ):
        rows = store.run_named(query, {"id": work_id, "limit": depth})
        lists[name] = Ranking([str(r["id"]) for r in rows], [float(r[column]) for r in rows], name)

    # FastRP: stored vectors, else (embedded) the projection's own
    findex = fastrp_index("Paper", fastrp_dimension)
    fvec = _Vectors(store, findex.property)
    levels = None
    fastrp_of: Callable[[list[str]], dict[str, float]] | None = None
    own = fvec.of([work_id]).get(work_id)
    if own is not None and np.any(own):
        hits = store.vector(findex, own.tolist(), k=depth + 1)
        pairs = [(h.id, 2.0 * h.score - 1.0) for h in hits if h.id != work_id][:depth]
        lists["fastrp"] = Ranking([i for i, _ in pairs], [s for _, s in pairs], "fastrp")

        def fastrp_stored(ids: list[str]) -> dict[str, float]:
            vecs = fvec.of(ids)
            return {i: float(_cosines(v[None, :], own)[0]) for i, v in vecs.items()}

        fastrp_of = fastrp_stored
    elif not has_gds(store):
        signals = ProjectionSignals(store, cache=cache_dir(store), progress=progress)
        proj = signals.projection
        if work_id in proj.index:
            levels = signals.levels()
            me = proj.index[work_id]
            emb = levels.embeddings_of([me])[0]
            if np.any(emb):
                cos = levels.cosines(emb)
                cos[me] = -np.inf
                best = np.lexsort((np.arange(cos.size), -np.round(cos, 12)))[:depth]
                order = [int(i) for i in best if np.isfinite(cos[i]) and cos[i] != 0]
                lists["fastrp"] = Ranking(
                    [proj.ids[i] for i in order], [float(cos[i]) for i in order], "fastrp"
                )
                index = proj.index

                def fastrp_levels(ids: list[str]) -> dict[str, float]:
                    return {i: float(cos[index[i]]) for i in ids if i in index}

                fastrp_of = fastrp_levels
    else:
        notes.append("FastRP: no vectors in this graph (run `scholarkg graph embed`)")

    # text: stored vectors, else BM25 on the work's own text
    tprop = f"emb_{model_slug(model)}"
    tvec = _Vectors(store, tprop)
    mine = tvec.of([work_id]).get(work_id)
    text_of: Callable[[list[str]], dict[str, float]] | None = None
    text_kind = "text"
    if mine is not None:
        index_spec = VectorIndex(
            name=f"paper_{tprop}", label="Paper", property=tprop, dimensions=int(mine.shape[0])
        )
        hits = store.vector(index_spec, mine.tolist(), k=depth + 1)
        pairs = [(h.id, 2.0 * h.score - 1.0) for h in hits if h.id != work_id][:depth]
        lists["text"] = Ranking([i for i, _ in pairs], [s for _, s in pairs], "text")

        def text_stored(ids: list[str]) -> dict[str, float]:
            vecs = tvec.of(ids)
            return {i: float(_cosines(v[None, :], mine)[0]) for i, v in vecs.items()}

        text_of = text_stored
    else:
        rows = store.run_named("recommend/work_texts", {"ids": [work_id]})
        if rows and (rows[0].get("title") or rows[0].get("abstract")):
            from scholarkg.recommend.state import graph_version
            from scholarkg.recommend.text import TextSearch, work_text

            search = TextSearch(store, graph_version(store), cache_dir(store), model)
            r = search.bm25_ranking(
                work_text(rows[0].get("title"), rows[0].get("abstract")),
                depth,
                frozenset({work_id}),
            )
            lists["text"] = Ranking(r.ids, r.scores, "text")
            text_kind = "BM25"
            notes.append("text: BM25 on its title and abstract (no stored text vectors)")

    used = [r for r in lists.values() if r.ids]
    if not used:
        return RelatedResult(
            [],
            list(lists),
            [*notes, "nothing cites it, it cites nothing, and it has no text to compare"],
        )
    fused = rrf(used, depth=depth)
    ids = list(fused.ids)
    from scholarkg.services.paper_lookup import paper_cards

    cards = paper_cards(store, ids)
    if loaded_only:
        ids = [i for i in ids if not (cards.get(i) and cards[i].stub)]
    ids = ids[:k]
    score = dict(zip(fused.ids, fused.scores, strict=True))
    counts = {
        str(r["id"]): r
        for r in store.run_named("recommend/related_counts", {"id": work_id, "ids": ids})
    }
    fr = fastrp_of(ids) if fastrp_of is not None else {}
    tx = text_of(ids) if text_of is not None else {}
    if "text" in lists and text_of is None:
        tx = dict(zip(lists["text"].ids, lists["text"].scores, strict=True))
    rows_out = []
    for n, i in enumerate(ids, 1):
        card = cards.get(i)
        c = counts.get(i, {})
        rows_out.append(
            RelatedRow(
                rank=n,
                id=i,
                score=float(score[i]),
                title=card.title if card else None,
                year=card.year if card else None,
                stub=card.stub if card else False,
                shared_citing=int(c.get("shared_citing") or 0),
                shared_cited=int(c.get("shared_cited") or 0),
                fastrp=fr.get(i),
                text=tx.get(i),
                text_kind=text_kind,
                found_by=[name for name, r in lists.items() if i in r.ids],
            )
        )
    return RelatedResult(rows_out, [n for n, r in lists.items() if r.ids], notes)

"""Citation-neighbourhood signals on a resident projection, as if some works were absent.

The signals a citation recommender reads from the graph around a set of *seed* works (each
with a weight), computed on the client-side projection (:mod:`scholarkg.graphalgo.projection`):

* :func:`reference_scores` — the seeds' references: ``Σ_s w_s`` over the seeds citing a work
  (the "text-then-references" signal when the seeds are the works a text search found);
* :func:`cocitation_scores` — co-citation: for each work ``q`` citing a seed ``s`` and a work
  ``c``, ``w_s`` (a seed is not co-cited with itself);
* :func:`coupling_scores` — bibliographic coupling: for each reference ``r`` of a seed ``s``
  and each other work ``c`` citing ``r``, ``w_s``;
* :func:`citer_scores` — the works citing the seeds (citation recommendation's ``coupling``
  ranker, whose seeds are a paper's known references);
* :func:`in_degrees` — citations received;
* :func:`personalized_scores` — personalized PageRank from the seeds (GDS semantics, the
  sparse walk of :func:`scholarkg.store.pagerank.personalized_pagerank`).

**Absent works.** Every function takes a :class:`Without`: the projection seen without some
works *and every edge touching them* — what a graph loaded without those works holds. An
absent work is never a seed, a citing work, a reference or an answer, and a work that cited
it has one reference fewer: its PageRank share is ``1 / (out-degree - edges to absent
works)``, as in the smaller graph (``personalized_pagerank``'s own ``exclude`` only stops
mass at the absent node, which would leave the other shares as in the full graph). Why a
view and not a copy: leaving one work out of a 5M-edge projection per query (a
leave-one-out fit, an evaluation that holds each query's own work out) must cost the edges
around that work, not the graph.

Parallel relationships count once (the projection's CSR sums them); the named queries that
compute the same signals in the server (``queries/recommend/``) match distinct neighbours
too, and the tests hold both to the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp

from scholarkg.store.pagerank import personalized_pagerank

if TYPE_CHECKING:
    from scholarkg.graphalgo.projection import Projection

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]

__all__ = [
    "Without",
    "citer_scores",
    "cocitation_scores",
    "coupling_scores",
    "gather",
    "in_degrees",
    "personalized_scores",
    "reference_scores",
]


def gather(matrix: sp.csr_matrix, rows: I64, weights: F64 | None = None) -> tuple[I64, F64, I64]:
    """The column indexes of ``rows`` of a CSR matrix: ``(columns, weights, row positions)``,
    one entry per stored element; each carries its row's weight (1 without ``weights``) and
    the position in ``rows`` it came from."""
    rows = np.asarray(rows, dtype=np.int64)
    starts, ends = matrix.indptr[rows], matrix.indptr[rows + 1]
    counts = ends - starts
    total = int(counts.sum())
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0, np.int64)
    offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
    cols = matrix.indices[np.repeat(starts, counts) + offsets].astype(np.int64)
    w = np.repeat(np.ones(len(rows)) if weights is None else weights, counts)
    return cols, w, np.repeat(np.arange(len(rows), dtype=np.int64), counts)


@dataclass
class Without:
    """A projection seen without the works ``nodes`` (projection indexes) and their edges."""

    projection: Projection
    nodes: I64 = field(default_factory=lambda: np.zeros(0, np.int64))
    _mask: npt.NDArray[np.bool_] | None = field(default=None, repr=False)

    @classmethod
    def of(cls, projection: Projection, ids: Iterable[str] = ()) -> Without:
        """The view without the works ``ids`` (ids the projection does not hold are ignored:
        a work absent already stays absent)."""
        index = projection.index
        found = sorted({index[i] for i in ids if i in index})
        return cls(projection, np.asarray(found, dtype=np.int64))

    @property
    def empty(self) -> bool:
        return self.nodes.size == 0

    @property
    def mask(self) -> npt.NDArray[np.bool_]:
        """``mask[i]``: node ``i`` is absent (built once per view)."""
        if self._mask is None:
            mask = np.zeros(self.projection.n_nodes, dtype=bool)
            mask[self.nodes] = True
            self._mask = mask
        return self._mask

    def present(self, idx: I64) -> npt.NDArray[np.bool_]:
        """Which of ``idx`` are in the graph (all, when nothing is left out)."""
        if self.empty:
            return np.ones(len(idx), dtype=bool)
        out: npt.NDArray[np.bool_] = ~self.mask[idx]
        return out

    def adjacency(self, orientation: str) -> sp.csr_matrix:
        """The full projection's ``natural`` (references) or ``reverse`` (citers) rows; the
        functions below drop the absent works' entries themselves."""
        return self.projection.transition(orientation)

    def seeds(self, seeds: Mapping[int, float]) -> tuple[I64, F64]:
        """The seeds that are present, as index and weight arrays (input order)."""
        idx = np.fromiter((int(s) for s in seeds), np.int64, len(seeds))
        w = np.fromiter((float(v) for v in seeds.values()), np.float64, len(seeds))
        keep = self.present(idx)
        return idx[keep], w[keep]

    def transition(self) -> sp.csr_matrix:
        """The natural transition matrix of the graph without the absent works: a work that
        cited one of them shares its mass among its other references (GDS semantics in the
        smaller graph; no other reference left: it sends nothing, a dangling node)."""
        full = self.projection.transition("natural")
        if self.empty:
            return full
        citers, _, _ = gather(self.projection.transition("reverse"), self.nodes)
        citers = np.unique(citers[self.present(citers)])
        if citers.size == 0:
            return full
        data = full.data.copy()
        for u in citers.tolist():
            lo, hi = full.indptr[u], full.indptr[u + 1]
            cols = full.indices[lo:hi]
            share = data[lo:hi]
            gone = self.mask[cols]
            kept = float(share[~gone].sum())
            data[lo:hi] = np.where(gone, 0.0, share / kept if kept > 0 else 0.0)
        return sp.csr_matrix((data, full.indices, full.indptr), shape=full.shape)


def _scores(cand: I64, w: F64) -> dict[int, float]:
    if cand.size == 0:
        return {}
    uniq, inv = np.unique(cand, return_inverse=True)
    total = np.bincount(inv, weights=w)
    return {int(c): float(v) for c, v in zip(uniq, total, strict=True)}


def reference_scores(view: Without, seeds: Mapping[int, float]) -> dict[int, float]:
    """``Σ_s w_s`` over the seeds ``s`` citing each work: the seeds' references, weighted."""
    idx, w = view.seeds(seeds)
    cols, cw, _ = gather(view.adjacency("natural"), idx, w)
    keep = view.present(cols)
    return _scores(cols[keep], cw[keep])


def citer_scores(
    view: Without, seeds: Mapping[int, float], *, drop_seeds: bool = False
) -> dict[int, float]:
    """``Σ_s w_s`` over the seeds each work cites: the works citing the seeds."""
    idx, w = view.seeds(seeds)
    cols, cw, _ = gather(view.adjacency("reverse"), idx, w)
    keep = view.present(cols)
    if drop_seeds:
        keep &= ~np.isin(cols, idx)
    return _scores(cols[keep], cw[keep])


def cocitation_scores(
    view: Without, seeds: Mapping[int, float], *, drop_seeds: bool = False
) -> dict[int, float]:
    """Co-citation with the seeds: ``Σ w_s`` over every (citing work ``q``, seed ``s``,
    work ``c ≠ s``) with ``q`` citing both ``s`` and ``c``. ``drop_seeds``: seeds are no
    answers (citation recommendation, whose seeds are the citing paper's known references);
    otherwise a seed scores by its co-citation with the *other* seeds."""
    idx, w = view.seeds(seeds)
    citers, cw, _ = gather(view.adjacency("reverse"), idx, w)  # one per (seed, citer) edge
    keep = view.present(citers)
    citers, cw = citers[keep], cw[keep]
    if citers.size == 0:
        return {}
    qs, inv = np.unique(citers, return_inverse=True)
    shared: F64 = np.bincount(inv, weights=cw).astype(np.float64)  # Σ w_s over the seeds q cites
    cand, sw, _ = gather(view.adjacency("natural"), qs, shared)
    keep = view.present(cand)
    is_seed = np.isin(cand, idx)
    if drop_seeds:
        keep &= ~is_seed
    scores = _scores(cand[keep], sw[keep])
    if not drop_seeds:
        # a seed's own citers name it beside themselves: take out the pairs (q, s, s),
        # w_s once per present citer of s
        weight = {int(s): float(x) for s, x in zip(idx, w, strict=True)}
        own, _, pos = gather(view.adjacency("reverse"), idx)
        present = view.present(own)
        for s, n in zip(*np.unique(idx[pos[present]], return_counts=True), strict=True):
            left = scores.get(int(s), 0.0) - weight[int(s)] * int(n)
            if left > 1e-12:
                scores[int(s)] = left
            else:
                scores.pop(int(s), None)
    return scores


def coupling_scores(view: Without, seeds: Mapping[int, float]) -> dict[int, float]:
    """Bibliographic coupling with the seeds: ``Σ w_s`` over every (seed ``s``, reference
    ``r`` of ``s``, work ``c ≠ s`` citing ``r``)."""
    idx, w = view.seeds(seeds)
    refs, rw, rpos = gather(view.adjacency("natural"), idx, w)
    keep = view.present(refs)
    refs = refs[keep]
    ref_w: F64 = rw[keep]
    owner: I64 = idx[rpos[keep]]
    if refs.size == 0:
        return {}
    cand, cw, cpos = gather(view.adjacency("reverse"), refs, ref_w)
    keep = view.present(cand) & (cand != owner[cpos])
    return _scores(cand[keep], cw[keep])


def in_degrees(view: Without, nodes: Sequence[int] | I64) -> F64:
    """Citations each of ``nodes`` receives from works that are present (distinct citers)."""
    idx = np.asarray(nodes, dtype=np.int64)
    if idx.size == 0:
        return np.zeros(0)
    rev = view.adjacency("reverse")
    counts: F64 = np.asarray(rev.indptr[idx + 1] - rev.indptr[idx], dtype=np.float64)
    if view.empty:
        return counts
    cols, _, pos = gather(rev, idx)
    gone = view.mask[cols]
    counts -= np.bincount(pos[gone], minlength=idx.size).astype(np.float64)
    return counts


def personalized_scores(
    view: Without,
    seeds: Sequence[int],
    *,
    damping_factor: float = 0.85,
    max_iterations: int = 20,
    tolerance: float = 1e-7,
    matrix: sp.csr_matrix | None = None,
) -> dict[int, float]:
    """Personalized PageRank from ``seeds`` (each bias 1, as GDS takes source nodes) over
    the references (natural orientation), in the graph without the absent works.
    ``matrix``: :meth:`Without.transition`, when the caller keeps it for several queries."""
    present = [int(s) for s in seeds if not (not view.empty and view.mask[int(s)])]
    if not present:
        return {}
    nodes, scores = personalized_pagerank(
        view.transition() if matrix is None else matrix,
        dict.fromkeys(present, 1.0),
        damping_factor=damping_factor,
        max_iterations=max_iterations,
        tolerance=tolerance,
        exclude=view.nodes.tolist(),
    )
    return {int(n): float(v) for n, v in zip(nodes, scores, strict=True) if v > 0}


def as_ids(projection: Projection, scores: Mapping[int, float]) -> dict[str, float]:
    """``{node id: score}`` from ``{projection index: score}``."""
    ids = projection.ids
    return {ids[i]: v for i, v in scores.items()}

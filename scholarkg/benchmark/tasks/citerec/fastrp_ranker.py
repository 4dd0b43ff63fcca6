"""``fastrp``: citation recommendation by FastRP graph embeddings (GDS's algorithm).

A context's query vector is the sum of the unit FastRP embeddings of the citing paper's other
references (the seeds ``ppr`` walks from); candidates are ranked by cosine to it, the seeds and
the citing paper removed.

Why the embeddings are computed by the ranker and not read from ``graph embed``'s stored
vectors: those embed the whole graph, so the citation being predicted is in them (the gold's
vector averages the citing paper's, whose vector averages the seeds': the answer leaks through
the very edge held out). The ranker follows the link-prediction protocol instead: in
:meth:`FastRPRanker.prepare_contexts` it removes every held-out citation of the run (each
context's citing paper → its references that are not among its known references, i.e. the
golds) from the resident projection and embeds what remains, once per run, with the numpy
FastRP (the same numbers as GDS's for the same node keys). That is stricter than ``ppr``,
which excludes only the current context's citing paper: other contexts' golds are missing
from this graph too (on ScisummNet + AAN about 7 % of the edges).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from scholarkg.benchmark.rankers.base import tie_key
from scholarkg.benchmark.tasks.citerec.recommenders import ContextQuery, ContextRanker
from scholarkg.graphalgo.fastrp import FastRPConfig, fastrp, node_keys

#: 256 dimensions: the GDS manual's "at least 256 for graphs of 10^5 nodes"; the other
#: parameters are GDS's defaults (iteration weights 0, 1, 1: two- and three-hop neighbourhoods)
DEFAULT_CONFIG = FastRPConfig(embedding_dimension=256, random_seed=42)


def held_out_edges(projection: Any, queries: Sequence[ContextQuery]) -> npt.NDArray[np.bool_]:
    """A mask over the projection's edges: True for each edge from a context's citing paper to
    a reference that is not among that context's known references (its gold)."""
    pos = projection.index
    pairs: set[tuple[int, int]] = set()
    for q in queries:
        p = pos.get(q.citing)
        if p is None:
            continue
        known = {pos[r] for r in q.known_refs if r in pos}
        for x in projection.neighbours(p, "natural").tolist():
            if x not in known:
                pairs.add((p, int(x)))
    if not pairs:
        return np.zeros(projection.n_edges, np.bool_)
    n = np.int64(projection.n_nodes)
    edge_code = projection.src.astype(np.int64) * n + projection.dst.astype(np.int64)
    held = np.fromiter((a * int(n) + b for a, b in pairs), np.int64, len(pairs))
    mask: npt.NDArray[np.bool_] = np.isin(edge_code, held)
    return mask


class FastRPRanker(ContextRanker):
    """Cosine to the seeds' FastRP embeddings, computed without the held-out citations."""

    name = "fastrp"

    def __init__(
        self,
        projection: Any,
        config: FastRPConfig = DEFAULT_CONFIG,
        *,
        orientation: str = "undirected",
    ) -> None:
        self.projection = projection
        self.config = config
        self.orientation = orientation
        self.unit: npt.NDArray[np.float32] | None = None
        self.held_out = 0
        self._prepared_for: frozenset[str] = frozenset()
        super().__init__(
            {**config.gds(), "orientation": orientation, "graph": projection.key.graph}
        )

    def prepare_contexts(
        self, queries: Sequence[ContextQuery], progress: Callable[[int], None] | None = None
    ) -> None:
        """Embed the projection without the held-out citations of ``queries`` (module doc)."""
        proj = self.projection
        mask = held_out_edges(proj, queries)
        keep = ~mask
        result = fastrp(
            proj.n_nodes,
            proj.src[keep],
            proj.dst[keep],
            self.config,
            keys=node_keys(proj.ids),
            orientation=self.orientation,
        )
        emb = result.embeddings
        norms = np.linalg.norm(emb, axis=1)
        norms[norms == 0] = 1.0
        self.unit = (emb / norms[:, None]).astype(np.float32)
        self.held_out = int(mask.sum())
        self.params["held_out_edges"] = self.held_out
        self._prepared_for = frozenset(q.id for q in queries)

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        if self.unit is None or query.id not in self._prepared_for:
            # a context nobody announced: embed without its own held-out citation
            self.prepare_contexts([query])
        assert self.unit is not None
        pos = self.projection.index
        seeds = np.array(sorted({pos[r] for r in query.known_refs if r in pos}), np.int64)
        if seeds.size == 0:
            return [], []
        q = self.unit[seeds].sum(axis=0, dtype=np.float64)
        if not q.any():
            return [], []
        norm = float(np.linalg.norm(q))
        if candidates is None:
            pool = np.arange(self.projection.n_nodes, dtype=np.int64)
            scores = (self.unit @ q.astype(np.float32)).astype(np.float64) / norm
        else:
            pool = np.array(sorted({pos[c] for c in candidates if c in pos}), np.int64)
            scores = (self.unit[pool] @ q.astype(np.float32)).astype(np.float64) / norm
        drop = set(seeds.tolist())
        if query.citing in pos:
            drop.add(pos[query.citing])
        keep = ~np.isin(pool, np.fromiter(drop, np.int64, len(drop)))
        pool, scores = pool[keep], scores[keep]
        return self._best(pool, scores, k)

    def _best(
        self, pool: npt.NDArray[np.int64], scores: npt.NDArray[np.float64], k: int
    ) -> tuple[list[str], list[float]]:
        """The ``k`` best by score, ties by paper id (not by projection position: each backend
        numbers the nodes its own way); only the nodes at or above the k-th score are sorted."""
        if pool.size == 0 or k <= 0:
            return [], []
        key = tie_key(scores)
        if key.size > k:
            kth = np.partition(key, key.size - k)[key.size - k]
            sel = np.flatnonzero(key >= kth)
        else:
            sel = np.arange(key.size)
        ids = self.projection.ids
        ranked = sorted(sel.tolist(), key=lambda i: (-key[i], ids[pool[i]]))[:k]
        return [ids[pool[i]] for i in ranked], [float(scores[i]) for i in ranked]

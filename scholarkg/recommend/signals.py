"""The graph side of the recommender: what the citation graph says around the text's finds.

Given the *seeds* (the works the text rankers found, each with a weight) and the works a
query leaves out, each signal is one ranking of candidate works:

========== ==========================================================================
``refs``    the seeds' references, ``Σ w_s`` over the seeds citing a work
``cocited`` co-citation with the seeds (works cited beside them)
``coupled`` bibliographic coupling with the seeds (works citing what they cite)
``ppr``     personalized PageRank from the seeds over the references (GDS semantics),
            the seeds themselves left out of the ranking
``fastrp``  cosine between a work's FastRP embedding and the seeds' weighted sum,
            seeds left out
``popular`` the candidates of the other graph signals by citations received
========== ==========================================================================

Two implementations, one contract (equal numbers; ``tests/recommend``):

* :class:`ProjectionSignals` — the client-side projection (:mod:`scholarkg.graphalgo.
  projection`; cached next to the store) with :class:`~scholarkg.graphalgo.neighbours.
  Without` for the left-out works, and FastRP from the projection's own levels
  (:mod:`scholarkg.graphalgo.fastrp_without`, cached per projection state, updated exactly
  for the left-out works). The embedded store's path, and Neo4j's only with ``--engine
  client`` (it pulls the whole graph over Bolt once).
* :class:`ServerSignals` — the managed Neo4j: named Cypher queries for the neighbourhood
  counts (``refs``, ``cocited``, ``coupled``, ``popular``), personalized PageRank by
  scholarkg's own procedure ``scholarkg.recommend.ppr`` (neo4j-launcher's plugin jar: a
  forward push from the seeds that touches only the walk's neighbourhood, with the
  projection's semantics, left-out works included), and the stored ``fastrp_<dim>`` vectors
  (``graph embed``) through the vector index. Every signal honours ``exclude`` in the server
  and only each signal's top rows cross Bolt. FastRP is the exception: the stored vectors
  are GDS's embedding of the whole graph, the left-out works included (a work's vector mixes
  its neighbours'), and updating them as :mod:`~scholarkg.graphalgo.fastrp_without` does
  needs the intermediate levels GDS does not keep; so a query that excludes works gets no
  ``fastrp`` on Neo4j rather than one that still reads the works it leaves out
  (docs/decisions.md). FastRP on Neo4j draws its random vectors from GDS's node ids, the
  client from the paper ids: the same algorithm with another random draw, so that one
  signal differs between the two paths.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from scholarkg.benchmark.rankers.base import Ranking, tie_key, top_k
from scholarkg.store.base import GraphStore, PageRankConfig

if TYPE_CHECKING:
    from scholarkg.graphalgo.fastrp import FastRPConfig
    from scholarkg.graphalgo.fastrp_without import FastRPLevels
    from scholarkg.graphalgo.projection import Projection, ProjectionCatalog

log = logging.getLogger(__name__)

GRAPH_SIGNALS = ("refs", "cocited", "coupled", "ppr", "fastrp", "popular")
#: personalized PageRank settings (GDS's names): tolerance 1e-3 keeps the walk local, the
#: choice citation recommendation's ``ppr`` measured
PPR = PageRankConfig(damping_factor=0.85, max_iterations=20, tolerance=1e-3)

#: the note of a query that excludes works on Neo4j where FastRP vectors are stored
#: the note of a query on Neo4j without stored FastRP vectors (the server reads them)
FASTRP_MISSING = (
    "fastrp: left out, this graph has no FastRP vectors on the server (run `scholarkg graph "
    "embed` to use it)"
)
FASTRP_EXCLUDED = (
    "fastrp: left out of queries that exclude works on Neo4j (the stored FastRP vectors are "
    "of the whole graph, the excluded works included)"
)

__all__ = [
    "FASTRP_EXCLUDED",
    "GRAPH_SIGNALS",
    "PPR",
    "GraphSignals",
    "ProjectionSignals",
    "Seeds",
    "ServerSignals",
]


@dataclass(frozen=True)
class Seeds:
    """The works the text found, best first, with the weight each gives its neighbours."""

    ids: tuple[str, ...]
    weights: tuple[float, ...]

    def as_map(self) -> dict[str, float]:
        return dict(zip(self.ids, self.weights, strict=True))


@dataclass
class SignalResult:
    """Each signal's ranking, and per work how many seeds cite it (the rows' "why")."""

    rankings: dict[str, Ranking] = field(default_factory=dict)
    cited_by_seeds: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class GraphSignals(Protocol):
    """What :class:`~scholarkg.recommend.model.Recommender` asks of a graph side."""

    engine: str

    def available(self) -> set[str]: ...

    def signals(
        self,
        seeds: Seeds,
        exclude: frozenset[str],
        depth: int,
        wanted: set[str],
    ) -> SignalResult: ...


def _ranking(name: str, scores: Mapping[str, float], depth: int) -> Ranking:
    """The ``depth`` best of ``{id: score}``, score desc then id (the order every backend
    gives: servers sum in their own order, hence :func:`tie_key`)."""
    if not scores:
        return Ranking([], [], name)
    ids = sorted(scores)
    vals = np.asarray([scores[i] for i in ids], dtype=np.float64)
    idx, _ = top_k(tie_key(vals), depth)
    return Ranking([ids[i] for i in idx], vals[idx].tolist(), name)


def projection_digest(projection: Projection) -> str:
    """A content hash of a projection's ids and edges (keys its FastRP levels on disk)."""
    h = hashlib.blake2b(digest_size=12)
    h.update(np.int64(projection.n_nodes).tobytes())
    h.update("\n".join(projection.ids).encode("utf-8"))
    h.update(np.ascontiguousarray(projection.src, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(projection.dst, dtype=np.int64).tobytes())
    return h.hexdigest()


class ProjectionSignals:
    """The graph signals on the client-side projection (see the module doc)."""

    engine = "projection"

    def __init__(
        self,
        store: GraphStore,
        *,
        catalog: ProjectionCatalog | None = None,
        cache: Path | None = None,
        fastrp: FastRPConfig | None = None,
        progress: Callable[[str, int, int | None], None] | None = None,
    ) -> None:
        from scholarkg.graphalgo.fastrp import FastRPConfig
        from scholarkg.graphalgo.projection import default_catalog

        self.store = store
        self.catalog = catalog if catalog is not None else default_catalog()
        self.cache = cache
        self.fastrp_config = fastrp or FastRPConfig()
        self.progress = progress
        self._projection: Projection | None = None
        self._levels: FastRPLevels | None = None
        self._digest = ""

    @property
    def projection(self) -> Projection:
        if self._projection is None:
            if self.progress is not None:
                self.progress("projecting the citation graph", 0, None)
            self._projection = self.catalog.get(self.store, "Paper", ("CITES",))
            if self.progress is not None:
                self.progress("projecting the citation graph", 1, 1)
        return self._projection

    def refresh(self) -> None:
        """Ask the catalogue again (the graph may have changed since)."""
        proj = self.catalog.get(self.store, "Paper", ("CITES",))
        if proj is not self._projection:
            self._projection, self._levels = proj, None

    def available(self) -> set[str]:
        return set(GRAPH_SIGNALS)

    def levels(self) -> FastRPLevels:
        """FastRP of the projection with its levels: from the cache, else computed once."""
        if self._levels is not None:
            return self._levels
        from scholarkg.graphalgo.fastrp_without import FastRPLevels

        proj = self.projection
        digest = projection_digest(proj)
        path = None if self.cache is None else self.cache / "fastrp"
        if path is not None:
            loaded = FastRPLevels.load(path, proj, digest)
            if loaded is not None and loaded.config == self.fastrp_config:
                self._levels = loaded
                return loaded

        def step(done: int, total: int) -> None:
            if self.progress is not None:
                self.progress("FastRP embeddings of the graph", done, total)

        levels = FastRPLevels.compute(proj, self.fastrp_config, digest=digest, progress=step)
        if path is not None:
            levels.save(path)
        self._levels = levels
        return levels

    def signals(
        self, seeds: Seeds, exclude: frozenset[str], depth: int, wanted: set[str]
    ) -> SignalResult:
        from scholarkg.graphalgo import neighbours as nb

        proj = self.projection
        pos = proj.index
        view = nb.Without.of(proj, exclude)
        weights: dict[int, float] = {}
        for s, w in zip(seeds.ids, seeds.weights, strict=True):
            if s in pos and s not in exclude:
                weights[pos[s]] = weights.get(pos[s], 0.0) + w
        out = SignalResult()
        if not weights:
            return out
        ids = proj.ids

        def named(scores: Mapping[int, float]) -> dict[str, float]:
            return {ids[i]: v for i, v in scores.items()}

        if wanted & {"refs", "popular"}:
            out.rankings["refs"] = _ranking(
                "refs", named(nb.reference_scores(view, weights)), depth
            )
            counts = nb.reference_scores(view, dict.fromkeys(weights, 1.0))
            out.cited_by_seeds = {ids[i]: round(v) for i, v in counts.items()}
        if wanted & {"cocited", "popular"}:
            out.rankings["cocited"] = _ranking(
                "cocited", named(nb.cocitation_scores(view, weights)), depth
            )
        if wanted & {"coupled", "popular"}:
            out.rankings["coupled"] = _ranking(
                "coupled", named(nb.coupling_scores(view, weights)), depth
            )
        if wanted & {"ppr", "popular"}:
            ppr = nb.personalized_scores(
                view,
                list(weights),
                damping_factor=PPR.damping_factor,
                max_iterations=PPR.max_iterations,
                tolerance=PPR.tolerance,
            )
            for seed in weights:
                ppr.pop(seed, None)
            out.rankings["ppr"] = _ranking("ppr", named(ppr), depth)
        if "fastrp" in wanted:
            out.rankings["fastrp"] = self._fastrp(view, weights, depth)
        if "popular" in wanted:
            out.rankings["popular"] = self._popular(view, out.rankings, depth)
        return out

    def _fastrp(self, view: Any, weights: Mapping[int, float], depth: int) -> Ranking:
        levels = self.levels()
        changed = levels.without(view)
        seeds = list(weights)
        emb = levels.embeddings_of(seeds, changed)
        norms = np.linalg.norm(emb, axis=1)
        w = np.asarray([weights[s] for s in seeds], np.float32)
        unit = np.divide(emb, norms[:, None], out=np.zeros_like(emb), where=norms[:, None] > 0)
        query = (w[:, None] * unit).sum(axis=0)
        cos = levels.cosines(query, changed)
        cos[np.asarray(seeds, np.int64)] = -np.inf
        if not view.empty:
            cos[view.nodes] = -np.inf
        has_vector = np.isfinite(cos) & (cos != 0)
        cand = np.flatnonzero(has_vector)
        if cand.size == 0:
            return Ranking([], [], "fastrp")
        idx, _ = top_k(tie_key(cos[cand]), depth)
        ids = self.projection.ids
        return Ranking([ids[int(cand[i])] for i in idx], cos[cand[idx]].tolist(), "fastrp")

    def _popular(self, view: Any, rankings: Mapping[str, Ranking], depth: int) -> Ranking:
        from scholarkg.graphalgo.neighbours import in_degrees

        pool = sorted({i for r in rankings.values() for i in r.ids})
        if not pool:
            return Ranking([], [], "popular")
        pos = self.projection.index
        deg = in_degrees(view, [pos[i] for i in pool])
        return _ranking(
            "popular", {i: float(d) for i, d in zip(pool, deg, strict=True) if d > 0}, depth
        )


class ServerSignals:
    """The graph signals in the Neo4j server (see the module doc)."""

    engine = "server"

    def __init__(self, store: GraphStore, *, fastrp_dimension: int = 128) -> None:
        self.store = store
        self.fastrp_dimension = fastrp_dimension
        self._has_fastrp: bool | None = None

    @staticmethod
    def supported(store: GraphStore) -> bool:
        """Whether ``store`` is a Neo4j server with scholarkg's PageRank procedure (the
        managed server's plugin; a Neo4j scholarkg did not start may lack it)."""
        if store.dialect != "neo4j":
            return False
        return bool(store.run_named("recommend/ppr_available", {}))

    def available(self, *, exclude: bool = False) -> set[str]:
        """The signals a query gets; with ``exclude``, FastRP is not among them (the stored
        vectors are of the whole graph: see the module doc)."""
        out = set(GRAPH_SIGNALS)
        if exclude or not self.fastrp_available():
            out.discard("fastrp")
        return out

    def fastrp_available(self) -> bool:
        if self._has_fastrp is None:
            from scholarkg.services.graph_embeddings import fastrp_property

            rows = self.store.run_named(
                "recommend/count_vectors",
                {},
                label="Paper",
                prop=fastrp_property(self.fastrp_dimension),
            )
            self._has_fastrp = bool(rows and int(rows[0]["n"]) > 0)
        return self._has_fastrp

    def signals(
        self, seeds: Seeds, exclude: frozenset[str], depth: int, wanted: set[str]
    ) -> SignalResult:
        pairs = [(s, w) for s, w in zip(seeds.ids, seeds.weights, strict=True) if s not in exclude]
        out = SignalResult()
        if not pairs:
            return out
        params: dict[str, Any] = {
            "seeds": [s for s, _ in pairs],
            "weights": [float(w) for _, w in pairs],
            "exclude": sorted(exclude),
            "limit": int(depth),
        }
        if wanted & {"refs", "popular"}:
            rows = self.store.run_named("recommend/references", params)
            out.rankings["refs"] = _ranking(
                "refs", {str(r["id"]): float(r["score"]) for r in rows}, depth
            )
            out.cited_by_seeds = {str(r["id"]): int(r["seeds"]) for r in rows}
        for name in ("cocited", "coupled"):
            if wanted & {name, "popular"}:
                rows = self.store.run_named(f"recommend/{name}", params)
                out.rankings[name] = _ranking(
                    name, {str(r["id"]): float(r["score"]) for r in rows}, depth
                )
        if wanted & {"ppr", "popular"}:
            out.rankings["ppr"] = self._ppr([s for s, _ in pairs], exclude, depth)
        if "fastrp" in wanted:
            if exclude:
                out.notes.append(FASTRP_EXCLUDED)
            elif self.fastrp_available():
                out.rankings["fastrp"] = self._fastrp(pairs, exclude, depth)
            else:
                out.notes.append(
                    "fastrp: no FastRP vectors in this graph (run `scholarkg graph embed`)"
                )
        if "popular" in wanted:
            pool = sorted({i for r in out.rankings.values() for i in r.ids})
            rows = self.store.run_named(
                "recommend/in_degrees", {"ids": pool, "exclude": sorted(exclude)}
            )
            out.rankings["popular"] = _ranking(
                "popular", {str(r["id"]): float(r["n"]) for r in rows if int(r["n"]) > 0}, depth
            )
        return out

    def _ppr(self, seeds: Sequence[str], exclude: frozenset[str], depth: int) -> Ranking:
        """Personalized PageRank from ``seeds`` without ``exclude``: the server's local push
        (``scholarkg.recommend.ppr``), only the ``depth`` best rows back."""
        rows = self.store.run_named(
            "recommend/ppr",
            {
                "seeds": list(dict.fromkeys(seeds)),
                "exclude": sorted(exclude),
                "limit": int(depth),
                "damping_factor": PPR.damping_factor,
                "max_iterations": PPR.max_iterations,
                "tolerance": PPR.tolerance,
            },
        )
        return _ranking("ppr", {str(r["id"]): float(r["score"]) for r in rows}, depth)

    def _fastrp(
        self, pairs: Sequence[tuple[str, float]], exclude: frozenset[str], depth: int
    ) -> Ranking:
        from scholarkg.services.graph_embeddings import fastrp_index

        index = fastrp_index("Paper", self.fastrp_dimension)
        rows = self.store.run_named(
            "rankers/dense_candidate_vectors",
            {"ids": [s for s, _ in pairs]},
            label="Paper",
            prop=index.property,
        )
        vecs = {str(r["id"]): np.asarray(r["v"], np.float64) for r in rows}
        query = np.zeros(self.fastrp_dimension)
        for s, w in pairs:
            v = vecs.get(s)
            if v is not None and np.linalg.norm(v) > 0:
                query += w * v / np.linalg.norm(v)
        if not np.any(query):
            return Ranking([], [], "fastrp")
        drop = {s for s, _ in pairs} | exclude
        hits = self.store.vector(index, query.tolist(), k=depth + len(drop))
        scores = {h.id: 2.0 * float(h.score) - 1.0 for h in hits if h.id not in drop}
        return _ranking("fastrp", scores, depth)

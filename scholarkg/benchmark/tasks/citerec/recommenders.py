"""Local citation recommenders: rank candidate papers for one ``<REF>`` context.

All sit under the shared :class:`~scholarkg.benchmark.rankers.base.Ranker` interface (the
base records name, parameters and time of every ranking); a context adds what text rankers
do not need — the citing paper, its *other* references and its year — through
:meth:`ContextRanker.rank_context`.

* ``bm25`` — the published baseline: bm25s over every paper's title + abstract (the whole
  loaded corpus, as citeBench queries all of S2AG), query = the context with ``<REF>`` and
  leftover citation markers removed.
* ``dense`` — the bundled MiniLM encoder, exact cosine over the same texts.
* ``ppr`` — personalized PageRank on the resident projection of ``CITES`` (undirected),
  seeded by the citing paper's other references, the citing paper itself *excluded* from the
  walk (no score may flow through the citation being predicted).
* ``cocitation`` / ``coupling`` — named Cypher queries (``queries/citerec/``): papers cited
  together with the other references by papers other than the citing one / papers citing the
  same references.
* ``popularity`` — in-degree in the projection, minus the citing paper's own edge.
* ``hybrid`` — Reciprocal Rank Fusion (k = 60) of bm25, ppr and cocitation (coupling is left
  out: at equal weight it pulled the fused MRR below BM25's, measured).
* ``hybrid-dense`` — the same RRF with the ``dense`` ranking as a fourth input.
* ``hybrid-text`` — RRF (k = 60) of bm25 and dense only: the text-only hybrid, the
  baseline the graph-aware hybrids must beat (the same fusion as ``bench run retrieval
  --ranker hybrid``).
* ``fastrp`` — cosine to the other references' FastRP graph embeddings, computed without the
  run's held-out citations (``fastrp_ranker.py``); ``hybrid-fastrp`` / ``hybrid-dense-fastrp``
  — ``hybrid``'s / ``hybrid-dense``'s RRF with the ``fastrp`` ranking as one more input.
* ``hybrid-learned`` — a logistic model over per-candidate features (normalised bm25 and
  1/rank, log PPR, co-citation, coupling, popularity, age gap) on the union of the rankers'
  candidates, trained on a dev split of contexts (:class:`LearnedFusion`).

Every ranker removes the citing paper from its answers (the citeBench paper (Maharjan, arXiv
2412.07713)) and applies no
publication-date filter unless ``before_citing_year`` is set.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from scholarkg.benchmark.rankers.base import Ranker, Ranking, tie_key, top_k
from scholarkg.benchmark.rankers.fusion import rrf
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore

RANKERS = (
    "bm25",
    "dense",
    "ppr",
    "cocitation",
    "coupling",
    "popularity",
    "hybrid",
    "hybrid-dense",
    "hybrid-text",
    "hybrid-learned",
    "fastrp",
    "hybrid-fastrp",
    "hybrid-dense-fastrp",
)
#: leftover markers in a masked sentence: [CIT], [12], [3, 4], (Smith et al., 2019)
_MARKERS = re.compile(r"<REF>|\[CIT\]|\[[\d,\s–-]+\]|\([A-Z][^()]{0,60}?\d{4}[a-z]?\)")
PAGE = 20_000


def query_text(context: str) -> str:
    """The context as a text query: ``<REF>`` and other citation markers removed."""
    return " ".join(_MARKERS.sub(" ", context).split())


@dataclass(frozen=True)
class ContextQuery:
    """One citation to recommend: the masked sentence and what the graph knows around it."""

    id: str
    text: str
    citing: str
    known_refs: tuple[str, ...] = ()
    year: int | None = None


@dataclass
class PaperIndex:
    """Every Paper's id, text (title + abstract) and year, read once per run."""

    ids: list[str]
    texts: list[str]
    years: np.ndarray
    position: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_store(cls, store: GraphStore) -> PaperIndex:
        ids: list[str] = []
        texts: list[str] = []
        years: list[int] = []
        skip = 0
        while True:
            rows = store.run_named("citerec/paper_texts", {"skip": skip, "limit": PAGE})
            for r in rows:
                ids.append(str(r["id"]))
                texts.append(" ".join(t for t in (r.get("title"), r.get("abstract")) if t))
                years.append(int(r["year"]) if r.get("year") is not None else -1)
            if len(rows) < PAGE:
                break
            skip += PAGE
        idx = cls(ids, texts, np.asarray(years, dtype=np.int64))
        idx.position = {p: i for i, p in enumerate(ids)}
        return idx


class ContextRanker(Ranker[ContextQuery]):
    """A ranker whose query is a :class:`ContextQuery`: the shared base, typed by its query.

    The context (masked sentence, citing paper, its other references, year) is the argument
    of every call, so a ranker holds no per-query state and one instance may serve several
    callers (a hybrid and its components) without handing a context around.
    """

    def rank_context(self, query: ContextQuery, k: int) -> Ranking:
        return self.rank(query, k, query_id=query.id)

    def prepare_contexts(
        self, queries: Sequence[ContextQuery], progress: Callable[[int], None] | None = None
    ) -> None:
        """Batch work for a run's contexts before they are ranked one by one (default:
        none). The text rankers pass the query texts to their inner ranker's
        ``prepare_queries``: a dense ranker then encodes them in one batched call instead of
        one call per context (10,713 real contexts: one call per context took minutes)."""
        return None

    @staticmethod
    def _drop_citing(
        query: ContextQuery, ids: Sequence[str], scores: Sequence[float], k: int
    ) -> tuple[list[str], list[float]]:
        pairs = [(i, s) for i, s in zip(ids, scores, strict=True) if i != query.citing]
        return [i for i, _ in pairs[:k]], [s for _, s in pairs[:k]]


class TextContextRanker(ContextRanker):
    """BM25 or dense over the paper index, the citing paper removed."""

    def __init__(self, inner: Ranker[str]) -> None:
        self.inner = inner
        self.name = inner.name
        super().__init__(inner.params)

    def prepare_contexts(
        self, queries: Sequence[ContextQuery], progress: Callable[[int], None] | None = None
    ) -> None:
        self.inner.prepare_queries([query_text(q.text) for q in queries], progress)

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        r = self.inner.rank(query_text(query.text), k + 1, candidates=candidates)
        return self._drop_citing(query, r.ids, r.scores, k)


class PPRRanker(ContextRanker):
    """Personalized PageRank seeded by the other references (see the module doc).

    ``tolerance`` is GDS's (a node whose delta is <= it stops sending): 1e-3 instead of GDS's
    default 1e-7 keeps the walk local — on the synthetic corpus it ranks as well as 1e-4
    (hybrid Recall@10 0.699 vs 0.694 on 3,618 contexts) at a third of the time.
    """

    name = "ppr"

    def __init__(
        self,
        projection: Any,
        *,
        damping_factor: float = 0.85,
        max_iterations: int = 20,
        tolerance: float = 1e-3,
    ) -> None:
        self.projection = projection
        self.kw = {
            "damping_factor": damping_factor,
            "max_iterations": max_iterations,
            "tolerance": tolerance,
            "orientation": "undirected",
        }
        super().__init__({**self.kw, "graph": projection.key.graph})

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        pos = self.projection.index
        seeds = {pos[r]: 1.0 for r in query.known_refs if r in pos}
        if not seeds:
            return [], []
        exclude = [pos[query.citing]] if query.citing in pos else []
        nodes, scores = self.projection.personalized(seeds, exclude=exclude, **self.kw)
        keep = ~np.isin(nodes, np.fromiter(seeds, np.int64, len(seeds)))
        nodes, scores = nodes[keep], scores[keep]
        ids = self.projection.ids
        # ties by paper id, not by projection position: each backend numbers the projection's
        # nodes in its own order (and sums in it, hence tie_key)
        names = np.asarray([ids[n] for n in nodes], dtype=object)
        by_id = np.argsort(names, kind="stable")
        nodes, scores, names = nodes[by_id], scores[by_id], names[by_id]
        idx, _ = top_k(tie_key(scores), k)
        return [str(names[i]) for i in idx], scores[idx].tolist()


class CypherGraphRanker(ContextRanker):
    """Co-citation or bibliographic coupling through a named query."""

    def __init__(self, store: GraphStore, kind: str, *, limit: int = 200) -> None:
        if kind not in ("cocitation", "coupling"):
            raise InputError(f"unknown graph feature {kind!r}")
        self.store = store
        self.name = kind
        self.query = "citerec/cocited_with" if kind == "cocitation" else "citerec/coupled_with"
        self.limit = limit
        super().__init__({"query": self.query, "limit": limit})

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        if not query.known_refs:
            return [], []
        rows = self.store.run_named(
            self.query,
            {
                "seeds": list(query.known_refs),
                "citing": query.citing,
                "limit": max(k, self.limit),
            },
        )
        return [str(r["id"]) for r in rows[:k]], [float(r["score"]) for r in rows[:k]]


def projection_graph_scores(
    projection: Any, kind: str, seeds: Sequence[str], citing: str
) -> dict[str, float]:
    """Co-citation or coupling scores computed on the resident projection.

    The same numbers as the named queries ``citerec/cocited_with`` and
    ``citerec/coupled_with`` (tested equal), in-process: the hybrid rankers call this per
    context, where a server round trip per feature would cap throughput. The citing paper is
    left out of the graph (no co-citer, no answer), the seeds are no answers; the signals are
    :mod:`scholarkg.graphalgo.neighbours`' (``coupling`` here is the papers citing the seeds).
    """
    from scholarkg.graphalgo.neighbours import Without, as_ids, citer_scores, cocitation_scores

    pos = projection.index
    weights: dict[int, float] = {}
    for s in seeds:  # a repeated seed counts once per mention, as before
        if s in pos:
            weights[pos[s]] = weights.get(pos[s], 0.0) + 1.0
    if not weights:
        return {}
    view = Without.of(projection, [citing])
    if kind == "coupling":
        return as_ids(projection, citer_scores(view, weights, drop_seeds=True))
    return as_ids(projection, cocitation_scores(view, weights, drop_seeds=True))


class ProjectionGraphRanker(ContextRanker):
    """Co-citation or coupling from the projection (see :func:`projection_graph_scores`)."""

    def __init__(self, projection: Any, kind: str) -> None:
        if kind not in ("cocitation", "coupling"):
            raise InputError(f"unknown graph feature {kind!r}")
        self.projection = projection
        self.name = kind
        super().__init__({"source": "projection", "graph": projection.key.graph})

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        scores = projection_graph_scores(self.projection, self.name, query.known_refs, query.citing)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
        return [c for c, _ in ranked], [v for _, v in ranked]


class PopularityRanker(ContextRanker):
    """In-degree (citations inside the loaded graph), the citing paper's own edge removed."""

    name = "popularity"

    def __init__(self, projection: Any) -> None:
        self.projection = projection
        self.indegree = projection.degrees("reverse").astype(np.float64)
        super().__init__({"graph": projection.key.graph})

    def in_degree(self, ids: Sequence[str], citing: str) -> np.ndarray:
        """In-degree of ``ids``, minus one for every paper the citing paper cites: that edge
        includes the answer, and subtracting it from all of the citing paper's references
        alike needs no knowledge of which one is the gold."""
        pos = self.projection.index
        cited: set[str] = set()
        if citing in pos:
            out = self.projection.neighbours(pos[citing], "natural")
            cited = {self.projection.ids[j] for j in out}
        deg = np.array([self.indegree[pos[i]] if i in pos else 0.0 for i in ids])
        deg -= np.array([1.0 if i in cited else 0.0 for i in ids])
        clipped: np.ndarray = np.maximum(deg, 0.0)
        return clipped

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        if candidates is None:
            raise InputError("popularity ranks a candidate pool; give candidates")
        pool = [c for c in candidates if c != query.citing]
        idx, vals = top_k(self.in_degree(pool, query.citing), k)
        return [pool[i] for i in idx], vals.tolist()


class HybridRanker(ContextRanker):
    """RRF over the component rankers' top ``depth`` (see the module doc)."""

    name = "hybrid"

    def __init__(
        self,
        parts: Sequence[ContextRanker],
        *,
        depth: int = 100,
        k: int = 60,
        name: str = "hybrid",
    ) -> None:
        self.name = name
        self.parts = list(parts)
        self.depth = depth
        self.rrf_k = k
        super().__init__(
            {"method": "rrf", "k": k, "depth": depth, "inputs": [p.name for p in self.parts]}
        )

    def prepare_contexts(
        self, queries: Sequence[ContextQuery], progress: Callable[[int], None] | None = None
    ) -> None:
        for part in self.parts:
            part.prepare_contexts(queries, progress)

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        rankings = [p.rank_context(query, self.depth) for p in self.parts]
        rankings = [r for r in rankings if r.ids]
        if not rankings:
            return [], []
        fused = rrf(rankings, k=self.rrf_k, depth=k)
        return fused.ids, fused.scores


# ----------------------------------------------------------------------------- learned fusion


def _dev_score(
    pools: Sequence[tuple[list[str], np.ndarray, str]], weights: np.ndarray
) -> tuple[float, float]:
    """(hits@10, reciprocal rank@10) summed over contexts for linear ``weights`` (bias last);
    ties broken by pool order, as :func:`top_k` does at ranking time."""
    hits = rr = 0.0
    for pool, x, gold in pools:
        scores = np.hstack([x, np.ones((len(pool), 1))]) @ weights
        idx, _ = top_k(scores, 10)
        top = [pool[i] for i in idx]
        if gold in top:
            hits += 1.0
            rr += 1.0 / (top.index(gold) + 1)
    return hits, rr


def _round_pair(pair: tuple[float, float]) -> dict[str, float]:
    return {"hits@10": pair[0], "rr@10": round(pair[1], 6)}


FEATURES = (
    "bm25",
    "bm25_rank",
    "ppr",
    "cocitation",
    "coupling",
    "popularity",
    "age",
    "ppr_rank",
    "cocitation_rank",
    "coupling_rank",
    "rrf",
)
#: the ``rrf`` feature: the unfitted ``hybrid``'s score (RRF k = 60 of these components)
RRF_FEATURE_PARTS = ("bm25", "ppr", "cocitation")
_RRF_COL = FEATURES.index("rrf")


class LearnedFusion(ContextRanker):
    """Logistic fusion of candidate features, fitted on dev contexts.

    Candidates: the union of the components' top ``depth``. Features per candidate:
    min-max-normalised BM25 score and 1/rank, log PPR score (0 when absent), log(1 +
    co-citation), log(1 + coupling), log(1 + popularity), the age gap in years (citing year
    − candidate year, clipped to [−5, 30]), 1/rank in the PPR, co-citation and coupling
    lists, and the RRF score of BM25, PPR and co-citation, i.e. the unfitted ``hybrid``'s
    own score. The model is a plain L2-regularised logistic regression fitted with scipy's
    L-BFGS: eleven features do not justify a new dependency (scikit-learn is not one of ours).

    Why the rank features and the RRF score: on a real citation graph (ScisummNet + AAN,
    ``docs/results-real.md``) the first version, with raw scores only, lost to plain RRF
    on test (Recall@10 0.446 vs 0.549): raw PPR and co-citation scores are on scales that
    differ per context, which reciprocal ranks are not. And why the guard: a pointwise
    logistic fit does not maximise Recall@10, so after fitting, the fitted model and the
    ``rrf`` feature alone are scored on the same dev contexts (Recall@10, then MRR@10); if
    the fit is not better, the model is RRF itself (``fallback`` in the fit record), so the
    fitted fusion never does worse than the unfitted hybrid on the fitting contexts.
    """

    name = "hybrid-learned"

    def __init__(
        self,
        bm25: ContextRanker,
        ppr: ContextRanker,
        cocitation: ContextRanker,
        coupling: ContextRanker,
        popularity: PopularityRanker,
        papers: PaperIndex,
        *,
        depth: int = 100,
        l2: float = 1.0,
    ) -> None:
        self.components = {"bm25": bm25, "ppr": ppr, "cocitation": cocitation, "coupling": coupling}
        self.popularity = popularity
        self.papers = papers
        self.depth = depth
        self.l2 = l2
        self.weights: np.ndarray | None = None
        super().__init__({"features": list(FEATURES), "depth": depth, "l2": l2})

    def prepare_contexts(
        self, queries: Sequence[ContextQuery], progress: Callable[[int], None] | None = None
    ) -> None:
        for part in self.components.values():
            part.prepare_contexts(queries, progress)

    def features(self, q: ContextQuery) -> tuple[list[str], np.ndarray]:
        """``(candidate ids, feature matrix)`` for one context."""
        parts = {n: r.rank_context(q, self.depth) for n, r in self.components.items()}
        pool = list(dict.fromkeys(i for r in parts.values() for i in r.ids))
        if not pool:
            return [], np.zeros((0, len(FEATURES)))
        x = np.zeros((len(pool), len(FEATURES)))
        where = {c: n for n, c in enumerate(pool)}
        bm = parts["bm25"]
        if bm.ids:
            lo, hi = min(bm.scores), max(bm.scores)
            for rank, (c, s) in enumerate(zip(bm.ids, bm.scores, strict=True), start=1):
                x[where[c], 0] = (s - lo) / (hi - lo) if hi > lo else 1.0
                x[where[c], 1] = 1.0 / rank
        for c, s in zip(parts["ppr"].ids, parts["ppr"].scores, strict=True):
            x[where[c], 2] = math.log(s) + 20.0 if s > 0 else 0.0
        for col, name in ((3, "cocitation"), (4, "coupling")):
            for c, s in zip(parts[name].ids, parts[name].scores, strict=True):
                x[where[c], col] = math.log1p(s)
        for name in ("ppr", "cocitation", "coupling"):
            col = FEATURES.index(f"{name}_rank")
            for rank, c in enumerate(parts[name].ids, start=1):
                x[where[c], col] = 1.0 / rank
        for name in RRF_FEATURE_PARTS:
            for rank, c in enumerate(parts[name].ids, start=1):
                x[where[c], _RRF_COL] += 1.0 / (60 + rank)
        x[:, 5] = np.log1p(self.popularity.in_degree(pool, q.citing))
        if q.year is not None:
            pos = self.papers.position
            years = np.array([self.papers.years[pos[c]] if c in pos else -1 for c in pool])
            x[:, 6] = np.where(years >= 0, np.clip(q.year - years, -5, 30) / 10.0, 0.0)
        return pool, x

    def fit(
        self, queries: Sequence[ContextQuery], gold: Mapping[str, str], *, seed: int = 0
    ) -> dict[str, Any]:
        """Fit on dev contexts; returns training statistics (recorded with the run)."""
        from scipy.optimize import minimize

        rows, labels = [], []
        rng = np.random.default_rng(seed)
        pools: list[tuple[list[str], np.ndarray, str]] = []
        for q in queries:
            pool, x = self.features(q)
            if not pool or gold[q.id] not in pool:
                continue
            pools.append((pool, x, gold[q.id]))
            y = np.array([1.0 if c == gold[q.id] else 0.0 for c in pool])
            neg = np.flatnonzero(y == 0)
            take = np.concatenate(
                [np.flatnonzero(y == 1), rng.choice(neg, size=min(len(neg), 30), replace=False)]
            )
            rows.append(x[take])
            labels.append(y[take])
        if not rows:
            raise InputError("no dev context has its gold among the candidates: cannot fit")
        X = np.vstack(rows)
        Y = np.concatenate(labels)
        # features on their own scales: the L2 penalty and L-BFGS see comparable columns
        scale = np.maximum(np.abs(X).max(axis=0), 1e-12)
        X1 = np.hstack([X / scale, np.ones((X.shape[0], 1))])

        def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
            z = X1 @ w
            p = 1.0 / (1.0 + np.exp(-z))
            eps = 1e-12
            value = -np.mean(Y * np.log(p + eps) + (1 - Y) * np.log(1 - p + eps))
            value += self.l2 * float(w[:-1] @ w[:-1]) / (2 * len(Y))
            grad = X1.T @ (p - Y) / len(Y)
            grad[:-1] += self.l2 * w[:-1] / len(Y)
            return value, grad

        res = minimize(loss, np.zeros(X1.shape[1]), jac=True, method="L-BFGS-B")
        fitted = np.concatenate([res.x[:-1] / scale, res.x[-1:]])
        rrf_only = np.zeros(len(FEATURES) + 1)
        rrf_only[_RRF_COL] = 1.0
        fit_score, rrf_score = _dev_score(pools, fitted), _dev_score(pools, rrf_only)
        # (n_queries counts the contexts whose gold is in the pool; the others score 0 for
        # both, so the comparison is the same over all of them)
        fallback = fit_score <= rrf_score
        self.weights = rrf_only if fallback else fitted
        self.params["weights"] = {
            n: round(float(w), 6) for n, w in zip((*FEATURES, "bias"), self.weights, strict=True)
        }
        self.params["fallback"] = "rrf" if fallback else None
        return {
            "n_queries": len(rows),
            "n_rows": len(Y),
            "converged": bool(res.success),
            "dev": {"fitted": _round_pair(fit_score), "rrf": _round_pair(rrf_score)},
            "fallback": "rrf" if fallback else None,
        }

    def _score(
        self, query: ContextQuery, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        if self.weights is None:
            raise InputError("hybrid-learned is not fitted: no dev contexts were available")
        pool, x = self.features(query)
        if not pool:
            return [], []
        scores = np.hstack([x, np.ones((len(pool), 1))]) @ self.weights
        idx, vals = top_k(scores, k)
        return [pool[i] for i in idx], vals.tolist()

"""Rank fusion: Reciprocal Rank Fusion, CombSUM and CombMNZ over :class:`Ranking` lists.

Two rankers use them: :class:`FusionRanker` fuses per query (a plain :class:`Ranker`), and
:class:`RunFusion` fuses whole runs (a :class:`~.base.RunRanker`), for fusions fitted on
the run itself.

Why fuse: lexical (BM25) and dense rankers fail on different queries, and full-text scores of
the two graph backends are not comparable (Lucene BM25 on Neo4j, RediSearch TF-IDF on FalkorDB) —
rank-based fusion needs no
score calibration at all, score-based fusion needs a per-ranking normalisation.

Definitions (each ranking is one ranker's answer to the same query):

* RRF (Cormack, Clarke & Büttcher, SIGIR 2009): ``score(d) = Σ_r 1 / (k + rank_r(d))`` with
  1-based ranks and ``k = 60``; documents a ranking does not return add nothing.
* CombSUM (Fox & Shaw, TREC-2 1994): ``Σ_r norm_r(d)``, ``norm_r`` = min-max normalisation of
  ranking ``r``'s scores, ``(s - min) / (max - min)``; a ranking whose scores are all equal
  normalises to 0 (as in ranx, which divides by ``max(max - min, 1e-9)``).
* CombMNZ: CombSUM times the number of rankings that returned ``d``.

Ties in the fused score are broken by first appearance across the input rankings (in input
order), so fusion is deterministic.

We deliberately do not call ``ranx.fuse`` at run time: ranx is a dev/eval dependency, JIT-compiles
with numba on first use (seconds) and sets numba's global thread count on import.
The tests pin these functions to ranx's ``rrf``/``comb_sum``/``comb_mnz`` on toy cases.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scholarkg.benchmark.rankers.base import (
    Ranker,
    Ranking,
    RunProgress,
    RunQuery,
    RunRanker,
    top_k,
)
from scholarkg.errors import InputError

RRF_K = 60
FUSION_METHODS = ("rrf", "combsum", "combmnz")


def _check(rankings: Sequence[Ranking]) -> None:
    if not rankings:
        raise InputError("fusion needs at least one ranking", field="rankings")
    qids = {r.query_id for r in rankings if r.query_id is not None}
    if len(qids) > 1:
        raise InputError(f"cannot fuse rankings of different queries: {sorted(qids)}")


def _finish(
    fused: dict[str, float],
    k: int | None,
    method: str,
    rankings: Sequence[Ranking],
    params: Mapping[str, Any],
) -> Ranking:
    ids = list(fused)  # insertion order = first appearance: the tie-break
    scores = np.fromiter(fused.values(), dtype=np.float64, count=len(ids))
    idx, vals = top_k(scores, len(ids) if k is None else k)
    qid = next((r.query_id for r in rankings if r.query_id is not None), None)
    return Ranking(
        ids=[ids[i] for i in idx],
        scores=vals.tolist(),
        ranker=method,
        params={**params, "inputs": [r.ranker for r in rankings]},
        elapsed_s=sum(r.elapsed_s for r in rankings),
        query_id=qid,
    )


def rrf(rankings: Sequence[Ranking], *, k: int = RRF_K, depth: int | None = None) -> Ranking:
    """Reciprocal Rank Fusion of ``rankings``; ``depth`` truncates the fused list."""
    _check(rankings)
    if k < 0:
        raise InputError(f"RRF k must be >= 0, got {k}", field="k")
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, doc_id in enumerate(ranking.ids, start=1):
            fused[doc_id] = fused.get(doc_id, 0.0) + 1.0 / (k + rank)
    return _finish(fused, depth, "rrf", rankings, {"k": k})


def min_max(scores: Sequence[float]) -> list[float]:
    """``(s - min) / (max - min)``; all-equal scores become 0 (ranx's convention)."""
    if not scores:
        return []
    scaled: list[float] = min_max_rows(np.asarray(scores, dtype=np.float64)[None, :])[0].tolist()
    return scaled


def min_max_rows(matrix: np.ndarray) -> np.ndarray:
    """Each row of a (queries x candidates) score matrix scaled to [0, 1] as :func:`min_max`
    scales one ranking (a constant row becomes 0)."""
    lo = matrix.min(axis=1, keepdims=True)
    span = matrix.max(axis=1, keepdims=True) - lo
    span[span == 0] = 1.0
    out: np.ndarray = (matrix - lo) / span
    return out


def _comb(
    rankings: Sequence[Ranking],
    depth: int | None,
    mnz: bool,
    weights: Sequence[float] | None = None,
) -> Ranking:
    _check(rankings)
    if weights is not None and len(weights) != len(rankings):
        raise InputError(
            f"{len(weights)} weight(s) for {len(rankings)} ranking(s)", field="weights"
        )
    fused: dict[str, float] = {}
    hits: dict[str, int] = {}
    for n, ranking in enumerate(rankings):
        for doc_id, s in zip(ranking.ids, min_max(ranking.scores), strict=True):
            fused[doc_id] = fused.get(doc_id, 0.0) + (s if weights is None else weights[n] * s)
            hits[doc_id] = hits.get(doc_id, 0) + 1
    if mnz:
        fused = {d: s * hits[d] for d, s in fused.items()}
    method = "combmnz" if mnz else "combsum"
    params: dict[str, Any] = {"norm": "min-max"}
    if weights is not None:
        params["weights"] = [float(w) for w in weights]
    return _finish(fused, depth, method, rankings, params)


def comb_sum(
    rankings: Sequence[Ranking],
    *,
    depth: int | None = None,
    weights: Sequence[float] | None = None,
) -> Ranking:
    """CombSUM of min-max normalised scores; ``weights``: Σ_r w_r · norm_r(d) instead."""
    return _comb(rankings, depth, mnz=False, weights=weights)


def comb_mnz(rankings: Sequence[Ranking], *, depth: int | None = None) -> Ranking:
    """CombMNZ: CombSUM times the number of rankings that returned the document."""
    return _comb(rankings, depth, mnz=True)


def fuse(
    rankings: Sequence[Ranking],
    method: str = "rrf",
    *,
    depth: int | None = None,
    k: int = RRF_K,
    weights: Sequence[float] | None = None,
) -> Ranking:
    """Dispatch by name (``rrf``, ``combsum``, ``combmnz``) for configs and the CLI.

    ``weights`` (one per ranking) applies to ``combsum`` only.
    """
    if weights is not None and method != "combsum":
        raise InputError(f"fusion weights apply to combsum, not {method!r}", field="weights")
    if method == "rrf":
        return rrf(rankings, k=k, depth=depth)
    if method == "combsum":
        return comb_sum(rankings, depth=depth, weights=weights)
    if method == "combmnz":
        return comb_mnz(rankings, depth=depth)
    raise _unknown_method(method)


def _unknown_method(method: str) -> InputError:
    return InputError(f"unknown fusion method {method!r}; known: {FUSION_METHODS}", field="method")


def _check_setup(owner: str, rankers: Sequence[Any], method: str) -> None:
    """The checks :class:`FusionRanker` and :class:`RunFusion` share: at their construction,
    not at the first query, so a bad config fails before any ranker has run."""
    if not rankers:
        raise InputError(f"{owner} needs at least one ranker", field="rankers")
    if method not in FUSION_METHODS:
        raise _unknown_method(method)


class FusionRanker(Ranker[str]):
    """A ranker that asks several rankers for their top ``depth`` and fuses the answers.

    ``depth`` is exactly what each input contributes (so ``depth=5`` fuses two top-5 lists,
    whatever the ``k`` asked of the fusion); ``None`` means "as deep as the fused list", i.e.
    each input ranks ``k`` documents.
    """

    def __init__(
        self,
        rankers: Sequence[Ranker[str]],
        *,
        method: str = "rrf",
        depth: int | None = None,
        k: int = RRF_K,
        weights: Sequence[float] | None = None,
        name: str | None = None,
    ) -> None:
        _check_setup("FusionRanker", rankers, method)
        if depth is not None and depth < 1:
            raise InputError(f"depth must be >= 1, got {depth}", field="depth")
        if weights is not None:
            if method != "combsum":
                raise InputError(f"fusion weights apply to combsum, not {method!r}")
            if len(weights) != len(rankers):
                raise InputError(
                    f"{len(weights)} weight(s) for {len(rankers)} ranker(s)", field="weights"
                )
        self.rankers = list(rankers)
        self.method = method
        self.depth = depth
        self.k = k
        self.weights = None if weights is None else [float(w) for w in weights]
        self.name = name or method
        params: dict[str, Any] = {
            "method": method,
            "depth": depth,
            "inputs": [{"ranker": r.name, "params": r.params} for r in self.rankers],
        }
        if method == "rrf":
            params["k"] = k
        if self.weights is not None:
            params["weights"] = self.weights
        super().__init__(params)

    def prepare_queries(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> None:
        for ranker in self.rankers:
            ranker.prepare_queries(texts, progress)

    def input_depth(self, k: int) -> int:
        """How many documents each input ranker returns when ``k`` fused ones are asked for
        (the one place that decides it, so a weight fitted on the inputs' rankings
        (:func:`fit_combsum_weight`) sees exactly what :meth:`rank` fuses). The depth as
        configured: taking max(depth, k) made the setting a no-op whenever k was larger
        (every 'bench run retrieval' at --depth 1000); unset, the inputs give k each."""
        return k if self.depth is None else self.depth

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        depth = self.input_depth(k)
        parts = [r.rank(query, depth, candidates=candidates) for r in self.rankers]
        fused = fuse(parts, self.method, depth=k, k=self.k, weights=self.weights)
        return fused.ids, fused.scores


class RunFusion:
    """A :class:`~.base.RunRanker` that fuses the whole runs of several run rankers.

    :class:`FusionRanker` fuses per query; this fuses after every input has ranked every
    query, which is what a fusion fitted on the run itself needs (subclasses override
    :meth:`_fuse`, e.g. cross-fitted weights). The default fuses each query with ``method``
    (depth = the query's ``k``). Inputs may themselves be run-level fusions.
    """

    def __init__(
        self,
        rankers: Sequence[RunRanker],
        *,
        method: str = "rrf",
        k: int = RRF_K,
        name: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        _check_setup("RunFusion", rankers, method)
        self.rankers = list(rankers)
        self.method = method
        self.k = k
        self.name = name or method
        if params is None:
            params = {"method": method, "inputs": [r.name for r in self.rankers]}
            if method == "rrf":
                params["k"] = k
        self.params: dict[str, Any] = dict(params)

    def rank_all(
        self, queries: Sequence[RunQuery], *, progress: RunProgress | None = None
    ) -> dict[str, Ranking]:
        ids = [q.id for q in queries]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise InputError(f"query id {dup!r} appears twice in one run", field="queries")
        total = len(queries) * len(self.rankers)
        parts = []
        for n, ranker in enumerate(self.rankers):

            def step(done: int, _: int, offset: int = n * len(queries)) -> None:
                if progress:
                    progress(offset + done, total)

            parts.append(ranker.rank_all(queries, progress=step))
        return self._fuse(queries, parts)

    def _fuse(
        self, queries: Sequence[RunQuery], parts: Sequence[Mapping[str, Ranking]]
    ) -> dict[str, Ranking]:
        """``{query id: fused ranking}`` from each input's run (``parts``, in input order)."""
        return {
            q.id: fuse([p[q.id] for p in parts], self.method, depth=q.k, k=self.k) for q in queries
        }


#: weights of the second input tried by :func:`fit_combsum_weight`: 0, 0.1, ..., 1
WEIGHT_GRID = tuple(round(0.1 * i, 1) for i in range(11))


@dataclass(frozen=True)
class WeightFit:
    """The CombSUM weight chosen on judged queries, with the score of every weight tried."""

    weight: float
    metric: str
    score: float
    n_queries: int
    grid: dict[float, float]

    def as_dict(self) -> dict[str, Any]:
        return {
            "weight": self.weight,
            "metric": self.metric,
            "score": round(self.score, 6),
            "n_queries": self.n_queries,
            "grid": {str(w): round(v, 6) for w, v in self.grid.items()},
        }


def fit_combsum_weight(
    parts: Mapping[str, tuple[Ranking, Ranking]],
    qrels: Mapping[str, Mapping[str, float]],
    *,
    metric: str = "nDCG@10",
    grid: Sequence[float] = WEIGHT_GRID,
    depth: int = 100,
    drop: Mapping[str, str] | None = None,
) -> WeightFit:
    """The weight ``w`` of the second ranking in ``(1 - w)·a + w·b`` (CombSUM of min-max
    normalised scores) that maximises the mean ``metric`` over the judged queries.

    ``parts[qid]`` holds the two input rankings of query ``qid`` (each input's top ``depth``,
    computed once); ``qrels[qid]`` its judgements; ``drop[qid]`` a document removed from the
    fused ranking before scoring (BEIR's ``ignore_identical_ids``). Why a grid, not a solver:
    one weight, a step-wise metric (nDCG is flat between rank swaps) and a few hundred dev
    queries; eleven evaluations are exact, cheap and reproducible. Ties go to the weight
    nearest 0.5, so a flat dev set yields the unweighted CombSUM rather than one ranker alone.
    """
    from scholarkg.benchmark.metrics.ir import evaluate

    judged = [q for q in parts if q in qrels]
    if not judged:
        raise InputError("no judged queries to fit the fusion weight on", field="qrels")
    if not grid or any(not 0.0 <= w <= 1.0 for w in grid):
        raise InputError(f"weights must lie in [0, 1], got {list(grid)}", field="grid")
    scores: dict[float, float] = {}
    for w in grid:
        run = {}
        for q in judged:
            fused = comb_sum(list(parts[q]), depth=depth, weights=(1.0 - w, w)).as_dict()
            if drop and q in drop:
                fused.pop(drop[q], None)
            run[q] = fused
        res = evaluate({q: dict(qrels[q]) for q in judged}, run, [metric], on_unknown="ignore")
        scores[float(w)] = float(res.aggregate[metric])
    best = max(scores.values())
    weight = min((w for w, v in scores.items() if v >= best - 1e-12), key=lambda w: abs(w - 0.5))
    return WeightFit(weight, metric, scores[weight], len(judged), scores)


#: RRF constants tried by :func:`fit_fusion` beside the CombSUM weights
RRF_K_GRID = (5, 10, 20, 30, 60, 100)


def simplex_grid(n: int, steps: int = 10) -> list[tuple[float, ...]]:
    """Every weight vector of ``n`` inputs in multiples of ``1/steps`` that sums to 1
    (``n = 4``, ``steps = 10``: 286 vectors), the first input's weight varying slowest."""
    if n < 1 or steps < 1:
        raise InputError(f"need n >= 1 and steps >= 1, got n={n}, steps={steps}", field="grid")
    out: list[tuple[float, ...]] = []

    def grow(prefix: tuple[int, ...], left: int) -> None:
        if len(prefix) == n - 1:
            out.append(tuple(round(c / steps, 10) for c in (*prefix, left)))
            return
        for c in range(left, -1, -1):
            grow((*prefix, c), left - c)

    grow((), steps)
    return out


@dataclass(frozen=True)
class FusionFit:
    """The fusion chosen on judged queries: CombSUM with weights or RRF with a k.

    ``weights`` holds one weight per input (CombSUM); ``weight`` is the second input's, kept
    for two inputs, where the label reads ``combsum w=<weight>``. ``grid`` holds the score of
    every candidate tried (``"combsum w=0.6"``, ``"combsum w=(0.1, 0.4, 0.2, 0.3)"``,
    ``"rrf k=60"``).
    """

    method: str
    weights: tuple[float, ...] | None
    k: int | None
    metric: str
    score: float
    n_queries: int
    grid: dict[str, float]
    #: the candidate's name in ``grid``
    chosen: str = ""
    #: RRF: the inputs it fuses (indexes; ``None``: all of them)
    inputs: list[int] | None = None

    @property
    def weight(self) -> float | None:
        """The second input's CombSUM weight when two inputs are fused (else ``None``)."""
        return self.weights[1] if self.weights is not None and len(self.weights) == 2 else None

    @property
    def label(self) -> str:
        if self.chosen:
            return self.chosen
        return f"rrf k={self.k}" if self.method == "rrf" else _weights_label(self.weights or ())

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "weight": self.weight,
            "weights": None if self.weights is None else list(self.weights),
            "k": self.k,
            "inputs": self.inputs,
            "chosen": self.label,
            "metric": self.metric,
            "score": round(self.score, 6),
            "n_queries": self.n_queries,
            "grid": {c: round(v, 6) for c, v in self.grid.items()},
        }


def _weights_label(weights: Sequence[float]) -> str:
    if len(weights) == 2:
        return f"combsum w={weights[1]}"
    return "combsum w=(" + ", ".join(f"{w:g}" for w in weights) + ")"


def _metric_cutoff(metric: str) -> int | None:
    """``10`` for ``nDCG@10``; ``None`` for a metric over the whole ranking (``MAP``)."""
    _, at, cut = metric.partition("@")
    return int(cut) if at and cut.isdigit() else None


#: a fusion candidate: ("rrf", 0/1 weight per input (the inputs it fuses), k) or
#: ("combsum", the weight per input, None)
_Candidate = tuple[str, tuple[float, ...] | None, int | None]


def fit_fusion(
    parts: Mapping[str, Sequence[Ranking]],
    qrels: Mapping[str, Mapping[str, float]],
    *,
    metric: str = "nDCG@10",
    weights: Sequence[float] = WEIGHT_GRID,
    steps: int = 10,
    rrf_ks: Sequence[int] = RRF_K_GRID,
    rrf_inputs: Sequence[Sequence[int]] | None = None,
    default_k: int = RRF_K,
    depth: int = 100,
    drop: Mapping[str, str] | None = None,
) -> FusionFit:
    """The fusion of each query's input rankings (``parts[qid]``, the same number of inputs
    for every query) that maximises the mean ``metric`` on the judged queries, among
    CombSUM of min-max normalised scores with each weight vector and RRF with each of
    ``rrf_ks``. Two inputs: the weight vectors are ``(1 - w, w)`` for ``w`` in ``weights``
    (as :func:`fit_combsum_weight`); more: every vector of the simplex in steps of
    ``1/steps`` (:func:`simplex_grid`). ``rrf_inputs``: the sets of inputs (indexes) each
    RRF constant is tried on, the first preferred on ties (default: all inputs; a fusion of
    more inputs passes the unfitted hybrid's pair first, so that it stays a candidate).

    Why both families: on real collections neither wins everywhere (CombSUM w = 0.6 beat
    RRF k = 60 on the unarXive citing sentences, RRF won on DORIS-MAE,
    ``docs/results-real.md``), and a fitted fusion that can only pick a CombSUM weight loses
    to the unfitted RRF wherever RRF is better. With RRF k = ``default_k`` (the unfitted
    ``hybrid``) among the candidates, the fit matches ``hybrid`` on the fitting queries by
    construction. Ties go to RRF at ``default_k``, then to the RRF k nearest it, then to the
    CombSUM weights nearest equal weights, so a flat dev set yields the unfitted hybrid.

    Each candidate's fused list is exactly what :func:`rrf`/:func:`comb_sum` return for it
    (same scores, same tie-break by first appearance), computed as one matrix product per
    query instead of one dict merge per candidate: with four inputs there are 292
    candidates, and a few hundred dev queries each. For a metric with a cutoff ``@n`` only
    the documents scoring at least the ``n``-th best reach the evaluator, which cannot change
    the metric (the rest rank below them in any order).
    """
    from scholarkg.benchmark.metrics.ir import evaluate

    judged = [q for q in parts if q in qrels]
    if not judged:
        raise InputError("no judged queries to fit the fusion on", field="qrels")
    n_inputs = {len(parts[q]) for q in judged}
    if len(n_inputs) != 1:
        raise InputError(f"queries have different numbers of inputs: {sorted(n_inputs)}")
    n = n_inputs.pop()
    cands, subsets = _fusion_candidates(n, weights, steps, rrf_ks, rrf_inputs)
    rrf_order = {tuple(1.0 if i in s else 0.0 for i in range(n)): m for m, s in enumerate(subsets)}
    truth = {q: dict(qrels[q]) for q in judged}
    cutoff = _metric_cutoff(metric)
    prepared = [_FitQuery.of(q, parts[q], rrf_order, drop) for q in judged]

    scores: dict[_Candidate, float] = {}
    for cand in cands:
        run = {fq.qid: fq.fused(cand, depth, cutoff) for fq in prepared}
        res = evaluate(truth, run, [metric], on_unknown="ignore")
        scores[cand] = float(res.aggregate[metric])
    best = max(scores.values())
    uniform = 1.0 / n

    def preference(c: _Candidate) -> tuple[int, int, float]:
        method, w, k = c
        if method == "rrf":
            return (0 if k == default_k else 1, rrf_order[w or ()], abs(float(k or 0) - default_k))
        return (2, 0, sum(abs(x - uniform) for x in (w or ())))

    def label(c: _Candidate) -> str:
        method, w, k = c
        if method != "rrf":
            return _weights_label(w or ())
        used = tuple(i for i, x in enumerate(w or ()) if x)
        return f"rrf k={k}" if len(used) == n else f"rrf k={k} of {used}"

    chosen = min((c for c, v in scores.items() if v >= best - 1e-12), key=preference)
    method, w, k = chosen
    return FusionFit(
        method, w if method == "combsum" else None, k, metric, scores[chosen], len(judged),
        {label(c): v for c, v in scores.items()}, label(chosen),
        [i for i, x in enumerate(w or ()) if x] if method == "rrf" else None,
    )  # fmt: skip


def _fusion_candidates(
    n: int,
    weights: Sequence[float],
    steps: int,
    rrf_ks: Sequence[int],
    rrf_inputs: Sequence[Sequence[int]] | None,
) -> tuple[list[_Candidate], list[tuple[int, ...]]]:
    """:func:`fit_fusion`'s candidates for ``n`` inputs (RRF first, in preference order of
    their input sets) and the RRF input sets; the grid checked, an ``InputError`` naming
    what is wrong."""
    if n < 2:
        raise InputError("fitting a fusion needs at least two inputs", field="parts")
    if any(not 0.0 <= w <= 1.0 for w in weights):
        raise InputError(f"weights must lie in [0, 1], got {list(weights)}", field="grid")
    if any(k < 1 for k in rrf_ks):
        raise InputError(f"RRF k must be >= 1, got {list(rrf_ks)}", field="grid")
    vectors = [(1.0 - float(w), float(w)) for w in weights] if n == 2 else simplex_grid(n, steps)
    subsets = [tuple(range(n))] if rrf_inputs is None else [tuple(sorted(s)) for s in rrf_inputs]
    subsets = list(dict.fromkeys(subsets))  # two inputs: "the pair" and "all" are one set
    if any(not s or any(not 0 <= i < n for i in s) for s in subsets):
        raise InputError(f"rrf_inputs must index the {n} inputs, got {subsets}", field="grid")
    # an RRF candidate is its constant and a 0/1 weight per input (the inputs it fuses)
    cands: list[_Candidate] = [
        ("rrf", tuple(1.0 if i in s else 0.0 for i in range(n)), int(k))
        for s in subsets
        for k in rrf_ks
    ] + [("combsum", tuple(v), None) for v in vectors]
    if not cands:
        raise InputError("no fusion candidates to fit", field="grid")
    return cands, subsets


@dataclass
class _FitQuery:
    """One query's inputs as matrices: the union of the inputs' documents in
    first-appearance order (the fusion functions' tie-break) and, per input, its min-max
    scores and its 1-based ranks there; ``keep`` leaves out the query's own document
    (``drop``); ``orders``: per RRF input set, the order its own fusion would list its
    documents in (first appearance among *its* inputs), which is its tie-break."""

    qid: str
    ids: list[str]
    norm: NDArray[np.float64]
    ranks: NDArray[np.float64]
    keep: NDArray[np.bool_]
    orders: dict[tuple[float, ...], NDArray[np.int64]]

    @classmethod
    def of(
        cls,
        qid: str,
        rankings: Sequence[Ranking],
        rrf_order: Mapping[tuple[float, ...], int],
        drop: Mapping[str, str] | None,
    ) -> _FitQuery:
        n = len(rankings)
        pos: dict[str, int] = {}
        for ranking in rankings:
            for d in ranking.ids:
                pos.setdefault(d, len(pos))
        norm = np.zeros((n, len(pos)))
        ranks = np.full((n, len(pos)), np.inf)
        for i, ranking in enumerate(rankings):
            cols = [pos[d] for d in ranking.ids]
            norm[i, cols] = min_max(ranking.scores)
            ranks[i, cols] = np.arange(1, len(cols) + 1)
        keep = np.ones(len(pos), dtype=bool)
        if drop and qid in drop and drop[qid] in pos:
            keep[pos[drop[qid]]] = False
        orders = {}
        for w_sub in rrf_order:
            seen: dict[str, None] = {}
            for i, ranking in enumerate(rankings):
                if w_sub[i]:
                    seen.update(dict.fromkeys(ranking.ids))
            orders[w_sub] = np.asarray([pos[d] for d in seen], dtype=np.int64)
        return cls(qid, list(pos), norm, ranks, keep, orders)

    def fused(self, cand: _Candidate, depth: int, cutoff: int | None) -> dict[str, float]:
        """The candidate's fused list for this query, as :func:`rrf`/:func:`comb_sum` give
        it, cut to ``depth`` (and to the documents scoring at least the ``cutoff``-th)."""
        method, w, k = cand
        # summed input by input, in input order, as the fusion functions add them, so exact
        # ties stay exact ties
        fused = np.zeros(len(self.ids))
        for i in range(len(self.norm)):
            if not (w or ())[i]:
                continue  # an input this RRF candidate leaves out (or weighs 0)
            fused = fused + (
                1.0 / (int(k or RRF_K) + self.ranks[i])
                if method == "rrf"
                else (w or ())[i] * self.norm[i]
            )
        if method == "rrf":
            order = self.orders[w or ()]
            sub, vals = top_k(fused[order], depth)
            idx = order[sub]
        else:
            idx, vals = top_k(fused, depth)
        kept = self.keep[idx]
        idx, vals = idx[kept], vals[kept]
        if cutoff is not None and len(vals) > cutoff:
            last = vals[cutoff - 1]
            idx, vals = idx[vals >= last], vals[vals >= last]
        return {self.ids[i]: float(v) for i, v in zip(idx, vals, strict=True)}


#: name -> fusion function, for code that picks a method from configuration
FUSERS: dict[str, Callable[..., Ranking]] = {"rrf": rrf, "combsum": comb_sum, "combmnz": comb_mnz}

"""DORIS-MAE relevance and metrics, as the upstream code computes them.

DORIS-MAE (Wang et al., NeurIPS 2023 D&B, arXiv 2310.04678) grades every (aspect or
sub-aspect, candidate abstract) pair 0/1/2; a query's relevance for an abstract is the sum
over its units. The numbers in the paper come from the code in
``Real-Doris-Mae/Doris-Mae-Dataset`` (``benchmarking/rank_performance_util.py``,
``dataset_util.py``), which differs from the paper's prose. We implement the code's rules
(protocol ``"upstream"``, which reproduces the published tables) and keep the prose's
query-exclusion rule as protocol ``"paper"``:

Relevance (:func:`build_relevance`)
    Units U(Q) = the *set* of the query's aspect ids and all sub-aspect ids (identical
    strings share one id, so |Q| counts distinct units). Raw S(p|Q) = sum of every recorded
    score for (u, p), u in U(Q): a missing pair adds 0, duplicate records are all added, an
    "unparseable" -1 adds -1. Relevant iff S/|Q| >= 1.0 (inclusive) and p is not one of
    :data:`EXCLUDED_ABSTRACTS`.

Metrics (:func:`evaluate_dorismae`; names as published)
    - ``R@5``, ``R@20``, ``RP``, ``MAP``: binary, over the relevant set, denominator |R|.
    - ``NDCG_10%``: cut-off c = int(0.1 · N) with N the *submitted* ranking's length; gain =
      raw S; ideal = the c largest raw S of the whole pool (excluded abstracts included).
    - ``NDCGexp_10%``: the same with gain 2**S (not 2**S - 1).
    - ``MRR@10``: 1/rank of the first top-10 abstract whose raw S equals the pool maximum
      (every tie is a target), else 0 — not the thresholded relevant set.

Queries averaged
    ``upstream``: R/RP/MAP over queries with a non-empty relevant set, NDCG/MRR over all (so
    91 vs 100 on the v1 query set). ``paper``: every metric over the queries with a relevant
    abstract only (the prose says such queries were omitted).

Edge cases the upstream code crashes on, and what we do instead (documented choices):
c = 0 (fewer than 10 submitted abstracts) raises :class:`InputError`; an ideal DCG of 0
scores 0; an abstract outside the query's pool raises :class:`InputError` (as upstream). If
*every* pool abstract ties at the maximum, upstream drops the last one from the MRR targets;
we keep all of them (unreachable on the real data). The table's ± (bootstrap standard error,
unseeded) belongs to ``metrics.stats``. Values are in [0, 1]; the paper reports × 100.

Ids: abstract ids are compared as strings (the v1 JSON has ints; TREC files have strings).
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from scholarkg.benchmark.metrics.ir import (
    IR_METRICS,
    EvalResult,
    MetricFamily,
    MetricSpec,
    Progress,
    evaluate,
    parse_metric,
)
from scholarkg.errors import InputError

log = logging.getLogger(__name__)

#: Abstracts upstream never counts as relevant (they stay in the pool, so in NDCG's ideal).
EXCLUDED_ABSTRACTS: frozenset[str] = frozenset({"205580", "346695", "346826", "346836", "28674"})
#: The metrics of the paper's tables, in table order.
PUBLISHED_METRICS: tuple[str, ...] = (
    "R@5",
    "R@20",
    "RP",
    "NDCG_10%",
    "NDCGexp_10%",
    "MRR@10",
    "MAP",
)
Protocol = Literal["upstream", "paper"]
PROTOCOLS: tuple[str, ...] = ("upstream", "paper")

#: DORIS-MAE's name table: published label template -> the generic family computing it.
#: Whether a metric reads the binary relevant set or the raw pool scores comes from the
#: generic family's ``binary`` flag.
DORIS_METRICS: dict[str, str] = {
    "R@k": "R@k",
    "P@k": "P@k",
    "Hit@k": "Hit@k",
    "RP": "RP",
    "MAP": "MAP",
    "MAP@k": "MAP@k",
    "NDCG_p%": "NDCG_p%",
    "NDCGexp_p%": "NDCGexp_p%",
    "MRR@k": "MRRmax@k",
}
_DORIS_TABLE: dict[str, MetricFamily] = {
    label: replace(IR_METRICS[fam], template=label) for label, fam in DORIS_METRICS.items()
}


def query_units(aspects: Mapping[Any, Sequence[Any]]) -> frozenset[str]:
    """Distinct unit ids of a query: its aspect ids and every sub-aspect id, as strings."""
    units: set[str] = set()
    for aspect, subs in aspects.items():
        units.add(str(aspect))
        units.update(str(s) for s in subs)
    return frozenset(units)


@dataclass(frozen=True)
class DorisRelevance:
    """Per-query raw relevance of every pool abstract, and each query's unit count |Q|."""

    raw: dict[str, dict[str, float]]
    n_units: dict[str, int]
    excluded: frozenset[str] = EXCLUDED_ABSTRACTS
    threshold: float = 1.0

    def normalised(self, qid: str) -> dict[str, float]:
        """S(p|Q)/|Q| in [0, 2] (or below 0 with unparseable grades)."""
        n = self.n_units[qid]
        return {p: s / n for p, s in self.raw[qid].items()}

    def relevant(self, qid: str) -> set[str]:
        """Abstracts with S/|Q| >= threshold (inclusive), minus the excluded ones."""
        n = self.n_units[qid]
        return {
            p
            for p, s in self.raw[qid].items()
            if s / n >= self.threshold and p not in self.excluded
        }

    def binary_qrels(self) -> dict[str, dict[str, float]]:
        return {q: dict.fromkeys(self.relevant(q), 1.0) for q in self.raw}

    def queries_with_relevant(self) -> list[str]:
        return [q for q in self.raw if self.relevant(q)]


def _field(record: Mapping[str, Any], key: str, where: str) -> Any:
    if not isinstance(record, Mapping):
        raise InputError(f"{where}: expected an object, got {type(record).__name__}")
    if key not in record:
        raise InputError(f"{where}: missing field", field=key)
    return record[key]


def build_relevance(
    queries: Sequence[Mapping[str, Any]] | Mapping[Any, Mapping[str, Any]],
    annotations: Iterable[Mapping[str, Any]],
    *,
    excluded: Iterable[Any] = EXCLUDED_ABSTRACTS,
    threshold: float = 1.0,
    source: str = "dataset",
) -> DorisRelevance:
    """Raw S(p|Q) for every pool abstract of every query, from v1-schema records.

    ``queries``: the v1 ``Query`` list (query id = list index) or a ``{qid: query}`` mapping;
    each needs ``candidate_pool`` and ``aspects`` (``{aspect_id: [sub_aspect_id, ...]}``).
    ``annotations``: ``Annotation`` records with ``aspect_id``, ``abstract_id``, ``score``.
    Ids are coerced (aspects and abstracts to str), since JSON round trips turn int keys
    into strings. ``source`` names the input in error messages.
    """
    items = queries.items() if isinstance(queries, Mapping) else enumerate(queries)
    units: dict[str, frozenset[str]] = {}
    pools: dict[str, list[str]] = {}
    for qid, q in items:
        where = f"{source}: Query record {qid}"
        pool = _field(q, "candidate_pool", where)
        aspects = _field(q, "aspects", where)
        if not isinstance(aspects, Mapping):
            raise InputError(f"{where}: expected an object of aspect lists", field="aspects")
        if not isinstance(pool, list) or not pool:
            raise InputError(f"{where}: expected a non-empty list", field="candidate_pool")
        u = query_units(aspects)
        if not u:
            raise InputError(f"{where}: the query has no aspect", field="aspects")
        units[str(qid)] = u
        pools[str(qid)] = list(dict.fromkeys(str(p) for p in pool))

    # (unit, abstract) -> summed score; duplicates add up, as upstream's loop does
    scores: dict[tuple[str, str], float] = defaultdict(float)
    for i, a in enumerate(annotations):
        where = f"{source}: Annotation record {i}"
        aspect = str(_field(a, "aspect_id", where))
        abstract = str(_field(a, "abstract_id", where))
        score = _field(a, "score", where)
        if isinstance(score, bool) or not isinstance(score, int | float) or score != score:
            raise InputError(f"{where}: score {score!r} is not a number", field="score")
        scores[(aspect, abstract)] += float(score)

    raw = {
        qid: {p: sum(scores.get((u, p), 0.0) for u in units[qid]) for p in pools[qid]}
        for qid in pools
    }
    n_units = {qid: len(u) for qid, u in units.items()}
    excl = frozenset(str(e) for e in excluded)
    return DorisRelevance(raw, n_units, excl, threshold)


def parse_dorismae_metric(text: str) -> tuple[MetricSpec, MetricSpec, bool]:
    """(label spec, generic spec, binary) for a DORIS-MAE metric name such as ``MRR@10``."""
    label = parse_metric(text, _DORIS_TABLE)
    family = DORIS_METRICS[label.family]
    generic = MetricSpec(label.name, family, k=label.k, pct=label.pct)
    return label, generic, IR_METRICS[family].binary


def evaluate_dorismae(
    relevance: DorisRelevance,
    run: Mapping[Any, Sequence[Any] | Mapping[Any, float]],
    metrics: Sequence[str] = PUBLISHED_METRICS,
    *,
    protocol: Protocol = "upstream",
    queries: Iterable[Any] | None = None,
    progress: Progress | None = None,
) -> EvalResult:
    """Score re-rankings of DORIS-MAE pools with the benchmark's own rules.

    ``run``: ``{qid: [abstract_id, ...]}`` best first (or ``{qid: {abstract_id: score}}``);
    every abstract must belong to the query's pool. ``queries`` restricts the query set (e.g.
    the dataset's 60-query test split, ``loaders.dorismae.TEST_SPLIT_QIDS``); by default all
    queries of ``relevance``. Missing rankings score 0 and count. ``n_queries`` in the result
    tells how many queries each mean is over.
    """
    if protocol not in PROTOCOLS:
        raise InputError(f"unknown DORIS-MAE protocol {protocol!r}; known: {', '.join(PROTOCOLS)}")
    parsed = [parse_dorismae_metric(m) for m in metrics]
    qids = [str(q) for q in queries] if queries is not None else list(relevance.raw)
    missing = [q for q in qids if q not in relevance.raw]
    if missing:
        raise InputError(f"queries not in the DORIS-MAE relevance data: {missing[:5]}")

    norm_run: dict[str, list[str] | dict[str, float]] = {}
    chosen = set(qids)
    for q, ranking in run.items():
        qid = str(q)
        if qid not in relevance.raw:
            raise InputError(f"run query {qid!r} is not a DORIS-MAE query")
        if qid not in chosen:
            continue
        if isinstance(ranking, Mapping):
            docs: list[str] | dict[str, float] = {str(d): float(s) for d, s in ranking.items()}
        else:
            docs = [str(d) for d in ranking]
        pool = relevance.raw[qid]
        outside = [d for d in docs if d not in pool]
        if outside:
            raise InputError(
                f"run query {qid!r}: abstract {outside[0]!r} is not in the query's candidate pool"
            )
        norm_run[qid] = docs

    qrels = relevance.binary_qrels()  # one pass over the pools serves both uses below
    with_rel = {q for q, docs in qrels.items() if docs}
    binary_qids = [q for q in qids if q in with_rel]
    graded_qids = binary_qids if protocol == "paper" else qids
    dropped = len(qids) - len(binary_qids)
    if dropped:
        log.info("%d of %d queries have no relevant abstract", dropped, len(qids))

    binary_specs = [g for _, g, b in parsed if b]
    graded_specs = [g for _, g, b in parsed if not b]
    parts: list[EvalResult] = []
    if binary_specs and binary_qids:
        parts.append(
            evaluate(
                {q: qrels[q] for q in binary_qids},
                {q: r for q, r in norm_run.items() if q in with_rel},
                binary_specs,
                relevance_threshold=1.0,
                progress=progress,
            )
        )
    if graded_specs and graded_qids:
        keep = set(graded_qids)
        parts.append(
            evaluate(
                {q: relevance.raw[q] for q in graded_qids},
                {q: r for q, r in norm_run.items() if q in keep},
                graded_specs,
                progress=progress,
            )
        )

    aggregate: dict[str, float] = {}
    per_query: dict[str, dict[str, float]] = {q: {} for q in qids}
    n_queries: dict[str, int] = {}
    for part in parts:
        aggregate.update(part.aggregate)
        n_queries.update(part.n_queries)
        for q, vals in part.per_query.items():
            per_query[q].update(vals)
    order = [label.name for label, _, _ in parsed]
    for name in order:  # a metric no query qualifies for has no mean
        aggregate.setdefault(name, float("nan"))
        n_queries.setdefault(name, 0)
    return EvalResult(
        {n: aggregate[n] for n in order},
        {q: {n: v[n] for n in order if n in v} for q, v in per_query.items()},
        {n: n_queries[n] for n in order},
    )


def random_expected_recall(pool_sizes: Iterable[int], k: int) -> float:
    """Closed-form mean R@k of a uniformly random ranking: mean over queries of min(k, N)/N.

    A check on random baselines (upstream averages 100 seeded shuffles instead).
    """
    sizes = list(pool_sizes)
    if not sizes or min(sizes) <= 0:
        raise InputError("pool sizes must be positive and non-empty")
    return sum(min(k, n) / n for n in sizes) / len(sizes)

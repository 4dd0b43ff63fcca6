"""Standard ranked-retrieval metrics over qrels and runs, vectorised with numpy.

Inputs are plain data, nothing from the graph store:

- ``qrels``: ``{qid: {docid: grade}}``; grades are numbers (0 = judged non-relevant).
- ``run``: ``{qid: [docid, ...]}`` ranked best first, or ``{qid: {docid: score}}``.

Conventions (chosen to equal ``trec_eval`` / pytrec-eval-terrier, checked by the parity tests):

- **Order of a scored run**: score descending, ties broken by docid *descending* (string
  comparison). That is what ``trec_eval`` does (``sort`` on ``(sim, docno)`` both descending).
  ranx sorts with numpy's unstable quicksort, so its tie order is unspecified; the parity tests
  against ranx therefore use tie-free scores, those against pytrec-eval include ties.
- **Ranked lists** are taken as given; a docid repeated in one list keeps its first rank (the
  later copies are dropped, as citeBench's protocol fixes). The TREC file reader refuses
  duplicates instead, because there they signal a broken file.
- **Binary relevance** for P/R/Hit/MRR/MAP/RP: ``grade >= relevance_threshold`` (default 1),
  like ``trec_eval -l`` and ranx ``rel_lvl``.
- **nDCG gains** ignore the threshold, as trec_eval does: linear gain = ``max(grade, 0)``
  (trec_eval, ranx ``ndcg``), exponential gain = ``2**max(grade, 0) - 1`` (ranx
  ``ndcg_burges``). ranx additionally zeroes grades below ``rel_lvl``; with the default
  threshold 1 and integer grades the two agree.
- **P@k** divides by k even when fewer than k documents were returned (trec_eval, ranx).
  **R@k**, **MAP**, **MAP@k** and **RP** divide by the number of relevant documents in the qrels.
- **Queries in qrels with no run** are scored 0 on every metric and counted in the mean
  (trec_eval ``-c``; plain trec_eval and pytrec-eval silently skip them, which inflates means).
- **Queries in the run but not in the qrels** are an error by default (a qid mismatch such as
  ``"1"`` vs ``"q1"`` otherwise shows up as a silent zero); ``on_unknown="ignore"`` drops them
  with a logged warning, which is what trec_eval does.
- **Queries without any relevant document** score 0 on the binary metrics and nDCG
  (trec_eval, ranx) and are counted; DORIS-MAE's own averaging rule lives in ``dorismae.py``.

Metric names are parsed once into :class:`MetricSpec` from strings such as ``P@10``,
``nDCG@10`` or ``NDCG_10%`` using the name table :data:`IR_METRICS`; an unknown name raises an
error that lists the table's templates. We compute the metrics ourselves instead of calling
ranx because ranx JIT-compiles on first use (seconds per process), sets numba threading
globally, mutates its inputs and does not have the DORIS-MAE variants; ranx and
pytrec-eval-terrier stay as test oracles.
"""

from __future__ import annotations

import logging
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from itertools import repeat
from typing import Any, Literal

import numpy as np

from scholarkg.errors import InputError

log = logging.getLogger(__name__)

Qrels = Mapping[str, Mapping[str, float]]
#: one query's ranking: a list best first, or ``{docid: score}``
Ranking = Sequence[str] | Mapping[str, float]
Run = Mapping[str, Ranking]
Progress = Callable[[int, int], None]
Gain = Literal["linear", "exp"]

#: queries evaluated per numpy batch; bounds memory at CHUNK × run depth × 8 bytes
CHUNK = 1024


# ----------------------------------------------------------------------------- results


@dataclass
class EvalResult:
    """Mean and per-query values of each metric.

    ``n_queries[name]`` is how many queries the mean of ``name`` is over; a query that a
    protocol leaves out of a metric has no entry for it in ``per_query``.
    """

    aggregate: dict[str, float]
    per_query: dict[str, dict[str, float]]
    n_queries: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape the CLI prints: ``{"aggregate": ..., "per_query": ...}``."""
        return {"aggregate": dict(self.aggregate), "per_query": dict(self.per_query)}


# ----------------------------------------------------------------------------- name table


@dataclass(frozen=True)
class MetricSpec:
    """A parsed metric name: family template plus its cut-off (``k``) or percentage."""

    name: str
    family: str
    k: int | None = None
    pct: float | None = None


@dataclass(frozen=True)
class MetricFamily:
    """One entry of the name table: how the name is written, what it means, how to compute it.

    ``param`` is ``"k"`` (``P@10``), ``"pct"`` (``NDCG_10%``) or ``None`` (``MAP``).
    """

    template: str
    param: Literal["k", "pct"] | None
    kernel: Callable[[_Batch, MetricSpec], np.ndarray]
    doc: str
    #: True when the metric reads only the binary relevant set (used by protocols)
    binary: bool = True


# ----------------------------------------------------------------------------- batch


class _Batch:
    """Grades of the ranked documents of a chunk of queries, as padded matrices.

    Rows are queries, columns ranks (0-based). Positions past a ranking's end hold grade 0,
    which every metric below treats as non-relevant with zero gain, so padding needs no masks
    except where the submitted length itself matters (``NDCG_p%``).
    """

    def __init__(
        self,
        qids: Sequence[str],
        grades: np.ndarray,
        judged: np.ndarray | None,
        lengths: np.ndarray,
        qrel_grades: Sequence[np.ndarray],
        threshold: float,
    ) -> None:
        self.qids = qids
        self.grades = grades  # (nq, depth) float64
        self.judged_mask = judged  # (nq, depth) bool or None
        self.lengths = lengths  # (nq,) submitted length (after dedup), before truncation
        self.qrel_grades = qrel_grades  # per query: all judged grades, sorted descending
        self.threshold = threshold
        self.depth = grades.shape[1]

    @cached_property
    def rel(self) -> np.ndarray:
        return self.grades >= self.threshold

    @cached_property
    def cum(self) -> np.ndarray:
        """Relevant documents retrieved up to and including each rank."""
        return np.cumsum(self.rel, axis=1, dtype=np.int32)

    @cached_property
    def n_rel(self) -> np.ndarray:
        return np.array(
            [int(np.count_nonzero(g >= self.threshold)) for g in self.qrel_grades],
            dtype=np.float64,
        )

    def hits_at(self, k: int | None) -> np.ndarray:
        """Relevant documents in the top k (k None = whole ranking)."""
        if self.depth == 0:
            return np.zeros(len(self.qids))
        col = self.depth - 1 if k is None else min(k, self.depth) - 1
        return self.cum[:, col].astype(np.float64)

    def ideal(self, depth: int, *, positive: bool) -> np.ndarray:
        """(nq, depth) matrix of each query's judged grades, best first, zero-padded."""
        out = np.zeros((len(self.qids), depth))
        for i, g in enumerate(self.qrel_grades):
            g = g[:depth]
            out[i, : len(g)] = np.maximum(g, 0.0) if positive else g
        return out


def _discount(n: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, n + 2, dtype=np.float64))


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


# ----------------------------------------------------------------------------- kernels


def _precision(b: _Batch, s: MetricSpec) -> np.ndarray:
    assert s.k is not None
    return b.hits_at(s.k) / s.k


def _recall(b: _Batch, s: MetricSpec) -> np.ndarray:
    return _safe_div(b.hits_at(s.k), b.n_rel)


def _hit(b: _Batch, s: MetricSpec) -> np.ndarray:
    return (b.hits_at(s.k) > 0).astype(np.float64)


def _mrr(b: _Batch, s: MetricSpec) -> np.ndarray:
    rel = b.rel if s.k is None else b.rel[:, : s.k]
    return _first_hit_rr(rel)


def _first_hit_rr(mask: np.ndarray) -> np.ndarray:
    if mask.shape[1] == 0:
        return np.zeros(mask.shape[0])
    first = np.argmax(mask, axis=1)
    found = mask[np.arange(mask.shape[0]), first]
    return np.where(found, 1.0 / (first + 1.0), 0.0)


def _average_precision(b: _Batch, s: MetricSpec) -> np.ndarray:
    depth = b.depth if s.k is None else min(s.k, b.depth)
    rel = b.rel[:, :depth]
    prec = b.cum[:, :depth] / np.arange(1, depth + 1, dtype=np.float64)
    return _safe_div((prec * rel).sum(axis=1), b.n_rel)


def _r_precision(b: _Batch, s: MetricSpec) -> np.ndarray:
    if b.depth == 0:
        return np.zeros(len(b.qids))
    n_rel = b.n_rel.astype(np.int64)
    col = np.clip(np.minimum(n_rel, b.depth) - 1, 0, None)
    hits = b.cum[np.arange(len(b.qids)), col].astype(np.float64)
    return _safe_div(np.where(n_rel > 0, hits, 0.0), b.n_rel)


def _gains(grades: np.ndarray, gain: Gain) -> np.ndarray:
    pos = np.maximum(grades, 0.0)
    gains: np.ndarray = pos if gain == "linear" else np.exp2(pos) - 1.0
    return gains


def _ndcg_with(b: _Batch, s: MetricSpec, gain: Gain) -> np.ndarray:
    depth = b.depth if s.k is None else min(s.k, b.depth)
    disc = _discount(max(depth, 1))[:depth]
    dcg = _gains(b.grades[:, :depth], gain) @ disc
    ideal_depth = s.k if s.k is not None else max((len(g) for g in b.qrel_grades), default=0)
    ideal = _gains(b.ideal(ideal_depth, positive=True), gain)
    idcg = ideal @ _discount(ideal_depth)
    return _safe_div(dcg, idcg)


def _ndcg(b: _Batch, s: MetricSpec) -> np.ndarray:
    return _ndcg_with(b, s, "linear")


def _ndcg_exp(b: _Batch, s: MetricSpec) -> np.ndarray:
    return _ndcg_with(b, s, "exp")


def _pct_cutoffs(b: _Batch, s: MetricSpec) -> np.ndarray:
    """c = int(p * N) with N the *submitted* length, exactly as DORIS-MAE computes it."""
    assert s.pct is not None
    p = s.pct / 100.0
    cut = np.array([int(p * int(n)) for n in b.lengths], dtype=np.int64)
    bad = (cut == 0) & (b.lengths > 0)
    if bad.any():
        qid = b.qids[int(np.argmax(bad))]
        raise InputError(
            f"{s.name}: query {qid!r} has {int(b.lengths[int(np.argmax(bad))])} ranked "
            f"document(s), so the cut-off int({p:g}·N) is 0 and the metric is undefined"
        )
    return cut


def _ndcg_pct_with(b: _Batch, s: MetricSpec, exp2: bool) -> np.ndarray:
    """NDCG at a percentage cut-off over raw grades (DORIS-MAE ``ndcg_normal``/``ndcg_exp``).

    Gains are the raw grades (negative kept) or ``2**grade`` (so an unjudged or zero-graded
    document still gains 1, as upstream). The ideal list is the c largest grades of the
    query's whole judged pool; a pool shorter than c is padded with grade 0.
    """
    cut = _pct_cutoffs(b, s)
    width = int(cut.max(initial=0))
    if width == 0:
        return np.zeros(len(b.qids))
    width = min(width, b.depth)
    mask = np.arange(width) < cut[:, None]
    disc = _discount(width)
    g = b.grades[:, :width]
    ideal = b.ideal(width, positive=False)
    if exp2:
        g, ideal = np.exp2(g), np.exp2(ideal)
    dcg = (g * mask) @ disc
    idcg = (ideal * mask) @ disc
    return _safe_div(dcg, idcg)


def _ndcg_pct(b: _Batch, s: MetricSpec) -> np.ndarray:
    return _ndcg_pct_with(b, s, exp2=False)


def _ndcg_pct_exp(b: _Batch, s: MetricSpec) -> np.ndarray:
    return _ndcg_pct_with(b, s, exp2=True)


def _mrr_max(b: _Batch, s: MetricSpec) -> np.ndarray:
    """1/rank of the first top-k document whose grade equals the query's best judged grade.

    DORIS-MAE's MRR: targets are the top-scoring pool documents (all ties count), not the
    thresholded relevant set. Unjudged documents are never targets.
    """
    assert b.judged_mask is not None
    best = np.array([g[0] if len(g) else np.nan for g in b.qrel_grades])
    k = b.depth if s.k is None else min(s.k, b.depth)
    target = (b.grades[:, :k] == best[:, None]) & b.judged_mask[:, :k]
    return _first_hit_rr(target)


#: The name table. Error messages and ``metric_names()`` are generated from it.
IR_METRICS: dict[str, MetricFamily] = {
    f.template: f
    for f in (
        MetricFamily("P@k", "k", _precision, "precision in the top k (divides by k)"),
        MetricFamily("R@k", "k", _recall, "recall in the top k (divides by #relevant)"),
        MetricFamily("Hit@k", "k", _hit, "1 if a relevant document is in the top k"),
        MetricFamily("MRR@k", "k", _mrr, "reciprocal rank of the first relevant doc in top k"),
        MetricFamily("MRR", None, _mrr, "reciprocal rank of the first relevant doc"),
        MetricFamily("MAP@k", "k", _average_precision, "average precision cut at k"),
        MetricFamily("MAP", None, _average_precision, "average precision (mean over queries)"),
        MetricFamily("RP", None, _r_precision, "R-precision: precision at #relevant"),
        MetricFamily("nDCG@k", "k", _ndcg, "nDCG at k, linear gain (trec_eval, ranx ndcg)", False),
        MetricFamily("nDCG", None, _ndcg, "nDCG over the whole ranking, linear gain", False),
        MetricFamily(
            "nDCGexp@k", "k", _ndcg_exp, "nDCG at k, gain 2^g-1 (ranx ndcg_burges)", False
        ),
        MetricFamily("nDCGexp", None, _ndcg_exp, "nDCG over the whole ranking, gain 2^g-1", False),
        MetricFamily(
            "NDCG_p%", "pct", _ndcg_pct, "DORIS-MAE NDCG at c=int(p%·N), raw-grade gain", False
        ),
        MetricFamily(
            "NDCGexp_p%", "pct", _ndcg_pct_exp, "DORIS-MAE NDCG^exp at p%, gain 2^grade", False
        ),
        MetricFamily(
            "MRRmax@k", "k", _mrr_max, "DORIS-MAE MRR: first doc at the best judged grade", False
        ),
    )
}

_ALIASES = {
    "precision": "P",
    "recall": "R",
    "hit_rate": "Hit",
    "success": "Hit",
    "hits": "Hit",
    "mrr": "MRR",
    "rr": "MRR",
    "ndcg": "nDCG",
    "map": "MAP",
    "rprec": "RP",
    "r-precision": "RP",
}


def metric_names(table: Mapping[str, MetricFamily] = IR_METRICS) -> list[str]:
    """Templates of the valid names, e.g. ``P@k``, ``MAP``, ``NDCG_p%``."""
    return list(table)


def parse_metric(text: str, table: Mapping[str, MetricFamily] = IR_METRICS) -> MetricSpec:
    """Parse ``P@10``, ``nDCG@10``, ``MAP``, ``NDCG_10%`` … into a :class:`MetricSpec`.

    Matching ignores case for the family part (``ndcg@10`` = ``nDCG@10``) except where two
    families differ only by case (``nDCG``: trec-style, ``NDCG_10%``: DORIS-MAE), which the
    ``@``/``%`` suffix already tells apart. The canonical spelling is the table's.
    """
    raw = text.strip()
    head, sep, tail = raw.partition("@")
    head = _ALIASES.get(head.lower(), head)
    candidate = head + sep + tail
    for fam in table.values():
        if fam.param == "k":
            prefix = fam.template[: -len("k")]
            m = re.fullmatch(re.escape(prefix) + r"(\d+)", candidate, flags=re.IGNORECASE)
            if m:
                k = int(m.group(1))
                if k <= 0:
                    raise InputError(f"metric {text!r}: the cut-off must be a positive integer")
                return MetricSpec(f"{prefix}{k}", fam.template, k=k)
        elif fam.param == "pct":
            prefix = fam.template[: -len("p%")]
            m = re.fullmatch(re.escape(prefix) + r"(\d+(?:\.\d+)?)%", candidate, re.IGNORECASE)
            if m:
                pct = float(m.group(1))
                if not 0 < pct <= 100:
                    raise InputError(f"metric {text!r}: the percentage must be in (0, 100]")
                shown = m.group(1)
                return MetricSpec(f"{prefix}{shown}%", fam.template, pct=pct)
        elif candidate.lower() == fam.template.lower():
            return MetricSpec(fam.template, fam.template)
    raise InputError(
        f"unknown metric {text!r}; valid names: {', '.join(metric_names(table))} "
        "(k a positive integer, p a percentage)",
        field="metrics",
    )


def parse_metrics(
    names: Iterable[str | MetricSpec] | str, table: Mapping[str, MetricFamily] = IR_METRICS
) -> list[MetricSpec]:
    """Parse a list of names (or one comma-separated string); duplicates are dropped.

    Already parsed :class:`MetricSpec` entries are kept as they are.
    """
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    specs: dict[str, MetricSpec] = {}
    for name in names:
        spec = name if isinstance(name, MetricSpec) else parse_metric(name, table)
        specs.setdefault(spec.name, spec)
    if not specs:
        raise InputError("no metric given", field="metrics")
    return list(specs.values())


# ----------------------------------------------------------------------------- evaluation


def _score_order(scores: Mapping[str, float], qid: str) -> np.ndarray | list[str]:
    """Rank order of a scored query: score desc, then docid desc (trec_eval).

    Returns positions into ``list(scores)`` when no two scores tie (fast numpy path), else the
    sorted docids themselves (exact Python sort on ``(score, docid)``).
    """
    vals = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    if not np.isfinite(vals).all():
        bad = list(scores)[int(np.argmax(~np.isfinite(vals)))]
        raise InputError(f"query {qid!r}: document {bad!r} has a non-finite score")
    order = np.argsort(-vals, kind="stable")
    ordered = vals[order]
    if len(vals) > 1 and (ordered[1:] == ordered[:-1]).any():
        return sorted(scores, key=lambda d: (scores[d], d), reverse=True)
    return order


def rank_scores(scores: Mapping[str, float], qid: str = "?") -> list[str]:
    """Docids of one scored query in trec_eval order: score desc, then docid desc."""
    if not scores:
        return []
    order = _score_order(scores, qid)
    if isinstance(order, list):
        return order
    docs = list(scores)
    return [docs[i] for i in order.tolist()]


def _ranked_grades(
    value: Ranking, qr: Mapping[str, float], depth: int, missing: float, qid: str
) -> tuple[np.ndarray, int]:
    """Grades (``missing`` for unjudged docs) of the top ``depth`` ranks, and the full length.

    For scored queries the grades are looked up in dict order and permuted, which avoids
    materialising a sorted docid list (the costly part at 10^7 documents).
    """
    if isinstance(value, Mapping):
        if not value:
            return np.empty(0), 0
        order = _score_order(value, qid)
        if isinstance(order, list):
            top = order[:depth]
            return np.fromiter(map(qr.get, top, repeat(missing)), np.float64, len(top)), len(order)
        row = np.fromiter(map(qr.get, value, repeat(missing)), np.float64, len(value))
        return row[order[:depth]], len(value)
    if isinstance(value, str):
        raise InputError(f"query {qid!r}: the ranking is a string, expected a list of docids")
    ranking = value if isinstance(value, list) else list(value)
    if len(set(ranking)) != len(ranking):
        ranking = list(dict.fromkeys(ranking))  # keep each docid's first rank
    top = ranking[:depth]
    return np.fromiter(map(qr.get, top, repeat(missing)), np.float64, len(top)), len(ranking)


def _needed_depth(specs: Sequence[MetricSpec], longest: int) -> int:
    """How many ranks must be looked up: the largest cut-off, or everything."""
    depth = 0
    for s in specs:
        if s.k is not None:
            depth = max(depth, s.k)
        elif s.pct is not None:
            depth = max(depth, int(s.pct / 100.0 * longest))
        else:
            return longest
    return min(depth, longest)


def evaluate(
    qrels: Qrels,
    run: Run,
    metrics: Sequence[str | MetricSpec] | str,
    *,
    relevance_threshold: float = 1.0,
    on_unknown: Literal["error", "ignore"] = "error",
    table: Mapping[str, MetricFamily] = IR_METRICS,
    progress: Progress | None = None,
) -> EvalResult:
    """Compute ``metrics`` for every query of ``qrels``; see the module docstring for rules.

    ``progress(done, total)`` is called after each chunk of :data:`CHUNK` queries.
    Inputs are never modified.
    """
    specs = parse_metrics(metrics, table)
    if not relevance_threshold > 0:
        raise InputError(
            f"relevance threshold must be > 0 (got {relevance_threshold}); "
            "unjudged documents have grade 0 and would count as relevant"
        )
    if not qrels:
        raise InputError("the qrels hold no query")
    unknown = [q for q in run if q not in qrels]
    if unknown:
        shown = ", ".join(repr(q) for q in unknown[:5])
        if on_unknown == "error":
            raise InputError(
                f"{len(unknown)} run quer{'y' if len(unknown) == 1 else 'ies'} not in the "
                f"qrels: {shown}{' …' if len(unknown) > 5 else ''} (on_unknown='ignore' "
                "drops them)"
            )
        log.warning("ignoring %d run queries not in the qrels: %s", len(unknown), shown)

    qids = list(qrels)
    need_judged = any(s.family == "MRRmax@k" for s in specs)
    per_metric = {s.name: np.empty(len(qids)) for s in specs}
    for start in range(0, len(qids), CHUNK):
        chunk = qids[start : start + CHUNK]
        batch = _build_batch(chunk, qrels, run, specs, relevance_threshold, need_judged)
        for s in specs:
            per_metric[s.name][start : start + len(chunk)] = table[s.family].kernel(batch, s)
        if progress is not None:
            progress(min(start + CHUNK, len(qids)), len(qids))

    aggregate = {name: float(vals.mean()) for name, vals in per_metric.items()}
    columns = {name: vals.tolist() for name, vals in per_metric.items()}
    per_query = {qid: {name: columns[name][i] for name in columns} for i, qid in enumerate(qids)}
    return EvalResult(aggregate, per_query, {name: len(qids) for name in per_metric})


def ndcg(
    qrels: Qrels, run: Run, k: int | None = None, *, gain: Gain = "linear"
) -> dict[str, float]:
    """Per-query nDCG (at ``k``, or over whole rankings) with linear or exponential gain.

    ``gain="linear"`` uses the grade (trec_eval ``ndcg_cut``, ranx ``ndcg``); ``"exp"`` uses
    ``2**grade - 1`` (Burges et al.; ranx ``ndcg_burges``). A convenience over
    :func:`evaluate`, which computes both in one pass as ``nDCG@k`` / ``nDCGexp@k``.
    """
    if gain not in ("linear", "exp"):
        raise InputError(f"unknown nDCG gain {gain!r}; choose 'linear' or 'exp'")
    name = ("nDCG" if gain == "linear" else "nDCGexp") + ("" if k is None else f"@{k}")
    result = evaluate(qrels, run, [name])
    return {qid: vals[name] for qid, vals in result.per_query.items()}


def _build_batch(
    qids: Sequence[str],
    qrels: Qrels,
    run: Run,
    specs: Sequence[MetricSpec],
    threshold: float,
    need_judged: bool,
) -> _Batch:
    qrel_grades: list[np.ndarray] = []
    for qid in qids:
        qr = qrels[qid]
        try:
            g = np.fromiter(qr.values(), dtype=np.float64, count=len(qr))
        except (TypeError, ValueError) as err:
            raise InputError(f"qrels of query {qid!r}: a grade is not a number ({err})") from err
        if not np.isfinite(g).all():
            raise InputError(f"qrels of query {qid!r}: a grade is NaN or infinite")
        g[::-1].sort()  # descending, in place (validated before any lookup)
        qrel_grades.append(g)
    missing = math.nan if need_judged else 0.0
    rows: list[np.ndarray] = []
    lengths = np.zeros(len(qids), dtype=np.int64)
    # depth to look up: the largest k, unless a metric needs whole rankings or a percentage
    cut_offs = [s.k for s in specs if s.k is not None]
    depth = max(cut_offs) if len(cut_offs) == len(specs) else sys.maxsize
    for i, qid in enumerate(qids):
        value = run.get(qid)
        if value is None:
            rows.append(np.empty(0))
            continue
        row, lengths[i] = _ranked_grades(value, qrels[qid], depth, missing, qid)
        rows.append(row)
    longest = int(lengths.max(initial=0))
    width = _needed_depth(specs, longest)
    grades = np.full((len(qids), width), missing)  # NaN padding = unjudged when needed
    for i, row in enumerate(rows):
        row = row[:width]
        grades[i, : len(row)] = row
    judged = None
    if need_judged:
        judged = ~np.isnan(grades)
        grades = np.nan_to_num(grades, nan=0.0)
    return _Batch(qids, grades, judged, lengths, qrel_grades, threshold)

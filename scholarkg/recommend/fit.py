"""The recommender's fusion, fitted on the user's own graph and kept with its version.

Every loaded work with text and references is a training pair the graph already holds: its
title and abstract are a query, its references the works to find. :func:`fit_recommender`
takes up to ``n_queries`` of them (a deterministic sample: the works whose id hashes
lowest), asks each with the work itself left out (``exclude``: no graph input may read the
very citations being predicted, nor the work's own place in the graph) and chooses the
fusion of the inputs that maximises nDCG@10 over them, with
:func:`~scholarkg.benchmark.rankers.fusion.fit_fusion` (RRF constants and CombSUM weight
vectors; ties go to RRF k = 60 of every input, the unfitted default). Its record — the
choice, the scores of the baselines on the same queries, the graph version — is JSON in the
graph's cache folder; a different graph version means a refit.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from scholarkg.benchmark.rankers.base import Ranking
from scholarkg.errors import InputError
from scholarkg.recommend.fusion import Fusion
from scholarkg.textio import atomic_write_text

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from scholarkg.recommend.signals import ProjectionSignals, ServerSignals, SignalResult
    from scholarkg.recommend.text import TextSearch
    from scholarkg.store.base import GraphStore


class _Row(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def score(self) -> float: ...


class _Answer(Protocol):
    @property
    def rows(self) -> Sequence[_Row]: ...


class Recommender(Protocol):
    """What the fit asks of :class:`scholarkg.recommend.model.Recommender` (a protocol, so
    the model, which calls the fit, and the fit do not import each other)."""

    store: GraphStore
    version: str
    text: TextSearch
    client: ProjectionSignals
    server: ServerSignals | None

    def available(self, *, exclude: bool = False) -> tuple[str, ...]: ...

    def inputs(
        self,
        text: str,
        *,
        vector: np.ndarray | None = None,
        exclude: Iterable[str] = (),
        wanted: Iterable[str] | None = None,
    ) -> tuple[dict[str, Ranking], SignalResult]: ...

    def suggest(
        self,
        text: str,
        k: int = 10,
        *,
        exclude: Iterable[str] = (),
        method: str = "fused",
        vector: np.ndarray | None = None,
        cards: bool = True,
    ) -> _Answer: ...


FORMAT = "scholarkg-recommend-fit"
FORMAT_VERSION = 1
FIT_FILE = "fit.json"
#: the fewest references (in the graph) a training work must have
MIN_REFS = 2
METRIC = "nDCG@10"

__all__ = ["FitRecord", "fit_recommender", "load_fit", "save_fit", "training_works"]


@dataclass
class FitRecord:
    """What a fit chose and how it scored on the graph's own works."""

    version: str
    fusion: Fusion
    n_queries: int
    score: float
    baselines: dict[str, float] = field(default_factory=dict)
    inputs: tuple[str, ...] = ()
    seconds: float = 0.0
    created: str = ""

    def better_baseline(self) -> tuple[str, float] | None:
        """The baseline method that scored above the fitted fusion on the same works, and
        its score (the best one), if any: ``suggest`` then ranks by it. Why: the fusion's
        search covers RRF constants and CombSUM weights of the inputs, not the baselines'
        own ways of ranking; on a graph where text-then-references is better (a review saw
        nDCG@10 0.547 against the fusion's 0.497) the default was the worse ranking."""
        best = max(self.baselines.items(), key=lambda kv: kv[1], default=None)
        return best if best is not None and best[1] > self.score else None

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "version": self.version,
            "fusion": self.fusion.as_dict(),
            "metric": METRIC,
            "n_queries": self.n_queries,
            "score": round(self.score, 6),
            "baselines": {k: round(v, 6) for k, v in self.baselines.items()},
            "inputs": list(self.inputs),
            "seconds": round(self.seconds, 2),
            "created": self.created,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FitRecord:
        return cls(
            version=str(d["version"]),
            fusion=Fusion.from_dict(d["fusion"]),
            n_queries=int(d["n_queries"]),
            score=float(d["score"]),
            baselines={str(k): float(v) for k, v in (d.get("baselines") or {}).items()},
            inputs=tuple(d.get("inputs") or ()),
            seconds=float(d.get("seconds") or 0.0),
            created=str(d.get("created") or ""),
        )

    def summary(self) -> str:
        base = ", ".join(f"{k} {v:.3f}" for k, v in self.baselines.items())
        return (
            f"fusion fitted on {self.n_queries} of this graph's works (each asked for its own "
            f"references, itself left out): {METRIC} {self.score:.3f}"
            + (f" against {base}" if base else "")
            + f"; {self.fusion.describe()}"
        )


def save_fit(cache: Path, record: FitRecord) -> Path:
    cache.mkdir(parents=True, exist_ok=True)
    path = cache / FIT_FILE
    atomic_write_text(path, json.dumps(record.as_dict(), indent=2), fsync=False)
    return path


def load_fit(cache: Path, version: str) -> FitRecord | None:
    """The stored fit if it is of graph ``version`` (else None: refit)."""
    path = cache / FIT_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("format") != FORMAT or data.get("format_version") != FORMAT_VERSION:
        return None
    if data.get("version") != version:
        return None
    try:
        return FitRecord.from_dict(data)
    except (KeyError, TypeError, ValueError):
        return None


def _rank_key(work_id: str) -> str:
    return hashlib.sha256(work_id.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TrainingWork:
    id: str
    text: str
    refs: tuple[str, ...]


def _reference_lists(rec: Recommender, ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The distinct works each of ``ids`` cites: from the server where the graph inputs run
    there (nothing proportional to the graph crosses Bolt), else from the projection."""
    if rec.server is not None:
        rows = rec.store.run_named("recommend/work_references", {"ids": list(ids)})
        return {str(r["id"]): tuple(str(x) for x in r["refs"]) for r in rows}
    proj = rec.client.projection
    natural = proj.transition("natural")
    index = proj.index
    out: dict[str, tuple[str, ...]] = {}
    for wid in ids:
        pos = index.get(wid)
        if pos is not None:
            lo, hi = natural.indptr[pos], natural.indptr[pos + 1]
            out[wid] = tuple(proj.ids[j] for j in natural.indices[lo:hi])
    return out


def training_works(rec: Recommender, n: int) -> list[TrainingWork]:
    """Up to ``n`` loaded works with text and at least :data:`MIN_REFS` references, chosen by
    hash of their id (deterministic, spread over the graph)."""
    from scholarkg.recommend.text import work_text

    pool = sorted(rec.text.bm25().ids, key=_rank_key)
    chosen: list[TrainingWork] = []
    for lo in range(0, len(pool), 500):
        refs_of = _reference_lists(rec, pool[lo : lo + 500])
        batch = [w for w in pool[lo : lo + 500] if len(refs_of.get(w, ())) >= MIN_REFS]
        if not batch:
            continue
        rows = rec.store.run_named("recommend/work_texts", {"ids": batch})
        by_id = {str(r["id"]): r for r in rows}
        for wid in batch:
            r = by_id.get(wid)
            if r is None or r.get("stub"):
                continue
            text = work_text(r.get("title"), r.get("abstract"))
            if not text:
                continue
            chosen.append(TrainingWork(wid, text, refs_of[wid]))
            if len(chosen) >= n:
                return chosen
    return chosen


def _steps(n_inputs: int, budget: int = 500) -> int:
    """The finest simplex step (1/steps) whose weight vectors stay within ``budget``."""
    from math import comb

    steps = 10
    while steps > 2 and comb(n_inputs + steps - 1, steps) > budget:
        steps -= 1
    return steps


def fit_recommender(
    rec: Recommender,
    *,
    n_queries: int = 300,
    progress: Callable[[str, int, int | None], None] | None = None,
) -> FitRecord:
    """Fit ``rec``'s fusion on its graph (see the module doc); ``rec.fusion`` is not set."""
    from scholarkg.benchmark.metrics.ir import evaluate
    from scholarkg.benchmark.rankers.fusion import fit_fusion

    t0 = time.perf_counter()
    works = training_works(rec, n_queries)
    if not works:
        raise InputError(
            f"nothing to fit on: no work with text and at least {MIN_REFS} references in the "
            "graph (suggest --no-fit ranks with RRF of every input)",
            field="fit",
        )
    inputs = rec.available(exclude=True)
    vectors = rec.text.stored_vectors([w.id for w in works])
    parts: dict[str, list[Ranking]] = {}
    refs_only: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, float]] = {}
    for n, w in enumerate(works, 1):
        ranked, _ = rec.inputs(w.text, vector=vectors.get(w.id), exclude=[w.id], wanted=inputs)
        parts[w.id] = [ranked.get(name, Ranking([], [], name)) for name in inputs]
        qrels[w.id] = dict.fromkeys(w.refs, 1.0)
        base = rec.suggest(w.text, 10, exclude=[w.id], method="text-refs", cards=False,
                           vector=vectors.get(w.id))  # fmt: skip
        refs_only[w.id] = {r.id: r.score for r in base.rows}
        if progress is not None:
            progress("fitting on the graph's own works", n, len(works))
    pair = [i for i, name in enumerate(inputs) if name in ("bm25", "dense")]
    rrf_sets = [list(range(len(inputs)))]
    if len(pair) == 2:
        rrf_sets.append(pair)
    fit = fit_fusion(
        parts, qrels, metric=METRIC, steps=_steps(len(inputs)), rrf_inputs=rrf_sets, depth=100
    )
    if fit.method == "combsum":
        fusion = Fusion("combsum", tuple(inputs), tuple(float(x) for x in fit.weights or ()), 60)
    else:
        used = tuple(inputs[i] for i in (fit.inputs or range(len(inputs))))
        fusion = Fusion("rrf", used, None, int(fit.k or 60))
    bm25_run = {q: p[0].as_dict() for q, p in parts.items()}
    baselines = {
        "bm25": float(evaluate(qrels, bm25_run, [METRIC], on_unknown="ignore").aggregate[METRIC]),
        "text-refs": float(
            evaluate(qrels, refs_only, [METRIC], on_unknown="ignore").aggregate[METRIC]
        ),
    }
    from datetime import UTC, datetime

    return FitRecord(
        version=rec.version,
        fusion=fusion,
        n_queries=len(works),
        score=float(fit.score),
        baselines=baselines,
        inputs=tuple(inputs),
        seconds=time.perf_counter() - t0,
        created=datetime.now(UTC).isoformat(timespec="seconds"),
    )

"""Text-generation metrics: ROUGE-1/2/L (with stemming) and BERTScore.

Used by AAAR-1.0 ExpDesign (ROUGE-1 / ROUGE-L of index-aligned explanations) and by
ReviewCritique (ROUGE-1/2/L and BERTScore of the explanations of correctly flagged segments).

ROUGE comes from Google's ``rouge-score`` package (``RougeScorer(..., use_stemmer=True)``,
F-measure), exactly what the released AAAR scripts call -- *not* the PyPI ``rouge`` package,
whose tokenisation and numbers differ.

BERTScore: we deliberately do not re-implement it. Matching the published tool needs its exact
layer choice per model, tokenisation, idf weighting and baseline rescaling, and ReviewCritique
does not even publish which model it used, so a home-made variant would look comparable while
not being so. :func:`bertscore` therefore delegates to the ``bert-score`` package when it is
installed (with a local model directory, offline) and otherwise raises ``NotSupported`` naming
the package to install.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from scholarkg.benchmark.metrics._common import check_paired_lists
from scholarkg.errors import InputError, NotSupported

if TYPE_CHECKING:
    from rouge_score.rouge_scorer import RougeScorer

log = logging.getLogger(__name__)

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL")


@dataclass(frozen=True)
class RougeScores:
    """Mean F-measure per ROUGE type, and the per-item values behind each mean."""

    means: dict[str, float]
    per_item: dict[str, list[float]] = field(default_factory=dict)


@lru_cache(maxsize=8)
def _scorer(types: tuple[str, ...], use_stemmer: bool) -> RougeScorer:
    try:
        from rouge_score import rouge_scorer
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise NotSupported(
            "ROUGE needs the 'eval' extra: pip install 'scholarkg[eval]' (rouge-score)"
        ) from exc
    return rouge_scorer.RougeScorer(list(types), use_stemmer=use_stemmer)


def _check_types(types: Sequence[str]) -> tuple[str, ...]:
    types = tuple(types)
    if not types:
        raise InputError("no ROUGE types requested", field="types")
    for t in types:
        if t not in ROUGE_TYPES and t != "rougeLsum":
            raise InputError(
                f"unknown ROUGE type {t!r}; use one of {', '.join(ROUGE_TYPES)}", field="types"
            )
    return types


def rouge_pair(
    prediction: str,
    reference: str,
    types: Sequence[str] = ROUGE_TYPES,
    *,
    use_stemmer: bool = True,
) -> dict[str, float]:
    """ROUGE F-measures of one (prediction, reference) pair."""
    types = _check_types(types)
    scores = _scorer(types, use_stemmer).score(reference, prediction)
    return {t: float(scores[t].fmeasure) for t in types}


def rouge(
    predictions: Sequence[str],
    references: Sequence[str],
    types: Sequence[str] = ROUGE_TYPES,
    *,
    use_stemmer: bool = True,
) -> RougeScores:
    """Mean ROUGE F-measures over index-aligned (prediction, reference) pairs.

    Zero pairs give means of 0.0 (an explanation set with nothing to score contributes nothing
    to compare), never NaN.
    """
    types = _check_types(types)
    if len(predictions) != len(references):
        raise InputError(
            f"{len(predictions)} predictions but {len(references)} references",
            field="predictions",
        )
    per_item: dict[str, list[float]] = {t: [] for t in types}
    for k, (pred, ref) in enumerate(zip(predictions, references, strict=True)):
        if not isinstance(pred, str) or not isinstance(ref, str):
            raise InputError(
                f"pair {k}: prediction and reference must be strings", field="predictions"
            )
        for t, v in rouge_pair(pred, ref, types, use_stemmer=use_stemmer).items():
            per_item[t].append(v)
    means = {t: float(np.mean(v)) if v else 0.0 for t, v in per_item.items()}
    return RougeScores(means, per_item)


def aligned_list_rouge(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    types: Sequence[str] = ("rouge1", "rougeL"),
) -> RougeScores:
    """AAAR ExpDesign ROUGE: per paper, index-aligned items, then the mean over papers.

    Per paper the longer list is cut to the shorter (released ``rouge_score``), the item scores
    are averaged, and an empty prediction list scores 0. ``per_item`` here holds the per-paper
    values. Gold items keep their ``"1. "`` prefixes as in the released data.
    """
    types = _check_types(types)
    check_paired_lists(predictions, references)
    per_paper: dict[str, list[float]] = {t: [] for t in types}
    for pred, gold in zip(predictions, references, strict=True):
        k = min(len(pred), len(gold))
        if k == 0:
            for t in types:
                per_paper[t].append(0.0)
            continue
        scores = rouge(list(pred[:k]), list(gold[:k]), types)
        for t in types:
            per_paper[t].append(scores.means[t])
    return RougeScores({t: float(np.mean(v)) for t, v in per_paper.items()}, per_paper)


@dataclass(frozen=True)
class BertScore:
    """Mean BERTScore precision / recall / F1 and the per-pair F1 values."""

    precision: float
    recall: float
    f1: float
    per_item_f1: list[float]
    model: str
    num_layers: int


def bertscore(
    predictions: Sequence[str],
    references: Sequence[str],
    *,
    model_dir: str | Path,
    num_layers: int,
    batch_size: int = 16,
    device: str = "cpu",
) -> BertScore:
    """BERTScore of aligned pairs with a *local* model directory, via the ``bert-score`` package.

    ``num_layers`` must be given because ``bert-score`` only knows default layers for hub model
    names, not for local directories. No idf weighting and no baseline rescaling (their
    defaults). Raises :class:`NotSupported` when ``bert-score`` is not installed.
    """
    try:
        import bert_score
    except ImportError as exc:
        raise NotSupported(
            "BERTScore needs the 'bert-score' package (pip install 'bert-score>=0.3.13'); "
            "it is not part of the default install"
        ) from exc
    if len(predictions) != len(references):
        raise InputError(
            f"{len(predictions)} predictions but {len(references)} references",
            field="predictions",
        )
    path = Path(model_dir)
    if not path.is_dir():
        raise InputError("BERTScore model directory does not exist", path=path, field="model_dir")
    if not predictions:
        return BertScore(0.0, 0.0, 0.0, [], str(path), num_layers)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    p, r, f = bert_score.score(
        list(predictions),
        list(references),
        model_type=str(path),
        num_layers=num_layers,
        batch_size=batch_size,
        device=device,
    )
    return BertScore(
        float(p.mean()),
        float(r.mean()),
        float(f.mean()),
        [float(x) for x in f],
        str(path),
        num_layers,
    )

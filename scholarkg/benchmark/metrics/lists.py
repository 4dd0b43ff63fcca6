"""AAAR-1.0 semantic list metrics: S-P/S-R/S-F1, S-Match, SN-P/SN-R/SN-F1 and ITF-IDF.

These score a *list* of generated items (experiments, weaknesses) against gold lists by
embedding similarity, following the released scripts (``RenzeLou/AAAR-1.0``,
``scripts/calculate_metrics_src.py`` and ``subtask3_metric_cross_diversity.py``), which
produced the published v1 numbers. Where the paper's prose differs, the code wins; the
differences are noted per function. All values are on a 0-1 scale (the paper prints x100).

Rules kept from the released code (``RenzeLou/AAAR-1.0:scripts/subtask2_metric.py``,
``subtask3_metric.py``):

* cosine similarity, **unclipped** (negative cosines pass through);
* F1 is computed **per paper** as ``2PR/(P+R+1e-10)`` and then averaged over papers, so the
  corpus F1 is *not* the harmonic mean of the corpus P and R;
* an empty prediction list scores 0 (P, R and F1) but stays in the denominator;
* item strings are compared as given -- numbering prefixes such as ``"1. "`` are part of them.

ExpDesign's ROUGE-1/ROUGE-L of aligned explanations is
:func:`scholarkg.benchmark.metrics.generation.aligned_list_rouge`.

Similarity is pluggable through :class:`~scholarkg.benchmark.metrics.similarity.Encoder`;
every distinct text is embedded once per call (:class:`EmbeddingTable`).
"""

from __future__ import annotations

import logging
import math
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from scholarkg.benchmark.metrics._common import check_paired_lists
from scholarkg.benchmark.metrics.similarity import EmbeddingTable, Encoder, Progress
from scholarkg.errors import InputError

log = logging.getLogger(__name__)

#: denominator guard used by the released scripts in every F1
F1_EPS = 1e-10
#: ITF-IDF similarity threshold (``--threshold`` default in the released script)
ITF_IDF_THRESHOLD = 0.5
#: placeholder the released script substitutes for an empty weakness list
EMPTY_LIST_PLACEHOLDER = "None"

_ITEM_RE = re.compile(r"\d+\..*")


@dataclass(frozen=True)
class PRF:
    """Precision, recall and F1 of one unit (paper, review...)."""

    precision: float
    recall: float
    f1: float


@dataclass(frozen=True)
class ListScores:
    """Corpus scores: each field is the mean over papers of the per-paper value (macro)."""

    precision: float
    recall: float
    f1: float
    per_paper: list[PRF] = field(default_factory=list)


@dataclass(frozen=True)
class MeanScore:
    """A corpus mean over papers plus the per-paper values it came from."""

    value: float
    per_paper: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class ItfIdfResult:
    """ITF-IDF of one run: ``score`` = mean over papers of the mean item score.

    ``per_item[j][i]`` is the score of item ``i`` of paper ``j`` (after the empty-list
    placeholder substitution), useful to show a paper's most distinctive items.
    """

    score: float
    per_paper: list[float]
    per_item: list[list[float]]


def f1_score(precision: float, recall: float) -> float:
    """``2PR/(P+R+1e-10)``, the released scripts' F1 (0 when both are 0)."""
    return 2 * precision * recall / (precision + recall + F1_EPS)


def parse_numbered_list(reply: str, *, open_model: bool = False) -> list[str]:
    """Items of a model's numbered-list reply, as the released AAAR scripts extract them.

    Every match of ``\\d+\\..*`` on each line of the stripped reply is an item (its number prefix
    kept; a continuation line without a number is lost; a mid-line ``v2.0`` starts an item; bare
    bullets are lost). No match: closed-model scripts return ``[]``, open-model scripts
    ``["1. " + reply]`` -- pick with ``open_model``.
    """
    text = reply.strip()
    items = _ITEM_RE.findall(text)
    if not items and open_model:
        return ["1. " + text]
    return items


def _check_lists(name: str, lists: Sequence[Sequence[str]], *, ids: Sequence[str] | None) -> None:
    for j, items in enumerate(lists):
        if isinstance(items, str) or not isinstance(items, Sequence):
            raise InputError(
                f"paper {_label(ids, j)}: expected a list of strings, got {type(items).__name__}",
                field=name,
            )
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise InputError(
                    f"paper {_label(ids, j)}, item {i}: expected a string, "
                    f"got {type(item).__name__}",
                    field=name,
                )


def _label(ids: Sequence[str] | None, j: int) -> str:
    return repr(ids[j]) if ids is not None and j < len(ids) else f"#{j}"


def soft_prf(sim: np.ndarray) -> PRF:
    """S-P/S-R/S-F1 of one paper from its ``n_pred x n_gold`` similarity matrix.

    P = mean over predictions of their best gold match, R = mean over gold items of their best
    prediction match. No predictions -> all 0 (released rule); no gold items is undefined.
    """
    n, m = sim.shape
    if n == 0:
        return PRF(0.0, 0.0, 0.0)
    if m == 0:
        raise InputError("a paper has predictions but no gold items", field="references")
    precision = float(sim.max(axis=1).mean())
    recall = float(sim.max(axis=0).mean())
    return PRF(precision, recall, f1_score(precision, recall))


def _macro(per_paper: list[PRF]) -> ListScores:
    return ListScores(
        precision=float(np.mean([s.precision for s in per_paper])),
        recall=float(np.mean([s.recall for s in per_paper])),
        f1=float(np.mean([s.f1 for s in per_paper])),
        per_paper=per_paper,
    )


def s_scores(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    encoder: Encoder | None = None,
    ids: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> ListScores:
    """ExpDesign S-Precision / S-Recall / S-F1, per paper then averaged over papers.

    ``predictions[j]`` and ``references[j]`` are paper ``j``'s generated and gold experiment
    lists. ``progress(done, total)`` reports embedding batches.
    """
    check_paired_lists(predictions, references, ids)
    _check_lists("predictions", predictions, ids=ids)
    _check_lists("references", references, ids=ids)
    for j, (pred, gold) in enumerate(zip(predictions, references, strict=True)):
        if pred and not gold:
            raise InputError(f"paper {_label(ids, j)}: empty gold list", field="references")
    table = EmbeddingTable(
        (t for lst in (*predictions, *references) for t in lst), encoder, progress=progress
    )
    per_paper = [
        soft_prf(table.cosine(pred, gold))
        for pred, gold in zip(predictions, references, strict=True)
    ]
    return _macro(per_paper)


def s_match(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[str]],
    *,
    encoder: Encoder | None = None,
    ids: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> MeanScore:
    """ExpDesign S-Match: mean cosine of index-aligned (explanation, gold explanation) pairs.

    Per paper the longer list is cut to the shorter one (released ``soft_score``); an empty
    prediction list scores 0. Corpus value = mean over papers.
    """
    check_paired_lists(predictions, references, ids)
    _check_lists("predictions", predictions, ids=ids)
    _check_lists("references", references, ids=ids)
    table = EmbeddingTable(
        (t for lst in (*predictions, *references) for t in lst), encoder, progress=progress
    )
    per_paper: list[float] = []
    for pred, gold in zip(predictions, references, strict=True):
        k = min(len(pred), len(gold))
        if k == 0:
            per_paper.append(0.0)
            continue
        left, right = table.vectors(pred[:k]), table.vectors(gold[:k])
        per_paper.append(float(np.mean(np.sum(left * right, axis=1))))
    return MeanScore(float(np.mean(per_paper)), per_paper)


def soft_prf_multi(sims: Sequence[np.ndarray]) -> PRF:
    """SN-P/SN-R/SN-F1 of one paper from one ``n_pred x |G_k|`` matrix per non-empty reviewer.

    SN-P = mean over predictions of (mean over reviewers of the best match in that reviewer's
    list); SN-R = mean over reviewers of that reviewer's S-R. Empty prediction -> 0.
    """
    if not sims or sims[0].shape[0] == 0:
        return PRF(0.0, 0.0, 0.0)
    best_per_reviewer = np.stack([s.max(axis=1) for s in sims], axis=1)  # n_pred x K
    precision = float(best_per_reviewer.mean(axis=1).mean())
    recall = float(np.mean([s.max(axis=0).mean() for s in sims]))
    return PRF(precision, recall, f1_score(precision, recall))


def sn_scores(
    predictions: Sequence[Sequence[str]],
    references: Sequence[Sequence[Sequence[str]]],
    *,
    encoder: Encoder | None = None,
    ids: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> ListScores:
    """Weakness SN-Precision / SN-Recall / SN-F1 against several reviewers per paper.

    ``references[j]`` holds one weakness list per reviewer of paper ``j``. Reviewers with an
    empty list are skipped, so K counts non-empty lists (released ``soft_accumulate``). A paper
    with predictions but no non-empty reviewer list is undefined and rejected.
    """
    check_paired_lists(predictions, references, ids)
    _check_lists("predictions", predictions, ids=ids)
    for j, reviewers in enumerate(references):
        if isinstance(reviewers, str) or not isinstance(reviewers, Sequence):
            raise InputError(
                f"paper {_label(ids, j)}: expected a list of reviewer lists", field="references"
            )
        _check_lists("references", reviewers, ids=None)
        if predictions[j] and not any(reviewers):
            raise InputError(
                f"paper {_label(ids, j)}: every reviewer list is empty", field="references"
            )
    table = EmbeddingTable(
        [
            *(t for lst in predictions for t in lst),
            *(t for reviewers in references for lst in reviewers for t in lst),
        ],
        encoder,
        progress=progress,
    )
    per_paper: list[PRF] = []
    for pred, reviewers in zip(predictions, references, strict=True):
        sims = [table.cosine(pred, gold) for gold in reviewers if gold]
        per_paper.append(soft_prf_multi(sims))
    return _macro(per_paper)


def itf_idf(
    weakness_lists: Sequence[Sequence[str]],
    *,
    encoder: Encoder | None = None,
    threshold: float = ITF_IDF_THRESHOLD,
    decimals: int = 2,
    placeholder: str = EMPTY_LIST_PLACEHOLDER,
    ids: Sequence[str] | None = None,
    block_rows: int = 512,
    progress: Progress | None = None,
) -> ItfIdfResult:
    """Weakness diversity ITF-IDF over the W papers of one run (released v1 rule).

    For paper j with items w_1..w_n and s(x) = 0 if x < ``threshold`` else x:

    * O_i = sum over items i' of the same paper of s(sim(w_i, w_i')) -- self included, so
      O_i >= 1 and a one-item list scores 0;
    * R_i = 1 + sum over other papers j' of s(round(max_{w' in j'} sim(w_i, w'), 2)) -- the
      cross-paper maxima are rounded to ``decimals`` **before** thresholding;
    * score_i = ln(n / O_i) * ln(W / R_i); result = mean over papers of the mean item score.

    An empty list is replaced by ``[placeholder]`` (``"None"``), as released. Scores depend on
    W, so runs over different paper sets are not comparable. The paper's Eq. 6-8 has neither the
    threshold nor the rounding. Rounding uses ``numpy.round`` (half to even on the binary value).
    Cost: one ``block_rows x N`` similarity block at a time, N = total items.
    """
    if not weakness_lists:
        raise InputError("no papers to score", field="weakness_lists")
    if ids is not None and len(ids) != len(weakness_lists):
        raise InputError(f"{len(ids)} ids for {len(weakness_lists)} papers", field="ids")
    _check_lists("weakness_lists", weakness_lists, ids=ids)
    lists = [list(items) if items else [placeholder] for items in weakness_lists]
    n_papers = len(lists)
    sizes = np.array([len(items) for items in lists])
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    owner = np.repeat(np.arange(n_papers), sizes)
    flat = [t for items in lists for t in items]
    table = EmbeddingTable(flat, encoder)
    emb = table.vectors(flat)
    total = len(flat)

    def s(x: np.ndarray) -> np.ndarray:
        return np.where(x < threshold, 0.0, x)

    item_scores = np.empty(total)
    for start in range(0, total, block_rows):
        stop = min(start + block_rows, total)
        sim = emb[start:stop] @ emb.T  # rows: items in block, cols: all items
        cross_max = np.maximum.reduceat(sim, offsets, axis=1)  # rows x W
        cross = s(np.round(cross_max, decimals))
        rows = np.arange(stop - start)
        own = owner[start:stop]
        cross[rows, own] = 0.0
        r = 1.0 + cross.sum(axis=1)
        for k, i in enumerate(range(start, stop)):
            j = own[k]
            lo, hi = offsets[j], offsets[j] + sizes[j]
            o = float(s(sim[k, lo:hi]).sum())
            if o <= 0.0:
                raise InputError(
                    f"paper {_label(ids, int(j))}, item {i - lo}: self-similarity below the "
                    "threshold (the encoder returned a zero or non-normalised vector)",
                    field="encoder",
                )
            item_scores[i] = math.log(sizes[j] / o) * math.log(n_papers / r[k])
        if progress is not None:
            progress(stop, total)
    per_item = [item_scores[o : o + n].tolist() for o, n in zip(offsets, sizes, strict=True)]
    per_paper = [float(np.mean(scores)) for scores in per_item]
    return ItfIdfResult(float(np.mean(per_paper)), per_paper, per_item)


def pick_reviewer_list(
    reviewer_lists: Sequence[Sequence[str]],
    how: Literal["random", "longest", "all"],
    *,
    rng: random.Random | None = None,
) -> list[str]:
    """One gold weakness list per paper for a *human* ITF-IDF, as the released options do.

    ``random``: a random non-empty reviewer list (released default, seed 42 over the paper
    order; which option gave the published 7.69 is not stated); ``longest``: the longest list
    (first on ties); ``all``: every reviewer's items concatenated.
    """
    if how == "random":
        non_empty = [list(x) for x in reviewer_lists if x]
        if not non_empty:
            raise InputError("every reviewer list is empty", field="references")
        return (rng or random.Random(42)).choice(non_empty)
    if how == "longest":
        if not reviewer_lists:
            raise InputError("no reviewer lists", field="references")
        # the first of the longest, as ``max(..., key=len)``
        best = max(range(len(reviewer_lists)), key=lambda i: len(reviewer_lists[i]))
        return list(reviewer_lists[best])
    if how == "all":
        return [t for lst in reviewer_lists for t in lst]
    raise InputError(f"unknown reviewer selection {how!r}; use random, longest or all", field="how")

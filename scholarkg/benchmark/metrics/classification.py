"""Classification metrics: binary P/R/F1, ReviewCritique ensembles, EqInfer answer parsing.

* ReviewCritique (Du et al., EMNLP 2024): the positive class is a *deficient* review segment
  (``reliability == "No"``). Two prompts (label every segment / select the deficient ones) are
  combined as **Both No** (flag only if both prompts flag: intersection) or **Either No**
  (flag if one does: union). The paper's F1 is apparently averaged per review or per paper, not
  pooled (Claude Opus Either-No: harmonic(16.94, 42.12) = 24.16, reported 21.99), and the exact
  unit is unpublished -- so :func:`grouped_prf` offers ``micro`` (pooled) and ``macro`` (per unit,
  F1 per unit then averaged) and the caller names the unit.
* AAAR-1.0 EqInfer, v1 protocol (the published numbers): the reply is stripped, SQuAD-normalised
  (lower-case, ASCII punctuation deleted, whitespace collapsed; articles kept) and must equal
  the gold letter: ``A``, ``(A).``, ``**A**`` pass, ``Option A`` fails. The later per-option
  binary protocol is offered separately (:func:`eqinfer_binary_prf`); never mix the two.

All values are on a 0-1 scale. Undefined ratios (no predicted positives, no gold positives)
are 0, as in scikit-learn's ``zero_division=0``.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from scholarkg.errors import InputError

EQINFER_LETTERS = ("A", "B", "C", "D")
_PUNCT = set(string.punctuation)


@dataclass(frozen=True)
class Counts:
    """Confusion counts of the positive class."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.tp + other.tp, self.fp + other.fp, self.fn + other.fn, self.tn + other.tn
        )


@dataclass(frozen=True)
class ClassificationScores:
    """Precision, recall, F1 of the positive class, with the pooled counts behind them."""

    precision: float
    recall: float
    f1: float
    counts: Counts
    units: int = 1


def _ratio(num: float, den: float) -> float:
    return num / den if den else 0.0


def counts(gold: Sequence[bool], pred: Sequence[bool]) -> Counts:
    """Confusion counts of ``pred`` against ``gold`` (True = positive class)."""
    if len(gold) != len(pred):
        raise InputError(f"{len(gold)} gold labels but {len(pred)} predictions", field="pred")
    tp = fp = fn = tn = 0
    for g, p in zip(gold, pred, strict=True):
        if p and g:
            tp += 1
        elif p:
            fp += 1
        elif g:
            fn += 1
        else:
            tn += 1
    return Counts(tp, fp, fn, tn)


def scores_from_counts(c: Counts) -> ClassificationScores:
    """P = tp/(tp+fp), R = tp/(tp+fn), F1 = 2PR/(P+R); 0 where undefined."""
    p = _ratio(c.tp, c.tp + c.fp)
    r = _ratio(c.tp, c.tp + c.fn)
    return ClassificationScores(p, r, _ratio(2 * p * r, p + r), c)


def binary_prf(gold: Sequence[bool], pred: Sequence[bool]) -> ClassificationScores:
    """Pooled precision / recall / F1 of the positive class."""
    return scores_from_counts(counts(gold, pred))


def grouped_prf(
    units: Sequence[tuple[Sequence[bool], Sequence[bool]]],
    average: Literal["micro", "macro"] = "micro",
) -> ClassificationScores:
    """P/R/F1 over several units (reviews, papers), each given as ``(gold, pred)``.

    ``micro`` pools the counts of all units. ``macro`` computes P, R and F1 per unit and averages
    each (so F1 is not the harmonic mean of the averaged P and R); a unit with no gold and no
    predicted positives contributes 0 to each, following scikit-learn's zero-division rule.
    """
    if not units:
        raise InputError("no units to score", field="units")
    per_unit = [counts(g, p) for g, p in units]
    total = sum(per_unit, Counts())
    if average == "micro":
        return replace(scores_from_counts(total), units=len(units))
    if average != "macro":
        raise InputError(f"unknown average {average!r}; use micro or macro", field="average")
    each = [scores_from_counts(c) for c in per_unit]
    n = len(each)
    return ClassificationScores(
        sum(s.precision for s in each) / n,
        sum(s.recall for s in each) / n,
        sum(s.f1 for s in each) / n,
        total,
        n,
    )


# --- ReviewCritique -------------------------------------------------------------------------


def _flag_pairs(
    label_all: Sequence[bool], select_deficient: Sequence[bool]
) -> zip[tuple[bool, bool]]:
    """The two prompts' flags side by side; they must cover the same segments."""
    if len(label_all) != len(select_deficient):
        raise InputError(
            f"{len(label_all)} label-all flags but {len(select_deficient)} select flags",
            field="select_deficient",
        )
    return zip(label_all, select_deficient, strict=True)


def both_no(label_all: Sequence[bool], select_deficient: Sequence[bool]) -> list[bool]:
    """Both-No ensemble: a segment is deficient only if both prompts flag it (intersection)."""
    return [bool(a) and bool(b) for a, b in _flag_pairs(label_all, select_deficient)]


def either_no(label_all: Sequence[bool], select_deficient: Sequence[bool]) -> list[bool]:
    """Either-No ensemble: a segment is deficient if either prompt flags it (union)."""
    return [bool(a) or bool(b) for a, b in _flag_pairs(label_all, select_deficient)]


def correctly_flagged(gold: Sequence[bool], pred: Sequence[bool]) -> list[int]:
    """Indices of true-positive segments: only their explanations are scored (ROUGE/BERTScore)."""
    if len(gold) != len(pred):
        raise InputError(f"{len(gold)} gold labels but {len(pred)} predictions", field="pred")
    return [i for i, (g, p) in enumerate(zip(gold, pred, strict=True)) if g and p]


# --- AAAR-1.0 EqInfer ------------------------------------------------------------------------


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalisation without article removal (released ``normalize_answer``)."""
    lowered = text.lower()
    no_punct = "".join(ch for ch in lowered if ch not in _PUNCT)
    return " ".join(no_punct.split())


def eqinfer_choice(reply: str) -> str | None:
    """The option letter a reply states, or ``None`` when it is not exactly one letter."""
    norm = normalize_answer(reply.strip())
    upper = norm.upper()
    return upper if upper in EQINFER_LETTERS else None


@dataclass(frozen=True)
class Accuracy:
    """``correct / total`` with the counts; ``unparsed`` replies count as wrong."""

    value: float
    correct: int
    total: int
    unparsed: int


def eqinfer_accuracy(replies: Sequence[str], answers: Sequence[str]) -> Accuracy:
    """EqInfer v1 accuracy: share of replies whose normalised text equals the gold letter."""
    if len(replies) != len(answers):
        raise InputError(f"{len(replies)} replies but {len(answers)} answers", field="replies")
    if not replies:
        raise InputError("no items to score", field="replies")
    correct = unparsed = 0
    for k, (reply, answer) in enumerate(zip(replies, answers, strict=True)):
        gold = answer.strip().upper() if isinstance(answer, str) else None
        if gold not in EQINFER_LETTERS:
            raise InputError(f"item {k}: answer must be one of A-D, got {answer!r}", field="answer")
        if not isinstance(reply, str):
            raise InputError(f"item {k}: reply must be a string", field="replies")
        choice = eqinfer_choice(reply)
        if choice is None:
            unparsed += 1
        elif choice == gold:
            correct += 1
    return Accuracy(correct / len(replies), correct, len(replies), unparsed)


def parse_binary_label(reply: str) -> int | None:
    """0/1 from a per-option reply of the later EqInfer protocol; ``None`` if unparseable."""
    norm = normalize_answer(reply.strip())
    return int(norm) if norm in ("0", "1") else None


def eqinfer_binary_prf(replies: Sequence[str], labels: Sequence[int]) -> ClassificationScores:
    """Later (non-published) EqInfer protocol: P/R/F1 of class 1 pooled over all options.

    One reply per (item, option); ``labels`` are the gold 0/1 (1 = the correct equation). An
    unparseable reply is scored as the wrong label, as in the released binary scripts; so
    always answering 1 gives F1 = 0.40 on 4-option items.
    """
    if len(replies) != len(labels):
        raise InputError(f"{len(replies)} replies but {len(labels)} labels", field="replies")
    gold: list[bool] = []
    pred: list[bool] = []
    for k, (reply, label) in enumerate(zip(replies, labels, strict=True)):
        if label not in (0, 1):
            raise InputError(f"option {k}: label must be 0 or 1, got {label!r}", field="labels")
        parsed = parse_binary_label(reply)
        guess = (1 - label) if parsed is None else parsed
        gold.append(label == 1)
        pred.append(guess == 1)
    return binary_prf(gold, pred)


def harmonic(p: float, r: float) -> float:
    """Harmonic mean, for checking whether a reported F1 is pooled (see the module docstring)."""
    return 0.0 if p + r == 0 or math.isnan(p + r) else 2 * p * r / (p + r)

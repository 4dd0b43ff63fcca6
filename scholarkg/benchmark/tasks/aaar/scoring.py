"""Scores of the four tasks, in percent as the papers print them; pure (no store, no model
loading beyond the encoder handed in).

Thin wiring over the tested metric functions (``metrics/lists.py``, ``classification.py``,
``generation.py``): this module only aligns answers with gold, decides what an absent answer
counts as (an empty list / "not deficient" / a wrong letter: 0, never dropped), and scales
fractions to percent. ITF-IDF keeps its own scale (a product of two logs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from scholarkg.benchmark.metrics.classification import (
    Counts,
    both_no,
    counts,
    either_no,
    eqinfer_choice,
    grouped_prf,
    scores_from_counts,
)
from scholarkg.benchmark.metrics.generation import aligned_list_rouge, bertscore, rouge
from scholarkg.benchmark.metrics.lists import itf_idf, s_match, s_scores, sn_scores
from scholarkg.benchmark.metrics.similarity import Encoder
from scholarkg.benchmark.results import TaskResult
from scholarkg.benchmark.task import scoring_progress
from scholarkg.errors import InputError

PCT = 100.0

Ensemble = Literal["label-all", "select-deficient", "both-no", "either-no"]
ENSEMBLES: tuple[str, ...] = ("either-no", "both-no", "label-all", "select-deficient")
Average = Literal["review", "paper", "micro"]
AVERAGES: tuple[str, ...] = ("review", "paper", "micro")


class CachedEncoder:
    """An encoder that remembers every text it embedded, so the metrics of one scoring call
    (SN-* and ITF-IDF share the prediction texts) embed each distinct text once."""

    def __init__(self, encoder: Encoder) -> None:
        self.inner = encoder
        self.name = str(getattr(encoder, "name", type(encoder).__name__))
        self._cache: dict[str, np.ndarray] = {}
        self.encoded = 0

    def prefetch(self, texts: Sequence[str], batch_size: int = 128) -> None:
        """Embed every new text up front, shortest first, in batches of similar length: less
        padding than the metrics' insertion-order batches (same vectors up to ~1e-7). Ties
        are broken by the text, so the batches do not depend on the order of the papers: a
        run and a rescore of its predictions file give bit-identical scores."""
        todo = sorted(
            (t for t in dict.fromkeys(texts) if t not in self._cache), key=lambda t: (len(t), t)
        )
        progress = scoring_progress()  # the scored run's bar: minutes on two cores
        for start in range(0, len(todo), batch_size):
            self.encode(todo[start : start + batch_size])
            if progress is not None:
                progress("score: encode", min(start + batch_size, len(todo)), len(todo))

    def encode(self, texts: list[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if todo:
            rows = np.asarray(self.inner.encode(todo), dtype=np.float64)
            self._cache.update(zip(todo, rows, strict=True))
            self.encoded += len(todo)
        if not texts:
            return np.zeros((0, 0))
        return np.vstack([self._cache[t] for t in texts])


def _pct(value: float | None) -> float | None:
    return None if value is None else PCT * value


# --------------------------------------------------------------------------- EqInfer


def score_eqinfer(gold: Mapping[str, str], replies: Mapping[str, str | None]) -> TaskResult:
    """Accuracy (v1 protocol): the normalised reply must equal the gold letter; an item with no
    reply or an unparseable one is wrong and stays in the denominator."""
    per: dict[str, dict[str, float | None]] = {}
    correct = unparsed = 0
    for iid, answer in gold.items():
        reply = replies.get(iid)
        choice = eqinfer_choice(reply) if isinstance(reply, str) else None
        ok = choice == answer
        unparsed += choice is None
        correct += ok
        per[iid] = {"accuracy": PCT if ok else 0.0}
    n = len(gold)
    return TaskResult(
        aggregate={"accuracy": PCT * correct / n if n else None},
        per_instance=per,
        n={"accuracy": n, "correct": correct, "unparsed": unparsed,
           "answered": sum(replies.get(i) is not None for i in gold)},
    )  # fmt: skip


# --------------------------------------------------------------------------- ExpDesign


def score_expdesign(
    ids: Sequence[str],
    gold_experiments: Sequence[Sequence[str]],
    gold_explanations: Sequence[Sequence[str]],
    pred_experiments: Sequence[Sequence[str] | None],
    pred_explanations: Sequence[Sequence[str] | None],
    *,
    encoder: Encoder | None = None,
) -> TaskResult:
    """S-P/S-R/S-F1 of the experiment lists; S-Match, ROUGE-L, ROUGE-1 of the (oracle)
    explanation lists. A paper without an answer scores 0. When no paper has explanations
    (an experiments-only run), the explanation metrics are left out."""
    exps = [list(p or []) for p in pred_experiments]
    per: dict[str, dict[str, float | None]] = {i: {} for i in ids}
    aggregate: dict[str, float | None] = {}
    s = s_scores(exps, gold_experiments, encoder=encoder, ids=ids)
    aggregate.update({"S-P": _pct(s.precision), "S-R": _pct(s.recall), "S-F1": _pct(s.f1)})
    for i, prf in zip(ids, s.per_paper, strict=True):
        per[i].update({"S-P": PCT * prf.precision, "S-R": PCT * prf.recall,
                       "S-F1": PCT * prf.f1})  # fmt: skip
    if any(w is not None for w in pred_explanations):
        whys = [list(w or []) for w in pred_explanations]
        m = s_match(whys, gold_explanations, encoder=encoder, ids=ids)
        r = aligned_list_rouge(whys, gold_explanations, ("rougeL", "rouge1"))
        aggregate.update({"S-Match": _pct(m.value), "ROUGE-L": _pct(r.means["rougeL"]),
                          "ROUGE-1": _pct(r.means["rouge1"])})  # fmt: skip
        for k, i in enumerate(ids):
            per[i].update({"S-Match": PCT * m.per_paper[k],
                           "ROUGE-L": PCT * r.per_item["rougeL"][k],
                           "ROUGE-1": PCT * r.per_item["rouge1"][k]})  # fmt: skip
    return TaskResult(aggregate=aggregate, per_instance=per, n={"papers": len(ids)})


# --------------------------------------------------------------------------- Weakness


def score_weakness(
    ids: Sequence[str],
    gold_reviewers: Sequence[Sequence[Sequence[str]]],
    predictions: Sequence[Sequence[str] | None],
    *,
    encoder: Encoder | None = None,
    itf_encoder: Encoder | None = None,
) -> TaskResult:
    """SN-P/SN-R/SN-F1 per paper (macro) and ITF-IDF over the W papers of this run.

    Papers whose reviewer lists are all empty have no SN score (undefined: K = 0) and are left
    out of the SN means; they still count in ITF-IDF's W. A missing answer is an empty list:
    SN 0, and the ``"None"`` placeholder in ITF-IDF, as released.
    """
    preds = [list(p or []) for p in predictions]
    if encoder is not None and (itf_encoder is None or itf_encoder is encoder):
        cached = CachedEncoder(encoder)
        cached.prefetch([t for p in preds for t in p] + [t for g in gold_reviewers for r in g
                                                         for t in r])  # fmt: skip
        encoder = itf_encoder = cached
    keep = [k for k, g in enumerate(gold_reviewers) if any(g)]
    per: dict[str, dict[str, float | None]] = {i: {} for i in ids}
    aggregate: dict[str, float | None] = {"SN-P": None, "SN-R": None, "SN-F1": None}
    if keep:
        sn = sn_scores([preds[k] for k in keep], [gold_reviewers[k] for k in keep],
                       encoder=encoder, ids=[ids[k] for k in keep])  # fmt: skip
        aggregate = {"SN-P": PCT * sn.precision, "SN-R": PCT * sn.recall, "SN-F1": PCT * sn.f1}
        for k, prf in zip(keep, sn.per_paper, strict=True):
            per[ids[k]].update({"SN-P": PCT * prf.precision, "SN-R": PCT * prf.recall,
                                "SN-F1": PCT * prf.f1})  # fmt: skip
    diversity = itf_idf(preds, encoder=itf_encoder if itf_encoder is not None else encoder,
                        ids=list(ids))  # fmt: skip
    aggregate["ITF-IDF"] = diversity.score
    for i, v in zip(ids, diversity.per_paper, strict=True):
        per[i]["ITF-IDF"] = v
    return TaskResult(aggregate=aggregate, per_instance=per,
                      n={"papers": len(ids), "sn_papers": len(keep)})  # fmt: skip


def human_itf_idf(
    gold_reviewers: Sequence[Sequence[Sequence[str]]],
    how: Literal["random", "longest", "all"] = "random",
    *,
    encoder: Encoder | None = None,
) -> float:
    """ITF-IDF of the human reviews (one list per paper by the released selection options);
    the paper's 7.69 does not say which selection it used."""
    import random

    from scholarkg.benchmark.metrics.lists import pick_reviewer_list

    rng = random.Random(42)
    lists = [pick_reviewer_list(g, how, rng=rng) if any(g) else [] for g in gold_reviewers]
    return itf_idf(lists, encoder=encoder).score


# --------------------------------------------------------------------------- ReviewCritique


@dataclass(frozen=True)
class GoldReview:
    """One review's gold: the paper and review key, flags and explanations per segment."""

    paper: str
    review: str
    deficient: list[bool]
    explanations: list[str | None]


@dataclass(frozen=True)
class PredictedReview:
    deficient: list[bool]
    explanations: list[str | None] | None = None


def combine(
    ensemble: Ensemble, label_all: list[bool] | None, select: list[bool] | None
) -> list[bool]:
    """The flags of one prompt, or the Both-No / Either-No ensemble of the two prompts."""
    need = {"label-all": ("label_all",), "select-deficient": ("select_deficient",)}.get(
        ensemble, ("label_all", "select_deficient")
    )
    given = {"label_all": label_all, "select_deficient": select}
    for name in need:
        if given[name] is None:
            raise InputError(f"the {ensemble} scores need {name} flags", field=name)
    if ensemble == "label-all":
        return list(label_all or [])
    if ensemble == "select-deficient":
        return list(select or [])
    assert label_all is not None and select is not None
    return both_no(label_all, select) if ensemble == "both-no" else either_no(label_all, select)


def score_reviewcritique(
    gold: Sequence[GoldReview],
    predictions: Mapping[tuple[str, str], PredictedReview],
    *,
    average: Average = "review",
    bertscore_model: str | None = None,
    bertscore_layers: int = 9,
) -> TaskResult:
    """P/R/F1 of the *deficient* class, and ROUGE-1/2/L (+ BERTScore) of the explanations of
    correctly flagged segments (true positives whose gold explanation is given).

    ``average``: ``review`` (P, R, F1 per review, then the mean: the paper's F1 is not the
    harmonic mean of its P and R, so it is averaged per unit; which unit is unpublished),
    ``paper`` (segments of a paper pooled, then the mean over papers) or ``micro`` (pooled).
    A review without a prediction flags nothing.
    """
    units: dict[str, list[tuple[list[bool], list[bool]]]] = {}
    per_paper_units: dict[str, list[tuple[list[bool], list[bool]]]] = {}
    pred_texts: list[str] = []
    ref_texts: list[str] = []
    for g in gold:
        pred = predictions.get((g.paper, g.review))
        flags = list(pred.deficient) if pred is not None else [False] * len(g.deficient)
        if len(flags) != len(g.deficient):
            raise InputError(
                f"review {g.review!r} of paper {g.paper!r}: {len(flags)} predicted flags for "
                f"{len(g.deficient)} segments",
                field="deficient",
            )
        units[f"{g.paper}#{g.review}"] = [(g.deficient, flags)]
        per_paper_units.setdefault(g.paper, []).append((g.deficient, flags))
        expl = pred.explanations if pred is not None else None
        for k, (gd, pd) in enumerate(zip(g.deficient, flags, strict=True)):
            if not (gd and pd):
                continue
            ref = g.explanations[k]
            hyp = expl[k] if expl is not None and k < len(expl) else None
            if ref and hyp:
                pred_texts.append(hyp)
                ref_texts.append(ref)
    if average == "micro":
        agg = grouped_prf([u for us in units.values() for u in us], "micro")
    elif average == "review":
        agg = grouped_prf([us[0] for us in units.values()], "macro")
    else:
        pooled = [
            ([x for g, _ in us for x in g], [x for _, p in us for x in p])
            for us in per_paper_units.values()
        ]
        agg = grouped_prf(pooled, "macro")
    per: dict[str, dict[str, float | None]] = {}
    for paper, us in per_paper_units.items():
        total = sum((counts(g, p) for g, p in us), start=Counts())
        s = scores_from_counts(total)
        per[paper] = {"P": PCT * s.precision, "R": PCT * s.recall, "F1": PCT * s.f1}
    aggregate: dict[str, float | None] = {
        "P": PCT * agg.precision, "R": PCT * agg.recall, "F1": PCT * agg.f1,
    }  # fmt: skip
    if pred_texts:
        r = rouge(pred_texts, ref_texts, ("rouge1", "rouge2", "rougeL"))
        aggregate.update({"ROUGE-1": PCT * r.means["rouge1"], "ROUGE-2": PCT * r.means["rouge2"],
                          "ROUGE-L": PCT * r.means["rougeL"]})  # fmt: skip
        if bertscore_model:
            b = bertscore(pred_texts, ref_texts, model_dir=bertscore_model,
                          num_layers=bertscore_layers)  # fmt: skip
            aggregate["BERTScore"] = PCT * b.f1
    c = agg.counts
    return TaskResult(aggregate=aggregate, per_instance=per,
                      n={"reviews": len(units), "papers": len(per_paper_units), "tp": c.tp,
                         "fp": c.fp, "fn": c.fn, "explanations": len(pred_texts)})  # fmt: skip

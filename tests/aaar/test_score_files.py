"""``score_files`` of the four tasks on the synthetic released layouts, by hand.

The keyword encoder maps a text to the unit vector of the keywords it contains (``alpha`` ..
``delta`` are orthogonal axes), so every cosine below is 0 or 1 and each expected number is
computed in the comment next to it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from _fakes import num

from scholarkg.benchmark.outputs import metrics_payload
from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.tasks.aaar.expdesign import ExpDesignTask
from scholarkg.benchmark.tasks.aaar.reviewcritique import ReviewCritiqueTask
from scholarkg.benchmark.tasks.aaar.weakness import HUMAN_ITF_IDF, WeaknessTask
from scholarkg.errors import InputError
from scholarkg.loaders.aaar import parse_folder

FIX = Path(__file__).parent.parent / "fixtures" / "aaar"
RES = FIX / "results"
KEYWORDS = ("alpha", "beta", "gamma", "delta", "none")  # "None": the empty-list placeholder


class KeywordEncoder:
    name = "keyword-encoder"

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> np.ndarray:
        self.calls.append(list(texts))
        out = np.zeros((len(texts), len(KEYWORDS)))
        for r, t in enumerate(texts):
            for c, k in enumerate(KEYWORDS):
                out[r, c] = float(k in t.lower())
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        unit: np.ndarray = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
        return unit


def test_eqinfer_released_result_file_by_position() -> None:
    task = load_task("aaar-eqinfer")
    res = task.score_files(FIX / "Equation_Inference", RES / "eqinfer", {})
    # replies A, "(B).", "Option C", "**A**" for gold A, B, C, D: 2 of 4 correct
    assert res.aggregate == {"accuracy": 50.0}
    assert sorted(num(v["accuracy"]) for v in res.per_instance.values()) == [0.0, 0.0, 100.0, 100.0]
    assert res.n["unparsed"] == 1  # "Option C"


def test_eqinfer_jsonl_by_index_and_a_misaligned_result_file(tmp_path: Path) -> None:
    task = load_task("aaar-eqinfer")
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"id": i, "pred": r}) + "\n"
                             for i, r in ((0, "A"), (1, "b"), (3, "D"))))  # fmt: skip
    res = task.score_files(FIX / "Equation_Inference" / "equation.json", preds, {})
    assert res.aggregate["accuracy"] == pytest.approx(75.0)  # item 2 missing: wrong
    rows = json.loads((RES / "eqinfer" / "eval_results.json").read_text())
    rows[0], rows[1] = rows[1], rows[0]
    bad = tmp_path / "eval_results.json"
    bad.write_text(json.dumps(rows))
    with pytest.raises(InputError, match="not in the data file's order") as info:
        task.score_files(FIX / "Equation_Inference", bad, {})
    assert info.value.field == "[0].answer"


def test_expdesign_released_folder_by_hand() -> None:
    task = ExpDesignTask(encoder=KeywordEncoder())
    res = task.score_files(FIX / "Experiment_Design", RES / "expdesign", {})
    # paper 1: preds [alpha, gamma] vs gold [alpha, beta] -> P = R = F1 = 0.5
    # paper 2: no prediction -> 0 (stays in the mean)
    # explanations paper 1: [gamma, beta] vs [gamma, delta] -> S-Match 0.5; ROUGE of
    #   "1. gamma reason"/"1. gamma reason" = 1 and "2. beta reason"/"2. delta reason" = 2/3
    agg = res.aggregate
    assert agg["S-P"] == pytest.approx(25.0) and agg["S-R"] == pytest.approx(25.0)
    assert agg["S-F1"] == pytest.approx(25.0, abs=1e-6)
    assert agg["S-Match"] == pytest.approx(25.0)
    assert agg["ROUGE-1"] == pytest.approx(100 * (1 + 2 / 3) / 2 / 2)
    assert agg["ROUGE-L"] == pytest.approx(100 * (1 + 2 / 3) / 2 / 2)
    assert res.per_instance["arxiv:2402.00002"]["S-F1"] == 0.0
    payload = metrics_payload(task, res)
    assert set(payload["aggregate"]) == {"S-P", "S-R", "S-F1", "S-Match", "ROUGE-L", "ROUGE-1"}
    assert set(payload["per_paper"]) == {"arxiv:2402.00001", "arxiv:2402.00002"}


def test_expdesign_jsonl_and_copy_input_baseline(tmp_path: Path) -> None:
    task = ExpDesignTask(encoder=KeywordEncoder())
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"id": "2402.00002", "experiments": ["1. gamma run"]}) + "\n")
    res = task.score_files(FIX / "Experiment_Design", preds, {})
    # paper 2 exact (1.0), paper 1 empty (0); no explanations given: those metrics left out
    assert res.aggregate == pytest.approx({"S-P": 50.0, "S-R": 50.0, "S-F1": 50.0})


def test_expdesign_duplicate_ids_are_errors(tmp_path: Path) -> None:
    """A second answer for the same paper is an error naming the file, the line and the
    field (as the EqInfer and Weakness readers), never a silent overwrite of the first."""
    task = ExpDesignTask(encoder=KeywordEncoder())
    preds = tmp_path / "p.jsonl"
    rows = [
        {"id": "2402.00001", "experiments": ["1. alpha run"]},
        {"id": "2402.00002", "experiments": ["1. gamma run"]},
        {"id": "2402.00001", "experiments": ["1. beta run"]},
    ]
    preds.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(InputError, match=r"duplicate id '2402\.00001'") as info:
        task.score_files(FIX / "Experiment_Design", preds, {})
    assert (info.value.path, info.value.line, info.value.field) == (str(preds), 3, "id")
    # released layout: two result files naming the same paper
    folder = tmp_path / "results"
    for name in ("a", "b"):
        (folder / name).mkdir(parents=True)
        (folder / name / "eval_results.json").write_text(
            (RES / "expdesign" / "2402.00001" / "eval_results.json").read_text()
        )
    with pytest.raises(InputError, match="duplicate id") as info:
        task.score_files(FIX / "Experiment_Design", folder, {})
    assert info.value.path == str(folder / "b" / "eval_results.json") and info.value.field == "id"


def test_weakness_released_file_by_hand() -> None:
    enc = KeywordEncoder()
    task = WeaknessTask(encoder=enc)
    res = task.score_files(FIX / "Paper_Weakness", RES / "weakness", {})
    # WkA1: preds [alpha, delta]; reviewers [alpha, beta], [alpha], [] (K = 2)
    #   SN-P = mean(mean(1, 1), mean(0, 0)) = 0.5; SN-R = mean(0.5, 1) = 0.75; F1 = 0.6
    # WkB2: preds [gamma, beta]; reviewer [gamma]: P = 0.5, R = 1, F1 = 2/3
    agg = res.aggregate
    assert agg["SN-P"] == pytest.approx(50.0) and agg["SN-R"] == pytest.approx(87.5)
    assert agg["SN-F1"] == pytest.approx(100 * (0.6 + 2 / 3) / 2, abs=1e-6)
    # ITF-IDF, W = 2: no two items similar, so O_i = 1 and R_i = 1: ln(2/1) * ln(2/1) each
    assert agg["ITF-IDF"] == pytest.approx(math.log(2) ** 2)
    assert task.units()["ITF-IDF"] == "score" and HUMAN_ITF_IDF == 7.69
    # every distinct text embedded once in the whole call (SN-* and ITF-IDF share them)
    flat = [t for c in enc.calls for t in c]
    assert len(flat) == len(set(flat)) and "1. alpha" in flat


def test_weakness_jsonl_raw_reply_and_unknown_ids(tmp_path: Path) -> None:
    task = WeaknessTask(encoder=KeywordEncoder())
    preds = tmp_path / "p.jsonl"
    preds.write_text(json.dumps({"id": "WkB2", "response": "1. gamma\n2. gamma again"}) + "\n")
    res = task.score_files(FIX / "Paper_Weakness", preds, {})
    wkb2 = parse_folder(FIX / "Paper_Weakness", "weakness")[1].graph_id
    assert res.per_instance[wkb2]["SN-P"] == pytest.approx(100.0)
    preds.write_text(json.dumps({"id": "nope", "weaknesses": ["1. x"]}) + "\n")
    with pytest.raises(InputError, match="none of the 1 prediction ids"):
        task.score_files(FIX / "Paper_Weakness", preds, {})


def test_reviewcritique_ensembles_and_averages_by_hand() -> None:
    task = ReviewCritiqueTask()
    data, preds = FIX / "ReviewCritique.jsonl", RES / "reviewcritique.jsonl"
    res = task.score_files(data, preds, {"ensemble": "either-no"})
    # review#1 gold [F,T,F,T], either [F,T,T,T]: P 2/3, R 1, F1 0.8
    # review#2 gold [T,F], either [T,F]: 1, 1, 1; gpt4 gold [F,T], either [T,F]: 0, 0, 0
    assert res.aggregate["P"] == pytest.approx(100 * (2 / 3 + 1) / 3)
    assert res.aggregate["R"] == pytest.approx(100 * 2 / 3)
    assert res.aggregate["F1"] == pytest.approx(100 * 1.8 / 3)
    # explanations of true positives with a gold explanation: two pairs
    #   "claim ignores table two" vs "the claim ignores table two": R1 = 2*1*.8/1.8
    #   "baseline missing here" vs "baseline is missing": R1 = 2/3; ROUGE-2: 6/7 and 0
    r1 = (2 * 0.8 / 1.8 + 2 / 3) / 2
    assert res.aggregate["ROUGE-1"] == pytest.approx(100 * r1)
    assert res.aggregate["ROUGE-L"] == pytest.approx(100 * r1)
    assert res.aggregate["ROUGE-2"] == pytest.approx(100 * (6 / 7) / 2)
    assert "BERTScore" not in res.aggregate  # no local model given
    micro = task.score_files(data, preds, {"ensemble": "either-no", "average": "micro"})
    # pooled: tp 3, fp 2, fn 1
    assert micro.aggregate["P"] == pytest.approx(60.0) and micro.aggregate["R"] == pytest.approx(
        75.0
    )
    both = task.score_files(data, preds, {"ensemble": "both-no"})
    # both-no: review#1 [F,F,F,F], review#2 [F,F], gpt4 [T,F] -> nothing right
    assert both.aggregate["F1"] == 0.0 and both.n["fp"] == 1
    label = task.score_files(data, preds, {"ensemble": "label-all", "average": "paper"})
    # paper 1 pooled: gold [F,T,F,T,T,F], label-all [F,T,T,F,T,F]: tp 2 fp 1 fn 1 -> F1 2/3
    # paper 2: gold [F,T], label-all [T,F]: 0
    assert label.aggregate["F1"] == pytest.approx(100 * (2 / 3) / 2)


def test_reviewcritique_prediction_errors(tmp_path: Path) -> None:
    task = ReviewCritiqueTask()
    bad = tmp_path / "p.jsonl"
    bad.write_text(json.dumps({"paper": 1, "review": "review#1", "deficient": [True]}) + "\n")
    with pytest.raises(InputError, match="1 predicted flags for 4 segments"):
        task.score_files(FIX / "ReviewCritique.jsonl", bad, {})
    bad.write_text(json.dumps({"paper": 1, "review": "review#1", "deficient": ["maybe"]}) + "\n")
    with pytest.raises(InputError) as info:
        task.score_files(FIX / "ReviewCritique.jsonl", bad, {})
    assert info.value.line == 1 and info.value.field == "deficient[0]"
    bad.write_text(json.dumps({"paper": 1, "review": "review#1", "label_all": [True] * 4}) + "\n")
    with pytest.raises(InputError, match="either-no scores need select_deficient"):
        task.score_files(FIX / "ReviewCritique.jsonl", bad, {})


def test_human_itf_idf_reviewer_selection_by_hand() -> None:
    from scholarkg.benchmark.tasks.aaar.scoring import human_itf_idf

    gold = [p.reviewers for p in parse_folder(FIX / "Paper_Weakness", "weakness")]
    ln2, ln15, ln3 = math.log(2), math.log(1.5), math.log(3)
    # "all": WkA1 = [alpha, beta, alpha]: O = 2, 1, 2 of n = 3, no cross match (R = 1, W = 2);
    # WkB2 = [gamma]: one item scores 0
    assert human_itf_idf(gold, "all", encoder=KeywordEncoder()) == pytest.approx(
        ln2 * (2 * ln15 + ln3) / 3 / 2
    )
    # "longest": WkA1 = [alpha, beta]: ln(2/1) * ln(2/1) each
    assert human_itf_idf(gold, "longest", encoder=KeywordEncoder()) == pytest.approx(ln2**2 / 2)

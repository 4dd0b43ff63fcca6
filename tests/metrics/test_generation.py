"""ROUGE with stemming (rouge-score) on hand-checkable pairs; BERTScore gating."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from scholarkg.benchmark.metrics.generation import (
    aligned_list_rouge,
    bertscore,
    rouge,
    rouge_pair,
)
from scholarkg.errors import InputError, NotSupported


def test_rouge_pair_hand_values() -> None:
    s = rouge_pair("the cat sat", "the cat ran")
    assert s["rouge1"] == pytest.approx(2 / 3)  # 2 of 3 unigrams shared each way
    assert s["rouge2"] == pytest.approx(1 / 2)  # "the cat" of {the cat, cat sat}
    assert s["rougeL"] == pytest.approx(2 / 3)
    lcs = rouge_pair("alpha beta gamma delta", "alpha gamma beta delta", ["rougeL"])
    assert lcs == {"rougeL": pytest.approx(3 / 4)}  # LCS length 3 of 4


def test_rouge_uses_stemming() -> None:
    assert rouge_pair("running cats", "run cat", ["rouge1"])["rouge1"] == 1.0
    no_stem = rouge(["running cats"], ["run cat"], ["rouge1"], use_stemmer=False)
    assert no_stem.means["rouge1"] == 0.0


def test_rouge_means_and_edge_cases() -> None:
    res = rouge(["the cat sat", "dog"], ["the cat sat", "bird"], ["rouge1"])
    assert res.per_item["rouge1"] == [1.0, 0.0]
    assert res.means["rouge1"] == 0.5
    assert rouge([], [], ["rouge1"]).means == {"rouge1": 0.0}
    with pytest.raises(InputError):
        rouge(["a"], [], ["rouge1"])
    with pytest.raises(InputError, match="unknown ROUGE type"):
        rouge(["a"], ["a"], ["rouge9"])


def test_aligned_list_rouge_keeps_number_prefixes() -> None:
    preds = [["1. alpha beta", "2. gamma"], []]
    golds = [["1. alpha beta", "2. delta", "3. epsilon"], ["1. alpha"]]
    res = aligned_list_rouge(preds, golds)
    # paper 1: item 1 identical -> 1; item 2 shares only the "2" prefix token -> 1/2
    assert res.per_item["rouge1"] == pytest.approx([0.75, 0.0])
    assert res.means["rouge1"] == pytest.approx(0.375)
    assert res.means["rougeL"] == pytest.approx(0.375)
    with pytest.raises(InputError):
        aligned_list_rouge([], [])


@pytest.mark.skipif(
    importlib.util.find_spec("bert_score") is not None, reason="bert-score is installed"
)
def test_bertscore_without_package_names_it(tmp_path: Path) -> None:
    with pytest.raises(NotSupported, match="bert-score"):
        bertscore(["a"], ["a"], model_dir=tmp_path, num_layers=6)

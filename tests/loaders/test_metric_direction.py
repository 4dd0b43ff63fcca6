"""Metric direction: the documented pattern table, override files, and unknown reporting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scholarkg.errors import InputError
from scholarkg.loaders.metric_direction import DirectionResolver, infer_direction, load_overrides


@pytest.mark.parametrize(
    "name",
    ["Accuracy", "Top-1 Accuracy", "F1", "Macro-F1", "BLEU", "SacreBLEU", "ROUGE-L", "mAP",
     "AP50", "box AP", "MRR", "Hits@10", "EM", "Exact Match", "Recall@20", "Precision",
     "nDCG@10", "AUC", "mIoU", "PSNR", "Spearman Correlation", "Inception Score"],
)  # fmt: skip
def test_higher_is_better(name: str) -> None:
    assert infer_direction(name) == "higher"


@pytest.mark.parametrize(
    "name",
    ["Error Rate", "Top-1 Error", "Word Error Rate", "WER", "CER", "Perplexity", "Test PPL",
     "Bits per Character", "BPC", "bits/dim", "MAE", "MSE", "RMSE", "FID", "Loss",
     "Latency (ms)", "Mean Rank", "EER"],
)  # fmt: skip
def test_lower_is_better(name: str) -> None:
    assert infer_direction(name) == "lower"


@pytest.mark.parametrize("name", ["Params (M)", "FLOPs", "Zorbness", "Number of parameters"])
def test_unknown_is_not_guessed(name: str) -> None:
    assert infer_direction(name) == "unknown"


def test_resolver_collects_unknown_and_override_wins(tmp_path: Path) -> None:
    over = tmp_path / "d.toml"
    over.write_text('[directions]\n"Params (M)" = "lower"\n"accuracy" = "lower"\n', "utf-8")
    res = DirectionResolver.from_file(over)
    assert res.direction("params (m)") == "lower"  # matched on the normalised name
    assert res.direction("Accuracy") == "lower"  # override beats the table
    assert res.direction("F1") == "higher"
    assert res.direction("Zorbness") == "unknown"
    assert res.direction("FLOPs") == "unknown"
    assert res.unknown == {"Zorbness", "FLOPs"}


def test_json_override_flat(tmp_path: Path) -> None:
    over = tmp_path / "d.json"
    over.write_text(json.dumps({"Zorbness": "Higher"}), "utf-8")
    assert load_overrides(over) == {"zorbness": "higher"}


def test_bad_override_names_file_and_metric(tmp_path: Path) -> None:
    over = tmp_path / "d.json"
    over.write_text(json.dumps({"Zorbness": "up"}), "utf-8")
    with pytest.raises(InputError) as info:
        load_overrides(over)
    assert info.value.field == "Zorbness" and "d.json" in str(info.value)
    over.write_text("[1, 2]", "utf-8")
    with pytest.raises(InputError, match="expected a mapping"):
        load_overrides(over)
    bad_toml = tmp_path / "d.toml"
    bad_toml.write_text("x = = 1", "utf-8")
    with pytest.raises(InputError, match="invalid TOML"):
        load_overrides(bad_toml)

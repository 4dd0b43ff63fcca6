"""``scholarkg score ir`` / ``score lists`` through the real CLI on fixture files, and
``bench score ir|lists``, of which they are aliases (one code path, the same output)."""

from __future__ import annotations

import json
from math import log2
from pathlib import Path

import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError

FIX = Path(__file__).parent.parent / "fixtures" / "trec"

# Hand values for the fixtures (see tests/fixtures/trec/README.md).
# q1 ranking b a x c d -> grades 0 2 - 1 3, relevant a c d e (R=4)
# q2 ranking g f (tie broken by docid desc) -> grades 0 1, R=1
# q3 has no ranking -> 0 everywhere
EXPECTED = {
    "q1": {
        "P@2": 1 / 2,
        "MRR": 1 / 2,
        "MAP": (1 / 2 + 2 / 4 + 3 / 5) / 4,
        "RP": 2 / 4,
        "nDCG@3": (2 / log2(3)) / (3 + 2 / log2(3) + 1 / 2),
    },
    "q2": {"P@2": 1 / 2, "MRR": 1 / 2, "MAP": 1 / 2, "RP": 0.0, "nDCG@3": 1 / log2(3)},
    "q3": {"P@2": 0.0, "MRR": 0.0, "MAP": 0.0, "RP": 0.0, "nDCG@3": 0.0},
}


@pytest.mark.parametrize("run_file", ["run.trec", "run.jsonl"])
def test_score_ir_json(run_file: str) -> None:
    result = runner.invoke(
        app,
        [
            "score", "ir",
            "--qrels", str(FIX / "qrels.txt"),
            "--run", str(FIX / run_file),
            "--metrics", "P@2,MRR,MAP,RP,nDCG@3",
            "--format", "json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"aggregate", "per_query"}
    assert set(out["per_query"]) == {"q1", "q2", "q3"}
    for qid, vals in EXPECTED.items():
        assert out["per_query"][qid] == pytest.approx(vals, abs=1e-12)
    for name in EXPECTED["q1"]:
        mean = sum(EXPECTED[q][name] for q in EXPECTED) / 3
        assert out["aggregate"][name] == pytest.approx(mean, abs=1e-12)


def test_score_ir_table_with_per_query() -> None:
    result = runner.invoke(
        app,
        [
            "score", "ir",
            "--qrels", str(FIX / "qrels.txt"),
            "--run", str(FIX / "run.trec"),
            "--metrics", "P@2,MAP",
            "--per-query",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "0.5000" in result.stdout  # P@2 of q1
    assert f"{(0.5 + 0.5 + 0.0) / 3:.4f}" in result.stdout  # mean P@2
    assert "q3" in result.stdout


def test_score_ir_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.trec"
    bad.write_text("q1 Q0 a 1 1.0 t\nq7 Q0 a 1 1.0 t\n", encoding="utf-8")
    result = runner.invoke(
        app, ["score", "ir", "--qrels", str(FIX / "qrels.txt"), "--run", str(bad)]
    )
    assert isinstance(result.exception, InputError)
    assert result.exception.line == 2 and result.exception.path == str(bad)

    result = runner.invoke(
        app,
        ["score", "ir", "--qrels", str(FIX / "qrels.txt"), "--run", str(FIX / "run.trec"),
         "--metrics", "P@10,Bogus@3"],
    )  # fmt: skip
    assert isinstance(result.exception, InputError)
    assert "nDCG@k" in str(result.exception)


def test_score_lists_json() -> None:
    result = runner.invoke(
        app,
        [
            "score", "lists",
            "--gold", str(FIX / "lists_gold.jsonl"),
            "--predictions", str(FIX / "lists_predictions.jsonl"),
            "--format", "json",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out) == {"cis", "bem", "ktau", "cp", "n_instances"}
    # lb1 complete and in order (tau 1, all 3 pairs concordant); lb2 misses "Zeta Rank" and
    # swaps the other two (0 of 3 pairs concordant)
    assert out["n_instances"] == 2
    assert out["cis"] == pytest.approx(50.0)  # 1 of 2 complete, in percent
    assert out["bem"] == pytest.approx(1.0)  # 1 exact of 1 complete
    assert out["ktau"] == pytest.approx(1.0)
    assert out["cp"] == pytest.approx(100 * (3 / 3 + 0 / 3) / 2)


def test_score_lists_table_and_missing_prediction(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "score", "lists",
            "--gold", str(FIX / "lists_gold.jsonl"),
            "--predictions", str(FIX / "lists_predictions.jsonl"),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "50.00" in result.stdout and "1/2" in result.stdout

    partial = tmp_path / "preds.jsonl"
    partial.write_text('{"id": "lb1", "response": "Alpha Net"}\n', encoding="utf-8")
    result = runner.invoke(
        app,
        ["score", "lists", "--gold", str(FIX / "lists_gold.jsonl"), "--predictions", str(partial)],
    )
    assert isinstance(result.exception, InputError)
    assert "'lb2'" in str(result.exception)


def _ok(args: list[str]) -> str:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize(
    ("alias", "bench"),
    [
        (
            ["score", "ir", "--qrels", str(FIX / "qrels.txt"), "--run", str(FIX / "run.trec"),
             "-m", "P@2,MAP", "--threshold", "2"],
            ["bench", "score", "ir", "--data", str(FIX / "qrels.txt"), "--predictions",
             str(FIX / "run.trec"), "--metrics", "P@2,MAP", "--threshold", "2"],
        ),
        (
            ["score", "lists", "--gold", str(FIX / "lists_gold.jsonl"), "--predictions",
             str(FIX / "lists_predictions.jsonl"), "--matcher", "normalized"],
            ["bench", "score", "lists", "--data", str(FIX / "lists_gold.jsonl"),
             "--predictions", str(FIX / "lists_predictions.jsonl"), "--matcher", "normalized"],
        ),
    ],
)  # fmt: skip
def test_the_aliases_print_what_bench_score_prints(alias: list[str], bench: list[str]) -> None:
    for fmt in ("json", "table"):
        assert _ok([*alias, "--format", fmt]) == _ok([*bench, "--format", fmt])
    out = json.loads(_ok([*bench, "--format", "json"]))
    if "aggregate" in out:
        # --threshold 2: only grade >= 2 counts (q1: a (2) and d (3) relevant, b at rank 1 is
        # grade 0, a at rank 2 is relevant): P@2 = 1/2 on q1, 0 on q2 and q3
        assert out["per_query"]["q1"]["P@2"] == pytest.approx(0.5)
        assert out["aggregate"]["P@2"] == pytest.approx(0.5 / 3)
    else:
        assert out["cis"] == pytest.approx(50.0)


def test_alias_help_names_bench_score() -> None:
    for verb in ("ir", "lists"):
        text = " ".join(_ok(["score", verb, "--help"]).split())
        assert f"Alias of 'scholarkg bench score {verb}'" in text
    text = " ".join(_ok(["score", "ir", "--help"]).split())
    assert "--metrics (-m):" in text and "--unjudged-queries:" in text


def test_bench_score_ir_checks_its_options() -> None:
    base = ["bench", "score", "ir", "--data", str(FIX / "qrels.txt")]
    result = runner.invoke(
        app, [*base, "--predictions", str(FIX / "run.trec"), "--predictions", str(FIX / "run.trec")]
    )
    assert isinstance(result.exception, InputError)
    assert "scores one file; got 2" in str(result.exception)
    result = runner.invoke(app, [*base, "--predictions", str(FIX / "run.trec"), "--protocol", "x"])
    assert isinstance(result.exception, InputError)
    assert "does not take --protocol" in str(result.exception)
    assert "--unjudged-queries" in str(result.exception)
    result = runner.invoke(
        app, [*base, "--run", str(FIX / "run.trec"), "--unjudged-queries", "maybe"]
    )
    assert isinstance(result.exception, InputError)


def test_no_task_is_named_like_a_file_scorer() -> None:
    from scholarkg.benchmark.registry import task_names
    from scholarkg.commands.score import FILE_SCORERS

    assert not set(FILE_SCORERS) & set(task_names())


def test_the_lists_choices_are_the_metrics_and_the_cli_starts_without_scipy() -> None:
    """``score.py`` copies the choices so that starting the CLI does not load scipy.stats."""
    import subprocess
    import sys

    from scholarkg.benchmark.metrics import ranking
    from scholarkg.commands import score

    # the names the CLI's choices are made of (imported there, not exported: read as such)
    cli_names = vars(score)
    assert (cli_names["PROTOCOLS"], cli_names["MATCHERS"]) == (ranking.PROTOCOLS, ranking.MATCHERS)
    code = "import sys, scholarkg.cli; print('scipy.stats' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"

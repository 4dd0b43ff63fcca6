"""Model answers are kept: a run of each AAAR-1.0 / ReviewCritique task writes its raw and parsed
answers (``predictions.jsonl`` under ``--out`` and ``predictions`` in the run record), and
scoring that file against the released data (``bench score``'s path, no graph, no model)
gives the run's metrics exactly.

The model is the loopback OpenAI-protocol server of ``tests/_fakes.py`` answering from the
prompt; the graph is the session's embedded server loaded with the synthetic released files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok
from _fakes import CANNED_MODEL, CannedServer

from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.task import AnswerSource, BenchmarkTask
from scholarkg.benchmark.tasks.aaar.eqinfer import EqInferTask
from scholarkg.benchmark.tasks.aaar.expdesign import ExpDesignTask
from scholarkg.benchmark.tasks.aaar.reviewcritique import ReviewCritiqueTask
from scholarkg.benchmark.tasks.aaar.weakness import WeaknessTask
from scholarkg.services.llm import LLMClient
from scholarkg.store.base import GraphStore

from .test_run_tasks import _eq_answer, _exp_answer, _rc_answer
from .test_score_files import KeywordEncoder

FIX = Path(__file__).parent.parent / "fixtures" / "aaar"


def _weakness_answer(prompt: str) -> str:
    return "1. alpha\n2. delta" if "Zorb" in prompt or "Glims" in prompt else "Sure: gamma"


def _round_trip(
    task: BenchmarkTask,
    store: GraphStore,
    answer: Any,
    data: Path,
    options: dict[str, Any],
    tmp_path: Path,
) -> tuple[Any, list[dict[str, Any]]]:
    """Run with the canned model, then score the written file as ``bench score`` does."""
    with CannedServer(answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_task(task, store, AnswerSource.model(client), options,
                       runs_dir=tmp_path / "runs", out_dir=tmp_path / "out")  # fmt: skip
    path = tmp_path / "out" / "predictions.jsonl"
    assert path in run.files
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    saved = RunRegistry(tmp_path / "runs").load(run.record.id)
    assert saved.predictions == rows  # the run record keeps the same answers
    assert saved.config["answer"]["model"] == CANNED_MODEL
    assert saved.config["answer"]["predictions_file"] == str(path)
    assert all(r["model"] == CANNED_MODEL and "raw" in r for r in rows)
    rescored = task.score_files(data, path, options)
    assert rescored.aggregate == run.result.aggregate
    assert rescored.per_instance == run.result.per_instance
    # and the file read back through 'bench run --predictions' on the graph
    again = run_task(task, store, AnswerSource.predictions(path), options)
    assert again.result.aggregate == run.result.aggregate
    assert again.record.config["answer"]["model"] == CANNED_MODEL
    return run, rows


def test_eqinfer_answers_round_trip(aaar_store: GraphStore, tmp_path: Path) -> None:
    run, rows = _round_trip(EqInferTask(), aaar_store, _eq_answer, FIX / "Equation_Inference",
                            {"context_words": "3,1000"}, tmp_path)  # fmt: skip
    assert run.result.aggregate == {"accuracy": 25.0}  # the headline budget (3 words)
    # raw replies at every budget; "pred" is the headline budget's reply
    by_id = {r["id"]: r for r in rows}
    assert len(rows) == 4
    assert all(set(r["raw"]["context_words"]) == {"3", "1000"} for r in rows)
    assert all(r["pred"] == r["raw"]["context_words"]["3"] for r in rows)
    assert "I think D" in {r["pred"] for r in by_id.values()}


def test_expdesign_answers_round_trip(aaar_store: GraphStore, tmp_path: Path) -> None:
    task = ExpDesignTask(encoder=KeywordEncoder())
    run, rows = _round_trip(task, aaar_store, _exp_answer, FIX / "Experiment_Design",
                            {"context_words": 5}, tmp_path)  # fmt: skip
    assert run.result.aggregate["S-Match"] == pytest.approx(75.0)
    p1 = next(r for r in rows if r["id"] == "arxiv:2402.00001")
    assert p1["experiments"] == ["1. alpha run", "2. gamma run"]  # parsed
    assert p1["raw"]["experiments"] == "1. alpha run\n2. gamma run"  # as the model said it


def test_weakness_answers_round_trip(aaar_store: GraphStore, tmp_path: Path) -> None:
    task = WeaknessTask(encoder=KeywordEncoder(), itf_encoder=KeywordEncoder())
    run, rows = _round_trip(task, aaar_store, _weakness_answer, FIX / "Paper_Weakness",
                            {"window_words": 6}, tmp_path)  # fmt: skip
    assert run.result.aggregate["SN-P"] is not None
    # split-combine: one raw reply per window, the parsed list renumbered across windows
    for row in rows:
        assert len(row["raw"]) >= 2
        assert [w.split(".")[0] for w in row["weaknesses"]] == [
            str(k) for k in range(1, len(row["weaknesses"]) + 1)
        ]


def test_reviewcritique_answers_round_trip(aaar_store: GraphStore, tmp_path: Path) -> None:
    run, rows = _round_trip(ReviewCritiqueTask(), aaar_store, _rc_answer,
                            FIX / "ReviewCritique.jsonl", {}, tmp_path)  # fmt: skip
    assert run.result.aggregate["F1"] == pytest.approx(60.0)
    assert len(rows) == 3 and all({"paper", "review"} <= set(r) for r in rows)
    assert all(set(r["raw"]) == {"reviewcritique_label_all",
                                 "reviewcritique_select_deficient"} for r in rows)  # fmt: skip
    # both prompts' flags are kept, so a rescore may pick another ensemble
    label_only = ReviewCritiqueTask().score_files(
        FIX / "ReviewCritique.jsonl", tmp_path / "out" / "predictions.jsonl",
        {"ensemble": "label-all"},
    )  # fmt: skip
    assert label_only.aggregate["F1"] == pytest.approx(50.0)


def test_bench_score_names_the_model_and_records_a_run(
    aaar_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``bench score`` on a run's file: the header names the model that produced it (not the
    file's stem), and the scoring is recorded as a run like ``bench run``'s."""
    run, rows = _round_trip(ReviewCritiqueTask(), aaar_store, _rc_answer,
                            FIX / "ReviewCritique.jsonl", {}, tmp_path)  # fmt: skip
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    # the run record alone gives the file back ('runs predictions RUN')
    preds = tmp_path / "from-record.jsonl"
    cli_ok(["runs", "predictions", str(tmp_path / "runs" / f"{run.record.id}.json"),
            "-o", str(preds)])  # fmt: skip
    assert [json.loads(line) for line in preds.read_text().splitlines()] == rows
    out = cli_ok(["bench", "score", "reviewcritique", "--data", str(FIX / "ReviewCritique.jsonl"),
                  "--predictions", str(preds), "--format", "json"])  # fmt: skip
    payload = json.loads(out)
    assert payload["model"] == CANNED_MODEL and payload["predictions"] == str(preds)
    assert payload["aggregate"]["F1"] == pytest.approx(60.0)
    runs = RunRegistry(tmp_path / "home" / "runs").list()
    assert len(runs) == 1 and payload["run_id"] == runs[0].id
    rec = runs[0]
    assert rec.task == "reviewcritique" and rec.metrics["F1"] == pytest.approx(60.0)
    assert rec.config["answer"] == {
        "kind": "predictions", "name": CANNED_MODEL, "model": CANNED_MODEL, "path": str(preds),
        "params": {}, "baseline": False, "ours": False,
    }  # fmt: skip
    assert rec.config["data"] == str(FIX / "ReviewCritique.jsonl")
    assert rec.models == {"llm": CANNED_MODEL} and rec.per_instance


def test_a_limited_run_rescores_exactly_with_only_answered(
    aaar_store: GraphStore, tmp_path: Path
) -> None:
    """``bench run --limit N`` answers N papers; scoring its file against the whole released
    data counts the others as empty answers, ``--only-answered`` scores just the N."""
    task = WeaknessTask(encoder=KeywordEncoder(), itf_encoder=KeywordEncoder())
    with CannedServer(_weakness_answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_task(task, aaar_store, AnswerSource.model(client), {}, limit=1,
                       out_dir=tmp_path / "out")  # fmt: skip
    path = tmp_path / "out" / "predictions.jsonl"
    assert len(path.read_text().splitlines()) == 1
    only = task.score_files(FIX / "Paper_Weakness", path, {}, only_answered=True)
    assert only.aggregate == run.result.aggregate and only.per_instance == run.result.per_instance
    whole = task.score_files(FIX / "Paper_Weakness", path, {})
    assert len(whole.per_instance) == 2 and whole.aggregate != run.result.aggregate


def test_weakness_gold_from_the_files_is_the_graphs(store: GraphStore, tmp_path: Path) -> None:
    """``bench score aaar-weakness`` reads the gold from the released folder; it must see each
    weakness as the graph stores it (trailing spaces stripped, CR line ends and control
    characters cleaned), or a run rescored from its file drifts from the run (a real run did,
    by 2e-9 relative, over one trailing space)."""
    import shutil

    from scholarkg.loaders.aaar import aaar_groups
    from scholarkg.loaders.writer import write_records

    folder = tmp_path / "Paper_Weakness"
    shutil.copytree(FIX / "Paper_Weakness", folder)
    data_file = folder / "WkA1" / "data_text.json"
    data = json.loads(data_file.read_text())
    data["output"][0][0] += "  "
    data["output"][0][1] = "2. beta\r\nweak\x07 "
    data_file.write_text(json.dumps(data))
    store.apply_schema()
    write_records(store, [r for _, g in aaar_groups("weakness", folder) for r in g])
    task = WeaknessTask(encoder=KeywordEncoder(), itf_encoder=KeywordEncoder())
    from_graph = {i.id: i.data["reviewers"] for i in task.build_instances(store, {})}
    from_files = {i.id: i.data["reviewers"] for i in task.released_instances(folder)}
    assert set(from_graph) == set(from_files)
    for pid, reviewers in from_files.items():
        assert [r for r in reviewers if r] == [r for r in from_graph[pid] if r], pid
    assert from_files[next(iter(from_files))] != [] and any(
        "2. beta\nweak" in w for r in from_files.values() for lst in r for w in lst
    )

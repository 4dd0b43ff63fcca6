"""With real models (``-m model``): the bundled MiniLM as the default similarity encoder, and
the local model server (``scholarkg llm serve``: SmolLM2-135M on loopback) answering all four
tasks end to end (also marked slow: ~100 s). A 135M model answers badly; these tests check the
path, not its quality."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _fakes import num

from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import AnswerSource
from scholarkg.benchmark.tasks.aaar.eqinfer import EqInferTask
from scholarkg.benchmark.tasks.aaar.expdesign import ExpDesignTask
from scholarkg.benchmark.tasks.aaar.reviewcritique import ReviewCritiqueTask
from scholarkg.benchmark.tasks.aaar.weakness import WeaknessTask
from scholarkg.services.llm import LLMClient
from scholarkg.store.base import GraphStore

pytestmark = pytest.mark.model


def test_bundled_minilm_is_the_default_and_is_recorded(
    aaar_store: GraphStore, tmp_path: Path
) -> None:
    # predictions = the gold lists: identical strings have cosine 1 with the real encoder
    gold = {
        "2402.00001": (["1. alpha study", "2. beta study"], ["1. gamma reason", "2. delta reason"]),
        "2402.00002": (["1. gamma test"], ["1. alpha why"]),
    }
    preds = tmp_path / "p.jsonl"
    preds.write_text("".join(json.dumps({"id": k, "experiments": e, "explanations": w}) + "\n"
                             for k, (e, w) in gold.items()))  # fmt: skip
    task = ExpDesignTask()
    res = task.score_files(FIX / "Experiment_Design", preds, {})
    for key in ("S-P", "S-R", "S-F1", "S-Match", "ROUGE-1"):
        assert res.aggregate[key] == pytest.approx(100.0, abs=1e-3)
    run = run_task(task, aaar_store, AnswerSource.predictions(preds))
    assert run.record.models["encoder"] == "sentence-transformers/all-MiniLM-L6-v2 (bundled)"
    weak = WeaknessTask().score_files(FIX / "Paper_Weakness", FIX / "results" / "weakness", {})
    assert 0 < num(weak.aggregate["SN-F1"]) < 100 and num(weak.aggregate["ITF-IDF"]) > 0


@pytest.fixture(scope="module")
def local_llm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    from scholarkg.services.llm_server import start_local_server

    with start_local_server(cache_dir=tmp_path_factory.mktemp("llm"), max_new_tokens=48) as srv:
        yield srv.base_url


@pytest.mark.slow  # ~100 s of CPU on two cores: out of the default run
def test_all_four_tasks_through_the_local_model_server(
    aaar_store: GraphStore, local_llm: str
) -> None:
    with LLMClient(local_llm, None, timeout=300, max_retries=0) as client:
        source = AnswerSource.model(client)
        eq = run_task(EqInferTask(), aaar_store, source, {"context_words": "20,60"})
        exp = run_task(ExpDesignTask(), aaar_store, source, {"context_words": 60, "max_tokens": 40})
        weak = run_task(WeaknessTask(), aaar_store, source, {"window_words": 60, "max_tokens": 40})
        rc = run_task(ReviewCritiqueTask(), aaar_store, source,
                      {"paper_words": 40, "max_tokens": 40})  # fmt: skip
    assert set(eq.result.classes) == {"context_words:20", "context_words:60"}
    assert 0 <= num(eq.result.aggregate["accuracy"]) <= 100
    assert all(set(v) == {"20", "60"} for v in eq.answers.by_instance.values())
    assert exp.answers.models["llm"] and exp.answers.extra["usage"]["experiments"]["requests"] == 2
    assert {"S-F1", "S-Match"} <= set(exp.result.aggregate)
    assert weak.answers.extra["calls"] >= 2 and weak.result.aggregate["ITF-IDF"] is not None
    assert rc.answers.extra["usage"]["reviewcritique_label_all"]["requests"] == 3
    assert 0 <= num(rc.result.aggregate["F1"]) <= 100


# not imported from conftest: a module named 'conftest' is ambiguous when several test
# folders run together
FIX = Path(__file__).parent.parent / "fixtures" / "aaar"

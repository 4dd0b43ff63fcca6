"""The four tasks end to end through ``run_task``: prompts from the graph, answers from an
OpenAI-protocol server on loopback (canned replies keyed by what the prompt contains) or from
imported predictions, scores by hand, run records and files.

The graph is read through the recording double (``aaar_double``: the rows the loaded graph
returns, checked by ``test_aaar_double.py``); the related-work context, which reads citations
a test adds, runs on the real embedded graph (``fresh_aaar_store``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _fakes import CannedServer, RecordingStore

from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.task import AnswerSource
from scholarkg.benchmark.tasks.aaar.effects import related_work_effect
from scholarkg.benchmark.tasks.aaar.eqinfer import EqInferTask
from scholarkg.benchmark.tasks.aaar.expdesign import ExpDesignTask
from scholarkg.benchmark.tasks.aaar.reviewcritique import (
    ReviewCritiqueTask,
    parse_label_all,
    parse_select,
)
from scholarkg.benchmark.tasks.aaar.weakness import WeaknessTask, combine_lists
from scholarkg.schema.records import Citation, Paper
from scholarkg.services.llm import LLMClient
from scholarkg.store.base import GraphStore

from .test_score_files import KeywordEncoder

# not imported from conftest: a module named 'conftest' is ambiguous when several test
# folders run together
FIX = Path(__file__).parent.parent / "fixtures" / "aaar"

ITEMS = json.loads((FIX / "Equation_Inference" / "equation.json").read_text())


def _eq_answer(prompt: str) -> str:
    for item in ITEMS:
        if item["context_after"].split()[0] in prompt.split("Context after the equation:")[1]:
            if item["answer"] == "D":
                return "I think D"  # unparseable: wrong
            first = " ".join(item["context_before"].split()[:4])
            return f"({item['answer']})." if first in prompt else "A"
    raise AssertionError(prompt)


def test_eqinfer_model_sweep_is_a_curve(aaar_double: RecordingStore, tmp_path: Path) -> None:
    with CannedServer(_eq_answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_task(EqInferTask(), aaar_double, AnswerSource.model(client),
                       {"context_words": "3,1000"}, runs_dir=tmp_path / "runs",
                       out_dir=tmp_path / "out")  # fmt: skip
    assert len(srv.bodies) == 8 and {r["max_tokens"] for r in srv.bodies} == {16}
    # 3 words per side: the first words of the context are cut, the model says "A":
    # right only for item 0 (gold A); 1000 words: right for A, B, C (D is unparseable)
    assert run.result.classes == {"context_words:3": {"accuracy": 25.0},
                                  "context_words:1000": {"accuracy": 75.0}}  # fmt: skip
    assert run.result.aggregate == {"accuracy": 25.0}  # the first budget listed
    curve = json.loads((tmp_path / "out" / "context_curve.json").read_text())
    assert curve == {"context_words": {"3": 25.0, "1000": 75.0}}
    assert (tmp_path / "out" / "context_curve.png").stat().st_size > 0
    saved = RunRegistry(tmp_path / "runs").load(run.record.id)
    assert saved.config["configuration"] == {"context_words": "3,1000"}
    assert saved.models == {"llm": "canned-model"} and "eqinfer" in saved.prompt_hashes
    budget3 = srv.bodies[0]["messages"][0]["content"]
    before = budget3.split("Context before the equation:\n")[1].split("\n")[0]
    assert len(before.split()) <= 3


def test_eqinfer_imported_released_results(aaar_double: RecordingStore) -> None:
    run = run_task(EqInferTask(), aaar_double,
                   AnswerSource.predictions(FIX / "results" / "eqinfer"))  # fmt: skip
    assert run.result.aggregate == {"accuracy": 50.0}
    assert run.record.config["answer"]["kind"] == "predictions"


def _exp_answer(prompt: str) -> str:
    paper1 = "Zorb" in prompt
    if "What experiments do you suggest" in prompt:
        return "1. alpha run\n2. gamma run" if paper1 else "Sure!"
    if "Why do you suggest these experiments" in prompt:
        return "1. gamma reason\n2. beta reason" if paper1 else "1. alpha why"
    return "because gamma" if "alpha study" in prompt else "no idea"  # one-by-one


def test_expdesign_model_whole_list_and_one_by_one(aaar_double: RecordingStore) -> None:
    task = ExpDesignTask(encoder=KeywordEncoder())
    with CannedServer(_exp_answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_task(task, aaar_double, AnswerSource.model(client), {"context_words": 5})
        one = run_task(task, aaar_double, AnswerSource.model(client),
                       {"explain_mode": "one-by-one"})  # fmt: skip
    # paper 1: S-P 0.5 (alpha right, gamma wrong); paper 2: "Sure!" -> ["1. Sure!"] -> 0
    agg = run.result.aggregate
    assert agg["S-P"] == pytest.approx(25.0) and agg["S-R"] == pytest.approx(25.0)
    # explanations: paper 1 [gamma, beta] vs [gamma, delta] = 0.5, paper 2 [alpha] vs [alpha]
    assert agg["S-Match"] == pytest.approx(75.0)
    # requests run concurrently, so find paper 1's experiment prompt rather than the first one
    prompts = [r["messages"][0]["content"] for r in srv.bodies]
    first = next(p for p in prompts if "\\section{Intro}" in p)
    assert "\\section{Intro} Zorb nets learn glims" in first and "flum" not in first
    # one-by-one: 2 experiment calls + 3 explanation calls; paper 1's first explanation only
    assert len(srv.bodies) == 4 + 5
    p1 = one.answers.by_instance["arxiv:2402.00001"]
    assert p1.explanations == ["1. because gamma", "2. no idea"]
    assert one.result.aggregate["S-Match"] == pytest.approx(100 * (0.5 + 0) / 2)
    assert run.answers.models["encoder"] == "keyword-encoder"


def test_expdesign_copy_input_baseline(aaar_double: RecordingStore) -> None:
    task = ExpDesignTask(encoder=KeywordEncoder())
    run = run_task(task, aaar_double, AnswerSource.ranker("copy-input"))
    p1 = run.answers.by_instance["arxiv:2402.00001"]
    assert p1.experiments[0].startswith("1. ") and len(p1.experiments) <= 5
    assert p1.explanations == ["1. alpha study", "2. beta study"]  # gold copied as "why"
    # copied experiments [alpha, beta] vs gold explanations [gamma, delta]: S-Match 0;
    # paper 2 [gamma] vs [alpha]: 0
    assert run.result.aggregate["S-Match"] == 0.0
    assert run.record.config["answer"]["baseline"] is True


def test_weakness_split_combine_and_no_split(aaar_double: RecordingStore) -> None:
    task = WeaknessTask(encoder=KeywordEncoder())

    def answer(prompt: str) -> str:
        return "1. alpha\n2. delta" if "Zorb" in prompt or "Glims" in prompt else "1. gamma"

    with CannedServer(answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        split = run_task(task, aaar_double, AnswerSource.model(client), {"window_words": 6})
        n_split = len(srv.bodies)
        whole = run_task(task, aaar_double, AnswerSource.model(client), {"split": False})
    # WkA1's text: abstract 4 + title 5 + sections 5 + 3 ("None Plix helps.": a missing
    # heading reads "None", as released) = 17 words -> 17 // 6 + 1 = 3 windows; WkB2: 10 -> 2
    assert n_split == 5 and len(srv.bodies) == 5 + 2
    wka1 = next(i for i in split.instances if "Zorb" in i.data["text"])
    items = split.answers.by_instance[wka1.id]
    assert [x.split(".")[0] for x in items] == [str(k) for k in range(1, len(items) + 1)]
    assert whole.answers.by_instance[wka1.id] == ["1. alpha", "2. delta"]
    # no split, WkA1 = the hand case of test_score_files; WkB2 ["1. gamma"] vs [gamma]: 1
    assert whole.result.aggregate["SN-P"] == pytest.approx((50 + 100) / 2)
    assert combine_lists([["1. a", "2. b"], ["1. c"]]) == ["1. a", "2. b", "3. c"]


def test_weakness_imported_released_results(aaar_double: RecordingStore) -> None:
    task = WeaknessTask(encoder=KeywordEncoder())
    path = FIX / "results" / "weakness"
    run = run_task(task, aaar_double, AnswerSource.predictions(path))
    assert run.result.aggregate["SN-P"] == pytest.approx(50.0)
    assert run.result.aggregate["SN-R"] == pytest.approx(87.5)


def test_weakness_scoring_reports_its_encoding(aaar_double: RecordingStore) -> None:
    """Scoring encodes every distinct weakness text once (minutes for a thousand papers on
    two cores), and says so to the run's progress; outside a run nothing is reported."""
    seen: list[tuple[str, int, int]] = []
    task = WeaknessTask(encoder=KeywordEncoder())
    path = FIX / "results" / "weakness"
    run_task(task, aaar_double, AnswerSource.predictions(path),
             progress=lambda stage, done, total: seen.append((stage, done, total)))  # fmt: skip
    encoding = [s for s in seen if s[0] == "score: encode"]
    assert encoding and encoding[-1][1] == encoding[-1][2] > 0
    assert [d for _, d, _ in encoding] == sorted(d for _, d, _ in encoding)


def _rc_answer(prompt: str) -> str:
    label = "every segment answer" in prompt
    if "The paper ignores table two." in prompt:
        return "1. Yes\n2. No: claim ignores table two\n3. No: x\n4. Yes" if label else "4: y"
    if "No baseline." in prompt:
        return "1. No: baseline missing here\n2. Yes" if label else "None"
    return "1. No\n2. Yes" if label else "1: wrong"


def test_reviewcritique_two_prompts_and_ensembles(aaar_double: RecordingStore) -> None:
    task = ReviewCritiqueTask()
    with CannedServer(_rc_answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        run = run_task(task, aaar_double, AnswerSource.model(client))
        assert len(srv.bodies) == 6  # 3 reviews x 2 prompts
        label = run_task(task, aaar_double, AnswerSource.model(client), {"ensemble": "label-all"})
        assert len(srv.bodies) == 6 + 3
    # the same flags as the JSONL of test_score_files: P 5/9, R 2/3, F1 0.6
    agg = run.result.aggregate
    assert agg["P"] == pytest.approx(100 * 5 / 9) and agg["F1"] == pytest.approx(60.0)
    assert agg["ROUGE-1"] == pytest.approx(100 * (2 * 0.8 / 1.8 + 2 / 3) / 2)
    # label-all only: review#1 [F,T,T,F] P .5 R .5; review#2 1,1; gpt4 0 -> F1 (0.5+1+0)/3
    assert label.result.aggregate["F1"] == pytest.approx(50.0)
    assert parse_label_all("**2. No** - vague\n1 Yes", 2) == ([False, True], [None, "vague"])
    assert parse_select("Segment 2: off topic\nNone", 3) == ([False, True, False],
                                                             [None, "off topic", None])  # fmt: skip


def test_reviewcritique_imported_predictions(aaar_double: RecordingStore) -> None:
    run = run_task(ReviewCritiqueTask(), aaar_double,
                   AnswerSource.predictions(FIX / "results" / "reviewcritique.jsonl"),
                   {"ensemble": "either-no"})  # fmt: skip
    assert run.result.aggregate["F1"] == pytest.approx(60.0)


def test_related_work_context_from_the_graph_and_its_effect(fresh_aaar_store: GraphStore) -> None:
    cited = Paper(title="Beta Priors for Zorbs", abstract="We study beta priors at length.")
    citing = Paper(title="Zorbs Revisited", abstract="A follow-up.")
    fresh_aaar_store.merge_nodes("Paper", [cited.row(), citing.row()])
    fresh_aaar_store.merge_relationships("CITES", "Paper", "Paper", [
        Citation(start="arxiv:2402.00001", end=cited.id).row(),
        Citation(start=citing.id, end="arxiv:2402.00001").row(),
    ])  # fmt: skip
    seen: list[str] = []

    def answer(prompt: str) -> str:
        seen.append(prompt)
        if "What experiments" not in prompt:
            return "1. x"
        if "Zorb" not in prompt:
            return "1. gamma test"
        return "1. alpha run\n2. beta run" if "Beta Priors" in prompt else "1. alpha run"

    task = ExpDesignTask(encoder=KeywordEncoder())
    with CannedServer(answer) as srv, LLMClient(srv.base_url, max_retries=0) as client:
        effect = related_work_effect(task, fresh_aaar_store, AnswerSource.model(client), "S-F1",
                                     {"related_k": 1})  # fmt: skip
    with_rel = [p for p in seen if "Related work:" in p]
    assert with_rel and "- (cites) Beta Priors for Zorbs: We study beta priors" in with_rel[0]
    assert "- (cited by) Zorbs Revisited" in with_rel[0]
    # paper 1: S-F1 0.667 (P 1, R .5) without; 1.0 with; paper 2 unchanged (1.0)
    assert effect.test.delta == pytest.approx(100 * (1 - 2 / 3) / 2, abs=1e-6)
    assert effect.test.n == 2 and 0 < effect.test.p_value <= 1


def test_bundled_metric_encoder_is_paid_once_across_runs(tmp_path: Path) -> None:
    """Behind the vector file cache the metric encoder's own vectors come back bit for bit,
    and a second process (a new cache object) encodes nothing it has seen."""
    import numpy as np

    from scholarkg.benchmark.tasks.aaar.task import MetricEncoderEmbedder
    from scholarkg.services.embeddings import CachingEmbedder

    calls: list[list[str]] = []

    class Counting(KeywordEncoder):
        def encode(self, texts: list[str]) -> np.ndarray:
            calls.append(list(texts))
            return np.asarray(super().encode(texts), dtype=np.float32)

    texts = ["alpha delta", "gamma", "alpha delta", "Zorb helps"]
    first = CachingEmbedder(MetricEncoderEmbedder(Counting()), tmp_path)  # type: ignore[arg-type]  # a counting stand-in for the metric encoder
    a = first.encode(texts)
    direct = np.asarray(Counting().encode(texts), dtype=np.float32)
    assert np.array_equal(a, direct)
    calls.clear()
    second = CachingEmbedder(MetricEncoderEmbedder(Counting()), tmp_path)  # type: ignore[arg-type]  # a counting stand-in for the metric encoder
    assert np.array_equal(second.encode(texts), a)
    assert [c for c in calls if c != ["dimension probe"]] == []

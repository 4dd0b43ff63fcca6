"""The task interface: options, answer sources, one run path, outputs and the registry.

A small retrieval task defined here runs end to end on the session's real embedded server:
instances from Cypher, BM25 answers, trec_eval-exact metrics, a recorded run and files.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from _fakes import RecordingStore

from scholarkg.benchmark import registry
from scholarkg.benchmark.metrics.ir import evaluate
from scholarkg.benchmark.rankers.bm25 import BM25Ranker
from scholarkg.benchmark.results import ReportLayout, Score, TaskMetric, TaskResult
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.runs import RunRegistry
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    BenchmarkTask,
    Instance,
    StageProgress,
    TaskOption,
)
from scholarkg.commands.task_args import parse_task_args
from scholarkg.errors import InputError, NotSupported, TaskNotFound
from scholarkg.store.base import GraphReader, GraphStore

PAPERS = [
    ("arxiv:2001.00001", "graph neural networks for citation recommendation"),
    ("arxiv:2001.00002", "bm25 baselines for scientific retrieval"),
    ("arxiv:2001.00003", "pagerank on citation graphs"),
    ("arxiv:2001.00004", "aspect based query understanding"),
]


class TitleLookupTask(BenchmarkTask):
    """Find a paper from the last words of its own title (gold: that paper)."""

    name = "toy-title-lookup"
    family = "toy"
    description = "retrieve a paper from words of its title"
    metrics = (
        TaskMetric("MRR@10", "percent"),
        TaskMetric("R@1", "percent"),
    )
    options = (
        TaskOption("words", int, 2, "title words used as the query"),
        TaskOption("field", str, "title", "what to index", choices=("title",)),
        TaskOption("lowercase", bool, True, "lowercase queries"),
    )
    answer_kinds = frozenset({"ranker", "predictions"})
    rankers = ("bm25",)
    baseline = "bm25"
    layout = ReportLayout(title="Toy", columns=("MRR@10", "R@1"), instance_label="query")

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        rows = store.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS title ORDER BY p.id", {})
        n = options["words"]
        return [
            Instance(id=r["id"], data={"query": " ".join(r["title"].split()[-n:]),
                                       "gold": r["id"]})
            for r in rows
        ]  # fmt: skip

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        if source.kind == "predictions":
            assert source.path is not None
            data = json.loads(source.path.read_text())
            return Answers(by_instance={k: v for k, v in data.items()}, source=source)
        rows = store.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS t ORDER BY p.id", {})
        ranker = BM25Ranker([r["id"] for r in rows], [r["t"] for r in rows])
        out: dict[str, list[str]] = {}
        for inst in instances:
            ranking = ranker.rank(inst.data["query"], 10, query_id=inst.id)
            out[inst.id] = ranking.ids
        return Answers(by_instance=out, source=source, params=dict(ranker.params))

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        qrels = {i.id: {i.data["gold"]: 1} for i in instances}
        run = {i.id: answers.by_instance.get(i.id, []) for i in instances}
        res = evaluate(qrels, run, ["MRR@10", "R@1"])
        pct: dict[str, Score] = {k: 100 * v for k, v in res.aggregate.items()}
        per: dict[str, dict[str, Score]] = {
            q: {k: 100 * v for k, v in s.items()} for q, s in res.per_query.items()
        }
        return TaskResult(aggregate=pct, per_instance=per)


@pytest.fixture
def papers(store: GraphStore) -> GraphStore:
    store.merge_nodes("Paper", [{"id": i, "title": t} for i, t in PAPERS])
    return store


TITLES_QUERY = "MATCH (p:Paper) RETURN p.id AS id, p.title AS title ORDER BY p.id"
TEXTS_QUERY = "MATCH (p:Paper) RETURN p.id AS id, p.title AS t ORDER BY p.id"


def canned(papers: list[tuple[str, str]]) -> RecordingStore:
    """The task's two reads answered from ``papers``: the run logic without a server."""
    return RecordingStore(
        queries={
            TITLES_QUERY: [{"id": i, "title": t} for i, t in papers],
            TEXTS_QUERY: [{"id": i, "t": t} for i, t in papers],
        }
    )


@pytest.fixture
def canned_papers() -> RecordingStore:
    return canned(PAPERS)


def test_run_task_end_to_end_records_units_answer_and_files(
    papers: GraphStore, tmp_path: Path
) -> None:
    task = TitleLookupTask()
    run = run_task(
        task, papers, AnswerSource.ranker("bm25"), {"words": "3"},
        runs_dir=tmp_path / "runs", out_dir=tmp_path / "out",
    )  # fmt: skip
    # every title's last three words are unique to it: BM25 puts the gold first
    assert run.result.aggregate == {"MRR@10": 100.0, "R@1": 100.0}
    assert run.options == {"words": 3, "field": "title", "lowercase": True}
    saved = RunRegistry(tmp_path / "runs").load(run.record.id)
    assert saved.task == "toy-title-lookup"
    assert saved.config["units"] == {"MRR@10": "percent", "R@1": "percent"}
    assert saved.config["answer"]["kind"] == "ranker"
    assert saved.config["answer"]["baseline"] is True
    assert saved.config["configuration"]["words"] == 3
    assert set(saved.per_instance) == {p for p, _ in PAPERS}
    assert set(saved.timings) == {"build", "answer", "score", "total"}
    # table.md comes from the interface: the layout's title and columns, this run's row
    table = (tmp_path / "out" / "table.md").read_text()
    assert table.startswith("### Toy\n") and "| system | MRR@10 | R@1 |" in table
    assert "| bm25 | 100.00 | 100.00 |" in table and "published" not in table
    metrics = json.loads((tmp_path / "out" / "metrics.json").read_text())
    assert metrics["aggregate"] == {"MRR@10": 100.0, "R@1": 100.0}
    assert set(metrics["per_query"]) == {p for p, _ in PAPERS}
    assert metrics["units"] == {"MRR@10": "percent", "R@1": "percent"}
    nodes = papers.run("MATCH (r:Run {id: $id}) RETURN r.task AS task", {"id": saved.id})
    assert nodes == [{"task": "toy-title-lookup"}]


def test_predictions_are_scored_like_ranker_answers(
    canned_papers: RecordingStore, tmp_path: Path
) -> None:
    preds = tmp_path / "preds.json"
    # the first paper answered wrongly at rank 1 and right at rank 2; the second not at all
    preds.write_text(json.dumps({PAPERS[0][0]: [PAPERS[1][0], PAPERS[0][0]],
                                 PAPERS[2][0]: [PAPERS[2][0]],
                                 PAPERS[3][0]: [PAPERS[3][0]]}))  # fmt: skip
    run = run_task(TitleLookupTask(), canned_papers, AnswerSource.predictions(preds))
    assert run.result.per_instance[PAPERS[0][0]] == {"MRR@10": 50.0, "R@1": 0.0}
    assert run.result.per_instance[PAPERS[1][0]] == {"MRR@10": 0.0, "R@1": 0.0}
    assert run.result.aggregate["MRR@10"] == pytest.approx((50 + 0 + 100 + 100) / 4)
    assert run.record.config["answer"]["path"] == str(preds)


def test_limit_keeps_the_first_instances(canned_papers: RecordingStore) -> None:
    run = run_task(TitleLookupTask(), canned_papers, AnswerSource.ranker("bm25"), limit=2)
    assert len(run.instances) == 2 and run.record.config["limit"] == 2
    with pytest.raises(InputError, match="--limit must be >= 1"):
        run_task(TitleLookupTask(), canned_papers, AnswerSource.ranker("bm25"), limit=0)


def test_no_instances_is_a_clear_error() -> None:
    store = canned([])
    with pytest.raises(InputError, match=r"found no instances.*load its data first"):
        run_task(TitleLookupTask(), store, AnswerSource.ranker("bm25"))
    assert store.asked("run") == [TITLES_QUERY]  # stopped after building: nothing answered


def test_source_checked_before_any_work() -> None:
    task = TitleLookupTask()
    store = canned(PAPERS)
    with pytest.raises(InputError, match="has no ranker 'dense'; choose one of bm25"):
        run_task(task, store, AnswerSource.ranker("dense"))
    with pytest.raises(InputError, match="cannot be answered by a model"):
        run_task(task, store, AnswerSource.model(object(), "m"))
    assert store.calls == []  # refused before the store was asked anything


def test_resolve_options_defaults_conversion_and_unknown_option() -> None:
    task = TitleLookupTask()
    assert task.resolve_options({}) == {"words": 2, "field": "title", "lowercase": True}
    assert task.resolve_options({"--words": "5", "lowercase": "no"})["words"] == 5
    assert task.resolve_options({"lowercase": "off"})["lowercase"] is False
    assert task.resolve_options({"words": None})["words"] == 2  # None = not given
    with pytest.raises(InputError, match="does not take --pool; it takes: --words, --field"):
        task.resolve_options({"pool": "corpus"})
    with pytest.raises(InputError, match="--words expects int, got 'many'"):
        task.resolve_options({"words": "many"})
    with pytest.raises(InputError, match="--field 'abstract' is not one of title"):
        task.resolve_options({"field": "abstract"})
    with pytest.raises(InputError, match="--lowercase expects bool"):
        task.resolve_options({"lowercase": "maybe"})


def test_parse_task_args_flags_values_and_negation() -> None:
    task = TitleLookupTask()
    assert parse_task_args(task, ["--words", "4", "--no-lowercase"]) == {
        "words": "4",
        "lowercase": False,
    }
    assert parse_task_args(task, ["--words=7", "--lowercase"]) == {"words": "7", "lowercase": True}
    with pytest.raises(InputError, match="does not take --pool"):
        parse_task_args(task, ["--pool", "corpus"])
    with pytest.raises(InputError, match="--words needs a value"):
        parse_task_args(task, ["--words"])
    with pytest.raises(InputError, match="unexpected argument 'stray'"):
        parse_task_args(task, ["stray"])
    # 'bench fit' words are parsed against the fit options (this task declares none)
    assert parse_task_args(task, [], fit=True) == {}
    with pytest.raises(InputError, match="'bench fit toy-title-lookup' does not take --words"):
        parse_task_args(task, ["--words", "3"], fit=True)


def test_list_options_take_comma_separated_values() -> None:
    option = TaskOption("context_words", list, ["1000"], "budgets", choices=())
    assert option.convert("100, 300,1000", task="t") == ["100", "300", "1000"]
    assert option.flag == "--context-words"


def test_undeclared_metric_is_refused(canned_papers: RecordingStore) -> None:
    class Drifting(TitleLookupTask):
        def score(
            self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
        ) -> TaskResult:
            result = super().score(instances, answers, options)
            result.aggregate["mrr"] = result.aggregate["MRR@10"]
            return result

    with pytest.raises(ValueError, match=r"undeclared metrics \['mrr'\]"):
        run_task(Drifting(), canned_papers, AnswerSource.ranker("bm25"))


def test_score_files_is_optional() -> None:
    with pytest.raises(NotSupported, match="does not score files"):
        TitleLookupTask().score_files(Path("d"), Path("p"), {})


def test_registry_loads_lazily_and_names_known_tasks(monkeypatch: pytest.MonkeyPatch) -> None:
    declared = registry.task_classes()
    extra = {"toy-title-lookup": f"{__name__}:TitleLookupTask"}
    monkeypatch.setattr(registry, "task_classes", lambda: {**declared, **extra})
    task = registry.load_task("toy-title-lookup")
    assert isinstance(task, TitleLookupTask)
    with pytest.raises(TaskNotFound, match=r"unknown task 'nope'; known: .*toy-title-lookup"):
        registry.load_task("nope")
    extra["other-name"] = f"{__name__}:TitleLookupTask"
    with pytest.raises(TaskNotFound, match="points at task 'toy-title-lookup'"):
        registry.load_task("other-name")

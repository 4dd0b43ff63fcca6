"""LGPLM as a task: retrieval, prompts, imported tables, scores.

Two graphs: the synthetic LEGOBench world (``tests/fixtures/legobench/lgplm/world.py``, loaded
with the real loaders; gold from ``HAS_ENTRY {method, score}``), and a three-paper graph
written by hand in the Papers-with-Code shape (gold from ``Result`` nodes). The world is read
through the recording double (``wdouble``: the rows the loaded graph returns, checked by
``test_lego_double.py``) where only the task's logic is under test, and from the embedded
FalkorDB (``wstore``) where a test checks what a run left in the graph; the PwC-shaped graph
is written to a real store. MR/MP/SP expectations are counted by hand in each test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _fakes import RecordingStore
from openpyxl import Workbook

from scholarkg.benchmark.metrics.extraction import NOT_COMPARABLE_NOTE
from scholarkg.benchmark.runs import RunRegistry, prompt_hash
from scholarkg.benchmark.tasks.legobench.lgplm import (
    RUN_TASK,
    approx_tokens,
    build_lgplm_instances,
    crop_to_tokens,
    lgplm_template,
    read_gold_file,
)
from scholarkg.benchmark.tasks.legobench.run import run_lgplm
from scholarkg.errors import InputError
from scholarkg.schema.ids import leaderboard_id
from scholarkg.store.falkordb.store import FalkorDBStore


def table(rows: list[tuple[str, float]], metric: str = "score") -> str:
    body = "\n".join(f"| {m} | {s:.2f} |" for m, s in rows)
    return f"| Method | {metric} |\n| --- | --- |\n{body}"


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# --------------------------------------------------------------------------- instances


def test_retrieval_stays_inside_the_leaderboard_papers(
    wdouble: RecordingStore, world: Any, world_mod: Any
) -> None:
    instances = build_lgplm_instances(wdouble, k=10)
    assert len(instances) == world_mod.N_LEADERBOARDS
    top3 = {i.id: i for i in build_lgplm_instances(wdouble, k=3)}
    for inst in instances:
        idx = world.index_of(inst.id)
        lb = world.corpus.leaderboards[idx]
        own = {f"arxiv:{world.corpus.papers[pi].arxiv_id}" for pi in lb.papers}
        assert set(inst.paper_ids) == own
        assert {c.paper_id for c in inst.chunks} <= own
        # every synthetic paper's full text is one chunk: min(k, papers) passages
        assert len(inst.chunks) == min(10, len(own))
        scores = [c.score for c in inst.chunks]
        assert scores == sorted(scores, reverse=True)
        assert [c.id for c in top3[inst.id].chunks] == [c.id for c in inst.chunks[:3]]
        assert inst.query == f"{lb.task} {lb.dataset} {lb.metric}"
        assert inst.gold == world.gold_entries(idx)  # HAS_ENTRY {method, score}, best first


def test_prompt_structure_and_context_cut(wdouble: RecordingStore) -> None:
    inst = build_lgplm_instances(wdouble, k=10, limit=1)[0]
    context = " ".join(c.text for c in inst.chunks)
    expected = lgplm_template().render(
        task=inst.task, dataset=inst.dataset, metric=inst.metric, context=context
    )
    assert inst.prompt == expected
    assert inst.prompt.startswith("Excerpt: ") and inst.prompt.endswith("Output:")
    assert not inst.context_truncated

    budget = 150
    cut = build_lgplm_instances(wdouble, k=10, limit=1, max_context_tokens=budget)[0]
    assert cut.context_truncated
    assert approx_tokens(cut.prompt) == budget - 3  # release: context = max - prompt - 3
    assert inst.prompt.startswith(cut.prompt.split("\nUsing only")[0])


def test_crop_to_tokens_by_hand() -> None:
    assert crop_to_tokens("a bb, c-d e", 3) == ("a bb,", True)
    assert crop_to_tokens("a bb", 5) == ("a bb", False)
    assert crop_to_tokens("a bb", 0) == ("", True)


def test_gold_file_matches_graph(wdouble: RecordingStore, world: Any) -> None:
    gold = read_gold_file(world.files["leaderboards"])
    assert gold == {world.lb_id(i): world.gold_entries(i) for i in range(len(gold))}
    from_file = build_lgplm_instances(wdouble, gold_path=world.files["leaderboards"])
    from_graph = build_lgplm_instances(wdouble)
    assert [i.gold for i in from_file] == [i.gold for i in from_graph]


# --------------------------------------------------------------------------- imported answers


def test_perfect_answers(wdouble: RecordingStore, world: Any, tmp_path: Path) -> None:
    rows = [
        {"id": world.lb_id(i), "answer": table(world.gold_entries(i), lb.metric)}
        for i, lb in enumerate(world.corpus.leaderboards)
    ]
    run = run_lgplm(wdouble, predictions_path=_write_jsonl(tmp_path / "p.jsonl", rows))
    assert run.task == RUN_TASK
    for name in ("MR", "MP", "SP_generated", "SP_correct"):
        assert run.metrics[name] == pytest.approx(100.0)
    n_gold = sum(len(lb.papers) for lb in world.corpus.leaderboards)
    assert run.metrics["n_gold_methods"] == n_gold
    assert run.notes == NOT_COMPARABLE_NOTE
    assert run.config["configuration"]["comparable_to_paper"] is False
    assert run.prompt_hashes == {"lgplm": prompt_hash(lgplm_template().text)}


def test_partly_wrong_answers_hand_computed(
    wstore: FalkorDBStore, world: Any, tmp_path: Path
) -> None:
    a, b = 0, 1
    gold_a, gold_b = world.gold_entries(a), world.gold_entries(b)
    n_a, n_b = len(gold_a), len(gold_b)
    wrong = [
        gold_a[0],  # right method, right score
        (gold_a[1][0], gold_a[1][1] + 5.0),  # right method, wrong score
        ("Inventednet", 50.0),  # not on the leaderboard
    ]
    answer_a = "Sure, here is the leaderboard.\n\n" + table(wrong) + "\n\nHope this helps."
    path = _write_jsonl(
        tmp_path / "partly.jsonl",
        [
            {"id": world.lb_id(a), "answer": answer_a},
            {"id": world.lb_id(b), "answer": table(gold_b)},
        ],
    )
    ids = [world.lb_id(a), world.lb_id(b)]
    run = run_lgplm(wstore, predictions_path=path, ids=ids, registry=RunRegistry(tmp_path))
    # micro: correct methods 2 + n_b of n_a + n_b gold; generated 3 + n_b; scores 1 + n_b
    assert run.metrics["MR"] == pytest.approx(100 * (2 + n_b) / (n_a + n_b))
    assert run.metrics["MP"] == pytest.approx(100 * (2 + n_b) / (3 + n_b))
    assert run.metrics["SP_generated"] == pytest.approx(100 * (1 + n_b) / (3 + n_b))
    assert run.metrics["SP_correct"] == pytest.approx(100 * (1 + n_b) / (2 + n_b))
    assert run.per_instance[world.lb_id(a)] == {
        "MR": pytest.approx(100 * 2 / n_a),
        "MP": pytest.approx(100 * 2 / 3),
        "SP_generated": pytest.approx(100 * 1 / 3),
        "SP_correct": pytest.approx(50.0),
    }
    macro = run_lgplm(wstore, predictions_path=path, ids=ids, average="macro")
    assert macro.metrics["MR"] == pytest.approx((100 * 2 / n_a + 100) / 2)
    # the answers are stored next to the leaderboards
    rows = wstore.run(
        "MATCH (:Run {id: $id})-[a:ANSWERED]->(lb:Leaderboard {id: $lb}) RETURN a.text AS t",
        {"id": run.id, "lb": world.lb_id(a)},
    )
    assert rows == [{"t": answer_a}]


def test_ldb_workbook_aligned_by_query_columns(
    wdouble: RecordingStore, world: Any, tmp_path: Path
) -> None:
    wb = Workbook()
    ws = wb.active
    ws.append([None, "task", "dataset", "metric", "GT", "tinymodel_ldb"])
    for i, lb in enumerate(world.corpus.leaderboards[:4]):
        answer = table(world.gold_entries(i)) if i != 2 else None
        ws.append([i, lb.task, lb.dataset, lb.metric, "gold table not used", answer])
    path = tmp_path / "tinymodel.xlsx"
    wb.save(path)
    ids = [world.lb_id(i) for i in range(4)]
    run = run_lgplm(wdouble, predictions_path=path, ids=ids)
    assert run.models == {"llm": "tinymodel"}
    n = [len(world.gold_entries(i)) for i in range(4)]
    assert run.metrics["MR"] == pytest.approx(100 * (sum(n) - n[2]) / sum(n))
    assert run.metrics["MP"] == pytest.approx(100.0)
    assert run.config["answer"]["extra"]["n_blank_predictions"] == 1


# --------------------------------------------------------------------------- PwC-shaped graph


PAPER_TEXT = (
    "Results\n\nTable 2: accuracy on Toyset (toy classification).\n"
    "| Model | accuracy |\n| --- | --- |\n| Alphanet | 91.50 |\n| Betaformer | 88.25 |\n\n"
    "Discussion\n\nWe thank the toy reviewers."
)


def _pwc_graph(store: FalkorDBStore) -> str:
    """Leaderboard ⟨toy classification, Toyset, accuracy⟩ with three Results, two papers."""
    lb = leaderboard_id("toy classification", "Toyset", "accuracy")
    store.merge_nodes(
        "Leaderboard",
        [{"id": lb, "task": "toy classification", "dataset": "Toyset", "metric": "accuracy"}],
    )
    store.merge_nodes("Paper", [{"id": "paper:a", "title": "A"}, {"id": "paper:b", "title": "B"}])
    store.merge_nodes(
        "Chunk",
        [
            {"id": "paper:a/chunk/0", "paper": "paper:a", "ordinal": 0, "text": PAPER_TEXT},
            {"id": "paper:b/chunk/0", "paper": "paper:b", "ordinal": 0, "text": "Unrelated."},
        ],
    )
    store.merge_relationships(
        "HAS_CHUNK", "Paper", "Chunk",
        [{"start": "paper:a", "end": "paper:a/chunk/0"},
         {"start": "paper:b", "end": "paper:b/chunk/0"}],
    )  # fmt: skip
    results = [("r1", "Alphanet", 91.5, "paper:a"), ("r2", "Betaformer", 88.25, "paper:a"),
               ("r3", "Gammaboost", 80.0, "paper:b")]  # fmt: skip
    store.merge_nodes(
        "Result", [{"id": r, "method": m, "score": s, "task": "toy"} for r, m, s, _ in results]
    )
    store.merge_relationships(
        "IN_LEADERBOARD", "Result", "Leaderboard", [{"start": r, "end": lb} for r, *_ in results]
    )
    store.merge_relationships(
        "HAS_RESULT", "Paper", "Result", [{"start": p, "end": r} for r, _, _, p in results]
    )
    return lb


def test_gold_from_results_and_papers_via_has_result(store: FalkorDBStore, tmp_path: Path) -> None:
    lb = _pwc_graph(store)
    (inst,) = build_lgplm_instances(store, k=1)
    assert inst.id == lb
    assert sorted(inst.gold) == [("Alphanet", 91.5), ("Betaformer", 88.25), ("Gammaboost", 80.0)]
    assert inst.paper_ids == ["paper:a", "paper:b"]
    assert [c.id for c in inst.chunks] == ["paper:a/chunk/0"]  # the passage naming the query
    answer = (
        "| Model | accuracy |\n|---|---|\n| AlphaNet | 91.5 |\n| Betaformer | 0.8825 |\n"
        "| Deltanet | 70.0 |"
    )
    path = _write_jsonl(tmp_path / "toy.jsonl", [{"id": lb, "answer": answer, "model": "toy"}])
    run = run_lgplm(store, predictions_path=path, k=1)
    # gold 3; generated 3; correct methods 2 (case folded); scores 2 (0.8825 = 88.25 %)
    assert run.metrics["MR"] == pytest.approx(100 * 2 / 3)
    assert run.metrics["MP"] == pytest.approx(100 * 2 / 3)
    assert run.metrics["SP_generated"] == pytest.approx(100 * 2 / 3)
    assert run.metrics["SP_correct"] == pytest.approx(100.0)


def test_bad_input(store: FalkorDBStore, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no leaderboard has both"):
        run_lgplm(store, predictions_path=_write_jsonl(tmp_path / "x.jsonl", [{"id": "a",
                  "answer": ""}]))  # fmt: skip
    bad = tmp_path / "leaderboards.jsonl"
    bad.write_text(
        '{"task": "t", "dataset": "d", "metric": "m", "methods": ["a"], "scores": [1]}\n'
        '{"task": "t", "dataset": "d2", "metric": "m", "methods": ["a", "b"], "scores": [1]}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as err:
        read_gold_file(bad)
    assert (err.value.line, err.value.field) == (2, "scores")

"""RPLM as a task: prompts from the graph, imported answers, scores.

The graph is the synthetic LEGOBench world (300 papers, 15 leaderboards) loaded with the real
loaders (``tests/fixtures/legobench/lgplm/world.py``). Prompt building, answer import and
scoring read it through the recording double (``wdouble``: the rows the loaded graph returns,
checked by ``test_lego_double.py``); what a run leaves in a real graph, and entries a real
store refuses, are checked on the embedded FalkorDB (``wstore``, ``store``). Expected scores
are computed by hand from the gold lists of that world, never read back from the code under
test.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from _fakes import RecordingStore
from openpyxl import Workbook

from scholarkg.benchmark.runs import RunRegistry, prompt_hash
from scholarkg.benchmark.tasks.legobench.rplm import (
    RUN_TASK,
    build_rplm_instances,
    rplm_template,
)
from scholarkg.benchmark.tasks.legobench.run import run_rplm
from scholarkg.errors import InputError
from scholarkg.store.base import GraphReader
from scholarkg.store.falkordb.store import FalkorDBStore

WORLD_WITH_RPLM = True  # wstore and wdouble (conftest) also hold the rplm.xlsx leaderboards


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _paper_instances(store: GraphReader, **kw: Any) -> list[Any]:
    return build_rplm_instances(store, entries="paper", **kw)


# --------------------------------------------------------------------------- prompt building


def test_instances_come_from_the_graph_in_gold_order(
    wdouble: RecordingStore, world: Any, world_mod: Any
) -> None:
    instances = build_rplm_instances(wdouble, seed=3, entries="all")
    papers = [i for i in instances if i.entry_kind == "Paper"]
    lines = [i for i in instances if i.entry_kind == "TitleLine"]
    assert len(papers) == len(lines) == world_mod.N_LEADERBOARDS
    # by default a graph with the released rplm.xlsx rows runs those only (one benchmark)
    auto = build_rplm_instances(wdouble, seed=3)
    assert [i.id for i in auto] == [i.id for i in lines]
    assert [i.id for i in _paper_instances(wdouble, seed=3)] == [i.id for i in papers]
    for inst in papers:
        idx = world.index_of(inst.id)
        lb = world.corpus.leaderboards[idx]
        assert (inst.task, inst.dataset, inst.metric) == (lb.task, lb.dataset, lb.metric)
        assert inst.gt == world.gold_titles(idx)  # gold = gt_rank order, best first
        assert Counter(inst.options) == Counter(inst.gt)  # same multiset, shuffled
    # rplm.xlsx leaderboards come first, in sheet row order (legobench-paper scores rows 0..100)
    assert [i.row for i in instances[: len(lines)]] == list(range(len(lines)))
    assert all(i.entry_kind == "TitleLine" for i in instances[: len(lines)])


def test_seeded_shuffle_is_deterministic_and_per_instance(wdouble: RecordingStore) -> None:
    a = _paper_instances(wdouble, seed=11)
    b = _paper_instances(wdouble, seed=11)
    c = _paper_instances(wdouble, seed=12)
    assert [i.options for i in a] == [i.options for i in b]
    assert [i.prompt for i in a] == [i.prompt for i in b]
    assert [i.options for i in a] != [i.options for i in c]
    # the shuffle of one leaderboard does not depend on which others are built
    one = build_rplm_instances(wdouble, seed=11, ids=[a[4].id])
    assert one[0].options == a[4].options
    limited = build_rplm_instances(wdouble, seed=11, limit=2)
    assert [i.id for i in limited] == [i.id for i in build_rplm_instances(wdouble, seed=11)][:2]


def test_prompt_keeps_the_release_structure(wdouble: RecordingStore) -> None:
    inst = _paper_instances(wdouble, seed=0)[0]
    head, query, *options = inst.prompt.split("\n")
    template_head = rplm_template().text.split("\n")[0]
    assert head == template_head
    assert query == (
        f"Query - Rank the performance of the following papers on the {inst.task} task on "
        f"dataset {inst.dataset} using metric {inst.metric}:"
    )
    assert options == inst.options  # instruction + "\n" + options, nothing after


def test_stored_shuffle_replays_the_xlsx_options(wdouble: RecordingStore, world: Any) -> None:
    from scholarkg.loaders.legobench_rplm import read_rplm_gold

    sheet = list(read_rplm_gold(world.files["rplm"]))
    built = build_rplm_instances(wdouble, shuffle="stored", seed=4, entries="all")
    lines = [i for i in built if i.row is not None]
    assert [(i.options, i.gt) for i in lines] == [(s.options, s.gt) for s in sheet]
    assert {i.shuffle for i in lines} == {"stored"}
    # leaderboards from the GT file have no released order: seeded shuffle as before
    papers = [i for i in built if i.row is None]
    assert {i.shuffle for i in papers} == {"seeded"}
    assert [i.options for i in papers] == [i.options for i in _paper_instances(wdouble, seed=4)]
    with pytest.raises(InputError, match="shuffle"):
        build_rplm_instances(wdouble, shuffle="sorted")
    with pytest.raises(InputError, match="entries"):
        build_rplm_instances(wdouble, entries="papers")


# --------------------------------------------------------------------------- imported answers


def test_perfect_and_reversed_answer_files(wstore: FalkorDBStore, tmp_path: Path) -> None:
    instances = _paper_instances(wstore, seed=5)
    ids = [i.id for i in instances]
    perfect = _write_jsonl(
        tmp_path / "perfect.jsonl",
        [{"id": i.id, "response": "\n".join(i.gt), "model": "oracle"} for i in instances],
    )
    reverse = _write_jsonl(
        tmp_path / "reverse.jsonl",
        [{"id": i.id, "response": "\n".join(reversed(i.gt))} for i in instances],
    )
    registry = RunRegistry(tmp_path / "runs")
    run = run_rplm(wstore, predictions_path=perfect, ids=ids, seed=5, registry=registry)
    assert run.task == RUN_TASK
    assert run.metrics["CIS"] == pytest.approx(100.0)
    assert run.metrics["BEM"] == pytest.approx(1.0)
    assert run.metrics["KTau"] == pytest.approx(1.0)
    assert run.metrics["CP"] == pytest.approx(100.0)
    assert run.models == {"llm": "oracle"}
    assert run.prompt_hashes == {"rplm": prompt_hash(rplm_template().text)}
    assert set(run.per_instance) == set(ids)
    assert registry.load(run.id) == run

    rev = run_rplm(wstore, predictions_path=reverse, ids=ids, seed=5, registry=registry)
    assert rev.metrics["CIS"] == pytest.approx(100.0)
    assert rev.metrics["BEM"] == pytest.approx(0.0)
    assert rev.metrics["KTau"] == pytest.approx(-1.0)
    assert rev.metrics["CP"] == pytest.approx(0.0)
    assert rev.models == {"llm": "reverse"}  # no model field: the file stem

    # the run, its scores and the answers are in the graph
    rows = wstore.run(
        "MATCH (r:Run {id: $id})-[a:ANSWERED]->(lb:Leaderboard) RETURN lb.id AS id, a.text AS t",
        {"id": rev.id},
    )
    answered = {r["id"]: r["t"] for r in rows}
    assert answered == {i.id: "\n".join(reversed(i.gt)) for i in instances}
    scored = wstore.run(
        "MATCH (:Run {id: $id})-[:SCORED]->(m:MetricResult) RETURN m.name AS n, m.value AS v",
        {"id": rev.id},
    )
    assert {r["n"]: r["v"] for r in scored}["KTau"] == pytest.approx(-1.0)


def test_mixed_answers_hand_computed(wdouble: RecordingStore, tmp_path: Path) -> None:
    """Three leaderboards: perfect, reversed, last title missing; one with no prediction."""
    a, b, c, d = _paper_instances(wdouble, seed=1)[:4]
    n = len(c.gt)
    path = _write_jsonl(
        tmp_path / "mixed.jsonl",
        [
            {"id": a.id, "response": "Here is the ranking:\n" + "\n".join(a.gt)},
            {"id": b.id, "response": "\n".join(reversed(b.gt))},
            {"id": c.id, "response": "\n".join(c.gt[:-1])},
            {"id": "lb:not-in-this-graph", "response": "ignored"},
        ],
    )
    run = run_rplm(wdouble, predictions_path=path, ids=[a.id, b.id, c.id, d.id], seed=1)
    # CIS: a and b complete out of 4 scored (c incomplete, d unanswered)
    assert run.metrics["CIS"] == pytest.approx(100 * 2 / 4)
    # BEM over complete: a exact, b not
    assert run.metrics["BEM"] == pytest.approx(0.5)
    # KTau over complete: (1 + -1) / 2
    assert run.metrics["KTau"] == pytest.approx(0.0)
    # CP: a all pairs, b none, c the C(n-1, 2) pairs among the found titles, d none
    cp_c = math.comb(n - 1, 2) / math.comb(n, 2)
    assert run.metrics["CP"] == pytest.approx(100 * (1 + 0 + cp_c + 0) / 4)
    assert run.per_instance[c.id] == {"complete": 0.0, "exact": None, "KTau": None,
                                      "CP": pytest.approx(100 * cp_c)}  # fmt: skip
    extra = run.config["answer"]["extra"]
    assert extra["n_unmatched_predictions"] == 1
    assert extra["n_missing_predictions"] == 1


def test_legobench_paper_protocol(wdouble: RecordingStore, tmp_path: Path) -> None:
    """GPT-4-style list-literal cells: decoded under clean, raw (still found) under the paper."""
    instances = _paper_instances(wdouble, seed=2)[:3]
    x = instances[0]
    path = _write_jsonl(
        tmp_path / "gpt4.jsonl",
        [{"id": i.id, "response": repr(list(i.gt))} for i in instances],
    )
    ids = [i.id for i in instances]
    clean = run_rplm(wdouble, predictions_path=path, ids=ids, seed=2)
    paper = run_rplm(wdouble, predictions_path=path, ids=ids, seed=2, protocol="legobench-paper")
    for r in (clean, paper):
        assert r.metrics["CIS"] == pytest.approx(100.0)
        assert r.metrics["KTau"] == pytest.approx(1.0)
    assert paper.config["configuration"]["protocol"] == "legobench-paper"
    assert "legobench-paper" in (paper.notes or "")
    # the raw cell keeps the brackets and quotes: the first title sits after "['"
    assert paper.per_instance[x.id]["complete"] == 1.0


def test_released_workbook_layout(wdouble: RecordingStore, world: Any, tmp_path: Path) -> None:
    """An open-model answer workbook (``prompt, GT, <stem>_gen_rank``) aligned by GT text."""
    from scholarkg.loaders.legobench_rplm import read_rplm_gold

    sheet = list(read_rplm_gold(world.files["rplm"]))
    wb = Workbook()
    ws = wb.active
    ws.append([None, "prompt", "GT", "tinymodel_gen_rank"])
    for s in sheet:
        answer = "\n".join(s.gt) if s.row % 2 == 0 else None  # odd rows left blank
        ws.append([s.row, s.instruction + "\n" + "\n".join(s.options), "\n".join(s.gt), answer])
    path = tmp_path / "tinymodel.xlsx"
    wb.save(path)
    line_ids = [i.id for i in build_rplm_instances(wdouble) if i.entry_kind == "TitleLine"]
    run = run_rplm(wdouble, predictions_path=path, ids=line_ids)
    n_even = sum(1 for s in sheet if s.row % 2 == 0)
    assert run.models == {"llm": "tinymodel"}
    assert run.config["answer"]["extra"]["layout"] == "workbook"
    assert run.config["answer"]["extra"]["n_blank_predictions"] == len(sheet) - n_even
    assert run.metrics["CIS"] == pytest.approx(100 * n_even / len(sheet))
    assert run.metrics["BEM"] == pytest.approx(1.0)
    assert run.metrics["CP"] == pytest.approx(100 * n_even / len(sheet))


def test_bad_calls_raise_input_error(wdouble: RecordingStore, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="exactly one"):
        run_rplm(wdouble)
    path = _write_jsonl(tmp_path / "p.jsonl", [{"id": "lb:nowhere", "response": "x"}])
    with pytest.raises(InputError, match="none of the 1 prediction ids") as err:
        run_rplm(wdouble, predictions_path=path)
    assert err.value.field == "id" and err.value.path == str(path)
    with pytest.raises(InputError, match="protocol"):
        run_rplm(wdouble, predictions_path=path, protocol="paper")


def test_broken_entries_raise_input_error(store: FalkorDBStore) -> None:
    store.merge_nodes("Leaderboard", [{"id": "lb:x", "task": "t", "dataset": "d", "metric": "m"}])
    store.merge_nodes("Paper", [{"id": "paper:1", "title": "One"}, {"id": "paper:2"}])
    store.merge_relationships(
        "HAS_ENTRY", "Leaderboard", "Paper", [{"start": "lb:x", "end": "paper:1", "gt_rank": 1}]
    )
    assert [i.gt for i in build_rplm_instances(store)] == [["One"]]
    store.merge_relationships("HAS_ENTRY", "Leaderboard", "Paper",
                              [{"start": "lb:x", "end": "paper:2", "gt_rank": 2}])  # fmt: skip
    with pytest.raises(InputError, match="paper:2 has no title") as err:
        build_rplm_instances(store)
    assert err.value.field == "title"
    store.merge_nodes("Paper", [{"id": "paper:2", "title": "Two"}, {"id": "paper:3", "title": "3"}])
    store.merge_relationships("HAS_ENTRY", "Leaderboard", "Paper",
                              [{"start": "lb:x", "end": "paper:3"}])  # fmt: skip
    with pytest.raises(InputError, match="no gt_rank") as err:
        build_rplm_instances(store)
    assert err.value.field == "gt_rank"

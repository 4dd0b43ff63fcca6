"""AAAR-1.0 and ReviewCritique loaders on synthetic files in the released layouts.

Through the real CLI (``scholarkg load aaar|reviewcritique``) into a fresh graph of the
session's embedded server, then read back with Cypher: parents are edges, lists keep their
order, both EqInfer option layouts load, NaN becomes null, the old demo keys are read, loads
are idempotent, and bad input names file, record and field.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders import aaar as loader
from scholarkg.store.base import GraphStore

FIX = Path(__file__).parent.parent / "fixtures" / "aaar"


def _counts(store: GraphStore) -> dict[str, int]:
    c = store.counts()
    return {**c.nodes, **{f"-{k}": v for k, v in c.relationships.items()}}


def test_load_all_three_aaar_tasks_and_reviewcritique(graph_env: str, store: GraphStore) -> None:
    out = cli_ok(["load", "aaar", str(FIX)])
    assert "EqItem" in out and "Weakness" in out and "Experiment" in out
    cli_ok(["load", "reviewcritique", str(FIX / "ReviewCritique.jsonl")])
    first = _counts(store)
    # 4 EqInfer items x 4 options; 2 + 1 experiments with explanations; 3 + 1 weaknesses
    assert first["EqItem"] == 4 and first["Equation"] == 16 and first["-HAS_OPTION"] == 16
    assert first["Experiment"] == 3 and first["Explanation"] == 3
    assert first["Weakness"] == 4 and first["ReviewSegment"] == 8
    # idempotent: a second load changes nothing
    cli_ok(["load", "aaar", str(FIX)])
    cli_ok(["load", "reviewcritique", str(FIX / "ReviewCritique.jsonl")])
    assert _counts(store) == first

    # parents are edges, never properties
    parents = [("Review", "paper"), ("Weakness", "review"), ("ReviewSegment", "review"),
               ("Experiment", "paper"), ("Section", "paper"), ("Equation", "item")]  # fmt: skip
    for label, prop in parents:
        rows = store.run(f"MATCH (n:{label}) WHERE n.{prop} IS NOT NULL RETURN count(n) AS c")
        assert rows == [{"c": 0}], label

    exps = store.run(
        "MATCH (p:Paper {id: 'arxiv:2402.00001'})-[h:HAS_EXPERIMENT]->(e:Experiment)"
        "-[:EXPLAINED_BY]->(x:Explanation) RETURN h.ordinal AS k, e.text AS e, x.text AS x "
        "ORDER BY k"
    )
    assert exps == [
        {"k": 1, "e": "1. alpha study", "x": "1. gamma reason"},
        {"k": 2, "e": "2. beta study", "x": "2. delta reason"},
    ]
    figs = store.run("MATCH (p:Paper)-[:HAS_FIGURE]->(f:Figure) RETURN f.name AS n, f.kind AS k "
                     "ORDER BY n")  # fmt: skip
    assert figs == [
        {"n": "2402.00001-Figure1.png", "k": "figure"},
        {"n": "WkA1-Figure1.png", "k": "figure"},
        {"n": "WkA1-Table1.png", "k": "table"},
    ]
    # EqInfer item without options_list: the options string was split into four equations
    opts = store.run(
        "MATCH (i:EqItem {index: 1})-[o:HAS_OPTION]->(e:Equation) "
        "RETURN o.letter AS l, e.latex AS latex, e.correct AS ok ORDER BY l"
    )
    assert [r["latex"] for r in opts] == ["k(a,b) = e^{-|a-b|}", "k(a,b) = a b", "k(a,b) = 0",
                                          "k(a,b) = a + b"]  # fmt: skip
    assert [r["ok"] for r in opts] == [False, True, False, False]

    # Weakness: one Review per reviewer (the empty list too), sections in order, old demo keys
    revs = store.run(
        "MATCH (r:Review)-[:REVIEWS]->(p:Paper {title: 'Zorb Nets for Glim Tasks'}) "
        "OPTIONAL MATCH (r)-[h:HAS_WEAKNESS]->(w:Weakness) "
        "RETURN r.reviewer AS r, collect(w.text) AS ws ORDER BY r"
    )
    assert [(r["r"], sorted(r["ws"])) for r in revs] == [
        ("1", ["1. alpha weak", "2. beta weak"]), ("2", ["1. alpha issue"]), ("3", []),
    ]  # fmt: skip
    demo = store.run("MATCH (p:Paper {title: 'Flum Layers Revisited'}) RETURN p.venue AS v, "
                     "p.url AS u")  # fmt: skip
    assert demo == [{"v": "ICLR_2023", "u": "https://openreview.net/forum?id=WkB2"}]

    # ReviewCritique: NaN -> null, deficient flags, segments in order, LLM writer
    segs = store.run(
        "MATCH (r:Review {reviewer: 'review#1'})-[h:HAS_SEGMENT]->(s:ReviewSegment) "
        "RETURN h.ordinal AS k, s.deficient AS d, s.explanation AS x, s.error_type AS t "
        "ORDER BY k"
    )
    assert [(s["d"], s["x"], s["t"]) for s in segs] == [
        (False, None, None), (True, "the claim ignores table two", "Misunderstanding"),
        (False, None, None), (True, None, "vague"),
    ]  # fmt: skip
    llm = store.run("MATCH (r:Review {reviewer: 'gpt4'}) RETURN r.writer AS w, r.rating AS s, "
                    "r.decision AS d")  # fmt: skip
    assert llm == [{"w": "gpt4", "s": 5.0, "d": "Accept"}]


def test_task_detection_and_explicit_task(tmp_path: Path) -> None:
    assert loader.detect_task(FIX / "Equation_Inference") == "eqinfer"
    assert loader.detect_task(FIX / "Experiment_Design") == "expdesign"
    assert loader.detect_task(FIX / "Paper_Weakness" / "WkA1" / "data_text.json") == "weakness"
    assert [t for t, _ in loader.task_sources(FIX)] == ["eqinfer", "expdesign", "weakness"]
    with pytest.raises(InputError, match=r"not an AAAR-1\.0"):
        bad = tmp_path / "x.json"
        bad.write_text("{}")
        loader.detect_task(bad)


def test_eqinfer_options_with_and_without_options_list() -> None:
    items = loader.parse_eqinfer(FIX / "Equation_Inference" / "equation.json")
    assert [i.answer for i in items] == ["A", "B", "C", "D"]
    assert items[3].options_list == ("s = t", "s = 2t", "s = t/3", "s = t - 1")
    assert loader.parse_options("(A). `a`;\n(B). `b`") is None  # three markers missing


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    if (FIX / name).is_dir():
        shutil.copytree(FIX / name, target)
    else:
        shutil.copy(FIX / name, target)
    return target


def test_bad_input_names_file_record_and_field(tmp_path: Path) -> None:
    eq = _copy(tmp_path, "Equation_Inference")
    items = json.loads((eq / "equation.json").read_text())
    items[2]["answer"] = "E"
    (eq / "equation.json").write_text(json.dumps(items))
    with pytest.raises(InputError) as info:
        loader.parse_eqinfer(eq / "equation.json")
    assert info.value.line == 3 and info.value.field == "[2].answer"
    assert "equation.json" in str(info.value)

    items[2]["answer"] = "C"
    del items[1]["options"]
    (eq / "equation.json").write_text(json.dumps(items))
    with pytest.raises(InputError, match="missing field") as info:
        loader.parse_eqinfer(eq / "equation.json")
    assert info.value.field == "[1].options"

    wk = _copy(tmp_path, "Paper_Weakness")
    data = json.loads((wk / "WkA1" / "data_text.json").read_text())
    data["output"][1] = ["1. fine", 7]
    (wk / "WkA1" / "data_text.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="expected a string") as info:
        loader.parse_folder(wk, "weakness")
    assert info.value.field == "output[1][1]" and "WkA1" in str(info.value)

    rc = tmp_path / "rc.jsonl"
    lines = (FIX / "ReviewCritique.jsonl").read_text().splitlines()
    lines[1] = lines[1].replace('"reliability": "No"', '"reliability": "Maybe"', 1)
    rc.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="reliability must be") as info:
        loader.parse_reviewcritique(rc)
    assert info.value.line == 2 and info.value.field == "gpt4.review[1].reliability"


def test_bad_line_keeps_what_was_stored_and_resume(
    graph_env: str, store: GraphStore, tmp_path: Path
) -> None:
    rc = tmp_path / "rc.jsonl"
    lines = (FIX / "ReviewCritique.jsonl").read_text().splitlines()
    rc.write_text(lines[0] + "\n" + "{not json\n")
    res = runner.invoke(app, ["load", "reviewcritique", str(rc)])
    assert isinstance(res.exception, InputError) and res.exception.line == 2
    assert store.run("MATCH (r:Review) RETURN count(r) AS c") == [{"c": 2}]  # line 1 stored
    rc.write_text(lines[0] + "\n" + lines[1] + "\n")
    cli_ok(["load", "reviewcritique", str(rc), "--resume"])
    assert store.run("MATCH (r:Review) RETURN count(r) AS c") == [{"c": 3}]


def test_load_one_task_folder_with_explicit_task(graph_env: str, store: GraphStore) -> None:
    cli_ok(["load", "aaar", str(FIX / "Experiment_Design"), "--task", "expdesign"])
    assert store.run("MATCH (e:Experiment) RETURN count(e) AS c") == [{"c": 3}]
    assert store.run("MATCH (w:Weakness) RETURN count(w) AS c") == [{"c": 0}]
    res = runner.invoke(app, ["load", "aaar", str(FIX / "Experiment_Design"), "--task", "nope"])
    assert isinstance(res.exception, InputError) and "unknown AAAR task 'nope'" in str(
        res.exception
    )


def test_read_json_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        loader.read_json(tmp_path / "absent.json")

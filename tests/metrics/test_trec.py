"""TREC qrels/run and JSONL readers: fixtures parse, malformed files name file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from scholarkg.benchmark.metrics import evaluate
from scholarkg.benchmark.metrics.trec import (
    is_jsonl,
    read_predictions,
    read_qrels,
    read_ranked_jsonl,
    read_run,
    write_qrels,
    write_ranked_jsonl,
    write_run,
)
from scholarkg.errors import InputError

FIX = Path(__file__).parent.parent / "fixtures" / "trec"


def test_read_fixtures() -> None:
    qrels = read_qrels(FIX / "qrels.txt")
    assert qrels == {
        "q1": {"a": 2, "b": 0, "c": 1, "d": 3, "e": 1},
        "q2": {"f": 1, "g": 0},
        "q3": {"h": 1},
    }
    run = read_run(FIX / "run.trec", known_qids=qrels)
    assert run["q1"] == {"b": 5.0, "a": 4.0, "x": 3.0, "c": 2.0, "d": 1.0}
    lists = read_ranked_jsonl(FIX / "run.jsonl", known_qids=qrels)
    assert lists == {"q1": ["b", "a", "x", "c", "d"], "q2": ["g", "f"]}
    assert is_jsonl(FIX / "run.jsonl") and not is_jsonl(FIX / "run.trec")
    # the TREC run (tie on q2 broken by docid desc) scores exactly like the explicit lists
    names = ["P@2", "MAP", "nDCG@3", "MRR"]
    assert evaluate(qrels, run, names).per_query == evaluate(qrels, lists, names).per_query


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("q1 0 a 1\nq1 0 b\n", 2, "4 columns"),
        ("q1 0 a 1\n\nq1 0 a 2\n", 3, "judged twice"),
        ("q1 0 a high\n", 1, "not a number"),
        ("q1 0 a nan\n", 1, "finite"),
    ],
)
def test_malformed_qrels(tmp_path: Path, text: str, line: int, needle: str) -> None:
    path = write(tmp_path, "bad.qrels", text)
    with pytest.raises(InputError, match=needle) as err:
        read_qrels(path)
    assert err.value.path == str(path) and err.value.line == line
    assert f"{path}:line {line}" in str(err.value)


@pytest.mark.parametrize(
    ("text", "line", "needle", "field"),
    [
        ("q1 Q0 a 1 1.0 t\nq1 Q0 a 2 0.5 t\n", 2, "twice", None),
        ("q1 Q0 a 1 1.0 t\nq9 Q0 a 1 1.0 t\n", 2, "not in the qrels", "qid"),
        ("q1 Q0 a 1 abc t\n", 1, "not a number", "score"),
        ("q1 Q0 a one 1.0 t\n", 1, "not an integer", "rank"),
        ("q1 Q0 a 1 1.0\n", 1, "6 columns", None),
        ("q1 Q0 a 1 1.0 t extra\n", 1, "6 columns", None),
    ],
)
def test_malformed_runs(
    tmp_path: Path, text: str, line: int, needle: str, field: str | None
) -> None:
    path = write(tmp_path, "bad.run", text)
    with pytest.raises(InputError, match=needle) as err:
        read_run(path, known_qids={"q1"})
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ('{"id": "q1", "ranking": []}\n', 1, "empty ranking"),
        ('{"id": "q1", "ranking": ["a"]}\n{"id": "q1", "ranking": ["b"]}\n', 2, "twice"),
        ('{"id": "q1", "ranking": ["a", "b", "a"]}\n', 1, "appears twice"),
        ('{"id": "q9", "ranking": ["a"]}\n', 1, "not a known query"),
        ('{"id": "q1", "ranking": "a b"}\n', 1, "expected a list"),
        ('{"id": "q1"}\n', 1, "missing"),
        ('{"ranking": ["a"]}\n', 1, "missing"),
        ("not json\n", 1, "invalid JSON"),
        ("[1, 2]\n", 1, "JSON object"),
    ],
)
def test_malformed_jsonl(tmp_path: Path, text: str, line: int, needle: str) -> None:
    path = write(tmp_path, "bad.jsonl", text)
    with pytest.raises(InputError, match=needle) as err:
        read_ranked_jsonl(path, known_qids={"q1"})
    assert (err.value.path, err.value.line) == (str(path), line)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"id": "lb1", "response": "   "}\n', "empty prediction"),
        ('{"id": "lb1", "ranking": []}\n', "empty prediction"),
        ('{"id": "lb1", "response": 3}\n', "expected a string"),
        ('{"id": "lb1"}\n', "missing field"),
        ('{"id": "nope", "response": "x"}\n', "not in the gold file"),
    ],
)
def test_malformed_predictions(tmp_path: Path, text: str, needle: str) -> None:
    path = write(tmp_path, "bad.jsonl", text)
    with pytest.raises(InputError, match=needle) as err:
        read_predictions(path, known_ids={"lb1"})
    assert err.value.line == 1


def test_predictions_fixture_and_gold_duplicates() -> None:
    preds = read_predictions(FIX / "lists_predictions.jsonl")
    assert preds["lb2"] == "Epsilon Graph\nDelta Search"
    assert preds["lb1"].startswith("Ranked by accuracy:")
    gold = read_ranked_jsonl(FIX / "lists_gold.jsonl", allow_duplicates=True)
    assert gold["lb1"] == ["Alpha Net", "Beta Former", "Gamma Model"]


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        read_qrels(tmp_path / "absent.txt")
    empty = write(tmp_path, "empty.txt", "\n\n")
    for reader in (read_qrels, read_run, read_ranked_jsonl, read_predictions):
        with pytest.raises(InputError, match="no "):
            reader(empty)
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"q1 0 \xff 1\n")
    with pytest.raises(InputError, match="UTF-8"):
        read_qrels(binary)


def test_writers_round_trip(tmp_path: Path) -> None:
    qrels = {"q1": {"a": 2.0, "b": 0.5}}
    write_qrels(tmp_path / "q.txt", qrels)
    assert (tmp_path / "q.txt").read_text() == "q1 0 a 2\nq1 0 b 0.5\n"
    assert read_qrels(tmp_path / "q.txt") == qrels

    lists = {"q1": ["c", "a", "b"]}
    write_run(tmp_path / "r.trec", lists, tag="t1")
    lines = (tmp_path / "r.trec").read_text().splitlines()
    assert lines[0] == "q1 Q0 c 1 3.0 t1"
    scored = read_run(tmp_path / "r.trec")
    assert sorted(scored["q1"], key=scored["q1"].__getitem__, reverse=True) == ["c", "a", "b"]
    write_run(tmp_path / "s.trec", {"q1": {"a": 1.0, "b": 1.0}})
    assert [ln.split()[2] for ln in (tmp_path / "s.trec").read_text().splitlines()] == ["b", "a"]

    write_ranked_jsonl(tmp_path / "r.jsonl", lists)
    assert read_ranked_jsonl(tmp_path / "r.jsonl") == lists
    with pytest.raises(InputError, match="whitespace"):
        write_qrels(tmp_path / "x.txt", {"q 1": {"a": 1}})
    assert not (tmp_path / "x.txt").exists()

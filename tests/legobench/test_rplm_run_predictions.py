"""Prediction files for the LLM tasks: the documented JSONL format and the released workbooks.

Every malformed input must raise InputError naming the file, the line and the field, so a
user can fix the file without reading code.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from openpyxl import Workbook

from scholarkg.benchmark.tasks.predictions import (
    AlignmentKey,
    PredictionFormat,
    import_predictions,
    read_predictions,
)
from scholarkg.errors import InputError, TaskNotFound


def _file(tmp_path: Path, text: str, name: str = "p.jsonl") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_round_trip(tmp_path: Path) -> None:
    path = _file(
        tmp_path,
        '{"id": "lb:1", "response": "A\\nB", "model": "m1"}\n\n'
        '{"id": 7, "response": null, "meta": {"seconds": 1.5}}\n'
        '{"id": "lb:3", "response": "  ", "model": "m1"}\n',
    )
    got = read_predictions("legobench-rplm", path)
    assert got.predictions == {"lb:1": "A\nB", "7": "", "lb:3": "  "}
    assert (got.model, got.layout, got.n_blank) == ("m1", "jsonl", 2)
    lg = _file(tmp_path, '{"id": "lb:1", "answer": "| a | 1 |"}\n', "l.jsonl")
    assert import_predictions("legobench-lgplm", lg) == {"lb:1": "| a | 1 |"}


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ('{"id": "a", "response": "x"}\n{"id": "a", "response": "y"}\n', 2, "id", "duplicate"),
        ('{"response": "x"}\n', 1, "id", "missing"),
        ('{"id": "", "response": "x"}\n', 1, "id", "non-empty"),
        ('{"id": true, "response": "x"}\n', 1, "id", "missing or not a string"),
        ('{"id": "a", "answer": "x"}\n', 1, "response", "missing answer field"),
        ('{"id": "a", "response": ["x"]}\n', 1, "response", "string or null"),
        ('{"id": "a", "response": "x", "model": 3}\n', 1, "model", "must be a string"),
        (
            '{"id": "a", "response": "x", "model": "m"}\n{"id": "b", "response": "", "model": "n"}',
            2,
            "model",
            "differs",
        ),
        ('{"id": "a", "response": "x"}\n{"id": "b"\n', 2, None, "invalid JSON"),
        ('["a", "x"]\n', 1, None, "JSON object"),
    ],
)
def test_jsonl_errors_name_file_line_field(
    tmp_path: Path, text: str, line: int, field: str | None, message: str
) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(InputError, match=message) as err:
        read_predictions("legobench-rplm", path)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)


def test_unknown_task_empty_and_missing_files(tmp_path: Path) -> None:
    with pytest.raises(TaskNotFound, match="no-such-task"):
        read_predictions("no-such-task", _file(tmp_path, "{}\n"))
    with pytest.raises(InputError, match="takes no prediction files") as err:
        read_predictions("legobench-rpg", _file(tmp_path, "{}\n"))
    assert err.value.field == "task"
    with pytest.raises(InputError, match="no predictions"):
        read_predictions("legobench-rplm", _file(tmp_path, "\n\n"))
    with pytest.raises(InputError, match="not found"):
        read_predictions("legobench-rplm", tmp_path / "absent.jsonl")


def test_a_later_task_declares_its_format(tmp_path: Path) -> None:
    """A task's ``prediction_format`` is all the reader needs (no global table)."""
    fmt = PredictionFormat("demo-task", "output", "demo")
    path = _file(tmp_path, '{"id": "q1", "output": "yes"}\n')
    assert import_predictions(fmt, path) == {"q1": "yes"}
    with pytest.raises(InputError, match="no workbook layout"):
        read_predictions(fmt, _xlsx(tmp_path, [["id", "x_out"]]))
    with pytest.raises(TaskNotFound, match="unknown task"):
        read_predictions("demo-task", path)  # not registered: TaskNotFound lists the tasks


def _xlsx(tmp_path: Path, rows: list[list[object]], name: str = "w.xlsx") -> Path:
    wb = Workbook()
    ws = wb.active
    for row in rows:
        ws.append(row)
    path = tmp_path / name
    wb.save(path)
    return path


KEYS = [
    AlignmentKey("lb:a", "A1\nA2", ("Task A", "Set-1", "F1")),
    AlignmentKey("lb:b", "B1\nB2", ("Task B", "Set-2", "BLEU")),
    AlignmentKey("lb:c", "C1\nC2", ("Task C", "Set-3", "MRR")),
]


def test_workbook_rows_are_placed_by_each_rule(tmp_path: Path) -> None:
    """GPT-4 layout (two index columns); one row per rule: GT, query line, position."""
    query_b = (
        "Rank these.\nQuery - Rank the performance of the following papers on the Task B task "
        "on dataset Set-2 using metric BLEU:"
    )
    path = _xlsx(
        tmp_path,
        [
            [None, None, "instruction", "model_options", "GT", "GPT4_gen_rank"],
            [0, 0, "no query line", "x", "A1\nA2", "answer a"],  # GT
            [1, 1, query_b, "x", "not a known GT", "answer b"],  # query line
            [2, 2, "no query line", "x", None, None],  # position (3 rows, 3 keys); blank
        ],
    )
    got = read_predictions("legobench-rplm", path, align=KEYS)
    assert got.predictions == {"lb:a": "answer a", "lb:b": "answer b", "lb:c": ""}
    assert (got.model, got.layout, got.n_blank) == ("GPT4", "workbook", 1)


def test_workbook_id_and_query_columns(tmp_path: Path) -> None:
    ids = _xlsx(tmp_path, [["doc_key", "m_ldb"], ["lb:z", "| a | 1 |"]], "ids.xlsx")
    assert import_predictions("legobench-lgplm", ids) == {"lb:z": "| a | 1 |"}
    triples = _xlsx(
        tmp_path,
        [["task", "dataset", "metric", "m_ldb"], ["task c", "SET-3", "mrr", "t"]],
        "q.xlsx",
    )
    # names compare after normalisation (case, punctuation)
    assert import_predictions("legobench-lgplm", triples, align=KEYS) == {"lb:c": "t"}


def test_workbook_errors(tmp_path: Path) -> None:
    two = _xlsx(tmp_path, [["a_gen_rank", "b_gen_rank"], ["x", "y"]], "two.xlsx")
    with pytest.raises(InputError, match="exactly one answer column") as err:
        read_predictions("legobench-rplm", two)
    assert (err.value.line, err.value.field) == (1, "_gen_rank")
    unplaced = _xlsx(tmp_path, [["GT", "m_gen_rank"], ["zzz", "x"], ["yyy", "y"]], "u.xlsx")
    with pytest.raises(InputError, match="cannot tell which instance") as err:
        read_predictions("legobench-rplm", unplaced, align=KEYS)
    assert err.value.line == 2
    dup = _xlsx(tmp_path, [["GT", "m_gen_rank"], ["A1\nA2", "x"], ["A1\nA2", "y"]], "d.xlsx")
    with pytest.raises(InputError, match="second row answers instance 'lb:a'") as err:
        read_predictions("legobench-rplm", dup, align=KEYS)
    assert err.value.line == 3
    bad = _file(tmp_path, "not a zip", "bad.xlsx")
    with pytest.raises(InputError, match="not a readable"):
        read_predictions("legobench-rplm", bad)

"""Prompt templates: loading, checking, rendering and versioning by sha256."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from scholarkg.errors import InputError
from scholarkg.services.prompts import (
    PromptTemplate,
    load_prompt,
    load_prompts,
    prompt_sha256,
    task_prompt,
)

# An invented completion-mode prompt in the spirit of a leaderboard task: braces (JSON),
# a literal dollar and a trailing space before the final newline are all part of the text.
RANK_PROMPT = (
    "Rank these papers on $dataset for ${task}.\n"
    'Answer as JSON: {"ranking": [titles]}. Costs are in $$ (ignore them).\n'
    "Options:\n$options\nAnswer: \n"
)


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def test_render_fills_placeholders_and_leaves_braces_alone(tmp_path: Path) -> None:
    tpl = load_prompt(write(tmp_path / "rank.txt", RANK_PROMPT))
    assert tpl.name == "rank"
    assert tpl.fields == ("dataset", "task", "options")
    out = tpl.render({"dataset": "ToyNet"}, task="link prediction", options="A\nB")
    assert out == (
        "Rank these papers on ToyNet for link prediction.\n"
        'Answer as JSON: {"ranking": [titles]}. Costs are in $ (ignore them).\n'
        "Options:\nA\nB\nAnswer: "
    )
    # values are inserted literally: a "$x" inside a value is not expanded again
    assert tpl.render(dataset="$task", task="t", options="o").startswith(
        "Rank these papers on $task"
    )
    assert tpl.render(dataset=3, task=2.5, options="o").startswith("Rank these papers on 3 for 2.5")


def test_version_is_the_sha256_of_the_normalized_text(tmp_path: Path) -> None:
    tpl = load_prompt(write(tmp_path / "rank.txt", RANK_PROMPT))
    expected = hashlib.sha256(RANK_PROMPT[:-1].encode("utf-8")).hexdigest()  # final \n dropped
    assert tpl.sha256 == expected == prompt_sha256(RANK_PROMPT)
    assert tpl.version == expected[:12]
    crlf = load_prompt(write(tmp_path / "crlf.txt", RANK_PROMPT.replace("\n", "\r\n")))
    assert crlf.sha256 == tpl.sha256 and crlf.text == tpl.text
    no_final_newline = load_prompt(write(tmp_path / "bare.txt", RANK_PROMPT[:-1]))
    assert no_final_newline.sha256 == tpl.sha256
    changed = load_prompt(write(tmp_path / "changed.txt", RANK_PROMPT.replace("Rank", "Order")))
    assert changed.sha256 != tpl.sha256
    assert tpl.record() == {
        "name": "rank",
        "path": str(tmp_path / "rank.txt"),
        "sha256": expected,
        "fields": ["dataset", "task", "options"],
    }


def test_missing_extra_and_bad_values_name_the_template_and_field(tmp_path: Path) -> None:
    path = write(tmp_path / "rank.txt", RANK_PROMPT)
    tpl = load_prompt(path)
    with pytest.raises(InputError) as info:
        tpl.render(dataset="d", task="t")
    assert info.value.field == "options" and info.value.path == str(path)
    assert "needs a value for 'options'" in str(info.value)
    with pytest.raises(InputError, match="no placeholder 'optoins'") as info:
        tpl.render(dataset="d", task="t", options="o", optoins="o")
    assert info.value.field == "optoins"
    with pytest.raises(InputError, match="must be text or a number, got NoneType"):
        tpl.render(dataset=None, task="t", options="o")


def test_a_stray_dollar_is_reported_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.txt", "line one\nprice: $5 per call\n")
    with pytest.raises(InputError, match=r"invalid placeholder '\$5 per call'") as info:
        load_prompt(path)
    assert info.value.line == 2 and info.value.path == str(path)


def test_unreadable_files_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read prompt template"):
        load_prompt(tmp_path / "absent.txt")
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"ok\ncaf\xe9\n")
    with pytest.raises(InputError, match="not valid UTF-8") as info:
        load_prompt(path)
    assert info.value.line == 2


def test_load_prompts_reads_a_folder_by_name(tmp_path: Path) -> None:
    write(tmp_path / "b.txt", "second $x")
    write(tmp_path / "a.txt", "first")
    write(tmp_path / "notes.md", "not a prompt")
    prompts = load_prompts(tmp_path)
    assert list(prompts) == ["a", "b"]
    assert prompts["a"].fields == () and prompts["a"].render() == "first"
    assert prompts["b"].render(x=1) == "second 1"
    with pytest.raises(InputError, match="prompt folder not found"):
        load_prompts(tmp_path / "nope")


def test_task_prompt_loads_from_a_package_with_a_package_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "toytask_pkg"
    (pkg / "prompts").mkdir(parents=True)
    write(pkg / "__init__.py", "")
    write(pkg / "prompts" / "rank.txt", RANK_PROMPT)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toytask_pkg", raising=False)
    tpl = task_prompt("toytask_pkg", "rank")
    assert tpl.path == "toytask_pkg:prompts/rank.txt"
    assert tpl.sha256 == prompt_sha256(RANK_PROMPT)
    with pytest.raises(InputError, match="no prompt template 'missing'"):
        task_prompt("toytask_pkg", "missing")
    with pytest.raises(InputError, match="no package"):
        task_prompt("no_such_pkg_xyz", "rank")


def test_from_text_without_a_file() -> None:
    tpl = PromptTemplate.from_text("Q: $question\nA:", name="qa")
    assert tpl.path == "<string>" and tpl.render(question="why?") == "Q: why?\nA:"

"""Agent look-ups on the graph: Python API and ``scholarkg scireplicate search-*`` CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok, runner

from scholarkg.benchmark.tasks.scireplicate.lookups import MASK, ScireplicateLookups
from scholarkg.cli import app
from scholarkg.commands.common import store_session
from scholarkg.errors import InputError
from scholarkg.loaders.scireplicate_data import read_benchmark


@pytest.fixture
def loaded(graph_env: str, synthetic_bench: Path) -> Path:
    root = synthetic_bench.parent
    cli_ok(
        [
            "load",
            "scireplicate",
            str(synthetic_bench),
            "--papers-dir",
            str(root / "papers"),
            "--repos-dir",
            str(root / "repos"),
        ]
    )
    return synthetic_bench


def _json(args: list[str]) -> Any:
    return json.loads(cli_ok([*args, "--format", "json"]).strip().splitlines()[-1])


def test_search_paper_and_section(loaded: Path) -> None:
    latex = read_benchmark(loaded)[1].latex_code_path
    assert latex is not None
    tex = loaded.parent / "papers" / latex / "main.tex"
    method_words = tex.read_text().split("Method ")[1].split()[:2]  # made-up words of §Method
    hits = _json(["scireplicate", "search-paper", " ".join(method_words), "--paper", "1"])
    assert hits and hits[0]["title"] == "Method" and hits[0]["label"] == "sec:method"
    with store_session() as store:
        lk = ScireplicateLookups(store, 1)
        assert lk.search_paper("zzzunknownword") == []
        section = lk.search_section("sec:scoring")
        assert section is not None and section.title == "Scoring" and "equation" in section.text
        by_title = lk.search_section("experiments")  # by title, any case
        assert by_title is not None and by_title.title == "Experiments"
        assert lk.search_section("nothing-like-this") is None
    # sections of another paper never leak into this one
    other = _json(["scireplicate", "search-paper", " ".join(method_words), "--paper", "0"])
    assert all(h["text"] != hits[0]["text"] for h in other)


def test_search_literature(loaded: Path) -> None:
    hit = _json(["scireplicate", "search-literature", "ref2x2", "--paper", "2"])
    assert hit["bib_key"] == "ref2x2" and hit["title"].startswith("Synthetic reference 2-2")
    assert len(hit["citing_sentences"]) == 1 and "citet{ref2x2}" in hit["citing_sentences"][0]
    by_title = _json(
        ["scireplicate", "search-literature", "synthetic reference 2-0", "--paper", "2"]
    )
    assert by_title["bib_key"] == "ref2x0"
    assert _json(["scireplicate", "search-literature", "uncited", "--paper", "2"]) is None


def test_search_code_and_file_mask_the_target(loaded: Path) -> None:
    spec = read_benchmark(loaded)[0].tasks[1]  # a method task
    assert spec.type == "method"
    key = f"{spec.paper_index}:{spec.task_index}"
    with store_session() as store:
        open_lk = ScireplicateLookups(store, 0)
        masked_lk = ScireplicateLookups(store, task=key)
        (full,) = open_lk.search_code(spec.function_name)
        (hidden,) = masked_lk.search_code(spec.function_name)
        assert not full.masked and full.source.splitlines()[1:] == [
            ln
            for ln in spec.ori_python_file.split("\n")[
                spec.body_position[0] - 1 : spec.body_position[1]
            ]
        ]
        assert hidden.masked and MASK in hidden.source and "return" not in hidden.source
        (cls,) = masked_lk.search_code("Scorer")  # the enclosing class is masked too
        assert cls.masked and MASK in cls.source and "def _shift" in cls.source
        (helper,) = masked_lk.search_code("normalize")  # cross-file definition
        assert helper.path == "utils/helpers.py" and not helper.masked
        assert masked_lk.search_code("Scorer.scale")[0].kind == "attribute"
        file_hit = masked_lk.search_file("model.py")
        assert file_hit is not None and file_hit.masked
        lines = file_hit.content.split("\n")
        assert len(lines) == len(spec.ori_python_file.split("\n")) - (
            spec.body_position[1] - spec.body_position[0]
        )
        whole, helpers = open_lk.search_file("model.py"), open_lk.search_file("helpers.py")
        assert whole is not None and whole.content == spec.ori_python_file
        assert helpers is not None and helpers.path == "utils/helpers.py"
        assert open_lk.search_file("nope.py") is None
    out = cli_ok(["scireplicate", "search-file", "model.py", "--task", key])
    assert MASK in out
    code = _json(["scireplicate", "search-code", spec.function_name, "--task", key])
    assert code[0]["masked"] is True


def test_unknown_paper_or_task(loaded: Path) -> None:
    with store_session() as store:
        with pytest.raises(InputError, match="no SciReplicate paper"):
            ScireplicateLookups(store, 99)
        with pytest.raises(InputError, match="no SciReplicate task"):
            ScireplicateLookups(store, task="0:99")
    result = runner.invoke(app, ["scireplicate", "search-code", "x", "--paper", "42"])
    assert result.exit_code != 0

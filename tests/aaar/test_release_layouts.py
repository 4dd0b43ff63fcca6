"""Layouts of the AAAR-1.0 per-paper Weakness folders as the authors' history ships them
(content ours): pdffigures2 caption files beside the PNGs, and what the summary says."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.store.falkordb.store import FalkorDBStore

FIX = Path(__file__).parent.parent / "fixtures" / "aaar" / "Paper_Weakness"


def _with_captions(tmp: Path) -> Path:
    root = tmp / "subtask3_review_final_demo"
    shutil.copytree(FIX, root)
    images = root / "WkA1" / "images"
    images.mkdir()
    for png in (root / "WkA1").glob("*.png"):
        png.rename(images / png.name)
    (images / "ICLR_2023_data__WkA1.json").write_text(
        json.dumps(
            [
                {
                    "caption": "Figure 1: Zorbs per glim.",
                    "figType": "Figure",
                    "name": "1",
                    "page": "5",
                    "renderURL": "WkA1-Figure1.png",
                    "imageText": "[]",
                },
                {
                    "caption": "Table 1: Glim counts.",
                    "figType": "Table",
                    "name": "1",
                    "page": "7",
                    "renderURL": "WkA1-Table1.png",
                },
            ]
        ),
        encoding="utf-8",
    )
    (images / "ICLR_2023__WkA1_stat_file.json").write_text(
        json.dumps([{"filename": "x.pdf", "numFigures": 2}]), encoding="utf-8"
    )
    return root


def test_figure_captions_and_pages_are_loaded(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    root = _with_captions(tmp_path)
    out = " ".join(cli_ok(["load", "aaar", str(root), "--task", "weakness"]).split())
    assert "from 1 folder(s)" in out  # one folder step, not "1 file(s)" for many files
    g = FalkorDBStore(store.db, graph_env)
    rows = g.run("MATCH (f:Figure) RETURN f.name AS n, f.caption AS c, f.page AS p ORDER BY n")
    assert rows == [
        {"n": "WkA1-Figure1.png", "c": "Figure 1: Zorbs per glim.", "p": 5},
        {"n": "WkA1-Table1.png", "c": "Table 1: Glim counts.", "p": 7},
    ]


def test_an_empty_data_text_json_says_so(graph_env: str, tmp_path: Path) -> None:
    root = _with_captions(tmp_path)
    (root / "WkB2" / "data_text.json").write_text("", encoding="utf-8")
    result = runner.invoke(app, ["load", "aaar", str(root), "--task", "weakness"])
    assert isinstance(result.exception, InputError)
    assert "empty file" in str(result.exception)
    assert result.exception.path == str(root / "WkB2" / "data_text.json")

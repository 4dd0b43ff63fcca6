"""RPLM workbook readers, file scoring and the ``bench score legobench-rplm`` command.

Synthetic workbooks in both released column layouts (tests/fixtures/legobench); the expected
scores are worked out by hand below from the invented answers.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest
from openpyxl import Workbook
from typer.testing import CliRunner

from scholarkg.benchmark.tasks.legobench.rplm_scoring import score_rplm_files, score_rplm_many
from scholarkg.commands.bench import app as bench_app
from scholarkg.errors import InputError
from scholarkg.loaders.legobench_rplm import (
    answer_column,
    parse_query,
    read_rplm_gold,
    read_rplm_responses,
)


def _load_fixtures() -> ModuleType:
    path = Path(__file__).parents[1] / "fixtures" / "legobench" / "make_rplm_fixtures.py"
    spec = importlib.util.spec_from_file_location("legobench_rplm_fixtures", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fx = _load_fixtures()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    written: dict[str, Path] = fx.write_all(tmp_path)
    return written


# ----------------------------------------------------------------------------- readers


def test_parse_query_line() -> None:
    text = (
        "Rank them.\nQuery - Rank the performance of the following papers on the Node "
        "Classification task on dataset ToyGraph (inductive) using metric Macro-F1:"
    )
    assert parse_query(text) == ("Node Classification", "ToyGraph (inductive)", "Macro-F1")
    assert parse_query("no query here") is None


def test_read_gold_keeps_defects_verbatim(files: dict[str, Path]) -> None:
    rows = list(read_rplm_gold(files["gold"]))
    assert [r.row for r in rows] == list(range(6))
    assert (rows[1].task, rows[1].dataset, rows[1].metric) == (
        "Node Classification",
        "ToyGraph (inductive)",
        "Macro-F1",
    )
    assert rows[1].gt[1] == "Otter"  # split fragment stays a line of its own
    assert rows[2].gt[0] == '"Don\'t Panic: Robust Parsing"'  # literal quotes kept
    assert rows[3].gt == ["Falcon Search", "Owl Retrieval", "Falcon Search"]  # duplicate kept
    assert rows[4].gt == ['Sch\\"onfinkel Summaries']  # LaTeX escape kept
    assert rows[0].options == [
        "Lemur Pooling",
        "Zebra Nets for Vision",
        "Quokka: Tiny Transformers",
    ]


def test_gold_with_pandas_style_index_header(tmp_path: Path) -> None:
    path = fx.write_gold(tmp_path / "g.xlsx", index_header="Unnamed: 0")
    assert len(list(read_rplm_gold(path))) == 6


@pytest.mark.parametrize("layout", ["open", "api"])
def test_read_responses_both_layouts(files: dict[str, Path], layout: str) -> None:
    stem, resp = read_rplm_responses(files[layout])
    assert stem == f"toy_{layout}"
    assert len(resp) == 6
    assert resp[4].text is None  # blank cell
    assert resp[2].text == fx.ANSWERS_OPEN[2]  # list literal returned as stored
    assert resp[3].gt == "Falcon Search\nOwl Retrieval\nFalcon Search"


def test_open_layout_with_pandas_index_header(tmp_path: Path) -> None:
    path = fx.write_open_layout(
        tmp_path / "m.xlsx", "m", fx.ANSWERS_OPEN, index_header="Unnamed: 0"
    )
    assert read_rplm_responses(path)[0] == "m"


def _sheet(path: Path, header: list[object], rows: list[list[object]]) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws.append(header)
    for r in rows:
        ws.append(r)
    wb.save(path)
    return path


def test_gold_errors_name_file_row_and_column(tmp_path: Path) -> None:
    query = (
        "Query - Rank the performance of the following papers on the T task on dataset D "
        "using metric M:"
    )
    no_gt = _sheet(tmp_path / "a.xlsx", [None, "instruction", "model_options"], [[0, query, "x"]])
    with pytest.raises(InputError, match="missing column 'GT'") as err:
        list(read_rplm_gold(no_gt))
    assert err.value.path == str(no_gt) and err.value.field == "GT"

    bad_query = _sheet(
        tmp_path / "b.xlsx",
        [None, "instruction", "model_options", "GT"],
        [[0, query, "x", "x"], [1, "Rank these please", "y", "y"]],
    )
    with pytest.raises(InputError, match="Query - Rank") as err:
        list(read_rplm_gold(bad_query))
    assert (err.value.line, err.value.field) == (3, "instruction")

    mismatch = _sheet(
        tmp_path / "c.xlsx",
        [None, "instruction", "model_options", "GT"],
        [[0, query, "x\ny", "x\nz"]],
    )
    with pytest.raises(InputError, match="same titles") as err:
        list(read_rplm_gold(mismatch))
    assert (err.value.line, err.value.field) == (2, "GT")

    empty_gt = _sheet(
        tmp_path / "d.xlsx", [None, "instruction", "model_options", "GT"], [[0, query, "x", None]]
    )
    with pytest.raises(InputError, match="empty cell") as err:
        list(read_rplm_gold(empty_gt))
    assert (err.value.line, err.value.field) == (2, "GT")


def test_response_errors(tmp_path: Path) -> None:
    no_answer = _sheet(tmp_path / "r.xlsx", [None, "prompt", "GT", "answer"], [[0, "p", "g", "a"]])
    with pytest.raises(InputError, match="_gen_rank"):
        read_rplm_responses(no_answer)
    with pytest.raises(InputError, match="not a readable"):
        read_rplm_responses(_write_text(tmp_path / "x.xlsx"))
    with pytest.raises(InputError, match="file not found"):
        read_rplm_responses(tmp_path / "missing.xlsx")


def _write_text(path: Path) -> Path:
    path.write_text("not a workbook", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- scoring
#
# Hand computation for ANSWERS_OPEN against ROWS (substring matcher, positions = offsets):
#  r0 "1. Zebra...\n2. Quokka...\n3. Lemur..."  pos (3, 28, 57)     exact, tau 1,       cp 1
#  r1 "Beaver...\nHeron Embeddings\nOtter"      pos (42, 59, 0)     tau -1/3,           cp 1/3
#  r2 clean (decoded): "Graph Walkers for Molecules\nGraph Walkers\n\"Don't Panic...\""
#                                               pos (42, 0, 0)      tau -2/sqrt(6),     cp 0
#     paper (raw literal, apostrophe escaped):  pos (-1, 2, 2)      incomplete,         cp 0
#  r3 "Falcon Search\nOwl Retrieval"            pos (0, 14, 0)      tau 0,              cp 1/3
#  r4 blank                                     pos (-1,)           incomplete,         cp 0
#  r5 "Moa Convolutions then Kiwi Attention"    pos (22, 0)         tau -1,             cp 0
CLEAN_TAUS = [1.0, -1 / 3, -2 / math.sqrt(6), 0.0, -1.0]
CP_SUM = 1 + 1 / 3 + 0 + 1 / 3 + 0 + 0


@pytest.mark.parametrize("layout", ["open", "api"])
def test_score_clean_hand_computed(files: dict[str, Path], layout: str) -> None:
    s = score_rplm_files(files["gold"], files[layout])
    assert [r["positions"] for r in s.per_instance] == [
        [3, 28, 57],
        [42, 59, 0],
        [42, 0, 0],
        [0, 14, 0],
        [-1],
        [22, 0],
    ]
    assert (s.n_instances, s.n_scored, s.n_complete, s.n_exact) == (6, 6, 5, 1)
    assert s.cis == pytest.approx(100 * 5 / 6)
    assert s.bem == pytest.approx(1 / 5)
    assert s.ktau == pytest.approx(sum(CLEAN_TAUS) / 5)
    assert s.cp == pytest.approx(100 * CP_SUM / 6)


def test_score_paper_protocol_hand_computed(files: dict[str, Path]) -> None:
    s = score_rplm_files(files["gold"], files["api"], protocol="legobench-paper")
    assert s.per_instance[2]["positions"] == [-1, 2, 2]
    assert (s.n_scored, s.n_complete, s.n_exact) == (6, 4, 1)  # fewer than 101 rows: all
    assert s.cis == pytest.approx(100 * 4 / 6)
    assert s.bem == pytest.approx(1 / 4)
    assert s.ktau == pytest.approx((1 - 1 / 3 + 0 - 1) / 4)
    assert s.cp == pytest.approx(100 * CP_SUM / 6)


def test_score_line_matcher(files: dict[str, Path]) -> None:
    # line matcher: r0 all on lines 0..2; r1 lines (1,2,0); r2 decoded lines (2,0,1); r3 (0,1,0);
    # r5 one prose line -> incomplete
    s = score_rplm_files(files["gold"], files["open"], matcher="line")
    assert [r["positions"] for r in s.per_instance][:4] == [
        [0, 1, 2],
        [1, 2, 0],
        [2, 0, 1],
        [0, 1, 0],
    ]
    assert s.n_complete == 4


def test_misaligned_predictions_rejected(tmp_path: Path, files: dict[str, Path]) -> None:
    rows = list(fx.ROWS)
    rows[0], rows[1] = rows[1], rows[0]
    swapped = fx.write_open_layout(tmp_path / "swapped.xlsx", "sw", fx.ANSWERS_OPEN, rows)
    with pytest.raises(InputError, match="not aligned") as err:
        score_rplm_files(files["gold"], swapped)
    assert (err.value.line, err.value.field) == (2, "GT")
    short = fx.write_open_layout(tmp_path / "short.xlsx", "sh", fx.ANSWERS_OPEN[:5], fx.ROWS[:5])
    with pytest.raises(InputError, match="5 answer rows"):
        score_rplm_files(files["gold"], short)


def test_score_many_progress(files: dict[str, Path]) -> None:
    seen: dict[str, int] = {}
    out = score_rplm_many(
        files["gold"],
        [files["open"], files["api"]],
        progress=lambda name, done, total: seen.__setitem__(name, done),
    )
    assert [stem for stem, _ in out] == ["toy_open", "toy_api"]
    assert out[0][1].to_dict() == out[1][1].to_dict() | {}  # same answers, same scores
    assert seen == {"toy_open": 6, "toy_api": 6}


# ----------------------------------------------------------------------------- CLI


def test_cli_json(files: dict[str, Path]) -> None:
    result = CliRunner().invoke(
        bench_app,
        [
            "score",
            "legobench-rplm",
            "--gold",
            str(files["gold"]),
            "--predictions",
            str(files["api"]),
            "--protocol",
            "legobench-paper",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["model"] == "toy_api"
    got = data["aggregate"]
    assert got["CIS"] == pytest.approx(100 * 4 / 6)
    assert got["BEM"] == pytest.approx(0.25)
    assert got["KTau"] == pytest.approx(-1 / 12)
    assert got["CP"] == pytest.approx(100 * CP_SUM / 6)
    assert got["n_scored"] == 6
    assert data["units"] == {
        "CIS": "percent",
        "BEM": "fraction",
        "KTau": "score",
        "CP": "percent",
        "n_scored": "count",
        "n_complete": "count",
    }


def test_cli_table_several_models(files: dict[str, Path]) -> None:
    args = ["score", "legobench-rplm", "--gold", str(files["gold"])]
    args += ["--predictions", str(files["open"]), "--predictions", str(files["api"])]
    result = CliRunner().invoke(bench_app, args)
    assert result.exit_code == 0, result.output
    assert "toy_open" in result.stdout and "toy_api" in result.stdout
    assert "83.33" in result.stdout  # CIS 5/6


def test_cli_rejects_unknown_protocol(files: dict[str, Path]) -> None:
    args = ["score", "legobench-rplm", "--gold", str(files["gold"])]
    args += ["--predictions", str(files["open"]), "--protocol", "paper"]
    result = CliRunner().invoke(bench_app, args)
    assert isinstance(result.exception, InputError)
    assert "protocol" in str(result.exception)


def test_answer_column_finds_one_named_suffix_column() -> None:
    header = [None, "Unnamed: 0", "GT", "gpt4_gen_rank"]
    assert answer_column(header, "a.xlsx") == (3, "gpt4")
    assert answer_column(["x", "llama_gen_lgplm "], "b.xlsx", "_gen_lgplm") == (1, "llama")
    for bad in (["GT"], ["a_gen_rank", "b_gen_rank"], ["_gen_rank"]):  # none, two, no stem
        with pytest.raises(InputError, match="exactly one answer column") as info:
            answer_column(bad, "c.xlsx")
        assert (info.value.path, info.value.line, info.value.field) == ("c.xlsx", 1, "_gen_rank")


@pytest.mark.parametrize("protocol", ["clean", "legobench-paper"])
def test_the_task_scores_the_workbooks_as_the_file_scorer_does(
    files: dict[str, Path], protocol: str
) -> None:
    """``bench score legobench-rplm`` goes through the task's one file-scoring recipe (gold
    rows as instances, the workbook's answers read against them, the task's ``score``): the
    numbers of the file scorer above, per row by position."""
    from scholarkg.benchmark.tasks.legobench.task import RPLMTask

    s = score_rplm_files(files["gold"], files["api"], protocol=protocol)
    result = RPLMTask().score_files(files["gold"], files["api"], {"protocol": protocol})
    assert result.aggregate["CIS"] == pytest.approx(s.cis)
    assert result.aggregate["CP"] == pytest.approx(s.cp)
    assert result.aggregate["n_complete"] == s.n_complete
    assert list(result.per_instance) == [str(k) for k in range(6)]
    assert [r["complete"] for r in result.per_instance.values()] == [
        1.0 if rec["complete"] else 0.0 for rec in s.per_instance
    ]
    short = fx.write_open_layout(
        files["gold"].parent / "short.xlsx", "sh", fx.ANSWERS_OPEN[:5], fx.ROWS[:5]
    )
    with pytest.raises(InputError, match="5 answer rows"):
        RPLMTask().score_files(files["gold"], short, {})

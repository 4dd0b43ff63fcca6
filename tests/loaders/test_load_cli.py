"""``scholarkg load`` and ``scholarkg leaderboard`` through the real CLI, in-process.

Each test points the CLI at a fresh graph of the session's embedded server (``SCHOLARKG_GRAPH``)
and deletes it afterwards; checkpoints go to the session's temporary ``SCHOLARKG_HOME``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.errors import InputError

FIX = Path(__file__).parent.parent / "fixtures" / "pwc"


def _json(args: list[str]) -> list[dict[str, Any]]:
    out = cli_ok([*args, "--format", "json"])
    rows: list[dict[str, Any]] = json.loads(out.strip().splitlines()[-1])
    return rows


def _stats(kind: str) -> dict[str, int]:
    rows = _json(["stats"])
    return {r["name"]: r["count"] for r in rows if r["kind"] == kind}


def _load_pwc(*extra: str) -> str:
    return cli_ok([
        "load", "pwc", "--evaluation-tables", str(FIX / "evaluation-tables.json"),
        "--papers", str(FIX / "papers-with-abstracts.json"),
        "--links", str(FIX / "links-between-papers-and-code.json"), *extra,
    ])  # fmt: skip


def test_load_pwc_and_show_leaderboards(graph_env: str) -> None:
    out = _load_pwc()
    assert "Result" in out and "HAS_RESULT" in out
    assert "Zorbness" in out and "--directions" in out  # unknown direction warned, with hint
    assert "2 score(s) not parseable" in out
    assert _stats("node")["Result"] == 14

    rows = _json(["leaderboard", "show", "--task", "Zorbic Classification",
                  "--dataset", "Zorb-10", "--metric", "Error Rate"])  # fmt: skip
    assert [(r["rank"], r["method"], r["score"]) for r in rows] == [
        (1, "MiraFormer", 8.5), (1, "TenVo", 8.5), (3, "KaloNet", 14.8),
        (None, "Baseline CNN", None),
    ]  # fmt: skip
    assert rows[2]["arxiv_id"] == "2101.00001" and rows[2]["paper"] == "KaloNet: Deep Zorbs"
    assert rows[3]["raw_score"] == "-"

    table = cli_ok(["leaderboard", "show", "--task", "glorp modelling", "--dataset", "glorp-2k",
                 "--metric", "perplexity"])  # fmt: skip
    assert "lower is better" in table and table.index("Beta") < table.index("Alpha")
    csv_out = cli_ok(["leaderboard", "show", "--task", "Glorp Modelling", "--dataset", "Glorp-2k",
                   "--metric", "Perplexity", "--format", "csv"])  # fmt: skip
    assert csv_out.splitlines()[0] == "rank,method,paper,arxiv_id,score,raw_score,date"
    assert csv_out.splitlines()[1].startswith("1,Beta,Beta glorps,2001.00022,20.4,")

    listed = _json(["leaderboard", "list", "--task", "Zorbic Classification"])
    assert [(r["dataset"], r["metric"], r["results"]) for r in listed] == [
        ("Zorb-10", "Error Rate", 4), ("Zorb-10", "Top-1 Accuracy", 4),
        ("Zorb-10 Hard", "Top-1 Accuracy", 1),
    ]  # fmt: skip


def test_unknown_direction_show_warns_and_bad_names_error(graph_env: str) -> None:
    _load_pwc()
    out = cli_ok(["leaderboard", "show", "--task", "Few-Shot Zorbic Classification",
               "--dataset", "Zorb-FS", "--metric", "Zorbness"])  # fmt: skip
    assert "unknown" in out and "--directions" in out
    result = runner.invoke(app, ["leaderboard", "show", "--task", "Zorbic Classification",
                                 "--dataset", "Zorb-11", "--metric", "Error Rate"])  # fmt: skip
    assert result.exit_code != 0 and isinstance(result.exception, InputError)
    assert "Zorb-10" in str(result.exception) and "close names" in str(result.exception)


def test_directions_override_removes_warning(graph_env: str, tmp_path: Path) -> None:
    over = tmp_path / "dirs.toml"
    over.write_text('Zorbness = "higher"\n', encoding="utf-8")
    out = _load_pwc("--directions", str(over))
    assert "unknown direction" not in out
    rows = _json(["leaderboard", "list"])
    assert {r["metric"]: r["direction"] for r in rows}["Zorbness"] == "higher"


def test_load_is_idempotent_through_cli(graph_env: str) -> None:
    _load_pwc()
    first = (_stats("node"), _stats("relationship"))
    _load_pwc()
    assert (_stats("node"), _stats("relationship")) == first


def test_apc_bad_line_then_resume(graph_env: str, tmp_path: Path) -> None:
    src = tmp_path / "papers.jsonl"

    def write(bad: bool) -> None:
        lines = [
            json.dumps({"id": f"2101.{i:05d}", "title": f"Invented {i}",
                        "date": "not-a-date" if bad and i == 50 else "2021-02-03"})
            for i in range(1, 61)
        ]  # fmt: skip
        src.write_text("\n".join(lines) + "\n", encoding="utf-8")

    write(bad=True)
    result = runner.invoke(app, ["load", "apc", "--papers", str(src), "--batch-size", "10"])
    assert result.exit_code != 0 and isinstance(result.exception, InputError)
    assert result.exception.line == 50 and result.exception.field == "date"
    assert _stats("node")["Paper"] == 49  # every good line before the bad one, 49 included
    # the stored count comes from the library's summary; the CLI says how to go on
    assert "the 49 source record(s) before the error are stored whole" in " ".join(
        result.output.split()
    )
    write(bad=False)
    out = cli_ok(["load", "apc", "--papers", str(src), "--batch-size", "10", "--resume"])
    assert "skipped 49 record(s)" in out
    assert _stats("node")["Paper"] == 60


def test_pwc_needs_a_file(graph_env: str) -> None:
    result = runner.invoke(app, ["load", "pwc"])
    assert isinstance(result.exception, InputError)


def test_synthetic_legobench_end_to_end(graph_env: str, tmp_path: Path) -> None:
    out_dir = tmp_path / "corpus"
    cli_ok(["load", "synthetic-legobench", "--out", str(out_dir), "--papers", "60",
         "--leaderboards", "4", "--seed", "5"])  # fmt: skip
    gt = [json.loads(line) for line in (out_dir / "leaderboards.jsonl").read_text().splitlines()]
    assert len(gt) == 4
    nodes = _stats("node")
    assert nodes["Paper"] == 60 and nodes["Leaderboard"] == 4
    boards = {(r["task"], r["dataset"], r["metric"]): r for r in _json(["leaderboard", "list"])}
    for lb in gt:
        row = boards[(lb["task"], lb["dataset"], lb["metric"])]
        assert row["gold_entries"] == len(lb["ranking"])
        assert row["direction"] == ("higher" if lb["higher_is_better"] else "lower")
        shown = _json(["leaderboard", "show", "--task", lb["task"], "--dataset", lb["dataset"],
                       "--metric", lb["metric"]])  # fmt: skip
        # the Result-based ranking reproduces the ground truth's scores in order
        assert [r["score"] for r in shown] == lb["scores"]

    # the RPLM workbook of the same world: title lines resolve to the loaded papers
    rplm_out = cli_ok(["load", "rplm", "--gold", str(out_dir / "rplm.xlsx")])
    n_lines = sum(len(lb["ranking"]) for lb in gt)
    assert f"{n_lines} title line(s) linked" in rplm_out


def test_bulk_builds_a_new_graph(graph_env: str, tmp_path: Path) -> None:
    papers = tmp_path / "p.jsonl"
    papers.write_text("".join(json.dumps({"id": f"p{i}", "title": f"T{i}"}) + "\n"
                              for i in range(5)), encoding="utf-8")  # fmt: skip
    edges = tmp_path / "e.csv"
    edges.write_text("start,end\np0,p1\np1,p2\np2,p9\n", encoding="utf-8")
    out = cli_ok(["load", "bulk", "--papers", str(papers), "--edges", str(edges)])
    assert "relationships skipped" in out
    assert _stats("node") == {"Paper": 5} and _stats("relationship") == {"CITES": 2}
    again = runner.invoke(app, ["load", "bulk", "--papers", str(papers)])
    assert again.exit_code != 0 and "already has 5 nodes" in str(again.exception)
    bad = runner.invoke(app, ["load", "bulk", "--papers", str(papers), "--rel", "LIKES"])
    assert isinstance(bad.exception, InputError)


def test_no_load_then_rplm_only_shows_gold_order(graph_env: str, tmp_path: Path) -> None:
    out_dir = tmp_path / "c"
    cli_ok(["load", "synthetic-legobench", "--out", str(out_dir), "--papers", "30",
         "--leaderboards", "2", "--seed", "9", "--no-load"])  # fmt: skip
    assert (out_dir / "rplm.xlsx").is_file()
    nothing = runner.invoke(app, ["stats"])  # --no-load: not even an empty graph was made
    assert f"no graph {graph_env!r} in the store" in str(nothing.exception)
    out = cli_ok(["load", "rplm", "--gold", str(out_dir / "rplm.xlsx"), "--no-link"])
    assert "TitleLine" in out and "linked" not in out
    gt = json.loads((out_dir / "leaderboards.jsonl").read_text().splitlines()[0])
    args = ["leaderboard", "show", "--task", gt["task"], "--dataset", gt["dataset"]]
    result = runner.invoke(app, [*args, "--metric", gt["metric"], "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout.strip().splitlines()[-1])
    assert [r["gt_rank"] for r in rows] == list(range(1, len(gt["ranking"]) + 1))
    assert all(r["paper_id"] is None for r in rows)  # --no-link: no line resolved to a paper
    assert [r["line"] for r in rows] == _gt_lines(out_dir)  # verbatim, gold order


def _gt_lines(out_dir: Path) -> list[str]:
    from openpyxl import load_workbook

    wb = load_workbook(out_dir / "rplm.xlsx", read_only=True)
    row = next(wb["Sheet1"].iter_rows(min_row=2, max_row=2, values_only=True))
    wb.close()
    return str(row[3]).split("\n")

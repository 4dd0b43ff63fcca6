"""Reports: paper table layouts, significance against the first run, self-contained HTML."""

from __future__ import annotations

import base64
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scholarkg.benchmark.report import GENERIC_LAYOUT, TABLE_LAYOUTS, layout_for, write_report
from scholarkg.benchmark.runs import RunRecord, new_run
from scholarkg.errors import InputError

WHEN = datetime(2026, 11, 22, 4, 0, tzinfo=UTC)


def _citerec(name: str, hits: list[float], classes: dict[str, dict[str, float]]) -> RunRecord:
    per = {f"s{i}": {"Recall@10": h, "MRR@10": h / 2} for i, h in enumerate(hits)}
    return new_run(
        "citerec/field",
        metrics={"Recall@10": sum(hits) / len(hits), "MRR@10": sum(hits) / len(hits) / 2},
        per_instance=per,
        classes=classes,
        models={"ranker": name},
        created=WHEN,
    )


def test_layout_matching() -> None:
    assert layout_for("legobench/rplm/clean")[0] == "legobench/rplm"
    assert layout_for("legobench-rplm")[0] == "legobench/rplm"
    assert layout_for("legobench_rpg:cn-tabs")[0] == "legobench/rpg"
    assert layout_for("dorismae/test")[0] == "dorismae"
    assert layout_for("legobench") == ("", GENERIC_LAYOUT)
    assert layout_for("citerecx") == ("", GENERIC_LAYOUT)
    headers = [c.header for c in TABLE_LAYOUTS["dorismae"].columns]
    assert headers == ["R@5", "R@20", "RP", "NDCG_10%", "NDCG^exp", "MRR@10", "MAP"]


def test_report_side_by_side_with_significance(tmp_path: Path) -> None:
    classes_a = {
        "field:Biology": {"Recall@10": 0.1, "MRR@10": 0.05},
        "field:Physics": {"Recall@10": 0.3, "MRR@10": 0.1},
        "years:2001-2005": {"Recall@10": 0.2, "MRR@10": 0.1},
    }
    classes_b = {k: {m: v + 0.4 for m, v in d.items()} for k, d in classes_a.items()}
    a = _citerec("bm25", [0.0] * 8, classes_a)
    b = _citerec("dense", [1.0] * 8, classes_b)
    seen: list[tuple[int, int]] = []
    paths = write_report([a, b], tmp_path / "rep", progress=lambda d, t: seen.append((d, t)))
    names = [p.relative_to(tmp_path / "rep").as_posix() for p in paths]
    assert names[:3] == ["report.md", "report.json", "report.html"]
    # per-class bars: 2 class groups x 2 metrics, plus the side-by-side overview
    assert sorted(n for n in names if n.startswith("plots/")) == [
        "plots/citerec-field-mrr-10.png",
        "plots/citerec-field-recall-10.png",
        "plots/citerec-overview.png",
        "plots/citerec-years-mrr-10.png",
        "plots/citerec-years-recall-10.png",
    ]
    assert seen == [(1, 1)]
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| run | n | Recall@10 | MRR@10 |" in md
    # 8 paired diffs of +1: exact sign-flip p = 2 / 2**8 = 0.0078 -> marked and printed
    assert re.search(r"\| " + re.escape(b.id) + r" · dense \| 8 \| 1\.000\* \| 0\.500\* \|", md)
    assert re.search(r"\| " + re.escape(a.id) + r" · bm25 \| 8 \| 0\.000 \| 0\.000 \|", md)
    assert "| Recall@10 | 0.000 | 1.000 | 1.0000 | 0.008 | 8 |" in md
    assert "![Recall@10 per class (field)](plots/citerec-field-recall-10.png)" in md
    report = json.loads((tmp_path / "rep" / "report.json").read_text())
    [sec] = report["sections"]
    assert sec["baseline"] == a.id
    comp = {c["metric"]: c for c in sec["comparisons"]}
    assert comp["Recall@10"]["p_value"] == pytest.approx(2 / 256)
    assert comp["Recall@10"]["delta"] == pytest.approx(1.0)
    assert sec["ci"][b.id]["Recall@10"] == {"mean": 1.0, "low": 1.0, "high": 1.0, "n": 8}
    page = (tmp_path / "rep" / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') == 5
    assert "<script" not in page and "<link" not in page and "http" not in page
    first = page.split('src="data:image/png;base64,', 1)[1].split('"', 1)[0]
    assert base64.b64decode(first)[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_paper_decimals_generic_fallback_and_mixed_tasks(tmp_path: Path) -> None:
    rplm = new_run(
        "legobench/rplm/legobench-paper",
        metrics={"CIS": 21.8905, "BEM": 0.0795, "KTau": 0.1012, "CP": 51.9312},
        config={"protocol": "legobench-paper"},
        created=WHEN,
    )
    toy = new_run("toy/task", metrics={"zeta": 0.123456, "alpha": 2.0}, created=WHEN)
    doris = new_run(
        "dorismae",
        metrics={"MRR@10": 0.2, "R@5": 0.15, "NDCG_10%": 0.7, "extra": 1.5},
        per_instance={"1": {"R@5": 0.1}, "2": {"R@5": 0.2}},
        created=WHEN,
    )
    write_report([rplm, toy, doris], tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "| run | n | CIS | BEM | KTau | CP |" in md
    assert " · legobench-paper | – | 21.89 | 0.08 | 0.10 | 51.93 |" in md
    # generic layout keeps the recorded order and prints 4 decimals
    assert "| run | n | zeta | alpha |" in md and "| 0.1235 | 2.0000 |" in md
    # paper column order first (only columns some run has), unknown metrics after; DORIS-MAE
    # columns recorded on 0-1 are printed x100 like the paper, unknown ones as recorded
    assert "| run | n | R@5 | NDCG_10% | MRR@10 | extra |" in md
    assert f"| {doris.id} | 2 | 15.00 | 70.00 | 20.00 | 1.5000 |" in md
    assert "15.000 [10.000, 20.000]" in md  # per-instance mean and bootstrap CI, x100
    # a task that already records percentages is not scaled twice
    pct = new_run("dorismae/test", metrics={"R@5": 15.38, "MAP": 0.4}, created=WHEN)
    write_report([pct], tmp_path / "pct")
    assert f"| {pct.id} | – | 15.38 | 40.00 |" in (tmp_path / "pct" / "report.md").read_text()
    assert not (tmp_path / "plots").exists()  # single runs, no classes: nothing to draw


def test_report_rejects_empty_and_duplicates(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no runs"):
        write_report([], tmp_path)
    run = new_run("x", metrics={"a": 1.0}, created=WHEN)
    with pytest.raises(InputError, match="twice"):
        write_report([run, run], tmp_path)

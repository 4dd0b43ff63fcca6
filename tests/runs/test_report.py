"""Reports: the layout and units a task declares and records, sections per task and
configuration, significance against the first run, labelled rows, self-contained HTML."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from scholarkg.benchmark.report import layout_for, write_report
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
        config={"units": {"Recall@10": "fraction", "MRR@10": "fraction"}},
        created=WHEN,
    )


def test_layout_is_what_the_task_declares() -> None:
    rpg = layout_for("legobench-rpg")
    assert [c.metric for c in rpg.columns] == [
        "BEM", "KTau", "KTau_found", "CIS", "CP", "mean_candidates"
    ]  # fmt: skip
    assert rpg.baseline == "pagerank" and "ours" in rpg.ours
    assert [c.decimals for c in layout_for("legobench-rplm").columns] == [2, 3, 3, 2]
    generic = layout_for("legobench/rplm")  # not a registered task name: no guessing
    assert generic.columns == () and generic.title == "legobench/rplm"


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
        "plots/citerec-field-field-mrr-10.png",
        "plots/citerec-field-field-recall-10.png",
        "plots/citerec-field-overview.png",
        "plots/citerec-field-years-mrr-10.png",
        "plots/citerec-field-years-recall-10.png",
    ]
    assert seen == [(1, 1)]
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "| what ran | run | n | Recall@10 (0-1) | MRR@10 (0-1) |" in md
    # 8 paired diffs of +1: exact sign-flip p = 2 / 2**8 = 0.0078 -> marked and printed
    assert f"| ranker dense | {b.id} | 8 | 1.0000* | 0.5000* |" in md
    assert f"| ranker bm25 | {a.id} | 8 | 0.0000 | 0.0000 |" in md
    assert "| Recall@10 (0-1) | 0.0000 | 1.0000 | 1.00000 | 0.008 | 8 |" in md
    assert "![Recall@10 per class (field)](plots/citerec-field-field-recall-10.png)" in md
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


def _rpg(ranker: str, config: str, bem: float, per: list[float]) -> RunRecord:
    """An RPG run as ``run_task`` records it (units, configuration, answer source)."""
    return new_run(
        "legobench-rpg",
        metrics={"BEM": bem, "KTau": sum(per) / len(per), "CIS": 46.5},
        per_instance={f"lb:{i}": {"KTau": v} for i, v in enumerate(per)},
        config={
            "configuration": {"config": config, "split": "test", "seed": 13},
            "answer": {"kind": "ranker", "name": ranker, "baseline": ranker == "pagerank"},
            "units": {"BEM": "percent", "KTau": "score", "CIS": "percent"},
        },
        models={"encoder": "all-MiniLM-L6-v2"} if ranker == "pagerank" else {},
        created=WHEN,
    )


def test_sections_per_task_and_configuration_labelled_rows_recorded_units(
    tmp_path: Path,
) -> None:
    base = _rpg("pagerank", "pcn-tabs", 0.0, [-0.2, -0.1, -0.3, 0.0])
    ours = _rpg("ours", "pcn-tabs", 4.04, [0.5, 0.4, 0.6, 0.5])
    other = _rpg("ours", "cn-tabs", 6.06, [0.5, 0.5, 0.5, 0.5])
    rplm = new_run(
        "legobench-rplm",
        metrics={"CIS": 21.8905, "BEM": 0.0795, "KTau": 0.1012, "CP": 51.9312},
        config={"configuration": {"protocol": "legobench-paper", "matcher": "substring"},
                "units": {"CIS": "percent", "BEM": "fraction", "KTau": "score", "CP": "percent"},
                "answer": {"kind": "predictions", "name": "GPT4.xlsx"}},
        models={"llm": "GPT4"},
        created=WHEN,
    )  # fmt: skip
    legacy = new_run("old-task", metrics={"R@5": 0.15, "extra": 1.5}, created=WHEN)
    write_report([base, ours, other, rplm, legacy], tmp_path)
    md = (tmp_path / "report.md").read_text()
    report = json.loads((tmp_path / "report.json").read_text())
    titles = [s["title"] for s in report["sections"]]
    assert titles == [
        "LEGOBench RPG (layout of Table 3) — config=pcn-tabs, split=test",
        "LEGOBench RPG (layout of Table 3) — config=cn-tabs, split=test",
        "LEGOBench RPLM (layout of Table 4) — protocol=legobench-paper, matcher=substring",
        "old-task",
    ]
    # the paper's baseline and ours are labelled; percentages stay as recorded (no x100)
    assert "| what ran | run | n | BEM (%) | KTau | CIS (%) |" in md
    assert f"| pagerank (paper's baseline), encoder all-MiniLM-L6-v2 | {base.id} | 4 |" in md
    assert f"| ours (ours) | {ours.id} | 4 | 4.04* | 0.500* | 46.5 |" not in md  # 4 pairs
    assert f"| ours (ours) | {ours.id} | 4 | 4.04 | 0.500" in md
    # comparisons stay within a configuration: cn-tabs is its own section, no test against it
    pcn, cn = report["sections"][0], report["sections"][1]
    assert pcn["baseline"] == base.id and {c["run"] for c in pcn["comparisons"]} == {ours.id}
    assert cn["baseline"] == other.id and cn["comparisons"] == []
    # published numbers of that configuration, labelled as published
    assert (
        "| PageRank, SciBERT (paper) — published | LEGOBench Table 3, real data | – | 8.26 |" in md
    )
    # RPLM: the paper's decimals, values as recorded
    assert f"| GPT4.xlsx, llm GPT4 | {rplm.id} | – | 21.89 | 0.080 | 0.101 | 51.93 |" in md
    # a run without recorded units says so; nothing rescaled
    assert "| what ran | run | n | R@5 (unit not recorded) | extra (unit not recorded) |" in md
    assert f"| old-task | {legacy.id} | – | 0.1500 | 1.5000 |" in md
    page = (tmp_path / "report.html").read_text()
    assert "pagerank (paper&#x27;s baseline)" in page and "ours (ours)" in page


def test_report_rejects_empty_and_duplicates(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no runs"):
        write_report([], tmp_path)
    run = new_run("x", metrics={"a": 1.0}, created=WHEN)
    with pytest.raises(InputError, match="twice"):
        write_report([run, run], tmp_path)

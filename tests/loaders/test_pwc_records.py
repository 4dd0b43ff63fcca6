"""Record-level tests of the Papers with Code loader on hand-written fixtures (real shapes).

Expected values are counted by hand from ``tests/fixtures/pwc/*.json``: 3 tasks (one a
subtask), 4 datasets (one a subdataset), 14 results of which 2 have unparseable scores and 3
name no paper.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.loaders import pwc
from scholarkg.loaders.checkpoint import AnyRecord, Group
from scholarkg.schema import ids
from scholarkg.schema.records import (
    HasCode,
    Leaderboard,
    Metric,
    Paper,
    Repository,
    Result,
    SubtaskOf,
)

FIX = Path(__file__).parent.parent / "fixtures" / "pwc"
TABLES = FIX / "evaluation-tables.json"


def _records(groups: Iterable[Group]) -> list[AnyRecord]:
    return list(pwc.records(groups))


def _by_type(recs: Iterable[AnyRecord]) -> dict[str, list[Any]]:
    out: dict[str, list[Any]] = {}
    for r in recs:
        out.setdefault(type(r).__name__, []).append(r)
    return out


def test_evaluation_tables_counts_and_report() -> None:
    report = pwc.PwcReport()
    groups = list(pwc.read_evaluation_tables(TABLES, report=report))
    assert [n for n, _ in groups] == [1, 2]  # one group per top-level task
    by = _by_type(_records(groups))
    assert sorted(t.name for t in by["Task"]) == [
        "Few-Shot Zorbic Classification", "Glorp Modelling", "Zorbic Classification",
    ]  # fmt: skip
    assert sorted(d.name for d in by["Dataset"]) == [
        "Glorp-2k",
        "Zorb-10",
        "Zorb-10 Hard",
        "Zorb-FS",
    ]
    assert len(by["Result"]) == 14 and report.results == 14
    assert len(by["Leaderboard"]) == 5
    assert len(by["HasResult"]) == 11 and report.results_without_paper == 3
    assert report.unparseable_scores == 2
    assert sorted(report.unparseable_examples) == ["Error Rate='-'", "Zorbness='n/a'"]
    assert report.unknown_directions == ["Zorbness"]
    assert len(by["Method"]) == 9
    # every Result has its five ORKG-style edges
    for name in ("ResultMethod", "ResultDataset", "ResultTask", "ResultMetric", "InLeaderboard"):
        assert len(by[name]) == 14, name
    for name in ("LeaderboardTask", "LeaderboardDataset", "LeaderboardMetric"):
        assert len(by[name]) == 5, name


def test_subtask_edge_and_task_area() -> None:
    by = _by_type(_records(pwc.read_evaluation_tables(TABLES)))
    (edge,) = by["SubtaskOf"]
    assert isinstance(edge, SubtaskOf)
    assert edge.start == ids.named_id("task", "Few-Shot Zorbic Classification")
    assert edge.end == ids.named_id("task", "Zorbic Classification")
    tasks = {t.name: t for t in by["Task"]}
    assert tasks["Few-Shot Zorbic Classification"].parent == edge.end
    assert tasks["Zorbic Classification"].area == "Computer Vision"
    assert tasks["Glorp Modelling"].area is None


def _results() -> dict[tuple[str, str, str], Result]:
    by = _by_type(_records(pwc.read_evaluation_tables(TABLES)))
    return {(r.method, r.dataset, r.metric): r for r in by["Result"]}


def test_score_parsing_keeps_raw_values() -> None:
    res = _results()
    kalo = res[("KaloNet", "Zorb-10", "Top-1 Accuracy")]
    assert kalo.score == 85.2 and kalo.raw_score == "85.2%"  # percent string
    assert res[("KaloNet", "Zorb-10", "Error Rate")].score == 14.8  # numeric string
    mira = res[("MiraFormer", "Zorb-10", "Top-1 Accuracy")]
    assert mira.score == 91.5 and mira.raw_score == "91.5"  # JSON number
    assert res[("TenVo", "Zorb-10", "Top-1 Accuracy")].score == 91.5  # "91.5 ± 0.2"
    base = res[("Baseline CNN", "Zorb-10", "Error Rate")]
    assert base.score is None and base.raw_score == "-"
    qushi = res[("QuShi", "Zorb-FS", "Zorbness")]
    assert qushi.score is None and qushi.raw_score == "n/a"
    assert res[("KaloNet", "Zorb-10 Hard", "Top-1 Accuracy")].score == 60.1  # subdataset


def test_paper_ids_dates_and_missing_papers() -> None:
    res = _results()
    # arXiv URL (with version) -> arxiv id; pdf URL too
    assert res[("KaloNet", "Zorb-10", "Top-1 Accuracy")].paper == "arxiv:2101.00001"
    assert res[("Beta", "Glorp-2k", "Perplexity")].paper == "arxiv:2001.00022"
    # non-arXiv URL -> title hash without year (the date is null here)
    assert res[("MiraFormer", "Zorb-10", "Error Rate")].paper == ids.paper_id(
        title="MiraFormer for zorbs"
    )
    # no URL, no title -> no paper
    assert res[("Baseline CNN", "Zorb-10", "Top-1 Accuracy")].paper is None
    assert res[("Bra", "Zorb-FS", "Zorbness")].paper is None
    # dates: kept when given, None when null
    assert res[("KaloNet", "Zorb-10", "Top-1 Accuracy")].date == "2021-01-04"
    assert res[("Gamma", "Glorp-2k", "Perplexity")].date is None
    assert res[("MiraFormer", "Zorb-10", "Top-1 Accuracy")].uses_additional_data is True


def test_metric_directions_and_leaderboard_ids() -> None:
    by = _by_type(_records(pwc.read_evaluation_tables(TABLES)))
    metrics = {m.name: m.direction for m in by["Metric"] if isinstance(m, Metric)}
    assert metrics == {
        "Top-1 Accuracy": "higher", "Error Rate": "lower", "Zorbness": "unknown",
        "Perplexity": "lower",
    }  # fmt: skip
    boards = {(b.task, b.dataset, b.metric): b for b in by["Leaderboard"]}
    lb = boards[("Zorbic Classification", "Zorb-10", "Error Rate")]
    assert isinstance(lb, Leaderboard) and lb.source == "pwc"
    assert lb.id == ids.leaderboard_id("Zorbic Classification", "Zorb-10", "Error Rate")


def test_override_file_sets_unknown_direction(tmp_path: Path) -> None:
    from scholarkg.loaders.metric_direction import DirectionResolver

    over = tmp_path / "dirs.json"
    over.write_text(json.dumps({"zorbness": "lower"}), encoding="utf-8")
    report = pwc.PwcReport(directions=DirectionResolver.from_file(over))
    by = _by_type(_records(pwc.read_evaluation_tables(TABLES, report=report)))
    assert {m.name: m.direction for m in by["Metric"]}["Zorbness"] == "lower"
    assert report.unknown_directions == []


def test_nodes_precede_edges_in_each_group() -> None:
    for _, recs in pwc.read_evaluation_tables(TABLES):
        kinds = ["edge" if hasattr(r, "start") else "node" for r in recs]
        assert kinds == sorted(kinds, key=lambda k: k == "edge")


def test_papers_with_abstracts() -> None:
    by = _by_type(_records(pwc.read_papers_with_abstracts(FIX / "papers-with-abstracts.json")))
    papers = {p.id: p for p in by["Paper"]}
    assert set(papers) == {"arxiv:2101.00001", ids.paper_id(title="MiraFormer for zorbs"),
                           "arxiv:1905.00099"}  # fmt: skip
    kalo = papers["arxiv:2101.00001"]
    assert isinstance(kalo, Paper) and kalo.year == 2021 and kalo.source == "pwc"
    assert papers[ids.paper_id(title="MiraFormer for zorbs")].venue == "ZORBCONF 2021"
    assert [a.name for a in by["Author"]] == ["Ada Kalo", "Ben Vorn", "Cy Mira"]
    assert [(e.start, e.position) for e in by["Authorship"]][:2] == [
        ("arxiv:2101.00001", 0), ("arxiv:2101.00001", 1),
    ]  # fmt: skip
    assert [(m.name, m.full_name) for m in by["Method"]] == [("Dropout", "Dropout")]


def test_links() -> None:
    by = _by_type(_records(pwc.read_links(FIX / "links-between-papers-and-code.json")))
    repos = [r for r in by["Repository"] if isinstance(r, Repository)]
    assert [r.id for r in repos] == [
        "repo:github.com/kalo/kalonet",
        "repo:github.com/someone/miraformer",
    ]
    edges = [e for e in by["HasCode"] if isinstance(e, HasCode)]
    assert edges[0].start == "arxiv:2101.00001" and edges[0].is_official is True
    assert edges[0].framework == "pytorch"
    assert edges[1].start == ids.paper_id(title="MiraFormer for zorbs")
    assert edges[1].is_official is False and edges[1].mentioned_in_github is True


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "evaluation-tables.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_bad_input_names_record_and_field(tmp_path: Path) -> None:
    good = json.loads(TABLES.read_text(encoding="utf-8"))
    bad = json.loads(json.dumps(good))
    bad[1]["datasets"][0]["sota"]["rows"][2]["metrics"] = ["not", "a", "dict"]
    with pytest.raises(InputError) as info:
        list(pwc.read_evaluation_tables(_write(tmp_path, bad)))
    err = info.value
    assert err.line == 2 and err.field == "task.datasets[0].sota.rows[2].metrics"
    assert "evaluation-tables.json" in str(err)

    bad = json.loads(json.dumps(good))
    del bad[0]["subtasks"][0]["datasets"][0]["dataset"]
    with pytest.raises(InputError) as info:
        list(pwc.read_evaluation_tables(_write(tmp_path, bad)))
    assert info.value.line == 1 and info.value.field == "task.subtasks[0].datasets[0].dataset"

    bad = json.loads(json.dumps(good))
    bad[0]["datasets"][0]["sota"]["rows"][0]["metrics"]["Error Rate"] = {"v": 1}
    with pytest.raises(InputError) as info:
        list(pwc.read_evaluation_tables(_write(tmp_path, bad)))
    assert info.value.field == "task.datasets[0].sota.rows[0].metrics.Error Rate"


def test_row_without_any_name_is_skipped_and_counted(tmp_path: Path) -> None:
    data = [{"task": "T", "datasets": [{"dataset": "D", "sota": {"rows": [
        {"model_name": "", "paper_title": "", "metrics": {"F1": 1.0}},
        {"model_name": "M", "metrics": {"F1": 2.0, "Recall": None}},
    ]}}]}]  # fmt: skip
    report = pwc.PwcReport()
    by = _by_type(_records(pwc.read_evaluation_tables(_write(tmp_path, data), report=report)))
    assert report.rows_without_method == 1
    assert [(r.method, r.metric, r.score) for r in by["Result"]] == [("M", "F1", 2.0)]
    assert "HasResult" not in by and report.results_without_paper == 1


def test_non_finite_scores_are_kept_raw_not_fatal(tmp_path: Path) -> None:
    """``"inf"`` / ``"NaN"`` cells parse to non-finite floats that ``Result`` rejects; they must
    be stored like any unparseable value (score null, raw text kept), not stop the load."""
    data = [{"task": "T", "datasets": [{"dataset": "D", "sota": {"rows": [
        {"model_name": "M", "metrics": {"F1": "inf", "Recall": "NaN", "EM": "3.5"}},
    ]}}]}]  # fmt: skip
    report = pwc.PwcReport()
    by = _by_type(_records(pwc.read_evaluation_tables(_write(tmp_path, data), report=report)))
    assert [(r.metric, r.score, r.raw_score) for r in by["Result"]] == [
        ("F1", None, "inf"), ("Recall", None, "NaN"), ("EM", 3.5, "3.5"),
    ]  # fmt: skip
    assert report.unparseable_scores == 2
    assert report.unparseable_examples == ["F1='inf'", "Recall='NaN'"]


def test_missing_file_is_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found"):
        list(pwc.read_links(tmp_path / "nope.json"))

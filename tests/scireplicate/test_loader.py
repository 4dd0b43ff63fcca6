"""``scholarkg load scireplicate`` on the real embedded server, with a synthetic Data.json."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.commands.common import store_session
from scholarkg.errors import InputError
from scholarkg.loaders.scireplicate import ScireplicateReport, read_scireplicate, report_rows
from scholarkg.loaders.scireplicate_data import read_benchmark
from scholarkg.loaders.scireplicate_sources import parse_bib, parse_python_file
from scholarkg.schema.records import NodeRecord

WHAT = (
    "papers with tasks",
    "tasks",
    "method tasks",
    "reference steps",
    "reference data-flow edges",
    "depends_on intra",
    "depends_on cross",
    "calls_api",
    "targets",
    "sections",
    "cited papers",
    "unresolved entities",
)


def _counts(graph: str) -> dict[str, int]:
    with store_session() as store:
        rows = store.run_named("scireplicate/load_counts", {})
    got = {r["what"]: r["n"] for r in rows}
    return {w: got.get(w, 0) for w in WHAT}  # FalkorDB returns no row for an empty count


def _expected(data: Path) -> dict[str, int]:
    """Counts recomputed from the file's own JSON (not through the loader)."""
    raw = json.loads(data.read_text())
    tasks = [t for p in raw for t in p["task_details"]]
    return {
        "papers": len(raw),
        "tasks": len(tasks),
        "methods": sum(t["type"] == "method" for t in tasks),
        "steps": sum(t["ReferenceCode_With_Comments"].count("[End Snippet") for t in tasks),
        "intra": sum(len(t["dependency"]["intra_file"]) for t in tasks),
        "cross": sum(len(t["dependency"]["cross_file"]) for t in tasks),
        "api": sum(len(t["external_APIs"]["list"]) for t in tasks),
    }


def test_load_writes_graph_and_reports_counts(graph_env: str, synthetic_bench: Path) -> None:
    root = synthetic_bench.parent
    args = [
        "load",
        "scireplicate",
        str(synthetic_bench),
        "--papers-dir",
        str(root / "papers"),
        "--repos-dir",
        str(root / "repos"),
    ]
    out = cli_ok(args)
    exp = _expected(synthetic_bench)
    assert "reasoning steps" in out and "dependencies: cross-file" in out
    got = _counts(graph_env)
    assert got["papers with tasks"] == exp["papers"] == 3
    assert got["tasks"] == exp["tasks"] == 8
    assert got["method tasks"] == exp["methods"]
    assert got["reference steps"] == exp["steps"]
    assert got["depends_on intra"] == exp["intra"]
    assert got["depends_on cross"] == exp["cross"]
    assert got["calls_api"] <= exp["api"]  # one edge per distinct API of a task
    assert got["sections"] == 3 * 4  # Introduction, Method, Scoring, Experiments
    assert got["cited papers"] == 3 * 3  # the uncited bib entry is left out
    assert got["unresolved entities"] == 0  # every dependency is defined in the repositories
    assert got["targets"] == 8
    # idempotent: a second load changes nothing
    cli_ok(args)
    assert _counts(graph_env) == got


def test_load_without_sources_uses_placeholders(graph_env: str, synthetic_bench: Path) -> None:
    cli_ok(["load", "scireplicate", str(synthetic_bench)])
    got = _counts(graph_env)
    assert got["sections"] == 0 and got["cited papers"] == 0
    assert got["targets"] == 8  # the target file comes from ori_python_file
    # cross-file dependencies point at placeholders (utils/helpers.py was not given)
    with store_session() as store:
        rows = store.run(
            "MATCH (t:CodeTask)-[d:DEPENDS_ON {scope: 'cross'}]->(e:CodeEntity) "
            "RETURN DISTINCT e.kind AS kind, e.namespace AS ns",
            {},
        )
    assert rows and all(
        r["kind"] == "unresolved" and r["ns"] == "utils.helpers.normalize" for r in rows
    )


def test_reference_graph_in_graph_matches_metrics(graph_env: str, synthetic_bench: Path) -> None:
    from scholarkg.benchmark.metrics.code_graph import build_reasoning_graph

    cli_ok(["load", "scireplicate", str(synthetic_bench)])
    task = read_benchmark(synthetic_bench)[0].tasks[0]
    graph = build_reasoning_graph(task.reference_body)
    with store_session() as store:
        rows = store.run_named(
            "scireplicate/reference_steps", {"task": task.uid.removeprefix("scirep:")}
        )
    assert [r["ordinal"] for r in rows] == [s.snippet for s in graph.steps]
    assert [r["text"] for r in rows] == [s.text for s in graph.steps]
    weights = graph.weights()
    assert [round(r["weight"], 9) for r in rows] == [
        round(weights[s.snippet], 9) for s in graph.steps
    ]
    edges = {(a, b) for r in rows for a, b in [(r["ordinal"], x) for x in r["flows_to"]]}
    assert edges == set(graph.edges)


def _broken(tmp_path: Path, synthetic_bench: Path, edit: Callable[[Any], object]) -> Path:
    raw = json.loads(synthetic_bench.read_text())
    edit(raw)
    path = tmp_path / "Data.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.mark.parametrize(
    ("edit", "where", "field"),
    [
        (lambda d: d[1]["task_details"][0].pop("namespace"), "$[1].task_details[0]", "namespace"),
        (
            lambda d: d[0]["task_details"][1].update(body_position=[5]),
            "$[0].task_details[1]",
            "body_position",
        ),
        (lambda d: d[2]["task_details"][0].update(type="lambda"), "$[2].task_details[0]", "type"),
        (
            lambda d: d[0]["task_details"][0]["dependency"].update(intra_file="f"),
            "$[0].task_details[0].dependency",
            "intra_file",
        ),
        (lambda d: d[1].update(paper_details=[]), "$[1]", "paper_details"),
    ],
)
def test_bad_input_names_path_and_field(
    tmp_path: Path, synthetic_bench: Path, edit: Callable[[Any], object], where: str, field: str
) -> None:
    path = _broken(tmp_path, synthetic_bench, edit)
    with pytest.raises(InputError) as err:
        read_benchmark(path)
    assert err.value.field == field and where in str(err.value) and str(path) in str(err.value)


def test_bad_input_stores_nothing_new_and_keeps_old(
    graph_env: str, tmp_path: Path, synthetic_bench: Path
) -> None:
    cli_ok(["load", "scireplicate", str(synthetic_bench)])
    before = _counts(graph_env)
    path = _broken(tmp_path, synthetic_bench, lambda d: d[2]["task_details"][0].pop("latex_code"))
    result = runner.invoke(app, ["load", "scireplicate", str(path)])
    assert isinstance(result.exception, InputError)
    assert "$[2].task_details[0]" in str(result.exception)
    assert result.exception.field == "latex_code"
    assert _counts(graph_env) == before


def test_report_rows_name_the_issue_counts(synthetic_bench: Path) -> None:
    report = ScireplicateReport()
    groups = list(read_scireplicate(synthetic_bench, report=report))
    assert [g for g, _ in groups] == [1, 2, 3]
    rows = dict(report_rows(report))
    exp = _expected(synthetic_bench)
    assert rows["papers"] == 3 and rows["tasks"] == 8
    assert rows["tasks: method"] == exp["methods"]
    assert rows["reasoning steps"] == str(exp["steps"])
    assert rows["dependencies: external API"] == exp["api"]


def test_duplicate_arxiv_url_gets_title_id(tmp_path: Path, synthetic_bench: Path) -> None:
    def edit(d: Any) -> None:
        d[2]["paper_details"]["url"] = d[0]["paper_details"]["url"]

    path = _broken(tmp_path, synthetic_bench, edit)
    report = ScireplicateReport()
    firsts = [recs[0] for _, recs in read_scireplicate(path, report=report)]
    papers = [p for p in firsts if isinstance(p, NodeRecord)]
    assert papers == firsts
    assert papers[0].id == "arxiv:0001.00000" and papers[2].id.startswith("paper:")
    assert len({p.id for p in papers}) == 3 and "paper 2" in report.notes[0]


def test_parse_python_file_positions() -> None:
    src = (
        "import os\nLIMIT = 3\n\n\nclass A:\n    def __init__(self):\n        self.k = 1\n\n"
        "    def run(self,\n            x):\n        '''doc'''\n        return x + self.k\n\n\n"
        "def top(y):\n    return y\n"
    )
    parsed = {e.qualname: e for e in parse_python_file(src).entities}
    assert set(parsed) == {"LIMIT", "A", "A.__init__", "A.run", "A.k", "top"}
    run = parsed["A.run"]
    assert (run.start_line, run.body_start, run.body_end) == (9, 11, 12)
    assert run.signature == "    def run(self,\n            x):"
    assert parsed["A.k"].kind == "attribute" and parsed["LIMIT"].kind == "global"
    assert parse_python_file("def broken(:\n").parse_error is not None


def test_parse_bib_fields() -> None:
    text = (
        '@string{x = "y"}\n@inproceedings{k1,\n title = {A {Nested} Title},\n'
        ' year = 2021,\n author = "Doe, J."\n}\n'
    )
    (entry,) = parse_bib(text)
    assert entry.key == "k1" and entry.title == "A Nested Title"
    assert entry.fields["year"] == "2021" and entry.fields["author"] == "Doe, J."


@pytest.mark.skipif(
    not os.environ.get("SCIREPLICATE_DATA"), reason="set SCIREPLICATE_DATA=/path/to/Data.json"
)
def test_released_file_counts() -> None:
    """The released Data.json (not in the repo): the counts issue 14 and the sheet give."""
    report = ScireplicateReport()
    for _ in read_scireplicate(Path(os.environ["SCIREPLICATE_DATA"]), report=report):
        pass
    assert report.papers == 36 and dict(report.tasks) == {"method": 55, "function": 45}
    assert (report.steps, report.recovered_steps) == (475, 1)
    assert (report.data_flow_edges, report.recovered_edges) == (432, 1)
    assert dict(report.dependencies) == {"intra-file": 85, "cross-file": 33, "external API": 235}
    assert any("paper 33" in n for n in report.notes)
    assert report.unresolved_targets == 0  # two misspelt namespaces resolved by def line


def test_target_files_are_not_read_from_the_repository(
    synthetic_bench: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task's file is stored as its ``ori_python_file`` (the positions refer to it), so
    the repository's copy is not read at all; every other ``.py`` file is read once."""
    from scholarkg.loaders.scireplicate import _first_dir
    from scholarkg.loaders.scireplicate_sources import python_files
    from scholarkg.schema.scireplicate import CodeFile

    repos = synthetic_bench.parent / "repos"
    reads: list[Path] = []
    real_read_text = Path.read_text

    def read_text(self: Path, *args: object, **kwargs: object) -> str:
        if self.is_relative_to(repos):
            reads.append(self)
        return real_read_text(self, *args, **kwargs)  # type: ignore[arg-type]  # read_text's own arguments, passed through

    monkeypatch.setattr(Path, "read_text", read_text)
    groups = list(read_scireplicate(synthetic_bench, repos_dir=repos))
    monkeypatch.undo()
    targets: set[Path] = set()
    others: set[Path] = set()
    for (_, records), paper in zip(groups, read_benchmark(synthetic_bench), strict=True):
        stored = {f.path: f.content for f in records if isinstance(f, CodeFile)}
        root = _first_dir(repos, paper.project_path, paper.index)
        assert root is not None
        for task in paper.tasks:
            targets.add(root / task.file_path)
            assert stored[task.file_path] == task.ori_python_file
        others |= {root / rel for rel in python_files(root)} - targets
    assert targets and others and all(t.is_file() for t in targets)
    assert sorted(reads) == sorted(others)  # each other file once, no target file at all

"""A benchmark family is one declaration: the catalog, what is derived from it, and a toy family.

The shipped families must resolve (every ``"module:attribute"`` they name imports, their tasks
say they belong to them, their saved-query folders and dataset files exist) and their
declaration modules must stay data (they import nothing but ``scholarkg.family`` and
``scholarkg.schema.spec``, so the DDL can read the catalog without an import cycle and
``bench list`` stays instant).

Then a toy family, written here into a temporary folder as a separately installed package
would be (a ``*.dist-info`` with an entry point in the group ``scholarkg.families``), must
appear in ``bench list``, ``load --help``, the DDL whitelists and keys, the properties
``graph pagerank --write`` protects, the cross-benchmark saved query and the demo, with no
edit anywhere in scholarkg.
"""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from scholarkg import families as catalog
from scholarkg.benchmark.registry import load_task, task_names
from scholarkg.config import Settings
from scholarkg.schema import ddl
from scholarkg.store.falkordb.server import EmbeddedServer

SHIPPED = ("legobench", "dorismae", "citerec", "retrieval", "aaar", "scireplicate")


def test_shipped_families_resolve_and_own_their_tasks() -> None:
    fams = catalog.families()
    assert tuple(f.name for f in fams) == SHIPPED
    for fam in fams:
        for name in fam.tasks:
            assert load_task(name).family == fam.name, name
        for target in (*fam.load_commands.values(), *fam.demo_steps):
            assert callable(catalog.resolve(target)), target
        assert fam.synthetic is not None
        importlib.import_module(fam.synthetic)
        for folder in fam.queries:
            root = resources.files("scholarkg.queries") / folder
            assert any(p.name.endswith(".cypher") for p in root.iterdir()), folder
        if fam.datasets:
            assert resources.files(fam.package).joinpath(fam.datasets).is_file()
    # every task is some family's, and every fetchable dataset belongs to its family
    assert sorted(catalog.task_classes()) == task_names()
    from scholarkg.services.fetch import load_registry

    assert {s.benchmark for s in load_registry().values()} <= set(SHIPPED)


def test_declarations_import_only_the_family_record_and_the_schema_vocabulary() -> None:
    allowed = {"__future__", "scholarkg.family", "scholarkg.schema.spec"}
    for module in catalog.FAMILY_MODULES:
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        imported = {
            node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
        } | {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
        assert imported <= allowed, (module, imported - allowed)


def test_two_families_cannot_claim_one_label(monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from scholarkg.errors import ConfigError

    lego, doris = catalog.families()[:2]
    clash = replace(doris, schema=replace(doris.schema, labels=doris.schema.labels | {"Result"}))
    with pytest.raises(ConfigError, match="'legobench' and 'dorismae' both declare the label"):
        catalog._check_unique([lego, clash])


# --------------------------------------------------------------------------- a toy family

TOY_INIT = '''\
"""A toy benchmark family: notes that each point at one paper; find the paper."""

from scholarkg.family import Family, PaperReach
from scholarkg.schema.spec import LookupIndex, SchemaPart

FAMILY = Family(
    name="toy",
    title="Toy notes",
    reference="written for scholarkg's tests",
    tasks={"toy-notes": "toy_family.task:ToyNotesTask"},
    load_commands={"toy-notes": "toy_family.load:load_toy_notes"},
    schema=SchemaPart(
        labels=frozenset({"ToyNote"}),
        rel_types=frozenset({"NOTES_ON"}),
        lookups=(LookupIndex("ToyNote", "mood"),),
        records="toy_family.records",
    ),
    demo_steps=("toy_family.demo:load_and_rank",),
    synthetic="toy_family.records",
    reaches_papers=PaperReach("toy_notes", (("in", "NOTES_ON", "ToyNote"),)),
)
'''

TOY_RECORDS = '''\
"""The toy family's records and its synthetic notes file (JSONL: id, text, paper, title)."""

import json
from pathlib import Path
from typing import ClassVar

from scholarkg.schema.records import EdgeRecord, NodeRecord, Paper

PAPERS = {
    "arxiv:2101.00001": "sparse retrieval with learned term weights",
    "arxiv:2101.00002": "personalized pagerank over citation graphs",
    "arxiv:2101.00003": "aspect level relevance for complex queries",
}


class ToyNote(NodeRecord):
    LABEL: ClassVar[str] = "ToyNote"
    text: str
    mood: str | None = None


class NotesOn(EdgeRecord):
    TYPE: ClassVar[str] = "NOTES_ON"
    START: ClassVar[str] = "ToyNote"
    END: ClassVar[str] = "Paper"


def write_notes(path: Path) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i, (paper, title) in enumerate(PAPERS.items()):
            words = " ".join(title.split()[-3:])
            row = {"id": f"toy:{i}", "text": words, "paper": paper, "title": title}
            fh.write(json.dumps(row) + "\\n")
    return path


def read_notes(path: Path):
    """One group per line: the paper, the note, the edge."""
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            row = json.loads(line)
            yield number, [
                Paper(id=row["paper"], arxiv_id=row["paper"].removeprefix("arxiv:"),
                      title=row["title"]),
                ToyNote(id=row["id"], text=row["text"], mood="calm"),
                NotesOn(start=row["id"], end=row["paper"]),
            ]
'''

TOY_TASK = '''\
"""Find the paper a toy note points at, by BM25 over the papers' titles."""

from scholarkg.benchmark.metrics.ir import evaluate
from scholarkg.benchmark.rankers.bm25 import BM25Ranker
from scholarkg.benchmark.task import (
    Answers, BenchmarkTask, Instance, ReportLayout, TaskMetric, TaskResult,
)


class ToyNotesTask(BenchmarkTask):
    name = "toy-notes"
    family = "toy"
    description = "find the paper a note points at"
    metrics = (TaskMetric("R@1", "percent"),)
    answer_kinds = frozenset({"ranker"})
    rankers = ("bm25",)
    baseline = "bm25"
    layout = ReportLayout(title="Toy notes", columns=("R@1",), instance_label="note")

    def build_instances(self, store, options):
        rows = store.run(
            "MATCH (n:ToyNote)-[:NOTES_ON]->(p:Paper) RETURN n.id AS id, n.text AS text, "
            "p.id AS gold ORDER BY n.id", {},
        )
        return [Instance(id=r["id"], data={"query": r["text"], "gold": r["gold"]}) for r in rows]

    def answer(self, store, instances, source, options, progress=None):
        rows = store.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS t ORDER BY p.id", {})
        ranker = BM25Ranker([r["id"] for r in rows], [r["t"] or "" for r in rows])
        ranked = {i.id: ranker.rank(i.data["query"], 10, query_id=i.id).ids for i in instances}
        return Answers(by_instance=ranked, source=source)

    def score(self, instances, answers, options):
        qrels = {i.id: {i.data["gold"]: 1} for i in instances}
        res = evaluate(qrels, dict(answers.by_instance), ["R@1"])
        per = {q: {k: 100 * v for k, v in s.items()} for q, s in res.per_query.items()}
        return TaskResult(aggregate={"R@1": 100 * res.aggregate["R@1"]}, per_instance=per)
'''

TOY_LOAD = '''\
"""``scholarkg load toy-notes FILE``: through the shared load steps like every family."""

from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.load_common import BatchOpt, ResumeOpt, load_and_report
from scholarkg.loaders.steps import Step


def load_toy_notes(
    file: Annotated[Path, typer.Argument(help="notes.jsonl", exists=True)],
    resume: ResumeOpt = False,
    batch_size: BatchOpt = 100,
) -> None:
    """Toy notes: each a ToyNote NOTES_ON a paper."""
    from toy_family.records import read_notes

    step = Step("toy notes", file, "toy-notes", lambda: read_notes(file))
    load_and_report([step], title="load toy-notes", resume=resume, batch_size=batch_size)
'''

TOY_DEMO = '''\
"""The toy family's demo step: write its notes, load them, run the task."""

from scholarkg.benchmark.demo_context import DemoContext
from scholarkg.loaders.steps import Step


def load_and_rank(ctx: DemoContext) -> None:
    from toy_family.records import read_notes, write_notes

    t = ctx.step("toy notes: load, BM25")
    path = write_notes(ctx.out_dir / "toy-notes.jsonl")
    ctx.load([Step("toy notes", path, "toy-notes", lambda: read_notes(path))], batch_size=100)
    ctx.run_family("toy-notes", ("bm25",), {})
    ctx.done(t)
'''


def _write_toy_family(root: Path) -> None:
    pkg = root / "toy_family"
    pkg.mkdir(parents=True)
    for name, text in (("__init__", TOY_INIT), ("records", TOY_RECORDS), ("task", TOY_TASK),
                       ("load", TOY_LOAD), ("demo", TOY_DEMO)):  # fmt: skip
        (pkg / f"{name}.py").write_text(text, encoding="utf-8")
    dist = root / "toy_family-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-family\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[scholarkg.families]\ntoy = toy_family\n")


@pytest.fixture
def toy_family(tmp_path: Path) -> Iterator[Path]:
    """The toy family installed (on ``sys.path``, found through its entry point), then gone."""
    root = tmp_path / "site"
    _write_toy_family(root)
    sys.path.insert(0, str(root))
    importlib.invalidate_caches()
    catalog.refresh()
    try:
        yield root
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "toy_family" or m.startswith("toy_family.")]:
            del sys.modules[name]
        catalog.refresh()


def test_toy_family_joins_the_registry_ddl_and_cross_view(toy_family: Path) -> None:
    assert catalog.family("toy").package == "toy_family"
    assert "toy-notes" in task_names() and load_task("toy-notes").family == "toy"
    assert "ToyNote" in ddl.node_labels() and "NOTES_ON" in ddl.rel_types()
    assert ddl.check_label("ToyNote") == "ToyNote"
    spec = ddl.default_schema()
    assert any(k.label == "ToyNote" for k in spec.keys)
    assert any((x.label, x.property) == ("ToyNote", "mood") for x in spec.lookups)
    # graph pagerank --write may not overwrite the toy records' fields
    assert {"id", "text", "mood"} <= ddl.declared_properties("ToyNote")
    from scholarkg.explorer.saved import saved_queries

    cross = next(q for q in saved_queries() if q.name == "cross_benchmark_papers")
    assert "[(p)<-[:NOTES_ON]-(n5:ToyNote) | n5.id] AS toy_notes" in cross.text
    catalog.refresh()
    sys.path.remove(str(toy_family))
    try:
        catalog.refresh()
        assert "ToyNote" not in ddl.node_labels()  # uninstalled: gone from the whitelist
    finally:
        sys.path.insert(0, str(toy_family))


def test_toy_family_in_the_cli(toy_family: Path, tmp_path: Path) -> None:
    """The real ``scholarkg`` command, in a process that sees the toy package on its path."""
    env = {**os.environ, "PYTHONPATH": str(toy_family), "SCHOLARKG_HOME": str(tmp_path / "h")}
    exe = Path(sys.executable).with_name("scholarkg")

    def cli(*args: str) -> str:
        done = subprocess.run(
            [str(exe), *args], env=env, capture_output=True, text=True, timeout=120,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return " ".join(done.stdout.split())

    assert "toy-notes" in cli("bench", "list")
    assert "toy-notes (toy): find the paper a note points at" in cli("bench", "show", "toy-notes")
    assert "toy-notes" in cli("load", "--help")
    assert "notes.jsonl" in cli("load", "toy-notes", "--help")


def test_toy_family_runs_in_the_demo(
    toy_family: Path, settings: Settings, embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    import io

    from rich.console import Console

    from scholarkg.demo import DEMO_GRAPH, demo_steps, run_demo
    from scholarkg.store.falkordb.store import FalkorDBStore

    steps = [f"{s.__module__}:{s.__name__}" for s in demo_steps()]
    assert "toy_family.demo:load_and_rank" in steps  # after the shipped families' steps
    assert steps.index("toy_family.demo:load_and_rank") > steps.index(
        "scholarkg.benchmark.tasks.scireplicate.demo:load_and_score"
    )
    out = io.StringIO()
    summary = run_demo(
        settings, out_dir=tmp_path / "demo", with_llm=False, only=["toy"],
        console=Console(file=out, width=160),
    )  # fmt: skip
    from scholarkg.benchmark.runs import RunRegistry

    runs = [RunRegistry(settings.runs_dir).load(r) for r in summary["runs"]]
    assert [(r.task, r.metrics["R@1"]) for r in runs] == [("toy-notes", 100.0)]
    report = Path(summary["report"][0]).read_text()
    assert "## Toy notes" in report
    assert "2. toy notes: load, BM25" in out.getvalue()
    store = FalkorDBStore(embedded_server.connect(), DEMO_GRAPH)
    try:
        assert store.counts().nodes["ToyNote"] == 3
    finally:
        store.clear()
        store.close()

"""``scholarkg demo``: the whole pipeline on small synthetic corpora, end to end.

Starts the embedded store (left running, so you can explore with ``scholarkg --graph demo
cypher ...`` or ``scholarkg --graph demo explore`` afterwards), then runs every benchmark
family's demo steps in catalog order (``scholarkg.families``; each family declares its own in
``benchmark/tasks/<family>/demo.py``): LEGOBench writes its synthetic world in the real file
formats, loads it, runs Cypher, embeds the papers, shows a leaderboard, runs RPG (the paper's
PageRank baseline and our ranker) and the LLM tasks against a real local model; each other
family loads its synthetic corpus into the same graph and runs its main task, baseline vs
ours. A few LEGOBench leaderboard papers are passed to the other generators by arXiv id, so
they meet as one node per paper under the id rules (``schema/ids.py``); the saved explorer
query ``cross_benchmark_papers`` (built from the families' declarations) shows them. One
report covers every run. Nothing is downloaded.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.rule import Rule

from scholarkg.config import Settings
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from scholarkg.benchmark.runs import RunRecord
    from scholarkg.loaders.steps import Step

DEMO_GRAPH = "demo"
#: how many LEGOBench leaderboard papers the other corpora share (one node each)
N_SHARED = 5


def run_demo(
    settings: Settings,
    *,
    out_dir: Path,
    n_papers: int = 400,
    n_leaderboards: int = 24,
    n_citerec: int = 300,
    with_llm: bool = True,
    console: Console | None = None,
    only: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Run every demo step (``only``: just these families' steps); returns a summary (counts,
    run ids, report paths)."""
    from scholarkg.store import open_store

    console = console or Console()
    # the demo draws its own progress; silence the libraries' per-tensor bars
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    summary: dict[str, Any] = {}
    settings = settings.with_overrides(graph=DEMO_GRAPH)
    out_dir.mkdir(parents=True, exist_ok=True)

    embedded = settings.backend == "embedded"
    title = "embedded graph store" if embedded else f"graph store: {settings.backend}"
    console.print(Rule(f"[bold]1. {title}"))
    t = time.perf_counter()
    # like every command, through open_store (the embedded server started on demand); an
    # unfinished bulk load left in the demo graph is no reason to refuse: it is cleared below
    store = open_store(settings, allow_incomplete=True)
    if embedded:
        from scholarkg.store.falkordb.server import EmbeddedServer

        status = EmbeddedServer(settings.data_dir).status(details=False)
        console.print(f"FalkorDB pid {status.pid}, socket {status.socket}, data {status.data_dir}")
    else:
        _check_neo4j_is_the_demos(store, settings)
        console.print(f"{store!r} (the demo fills the whole database)")
    store.clear()
    created = store.apply_schema()
    console.print(f"schema applied on graph {store.graph!r} ({len(created or [])} statements)")
    if not embedded:
        marker = _demo_marker(settings)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(_demo_marker_text(store) + "\n", encoding="utf-8")
    console.print(f"[dim]({time.perf_counter() - t:.1f} s)[/dim]")

    try:
        ctx = DemoContext(
            store, settings, out_dir, summary, console, n_papers, n_leaderboards,
            n_citerec=n_citerec, with_llm=with_llm,
        )  # fmt: skip
        for step in demo_steps(only):
            step(ctx)
    finally:
        store.close()
    console.print(Rule("[bold green]demo finished"))
    where = f"--graph {DEMO_GRAPH}" if settings.backend == "embedded" else "--backend neo4j"
    console.print(
        f"Explore: [bold]scholarkg {where} cypher "
        '"MATCH (p:Paper)-[:CITES]->(q:Paper) RETURN q.title, count(p) AS cites '
        'ORDER BY cites DESC LIMIT 5"[/bold]\n'
        f"Stop the server: [bold]scholarkg {'' if settings.backend == 'embedded' else where + ' '}"
        "db stop[/bold]"
    )
    return summary


def _demo_marker(settings: Settings) -> Path:
    """``<home>/demo-neo4j.txt``: which Neo4j database the demo last filled."""
    return settings.home / "demo-neo4j.txt"


def _demo_marker_text(store: GraphStore) -> str:
    return repr(store)  # URI without credentials, user, database


def _check_neo4j_is_the_demos(store: GraphStore, settings: Settings) -> None:
    """Refuse to wipe a Neo4j database that holds someone's data.

    On the embedded store the demo has a graph of its own (``demo``); Neo4j Community has one
    user database, so the demo clears and fills *that*. It does so only when the database is
    empty or is the one the demo filled last time (the marker file names it).
    """
    from scholarkg.errors import ConfigError

    counts = store.counts()
    n = sum(counts.nodes.values())
    if n == 0:
        return
    marker = _demo_marker(settings)
    if marker.is_file() and marker.read_text(encoding="utf-8").strip() == _demo_marker_text(store):
        return
    store.close()
    raise ConfigError(
        f"the demo clears the whole Neo4j database, and {store!r} holds {n} scholarkg nodes "
        "that an earlier demo did not write; point NEO4J_URI / NEO4J_DATABASE at an empty "
        "database, or empty this one first (scholarkg --backend neo4j db reset)"
    )


@dataclass
class DemoContext:
    """What every demo step works with (one object, so steps share one signature): the
    :class:`~scholarkg.benchmark.demo_context.DemoContext` the families' steps are given."""

    store: GraphStore
    settings: Settings
    out_dir: Path
    summary: dict[str, Any]
    console: Console
    n_papers: int
    n_leaderboards: int
    n_citerec: int = 300
    with_llm: bool = True
    #: the LEGOBench world (its leaderboard papers are the ones the other corpora share)
    corpus: Any = None
    graph: str = DEMO_GRAPH
    #: the number the next step prints (1 is the store)
    step_number: int = 2

    def step(self, title: str) -> float:
        """Print the next step's numbered heading; returns its start time (for :meth:`done`)."""
        self.console.print(Rule(f"[bold]{self.step_number}. {title}"))
        self.step_number += 1
        return time.perf_counter()

    def done(self, started: float) -> None:
        self.console.print(f"[dim]({time.perf_counter() - started:.1f} s)[/dim]")

    def shared_arxiv_ids(self) -> list[str]:
        """The arXiv ids of the first leaderboard entries (the papers the corpora share);
        none when LEGOBench's world was not generated in this demo."""
        ids: list[str] = []
        if self.corpus is None:
            return ids
        for lb in self.corpus.leaderboards:
            for pi in lb.papers:
                arxiv = self.corpus.papers[pi].arxiv_id
                if arxiv not in ids:
                    ids.append(arxiv)
        return ids[:N_SHARED]

    def load(self, steps: Sequence[Step], *, batch_size: int) -> Any:
        """Load ``steps`` into the demo graph with a counter per file (checkpoints under the
        demo's settings)."""
        from scholarkg.console import stage_counter
        from scholarkg.loaders.steps import run_steps

        with stage_counter() as progress:
            return run_steps(
                self.store, steps, settings=self.settings, batch_size=batch_size,
                progress=progress,
            )  # fmt: skip

    def run_family(
        self,
        task_name: str,
        sources: Sequence[Any],
        options: dict[str, Any],
        *,
        limit: int | None = None,
    ) -> list[RunRecord]:
        """One recorded run per answer source (a ranker name, or an ``AnswerSource``;
        baseline first, ours last); prints their metrics."""
        from scholarkg.benchmark.registry import load_task
        from scholarkg.benchmark.runner import run_task
        from scholarkg.benchmark.task import AnswerSource

        task = load_task(task_name)
        runs = []
        for source in sources:
            if isinstance(source, str):
                source = AnswerSource.ranker(source)
            run = run_task(
                task, self.store, source, options, runs_dir=self.settings.runs_dir, limit=limit
            ).record  # fmt: skip
            shown = {k: round(v, 3) for k, v in run.metrics.items() if isinstance(v, int | float)}
            self.console.print(
                f"  {task_name} {source.name}: run {run.id} {shown}", highlight=False
            )
            runs.append(run)
        self.summary.setdefault("runs", []).extend(r.id for r in runs)
        return runs


StepFn = Callable[[DemoContext], None]


def demo_steps(only: Sequence[str] | None = None) -> list[StepFn]:
    """Every family's demo steps in catalog order (``only``: those families'), then the
    cross-benchmark view and the report. A step that needs the LLM checks ``ctx.with_llm``.

    Without LEGOBench the other families' corpora share no papers (``shared_arxiv_ids`` is
    empty), so the cross-benchmark view is then empty too.
    """
    from scholarkg.families import families, family, resolve

    chosen = [family(name) for name in only] if only else list(families())
    order = [f.name for f in families()]
    chosen.sort(key=lambda f: order.index(f.name))
    steps: list[StepFn] = [resolve(target) for fam in chosen for target in fam.demo_steps]
    return [*steps, _cross_view, _report]


CROSS_VIEW = "cross_benchmark_papers"


def cross_benchmark_rows(store: GraphStore, min_families: int = 2) -> list[dict[str, Any]]:
    """The saved explorer query ``cross_benchmark_papers``: papers that several families
    reach, one node each (a column per family)."""
    from scholarkg.explorer.saved import saved_queries

    query = next(q for q in saved_queries() if q.name == CROSS_VIEW)
    return store.run(query.text, {"minFamilies": min_families})


def _cross_view(ctx: DemoContext) -> None:
    from scholarkg.console import print_rows

    t = ctx.step("one graph: papers shared by the benchmark families")
    rows = cross_benchmark_rows(ctx.store)
    print_rows(rows, "table", title=f"saved query {CROSS_VIEW}", out=ctx.console)
    ctx.console.print(
        f"  the same in the explorer: scholarkg --graph {DEMO_GRAPH} explore, saved query "
        f"{CROSS_VIEW!r}",
        highlight=False,
    )
    ctx.summary["shared"] = rows
    ctx.done(t)


def _report(ctx: DemoContext) -> None:
    from scholarkg.benchmark.report import write_report
    from scholarkg.benchmark.runs import RunRegistry

    run_ids = ctx.summary.get("runs") or []
    if not run_ids:
        return
    t = ctx.step("report (Markdown, JSON, self-contained HTML with plots)")
    registry = RunRegistry(ctx.settings.runs_dir)
    runs = [registry.load(run_id) for run_id in run_ids]
    paths = write_report(runs, ctx.out_dir / "report", n_resamples=2_000)
    for path in paths:
        ctx.console.print(f"  {path}")
    ctx.summary["report"] = [str(p) for p in paths]
    a, b = ctx.summary.get("compare") or (run_ids[0], run_ids[-1])
    ctx.console.print(f"  also: scholarkg runs list; scholarkg runs compare {a} {b}")
    ctx.done(t)

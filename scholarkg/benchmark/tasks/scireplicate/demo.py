"""SciReplicate-Bench in ``scholarkg demo``: imported code, a wrong-answer floor vs the oracle."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scholarkg.benchmark.demo_context import DemoContext


def load_and_score(ctx: DemoContext) -> None:

    from scholarkg.benchmark.task import AnswerSource
    from scholarkg.loaders.scireplicate import ScireplicateReport, read_scireplicate
    from scholarkg.loaders.steps import Step
    from scholarkg.synthetic.scireplicate import (
        generate,
        write_benchmark,
        write_reference_predictions,
    )

    t = ctx.step("SciReplicate-Bench: imported code, a wrong-answer floor vs oracle")
    shared = ctx.shared_arxiv_ids()[2:3]
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
    ctx.load([step], batch_size=8)
    files = write_reference_predictions(data, root)
    ctx.console.print(f"  loaded {data}; predictions: {', '.join(map(str, files.values()))}")
    sources = tuple(AnswerSource.predictions(p) for p in files.values())
    ctx.run_family("scireplicate", sources, {"judge": "embedding"})
    ctx.console.print(
        "  (imported answers: another task's reference code as a floor, the reference code as "
        "the ceiling; the ReAct agent on the 135M model is skipped, it needs several calls "
        "per task: scholarkg bench run scireplicate --model ...)"
    )
    ctx.done(t)

"""AAAR-1.0 and ReviewCritique in ``scholarkg demo``: ExpDesign, copy-input vs the local model."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scholarkg.benchmark.demo_context import DemoContext

from functools import partial


def load_and_answer(ctx: DemoContext) -> None:
    from scholarkg.benchmark.task import AnswerSource
    from scholarkg.loaders.aaar import aaar_groups, reviewcritique_groups, task_sources
    from scholarkg.loaders.steps import Step
    from scholarkg.synthetic.aaar import write_synthetic

    t = ctx.step("AAAR-1.0 + ReviewCritique: ExpDesign, copy-input vs the model")
    shared = ctx.shared_arxiv_ids()[:2]
    data = write_synthetic(ctx.out_dir / "aaar", n_expdesign=3, expdesign_ids=shared)
    steps = [
        Step(f"aaar {task}", path, f"aaar-{task}", partial(aaar_groups, task, path))
        for task, path in task_sources(data.root)
    ]
    rc = data.reviewcritique
    steps.append(Step("reviewcritique", rc, "reviewcritique", lambda: reviewcritique_groups(rc)))
    ctx.load(steps, batch_size=200)
    ctx.console.print(f"  loaded {data.root} (EqInfer, ExpDesign, Weakness, ReviewCritique)")
    if not ctx.with_llm:
        ctx.run_family("aaar-expdesign", ("copy-input",), {})
        ctx.console.print("  (--no-llm: the model run is skipped; only the baseline ran)")
        ctx.done(t)
        return
    from scholarkg.services.llm import LLMClient
    from scholarkg.services.llm_server import start_local_server

    opts = {"context_words": 300, "max_tokens": 96}
    with (
        start_local_server(cache_dir=ctx.settings.cache_dir) as server,
        LLMClient(server.base_url, None, timeout=600.0) as client,
    ):
        sources = ("copy-input", AnswerSource.model(client))
        ctx.run_family("aaar-expdesign", sources, opts, limit=2)
    ctx.console.print(
        "  (2 papers, 300 words of context, 96 tokens per answer: SmolLM2-135M on CPU; "
        "EqInfer, Weakness and ReviewCritique are loaded but not run here, to keep the "
        "demo short: scholarkg bench run aaar-weakness ...)"
    )
    ctx.done(t)

"""Citation recommendation in ``scholarkg demo``: a synthetic S2 world, BM25 vs ours."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scholarkg.benchmark.demo_context import DemoContext


def load_and_rank(ctx: DemoContext) -> None:
    from scholarkg.loaders.corpus_lookup import corpus_lookup
    from scholarkg.loaders.steps import s2_steps
    from scholarkg.loaders.tolerant import SkipReport
    from scholarkg.synthetic.citation_world import generate
    from scholarkg.synthetic.citerec_corpus import write_world

    t = ctx.step("citation recommendation: synthetic S2 world, BM25 vs ours")
    shared = ctx.shared_arxiv_ids()
    files = write_world(generate(ctx.n_citerec, seed=13, arxiv_ids=shared), ctx.out_dir / "s2")
    report, lookup = SkipReport(), corpus_lookup(ctx.store)
    steps = s2_steps(files, report, lookup)
    ctx.load(steps, batch_size=2_000)
    ctx.console.print(f"  loaded {ctx.out_dir / 's2'} ({ctx.n_citerec} papers, S2 layout)")
    opts = {"projection_cache": str(ctx.out_dir / "s2" / "projection")}
    ctx.run_family("citerec", ("bm25", "hybrid-learned"), opts)
    ctx.done(t)

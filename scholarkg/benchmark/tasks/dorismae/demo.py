"""DORIS-MAE in ``scholarkg demo``: synthetic queries and abstracts, BM25 vs ours."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scholarkg.benchmark.demo_context import DemoContext


def load_and_rank(ctx: DemoContext) -> None:
    from scholarkg.loaders.dorismae import DorisReader
    from scholarkg.loaders.writer import write_records
    from scholarkg.synthetic.dorismae import SyntheticDoris, write_json

    t = ctx.step("DORIS-MAE: synthetic queries and abstracts, BM25 vs ours")
    shared = ctx.shared_arxiv_ids()
    world = SyntheticDoris(n_queries=6, pool_size=16, n_background=20, arxiv_ids=shared)
    (ctx.out_dir / "dorismae").mkdir(parents=True, exist_ok=True)
    path = write_json(world, ctx.out_dir / "dorismae" / "DORIS-MAE_dataset_v1.json")
    written = write_records(ctx.store, DorisReader(path).records(), batch_size=2_000)
    ctx.console.print(f"  loaded {path} ({written.records} records); shared papers: {shared}")
    ctx.run_family("dorismae", ("bm25", "aspect-bm25"), {"task": "full"})
    ctx.done(t)

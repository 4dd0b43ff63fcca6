"""``scholarkg demo`` loads every family into one graph: the shared papers are single nodes.

The demo (``scholarkg/demo.py``, without the LLM steps, tiny sizes) runs against the test
session's embedded server; the LEGOBench leaderboard papers it passes to the other
generators must each be one ``Paper`` node that a leaderboard, a DORIS-MAE candidate pool and
citation contexts all reach, and the report must have a section per family.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from scholarkg.config import Settings
from scholarkg.demo import DEMO_GRAPH, N_SHARED, cross_benchmark_rows, run_demo
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore


# slow: the whole demo, every family's synthetic corpus generated, loaded and run (about a
# minute here); tests/core/test_families.py runs one family's demo steps in the default suite
@pytest.mark.slow
def test_demo_shared_papers_are_single_nodes_reached_by_every_family(
    settings: Settings, embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    out = io.StringIO()
    summary = run_demo(
        settings, out_dir=tmp_path, n_papers=120, n_leaderboards=6, n_citerec=150,
        with_llm=False, console=Console(file=out, width=160),
    )  # fmt: skip
    store = FalkorDBStore(embedded_server.connect(), DEMO_GRAPH)
    try:
        shared = {r["paper"]: r for r in summary["shared"]}
        assert len(shared) == N_SHARED and all(p.startswith("arxiv:") for p in shared)
        for paper, row in shared.items():
            # one node per arXiv id, whichever corpus wrote it
            arxiv = paper.removeprefix("arxiv:")
            nodes = store.run(
                "MATCH (p:Paper) WHERE p.id = $id OR p.arxiv_id = $a RETURN p.id AS id",
                {"id": paper, "a": arxiv},
            )
            assert nodes == [{"id": paper}], (paper, nodes)
            # LEGOBench leaderboard entry, DORIS-MAE candidate, cited in citation contexts
            assert row["leaderboards"] >= 1 and row["doris_queries"] >= 1, row
            assert row["citation_contexts"] >= 1, row
            assert row["families"] >= 3, row
        # AAAR ExpDesign and SciReplicate papers join some of them too
        assert any(r["aaar_experiments"] for r in shared.values())
        assert any(r["scirep_tasks"] for r in shared.values())
        assert max(r["families"] for r in shared.values()) == 4
        # the saved explorer query is what the demo printed
        assert {r["paper"] for r in cross_benchmark_rows(store)} == set(shared)
        # one report, a section per family
        report = Path(summary["report"][0]).read_text()
        for heading in ("## LEGOBench RPG", "## DORIS-MAE", "## Local citation recommendation",
                        "## AAAR-1.0 ExpDesign", "## SciReplicate-Bench"):  # fmt: skip
            assert heading in report, heading
        assert ". one graph: papers shared by the benchmark families" in out.getvalue()
    finally:
        store.clear()
        store.close()

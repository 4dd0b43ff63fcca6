"""``scholarkg graph embed`` / ``graph similar`` from the command line (embedded store): the
summary GDS-style timings, the stored vectors' neighbours, and the errors a user meets."""

from __future__ import annotations

import json

from _cli import cli_ok, runner
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.cli import app
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore


def _doc_graph(server: EmbeddedServer, graph: str) -> None:
    st = FalkorDBStore(server.connect(), graph)
    try:
        st.merge_nodes("Paper", [{"id": p, "title": f"page {p}"} for p in PAGES])
        st.merge_relationships(
            "CITES", "Paper", "Paper", [{"start": a, "end": b} for a, b, _ in LINKS]
        )
    finally:
        st.close()


def test_embed_then_similar(graph_env: str, embedded_server: EmbeddedServer) -> None:
    _doc_graph(embedded_server, graph_env)
    out = json.loads(cli_ok(["graph", "embed", "--dimension", "16", "--format", "json"]))
    assert out["engine"] == "numpy" and out["property"] == "fastrp_16"
    assert out["node_count"] == len(PAGES) and out["relationship_count"] == len(LINKS)
    assert out["written"] == len(PAGES)  # the manual's graph has no isolated page
    assert out["config"]["iterationWeights"] == [0.0, 1.0, 1.0]
    assert out["compute_millis"] > 0 and out["wall_seconds"] > 0
    table = cli_ok(["graph", "embed", "--dimension", "16"])
    assert "computeMillis" in table and "Paper.fastrp_16" in table

    rows = json.loads(
        cli_ok(["graph", "similar", "Home", "--dimension", "16", "-k", "3", "-f", "json"])
    )
    assert len(rows) == 3 and "Home" not in {r["id"] for r in rows}
    assert [r["rank"] for r in rows] == [1, 2, 3] and rows[0]["title"].startswith("page ")

    missing = runner.invoke(app, ["graph", "similar", "Home", "--dimension", "8"])
    assert missing.exit_code != 0 and "graph embed --dimension 8" in str(missing.exception)
    bad = runner.invoke(app, ["graph", "embed", "--iteration-weights", "1,x"])
    assert bad.exit_code != 0 and "--iteration-weights" in str(bad.exception) + bad.output
    no_gds = runner.invoke(app, ["graph", "embed", "--estimate"])
    assert no_gds.exit_code != 0 and "GDS" in str(no_gds.exception)

"""``scholarkg graph``: PageRank from the command line on the GDS manual's example graph, the
projection listing and dropping, and the errors a user meets."""

from __future__ import annotations

import json

import pytest
from _cli import cli_ok, runner
from graphalgo.gds_doc_graph import LINKS, PAGES

from scholarkg.cli import app
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore


@pytest.fixture
def doc_graph(graph_env: str, embedded_server: EmbeddedServer) -> str:
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        st.merge_nodes("Paper", [{"id": p, "title": f"page {p}"} for p in PAGES])
        st.merge_relationships(
            "CITES", "Paper", "Paper", [{"start": a, "end": b} for a, b, _ in LINKS]
        )
    finally:
        st.close()
    return graph_env


def test_pagerank_prints_the_gds_numbers_and_reuses_the_projection(doc_graph: str) -> None:
    out = json.loads(cli_ok(["graph", "pagerank", "--top", "3", "--format", "json"]))
    top = out["top"]
    # GDS manual, unweighted: About, Links and Product tie at 1.05427; ties go by id
    assert [r["id"] for r in top] == ["Home", "About", "Links"]
    assert top[0]["score"] == pytest.approx(3.215682, abs=1e-6)
    assert top[1]["score"] == top[2]["score"] == pytest.approx(1.054270, abs=1e-6)
    assert top[0]["title"] == "page Home" and top[0]["rank"] == 1
    assert out["summary"]["nodes"] == len(PAGES) and out["summary"]["edges"] == len(LINKS)
    assert out["summary"]["projection"] == "built" and out["summary"]["engine"] == "scipy"
    again = json.loads(cli_ok(["graph", "pagerank", "--format", "json"]))
    assert again["summary"]["projection"] == "memory"  # same process, same graph state

    ppr = json.loads(cli_ok(["graph", "pagerank", "-s", "Site A", "-k", "2", "-f", "json"]))
    assert [(r["id"], r["score"]) for r in ppr["top"]] == [
        ("Home", pytest.approx(0.399023, abs=1e-6)),
        ("Site A", pytest.approx(0.168903, abs=1e-6)),
    ]


def test_pagerank_write_stores_scores_for_cypher(doc_graph: str) -> None:
    out = cli_ok(["graph", "pagerank", "--write", "pagerank", "--top", "1"])
    assert f"wrote {len(PAGES)} scores to Paper.pagerank" in out
    rows = json.loads(
        cli_ok(
            [
                "cypher",
                "MATCH (p:Paper) RETURN p.id AS id, p.pagerank AS pr ORDER BY pr DESC LIMIT 1",
                "-f",
                "json",
            ]
        )
    )
    assert rows[0]["id"] == "Home" and rows[0]["pr"] == pytest.approx(3.215682, abs=1e-6)


def test_projections_are_listed_and_dropped(doc_graph: str) -> None:
    cli_ok(["graph", "pagerank", "--top", "1"])
    listed = json.loads(cli_ok(["graph", "projections", "-f", "json"]))
    mine = [r for r in listed if r["graph"] == doc_graph]
    assert len(mine) == 1 and mine[0]["nodes"] == len(PAGES) and mine[0]["edges"] == len(LINKS)
    assert mine[0]["rel_types"] == "CITES" and mine[0]["bytes"] > 0
    assert "dropped the projection of (Paper, CITES)" in cli_ok(["graph", "drop-projection"])
    assert "no cached projection of (Paper, CITES)" in cli_ok(["graph", "drop-projection"])
    listed = json.loads(cli_ok(["graph", "projections", "-f", "json"]))
    assert not [r for r in listed if r["graph"] == doc_graph]
    out = json.loads(cli_ok(["graph", "pagerank", "-f", "json"]))
    assert out["summary"]["projection"] == "built"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--source", "Nowhere"], "no Paper in this graph has the id 'Nowhere'"),
        (["--write", "pr) DELETE (n"], "invalid property name"),
        (["--rel-type", "CITES]->(x"], "relationship type"),
        (["--damping-factor", "1.5"], "damping_factor"),
        (["--top", "0"], "--top must be >= 1"),
        (["--write", "id"], "--write 'id' would overwrite loaded Paper data"),
        (["--write", "title"], "--write 'title' would overwrite loaded Paper data"),
        (["--write", "emb_minilm_l6"], "would overwrite loaded Paper data (or embeddings"),
        (["--write", "fastrp_128"], "would overwrite loaded Paper data (or embeddings"),
        (["--format", "xml"], "'xml' is not one of 'table', 'json', 'csv'"),
    ],
)
def test_bad_options_are_clear_errors(doc_graph: str, args: list[str], message: str) -> None:
    result = runner.invoke(app, ["graph", "pagerank", *args])
    assert result.exit_code != 0
    # typer draws usage errors in a panel that wraps lines: compare the words, not the layout
    said = " ".join((str(result.exception) + result.output).replace("│", " ").split())
    assert message in said


def test_personalized_pagerank_lists_only_what_the_walk_reaches(
    doc_graph: str, embedded_server: EmbeddedServer
) -> None:
    """Two pages citing only each other: from one of them the walk reaches two nodes, and
    the other pages (score 0) were listed as ranked results under ``--top 20`` (a review)."""
    st = FalkorDBStore(embedded_server.connect(), doc_graph)
    try:
        st.merge_nodes("Paper", [{"id": "Iso1"}, {"id": "Iso2"}])
        st.merge_relationships("CITES", "Paper", "Paper", [{"start": "Iso1", "end": "Iso2"}])
    finally:
        st.close()
    out = json.loads(cli_ok(["graph", "pagerank", "-s", "Iso1", "-k", "20", "-f", "json"]))
    assert {r["id"] for r in out["top"]} == {"Iso1", "Iso2"}
    assert all(r["score"] > 0 for r in out["top"])
    assert out["summary"]["unreached_left_out"] == len(PAGES)

"""Named queries grouped by family (``queries/legobench/...``), templated identifiers, and no
Cypher left in the Python modules that moved theirs out."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from scholarkg import queries
from scholarkg.errors import InputError
from scholarkg.store.named import render_named

ROOT = Path(queries.__file__).resolve().parents[1]


def test_family_names_load_and_render_on_both_dialects() -> None:
    names = queries.query_names()
    assert "legobench/rpg_leaderboards" in names and "legobench/rplm_instances" in names
    assert not any(n.startswith("browser/") for n in names)
    # the only dialect-only queries: the projection checksums (FalkorDB internal ids) and the
    # Neo4j + GDS procedures
    falkordb_only = {
        "graphalgo/projection_node_checksum",
        "graphalgo/projection_edge_checksum",
        # suggest's text read by internal-id windows (paging by p.id sorts the label per page
        # on FalkorDB; Neo4j pages by id through its index: recommend/text_page)
        "recommend/text_window",
        "recommend/text_window_top",
    }
    neo4j_only = {"graphalgo/gds_resident_graphs"}
    # FastRP in GDS (services/graph_embeddings.py): project, write, estimate, drop
    neo4j_only |= {f"graphalgo/fastrp_{step}" for step in ("project", "write", "estimate", "drop")}
    # suggest's personalized PageRank: the managed server's procedure (scholarkg.recommend.ppr)
    neo4j_only |= {"recommend/ppr", "recommend/ppr_available"}
    assert set(names) - set(queries.query_names("neo4j")) == falkordb_only
    assert set(names) - set(queries.query_names("falkordb")) == neo4j_only
    for dialect in queries.DIALECTS:
        rendered = queries.all_queries(dialect)
        assert set(rendered) == set(queries.query_names(dialect))
        assert not any("{{" in text for text in rendered.values())
    with pytest.raises(InputError, match="exists only for falkordb, not neo4j"):
        queries.load_query("graphalgo/projection_edge_checksum", "neo4j")
    assert queries.has_query("graphalgo/projection_edge_checksum", "falkordb")
    assert not queries.has_query("graphalgo/projection_edge_checksum", "neo4j")


def test_templated_queries_declare_examples_and_check_identifiers() -> None:
    for dialect in queries.DIALECTS:
        for name in queries.query_names(dialect):
            text = queries.load_query(name, dialect)
            wanted = queries.placeholders(text)
            assert set(queries.example_identifiers(text)) == set(wanted), name
    for name in queries.query_names("falkordb"):
        text = queries.load_query(name, "falkordb")
        wanted = queries.placeholders(text)
        assert set(queries.example_identifiers(text)) == set(wanted), name
    text = render_named(
        "legobench/rpg_set_edge_weights", "neo4j", {"rel_type": "COMPARES_WITH", "weight": "w_x"}
    )
    assert "[r:COMPARES_WITH]" in text and "SET r.w_x = row.w" in text
    with pytest.raises(InputError, match="unknown relationship type"):
        render_named("legobench/rpg_set_edge_weights", "neo4j", {"rel_type": "X]-(", "weight": "w"})
    with pytest.raises(InputError, match="invalid property name"):
        render_named(
            "legobench/rpg_set_edge_weights", "neo4j", {"rel_type": "CITES", "weight": "w} x"}
        )
    with pytest.raises(InputError, match="missing"):
        render_named("legobench/rpg_set_edge_weights", "neo4j", {"rel_type": "CITES"})
    # a key the query does not take is refused by name, whatever its value
    extra = {"label": "Paper", "prop": "pr", "label2": "X]-("}
    with pytest.raises(InputError, match=r"unexpected \['label2'\]"):
        render_named("graphalgo/set_node_scores", "neo4j", extra)
    # a bare name resolves to the one family folder holding it (callers from before the move)
    assert queries.load_query("rpg_leaderboards", "neo4j") == queries.load_query(
        "legobench/rpg_leaderboards", "neo4j"
    )
    with pytest.raises(InputError, match="no named query"):
        queries.load_query("legobench/nothing_here", "neo4j")


@pytest.mark.parametrize(
    "module",
    [
        "benchmark/tasks/legobench",
        "benchmark/rankers",
        "services/embeddings.py",
        "demo.py",
    ],
)
def test_no_cypher_in_python(module: str) -> None:
    """Cypher lives in ``queries/``; these modules only name it."""
    path = ROOT / module
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
    cypher = re.compile(r"""["'f](?:MATCH|UNWIND|MERGE|CALL) [(\$a-z]""")
    offenders = [
        f"{f.relative_to(ROOT)}:{n}"
        for f in files
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
        if cypher.search(line) and "'\"MATCH" not in line  # demo's hint: a command to paste
    ]
    assert offenders == []

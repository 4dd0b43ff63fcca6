"""The saved-query headers the explorer lists (title, purpose, example parameters)."""

from __future__ import annotations

from importlib import resources

from scholarkg.explorer.saved import cypher_literal, parse_saved_query, saved_queries


def test_header_is_parsed_into_title_why_and_params() -> None:
    text = (
        "// Papers citing a paper.\n"
        "// Why: the first look at a paper's influence;\n"
        "// continues here.\n"
        "// :param paperId => 'p1'\n"
        "// :param limit => 25\n"
        "// :param tasks => null\n"
        "MATCH (p:Paper {id: $paperId}) RETURN p LIMIT $limit\n"
    )
    q = parse_saved_query("citing", text)
    assert q.title == "Papers citing a paper."
    assert q.why == "the first look at a paper's influence; continues here."
    assert q.params == {"paperId": "p1", "limit": 25, "tasks": None}
    assert q.text.endswith("LIMIT $limit")


def test_cypher_literals() -> None:
    assert cypher_literal("'it\\'s'") == "it's"
    assert cypher_literal('"x"') == "x"
    assert cypher_literal("2.5") == 2.5
    assert cypher_literal("[1, 2]") == [1, 2]
    assert cypher_literal("true") is True
    assert cypher_literal("bare words") == "bare words"


def test_every_browser_file_is_listed_with_a_title_and_params() -> None:
    root = resources.files("scholarkg.queries") / "browser"
    files = sorted(
        p.name.removesuffix(".cypher") for p in root.iterdir() if p.name.endswith(".cypher")
    )
    listed = saved_queries()
    # the files, and the cross-benchmark view built from the families' declarations
    assert [q.name for q in listed] == sorted([*files, "cross_benchmark_papers"])
    assert "leaderboard_graph" in files
    for q in listed:
        assert q.title and q.title != q.name, q.name
        assert q.why, q.name
        assert q.params, q.name

"""``scholarkg cypher``: what its parameters take, and what it prints of graph values and of
writes, the same on both backends."""

from __future__ import annotations

import json

import pytest
from _cli import cli_ok, runner

from scholarkg.cli import _parse_param, app
from scholarkg.errors import InputError

# -- --param: JSON, else the text as typed (help and behaviour agree) ------------------------


def test_a_param_is_json_when_it_parses_and_text_otherwise() -> None:
    assert _parse_param("n=42") == ("n", 42)
    assert _parse_param("l=[1, 2]") == ("l", [1, 2])
    assert _parse_param("flag=true") == ("flag", True)
    assert _parse_param('id="123"') == ("id", "123")  # a JSON string: the text 123
    assert _parse_param("name=Ada") == ("name", "Ada")  # not JSON: the text as typed
    assert _parse_param("q=a=b") == ("q", "a=b")


@pytest.mark.parametrize("value", ["[1, 2", "{'a': 1}", '"unclosed'])
def test_a_param_that_opens_json_and_does_not_parse_is_refused(value: str) -> None:
    """It was sent as text: ``-p ids=[1, 2`` matched nothing, with no word why."""
    with pytest.raises(InputError, match=r"--param v: .* opens a JSON value that does not parse"):
        _parse_param(f"v={value}")


def test_the_help_says_what_a_param_value_is() -> None:
    out = runner.invoke(app, ["cypher", "--help"]).output
    assert "read as JSON" in out and "taken as text as typed" in out


def test_a_text_param_reaches_the_query_as_text(graph_env: str) -> None:
    cli_ok(["cypher", "CREATE (:Paper {id: 'a'})"])
    out = cli_ok(
        ["cypher", "RETURN $x AS x, $y AS y", "-p", "x=notjson", "-p", 'y="7"', "-f", "csv"]
    )
    assert out == "x,y\nnotjson,7\n"


# -- graph values and writes, the same on both backends ---------------------------------------


@pytest.fixture(params=["embedded", "neo4j"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The in-process CLI on a fresh graph: the embedded test graph, or the cleared Neo4j."""
    if request.param == "embedded":
        request.getfixturevalue("graph_env")
        return "embedded"
    request.getfixturevalue("neo4j_store")
    request.getfixturevalue("settings")
    monkeypatch.setenv("SCHOLARKG_BACKEND", "neo4j")
    monkeypatch.delenv("SCHOLARKG_GRAPH", raising=False)
    return "neo4j"


CREATE = "CREATE (:Paper {id: 'p1', title: 'A'})-[:CITES {weight: 1}]->(:Paper {id: 'p2'})"


def _json(args: list[str]) -> object:
    res = runner.invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, (args, res.output, res.exception)
    return json.loads(res.stdout)


def test_nodes_relationships_and_paths_keep_their_structure(backend: str) -> None:
    """A relationship printed as ``{}`` and a node without its labels: JSON gives each its
    kind's fields, a relationship its endpoints by ``id`` (the query returned neither
    node), and a path its nodes and relationships."""
    cli_ok(["cypher", CREATE])
    paper = {"labels": ["Paper"], "properties": {"id": "p1", "title": "A"}}
    cites = {"type": "CITES", "start": "p1", "end": "p2", "properties": {"weight": 1}}
    assert _json(["cypher", "MATCH (:Paper)-[r:CITES]->() RETURN r"]) == [{"r": cites}]
    assert _json(["cypher", "MATCH (a:Paper {id: 'p1'}) RETURN a, [a] AS l, {n: a} AS m"]) == [
        {"a": paper, "l": [paper], "m": {"n": paper}}
    ]
    cited = {"labels": ["Paper"], "properties": {"id": "p2"}}
    assert _json(["cypher", "MATCH p = (:Paper)-[:CITES]->() RETURN p"]) == [
        {"p": {"nodes": [paper, cited], "relationships": [cites]}}
    ]


def test_a_table_or_csv_writes_graph_values_as_cypher_does(backend: str) -> None:
    cli_ok(["cypher", CREATE])
    out = cli_ok(["cypher", "MATCH (:Paper)-[r:CITES]->() RETURN r", "-f", "csv"])
    assert out == 'r\n"(:Paper {id: ""p1""})-[:CITES {weight: 1}]->(:Paper {id: ""p2""})"\n'
    query = "MATCH p = (b:Paper {id: 'p2'})<-[:CITES]-(a) RETURN p, a.title AS t, [1, 2] AS l"
    table = cli_ok(["cypher", query])
    assert '(:Paper {id: "p2"})<-[:CITES {weight: 1}]-(:Paper {id: "p1", title: "A"})' in table
    assert "│ A " in table and "[1, 2]" in table  # plain values as before


def test_a_write_says_what_it_changed(backend: str) -> None:
    """It printed ``0 row(s)``; now the server's counts (on stderr beside JSON or CSV)."""
    out = cli_ok(["cypher", CREATE])
    assert "nodes created: 2" in out and "relationships created: 1" in out
    assert "properties set: 4" in out and "row(s)" not in out
    set_one = cli_ok(["cypher", "MATCH (p:Paper {id: 'p2'}) SET p.title = 'B' RETURN p.id AS id"])
    assert "p2" in set_one and "1 row(s)" in set_one and "properties set: 1" in set_one
    assert "no changes" in cli_ok(["cypher", "MATCH (p:Paper {id: 'none'}) SET p.x = 1"])
    res = runner.invoke(app, ["cypher", "MATCH (p:Paper) DETACH DELETE p", "-f", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == []
    assert "nodes deleted: 2, relationships deleted: 1" in res.stderr
    assert "created" not in cli_ok(["cypher", "MATCH (p) RETURN count(p) AS n"])
    # a reply cut at --row-limit holds no counts: nothing said, rather than 'no changes'
    cut = ["cypher", "UNWIND range(1, 5) AS i CREATE (p:Paper {id: toString(i)}) RETURN p.id"]
    res = runner.invoke(app, [*cut, "--row-limit", "2"])
    assert res.exit_code == 0 and "only the first 2 rows" in res.stderr, res.output
    assert "no changes" not in res.output

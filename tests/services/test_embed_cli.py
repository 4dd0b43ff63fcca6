"""``scholarkg embed``: a search where nothing was embedded says how to embed, and ``embed
nodes`` says which ``--fields`` no node has text in. The encoder is a stand-in (``_load``
replaced): what is under test is what the commands ask the store and say."""

from __future__ import annotations

import json

import pytest
from _cli import cli_ok, runner
from _fakes import HashEmbedder

from scholarkg.cli import app
from scholarkg.commands import embed as embed_command
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore


@pytest.fixture(params=["embedded", "neo4j"])
def graph(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The in-process CLI on a fresh graph (the embedded test graph, or the cleared Neo4j)
    holding two papers and an author, with the stand-in encoder (``--model hash32``); the
    graph's name."""
    name = "neo4j"
    if request.param == "embedded":
        name = request.getfixturevalue("graph_env")
    else:
        store: GraphStore = request.getfixturevalue("neo4j_store")
        store.clear()  # no vector index left by an earlier test
        request.getfixturevalue("settings")
        monkeypatch.setenv("SCHOLARKG_BACKEND", "neo4j")
        monkeypatch.delenv("SCHOLARKG_GRAPH", raising=False)
    monkeypatch.setattr(embed_command, "_load", lambda *_: HashEmbedder())
    cli_ok(["cypher", "CREATE (:Paper {id: 'p1', title: 'Graph neural networks'}), "
                      "(:Paper {id: 'p2', title: 'Speech recognition'}), "
                      "(:Author {id: 'a1', name: 'Ada'})"])  # fmt: skip
    return name


def test_a_search_of_a_label_without_vectors_says_how_to_make_them(
    graph: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's own words were FalkorDB's "Invalid arguments for procedure
    'db.idx.vector.queryNodes'" and Neo4j's "There is no such vector schema index"."""

    def no_model(*_: object) -> None:
        raise AssertionError("the model is loaded only once there are vectors to search")

    monkeypatch.setattr(embed_command, "_load", no_model)
    res = runner.invoke(app, ["embed", "search", "x", "--label", "Author"])
    assert isinstance(res.exception, InputError), res.output
    assert str(res.exception) == (
        f"no Author vectors in graph {graph!r} (model 'minilm', property emb_minilm_l6); "
        "run 'scholarkg embed nodes --label Author' first"
    )
    res = runner.invoke(app, ["embed", "search", "x", "--model", "hash32"])
    assert "run 'scholarkg embed nodes --label Paper --model hash32' first" in str(res.exception)


def test_a_search_finds_what_embed_nodes_embedded(graph: str) -> None:
    cli_ok(["embed", "nodes", "--model", "hash32", "--fields", "title"])
    res = runner.invoke(app, ["embed", "search", "speech", "--model", "hash32", "-f", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)[0]["id"] == "p2"


def test_embed_nodes_names_a_field_no_node_has_text_in(graph: str) -> None:
    """``--fields nosuchfield`` embedded nothing and said only "N without text", status 0."""
    res = runner.invoke(app, ["embed", "nodes", "--model", "hash32", "--fields", "nosuchfield"])
    assert res.exit_code == 0, res.output
    assert "0 embedded, 0 unchanged (skipped), 2 without text" in res.stdout
    assert (
        "warning: --fields nosuchfield: no Paper node has text in a property 'nosuchfield'"
        in res.stderr
    )
    res = runner.invoke(app, ["embed", "nodes", "--model", "hash32", "--fields", "title,abstrct"])
    assert "2 embedded" in res.stdout and "--fields abstrct:" in res.stderr
    assert "--fields title" not in res.stderr
    res = runner.invoke(app, ["embed", "nodes", "--model", "hash32", "--label", "Venue"])
    assert f"graph {graph!r} has no Venue nodes" in res.stderr

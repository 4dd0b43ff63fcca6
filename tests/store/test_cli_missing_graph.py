"""A command that reads a graph the store does not hold (a mistyped ``--graph``) is refused,
naming the graphs there are, and creates nothing; a write or a load still starts a new graph.

On the embedded store every ``GRAPH.QUERY``, reads included, creates the graph's key: a
mistyped ``--graph`` answered ``0 row(s)`` with exit status 0 and left an empty graph that
``db status`` listed and ``db backup`` kept. On Neo4j a graph is a database: ``--graph`` was
ignored there (the read answered from the ``neo4j`` database) and a missing
``NEO4J_DATABASE`` gave the driver's raw error.
"""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app, main
from scholarkg.config import Settings
from scholarkg.errors import GraphNotFound
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.server import EmbeddedServer

#: commands that only read the graph, each a different path to the store
READS: list[list[str]] = [
    ["cypher", "MATCH (p:Paper) RETURN p.title LIMIT 3"],
    ["cypher", "RETURN 1 AS one"],
    ["cypher", "CALL db.labels()"],
    ["stats"],
    ["leaderboard", "list"],
    ["related", "p1"],
    ["graph", "pagerank"],
    ["bench", "run", "legobench-rpg"],
]


def _graphs(server: EmbeddedServer) -> list[str]:
    with server.admin_client() as client:
        return sorted(str(g) for g in client.execute_command("GRAPH.LIST"))


@pytest.fixture
def typo(graph_env: str, embedded_server: EmbeddedServer) -> Iterator[str]:
    """A graph name the store does not hold, beside the test's graph, which holds a paper;
    deleted afterwards should a test have created it."""
    cli_ok(["cypher", "CREATE (:Paper {id: 'p1', title: 'A'})"])
    name = f"{graph_env}_typo"
    yield name
    with embedded_server.admin_client() as client:
        if name in _graphs(embedded_server):
            client.execute_command("GRAPH.DELETE", name)


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a[:2]))
def test_a_read_of_a_missing_graph_is_refused_and_creates_nothing(
    typo: str, graph_env: str, embedded_server: EmbeddedServer, args: list[str]
) -> None:
    res = runner.invoke(app, ["--graph", typo, *args])
    assert isinstance(res.exception, GraphNotFound), res.output
    message = str(res.exception)
    assert message.startswith(f"no graph '{typo}' in the store; graphs: "), message
    assert graph_env in message.split("graphs: ", 1)[1]
    assert message.endswith("(create one with 'scholarkg load …')")
    assert typo not in _graphs(embedded_server)


def test_the_refusal_is_one_line_with_exit_status_3(
    typo: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["scholarkg", "--graph", typo, "stats"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 3
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: no graph '{typo}' in the store; graphs: ") and "\n" not in err


def test_a_write_or_a_load_still_starts_a_new_graph(
    typo: str, embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    cli_ok(["--graph", typo, "cypher", "CREATE (:Paper {id: 'x'})"])
    assert typo in _graphs(embedded_server)
    assert "1" in cli_ok(["--graph", typo, "cypher", "MATCH (p:Paper) RETURN count(p) AS n"])
    cli_ok(["--graph", typo, "db", "reset", "--yes"])
    assert typo not in _graphs(embedded_server)
    cli_ok(["--graph", typo, "schema", "apply"])
    assert typo in _graphs(embedded_server)


def test_db_reset_of_a_missing_graph_is_refused_naming_the_graphs_there_are(
    typo: str, graph_env: str, embedded_server: EmbeddedServer, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A mistyped ``--graph`` on ``db reset`` said "deleted graph 'x' (0 nodes …)" and exited
    0, as if something had been deleted; it is refused like a read, with exit status 3, the
    graphs there are listed, and nothing (the test's graph included) is touched."""
    res = runner.invoke(app, ["--graph", typo, "db", "reset", "--yes"])
    assert isinstance(res.exception, GraphNotFound), res.output
    message = str(res.exception)
    assert message.startswith(f"no graph '{typo}' in the store; graphs: "), message
    assert graph_env in message.split("graphs: ", 1)[1]
    assert message.endswith("(nothing to delete)")
    assert "deleted" not in res.output
    assert typo not in _graphs(embedded_server)
    assert "1" in cli_ok(["cypher", "MATCH (p:Paper) RETURN count(p) AS n"])
    monkeypatch.setattr(sys, "argv", ["scholarkg", "--graph", typo, "db", "reset", "--yes"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 3


def test_db_reset_still_deletes_a_graph_whose_bulk_load_was_cut_off_before_its_first_node(
    typo: str, graph_env: str, embedded_server: EmbeddedServer
) -> None:
    """The bulk loader marks its graph before the graph's key exists: such a graph is not
    listed, yet is refused as incomplete, and ``db reset`` is the way out the refusal names."""
    from scholarkg.store.falkordb.store import FalkorDBStore

    store = FalkorDBStore(embedded_server.connect(), typo)
    try:
        store.mark_incomplete("scholarkg load bulk papers.csv")
        assert typo not in _graphs(embedded_server)
        out = cli_ok(["--graph", typo, "db", "reset", "--yes"])
        assert f"deleted graph '{typo}'" in out
        assert not store.is_incomplete()
    finally:
        store.mark_complete()
        store.close()


def test_runs_list_of_a_missing_graph_lists_its_runs_without_complaint(
    typo: str, embedded_server: EmbeddedServer
) -> None:
    """The run files outlive a graph: listing them reads files, and the look for half-recorded
    runs in the graph skips a graph that is not there (creating none)."""
    res = runner.invoke(app, ["--graph", typo, "runs", "list"])
    assert res.exit_code == 0, res.output
    assert "could not check" not in res.output
    assert typo not in _graphs(embedded_server)


# -- Neo4j: a graph is a database ---------------------------------------------------------


@pytest.fixture
def on_neo4j(
    neo4j_store: GraphStore, settings: object, monkeypatch: pytest.MonkeyPatch
) -> GraphStore:
    monkeypatch.setenv("SCHOLARKG_BACKEND", "neo4j")
    monkeypatch.delenv("SCHOLARKG_GRAPH", raising=False)
    neo4j_store.run("CREATE (:Paper {id: 'p1', title: 'A'})")
    return neo4j_store


def test_on_neo4j_a_graph_other_than_the_database_is_refused(on_neo4j: GraphStore) -> None:
    """``--graph`` does not select a database: a read of another name answered from the
    store's database (``neo4j``) as if it were the graph named."""
    typo = f"typo_{uuid.uuid4().hex[:6]}"
    res = runner.invoke(app, ["--graph", typo, "cypher", "MATCH (p:Paper) RETURN p.title"])
    assert isinstance(res.exception, GraphNotFound), res.output
    assert str(res.exception).startswith(f"no graph '{typo}' in the store; graphs: neo4j")
    assert "NEO4J_DATABASE" in str(res.exception)
    # the database's own name, or none, reads it
    read = ["--graph", on_neo4j.graph, "cypher", "MATCH (p:Paper) RETURN p.title AS t", "-f", "csv"]
    assert cli_ok(read) == "t\nA\n"
    assert "Paper" in cli_ok(["stats"])
    # Neo4j's database names are case-insensitive: the name in capitals is the same database
    shouted = ["--graph", on_neo4j.graph.upper(), "cypher", "MATCH (p:Paper) RETURN p.title AS t",
               "-f", "csv"]  # fmt: skip
    assert cli_ok(shouted) == "t\nA\n"


def test_on_neo4j_a_write_to_a_graph_other_than_the_database_is_refused_before_it_writes(
    on_neo4j: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """A write with ``--graph`` naming another graph went to the store's one database: a
    load into ``--graph other`` merged its papers into ``neo4j`` (checkpoints and all),
    ``db reset`` and ``graph pagerank --write`` changed it too. Each is refused as a read
    is, before anything is sent, saying what to do; the database is left as it was."""
    papers = tmp_path / "papers.jsonl"
    papers.write_text(json.dumps({"id": "2310.00001", "title": "New"}) + "\n")
    dump = tmp_path / "dump"
    cli_ok(["export", "--out", str(dump)])
    other = f"other_{uuid.uuid4().hex[:6]}"
    checkpoints = sorted(settings.checkpoints_dir.glob("*.json"))
    writes = [
        ["cypher", "CREATE (:Paper {id: 'x', title: 'B'})"],
        ["schema", "apply"],
        ["load", "apc", "--papers", str(papers)],
        ["import", str(dump)],
        ["graph", "pagerank", "--write", "pagerank"],
        ["db", "reset", "--yes"],
    ]
    for args in writes:
        res = runner.invoke(app, ["--graph", other, *args])
        assert isinstance(res.exception, GraphNotFound), (args, res.output)
        message = str(res.exception)
        assert message.startswith(f"no graph '{other}' in the store; graphs: neo4j"), message
        assert "drop --graph and SCHOLARKG_GRAPH" in message
        assert "NEO4J_DATABASE" in message
        rows = on_neo4j.run("MATCH (n) RETURN n.id AS id, n.title AS t, n.pagerank AS pr")
        assert [(r["id"], r["t"], r["pr"]) for r in rows] == [("p1", "A", None)], args
    assert sorted(settings.checkpoints_dir.glob("*.json")) == checkpoints  # none recorded
    # the database's own name writes to it; runs list still lists runs of any --graph
    cli_ok(["--graph", on_neo4j.graph, "cypher", "CREATE (:Paper {id: 'x', title: 'B'})"])
    assert cli_ok(["cypher", "MATCH (p:Paper) RETURN count(p) AS n", "-f", "csv"]) == "n\n2\n"
    res = runner.invoke(app, ["--graph", other, "runs", "list"])
    assert res.exit_code == 0, res.output


def test_on_neo4j_a_missing_database_is_named_with_those_there_are(
    on_neo4j: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NEO4J_DATABASE", "nosuchdb")
    res = runner.invoke(app, ["stats"])
    assert isinstance(res.exception, GraphNotFound), res.output
    assert str(res.exception).startswith("no graph 'nosuchdb' in the store; graphs: neo4j")
    assert "DatabaseNotFound" not in str(res.exception)


def test_on_neo4j_bench_fit_does_not_clear_the_database(on_neo4j: GraphStore) -> None:
    """``bench fit`` fits in a throwaway graph and clears it; on Neo4j the name selects no
    database, so it wrote its synthetic world into the user's and then cleared it all."""
    res = runner.invoke(app, ["bench", "fit", "legobench-rpg", "--configs", "cn-tabs"])
    assert res.exit_code != 0
    assert "holds data" in str(res.exception) and "--backend embedded" in str(res.exception)
    rows = on_neo4j.run("MATCH (n) RETURN n.id AS id")
    assert [r["id"] for r in rows] == ["p1"]

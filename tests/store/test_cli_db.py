"""``scholarkg db`` / ``schema`` / ``cypher`` through the real CLI, in-process.

Lifecycle commands get their own data dir (``SCHOLARKG_DATA_DIR`` per test) so that
``db stop`` never stops the session server the other tests use.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app, main
from scholarkg.store.falkordb.server import EmbeddedServer

#: the embedded tier: it starts a server of its own (tests/conftest.py)
pytestmark = pytest.mark.embedded


@pytest.fixture
def own_data_dir(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, scholarkg_home: Path
) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("clidb")
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(data))
    yield data
    EmbeddedServer(data).stop(timeout=10)


def test_db_start_cypher_stop_start_keeps_data(own_data_dir: Path) -> None:
    out = cli_ok(["db", "start"])
    assert "pid" in out and str(own_data_dir) in out.replace("\n", "")
    cli_ok(["cypher", "CREATE (:Paper {id: $id})", "--param", "id=keep-me"])
    assert cli_ok(["cypher", "RETURN 1 AS x", "--format", "json"]).strip() == '[{"x": 1}]'
    status = json.loads(cli_ok(["db", "status", "--format", "json"]))
    assert status["state"] == "running" and "scholarkg" in status["graphs"]
    pid = status["pid"]
    inet = psutil.Process(pid).net_connections(kind="inet")
    assert [c for c in inet if c.status == psutil.CONN_LISTEN] == []
    table = cli_ok(["db", "status"])
    assert "running" in table and "falkordb" in table
    assert "stopped" in cli_ok(["db", "stop"])
    assert json.loads(cli_ok(["db", "status", "--format", "json"]))["state"] == "stopped"
    cli_ok(["db", "start"])
    rows = json.loads(cli_ok(["cypher", "MATCH (p:Paper) RETURN p.id AS id", "-f", "json"]))
    assert rows == [{"id": "keep-me"}]
    cli_ok(["db", "stop"])
    # nothing to stop: said so, with no "compacting … done" before it
    again = cli_ok(["db", "stop"])
    assert "no embedded server was running" in again and "compacting" not in again


def test_cypher_params_and_csv(graph_env: str) -> None:
    cli_ok(["cypher", "CREATE (:Paper {id: 'a'})"])  # a read needs the graph to be there
    out = cli_ok(["cypher", "RETURN $a + 1 AS y, $s AS s", "-p", "a=41", "-p", "s=hi", "-f", "csv"])
    assert out == "y,s\n42,hi\n"
    out = cli_ok(["cypher", "RETURN $l AS l", "--param", "l=[1, 2]", "--format", "json"])
    assert json.loads(out) == [{"l": [1, 2]}]


def test_schema_apply_then_nothing_to_do(graph_env: str) -> None:
    out = cli_ok(["schema", "apply", "--format", "json"])
    created = [r["created"] for r in json.loads(out)]
    assert "range index on :Paper(id)" in created  # a key: an index on the embedded store
    assert "fulltext index on :Paper(title, abstract)" in created
    assert json.loads(cli_ok(["schema", "apply", "--format", "json"])) == []
    assert "nothing to create" in cli_ok(["schema", "apply"])


def test_reset_asks_and_deletes(graph_env: str) -> None:
    cli_ok(["cypher", "CREATE (:Paper {id: 'a'})"])
    result = runner.invoke(app, ["db", "reset"], input="n\n")
    assert result.exit_code != 0
    assert json.loads(cli_ok(["cypher", "MATCH (n) RETURN count(n) AS n", "-f", "json"])) == [
        {"n": 1}
    ]
    result = runner.invoke(app, ["db", "reset"], input="y\n")
    assert result.exit_code == 0 and "deleted graph" in result.output
    result = runner.invoke(app, ["cypher", "MATCH (n) RETURN count(n) AS n", "-f", "json"])
    assert f"no graph {graph_env!r} in the store" in str(result.exception)  # the graph is gone


@pytest.mark.parametrize("answer", ["n\n", ""])
def test_a_declined_reset_says_aborted_not_interrupted(
    graph_env: str,
    answer: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``db reset`` answered no (or stdin closed): exit 1 and one line saying nothing
    changed, not the Ctrl-C line with its advice to --resume (exit 130)."""
    cli_ok(["cypher", "CREATE (:Paper {id: 'a'})"])
    monkeypatch.setattr(sys, "argv", ["scholarkg", "db", "reset"])
    monkeypatch.setattr(sys, "stdin", io.StringIO(answer))
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert "aborted: not confirmed, nothing was changed" in err
    assert "interrupted" not in err and "--resume" not in err
    rows = json.loads(cli_ok(["cypher", "MATCH (n) RETURN count(n) AS n", "-f", "json"]))
    assert rows == [{"n": 1}]


def test_cypher_error_is_one_line_and_nonzero(
    graph_env: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cli_ok(["cypher", "CREATE (:Paper {id: 'a'})"])
    monkeypatch.setattr(sys, "argv", ["scholarkg", "cypher", "MATCH (n RETURN n"])
    with pytest.raises(SystemExit) as info:
        main()
    assert info.value.code not in (0, None)
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "line 1" in err
    assert "\n" not in err and "Traceback" not in err


def test_db_commands_refuse_an_external_neo4j(
    monkeypatch: pytest.MonkeyPatch, settings: object
) -> None:
    """``db start|stop|status`` manage the project's own Neo4j, never a server at NEO4J_URI
    (whose credentials must not be echoed)."""
    monkeypatch.setenv("NEO4J_URI", "bolt://user:secret@db.example:7687")
    result = runner.invoke(app, ["--backend", "neo4j", "db", "status"])
    assert result.exit_code != 0
    message = str(result.exception)
    assert "external server" in message and "secret" not in message


def test_a_cypher_query_past_its_time_limit_says_which_limit(graph_env: str) -> None:
    """FalkorDB says only "Query timed out" (and Neo4j to retry in a new transaction).

    Many rows from short lists: FalkorDB checks its limit between rows, and building a
    10-million-element ``range`` is one row's work that a busy machine stretched past the
    watchdog's grace (then the message is the watchdog's, not the limit's)."""
    cli_ok(["cypher", "CREATE (:Paper {id: 'a'})"])
    res = runner.invoke(app, ["cypher", "--timeout", "1",
                              "UNWIND range(1, 100000) AS a UNWIND range(1, 100000) AS b "
                              "RETURN count(*)"])  # fmt: skip
    assert res.exit_code != 0
    assert "stopped at its time limit of 1 s (--timeout" in str(res.exception)


def test_a_cypher_query_past_its_time_limit_says_which_limit_on_neo4j(
    neo4j_store: object, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same message from the managed Neo4j, whose own words are a transient error that
    tells the user to retry (a retry meets the same limit)."""
    monkeypatch.setenv("SCHOLARKG_BACKEND", "neo4j")
    res = runner.invoke(app, ["cypher", "--timeout", "1",
                              "UNWIND range(1, 100000000) AS a UNWIND range(1, 100) AS b "
                              "RETURN count(*)"])  # fmt: skip
    assert res.exit_code != 0
    assert "stopped at its time limit of 1 s (--timeout" in str(res.exception), res.output

"""``scholarkg cypher``: what its parameters take, and what it prints of graph values and of
writes, the same on both backends."""

from __future__ import annotations

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

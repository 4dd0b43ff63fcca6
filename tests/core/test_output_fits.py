"""Output that fits where it goes: 100 columns when not a terminal, and --help in plain text.

Piped output (``make demo > log``, CI) used to draw each rule as one 12,000-character line and
tables 200+ columns wide; a terminal's width is honoured, ``COLUMNS`` wins everywhere. The
help texts are the commands' docstrings, written in reStructuredText for the API docs: the
CLI shows their ``code`` markup as plain quotes (``scholarkg.commands.help_text``).
"""

from __future__ import annotations

import io
from typing import Any

import pytest
import typer
from rich.rule import Rule
from typer.testing import CliRunner

from scholarkg import console as console_module
from scholarkg.cli import app
from scholarkg.commands.help_text import plain


def test_not_a_terminal_means_100_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr("sys.stdout", io.StringIO())
    con = console_module._console()
    assert con.width == 100
    out = io.StringIO()
    con.file = out
    con.print(Rule("a step"))
    assert max(len(line) for line in out.getvalue().splitlines()) == 100


def test_columns_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "132")
    monkeypatch.setattr("sys.stdout", io.StringIO())
    assert console_module._console().width == 132


def test_plain_turns_rst_markup_into_quotes() -> None:
    assert plain("write ``--out DIR``; see :func:`run_task`") == "write '--out DIR'; see 'run_task'"
    assert plain(":class:`~scholarkg.benchmark.task.TaskOption`") == "'TaskOption'"
    assert plain("no markup, a `single` tick") == "no markup, a `single` tick"
    assert plain(plain("``x``")) == "'x'"  # idempotent: shared option aliases are seen twice


def _paths(group: Any, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    out = [path]
    if hasattr(group, "list_commands"):
        ctx = group.context_class(group)
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            if sub is not None and not getattr(sub, "hidden", False):
                out += _paths(sub, (*path, name))
    return out


@pytest.fixture(scope="module")
def helps() -> dict[tuple[str, ...], str]:
    """Every command's ``--help`` at 100 columns, read once for the tests below."""
    runner = CliRunner()
    out = {}
    for path in _paths(typer.main.get_command(app), ()):
        result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100", "NO_COLOR": "1"})
        assert result.exit_code == 0, (path, result.output)
        out[path] = result.output
    return out


def test_no_help_shows_double_backticks(helps: dict[tuple[str, ...], str]) -> None:
    assert len(helps) > 40  # the walk reached the sub-commands
    shown = [" ".join(p) for p, text in helps.items() if "``" in text or ":func:`" in text]
    assert shown == []


#: commands in files other branches are rewriting; they take the shared option when merged
FORMAT_PENDING = {("graph", "pagerank"), ("graph", "projections")}


def test_one_format_option_everywhere(helps: dict[tuple[str, ...], str]) -> None:
    """Every ``--format`` is the one option type, with the same choices (a command whose
    output is not rows refuses csv itself, saying so)."""
    with_format = {p: t for p, t in helps.items() if "--format" in t}
    assert len(with_format) > 15
    other = sorted(
        " ".join(p)
        for p, text in with_format.items()
        if p not in FORMAT_PENDING and "<table|json|csv>" not in text
    )
    assert other == []

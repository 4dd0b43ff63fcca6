"""Output that fits where it goes: 100 columns when not a terminal, and --help in plain text.

Piped output (``make demo > log``, CI) used to draw each rule as one 12,000-character line and
tables 200+ columns wide; a terminal's width is honoured, ``COLUMNS`` wins everywhere. The
help texts are the commands' docstrings, written in reStructuredText for the API docs: the
CLI shows their ``code`` markup as plain quotes (``scholarkg.commands.help_text``).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.rule import Rule
from typer.testing import CliRunner

from scholarkg import console as console_module
from scholarkg.cli import app
from scholarkg.commands.help_text import plain, plain_doc


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


def _commands() -> dict[tuple[str, ...], Any]:
    """Every command object of the app by path, as typer builds them for ``--help``."""
    root = typer.main.get_command(app)
    out: dict[tuple[str, ...], Any] = {}

    def walk(cmd: Any, path: tuple[str, ...]) -> None:
        out[path] = cmd
        if hasattr(cmd, "list_commands"):
            ctx = cmd.context_class(cmd)
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None and not getattr(sub, "hidden", False):
                    walk(sub, (*path, name))

    walk(root, ())
    return out


def test_no_help_shows_double_backticks() -> None:
    """Every help text typer renders (the command's, each option's) is free of rST markup;
    read from the command objects, so the check costs no rendering."""
    commands = _commands()
    assert len(commands) > 40  # the walk reached the sub-commands
    shown = []
    for path, cmd in commands.items():
        texts = [cmd.help or "", *(getattr(p, "help", None) or "" for p in cmd.params)]
        if any("``" in t or ":func:`" in t or ":class:`" in t for t in texts):
            shown.append(" ".join(path))
    assert shown == []


def test_every_command_summary_is_one_line() -> None:
    """Typer keeps a help text's line breaks and wraps each line again, so a summary written
    across lines (a docstring at 92 columns) would list as a long line and a stub; the first
    paragraph of every command's help is joined (``help_text.plain_doc``)."""
    split = [
        " ".join(path)
        for path, cmd in _commands().items()
        if path and "\n" in (cmd.help or "").split("\n\n")[0].strip()
    ]
    assert split == []
    assert (
        plain_doc("""Two lines
        of summary, ``code``.

        Body kept
        as written.""")
        == "Two lines of summary, 'code'.\n\nBody kept\nas written."
    )


def test_help_is_rendered_plain() -> None:
    """One command end to end: what the user reads has the quotes, not the backticks."""
    result = CliRunner().invoke(app, ["bench", "score", "--help"], env={"NO_COLOR": "1"})
    assert result.exit_code == 0
    assert "'bench run --out DIR'" in " ".join(result.output.split())
    assert "``" not in result.output


def test_one_format_option_everywhere() -> None:
    """Every ``--format`` is the one option type (a command whose output is not rows
    refuses csv itself, saying so)."""
    from scholarkg.commands.common import OutputFormat

    kinds = {}
    for path, cmd in _commands().items():
        for param in cmd.params:
            if "--format" in getattr(param, "opts", ()):
                kinds[" ".join(path)] = param.type_descriptor.annotation
    assert len(kinds) > 15
    assert {k: v for k, v in kinds.items() if v is not OutputFormat} == {}


def test_piped_help_is_100_columns_too() -> None:
    """typer draws ``--help`` on a console of its own (80 columns off a terminal, each option
    folded into one-word lines); the CLI widens it to ours. Run as a user would pipe it."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "TERMINAL_WIDTH")}
    out = subprocess.run(
        [str(Path(sys.executable).with_name("scholarkg")), "bench", "score", "--help"],
        capture_output=True, text=True, env=env, check=True, timeout=60,
    ).stdout  # fmt: skip
    widths = [len(line) for line in out.splitlines()]
    assert max(widths) == 100
    assert "'bench run --out DIR' wrote" in out  # one line, not folded at 80


def test_no_help_text_loses_words_to_markup() -> None:
    """Typer renders help texts as rich markup, where ``[llm]`` or ``[work ids]`` is a style
    tag and vanishes from ``--help`` (``[llm] timeout`` showed as `` timeout``): every bracket
    meant as text is escaped (``\\\\[``), so the rendered text is the written one."""
    from rich.errors import MarkupError
    from rich.text import Text

    lost = []
    for path, cmd in _commands().items():
        for text in [cmd.help or "", *(getattr(p, "help", None) or "" for p in cmd.params)]:
            try:
                shown = Text.from_markup(text).plain
            except MarkupError:
                shown = None
            if shown != text.replace("\\[", "["):
                lost.append((" ".join(path), text))
    assert lost == []

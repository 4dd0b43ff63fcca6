"""``--help`` in plain text: docstrings' reStructuredText markup turned into plain quotes.

The commands' docstrings are also the API documentation (mkdocstrings renders them), so they
write code as ``double backticks`` and cross-references as :func:`roles`. In a terminal those
read as noise, so the CLI rewrites every help text once, when the commands are registered
(:func:`plain_help` on the root app), rather than each of the hundreds of strings by hand:
``x`` and :role:`x` become 'x'.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

import typer
from typer.models import ParameterInfo

#: ``code`` (double backticks) and :role:`~target` (a Sphinx role, ``~`` shortening the name)
_MARKUP = re.compile(r"``(?P<code>[^`]+?)``|:[a-z]+:`~?(?P<ref>[^`]+)`")


def plain(text: str) -> str:
    """``text`` with reStructuredText code and role markup as plain single quotes."""

    def quote(m: re.Match[str]) -> str:
        code = m["code"]
        if code is not None:
            return f"'{code}'"
        ref = m["ref"]
        if m.group(0).split("`", 1)[1].startswith("~"):
            ref = ref.rsplit(".", 1)[-1]
        return f"'{ref}'"

    return _MARKUP.sub(quote, text)


def plain_doc(doc: str) -> str:
    """A command's docstring as help: :func:`plain`, and its first paragraph (the summary
    typer lists beside the command name) on one line. Typer's rich help keeps a docstring's
    line breaks and wraps each line again to the terminal, so a summary written at 92
    columns came out as a long line and a one-word line in any narrower listing."""
    text = inspect.cleandoc(plain(doc))
    summary, gap, rest = text.partition("\n\n")
    if summary.startswith("\b"):  # click's "keep my line breaks" marker
        return text
    return " ".join(line.strip() for line in summary.splitlines()) + gap + rest


def _plain_callback(callback: Callable[..., Any] | None) -> None:
    if not inspect.isfunction(callback):  # None, or typer's placeholder for "not given"
        return
    if callback.__doc__:
        callback.__doc__ = plain_doc(callback.__doc__)
    try:
        hints = typing.get_type_hints(callback, include_extras=True)
    except Exception:  # an annotation typer resolves itself; its help stays as written
        hints = {}
    infos: list[ParameterInfo] = []
    for hint in hints.values():
        infos += [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, ParameterInfo)]
    for param in inspect.signature(callback).parameters.values():
        if isinstance(param.default, ParameterInfo):
            infos.append(param.default)
    for info in infos:  # shared Annotated aliases are seen more than once: plain() is idempotent
        if info.help:
            info.help = plain(info.help)


def plain_help(app: typer.Typer) -> None:
    """Rewrite the help of ``app``, its commands and sub-apps (recursively), in place."""
    if isinstance(app.info.help, str):
        app.info.help = plain(app.info.help)
    if app.registered_callback is not None:
        _plain_callback(app.registered_callback.callback)
        if isinstance(app.registered_callback.help, str):
            app.registered_callback.help = plain(app.registered_callback.help)
    for command in app.registered_commands:
        _plain_callback(command.callback)
        if isinstance(command.help, str):
            command.help = plain(command.help)
    for group in app.registered_groups:
        if isinstance(group.help, str):
            group.help = plain(group.help)
        _plain_callback(group.callback)
        if group.typer_instance is not None:
            plain_help(group.typer_instance)

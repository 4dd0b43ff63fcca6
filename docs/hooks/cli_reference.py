"""mkdocs hook: render ``--help`` of every scholarkg command into the CLI reference page.

The page ``cli-reference.md`` holds a ``<!-- cli-reference -->`` marker; at build time it is
replaced by each command's help text, invoked through typer's test runner on the real app, so
the reference can never drift from the code.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- cli-reference -->"


def _commands(group: Any, path: tuple[str, ...]) -> list[tuple[str, ...]]:
    out = [path]
    if hasattr(group, "list_commands"):  # a group (typer ships its own click-like core)
        ctx = group.context_class(group)
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            if sub is not None and not getattr(sub, "hidden", False):
                out += _commands(sub, (*path, name))
    return out


def render() -> str:
    import typer
    from typer.testing import CliRunner

    from scholarkg.cli import app

    root = typer.main.get_command(app)
    runner = CliRunner()
    parts = []
    for path in _commands(root, ()):
        result = runner.invoke(
            app, [*path, "--help"], env={"COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1"}
        )
        if result.exit_code != 0:
            raise RuntimeError(f"scholarkg {' '.join(path)} --help failed: {result.output}")
        title = " ".join(("scholarkg", *path))
        level = "#" * min(2 + len(path), 4) if path else "##"
        parts.append(f"{level} `{title}`\n\n```text\n{result.output.rstrip()}\n```\n")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if MARKER in markdown:  # the marker and what follows it (the stub's note) replaced
        return markdown.partition(MARKER)[0] + render()
    return markdown

"""The in-process CLI for tests: one ``CliRunner`` and "run it, it must succeed".

A plain module (importable from every test folder, see ``tests/_fakes.py``) because tests
call these helpers directly; the ``graph_env`` fixture that pairs with them lives in
``tests/conftest.py``.
"""

from __future__ import annotations

from typer.testing import CliRunner

from scholarkg.cli import app

runner = CliRunner()


def cli_ok(args: list[str]) -> str:
    """Run ``scholarkg <args>``; a non-zero exit fails the test with the output and error."""
    result = runner.invoke(app, args)
    assert result.exit_code == 0, (args, result.output, result.exception)
    return result.output

"""An option out of its range is a usage error naming the option, as click shows it: typer
0.29 raises its own vendored click's ``BadParameter``, which the CLI's last-resort handler
printed as "error: BadParameter: Input should be greater than or equal to 1"."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["cypher", "--row-limit", "0", "RETURN 1"], "--row-limit"),
        (["cypher", "--timeout", "0", "RETURN 1"], "--timeout"),
    ],
)
def test_an_option_out_of_range_names_the_option(args: list[str], option: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from scholarkg.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"Invalid value for '{option}'" in done.stderr, done.stderr
    assert "BadParameter:" not in done.stderr

"""Every ``# type: ignore`` in the package and its tests says which error it silences, and why.

The project's contributing rule: a suppressed type error names its error code and gives a
reason, in the shape ``# type: ignore[code]  # why``. A bare ``# type: ignore`` hides every
error on its line, today's and whatever a later change adds there; an ignore without a reason
leaves the next reader to work out again why the checker was wrong, and whether it still is.
Most suppressions turn out to be fixable types (a missing annotation, an ``Optional`` the code
already rules out), so having to write the reason is also the prompt to fix the type instead.

mypy's ``ignore-without-code`` enforces the code only in the modules it checks, not in those on
its ``ignore_errors`` list (pyproject.toml), and nothing checks the reason: this test walks every
module of the package. Only comments count (found with ``tokenize``), so a docstring or a
string that mentions ``type: ignore`` is not an offender.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

import scholarkg

PACKAGE = Path(scholarkg.__file__).resolve().parent
#: a mypy ignore comment anywhere in a comment, its ``[codes]`` if any, and the rest of it
TYPE_IGNORE = re.compile(r"type:\s*ignore(?P<codes>\[[^\]]*\])?(?P<rest>.*)")
#: what must follow the codes: a further ``#`` with some text, the reason
REASON = re.compile(r"\s*#\s*\S")


def bad_ignores(source: str) -> list[int]:
    """Lines of ``source`` with a ``type: ignore`` comment lacking an error code or a reason."""
    bad: list[int] = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.COMMENT:
            continue
        m = TYPE_IGNORE.search(tok.string)
        if m is None:
            continue
        codes = m["codes"]
        if codes is None or not codes[1:-1].strip() or not REASON.match(m["rest"]):
            bad.append(tok.start[0])
    return bad


def offenders(package: Path) -> list[str]:
    """``path:line`` (relative to the package's parent) of every bad ignore under ``package``."""
    found: list[str] = []
    for path in sorted(package.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        rel = path.relative_to(package.parent).as_posix()
        found += [f"{rel}:{line}" for line in bad_ignores(source)]
    return found


def test_every_type_ignore_names_its_error_and_why() -> None:
    assert (PACKAGE / "textio.py").is_file()  # the walk starts at the real package
    found = offenders(PACKAGE)
    assert found == [], (
        "type: ignore without an error code or a reason; fix the type, or write "
        "'# type: ignore[code]  # why':\n" + "\n".join(found)
    )


def test_every_type_ignore_in_the_tests_names_its_error_and_why() -> None:
    """The tests are type-checked too (mypy over ``tests/``): the same rule there."""
    tests = Path(__file__).resolve().parents[1]
    assert (tests / "conftest.py").is_file()
    found = offenders(tests)
    assert found == [], (
        "type: ignore without an error code or a reason; fix the type, or write "
        "'# type: ignore[code]  # why':\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "line",
    [
        "x = f()  # type: ignore",
        "x = f()  # type:ignore",
        "x = f()  # type: ignore  # a reason but no code",
        "x = f()  # type: ignore[]  # empty code",
        "x = f()  # type: ignore[arg-type]",
        "x = f()  # type: ignore[arg-type]  #",
        "x = f()  # type: ignore[arg-type]  #   ",
        "x = f()  # type: ignore[arg-type] a reason without its own '#'",
        "x = f()  # noqa: E501  # type: ignore",
    ],
)
def test_the_checker_flags_the_bad_forms(line: str) -> None:
    assert bad_ignores(f"import os\n{line}\n") == [2]


@pytest.mark.parametrize(
    "source",
    [
        "x = f()  # type: ignore[arg-type]  # the stubs say str; it is bytes\n",
        "x = f()  # type: ignore[arg-type, misc]  # untyped library\n",
        "x = f()  # type: ignore[no-untyped-def] # one space is enough\n",
        's = "# type: ignore"  # a string, not a comment\n',
        '"""A docstring may say # type: ignore."""\n',
        "x = f()  # an ordinary comment\n",
    ],
)
def test_the_checker_accepts_a_code_and_a_reason(source: str) -> None:
    assert bad_ignores(source) == []


def test_offenders_are_listed_as_path_and_line(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "sub" / "mod.py").write_text(
        "a = 1\nb = g()  # type: ignore[misc]\nc = h()  # type: ignore[misc]  # why\n",
        encoding="utf-8",
    )
    assert offenders(pkg) == ["pkg/sub/mod.py:2"]

"""The package's layering: the CLI is a thin face over the library, never a dependency of it.

``scholarkg/commands/`` and ``scholarkg/cli.py`` parse options and print; everything else
(library, demo, explorer, benchmarks' tasks) must work without them, so no module outside
those imports from ``scholarkg.commands`` or ``scholarkg.cli`` (CONTRIBUTING: "Nothing imports
cli.py"). An AST walk, so imports inside functions count too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import scholarkg

PACKAGE = Path(scholarkg.__file__).resolve().parent
CLI_LAYER = ("scholarkg.commands", "scholarkg.cli")


def _module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """``(line, absolute module)`` of every import in ``tree``, relative ones resolved."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            # the module itself, or (``from scholarkg import commands``) a name it imports
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            found.append((node.lineno, next((n for n in names if _in_cli_layer(n)), base)))
    return found


def _in_cli_layer(name: str) -> bool:
    return any(name == top or name.startswith(top + ".") for top in CLI_LAYER)


def cli_layer_imports(package: Path) -> list[str]:
    """``path:line imports module`` for each library module that imports the CLI layer."""
    offenders = []
    for path in sorted(package.rglob("*.py")):
        module = _module_name(path, package)
        if _in_cli_layer(module):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for line, name in _imported(tree, module, path.name == "__init__.py"):
            if _in_cli_layer(name):
                offenders.append(f"{path.relative_to(package.parent)}:{line} imports {name}")
    return sorted(set(offenders))


def test_no_library_module_imports_the_cli_layer() -> None:
    assert cli_layer_imports(PACKAGE) == []


def test_the_walk_finds_such_imports(tmp_path: Path) -> None:
    """The check itself catches the forms an offender could take (else the test above
    would pass vacuously)."""
    pkg = tmp_path / "scholarkg"
    (pkg / "commands").mkdir(parents=True)
    (pkg / "explorer").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "commands" / "__init__.py").write_text("")
    (pkg / "commands" / "load.py").write_text("from scholarkg.commands.common import x\n")
    (pkg / "cli.py").write_text("import scholarkg.commands.load\n")
    (pkg / "explorer" / "__init__.py").write_text("")
    (pkg / "explorer" / "app.py").write_text(
        "def f():\n    from scholarkg.commands.leaderboard import list_leaderboards\n"
        "from ..commands import load\n"
        "from scholarkg import cli\n"
    )
    (pkg / "demo.py").write_text(
        "import scholarkg.commands.load as load\nimport scholarkg.config\n"
    )
    assert cli_layer_imports(pkg) == [
        "scholarkg/demo.py:1 imports scholarkg.commands.load",
        "scholarkg/explorer/app.py:2 imports scholarkg.commands.leaderboard",
        "scholarkg/explorer/app.py:3 imports scholarkg.commands",
        "scholarkg/explorer/app.py:4 imports scholarkg.cli",
    ]

"""Run Neo4j's own Cypher linter (``tests/neo4j_lint/lint.mjs``) from pytest.

Why Node: no Neo4j server or Docker can run in CI, but Neo4j publishes its parser and
semantic analysis as the npm package ``@neo4j-cypher/language-support``; linting every
string the Neo4j adapter can emit against a Neo4j 5.26 + APOC + GDS ``dbSchema`` is the
strongest offline check that the Neo4j path is valid Cypher for that server.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from scholarkg.schema.ddl import node_labels, rel_types

LINT_DIR = Path(__file__).resolve().parents[1] / "neo4j_lint"
PACKAGE_DIR = LINT_DIR / "node_modules" / "@neo4j-cypher" / "language-support"
SCHEMA_FILE = LINT_DIR / "dbschema.json"
INSTALL_HINT = "make neo4j-lint-deps  (= npm ci --prefix tests/neo4j_lint)"


@dataclass(frozen=True)
class Query:
    name: str
    text: str
    parameters: dict[str, Any]


def require_linter() -> str:
    """Path of ``node``; skips only when Node.js is missing, installs the package if needed."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js not found: the Neo4j Cypher conformance lint needs node >= 20")
    if not PACKAGE_DIR.is_dir():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail(f"node_modules missing and npm not found; run: {INSTALL_HINT}")
        proc = subprocess.run(
            [npm, "ci", "--prefix", str(LINT_DIR), "--no-audit", "--no-fund", "--loglevel=error"],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if proc.returncode != 0 or not PACKAGE_DIR.is_dir():
            pytest.fail(
                f"could not install @neo4j-cypher/language-support ({proc.stderr.strip()[-500:]}); "
                f"run: {INSTALL_HINT}"
            )
    return node


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def _fields(text: str, *, with_default: bool) -> list[dict[str, Any]]:
    out = []
    for part in _split_top_level(text):
        head, typ = part.split(" :: ", 1)
        entry: dict[str, Any] = {"isDeprecated": False, "description": part, "type": typ.strip()}
        if with_default and "=" in head:
            name, default = head.split("=", 1)
            entry["default"] = (
                f"DefaultParameterValue{{value={default.strip()}, type={typ.strip()}}}"
            )
        else:
            name = head
        entry["name"] = name.strip()
        out.append(entry)
    return out


def parse_signature(signature: str) -> tuple[str, list[dict[str, Any]], str | list[dict[str, Any]]]:
    """``name(args) :: (yields)`` / ``name(args) :: TYPE`` as printed by SHOW PROCEDURES."""
    open_at = signature.index("(")
    name = signature[:open_at]
    depth = 0
    for i in range(open_at, len(signature)):
        depth += signature[i] == "("
        depth -= signature[i] == ")"
        if depth == 0:
            close_at = i
            break
    args = _fields(signature[open_at + 1 : close_at], with_default=True)
    rest = signature[close_at + 1 :].strip()
    if not rest:
        return name, args, []
    rest = rest.removeprefix("::").strip()
    if rest.startswith("(") and rest.endswith(")"):
        return name, args, _fields(rest[1:-1], with_default=False)
    return name, args, rest


def load_schema_file() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    return schema


def build_db_schema() -> dict[str, Any]:
    """The ``DbSchema`` of a Neo4j 5.26 + APOC + GDS server holding scholarkg's graph model."""
    spec = load_schema_file()
    version = spec["versions"]["cypher"]
    functions: dict[str, Any] = {
        name: {
            "name": name,
            "category": "",
            "description": "built-in",
            "isBuiltIn": True,
            "argumentDescription": [],
            "returnDescription": "ANY",
            "signature": f"{name}()",
            "aggregating": False,
            "isDeprecated": False,
        }
        for name in spec["builtin_functions"]
    }
    for name, entry in spec["functions"].items():
        parsed_name, args, returns = parse_signature(entry["signature"])
        assert parsed_name == name, (name, parsed_name)
        functions[name] = {
            "name": name,
            "category": "",
            "description": entry["doc"],
            "isBuiltIn": False,
            "argumentDescription": args,
            "returnDescription": returns,
            "signature": entry["signature"],
            "aggregating": bool(entry.get("aggregating", False)),
            "isDeprecated": False,
        }
    procedures: dict[str, Any] = {}
    # scholarkg's own procedures (the managed server's plugin jar) beside Neo4j's and the plugins'
    for name, entry in {**spec["procedures"], **spec.get("own_procedures", {})}.items():
        parsed_name, args, yields = parse_signature(entry["signature"])
        assert parsed_name == name, (name, parsed_name)
        procedures[name] = {
            "name": name,
            "description": entry["doc"],
            "mode": entry["mode"],
            "worksOnSystem": False,
            "argumentDescription": args,
            "returnDescription": yields,
            "signature": entry["signature"],
            "admin": False,
            "option": {"deprecated": False},
        }
    return {
        "labels": sorted(node_labels()),
        "relationshipTypes": sorted(rel_types()),
        "functions": {version: functions},
        "procedures": {version: procedures},
        "defaultLanguage": version,
    }


@dataclass(frozen=True)
class LintOutput:
    #: ``{query name: diagnostics}``; a diagnostic is ``{severity, message, line, column}``
    diagnostics: dict[str, list[dict[str, Any]]]
    #: signatures from the Neo4j snapshot bundled with the npm package (cross-check only)
    reference: dict[str, Any] | None


def lint(
    node: str,
    queries: list[Query],
    *,
    reference_procedures: list[str] | None = None,
    reference_functions: list[str] | None = None,
) -> LintOutput:
    """Lint every query in one Node process (loading the analyser takes seconds)."""
    payload: dict[str, Any] = {
        "queries": [{"name": q.name, "text": q.text, "parameters": q.parameters} for q in queries],
        "dbSchema": build_db_schema(),
    }
    if reference_procedures is not None or reference_functions is not None:
        payload["reference"] = {
            "procedures": reference_procedures or [],
            "functions": reference_functions or [],
        }
    proc = subprocess.run(
        [node, str(LINT_DIR / "lint.mjs")],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        cwd=LINT_DIR,
    )
    if proc.returncode != 0:
        pytest.fail(f"lint.mjs failed (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    out = json.loads(proc.stdout)
    return LintOutput({r["name"]: r["diagnostics"] for r in out["results"]}, out["reference"])


# -- gathering parameters ---------------------------------------------------------------

_COMMENT_OR_STRING = re.compile(r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"", re.S)
_PARAM = re.compile(r"\$`?([A-Za-z_][A-Za-z0-9_]*)`?")
_BROWSER_PARAM = re.compile(r"^\s*//\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*$", re.M)


def parameters_in(text: str) -> dict[str, Any]:
    """``$name`` references outside comments and string literals, declared with ``None``.

    Named task queries get their values from the task at run time; the lint checks their
    syntax and semantics, so each referenced parameter is declared.
    """
    code = _COMMENT_OR_STRING.sub(" ", text)
    return {name: None for name in _PARAM.findall(code)}


def browser_parameters(text: str) -> dict[str, Any]:
    """Parameters a Browser query documents in its ``// :param name => value`` header lines.

    Only these are declared, so a Browser query using an undocumented parameter fails.
    """
    return {name: value for name, value in _BROWSER_PARAM.findall(text)}

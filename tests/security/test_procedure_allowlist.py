"""The managed Neo4j's procedure allow-list is exactly what scholarkg's code calls.

The list (``ALLOWED_PROCEDURES`` in ``store/neo4j/server.py``) is what the server loads of
GDS's and APOC's ~600 procedures and functions. This test derives the same set from the
code: every ``gds.``/``apoc.``/``scholarkg.`` call in the named queries Neo4j runs
(``queries/**/*.cypher`` but the FalkorDB-only ones) and in the Cypher strings of the
package's Python (string constants, read with ``ast``; FalkorDB's own modules left out).
A new call fails here until it is on the list, and a name the code stopped calling fails
until it is taken off; a name built at run time (``f"gds.{algo}.stream"``) fails too, since
no list can follow it.

Neo4j's built-in ``db.*``/``dbms.*``/``tx.*`` procedures are not plugins: the allow-list does
not govern them (the Browser and the store need them), so they are not derived here.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import scholarkg
from scholarkg.store.neo4j.server import ALLOWED_PROCEDURES, server_settings

PACKAGE = Path(scholarkg.__file__).resolve().parent
#: the plugin namespaces the allow-list governs
PLUGINS = ("gds", "apoc", "scholarkg")
_NAMESPACE = "(?:" + "|".join(PLUGINS) + ")"
_CALL = re.compile(rf"\b{_NAMESPACE}(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?=\s*\()")
#: a plugin name cut short by a formatted value: ``f"gds.{algo}.mutate"``
_DYNAMIC = re.compile(rf"\b{_NAMESPACE}\.(?:[A-Za-z0-9_]+\.)*$")


def _python_strings(path: Path) -> list[tuple[str, bool]]:
    """``(text, followed_by_a_formatted_value)`` for every string constant in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    out: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = node.values
            for i, part in enumerate(parts):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    following = i + 1 < len(parts) and isinstance(parts[i + 1], ast.FormattedValue)
                    out.append((part.value, following))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append((node.value, False))
    return out


@functools.cache
def _neo4j_code() -> tuple[tuple[str, str, bool], ...]:
    """``(where, text, dynamic_tail)`` of every query text Neo4j may be sent (read once per
    process: three checks below walk it, and parsing the package is most of their time)."""
    texts: list[tuple[str, str, bool]] = []
    for path in sorted((PACKAGE / "queries").rglob("*.cypher")):
        if not path.name.endswith(".falkordb.cypher"):
            texts.append((str(path.relative_to(PACKAGE)), path.read_text("utf-8"), False))
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[:2] == ("store", "falkordb"):
            continue
        texts += [(str(rel), text, dyn) for text, dyn in _python_strings(path)]
    return tuple(texts)


def derived_procedures() -> set[str]:
    return {name for _, text, _ in _neo4j_code() for name in _CALL.findall(text)}


def test_no_procedure_name_is_built_at_run_time() -> None:
    dynamic = [
        f"{where}: {text.strip()[-60:]!r}"
        for where, text, dyn in _neo4j_code()
        if dyn and _DYNAMIC.search(text)
    ]
    assert dynamic == [], (
        "a GDS/APOC name built at run time cannot be on the server's allow-list; "
        "spell each name out"
    )


def test_allow_list_is_exactly_what_the_code_calls() -> None:
    derived = derived_procedures()
    listed = set(ALLOWED_PROCEDURES)
    assert sorted(derived - listed) == [], (
        "called by the code but not loaded by the managed Neo4j: add to ALLOWED_PROCEDURES "
        "in scholarkg/store/neo4j/server.py"
    )
    assert sorted(listed - derived) == [], (
        "on ALLOWED_PROCEDURES but no longer called by the code: take it off"
    )


def test_the_derivation_sees_the_calls_it_must() -> None:
    """The scan is not vacuous: calls known to be in the code are found."""
    derived = derived_procedures()
    assert {"gds.pageRank.mutate", "gds.graph.project", "scholarkg.lastCommittedTxId"} <= derived
    assert "apoc.version" in derived


def test_a_user_widens_the_list_with_an_environment_variable(tmp_path: Path) -> None:
    base = server_settings(import_dir=tmp_path, heap="2g", env={})
    assert base["dbms.security.procedures.allowlist"].split(",") == list(ALLOWED_PROCEDURES)
    wide = server_settings(
        import_dir=tmp_path,
        heap="2g",
        env={"SCHOLARKG_NEO4J_PROCEDURES": "apoc.coll.*, gds.louvain.stream"},
    )
    assert wide["dbms.security.procedures.allowlist"].split(",") == [
        *ALLOWED_PROCEDURES,
        "apoc.coll.*",
        "gds.louvain.stream",
    ]

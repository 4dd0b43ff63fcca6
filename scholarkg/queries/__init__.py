"""Named Cypher queries, stored as ``.cypher`` files beside this module.

``load_query("leaderboard_entries", "falkordb")`` returns ``leaderboard_entries.falkordb.cypher``
if it exists, else ``leaderboard_entries.cypher``. Keeping query text in files (not Python
strings) lets researchers read and paste them into Neo4j Browser, and lets the Neo4j
conformance test lint every one of them.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

from scholarkg.errors import InputError

DIALECTS = ("falkordb", "neo4j")


#: sub-folders that are not query families (Browser examples have their own reader)
_NOT_FAMILIES = frozenset({"browser", "__pycache__"})


@cache
def _files() -> dict[str, str]:
    """Every ``.cypher`` file's text by file name, read once per process.

    Files in a family folder (``queries/citerec/x.cypher``) are keyed ``citerec/x.cypher``,
    so ``run_named("citerec/x")`` finds them and families never clash on a name.
    """
    root = resources.files(__name__)
    out: dict[str, str] = {}
    for p in root.iterdir():
        if p.name.endswith(".cypher"):
            out[p.name] = p.read_text(encoding="utf-8")
        elif p.is_dir() and p.name not in _NOT_FAMILIES:
            for q in p.iterdir():
                if q.name.endswith(".cypher"):
                    out[f"{p.name}/{q.name}"] = q.read_text(encoding="utf-8")
    return out


@cache
def load_query(name: str, dialect: str) -> str:
    """Query text for ``name`` in ``dialect`` (``falkordb`` or ``neo4j``)."""
    if dialect not in DIALECTS:
        raise InputError(f"unknown Cypher dialect {dialect!r}; known: {DIALECTS}")
    files = _files()
    for candidate in (f"{name}.{dialect}.cypher", f"{name}.cypher"):
        if candidate in files:
            return files[candidate].strip()
    names = sorted({f.split(".")[0] for f in files})
    raise InputError(f"no named query {name!r}; known: {', '.join(names)}")


def query_names() -> list[str]:
    """All query names (dialect variants folded together)."""
    return sorted({f.split(".")[0] for f in _files()})


def all_queries(dialect: str) -> dict[str, str]:
    """Every named query as it would run on ``dialect`` (used by the conformance lint)."""
    return {name: load_query(name, dialect) for name in query_names()}

"""Named Cypher queries, stored as ``.cypher`` files beside this module, grouped by family.

``load_query("legobench/rpg_leaderboards", "falkordb")`` returns
``legobench/rpg_leaderboards.falkordb.cypher`` if it exists, else
``legobench/rpg_leaderboards.cypher``. Keeping query text in files (not Python strings) lets
researchers read and paste them into Neo4j Browser, and lets the Neo4j conformance test lint
every one of them.

Layout: one folder per benchmark family (``legobench/``; ``dorismae/``, ``citerec/`` ...
follow) and per shared component (``embeddings/``, ``rankers/``, ``demo/``); a query's name
is its path without the suffix. A bare name (``leaderboard_metric``) still resolves when exactly
one folder holds it, so callers written before the folders keep working; new code names the
family. ``browser/`` holds saved exploration queries for Neo4j Browser; they are not named
queries.

**Dialect-only queries.** A query that only one backend can or needs to run exists only as
``<name>.<dialect>.cypher`` (e.g. ``graphalgo/projection_edge_checksum.falkordb.cypher``
sums FalkorDB's internal ids, which Neo4j has no use for). :func:`has_query` tells callers
whether their store's dialect has it; :func:`query_names` and :func:`all_queries` take a
dialect and list only what runs on it, so the Neo4j lint never sees FalkorDB-only text.

**Identifiers.** Values are always parameters. Where a label, relationship type or property
name varies (a vector property per encoder, CITES vs COMPARES_WITH), the file writes
``{{name}}`` and a header line gives example values, e.g.
``// identifiers: rel_type=CITES prop=w_minilm_l6``. A placeholder starting with ``label``
is a label, one starting with ``rel`` a relationship type, any other a property
(:func:`identifier_kind`). The examples are what the conformance lint sees.

**Running them.** This package knows the files and the dialect names only; the store runs
every named query: ``store.run_named("<family>/<name>", params, prop=...)`` (or
``store.write_named`` for ``UNWIND $rows`` writes) loads the text in its own dialect and
fills the identifiers after checking each against the ``schema/ddl.py`` whitelists
(``scholarkg.store.named``). A ``UNION ALL`` of ``UNWIND $list AS …`` look-ups whose header
says ``// skip-empty-branches`` runs without the branches whose list is empty (Neo4j plans
a statement per size of its list parameters; ``store.named.without_empty_branches``). A
read whose header says ``// rows-in-one-record: key, id`` (its columns) comes back from Neo4j
as one record holding every row, handed back as rows (the driver's cost is per record;
``store.neo4j.store.rows_in_one_record``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from importlib.abc import Traversable
from typing import Literal

from scholarkg.errors import InputError

#: the Cypher dialects a named query may have a variant in (``GraphStore.dialect``)
DIALECTS = ("falkordb", "neo4j")
#: folders that hold files but not named queries
_NOT_NAMED = frozenset({"browser"})
_PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
_EXAMPLES = re.compile(r"^//\s*identifiers:\s*(.+)$", re.MULTILINE)


def _walk(node: Traversable, prefix: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in node.iterdir():
        if p.is_dir():
            if (not prefix and p.name in _NOT_NAMED) or p.name.startswith(("_", ".")):
                continue
            out.update(_walk(p, f"{prefix}{p.name}/"))
        elif p.name.endswith(".cypher"):
            out[prefix + p.name] = p.read_text(encoding="utf-8")
    return out


@cache
def _files() -> dict[str, str]:
    """Every named query file's text by relative path (``legobench/x.cypher``), read once."""
    return _walk(resources.files(__name__), "")


def _name_of(path: str) -> str:
    folder, _, file = path.rpartition("/")
    base = file.split(".")[0]
    return f"{folder}/{base}" if folder else base


@cache
def load_query(name: str, dialect: str) -> str:
    """Query text for ``name`` (``family/query``) in ``dialect`` (``falkordb`` or ``neo4j``)."""
    if dialect not in DIALECTS:
        raise InputError(f"unknown Cypher dialect {dialect!r}; known: {DIALECTS}")
    files = _files()
    for candidate in (f"{name}.{dialect}.cypher", f"{name}.cypher"):
        if candidate in files:
            return files[candidate].strip()
    if "/" not in name:  # a bare name: the one family folder that holds it
        owners = sorted({n for n in query_names() if n.rpartition("/")[2] == name})
        if len(owners) == 1:
            return load_query(owners[0], dialect)
        if owners:
            raise InputError(f"named query {name!r} is ambiguous; use one of {owners}")
    others = [d for d in DIALECTS if f"{name}.{d}.cypher" in files]
    if others:
        raise InputError(f"named query {name!r} exists only for {', '.join(others)}, not {dialect}")
    raise InputError(f"no named query {name!r}; known: {', '.join(query_names())}")


def has_query(name: str, dialect: str) -> bool:
    """Whether ``name`` (full ``family/query`` form) can run on ``dialect``."""
    files = _files()
    return f"{name}.{dialect}.cypher" in files or f"{name}.cypher" in files


def query_names(dialect: str | None = None) -> list[str]:
    """Query names (dialect variants folded together), e.g. ``legobench/rplm_instances``;
    with ``dialect``, only those that run on it (see "Dialect-only queries")."""
    names = sorted({_name_of(f) for f in _files()})
    if dialect is None:
        return names
    return [n for n in names if has_query(n, dialect)]


def placeholders(text: str) -> list[str]:
    """The ``{{identifier}}`` placeholders of a query text, in order of first use."""
    return list(dict.fromkeys(_PLACEHOLDER.findall(text)))


def example_identifiers(text: str) -> dict[str, str]:
    """The header's ``// identifiers: a=X b=Y`` values (what the lint renders with)."""
    out: dict[str, str] = {}
    for line in _EXAMPLES.findall(text):
        for pair in line.split():
            key, sep, value = pair.partition("=")
            if sep:
                out[key.strip()] = value.strip()
    return out


def identifier_kind(placeholder: str) -> Literal["label", "rel_type", "property"]:
    """What a ``{{placeholder}}`` names, by its spelling: ``label…`` a label, ``rel…`` a
    relationship type, anything else a property (the whitelist the store checks it against)."""
    if placeholder.startswith("label"):
        return "label"
    if placeholder.startswith("rel"):
        return "rel_type"
    return "property"


def fill(name: str, text: str, identifiers: Mapping[str, str]) -> str:
    """``text`` (named query ``name``'s) with its ``{{placeholders}}`` replaced as given.

    Every placeholder must be given and nothing else: a typo fails here, not in the server.
    No whitelist check: the store checks the values before it fills a query it runs
    (``scholarkg.store.named.render_named``); :func:`all_queries` fills the examples."""
    wanted = placeholders(text)
    missing = [k for k in wanted if k not in identifiers]
    extra = sorted(set(identifiers) - set(wanted))
    if missing or extra:
        raise InputError(
            f"named query {name!r} takes identifiers {wanted}; missing {missing}, "
            f"unexpected {extra}"
        )
    if not wanted:
        return text
    return _PLACEHOLDER.sub(lambda m: str(identifiers[m.group(1)]), text)


def all_queries(dialect: str) -> dict[str, str]:
    """Every named query as it would run on ``dialect`` (used by the conformance lint);
    templated ones are rendered with their header's example identifiers."""
    out: dict[str, str] = {}
    for name in query_names(dialect):
        text = load_query(name, dialect)
        out[name] = fill(name, text, example_identifiers(text)) if placeholders(text) else text
    return out

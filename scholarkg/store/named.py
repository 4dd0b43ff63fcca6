"""The text a store runs for a named query: its dialect's file, identifiers checked and filled.

Why here and not in ``queries/``: that package is the files (and their dialect variants); a
label, relationship type or property pasted into Cypher is the store's responsibility, like
every other identifier it pastes (``cypher_common``), so the whitelist check sits beside the
code that runs the result. Both backends' ``run_named`` and ``write_named``
(``batch_writes.BatchWriteStore``) go through :func:`render_named`; nothing else fills a
placeholder for running. A look-up whose header says ``// skip-empty-branches`` also runs
without its ``UNION ALL`` branches whose list parameter is empty (:func:`without_empty_branches`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from scholarkg.errors import InputError
from scholarkg.queries import fill, identifier_kind, load_query, placeholders
from scholarkg.schema.ddl import check_label, check_property, check_rel_type

_CHECKS = {"label": check_label, "rel_type": check_rel_type, "property": check_property}


def render_named(name: str, dialect: str, identifiers: Mapping[str, str] | None = None) -> str:
    """``name``'s text in ``dialect`` with its ``{{placeholders}}`` filled from
    ``identifiers``, each checked against the whitelist its spelling names (a label, a
    relationship type, a property: ``queries.identifier_kind``). Every placeholder must be
    given and nothing else (InputError otherwise, before anything reaches the server)."""
    given = tuple(sorted((k, str(v)) for k, v in (identifiers or {}).items()))
    return _render(name, dialect, given)


@lru_cache(maxsize=1024)
def _render(name: str, dialect: str, given: tuple[tuple[str, str], ...]) -> str:
    # cached: a query run once per page or batch is checked and filled once (a failed
    # check raises, and is not cached)
    text = load_query(name, dialect)
    if not given and "{{" not in text:
        return text
    wanted = placeholders(text)
    # a key the query does not take is left for fill() to refuse by name
    checked = {k: _CHECKS[identifier_kind(k)](v) if k in wanted else v for k, v in given}
    return fill(name, text, checked)


#: the header line of a named query whose branches may be left out when their list is empty
SKIP_EMPTY_BRANCHES = "// skip-empty-branches"
_UNION_ALL = "\nUNION ALL\n"
_LEADING_UNWIND = re.compile(r"UNWIND \$(\w+) AS ")


def without_empty_branches(name: str, text: str, params: Mapping[str, Any] | None) -> str | None:
    """``text`` without the ``UNION ALL`` branches that UNWIND an empty list parameter, or
    None when every branch does (the query would return no row); ``text`` unchanged unless
    its header holds :data:`SKIP_EMPTY_BRANCHES`.

    Why: Neo4j caches a plan per statement text *and* per size bucket of each list parameter
    (0, 1, 2, up to 10, up to 100, …), and planning the identity look-ups' UNIONs of 9 to 19
    branches took 0.3 to 0.7 s each time a batch brought lists of new sizes (a cached plan
    runs in 2-3 ms: bench_neo4j_lookup_plans.py). The branches that UNWIND an empty list
    return nothing, so leaving them out changes no row, the plan is that of the lists a load
    uses, and an update whose works carry only OpenAlex ids and DOIs plans 5 of the 19
    branches. The marker is opt-in: a branch that aggregates after an empty UNWIND
    (``count(v)``) does return a row, so a query says it has none (every branch must start
    with ``UNWIND $list AS``: InputError otherwise)."""
    if SKIP_EMPTY_BRANCHES not in text:
        return text
    params = params or {}
    _, branches = _split(name, text)
    kept = tuple(i for i, (_, unwound) in enumerate(branches) if not _empty(params, unwound))
    if not kept:
        return None
    return _joined(name, text, kept)


def _empty(params: Mapping[str, Any], name: str) -> bool:
    # a list the caller did not pass stays in: the server names the missing parameter
    value = params.get(name, ...)
    return value is None or (isinstance(value, list | tuple) and not value)


@lru_cache(maxsize=256)
def _split(name: str, text: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """The header's comment lines, and each branch with the list parameter it UNWINDs."""
    lines = text.split("\n")
    first = next(i for i, line in enumerate(lines) if not line.startswith("//"))
    branches = []
    for branch in "\n".join(lines[first:]).split(_UNION_ALL):
        found = _LEADING_UNWIND.match(branch)
        if found is None:
            raise InputError(
                f"named query {name}: {SKIP_EMPTY_BRANCHES} needs every UNION ALL branch to "
                f"start with 'UNWIND $list AS', not {branch[:40]!r}"
            )
        branches.append((branch, found.group(1)))
    return "\n".join(lines[:first]), tuple(branches)


@lru_cache(maxsize=1024)
def _joined(name: str, text: str, kept: tuple[int, ...]) -> str:
    header, branches = _split(name, text)
    body = _UNION_ALL.join(branches[i][0] for i in kept)
    return f"{header}\n{body}" if header else body

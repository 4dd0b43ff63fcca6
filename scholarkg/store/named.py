"""The text a store runs for a named query: its dialect's file, identifiers checked and filled.

Why here and not in ``queries/``: that package is the files (and their dialect variants); a
label, relationship type or property pasted into Cypher is the store's responsibility, like
every other identifier it pastes (``cypher_common``), so the whitelist check sits beside the
code that runs the result. Both backends' ``run_named`` and ``write_named``
(``batch_writes.BatchWriteStore``) go through :func:`render_named`; nothing else fills a
placeholder for running.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

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

"""Query shapes FalkorDB 4.16 crashes on, refused before they are sent.

Why: the embedded server is restarted within a second when a query kills it (nothing
stored is lost: docs/backends.md), but every other client's statement fails meanwhile, and
a read-only explorer user should not be able to do it at all. A crash hunt through
``scholarkg cypher`` and the explorer found read queries that segfault the server every
time; those with a shape that a reading of the text can tell apart, and an equivalent the
server runs, are refused here with that equivalent:

* ``XOR`` with a pattern predicate in a ``WHERE`` (``MATCH (a) WHERE a.x XOR (a)-->()``):
  a segfault in ``ExecutionPlan_ReduceFilterToApply`` (upstream FalkorDB issues 2252 and
  1983), 8 times of 8; ``(p AND NOT q) OR (NOT p AND q)`` runs.

Other crashes the hunt found depend on the graph's labels or on the planner's choices, and
are left to the restart (docs/backends.md lists them).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from scholarkg.errors import InputError
from scholarkg.store.cypher_text import Token, views

#: the words that end a WHERE clause (the next clause, or the end of a pattern's part)
_CLAUSES = (
    "RETURN", "WITH", "MATCH", "OPTIONAL", "UNWIND", "CREATE", "MERGE", "SET", "DELETE",
    "DETACH", "REMOVE", "CALL", "ORDER", "SKIP", "LIMIT", "UNION", "FOREACH",
)  # fmt: skip


class CrashShapeRefused(InputError):
    """A query of a shape the embedded FalkorDB crashes on (this module's docstring)."""


def check_crash_shapes(query: str) -> None:
    """Raise :class:`CrashShapeRefused` when any reading of ``query`` has a shape the server
    crashes on; return quietly otherwise (a query without ``XOR`` is read no further)."""
    if "xor" not in query.lower():
        return
    for toks in views(query):
        for start, end in _where_clauses(toks):
            clause = toks[start:end]
            if any(t.is_word("XOR") for t in clause) and _has_pattern(clause):
                raise CrashShapeRefused(
                    "XOR beside a pattern predicate in WHERE crashes the embedded FalkorDB "
                    "(upstream issue 2252); write 'p XOR q' as '(p AND NOT q) OR (NOT p AND q)'"
                )


def _where_clauses(toks: Sequence[Token]) -> list[tuple[int, int]]:
    """``(start, end)`` token spans of each ``WHERE`` clause, to the next clause word."""
    spans = []
    for i, tok in enumerate(toks):
        if tok.is_word("WHERE"):
            end = i + 1
            while end < len(toks) and not toks[end].is_word(*_CLAUSES):
                end += 1
            spans.append((i + 1, end))
    return spans


def _has_pattern(toks: Sequence[Token]) -> bool:
    """Whether ``toks`` hold a relationship pattern: a node's ``)`` followed by ``-`` or
    ``<`` (``(a)-[:R]->()``, ``()<--(b)``)."""
    return any(a.is_symbol(")") and b.is_symbol("-<") for a, b in pairwise(toks))

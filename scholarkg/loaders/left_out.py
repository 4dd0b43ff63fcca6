"""Relationships a reader read in a source record and chose not to store, counted for the
load summary: a work that lists itself among its references (a self-citation would be a
CITES loop), a Crossref reference without a DOI (nothing to match it on).

Why a collector rather than a return value: the readers yield records, and the counts must
reach the summary from wherever the records are made, the loading process or an OpenAlex
parse worker (which ships them back with its block). The same shape as the text
sanitiser's cleaning counts (``schema/text.collect_cleaning``): ``run_resumable`` opens a
:func:`collect_left_out` block around a file's load, a reader calls :func:`note_left_out`,
and with no block open (a test reading a file on its own) a note is dropped.

Counts are of the records as read: a resumed load reads again the records it skips.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["NO_DOI", "SELF_CITATION", "collect_left_out", "describe_left_out", "note_left_out"]

#: why a work's reference became no CITES: it names the work itself (its own DOI or W id)
SELF_CITATION = "the work's own id among its references (a self-citation, no CITES loop)"
#: why a Crossref reference became no CITES: it carries no DOI to find the cited work by
NO_DOI = "a reference without a DOI (nothing to match it on)"

_collector: ContextVar[Counter[tuple[str, str]] | None] = ContextVar(
    "scholarkg_left_out", default=None
)


@contextmanager
def collect_left_out() -> Iterator[Counter[tuple[str, str]]]:
    """Count what the readers leave out while the block runs: ``{(rel type, why): n}``."""
    counts: Counter[tuple[str, str]] = Counter()
    token = _collector.set(counts)
    try:
        yield counts
    finally:
        _collector.reset(token)


def note_left_out(rel_type: str, why: str, n: int = 1) -> None:
    """Count ``n`` relationships of ``rel_type`` not stored, for the reason ``why``."""
    counts = _collector.get()
    if counts is not None and n:
        counts[(rel_type, why)] += n


def describe_left_out(counts: Counter[tuple[str, str]]) -> list[str]:
    """Summary lines, most frequent first: ``3 CITES skipped: <why>``."""
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return [f"{n:,} {rel_type} skipped: {why}" for (rel_type, why), n in ranked]

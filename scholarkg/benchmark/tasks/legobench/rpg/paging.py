"""RPG paging: ids in bounded pages.

Parameter lists are kept to a bounded number of ids per round trip, so a 100k-paper corpus
never travels as one query parameter. (The whole-corpus BM25 index is read page by page by
``BM25Ranker.from_store``.)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

#: ids per ``UNWIND $ids`` round trip
ID_PAGE = 20_000


def id_pages(ids: Sequence[str], size: int = ID_PAGE) -> Iterator[list[str]]:
    """``ids`` in consecutive lists of at most ``size``."""
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])

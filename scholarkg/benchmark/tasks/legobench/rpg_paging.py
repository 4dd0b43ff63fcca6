"""RPG paging: ids in bounded pages, and the whole-corpus BM25 index read page by page.

Parameter lists and result sets are kept to a few thousand rows per round trip, so a
100k-paper corpus never travels as one query result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from scholarkg.services.embeddings import node_text
from scholarkg.store.base import GraphStore

#: ids per ``UNWIND $ids`` round trip
ID_PAGE = 20_000
#: rows per keyset page when reading every Paper's text
TEXT_PAGE = 5_000


def id_pages(ids: Sequence[str], size: int = ID_PAGE) -> Iterator[list[str]]:
    """``ids`` in consecutive lists of at most ``size``."""
    for start in range(0, len(ids), size):
        yield list(ids[start : start + size])


def build_paper_bm25(
    store: GraphStore, *, progress: Callable[[int, int], None] | None = None
) -> Any:
    """BM25 (bm25s via ``BM25Ranker``) over title + abstract of every Paper, read in pages."""
    from scholarkg.benchmark.rankers.bm25 import BM25Ranker

    ids: list[str] = []
    texts: list[str] = []
    after = ""
    while True:
        params = {"after": after, "limit": TEXT_PAGE}
        rows = store.run_named("legobench/rpg_paper_text_page", params)
        for row in rows:
            ids.append(str(row["id"]))
            texts.append(node_text([row.get("title"), row.get("abstract")]))
        if len(rows) < TEXT_PAGE:
            break
        after = str(rows[-1]["id"])
    return BM25Ranker(ids, texts, progress=progress)

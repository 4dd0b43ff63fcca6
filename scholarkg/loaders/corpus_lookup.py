"""Resolving Semantic Scholar corpus ids to the Paper nodes already in the graph.

The S2 readers (``citerec_s2``) take this as their ``lookup`` for abstracts, TLDRs, citations
and S2ORC lines: those files name papers by corpus id only. A module of its own (not the
reader's) because it runs a named query on a store, and readers never touch the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from scholarkg.loaders.citerec_s2 import CorpusLookup


def corpus_lookup(store: GraphStore) -> CorpusLookup:
    """``lookup(corpus ids) -> {corpus id: Paper id}`` over the papers in the graph."""

    def lookup(corpus_ids: Sequence[int]) -> dict[int, str]:
        rows = store.run_named("citerec/papers_by_corpus_id", {"corpus_ids": list(corpus_ids)})
        return {int(r["corpus_id"]): str(r["id"]) for r in rows}

    return lookup

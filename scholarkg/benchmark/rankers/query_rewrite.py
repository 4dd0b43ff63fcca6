"""A ranker that rewrites the query text before another ranker sees it.

Why: a fusion may want the *same* ranker twice on *different* texts of one query, e.g. BM25
on the cleaned citing sentence and BM25 on the sentence with the words around ``<REF>``
weighed (``retrieval``'s ``hybrid-learned``). :class:`~.fusion.FusionRanker` hands every
input the one query it was given, so each input that needs its own text is wrapped here
with its rewrite.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from scholarkg.benchmark.rankers.base import Ranker


class QueryRewriteRanker(Ranker[str]):
    """``inner`` ranking ``rewrite(query)``; named ``name`` (default the inner ranker's).

    ``rewrite_label`` says in the run record which rewrite it was (``"clean"``,
    ``"clean+ref-window=3"``). The inner ranker's encoder, if any, stays reachable as
    :attr:`embedder` (a run records whether its vectors came from the cache).
    """

    def __init__(
        self,
        inner: Ranker[str],
        rewrite: Callable[[str], str],
        *,
        rewrite_label: str,
        name: str | None = None,
    ) -> None:
        self.inner = inner
        self.rewrite = rewrite
        self.name = name or inner.name
        self.embedder: Any = getattr(inner, "embedder", None)
        super().__init__({**inner.params, "query_rewrite": rewrite_label})

    def prepare_queries(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> None:
        self.inner.prepare_queries([self.rewrite(t) for t in texts], progress)

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        ranking = self.inner.rank(self.rewrite(query), k, candidates=candidates)
        return ranking.ids, ranking.scores

"""Rankers: one ``Ranker.rank(query, k, *, candidates) -> Ranking`` interface (``base.py``).

Import the concrete rankers from their modules (``rankers.bm25``, ``rankers.dense``,
``rankers.fusion``): the dense ranker pulls in the embedding service, and BM25 bm25s, which
code that only needs the ``Ranking`` record should not pay for.
"""

from scholarkg.benchmark.rankers.base import Ranker, Ranking, rankings_to_run, top_k

__all__ = ["Ranker", "Ranking", "rankings_to_run", "top_k"]

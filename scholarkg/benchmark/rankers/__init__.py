"""Rankers: one ``Ranker[QueryT].rank(query, k, *, candidates) -> Ranking`` interface
(``base.py``), generic over what a ranker answers (a text, a leaderboard key, a citation
context).

A task that answers a whole run holds a ``RunRanker`` (``rank_all(queries) -> rankings``): every
``Ranker`` is one, one query at a time, and run-level fusions (``fusion.RunFusion``, e.g. weights
fitted on the other queries) are ones that cannot rank a query alone.

Text rankers (``rankers.bm25``, ``rankers.dense``, ``rankers.fusion``) and rankers that read the
graph (``StoreRanker``: ``rankers.pagerank`` for (personalized) PageRank, LEGOBench RPG's in
``tasks/legobench/rpg/rankers.py``) share it, so every ranking records the ranker's name,
parameters and time. Import the concrete rankers from their modules: the dense ranker pulls in
the embedding service, and BM25 bm25s, which code that only needs the ``Ranking`` record should
not pay for.
"""

from scholarkg.benchmark.rankers.base import (
    Ranker,
    Ranking,
    RunQuery,
    RunRanker,
    StoreRanker,
    rankings_to_run,
    top_k,
)

__all__ = [
    "Ranker",
    "Ranking",
    "RunQuery",
    "RunRanker",
    "StoreRanker",
    "rankings_to_run",
    "top_k",
]

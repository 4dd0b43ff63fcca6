"""(Personalized) PageRank as a ranker: the store-aware side of the one ranker interface.

``GraphPageRank`` ranks a candidate set by GDS-semantics PageRank on the subgraph the
candidates induce (``GraphStore.pagerank`` with ``node_ids``: the subgraph is read with an
index seek per candidate and ranked by the in-repo scipy implementation of GDS's PageRank on
both backends, so no graph is created per query and no number depends on the backend), or
with ``scope="graph"`` by whole-graph PageRank (computed once per graph version: kept in the
resident GDS graph on Neo4j and read for the candidates only by an index seek per id, the
client-side projection elsewhere; :func:`scholarkg.graphalgo.topk.pagerank_scores_of`).
With ``personalized=True`` the query names its seed nodes
(an object with ``seeds``: ids, or ``{id: bias}``): the random walk restarts there, the
graph-side relevance of e.g. citation recommendation ("papers close to the ones this draft
already cites"). Seeds join the subgraph so the walk can start from them, but only candidates
are ranked. Like every :class:`~.base.Ranker`, each :class:`~.base.Ranking` records the
ranker's name, parameters and time; ties follow the candidate order.

LEGOBench RPG's baseline (``tasks/legobench/rpg/rankers.PageRankRanker``) is this computation
with its own candidate retrieval and encoder edge weights.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from scholarkg.benchmark.rankers.base import HasText, StoreRanker, tie_key, top_k
from scholarkg.errors import InputError
from scholarkg.schema.ddl import check_label, check_property, check_rel_type
from scholarkg.store.base import PageRankConfig

#: what a candidate's score is computed on: the candidates' induced subgraph, or the graph
SCOPES = ("subgraph", "graph")


def _seeds(query: HasText) -> dict[str, float]:
    seeds = getattr(query, "seeds", None)
    if not seeds:
        raise InputError(
            "personalized PageRank needs a query with seed nodes (query.seeds)", field="seeds"
        )
    if isinstance(seeds, Mapping):
        return {str(k): float(v) for k, v in seeds.items()}
    return {str(s): 1.0 for s in seeds}


class GraphPageRank(StoreRanker):
    """Rank candidates by (personalized) PageRank on their induced ``label``/``rel_type``
    subgraph (``scope="subgraph"``) or by whole-graph PageRank (``scope="graph"``);
    ``weight_property`` names a relationship weight (``None``: unweighted; subgraph only)."""

    name = "pagerank"

    def __init__(
        self,
        label: str = "Paper",
        rel_type: str = "CITES",
        *,
        weight_property: str | None = None,
        personalized: bool = False,
        damping_factor: float = 0.85,
        max_iterations: int = 20,
        tolerance: float = 1e-7,
        scope: str = "subgraph",
    ) -> None:
        if scope not in SCOPES:
            raise InputError(f"scope must be one of {SCOPES}", field="scope")
        if scope == "graph" and (personalized or weight_property):
            raise InputError(
                "scope='graph' ranks by unweighted whole-graph PageRank (kept per graph "
                "version); personalized or weighted PageRank runs on the candidate subgraph",
                field="scope",
            )
        self.scope = scope
        self.label = check_label(label)
        self.rel_type = check_rel_type(rel_type)
        self.weight_property = check_property(weight_property) if weight_property else None
        self.personalized = personalized
        self.config = PageRankConfig(damping_factor, max_iterations, tolerance)
        if personalized:
            self.name = "personalized-pagerank"
        super().__init__(
            {
                "label": label,
                "rel_type": rel_type,
                "weight_property": self.weight_property,
                "personalized": personalized,
                "damping_factor": damping_factor,
                "max_iterations": max_iterations,
                "tolerance": tolerance,
                "scope": scope,
            }
        )

    def _score_query(
        self, query: HasText, k: int | None, candidates: Sequence[str] | None
    ) -> tuple[Any, ...]:
        if candidates is None:
            raise InputError("PageRank ranks a candidate set: pass candidates", field="candidates")
        pool = list(candidates)
        config = self.config
        nodes = pool
        if self.personalized:
            seeds = _seeds(query)
            nodes = list(dict.fromkeys([*pool, *seeds]))
            config = PageRankConfig(
                config.damping_factor, config.max_iterations, config.tolerance, source_nodes=seeds
            )
        if not pool:
            return [], [], {"ran_iterations": 0}
        if self.scope == "graph":
            from scholarkg.graphalgo.topk import pagerank_scores_of

            by_id = pagerank_scores_of(
                self.store, pool, config, label=self.label, rel_types=(self.rel_type,)
            )
            graph_scores = np.asarray([by_id.get(c, 0.0) for c in pool], dtype=np.float64)
            idx, _ = top_k(tie_key(graph_scores), len(pool) if k is None else k)
            return [pool[i] for i in idx], graph_scores[idx].tolist(), {"scope": "graph"}
        res = self.store.pagerank(
            self.label, self.rel_type, node_ids=nodes, weight_property=self.weight_property,
            config=config,
        )  # fmt: skip
        scores = np.asarray([res.scores.get(c, 0.0) for c in pool], dtype=np.float64)
        # GDS and scipy differ in the last bits: rank by the rounded scores (ties by position)
        idx, _ = top_k(tie_key(scores), len(pool) if k is None else k)
        vals = scores[idx]
        info = {"ran_iterations": res.ran_iterations, "did_converge": res.did_converge}
        return [pool[i] for i in idx], vals.tolist(), info


__all__ = ["SCOPES", "GraphPageRank"]

"""One narrow ranker interface for every text/graph ranker (BM25, dense, fusion, PageRank).

Why one interface: benchmark tasks wire "candidates from Cypher -> a ranker -> a run -> metrics"
and must not care which ranker they hold. Following neo4j-graphrag's retriever design
(the template-method pattern), the public :meth:`Ranker.rank` is fixed here; subclasses implement
only
:meth:`Ranker._score`. The base records the ranker's name, its parameters and the wall time
on every :class:`Ranking`, so a run file always says what produced it.

Ordering rule shared by all rankers: score descending, ties broken by the ranker's own
document order (corpus order, or candidate order when candidates are given). That makes
rankings deterministic, which the metric tests and run comparisons rely on.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

import numpy as np

from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.store.base import GraphStore


@dataclass(frozen=True)
class Ranking:
    """The answer of one ranker to one query: ids best first, with their scores.

    ``params`` holds everything needed to reproduce the ranking (variant, k1/b, tokenizer,
    model name...); ``elapsed_s`` is the wall time of the ``rank`` call.
    """

    ids: list[str]
    scores: list[float]
    ranker: str
    params: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0
    query_id: str | None = None
    #: per-query facts a ranker reports beside the order (e.g. ``n_candidates``)
    info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.ids) != len(self.scores):
            raise ValueError(f"ranking has {len(self.ids)} ids but {len(self.scores)} scores")

    def __len__(self) -> int:
        return len(self.ids)

    def as_dict(self) -> dict[str, float]:
        """``{doc_id: score}``: the shape ranx ``Run`` and pytrec-eval expect per query."""
        return dict(zip(self.ids, self.scores, strict=True))


#: Graph scores equal to this many decimals are ties. GDS and scipy (or one projection whose
#: nodes are numbered in another order) sum in another order, so tied nodes come back a last
#: bit apart (0.2775 vs 0.2775000000000001); rounded far below any solver tolerance (GDS:
#: 1e-7) they tie again, and the tie-break, not the backend, decides their order.
TIE_DECIMALS = 12


def tie_key(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """``scores`` rounded to :data:`TIE_DECIMALS`: rank by this, report the scores."""
    return np.round(np.asarray(scores, dtype=np.float64), TIE_DECIMALS)


def top_k(scores: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices and scores of the ``k`` best entries (score desc, then position asc).

    ``np.argpartition`` first so that ranking 100k documents for k=100 does not sort them all;
    the final order of the selected few is then a stable lexsort.
    """
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=scores.dtype)
    if k < n:
        # include every entry tied with the k-th best, so ties resolve by position, not by
        # whatever argpartition happened to pick
        part = np.argpartition(-scores, k - 1)[:k]
        kth = scores[part].min()
        pool = np.flatnonzero(scores >= kth)
    else:
        pool = np.arange(n)
    order = np.lexsort((pool, -scores[pool]))[:k]
    chosen = pool[order]
    return chosen, scores[chosen]


def split_candidates(
    candidates: Sequence[str], known_ids: Mapping[str, int], *, strict: bool, missing_what: str
) -> tuple[list[str], list[str]]:
    """``(known, missing)`` candidates in candidate order; ``strict``: missing ones are an error.

    ``missing_what`` completes the message, e.g. ``"not in the BM25 corpus"``. Candidate
    pools come from Cypher, so an id the ranker never indexed usually means a stale index.
    """
    known = [c for c in candidates if c in known_ids]
    missing = [c for c in candidates if c not in known_ids]
    if missing and strict:
        shown = ", ".join(repr(m) for m in missing[:5])
        raise InputError(
            f"{len(missing)} candidate id(s) {missing_what}: {shown}", field="candidates"
        )
    return known, missing


def rank_pool(
    known: Sequence[str], known_scores: np.ndarray, missing: Sequence[str], missing_score: float,
    k: int,
) -> tuple[list[str], list[float]]:  # fmt: skip
    """Top ``k`` of ``known`` (scored) then ``missing`` (all ``missing_score``), by :func:`top_k`.

    Missing candidates follow the known ones in the pool, so on a tie they rank after them.
    """
    sub = np.concatenate(
        [known_scores, np.full(len(missing), missing_score, dtype=known_scores.dtype)]
    )
    pool = [*known, *missing]
    idx, vals = top_k(sub, k)
    return [pool[i] for i in idx], vals.tolist()


#: ``progress(n_done, n_total)`` while a run is ranked
RunProgress = Callable[[int, int], None]


@dataclass(frozen=True)
class RunQuery:
    """One query of a run: its id, its text, how many ids to return, and its candidate pool."""

    id: str
    text: str
    k: int
    candidates: Sequence[str] | None = None


class RunRanker(Protocol):
    """Anything that ranks a whole run: ``rank_all(queries) -> {query id: Ranking}``.

    Why a run-level interface: some rankers cannot answer one query alone. A fusion whose
    weights are fitted on the *other* queries' judgements (cross-fitting) needs every
    input's whole run first. Every :class:`Ranker` is a ``RunRanker`` through
    :meth:`Ranker.rank_all` (one query at a time); :class:`~.fusion.RunFusion` is one that
    is not a per-query ranker. ``name`` and ``params`` say what produced the run.
    """

    name: str
    params: dict[str, Any]

    def rank_all(
        self, queries: Sequence[RunQuery], *, progress: RunProgress | None = None
    ) -> dict[str, Ranking]: ...


#: what a ranker answers: a text (``str``), a leaderboard key (:class:`HasText`), a citation
#: context (citation recommendation's ``ContextQuery``), ...
QueryT = TypeVar("QueryT")


class Ranker(ABC, Generic[QueryT]):
    """The one ranker base, generic over its query type: subclasses set ``name`` and
    ``params`` and implement :meth:`_score` for their ``QueryT``.

    Text rankers are ``Ranker[str]`` (BM25, dense, fusion); rankers that read the graph are
    ``Ranker[HasText]`` (:class:`StoreRanker`); citation recommendation's are
    ``Ranker[ContextQuery]``. Whatever the query, :meth:`rank` times the call and returns a
    :class:`Ranking` carrying the ranker's name and parameters, and the query is an argument,
    never state kept on the ranker between calls.
    """

    #: short identifier written into runs, e.g. ``"bm25"``, ``"dense"``, ``"rrf"``
    name: str = "ranker"

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        self.params: dict[str, Any] = dict(params or {})

    def rank(
        self,
        query: QueryT,
        k: int,
        *,
        candidates: Sequence[str] | None = None,
        query_id: str | None = None,
    ) -> Ranking:
        """The ``k`` best documents for ``query`` (restricted to ``candidates`` when given).

        ``candidates`` lets a task rank only the ids its Cypher query produced (e.g. the
        papers a leaderboard row could cite); their order breaks ties. Duplicated candidate
        ids are ranked once.
        """
        if k < 0:
            raise InputError(f"k must be >= 0, got {k}", field="k")
        if candidates is not None:
            candidates = list(dict.fromkeys(candidates))
        start = time.perf_counter()
        ids, scores = self._score(query, k, candidates)
        elapsed = time.perf_counter() - start
        return Ranking(
            ids=list(ids),
            scores=[float(s) for s in scores],
            ranker=self.name,
            params=dict(self.params),
            elapsed_s=elapsed,
            query_id=query_id,
        )

    def prepare_queries(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> None:
        """Optional batch work for the query texts of a run before they are ranked one by one.

        Default: nothing. A dense ranker encodes all query texts in one batched call here
        (length-sorted batches, through the vector cache) instead of one call per query.
        """
        return None

    def rank_many(
        self: Ranker[str],
        queries: Mapping[str, str],
        k: int,
        *,
        candidates: Mapping[str, Sequence[str]] | None = None,
    ) -> dict[str, Ranking]:
        """Rank every ``{query_id: text}``; ``candidates`` maps query ids to their pools."""
        return self.rank_all(
            [
                RunQuery(qid, text, k, None if candidates is None else candidates.get(qid))
                for qid, text in queries.items()
            ]
        )

    def rank_all(
        self: Ranker[str], queries: Sequence[RunQuery], *, progress: RunProgress | None = None
    ) -> dict[str, Ranking]:
        """:class:`RunRanker` adapter: rank each query on its own, in order (text rankers).

        A per-query ranker answers a whole run by answering its queries one by one, so a task
        holds every ranker as a :class:`RunRanker` and never asks which kind it has.
        """
        out: dict[str, Ranking] = {}
        for n, q in enumerate(queries, 1):
            out[q.id] = self.rank(q.text, q.k, candidates=q.candidates, query_id=q.id)
            if progress:
                progress(n, len(queries))
        return out

    @abstractmethod
    def _score(
        self, query: QueryT, k: int, candidates: Sequence[str] | None
    ) -> tuple[Sequence[str], Sequence[float]]:
        """Return at most ``k`` ``(ids, scores)``, best first, following the ordering rule."""


class HasText(Protocol):
    """A structured query: anything with the text a text ranker would see (e.g. a leaderboard
    key ⟨task, dataset, metric⟩ whose ``text`` is ``"task dataset metric"``)."""

    @property
    def text(self) -> str: ...


@dataclass(frozen=True)
class TextQuery:
    """A plain text query, for :meth:`StoreRanker.rank` called with a string."""

    text: str


class StoreRanker(Ranker[HasText]):
    """Base of rankers that read the graph: RPG's, PageRank / personalized PageRank.

    Same contract as :class:`Ranker` — ``name`` and ``params`` on every :class:`Ranking`, with
    its wall time — so a run records what produced it whichever kind of ranker ran. What
    differs is where documents come from:

    * the store is attached with :meth:`bind` (explicit, never in the constructor: no
      server work in ``__init__``), and :meth:`prepare` does one-time per-run work (a BM25
      index, a whole-graph snapshot) so per-query timings stay per query;
    * a query may carry structure beyond its text: :meth:`rank_query` takes any object with a
      ``text`` attribute (:class:`HasText`); :meth:`rank` with a string still works;
    * ``k=None`` ranks every candidate (graph rankers order a candidate set, not a corpus).

    Subclasses implement :meth:`_score_query`, returning ``(ids, scores)`` or
    ``(ids, scores, info)``; ``info`` lands in :attr:`Ranking.info`.
    """

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        super().__init__(params)
        self._store: GraphStore | None = None
        self._prepared = False

    @property
    def store(self) -> GraphStore:
        if self._store is None:
            raise InputError(f"ranker {self.name!r} is not bound to a store; call bind(store)")
        return self._store

    def bind(self, store: GraphStore) -> StoreRanker:
        """Attach the store (a different store resets :meth:`prepare`); returns ``self``."""
        if store is not self._store:
            self._store = store
            self._prepared = False
        return self

    def prepare(self, progress: Callable[[int, int], None] | None = None) -> None:
        """One-time work before the first query (idempotent); default: nothing."""
        self._prepared = True

    def rank_query(
        self,
        query: HasText,
        k: int | None = None,
        *,
        candidates: Sequence[str] | None = None,
        query_id: str | None = None,
    ) -> Ranking:
        """Rank for a structured ``query``; ``k=None`` keeps every ranked candidate."""
        if k is not None and k < 0:
            raise InputError(f"k must be >= 0, got {k}", field="k")
        if not self._prepared:
            self.prepare()
        if candidates is not None:
            candidates = list(dict.fromkeys(candidates))
        start = time.perf_counter()
        out = self._score_query(query, k, candidates)
        elapsed = time.perf_counter() - start
        ids, scores = out[0], out[1]
        info = dict(out[2]) if len(out) > 2 else {}
        if k is not None:
            ids, scores = list(ids)[:k], list(scores)[:k]
        return Ranking(
            ids=list(ids),
            scores=[float(s) for s in scores],
            ranker=self.name,
            params=dict(self.params),
            elapsed_s=elapsed,
            query_id=query_id,
            info=info,
        )

    def rank(  # also takes a plain string, ranked as a TextQuery
        self,
        query: HasText | str,
        k: int,
        *,
        candidates: Sequence[str] | None = None,
        query_id: str | None = None,
    ) -> Ranking:
        """:meth:`Ranker.rank`; a string is ranked as ``TextQuery(query)``."""
        text_query = TextQuery(query) if isinstance(query, str) else query
        return super().rank(text_query, k, candidates=candidates, query_id=query_id)

    def _score(
        self, query: HasText, k: int, candidates: Sequence[str] | None
    ) -> tuple[Sequence[str], Sequence[float]]:
        if not self._prepared:
            self.prepare()
        ids, scores = self._score_query(query, k, candidates)[:2]
        return list(ids)[:k], list(scores)[:k]

    @abstractmethod
    def _score_query(
        self, query: HasText, k: int | None, candidates: Sequence[str] | None
    ) -> tuple[Any, ...]:
        """``(ids, scores[, info])`` best first; ``candidates`` given = rank exactly those."""


def rankings_to_run(rankings: Mapping[str, Ranking]) -> dict[str, dict[str, float]]:
    """``{query_id: {doc_id: score}}`` — the run dict ranx and pytrec-eval take."""
    return {qid: r.as_dict() for qid, r in rankings.items()}

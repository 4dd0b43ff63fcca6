"""The recommender: text rankers, the graph around what they find, and their fitted fusion.

For a query (a paragraph, or a draft's title and abstract) :class:`Recommender` ranks works
to cite, loaded works and reference stubs alike:

1. the text inputs: ``bm25`` and, where the works hold vectors, ``dense`` (:mod:`.text`);
2. the *seeds*: the :data:`SEEDS` best works of the two fused (RRF, k = :data:`SEED_RRF_K`),
   each weighted by its fused score relative to the best (1 for the first);
3. the graph inputs around the seeds (:mod:`.signals`): ``refs``, ``cocited``, ``coupled``,
   ``ppr``, ``fastrp``, ``popular``;
4. the fusion of every input's top :data:`DEPTH` (``benchmark/rankers/fusion``): RRF or
   CombSUM of min-max normalised scores, with the weights the graph's own fit chose
   (:mod:`.fit`); an input the fit weighs 0 is not computed at all.

``method`` names the baselines the fused ranking is measured against, through the same
code: ``bm25`` (text alone), ``text`` (RRF of BM25 and dense), ``text-refs`` (the reference
lists of BM25's :data:`TEXT_REFS_SEEDS` best works, each weighted by its BM25 score) and
``text-refs-hybrid`` (the same with the seeds and weights of step 2).

``exclude``: works the query treats as absent, with their edges (every graph input reads the
graph without them, :class:`~scholarkg.graphalgo.neighbours.Without` on the projection, the
same semantics in the server's named queries and procedure on Neo4j; the text inputs drop
them), which is how a work of the graph is asked for its own references. On Neo4j such a
query gets no ``fastrp`` (:class:`~.signals.ServerSignals`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from scholarkg.benchmark.rankers.base import Ranking
from scholarkg.benchmark.rankers.fusion import rrf
from scholarkg.errors import InputError
from scholarkg.recommend.fusion import INPUTS, TEXT_INPUTS, Fusion
from scholarkg.recommend.signals import (
    FASTRP_EXCLUDED,
    FASTRP_MISSING,
    GRAPH_SIGNALS,
    GraphSignals,
    ProjectionSignals,
    Seeds,
    ServerSignals,
    SignalResult,
)
from scholarkg.recommend.state import cache_dir, graph_version
from scholarkg.recommend.text import TextSearch
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from scholarkg.graphalgo.projection import ProjectionCatalog
    from scholarkg.recommend.fit import FitRecord
    from scholarkg.services.embeddings import Embedder

log = logging.getLogger(__name__)

#: each input's ranking depth (what fusion sees of it)
DEPTH = 100
#: how many of the text's best works seed the graph inputs
SEEDS = 40
#: the RRF constant that orders and weighs the seeds: 2 weighs the first few works far more
#: than the 60 of plain RRF. Chosen with SEEDS on the dev queries of two real graphs (the
#: seeds' references alone, nDCG@10: ScisummNet/AAN 0.264 against 0.245 at k = 60 with 20
#: seeds, the AAN group graph 0.321 against 0.284; docs/decisions.md)
SEED_RRF_K = 2
#: how many of BM25's best works the text-then-references baseline reads: its best on the
#: two dev sets together (nDCG@10 AAN 0.221 and the group graph 0.273, against 0.215 and
#: 0.275 with 20; docs/decisions.md)
TEXT_REFS_SEEDS = 40
METHODS = ("fused", "bm25", "text", "text-refs", "text-refs-hybrid", "related-works")
ENGINES = ("auto", "client", "server")

Progress = Callable[[str, int, int | None], None]

__all__ = [
    "DEPTH",
    "INPUTS",
    "METHODS",
    "SEEDS",
    "Fusion",
    "Query",
    "Recommender",
    "Suggestion",
    "Suggestions",
]


@dataclass(frozen=True)
class Query:
    """One query of a batch: an id, its text, and works to treat as absent."""

    id: str
    text: str
    exclude: tuple[str, ...] = ()


@dataclass
class Suggestion:
    """One work to cite, with what put it there."""

    rank: int
    id: str
    score: float
    title: str | None = None
    year: int | None = None
    stub: bool = False
    #: per input that ranked it: ``{"rank": r, "score": s}``
    inputs: dict[str, dict[str, float]] = field(default_factory=dict)
    #: how many of the text's best works cite it
    cited_by_matches: int = 0

    def why(self) -> str:
        """One line a reader can check: the strongest evidence first."""
        parts = []
        if self.cited_by_matches:
            n = self.cited_by_matches
            parts.append(f"cited by {n} text match{'es' if n != 1 else ''}")
        text = [self.inputs[n]["rank"] for n in ("bm25", "dense") if n in self.inputs]
        if text:
            parts.append(f"text #{int(min(text))}")
        for name, label in (("cocited", "co-cited"), ("coupled", "coupled"), ("ppr", "PPR"),
                            ("fastrp", "FastRP")):  # fmt: skip
            if name in self.inputs and self.inputs[name]["rank"] <= 20:
                parts.append(f"{label} #{int(self.inputs[name]['rank'])}")
        if "popular" in self.inputs:
            parts.append(f"{int(self.inputs['popular']['score'])} citations")
        return "; ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["why"] = self.why()
        return d


@dataclass
class Suggestions:
    """The answer to one query."""

    query_id: str | None
    rows: list[Suggestion]
    method: str
    fusion: str
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "query": self.query_id,
            "method": self.method,
            "fusion": self.fusion,
            "notes": self.notes,
            "seconds": round(self.seconds, 4),
            "suggestions": [r.as_dict() for r in self.rows],
        }


class Recommender:
    """Suggestions of works to cite on one graph (see the module doc).

    ``engine``: ``auto`` (the managed Neo4j: the graph inputs in the server, ``exclude``
    included; elsewhere the client-side projection), ``client`` (always the projection: on
    Neo4j it pulls the whole graph over Bolt once) or ``server`` (the managed Neo4j only).
    ``cache_root``: where fits and indexes are kept (default ``<data dir>/recommend``).
    """

    def __init__(
        self,
        store: GraphStore,
        *,
        model: str = "minilm",
        embedder: Embedder | None = None,
        engine: str = "auto",
        catalog: ProjectionCatalog | None = None,
        cache_root: Path | None = None,
        progress: Progress | None = None,
    ) -> None:
        if engine not in ENGINES:
            raise InputError(f"engine must be one of {', '.join(ENGINES)}", field="engine")
        on_server = engine != "client" and ServerSignals.supported(store)
        if engine == "server" and not on_server:
            raise InputError(
                "--engine server needs the managed Neo4j (scholarkg's procedure "
                "scholarkg.recommend.ppr in its plugins)",
                field="engine",
            )
        if engine == "auto" and not on_server and store.dialect == "neo4j":
            log.warning(
                "this Neo4j lacks scholarkg.recommend.ppr (not the managed server): the graph "
                "inputs read a client-side projection of the whole graph"
            )
        self.store = store
        self.progress = progress
        self.version = graph_version(store)
        self.cache = cache_dir(store, cache_root)
        self.text = TextSearch(store, self.version, self.cache, model, embedder)
        self.client = ProjectionSignals(store, catalog=catalog, cache=self.cache, progress=progress)
        self.server: ServerSignals | None = ServerSignals(store) if on_server else None
        self.engine = engine
        self.fit_record: FitRecord | None = None
        self.fusion = Fusion()

    # -- setting up ---------------------------------------------------------------------

    def graph_for(self, exclude: Iterable[str] = ()) -> GraphSignals:
        """Where the graph inputs run: the Neo4j server (``exclude`` included) unless
        ``--engine client`` or the server lacks scholarkg's procedure; else the client-side
        projection (the embedded store's own path)."""
        return self.server if self.server is not None else self.client

    def graph_inputs(self, *, exclude: bool = False) -> set[str]:
        """The graph inputs a query gets. On the server, a query that excludes works gets no
        FastRP (:meth:`ServerSignals.available`), so the fit, whose every query leaves its
        own work out, uses only inputs such queries have; on the projection, the same with
        or without ``exclude``."""
        if self.server is not None:
            return self.server.available(exclude=exclude)
        return self.client.available()

    def available(self, *, exclude: bool = False) -> tuple[str, ...]:
        """The inputs this graph offers (``dense`` needs stored vectors) to queries that
        exclude works or not (:meth:`graph_inputs`)."""
        graph = self.graph_inputs(exclude=exclude)
        out = ["bm25"]
        if self.text.dense_available():
            out.append("dense")
        return (*out, *(n for n in GRAPH_SIGNALS if n in graph))

    def prepare(
        self, *, fit: bool = True, refit: bool = False, fit_queries: int = 300
    ) -> FitRecord | None:
        """Build or load what queries need (BM25 index; the fit, fitted now if the stored
        one is of another graph version or ``refit``). ``fit=False``: RRF of every input."""
        from scholarkg.recommend.fit import fit_recommender, load_fit, save_fit

        self.text.bm25(self.progress)
        if not fit:
            self.fusion = Fusion(inputs=self.available())
            return None
        record = None if refit else load_fit(self.cache, self.version)
        if record is None:
            record = fit_recommender(self, n_queries=fit_queries, progress=self.progress)
            save_fit(self.cache, record)
        self.fit_record = record
        self.fusion = record.fusion
        return record

    # -- one query ------------------------------------------------------------------------

    def seeds(self, bm25: Ranking, dense: Ranking | None, n: int = SEEDS) -> Seeds:
        """The text's best ``n`` works (RRF of the text inputs), weighted relative to the
        first."""
        parts = [r for r in (bm25, dense) if r is not None and r.ids]
        if not parts:
            return Seeds((), ())
        fused = rrf(parts, k=SEED_RRF_K, depth=n)
        top = max(fused.scores) if fused.scores else 1.0
        return Seeds(tuple(fused.ids), tuple(s / top for s in fused.scores))

    def inputs(
        self,
        text: str,
        *,
        vector: np.ndarray | None = None,
        exclude: Iterable[str] = (),
        wanted: Iterable[str] | None = None,
        depth: int = DEPTH,
        seeds: int = SEEDS,
    ) -> tuple[dict[str, Ranking], SignalResult]:
        """Every wanted input's ranking for one query (default: what the fusion uses)."""
        ex = frozenset(exclude)
        want = set(self.fusion.used() if wanted is None else wanted)
        parts: dict[str, Ranking] = {}
        parts["bm25"] = self.text.bm25_ranking(text, depth, ex)
        dense = None
        if self.text.dense_available() and ({"dense"} | set(GRAPH_SIGNALS)) & want:
            vec = self.text.query_vector(text) if vector is None else vector
            dense = self.text.dense_ranking(vec, depth, ex)
            parts["dense"] = dense
        graph_wanted = want & set(GRAPH_SIGNALS)
        dropped: set[str] = set()
        if ex:  # the inputs a query that leaves works out gets
            dropped = graph_wanted - self.graph_inputs(exclude=True)
            graph_wanted -= dropped
        if graph_wanted:
            graph_wanted.add("refs")  # cheap, and what a row's "cited by n text matches" reads
        result = SignalResult()
        if graph_wanted:
            result = self.graph_for(ex).signals(
                self.seeds(parts["bm25"], dense, seeds), ex, depth, graph_wanted
            )
            parts.update(result.rankings)
        if "fastrp" in dropped and self.server is not None and self.server.fastrp_available():
            result.notes.append(FASTRP_EXCLUDED)
        elif (
            self.server is not None
            and (wanted is None or "fastrp" in want)
            and graph_wanted
            and not self.server.fastrp_available()
        ):  # the fusion was fitted without it: still say what the query did not get
            result.notes.append(FASTRP_MISSING)
        return parts, result

    def suggest(
        self,
        text: str,
        k: int = 10,
        *,
        exclude: Iterable[str] = (),
        method: str = "fused",
        query_id: str | None = None,
        vector: np.ndarray | None = None,
        cards: bool = True,
    ) -> Suggestions:
        """The ``k`` works to cite for ``text`` (see the module doc for ``method``)."""
        if method not in METHODS:
            raise InputError(f"method must be one of {', '.join(METHODS)}", field="method")
        if not text.strip():
            raise InputError("empty query text", field="text")
        if k < 1:
            raise InputError("--top must be >= 1", field="top")
        t0 = time.perf_counter()
        ex = tuple(dict.fromkeys(exclude))
        notes: list[str] = []
        record = self.fit_record
        better = record.better_baseline() if record is not None else None
        if method == "fused" and record is not None and better is not None:
            # the graph's own fit found a baseline better than any fusion it tried: the
            # default answers with the better ranking, and says so
            name, score = better
            answer = self.suggest(text, k, exclude=ex, method=name, query_id=query_id,
                                  vector=vector, cards=cards)  # fmt: skip
            answer.notes.insert(
                0,
                f"ranked by {name}: on this graph's own works it scored nDCG@10 {score:.3f} "
                f"against the fitted fusion's {record.score:.3f} (--method chooses)",
            )
            return answer
        if method == "fused":
            parts, result = self.inputs(text, vector=vector, exclude=ex)
            notes += result.notes
            fused = self.fusion.fuse(parts, k)
            fusion = self.fusion.describe()
        elif method == "bm25":
            parts, result = self.inputs(text, exclude=ex, wanted=("bm25",))
            fused = _top(parts["bm25"], k)
            fusion = "bm25"
        elif method == "text":
            parts, result = self.inputs(text, vector=vector, exclude=ex, wanted=TEXT_INPUTS)
            used = [parts[n] for n in TEXT_INPUTS if n in parts]
            fused = rrf(used, depth=k)
            fusion = "RRF k=60 of " + ", ".join(n for n in TEXT_INPUTS if n in parts)
        elif method == "related-works":
            parts, result = self._related_works(ex), SignalResult()
            fused = _top(parts["related-works"], k)
            fusion = method
        else:
            parts, result = self._text_refs(text, ex, vector, hybrid=method == "text-refs-hybrid")
            fused = _top(parts["refs"], k)
            fusion = method
        rows = self._rows(fused, parts, result, cards=cards)
        return Suggestions(query_id, rows, method, fusion, notes, time.perf_counter() - t0)

    def _related_works(self, ex: tuple[str, ...]) -> dict[str, Ranking]:
        """OpenAlex's own answer as a baseline: the ``related_works`` its record of the
        query's work lists (the works ``exclude`` names: a held-out work is the query's),
        in their order, those that are Papers of the graph. It reads no text: a work whose
        record carried no ``related_works`` (every source but OpenAlex) gets nothing."""
        rows = self.store.run_named(
            "recommend/related_works", {"works": list(ex), "limit": DEPTH}
        ) if ex else []  # fmt: skip
        ids = [str(r["id"]) for r in rows if str(r["id"]) not in ex]
        scores = [1.0 / (1 + n) for n in range(len(ids))]  # the list's order, as a score
        return {"related-works": Ranking(ids, scores, "related-works")}

    def _text_refs(
        self, text: str, ex: tuple[str, ...], vector: np.ndarray | None, *, hybrid: bool
    ) -> tuple[dict[str, Ranking], SignalResult]:
        """The text-then-references baseline: the reference lists of the text's best works,
        each weighted by its score (BM25's, or the hybrid seeds' relative weight)."""
        exs = frozenset(ex)
        bm25 = self.text.bm25_ranking(text, DEPTH, exs)
        parts = {"bm25": bm25}
        if hybrid:
            dense = None
            if self.text.dense_available():
                vec = self.text.query_vector(text) if vector is None else vector
                dense = self.text.dense_ranking(vec, DEPTH, exs)
                parts["dense"] = dense
            seeds = self.seeds(bm25, dense)
        else:
            n = TEXT_REFS_SEEDS
            seeds = Seeds(tuple(bm25.ids[:n]), tuple(bm25.scores[:n]))
        result = self.graph_for(exs).signals(seeds, exs, DEPTH, {"refs"})
        parts.update(result.rankings)
        parts.setdefault("refs", Ranking([], [], "refs"))
        return parts, result

    def _rows(
        self,
        fused: Ranking,
        parts: Mapping[str, Ranking],
        result: SignalResult,
        *,
        cards: bool,
    ) -> list[Suggestion]:
        where = {
            name: {d: (n, s) for n, (d, s) in enumerate(zip(r.ids, r.scores, strict=True), 1)}
            for name, r in parts.items()
        }
        from scholarkg.services.paper_lookup import paper_cards

        info = paper_cards(self.store, fused.ids) if cards else {}
        rows = []
        for rank, (doc, score) in enumerate(zip(fused.ids, fused.scores, strict=True), 1):
            card = info.get(doc)
            evidence = {
                name: {"rank": float(hit[0]), "score": float(hit[1])}
                for name, found in where.items()
                if (hit := found.get(doc)) is not None
            }
            rows.append(
                Suggestion(
                    rank=rank,
                    id=doc,
                    score=float(score),
                    title=card.title if card else None,
                    year=card.year if card else None,
                    stub=card.stub if card else False,
                    inputs=evidence,
                    cited_by_matches=result.cited_by_seeds.get(doc, 0),
                )
            )
        return rows

    # -- batches --------------------------------------------------------------------------

    def suggest_many(
        self,
        queries: Sequence[Query],
        k: int = 10,
        *,
        method: str = "fused",
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, Suggestions]:
        """Every query of a batch; query texts are encoded in one batched call first."""
        seen: set[str] = set()
        for q in queries:
            if q.id in seen:
                raise InputError(f"query id {q.id!r} appears twice", field="id")
            seen.add(q.id)
        vectors: dict[str, np.ndarray] = {}
        if method not in ("bm25", "related-works") and self.text.dense_available():
            texts = list(dict.fromkeys(q.text for q in queries))
            encoded = self.text.encoder().encode(texts)
            vectors = dict(zip(texts, np.asarray(encoded, np.float32), strict=True))
        out: dict[str, Suggestions] = {}
        for n, q in enumerate(queries, 1):
            out[q.id] = self.suggest(
                q.text, k, exclude=q.exclude, method=method, query_id=q.id,
                vector=vectors.get(q.text), cards=False,
            )  # fmt: skip
            if progress is not None:
                progress(n, len(queries))
        return out


def _top(r: Ranking, k: int) -> Ranking:
    return Ranking(r.ids[:k], r.scores[:k], r.ranker)

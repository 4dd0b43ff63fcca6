"""LEGOBench RPG (ranked paper generation) on the graph: queries, candidates, weights, scores.

A query is a leaderboard key q = ⟨task, dataset, metric⟩; the answer is a ranking of papers,
best first, compared with the leaderboard's own order (the LEGOBench paper (Singh et al., arXiv
2401.06233), task definitions).
The four configurations pair a graph with a text source:

* ``cn-tabs`` / ``pcn-tabs``: citations (``CITES``) or performance comparisons
  (``COMPARES_WITH``) + the ``paper_text`` full-text index (title, abstract);
* ``cn-ft`` / ``pcn-ft``: the same graphs + the ``chunk_text`` index over full-text ``Chunk``
  nodes, mapped to their papers through ``HAS_CHUNK``.

This module holds what every ranker shares: reading the ground truth (graph or
``leaderboards.jsonl``), the seeded dev/test split, strict unigram-AND candidate retrieval,
the query-independent cosine edge weights stored once on the relationships, and scoring.
The rankers themselves (the paper's PageRank baseline and ours) live in ``rpg/rankers.py``.

Decisions where the paper is silent (recorded in every run's config):

* **GT papers absent from the candidate set** rank below every ranked paper, tied
  (``evaluate_rankings(missing="bottom")``): a retrieval miss must cost the ranker. BEM then
  requires every GT paper to be retrieved. ``KTau_found`` (policy ``drop``) is reported beside
  it so ordering quality can be read apart from recall.
* **CIS / CP for RPG**, by analogy with RPLM: an instance is *complete* when every GT paper is in
  the generated ranking; CIS = % complete; CP = % of GT pairs that are both ranked and in GT
  order, averaged over all leaderboards (all-pairs denominator, n < 2 → 0).
* **Unigrams**: the query's task, dataset and metric strings lower-cased and split on
  whitespace; the full-text dialect splits ``top-1`` into an AND group ``(top 1)``.
* **FT AND per paper**: a paper is a candidate when every unigram occurs in *some* chunk of it
  (not necessarily the same chunk): the paper's claim lives across sections.
* **Encoder**: the paper used SciBERT/SPECTER/SciNCL/OAG-BERT pooler outputs of
  ``title [SEP] abstract``; we use the bundled all-MiniLM-L6-v2 mean-pooled sentence embedding
  of ``title \\n abstract`` (the text ``scholarkg embed`` uses, so vectors are shared). A
  hashing bag-of-words embedder (:class:`HashingEmbedder`) is the cheap, documented option for
  tests and the 100k latency benchmark.
"""

from __future__ import annotations

import hashlib
import math
import re
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path

import numpy as np

from scholarkg.benchmark.metrics.ranking import concordant_pairs, evaluate_rankings
from scholarkg.errors import InputError
from scholarkg.schema.ddl import check_property, check_rel_type
from scholarkg.services.embeddings import (
    Embedder,
    node_text,
    property_name,
    text_hash,
    vector_index_for,
)
from scholarkg.store.base import GraphReader, GraphStore

TASK_NAME = "legobench-rpg"

#: ``progress(n_done, n_total)`` after each leaderboard
ProgressFn = Callable[[int, int], None]

#: full-text search depth: high enough to return every match on a 100k-paper corpus
FULLTEXT_LIMIT = 1_000_000
SPLITS = ("all", "dev", "test")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class RPGConfig:
    """One of the paper's four configurations: which graph, which text."""

    name: str
    rel_type: str  # CITES (AP-CN) or COMPARES_WITH (AP-PCN)
    text: str  # "tabs" (title + abstract) or "ft" (full-text chunks)

    @property
    def fulltext_index(self) -> str:
        return "paper_text" if self.text == "tabs" else "chunk_text"


CONFIGS: dict[str, RPGConfig] = {
    "cn-tabs": RPGConfig("cn-tabs", "CITES", "tabs"),
    "pcn-tabs": RPGConfig("pcn-tabs", "COMPARES_WITH", "tabs"),
    "cn-ft": RPGConfig("cn-ft", "CITES", "ft"),
    "pcn-ft": RPGConfig("pcn-ft", "COMPARES_WITH", "ft"),
}


def get_config(name: str) -> RPGConfig:
    try:
        return CONFIGS[name]
    except KeyError:
        raise InputError(
            f"unknown RPG configuration {name!r}; choose one of {', '.join(CONFIGS)}",
            field="config",
        ) from None


# --------------------------------------------------------------------------- queries


@dataclass(frozen=True)
class LeaderboardQuery:
    """What a ranker may see: the leaderboard key, never its entries (no leakage by type).

    ``id`` is the Leaderboard node's id (``ids.leaderboard_id`` for ground-truth files), the
    instance id RPLM and LGPLM use too, so per-leaderboard results join across the tasks.
    """

    id: str
    task: str
    dataset: str
    metric: str

    @property
    def text(self) -> str:
        return f"{self.task} {self.dataset} {self.metric}"

    @property
    def key(self) -> str:
        """``task|dataset|metric`` lower-cased: what the dev/test split hashes (see split_of)."""
        return leaderboard_key(self.task, self.dataset, self.metric)


@dataclass(frozen=True)
class RPGInstance:
    """A query with its ground truth (paper ids, best first); only scoring reads ``gold``."""

    query: LeaderboardQuery
    gold: tuple[str, ...]


def leaderboard_key(task: str, dataset: str, metric: str) -> str:
    """Case-insensitive identity of a leaderboard triple, independent of where it was read."""
    return f"{task.strip().lower()}|{dataset.strip().lower()}|{metric.strip().lower()}"


def read_ground_truth(path: str | Path) -> list[RPGInstance]:
    """RPG instances from ``leaderboards.jsonl``, read by the loader's one reader
    (:func:`scholarkg.loaders.legobench_graph.read_leaderboards`): same Leaderboard and Paper
    ids as the graph gets from ``scholarkg load leaderboards``."""
    from scholarkg.loaders.legobench_graph import read_leaderboards

    return [
        RPGInstance(LeaderboardQuery(gt.id, gt.task, gt.dataset, gt.metric), gt.papers)
        for gt in read_leaderboards(Path(path))
    ]


def leaderboards_from_graph(store: GraphReader) -> list[RPGInstance]:
    """Ground truth from ``(:Leaderboard)-[:HAS_ENTRY {gt_rank}]->(:Paper)`` (may be empty)."""
    out: list[RPGInstance] = []
    for row in store.run_named("legobench/rpg_leaderboards"):
        task, dataset, metric = row.get("task"), row.get("dataset"), row.get("metric")
        if not (task and dataset and metric):
            raise InputError(
                f"Leaderboard {row.get('id')!r} lacks task/dataset/metric", field="Leaderboard"
            )
        pairs = sorted(zip(row["ranks"], row["papers"], strict=True), key=lambda t: (t[0], t[1]))
        gold = tuple(dict.fromkeys(str(p) for _, p in pairs))
        query = LeaderboardQuery(str(row["id"]), str(task), str(dataset), str(metric))
        out.append(RPGInstance(query, gold))
    return out


def load_instances(store: GraphReader, ground_truth: str | Path | None = None) -> list[RPGInstance]:
    """``ground_truth`` file if given, else the graph's Leaderboard nodes."""
    if ground_truth is not None:
        return read_ground_truth(ground_truth)
    found = leaderboards_from_graph(store)
    if not found:
        raise InputError(
            "no Leaderboard entries in the graph; load leaderboards or pass --ground-truth "
            "leaderboards.jsonl",
            field="ground_truth",
        )
    return found


def split_of(query: LeaderboardQuery, *, seed: int = 0, dev_fraction: float = 0.5) -> str:
    """``dev`` or ``test``, from a hash of the seed and the leaderboard key (``query.key``).

    Hash-based, not positional: the split of a leaderboard does not depend on which other
    leaderboards were loaded or in which order, so the graph and the JSONL agree.
    """
    digest = hashlib.sha256(f"{seed}\x1f{query.key}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    return "dev" if u < dev_fraction else "test"


def select_split(
    instances: Sequence[RPGInstance], split: str, *, seed: int = 0, dev_fraction: float = 0.5
) -> list[RPGInstance]:
    if split not in SPLITS:
        raise InputError(f"unknown split {split!r}; choose one of {SPLITS}", field="split")
    if split == "all":
        return list(instances)
    return [
        i for i in instances if split_of(i.query, seed=seed, dev_fraction=dev_fraction) == split
    ]


# --------------------------------------------------------------------------- candidates


def query_unigrams(query: LeaderboardQuery) -> list[str]:
    """Lower-cased whitespace tokens of task, dataset and metric, first occurrence kept."""
    return list(dict.fromkeys(query.text.lower().split()))


def strict_candidates(store: GraphStore, query: LeaderboardQuery, config: RPGConfig) -> list[str]:
    """The paper's retrieval: papers containing every query unigram (sorted ids).

    TABS: one AND query on ``paper_text``. FT: one query per unigram on ``chunk_text``, chunks
    mapped to their papers, then intersected per paper (see module docstring).
    """
    terms = query_unigrams(query)
    if not terms:
        return []
    if config.text == "tabs":
        hits = store.fulltext("paper_text", terms, k=FULLTEXT_LIMIT, require_all=True)
        return sorted({h.id for h in hits})
    papers: set[str] | None = None
    for term in terms:
        chunk_ids = [h.id for h in store.fulltext("chunk_text", [term], k=FULLTEXT_LIMIT)]
        owners: set[str] = set()
        for start in range(0, len(chunk_ids), 20_000):
            rows = store.run_named(
                "legobench/rpg_chunk_papers", {"ids": chunk_ids[start : start + 20_000]}
            )
            owners.update(str(r["id"]) for r in rows)
        papers = owners if papers is None else papers & owners
        if not papers:
            return []
    return sorted(papers or ())


# --------------------------------------------------------------------------- embeddings


class HashingEmbedder:
    """Cheap deterministic embedder: hashed word uni+bigrams, L2-normalised.

    Not a language model. It exists so tests run in milliseconds and the 100k-paper latency
    benchmark does not spend hours in MiniLM on 2 CPU cores; it keeps the pipeline (vectors on
    nodes, cosine weights on edges, weighted PageRank) exactly the same. Lexical overlap is
    what its cosine measures. (scikit-learn's ``HashingVectorizer`` does the same but is not a
    declared dependency; CRC32 keeps buckets stable across processes, unlike ``hash()``.)
    """

    def __init__(self, dim: int = 256) -> None:
        if dim < 1:
            raise InputError("dim must be >= 1", field="dim")
        self.dim = dim
        self.name = f"hashing-{dim}"
        self.slug = f"hashing{dim}"

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            grams = words + [f"{a} {b}" for a, b in pairwise(words)]
            for gram in grams:
                out[row, zlib.crc32(gram.encode("utf-8")) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        out /= np.where(norms > 0, norms, 1.0)
        if progress is not None:
            progress(len(texts))
        return out


def load_rpg_embedder(name: str) -> Embedder:
    """``minilm`` (bundled all-MiniLM-L6-v2, the documented baseline encoder) or ``hashing``."""
    if name == "hashing":
        return HashingEmbedder()
    from scholarkg.services.embeddings import load_embedder

    # the model's own token limit: RPG's documented baseline encoder, not our speed default
    return load_embedder(name, native_length=True)


def weight_property(embedder: Embedder) -> str:
    """``w_<slug>``: the relationship property holding cosine weights of this encoder."""
    return check_property(f"w_{embedder.slug}")


class PaperVectors:
    """Paper vectors fetched lazily by id, cached in memory and on the nodes.

    Only the endpoints of edges among some query's candidates ever need a vector, so we
    embed those (not the whole corpus). Vectors are stored with ``<prop>_hash`` and
    ``<prop>_model`` exactly as ``services.embeddings.embed_nodes`` writes them, so the two
    share one cache: a later ``scholarkg embed`` skips them and vice versa.
    """

    def __init__(self, store: GraphStore, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.prop = property_name(embedder)
        self._cache: dict[str, np.ndarray] = {}
        self._index_ready = False
        self.n_encoded = 0

    def get(self, ids: Iterable[str]) -> dict[str, np.ndarray]:
        wanted = [i for i in dict.fromkeys(ids) if i not in self._cache]
        if wanted:
            self._fetch(wanted)
        return {i: self._cache[i] for i in ids if i in self._cache}

    def _fetch(self, ids: list[str]) -> None:
        p = self.prop
        rows = self.store.run_named("legobench/rpg_paper_vectors", {"ids": ids}, prop=p)
        todo: list[tuple[str, str, str]] = []
        for row in rows:
            text = node_text([row["title"], row["abstract"]])
            h = text_hash(text)
            if row["v"] is not None and row["h"] == h and row["m"] == self.embedder.name:
                self._cache[str(row["id"])] = np.asarray(row["v"], dtype=np.float32)
            elif text:
                todo.append((str(row["id"]), text, h))
        if not todo:
            return
        vecs = self.embedder.encode([t for _, t, _ in todo], batch_size=64)
        if not self._index_ready:
            self.store.ensure_vector_index(vector_index_for("Paper", self.embedder))
            self._index_ready = True
        extra = {i: {f"{p}_hash": h, f"{p}_model": self.embedder.name} for i, _, h in todo}
        self.store.set_vectors(
            "Paper", p, [(i, v.tolist()) for (i, _, _), v in zip(todo, vecs, strict=True)],
            extra=extra,
        )  # fmt: skip
        for (i, _, _), v in zip(todo, vecs, strict=True):
            self._cache[i] = np.asarray(v, dtype=np.float32)
        self.n_encoded += len(todo)


def ensure_edge_weights(
    store: GraphStore,
    rel_type: str,
    node_ids: Sequence[str],
    vectors: PaperVectors,
) -> int:
    """Store ``w_<slug>`` = cosine(embedding(a), embedding(b)) on ``rel_type`` edges among
    ``node_ids`` that lack it; returns how many edges were written.

    Query-independent, so each edge is weighted once and reused by every later query and
    run (idempotent: a second call writes nothing). Papers without text get no vector; their
    edges keep no weight, which PageRank reads as 1.0 (GDS default for a missing property is
    the ``defaultValue``; we coalesce to 1.0 in ``edge_snapshot``) — documented, rare.
    """
    check_rel_type(rel_type)
    wp = weight_property(vectors.embedder)
    members = set(node_ids)
    todo: list[tuple[str, str]] = []
    for start in range(0, len(node_ids), 10_000):
        page = list(node_ids[start : start + 10_000])
        rows = store.run_named(
            "legobench/rpg_unweighted_edges", {"ids": page}, rel_type=rel_type, weight=wp
        )
        todo.extend((str(r["s"]), str(r["t"])) for r in rows if str(r["t"]) in members)
    if not todo:
        return 0
    vecs = vectors.get([x for pair in todo for x in pair])
    rows_out = []
    for s, t in todo:
        if s in vecs and t in vecs:
            w = float(np.dot(vecs[s], vecs[t]))
            rows_out.append({"s": s, "t": t, "w": max(-1.0, min(1.0, w))})
    if not rows_out:
        return 0
    return store.write_named(
        "legobench/rpg_set_edge_weights", rows_out, batch_size=5_000, rel_type=rel_type, weight=wp
    )


# --------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class RPGScores:
    """RPG metrics; BEM, CIS and CP in %, KTau Kendall τ-b (mean over defined instances)."""

    metrics: dict[str, float | None]
    per_instance: dict[str, dict[str, float | None]] = field(default_factory=dict)


def score_rpg(
    instances: Sequence[RPGInstance], predictions: Mapping[str, Sequence[str]]
) -> RPGScores:
    """BEM / KTau (``missing="bottom"``), KTau_found (``drop``), CIS and CP per module doc."""
    gold = [list(i.gold) for i in instances]
    pred = [list(predictions.get(i.query.id, [])) for i in instances]
    bottom = evaluate_rankings(gold, pred, missing="bottom")
    drop = evaluate_rankings(gold, pred, missing="drop")
    per: dict[str, dict[str, float | None]] = {}
    n_complete = 0
    cps: list[float] = []
    for inst, p, rb, rd in zip(
        instances, pred, bottom.per_instance, drop.per_instance, strict=True
    ):
        rank = {x: r for r, x in enumerate(dict.fromkeys(p))}
        positions = [rank.get(x, -1) for x in inst.gold]
        complete = all(pos >= 0 for pos in positions)
        n_complete += complete
        cp = 100.0 * concordant_pairs(positions)
        cps.append(cp)
        per[inst.query.id] = {
            "BEM": 100.0 if rb["exact"] else 0.0,
            "KTau": None if math.isnan(rb["ktau"]) else rb["ktau"],
            "KTau_found": None if math.isnan(rd["ktau"]) else rd["ktau"],
            "CIS": 100.0 if complete else 0.0,
            "CP": cp,
            "recall": rb["found"] / rb["n"] if rb["n"] else None,
        }
    n = len(instances)
    recalls = [v["recall"] for v in per.values() if v["recall"] is not None]
    metrics: dict[str, float | None] = {
        "BEM": bottom.bem,
        "KTau": bottom.ktau,
        "KTau_found": drop.ktau,
        "CIS": 100.0 * n_complete / n if n else 0.0,
        "CP": sum(cps) / n if n else 0.0,
        "recall": sum(recalls) / len(recalls) if recalls else None,
        "n_leaderboards": float(n),
    }
    return RPGScores(metrics=metrics, per_instance=per)

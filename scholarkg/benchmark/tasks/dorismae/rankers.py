"""DORIS-MAE rankers under the shared :class:`~scholarkg.benchmark.rankers.base.Ranker` interface.

Every ranker re-ranks a candidate pool (``candidates`` = abstract ids) for a query text and
returns the *whole* pool (NDCG_10%'s cut-off is a share of the submitted length).

Reproduction baselines, configured as the DORIS-MAE paper (Wang et al., arXiv 2310.04678),
baselines; ``Real-Doris-Mae/Doris-Mae-Dataset:benchmarking/`` describes:

* :class:`UpstreamRandomRanker` — ``random.seed(t)`` then one shuffle per query in order,
  over the pool minus the excluded abstracts (trial ``t``; the task averages 100 trials);
* :class:`PoolBM25Ranker` — rank-bm25's BM25Okapi (k1 1.5, b 0.75, epsilon 0.25)
  **indexed per pool**, case-sensitive tokens with punctuation kept, no stemming, abstracts
  cleaned (URLs, ``\\n``, ``$``). NLTK's ``word_tokenize`` needs punkt data (a network
  download), so the tokenizer is the regex ``\\w+|[^\\w\\s]`` (words and single
  punctuation marks), which differs from NLTK on contractions and some symbols;
* :class:`PoolTfidfRanker` — scikit-learn ``TfidfVectorizer()`` defaults fitted per pool,
  cosine;
* :class:`VectorRanker` — dense whole-query cosine over stored abstract vectors;
* :class:`SentenceMaxSimRanker` — Eq. 4: mean over query sentences of the max cosine over
  abstract sentences (sentences shorter than 5 characters dropped).

Ours:

* :class:`AspectRanker` — one score per unit (aspect and sub-aspect), each normalised to
  [0, 1] over the pool, **summed over the units**: the shape of S(p|Q), a sum of per-unit
  grades. Lexical (per-unit BM25) or dense (per-unit max over abstract sentences).
* :class:`GraphRerankRanker` — personalized PageRank (``store.pagerank.personalized_pagerank``, GDS
  semantics) over the citation graph of the pool, seeded by the base ranker's top hits
  weighted by their scores, added to the base score.
* hybrid RRF (the shared ``rankers.fusion.RunFusion``) and the cross-fitted CombSUM
  (``task.CrossFittedFusion``) rank whole runs; ``task.RankerKit`` builds them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from scholarkg.benchmark.metrics.dorismae import EXCLUDED_ABSTRACTS
from scholarkg.benchmark.rankers.base import Ranker
from scholarkg.benchmark.rankers.bm25 import TokenizerConfig
from scholarkg.benchmark.rankers.fusion import min_max_rows
from scholarkg.errors import InputError

_URL = re.compile(r"https?://\S+|www\.\S+")
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+")
#: words and single punctuation marks, case kept (offline stand-in for NLTK word_tokenize)
UPSTREAM_TOKENIZER = TokenizerConfig(lower=False, pattern=r"\w+|[^\w\s]", stopwords=None)


def clean_abstract(text: str) -> str:
    """Upstream's pre-cleaning for lexical baselines: URLs removed, newlines, ``$`` removed."""
    return _URL.sub("", text).replace("\n", " ").replace("$", "")


def split_sentences(text: str, *, min_chars: int = 5) -> list[str]:
    """Sentences on ``.!?`` + whitespace; shorter than ``min_chars`` dropped (upstream rule).

    A regex, not NLTK's punkt (a network download): abbreviations split too early.
    """
    out = [s.strip() for s in _SENT_SPLIT.split(text)]
    return [s for s in out if len(s) >= min_chars] or [text.strip()]


def _whole_pool(cands: Sequence[str], scores: np.ndarray, k: int) -> tuple[list[str], list[float]]:
    """Score descending, ties by pool order (the Ranker ordering rule), top ``k``."""
    order = np.lexsort((np.arange(len(cands)), -scores))[:k]
    return [cands[i] for i in order], [float(scores[i]) for i in order]


def _need_candidates(candidates: Sequence[str] | None, name: str) -> Sequence[str]:
    if candidates is None:
        raise InputError(f"ranker {name!r} re-ranks a candidate pool; give candidates")
    return candidates


class UpstreamRandomRanker(Ranker[str]):
    """Trial ``seed`` of upstream's random baseline; call it for the queries *in order*."""

    name = "random"

    def __init__(self, seed: int = 0) -> None:
        self._rng = random.Random(seed)
        super().__init__({"seed": seed, "protocol": "upstream: seed(t), shuffle per query"})

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        template = [
            c for c in _need_candidates(candidates, self.name) if c not in EXCLUDED_ABSTRACTS
        ]
        self._rng.shuffle(template)
        n = len(template)
        return template[:k], [float(n - i) for i in range(min(k, n))]


class PoolBM25Ranker(Ranker[str]):
    """BM25Okapi built per pool (the DORIS-MAE paper (Wang et al., arXiv 2310.04678), baselines;
    ``Real-Doris-Mae/Doris-Mae-Dataset:benchmarking/``); ``texts`` maps abstract id -> text.

    Scoring is ``rank_bm25.BM25Okapi`` itself (k1 1.5, b 0.75, epsilon 0.25): the upstream
    implementation, including its idf floor for terms in more than half the pool, which
    bm25s' variants do not reproduce. bm25s is the faster choice for one big index; for
    100 pools of ~110 abstracts the pure-Python BM25Okapi is faster (no index setup), and
    a pool's index is kept while several queries (aspect-wise scoring) ask the same pool.
    """

    name = "bm25"

    def __init__(self, texts: Mapping[str, str], *, tokenizer: TokenizerConfig | None = None):
        self.texts = texts
        self.tokenizer = tokenizer or UPSTREAM_TOKENIZER
        self._tokenize = self.tokenizer.tokenizer()
        self._tokens: dict[str, list[str]] = {}
        self._pool_key: tuple[str, ...] | None = None
        self._pool_index: Any = None
        super().__init__(
            {
                "variant": "rank_bm25.BM25Okapi k1=1.5 b=0.75 epsilon=0.25, one index per pool",
                "tokenizer": self.tokenizer.summary(),
            }
        )

    def _index(self, cands: Sequence[str]) -> Any:
        from rank_bm25 import BM25Okapi

        key = tuple(cands)
        if key != self._pool_key:
            docs = []
            for c in cands:
                if c not in self._tokens:
                    self._tokens[c] = self._tokenize(clean_abstract(self.texts[c]))
                docs.append(self._tokens[c] or [""])  # rank_bm25 divides by doc length
            self._pool_key, self._pool_index = key, BM25Okapi(docs)
        return self._pool_index

    def pool_scores(self, query: str, cands: Sequence[str]) -> np.ndarray:
        return np.asarray(self._index(cands).get_scores(self._tokenize(query)), dtype=np.float64)

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        cands = list(_need_candidates(candidates, self.name))
        return _whole_pool(cands, self.pool_scores(query, cands), k)


class PoolTfidfRanker(Ranker[str]):
    """scikit-learn ``TfidfVectorizer()`` (defaults) fitted on each pool; cosine."""

    name = "tfidf"

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = texts
        super().__init__({"vectorizer": "sklearn TfidfVectorizer() per pool", "cleaned": True})

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        try:
            from sklearn.feature_extraction.text import TfidfVectorizer
        except ImportError as err:  # pragma: no cover - part of the embed extra
            raise InputError(
                "the tfidf ranker needs scikit-learn (pip install scikit-learn)"
            ) from err
        cands = list(_need_candidates(candidates, self.name))
        vec = TfidfVectorizer()
        docs = vec.fit_transform([clean_abstract(self.texts[c]) for c in cands])
        q = vec.transform([query])
        scores = np.asarray((docs @ q.T).todense()).ravel()
        return _whole_pool(cands, scores, k)


class VectorStore:
    """Unit-length vectors of abstracts (whole text) and of their sentences, by abstract id.

    Abstract vectors are encoded once per run (every pool abstract); sentence vectors only
    when a sentence-level ranker first asks for them (:attr:`sent`). Rankers then score from
    these stored vectors; the benchmark times encoding and ranking separately.
    """

    def __init__(
        self,
        embedder: Any,
        texts: Mapping[str, str],
        *,
        batch_size: int = 64,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.embedder = embedder
        self.texts = texts
        self.batch_size = batch_size
        ids = list(texts)
        self.pos = {d: i for i, d in enumerate(ids)}
        self.doc = embedder.encode(
            [texts[d] for d in ids], batch_size=batch_size, progress=progress
        )
        self._sent: dict[str, np.ndarray] | None = None
        self._cache: dict[str, np.ndarray] = {}

    @property
    def sent(self) -> dict[str, np.ndarray]:
        """Abstract id -> its sentences' vectors (encoded on first use)."""
        if self._sent is None:
            flat: list[str] = []
            spans: list[tuple[str, int, int]] = []
            for d in self.texts:
                s = split_sentences(self.texts[d])
                spans.append((d, len(flat), len(flat) + len(s)))
                flat += s
            mat = self.embedder.encode(flat, batch_size=self.batch_size)
            self._sent = {d: mat[a:b] for d, a, b in spans}
        return self._sent

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            for t, v in zip(missing, self.embedder.encode(missing), strict=True):
                self._cache[t] = np.asarray(v, dtype=np.float32)
        out: np.ndarray = np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 1))
        return out

    def doc_matrix(self, cands: Sequence[str]) -> np.ndarray:
        try:
            rows: np.ndarray = self.doc[[self.pos[c] for c in cands]]
            return rows
        except KeyError as err:
            raise InputError(f"abstract {err.args[0]!r} has no vector") from err


class VectorRanker(Ranker[str]):
    """Dense whole-query cosine against stored abstract vectors."""

    name = "dense"

    def __init__(self, vectors: VectorStore) -> None:
        self.vectors = vectors
        super().__init__({"model": vectors.embedder.name, "similarity": "cosine"})

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        cands = list(_need_candidates(candidates, self.name))
        q = self.vectors.encode_queries([query])[0]
        return _whole_pool(cands, self.vectors.doc_matrix(cands) @ q, k)


class SentenceMaxSimRanker(Ranker[str]):
    """Eq. 4: mean over query sentences of the max cosine over the abstract's sentences."""

    name = "sentence-maxsim"

    def __init__(self, vectors: VectorStore) -> None:
        self.vectors = vectors
        super().__init__({"model": vectors.embedder.name, "aggregate": "mean_q max_a cos"})

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        cands = list(_need_candidates(candidates, self.name))
        qs = self.vectors.encode_queries(split_sentences(query))
        scores = np.array([float((self.vectors.sent[c] @ qs.T).max(axis=0).mean()) for c in cands])
        return _whole_pool(cands, scores, k)


class AspectRanker(Ranker[str]):
    """Ours: sum over the query's units of a per-unit score normalised over the pool.

    ``units`` maps a query text to its unit texts (aspects and sub-aspects, distinct), as
    the graph stores them. ``mode="bm25"``: per-unit BM25 over the pool; ``"dense"``: per
    unit, the max cosine over the abstract's sentences; ``"both"``: the two summed.
    Normalising each unit to [0, 1] keeps one over-matched unit from outweighing the rest,
    which is how a distractor abstract (one aspect, many query words) fools whole-query
    scoring; relevance is the sum of per-unit grades, so the sum is the matching aggregate.
    """

    def __init__(
        self,
        units: Mapping[str, Sequence[str]],
        *,
        mode: str = "bm25",
        texts: Mapping[str, str] | None = None,
        vectors: VectorStore | None = None,
    ) -> None:
        if mode not in ("bm25", "dense", "both"):
            raise InputError(f"unknown aspect mode {mode!r}", field="mode")
        if mode != "dense" and texts is None:
            raise InputError("the lexical aspect ranker needs the abstracts' texts")
        if mode != "bm25" and vectors is None:
            raise InputError("the dense aspect ranker needs abstract vectors")
        self.units = units
        self.mode = mode
        self.texts = texts
        self.vectors = vectors
        self.name = f"aspect-{mode}"
        self._bm25 = PoolBM25Ranker(texts, tokenizer=TokenizerConfig()) if texts else None
        super().__init__(
            {
                "mode": mode,
                "aggregate": "sum over units of min-max(unit score)",
                "bm25_tokenizer": "lower-cased, stopwords removed",
            }
        )

    def unit_scores(self, query: str, cands: Sequence[str]) -> np.ndarray:
        units = list(self.units.get(query) or [])
        if not units:
            raise InputError(f"no aspects stored for query {query[:60]!r}…")
        parts = []
        if self.mode in ("bm25", "both"):
            assert self._bm25 is not None
            parts.append(np.stack([self._bm25.pool_scores(u, cands) for u in units]))
        if self.mode in ("dense", "both"):
            assert self.vectors is not None
            uv = self.vectors.encode_queries(units)
            parts.append(np.stack([(self.vectors.sent[c] @ uv.T).max(axis=0) for c in cands]).T)
        # __init__ checked the mode, so parts holds one or two matrices and the sum is an array
        return cast(np.ndarray, sum(min_max_rows(p) for p in parts))

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        cands = list(_need_candidates(candidates, self.name))
        return _whole_pool(cands, self.unit_scores(query, cands).sum(axis=0), k)


class GraphRerankRanker(Ranker[str]):
    """Ours: base score + ``weight`` x personalized PageRank seeded by the base's top hits.

    ``citations`` maps an abstract id to the abstract ids it cites (within the loaded
    corpus). The graph is the pool plus the citations among its members, undirected
    (both directions, so a seed spreads to what it cites and to what cites it). Seeds are
    the base ranker's top ``seeds`` abstracts with bias = their min-max base score.
    """

    def __init__(
        self,
        base: Ranker[str],
        citations: Mapping[str, Sequence[str]],
        *,
        seeds: int = 10,
        weight: float = 0.5,
        damping: float = 0.85,
    ) -> None:
        self.base = base
        self.citations = citations
        self.seeds = seeds
        self.weight = weight
        self.damping = damping
        self.name = f"graph-ppr({base.name})"
        super().__init__(
            {
                "base": base.name,
                "seeds": seeds,
                "weight": weight,
                "damping": damping,
                "graph": "pool citations, undirected",
            }
        )

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        from scholarkg.store.pagerank import personalized_pagerank, transition_operator

        cands = list(_need_candidates(candidates, self.name))
        base = self.base.rank(query, len(cands), candidates=cands)
        pos = {c: i for i, c in enumerate(cands)}
        b = np.zeros(len(cands))
        for d, s in zip(base.ids, base.scores, strict=True):
            b[pos[d]] = s
        b = min_max_rows(b[None, :])[0]
        src, dst = [], []
        for c in cands:
            for t in self.citations.get(c, ()):
                if t in pos and t != c:
                    src += [pos[c], pos[t]]
                    dst += [pos[t], pos[c]]
        seeds = {pos[d]: max(float(b[pos[d]]), 1e-6) for d in base.ids[: self.seeds]}
        graph = transition_operator(
            len(cands), np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
        )
        reached, mass = personalized_pagerank(graph.senders(), seeds, damping_factor=self.damping)
        ppr = np.zeros(len(cands))
        ppr[reached] = mass
        p = min_max_rows(ppr[None, :])[0]
        return _whole_pool(cands, b + self.weight * p, k)

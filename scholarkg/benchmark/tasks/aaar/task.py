"""What the four AAAR-1.0 / ReviewCritique tasks share: options, the similarity encoder, word
budgets, model calls and paper context read from the graph (sections, related work).

Word budgets count whitespace-separated words; the released scripts count NLTK word tokens
(punctuation separate) for ExpDesign and Weakness and ``str.split`` words for EqInfer, so
our ExpDesign/Weakness budgets hold slightly more text per word count (NLTK is not a
dependency; the difference is stated in the README).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from scholarkg.benchmark.metrics.similarity import (
    AAAR_ITF_IDF_MODEL,
    Encoder,
    SentenceTransformerEncoder,
    default_encoder,
)
from scholarkg.benchmark.runner import predictions_model
from scholarkg.benchmark.task import BenchmarkTask, StageProgress, TaskOption
from scholarkg.services.prompts import PromptTemplate, task_prompt

if TYPE_CHECKING:
    from scholarkg.services.llm import LLMClient
    from scholarkg.store.base import GraphReader

log = logging.getLogger(__name__)

PACKAGE = "scholarkg.benchmark.tasks.aaar"
FAMILY = "aaar"
REFERENCE = "Lou et al. arXiv 2410.22394 v1; Du et al. EMNLP 2024"

SIMILARITY_OPTION = TaskOption(
    "similarity_model", Path, None,
    "local sentence-transformers model directory for S-*/SN-* (default: the bundled "
    "all-MiniLM-L6-v2; the paper used all-mpnet-base-v2, not installable offline)",
)  # fmt: skip
MODEL_OPTIONS = (
    TaskOption("max_tokens", int, 512, "generation limit per call"),
    TaskOption(
        "concurrency",
        int,
        None,
        "model requests in flight (default: SCHOLARKG_LLM_CONCURRENCY, else 1)",
    ),
)
RELATED_OPTIONS = (
    TaskOption("related_work", bool, False,
               "add cited and citing papers (title + abstract) from the graph to the context "
               "(named queries aaar/related_cited, aaar/related_citing)"),
    TaskOption("related_k", int, 3, "related papers per direction when --related-work"),
    TaskOption("related_words", int, 60, "words kept of each related paper's abstract"),
)  # fmt: skip


def head_words(text: str, n: int) -> str:
    """The first ``n`` whitespace-separated words."""
    return " ".join(text.split()[:n])


def tail_words(text: str, n: int) -> str:
    """The last ``n`` whitespace-separated words (EqInfer's context before the equation)."""
    words = text.split()
    return " ".join(words[-n:]) if n > 0 else ""


def split_words(text: str, window: int) -> list[str]:
    """Weakness split: ``len // window + 1`` pieces of equal size, as released (so a 3,000-word
    window over 3,100 words gives two pieces of 1,550)."""
    words = text.split()
    pieces = len(words) // window + 1
    size = len(words) // pieces + 1
    return [" ".join(words[i * size : (i + 1) * size]) for i in range(pieces)
            if words[i * size : (i + 1) * size]]  # fmt: skip


class MetricEncoderEmbedder:
    """The metrics' sentence-transformers encoder as a service :class:`Embedder`, so the
    vector file cache (``services.embeddings.CachingEmbedder``) can stand in front of it.

    Why not the service's own MiniLM: the AAAR scores reproduce the released scripts with the
    metric encoder's batching; behind the cache its vectors are exactly the ones it computes
    (float32 rows, stored as they are), only computed once per text across runs.
    """

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.name = f"{encoder.name}+aaar-metric"
        self.slug = "aaar_metric"
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._dim = int(self.encoder.encode(["dimension probe"]).shape[1])
        return self._dim

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, progress: Any = None) -> Any:
        # one call, as the metric encoder batches it (batch_size is the cache's, unused here)
        vectors = self.encoder.encode(list(texts))
        if progress is not None:
            progress(len(texts))
        return vectors


def cached_default_encoder() -> Encoder:
    """The bundled metric encoder behind the vector file cache of ``$SCHOLARKG_HOME``: a
    weakness or experiment text is encoded once, and every later run or rescore reads it."""
    from scholarkg.config import load_settings

    return cast(Encoder, _cached_default(load_settings().cache_dir))


@functools.cache
def _cached_default(cache_dir: Path) -> Any:
    from scholarkg.services.embeddings import CachingEmbedder

    return CachingEmbedder(MetricEncoderEmbedder(default_encoder()), cache_dir)  # type: ignore[arg-type]  # duck-typed Embedder


class AaarTaskBase(BenchmarkTask):
    """Base of the four tasks: an injectable encoder (tests), model calls, graph context."""

    family = FAMILY
    reference = REFERENCE
    answer_kinds = frozenset({"model", "predictions"})
    scores_files = True
    predictions_folder_is_one_run = True

    def __init__(self, encoder: Encoder | None = None, itf_encoder: Encoder | None = None) -> None:
        self._encoder = encoder
        self._itf_encoder = itf_encoder

    # -- encoders ------------------------------------------------------------------------
    def encoder(self, options: Mapping[str, Any]) -> tuple[Encoder, str]:
        """The similarity encoder and the name the run records for it."""
        if self._encoder is not None:
            return self._encoder, str(getattr(self._encoder, "name", type(self._encoder).__name__))
        path = options.get("similarity_model")
        if path:
            enc = SentenceTransformerEncoder(path)
            return enc, str(path)
        return cached_default_encoder(), f"{AAAR_ITF_IDF_MODEL} (bundled)"

    def itf_encoder(self, options: Mapping[str, Any]) -> tuple[Encoder, str]:
        """ITF-IDF's encoder: the released script's all-MiniLM-L6-v2 (bundled) by default."""
        if self._itf_encoder is not None:
            enc = self._itf_encoder
            return enc, str(getattr(enc, "name", type(enc).__name__))
        if self._encoder is not None:
            return self.encoder(options)
        path = options.get("itf_idf_model")
        if path:
            return SentenceTransformerEncoder(path), str(path)
        return cached_default_encoder(), f"{AAAR_ITF_IDF_MODEL} (bundled)"

    # -- prompts and model calls -----------------------------------------------------------
    @staticmethod
    def prompt(name: str) -> PromptTemplate:
        return task_prompt(PACKAGE, name)

    @staticmethod
    def generate(
        client: LLMClient,
        prompts: Sequence[str],
        options: Mapping[str, Any],
        *,
        stage: str,
        progress: StageProgress | None = None,
    ) -> tuple[list[str], dict[str, Any]]:
        """Replies in input order (temperature 0) and what this call spent."""
        before = client.usage.as_dict()

        def tick(done: int) -> None:
            if progress is not None:
                progress(stage, done, len(prompts))

        done = client.complete_many(
            list(prompts), mode="chat", concurrency=options.get("concurrency"),
            progress=tick, temperature=0.0, max_tokens=int(options.get("max_tokens", 512)),
        )  # fmt: skip
        after = client.usage.as_dict()
        return [c.text for c in done], {k: after[k] - before[k] for k in after}

    # -- graph context ---------------------------------------------------------------------
    @staticmethod
    def sections(store: GraphReader, paper_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
        rows = store.run_named("aaar/paper_sections", {"ids": list(paper_ids)})
        out: dict[str, list[dict[str, Any]]] = {p: [] for p in paper_ids}
        for r in rows:
            out.setdefault(r["paper"], []).append(r)
        return out

    @staticmethod
    def related_work(
        store: GraphReader, paper_ids: Sequence[str], options: Mapping[str, Any]
    ) -> dict[str, str]:
        """A short "Related work" block per paper from its cited and citing papers."""
        if not options.get("related_work"):
            return {}
        k, words = int(options["related_k"]), int(options["related_words"])
        blocks: dict[str, list[str]] = {p: [] for p in paper_ids}
        for name, label in (("aaar/related_cited", "cites"), ("aaar/related_citing", "cited by")):
            seen: dict[str, int] = {}
            for r in store.run_named(name, {"ids": list(paper_ids)}):
                if seen.get(r["paper"], 0) >= k:
                    continue
                seen[r["paper"]] = seen.get(r["paper"], 0) + 1
                abstract = head_words(r.get("abstract") or "", words)
                blocks[r["paper"]].append(f"- ({label}) {r['title']}: {abstract}".rstrip(": "))
        return {p: "Related work:\n" + "\n".join(b) for p, b in blocks.items() if b}


def file_models(path: Path | None) -> dict[str, str]:
    """``{"llm": model}`` when a JSONL predictions file names its model (files written by
    ``bench run`` do), so records and score headers say what produced the answers."""
    model = predictions_model(path)
    return {"llm": model} if model else {}


def match_ids(
    predictions: Mapping[str, Any], aliases: Mapping[str, Sequence[str]], *, what: str
) -> dict[str, Any]:
    """Predictions re-keyed by instance id; ``aliases[iid]`` lists the ids a file may use.

    None matching at all means the file is for other data: an error rather than all zeros.
    """
    from scholarkg.errors import InputError

    lookup = {alias: iid for iid, names in aliases.items() for alias in (iid, *names)}
    out: dict[str, Any] = {}
    for pid, value in predictions.items():
        iid = lookup.get(str(pid))
        if iid is not None:
            out[iid] = value
    if predictions and not out:
        shown = ", ".join(repr(p) for p in list(predictions)[:3])
        raise InputError(f"none of the {len(predictions)} prediction ids ({shown}...) is a "
                         f"{what} of the data", field="id")  # fmt: skip
    missing = len(aliases) - len(out)
    if missing:
        log.warning("%d %s(s) have no prediction: scored as empty answers", missing, what)
    return out

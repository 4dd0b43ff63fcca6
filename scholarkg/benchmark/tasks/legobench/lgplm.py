"""LEGOBench LGPLM as a runnable task: retrieve passages, generate a leaderboard table, score it.

LGPLM (the LEGOBench paper (Singh et al., arXiv 2401.06233), task definitions) asks a model to
write the leaderboard for a query
⟨task, dataset, metric⟩ as a markdown table of (method, score), given the top-10 BM25
passages of the leaderboard papers' full text. The pieces:

* **Instances** from the graph: each ``Leaderboard`` (``lgplm_leaderboards``), its papers
  (``lgplm_leaderboard_papers``: via ``HAS_ENTRY``, rplm TitleLines or PwC Results), their
  ``Chunk`` passages (``lgplm_chunks``, written by ``loaders/apc.py``). BM25 (bm25s, through
  :class:`~scholarkg.benchmark.rankers.bm25.BM25Ranker`) ranks the leaderboard's own passages
  for the query ``"<task> <dataset> <metric>"``; the top ``k`` (default 10) form the context
  in BM25 order. The index is built per leaderboard, as the release retrieves per document
  key, so idf comes from that leaderboard's passages.
* **Prompt**: ``prompts/lgplm.txt`` (our wording, the release's structure: ``Excerpt: <context>``
  then the instruction and question, ending ``Output:``). The release cut the context to the
  model's context length minus the prompt (2048 Falcon/Galactica, 4096 Llama 2/Vicuna, 8000
  Mistral, 16384 Zephyr); ``max_context_tokens`` does the same with an approximate tokenizer
  (words and punctuation marks; a model tokenizer usually counts more), recorded in the run.
* **Generation**: completion mode, T=0.1, top_p 0.95, max 1600 tokens and the release's stop
  strings (:class:`LGPLMSettings`); or answers imported from JSONL ``{"id", "answer"}`` or a
  released ``*_ldb`` workbook.
* **Gold**: (method, score) per leaderboard from the graph's ``Result`` nodes, or from a
  ``leaderboards.jsonl`` file (``task, dataset, metric, methods, scores``) when given.
* **Scores**: MR, MP and both SP variants from ``metrics/extraction.py``. The paper gives no
  scoring code, so name normalisation and score tolerance are explicit options and every run
  is labelled *not comparable to the paper*.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from scholarkg.benchmark.metrics.extraction import (
    ExtractionScores,
    ScoreTolerance,
    evaluate_leaderboard_tables,
)
from scholarkg.benchmark.task import StageProgress
from scholarkg.benchmark.tasks.legobench.rplm import PROMPT_PACKAGE, RPLMSettings
from scholarkg.errors import InputError
from scholarkg.services.prompts import PromptTemplate, task_prompt

if TYPE_CHECKING:
    from scholarkg.benchmark.rankers.bm25 import BM25Params
    from scholarkg.store.base import GraphReader

log = logging.getLogger(__name__)

TASK_ID = "legobench-lgplm"
RUN_TASK = TASK_ID  # runs are recorded under the task name
#: stop strings of the release's LGPLM generation script (a protocol setting, not prompt text)
RELEASE_STOP = ("Question:", "\n\n\n\n", "| --- | --- | --- | --- | --- | ", "| | | |")
AVERAGES = ("micro", "macro")
_APPROX_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class LGPLMSettings:
    """Generation settings; defaults follow the release (T=0.1, top_p 0.95, 1600 tokens)."""

    mode: Literal["completion", "chat"] = "completion"
    temperature: float = 0.1
    top_p: float = 0.95
    max_tokens: int | None = 1600
    stop: tuple[str, ...] = RELEASE_STOP
    seed: int | None = None
    #: requests in flight; ``None``: the client's (``--concurrency``, SCHOLARKG_LLM_CONCURRENCY)
    concurrency: int | None = None

    def as_rplm(self) -> RPLMSettings:
        """The same settings in the shape :func:`generate_answers` takes."""
        return RPLMSettings(**asdict(self))

    def generation(self) -> dict[str, Any]:
        """Keyword arguments for ``LLMClient.complete_many`` (as RPLM's)."""
        return self.as_rplm().generation()


@dataclass(frozen=True)
class RetrievedChunk:
    """One passage in the context: its Chunk id, paper, BM25 score and text."""

    id: str
    paper_id: str
    score: float
    text: str


@dataclass(frozen=True)
class LGPLMPrompt:
    """One LGPLM instance: query, retrieved passages, the prompt and the gold leaderboard."""

    id: str
    task: str
    dataset: str
    metric: str
    query: str
    chunks: list[RetrievedChunk]
    prompt: str
    gold: list[tuple[str, float]]
    paper_ids: list[str] = field(default_factory=list)
    context_truncated: bool = False


def lgplm_template() -> PromptTemplate:
    """The packaged LGPLM prompt template (``prompts/lgplm.txt``)."""
    return task_prompt(PROMPT_PACKAGE, "lgplm")


def approx_tokens(text: str) -> int:
    """Approximate token count: words and single punctuation marks (no model tokenizer here)."""
    return len(_APPROX_TOKEN.findall(text))


def crop_to_tokens(text: str, budget: int) -> tuple[str, bool]:
    """``text`` cut after its first ``budget`` approximate tokens; ``(text, was_cut)``."""
    if budget <= 0:
        return "", bool(text)
    for n, m in enumerate(_APPROX_TOKEN.finditer(text), start=1):
        if n == budget:
            return text[: m.end()], m.end() < len(text.rstrip())
    return text, False


def read_gold_file(path: str | Path) -> dict[str, list[tuple[str, float]]]:
    """``{leaderboard id: [(method, score)]}`` from ``leaderboards.jsonl``, best first.

    Read by the loader's one reader (:func:`~scholarkg.loaders.legobench_graph.read_leaderboards`:
    same ids and checks as ``scholarkg load leaderboards``); LGPLM additionally needs the
    ``methods`` list (a missing score is NaN: never matched).
    """
    from scholarkg.loaders.legobench_graph import read_leaderboards

    out: dict[str, list[tuple[str, float]]] = {}
    for gt in read_leaderboards(path, require_ranking=False):
        if not gt.methods:
            raise InputError("must be a list of strings", path=path, line=gt.line,
                             field="methods")  # fmt: skip
        if not gt.scores:
            raise InputError(f"must be a list as long as methods ({len(gt.methods)})",
                             path=path, line=gt.line, field="scores")  # fmt: skip
        out[gt.id] = [
            (m, math.nan if s is None else s) for m, s in zip(gt.methods, gt.scores, strict=True)
        ]
    return out


def _gold_from_graph(store: GraphReader, ids: Sequence[str]) -> dict[str, list[tuple[str, float]]]:
    """Gold per leaderboard: ground-truth HAS_ENTRY rows if it has any, else its Results."""
    entries: dict[str, list[tuple[Any, str, str, float]]] = {}
    results: dict[str, list[tuple[Any, str, str, float]]] = {}
    for r in store.run_named("legobench/lgplm_gold", {"ids": list(ids)}):
        score = r["score"]
        value = float(score) if isinstance(score, int | float) else math.nan
        target = entries if r["source"] == "entry" else results
        rank = r["rank"] if isinstance(r["rank"], int | float) else math.inf
        target.setdefault(str(r["leaderboard_id"]), []).append(
            (rank, str(r["method"]), str(r["method"]), value)
        )
    out: dict[str, list[tuple[str, float]]] = {}
    for lb_id in set(entries) | set(results):
        rows = sorted(entries.get(lb_id) or results.get(lb_id) or [])
        out[lb_id] = [(method, value) for _, _, method, value in rows]
    return out


def build_lgplm_instances(
    store: GraphReader,
    *,
    k: int = 10,
    limit: int | None = None,
    ids: Sequence[str] | None = None,
    gold_path: str | Path | None = None,
    max_context_tokens: int | None = None,
    template: PromptTemplate | None = None,
    bm25_params: BM25Params | None = None,
    progress: StageProgress | None = None,
) -> list[LGPLMPrompt]:
    """LGPLM instances for the graph's leaderboards that have passages and gold entries.

    Leaderboards without any Chunk of their papers, or without gold (method, score) entries,
    are skipped (logged): they cannot be answered or scored. ``limit`` counts kept instances.
    """
    from scholarkg.benchmark.rankers.bm25 import BM25Ranker

    if k < 1:
        raise InputError(f"k must be >= 1, got {k}", field="k")
    if limit is not None and limit < 1:
        raise InputError(f"limit must be >= 1, got {limit}", field="limit")
    template = template or lgplm_template()
    boards = store.run_named(
        "legobench/lgplm_leaderboards", {"ids": list(ids) if ids is not None else None}
    )
    boards.sort(key=lambda b: (0 if isinstance(b.get("row"), int) else 1, b.get("row") or 0,
                               str(b["id"])))  # fmt: skip
    lb_ids = [str(b["id"]) for b in boards]
    gold = read_gold_file(gold_path) if gold_path is not None else _gold_from_graph(store, lb_ids)
    papers: dict[str, list[str]] = {}
    for r in store.run_named("legobench/lgplm_leaderboard_papers", {"ids": lb_ids}):
        papers.setdefault(str(r["leaderboard_id"]), []).append(str(r["paper_id"]))
    out: list[LGPLMPrompt] = []
    skipped = {"no_gold": 0, "no_chunks": 0}
    total = len(boards) if limit is None else min(limit, len(boards))
    for b in boards:
        lb_id = str(b["id"])
        task, dataset, metric = (str(b.get(x) or "") for x in ("task", "dataset", "metric"))
        if not gold.get(lb_id):
            skipped["no_gold"] += 1
            continue
        paper_ids = sorted(set(papers.get(lb_id, [])))
        chunk_rows = (
            store.run_named("legobench/lgplm_chunks", {"paperIds": paper_ids}) if paper_ids else []
        )
        if not chunk_rows:
            skipped["no_chunks"] += 1
            continue
        by_id = {str(c["chunk_id"]): c for c in chunk_rows}
        ranker = BM25Ranker(list(by_id), [str(c["text"] or "") for c in by_id.values()],
                            params=bm25_params)  # fmt: skip
        query = f"{task} {dataset} {metric}"
        ranking = ranker.rank(query, k, query_id=lb_id)
        chunks = [
            RetrievedChunk(cid, str(by_id[cid]["paper_id"]), score, str(by_id[cid]["text"] or ""))
            for cid, score in zip(ranking.ids, ranking.scores, strict=True)
        ]
        context = " ".join(c.text for c in chunks).strip()
        truncated = False
        if max_context_tokens is not None:
            frame = template.render(task=task, dataset=dataset, metric=metric, context="")
            budget = max_context_tokens - approx_tokens(frame) - 3  # release: - prompt - 3
            context, truncated = crop_to_tokens(context, budget)
        prompt = template.render(task=task, dataset=dataset, metric=metric, context=context)
        out.append(
            LGPLMPrompt(
                id=lb_id, task=task, dataset=dataset, metric=metric, query=query, chunks=chunks,
                prompt=prompt, gold=gold[lb_id], paper_ids=paper_ids, context_truncated=truncated,
            )
        )  # fmt: skip
        if progress is not None:
            progress("retrieve", len(out), total)
        if limit is not None and len(out) >= limit:
            break
    if any(skipped.values()):
        log.info("LGPLM: skipped leaderboards %s", skipped)
    return out


def score_lgplm(
    instances: Sequence[LGPLMPrompt],
    answers: Sequence[str | None],
    *,
    tolerance: ScoreTolerance | None = None,
    aliases: dict[str, str] | None = None,
    average: str = "micro",
) -> ExtractionScores:
    """MR, MP, SP (both variants) of ``answers`` aligned with ``instances``."""
    return evaluate_leaderboard_tables(
        [i.gold for i in instances],
        list(answers),
        metrics=[i.metric for i in instances],
        aliases=aliases,
        tolerance=tolerance,
        average=average,
    )


__all__ = [
    "LGPLMPrompt",
    "LGPLMSettings",
    "RetrievedChunk",
    "build_lgplm_instances",
    "read_gold_file",
    "score_lgplm",
]

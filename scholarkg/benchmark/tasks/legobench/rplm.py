"""LEGOBench RPLM as a runnable task: prompts from the graph, a model (or imported answers), scores.

RPLM (the LEGOBench paper (Singh et al., arXiv 2401.06233), task definitions) gives a model a
leaderboard query and the leaderboard's
paper titles in random order and asks for the titles best first. The pieces:

* **Instances** come from the graph (named query ``rplm_instances``): each ``Leaderboard`` with
  its ``HAS_ENTRY {gt_rank}`` entries. Entries are raw ``TitleLine`` lines (leaderboards loaded
  from ``rplm.xlsx``; their split/quoted defects are kept because GT and options share them,
  §6) or ``Paper`` titles (leaderboards loaded from a leaderboard file); a leaderboard with both
  uses its TitleLines. ``entries="auto"`` runs the rplm.xlsx leaderboards when the graph has
  them, else the ground-truth ones, so one run is one benchmark. The option order is a seeded
  shuffle *per leaderboard* (the seed is hashed with the leaderboard id), so ``limit`` or new
  leaderboards never change the shuffle of the others; ``shuffle="stored"`` replays the
  released order (``option_index``) instead.
* **Prompt**: the template ``prompts/rplm.txt`` (our wording, the release's structure:
  ``instruction + "\\n" + options``), sent in completion mode without a chat template, with the
  paper's settings (T=0.1, top_p 0.95, max 4096 tokens, stop at ``Question:`` or four
  newlines), all configurable in :class:`RPLMSettings`.
* **Answers** from an :class:`~scholarkg.services.llm.LLMClient`, or imported from a file
  (``tasks/predictions.py``: JSONL ``{"id", "response"}`` or a released ``*_gen_rank``
  workbook).
* **Scores**: ``evaluate_ranked_lists`` with protocol ``clean`` or ``legobench-paper``.
* **Run**: :class:`~.tasks.RPLMTask` declares the task (metrics, units, options) and
  :func:`~scholarkg.benchmark.runner.run_task` records it like every task: the run file, the
  ``:Run`` node and each answer as ``(:Run)-[:ANSWERED {text}]->(:Leaderboard)``.
  :func:`scholarkg.benchmark.tasks.legobench.run.run_rplm` is that call for Python users.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from scholarkg.benchmark.metrics.ranking import (
    RankedListScores,
    evaluate_ranked_lists,
)
from scholarkg.benchmark.tasks.predictions import AlignmentKey
from scholarkg.errors import InputError
from scholarkg.schema.ids import content_hash
from scholarkg.services.prompts import PromptTemplate, task_prompt

if TYPE_CHECKING:
    from scholarkg.store.base import GraphReader

log = logging.getLogger(__name__)

#: task name in prediction files and on the command line
TASK_ID = "legobench-rplm"
#: ``RunRecord.task`` (``runs list --task legobench`` selects every LEGOBench run)
RUN_TASK = TASK_ID  # runs are recorded under the task name
PROMPT_PACKAGE = "scholarkg.benchmark.tasks.legobench"
SHUFFLES = ("seeded", "stored")
#: which leaderboards become instances: "auto" = the rplm.xlsx ones (TitleLine entries) when
#: the graph has any, else those with Paper entries; or exactly "titleline", "paper", "all"
ENTRY_SOURCES = ("auto", "titleline", "paper", "all")


@dataclass(frozen=True)
class RPLMSettings:
    """Generation settings; defaults are the paper's vLLM settings (reference §1).

    ``mode="completion"`` sends the prompt as raw text (no chat template), as the paper did;
    ``"chat"`` sends it as one user message for chat-only endpoints (not the paper's setup).
    """

    mode: Literal["completion", "chat"] = "completion"
    temperature: float = 0.1
    top_p: float = 0.95
    max_tokens: int | None = 4096
    stop: tuple[str, ...] = ("Question:", "\n\n\n\n")
    seed: int | None = None
    #: requests in flight; ``None``: the client's (``--concurrency``, SCHOLARKG_LLM_CONCURRENCY)
    concurrency: int | None = None

    def generation(self) -> dict[str, Any]:
        """Keyword arguments for ``LLMClient.complete_many``."""
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "stop": list(self.stop),
            "seed": self.seed,
        }


@dataclass(frozen=True)
class RPLMPrompt:
    """One RPLM instance: the leaderboard, the options as shown, the gold order, the prompt."""

    id: str
    task: str
    dataset: str
    metric: str
    options: list[str]
    gt: list[str]
    prompt: str
    entry_kind: str  # "TitleLine" or "Paper"
    row: int | None = None
    #: where the option order came from: "seeded" or "stored" (the release's option_index)
    shuffle: str = "seeded"

    @property
    def gold_text(self) -> str:
        """GT as a released workbook stores it (lines ``\\n``-joined); aligns imported rows."""
        return "\n".join(self.gt)


def rplm_template() -> PromptTemplate:
    """The packaged RPLM prompt template (``prompts/rplm.txt``)."""
    return task_prompt(PROMPT_PACKAGE, "rplm")


def seeded_shuffle(items: Sequence[str], seed: int, key: str) -> list[str]:
    """``items`` shuffled by a RNG seeded with ``(seed, key)``: stable per instance and run.

    ``random.Random`` seeded with a string is deterministic across processes and platforms
    (it hashes the string with SHA-512), unlike ``hash()``.
    """
    out = list(items)
    random.Random(f"rplm:{content_hash(seed, key)}").shuffle(out)
    return out


def build_rplm_instances(
    store: GraphReader,
    *,
    seed: int = 0,
    limit: int | None = None,
    ids: Sequence[str] | None = None,
    shuffle: str = "seeded",
    entries: str = "auto",
    template: PromptTemplate | None = None,
) -> list[RPLMPrompt]:
    """RPLM instances for the graph's leaderboards (all, or ``ids``), in a stable order.

    ``entries`` picks the leaderboards (see :data:`ENTRY_SOURCES`): a graph holding both the
    released ``rplm.xlsx`` rows and ground-truth leaderboards would otherwise mix two
    benchmarks, and ``legobench-paper`` divides CIS by the number of instances.

    Order: leaderboards with an rplm.xlsx ``row`` first by row, then the rest by id; ``limit``
    keeps the first ``limit``. ``shuffle="stored"`` replays ``option_index`` where every entry
    of a leaderboard has one and falls back to the seeded shuffle elsewhere (each instance
    says which in ``RPLMPrompt.shuffle``). Raises :class:`InputError` for an entry without
    ``gt_rank`` or title.
    """
    if shuffle not in SHUFFLES:
        raise InputError(f"unknown shuffle {shuffle!r}; choose one of {SHUFFLES}", field="shuffle")
    if entries not in ENTRY_SOURCES:
        raise InputError(
            f"unknown entries {entries!r}; choose one of {ENTRY_SOURCES}", field="entries"
        )
    if limit is not None and limit < 1:
        raise InputError(f"limit must be >= 1, got {limit}", field="limit")
    template = template or rplm_template()
    rows = store.run_named(
        "legobench/rplm_instances", {"ids": list(ids) if ids is not None else None}
    )
    entries_from = entries
    if entries_from == "auto":
        entries_from = "titleline" if any(r["kind"] == "TitleLine" for r in rows) else "paper"
    grouped: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        grouped.setdefault(str(r["id"]), []).append(r)
    order = sorted(grouped, key=lambda i: (_row_key(grouped[i][0].get("row")), i))
    out: list[RPLMPrompt] = []
    for lb_id in order:
        board = grouped[lb_id]
        kinds = {e["kind"] for e in board}
        kind = "TitleLine" if "TitleLine" in kinds else "Paper"
        if entries_from not in ("all", kind.lower()):
            continue
        board = [e for e in board if e["kind"] == kind]
        for e in board:
            if e["gt_rank"] is None:
                raise InputError(
                    f"leaderboard {lb_id}: HAS_ENTRY to {e['entry_id']} has no gt_rank",
                    field="gt_rank",
                )
            if not isinstance(e["title"], str) or not e["title"]:
                raise InputError(
                    f"leaderboard {lb_id}: entry {e['entry_id']} has no title/text",
                    field="title" if kind == "Paper" else "text",
                )
        board.sort(key=lambda e: (e["gt_rank"], str(e["entry_id"])))
        gt = [e["title"] for e in board]
        stored = [e["option_index"] for e in board]
        if shuffle == "stored" and all(isinstance(o, int) for o in stored):
            options = [e["title"] for e in sorted(board, key=lambda e: e["option_index"])]
            order_source = "stored"
        else:  # "seeded", or a leaderboard without a released order (e.g. from a GT file)
            options = seeded_shuffle(gt, seed, lb_id)
            order_source = "seeded"
        first = board[0]
        task, dataset, metric = (str(first.get(k) or "") for k in ("task", "dataset", "metric"))
        prompt = template.render(
            task=task, dataset=dataset, metric=metric, options="\n".join(options)
        )
        out.append(
            RPLMPrompt(
                id=lb_id, task=task, dataset=dataset, metric=metric, options=options, gt=gt,
                prompt=prompt, entry_kind=kind, row=_int_or_none(first.get("row")),
                shuffle=order_source,
            )
        )  # fmt: skip
        if limit is not None and len(out) >= limit:
            break
    return out


def _int_or_none(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _row_key(value: Any) -> tuple[int, float]:
    row = _int_or_none(value)
    return (0, row) if row is not None else (1, 0.0)


# --------------------------------------------------------------------------- answers


def alignment_keys(instances: Sequence[RPLMPrompt]) -> list[AlignmentKey]:
    """How rows of a released answer workbook find their instance (GT text, query triple)."""
    return [AlignmentKey(i.id, i.gold_text, (i.task, i.dataset, i.metric)) for i in instances]


# --------------------------------------------------------------------------- run


def score_rplm(
    instances: Sequence[RPLMPrompt],
    answers: Sequence[str | None],
    *,
    protocol: str = "clean",
    matcher: str = "substring",
    progress: Callable[[int, int], None] | None = None,
) -> RankedListScores:
    """RPLM scores of ``answers`` (aligned with ``instances``) under ``protocol``."""
    return evaluate_ranked_lists(
        [i.gt for i in instances], list(answers), protocol=protocol, matcher=matcher,
        progress=progress,
    )  # fmt: skip


__all__ = [
    "RPLMPrompt",
    "RPLMSettings",
    "build_rplm_instances",
    "score_rplm",
]

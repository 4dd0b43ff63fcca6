"""LEGOBench RPLM as a runnable task: prompts from the graph, a model (or imported answers), scores.

RPLM (reference ``legobench.md`` §1) gives a model a leaderboard query and the leaderboard's
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
* **Record**: a :class:`RunRecord` (config, model, prompt hash, per-instance scores), saved
  with a :class:`RunRegistry` when given, written to the graph with ``record_run_in_graph``,
  and each answer as ``(:Run)-[:ANSWERED {text}]->(:Leaderboard)``.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from scholarkg.benchmark.metrics.ranking import (
    MATCHERS,
    PROTOCOLS,
    RankedListScores,
    evaluate_ranked_lists,
)
from scholarkg.benchmark.runs import RunRecord, RunRegistry
from scholarkg.benchmark.tasks.llm_run import (
    StageClock,
    StageProgress,
    check_answer_source,
    collect_answers,
    record_llm_run,
)
from scholarkg.benchmark.tasks.predictions import AlignmentKey
from scholarkg.errors import InputError
from scholarkg.schema.ids import content_hash
from scholarkg.services.prompts import PromptTemplate, task_prompt

if TYPE_CHECKING:
    from scholarkg.services.llm import LLMClient
    from scholarkg.store.base import GraphStore

log = logging.getLogger(__name__)

#: task name in prediction files and on the command line
TASK_ID = "legobench-rplm"
#: ``RunRecord.task`` (``runs list --task legobench`` selects every LEGOBench run)
RUN_TASK = "legobench/rplm"
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
    concurrency: int = 4

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
    store: GraphStore,
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


def _per_instance_rplm(
    instances: Sequence[RPLMPrompt], scores: RankedListScores
) -> dict[str, dict[str, float | None]]:
    out: dict[str, dict[str, float | None]] = {}
    for rec in scores.per_instance:
        inst = instances[rec["index"]]
        tau = rec["ktau"]
        out[inst.id] = {
            "complete": 1.0 if rec["complete"] else 0.0,
            # exactness is only defined for complete answers (BEM's denominator)
            "exact": (1.0 if rec["exact"] else 0.0) if rec["complete"] else None,
            "ktau": None if tau is None or math.isnan(tau) else float(tau),
            "cp": 100.0 * rec["cp"],
        }
    return out


def run_rplm(
    store: GraphStore,
    client: LLMClient | None = None,
    *,
    predictions_path: str | Path | None = None,
    protocol: str = "clean",
    matcher: str = "substring",
    seed: int = 0,
    limit: int | None = None,
    ids: Sequence[str] | None = None,
    shuffle: str = "seeded",
    entries: str = "auto",
    settings: RPLMSettings | None = None,
    template: PromptTemplate | None = None,
    registry: RunRegistry | None = None,
    record_in_graph: bool = True,
    write_answers: bool = True,
    progress: StageProgress | None = None,
) -> RunRecord:
    """Build RPLM instances from the graph, answer them, score them and record the run.

    Exactly one of ``client`` (generate with a model) and ``predictions_path`` (import a JSONL
    or released ``*_gen_rank`` workbook; see ``tasks/predictions.py``) is required.
    """
    check_answer_source(client, predictions_path)
    if protocol not in PROTOCOLS:
        raise InputError(f"unknown protocol {protocol!r}; choose one of {PROTOCOLS}")
    if matcher not in MATCHERS:
        raise InputError(f"unknown matcher {matcher!r}; choose one of {MATCHERS}")
    settings = settings or RPLMSettings()
    template = template or rplm_template()
    clock = StageClock()
    instances = build_rplm_instances(
        store,
        seed=seed,
        limit=limit,
        ids=ids,
        shuffle=shuffle,
        entries=entries,
        template=template,
    )
    if not instances:
        raise InputError("no leaderboard with HAS_ENTRY entries in the graph; load one first")
    clock.mark("build")
    config: dict[str, Any] = {
        "protocol": protocol,
        "matcher": matcher,
        "seed": seed,
        "shuffle": shuffle,
        "limit": limit,
        "n_instances": len(instances),
        "entries": entries,
        "entry_kinds": sorted({i.entry_kind for i in instances}),
        "n_stored_order": sum(i.shuffle == "stored" for i in instances),
        "prompt": template.record(),
    }
    instance_ids = [i.id for i in instances]
    collected = collect_answers(
        TASK_ID, instance_ids, [i.prompt for i in instances], client=client,
        predictions_path=predictions_path, settings=settings, align=alignment_keys(instances),
        progress=progress,
    )  # fmt: skip
    clock.mark("answer")

    def score_progress(done: int, total: int) -> None:
        if progress is not None:
            progress("score", done, total)

    scores = score_rplm(instances, collected.answers, protocol=protocol, matcher=matcher,
                        progress=score_progress)  # fmt: skip
    clock.mark("score")
    metrics = {
        "cis": scores.cis,
        "bem": scores.bem,
        "ktau": scores.ktau,
        "cp": scores.cp,
        "n_scored": float(scores.n_scored),
        "n_complete": float(scores.n_complete),
    }
    return record_llm_run(
        store, RUN_TASK, ids=instance_ids, collected=collected, metrics=metrics,
        per_instance=_per_instance_rplm(instances, scores), config=config,
        prompts={template.name: template.text}, clock=clock,
        notes="; ".join(scores.notes) or None, registry=registry,
        record_in_graph=record_in_graph, write_answers=write_answers,
    )  # fmt: skip


__all__ = [
    "RPLMPrompt",
    "RPLMSettings",
    "StageProgress",
    "build_rplm_instances",
    "run_rplm",
    "score_rplm",
]

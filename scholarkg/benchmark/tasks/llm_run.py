"""Run plumbing shared by the LLM tasks: answers from a model or a file, then the run record.

RPLM and LGPLM (and later LLM tasks) differ in how they build instances and score answers,
but not in the rest: exactly one answer source (a model client, or predictions imported from
a file), answers aligned with the instances, usage and provenance in the run config, a
:class:`RunRecord` with build/answer/score timings, saved to the registry and written to the
graph with one ``ANSWERED {text}`` edge per leaderboard. That part lives here once.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from scholarkg.benchmark.runs import RunRecord, RunRegistry, new_run, record_run_in_graph
from scholarkg.benchmark.tasks.predictions import AlignmentKey, PredictionSet, read_predictions
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.services.llm import LLMClient
    from scholarkg.store.base import GraphStore

log = logging.getLogger(__name__)

#: ``progress(stage, n_done, n_total)``: stage is "retrieve", "generate" or "score"
StageProgress = Callable[[str, int, int], None]


class GenerationSettings(Protocol):
    """What :func:`generate_answers` needs from a task's settings dataclass."""

    @property
    def mode(self) -> Literal["completion", "chat"]: ...

    @property
    def concurrency(self) -> int: ...

    def generation(self) -> dict[str, Any]: ...


def check_answer_source(client: object | None, predictions_path: str | Path | None) -> None:
    """Exactly one of a model client and a predictions file (checked before any work)."""
    if (client is None) == (predictions_path is None):
        raise InputError("give exactly one of a model client or --predictions")


def generate_answers(
    client: LLMClient,
    prompts: Sequence[str],
    settings: GenerationSettings,
    *,
    progress: Callable[[int], None] | None = None,
) -> tuple[list[str], dict[str, Any]]:
    """Model answers in input order, and what this call spent (requests, tokens, seconds).

    The client caches answers, so a re-run is free; its usage totals are per client, so the
    spend of this call is the difference of two snapshots (a client may serve several runs).
    """
    before = client.usage.as_dict()
    done = client.complete_many(
        list(prompts),
        mode=settings.mode,
        concurrency=settings.concurrency,
        progress=progress,
        **settings.generation(),
    )
    after = client.usage.as_dict()
    usage = {k: after[k] - before[k] for k in after}
    return [c.text for c in done], usage


def match_predictions(
    predictions: PredictionSet, instance_ids: Sequence[str]
) -> tuple[list[str | None], dict[str, int]]:
    """Answers aligned with ``instance_ids`` (``None`` = no answer) and matching counts.

    Instances without a prediction are scored as unanswered (they count against CIS and CP,
    as a blank cell does in the release). Predictions for ids that are not instances are
    ignored and counted; if none matches at all the file is for another graph: InputError.
    """
    wanted = set(instance_ids)
    unmatched = [pid for pid in predictions.predictions if pid not in wanted]
    answers: list[str | None] = [predictions.predictions.get(i) for i in instance_ids]
    n_missing = sum(a is None for a in answers)
    if instance_ids and n_missing == len(instance_ids):
        shown = ", ".join(repr(u) for u in unmatched[:3])
        raise InputError(
            f"none of the {len(predictions.predictions)} prediction ids is an instance of this "
            f"run (e.g. {shown}); ids must be Leaderboard ids of this graph",
            path=predictions.path,
            field="id",
        )
    if unmatched:
        log.warning(
            "%s: %d prediction(s) for ids that are not instances of this run were ignored",
            predictions.path,
            len(unmatched),
        )
    if n_missing:
        log.warning("%s: %d instance(s) have no prediction", predictions.path, n_missing)
    counts = {"n_unmatched_predictions": len(unmatched), "n_missing_predictions": n_missing}
    return answers, counts


@dataclass
class CollectedAnswers:
    """Answers aligned with the instances, plus what the run record says about their source.

    ``config`` holds ``source`` and either ``generation`` + ``usage`` (model) or
    ``predictions``, ``layout``, ``n_blank_predictions`` and the matching counts (file).
    """

    answers: list[str | None]
    models: dict[str, str]
    config: dict[str, Any] = field(default_factory=dict)


def collect_answers(
    task_id: str,
    ids: Sequence[str],
    prompts: Sequence[str],
    *,
    client: LLMClient | None,
    predictions_path: str | Path | None,
    settings: GenerationSettings,
    settings_record: object | None = None,
    align: Sequence[AlignmentKey] | None = None,
    progress: StageProgress | None = None,
) -> CollectedAnswers:
    """Answer the instances ``ids`` (prompts aligned) with ``client`` or from the file.

    ``settings_record`` is what the run config shows as ``generation`` (default: ``settings``;
    LGPLM records its own settings class but generates through RPLM's). ``task_id`` selects
    the prediction file format (``tasks/predictions.py``); ``align`` places workbook rows.
    """
    check_answer_source(client, predictions_path)
    if client is not None:
        record = settings if settings_record is None else settings_record
        config: dict[str, Any] = {"source": "model"}
        if is_dataclass(record) and not isinstance(record, type):
            config["generation"] = asdict(record)

        def gen_progress(done: int) -> None:
            if progress is not None:
                progress("generate", done, len(prompts))

        texts, usage = generate_answers(client, prompts, settings, progress=gen_progress)
        config["usage"] = usage
        return CollectedAnswers(list(texts), {"llm": client.model}, config)
    assert predictions_path is not None  # check_answer_source
    preds = read_predictions(task_id, predictions_path, align=align)
    answers, counts = match_predictions(preds, ids)
    config = {
        "source": "predictions",
        "predictions": str(predictions_path),
        "layout": preds.layout,
        "n_blank_predictions": preds.n_blank,
        **counts,
    }
    return CollectedAnswers(answers, {"llm": preds.model or Path(predictions_path).stem}, config)


class StageClock:
    """``build`` / ``answer`` / ``score`` / ``total`` seconds, as every LLM run records them."""

    def __init__(self) -> None:
        self._marks: dict[str, float] = {"start": time.perf_counter()}

    def mark(self, stage: str) -> None:
        """The stage that just ended (``build``, ``answer`` or ``score``)."""
        self._marks[stage] = time.perf_counter()

    def timings(self) -> dict[str, float]:
        m = self._marks
        return {
            "build": m["build"] - m["start"],
            "answer": m["answer"] - m["build"],
            "score": m["score"] - m["answer"],
            "total": m["score"] - m["start"],
        }


def finish_run(
    store: GraphStore | None,
    run: RunRecord,
    answers: Mapping[str, str | None],
    *,
    registry: RunRegistry | None,
    record_in_graph: bool,
    write_answers: bool,
) -> RunRecord:
    """Save the run file, MERGE ``:Run``/``:MetricResult`` and ``ANSWERED {text}`` edges.

    The answers go to the graph as one relationship per leaderboard so that a researcher can
    read a model's answer next to the leaderboard in the browser; the relationship holds the
    raw text (``""`` for no answer).
    """
    if registry is not None:
        registry.save(run)
    if store is not None and record_in_graph:
        record_run_in_graph(store, run)
        if write_answers:
            rows = [
                {"start": run.id, "end": lb_id, "props": {"text": text or ""}}
                for lb_id, text in answers.items()
            ]
            store.merge_relationships("ANSWERED", "Run", "Leaderboard", rows)
    return run


def record_llm_run(
    store: GraphStore | None,
    run_task: str,
    *,
    ids: Sequence[str],
    collected: CollectedAnswers,
    metrics: Mapping[str, float | None],
    per_instance: Mapping[str, Mapping[str, float | None]],
    config: Mapping[str, Any],
    prompts: Mapping[str, str],
    clock: StageClock,
    notes: str | None,
    registry: RunRegistry | None,
    record_in_graph: bool,
    write_answers: bool,
) -> RunRecord:
    """:func:`new_run` from the task's scores and the answer source, then :func:`finish_run`.

    ``config`` is the task's own settings; the answer-source keys of ``collected.config``
    are appended to it.
    """
    run = new_run(
        run_task,
        metrics=metrics,
        per_instance=per_instance,
        config={**config, **collected.config},
        models=collected.models,
        prompts=prompts,
        timings=clock.timings(),
        notes=notes,
    )
    return finish_run(
        store,
        run,
        dict(zip(ids, collected.answers, strict=True)),
        registry=registry,
        record_in_graph=record_in_graph,
        write_answers=write_answers,
    )


__all__ = [
    "CollectedAnswers",
    "GenerationSettings",
    "StageClock",
    "StageProgress",
    "check_answer_source",
    "collect_answers",
    "finish_run",
    "generate_answers",
    "match_predictions",
    "record_llm_run",
]

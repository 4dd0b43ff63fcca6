"""Answer plumbing shared by the LLM tasks: answers from a model or from a file.

RPLM and LGPLM (and later LLM tasks) differ in how they build instances and score answers,
but not in this: exactly one answer source (a model client, or predictions imported from a
file in the task's declared :class:`~.predictions.PredictionFormat`), answers aligned with
the instance ids, usage and provenance for the run config. Nothing here knows what an
instance is; the run itself is finished by :func:`scholarkg.benchmark.runner.run_task`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from scholarkg.benchmark.tasks.predictions import (
    AlignmentKey,
    PredictionFormat,
    PredictionSet,
    read_predictions,
)
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.benchmark.runs import RunRecord, RunRegistry
    from scholarkg.services.llm import LLMClient
    from scholarkg.store.base import GraphReader

log = logging.getLogger(__name__)

#: ``progress(stage, n_done, n_total)``: stage is "retrieve", "generate" or "score"
StageProgress = Callable[[str, int, int], None]


class GenerationSettings(Protocol):
    """What :func:`generate_answers` needs from a task's settings dataclass."""

    @property
    def mode(self) -> Literal["completion", "chat"]: ...

    @property
    def concurrency(self) -> int | None: ...

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
            f"run (e.g. {shown}); ids must be the task's instance ids in this graph",
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
    task: str | PredictionFormat,
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

    ``settings_record`` is what the run config shows as ``generation`` (default:
    ``settings``). ``task`` is the prediction file format (or the name of the task declaring
    it); ``align`` places workbook rows.
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
    preds = read_predictions(task, predictions_path, align=align)
    answers, counts = match_predictions(preds, ids)
    config = {
        "source": "predictions",
        "predictions": str(predictions_path),
        "layout": preds.layout,
        "n_blank_predictions": preds.n_blank,
        **counts,
    }
    return CollectedAnswers(answers, {"llm": preds.model or Path(predictions_path).stem}, config)


__all__ = [
    "CollectedAnswers",
    "GenerationSettings",
    "check_answer_source",
    "collect_answers",
    "generate_answers",
    "match_predictions",
]


def run_llm_task(
    task: Any,
    store: GraphReader,
    client: LLMClient | None,
    predictions_path: str | Path | None,
    options: dict[str, Any],
    *,
    limit: int | None,
    registry: RunRegistry | None,
    record_in_graph: bool,
    progress: StageProgress | None,
) -> RunRecord:
    """Run an LLM ``task`` through :func:`~scholarkg.benchmark.runner.run_task` (the one run
    path) with answers from ``client`` or imported from ``predictions_path`` (exactly one);
    what the tasks' ``run_<task>`` conveniences share."""
    from scholarkg.benchmark.runner import run_task
    from scholarkg.benchmark.task import AnswerSource

    check_answer_source(client, predictions_path)
    if client is not None:
        source = AnswerSource.model(client)
    else:
        assert predictions_path is not None  # check_answer_source: exactly one of the two
        source = AnswerSource.predictions(predictions_path)
    return run_task(
        task, store, source, options, runs_dir=registry.runs_dir if registry else None,
        record_in_graph=record_in_graph, limit=limit, progress=progress,
    ).record  # fmt: skip

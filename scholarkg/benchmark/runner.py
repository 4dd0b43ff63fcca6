"""Running a task: the one way a run is finished, scored from files, and recorded.

:func:`run_task` takes a task (:mod:`scholarkg.benchmark.task`: what it declares and its three
steps) through build, answer and score, then writes what was asked for (``--out``) and records
the run. :func:`score_task_files` is ``bench score``: a predictions file against released data,
recorded the same way. Both go through the same config keys (:func:`_run_config`) so run
listings and comparisons read them alike.

A run is recorded only once it has completed, and whole or not at all: every step that can
fail (the store, the model, the output files, the run's nodes in the graph) runs before the run
file is written, the run file is written atomically, a failure while recording takes the run's
nodes out of the graph again, and SIGINT/SIGTERM wait until the recording is done
(``runs.record_run``). So a run that dies midway leaves nothing in ``runs list`` or the graph.
"""

from __future__ import annotations

import functools
import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.outputs import write_prediction_rows
from scholarkg.benchmark.results import TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    BenchmarkTask,
    Instance,
    StageProgress,
    report_scoring_to,
)
from scholarkg.errors import InputError, NotSupported

if TYPE_CHECKING:
    from scholarkg.benchmark.runs import RunRecord
    from scholarkg.store.base import GraphReader

log = logging.getLogger(__name__)

__all__ = ["TaskRun", "check_result", "predictions_model", "run_task", "score_task_files"]


@dataclass
class TaskRun:
    """What :func:`run_task` returns: the result, the answers, the record and written files."""

    task: BenchmarkTask
    options: dict[str, Any]
    instances: list[Instance]
    answers: Answers
    result: TaskResult
    record: RunRecord
    files: list[Path] = field(default_factory=list)


def predictions_model(path: str | Path | None) -> str | None:
    """The ``model`` a JSONL predictions file names on its first line (``None``: none, or
    not JSONL). Files :func:`run_task` writes carry it, so what scores them (records,
    ``bench score`` headers) can say which model produced the answers, not just the file."""
    if path is None:
        return None
    path = Path(path)
    if not path.is_file() or not path.name.endswith((".jsonl", ".ndjson")):
        return None
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    obj = json.loads(line)
                    model = obj.get("model") if isinstance(obj, dict) else None
                    return model if isinstance(model, str) and model else None
    except (OSError, ValueError):
        return None  # the task's reader reports the problem with its position
    return None


def check_result(task: BenchmarkTask, result: TaskResult) -> None:
    """Every aggregate metric is declared: names and units never drift between tasks/runs."""
    declared = {m.name for m in task.metrics}
    unknown = sorted(set(result.aggregate) - declared)
    if unknown:
        raise ValueError(
            f"task {task.name!r} returned undeclared metrics {unknown}; declare them in "
            f"{type(task).__name__}.metrics with their unit"
        )


def _run_config(
    task: BenchmarkTask,
    resolved: Mapping[str, Any],
    result: TaskResult,
    *,
    kind: str,
    name: str,
    params: Mapping[str, Any],
    graph: str | None,
    n_instances: int,
) -> dict[str, Any]:
    """The config keys every recorded run has, whether ``bench run`` or ``bench score``
    made it, so run listings and comparisons read both the same way."""
    config: dict[str, Any] = {
        "family": task.family,
        "configuration": task.configuration(resolved),
        "answer": {
            "kind": kind,
            "name": name,
            "params": dict(params),
            "baseline": name == task.baseline,
            "ours": name in task.ours,
        },
        "units": {k: u for k, u in task.units().items() if k in result.aggregate},
        "graph": graph,
        "n_instances": n_instances,
    }
    if result.intervals:
        config["intervals"] = {k: list(v) for k, v in result.intervals.items()}
    return config


def _joined_notes(notes: str | None, result: TaskResult) -> str | None:
    return "; ".join(n for n in (notes, *result.notes) if n) or None


def run_task(
    task: BenchmarkTask,
    store: GraphReader,
    source: AnswerSource,
    options: Mapping[str, Any] | None = None,
    *,
    runs_dir: Path | None = None,
    out_dir: Path | None = None,
    record_in_graph: bool = True,
    limit: int | None = None,
    notes: str | None = None,
    progress: StageProgress | None = None,
) -> TaskRun:
    """Build, answer, score and record one run of ``task``: the only way a run is finished.

    Options and the answer source are checked before any work. ``limit`` keeps the first N
    instances (a smoke run; recorded in the config). With ``out_dir`` the task writes its
    files (``metrics.json`` and e.g. ``run.trec``); with ``runs_dir`` the run is saved as
    JSON, after its ``:Run`` nodes (``record_in_graph``) were written, whole or not at all
    (``runs.record_run``): an error anywhere (a store lost midway included) propagates
    before the run file exists and takes the run's nodes out of the graph again, and
    SIGINT/SIGTERM wait until the run is recorded. So an unfinished run is neither listed
    nor in the graph.
    """
    from scholarkg.benchmark.runs import RunGraph, RunRegistry, new_run, record_run

    resolved = task.resolve_options(options)
    task.check_source(source)
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be >= 1, got {limit}", field="limit")
    timings: dict[str, float] = {}
    start = time.perf_counter()

    t0 = time.perf_counter()
    instances = task.build_instances(store, resolved)
    if limit is not None:
        instances = instances[:limit]
    if not instances:
        raise InputError(
            f"task {task.name!r} found no instances in graph {store.graph!r}; "
            "load its data first (see 'scholarkg load --help')"
        )
    timings["build"] = time.perf_counter() - t0
    if progress is not None:
        progress("build", len(instances), len(instances))

    t0 = time.perf_counter()
    answers = task.answer(store, instances, source, resolved, progress)
    timings["answer"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    with report_scoring_to(progress):
        result = task.score(instances, answers, resolved)
    check_result(task, result)
    timings["score"] = time.perf_counter() - t0
    timings["total"] = time.perf_counter() - start

    config = _run_config(
        task,
        resolved,
        result,
        kind=source.kind,
        name=source.name,
        params=answers.params or dict(source.params),
        graph=store.graph,
        n_instances=len(instances),
    )
    if source.path is not None:
        config["answer"]["path"] = str(source.path)
    client_record = getattr(source.client, "settings_record", None)
    if callable(client_record):  # timeout, concurrency, token cap the model was asked with
        config["answer"]["client"] = client_record()
    if answers.models.get("llm"):
        # what produced the answers (the model a predictions file names, or the client's)
        config["answer"]["model"] = answers.models["llm"]
    rows = task.prediction_rows(instances, answers)
    fmt = task.prediction_format
    if rows and fmt is not None:
        config["answer"]["predictions_format"] = {
            "file": fmt.file_name,
            "answer_field": fmt.answer_field,
            "id_fields": list(fmt.id_fields),
        }
        if out_dir is not None:
            config["answer"]["predictions_file"] = str(Path(out_dir) / fmt.file_name)
    if limit is not None:
        config["limit"] = limit
    if answers.extra:
        config["answer"]["extra"] = answers.extra
    record = new_run(
        task.name,
        metrics=result.aggregate,
        per_instance=result.per_instance,
        config=config,
        models=answers.models,
        prompts=answers.prompts,
        timings=timings,
        classes=result.classes,
        notes=_joined_notes(notes, result),
        predictions=rows,
    )
    files: list[Path] = []
    if out_dir is not None:
        files = task.write_outputs(Path(out_dir), instances, answers, result, resolved)
        if rows and fmt is not None:
            files.append(write_prediction_rows(Path(out_dir) / fmt.file_name, rows))
    if runs_dir is not None:
        # whole or not at all: the graph first (it is what can still fail: a store that died
        # midway raises here, and what was written is removed again), the run file last and
        # atomically; an interruption meanwhile is held until the run is recorded
        graph: RunGraph | None = None
        if record_in_graph:
            if not isinstance(store, RunGraph):
                raise NotSupported(
                    f"recording a run in the graph needs a store that writes; "
                    f"{type(store).__name__} only reads (record_in_graph=False)"
                )
            graph = store
        record_run(
            graph,
            RunRegistry(runs_dir),
            record,
            None
            if graph is None
            else functools.partial(task.record_answers, graph, record, instances, answers),
        )
    log.info("%s: %d instances, %s", task.name, len(instances), result.aggregate)
    return TaskRun(
        task=task,
        options=resolved,
        instances=list(instances),
        answers=answers,
        result=result,
        record=record,
        files=files,
    )


def score_task_files(
    task: BenchmarkTask,
    data: Path,
    predictions: Path,
    options: Mapping[str, Any] | None = None,
    *,
    runs_dir: Path | None = None,
    notes: str | None = None,
    only_answered: bool = False,
    progress: StageProgress | None = None,
) -> tuple[TaskResult, RunRecord]:
    """``bench score``: score a predictions file against released data (no store) and record
    it as a run the way :func:`run_task` records one (same config keys; ``data`` says what
    gold it was scored against, ``answer.model`` what produced the answers).

    With ``runs_dir`` the run is saved as JSON (there is no graph to record it in).
    """
    from scholarkg.benchmark.runs import RunRegistry, new_run

    resolved = task.resolve_options(options)
    start = time.perf_counter()
    with report_scoring_to(progress):
        result = task.score_files(
            Path(data), Path(predictions), resolved, only_answered=only_answered
        )
    check_result(task, result)
    model = predictions_model(predictions)
    name = model or Path(predictions).stem
    config = _run_config(
        task,
        resolved,
        result,
        kind="predictions",
        name=name,
        params={},
        graph=None,
        n_instances=len(result.per_instance),
    )
    config["answer"]["path"] = str(predictions)
    config["data"] = str(data)
    config["only_answered"] = only_answered
    if model:
        config["answer"]["model"] = model
    record = new_run(
        task.name,
        metrics=result.aggregate,
        per_instance=result.per_instance,
        config=config,
        models={"llm": model} if model else {},
        timings={"score": time.perf_counter() - start, "total": time.perf_counter() - start},
        classes=result.classes,
        notes=_joined_notes(notes, result),
    )
    if runs_dir is not None:
        RunRegistry(runs_dir).save(record)
    return result, record

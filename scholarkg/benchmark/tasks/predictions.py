"""Predictions produced elsewhere, imported into an LLM task: one documented format per task.

Why: a benchmark run must be reproducible without re-running the model (API budgets, GPUs
the user does not have here, the released LEGOBench answer files). So every LLM task accepts
its answers as a file instead of a client, and scores them exactly like answers it generated
itself.

**The JSONL format** (one JSON object per line, UTF-8, blank lines ignored)::

    {"id": "<instance id>", "<answer field>": "<model output>", "model": "<optional name>"}

=================  ==============  ============================================================
task               answer field    instance id and content
=================  ==============  ============================================================
legobench-rplm     ``response``    ``id`` = Leaderboard id in the graph (``lb:...``); the raw
                                   completion: paper titles best first, in any text layout
legobench-lgplm    ``answer``      ``id`` = Leaderboard id; the raw output holding a markdown
                                   table of (method, score) rows
=================  ==============  ============================================================

Rules: ``id`` is a non-empty string (an integer is accepted and read as its decimal text);
the answer field must be present and be a string or ``null`` (= no answer, scored as an
empty answer); ``model`` is optional and must be the same on every line that has it; other
keys (e.g. ``meta``) are ignored; an id may appear only once. Violations raise
:class:`~scholarkg.errors.InputError` naming the file, the line and the field.

**Released workbook layouts** (``.xlsx``): the answer column is the single column whose header
ends in the task's suffix (``<stem>_gen_rank`` for RPLM, ``<stem>_ldb`` for LGPLM) and
``<stem>`` is the model name. The released files carry no instance id, so each row is placed
by the first rule that applies:

1. an ``id`` / ``doc_key`` / ``leaderboard_id`` column;
2. ``task``, ``dataset`` and ``metric`` columns, matched to the instances' query triples;
3. a ``GT`` column equal to exactly one instance's gold text (RPLM: GT lines ``\\n``-joined);
4. a ``prompt`` or ``instruction`` column holding a query line the task's
   ``PredictionFormat.parse_prompt`` reads (LEGOBench: ``Query - Rank ...``);
5. position, when the workbook has exactly as many rows as there are instances.

Every task that takes predictions declares its :class:`~scholarkg.benchmark.task.PredictionFormat`
as the task class's ``prediction_format`` (the interface attribute); the LEGOBench tasks read
theirs with this module, the AAAR-1.0/ReviewCritique and SciReplicate tasks with their own
readers. ``run_task`` writes every run's answers in that format (``predictions.jsonl``).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.benchmark.task import PredictionFormat as PredictionFormat
from scholarkg.errors import InputError
from scholarkg.schema.ids import normalize_text
from scholarkg.textio import iter_jsonl

log = logging.getLogger(__name__)

ID_COLUMNS = ("id", "doc_key", "leaderboard_id")
QUERY_COLUMNS = ("task", "dataset", "metric")
PROMPT_COLUMNS = ("prompt", "instruction")


def prediction_format(task: str | PredictionFormat) -> PredictionFormat:
    """The format a task declares (``BenchmarkTask.prediction_format``); unknown tasks and
    tasks without prediction files are clear errors."""
    if isinstance(task, PredictionFormat):
        return task
    from scholarkg.benchmark.registry import load_task

    fmt = load_task(task).prediction_format
    if fmt is None:
        raise InputError(f"task {task!r} takes no prediction files", field="task")
    return fmt


@dataclass(frozen=True)
class AlignmentKey:
    """What a task knows about one instance, so workbook rows without ids can be placed.

    ``gt`` is the gold text as the workbook's ``GT`` column would hold it; ``query`` the
    (task, dataset, metric) triple.
    """

    id: str
    gt: str | None = None
    query: tuple[str, str, str] | None = None


@dataclass
class PredictionSet:
    """Predictions read from one file: ``{instance id: answer text}`` plus provenance."""

    task: str
    path: str
    layout: str  # "jsonl" or "workbook"
    model: str | None
    predictions: dict[str, str] = field(default_factory=dict)
    n_blank: int = 0


def read_predictions(
    task: str | PredictionFormat,
    path: str | Path,
    *,
    align: Sequence[AlignmentKey] | None = None,
) -> PredictionSet:
    """Read and validate a prediction file of ``task`` (JSONL, or a released ``.xlsx``).

    ``align`` is needed only for workbooks whose rows carry no id (see module docstring).
    """
    fmt = prediction_format(task)
    task = fmt.task
    path = Path(path)
    if not path.is_file():
        raise InputError("prediction file not found", path=path)
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        if fmt.workbook_suffix is None:
            raise InputError(f"task {task!r} has no workbook layout; use JSONL", path=path)
        return _read_workbook(fmt, path, align)
    return _read_jsonl(fmt, path)


def import_predictions(
    task: str | PredictionFormat,
    path: str | Path,
    *,
    align: Sequence[AlignmentKey] | None = None,
) -> dict[str, str]:
    """``{instance id: prediction}`` from a file of ``task`` (see :func:`read_predictions`)."""
    return read_predictions(task, path, align=align).predictions


# --------------------------------------------------------------------------- JSONL


def _read_jsonl(fmt: PredictionFormat, path: Path) -> PredictionSet:
    out = PredictionSet(task=fmt.task, path=str(path), layout="jsonl", model=None)
    for lineno, obj in iter_jsonl(path, missing="prediction file not found"):
        pid = _id_value(obj.get("id"), path=path, line=lineno)
        if fmt.answer_field not in obj:
            raise InputError(
                f"missing answer field (format of {fmt.task}: "
                f'{{"id": ..., "{fmt.answer_field}": ...}})',
                path=path,
                line=lineno,
                field=fmt.answer_field,
            )
        answer = obj[fmt.answer_field]
        if answer is not None and not isinstance(answer, str):
            raise InputError(
                f"must be a string or null, got {type(answer).__name__}",
                path=path,
                line=lineno,
                field=fmt.answer_field,
            )
        model = obj.get("model")
        if model is not None:
            if not isinstance(model, str):
                raise InputError("must be a string", path=path, line=lineno, field="model")
            if out.model is not None and model != out.model:
                raise InputError(
                    f"model {model!r} differs from {out.model!r} on an earlier line; one "
                    "file holds one model's answers",
                    path=path,
                    line=lineno,
                    field="model",
                )
            out.model = model
        if pid in out.predictions:
            raise InputError(f"duplicate id {pid!r}", path=path, line=lineno, field="id")
        if answer is None or not answer.strip():
            out.n_blank += 1
        out.predictions[pid] = answer or ""
    if not out.predictions:
        raise InputError("no predictions in file", path=path)
    return out


def _id_value(value: Any, *, path: Path, line: int, field: str = "id") -> str:
    if isinstance(value, bool) or value is None:
        raise InputError("missing or not a string", path=path, line=line, field=field)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if not isinstance(value, str) or not value.strip():
        raise InputError("must be a non-empty string", path=path, line=line, field=field)
    return value.strip()


# --------------------------------------------------------------------------- workbooks


def _cell_text(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = value if isinstance(value, str) else str(value)
    return text if text.strip() else None


def _query_key(task: str, dataset: str, metric: str) -> tuple[str, str, str]:
    return (normalize_text(task), normalize_text(dataset), normalize_text(metric))


def _read_workbook(
    fmt: PredictionFormat, path: Path, align: Sequence[AlignmentKey] | None
) -> PredictionSet:
    from scholarkg.loaders.workbook import answer_column, read_sheet_rows

    header, data = read_sheet_rows(path)
    names = [h.strip() if isinstance(h, str) else "" for h in header]
    a_col, model = answer_column(header, path, suffix=fmt.workbook_suffix or "")
    col = {n: i for i, n in enumerate(names) if n}
    keys = list(align or [])
    by_id = {k.id for k in keys}
    by_gt: dict[str, list[str]] = {}
    by_query: dict[tuple[str, str, str], list[str]] = {}
    for k in keys:
        if k.gt is not None:
            by_gt.setdefault(k.gt, []).append(k.id)
        if k.query is not None:
            by_query.setdefault(_query_key(*k.query), []).append(k.id)
    id_col = next((col[c] for c in ID_COLUMNS if c in col), None)
    q_cols = [col[c] for c in QUERY_COLUMNS] if all(c in col for c in QUERY_COLUMNS) else None
    gt_col = col.get("GT")
    p_col = next((col[c] for c in PROMPT_COLUMNS if c in col), None)
    positional = bool(keys) and len(keys) == len(data)

    out = PredictionSet(task=fmt.task, path=str(path), layout="workbook", model=model or None)
    for i, row in enumerate(data):
        line = i + 2

        def cell(j: int | None, _row: tuple[Any, ...] = row) -> str | None:
            return _cell_text(_row[j]) if j is not None and j < len(_row) else None

        pid: str | None = None
        if id_col is not None:
            pid = _id_value(row[id_col] if id_col < len(row) else None, path=path, line=line,
                            field=names[id_col])  # fmt: skip
            if keys and pid not in by_id:
                log.info("%s:%d: id %r is not among the instances", path, line, pid)
        if pid is None and q_cols is not None:
            t, d, m = (cell(j) for j in q_cols)
            if t and d and m:
                pid = _unique(
                    by_query.get(_query_key(t, d, m), []), path, line, "task/dataset/metric"
                )
        if pid is None and gt_col is not None and (gt := cell(gt_col)) is not None:
            pid = _unique(by_gt.get(gt, []), path, line, "GT")
        if (
            pid is None
            and p_col is not None
            and fmt.parse_prompt is not None
            and (prompt := cell(p_col)) is not None
        ):
            parsed = fmt.parse_prompt(prompt)
            if parsed is not None:
                pid = _unique(by_query.get(_query_key(*parsed), []), path, line, names[p_col])
        if pid is None and positional:
            pid = keys[i].id
        if pid is None:
            raise InputError(
                "cannot tell which instance this row answers: no id/doc_key column, no "
                "task/dataset/metric columns, no GT or prompt matching exactly one instance, "
                f"and {len(data)} rows for {len(keys)} instances (position needs equal counts)",
                path=path,
                line=line,
            )
        if pid in out.predictions:
            raise InputError(f"a second row answers instance {pid!r}", path=path, line=line)
        text = cell(a_col)
        if text is None:
            out.n_blank += 1
        out.predictions[pid] = text or ""
    if not out.predictions:
        raise InputError("no answer rows in workbook", path=path)
    return out


def _unique(ids: list[str], path: Path, line: int, what: str) -> str | None:
    """The one instance a row's ``what`` points at; ``None`` if none (fall through)."""
    if len(ids) > 1:
        log.debug(
            "%s:%d: %s matches %d instances; trying the next rule", path, line, what, len(ids)
        )
        return None
    return ids[0] if ids else None

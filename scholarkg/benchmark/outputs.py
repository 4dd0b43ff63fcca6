"""What a run writes: ``metrics.json``, the answers file, and its result tables.

The one place numbers become table cells: a run's own ``table.md`` (:func:`layout_table`,
written by every ``bench run``) and the comparison report (``scholarkg.benchmark.report``)
print the same metrics; both format values here, each with the decimals its task declares
(``TaskMetric.decimals``, what the paper prints), so the same number never reads ``0.42`` in
one file and ``0.4213`` in the other. :func:`metrics_payload` is the ``metrics.json`` object
(also ``bench score --format json``); the task base class writes it, the runner records it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from scholarkg.benchmark.results import PublishedRow, ReportLayout, Score, TaskResult
from scholarkg.textio import atomic_write_text

#: decimals of a metric its task does not declare
GENERIC_DECIMALS = 4
#: what an absent or undefined value prints as
MISSING = "–"


def format_value(value: float | None, decimals: int) -> str:
    """``value`` with ``decimals`` places; ``–`` for a missing or non-finite one."""
    if value is None or not math.isfinite(value):
        return MISSING
    return f"{value:.{decimals}f}"


def format_p(p: float | None) -> str:
    """A p-value: three places, ``<0.001`` below that."""
    if p is None or not math.isfinite(p):
        return MISSING
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub-flavoured Markdown table (cells escaped: a ``|`` in a label cannot split it)."""
    lines = [
        "| " + " | ".join(_escape(h) for h in header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    lines += ["| " + " | ".join(_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def published_rows(layout: ReportLayout, configuration: Mapping[str, object]) -> list[PublishedRow]:
    """The published rows of the table ``configuration`` selects (a key the row does not name
    matches anything; a configuration value the run does not set counts as ``"all"``)."""
    return [
        row
        for row in layout.published
        if all(str(configuration.get(k, "all")) == v for k, v in row.configuration.items())
    ]


def layout_table(
    layout: ReportLayout,
    runs: Sequence[tuple[str, TaskResult]],
    configuration: Mapping[str, object],
    *,
    decimals: Mapping[str, int],
    published: Sequence[PublishedRow] | None = None,
) -> str:
    """``| system | <columns> |`` in Markdown: each run's means (with the 95 % interval when
    the run has one), then the published rows, always labelled as numbers on the real data
    so a synthetic run is never read as a reproduction. ``decimals``: per metric, the places
    the paper prints (:data:`GENERIC_DECIMALS` for one not given)."""
    cols = layout.columns
    lines = [f"### {layout.title}", ""]
    if layout.config_keys:
        shown = ", ".join(f"{k}={configuration.get(k)}" for k in layout.config_keys)
        lines += [f"configuration: {shown}", ""]
    body: list[list[str]] = []
    any_interval = False
    for label, result in runs:
        cells = []
        for c in cols:
            d = decimals.get(c, GENERIC_DECIMALS)
            v = result.aggregate.get(c)
            if v is not None and c in result.intervals:
                low, high = result.intervals[c]
                cells.append(
                    f"{format_value(v, d)} [{format_value(low, d)}, {format_value(high, d)}]"
                )
                any_interval = True
            else:
                cells.append(format_value(v, d))
        body.append([label, *cells])
    rows = published_rows(layout, configuration) if published is None else list(published)
    for row in rows:
        cells = [format_value(row.values.get(c), decimals.get(c, GENERIC_DECIMALS)) for c in cols]
        body.append([f"{row.label} (published, real data)", *cells])
    lines.append(markdown_table(["system", *cols], body))
    if rows:
        lines += ["", "Published rows: " + "; ".join(sorted({r.source for r in rows})) + "."]
    if any_interval:
        lines += ["", f"Ours: mean over {layout.instance_label}s, 95 % interval in brackets."]
    return "\n".join(lines) + "\n"


class ScoredTask(Protocol):
    """What :func:`metrics_payload` reads of a task (a ``BenchmarkTask`` is one): named here,
    so this module, below the task interface, needs nothing of it."""

    @property
    def layout(self) -> ReportLayout: ...

    def units(self) -> dict[str, str]: ...


def metrics_payload(task: ScoredTask, result: TaskResult) -> dict[str, Any]:
    """The ``metrics.json`` / ``bench score --format json`` object of a result."""
    per_key = f"per_{task.layout.instance_label}"
    payload: dict[str, Any] = {
        "aggregate": {k: _finite(v) for k, v in result.aggregate.items()},
        per_key: {
            iid: {k: _finite(v) for k, v in scores.items()}
            for iid, scores in result.per_instance.items()
        },
        "units": {k: u for k, u in task.units().items() if k in result.aggregate},
    }
    if result.intervals:
        payload["intervals"] = {k: list(v) for k, v in result.intervals.items()}
    if result.classes:
        payload["classes"] = {
            c: {k: _finite(v) for k, v in s.items()} for c, s in result.classes.items()
        }
    return payload


def write_prediction_rows(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    """``rows`` as JSONL (one object per line, UTF-8, written atomically)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows)
    atomic_write_text(path, text)
    return path


def _finite(value: Score) -> Score:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None

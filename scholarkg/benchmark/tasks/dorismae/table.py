"""The DORIS-MAE table: our runs (mean and 95 % interval) beside the published rows.

The generic report (``benchmark/report.py``) does not read a task's ``ReportLayout.published``
yet, so the family renders its own Markdown table; ``DorisMaeTask.write_outputs`` writes it
as ``table.md`` next to ``metrics.json``. Published rows are printed only for the matching
configuration (task and query set) and always labelled as published numbers on the real
data, so a synthetic run is never read as a reproduction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scholarkg.benchmark.task import PublishedRow, ReportLayout, TaskResult


def _matches(row: PublishedRow, configuration: Mapping[str, Any]) -> bool:
    return all(str(configuration.get(k, "all")) == v for k, v in row.configuration.items()) and (
        "queries" in row.configuration or configuration.get("queries", "all") == "all"
    )


def markdown_table(
    layout: ReportLayout,
    runs: Sequence[tuple[str, TaskResult]],
    configuration: Mapping[str, Any],
    *,
    data_note: str = "",
) -> str:
    """``| system | R@5 | … |`` rows: each run as ``mean [low, high]``, then published rows."""
    cols = layout.columns
    lines = [
        f"### {layout.title}",
        "",
        "configuration: " + ", ".join(f"{k}={configuration.get(k)}" for k in layout.config_keys),
        "",
        "| system | " + " | ".join(cols) + " |",
        "|---|" + "---|" * len(cols),
    ]
    for label, result in runs:
        cells = []
        for c in cols:
            v = result.aggregate.get(c)
            if v is None:
                cells.append("–")
                continue
            low, high = result.intervals.get(c, (float("nan"), float("nan")))
            cells.append(f"{v:.2f} [{low:.2f}, {high:.2f}]")
        lines.append(f"| {label}{data_note} | " + " | ".join(cells) + " |")
    published = [r for r in layout.published if _matches(r, configuration)]
    for row in published:
        cells = [f"{row.values[c]:.2f}" if c in row.values else "–" for c in cols]
        lines.append(f"| {row.label} (published, real data) | " + " | ".join(cells) + " |")
    if published:
        lines += ["", "Published rows: " + "; ".join(sorted({r.source for r in published})) + "."]
    lines += ["", "Ours: mean over queries, seeded bootstrap 95 % interval (×100)."]
    return "\n".join(lines) + "\n"

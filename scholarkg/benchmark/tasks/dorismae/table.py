"""Which published DORIS-MAE rows sit beside a run in ``table.md``.

The table itself is the task interface's (``BenchmarkTask.results_table``); DORIS-MAE adds one
rule: the paper's rows are computed on every query, so a row that names no query set is shown
only for a run on all queries (``--queries``), never beside a subset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scholarkg.benchmark.outputs import published_rows
from scholarkg.benchmark.results import PublishedRow, ReportLayout


def published_for(layout: ReportLayout, configuration: Mapping[str, Any]) -> list[PublishedRow]:
    """The rows of ``configuration``'s table that are comparable with its query set."""
    return [
        row
        for row in published_rows(layout, configuration)
        if "queries" in row.configuration or configuration.get("queries", "all") == "all"
    ]

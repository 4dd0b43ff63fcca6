"""Pure metric functions: plain data in, numbers out; no graph, no files, no network.

The public name table is :data:`METRICS` (template → :class:`MetricFamily`): metric strings
such as ``P@10``, ``nDCG@10``, ``MAP`` or ``NDCG_10%`` are parsed once with
:func:`parse_metric`, and the "unknown metric" error lists the table's keys, so the list of
valid names is never kept by hand.

Modules:

- ``ir``: trec_eval-compatible ranked-retrieval metrics and :func:`evaluate`.
- ``dorismae``: DORIS-MAE relevance from aspect scores and its metric protocol.
- ``trec``: readers/writers for TREC qrels/runs and JSONL ranked lists (input validation).
- ``ranking``, ``stats`` and siblings belong to their own tasks; import them directly.
"""

from __future__ import annotations

from scholarkg.benchmark.metrics.ir import (
    IR_METRICS,
    EvalResult,
    MetricFamily,
    MetricSpec,
    evaluate,
    metric_names,
    ndcg,
    parse_metric,
    parse_metrics,
    rank_scores,
)

#: The public name table (one entry per metric family; ``k``/``p`` are filled in by the name).
METRICS: dict[str, MetricFamily] = IR_METRICS

__all__ = [
    "METRICS",
    "EvalResult",
    "MetricFamily",
    "MetricSpec",
    "evaluate",
    "metric_names",
    "ndcg",
    "parse_metric",
    "parse_metrics",
    "rank_scores",
]

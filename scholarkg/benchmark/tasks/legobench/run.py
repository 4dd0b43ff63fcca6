"""RPLM and LGPLM runs for Python callers, and the demo's showing of both.

``scholarkg bench run legobench-rplm`` / ``legobench-lgplm`` make the same calls. These sit
above the task classes (``task.py``), which in turn use the instance builders and scorers in
``rplm.py`` / ``lgplm.py``, so the imports run one way only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.runs import RunRecord, RunRegistry
from scholarkg.benchmark.task import StageProgress
from scholarkg.benchmark.tasks.legobench.lgplm import LGPLMSettings
from scholarkg.benchmark.tasks.legobench.rplm import RPLMSettings
from scholarkg.benchmark.tasks.legobench.task import LGPLMTask, RPLMTask
from scholarkg.benchmark.tasks.llm_run import run_llm_task

if TYPE_CHECKING:
    from scholarkg.services.llm import LLMClient
    from scholarkg.store.base import GraphReader


def run_rplm(
    store: GraphReader,
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
    registry: RunRegistry | None = None,
    record_in_graph: bool = True,
    progress: StageProgress | None = None,
) -> RunRecord:
    """RPLM through :func:`~scholarkg.benchmark.runner.run_task` (the one run path): build
    instances from the graph, answer with ``client`` or import ``predictions_path``, score,
    record. A convenience for Python callers; ``scholarkg bench run legobench-rplm`` is the
    same call."""
    options: dict[str, Any] = {
        "protocol": protocol, "matcher": matcher, "seed": seed, "shuffle": shuffle,
        "entries": entries, "ids": list(ids) if ids is not None else None,
    }  # fmt: skip
    if settings is not None:
        options.update(max_tokens=settings.max_tokens, mode=settings.mode,
                       concurrency=settings.concurrency)  # fmt: skip
    return run_llm_task(
        RPLMTask(), store, client, predictions_path, options, limit=limit, registry=registry,
        record_in_graph=record_in_graph, progress=progress,
    )  # fmt: skip


def run_lgplm(
    store: GraphReader,
    client: LLMClient | None = None,
    *,
    predictions_path: str | Path | None = None,
    k: int = 10,
    limit: int | None = None,
    ids: Sequence[str] | None = None,
    gold_path: str | Path | None = None,
    max_context_tokens: int | None = None,
    settings: LGPLMSettings | None = None,
    average: str = "micro",
    registry: RunRegistry | None = None,
    record_in_graph: bool = True,
    progress: StageProgress | None = None,
) -> RunRecord:
    """LGPLM through :func:`~scholarkg.benchmark.runner.run_task` (the one run path): build
    instances, answer with ``client`` or import ``predictions_path`` (JSONL ``{"id",
    "answer"}`` or a released ``*_ldb`` workbook), score, record. Metrics are percentages:
    ``MR``, ``MP``, ``SP_generated`` (correct scores / generated methods, paper §3.4) and
    ``SP_correct`` (correct scores / correct methods, paper §4.3)."""
    options: dict[str, Any] = {
        "k": k, "gold": gold_path, "average": average, "max_context_tokens": max_context_tokens,
        "ids": list(ids) if ids is not None else None,
    }  # fmt: skip
    if settings is not None:
        options.update(max_tokens=settings.max_tokens, mode=settings.mode,
                       concurrency=settings.concurrency)  # fmt: skip
    return run_llm_task(
        LGPLMTask(), store, client, predictions_path, options, limit=limit, registry=registry,
        record_in_graph=record_in_graph, progress=progress,
    )  # fmt: skip


def demo_llm_tasks(
    store: GraphReader,
    *,
    base_url: str,
    n_instances: int = 3,
    model: str | None = None,
    max_tokens: int = 64,
    registry: RunRegistry | None = None,
    progress: StageProgress | None = None,
) -> list[RunRecord]:
    """A quick end-to-end showing for ``make demo``: RPLM on a few leaderboards, LGPLM on one.

    Small ``max_tokens`` and a short LGPLM context (3 passages, ~600 tokens) keep it to tens
    of seconds on the local SmolLM2 server; the scores of a 135M model are not the point.
    No response cache: a demo should show the model working, not a cache hit.
    """
    from scholarkg.services.llm import LLMClient

    runs: list[RunRecord] = []
    with LLMClient(base_url, model, timeout=600.0) as client:
        runs.append(
            run_rplm(
                store, client, limit=n_instances, registry=registry, progress=progress,
                settings=RPLMSettings(max_tokens=max_tokens, concurrency=1),
            )
        )  # fmt: skip
        runs.append(
            run_lgplm(
                store, client, limit=1, k=3, max_context_tokens=600, registry=registry,
                settings=LGPLMSettings(max_tokens=max_tokens, concurrency=1), progress=progress,
            )
        )  # fmt: skip
    return runs


__all__ = ["demo_llm_tasks", "run_lgplm", "run_rplm"]

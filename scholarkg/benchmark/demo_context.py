"""What a family's demo steps receive: the :class:`DemoContext` protocol.

``scholarkg demo`` runs every family's demo steps (``Family.demo_steps``) in one graph. The
steps live in the families' packages (``benchmark/tasks/<family>/demo.py``), below the demo
itself (``scholarkg.demo``), so they are handed everything they need through this one object
and never import the demo: the store and settings, where to write, the console, the sizes,
and the demo's shared services (numbered headings, loading files, recorded runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from scholarkg.benchmark.runs import RunRecord
    from scholarkg.config import Settings
    from scholarkg.loaders.steps import Step
    from scholarkg.store.base import GraphStore


class DemoContext(Protocol):
    """The demo's state and services, as a family's demo step sees them."""

    store: GraphStore
    settings: Settings
    out_dir: Path
    #: what the demo reports at the end (``demo-summary.json``); steps add their keys
    summary: dict[str, Any]
    console: Console
    n_papers: int
    n_leaderboards: int
    n_citerec: int
    #: whether steps that need the local LLM run
    with_llm: bool
    #: the LEGOBench world (its leaderboard papers are the ones the other corpora share)
    corpus: Any
    #: the graph the demo writes (for the CLI lines steps print)
    graph: str

    def step(self, title: str) -> float:
        """Print the next step's numbered heading; returns its start time."""
        ...

    def done(self, started: float) -> None:
        """Print how long the step took."""
        ...

    def shared_arxiv_ids(self) -> list[str]:
        """The arXiv ids of the papers every family's corpus shares (none without LEGOBench)."""
        ...

    def load(self, steps: Sequence[Step], *, batch_size: int) -> Any:
        """Load ``steps`` into the demo graph with a counter per file; the load summary."""
        ...

    def run_family(
        self,
        task_name: str,
        sources: Sequence[Any],
        options: dict[str, Any],
        *,
        limit: int | None = None,
    ) -> list[RunRecord]:
        """One recorded run per answer source (a ranker name or an ``AnswerSource``)."""
        ...

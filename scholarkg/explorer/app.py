"""What ``scholarkg explore`` can do, without HTTP: the web server only routes to this.

Keeping the behaviour here means the API is tested directly and the HTTP layer stays a
thin, auditable shell (token, Host check, JSON in and out). One lock serialises the
database calls: the FalkorDB client caches the graph's schema per connection object and
is not documented as thread-safe, and every query ends at its timeout, so a slow query
delays the others by at most that long.
"""

from __future__ import annotations

import logging
import re
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from scholarkg import __version__
from scholarkg.errors import InputError, ScholarKGError
from scholarkg.explorer.guard import (
    EXPLORER_FUNCTIONS,
    EXPLORER_PROCEDURES,
    check_query,
    explain_failure,
)
from scholarkg.explorer.saved import saved_queries
from scholarkg.store.base import EXPLORE_MAX_BYTES, GraphStore, bounded_timeout_ms

log = logging.getLogger(__name__)

#: Resamples for the bootstrap intervals of a report opened in the explorer: enough to
#: read, fast enough to open on a click (the CLI's ``scholarkg report`` uses 10,000).
REPORT_RESAMPLES = 1_000
_PARAM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class ExplorerConfig:
    """The limits every query in the explorer runs under (``explorer/guard.py``)."""

    allow_writes: bool = False
    timeout_ms: int = 10_000
    row_limit: int = 1_000
    #: procedures a read-only explorer may call (patterns)
    procedures: tuple[str, ...] = EXPLORER_PROCEDURES
    #: functions with a namespace it may call (patterns; ``--procedure`` adds to both)
    functions: tuple[str, ...] = EXPLORER_FUNCTIONS
    #: bytes of reply per query at most (the stream is cut there)
    max_bytes: int = EXPLORE_MAX_BYTES
    #: relationships fetched when a node is expanded in the view
    expand_limit: int = 25


class Explorer:
    """The explorer's operations over one open store and the runs directory."""

    def __init__(
        self, store: GraphStore, runs_dir: Path, config: ExplorerConfig | None = None
    ) -> None:
        self.store = store
        self.runs_dir = Path(runs_dir)
        self.config = config or ExplorerConfig()
        self._lock = threading.Lock()
        self._reports: dict[str, str] = {}

    # -- graph ---------------------------------------------------------------------------
    def info(self) -> dict[str, Any]:
        return (
            {
                "version": __version__,
                "backend": self.store.backend,
                "graph": self.store.graph,
            }
            | asdict(self.config)
            | {"timeout_ms": self.timeout_ms(), "asked_timeout_ms": self.config.timeout_ms}
        )

    def timeout_ms(self) -> int:
        """The time limit queries really run under: the configured one, bounded by the
        server's own maximum (a client may not outlive the server's cap)."""
        with self._lock:
            return bounded_timeout_ms(self.config.timeout_ms, self.store.server_timeout_ms())

    def query(self, text: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Run the editor's Cypher under the configured limits, after the guard has read
        its plan (read-only: no writes, files, URLs or procedures off the list)."""
        if not isinstance(text, str):  # {"query": 5} is not an empty query
            raise InputError(
                f"the query must be Cypher text, got {type(text).__name__}", field="query"
            )
        if not text.strip():
            raise InputError("the query is empty", field="query")
        if params is not None and not isinstance(params, Mapping):
            raise InputError("parameters must be a JSON object", field="params")
        for name in params or {}:
            # FalkorDB's client writes parameter names into a CYPHER header unquoted
            if not isinstance(name, str) or not _PARAM_NAME.fullmatch(name):
                raise InputError(f"invalid parameter name {name!r}", field="params")
        config = self.config
        with self._lock:
            timeout_ms = bounded_timeout_ms(config.timeout_ms, self.store.server_timeout_ms())
            try:
                # planning alone can hit a limit (FalkorDB evaluates constant lists)
                check_query(
                    self.store,
                    text,
                    params,
                    allow_writes=config.allow_writes,
                    procedures=config.procedures,
                    functions=config.functions,
                    timeout_ms=timeout_ms,
                )
                result = self.store.explore(
                    text,
                    dict(params or {}),
                    allow_writes=config.allow_writes,
                    timeout_ms=timeout_ms,
                    row_limit=config.row_limit,
                    max_bytes=config.max_bytes,
                )
            except ScholarKGError as err:
                stopped = explain_failure(
                    err, timeout_ms=timeout_ms, allow_writes=config.allow_writes
                )
                if stopped is None:
                    raise
                raise stopped from err
        return result.as_dict() | {"row_limit": config.row_limit, "max_bytes": config.max_bytes}

    def expand(self, ref: str) -> dict[str, Any]:
        """A node's neighbours, for a click in the node-link view."""
        if not isinstance(ref, str) or not ref:
            raise InputError("expand needs a node ref", field="ref")
        with self._lock:
            result = self.store.explore_neighbours(
                ref, limit=self.config.expand_limit, timeout_ms=self.config.timeout_ms
            )
        return result.as_dict()

    def schema(self) -> dict[str, Any]:
        """Labels and relationship types with counts, and the indexes."""
        with self._lock:
            counts = self.store.counts()
            indexes = self.store.explore_indexes()
        return {
            "labels": [{"name": k, "count": v} for k, v in sorted(counts.nodes.items())],
            "relationships": [
                {"name": k, "count": v} for k, v in sorted(counts.relationships.items())
            ],
            "indexes": sorted(
                indexes, key=lambda r: (r["label"], r["type"], ",".join(r["properties"]))
            ),
        }

    @staticmethod
    def saved() -> list[dict[str, Any]]:
        return [q.as_dict() for q in saved_queries()]

    # -- leaderboards --------------------------------------------------------------------
    def leaderboards(self) -> list[dict[str, Any]]:
        from scholarkg.leaderboards import list_leaderboards

        with self._lock:
            return list_leaderboards(self.store, limit=10_000)

    def leaderboard(self, leaderboard_id: str) -> dict[str, Any]:
        """One leaderboard ranked in its metric's direction (ground truth when no results)."""
        from scholarkg.leaderboards import gold_entries, ranked_results

        with self._lock:
            # an index seek on the id (the list query counts every board's entries)
            meta = self.store.run_named("leaderboard_metric", {"leaderboardId": leaderboard_id})
            if not meta:
                raise InputError(f"no leaderboard {leaderboard_id!r}", field="id")
            board = meta[0]
            direction, rows = ranked_results(self.store, leaderboard_id)
            gold = [] if rows else gold_entries(self.store, leaderboard_id)
        return {"leaderboard": board, "direction": direction, "results": rows, "gold": gold}

    # -- runs ----------------------------------------------------------------------------
    def _registry(self) -> Any:
        from scholarkg.benchmark.runs import RunRegistry

        return RunRegistry(self.runs_dir)

    def runs(self) -> list[dict[str, Any]]:
        """Recorded runs, newest first (the list a user scans for the latest result).

        From the runs' summary files: a listing needs no per-instance scores.
        """
        runs = self._registry().summaries()
        return [
            {
                "id": r.id,
                "task": r.task,
                "created": r.created,
                "models": r.models,
                "answered_by": r.answered_by,
                "answer_kind": r.answer_kind,
                "role": r.role,
                "dataset": r.dataset,
                "graph": r.graph,
                "instances": r.instances,
                "metrics": r.metrics,
            }
            for r in reversed(runs)
        ]

    def run(self, run_id: str) -> dict[str, Any]:
        """One run record without its per-instance scores (those are in the report)."""
        record = self._registry().load(self._run_id(run_id))
        data: dict[str, Any] = record.model_dump(exclude={"per_instance"})
        data["instances"] = len(record.per_instance)
        return data

    def run_report(self, run_id: str) -> str:
        """The run's self-contained HTML report (``benchmark.report``), built once."""
        from scholarkg.benchmark.report import write_report

        run_id = self._run_id(run_id)
        if run_id not in self._reports:
            record = self._registry().load(run_id)
            with tempfile.TemporaryDirectory(prefix="skg-explore-report-") as tmp:
                write_report([record], tmp, n_resamples=REPORT_RESAMPLES)
                self._reports[run_id] = (Path(tmp) / "report.html").read_text(encoding="utf-8")
        return self._reports[run_id]

    def _run_id(self, run_id: str) -> str:
        """Only a full id from this registry: never a path (``load`` also accepts files)."""
        if not isinstance(run_id, str) or run_id not in self._registry().ids():
            raise InputError(f"no run {run_id!r} in {self.runs_dir}", field="run")
        return run_id

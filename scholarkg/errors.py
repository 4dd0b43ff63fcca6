"""One exception tree, so the CLI can map every failure to a clear message and exit code.

Library code raises these; ``cli.py`` catches ``ScholarKGError`` and prints ``str(err)``
as one line (no traceback unless ``--debug``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


class ScholarKGError(Exception):
    """Root of every error scholarkg raises on purpose."""

    exit_code = 1


class ConfigError(ScholarKGError):
    """Settings are missing or contradict each other."""

    exit_code = 2


class InputError(ScholarKGError):
    """Bad input data; names the file, the line/record and the field so the user can fix it."""

    exit_code = 3

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
        unit: str = "line",
    ) -> None:
        self.path = str(path) if path is not None else None
        #: the line, or (``unit="record"``) the position of the record in a whole-file JSON
        #: document such as an API page, where a line number would point elsewhere
        self.line = line
        self.field = field
        self.message = message
        self.unit = unit
        # "path:line 7 (field 'x')", or as much of it as is known
        prefix = self.path or ""
        if line is not None:
            prefix = f"{prefix}:{unit} {line}" if prefix else f"{unit} {line}"
        if field:
            prefix = f"{prefix} (field '{field}')" if prefix else f"field '{field}'"
        super().__init__(f"{prefix}: {message}" if prefix else message)


class GraphNotFound(InputError):
    """A command that reads names a graph the store does not hold (a mistyped ``--graph``).

    Raised before anything is sent: on the embedded store a read would otherwise create the
    graph's key (``GRAPH.QUERY`` does) and answer with an empty result, and the empty graph
    would then be listed and backed up as if it held data. Lists the graphs there are, so
    the typo is plain to see.
    """

    def __init__(
        self,
        graph: str,
        graphs: Sequence[str] | None,
        *,
        hint: str = "create one with 'scholarkg load …'",
    ) -> None:
        """``graphs``: those the store holds (``None``: the server would not say); ``hint``:
        how to get one (a Neo4j database is not created by a load)."""
        self.graph = graph
        self.graphs = None if graphs is None else list(graphs)
        listed = "" if graphs is None else f"; graphs: {', '.join(graphs) or 'none'}"
        super().__init__(f"no graph {graph!r} in the store{listed} ({hint})")


class StoreError(ScholarKGError):
    """The graph store failed: server down, query rejected, constraint violated."""

    exit_code = 4


class CypherError(StoreError):
    """The server rejected a Cypher query; carries its message (and position when known)."""


class ServerError(StoreError):
    """The embedded server could not be started, reached or stopped."""


class ServerWedged(ServerError):
    """The embedded server stopped working (no CPU time, no answer) while a statement waited
    on it, and was killed; the message says what was lost (nothing acknowledged) and what to
    run (``falkordb/wedge_watch.py``)."""


class QueryLimitExceeded(StoreError):
    """A user's query was stopped by a limit (time, memory); the message says which, and what
    became of the server."""


class NotSupported(ScholarKGError):
    """The selected backend lacks a capability (e.g. FastRP on the embedded store)."""

    exit_code = 5


class TaskNotFound(ScholarKGError):
    """Unknown benchmark task id; the message lists the valid ones."""

    exit_code = 2


class FetchError(ScholarKGError):
    """A dataset download failed, was truncated, or did not match its checksum."""

    exit_code = 6


class LLMError(ScholarKGError):
    """The language model failed: the endpoint (message names the URL) or the local model."""

    exit_code = 7

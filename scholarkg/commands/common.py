"""What every CLI command shares: resolved settings, the store, and output formatting.

The CLI is a thin face: commands parse options, call library functions, print results.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from scholarkg.config import Settings, load_settings
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore
from scholarkg.textio import json_safe

if TYPE_CHECKING:
    from rich.progress import Progress

console = Console()
err_console = Console(stderr=True)

_state: dict[str, Any] = {"overrides": {}, "settings": None}

OUTPUT_FORMATS = ("table", "json", "csv")


def set_global_options(**overrides: Any) -> None:
    """Called once by the root callback with ``--backend``, ``--graph``, ``--debug``."""
    _state["overrides"] = {k: v for k, v in overrides.items() if v is not None}
    _state["settings"] = None


def settings() -> Settings:
    if _state["settings"] is None:
        _state["settings"] = load_settings(**_state["overrides"])
    return _state["settings"]


@contextmanager
def server_wait_line() -> Iterator[Callable[[Any], None]]:
    """While the block runs, a starting or loading embedded server is shown as one line.

    Installed as the process-wide wait callback of ``store.embedded``, so every command
    that starts the server (through ``open_store``) shows it; yields the callback for
    servers created directly (``db start``).
    """
    import time

    from scholarkg.store import embedded

    state: dict[str, Any] = {"status": None, "printed": 0.0}

    def show(progress: Any) -> None:
        text = progress.describe()
        if err_console.is_terminal:
            if state["status"] is None:
                state["status"] = err_console.status(text)
                state["status"].start()
            else:
                state["status"].update(text)
        elif time.monotonic() - state["printed"] >= 10.0:  # logs: a line every 10 s
            err_console.print(text, highlight=False)
            state["printed"] = time.monotonic()

    previous = embedded.set_wait_callback(show)
    try:
        yield show
    finally:
        embedded.set_wait_callback(previous)
        if state["status"] is not None:
            state["status"].stop()


@contextmanager
def store_session(*, write: bool = False) -> Iterator[GraphStore]:
    """Open the configured store (starting the embedded server if needed) and close it.

    ``write=True`` for commands that write in bulk (loads, import, schema, embeddings):
    at the end the store compacts its files (``GraphStore.compact``), also after a failed
    run that may have written part of its data; this one place keeps restarts fast.
    """
    from scholarkg.store import open_store

    with server_wait_line():
        store = open_store(settings())
    try:
        try:
            yield store
        except Exception:
            if write:
                with contextlib.suppress(Exception):  # never mask the command's own error
                    store.compact()
            raise
        if write:
            with err_console.status("compacting the store's files on disk"):
                store.compact()
    finally:
        store.close()


def checkpoint_scope_prefix(cfg: Settings, graph: str | None) -> str:
    """The start of every load-checkpoint scope for ``graph`` (all graphs: ``None``).

    A checkpoint says how much of a file one graph *in one store* holds, so the scope names
    the store's location too (the embedded data directory, or the Neo4j URI): two data
    directories under one ``SCHOLARKG_HOME`` must not share progress, or ``--resume`` in
    the second would skip records it never received.
    """
    location = str(cfg.data_dir) if cfg.backend == "embedded" else (cfg.neo4j.uri or "")
    head = f"{cfg.backend}@{location}:"
    return head if graph is None else f"{head}{graph}:"


def to_json(data: Any) -> str:
    return json.dumps(json_safe(data), ensure_ascii=False)


def print_rows(
    rows: Sequence[dict[str, Any]], fmt: str = "table", *, title: str | None = None
) -> None:
    """Print query rows as a rich table, a JSON list, or CSV."""
    if fmt == "json":
        print(to_json(list(rows)))
        return
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k)) for k in columns})
        print(buf.getvalue(), end="")
        return
    table = Table(title=title, show_lines=False)
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(row.get(c)) for c in columns))
    console.print(table)
    console.print(f"[dim]{len(rows)} row(s)[/dim]")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return to_json(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def fmt_number(value: float | None, digits: int = 4) -> str:
    """A table cell for a score: ``-`` for undefined (None or NaN), else fixed ``digits``."""
    return "-" if value is None or value != value else f"{value:.{digits}f}"


def check_choice(option: str, value: str, choices: Sequence[str]) -> None:
    """``--option value`` must be one of ``choices`` (the CLI's one wording for this error)."""
    if value not in choices:
        raise InputError(f"{option} {value!r}: choose one of {', '.join(choices)}")


def count_bar(*, quiet: bool = False) -> Progress:
    """A transient ``description bar n/total`` progress bar on stderr.

    ``quiet``: hidden when stderr is not a terminal, so JSON on stdout is not interleaved
    with bar redraws in logs (``--format json``, or commands whose output is always data).
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        console=err_console,
        transient=True,
        disable=quiet and not err_console.is_terminal,
    )


@contextmanager
def stage_progress(*, quiet: bool = False) -> Iterator[Callable[[str, int, int], None]]:
    """A ``progress(stage, done, total)`` callback drawing one :func:`count_bar` row per stage.

    The library's multi-stage runs (retrieve / generate / score) report through this shape.
    """
    with count_bar(quiet=quiet) as bar:
        stages: dict[str, Any] = {}

        def progress(stage: str, done: int, total: int) -> None:
            if stage not in stages:
                stages[stage] = bar.add_task(stage, total=total)
            bar.update(stages[stage], completed=done, total=total)

        yield progress

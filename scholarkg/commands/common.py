"""What every CLI command shares: resolved settings, the store, and output formatting.

The CLI is a thin face: commands parse options, call library functions, print results.
The consoles and row printing come from :mod:`scholarkg.console` (the demo prints the same
tables), re-exported here so commands import their helpers from one place.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scholarkg.config import Settings, load_settings
from scholarkg.console import OUTPUT_FORMATS as OUTPUT_FORMATS
from scholarkg.console import StageProgress, activity, progress_display
from scholarkg.console import console as console
from scholarkg.console import err_console as err_console
from scholarkg.console import print_rows as print_rows
from scholarkg.console import to_json as to_json
from scholarkg.errors import GraphNotFound, InputError
from scholarkg.interrupts import Terminated as Terminated
from scholarkg.interrupts import deferred, interruption
from scholarkg.store.base import GraphStore

if TYPE_CHECKING:
    from rich.status import Status

_state: dict[str, Any] = {"overrides": {}, "settings": None, "signal": None, "note": None}


def _on_signal(signum: int, frame: object) -> None:
    _state["signal"] = signum
    if not deferred(signum):  # an undo underway ends first (``scholarkg/interrupts.py``)
        raise interruption(signum)


def install_interrupt_handlers() -> None:
    """SIGINT and SIGTERM raise in the main thread (``cli.main``; SIGTERM would otherwise end
    the process on the spot, with no cleanup and exit status 0 from typer). A command begins
    with no interruption seen (in-process callers run many)."""
    _state["signal"] = None
    _state["note"] = None
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _on_signal)


def last_interrupt() -> int | None:
    """The signal that interrupted the command (``None``: none seen)."""
    signum: int | None = _state["signal"]
    return signum


#: what an interrupted command says when it set nothing more precise
DEFAULT_INTERRUPT_NOTE = (
    "stopped before the end. What the store acknowledged is kept and nothing is half-written "
    "(a load keeps whole batches: rerun it with --resume to go on from its checkpoint; a "
    "benchmark run is recorded whole or not at all: run it again)"
)


def set_interrupted_note(note: str | None) -> None:
    """What the command has stored so far and how to go on, said if it is interrupted."""
    _state["note"] = note


def interrupted_note() -> str:
    note: str | None = _state["note"]
    return note or DEFAULT_INTERRUPT_NOTE


def set_global_options(**overrides: Any) -> None:
    """Called once by the root callback with ``--backend``, ``--graph``, ``--debug``."""
    _state["overrides"] = {k: v for k, v in overrides.items() if v is not None}
    _state["settings"] = None


def explicit_graph() -> str | None:
    """The graph the user named (``--graph`` or ``SCHOLARKG_GRAPH``), ``None`` when the
    default applies: listings filter by graph only when one was asked for."""
    import os

    return _state["overrides"].get("graph") or os.environ.get("SCHOLARKG_GRAPH") or None


def settings() -> Settings:
    cached: Settings | None = _state["settings"]
    if cached is None:
        cached = load_settings(**_state["overrides"])
        _state["settings"] = cached
    return cached


@contextmanager
def server_wait_line() -> Iterator[Callable[[Any], None]]:
    """While the block runs, a starting or loading server is shown as one line.

    Installed as the process-wide wait callback (``store.process.set_wait_callback``), which
    the embedded FalkorDB and the managed Neo4j both report to, so every command
    that starts the server (through ``open_store``) shows it; yields the callback for
    servers created directly (``db start``).
    """
    import time

    from scholarkg.store.process import set_wait_callback

    status: Status | None = None
    printed = 0.0

    def show(progress: Any) -> None:
        nonlocal status, printed
        text = progress.describe()
        if err_console.is_terminal:
            if status is None:
                status = err_console.status(text)
                status.start()
            else:
                status.update(text)
        elif time.monotonic() - printed >= 10.0:  # logs: a line every 10 s
            err_console.print(text, highlight=False)
            printed = time.monotonic()

    previous = set_wait_callback(show)
    try:
        yield show
    finally:
        set_wait_callback(previous)
        if status is not None:
            status.stop()


@contextmanager
def running_store_session() -> Iterator[GraphStore | None]:
    """The configured store if its server already runs (never starts one) and holds the
    graph: ``None`` otherwise. For commands that work without a server and look at the graph
    only when it is there."""
    cfg = settings()
    if cfg.backend == "embedded":
        from scholarkg.store.falkordb.server import EmbeddedServer

        if EmbeddedServer(cfg.data_dir).pid() is None:
            yield None
            return
    elif cfg.backend == "neo4j" and not cfg.neo4j.uri:
        from scholarkg.store.neo4j.server import managed_server

        if managed_server(cfg).status(details=False).state != "running":
            yield None
            return
    with _session(write=False, check=None) as store:
        # a --graph the store cannot hold (on Neo4j another database) is not there either
        yield store if store.graph_exists() and _other_graph(store) is None else None


@contextmanager
def store_session(*, write: bool = False, creates_graph: bool = False) -> Iterator[GraphStore]:
    """Open the configured store (starting the embedded server if needed) and close it.

    The graph must be there (else ``GraphNotFound``, naming the graphs there are) unless
    ``creates_graph``: only commands that put data in a graph (loads, import, schema apply,
    a writing ``cypher``) may start a new one. A read of a mistyped ``--graph`` would
    otherwise answer with nothing, and on the embedded store leave an empty graph behind
    (any ``GRAPH.QUERY`` creates its key) that ``db status`` lists and ``db backup`` keeps.
    A graph the store cannot start (on Neo4j, any but its database) is refused either way,
    before the command sends anything (:func:`refuse_other_graph`).

    ``write=True`` for commands that write in bulk (loads, import, schema, embeddings):
    at the end the store compacts its files (``GraphStore.compact``), also after a failed
    run that may have written part of its data; this one place keeps restarts fast.
    """
    check = refuse_other_graph if creates_graph else require_graph
    with _session(write=write, check=check) as store:
        yield store


@contextmanager
def _session(*, write: bool, check: Callable[[GraphStore], None] | None) -> Iterator[GraphStore]:
    """:func:`store_session` with the graph check given (``None``: none, for
    :func:`running_store_session`, which only looks)."""
    from scholarkg.store import open_store
    from scholarkg.store.graph_lock import lock_folder, writing_graph

    cfg = settings()
    with server_wait_line():
        store = open_store(cfg)
    try:
        if check is not None:
            check(store)
        # one bulk writer per graph (store/graph_lock.py says why); refused before it writes
        lock = writing_graph(lock_folder(cfg), store.graph) if write else None
        with lock or contextlib.nullcontext():
            try:
                yield store
            except Exception:
                if write:
                    with contextlib.suppress(Exception):  # never mask the command's own error
                        store.compact()
                raise
            if write:
                with activity("compacting the store's files on disk"):
                    store.compact()
    finally:
        store.close()


def require_graph(store: GraphStore) -> None:
    """Refuse a store whose graph is not there (``GraphNotFound``, naming those there are):
    the graph the user named (:func:`refuse_other_graph`), then the store's own."""
    refuse_other_graph(store)
    if not store.graph_exists():
        raise GraphNotFound(store.graph, store.graph_names())


def refuse_other_graph(store: GraphStore) -> None:
    """Refuse a ``--graph`` (or ``SCHOLARKG_GRAPH``) that names a graph this store is not.

    On Neo4j a graph is a database, the one ``NEO4J_DATABASE`` names (opening the store on a
    missing one already fails), and ``--graph`` selects none: a graph named there that is
    not the store's database is not in the store, and a command would have read it from, or
    written it (a load, ``import``, ``db reset``, ``graph pagerank --write``) into, the
    store's database instead, with the load's checkpoints filed under that database. Reads
    and writes are refused alike, before anything is sent. On the embedded store the store's
    graph is the one named, so nothing is refused here.
    """
    named = _other_graph(store)
    if named is None:
        return
    raise GraphNotFound(
        named,
        store.graph_names(),
        hint=f"on {store.backend}, --graph selects no database: this store reads and writes "
        f"only {store.graph!r}, the database NEO4J_DATABASE names; drop --graph and "
        "SCHOLARKG_GRAPH to use it, or set NEO4J_DATABASE to another database",
    )


def _other_graph(store: GraphStore) -> str | None:
    """The graph the user named when it is not the store's (``None``: none named, or the
    same)."""
    named = explicit_graph()
    return None if named is None or _same_graph(store, named, store.graph) else named


def _same_graph(store: GraphStore, a: str, b: str) -> bool:
    """Two graph names naming one graph: Neo4j's database names are case-insensitive
    (``--graph Papers`` is the database ``papers``), FalkorDB's keys are not."""
    return a.lower() == b.lower() if store.backend == "neo4j" else a == b


def fmt_number(value: float | None, digits: int = 4) -> str:
    """A table cell for a score: ``-`` for undefined (None or NaN), else fixed ``digits``."""
    return "-" if value is None or value != value else f"{value:.{digits}f}"


class OutputFormat(StrEnum):
    """What ``--format`` takes, on every command: a table to read, or JSON / CSV for programs."""

    table = "table"
    json = "json"
    csv = "csv"


#: the one ``--format`` option; a command whose output is not one list of rows (a text, a
#: document) takes it too and refuses csv with :func:`no_csv`
FormatOpt = Annotated[
    OutputFormat,
    typer.Option(
        "--format", "-f", case_sensitive=False, help="table (to read), json or csv (for programs)."
    ),
]


def no_csv(fmt: str, what: str) -> None:
    """``--format csv`` where the output is not one list of rows: say so, suggest json."""
    if fmt == OutputFormat.csv:
        raise InputError(f"--format csv: {what} is not one table of rows; use --format json")


def check_choice(option: str, value: str, choices: Sequence[str]) -> None:
    """``--option value`` must be one of ``choices`` (the CLI's one wording for this error)."""
    if value not in choices:
        raise InputError(f"{option} {value!r}: choose one of {', '.join(choices)}")


@contextmanager
def stage_progress(*, unit: str | Callable[[str], str] = "") -> Iterator[StageProgress]:
    """A ``progress(stage, done, total)`` callback for the library's multi-stage runs
    (retrieve / generate / score): :func:`scholarkg.console.progress_display` with bars that
    leave the screen when done (the command's table follows), or lines in a log."""
    with progress_display(unit=unit, transient=True) as progress:
        yield progress

"""The ``scholarkg`` command line: a thin typer face over library functions.

Errors raised on purpose (``ScholarKGError``) print as one line on stderr with a non-zero
exit code; ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Annotated

import typer

from scholarkg import __version__
from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    err_console,
    install_interrupt_handlers,
    interrupted_note,
    last_interrupt,
    print_rows,
    require_graph,
    set_global_options,
    set_interrupted_note,
    settings,
    store_session,
)
from scholarkg.commands.help_text import plain_help
from scholarkg.errors import CypherError, InputError, QueryLimitExceeded, ScholarKGError


def _fit_help_to_the_output() -> None:
    """``--help`` as wide as the rest of our output: typer draws help on a console of its own,
    80 columns wide when stdout is not a terminal (a pipe, a CI log), which folds every option
    into a column of one-word lines; ours use 100 there (``console.PIPE_WIDTH``). Typer's own
    ``TERMINAL_WIDTH`` and ``COLUMNS`` still win."""
    from typer import rich_utils

    from scholarkg.console import console

    if rich_utils.MAX_WIDTH is None and not console.is_terminal:
        rich_utils.MAX_WIDTH = console.width


_fit_help_to_the_output()

app = typer.Typer(
    name="scholarkg",
    help="The scholarly record in a graph database, with the field's benchmarks run on it.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

#: (command name, module with a ``typer.Typer`` called ``app``); registered explicitly.
SUBAPPS: tuple[tuple[str, str], ...] = (
    ("db", "scholarkg.commands.db"),
    ("graph", "scholarkg.commands.graph"),
    ("schema", "scholarkg.commands.schema"),
    ("load", "scholarkg.commands.load"),
    ("score", "scholarkg.commands.score"),
    ("bench", "scholarkg.commands.bench"),
    ("runs", "scholarkg.commands.runs"),
    ("llm", "scholarkg.commands.llm"),
    ("leaderboard", "scholarkg.commands.leaderboard"),
    ("embed", "scholarkg.commands.embed"),
    ("scireplicate", "scholarkg.commands.scireplicate"),
)
#: single commands: (module, function name) registered as top-level verbs
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("fetch", "scholarkg.commands.fetch", "fetch"),
    ("report", "scholarkg.commands.report", "report"),
    ("export", "scholarkg.commands.transfer", "export_graph"),
    ("import", "scholarkg.commands.transfer", "import_graph"),
    ("demo", "scholarkg.commands.demo", "demo"),
    ("explore", "scholarkg.commands.explore", "explore"),
    ("suggest", "scholarkg.commands.suggest", "suggest"),
    ("related", "scholarkg.commands.suggest", "related"),
)


def _version(value: bool) -> None:
    if value:
        print(f"scholarkg {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    backend: Annotated[
        str | None,
        typer.Option(
            help="Graph backend: embedded (default) or neo4j.", envvar="SCHOLARKG_BACKEND"
        ),
    ] = None,
    graph: Annotated[
        str | None,
        typer.Option(
            help="Graph name (a FalkorDB key; on Neo4j it selects no database: only the one "
            "NEO4J_DATABASE names is accepted).",
            envvar="SCHOLARKG_GRAPH",
        ),
    ] = None,
    debug: Annotated[bool, typer.Option(help="Show tracebacks on errors.")] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print version.")
    ] = False,
) -> None:
    """Global options apply to every command."""
    set_global_options(backend=backend, graph=graph, debug=debug or None)


#: what ``--help`` says of a ``--param`` value (``_parse_param`` reads it so)
PARAM_HELP = (
    "Query parameter key=value, repeatable. The value is read as JSON (42, 0.5, true, null, "
    '[1, 2], {"a": 1}, "123" for the text 123); anything else is taken as text as typed '
    "(-p name=Ada)."
)


def _parse_param(text: str) -> tuple[str, object]:
    """``k=v``: ``v`` read as JSON when it is JSON, else the text as typed (``-p s=hi``, which
    needs no quotes a shell would eat).

    A value that opens a JSON list, object or string (``[``, ``{``, ``"``) and does not parse
    is refused rather than sent as text: ``-p ids=[1, 2`` meant a list, and the query would
    have matched nothing with no word why.
    """
    if "=" not in text:
        raise InputError(f"--param {text!r}: expected key=value")
    key, raw = text.split("=", 1)
    try:
        value: object = json.loads(raw)
    except json.JSONDecodeError as err:
        if raw.lstrip()[:1] in ("[", "{", '"'):
            raise InputError(
                f"--param {key.strip()}: {raw!r} opens a JSON value that does not parse "
                f"({err.msg} at character {err.pos + 1}); quote the whole value as a JSON "
                "string to pass it as text (-p 'k=\"[a\"')"
            ) from None
        value = raw
    return key.strip(), value


def _may_create_a_graph(query: str) -> bool:
    """Whether ``query`` may run on a graph that is not there yet (and so start it, as a load
    does): it writes (a write clause: ``CREATE``, ``MERGE``, ``SET``, ``DELETE``, ``REMOVE``,
    ``CREATE INDEX`` among them) or calls a procedure off the read-only explorer's list
    (FalkorDB creates full-text indexes by procedure). A read is refused instead: FalkorDB
    would create the graph's key for it and answer with nothing, which a mistyped
    ``--graph`` must not do."""
    import fnmatch

    from scholarkg.explorer.guard import EXPLORER_PROCEDURES
    from scholarkg.store.cypher_text import read_calls, writes

    def read_only(name: str) -> bool:
        return any(fnmatch.fnmatchcase(name.lower(), p.lower()) for p in EXPLORER_PROCEDURES)

    calls = read_calls(query)
    return writes(query) or any(c.kind == "procedure" and not read_only(c.name) for c in calls)


#: rows ``scholarkg cypher`` prints at most unless --row-limit says otherwise
CYPHER_ROW_LIMIT = 100_000


@app.command()
def cypher(
    query: Annotated[str, typer.Argument(help="A Cypher statement; pass values with --param.")],
    param: Annotated[list[str] | None, typer.Option("--param", "-p", help=PARAM_HELP)] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            min=0.001,
            max=3600,
            help="Seconds the query may run (default and most: the server's own limit).",
        ),
    ] = None,
    row_limit: Annotated[
        int, typer.Option(min=1, max=1_000_000, help="Rows read and printed at most.")
    ] = CYPHER_ROW_LIMIT,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Run a Cypher query against the graph and print the rows (writes allowed), under limits.

    The query's shape is checked before it is sent (length, nesting); it runs under the
    server's time limit (or --timeout, never longer), and reading stops after --row-limit
    rows or 256 MiB. A query that outlives its limit is stopped: the embedded server is
    restarted on its files if it must be, nothing stored is lost (docs/backends.md, Security).
    """
    from scholarkg.commands.cypher_output import (
        changes_line,
        endpoint_refs,
        graph_rows,
    )
    from scholarkg.store.base import CYPHER_MAX_BYTES, GraphNode, bounded_timeout_ms
    from scholarkg.store.cypher_text import writes

    params = dict(_parse_param(p) for p in (param or []))
    set_interrupted_note("the query was interrupted; what was stored before it is kept")
    with store_session(creates_graph=True) as store:
        if not _may_create_a_graph(query):
            require_graph(store)
        server_ms = store.server_timeout_ms()
        asked = round(timeout * 1000) if timeout is not None else (server_ms or 3_600_000)
        timeout_ms = bounded_timeout_ms(asked, server_ms)
        if server_ms and asked > server_ms:
            err_console.print(
                f"--timeout {asked / 1000:g} s is above the server's limit of "
                f"{server_ms / 1000:g} s: the query stops at {server_ms / 1000:g} s",
                highlight=False,
            )
        try:
            result = store.explore(
                query,
                params,
                allow_writes=True,
                timeout_ms=timeout_ms,
                row_limit=row_limit,
                max_bytes=CYPHER_MAX_BYTES,
            )
        except KeyboardInterrupt:
            # what became of the query on the server (the embedded store stops one it still
            # runs by a restart: FalkorDB cannot cancel it)
            if outcome := getattr(store, "interrupted_query", None):
                set_interrupted_note(f"{outcome}; what was stored before it is kept")
            raise
        except CypherError as err:
            if not any(m in str(err) for m in ("Query timed out", "TransactionTimedOut")):
                raise
            # the server's own words ("Query timed out", or Neo4j's advice to retry in a
            # new transaction) said neither which limit nor how to change it
            raise QueryLimitExceeded(
                f"the query was stopped at its time limit of {timeout_ms / 1000:g} s "
                "(--timeout; the server's own limit: SCHOLARKG_FALKORDB_TIMEOUT or the "
                "managed Neo4j's db.transaction.timeout)"
            ) from None
        endpoints: dict[str, GraphNode] = {}
        if refs := endpoint_refs(result):  # relationships returned without their nodes
            try:
                endpoints = store.explore_node_keys(sorted(refs), timeout_ms=timeout_ms)
            except ScholarKGError as err:  # the query ran (and wrote): print what it gave
                err_console.print(f"relationships shown without their ends' ids: {err}")
    rows = graph_rows(result, endpoints, as_text=fmt != OutputFormat.json)
    if result.columns or fmt != OutputFormat.table:  # a statement with no RETURN: no table
        print_rows(rows, fmt)
    if result.changes or (writes(query) and not result.truncated):
        # the server's own counts (none read from a reply cut short: not 'no changes');
        # beside a table on stdout, else on stderr (JSON, CSV stay the rows for a program)
        out = console if fmt == OutputFormat.table else err_console
        out.print(changes_line(result.changes), highlight=False)
    for warning in result.warnings:
        err_console.print(f"warning: {warning}", highlight=False)
    if result.truncated:
        why = (
            f"the reply reached {CYPHER_MAX_BYTES >> 20} MiB"
            if result.limited_by == "bytes"
            else "a value is nested too deep to read"
            if result.limited_by == "depth"
            else f"--row-limit {row_limit}"
        )
        err_console.print(f"only the first {len(rows)} rows: {why}", highlight=False)


@app.command()
def stats(
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Counts per node label and relationship type."""
    with store_session() as store:
        counts = store.counts()
    rows = [{"kind": "node", "name": k, "count": v} for k, v in sorted(counts.nodes.items())]
    rows += [
        {"kind": "relationship", "name": k, "count": v}
        for k, v in sorted(counts.relationships.items())
    ]
    # the store's own name of what it read (on Neo4j the database, whatever --graph says)
    print_rows(rows, fmt, title=f"graph {store.graph!r} ({store.backend})")


def _register() -> None:
    """Add every verb group; explicit, so ``--help`` lists exactly what is registered here."""
    for name, module_name in SUBAPPS:
        app.add_typer(importlib.import_module(module_name).app, name=name)
    for name, module_name, func in COMMANDS:
        app.command(name=name)(getattr(importlib.import_module(module_name), func))
    plain_help(app)  # docstrings' ``code`` markup as plain quotes in --help


_register()


#: exit status of a command stopped by a signal: 128 + the signal's number, as a shell says
SIGNAL_EXIT = {2: 130, 15: 143}


def main() -> None:
    """Console-script entry point: run the app, turning our errors into one clean line.

    SIGINT (Ctrl-C) and SIGTERM stop a command the same way (SIGTERM raises ``Terminated``, a
    ``KeyboardInterrupt``, so every ``finally`` and every undo runs), and it exits with 130
    or 143 after one line saying what is stored and how to go on (``interrupted_note``).
    """
    install_interrupt_handlers()
    try:
        code = app(standalone_mode=False)
    except ScholarKGError as err:
        if settings_debug():
            raise
        if last_interrupt() is None:
            err_console.print(f"[red]error:[/red] {err}", highlight=False, soft_wrap=True)
            sys.exit(err.exit_code)
        # the signal landed while a driver waited for the server (the neo4j driver turns
        # the KeyboardInterrupt into a failed query): it is the interruption it caused
        err_console.print(f"[dim]{err}[/dim]", highlight=False, soft_wrap=True)
        code = 130
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except typer.Abort:
        if last_interrupt() is None:
            # a question answered no, or not at all (stdin closed): no interruption, so not
            # the interrupted line (exit 130 and "rerun with --resume" said of a reset the
            # user declined); click raises Abort for a Ctrl-C at a prompt too, which the
            # signal handler has noted
            err_console.print("aborted: not confirmed, nothing was changed")
            sys.exit(1)
        code = 130
    except KeyboardInterrupt:
        code = 130
    except Exception as exc:  # click usage errors come through as ClickException
        import click

        # typer 0.29 raises its own vendored click's errors (an option's range among them):
        # not click.ClickException, but shown the same way, naming the option
        if isinstance(exc, click.ClickException) or (
            callable(getattr(exc, "show", None))
            and isinstance(getattr(exc, "exit_code", None), int)
        ):
            exc.show()  # type: ignore[attr-defined]  # checked just above
            sys.exit(exc.exit_code)  # type: ignore[attr-defined]  # checked just above
        if settings_debug():
            raise
        err_console.print(f"[red]error:[/red] {type(exc).__name__}: {exc}", highlight=False)
        err_console.print("[dim](run with --debug for the traceback)[/dim]")
        sys.exit(1)
    # typer returns the status in non-standalone mode (130 for a KeyboardInterrupt)
    if isinstance(code, int) and code:
        if code == 130:
            signum = last_interrupt() or 2
            code = SIGNAL_EXIT.get(signum, 128 + signum)
            name = "SIGTERM" if signum == 15 else "Ctrl-C (SIGINT)"
            err_console.print(
                f"interrupted by {name}: {interrupted_note()}", highlight=False, soft_wrap=True
            )
        sys.exit(code)


def settings_debug() -> bool:
    try:
        return settings().debug or "--debug" in sys.argv
    except ScholarKGError:
        return "--debug" in sys.argv


if __name__ == "__main__":
    main()

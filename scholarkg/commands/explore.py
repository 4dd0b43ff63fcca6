"""``scholarkg explore``: the graph in a browser (Cypher editor, node-link view, schema,
saved queries, leaderboards, runs), served on loopback behind a random token.

The behaviour lives in ``scholarkg.explorer``; this command only opens the store, prints
the URL and waits for Ctrl-C.
"""

from __future__ import annotations

import html
import threading
from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.common import console, settings, store_session
from scholarkg.console import err_console


def explore(
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="Port on 127.0.0.1 (0: any free port).")
    ] = 0,
    allow_writes: Annotated[
        bool,
        typer.Option("--allow-writes", help="Let queries change the graph (default: read-only)."),
    ] = False,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the URL without opening a browser.")
    ] = False,
    timeout: Annotated[
        float, typer.Option(min=0.001, max=3600, help="Seconds each query may run.")
    ] = 10.0,
    row_limit: Annotated[int, typer.Option(min=1, help="Rows returned per query at most.")] = 1000,
    procedure: Annotated[
        list[str] | None,
        typer.Option(
            "--procedure",
            help="Also allow this procedure or function (or pattern, e.g. 'gds.*.stream') in "
            "read-only mode; repeatable.",
        ),
    ] = None,
) -> None:
    """Explore the graph in a browser: read-only unless --allow-writes; Ctrl-C stops it."""
    from scholarkg.explorer.app import Explorer, ExplorerConfig
    from scholarkg.explorer.guard import EXPLORER_FUNCTIONS, EXPLORER_PROCEDURES
    from scholarkg.explorer.server import ExplorerServer

    config = ExplorerConfig(
        allow_writes=allow_writes,
        timeout_ms=max(1, round(timeout * 1000)),
        row_limit=row_limit,
        procedures=(*EXPLORER_PROCEDURES, *(procedure or ())),
        functions=(*EXPLORER_FUNCTIONS, *(procedure or ())),
    )
    with store_session() as store:
        app = Explorer(store, settings().runs_dir, config)
        effective = app.timeout_ms()
        if effective < config.timeout_ms:
            err_console.print(
                f"--timeout {timeout:g} s is above the server's limit of {effective / 1000:g} "
                f"s: queries stop at {effective / 1000:g} s",
                highlight=False,
            )
        server = ExplorerServer(app, port=port)
        server.start_background()
        mode = "[red]writes allowed[/red]" if allow_writes else "read-only"
        console.print(
            f"scholarkg explore: {store.backend} graph {store.graph!r}, {mode}; Ctrl-C stops it"
        )
        redirect = None
        # the URL is printed inside the try: a Ctrl-C that arrives as soon as a user (or a
        # test) has read it must still stop the server cleanly and say so
        try:
            print(server.url, flush=True)
            redirect = None if no_browser else _open_browser(server.url)
            threading.Event().wait()
        except KeyboardInterrupt:
            console.print("stopped")
        finally:
            server.stop()
            if redirect is not None:
                redirect.unlink(missing_ok=True)


def _open_browser(url: str) -> Path | None:
    """Open ``url`` through a private redirect file, as Jupyter does.

    Handing the URL itself to the browser's command line would show the token to every
    user of the machine (``ps``); the file is readable by its owner only (``mkstemp``).
    """
    import os
    import tempfile
    import webbrowser

    fd, name = tempfile.mkstemp(prefix="scholarkg-explore-", suffix=".html")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(
            '<!DOCTYPE html><meta charset="utf-8"><meta name="referrer" content="no-referrer">'
            f'<meta http-equiv="refresh" content="0;url={html.escape(url)}">'
            f'<p><a href="{html.escape(url)}">scholarkg explore</a></p>\n'
        )
    path = Path(name)
    if not webbrowser.open(path.as_uri()):
        err_console.print("could not open a browser: open the URL above yourself")
    return path

"""``scholarkg db``: start, stop and inspect the embedded FalkorDB server; reset a graph.

The server outlives these commands (persistent mode), so ``db start`` once and every
later command reuses it; ``db stop`` flushes the AOF and shuts it down cleanly.
"""

from __future__ import annotations

from typing import Annotated

import typer

from scholarkg.commands.common import console, print_rows, settings, store_session, to_json
from scholarkg.errors import ConfigError
from scholarkg.store.embedded import EmbeddedServer, ServerStatus

app = typer.Typer(help="Manage the embedded FalkorDB server and the current graph.")


def _server(thread_count: int | None = None) -> EmbeddedServer:
    cfg = settings()
    if cfg.backend != "embedded":
        raise ConfigError(
            f"'scholarkg db' manages the embedded server, but the backend is {cfg.backend!r}"
        )
    module_args = {"THREAD_COUNT": thread_count} if thread_count else None
    return EmbeddedServer(cfg.data_dir, module_args=module_args)


def _status_rows(st: ServerStatus) -> list[dict[str, object]]:
    versions = ", ".join(f"{k} {v}" for k, v in st.versions.items())
    rows: list[dict[str, object]] = [
        {"field": "state", "value": st.state},
        {"field": "pid", "value": st.pid},
        {"field": "data dir", "value": st.data_dir},
        {"field": "socket", "value": st.socket},
    ]
    if st.state == "running":
        rows += [
            {"field": "versions", "value": versions},
            {"field": "memory", "value": st.used_memory_human},
            {"field": "graphs", "value": ", ".join(st.graphs) or "(none)"},
            {"field": "started", "value": st.started},
        ]
    return rows


@app.command()
def start(
    thread_count: Annotated[
        int | None, typer.Option(help="FalkorDB THREAD_COUNT (default: one per core).")
    ] = None,
) -> None:
    """Start the embedded server (or reuse the running one) and print where it listens."""
    st = _server(thread_count).start()
    console.print(
        f"embedded FalkorDB running: pid {st.pid}, socket {st.socket}, data dir {st.data_dir}",
        highlight=False,
        soft_wrap=True,
    )


@app.command()
def stop() -> None:
    """Stop the embedded server (flushes the append-only file first)."""
    server = _server()
    if server.stop():
        console.print(f"stopped the embedded server of {server.data_dir}", highlight=False)
    else:
        console.print(f"no embedded server was running for {server.data_dir}", highlight=False)


@app.command()
def status(
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
) -> None:
    """State, pid, data dir, socket, versions, memory and graphs of the embedded server."""
    st = _server().status()
    if fmt == "json":
        print(to_json(st.as_dict()))
    else:
        print_rows(_status_rows(st), fmt, title="embedded FalkorDB")


@app.command()
def reset(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete the current graph: every node, relationship, index and constraint."""
    cfg = settings()
    with store_session() as store:
        counts = store.counts()
        if not yes:
            typer.confirm(
                f"Delete graph {cfg.graph!r} ({cfg.backend}: {counts.total_nodes} nodes, "
                f"{counts.total_relationships} relationships)?",
                abort=True,
            )
        store.clear()
    console.print(
        f"deleted graph {cfg.graph!r} ({counts.total_nodes} nodes, "
        f"{counts.total_relationships} relationships)",
        highlight=False,
    )

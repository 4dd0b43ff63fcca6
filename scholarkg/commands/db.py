"""``scholarkg db``: start, stop, inspect, back up and restore the graph server.

The embedded FalkorDB server (default) and, with ``--backend neo4j`` and no ``NEO4J_URI``,
the managed Neo4j server outlive these commands, so ``db start`` once and every later command
reuses it; ``db stop`` shuts the server down cleanly (FalkorDB compacts its append-only file
into a snapshot first, Neo4j checkpoints its store), so the next start is quick.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    print_rows,
    server_wait_line,
    settings,
    store_session,
    to_json,
)
from scholarkg.console import working
from scholarkg.errors import ConfigError, GraphNotFound
from scholarkg.store import open_store
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.backup import backup_store, restore_store
from scholarkg.store.falkordb.server import EmbeddedServer, ServerStatus
from scholarkg.store.neo4j.server import ManagedNeo4j, Neo4jStatus, managed_server
from scholarkg.store.neo4j.store import redact_uri

if TYPE_CHECKING:
    from scholarkg.store.falkordb.store import FalkorDBStore

app = typer.Typer(
    help="Manage the graph server (embedded FalkorDB, or the managed Neo4j with "
    "--backend neo4j) and the current graph."
)


def _managed_neo4j() -> ManagedNeo4j | None:
    """The managed Neo4j when the backend is neo4j (None for the embedded backend); an
    external server (``NEO4J_URI``) is not ours to start or stop."""
    cfg = settings()
    if cfg.backend != "neo4j":
        return None
    if cfg.neo4j.uri:
        raise ConfigError(
            f"NEO4J_URI points at an external server ({redact_uri(cfg.neo4j.uri)}); "
            "'scholarkg db start|stop|status' manage the project's own Neo4j: unset NEO4J_URI "
            "to use it"
        )
    return managed_server(cfg)


def _neo4j_status_rows(st: Neo4jStatus) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = [
        {"field": "state", "value": st.state},
        {"field": "pid", "value": st.pid},
        {"field": "home", "value": f"{st.home} ({_size(st.disk_bytes)} on disk)"},
        {"field": "bolt", "value": st.uri or ""},
    ]
    if st.browser:
        rows.append({"field": "browser", "value": st.browser})
    if st.state == "running":
        versions = ", ".join(f"{k} {v}" for k, v in st.versions.items())
        rows += [
            {"field": "versions", "value": versions},
            {"field": "heap", "value": st.heap},
            {"field": "guard", "value": st.guard or "none (an older launcher)"},
            {"field": "started", "value": st.started},
        ]
    rows.append({"field": "log", "value": st.log})
    return rows


def _server(thread_count: int | None = None) -> EmbeddedServer:
    cfg = settings()
    if cfg.backend != "embedded":
        raise ConfigError(
            f"'scholarkg db' manages the embedded server, but the backend is {cfg.backend!r}"
        )
    module_args = {"THREAD_COUNT": thread_count} if thread_count else None
    return EmbeddedServer(cfg.data_dir, module_args=module_args)


def _size(n: int | None) -> str:
    if n is None:
        return ""
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def _status_rows(st: ServerStatus) -> list[dict[str, object]]:
    versions = ", ".join(f"{k} {v}" for k, v in st.versions.items())
    rows: list[dict[str, object]] = [
        {"field": "state", "value": st.state},
        {"field": "pid", "value": st.pid},
        {"field": "data dir", "value": f"{st.data_dir} ({_size(st.disk_bytes)} on disk)"},
        {"field": "socket", "value": st.socket},
    ]
    if st.state in ("loading", "busy") and st.loading is not None:
        rows.append({"field": st.state, "value": st.loading.describe()})
    if st.state == "running":
        rows += [
            {"field": "versions", "value": versions},
            {"field": "memory", "value": st.used_memory_human},
            {"field": "started", "value": st.started},
        ]
    rows.append({"field": "persistence", "value": st.persistence or "aof"})
    if st.pid is not None and st.state != "stale":
        if st.keeper is not None:
            keeper = f"pid {st.keeper} (stops what runs past its limit once its client is gone)"
        elif st.persistence == "none":
            keeper = "none (a server that keeps no files is never restarted)"
        else:
            keeper = "not running (the first query of 'cypher' or 'explore' starts it)"
        rows.append({"field": "keeper", "value": keeper})
    for f in st.files:
        name = Path(f.name).name
        rows.append({"field": f"  {name}", "value": f"{_size(f.bytes)}, {f.modified}"})
    rows.append({"field": "last rewrite", "value": st.last_rewrite or "(never)"})
    if st.aof_log_bytes is not None:
        logged = f"{_size(st.aof_log_bytes)} (replayed on the next start)"
        rows.append({"field": "log since rewrite", "value": logged})
    if st.state == "running":
        if not st.graphs:
            rows.append({"field": "graphs", "value": "(none)"})
        for graph in st.graphs:
            c = st.graph_counts.get(graph, {})
            note = " INCOMPLETE: run 'db reset' and load again" if graph in st.incomplete else ""
            rows.append(
                {
                    "field": f"graph {graph}",
                    "value": f"{c.get('nodes', 0):,} nodes, "
                    f"{c.get('relationships', 0):,} relationships{note}",
                }
            )
        for graph in st.incomplete:
            if graph not in st.graphs:
                rows.append({"field": f"graph {graph}", "value": "INCOMPLETE (bulk load cut off)"})
    return rows


@app.command()
def start(
    thread_count: Annotated[
        int | None, typer.Option(help="FalkorDB THREAD_COUNT (default: one per core).")
    ] = None,
    browser: Annotated[
        bool,
        typer.Option(
            "--browser",
            help="--backend neo4j: also serve Neo4j Browser on 127.0.0.1 (it logs in over "
            "Bolt with the same user and password).",
        ),
    ] = False,
) -> None:
    """Start the server (or reuse the running one) and print where it listens.

    A large store takes a while to load: a progress line shows how far it got. With
    ``--backend neo4j`` the first start builds the launcher (Maven downloads Neo4j, GDS and
    APOC once) and generates the password (``<home>/neo4j/password``, mode 600).
    """
    neo = _managed_neo4j()
    if neo is not None:
        neo.browser = neo.browser or browser
        with server_wait_line() as show:
            neo.progress = show
            nst = neo.start()
        console.print(
            f"managed Neo4j running: pid {nst.pid}, {nst.uri} (127.0.0.1 only), "
            f"home {nst.home}; user neo4j, password in {neo.password_file}",
            highlight=False,
            soft_wrap=True,
        )
        if nst.browser:
            console.print(f"Neo4j Browser: {nst.browser}", highlight=False, soft_wrap=True)
        return
    if browser:
        raise ConfigError(
            "--browser serves Neo4j Browser for the managed Neo4j: add --backend neo4j"
        )
    server = _server(thread_count)
    with server_wait_line() as show:
        server.progress = show
        st = server.start()
        server.ensure_keeper()
    console.print(
        f"embedded FalkorDB running: pid {st.pid}, socket {st.socket}, data dir {st.data_dir}",
        highlight=False,
        soft_wrap=True,
    )


@app.command()
def stop() -> None:
    """Stop the server (embedded: its files are compacted into a snapshot first)."""
    neo = _managed_neo4j()
    if neo is not None:
        with working("stopping Neo4j (it checkpoints its store first)"):
            stopped = neo.stop()
        what = "stopped the managed Neo4j" if stopped else "no managed Neo4j was running"
        console.print(f"{what} of {neo.home}", highlight=False)
        return
    server = _server()
    if server.pid() is None:  # not "compacting … done", then "no server was running"
        server.stop()  # a dead server's leftovers (pid file, socket) go
        console.print(f"no embedded server was running for {server.data_dir}", highlight=False)
        return
    with working("compacting the store's files and stopping the server"):
        stopped = server.stop()
    if stopped:
        console.print(f"stopped the embedded server of {server.data_dir}", highlight=False)
    else:
        console.print(f"no embedded server was running for {server.data_dir}", highlight=False)


@app.command()
def status(
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """State, files on disk, last rewrite, versions, memory and graphs with their counts."""
    neo = _managed_neo4j()
    if neo is not None:
        nst = neo.status()
        if fmt == "json":
            print(to_json(nst.as_dict()))
        else:
            print_rows(_neo4j_status_rows(nst), fmt, title="managed Neo4j")
        return
    st = _server().status()
    if fmt == "json":
        print(to_json(st.as_dict()))
    else:
        print_rows(_status_rows(st), fmt, title="embedded FalkorDB")


@app.command()
def backup(
    directory: Annotated[
        Path, typer.Argument(help="New (or empty) directory for the backup.", file_okay=False)
    ],
) -> None:
    """Write a consistent snapshot of the running store (dump.rdb + backup.json) to DIRECTORY."""
    server = _server()
    with server_wait_line() as show:
        server.progress = show
        with working("saving a snapshot"):
            manifest = backup_store(server, directory)
    graphs = manifest["graphs"]
    console.print(
        f"backed up {len(graphs)} graph(s) to {directory}: "
        + ", ".join(
            f"{g} ({c['nodes']:,} nodes, {c['relationships']:,} relationships)"
            for g, c in graphs.items()
        ),
        highlight=False,
        soft_wrap=True,
    )


@app.command()
def restore(
    directory: Annotated[
        Path,
        typer.Argument(help="A directory written by 'scholarkg db backup'.", file_okay=False),
    ],
    force: Annotated[
        bool, typer.Option("--force", help="Replace a store that already holds graphs.")
    ] = False,
) -> None:
    """Replace the store with a backup: stop, put the files in place, start, check counts."""
    from scholarkg.store.graph_lock import lock_folder, replacing_store

    server = _server()
    # refused while any graph is written, and no load starts while it runs: a load would
    # see its server stop, or write on into the restored graph (store/graph_lock.py)
    with replacing_store(lock_folder(settings())), server_wait_line() as show:
        server.progress = show
        with working("restoring"):
            manifest = restore_store(server, directory, force=force)
    forgotten = _forget_checkpoints("embedded", None)
    console.print(
        f"restored {len(manifest['graphs'])} graph(s) from {directory} "
        f"(backup of {manifest['created']}); counts match backup.json",
        highlight=False,
        soft_wrap=True,
    )
    if forgotten:
        console.print(
            f"[dim]forgot {forgotten} load checkpoint(s): the restored graphs may hold less "
            "than they recorded, so a later --resume rewrites from the start[/dim]",
            soft_wrap=True,
        )


def _forget_checkpoints(backend: str, graph: str | None) -> int:
    """Delete the load checkpoints of ``graph`` (all graphs: None) of ``backend``.

    A checkpoint says how much of a file a graph holds; after a reset or a restore the
    graph holds less, and ``load … --resume`` would skip records that are no longer
    there. Forgetting costs at most a re-run of idempotent MERGE batches.
    """
    import json

    from scholarkg.loaders.checkpoint import checkpoint_scope_prefix

    cfg = settings()
    directory = cfg.checkpoints_dir
    prefix = checkpoint_scope_prefix(cfg.with_overrides(backend=backend), graph)
    removed = 0
    for path in sorted(directory.glob("*.json")) if directory.is_dir() else []:
        try:
            scope = json.loads(path.read_text(encoding="utf-8")).get("scope", "")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(scope, str) and scope.startswith(prefix):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


@app.command()
def reset(
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
) -> None:
    """Delete the current graph: every node, relationship, index and constraint."""
    cfg = settings()
    if cfg.backend == "embedded":
        # an incomplete (interrupted bulk) graph must stay reachable for exactly this
        with server_wait_line():
            store = open_store(cfg, allow_incomplete=True)
        try:
            # a graph that is not there (a mistyped --graph) is refused like any other
            # command's, naming those there are: "deleted (0 nodes)" read as if it had
            # been; one whose bulk load was cut off before its first node is still deleted
            if not store.graph_exists() and not cast("FalkorDBStore", store).is_incomplete():
                raise GraphNotFound(store.graph, store.graph_names(), hint="nothing to delete")
            _reset(store, cfg.backend, yes)
        finally:
            store.close()
        return
    with store_session() as store:
        _reset(store, cfg.backend, yes)


def _reset(store: GraphStore, backend: str, yes: bool) -> None:
    from scholarkg.store.graph_lock import lock_folder, writing_graph

    # never under a load: it would go on writing into the emptied graph (store/graph_lock.py)
    with writing_graph(lock_folder(settings()), store.graph):
        _reset_unlocked(store, backend, yes)


def _reset_unlocked(store: GraphStore, backend: str, yes: bool) -> None:
    # the store's own graph name: what loads scope their checkpoints by (on Neo4j the
    # database, whatever --graph says), so exactly those are forgotten
    graph = store.graph
    counts = store.counts()
    if not yes:
        typer.confirm(
            f"Delete graph {graph!r} ({backend}: {counts.total_nodes} nodes, "
            f"{counts.total_relationships} relationships)?",
            abort=True,
        )
    store.clear()
    store.compact()
    forgotten = _forget_checkpoints(backend, graph)
    console.print(
        f"deleted graph {graph!r} ({counts.total_nodes} nodes, "
        f"{counts.total_relationships} relationships)"
        + (f"; forgot {forgotten} load checkpoint(s)" if forgotten else ""),
        highlight=False,
        soft_wrap=True,
    )

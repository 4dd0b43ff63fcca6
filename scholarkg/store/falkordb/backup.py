"""``db backup`` and ``db restore``: a checked, point-in-time copy of the embedded store.

Why a module of its own: a backup is not part of running the server. It drives a running
``EmbeddedServer`` through its public lifecycle (``ensure_running``, ``stop``, ``start``,
``admin_client``), asks ``falkordb/persistence.py`` for one RDB snapshot (``BGSAVE``, waited for and
checked), and owns what makes a copy trustworthy: the ``backup.json`` manifest (versions,
graphs with their counts, size and SHA-256 of ``dump.rdb``), the checks made before a
restore touches anything, and putting the old files back when a restore fails.
"""

from __future__ import annotations

import contextlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg import __version__
from scholarkg.errors import InputError, StoreError
from scholarkg.store.falkordb.persistence import (
    AOF_DIR,
    RDB_FILE,
    bgsave_and_wait,
    redis_command,
)
from scholarkg.store.falkordb.server import graph_totals, incomplete_graphs
from scholarkg.textio import atomic_write_text, sha256_file

if TYPE_CHECKING:
    import redis

    from scholarkg.store.falkordb.server import EmbeddedServer

BACKUP_FORMAT = "scholarkg-store-backup"
BACKUP_VERSION = 1
BACKUP_MANIFEST = "backup.json"
#: where ``restore_store`` parks the files it replaces until the restored store checks out
PRE_RESTORE_DIR = "pre-restore"


def backup_store(server: EmbeddedServer, dest: Path | str) -> dict[str, Any]:
    """A consistent snapshot of the running store in ``dest`` (an empty or new dir).

    ``BGSAVE`` forks and writes one point-in-time RDB file, which is copied to
    ``dest/dump.rdb`` with ``dest/backup.json`` (versions, graphs with their node and
    relationship counts, file size and SHA-256). Counts are read before and after the
    save; if a writer changed them meanwhile, the save is repeated, so the manifest
    describes the snapshot.
    """
    out = Path(dest).expanduser().absolute()
    if out.exists() and any(out.iterdir()):
        raise InputError("backup directory is not empty; choose a new one", path=out)
    if out == server.data_dir or server.data_dir in out.parents:
        raise InputError("the backup must not be inside the data directory", path=out)
    st = server.ensure_running()
    dump = server.data_dir / RDB_FILE
    with server.admin_client(timeout=60.0) as client:
        for _attempt in range(3):
            before = _all_counts(client)
            bgsave_and_wait(client)
            after = _all_counts(client)
            if before == after:
                break
        else:
            raise StoreError(
                "the graphs kept changing during the backup; stop the running load and "
                "run 'scholarkg db backup' again"
            )
        incomplete = incomplete_graphs(client)
    out.mkdir(parents=True, exist_ok=True)
    target = out / RDB_FILE
    tmp = out / (RDB_FILE + ".part")
    shutil.copyfile(dump, tmp)
    tmp.replace(target)
    if server.persistence not in ("rdb", "aof+rdb"):
        dump.unlink(missing_ok=True)  # never read while the AOF exists: do not keep it
    manifest: dict[str, Any] = {
        "format": BACKUP_FORMAT,
        "format_version": BACKUP_VERSION,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "source_data_dir": str(server.data_dir),
        "versions": {**st.versions, "scholarkg": __version__},
        "graphs": after,
        "incomplete": incomplete,
        "files": {RDB_FILE: {"bytes": target.stat().st_size, "sha256": sha256_file(target)}},
    }
    atomic_write_text(out / BACKUP_MANIFEST, json.dumps(manifest, indent=2) + "\n")
    return manifest


def restore_store(
    server: EmbeddedServer, src: Path | str, *, force: bool = False
) -> dict[str, Any]:
    """Replace ``server``'s store with a backup made by :func:`backup_store`; returns its manifest.

    The backup is checked (manifest, size, SHA-256) before anything is touched. A store
    holding any graph is only replaced with ``force``. The server is stopped, the old
    files are parked in ``<data>/pre-restore/``, the RDB is put in place and the server
    started from it (see ``EmbeddedServer._spawn``: with appendonly on, Redis would
    ignore a lone RDB and start empty), then the counts are compared with the manifest.
    On any failure the parked files are put back.
    """
    manifest = read_backup_manifest(Path(src))
    source = Path(src).expanduser().absolute() / RDB_FILE
    if not server.persistent:
        raise InputError("restore needs a persistent store", field="persistence")
    existing = _existing_graphs(server)
    if existing and not force:
        listed = ", ".join(
            f"{g} ({c['nodes']} nodes, {c['relationships']} relationships)"
            for g, c in existing.items()
        )
        raise StoreError(
            f"the store in {server.data_dir} is not empty ({listed}); restoring would "
            "replace it: back it up first ('scholarkg db backup DIR') and rerun with --force"
        )
    server.stop(compact=False)
    parked = server.data_dir / PRE_RESTORE_DIR
    shutil.rmtree(parked, ignore_errors=True)
    parked.mkdir(parents=True)
    moved = []
    for name in (AOF_DIR, RDB_FILE):
        if (server.data_dir / name).exists():
            (server.data_dir / name).replace(parked / name)
            moved.append(name)
    try:
        tmp = server.data_dir / (RDB_FILE + ".part")
        shutil.copyfile(source, tmp)
        tmp.replace(server.data_dir / RDB_FILE)
        server.start()
        with server.admin_client(timeout=60.0) as client:
            got = _all_counts(client)
        if got != manifest["graphs"]:
            raise StoreError(
                f"restored store does not match {BACKUP_MANIFEST}: expected "
                f"{manifest['graphs']}, got {got}"
            )
    except BaseException:
        with contextlib.suppress(Exception):
            server.stop(compact=False)
        for name in (AOF_DIR, RDB_FILE):
            target = server.data_dir / name
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink(missing_ok=True)
        for name in moved:
            (parked / name).replace(server.data_dir / name)
        shutil.rmtree(parked, ignore_errors=True)
        raise
    shutil.rmtree(parked, ignore_errors=True)
    return manifest


def read_backup_manifest(directory: Path) -> dict[str, Any]:
    """``backup.json`` of a ``db backup`` directory, checked against its RDB file."""
    directory = Path(directory).expanduser().absolute()
    from scholarkg.store.transfer import read_format_json

    path = directory / BACKUP_MANIFEST
    data = read_format_json(
        path,
        BACKUP_FORMAT,
        BACKUP_VERSION,
        missing="missing; is this a 'scholarkg db backup' directory?",
    )
    graphs = data.get("graphs")
    if not isinstance(graphs, dict) or not all(
        isinstance(c, dict) and set(c) == {"nodes", "relationships"} for c in graphs.values()
    ):
        raise InputError("expected {graph: {nodes, relationships}}", path=path, field="graphs")
    files = data.get("files") or {}
    if not isinstance(files, dict):
        raise InputError("expected {file name: {bytes, sha256}}", path=path, field="files")
    entry = files.get(RDB_FILE)
    rdb = directory / RDB_FILE
    if not isinstance(entry, dict) or not rdb.is_file():
        raise InputError(f"{RDB_FILE} missing from the backup", path=rdb)
    if rdb.stat().st_size != entry.get("bytes") or sha256_file(rdb) != entry.get("sha256"):
        raise InputError(
            "size or SHA-256 differs from backup.json: the copy is damaged or incomplete",
            path=rdb,
        )
    return data


def _all_counts(client: redis.Redis) -> dict[str, dict[str, int]]:
    """``{graph: {"nodes": n, "relationships": m}}`` of every graph on the server."""
    graphs = sorted(str(g) for g in redis_command(client, "GRAPH.LIST"))
    return {g: graph_totals(client, g) for g in graphs}


def _existing_graphs(server: EmbeddedServer) -> dict[str, dict[str, int]]:
    """Graphs of this data dir (starting the server if there are files to look at)."""
    has_files = (server.data_dir / AOF_DIR).exists() or (server.data_dir / RDB_FILE).exists()
    if not has_files and server.status().state != "running":
        return {}
    server.ensure_running()
    with server.admin_client(timeout=60.0) as client:
        return _all_counts(client)

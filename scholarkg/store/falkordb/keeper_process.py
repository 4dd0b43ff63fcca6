"""Starting and stopping the embedded server's keeper (``falkordb/keeper.py``), apart from
the keeper itself so the server can start it without importing what the keeper imports (the
server, to restart it)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from scholarkg.store.process import pid_alive, read_pid, wait_exit

log = logging.getLogger(__name__)

KEEPER_PID_FILE = "keeper.pid"
KEEPER_LOCK_FILE = "keeper.lock"
KEEPER_LOG_FILE = "keeper.log"


def keeper_pid(data_dir: Path) -> int | None:
    """The running keeper's pid (``None``: none runs)."""
    pid = read_pid(data_dir / KEEPER_PID_FILE)
    return pid if pid is not None and pid_alive(pid) and _is_keeper(pid, data_dir) else None


def _is_keeper(pid: int, data_dir: Path) -> bool:
    """Whether ``pid`` is the keeper of ``data_dir`` (a copied directory's ``keeper.pid``
    names the original's keeper; a stale one may name another directory's)."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return True  # no /proc: trust the pid file
    return b"scholarkg.store.falkordb.keeper" in args and str(data_dir).encode() in args


def start_keeper(data_dir: Path) -> None:
    """Start the keeper of ``data_dir``'s server unless one runs (it outlives this process,
    as the server does)."""
    if keeper_pid(data_dir) is not None:
        return
    try:
        subprocess.Popen(
            [sys.executable, "-m", "scholarkg.store.falkordb.keeper", str(data_dir)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=data_dir,
            start_new_session=True,
        )
    except OSError as err:  # the server runs unkept, as before the keeper
        log.warning("could not start the embedded server's keeper: %s", err)


def stop_keeper(data_dir: Path, timeout: float = 5.0) -> None:
    """End the keeper first when the server is stopped on purpose: it must not take the stop
    for a held server, nor restart one being stopped."""
    pid = keeper_pid(data_dir)
    if pid is None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if not wait_exit(pid, timeout):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        wait_exit(pid, 2.0)

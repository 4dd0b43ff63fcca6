"""Server processes scholarkg owns: liveness, an exclusive lock file, graceful stop.

Shared by the embedded FalkorDB server (``falkordb/server.py``) and the managed Neo4j server
(``neo4j/server.py``): both are child processes that outlive the CLI command that started
them, are found again through a pid file, and must never be started twice on one data dir.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from scholarkg.errors import ServerError


class ServerWait(Protocol):
    """What a caller waiting for a server is told: anything that describes itself in one
    line (the embedded store's ``WaitProgress``, the managed Neo4j's ``StartProgress``)."""

    def describe(self) -> str: ...


#: ``progress(ServerWait)``, called while a server this process waits for starts or loads
ServerWaitCallback = Callable[[ServerWait], None]

#: process-wide default for servers created without ``progress=`` (the CLI sets one, so every
#: command that starts a server shows the waiting line without threading a callback through
#: ``open_store``)
_default_wait_callback: ServerWaitCallback | None = None


def wait_callback() -> ServerWaitCallback | None:
    """The process-wide wait callback, which both backends' servers report to while they
    start or load (when they were given no ``progress`` of their own)."""
    return _default_wait_callback


def set_wait_callback(callback: ServerWaitCallback | None) -> ServerWaitCallback | None:
    """Install the default wait callback; returns the previous one (to restore it)."""
    global _default_wait_callback
    previous = _default_wait_callback
    _default_wait_callback = callback
    return previous


#: Popen objects of servers this process started, so they are reaped (no zombies) and
#: never garbage-collected while running.
CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


def pid_alive(pid: int) -> bool:
    """True if ``pid`` is a live (non-zombie) process; reaps it first if it is our child."""
    child = CHILDREN.get(pid)
    if child is not None:
        if child.poll() is not None:
            CHILDREN.pop(pid, None)
            return False
    else:
        with contextlib.suppress(ChildProcessError, OSError):
            done, _ = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        with contextlib.suppress(OSError):
            state = stat.read_text().rsplit(")", 1)[1].split()[0]
            return state != "Z"
    return True


def cpu_ticks(pid: int) -> int | None:
    """User + system CPU ticks of ``pid`` (None where /proc is missing): a busy server's
    clock moves even when it is too busy to answer, a stopped or hung one's does not."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def process_age(pid: int) -> float | None:
    """Seconds since process ``pid`` started (Linux ``/proc``; ``None`` elsewhere or gone): how
    long a server too busy to answer has been at it, when no file of ours says when it began."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        uptime = float(Path("/proc/uptime").read_text().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, IndexError, ValueError):
        return None


def thread_states(pid: int) -> str:
    """``name state wchan`` of each thread of ``pid`` (Linux ``/proc``; ``""`` elsewhere): what a
    server that stopped answering is waiting on (``futex_wait_queue``: a lock)."""
    out: list[str] = []
    tasks = Path(f"/proc/{pid}/task")
    with contextlib.suppress(OSError):
        for task in sorted(tasks.iterdir(), key=lambda t: int(t.name)):
            try:
                comm = (task / "comm").read_text().strip()
                state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
                wchan = (task / "wchan").read_text().strip() or "-"
            except (OSError, IndexError):
                continue
            out.append(f"{task.name} {comm} {state} {wchan}")
    return "; ".join(out)


def read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


@contextlib.contextmanager
def exclusive_lock(lock_file: Path, timeout: float, what: str) -> Iterator[None]:
    """Exclusive ``flock`` on ``lock_file``; waits up to ``timeout`` s for another holder.

    ``what`` names the server in the error ("the server lock" of which data dir)."""
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError as err:
                if time.monotonic() > deadline:
                    raise ServerError(
                        f"{lock_file}: another scholarkg process holds the lock of {what} for "
                        f"more than {timeout:.0f} s ('scholarkg db status' shows its state)"
                    ) from err
                time.sleep(0.05)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def wait_exit(pid: int, timeout: float) -> bool:
    """Wait up to ``timeout`` s for ``pid`` to exit (reaping it if it is our child)."""
    child = CHILDREN.get(pid)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(timeout=0.05)
        if not pid_alive(pid):
            CHILDREN.pop(pid, None)
            return True
        time.sleep(0.05)
    return False


def terminate(pid: int, *, grace: float = 30.0, what: str = "server") -> None:
    """SIGTERM (both servers shut down cleanly on it), then SIGKILL after ``grace`` s."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
            if sig == signal.SIGTERM:  # a stopped (SIGSTOP) server handles it only now
                os.kill(pid, signal.SIGCONT)
        if wait_exit(pid, wait):
            return
    raise ServerError(f"{what} pid {pid} survived SIGKILL")

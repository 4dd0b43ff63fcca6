"""A fresh embedded server answers its first write, whatever its threads' timing.

Seen in CI (a test that waited 600 s for its first ``CREATE``) and, rarer, as a restarted
server that stopped after "Done decoding graph": FalkorDB 4.16 starts its finished-query task
(``CMD_INFO``, on by default) before it initialises the globals' read-write lock that the
task takes, so the lock can be initialised again while the task holds it; the first graph
created or decoded then waits on it for ever. scholarkg starts the server with ``CMD_INFO
no`` (``default_module_args``). On a loaded 2-core machine the race struck about once in
several thousand starts (``benchmarks/bench_first_query_race.py``); here a small
``LD_PRELOAD`` shim (``shims/start_race.c``) widens it until it always strikes.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from scholarkg.store.falkordb.server import EmbeddedServer

pytestmark = [pytest.mark.embedded, pytest.mark.slow]

SHIM = Path(__file__).parent / "shims" / "start_race.c"
CREATE = b"*3\r\n$11\r\nGRAPH.QUERY\r\n$1\r\ng\r\n$11\r\nCREATE (:A)\r\n"


def _first_write_answered(server: EmbeddedServer, within: float) -> bool:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(server.socket_path))
        sock.settimeout(within)
        sock.sendall(CREATE)
        try:
            return bool(sock.recv(100))
        except TimeoutError:
            return False


def _start_and_write(root: Path, module_args: dict[str, str | int | None]) -> bool:
    # the shim sleeps in the module's load: not a wedge, however long between CPU ticks
    server = EmbeddedServer(root, persistent=False, module_args=module_args, wedge_timeout=60)
    server.start()
    pid = server.pid()
    assert pid is not None
    try:
        return _first_write_answered(server, within=5.0)
    finally:
        os.kill(pid, signal.SIGKILL)  # a deadlocked server answers no SHUTDOWN
        server.stop(compact=False)


def test_the_first_write_is_answered_with_the_start_race_made_certain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler (gcc) to build the LD_PRELOAD shim")
    shim = tmp_path / "start_race.so"
    subprocess.run([gcc, "-shared", "-fPIC", "-O2", "-o", str(shim), str(SHIM), "-ldl"], check=True)
    monkeypatch.setenv("LD_PRELOAD", str(shim))

    t0 = time.monotonic()
    assert _start_and_write(tmp_path / "ours", {}), "scholarkg's server never answered"
    assert time.monotonic() - t0 < 30

    # the shim does make the race strike: with FalkorDB's own default the same start deadlocks
    # (if this fails, FalkorDB fixed its start: CMD_INFO may then be left at its default)
    assert not _start_and_write(tmp_path / "falkordb-default", {"CMD_INFO": None})

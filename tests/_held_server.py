"""A write that holds an embedded server: what the keeper, ``db stop`` and ``db status`` tests
need. A plain module (importable from every test folder, see ``tests/_fakes.py``).

FalkorDB keeps Redis's lock while a write runs, so the server answers nothing until it ends:
the write here computes one row for half a minute or more after creating a node.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
import time

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from scholarkg.store.falkordb.persistence import redis_command
from scholarkg.store.falkordb.server import EmbeddedServer


def once(server: EmbeddedServer, timeout: float | None = None) -> redis.Redis:
    """A client of ``server`` that never sends a command again (redis-py's default retries
    would send a held query again to the restarted server)."""
    return redis.Redis(
        unix_socket_path=str(server.socket_path),
        socket_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )


def wait_until_held(server: EmbeddedServer, seconds: float = 30.0) -> None:
    """Until ``GRAPH.INFO`` goes unanswered: a write holds the server."""
    deadline = time.monotonic() + seconds
    while True:
        assert time.monotonic() < deadline, "the write never held the server"
        try:
            server.running_queries(timeout=0.5)
        except redis.exceptions.TimeoutError:
            return
        time.sleep(0.1)


def hold_with_a_write(server: EmbeddedServer, graph: str, write: str) -> None:
    """Send ``write`` from a thread of its own (its reply, or the end the server's restart or
    stop gives it, is not awaited) and return once it holds the server."""

    def hold() -> None:
        client = once(server)
        with contextlib.suppress(redis.exceptions.RedisError):  # ended by a restart or stop
            redis_command(client, "GRAPH.QUERY", graph, write)

    threading.Thread(target=hold, daemon=True).start()
    wait_until_held(server)


def cypher_process(server: EmbeddedServer, graph: str, *args: str) -> subprocess.Popen[str]:
    """``scholarkg cypher ARGS`` in a process of its own on ``server``'s graph ``graph``, as a
    user runs it (stdout dropped, stderr kept)."""
    env = os.environ | {
        "SCHOLARKG_DATA_DIR": str(server.data_dir),
        "SCHOLARKG_GRAPH": graph,
        "SCHOLARKG_BACKEND": "embedded",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "scholarkg.cli", "cypher", *args],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip

"""What the embedded store says and does when a query's connection drops: a server that
aborted on a failed allocation comes back even when its process takes seconds to end, and
only a report of *this* server's failed allocation is blamed on the query."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from scholarkg.errors import QueryLimitExceeded, ServerError
from scholarkg.store.falkordb import store as store_module
from scholarkg.store.falkordb.server import out_of_memory_in_log
from scholarkg.store.falkordb.store import FalkorDBStore

_OOM = "12:M 02 Dec 2026 17:01:02.003 # Out Of Memory allocating 16400 bytes!\n"
_READY = "13:M 02 Dec 2026 17:01:09.120 * Ready to accept connections unix\n"


def test_only_an_allocation_failed_since_the_last_start_is_blamed(tmp_path: Path) -> None:
    log = tmp_path / "falkordb.log"
    log.write_text(_READY + _OOM, encoding="utf-8")
    assert out_of_memory_in_log(log)
    log.write_text(_READY + _OOM + _READY + "killed by someone\n", encoding="utf-8")
    assert not out_of_memory_in_log(log)
    log.write_text(_OOM, encoding="utf-8")  # the start line out of the tail read
    assert out_of_memory_in_log(log)
    assert not out_of_memory_in_log(tmp_path / "missing.log")


class _DyingServer:
    """The parts of ``EmbeddedServer`` the store asks after a dropped connection: a process
    that stays alive (and silent) for ``dying_s`` after the drop, then is gone; or one that
    lives on and answers (``answers_after_drop``)."""

    memory_limit = 3 << 30

    def __init__(self, log_file: Path, dying_s: float, *, answers_after_drop: bool = False):
        self.log_file = log_file
        self.gone_at = time.monotonic() + dying_s
        self.answers_after_drop = answers_after_drop
        self.started = 0

    def keeps_files(self) -> bool:
        return True

    def stopped_on_purpose(self) -> bool:  # an abort, not `db stop`
        return False

    def pid(self) -> int | None:
        if self.started or (not self.answers_after_drop and time.monotonic() >= self.gone_at):
            return None if not self.started else 4242
        return 4141

    def answers(self) -> bool:
        return self.answers_after_drop

    def ensure_running(self, **_: Any) -> None:
        self.started += 1

    def indexes_in_background(self) -> bool:
        return False


def _lost(server: _DyingServer) -> Exception:
    store = FalkorDBStore.__new__(FalkorDBStore)  # only the lost-server path is exercised
    store._server = server  # type: ignore[assignment]  # the parts that path reads
    return store._lost_during_query(4141, ConnectionError("Connection closed by server."))


def test_a_server_that_ends_slowly_after_an_abort_is_started_again(tmp_path: Path) -> None:
    log = tmp_path / "falkordb.log"
    log.write_text(_READY + _OOM, encoding="utf-8")
    server = _DyingServer(log, dying_s=1.5)
    t0 = time.monotonic()
    err = _lost(server)
    assert 1.4 <= time.monotonic() - t0 < 10
    assert isinstance(err, QueryLimitExceeded), err
    assert server.started == 1
    assert "more memory than the server may use (3.0 GiB" in str(err)
    assert "started it again" in str(err)


def test_a_server_that_lives_on_is_not_restarted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store_module, "_DYING_GRACE", 1.0)
    server = _DyingServer(tmp_path / "falkordb.log", dying_s=0, answers_after_drop=True)
    t0 = time.monotonic()
    err = _lost(server)
    assert time.monotonic() - t0 < 0.5  # it answers: no wait
    assert isinstance(err, ServerError) and server.started == 0
    assert "lost the embedded FalkorDB server" in str(err)

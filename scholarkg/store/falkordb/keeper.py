"""The embedded server's keeper: a process beside each server that keeps files, which stops a
query nobody watches any more.

Why a process of its own. FalkorDB cannot cancel a query, and its time limit covers neither
parsing nor the work inside one row, so the client that sent a user's query watches it
(``FalkorDBStore._send_user``: its limit, its memory share, Ctrl-C) and restarts the server on
its files to stop it. A client killed outright (``kill -9``, a closed terminal, the machine's
OOM killer) watches nothing: its one-row runaway ran for ever, a multi-row one to the
server's 15-minute limit, and a write held the whole server (FalkorDB keeps Redis's lock
while it writes) that long, every other client frozen. The keeper is started with the
server (:meth:`EmbeddedServer.start`) and looks at it once a second while anything runs or
a client awaits a reply, every :data:`QUIET_LOOK_SECONDS` while nothing does (a look costs
a connection and ``GRAPH.INFO``: ~0.6 % of a core once a second, for a server left running
for days with nothing to watch):

* a user's query is *watched*: its client writes what it sent, its limit and the server's
  memory when it began into ``<data>/queries/`` (:func:`watching`) and removes it when the
  reply came. A watched query still running :data:`CLIENT_GONE_GRACE` seconds past its
  limit, or grown past its memory share, once its client is gone is stopped; one whose
  client lives is left to that client for :data:`CLIENT_ALIVE_GRACE` seconds more (a stopped,
  ``SIGSTOP``-ed client);
* a server held by a write (it answers nothing) for :data:`HELD_GRACE` seconds while a
  watched write's client is gone is restarted: the write would be applied with no one to
  tell, as after Ctrl-C (which restarts at once) it is not;
* any other query (the store's own statements, a ``redis-cli`` user's) is stopped
  :data:`UNWATCHED_GRACE` seconds past the server's own limit (``TIMEOUT_MAX``), and a server
  held that long by anything is restarted.

"Stopped" is the clients' way: :meth:`EmbeddedServer.restart_runaway`, which loses nothing
acknowledged (``appendfsync always``). The keeper ends a few seconds after its server is gone
(``db stop`` ends it first); it never starts a server that is not running (the next command
does). What it did goes to ``<data>/keeper.log``; ``db status`` says whether it runs.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarkg.errors import ServerError
from scholarkg.store.falkordb.keeper_process import (
    KEEPER_LOCK_FILE,
    KEEPER_LOG_FILE,
    KEEPER_PID_FILE,
)
from scholarkg.store.falkordb.running_queries import (
    RunningQuery,
    WatchedQuery,
    awaited,
    leftover_parts,
    plan_only_reads,
    watched_queries,
)
from scholarkg.store.falkordb.server import (
    EmbeddedServer,
    default_module_args,
    is_redis_server,
    resident_bytes,
)
from scholarkg.store.process import exclusive_lock, pid_alive

log = logging.getLogger(__name__)

#: seconds between two looks at the server
POLL_SECONDS = 1.0
#: seconds between two looks while the last one saw nothing running and no client awaits a
#: reply (a client's file brings the next look within :data:`POLL_SECONDS`); the rules for
#: queries nobody watches have :data:`UNWATCHED_GRACE` seconds to spare
QUIET_LOOK_SECONDS = 5.0
#: how long ``GRAPH.INFO`` may take before the server counts as held (by a write)
ANSWER_SECONDS = 2.0
#: a watched query whose client lives: that client restarts the server
#: ``WATCHDOG_GRACE`` (1 s) past its limit, the keeper only this much later
CLIENT_ALIVE_GRACE = 30.0
#: a watched query whose client is gone, past its limit: FalkorDB's own timeout ends a
#: multi-row query at its limit, so one still running this long after is a runaway
CLIENT_GONE_GRACE = 2.0
#: a server held this long while a watched write's client is gone is restarted: a short
#: write ends by itself first
HELD_GRACE = 5.0
#: a query nobody watches (or a server held by one), this long past the server's limit
UNWATCHED_GRACE = 30.0
#: the keeper ends once no server has run for this long (a restart takes less)
NO_SERVER_SECONDS = 5.0
#: a second keeper waits this long for the lock of one that is ending
LOCK_WAIT_SECONDS = 3.0


# -- what to do ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Look:
    """One look at the server: its running queries (``None``: it answered nothing within
    :data:`ANSWER_SECONDS`, held by a write) and its resident memory."""

    running: list[RunningQuery] | None
    #: when it last answered, if not now
    held_since: float | None = None
    resident: int | None = None


@dataclass(frozen=True)
class Verdict:
    """Why to restart the server, and whether what it stops only reads (:data:`None`: ask
    its plan)."""

    why: str
    graph: str | None = None
    query: str | None = None
    reads: bool | None = False


def judge(
    look: Look,
    watched: Sequence[WatchedQuery],
    *,
    now: float,
    server_limit: float | None,
    alive: Callable[[int], bool],
) -> Verdict | None:
    """Whether the server must be restarted, on one look (pure: the keeper's rules, above).

    ``now`` is ``time.time()``; ``server_limit`` FalkorDB's ``TIMEOUT_MAX`` in seconds
    (``None``: none); ``alive`` says whether a client process lives."""
    if look.running is None:
        held = now - (look.held_since if look.held_since is not None else now)
        for w in watched:
            if w.writes and not alive(w.client) and held >= HELD_GRACE:
                return Verdict(
                    f"a write whose client (pid {w.client}) is gone held the server for "
                    f"{held:.0f} s"
                )
            if w.writes and alive(w.client) and now > w.deadline + CLIENT_ALIVE_GRACE:
                return Verdict(
                    f"a write held the server {now - w.deadline:.0f} s past its limit and "
                    f"its client (pid {w.client}) did not stop it"
                )
        if server_limit is not None and held > server_limit + UNWATCHED_GRACE:
            return Verdict(
                f"a query held the server for {held:.0f} s, past the server's limit of "
                f"{server_limit:g} s"
            )
        return None
    for q in look.running:
        if q.waiting:
            continue
        mine = [w for w in watched if w.graph == q.graph and w.query == q.query]
        # sent read-only: a read; otherwise its plan says (``scholarkg cypher`` sends every
        # query as GRAPH.QUERY), as for the clients' own restarts
        reads = True if mine and not any(w.writes for w in mine) else None
        gone = [w for w in mine if not alive(w.client)]
        if mine and len(gone) == len(mine):
            w = gone[0]
            if now > max(x.deadline for x in mine) + CLIENT_GONE_GRACE:
                return Verdict(
                    f"a query ran {now - w.deadline:.0f} s past its limit and its client "
                    f"(pid {w.client}) is gone",
                    q.graph, q.query, reads,
                )  # fmt: skip
            if (
                look.resident is not None
                and w.memory_base is not None
                and w.memory_budget
                and look.resident - w.memory_base > w.memory_budget
            ):
                return Verdict(
                    f"a query grew the server past its memory share of {w.memory_budget} "
                    f"bytes and its client (pid {w.client}) is gone",
                    q.graph, q.query, reads,
                )  # fmt: skip
        elif mine:
            late = min(x.deadline for x in mine if alive(x.client))
            if now > late + CLIENT_ALIVE_GRACE:
                return Verdict(
                    f"a query ran {now - late:.0f} s past its limit and its client did not "
                    "stop it",
                    q.graph, q.query, reads,
                )  # fmt: skip
        elif server_limit is not None and q.ms / 1000 > server_limit + UNWATCHED_GRACE:
            return Verdict(
                f"a query ran {q.ms / 1000:.0f} s, past the server's limit of "
                f"{server_limit:g} s",
                q.graph, q.query, None,
            )  # fmt: skip
    return None


def stale(
    look: Look,
    watched: Sequence[WatchedQuery],
    *,
    now: float,
    alive: Callable[[int], bool],
    server: int,
) -> list[WatchedQuery]:
    """Watched queries whose files are left over, removed so a later held server is not
    blamed on them: sent to an earlier server (its stop or restart ended them), or no
    longer running while their client is gone or long past its limit (a client killed
    after its reply, or one that kept its file after a Ctrl-C it handled)."""
    earlier = [w for w in watched if w.server is not None and w.server != server]
    if look.running is None:
        return earlier
    running = {(q.graph, q.query) for q in look.running}
    return earlier + [
        w
        for w in watched
        if w not in earlier
        and (w.graph, w.query) not in running
        and (not alive(w.client) or now > w.deadline + CLIENT_ALIVE_GRACE)
    ]


# -- the keeper process ---------------------------------------------------------------------
class Keeper:
    """The loop of the keeper of the server of ``data_dir`` (:func:`main`)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.stopping = False
        #: a restart is underway: SIGTERM waits for it (a server half restarted is left)
        self.restarting = False
        self._held_since: float | None = None
        self._last_pid: int | None = None
        #: the last look saw nothing running, nothing held and no client awaiting a reply
        self._quiet = False

    def run(self) -> None:
        """Look once a second until the server has been gone for :data:`NO_SERVER_SECONDS`.
        Whatever goes wrong in a look is logged and the next look comes (stderr is
        nowhere: a keeper that died silently would leave the server unkept)."""
        gone_since: float | None = None
        while not self.stopping:
            now = time.time()
            try:
                pid = self._server_pid(self._info())
                if pid is None:
                    gone_since = gone_since or now
                    if now - gone_since > NO_SERVER_SECONDS:
                        log.info("no server has run for %.0f s: the keeper ends", now - gone_since)
                        return
                    time.sleep(POLL_SECONDS)
                    continue
                gone_since = None
                waited = self._look_and_act(pid, now)
            except Exception:
                log.exception("a look at the server failed; the next one comes in 5 s")
                time.sleep(5 * POLL_SECONDS)
                continue
            if not waited:
                self._pause()

    def _pause(self) -> None:
        """Until the next look: :data:`POLL_SECONDS`, or up to :data:`QUIET_LOOK_SECONDS`
        after a quiet look unless a client's file appears meanwhile."""
        until = time.monotonic() + (QUIET_LOOK_SECONDS if self._quiet else POLL_SECONDS)
        while not self.stopping:
            time.sleep(POLL_SECONDS)
            if time.monotonic() >= until or awaited(self.data_dir):
                return

    def _look_and_act(self, pid: int, now: float) -> bool:
        """One look at server ``pid``, and its restart if the rules say so; whether the look
        itself already waited (a held server's, :data:`ANSWER_SECONDS`)."""
        if pid != self._last_pid:
            self._held_since, self._last_pid = None, pid
        info = self._info()
        look = self._look(info, pid, now)
        self._quiet = False
        if look is None:  # down: starting, or stopped between two looks
            self._held_since = None
            return False
        watched = watched_queries(self.data_dir)
        self._quiet = look.running == [] and not watched
        for w in stale(look, watched, now=now, alive=pid_alive, server=pid):
            with contextlib.suppress(OSError):
                w.path.unlink()
        for part in leftover_parts(self.data_dir, now - 60):
            with contextlib.suppress(OSError):
                part.unlink()
        current = [w for w in watched if w.server in (None, pid)]
        verdict = judge(look, current, now=now, server_limit=_limit(info), alive=pid_alive)
        if verdict is None or self.stopping:
            return look.running is None

        def still_needed() -> bool:
            """The same rules on a new look, taken once the server's lock is held."""
            again = self._look(self._info(), pid, time.time())
            if again is None:
                return False
            mine = [w for w in watched_queries(self.data_dir) if w.server in (None, pid)]
            limit = _limit(info)
            return (
                judge(again, mine, now=time.time(), server_limit=limit, alive=pid_alive) is not None
            )

        self.restarting = True
        try:
            restarted = self._restart(info, pid, verdict, still_needed)
        finally:
            self.restarting = False
        self._held_since = None
        if restarted:
            for w in current:  # the restart ended every query: a gone client's is done
                if not pid_alive(w.client):
                    with contextlib.suppress(OSError):
                        w.path.unlink()
        else:  # not restarted (not needed, or it failed): the next look decides again
            time.sleep(5 * POLL_SECONDS)
        return True

    def _look(self, info: dict[str, Any], pid: int, now: float) -> Look | None:
        """The server's running queries, or that it is held since when; ``None``: down, or
        too busy to answer because it is still starting (its indexes, its log), not held."""
        running = self._running(info)
        if isinstance(running, str):
            return None
        if running is None and not _server_for(self.data_dir, info).held_by_a_query(pid):
            return None
        if running is None:
            self._held_since = self._held_since or now
        else:
            self._held_since = None
        return Look(running=running, held_since=self._held_since, resident=resident_bytes(pid))

    def _info(self) -> dict[str, Any]:
        try:
            data = json.loads((self.data_dir / "server.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def _server_pid(self, info: dict[str, Any]) -> int | None:
        """The running server's pid, as its clients see it (``EmbeddedServer.pid``: not a
        copied directory's), and not a pid another program took since (a keeper would
        otherwise outlive its server for as long as that program runs)."""
        pid = _server_for(self.data_dir, info).pid()
        return pid if pid is not None and is_redis_server(pid) else None

    def _running(self, info: dict[str, Any]) -> list[RunningQuery] | str | None:
        """The running queries; ``None``: no answer in time; ``"down"``: no socket,
        refused or loading (starting: nothing runs yet)."""
        import redis

        try:
            return _server_for(self.data_dir, info).graph_info(timeout=ANSWER_SECONDS)
        except redis.exceptions.TimeoutError:
            return None
        except redis.exceptions.RedisError as err:  # refused, loading, gone
            log.debug("GRAPH.INFO: %s", err)
            return "down"

    def _restart(
        self, info: dict[str, Any], pid: int, verdict: Verdict, still_needed: Callable[[], bool]
    ) -> bool:
        """Restart the server as the clients' watchdog does; whether it was restarted."""
        server = _server_for(self.data_dir, info)
        reads = verdict.reads
        if reads is None and verdict.graph is not None and verdict.query is not None:
            reads = plan_only_reads(server, verdict.graph, verdict.query)
        log.warning("restarting the server (pid %s): %s", pid, verdict.why)
        try:
            took = server.restart_runaway(
                pid, verdict.why, rewrite_log=bool(reads), still_needed=still_needed
            )
        except Exception:
            log.exception("the restart failed; the next command starts the server")
            return False
        if took is None:
            log.warning("not restarted: a new look found no reason any more")
            return False
        log.warning("restarted in %.1f s (pid %s)", took, server.pid())
        return True


def _server_for(data_dir: Path, info: dict[str, Any]) -> EmbeddedServer:
    """The server as it was started (``server.json``), with no keeper of its own. Options
    the start did not pass stay unpassed (``None``), whatever this process's environment
    says (a server started with no time limit keeps none)."""
    recorded = info.get("module_args")
    module_args: dict[str, str | int | None] = dict.fromkeys(default_module_args(data_dir))
    if isinstance(recorded, dict):
        module_args.update(recorded)
    server_args = info.get("server_args")
    return EmbeddedServer(
        data_dir,
        persistence=str(info.get("persistence") or "aof"),
        module_args=module_args,
        server_args=server_args if isinstance(server_args, dict) else None,
        memory=int(info.get("memory_limit") or 0),
        keeper=False,
    )


def _limit(info: dict[str, Any]) -> float | None:
    """The server's ``TIMEOUT_MAX`` in seconds (``None``: 0 or not set, no limit)."""
    args = info.get("module_args")
    try:
        ms = int(args.get("TIMEOUT_MAX", 0)) if isinstance(args, dict) else 0
    except (TypeError, ValueError):
        return None
    return ms / 1000 if ms > 0 else None


# -- the process ---------------------------------------------------------------------------
class _Stop(BaseException):
    """SIGTERM (``db stop``): end at once, not after the look or the sleep underway (a
    ``BaseException``: the loop's catch-all for a failed look must not take it for one)."""


@contextlib.contextmanager
def _only_keeper(data_dir: Path) -> Iterator[bool]:
    """Whether this process is the one keeper of ``data_dir`` (its lock file, waited for
    :data:`LOCK_WAIT_SECONDS`: a keeper that is ending releases it)."""
    held = contextlib.ExitStack()
    try:
        held.enter_context(
            exclusive_lock(data_dir / KEEPER_LOCK_FILE, LOCK_WAIT_SECONDS, "its keeper")
        )
    except ServerError:  # another keeper holds it: that one keeps the server
        yield False
        return
    with held:
        yield True


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m scholarkg.store.falkordb.keeper DATA_DIR", file=sys.stderr)
        return 2
    data_dir = Path(args[0]).absolute()
    logging.basicConfig(
        filename=data_dir / KEEPER_LOG_FILE,
        level=logging.INFO,
        format="%(asctime)s keeper[%(process)d] %(levelname)s %(message)s",
    )
    keeper = Keeper(data_dir)

    def stop(signum: int, frame: object) -> None:
        keeper.stopping = True
        if not keeper.restarting:  # a restart underway ends first (the flag stops the loop)
            raise _Stop

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the terminal's Ctrl-C is not for it
    with _only_keeper(data_dir) as mine:
        if not mine:
            return 0
        pid_file = data_dir / KEEPER_PID_FILE
        pid_file.write_text(f"{os.getpid()}\n")
        log.info("keeping the server of %s", data_dir)
        try:
            keeper.run()
        except _Stop:
            log.info("stopped (SIGTERM)")
        finally:
            with contextlib.suppress(OSError):
                if pid_file.read_text().strip() == str(os.getpid()):
                    pid_file.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())

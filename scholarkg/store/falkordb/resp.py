"""A user's query sent on a connection of its own, its reply read under limits.

``scholarkg explore`` and ``scholarkg cypher`` send what a user typed; its reply may be any
size and the server may never answer (FalkorDB's TIMEOUT does not cover parsing, nor the
work inside one row). redis-py reads a whole reply before returning it and, by default,
sends a command again when its socket times out: a query that hangs the server is sent
again, twice (seen: five copies of one query queued on the server). So a user's query goes
out here instead, on its own unix-socket connection:

* sent once (no retry);
* its reply read as it arrives, iteratively (a value nested 10,000 deep is no recursion), and
  cut after ``row_limit + 1`` rows or ``max_bytes`` bytes: the connection is then closed, so
  the rest is never read and the server drops it;
* ``deadline`` seconds without the complete reply raise :class:`NoAnswer`, and the caller
  decides what stops the query (``FalkorDBStore``: restart the server, nothing stored lost);
* while it waits, ``over_memory()`` is asked every :data:`MEMORY_POLL_S` seconds, and a yes
  raises :class:`OverMemory` (the caller's measure: the server's resident memory grown past
  the query's share), so a query that builds gigabytes in one row or in its result set
  (FalkorDB builds the whole reply before it sends a byte) is stopped long before the
  server's address-space limit, or the machine, runs out.

The reply comes back as redis-py would have returned it (lists, ``str``, ``int``, errors as
``ResponseError`` objects in place), so ``falkordb.QueryResult`` reads it unchanged.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: values nested deeper than this in a reply are not read (QueryResult's parser recurses)
MAX_VALUE_DEPTH = 200
#: seconds between two ``over_memory()`` checks while a reply is awaited (a runaway list
#: grows ~250 MB/s: a check every quarter second overshoots the share by ~60 MB)
MEMORY_POLL_S = 0.25


class NoAnswer(Exception):
    """The server sent no complete reply within the deadline (the query still runs)."""


class ConnectionLost(Exception):
    """The server closed the connection or could not be reached."""


class OverMemory(Exception):
    """``over_memory()`` said yes while the reply was awaited (the query still runs)."""


@dataclass
class LimitedReply:
    """A reply as read: ``reply`` (the rows kept), and why it was cut (``rows``, ``bytes``,
    ``depth``; ``None``: read whole)."""

    reply: Any
    cut: str | None = None
    bytes_read: int = 0


def _encode(args: tuple[Any, ...]) -> bytes:
    out = [b"*%d\r\n" % len(args)]
    for arg in args:
        data = arg if isinstance(arg, bytes) else str(arg).encode("utf-8")
        out.append(b"$%d\r\n" % len(data))
        out.append(data)
        out.append(b"\r\n")
    return b"".join(out)


class _Cut(Exception):
    def __init__(self, why: str) -> None:
        self.why = why


class _Reader:
    def __init__(
        self,
        sock: socket.socket,
        deadline: float,
        max_bytes: int,
        over_memory: Callable[[], bool] | None = None,
    ) -> None:
        self.sock = sock
        self.deadline = deadline
        self.max_bytes = max_bytes
        self.over_memory = over_memory
        self.buf = bytearray()
        self.pos = 0
        self.total = 0

    def _recv(self) -> bytes:
        """The next bytes, waiting until the deadline, asking ``over_memory`` meanwhile."""
        while True:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise NoAnswer()
            poll = remaining if self.over_memory is None else min(remaining, MEMORY_POLL_S)
            self.sock.settimeout(poll)
            try:
                return self.sock.recv(1 << 16)
            except TimeoutError:
                if self.over_memory is not None and self.over_memory():
                    raise OverMemory() from None
            except OSError as err:
                raise ConnectionLost(str(err)) from err

    def _fill(self) -> None:
        chunk = self._recv()
        if not chunk:
            raise ConnectionLost("Connection closed by server.")
        if self.pos > (1 << 20):  # drop what was consumed
            del self.buf[: self.pos]
            self.pos = 0
        self.buf += chunk
        self.total += len(chunk)
        if self.total > self.max_bytes:
            raise _Cut("bytes")

    def line(self) -> bytes:
        while True:
            end = self.buf.find(b"\r\n", self.pos)
            if end >= 0:
                out = bytes(self.buf[self.pos : end])
                self.pos = end + 2
                return out
            self._fill()

    def exact(self, n: int) -> bytes:
        while len(self.buf) - self.pos < n + 2:
            self._fill()
        out = bytes(self.buf[self.pos : self.pos + n])
        self.pos += n + 2
        return out


def _scalar(reader: _Reader, head: bytes) -> tuple[bool, Any]:
    """(is an array header, value or length) for one RESP2 line."""
    from redis.exceptions import ResponseError

    kind, rest = head[:1], head[1:]
    if kind == b"*":
        return True, int(rest)
    if kind == b"$":
        n = int(rest)
        return False, None if n < 0 else reader.exact(n).decode("utf-8", errors="replace")
    if kind == b":":
        return False, int(rest)
    if kind == b"+":
        return False, rest.decode("utf-8", errors="replace")
    if kind == b"-":
        return False, ResponseError(rest.decode("utf-8", errors="replace"))
    raise ConnectionLost(f"unexpected reply byte {kind!r}")


def _read(reader: _Reader, row_limit: int) -> tuple[Any, str | None]:
    """One reply, iteratively; rows (elements of the top array's second element) beyond
    ``row_limit + 1`` are not read."""
    is_array, value = _scalar(reader, reader.line())
    if not is_array:
        return value, None
    root: list[Any] = []
    # (list being filled, its expected length, its depth)
    stack: list[tuple[list[Any], int, int]] = [(root, value, 0)]
    rows_seen = 0
    try:
        while stack:
            current, length, depth = stack[-1]
            if len(current) == length:
                stack.pop()
                if depth == 2 and len(root) == 2 and stack[-1][0] is root[1]:
                    rows_seen += 1  # a row of the result set is complete
                    if rows_seen > row_limit:
                        raise _Cut("rows")
                continue
            is_array, value = _scalar(reader, reader.line())
            if is_array:
                if depth + 1 > MAX_VALUE_DEPTH:
                    raise _Cut("depth")
                child: list[Any] = []
                current.append(child)
                stack.append((child, value, depth + 1))
            else:
                current.append(value)
    except _Cut as cut:
        return _kept(root, cut.why), cut.why
    return root, None


def _kept(root: list[Any], why: str) -> list[Any]:
    """The complete part of a cut reply: header and the rows read whole, no statistics."""
    if len(root) < 2 or not isinstance(root[0], list) or not isinstance(root[1], list):
        return [root[0] if root and isinstance(root[0], list) else [], [], []]
    rows = root[1]
    if why != "rows" and rows:
        rows = rows[:-1]  # the last row was being read when the cut came
    return [root[0], rows, []]


def send_limited(
    path: str,
    args: tuple[Any, ...],
    *,
    deadline: float,
    row_limit: int,
    max_bytes: int,
    over_memory: Callable[[], bool] | None = None,
) -> LimitedReply:
    """Send one command on a new connection to the unix socket ``path`` and read its reply
    under the limits (module docstring). ``deadline`` is a ``time.monotonic()`` instant."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            sock.connect(path)
            sock.sendall(_encode(args))
        except TimeoutError:
            raise NoAnswer() from None
        except OSError as err:
            raise ConnectionLost(str(err)) from err
        reader = _Reader(sock, deadline, max_bytes, over_memory)
        try:
            reply, cut = _read(reader, row_limit)
        except _Cut as cut_early:  # before the first array: nothing kept
            reply, cut = [[], [], []], cut_early.why
        return LimitedReply(reply=reply, cut=cut, bytes_read=reader.total)
    finally:
        sock.close()

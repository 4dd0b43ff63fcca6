"""Reading the managed Neo4j's ``jvm-pauses.log`` (``-Xlog:gc,safepoint``) in tests: what the
JVM logged since a mark, and how long each line says every thread was held.

Why a mark of (inode, size) and not a size alone: the JVM starts a new file when one is full
(and at each start), renaming the old one ``jvm-pauses.log.0``; a size alone would read the
new file from the middle and never the rest of the old one.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from scholarkg.store.neo4j.server import earlier_pause_log

#: where the log was: (inode, size), or None when it did not exist
Mark = tuple[int, int] | None

_THREAD_DUMP = re.compile(r'Safepoint "ThreadDump".*At safepoint: (\d+) ns')
_SAFEPOINT_TOTAL = re.compile(r"Total: (\d+) ns")
_PAUSE = re.compile(r"Pause .* ([\d.]+)ms$")


def mark(path: Path) -> Mark:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_ino, st.st_size


def since(path: Path, start: Mark) -> str:
    """What the JVM logged in ``path`` after ``start`` (the rest of a file it rolled over too)."""
    text = ""
    now = mark(path)
    if now is None:
        return text
    offset = 0
    if start is not None:
        inode, offset = start
        if inode != now[0]:
            text = _read_from(earlier_pause_log(path), offset, inode)
            offset = 0
    return text + _read_from(path, offset, now[0])


def _read_from(path: Path, offset: int, inode: int) -> str:
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_ino != inode:
                return ""  # rolled over more than once: the old file is gone
            f.seek(offset)
            return f.read().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def thread_dumps_ms(text: str) -> list[float]:
    """Milliseconds at the safepoint of each thread dump in ``text``."""
    return [int(m.group(1)) / 1e6 for m in _THREAD_DUMP.finditer(text)]


def held_ms(line: str) -> float:
    """How long one line says every thread was held, in ms (a safepoint's total or a
    collection's pause; 0: neither)."""
    total = _SAFEPOINT_TOTAL.search(line)
    if total:
        return int(total.group(1)) / 1e6
    pause = _PAUSE.search(line)
    return float(pause.group(1)) if pause else 0.0

"""Ctrl-C and SIGTERM as exceptions, and the few steps a second one must not cut in half.

The CLI turns both signals into ``KeyboardInterrupt`` in the main thread (``cli.main``), so
every ``finally`` and every undo runs. An undo is itself a write to the store (a load's
rollback deletes the nodes of the batch it interrupted): a second Ctrl-C, the impatient
kind, landing in it left the batch half undone (``--resume`` completed it, but a user who
never resumed kept Papers without their authors). Inside :func:`interrupts_deferred` the
first signal waits for the block to end; a second one in the same block goes through at
once, so a user can always stop what hangs.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

_state: dict[str, int | None] = {"depth": 0, "pending": None}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the command is, like Ctrl-C: every ``finally`` and undo runs."""


def interruption(signum: int) -> KeyboardInterrupt:
    """The exception a signal raises (``Terminated`` for SIGTERM)."""
    return Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()


def deferred(signum: int) -> bool:
    """Called by the signal handler: whether ``signum`` waits for the end of a deferring
    block (the first one in it does; a second goes through)."""
    if not _state["depth"] or _state["pending"] is not None:
        return False
    _state["pending"] = signum
    return True


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Run the block whole unless interrupted twice; a signal that waited is raised after."""
    _state["depth"] = (_state["depth"] or 0) + 1
    try:
        yield
    finally:
        _state["depth"] = (_state["depth"] or 1) - 1
        pending = _state["pending"]
        if not _state["depth"] and pending is not None:
            _state["pending"] = None
            raise interruption(pending)

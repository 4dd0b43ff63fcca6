"""A second Ctrl-C during an undo waits for the undo to end; a third goes through.

The CLI's handler (``commands/common._on_signal``) is installed as ``scholarkg`` installs it,
and real signals are sent to this process."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from scholarkg.commands.common import install_interrupt_handlers
from scholarkg.interrupts import Terminated, interrupts_deferred

pytestmark = pytest.mark.unit


@pytest.fixture
def cli_handlers() -> Iterator[None]:
    old = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    install_interrupt_handlers()
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def test_an_interrupt_during_a_deferring_block_is_raised_when_it_ends(cli_handlers: None) -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        steps.append("begun")
        os.kill(os.getpid(), signal.SIGINT)
        steps.append("finished")  # the signal waited
    assert steps == ["begun", "finished"]


def test_sigterm_waits_too_and_stays_sigterm(cli_handlers: None) -> None:
    with pytest.raises(Terminated), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGTERM)


def test_a_second_interrupt_in_the_block_goes_through(cli_handlers: None) -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGINT)
        steps.append("after the first")
        os.kill(os.getpid(), signal.SIGINT)
        steps.append("after the second")
    assert steps == ["after the first"]
    # and the next block starts with nothing pending
    with interrupts_deferred():
        steps.append("clean")
    assert steps[-1] == "clean"


def test_outside_a_block_an_interrupt_is_raised_at_once(cli_handlers: None) -> None:
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        pytest.fail("not interrupted")

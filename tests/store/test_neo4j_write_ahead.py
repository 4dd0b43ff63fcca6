"""Writing ahead on Neo4j (``Neo4jStore.writes_ahead``): a write statement runs in the store's
sender thread, in its own managed transaction, while the caller goes on; the next call that
reaches the server waits for it. What the shared tests (``test_write_ahead.py``) check on both
backends holds here too; these add what only the sender thread can get wrong: a wait
interrupted by Ctrl-C leaves the statement to the next call (nothing runs beside it),
``close()`` waits for it, and a load's writer rolls a statement failed ahead back."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from scholarkg.config import Neo4jSettings
from scholarkg.errors import ScholarKGError
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.store.base import GraphStore
from scholarkg.store.neo4j.store import Neo4jStore

pytestmark = pytest.mark.neo4j

lookup_params = IdentityResolver._lookup_params

#: a write that takes the server a while however warm its compiled code: a count over 30M
#: rows before its CREATE (over 3M it once ended before the interrupted-wait test's 50 ms
#: alarm, late in a full run: the server's query code compiled by then)
_SLOW_CREATE = (
    "UNWIND range(1, 30000000) AS i WITH count(i) AS c "
    "UNWIND $rows AS row CREATE (n:Paper {id: row.id, c: c})"
)


@pytest.fixture
def nstore(neo4j_store: GraphStore) -> Iterator[Neo4jStore]:
    assert isinstance(neo4j_store, Neo4jStore)
    yield neo4j_store


def _ids(store: Neo4jStore) -> list[str]:
    return sorted(str(r["id"]) for r in store.run("MATCH (n:Paper) RETURN n.id AS id"))


def test_the_statement_runs_in_the_sender_thread_and_the_next_call_waits(
    nstore: Neo4jStore,
) -> None:
    late: list[int] = []
    with nstore.writes_ahead(late.append, lambda: None):
        assert nstore.merge_nodes("Paper", [{"id": "p1"}, {"id": "p2"}]) == 2
        ahead = nstore._unanswered
        assert ahead is not None  # returned with its statement handed over, not answered
        nstore.write_batches(_SLOW_CREATE, [{"id": "p3"}])
        assert ahead.future.done()  # sending the next one waited for the one before
        slow = nstore._unanswered
        assert slow is not None and not slow.future.done()  # the caller goes on meanwhile
    assert _ids(nstore) == ["p1", "p2", "p3"]  # the read waited for the last write
    assert nstore._unanswered is None
    assert nstore._sender is not None
    names = {t.name for t in threading.enumerate()}
    assert any(n.startswith("neo4j-write-ahead") for n in names)


def test_an_interrupted_wait_leaves_the_statement_to_the_next_call(nstore: Neo4jStore) -> None:
    """Ctrl-C while a statement written ahead runs: the wait ends, the statement does not
    (it is the server's already); the next call that reaches the server (a rollback, say)
    waits for it first, so nothing the caller runs after the interruption runs beside it."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        with nstore.writes_ahead(lambda n: None, lambda: None):
            nstore.write_batches(_SLOW_CREATE, [{"id": "slow"}])
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            with pytest.raises(KeyboardInterrupt):
                nstore.settle()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    pending = nstore._unanswered
    assert pending is not None and not pending.future.done()
    assert _ids(nstore) == ["slow"]  # this read waited for it
    assert nstore._unanswered is None


def test_close_waits_for_a_statement_written_ahead(
    nstore: Neo4jStore, neo4j_env: Neo4jSettings
) -> None:
    other = Neo4jStore.from_settings(neo4j_env)
    with other.writes_ahead(lambda n: None, lambda: None):
        other.write_batches(_SLOW_CREATE, [{"id": "closed"}])
    other.close()
    assert other._sender is None
    assert _ids(nstore) == ["closed"]


def test_a_read_sent_ahead_waits_in_the_sender_thread_not_in_the_caller(
    nstore: Neo4jStore,
) -> None:
    """``read_named_ahead`` behind a slow write returns before either is answered; its rows
    hold that write, not the one sent after it; and the write after it waits only for the
    write before it, as every write does."""
    with nstore.writes_ahead(lambda n: None, lambda: None):
        nstore.write_batches(_SLOW_CREATE, [{"id": "doi:10.1/slow"}])
        slow = nstore._unanswered
        keys = ["doi:10.1/slow", "doi:10.1/after"]
        rows = nstore.read_named_ahead("identity/lookup_papers", lookup_params(keys))
        assert slow is not None and not slow.future.done()  # the caller went on
        nstore.write_batches(_SLOW_CREATE, [{"id": "doi:10.1/after"}])
        assert slow.future.done()
        got = rows()
    assert got == [{"key": "doi:10.1/slow", "id": "doi:10.1/slow"}]
    assert _ids(nstore) == ["doi:10.1/after", "doi:10.1/slow"]


def test_a_read_after_a_failed_write_raises_its_error(nstore: Neo4jStore) -> None:
    """The write before a read sent ahead failed: reading the read's rows raises that
    write's error (the rows would miss its writes), not rows."""
    failing = "UNWIND $rows AS r CREATE (:Paper {id: r.id / 0})"
    with nstore.writes_ahead(lambda n: None, lambda: None):
        nstore.write_batches(failing, [{"id": 1}])
        rows = nstore.read_named_ahead("identity/lookup_papers", lookup_params(["doi:10.1/x"]))
        with pytest.raises(ScholarKGError, match=r"(?i)zero"):
            rows()
    assert nstore._unanswered is None  # the error was read once, by the rows

"""Writing ahead (``BatchWriteStore.writes_ahead``): a write statement may be answered after
the call that sent it returns, so the server executes it while Python prepares the next.

What must not change: the counts (late ones reach the ``written`` callback), a failed
statement's error is its own and nothing sent after it runs (the store is as it was before
that statement), no reply is left unread on a connection the pool hands out again, and a
load's writer still rolls a failed batch back to its mark."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from scholarkg.errors import ScholarKGError
from scholarkg.loaders.writer import RecordWriter
from scholarkg.schema.records import Author, Citation, EdgeRecord, NodeRecord, Paper
from scholarkg.store.base import GraphStore
from scholarkg.store.batch_writes import BatchWriteStore, RelationshipWrites
from scholarkg.store.falkordb import dialect
from scholarkg.store.falkordb.store import FalkorDBStore


def unique_orcid_command(graph: str) -> list[object]:
    """A unique constraint on ``Author.orcid``, a property no key is (scholarkg's keys are
    indexes, not constraints), so a write repeating an ORCID is a server error."""
    return ["GRAPH.CONSTRAINT", "CREATE", graph, "UNIQUE", "NODE", "Author",
            "PROPERTIES", 1, "orcid"]  # fmt: skip


#: one Paper per row; ``row.d = 0`` makes the statement fail on the server (integer division
#: by zero, a runtime error on both backends) after earlier rows of it were created
_CREATE = "UNWIND $rows AS row CREATE (n:Paper {id: row.id}) SET n.q = 10 / row.d"


def _ids(store: GraphStore | BatchWriteStore) -> list[str]:
    return sorted(str(r["id"]) for r in store.run("MATCH (n:Paper) RETURN n.id AS id"))


class _Tally:
    def __init__(self) -> None:
        self.late: list[int] = []
        self.failures = 0

    def written(self, n: int) -> None:
        self.late.append(n)

    def failed(self) -> None:
        self.failures += 1


@pytest.fixture
def ahead_store(any_store: GraphStore) -> Iterator[BatchWriteStore]:
    assert isinstance(any_store, BatchWriteStore)
    yield any_store


def test_counts_written_ahead_add_up(ahead_store: BatchWriteStore) -> None:
    store, tally = ahead_store, _Tally()
    store.merge_nodes("Paper", [{"id": f"p{i}"} for i in range(7)])
    rows = [{"start": f"p{i}", "end": f"p{(i + 1) % 7}", "props": {"w": i}} for i in range(7)]
    rows.append({"start": "p1", "end": "missing", "props": {"w": 9}})  # skipped, not counted
    with store.writes_ahead(tally.written, tally.failed):
        now = store.merge_relationships("CITES", "Paper", "Paper", rows, batch_size=3)
        store.settle()
    assert now + sum(tally.late) == 7 and tally.failures == 0
    assert tally.late  # both backends write ahead: the last batch answered late
    # every reply was read: the next statements get their own answers
    assert store.run("RETURN 1 AS x") == [{"x": 1}]
    assert store.run("MATCH ()-[r:CITES]->() RETURN count(r) AS n") == [{"n": 7}]


def test_a_failed_statement_is_its_own_error_and_the_last_one_run(
    ahead_store: BatchWriteStore,
) -> None:
    store, tally = ahead_store, _Tally()
    rows = [{"id": "a", "d": 1}, {"id": "b", "d": 2}, {"id": "c", "d": 1}, {"id": "x", "d": 0}]
    rows += [{"id": "e", "d": 1}, {"id": "f", "d": 1}]
    with pytest.raises(ScholarKGError) as err, store.writes_ahead(tally.written, tally.failed):
        store.write_batches(_CREATE, rows, batch_size=2)  # batches [a b] [c x] [e f]
        store.settle()
    assert "zero" in str(err.value).lower()  # the server's division by zero: statement 2's
    # statement 1 stayed; statement 2 is undone whole (its row c too); statement 3 never ran
    assert _ids(store) == ["a", "b"]
    assert store.run("RETURN 2 AS x") == [{"x": 2}]  # no reply left unread
    assert tally.failures == 1
    if isinstance(store, FalkorDBStore):
        pool = store.db.connection.connection_pool
        assert not pool._in_use_connections  # redis-py's own: no connection still lent out
        for n in range(3):  # every pooled connection answers its own command
            assert store.run("RETURN $n AS x", {"n": n}) == [{"x": n}]


def test_an_error_surfaces_at_the_next_call_that_reaches_the_server(
    ahead_store: BatchWriteStore,
) -> None:
    store, tally = ahead_store, _Tally()
    with store.writes_ahead(tally.written, tally.failed):
        store.write_batches(_CREATE, [{"id": "a", "d": 0}])
    # the statement's reply is unread: a read reads it first and raises its error
    with pytest.raises(ScholarKGError, match=r"(?i)zero.*CREATE"):
        store.run("MATCH (n) RETURN count(n) AS n")
    assert tally.failures == 1
    assert store.run("MATCH (n) RETURN count(n) AS n") == [{"n": 0}]


def test_a_late_count_arrives_at_the_next_call_that_reaches_the_server(
    ahead_store: BatchWriteStore,
) -> None:
    store, tally = ahead_store, _Tally()
    store.merge_nodes("Paper", [{"id": "p"}])
    rows = [{"start": "p", "end": "p", "props": {}}]
    with store.writes_ahead(tally.written, tally.failed):
        assert store.merge_relationships("CITES", "Paper", "Paper", rows) == 0
    assert tally.late == []  # not read yet
    store.run("RETURN 1 AS x")  # any call to the server reads it first (but one run
    assert tally.late == [1]  # beside relationship writes: test_beside_relationship_writes_…)


def _paper(pid: str) -> Paper:
    return Paper(id=pid, title=f"Work {pid}")


def _unique_orcid(store: GraphStore) -> str:
    """A uniqueness constraint on ``Author.orcid`` (beside the key), each backend's way;
    returns the pattern of the error a second Author with one ORCID raises."""
    if isinstance(store, FalkorDBStore):
        store.run("CREATE INDEX FOR (a:Author) ON (a.orcid)")
        store._command(*unique_orcid_command(store.graph))
        dialect.await_indexes(store._g)
        return r"(?i)unique constraint"
    store.clear()  # no schema: the default one indexes Author.orcid, which a constraint may not
    store.run("CREATE CONSTRAINT test_author_orcid FOR (a:Author) REQUIRE a.orcid IS UNIQUE")
    return r"(?i)already exists|constraint"


def test_writer_rolls_back_a_statement_failed_ahead(any_store: GraphStore) -> None:
    """A server error in a node batch written ahead (a unique constraint beside the key):
    the writer raises that error, runs nothing after it and undoes its load back to the
    mark, so the graph is what it was before."""
    store = any_store
    error = _unique_orcid(store)
    before = RecordWriter(store, batch_size=2)
    before.add_all([_paper("p0"), Author(id="a0", name="Zero", orcid="0000-0000-0000-0001")])
    shape = (_ids(store), store.counts())

    writer = RecordWriter(store, batch_size=2)
    records: list[NodeRecord | EdgeRecord] = [_paper("p1"), _paper("p2"), _paper("p3")]
    records += [
        Author(id="a1", name="One", orcid="0000-0000-0000-0002"),
        Author(id="a2", name="Two", orcid="0000-0000-0000-0002"),  # taken in its batch
        Author(id="a3", name="Three", orcid="0000-0000-0000-0003"),
    ]
    records += [Citation(start="p1", end="p0"), Citation(start="p2", end="p3")]
    with pytest.raises(ScholarKGError, match=error):
        writer.add_all(records)
    assert writer.failed
    assert (_ids(store), store.counts()) == shape
    assert store.run("MATCH (a:Author {id: 'a3'}) RETURN a.id AS id") == []


def test_many_statements_unanswered_in_order(ahead_store: BatchWriteStore) -> None:
    """More statements than may be unanswered at once: each later one waits for the oldest,
    every count arrives once, and the server ran them in the order they were sent (each
    batch sets ``n.last`` of one node: the last batch's value stays)."""
    store, tally = ahead_store, _Tally()
    limit = 4
    if isinstance(store, FalkorDBStore):
        import scholarkg.store.falkordb.store as module

        limit = module.AHEAD_STATEMENTS + 3
    rows = [{"id": "p", "last": i} for i in range(limit)]
    with store.writes_ahead(tally.written, tally.failed):
        for row in rows:
            store.merge_nodes("Paper", [row])
        store.merge_nodes("Paper", [{"id": f"q{i}"} for i in range(5)], batch_size=1)
        store.settle()
    assert store.run("MATCH (n:Paper {id: 'p'}) RETURN n.last AS last") == [{"last": limit - 1}]
    assert len(_ids(store)) == 6 and tally.failures == 0


def test_when_settled_waits_for_the_replies_and_never_follows_a_failure(
    ahead_store: BatchWriteStore,
) -> None:
    store, tally = ahead_store, _Tally()
    settled: list[str] = []
    with store.writes_ahead(tally.written, tally.failed):
        store.write_batches(_CREATE, [{"id": "a", "d": 1}])
        store.when_settled(lambda: settled.append("first"))
        if isinstance(store, FalkorDBStore):  # written ahead: not answered yet
            assert settled == []
        assert _ids(store) == ["a"]  # a call that reaches the server reads the reply
        assert settled == ["first"]
        with pytest.raises(ScholarKGError, match=r"(?i)zero"):
            # Neo4j answers at once: the error is raised here, before the callback is given
            store.write_batches(_CREATE, [{"id": "b", "d": 0}, {"id": "c", "d": 1}])
            store.when_settled(lambda: settled.append("second"))
            store.settle()
    assert settled == ["first"]  # the statement before it failed: never called
    assert _ids(store) == ["a"]
    store.when_settled(lambda: settled.append("idle"))  # nothing unanswered: at once
    assert settled == ["first", "idle"]


def test_closing_reads_what_is_still_unanswered(store: FalkorDBStore) -> None:
    """A store closed with statements still queued sends them and reads their replies:
    nothing sent ahead is lost, and the sender thread ends."""
    tally = _Tally()
    with store.writes_ahead(tally.written, tally.failed):
        store.merge_nodes("Paper", [{"id": f"p{i}"} for i in range(6)], batch_size=1)
    sender = store._sender
    assert sender is not None
    store.close()
    assert not sender._thread.is_alive()
    again = FalkorDBStore(store.db, store.graph)
    try:
        assert len(_ids(again)) == 6
    finally:
        again.close()


def _stated(rows: list[dict[str, Any]]) -> list[tuple[str, list[str]]]:
    return [(str(r["id"]), sorted(map(str, r["stated"]))) for r in rows]


def test_a_read_sent_ahead_sees_the_writes_before_it_and_none_after(
    ahead_store: BatchWriteStore,
) -> None:
    """``read_named_ahead``: the rows ``run_named`` gives at that point of the statements,
    read later (both stores queue it behind the writes sent before it)."""
    store, tally = ahead_store, _Tally()
    store.merge_nodes("Paper", [{"id": p} for p in ("a", "b", "c", "d")])
    marked = {"from_openalex": True}
    with store.writes_ahead(tally.written, tally.failed):
        store.merge_relationships(
            "CITES", "Paper", "Paper", [{"start": "a", "end": "b", "props": marked}]
        )
        rows = store.read_named_ahead("identity/stored_openalex_references", {"ids": ["a"]})
        store.merge_relationships(
            "CITES", "Paper", "Paper", [{"start": "a", "end": "c", "props": marked}]
        )
        early = _stated(rows())
    now = store.run_named("identity/stored_openalex_references", {"ids": ["a"]})
    assert early == [("a", ["b"])]
    assert _stated(now) == [("a", ["b", "c"])]
    assert tally.failures == 0
    nothing = store.read_named_ahead("identity/stored_openalex_references", {"ids": ["d"]})
    assert nothing() == []


def test_a_read_sent_ahead_behind_a_failed_write_raises_that_error(
    ahead_store: BatchWriteStore,
) -> None:
    store, tally = ahead_store, _Tally()
    with (
        pytest.raises(ScholarKGError, match=r"(?i)zero"),
        store.writes_ahead(tally.written, tally.failed),
    ):
        store.write_batches(_CREATE, [{"id": "a", "d": 0}])
        rows = store.read_named_ahead("identity/stored_openalex_references", {"ids": ["a"]})
        rows()
    assert tally.failures == 1
    assert store.run("MATCH (n) RETURN count(n) AS n") == [{"n": 0}]  # no reply left unread


def test_held_writes_go_out_in_order_when_sent_and_never_when_dropped(
    ahead_store: BatchWriteStore,
) -> None:
    """``hold_until_write``: nothing reaches the server until ``send_held``; then every held
    write, in the order held, even when a held send writes (and so sends what is held) itself.
    A rolled-back load drops them unsent."""
    store, tally, order = ahead_store, _Tally(), []

    def held(pid: str) -> Any:
        def send() -> None:
            order.append(pid)
            store.send_held()  # a write sends what is held first: must not jump the queue
            with store.writes_ahead(tally.written, tally.failed):
                store.write_named("identity/create_stub_papers", [{"id": pid, "props": {}}])

        return send

    for pid in ("a", "b", "c"):
        store.hold_until_write(held(pid))
    assert _ids(store) == []  # a read does not send them
    store.send_held()
    store.settle()
    assert order == ["a", "b", "c"] and _ids(store) == ["a", "b", "c"]
    store.send_held()  # nothing held: nothing sent again
    assert order == ["a", "b", "c"]
    store.hold_until_write(held("d"))
    assert len(store.drop_held()) == 1
    store.send_held()
    assert _ids(store) == ["a", "b", "c"] and tally.failures == 0


#: a read the embedded server takes a while over (~10^7 rows unwound, none returned)
_SLOW_READ = "UNWIND range(1, 8000000) AS x WITH x WHERE x < 0 RETURN count(x) AS n"


def _read_ahead(store: FalkorDBStore, query: str) -> Any:
    """``query`` sent ahead as ``read_named_ahead`` sends a named read (its queue item)."""
    with store._writing_ahead_to(lambda n: None, lambda: None):
        return store._send_ahead(query, {}, counted=False, side=True)


def test_the_stores_own_statements_run_beside_a_read_sent_ahead_writes_ahead_wait(
    store: FalkorDBStore,
) -> None:
    """A read sent ahead runs on a connection of its own once the statements before it have
    answered: the store's own statements do not wait for it (FalkorDB runs reads of a graph
    side by side), a statement written ahead after it does, so it never sees that one;
    ``settle`` waits for it too."""
    store.merge_nodes("Paper", [{"id": "a"}])
    slow = _read_ahead(store, _SLOW_READ)
    assert store.run("MATCH (n:Paper) RETURN count(n) AS n") == [{"n": 1}]
    assert not slow.done.is_set()  # the read above did not wait for it
    tally = _Tally()
    with store.writes_ahead(tally.written, tally.failed):
        store.merge_nodes("Paper", [{"id": "b"}])
    written = store._unanswered[-1]
    written.done.wait()
    assert slow.done.is_set()  # the write ahead went out only once the read had answered
    store.settle()
    assert not store._reads_out
    assert store._reply_of(slow).result_set == [[0]]
    assert _ids(store) == ["a", "b"] and tally.failures == 0


def test_a_failed_read_sent_ahead_is_its_own_error_and_stops_no_write(
    store: FalkorDBStore,
) -> None:
    """A read sent ahead that fails raises where its rows are read; the writes queued after
    it still run (a read changes nothing, so nothing after it is dropped)."""
    tally = _Tally()
    with store.writes_ahead(tally.written, tally.failed):
        failing = _read_ahead(store, "UNWIND [0] AS d RETURN 1 / d AS x")
        store.merge_nodes("Paper", [{"id": "after"}])
    store.settle()
    assert failing.done.is_set() and failing.sent
    with pytest.raises(ScholarKGError, match=r"(?i)zero"):
        store._reply_of(failing)
    assert _ids(store) == ["after"] and tally.failures == 0


def test_a_read_sent_ahead_that_reaches_no_server_says_so(
    store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sender found no connection for the read (the server gone): its rows raise that
    loss (``ServerError``), not "a statement before it failed", which none did."""
    import redis

    from scholarkg.errors import ServerError

    pool = store.db.connection.connection_pool
    real = pool.get_connection
    calls: list[int] = []

    def lost(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise redis.exceptions.ConnectionError("no socket")
        return real(*args, **kwargs)

    monkeypatch.setattr(pool, "get_connection", lost)
    rows = store.read_named_ahead("identity/stored_openalex_references", {"ids": ["a"]})
    with pytest.raises(ServerError, match="lost the embedded FalkorDB server"):
        rows()
    monkeypatch.setattr(pool, "get_connection", real)
    assert store.run("RETURN 1 AS one") == [{"one": 1}]


#: a write statement (FalkorDB plans a CREATE) that runs ~1 s and changes nothing
_SLOW_WRITE = (
    "UNWIND range(1, 8000000) AS x WITH x WHERE x < 0 CREATE (:Never) RETURN count(x) AS n"
)


def _slow_relationship_write(store: FalkorDBStore, ends: frozenset[str] | None) -> Any:
    """``_SLOW_WRITE`` written ahead as ``merge_relationships`` marks its statements: a
    write of ``CITES`` between the nodes ``ends`` (its queue item)."""
    with store._writing_ahead_to(lambda n: None, lambda: None):
        store._relationship_writes = RelationshipWrites("CITES", ends)
        try:
            return store._send_ahead(_SLOW_WRITE, {}, counted=False)
        finally:
            store._relationship_writes = None


def test_merge_relationships_marks_what_its_statements_write(store: FalkorDBStore) -> None:
    store.merge_nodes("Paper", [{"id": p} for p in ("a", "b", "c")])
    rows = [{"start": "a", "end": "b", "props": {}}, {"start": "a", "end": "c", "props": {}}]
    with store.writes_ahead(lambda n: None, lambda: None):
        store.merge_relationships("CITES", "Paper", "Paper", rows)
        marked = store._unanswered[-1].rel_type
        store.merge_nodes("Paper", [{"id": "d"}])
        unmarked = store._unanswered[-1].rel_type
    store.settle()
    assert marked == RelationshipWrites("CITES", frozenset({"a", "b", "c"}))
    assert unmarked is None and store._relationship_writes is None


def test_a_statement_beside_relationship_writes_waits_only_for_what_it_sees(
    store: FalkorDBStore,
) -> None:
    """``run_named_beside_relationships`` runs once every node write written ahead has
    answered, beside the relationship writes after them unless it reads their type or (with
    ``ids``) names one of their ends; their replies are read in order later."""
    store.merge_nodes("Paper", [{"id": "a"}, {"id": "b"}])
    with store.writes_ahead(lambda n: None, lambda: None):
        store.merge_nodes("Paper", [{"id": "c"}])  # a node write before: always waited for
    slow = _slow_relationship_write(store, frozenset({"a", "b"}))
    rows = store.run_named_beside_relationships("identity/paper_slots", {"ids": ["c"]}, ids=["c"])
    assert [r["id"] for r in rows] == ["c"]
    assert not slow.done.is_set()  # it ran beside the relationship write
    assert store._unanswered[-1] is slow  # still to be read, in order
    store.run_named_beside_relationships("identity/paper_states", {"ids": ["a"]}, ids=["a", "x"])
    assert slow.done.is_set() and not store._unanswered  # "a" is one of its ends: waited

    slow = _slow_relationship_write(store, frozenset({"a", "b"}))
    store.run_named_beside_relationships(
        "identity/paper_slots", {"ids": ["c"]}, reads=frozenset({"CITES"})
    )
    assert slow.done.is_set()  # it reads CITES (so its caller says): waited

    slow = _slow_relationship_write(store, None)  # ends not known: any ids may be among them
    store.run_named_beside_relationships("identity/paper_states", {"ids": ["c"]}, ids=["c"])
    assert slow.done.is_set()

    slow = _slow_relationship_write(store, frozenset({"a", "b"}))
    with store.writes_ahead(lambda n: None, lambda: None):
        store.merge_nodes("Paper", [{"id": "e"}])  # a node write after it
    rows = store.run_named_beside_relationships("identity/paper_slots", {"ids": ["e"]}, ids=["e"])
    assert slow.done.is_set() and [r["id"] for r in rows] == ["e"]
    store.settle()


def test_a_statement_beside_relationship_writes_follows_those_naming_its_ids(
    store: FalkorDBStore,
) -> None:
    """A read run beside relationship writes with ``ids`` runs after every queued
    relationship write naming one of them, here behind a slow one, even when the row spells
    the id with spaces the statement strips: it sees the edge, as when every statement ran in
    order (run at once, it would find none)."""
    tally = _Tally()
    store.merge_nodes("Paper", [{"id": p} for p in ("w1", "w2", "w3")])
    slow = _slow_relationship_write(store, frozenset({"w3"}))
    with store.writes_ahead(tally.written, tally.failed):
        store.merge_relationships(
            "CITES", "Paper", "Paper", [{"start": " w1 ", "end": "w2", "props": {}}]
        )
        rows = store.run_named_beside_relationships(
            "identity/stored_openalex_references", {"ids": ["w1"]}, ids=["w1"]
        )
        assert slow.done.is_set()
    store.settle()
    assert [(r["id"], r["other"]) for r in rows] == [("w1", ["w2"])]
    assert tally.late == [1] and tally.failures == 0


def test_a_write_beside_relationship_writes_waits_for_every_one(store: FalkorDBStore) -> None:
    """A statement that writes (a rename) is run after every statement written ahead, even
    a relationship write naming none of its ids: had that write failed after the rename ran,
    the load would stop with the rename in the graph and the old key's alias never written."""
    tally = _Tally()
    store.merge_nodes("Paper", [{"id": p} for p in ("w1", "doi:10.1/x", "w3")])
    slow = _slow_relationship_write(store, frozenset({"w3"}))
    with store.writes_ahead(tally.written, tally.failed):
        store.merge_relationships(
            "CITES", "Paper", "Paper", [{"start": "w1", "end": " doi:10.1/x ", "props": {}}]
        )
        store.run_named_beside_relationships(
            "identity/rename_papers",
            {"rows": [{"old": "doi:10.1/x", "new": "openalex:W9"}]},
            ids=["w2"],  # naming neither queued write: it still waits, since it writes
        )
        assert slow.done.is_set()
    store.settle()
    cited = store.run("MATCH (:Paper {id: 'w1'})-[:CITES]->(b:Paper) RETURN b.id AS id")
    assert cited == [{"id": "openalex:W9"}] and tally.late == [1] and tally.failures == 0


def test_a_callback_run_while_relationships_are_sent_is_not_counted_as_their_write(
    store: FalkorDBStore,
) -> None:
    """A flush's ``then`` (or ``written``) that runs while ``merge_relationships`` sends (its
    tag held) sees no tag: a statement it queued would otherwise count as that relationship
    write and could be overtaken. The tag is back once the callback returns."""
    tally = _Tally()
    seen: list[RelationshipWrites | None] = []
    tag = RelationshipWrites("CITES", frozenset({"x"}))
    with store.writes_ahead(tally.written, tally.failed):
        store.merge_nodes("Paper", [{"id": "a"}])
        assert store._unanswered  # the callback waits for that reply
        store.when_settled(lambda: seen.append(store._relationship_writes))
        store._relationship_writes = tag  # as while merge_relationships sends
        try:
            store._settle_queue()
            assert store._relationship_writes is tag
        finally:
            store._relationship_writes = None
    assert seen == [None] and tally.failures == 0

"""``run_resumable`` does not wait for a flush's replies (``RecordWriter.flush(then=…)``): the
loader's Python goes on while the server writes, and the checkpoint is saved once the
replies are read. What must hold on both backends: a checkpoint never claims a write that
did not land, a statement that fails in a flush written ahead rolls the load back to the
last checkpoint (the failed batch's nodes deleted, nothing after it written), and
``--resume`` then completes the same graph as a clean load."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarkg.errors import ScholarKGError
from scholarkg.loaders.checkpoint import FLUSH, Checkpoint, Group, run_resumable
from scholarkg.schema.records import Author, Citation, Paper
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb import dialect
from scholarkg.store.falkordb.store import FalkorDBStore


def unique_orcid_command(graph: str) -> list[object]:
    """A unique constraint on ``Author.orcid``, a property no key is (scholarkg's keys are
    indexes, not constraints), so a write repeating an ORCID is a server error."""
    return ["GRAPH.CONSTRAINT", "CREATE", graph, "UNIQUE", "NODE", "Author",
            "PROPERTIES", 1, "orcid"]  # fmt: skip


#: Author orcids: the one record that repeats an orcid (group 13) fails its node batch on a
#: unique constraint, a server error, after the batches before it landed
_TAKEN = 13


def _groups(n: int, *, bad: int | None = None, flushes: bool = True) -> Iterator[Group]:
    for i in range(1, n + 1):
        if flushes and i % 5 == 1:
            yield FLUSH
        orcid = f"0000-0000-0000-{(1 if i == bad else i):04d}"
        yield (
            i,
            [
                Paper(id=f"p{i}", title=f"Work {i}"),
                Author(id=f"a{i}", name=f"Person {i}", orcid=orcid),
                Citation(start=f"p{i}", end=f"p{max(1, i - 1)}"),
            ],
        )


def _shape(store: GraphStore) -> tuple[list[str], int]:
    ids = sorted(str(r["id"]) for r in store.run("MATCH (n) RETURN n.id AS id"))
    rels = store.run("MATCH ()-[r]->() RETURN count(r) AS n")[0]["n"]
    return ids, int(rels)


def test_a_flush_that_fails_ahead_rolls_back_to_the_last_checkpoint(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """The embedded store's (it writes ahead; on Neo4j the statement fails where it is sent,
    the case ``test_no_half_written_graph`` covers): the failure is read at the next
    batch's first call to the server, after its flush returned."""
    src = tmp_path / "works.jsonl"
    src.write_text("x\n")
    store.run("CREATE INDEX FOR (a:Author) ON (a.orcid)")
    store._command(*unique_orcid_command(store.graph))
    dialect.await_indexes(store._g)
    cp = Checkpoint.open(src, directory=tmp_path / "cp", scope="test:flush")
    with pytest.raises(ScholarKGError, match=r"(?i)unique constraint"):
        run_resumable(store, _groups(20, bad=_TAKEN), source=src, checkpoint=cp, batch_size=5)
    # groups 11-15 held the failing node batch: the checkpoint claims groups 1-10 only, and
    # the graph holds exactly them (the failed batch's nodes deleted, 16-20 never written)
    assert Checkpoint.open(src, directory=tmp_path / "cp", scope="test:flush").done == 10
    ids, rels = _shape(store)
    assert ids == sorted([f"p{i}" for i in range(1, 11)] + [f"a{i}" for i in range(1, 11)])
    assert rels == 10  # CITES 1→1, 2→1 … 10→9


def test_resume_after_the_failure_gives_the_clean_graph(
    any_store: GraphStore, tmp_path: Path
) -> None:
    store = any_store
    src = tmp_path / "works.jsonl"
    src.write_text("x\n")
    cp = Checkpoint.open(src, directory=tmp_path / "cp", scope="test:flush")
    stats = run_resumable(store, _groups(23), source=src, checkpoint=cp, batch_size=5)
    clean = _shape(store)
    assert stats.records == 23 and stats.write.relationships["CITES"] == 23
    assert not stats.write.skipped_relationships
    done = Checkpoint.open(src, directory=tmp_path / "cp", scope="test:flush")
    assert done.complete and done.done == 23
    store.clear()
    # a first run stopped after 12 groups (as kill -9 would: no flush after group 10)
    first = Checkpoint.open(src, directory=tmp_path / "cp2", scope="test:flush")

    def stopped() -> Iterator[Group]:
        for group in _groups(23):
            if group[0] == 13:
                raise KeyboardInterrupt
            yield group

    with pytest.raises(KeyboardInterrupt):
        run_resumable(store, stopped(), source=src, checkpoint=first, batch_size=5)
    assert Checkpoint.open(src, directory=tmp_path / "cp2", scope="test:flush").done <= 10
    again = Checkpoint.open(src, directory=tmp_path / "cp2", scope="test:flush")
    run_resumable(store, _groups(23), source=src, checkpoint=again, resume=True, batch_size=5)
    assert _shape(store) == clean


def _with_one_node(store: GraphStore, label: str, row: dict[str, str]) -> GraphStore:
    """``store`` emptied, its schema applied and one node of ``label`` stored (so the
    writer's reads of which ids exist find one)."""
    store.clear()
    store.apply_schema()
    store.merge_nodes(label, [row])
    return store


def test_a_chunk_larger_than_the_batch_is_read_once_before_any_of_its_writes(
    any_store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node rows are flushed per ``NODE_BUFFER``, not per ``batch_size``: a chunk whose
    authors fill several batches reads which of them exist before any of its writes (a
    flush per batch made each read wait for the writes of the one before), and still
    sends them in ``batch_size`` statements."""
    from typing import Any

    from scholarkg.loaders.writer import NODE_BUFFER, RecordWriter

    store: Any = _with_one_node(any_store, "Author", {"id": "a3", "name": "Stored"})
    events: list[str] = []
    real_exists, real_merge = store.existing_ids, store.merge_nodes

    def existing_ids(label: str, *args: Any, **kwargs: Any) -> Any:
        events.append(f"read {label}")
        return real_exists(label, *args, **kwargs)

    def merge_nodes(label: str, rows: Any, *args: Any, **kwargs: Any) -> Any:
        events.append(f"write {label} x{len(rows)} by {kwargs.get('batch_size')}")
        return real_merge(label, rows, *args, **kwargs)

    monkeypatch.setattr(store, "existing_ids", existing_ids)
    monkeypatch.setattr(store, "merge_nodes", merge_nodes)
    writer = RecordWriter(any_store, batch_size=5)
    for i in range(23):
        writer.add(Author(id=f"a{i}", name=f"Person {i}"))
        writer.add(Paper(id=f"p{i}", title=f"Work {i}"))
    assert events == []  # 23 rows a label: under NODE_BUFFER, nothing flushed yet
    assert NODE_BUFFER > 23
    writer.flush()
    monkeypatch.undo()
    reads = [i for i, e in enumerate(events) if e.startswith("read")]
    writes = [i for i, e in enumerate(events) if e.startswith("write")]
    assert reads and writes and max(reads) < min(writes), events
    assert "write Author x23 by 5" in events, events  # one call, statements of 5 rows
    assert writer.report.nodes["Author"] == 23
    assert any_store.run("MATCH (a:Author) RETURN count(a) AS n") == [{"n": 23}]
    assert any_store.run("MATCH (a:Author {id: 'a3'}) RETURN a.name AS n") == [{"n": "Person 3"}]


def test_a_chunks_references_do_not_flush_its_nodes_before_its_end(
    any_store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk's ``CITES`` rows stay buffered up to ``EDGE_BUFFER`` (more than an update's
    chunk holds: 2,000 works, ~40,000 references): filling the buffer flushes every
    label's nodes first, and each such flush's read of which ids exist waited for the
    writes of the flush before it. Here a chunk's 3 references a work fill several
    ``batch_size`` statements and nothing is sent before the chunk's flush, which reads
    every label's ids before any write and sends the references in statements of
    ``EDGE_BATCH`` rows."""
    from typing import Any

    from scholarkg.loaders.writer import EDGE_BATCH, EDGE_BUFFER, RecordWriter

    store: Any = _with_one_node(any_store, "Paper", {"id": "p0", "title": "Stored"})
    events: list[str] = []
    real_exists, real_run = store.existing_ids, store.run_named
    real_merge, real_rels = store.merge_nodes, store.merge_relationships

    def existing_ids(label: str, *args: Any, **kwargs: Any) -> Any:
        events.append(f"read {label}")
        return real_exists(label, *args, **kwargs)

    def run_named(name: str, *args: Any, **kwargs: Any) -> Any:
        events.append(f"read {name}" if name == "identity/paper_states" else f"run {name}")
        return real_run(name, *args, **kwargs)

    def merge_nodes(label: str, rows: Any, *args: Any, **kwargs: Any) -> Any:
        events.append(f"write {label}")
        return real_merge(label, rows, *args, **kwargs)

    def merge_relationships(rel_type: str, s: str, e: str, rows: Any, **kwargs: Any) -> Any:
        events.append(f"write {rel_type} x{len(rows)} by {kwargs.get('batch_size')}")
        return real_rels(rel_type, s, e, rows, **kwargs)

    for name, fn in [
        ("existing_ids", existing_ids), ("run_named", run_named),
        ("merge_nodes", merge_nodes), ("merge_relationships", merge_relationships),
    ]:  # fmt: skip
        monkeypatch.setattr(store, name, fn)
    writer = RecordWriter(any_store, batch_size=5)
    for i in range(1, 24):
        writer.add(Author(id=f"a{i}", name=f"Person {i}"))
        writer.add(Paper(id=f"p{i}", title=f"Work {i}"))
        for end in ("p0", f"p{i % 23 + 1}", f"p{(i + 1) % 23 + 1}"):  # stored, then the chunk's
            writer.add(Citation(start=f"p{i}", end=end))
    assert events == []  # 69 references: more than 5, under EDGE_BUFFER: nothing sent
    # and a chunk of `load openalex` (--batch-size 2,000) whose works cite 40 each fits too
    assert EDGE_BUFFER >= 40 * 2_000
    writer.flush()
    monkeypatch.undo()
    reads = [i for i, e in enumerate(events) if e.startswith("read")]
    writes = [i for i, e in enumerate(events) if e.startswith("write")]
    assert reads and writes and max(reads) < min(writes), events
    assert [e for e in events if "CITES" in e] == [f"write CITES x69 by {EDGE_BATCH}"], events
    assert writer.report.relationships["CITES"] == 69
    assert any_store.run("MATCH (:Paper)-[r:CITES]->(:Paper) RETURN count(r) AS n") == [{"n": 69}]
    cited = any_store.run("MATCH (:Paper)-[:CITES]->(p:Paper {id: 'p0'}) RETURN count(*) AS n")
    assert cited == [{"n": 23}]


def test_a_flush_answered_late_marks_only_what_it_created(store: FalkorDBStore) -> None:
    """A flush's ``then`` (its checkpoint saved, ``mark()``) may run after the next flush
    put nodes on the undo list: a statement run beside relationship writes
    (``run_named_beside_relationships``, the next chunk's existence read) does not read the
    flush's last replies. Only the nodes that flush created leave the list; a later
    failure still deletes the next flush's."""
    from scholarkg.loaders.writer import RecordWriter

    writer = RecordWriter(store, batch_size=5)
    writer.add(Paper(id="p1", title="Work 1"))
    writer.add(Citation(start="p1", end="p1"))
    marked: list[set[str]] = []

    def durable() -> None:
        writer.mark()
        marked.append(set(writer._created["Paper"]))

    writer.flush(then=durable)
    assert not marked  # its replies are not read yet
    writer._created["Paper"].add("p2")  # as the next flush's existence read puts it
    store.settle()
    assert marked == [{"p2"}]  # p1 is durable, p2 still to undo
    writer.mark()
    assert not writer._created["Paper"]

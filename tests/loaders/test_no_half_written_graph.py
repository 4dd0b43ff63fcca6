"""A load stores whole records with their edges, or stops where its checkpoint says.

The layout is ReviewCritique's released JSONL (one paper per line: ``body_text``, one
object per reviewer holding a ``review`` segment list and a ``score`` map, bare ``NaN``
fields), content synthetic. Before: a NUL in ``body_text`` made FalkorDB reject a Section
batch after the Paper/Review/ReviewSegment batches had gone in, leaving nodes without their
REVIEWS / HAS_SECTION edges.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders.aaar import reviewcritique_groups
from scholarkg.loaders.checkpoint import Checkpoint, Group, LoadStats, run_resumable
from scholarkg.schema.records import ReviewSegment
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore


def _paper(i: int, *, body: str | None = None, reliability: object = "Yes") -> str:
    nan = float("nan")
    seg = {"segment_text": f"Point {i}.", "topic_class_1": nan, "topic_class_2": "M",
           "reliability": reliability, "explanation": nan, "error_type": nan}  # fmt: skip
    obj = {
        "decision": "Reject",
        "title": f"Synthetic paper number {i}",
        "body_text": body if body is not None else f"Body of paper {i}.",
        "gpt4": {"review": [seg, {**seg, "segment_text": "Weak."}], "score": {"Overall": "3"}},
        "claude_opus": {"review": [seg], "score": {"Overall": "4"}},
    }
    return json.dumps(obj) + "\n"  # NaN written bare, as in the release


def _write(path: Path, *, bad_line: int | None = None) -> Path:
    lines = []
    for i in range(1, 7):
        if i == bad_line:
            lines.append(_paper(i, reliability="Perhaps"))
        elif i in (2, 5):  # PDF extraction debris, as in the released lines 7 and 12
            lines.append(_paper(i, body=f"Body\u0000 of\x0c paper {i}.\r\n"))
        else:
            lines.append(_paper(i))
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _shape(store: GraphStore) -> dict[str, object]:
    """Counts plus every edge as (type, start id, end id): equal shapes are equal graphs."""
    counts = store.counts()
    edges = store.run("MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS s, b.id AS e")
    return {
        "nodes": counts.nodes,
        "rels": counts.relationships,
        "edges": sorted((r["t"], r["s"], r["e"]) for r in edges),
    }


def _orphans(store: GraphStore) -> int:
    """Nodes that a whole record never leaves without their edge."""
    rows = store.run(
        "MATCH (n) WHERE (n:Review AND NOT (n)-[:REVIEWS]->()) "
        "OR (n:ReviewSegment AND NOT ()-[:HAS_SEGMENT]->(n)) "
        "OR (n:Section AND NOT ()-[:HAS_SECTION]->(n)) RETURN count(n) AS n"
    )
    return int(rows[0]["n"])


def _resume_equals_a_clean_load(
    store: GraphStore, groups: Sequence[Group], path: Path, checkpoint: Checkpoint
) -> None:
    """``--resume`` from ``checkpoint`` (batches of 2), then the same graph as one clean load."""
    run_resumable(store, iter(groups), source=path, checkpoint=checkpoint, resume=True,
                  batch_size=2)  # fmt: skip
    resumed = _shape(store)
    store.clear()
    run_resumable(store, iter(groups), source=path, batch_size=50)
    assert resumed == _shape(store)


def test_nul_debris_loads_clean_and_says_what_was_cleaned(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    path = _write(tmp_path / "ReviewCritique_LLM.jsonl")
    out = " ".join(cli_ok(["load", "reviewcritique", str(path)]).split())
    assert "Section.text: NUL character(s) removed in 2 value(s)" in out
    g = FalkorDBStore(store.db, graph_env)  # the CLI's graph
    assert g.counts().nodes == {"Paper": 6, "Review": 12, "ReviewSegment": 18, "Section": 6}
    assert _orphans(g) == 0
    texts = {r["t"] for r in g.run("MATCH (s:Section) RETURN s.text AS t")}
    assert "Body of paper 2.\n" in texts  # NUL and form feed gone, CRLF made LF


def test_bad_line_stops_with_whole_records_and_resume_equals_a_clean_load(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    path = _write(tmp_path / "rc.jsonl", bad_line=4)
    result = runner.invoke(app, ["load", "reviewcritique", str(path), "--batch-size", "2"])
    assert isinstance(result.exception, InputError)
    err = result.exception
    assert (err.path, err.line, err.field) == (str(path), 4, "gpt4.review[0].reliability")
    assert "the 3 source record(s) before the error are stored whole" in " ".join(
        result.output.split()
    )
    g = FalkorDBStore(store.db, graph_env)
    assert g.counts().nodes["Paper"] == 3 and _orphans(g) == 0

    _write(path)  # the user fixes line 4
    cli_ok(["load", "reviewcritique", str(path), "--batch-size", "2", "--resume"])
    resumed = _shape(g)

    cli_ok(["--graph", f"{graph_env}_clean", "load", "reviewcritique", str(path)])
    clean = FalkorDBStore(store.db, f"{graph_env}_clean")
    try:
        assert resumed == _shape(clean)
    finally:
        clean.clear()


def _poisoned(groups: Sequence[Group]) -> list[Group]:
    """``groups`` with the fourth record's segments holding a NUL: a value that escaped
    validation (``model_construct`` skips it), which the store must refuse once this
    batch's Paper/Section/Review nodes have been sent."""
    line, records = groups[3]
    poisoned = [
        ReviewSegment.model_construct(**{**r.__dict__, "text": "bad\x00text"})
        if isinstance(r, ReviewSegment)
        else r
        for r in records
    ]
    return [*groups[:3], (line, poisoned), *groups[4:]]


def test_a_failed_write_is_undone_back_to_the_checkpoint(store: GraphStore, tmp_path: Path) -> None:
    """A store refusal in the middle of a batch: the batch's nodes are deleted again, the
    graph is what the checkpoint claims, and resuming completes it like a clean load."""
    path = _write(tmp_path / "rc.jsonl")
    groups = list(reviewcritique_groups(path))
    broken = _poisoned(groups)
    checkpoint = Checkpoint.open(path, directory=tmp_path / "cp", scope="test")
    stats = LoadStats(source=str(path))
    with pytest.raises(InputError, match="NUL character"):
        run_resumable(store, iter(broken), source=path, checkpoint=checkpoint, batch_size=2,
                      stats=stats)  # fmt: skip
    assert stats.write_failed and stats.rolled_back > 0
    assert checkpoint.done == 2
    assert store.counts().nodes["Paper"] == 2 and _orphans(store) == 0
    assert store.counts().nodes["ReviewSegment"] == 6  # papers 1-2 only, whole

    _resume_equals_a_clean_load(store, groups, path, checkpoint)


def test_an_interrupted_batch_is_undone_back_to_the_checkpoint(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C (or SIGTERM, which the CLI raises as the same ``KeyboardInterrupt``) lands while
    a batch is written, after its nodes were sent and before its relationships: the batch's
    nodes are deleted again, so the graph holds exactly the whole records its checkpoint
    claims (what the CLI then says is stored), none without its edges; resuming completes it
    like a clean load. Before, the batch's Papers, Reviews and Sections stayed without their
    edges until a ``--resume``."""
    store = any_store
    path = _write(tmp_path / "rc.jsonl")
    groups = list(reviewcritique_groups(path))
    checkpoint = Checkpoint.open(path, directory=tmp_path / "cp", scope="test")
    write_relationships = store.merge_relationships
    interrupted: list[tuple[int, int]] = []

    def interrupting(*args: object, **kwargs: object) -> object:
        if checkpoint.done >= 2 and not interrupted:  # a later batch, its nodes sent
            interrupted.append((store.counts().nodes.get("Paper", 0), checkpoint.done))
            raise KeyboardInterrupt
        # the wrapped method's own signature: the arguments pass through untouched
        return write_relationships(*args, **kwargs)  # type: ignore[arg-type]  # pass-through

    monkeypatch.setattr(store, "merge_relationships", interrupting)
    stats = LoadStats(source=str(path))
    with pytest.raises(KeyboardInterrupt):
        run_resumable(store, iter(groups), source=path, checkpoint=checkpoint, batch_size=2,
                      stats=stats)  # fmt: skip
    monkeypatch.undo()
    [(papers, claimed)] = interrupted
    assert papers > claimed  # Papers the checkpoint did not claim were in the graph
    assert checkpoint.done == claimed and stats.rolled_back > 0
    assert store.counts().nodes["Paper"] == claimed and _orphans(store) == 0
    assert store.counts().nodes["ReviewSegment"] == 3 * claimed  # the claimed papers, whole

    _resume_equals_a_clean_load(store, groups, path, checkpoint)


def _interrupt_relationships_after(
    store: GraphStore, checkpoint: Checkpoint, monkeypatch: pytest.MonkeyPatch, done: int
) -> list[int]:
    """``merge_relationships`` raises KeyboardInterrupt once the checkpoint claims ``done``
    records (the batch's nodes are sent by then); what it claimed then."""
    write_relationships = store.merge_relationships
    interrupted: list[int] = []

    def interrupting(*args: object, **kwargs: object) -> object:
        if checkpoint.done >= done and not interrupted:
            interrupted.append(checkpoint.done)
            raise KeyboardInterrupt
        return write_relationships(*args, **kwargs)  # type: ignore[arg-type]  # pass-through

    monkeypatch.setattr(store, "merge_relationships", interrupting)
    return interrupted


def test_an_interrupt_while_the_records_before_a_bad_one_are_stored_is_undone_too(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bad record: the complete records read before it are flushed first. Ctrl-C during
    that flush left its nodes without their edges (only a failed write was undone there)."""
    store = any_store
    path = _write(tmp_path / "rc.jsonl")
    groups = list(reviewcritique_groups(path))
    checkpoint = Checkpoint.open(path, directory=tmp_path / "cp", scope="test")

    bad_read: list[bool] = []

    def then_bad() -> Iterator[Group]:
        yield from groups[:3]
        bad_read.append(True)
        raise InputError("a bad record", path=path, line=4, field="reliability")

    write_relationships = store.merge_relationships

    def interrupting(*args: object, **kwargs: object) -> object:
        if bad_read:  # the flush of the records before the bad one
            raise KeyboardInterrupt
        return write_relationships(*args, **kwargs)  # type: ignore[arg-type]  # pass-through

    monkeypatch.setattr(store, "merge_relationships", interrupting)
    with pytest.raises(KeyboardInterrupt):
        run_resumable(store, then_bad(), source=path, checkpoint=checkpoint, batch_size=2)
    monkeypatch.undo()
    assert checkpoint.done == 2
    assert store.counts().nodes["Paper"] == 2 and _orphans(store) == 0


def test_a_second_interrupt_during_the_undo_waits_for_it(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The impatient second Ctrl-C lands while the undo deletes the batch's nodes: with the
    CLI's handlers, it waits for the undo to end (before, it stopped the undo midway and the
    batch's nodes stayed without their edges)."""
    import os
    import signal

    from scholarkg.commands.common import install_interrupt_handlers

    store = any_store
    path = _write(tmp_path / "rc.jsonl")
    groups = list(reviewcritique_groups(path))
    checkpoint = Checkpoint.open(path, directory=tmp_path / "cp", scope="test")
    interrupted = _interrupt_relationships_after(store, checkpoint, monkeypatch, 2)
    delete_nodes = store.delete_nodes
    deletes: list[str] = []

    def impatient(label: str, ids: Sequence[str]) -> int:
        deletes.append(label)
        if len(deletes) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # lands here, in the undo's first delete
        return delete_nodes(label, ids)

    monkeypatch.setattr(store, "delete_nodes", impatient)
    old = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    install_interrupt_handlers()
    try:
        stats = LoadStats(source=str(path))
        with pytest.raises(KeyboardInterrupt):
            run_resumable(store, iter(groups), source=path, checkpoint=checkpoint, batch_size=2,
                          stats=stats)  # fmt: skip
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        monkeypatch.undo()
    # what the checkpoint claimed when the batch after it was interrupted: 2, or 4 when the
    # replies of a flush sent ahead were read first (the embedded store)
    [claimed] = interrupted
    assert claimed >= 2 and checkpoint.done == claimed
    assert len(deletes) > 1  # the undo went on after the signal
    assert store.counts().nodes["Paper"] == claimed and _orphans(store) == 0
    assert store.counts().nodes["ReviewSegment"] == 3 * claimed


def test_an_undo_that_fails_too_is_said_not_claimed_whole(
    store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write fails and so does its undo (the server was killed: ``kill -9`` mid-load): the
    hint said the graph was as its checkpoint left it, "stored whole", while 200 Papers of
    the next batch stood there without their authors (found by a user's review). It now
    says part of the batch is in the graph and that ``--resume`` completes it."""
    from scholarkg.commands.load_common import stop_hint
    from scholarkg.errors import ServerError
    from scholarkg.loaders.steps import LoadSummary

    path = _write(tmp_path / "rc.jsonl")
    groups = list(reviewcritique_groups(path))
    broken = _poisoned(groups)

    def gone(*_: object, **__: object) -> int:
        raise ServerError("lost the embedded FalkorDB server")

    monkeypatch.setattr(store, "delete_nodes", gone)
    checkpoint = Checkpoint.open(path, directory=tmp_path / "cp", scope="test")
    stats = LoadStats(source=str(path))
    with pytest.raises(InputError):
        run_resumable(store, iter(broken), source=path, checkpoint=checkpoint, batch_size=2,
                      stats=stats)  # fmt: skip
    assert stats.write_failed and stats.undo_failed
    assert store.counts().nodes["Paper"] > checkpoint.done  # the batch's Papers stayed
    summary = LoadSummary(stopped=(path, checkpoint.done), stopped_by_store=True,
                          undo_failed=stats.undo_failed)  # fmt: skip
    hint = stop_hint(summary)
    assert "undo failed" in hint and "--resume" in hint and "as its checkpoint left" not in hint
    monkeypatch.undo()
    _resume_equals_a_clean_load(store, groups, path, checkpoint)

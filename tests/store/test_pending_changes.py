"""A load raises FalkorDB's ``DELTA_MAX_PENDING_CHANGES`` for its duration and puts back the
value it found, and after statements that take labels off nodes it lowers the setting for
one read of labels, in the order of the statements written ahead
(``store/falkordb/pending_changes.py``). What must hold: the setting is back however the
load ends, a value a stopped load left behind is not kept for good, nothing in the graph
changes, and a failure before the settling is still the load's one error."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_openalex

from scholarkg.config import Settings
from scholarkg.errors import ScholarKGError
from scholarkg.loaders import openalex
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.loaders.writer import RecordWriter, write_records
from scholarkg.schema.records import Paper
from scholarkg.store.falkordb import pending_changes as pc
from scholarkg.store.falkordb.store import FalkorDBStore


def _setting(store: FalkorDBStore) -> int:
    return int(store.db.connection.execute_command("GRAPH.CONFIG", "GET", pc.SETTING)[1])


def _set(store: FalkorDBStore, value: int) -> None:
    store.db.connection.execute_command(*pc.setting_command(value))


@pytest.fixture
def tuned(store: FalkorDBStore) -> Iterator[FalkorDBStore]:
    """The store, its server's setting put back to FalkorDB's default after the test (the
    server is the test session's, shared by the tests that follow)."""
    try:
        yield store
    finally:
        _set(store, pc.DEFAULT_PENDING_CHANGES)


def _stubs(store: FalkorDBStore, n: int) -> None:
    store.run("UNWIND range(1, $n) AS i CREATE (:Paper:Stub {id: 'p' + toString(i)})", {"n": n})


def _stub_ids(store: FalkorDBStore) -> list[str]:
    return sorted(str(r["id"]) for r in store.run("MATCH (p:Stub) RETURN p.id AS id"))


def test_a_load_raises_the_setting_and_puts_back_the_one_it_found(tuned: FalkorDBStore) -> None:
    _set(tuned, 12_345)
    with tuned.loading():
        assert _setting(tuned) == pc.LOAD_PENDING_CHANGES
        with tuned.loading():  # nested: the outer block sets and puts back
            assert _setting(tuned) == pc.LOAD_PENDING_CHANGES
        assert _setting(tuned) == pc.LOAD_PENDING_CHANGES
    assert _setting(tuned) == 12_345


def test_the_setting_is_put_back_when_the_load_fails(tuned: FalkorDBStore) -> None:
    _set(tuned, 4_000)
    with pytest.raises(RuntimeError, match="bad record"), tuned.loading():
        raise RuntimeError("bad record")
    assert _setting(tuned) == 4_000


def test_a_setting_a_stopped_load_left_behind_gives_way_to_the_default(
    tuned: FalkorDBStore,
) -> None:
    _set(tuned, pc.LOAD_PENDING_CHANGES)  # a load killed before it could put it back
    with tuned.loading():
        pass
    assert _setting(tuned) == pc.DEFAULT_PENDING_CHANGES


def test_labels_removed_settles_in_the_order_of_the_statements_written_ahead(
    tuned: FalkorDBStore,
) -> None:
    _stubs(tuned, 6)
    late: list[int] = []
    remove = "UNWIND $ids AS v MATCH (p:Paper {id: v}) REMOVE p:Stub RETURN count(p) AS written"
    with tuned.loading():
        with tuned.writes_ahead(late.append, lambda: None):
            tuned._send_counted(remove, {"ids": ["p1", "p2"]})
            tuned.labels_removed()  # three items queued behind the removal
            tuned._send_counted(remove, {"ids": ["p3"]})
            tuned.labels_removed()
        tuned.settle()
        # the settings and the read count nothing; the removals count what they wrote
        assert sorted(late) == [1, 2]
        assert _setting(tuned) == pc.LOAD_PENDING_CHANGES  # raised again after each
        assert _stub_ids(tuned) == ["p4", "p5", "p6"]
    assert _setting(tuned) == pc.DEFAULT_PENDING_CHANGES


def test_labels_removed_outside_a_load_changes_no_setting(tuned: FalkorDBStore) -> None:
    _set(tuned, 7_000)
    _stubs(tuned, 2)
    tuned.run("MATCH (p:Paper {id: 'p1'}) REMOVE p:Stub")
    tuned.labels_removed()
    with tuned.loading():
        tuned.run("MATCH (p:Paper {id: 'p2'}) REMOVE p:Stub")
        tuned.labels_removed()  # not written ahead: run at once
        assert _setting(tuned) == pc.LOAD_PENDING_CHANGES
    assert _setting(tuned) == 7_000 and _stub_ids(tuned) == []


def test_a_failure_before_the_settling_is_the_one_error_and_drops_it(
    tuned: FalkorDBStore,
) -> None:
    _stubs(tuned, 2)
    failing = "UNWIND $rows AS row CREATE (n:Paper {id: row.id}) SET n.q = 10 / row.d"
    failures: list[int] = []
    with tuned.loading():
        with tuned.writes_ahead(lambda n: None, lambda: failures.append(1)):
            tuned._send(failing, {"rows": [{"id": "x", "d": 0}]})
            tuned.labels_removed()
        with pytest.raises(ScholarKGError, match=r"[Dd]ivision by zero"):
            tuned.settle()
        assert failures == [1]
        tuned.settle()  # read once: nothing more to raise
        assert _setting(tuned) == pc.LOAD_PENDING_CHANGES  # the lowering was dropped too
        assert tuned.run("MATCH (n:Paper {id: 'x'}) RETURN n.id AS id") == []
    assert _setting(tuned) == pc.DEFAULT_PENDING_CHANGES


def test_a_writer_settles_after_describing_stubs_inside_a_load(tuned: FalkorDBStore) -> None:
    """The writer's two statements that take ``Stub`` off (``identity/describe_stubs`` with
    an undo list, ``identity/unmark_stubs`` without) are each followed by the settling."""
    calls: list[str] = []
    real = tuned.labels_removed

    def counted() -> None:
        calls.append("settled")
        real()

    tuned.labels_removed = counted  # type: ignore[method-assign]  # a spy on the real store
    write_records(tuned, [Paper(doi="10.1/a"), Paper(doi="10.1/b"), Paper(doi="10.1/c")])
    assert len(_stub_ids(tuned)) == 3
    with tuned.loading():
        RecordWriter(tuned, batch_size=1).add_all(
            [Paper(doi=f"10.1/{k}", title=k.upper(), source="t") for k in "ab"]
        )
        assert calls == ["settled", "settled"]  # a statement of one row each
        RecordWriter(tuned, undo=False).add_all([Paper(doi="10.1/c", title="C", source="t")])
        assert calls == ["settled"] * 3
    assert _stub_ids(tuned) == []
    titles = tuned.run("MATCH (p:Paper) RETURN p.title AS t ORDER BY t")
    assert [r["t"] for r in titles] == ["A", "B", "C"]


def test_run_steps_loads_inside_the_raised_setting(
    tuned: FalkorDBStore, settings: Settings, tmp_path: Path
) -> None:
    seen: list[int] = []
    path = write_openalex(tmp_path, [openalex_work(1), openalex_work(2)])
    resolver = IdentityResolver(tuned, chunk=50)

    def groups() -> Iterator[Any]:
        seen.append(_setting(tuned))
        yield from resolver.resolve(openalex.read_works(path))

    step = Step("openalex", path, "openalex", groups, family=False)
    run_steps(tuned, [step], settings=settings, batch_size=50, summary=LoadSummary())
    resolver.finish()
    assert seen == [pc.LOAD_PENDING_CHANGES]
    assert _setting(tuned) == pc.DEFAULT_PENDING_CHANGES
    assert _stub_ids(tuned) == ["openalex:W3", "openalex:W9"]


def test_a_server_that_refuses_the_setting_loads_at_its_own(
    tuned: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import redis

    def refused(conn: Any) -> int:  # as a FalkorDB without the setting answers
        raise redis.exceptions.ResponseError("Unknown configuration field")

    monkeypatch.setattr(pc, "current_setting", refused)
    _set(tuned, 9_000)
    _stubs(tuned, 1)
    with tuned.loading():
        tuned.run("MATCH (p:Paper {id: 'p1'}) REMOVE p:Stub")
        tuned.labels_removed()  # not raised: nothing to settle
        assert _setting(tuned) == 9_000
    assert _setting(tuned) == 9_000 and _stub_ids(tuned) == []


def test_a_load_that_ends_with_settlings_still_queued_puts_its_setting_back(
    tuned: FalkorDBStore,
) -> None:
    """The load's block ends while a slow statement and the settling behind it are still
    queued (their replies not read): the setting is put back only after they went out, so
    the last queued raise cannot outlive the load."""
    _stubs(tuned, 1)
    _set(tuned, 6_000)
    slow = "UNWIND range(1, 3000000) AS x WITH x WHERE x < 0 RETURN count(x) AS written"
    with tuned.loading(), tuned.writes_ahead(lambda n: None, lambda: None):
        tuned._send_counted(slow, {})
        tuned._send("UNWIND $ids AS v MATCH (p:Paper {id: v}) REMOVE p:Stub", {"ids": ["p1"]})
        tuned.labels_removed()
    assert _setting(tuned) == 6_000
    tuned.settle()
    assert _setting(tuned) == 6_000 and _stub_ids(tuned) == []

"""The record writer keeps reference lists' ``CITES`` as lists until their flush and sends
them with ``merge_relationship_lists`` (``RecordWriter._lists``): the graph, the counts and
the errors are the ones the same lists give as stub and ``Citation`` records, row by row,
whatever else of their start the batch holds (a ``Citation`` record of the same pair, an
unchanged pair, a repeated end, a padded id) and wherever the buffer fills."""

from __future__ import annotations

from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.loaders.unchanged_edges import UnchangedEdge
from scholarkg.loaders.writer import RecordWriter
from scholarkg.schema.records import Citation, Paper
from scholarkg.store.base import GraphStore
from scholarkg.store.batch_writes import BatchWriteStore

from .test_bulk_equals_incremental import everything


def _work(n: int) -> Paper:
    return Paper(id=f"openalex:W{n}", openalex_id=f"W{n}", title=f"Work {n}")


def _stored(store: GraphStore) -> None:
    """W0 described and W9 citing W0 (an edge the list of W9 states as the graph has it)."""
    store.clear()
    store.apply_schema()
    store.run("CREATE (:Paper {id: 'openalex:W0', openalex_id: 'W0', title: 'Work 0'})")
    store.run(
        "CREATE (:Paper {id: 'openalex:W9', openalex_id: 'W9', title: 'Work 9'})"
        "-[:CITES {from_openalex: true}]->(:Paper {id: 'openalex:W8', openalex_id: 'W8'})"
    )


def _records() -> list[Any]:
    """Works whose reference lists meet every case the writer keeps apart."""
    w9 = ReferenceList.openalex("openalex:W9", ["W8", "W0"])
    return [
        _work(1),
        ReferenceList.openalex("openalex:W1", ["W0", "W2", "W3"]),  # kept as a list
        _work(2),
        ReferenceList.openalex("openalex:W2", ["W3", "W4"]),
        # a record of a pair the list above holds: the list becomes rows, properties merged
        Citation(start="openalex:W2", end="openalex:W3", from_crossref=True),
        _work(3),
        ReferenceList.openalex("openalex:W3", ["W1", "W1", "W2"]),  # a repeat: rows
        _work(4),
        # a padded id: the rows' way, which strips it
        ReferenceList("openalex:W4", ("openalex:W0", "openalex:W5 "), ("W0", "W5"), (1,)),
        Citation(start="openalex:W5", end="openalex:W0", from_crossref=True),  # rows first
        ReferenceList.openalex("openalex:W5", ["W1"]),  # then a list of that start: rows
        w9.with_stated((0,)),  # the graph holds W9 -> W8 as stated: counted, not sent
        _work(6),
        UnchangedEdge(Citation(start="openalex:W6", end="openalex:W0", from_openalex=True)),
        ReferenceList.openalex("openalex:W6", ["W0", "W2"]),  # after an unchanged pair
        _work(7),
        ReferenceList.openalex("openalex:W7", []),  # no references
    ]


def _as_records(records: list[Any]) -> list[Any]:
    return [x for r in records for x in (r.records() if isinstance(r, ReferenceList) else (r,))]


def _write(store: GraphStore, records: list[Any], edge_buffer: int | None) -> dict[str, Any]:
    _stored(store)
    writer = RecordWriter(store, batch_size=2)
    if edge_buffer is not None:
        writer.edge_buffer = edge_buffer
    writer.add_all(records)
    return writer.report.summary()


@pytest.mark.parametrize("edge_buffer", [None, 3])
def test_lists_kept_as_lists_write_what_their_records_write(
    any_store: GraphStore, edge_buffer: int | None
) -> None:
    sent: list[int] = []
    assert isinstance(any_store, BatchWriteStore)
    real = any_store.merge_relationship_lists

    def counting(*args: Any, **kwargs: Any) -> int:
        sent.append(sum(len(ends) for ends in args[3].values()))
        return real(*args, **kwargs)

    any_store.merge_relationship_lists = counting  # type: ignore[method-assign]  # a spy
    try:
        as_lists = _write(any_store, _records(), edge_buffer)
    finally:
        del any_store.merge_relationship_lists
    graph = everything(any_store)
    as_records = _write(any_store, _as_records(_records()), edge_buffer)
    assert everything(any_store) == graph
    if edge_buffer is None:
        assert as_lists == as_records
    else:  # flushed at other points (a list at a time): a stub may be sent twice, counted so
        assert as_lists["relationships"] == as_records["relationships"]
        assert as_lists["records"] == as_records["records"]
    assert sum(sent) >= 5, sent  # W1's three, W6's two (W4's padded id: sent as rows there)
    edges = {tuple(e.split("'")[1::2][:3]) for e in graph[1]}
    assert ("CITES", "openalex:W4", "openalex:W5") in edges  # the padded id stripped
    assert ("CITES", "openalex:W2", "openalex:W3") in edges
    merged = any_store.run(
        "MATCH (:Paper {id: 'openalex:W2'})-[r:CITES]->(:Paper {id: 'openalex:W3'}) "
        "RETURN r.from_openalex AS oa, r.from_crossref AS cr, count(*) AS n"
    )
    assert merged == [{"oa": True, "cr": True, "n": 1}]
    if edge_buffer is None:  # every pair once, W9's counted (flushed between W6's unchanged
        # pair and its list's row of that pair, both count it, as records do)
        assert as_lists["relationships"]["CITES"] == 15


def test_a_blank_end_is_refused_as_its_row_is(any_store: GraphStore) -> None:
    """A blank id in a list goes the rows' way, whose error names the row; the graph
    keeps what was stored before."""
    errors = []
    cases: list[list[Any]] = [
        [_work(1), ReferenceList("openalex:W1", ("openalex:W0", ""), ("W0", ""), ())],
        [_work(1), Citation.model_construct(start="openalex:W1", end="openalex:W0",
                                            from_openalex=True),
         Citation.model_construct(start="openalex:W1", end="", from_openalex=True)],
    ]  # fmt: skip
    for records in cases:
        _stored(any_store)
        with pytest.raises(InputError) as err:
            RecordWriter(any_store, batch_size=2).add_all(records)
        errors.append(str(err.value))
        assert any_store.run("MATCH (p:Paper {id: 'openalex:W0'}) RETURN p.title AS t") == [
            {"t": "Work 0"}
        ]
    assert errors[0] == errors[1]
    assert "endpoint" in errors[0]

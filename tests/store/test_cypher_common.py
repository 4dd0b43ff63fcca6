"""The row handling both stores share (``store/cypher_common.py``), without a server.

The server-side behaviour of the same helpers is pinned by ``test_contract.py``; here the
pure parts: validation names record and field, and the storable form is the same for the
MERGE path (``clean_props``) and the bulk path (``bulk.encode_value``).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from scholarkg.errors import InputError
from scholarkg.schema.ddl import SchemaSpec, default_schema
from scholarkg.store.base import EdgeSnapshot, PageRankConfig
from scholarkg.store.cypher_common import (
    clean_props,
    find_fulltext_index,
    node_rows,
    rel_rows,
    run_batches,
    set_vectors_query,
    storable_value,
)
from scholarkg.store.falkordb import bulk_values
from scholarkg.store.pagerank import check_pagerank_config, pagerank_on_snapshot


def test_storable_value_and_clean_props() -> None:
    assert storable_value({"b": 1, "a": 2}) == '{"a": 2, "b": 1}'
    assert storable_value(["x", None, "y"]) == ["x", "y"]
    assert storable_value([{"q": 1}, None]) == '[{"q": 1}]'
    assert storable_value(3.5) == 3.5
    assert clean_props({"a": None, "b": (1, None, 2), "c": "t"}) == {"b": [1, 2], "c": "t"}


def test_bulk_encoding_uses_the_same_storable_form() -> None:
    """A map or nested list must be stored as the same JSON text by MERGE and GRAPH.BULK."""
    value = {"k": [1, None], "a": "é"}
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    assert bulk_values.encode_value(value) == b"\x03" + text.encode() + b"\x00"
    assert clean_props({"m": value}) == {"m": text}
    # a flat list loses its None members on both paths: [1, None, 2] is an array of 2
    assert bulk_values.encode_value([1, None, 2])[:9] == bulk_values.encode_value([1, 2])[:9]


def test_node_rows_name_the_record_without_id() -> None:
    rows = list(node_rows([{"id": 7, "t": None}], "Paper"))
    assert rows == [{"id": "7", "props": {}}]
    for bad in (None, "", "   "):
        with pytest.raises(InputError, match="Paper node without an id") as info:
            list(node_rows([{"id": "a"}, {"id": bad}], "Paper"))
        assert (info.value.line, info.value.field) == (2, "id")


def test_rel_rows_props_forms_and_missing_endpoints() -> None:
    assert list(rel_rows([{"start": 1, "end": "b", "w": 2.0, "x": None}])) == [
        {"start": "1", "end": "b", "props": {"w": 2.0}}
    ]
    assert list(rel_rows([{"start": "a", "end": "b", "props": None}])) == [
        {"start": "a", "end": "b", "props": {}}
    ]
    with pytest.raises(InputError) as info:
        list(rel_rows([{"start": "a", "end": "b"}, {"start": "a"}]))
    assert (info.value.line, info.value.field) == (2, "end")


def test_run_batches_counts_sent_and_written() -> None:
    batches: list[list[dict[str, Any]]] = []
    seen: list[int] = []

    def send(batch: list[dict[str, Any]]) -> int:
        batches.append(batch)
        return len(batch) - 1  # pretend one row per batch found no endpoint

    rows = ({"i": i} for i in range(5))  # a generator: never materialised as a whole
    assert run_batches(send, rows, batch_size=2, progress=seen.append) == (5, 2)
    assert [len(b) for b in batches] == [2, 2, 1]
    assert seen == [2, 4, 5]


def test_set_vectors_query_pastes_only_whitelisted_names() -> None:
    text = set_vectors_query("Paper", "emb_x", lambda p: f"vecf32({p})")
    assert "MATCH (n:Paper {id: row.id}) SET n.emb_x = vecf32(row.v)" in text
    with pytest.raises(InputError):
        set_vectors_query("Paper", "x} DETACH DELETE n //", lambda p: p)
    with pytest.raises(InputError):
        set_vectors_query("Nope", "emb_x", lambda p: p)


def test_find_fulltext_index_falls_back_to_defaults() -> None:
    custom = SchemaSpec(keys=(), fulltext=())
    assert find_fulltext_index("paper_text", custom) == default_schema().fulltext[0]
    with pytest.raises(InputError, match="unknown full-text index"):
        find_fulltext_index("nope", custom)


def test_pagerank_on_snapshot_by_hand() -> None:
    """a -> b, d = 0.85: a keeps 1 - d = 0.15; b gets 0.15 + 0.85 * 0.15 = 0.2775.

    Superstep 1 moves a's 0.15 to b; in superstep 2 b (dangling) sends nothing: converged.
    """
    snap = EdgeSnapshot(
        ids=["a", "b"], src=np.array([0]), dst=np.array([1]), weight=np.array([5.0])
    )
    res = pagerank_on_snapshot(snap, PageRankConfig(), weighted=False, label="Paper")
    assert res.scores == pytest.approx({"a": 0.15, "b": 0.2775})
    assert (res.ran_iterations, res.did_converge) == (2, True)
    ppr = pagerank_on_snapshot(
        snap, PageRankConfig(source_nodes={"a": 2.0}), weighted=True, label="Paper"
    )
    # PPR: only the source starts with (1 - d) * bias = 0.3; b starts at 0 and gets 0.85 * 0.3
    assert ppr.scores == pytest.approx({"a": 0.3, "b": 0.85 * 0.3})
    with pytest.raises(InputError, match=r"not in the Paper graph: \['zz'\]"):
        pagerank_on_snapshot(
            snap, PageRankConfig(source_nodes={"zz": 1.0}), weighted=False, label="Paper"
        )


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (PageRankConfig(damping_factor=1.0), "damping_factor"),
        (PageRankConfig(damping_factor=float("nan")), "damping_factor"),
        (PageRankConfig(max_iterations=0), "max_iterations"),
        (PageRankConfig(max_iterations=2.5), "max_iterations"),  # type: ignore[arg-type]  # the wrong type is the test
        (PageRankConfig(tolerance=-1e-9), "tolerance"),
        (PageRankConfig(source_nodes={"a": -1.0}), "source_nodes"),
        (PageRankConfig(source_nodes={"a": float("nan")}), "source_nodes"),
        (PageRankConfig(source_nodes={"a": float("inf")}), "source_nodes"),
    ],
)
def test_pagerank_config_is_checked_once_for_both_paths(config: PageRankConfig, field: str) -> None:
    """The GDS path (Neo4j) and the scipy path reject the same configurations."""
    snap = EdgeSnapshot(
        ids=["a"], src=np.array([], dtype=int), dst=np.array([], dtype=int), weight=np.array([])
    )
    with pytest.raises(InputError) as info:
        check_pagerank_config(config)
    assert info.value.field == field
    with pytest.raises(InputError) as info:
        pagerank_on_snapshot(snap, config, weighted=False)
    assert info.value.field == field

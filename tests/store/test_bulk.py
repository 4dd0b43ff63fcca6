"""GRAPH.BULK loader: binary encoding by hand, real loads into the session server."""

from __future__ import annotations

import gzip
import json
import struct
from pathlib import Path

import numpy as np
import pytest

from scholarkg.errors import InputError, StoreError
from scholarkg.store.bulk_files import EdgeSource, NodeSource
from scholarkg.store.falkordb import bulk
from scholarkg.store.falkordb.bulk import EdgePositions, bulk_load, bulk_load_papers
from scholarkg.store.falkordb.bulk_values import encode_value
from scholarkg.store.falkordb.store import FalkorDBStore


def _write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


PAPERS = [
    {"id": "p1", "title": "Alpha", "year": 2001},
    {"id": "p2", "tags": ["x", "y"], "meta": {"a": 1}, "skip": None},
    {"id": 3, "score": 0.5, "open": True},
    {"id": "p4"},
]


def test_encode_value_bytes_by_hand() -> None:
    assert encode_value("ab") == b"\x03ab\x00"
    assert encode_value(7) == b"\x04" + (7).to_bytes(8, "little", signed=True)
    assert encode_value(-1) == b"\x04" + b"\xff" * 8
    assert encode_value(0.5) == b"\x02" + struct.pack("<d", 0.5)
    assert encode_value(True) == b"\x01\x01" and encode_value(False) == b"\x01\x00"
    assert encode_value(None) == b"\x00"
    assert encode_value([1, None, "z"]) == (
        b"\x05" + (2).to_bytes(8, "little") + encode_value(1) + b"\x03z\x00"
    )
    assert encode_value({"b": 1, "a": [2]}) == b'\x03{"a": [2], "b": 1}\x00'
    assert encode_value([{"q": 1}]) == b'\x03[{"q": 1}]\x00'


def test_bulk_load_papers_csv(store: FalkorDBStore, tmp_path: Path) -> None:
    papers = _write_jsonl(tmp_path / "papers.jsonl", PAPERS)
    cites = tmp_path / "cites.csv"
    cites.write_text("start,end\np1,p2\np2,3\n3,p1\np1,zz\np1,p2\n", encoding="utf-8")
    stages: list[str] = []
    res = bulk_load_papers(store, papers, cites, progress=lambda s, n: stages.append(s))
    assert (res.nodes, res.relationships, res.skipped_relationships) == (4, 4, 1)
    assert res.skipped_examples == [f"{cites}:5 (zz)"]
    assert {"parse nodes", "parse edges", "send nodes", "send edges", "schema"} <= set(stages)
    assert store.counts().nodes == {"Paper": 4}
    assert store.counts().relationships == {"CITES": 4}
    rows = store.run("MATCH (p:Paper) RETURN p ORDER BY p.id")
    assert [r["p"] for r in rows] == [
        {"id": "3", "score": 0.5, "open": True},
        {"id": "p1", "title": "Alpha", "year": 2001},
        {"id": "p2", "tags": ["x", "y"], "meta": '{"a": 1}'},
        {"id": "p4"},
    ]
    # r must be referenced, or FalkorDB collapses the parallel p1->p2 edges
    edges = store.run(
        "MATCH (a)-[r:CITES]->(b) RETURN a.id AS a, b.id AS b, id(r) AS r ORDER BY a, b"
    )
    assert [(e["a"], e["b"]) for e in edges] == [
        ("3", "p1"),
        ("p1", "p2"),
        ("p1", "p2"),
        ("p2", "3"),
    ]
    # parallel edges survive the snapshot (FalkorDB's unreferenced-alias pitfall)
    snap = store.edge_snapshot("Paper", "CITES")
    pairs = sorted(
        (snap.ids[a], snap.ids[b])
        for a, b in zip(snap.src.tolist(), snap.dst.tolist(), strict=True)
    )
    assert pairs == [("3", "p1"), ("p1", "p2"), ("p1", "p2"), ("p2", "3")]
    assert snap.weight.tolist() == [1.0] * 4
    # schema applied afterwards: the key's index, and MERGE reuses bulk-loaded nodes
    assert "range index on :Paper(id)" in res.schema_created
    store.merge_nodes("Paper", [{"id": "p1", "title": "Alpha 2"}])
    assert store.counts().nodes == {"Paper": 4}


def test_bulk_many_commands_keep_ids_aligned(
    store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tiny token/command limits force many GRAPH.BULK calls; edges must still match."""
    monkeypatch.setattr(bulk, "NODES_PER_TOKEN", 3)
    monkeypatch.setattr(bulk, "EDGES_PER_TOKEN", 2)
    monkeypatch.setattr(bulk, "MAX_COMMAND_BYTES", 120)
    n = 20
    papers = _write_jsonl(
        tmp_path / "p.jsonl", [{"id": f"n{i}", **({"k": i} if i % 2 else {})} for i in range(n)]
    )
    edges = _write_jsonl(
        tmp_path / "e.jsonl", [{"start": f"n{i}", "end": f"n{(i * 7) % n}"} for i in range(n)]
    )
    res = bulk_load_papers(store, papers, edges, apply_schema=False)
    assert (res.nodes, res.relationships) == (n, n)
    got = store.run("MATCH (a)-[:CITES]->(b) RETURN a.id AS a, b.id AS b, a.k AS k")
    assert sorted((r["a"], r["b"]) for r in got) == sorted(
        (f"n{i}", f"n{(i * 7) % n}") for i in range(n)
    )
    assert {r["a"]: r["k"] for r in got}["n3"] == 3
    assert {r["a"]: r["k"] for r in got}["n2"] is None


def test_bulk_multi_label_tsv_and_edge_props(store: FalkorDBStore, tmp_path: Path) -> None:
    papers = _write_jsonl(tmp_path / "papers.jsonl", PAPERS[:2])
    authors = _write_jsonl(tmp_path / "authors.jsonl", [{"id": "u1", "name": "Ada"}])
    by = tmp_path / "by.tsv.gz"
    with gzip.open(by, "wt", encoding="utf-8") as fh:
        fh.write("start\tend\tposition\tweight\np1\tu1\t1\t0.5\np2\tu1\t2\t\n")
    res = bulk_load(
        store,
        [NodeSource(papers), NodeSource(authors, "Author")],
        [EdgeSource(by, "AUTHORED_BY", "Paper", "Author")],
        apply_schema=False,
    )
    assert res.relationships == 2
    rows = store.run(
        "MATCH (p:Paper)-[r:AUTHORED_BY]->(a:Author) RETURN p.id AS p, r, a.name AS n ORDER BY p"
    )
    assert rows == [
        {"p": "p1", "r": {"position": 1, "weight": 0.5}, "n": "Ada"},
        {"p": "p2", "r": {"position": 2}, "n": "Ada"},
    ]


def test_interleaved_label_files_keep_ids_aligned(store: FalkorDBStore, tmp_path: Path) -> None:
    """Paper, Author, then Paper again: internal ids follow file order, not label order."""
    p1 = _write_jsonl(tmp_path / "p1.jsonl", [{"id": "a"}, {"id": "b"}])
    au = _write_jsonl(tmp_path / "au.jsonl", [{"id": "u"}])
    p2 = _write_jsonl(tmp_path / "p2.jsonl", [{"id": "c"}])
    cites = _write_jsonl(
        tmp_path / "c.jsonl", [{"start": "c", "end": "a"}, {"start": "b", "end": "c"}]
    )
    by = _write_jsonl(tmp_path / "by.jsonl", [{"start": "c", "end": "u"}])
    bulk_load(
        store,
        [NodeSource(p1), NodeSource(au, "Author"), NodeSource(p2)],
        [EdgeSource(cites), EdgeSource(by, "AUTHORED_BY", "Paper", "Author")],
        apply_schema=False,
    )
    rows = store.run(
        "MATCH (x)-[r]->(y) RETURN labels(x)[0] AS lx, x.id AS x, type(r) AS t, "
        "labels(y)[0] AS ly, y.id AS y ORDER BY x, t"
    )
    assert [(r["lx"], r["x"], r["t"], r["ly"], r["y"]) for r in rows] == [
        ("Paper", "b", "CITES", "Paper", "c"),
        ("Paper", "c", "AUTHORED_BY", "Author", "u"),
        ("Paper", "c", "CITES", "Paper", "a"),
    ]


def test_edges_by_position_follow_the_order_the_nodes_were_sent(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """Position ``i`` is the label's ``i``-th node sent, across files and readers: the first
    Paper file goes columnar, the second (a nested value) line by line, an Author file
    between them takes internal ids of its own."""
    p1 = _write_jsonl(tmp_path / "p1.jsonl", [{"id": "a"}, {"id": "b"}])
    au = _write_jsonl(tmp_path / "au.jsonl", [{"id": "u"}, {"id": "v"}])
    p2 = _write_jsonl(tmp_path / "p2.jsonl", [{"id": "c", "meta": {"k": 1}}])
    res = bulk_load(
        store,
        [NodeSource(p1), NodeSource(au, "Author"), NodeSource(p2)],
        [
            EdgePositions(np.array([2, 1]), np.array([0, 2]), "refs", properties=(("m", True),)),
            EdgePositions(
                np.array([2]), np.array([1]), "authors", "AUTHORED_BY", "Paper", "Author"
            ),
        ],
        apply_schema=False,
    )
    assert str(p2) in res.line_files and str(p1) in res.fast_files
    assert res.relationships == 3
    rows = store.run(
        "MATCH (x)-[r]->(y) RETURN x.id AS x, type(r) AS t, r.m AS m, y.id AS y ORDER BY x, t"
    )
    assert [(r["x"], r["t"], r["m"], r["y"]) for r in rows] == [
        ("b", "CITES", True, "c"),
        ("c", "AUTHORED_BY", None, "v"),
        ("c", "CITES", True, "a"),
    ]


def test_an_edge_position_past_the_nodes_is_refused_and_leaves_no_graph(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    papers = _write_jsonl(tmp_path / "papers.jsonl", [{"id": "a"}, {"id": "b"}])
    with pytest.raises(InputError, match="refs: a CITES endpoint position outside the 2 Paper"):
        bulk_load(
            store, [NodeSource(papers)], [EdgePositions(np.array([0]), np.array([2]), "refs")]
        )
    assert store.counts().total_nodes == 0
    with pytest.raises(InputError, match="2 start and 1 end positions"):
        bulk_load(
            store, [NodeSource(papers)], [EdgePositions(np.array([0, 1]), np.array([1]), "refs")]
        )


def test_strict_edges_report_the_line(store: FalkorDBStore, tmp_path: Path) -> None:
    papers = _write_jsonl(tmp_path / "papers.jsonl", PAPERS)
    cites = _write_jsonl(
        tmp_path / "c.jsonl", [{"start": "p1", "end": "p2"}, {"start": "p1", "end": "nope"}]
    )
    with pytest.raises(InputError) as info:
        bulk_load_papers(store, papers, cites, strict_edges=True)
    assert (info.value.line, info.value.field) == (2, "end") and "nope" in str(info.value)
    assert store.counts().total_nodes == 0  # nothing was sent


@pytest.mark.parametrize(
    ("lines", "line", "field", "needle"),
    [
        (['{"id": "a"}', "{not json"], 2, None, "invalid JSON"),
        (['{"id": "a"}', '{"title": "no id"}'], 2, "id", "id"),
        (['{"id": "a"}', '{"id": "a"}'], 2, "id", "duplicate"),
        (['{"id": "a", "bad key": 1}'], 1, "bad key", "invalid property"),
        # a NaN property is stored as missing (the record layer's rule); a NaN id refused
        (['{"id": NaN}'], 1, "id", "not a finite number"),
        (['{"id": "a", "x": 99999999999999999999}'], 1, "x", "64 bits"),
        (["[1, 2]"], 1, None, "JSON object"),
        # a key over 4,096 UTF-8 bytes killed the server (schema.text.MAX_KEY_BYTES)
        (['{"id": "a"}', '{"id": "%s"}' % ("x" * 4097)], 2, "id", "over the 4,096"),
        (['{"id": "a"}', '{"id": "%s"}' % ("é" * 2049)], 2, "id", "4,098 bytes"),
    ],
)
def test_bad_node_lines_raise_before_sending(
    store: FalkorDBStore,
    tmp_path: Path,
    lines: list[str],
    line: int,
    field: str | None,
    needle: str,
) -> None:
    papers = tmp_path / "bad.jsonl"
    papers.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        bulk_load_papers(store, papers)
    assert info.value.path == str(papers)
    assert info.value.line == line and info.value.field == field
    assert needle in str(info.value)
    assert store.counts().total_nodes == 0


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ("from,to\np1,p2\n", 1, "'start' and 'end'"),
        ("start,end\np1,p2\np1\n", 3, "expected 2 columns"),
        ("start,end\np1,\n", 2, "empty endpoint"),
    ],
)
def test_bad_edge_lines(
    store: FalkorDBStore, tmp_path: Path, text: str, line: int, needle: str
) -> None:
    papers = _write_jsonl(tmp_path / "papers.jsonl", PAPERS)
    cites = tmp_path / "cites.csv"
    cites.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as info:
        bulk_load_papers(store, papers, cites)
    assert info.value.line == line and needle in str(info.value)
    assert store.counts().total_nodes == 0


def test_refuses_non_empty_graph_but_replaces_empty_key(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    papers = _write_jsonl(tmp_path / "papers.jsonl", PAPERS)
    store.apply_schema()  # key exists, no nodes: allowed
    bulk_load_papers(store, papers)
    with pytest.raises(StoreError, match="incremental"):
        bulk_load_papers(store, papers)
    assert store.counts().nodes == {"Paper": 4}


def test_missing_edge_file_is_an_input_error(store: FalkorDBStore, tmp_path: Path) -> None:
    """Edge files open through ``textio.open_text``: a missing one names the path."""
    papers = _write_jsonl(tmp_path / "papers.jsonl", PAPERS)
    missing = tmp_path / "nope.csv"
    with pytest.raises(InputError, match="file not found") as info:
        bulk_load_papers(store, papers, missing)
    assert info.value.path == str(missing)
    assert store.counts().total_nodes == 0

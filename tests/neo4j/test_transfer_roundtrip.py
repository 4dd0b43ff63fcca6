"""Export a graph to JSON Lines and import it into a fresh graph: nothing may change.

Runs on the embedded FalkorDB store (the Neo4j direction is in ``test_neo4j_live.py``).
Small paging (``page_size=2``) exercises the keyset paging across page boundaries.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from scholarkg.config import Settings
from scholarkg.errors import InputError
from scholarkg.schema.ddl import VectorIndex
from scholarkg.schema.records import Paper
from scholarkg.store import transfer
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

VEC = VectorIndex("paper_emb_test", "Paper", "emb_test", 3)


@pytest.fixture
def target(embedded_server: EmbeddedServer) -> Iterator[FalkorDBStore]:
    st = FalkorDBStore(embedded_server.connect(), f"t_{uuid.uuid4().hex[:12]}")
    try:
        yield st
    finally:
        st.clear()
        st.close()


def build(store: FalkorDBStore) -> None:
    store.merge_nodes(
        "Paper",
        [
            {"id": "p1", "title": 'Graph "quotes" ünïcode', "year": 2020, "score": 0.5},
            {"id": "p2", "title": "Second", "open": True, "tags": ["a", "b"]},
            {"id": "p3", "title": "Third", "year": 2022},
            {"id": "p4"},
            {"id": "p5", "title": "Isolated"},
        ],
    )
    store.merge_nodes("Author", [{"id": "a1", "name": "Ada"}, {"id": "a2", "name": "Bo"}])
    store.merge_relationships(
        "CITES",
        "Paper",
        "Paper",
        [
            {"start": "p1", "end": "p2", "weight": 2.5},
            {"start": "p1", "end": "p3"},
            {"start": "p3", "end": "p2", "sentence": "as shown in [1]"},
            {"start": "p2", "end": "p2"},  # self loop
        ],
    )
    store.merge_relationships(
        "AUTHORED_BY",
        "Paper",
        "Author",
        [{"start": "p1", "end": "a1", "position": 0}, {"start": "p1", "end": "a2", "position": 1}],
    )
    store.ensure_vector_index(VEC)
    store.set_vectors(
        "Paper",
        "emb_test",
        [("p1", [1.0, 0.0, 0.0]), ("p2", [0.0, 1.0, 0.0]), ("p3", [0.6, 0.8, 0.0])],
        extra={"p1": {"emb_test_model": "m"}},
    )


def snapshot(store: FalkorDBStore) -> dict[str, object]:
    """Everything observable: node properties, relationships with properties, vectors."""
    nodes = store.run("MATCH (n) RETURN labels(n) AS l, n.id AS id, properties(n) AS p")
    rels = store.run(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p"
    )
    return {
        "nodes": sorted(json.dumps(r, sort_keys=True) for r in nodes),
        "rels": sorted(json.dumps(r, sort_keys=True) for r in rels),
    }


def test_round_trip_keeps_counts_properties_and_vectors(
    store: FalkorDBStore, target: FalkorDBStore, tmp_path: Path
) -> None:
    build(store)
    seen: list[int] = []
    manifest = transfer.export_graph(store, tmp_path / "dump", page_size=2, progress=seen.append)
    assert manifest.nodes == {"Paper": 5, "Author": 2}
    assert manifest.relationships == {"CITES": 4, "AUTHORED_BY": 2}
    assert manifest.vectors == {"Paper": {"emb_test": 3}}
    assert manifest.source_backend == "embedded" and manifest.format_version == 1
    assert seen == sorted(seen) and seen[-1] == 7 + 6
    lines = (tmp_path / "dump" / transfer.NODES).read_text(encoding="utf-8").splitlines()
    assert len(lines) == 7
    p1 = next(json.loads(x) for x in lines if json.loads(x)["id"] == "p1")
    assert p1["vectors"] == {"emb_test": [1.0, 0.0, 0.0]}
    assert "emb_test" not in p1["properties"] and p1["properties"]["emb_test_model"] == "m"

    report = transfer.import_graph(target, tmp_path / "dump", batch_size=3)
    assert (report.nodes, report.relationships, report.vectors) == (7, 6, 3)
    assert report.skipped_relationships == 0
    assert target.counts() == store.counts()
    assert snapshot(target) == snapshot(store)
    # vectors came back as vectors: the target's index answers like the source's
    q = [0.8, 0.6, 0.0]
    assert [(h.id, round(h.score, 5)) for h in target.vector(VEC, q, k=3)] == [
        (h.id, round(h.score, 5)) for h in store.vector(VEC, q, k=3)
    ]
    # idempotent: a second import changes nothing
    transfer.import_graph(target, tmp_path / "dump")
    assert target.counts() == store.counts()
    assert snapshot(target) == snapshot(store)


def test_keyed_relationships_survive_the_round_trip(
    store: FalkorDBStore, target: FalkorDBStore, tmp_path: Path
) -> None:
    """Three judgements of one (aspect, paper) pair are three JUDGED edges after import too."""
    from scholarkg.loaders.writer import write_records
    from scholarkg.schema.records import Aspect, Judgement

    aspect = Aspect(id="asp", aspect_id="1", source="dorismae")
    write_records(
        store,
        [
            aspect,
            Aspect(id="asp2", aspect_id="2", source="dorismae"),
            *build_papers(),
            Judgement(start="asp", end="p1", score=2.0, source="gpt", key="gpt:0"),
            Judgement(start="asp", end="p1", score=2.0, source="gpt", key="gpt:1"),
            Judgement(start="asp", end="p1", score=1.0, source="human", annotator="h1",
                      key="human:0:h1"),
            Judgement(start="asp2", end="p1", score=0.0, source="gpt", key="gpt:2"),
        ],
    )  # fmt: skip
    assert store.counts().relationships == {"JUDGED": 4}
    transfer.export_graph(store, tmp_path / "dump", page_size=1)
    for _ in range(2):  # and again: idempotent
        report = transfer.import_graph(target, tmp_path / "dump", batch_size=2)
        assert report.relationships == 4
        assert snapshot(target) == snapshot(store)
    rels = tmp_path / "dump" / transfer.RELATIONSHIPS
    first = json.loads(rels.read_text(encoding="utf-8").splitlines()[0])
    del first["properties"]["key"]
    _rewrite_line(rels, 0, json.dumps(first))
    with pytest.raises(InputError, match="merge key") as info:
        transfer.import_graph(target, tmp_path / "dump")
    assert (info.value.line, info.value.field) == (1, "properties.key")


def build_papers() -> list[Paper]:
    return [Paper(id="p1", title="One"), Paper(id="p2", title="Two")]


def test_multi_label_node_is_exported_once(
    store: FalkorDBStore, target: FalkorDBStore, tmp_path: Path
) -> None:
    store.merge_nodes("Paper", [{"id": "x", "title": "T"}])
    store.run("MATCH (n:Paper {id: 'x'}) SET n:Chunk")
    manifest = transfer.export_graph(store, tmp_path / "d")
    assert manifest.nodes == {"Chunk": 1}
    transfer.import_graph(target, tmp_path / "d")
    assert target.run("MATCH (n {id: 'x'}) RETURN labels(n) AS l")[0]["l"] in (
        ["Chunk", "Paper"],
        ["Paper", "Chunk"],
    )


def _export(store: FalkorDBStore, path: Path) -> Path:
    build(store)
    transfer.export_graph(store, path)
    return path


def _rewrite_line(path: Path, index: int, new: str) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    lines[index] = new
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("file", "line", "content", "field"),
    [
        (transfer.NODES, 2, "{not json", None),
        (transfer.NODES, 1, '{"labels": ["Papr"], "id": "p1", "properties": {}}', "labels"),
        (transfer.NODES, 1, '{"labels": ["Paper"], "id": 7, "properties": {}}', "id"),
        (transfer.NODES, 1, '{"labels": ["Paper"], "id": "  ", "properties": {}}', "id"),
        # a key over 4,096 bytes (the embedded store's index finds no longer one)
        (
            transfer.NODES,
            2,
            '{"labels": ["Paper"], "id": "%s", "properties": {}}' % ("k" * 4097),
            "id",
        ),
        (transfer.NODES, 1, '{"labels": ["Paper"], "id": "p1", "properties": []}', "properties"),
        (
            transfer.NODES,
            1,
            '{"labels": ["Paper"], "id": "p1", "properties": {"bad name": 1}}',
            "properties.bad name",
        ),
        (
            transfer.RELATIONSHIPS,
            1,
            '{"type": "LIKES", "start": "p1", "end": "p2", "start_label": "Paper", '
            '"end_label": "Paper", "properties": {}}',
            "type",
        ),
        (
            transfer.RELATIONSHIPS,
            1,
            '{"type": "CITES", "end": "p2", "start_label": "Paper", '
            '"end_label": "Paper", "properties": {}}',
            "start",
        ),
    ],
)
def test_bad_lines_name_file_line_and_field_and_write_nothing(
    store: FalkorDBStore,
    target: FalkorDBStore,
    tmp_path: Path,
    file: str,
    line: int,
    content: str,
    field: str | None,
) -> None:
    dump = _export(store, tmp_path / "dump")
    _rewrite_line(dump / file, line - 1, content)
    with pytest.raises(InputError) as info:
        transfer.import_graph(target, dump)
    assert info.value.path == str(dump / file)
    assert info.value.line == line
    assert info.value.field == field
    assert target.counts().total_nodes == 0  # validated before any write


def test_truncated_file_and_bad_manifest_are_rejected(
    store: FalkorDBStore, target: FalkorDBStore, tmp_path: Path
) -> None:
    dump = _export(store, tmp_path / "dump")
    rels = (dump / transfer.RELATIONSHIPS).read_text(encoding="utf-8").splitlines()
    (dump / transfer.RELATIONSHIPS).write_text("\n".join(rels[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="do not match manifest"):
        transfer.import_graph(target, dump)
    manifest = json.loads((dump / transfer.MANIFEST).read_text(encoding="utf-8"))
    manifest["format_version"] = 99
    (dump / transfer.MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(InputError) as info:
        transfer.import_graph(target, dump)
    assert info.value.field == "format_version"
    with pytest.raises(InputError, match="missing"):
        transfer.import_graph(target, tmp_path / "nowhere")
    assert target.counts().total_nodes == 0


def test_cli_export_then_import(settings: Settings, store: FalkorDBStore, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from scholarkg.cli import app

    build(store)
    runner = CliRunner()
    dump = tmp_path / "cli-dump"
    res = runner.invoke(app, ["--graph", store.graph, "export", "--out", str(dump)])
    assert res.exit_code == 0, res.output
    assert "exported 7 nodes and 6 relationships" in res.output
    new_graph = f"t_{uuid.uuid4().hex[:12]}"
    res = runner.invoke(app, ["--graph", new_graph, "import", str(dump)])
    assert res.exit_code == 0, res.output
    assert "imported 7 nodes, 6 relationships and 3 vectors" in res.output
    imported = FalkorDBStore(store.db, new_graph)
    try:
        assert imported.counts() == store.counts()
        assert snapshot(imported) == snapshot(store)
    finally:
        imported.clear()

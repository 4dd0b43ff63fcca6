"""Stubs as a kind: a Paper no source record described (known only as someone's reference)
carries the second label ``Stub`` while, and only while, no record describes it; on both
backends, on the incremental and the bulk path, and after the one-shot upgrade of an old
graph (``scholarkg load mark-stubs``)."""

from __future__ import annotations

from pathlib import Path

from _catalogue_works import (
    crossref_item,
    inverted,
    openalex_work,
    write_crossref,
    write_openalex,
)
from _cli import runner

from scholarkg.cli import app
from scholarkg.config import Settings
from scholarkg.loaders import crossref, openalex
from scholarkg.loaders.identity import IdentityResolver, mark_existing_stubs
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.loaders.writer import RecordWriter, write_records
from scholarkg.schema.records import Citation, Paper
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore


def _load(store: GraphStore, settings: Settings, path: Path, kind: str = "openalex") -> None:
    read = openalex.read_works if kind == "openalex" else crossref.read_works
    resolver = IdentityResolver(store, chunk=50)
    step = Step(kind, path, kind, lambda: resolver.resolve(read(path)), family=False)
    run_steps(store, [step], settings=settings, batch_size=50, summary=LoadSummary())
    resolver.finish()


def _labels(store: GraphStore) -> dict[str, bool]:
    """Each Paper's OpenAlex id (or id) → whether it carries Stub."""
    rows = store.run("MATCH (p:Paper) RETURN p.openalex_id AS w, p.id AS id, p:Stub AS stub")
    return {str(r["w"] or r["id"]): bool(r["stub"]) for r in rows}


def test_references_are_stubs_until_a_record_describes_them(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    _load(any_store, settings, write_openalex(tmp_path / "a", [openalex_work(1)]))
    # W1 cites W2, W3 and W9: known only by their OpenAlex ids
    assert _labels(any_store) == {"W1": False, "W2": True, "W3": True, "W9": True}
    counts = any_store.counts()
    assert counts.nodes["Stub"] == 3 and counts.nodes["Paper"] == 4
    assert counts.total_nodes == sum(n for k, n in counts.nodes.items() if k != "Stub")
    # the stub matches by label, and a query over loaded works leaves it out
    titled = any_store.run("MATCH (p:Paper) WHERE NOT p:Stub RETURN p.title AS t")
    assert titled == [{"t": "Graphs of the scholarly record"}]

    _load(any_store, settings, write_openalex(tmp_path / "b", [openalex_work(2)]))
    assert _labels(any_store) == {"W1": False, "W2": False, "W3": True, "W9": True}
    # reloading the citing work (its stubs are sent again) leaves the described W2 alone
    _load(any_store, settings, write_openalex(tmp_path / "c", [openalex_work(1)]))
    assert _labels(any_store) == {"W1": False, "W2": False, "W3": True, "W9": True}


def test_a_merge_of_a_stub_into_a_described_work_leaves_no_stub(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Crossref's W1 cites j2 (a stub "doi:10.1000/j2"); OpenAlex's W1 cites W2 (another stub,
    "openalex:W2"); OpenAlex's record of W2 names both ids: the two merge into a described
    node, whichever of them survives."""
    _load(any_store, settings, write_crossref(tmp_path / "c.json", [crossref_item(1)]), "crossref")
    _load(any_store, settings, write_openalex(tmp_path / "a", [openalex_work(1)]))
    _load(any_store, settings, write_openalex(tmp_path / "b", [openalex_work(2)]))
    rows = any_store.run(
        "MATCH (p:Paper) WHERE p.doi = '10.1000/j2' OR p.openalex_id = 'W2' "
        "RETURN p.id AS id, p:Stub AS stub, p.title AS title"
    )
    title = "Identifiers across catalogues"
    assert rows == [{"id": "doi:10.1000/j2", "stub": False, "title": title}]


def test_a_stub_and_its_record_in_one_batch_in_either_order(any_store: GraphStore) -> None:
    described = Paper(doi="10.1/a", title="A", source="test")
    stub = Paper(doi="10.1/a")
    write_records(any_store, [stub, described, Paper(doi="10.1/b")])
    write_records(any_store, [described.model_copy(update={"doi": "10.1/c", "id": "doi:10.1/c"})])
    write_records(any_store, [Paper(doi="10.1/c")])  # a stub of a described work: no label
    rows = any_store.run("MATCH (p:Paper) RETURN p.id AS id, p:Stub AS stub ORDER BY id")
    assert rows == [
        {"id": "doi:10.1/a", "stub": False},
        {"id": "doi:10.1/b", "stub": True},
        {"id": "doi:10.1/c", "stub": False},
    ]


def test_a_described_stub_takes_the_last_record_and_loses_the_label_with_or_without_undo(
    any_store: GraphStore,
) -> None:
    """A stub's records are written and its label taken off in one statement
    (``identity/describe_stubs``): two records of it in one batch leave the later one's
    values, as ``merge_nodes`` folds a batch; its incoming citation stays; a writer without
    an undo list (it reads nothing before a batch) MERGEs and then unmarks instead, to the
    same graph."""
    citing = Paper(doi="10.1/x", title="X", source="test")
    write_records(any_store, [citing, Paper(doi="10.1/a"), Paper(doi="10.1/b")])
    write_records(any_store, [Citation(start="doi:10.1/x", end="doi:10.1/a")])
    write_records(
        any_store,
        [Paper(doi="10.1/a", title="first", source="test"),
         Paper(doi="10.1/a", title="second", source="test", year=2020)],
    )  # fmt: skip
    writer = RecordWriter(any_store, undo=False)
    writer.add_all([Paper(doi="10.1/b", title="B", source="test")])
    rows = any_store.run(
        "MATCH (p:Paper) OPTIONAL MATCH (:Paper)-[c:CITES]->(p) "
        "RETURN p.id AS id, p:Stub AS stub, p.title AS title, p.year AS year, "
        "count(c) AS cited ORDER BY id"
    )
    assert rows == [
        {"id": "doi:10.1/a", "stub": False, "title": "second", "year": 2020, "cited": 1},
        {"id": "doi:10.1/b", "stub": False, "title": "B", "year": None, "cited": 0},
        {"id": "doi:10.1/x", "stub": False, "title": "X", "year": None, "cited": 0},
    ]
    assert any_store.counts().nodes.get("Stub", 0) == 0


def test_the_bulk_path_labels_the_same_stubs(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    write_openalex(tmp_path, [openalex_work(1), openalex_work(2)])
    res = runner.invoke(app, ["load", "openalex", str(tmp_path), "--bulk"])
    assert res.exit_code == 0, res.output
    assert _labels(store) == {"W1": False, "W2": False, "W3": True, "W9": True}
    assert store.counts().nodes["Stub"] == 2


def test_an_old_graph_gets_the_label_from_the_next_load_or_the_one_shot_command(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    # a graph written before the label: stubs are plain Papers
    store.merge_nodes(
        "Paper",
        [
            {"id": "openalex:W8", "openalex_id": "W8"},
            {"id": "doi:10.1/t", "doi": "10.1/t", "title": "Titled"},
        ],
    )
    res = runner.invoke(app, ["load", "mark-stubs"])
    assert res.exit_code == 0, res.output
    assert "labelled 1 Paper(s) Stub" in res.output
    assert _labels(store) == {"W8": True, "doi:10.1/t": False}
    assert mark_existing_stubs(store) == 0  # the graph has the label now: nothing to do
    # and a catalogue load upgrades an old graph by itself
    store.run("MATCH (p:Stub) REMOVE p:Stub")
    write_openalex(tmp_path, [openalex_work(2)])
    res = runner.invoke(app, ["load", "openalex", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "1 Paper(s) known only by an id" in res.output
    assert _labels(store) == {"W8": True, "doi:10.1/t": False, "W2": False}


def test_a_work_cited_before_its_record_gets_each_reference_once(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """The writer CREATEs the references of a stub its record describes only while the stub
    has no relationship out (``identity/paper_states`` reads those): one another source
    gave the stub (here a hand-made edge, as a family's citation would) is MERGEd onto."""
    _load(any_store, settings, write_openalex(tmp_path / "a", [openalex_work(1)]))
    any_store.run(
        "MATCH (a:Paper {openalex_id: 'W2'}), (b:Paper {openalex_id: 'W3'}) "
        "CREATE (a)-[:CITES {from_crossref: true}]->(b)"
    )
    refs = ["https://openalex.org/W3", "https://openalex.org/W9"]
    two = openalex_work(2, referenced_works=refs)
    four = openalex_work(2, id="https://openalex.org/W4", doi=None, ids={}, referenced_works=refs)
    _load(any_store, settings, write_openalex(tmp_path / "b", [two, four]))
    rows = any_store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper) WHERE a.openalex_id IN ['W2', 'W4'] "
        "RETURN a.openalex_id AS a, b.openalex_id AS b, r.from_openalex AS oa, "
        "r.from_crossref AS cr"
    )
    got = sorted((r["a"], r["b"], r["oa"], r["cr"]) for r in rows)
    assert got == [
        ("W2", "W3", True, True), ("W2", "W9", True, None),
        ("W4", "W3", True, None), ("W4", "W9", True, None),
    ]  # fmt: skip
    assert _labels(any_store) == {"W1": False, "W2": False, "W3": True, "W4": False, "W9": True}


def test_a_described_stub_is_found_by_its_record_text(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """``identity/describe_stubs`` takes the label off before it sets the record's properties
    (FalkorDB then indexes the text once): the title and abstract must still reach the
    full-text index, and the label still go, as with the other order."""
    any_store.apply_schema()  # as load openalex does: the full-text index among the rest
    _load(any_store, settings, write_openalex(tmp_path / "a", [openalex_work(1)]))
    assert _labels(any_store)["W2"] is True
    described = openalex_work(
        2,
        title="Quasicrystal lattices of the record",
        abstract_inverted_index=inverted("aperiodic tilings cite each other"),
    )
    _load(any_store, settings, write_openalex(tmp_path / "b", [described]))
    assert _labels(any_store) == {"W1": False, "W2": False, "W3": True, "W9": True}
    (w2,) = any_store.run("MATCH (p:Paper {openalex_id: 'W2'}) RETURN p.id AS id")
    for term in ("quasicrystal", "tilings"):
        hits = any_store.fulltext("paper_text", [term], k=5)
        assert [h.id for h in hits] == [w2["id"]], term

"""One Paper per work whatever order OpenAlex, arXiv and Crossref arrive in, on both backends;
and kept current: re-reading a record replaces what that source says."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import (
    arxiv_record,
    crossref_item,
    openalex_work,
    write_arxiv,
    write_crossref,
    write_openalex,
)

from scholarkg.config import Settings
from scholarkg.loaders import arxiv, crossref, openalex
from scholarkg.loaders.identity import IdentityResolver, SourceGroup, merge_papers
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.store.base import GraphStore

Reader = Callable[[Path], Iterable[SourceGroup]]


def load(
    store: GraphStore, settings: Settings, path: Path, read: Reader, kind: str
) -> IdentityResolver:
    resolver = IdentityResolver(store, chunk=50)
    step = Step(kind, path, kind, lambda: resolver.resolve(read(path)), family=False)
    run_steps(store, [step], settings=settings, batch_size=50, summary=LoadSummary())
    resolver.finish()
    return resolver


def write_sources(tmp: Path) -> dict[str, tuple[Path, Reader]]:
    return {
        "openalex": (write_openalex(tmp / "oa", [openalex_work(n) for n in (1, 2, 3)]),
                     openalex.read_works),
        "arxiv": (write_arxiv(tmp / "arxiv.json", [arxiv_record(1), arxiv_record(3)]),
                  arxiv.read_snapshot),
        "crossref": (write_crossref(tmp / "crossref.json", [crossref_item(1), crossref_item(2)]),
                     crossref.read_works),
    }  # fmt: skip


def name_of(row: dict[str, Any]) -> str:
    """A work's name in the fixtures, whatever its node id: by the ids it holds."""
    if row.get("arxiv_id") == "2401.00001" or row.get("doi") == "10.1000/j1":
        return "W1"
    if row.get("doi") == "10.1000/j2" or row.get("openalex_id") == "W2":
        return "W2"
    if row.get("arxiv_id") == "2402.00002" or row.get("openalex_id") == "W3":
        return "W3"
    return str(row.get("openalex_id") or row.get("doi") or row["id"])


def graph_view(
    store: GraphStore,
) -> tuple[list[str], set[tuple[str, str, tuple[str, ...]]], dict[str, Any]]:
    rows = store.run(
        "MATCH (p:Paper) RETURN p.id AS id, p.arxiv_id AS arxiv_id, p.doi AS doi, "
        "p.openalex_id AS openalex_id, p.mag_id AS mag_id, p.pmid AS pmid, p.title AS title"
    )
    names = {r["id"]: name_of(r) for r in rows}
    edges = store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN a.id AS a, b.id AS b, "
        "r.from_openalex AS oa, r.from_crossref AS cr"
    )
    cites = {
        (names[e["a"]], names[e["b"]], tuple(s for s, f in (("oa", e["oa"]), ("cr", e["cr"])) if f))
        for e in edges
    }
    by_name = {names[r["id"]]: r for r in rows}
    return sorted(names.values()), cites, by_name


EXPECTED_PAPERS = ["10.1000/x9", "W1", "W2", "W3", "W9"]
EXPECTED_CITES = {
    ("W1", "W2", ("oa", "cr")),
    ("W1", "W3", ("oa",)),
    ("W1", "W9", ("oa",)),
    ("W1", "10.1000/x9", ("cr",)),
    ("W2", "W3", ("cr",)),
}


@pytest.mark.parametrize("order", list(itertools.permutations(["openalex", "arxiv", "crossref"])))
def test_every_order_of_three_sources_gives_one_paper_per_work(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    any_store.apply_schema()
    sources = write_sources(tmp_path)
    for name in order:
        path, read = sources[name]
        load(any_store, settings, path, read, f"{name}-test")
    papers, cites, by_name = graph_view(any_store)
    assert papers == EXPECTED_PAPERS, order
    assert cites == EXPECTED_CITES, order
    w1 = by_name["W1"]
    # every id of W1 is on its one node, whichever source brought it
    assert (w1["arxiv_id"], w1["doi"], w1["openalex_id"], w1["mag_id"], w1["pmid"]) == (
        "2401.00001", "10.1000/j1", "W1", "111", "999",
    )  # fmt: skip
    assert by_name["W3"]["arxiv_id"] == "2402.00002" and by_name["W3"]["openalex_id"] == "W3"
    assert by_name["W2"]["openalex_id"] == "W2" and by_name["W2"]["doi"] == "10.1000/j2"
    # the key is the id paper_id prefers among the records' ids, whatever came first
    # (docs/decisions.md, "One Paper per work")
    assert w1["id"] == "arxiv:2401.00001"
    # reloading everything changes nothing
    for name in order:
        path, read = sources[name]
        load(any_store, settings, path, read, f"{name}-test-again")
    assert graph_view(any_store)[:2] == (papers, cites)


def test_a_merge_moves_relationships_properties_and_ids(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Crossref's stub doi:10.1000/j2 and OpenAlex's openalex:W2 are one work: W2's record
    joins them; the merged-away id is kept in alt_ids and every edge survives."""
    any_store.apply_schema()
    sources = write_sources(tmp_path)
    load(any_store, settings, *sources["crossref"], "cr")
    oa_first = write_openalex(tmp_path / "oa1", [openalex_work(1)])
    load(any_store, settings, oa_first, openalex.read_works, "oa1")
    two = {
        r["id"]
        for r in any_store.run(
            "MATCH (p:Paper) WHERE p.id IN ['doi:10.1000/j2', 'openalex:W2'] RETURN p.id AS id"
        )
    }
    assert two == {"doi:10.1000/j2", "openalex:W2"}  # not yet known to be one work
    oa_two = write_openalex(tmp_path / "oa2", [openalex_work(2)])
    resolver = load(any_store, settings, oa_two, openalex.read_works, "oa2")
    assert resolver.report.merges == [("openalex:W2", "doi:10.1000/j2")]
    rows = any_store.run(
        "MATCH (p:Paper {id: 'doi:10.1000/j2'}) RETURN p.openalex_id AS oa, p.pmid AS pmid, "
        "p.alt_ids AS alt, p.title AS title"
    )
    assert rows == [
        {
            "oa": "W2",
            "pmid": "222",
            "alt": None,  # openalex:W2 is its openalex_id slot: found by it, no alias
            "title": "Identifiers across catalogues",
        }
    ]
    cited = any_store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper {id: 'doi:10.1000/j2'}) "
        "RETURN a.id AS a, r.from_openalex AS oa, r.from_crossref AS cr"
    )
    # W1 is keyed by its arXiv id (its OpenAlex record has it) since that record arrived
    assert cited == [{"a": "arxiv:2401.00001", "oa": True, "cr": True}]
    assert not merge_papers(any_store, "openalex:W2", "doi:10.1000/j2")  # gone: no-op


def test_reloading_an_updated_record_replaces_that_sources_reference_list(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    sources = write_sources(tmp_path)
    load(any_store, settings, *sources["openalex"], "oa")
    load(any_store, settings, *sources["crossref"], "cr")
    # W1 updated upstream: W2 and W9 dropped, W4 added, a new title
    newer = openalex_work(
        1, title="Graphs of the scholarly record, revised",
        referenced_works=["https://openalex.org/W3", "https://openalex.org/W4"],
    )  # fmt: skip
    part = write_openalex(tmp_path / "oa-new", [newer], date="2024-06-01")
    resolver = load(any_store, settings, part, openalex.read_works, "oa-new")
    _, cites, by_name = graph_view(any_store)
    # the title stays Crossref's: it ranks above OpenAlex (docs/decisions.md, source rank)
    assert by_name["W1"]["title"] == "Graphs of the scholarly record"
    from_w1 = {(b, s) for a, b, s in cites if a == "W1"}
    assert from_w1 == {
        ("W2", ("cr",)),  # OpenAlex dropped it, Crossref still lists it
        ("W3", ("oa",)),
        ("W4", ("oa",)),
        ("10.1000/x9", ("cr",)),
    }  # W9: only OpenAlex listed it, so the edge is gone
    assert resolver.report.pruned == 1


def test_openalex_merged_ids_retire_a_work(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    import gzip

    from scholarkg.loaders.identity import retire_ids

    any_store.apply_schema()
    path, read = write_sources(tmp_path)["openalex"]
    resolver = load(any_store, settings, path, read, "oa")
    merged = tmp_path / "oa" / "data" / "merged_ids" / "works" / "2024-06-01.csv.gz"
    merged.parent.mkdir(parents=True)
    with gzip.open(merged, "wt") as fh:
        fh.write("merge_date,id,merge_into_id\n2024-06-01,W9,W3\n2024-06-01,W404,W3\n")
    assert retire_ids(any_store, openalex.read_merged_ids(merged), resolver) == 1
    _, cites, by_name = graph_view(any_store)
    assert "W9" not in by_name
    assert ("W1", "W3", ("oa",)) in cites
    assert openalex.snapshot_files([tmp_path / "oa"])[1] == [merged]


def authorships(store: GraphStore) -> set[tuple[str, int | None, tuple[str, ...]]]:
    """W1's AUTHORED_BY edges: (author name, position, the sources that list it)."""
    rows = store.run(
        "MATCH (p:Paper {doi: '10.1000/j1'})-[r:AUTHORED_BY]->(a:Author) RETURN a.name AS name, "
        "r.position AS pos, r.from_openalex AS oa, r.from_arxiv AS ax, r.from_crossref AS cr"
    )
    return {(r["name"], r["pos"], tuple(s for s in ("oa", "ax", "cr") if r[s])) for r in rows}


def ada_edge(store: GraphStore) -> dict[str, Any]:
    """What OpenAlex's list entry set on W1's edge to Ada: institutions and raw name."""
    rows = store.run(
        "MATCH (:Paper {doi: '10.1000/j1'})-[r:AUTHORED_BY]->(:Author {name: 'Ada Lovelace'}) "
        "RETURN r.institutions AS inst, r.raw_name AS raw"
    )
    assert len(rows) == 1, rows
    return rows[0]


def test_reloading_a_record_replaces_that_sources_authorships_and_owned_properties(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Re-reading a work replaces what *that* source says: its author list (edges and
    positions) and the properties only it gives; the other sources' authorships stay."""
    any_store.apply_schema()
    sources = write_sources(tmp_path)
    for name in ("openalex", "arxiv", "crossref"):
        load(any_store, settings, *sources[name], name)
    # Ada has an ORCID, so OpenAlex and Crossref name one Author; arXiv's names are matched
    # to the authors the work lists: one authorship per person, every source's mark on it
    assert authorships(any_store) == {
        ("Ada Lovelace", 0, ("oa", "ax", "cr")),
        ("Charles Babbage", 1, ("oa", "ax")),
    }
    # W1 updated upstream: Charles dropped, Grace first, Ada second; no topics, closed
    # access; related_works trimmed away (select=): that says nothing, so `related` stays
    ada = openalex_work(1)["authorships"][0]
    newer = openalex_work(
        1,
        authorships=[
            {"author": {"id": "https://openalex.org/A3", "display_name": "Grace Hopper"}},
            ada,
        ],
        topics=[],
        open_access={"is_oa": False},
    )
    del newer["related_works"]
    part = write_openalex(tmp_path / "oa-new", [newer], date="2024-06-01")
    resolver = load(any_store, settings, part, openalex.read_works, "oa-new")
    assert authorships(any_store) == {
        ("Grace Hopper", 0, ("oa",)),
        ("Ada Lovelace", 1, ("oa", "ax", "cr")),  # OpenAlex's new position (the last word)
        ("Charles Babbage", 1, ("ax",)),  # arXiv still lists him: only OpenAlex's mark goes
    }
    assert resolver.report.pruned_authorships == 0
    rows = any_store.run(
        "MATCH (p:Paper {doi: '10.1000/j1'}) RETURN p.topics AS topics, "
        "p.topic_scores_e4 AS scores, p.is_oa AS is_oa, p.oa_status AS status, "
        "p.oa_url AS url, p.related AS related, p.title AS title"
    )
    assert rows == [
        {
            "topics": None,
            "scores": None,
            "is_oa": False,
            "status": None,
            "url": None,
            "related": ["W7"],
            "title": "Graphs of the scholarly record",
        }
    ]
    # a newer record listing Ada without institutions or a raw name clears the stored ones
    # (what OpenAlex's list entry gave), as a fresh load of that record would
    assert ada_edge(any_store) == {"inst": ["Analytical U"], "raw": "Ada L."}
    bare = dict(newer, authorships=[newer["authorships"][0], {"author": ada["author"]}])
    load(any_store, settings, write_openalex(tmp_path / "oa-bare", [bare], date="2024-06-15"),
         openalex.read_works, "oa-bare")  # fmt: skip
    assert ada_edge(any_store) == {"inst": None, "raw": None}
    # OpenAlex dropping Ada leaves the others' marks on her edge, without OpenAlex's
    no_ada = dict(newer, authorships=newer["authorships"][:1])
    part2 = write_openalex(tmp_path / "oa-newer", [no_ada], date="2024-07-01")
    load(any_store, settings, part2, openalex.read_works, "oa-newer")
    assert ("Ada Lovelace", 1, ("ax", "cr")) in authorships(any_store)
    # arXiv's list is replaced the same way; the others' edges stay
    one_author = dict(arxiv_record(1), authors_parsed=[["Babbage", "Charles", ""]])
    ax = write_arxiv(tmp_path / "arxiv-new.json", [one_author])
    load(any_store, settings, ax, arxiv.read_snapshot, "arxiv-new")
    expected = {
        ("Grace Hopper", 0, ("oa",)),
        ("Ada Lovelace", 1, ("cr",)),
        ("Charles Babbage", 0, ("ax",)),
    }
    assert authorships(any_store) == expected
    # reloading the same records again changes nothing
    load(any_store, settings, part2, openalex.read_works, "oa-newer-again")
    load(any_store, settings, ax, arxiv.read_snapshot, "arxiv-new-again")
    assert authorships(any_store) == expected


def test_a_trimmed_record_removes_nothing(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """An API page trimmed by select= (no authorships, open_access, topics) states nothing
    about what it lacks: the stored authorships and properties stay."""
    any_store.apply_schema()
    path, read = write_sources(tmp_path)["openalex"]
    load(any_store, settings, path, read, "oa")
    before = authorships(any_store)
    props = "RETURN p.topics AS t, p.is_oa AS oa, p.related AS r"
    stored = any_store.run(f"MATCH (p:Paper {{doi: '10.1000/j1'}}) {props}")
    page = tmp_path / "page.json"
    page.write_text(
        json.dumps({"meta": {}, "results": [{"id": "https://openalex.org/W1", "title": "T"}]})
    )
    load(any_store, settings, page, openalex.read_works, "page")
    assert authorships(any_store) == before
    assert any_store.run(f"MATCH (p:Paper {{doi: '10.1000/j1'}}) {props}") == stored


def test_ids_no_slot_holds_still_find_their_paper(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """A second DOI (arXiv lists two) and an OpenAlex id retired by merged_ids are kept as
    PaperAlias nodes: a later record carrying one lands on the Paper, not on a new node."""
    import gzip

    from scholarkg.loaders.identity import retire_ids

    any_store.apply_schema()
    two_dois = dict(arxiv_record(1), doi="10.1000/j1 10.1000/J1B")
    load(
        any_store,
        settings,
        write_arxiv(tmp_path / "ax.json", [two_dois]),
        arxiv.read_snapshot,
        "ax",
    )
    path, read = write_sources(tmp_path)["openalex"]
    resolver = load(any_store, settings, path, read, "oa")
    merged = tmp_path / "merged" / "merged_ids" / "works" / "2024-06-01.csv.gz"
    merged.parent.mkdir(parents=True)
    with gzip.open(merged, "wt") as fh:
        fh.write("merge_date,id,merge_into_id\n2024-06-01,W9,W3\n")
    assert retire_ids(any_store, openalex.read_merged_ids(merged), resolver) == 1
    # Crossref by the second DOI, and a new OpenAlex work citing the retired W9
    item = dict(crossref_item(1), DOI="10.1000/j1b", reference=[])
    load(
        any_store, settings, write_crossref(tmp_path / "cr.json", [item]), crossref.read_works, "cr"
    )
    w5 = openalex_work(
        2, id="https://openalex.org/W5", doi=None, ids={}, title="Citing a retired id",
        referenced_works=["https://openalex.org/W9"],
    )  # fmt: skip
    part = write_openalex(tmp_path / "oa5", [w5], date="2024-07-01")
    load(any_store, settings, part, openalex.read_works, "oa5")
    papers, cites, by_name = graph_view(any_store)
    assert papers == ["W1", "W2", "W3", "W5"]  # no doi:10.1000/j1b, no W9 again
    assert ("W5", "W3", ("oa",)) in cites
    assert by_name["W1"]["id"] == "arxiv:2401.00001"
    aliases = any_store.run(
        "MATCH (a:PaperAlias)-[:ALIAS_OF]->(p:Paper) RETURN a.id AS alias, p.id AS paper"
    )
    assert {(r["alias"], r["paper"]) for r in aliases} >= {
        ("doi:10.1000/j1b", "arxiv:2401.00001"),
        ("openalex:W9", by_name["W3"]["id"]),
    }


@pytest.mark.parametrize("order", [("zzz", "aaa"), ("aaa", "zzz")])
def test_a_changed_doi_leaves_the_node_keyed_by_what_its_slot_holds(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, str]
) -> None:
    """One OpenAlex work stated with two DOIs by two records: the key is the better DOI
    whatever the order, and the node holds that DOI in its ``doi`` slot, the other in
    ``alt_ids`` and as a ``PaperAlias``. Loaded "zzz" first, the node was keyed
    ``doi:10.1/aaa`` with ``doi`` "10.2/zzz" and ``alt_ids`` empty, although the load
    said the id was "kept in alt_ids"."""
    any_store.apply_schema()
    for name in order:
        doi = {"aaa": "10.1/aaa", "zzz": "10.2/zzz"}[name]
        work = openalex_work(1, id="https://openalex.org/W100", doi=f"https://doi.org/{doi}",
                             ids={}, locations=[], title=f"X {name}",
                             referenced_works=[])  # fmt: skip
        part = write_openalex(tmp_path / name, [work])
        load(any_store, settings, part, openalex.read_works, f"oa-{name}")
    rows = any_store.run(
        "MATCH (p:Paper) RETURN p.id AS id, p.doi AS doi, p.alt_ids AS alt, p.openalex_id AS w"
    )
    assert rows == [{"id": "doi:10.1/aaa", "doi": "10.1/aaa", "alt": ["doi:10.2/zzz"],
                     "w": "W100"}]  # fmt: skip
    by_slot = any_store.run("MATCH (p:Paper {doi: '10.1/aaa'}) RETURN p.id AS id")
    assert by_slot == [{"id": "doi:10.1/aaa"}]
    aliases = any_store.run(
        "MATCH (a:PaperAlias)-[:ALIAS_OF]->(p:Paper) RETURN a.id AS alias, p.id AS paper"
    )
    assert {(r["alias"], r["paper"]) for r in aliases} == {("doi:10.2/zzz", "doi:10.1/aaa")}

"""One Author node per person whichever source named them, in any load order, on both
backends: OpenAlex author ids with and without the ORCID, Crossref's ORCID, arXiv's names
(initials and diacritics tolerated) aligned to the work's listed authors."""

from __future__ import annotations

import itertools
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
from _catalogue_works import load_source as load

from scholarkg.config import Settings
from scholarkg.loaders import arxiv, crossref, openalex
from scholarkg.loaders.author_identity import names_match
from scholarkg.loaders.identity import SourceGroup
from scholarkg.store.base import GraphStore
from scholarkg.store.batch_writes import BatchWriteStore

Reader = Callable[[Path], Iterable[SourceGroup]]


def authors_of(store: GraphStore, arxiv_id: str) -> list[dict[str, Any]]:
    return store.run(
        "MATCH (p:Paper {arxiv_id: $a})-[r:AUTHORED_BY]->(x:Author) RETURN x.id AS id, "
        "x.name AS name, x.orcid AS orcid, r.position AS pos, r.from_openalex AS oa, "
        "r.from_arxiv AS ax, r.from_crossref AS cr ORDER BY pos",
        {"a": arxiv_id},
    )


def test_names_match_tolerates_initials_diacritics_and_order() -> None:
    assert names_match("Ada Lovelace", "A. Lovelace")
    assert names_match("Ada Lovelace", "Lovelace, Ada")
    assert names_match("Charles Babbage", "Charles Babbáge")
    assert names_match("Ada LOVELACE", "ada lovelace")
    # as real records spell them: a short given name, a dotless i with an accent
    assert names_match("Ron L. Diercks", "Ronald L. Diercks")
    assert names_match("Martı́n Farach-Colton", "Martin Farach-Colton")
    assert not names_match("Ada Lovelace", "Ada Byron")
    assert not names_match("Ada Lovelace", "B. Lovelace")


def test_an_openalex_author_with_and_without_orcid_is_one_node(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    second = openalex_work(2, authorships=[
        {"author": {"id": "https://openalex.org/A1", "display_name": "Ada Lovelace"}},
    ])  # fmt: skip
    load(any_store, settings, write_openalex(tmp_path, [openalex_work(1), second]),
         openalex.read_works, "oa")  # fmt: skip
    rows = any_store.run(
        "MATCH (a:Author {openalex_id: 'A1'})<-[:AUTHORED_BY]-(p:Paper) "
        "RETURN a.id AS id, a.orcid AS orcid, count(p) AS papers"
    )
    assert rows == [{"id": "openalexauthor:A1", "orcid": "0000-0001-2345-6789", "papers": 2}]


ARXIV_1 = {
    **arxiv_record(1),
    # initials, a diacritic and a third author nobody else lists
    "authors_parsed": [["Lovelace", "A.", ""], ["Babbáge", "Charles", ""], ["Hopper", "Grace", ""]],
}


@pytest.mark.parametrize("order", list(itertools.permutations(["openalex", "arxiv", "crossref"])))
def test_a_second_source_adds_no_author_to_a_listed_work(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    any_store.apply_schema()
    files: dict[str, tuple[Path, Reader]] = {
        "openalex": (write_openalex(tmp_path / "oa", [openalex_work(1)]), openalex.read_works),
        "arxiv": (write_arxiv(tmp_path / "ax.json", [ARXIV_1]), arxiv.read_snapshot),
        "crossref": (write_crossref(tmp_path / "cr.json", [crossref_item(1)]), crossref.read_works),
    }
    for name in order:
        load(any_store, settings, *files[name], name)
    rows = authors_of(any_store, "2401.00001")
    # Ada (OpenAlex id + ORCID; Crossref by ORCID; arXiv by name), Charles (OpenAlex; arXiv),
    # Grace (arXiv only): three people, three nodes, whatever the order
    assert [r["id"] for r in rows] == [
        "openalexauthor:A1", "openalexauthor:A2", rows[2]["id"]
    ], order  # fmt: skip
    assert rows[2]["name"] == "Grace Hopper" and rows[2]["id"].startswith("author:")
    ada, charles, grace = rows
    assert (ada["oa"], ada["ax"], ada["cr"]) == (True, True, True), order
    assert (grace["oa"], grace["ax"]) == (None, True), order
    assert (charles["oa"], charles["ax"]) == (True, True), order
    assert ada["orcid"] == "0000-0001-2345-6789"
    assert ada["name"] == "Ada Lovelace"  # the node keeps its name, not arXiv's "A. Lovelace"
    # no Author node is left without a work
    lone = any_store.run("MATCH (a:Author) WHERE NOT (a)<-[:AUTHORED_BY]-() RETURN a.id AS id")
    assert lone == [], order
    # and reloading every source changes nothing
    before = any_store.run(
        "MATCH (a)-[r:AUTHORED_BY]->(b) RETURN a.id AS a, b.id AS b, properties(r) AS p ORDER BY b"
    )
    for name in order:
        load(any_store, settings, *files[name], name)
    after = any_store.run(
        "MATCH (a)-[r:AUTHORED_BY]->(b) RETURN a.id AS a, b.id AS b, properties(r) AS p ORDER BY b"
    )
    assert after == before, order


def test_a_listed_work_is_aligned_beside_the_chunk_befores_authorships(
    any_store: GraphStore, settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stored author lists a chunk aligns names to are read beside the relationship
    writes still running that touch none of those works (the chunk before's authorships of
    another work): ``ids`` names the listed works, and the names land as a load that waits
    for every write lands them."""
    from scholarkg.loaders.author_identity import AuthorResolver

    other = {**arxiv_record(3), "authors_parsed": [["Hopper", "Grace", ""]]}
    oa = write_openalex(tmp_path / "oa", [openalex_work(1)])
    ax = write_arxiv(tmp_path / "ax.json", [other, ARXIV_1])

    def load_in_chunks_of_one() -> list[dict[str, Any]]:
        any_store.clear()
        any_store.apply_schema()
        load(any_store, settings, oa, openalex.read_works, "openalex", chunk=1)
        load(any_store, settings, ax, arxiv.read_snapshot, "arxiv", chunk=1)
        return authors_of(any_store, "2401.00001")

    assert isinstance(any_store, BatchWriteStore)
    asked: list[tuple[str, list[str] | None]] = []
    real = type(any_store).run_named_beside_relationships

    def recording(store: Any, name: str, params: Any = None, **kw: Any) -> Any:
        if name == "identity/paper_authors":
            asked.append((name, sorted(kw["ids"]) if kw.get("ids") is not None else None))
        return real(store, name, params, **kw)

    monkeypatch.setattr(type(any_store), "run_named_beside_relationships", recording)
    beside = load_in_chunks_of_one()
    w1 = any_store.run("MATCH (p:Paper {arxiv_id: '2401.00001'}) RETURN p.id AS id")[0]["id"]
    assert ("identity/paper_authors", [w1]) in asked, asked
    monkeypatch.undo()
    monkeypatch.setattr(
        AuthorResolver, "_stored_lists",
        lambda self, ids: self.store.run_named("identity/paper_authors", {"ids": ids}),
    )  # fmt: skip
    waited = load_in_chunks_of_one()
    assert [r["id"] for r in beside] == ["openalexauthor:A1", "openalexauthor:A2", beside[2]["id"]]
    assert beside == waited


def test_a_records_own_namesake_is_a_second_author_not_a_match(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Two co-authors of one record sharing a name, one without an OpenAlex id: the record
    says they are two people. The name-only one was aligned to its namesake in the same
    list (one authorship lost, positions shifted), and a reload of the same record moved
    more (found by a hostile review with a real OpenAlex record)."""
    any_store.apply_schema()
    work = openalex_work(1, authorships=[
        {"author": {"id": "https://openalex.org/A5", "display_name": "Wei Wang"}},
        {"author": {"id": None, "display_name": "Wei Wang"}},
        {"author": {"id": "https://openalex.org/A6", "display_name": "Li Zhang"}},
    ])  # fmt: skip
    path = write_openalex(tmp_path / "oa", [work])
    load(any_store, settings, path, openalex.read_works, "openalex")
    rows = authors_of(any_store, "2401.00001")
    assert [r["pos"] for r in rows] == [0, 1, 2]
    assert [r["name"] for r in rows] == ["Wei Wang", "Wei Wang", "Li Zhang"]
    assert rows[0]["id"] == "openalexauthor:A5" and rows[1]["id"].startswith("author:")
    load(any_store, settings, path, openalex.read_works, "openalex")  # the same record again
    assert authors_of(any_store, "2401.00001") == rows
    # a second source naming both by name only: its one name-only record (the name's id)
    # is not aligned to either namesake, so the one named by an id keeps its position
    ax = {**arxiv_record(1), "authors_parsed": [["Wang", "Wei", ""], ["Wang", "Wei", ""],
                                                ["Zhang", "Li", ""]]}  # fmt: skip
    load(any_store, settings, write_arxiv(tmp_path / "ax.json", [ax]), arxiv.read_snapshot, "ax")
    after = authors_of(any_store, "2401.00001")
    assert [(r["id"], r["pos"], r["oa"]) for r in after] == [
        (r["id"], r["pos"], True) for r in rows
    ]
    assert [r["ax"] for r in after] == [None, True, True]


def test_a_name_without_an_id_is_one_author_per_work_not_per_name(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Two works each listing "Wei Wang" without an id (two people, as far as anything
    says): one node for the name made them one Author (a review found one name-only node on
    462 works of a slice). Each work's name-only author is its own node now; a reload
    changes nothing, and a record that now lists someone else there leaves no Author that no
    work lists."""
    any_store.apply_schema()

    def work(n: int, name: str) -> dict[str, Any]:
        return openalex_work(n, authorships=[{"author": {"id": None, "display_name": name}}])

    path = write_openalex(tmp_path / "oa", [work(1, "Wei Wang"), work(2, "Wei Wang")])
    load(any_store, settings, path, openalex.read_works, "openalex")
    rows = any_store.run(
        "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Author) RETURN p.id AS p, a.id AS a ORDER BY p"
    )
    assert len(rows) == 2 and rows[0]["a"] != rows[1]["a"], rows
    load(any_store, settings, path, openalex.read_works, "openalex")
    assert (
        any_store.run(
            "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Author) RETURN p.id AS p, a.id AS a ORDER BY p"
        )
        == rows
    )
    # a respelling of the name on the same record stays the node its first record made (as a
    # person with an id keeps their node); a different person there leaves no Author behind
    # that no work lists
    respelt = write_openalex(tmp_path / "oa2", [work(1, "W. Wang"), work(2, "Wei Wang")])
    load(any_store, settings, respelt, openalex.read_works, "openalex")
    assert (
        any_store.run(
            "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Author) RETURN p.id AS p, a.id AS a ORDER BY p"
        )
        == rows
    )
    other = write_openalex(tmp_path / "oa3", [work(1, "Li Zhang"), work(2, "Wei Wang")])
    load(any_store, settings, other, openalex.read_works, "openalex")
    authors = any_store.run("MATCH (a:Author) RETURN a.name AS name ORDER BY name")
    assert authors == [{"name": "Li Zhang"}, {"name": "Wei Wang"}]


@pytest.mark.parametrize("split", [False, True])
def test_two_records_of_one_work_naming_one_author_without_an_id_give_one_author(
    any_store: GraphStore, settings: Settings, tmp_path: Path, split: bool
) -> None:
    """Two OpenAlex records of one work (one DOI; one also names the arXiv landing page, so
    its record id is the arXiv id, the other's the DOI) both list "Grace Hopper" without an
    id: the name-only ids are scoped by each record's id, so they differ, and the second is
    aligned to the first's on the work's list (in one chunk as across chunks), not added."""
    any_store.apply_schema()
    hopper = [{"author": {"id": None, "display_name": "Grace Hopper"}}]
    first = openalex_work(1, **{
        "id": "https://openalex.org/W10", "doi": "https://doi.org/10.1000/j11",
        "ids": {"openalex": "https://openalex.org/W10"},
        "locations": [{"landing_page_url": "https://arxiv.org/abs/2403.00010"}],
        "referenced_works": [], "authorships": hopper,
    })  # fmt: skip
    second = openalex_work(2, **{
        "id": "https://openalex.org/W11", "doi": "https://doi.org/10.1000/j11",
        "ids": {"openalex": "https://openalex.org/W11"}, "locations": [],
        "referenced_works": [], "authorships": hopper,
    })  # fmt: skip
    preprint, article = first, second
    if split:
        for n, w in enumerate((preprint, article)):
            load(any_store, settings, write_openalex(tmp_path / f"oa{n}", [w]),
                 openalex.read_works, "openalex")  # fmt: skip
    else:
        load(any_store, settings, write_openalex(tmp_path / "oa", [preprint, article]),
             openalex.read_works, "openalex")  # fmt: skip
    rows = any_store.run(
        "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Author) RETURN p.id AS p, a.name AS name"
    )
    assert len({r["p"] for r in rows}) == 1 and [r["name"] for r in rows] == ["Grace Hopper"]
    assert any_store.run("MATCH (a:Author) RETURN count(a) AS n") == [{"n": 1}]


#: W1 in a .bib from Web of Science: Charles's ORCID iD, which OpenAlex does not give
BIB_W1_ORCID = r"""@article{WOS:1,
Author = {Lovelace, Ada and Babb{\'a}ge, Charles},
Title = {Graphs of the Scholarly Record},
Year = {2024},
DOI = {10.1000/J1},
ORCID-Numbers = {Babbage, Charles/0000-0003-0000-0001},
}
"""


@pytest.mark.parametrize(
    "order", list(itertools.permutations(["openalex", "crossref", "bibtex"]))
)  # fmt: skip
def test_an_orcid_openalex_does_not_give_joins_its_listed_person_in_any_order(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    """Crossref (and a .bib's ``ORCID-Numbers``) name Charles by an ORCID iD OpenAlex's
    record of the work does not give: he is OpenAlex's A2, who takes the iD, whatever the
    order (before, the work listed him twice: A2 and ``orcid:…``). Charles with another iD
    in OpenAlex stays another person (two nodes, in either order)."""
    from scholarkg.loaders import bibtex

    any_store.apply_schema()
    item = crossref_item(1)
    item["author"].append(
        {"given": "Charles", "family": "Babbage", "ORCID": "http://orcid.org/0000-0003-0000-0001"}
    )
    bib = tmp_path / "wos.bib"
    bib.write_text(BIB_W1_ORCID, encoding="utf-8")
    files: dict[str, tuple[Path, Reader]] = {
        "openalex": (write_openalex(tmp_path / "oa", [openalex_work(1)]), openalex.read_works),
        "crossref": (write_crossref(tmp_path / "cr.json", [item]), crossref.read_works),
        "bibtex": (bib, bibtex.read_bibliography),
    }
    query = (
        "MATCH (p:Paper {doi: '10.1000/j1'})-[r:AUTHORED_BY]->(a:Author) RETURN a.id AS id, "
        "a.orcid AS orcid, r.position AS pos, r.from_openalex AS oa, r.from_crossref AS cr, "
        "r.from_bibtex AS bib ORDER BY pos"
    )
    for name in order:
        load(any_store, settings, *files[name], name)
    rows = any_store.run(query)
    assert rows == [
        {"id": "openalexauthor:A1", "orcid": "0000-0001-2345-6789", "pos": 0,
         "oa": True, "cr": True, "bib": True},
        {"id": "openalexauthor:A2", "orcid": "0000-0003-0000-0001", "pos": 1,
         "oa": True, "cr": True, "bib": True},
    ], order  # fmt: skip
    lone = any_store.run("MATCH (a:Author) WHERE NOT (a)<-[:AUTHORED_BY]-() RETURN a.id AS id")
    assert lone == [], order
    for name in order:  # reloads change nothing
        load(any_store, settings, *files[name], name)
    assert any_store.run(query) == rows, order
    if order[-1] != "bibtex":
        return
    # OpenAlex names Charles with another iD: two people, whichever came first
    any_store.clear()
    any_store.apply_schema()
    work = openalex_work(1)
    work["authorships"][1]["author"]["orcid"] = "https://orcid.org/0000-0009-0000-0009"
    files["openalex"] = (write_openalex(tmp_path / "oa2", [work]), openalex.read_works)
    for name in order[:2]:
        load(any_store, settings, *files[name], name)
    charles = [(r["id"], r["orcid"]) for r in any_store.run(query) if r["pos"] == 1]
    assert sorted(charles) == [
        ("openalexauthor:A2", "0000-0009-0000-0009"),
        ("orcid:0000-0003-0000-0001", "0000-0003-0000-0001"),
    ], order


#: W1 in a researcher's .bib, its second author spelled as no catalogue spells him
BIB_W1_GUMLEY = r"""@article{lovelace2024,
author = {Lovelace, Ada and gumley, l.},
title = {Graphs of the Scholarly Record},
year = {2024},
doi = {10.1000/J1},
}
"""


@pytest.mark.parametrize("order", list(itertools.permutations(["arxiv", "crossref", "bibtex"])))
def test_a_name_only_authors_name_is_the_best_ranked_sources_in_any_order(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    """arXiv, Crossref and a .bib each name W1's second author by name alone, spelled three
    ways that normalise to one name (one node): the node's name is the spelling of the
    best-ranked source that lists him (arXiv, then Crossref, then the .bib), after every
    load and reload, whatever the order. Before, it was whichever came last, so each reload
    flipped it and a hand-typed .bib overrode the publisher."""
    from scholarkg.loaders import bibtex

    any_store.apply_schema()
    record = arxiv_record(1)
    record["authors_parsed"] = [["Lovelace", "Ada", ""], ["Gumley", "L.", ""]]
    item = crossref_item(1)
    item["author"].append({"given": "L", "family": "GUMLEY", "sequence": "additional"})
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB_W1_GUMLEY, encoding="utf-8")
    files: dict[str, tuple[Path, Reader]] = {
        "arxiv": (write_arxiv(tmp_path / "ax.json", [record]), arxiv.read_snapshot),
        "crossref": (write_crossref(tmp_path / "cr.json", [item]), crossref.read_works),
        "bibtex": (bib, bibtex.read_bibliography),
    }
    spelled = {"arxiv": "L. Gumley", "crossref": "L GUMLEY", "bibtex": "l. gumley"}
    query = (
        "MATCH (p:Paper {doi: '10.1000/j1'})-[r:AUTHORED_BY]->(a:Author) "
        "WHERE r.position = 1 RETURN a.name AS name"
    )
    loaded: list[str] = []
    for name in [*order, *order]:  # each loaded, then each reloaded
        load(any_store, settings, *files[name], name)
        loaded.append(name)
        best = min(loaded, key=["arxiv", "crossref", "bibtex"].index)
        assert any_store.run(query) == [{"name": spelled[best]}], (order, loaded)
    assert any_store.run("MATCH (a:Author) RETURN count(a) AS n") == [{"n": 2}], order

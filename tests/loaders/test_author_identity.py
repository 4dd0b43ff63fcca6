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

from scholarkg.config import Settings
from scholarkg.loaders import arxiv, crossref, openalex
from scholarkg.loaders.author_identity import names_match
from scholarkg.loaders.identity import IdentityResolver, SourceGroup
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.store.base import GraphStore

Reader = Callable[[Path], Iterable[SourceGroup]]


def load(store: GraphStore, settings: Settings, path: Path, read: Reader, kind: str) -> None:
    resolver = IdentityResolver(store, chunk=50)
    step = Step(kind, path, kind, lambda: resolver.resolve(read(path)), family=False)
    run_steps(store, [step], settings=settings, batch_size=50, summary=LoadSummary())
    resolver.finish()


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

"""One author list per work whether Semantic Scholar or OpenAlex was loaded first.

A user's review (real records of one arXiv paper, 2026-12-07): ``load s2`` then ``load
openalex`` left each of the paper's four authors twice (an ``s2author:`` node and an
``openalexauthor:`` node, eight authorships), while the other order aligned S2's authors to
OpenAlex's list and gave four; S2 numbered its positions from 1 where every other source
numbers from 0, and its authorships carried no source mark, so a later source's reload
deleted an author S2 still lists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import arxiv_record, write_arxiv, write_openalex

from scholarkg.config import Settings
from scholarkg.loaders import arxiv, openalex
from scholarkg.loaders.corpus_lookup import corpus_lookup
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.steps import Step, run_steps, s2_steps
from scholarkg.loaders.tolerant import SkipReport
from scholarkg.store.base import GraphStore

ARXIV_ID = "2401.00001"
NAMES = [("Csaba", "Balázs", "C. Balázs"), ("Edmond", "Berger", "E. Berger"),
         ("Pavel", "Nadolsky", "P. Nadolsky"), ("Chien-Peng", "Yuan", "C. Yuan")]  # fmt: skip


def s2_file(tmp: Path) -> Path:
    """The S2 datasets' ``papers`` layout: one paper, four authors with S2 author ids."""
    obj = {
        "corpusid": 4242,
        "externalids": {"ArXiv": ARXIV_ID, "DOI": "10.1103/PhysRevD.76.013009"},
        "title": "A synthetic paper on calculations",
        "year": 2007,
        "authors": [{"authorId": str(900 + i), "name": s2} for i, (_, _, s2) in enumerate(NAMES)],
    }
    path = tmp / "s2" / "papers.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    return path


def openalex_file(tmp: Path) -> Path:
    work = {
        "id": "https://openalex.org/W77",
        "doi": "https://doi.org/10.1103/physrevd.76.013009",
        "title": "A synthetic paper on calculations",
        "publication_year": 2007,
        "locations": [{"landing_page_url": f"https://arxiv.org/abs/{ARXIV_ID}"}],
        "referenced_works": [],
        "authorships": [
            {"author": {"id": f"https://openalex.org/A{50 + i}", "display_name": f"{g} {f}"}}
            for i, (g, f, _) in enumerate(NAMES)
        ],
    }
    return write_openalex(tmp / "oa", [work])


def load_s2(store: GraphStore, settings: Settings, path: Path) -> None:
    steps = s2_steps({"papers": path}, SkipReport(), corpus_lookup(store))
    run_steps(store, steps, settings=settings, batch_size=16)


def load_catalogue(store: GraphStore, settings: Settings, path: Path, read: Any) -> None:
    resolver = IdentityResolver(store, chunk=16)
    step = Step("cat", path, f"cat-{path.name}", lambda: resolver.resolve(read(path)),
                family=False)  # fmt: skip
    run_steps(store, [step], settings=settings, batch_size=16)
    resolver.finish()


def authors(store: GraphStore) -> list[tuple[Any, ...]]:
    rows = store.run(
        "MATCH (p:Paper)-[r:AUTHORED_BY]->(a:Author) RETURN a.id AS id, a.s2_author_id AS s2, "
        "r.position AS pos, r.from_openalex AS oa, r.from_arxiv AS ax, r.from_s2 AS s2m "
        "ORDER BY pos, id"
    )
    return [(r["id"], r["s2"], r["pos"], r["oa"], r["ax"], r["s2m"]) for r in rows]


@pytest.mark.parametrize("order", ["s2-first", "openalex-first"])
def test_s2_and_openalex_give_one_author_list_in_either_order(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: str
) -> None:
    any_store.apply_schema()
    s2, oa = s2_file(tmp_path), openalex_file(tmp_path)
    if order == "s2-first":
        load_s2(any_store, settings, s2)
        load_catalogue(any_store, settings, oa, openalex.read_works)
    else:
        load_catalogue(any_store, settings, oa, openalex.read_works)
        load_s2(any_store, settings, s2)
    assert authors(any_store) == [
        (f"openalexauthor:A{50 + i}", str(900 + i), i, True, None, True) for i in range(4)
    ], order
    assert any_store.run("MATCH (a:Author) RETURN count(a) AS n") == [{"n": 4}]


def test_a_later_sources_reload_keeps_an_author_s2_still_lists(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    full = {**arxiv_record(1), "id": ARXIV_ID,
            "authors_parsed": [[f, g, ""] for g, f, _ in NAMES]}  # fmt: skip
    load_catalogue(any_store, settings, write_arxiv(tmp_path / "a1.json", [full]),
                   arxiv.read_snapshot)  # fmt: skip
    load_s2(any_store, settings, s2_file(tmp_path))
    shorter = {**full, "authors_parsed": full["authors_parsed"][:3]}
    load_catalogue(any_store, settings, write_arxiv(tmp_path / "a2.json", [shorter]),
                   arxiv.read_snapshot)  # fmt: skip
    rows = authors(any_store)
    assert [r[2] for r in rows] == [0, 1, 2, 3]
    assert rows[3][4] is None and rows[3][5] is True  # arXiv's mark gone, S2's kept


def test_an_s2_author_known_from_another_work_joins_the_catalogues_person(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """OpenAlex's record of a work, then ``load s2`` of another work by the same S2 author,
    then S2's record of the first: the author was known by their S2 id by then, so the
    alignment for unknown S2 ids skipped them and the work kept two nodes of one person (a
    review). The S2 node is merged into the catalogue's person, its other work's
    authorship with it."""
    any_store.apply_schema()
    load_catalogue(any_store, settings, openalex_file(tmp_path), openalex.read_works)
    other = {
        "corpusid": 4343,
        "externalids": {"DOI": "10.5555/other.1"},
        "title": "Another synthetic paper",
        "year": 2008,
        "authors": [{"authorId": "900", "name": "C. Balázs"}],
    }
    first = tmp_path / "s2a" / "papers.jsonl"
    first.parent.mkdir(parents=True)
    first.write_text(json.dumps(other) + "\n", encoding="utf-8")
    load_s2(any_store, settings, first)
    load_s2(any_store, settings, s2_file(tmp_path))
    rows = any_store.run(
        "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Author {s2_author_id: '900'}) "
        "RETURN a.id AS id, count(p) AS works"
    )
    assert rows == [{"id": "openalexauthor:A50", "works": 2}]
    assert any_store.run("MATCH (a:Author) RETURN count(a) AS n") == [{"n": 4}]


def test_an_s2_reload_drops_the_authors_it_no_longer_lists(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """A record's reload replaces what it states: S2's record of a work reloaded with one
    author fewer leaves that authorship when S2 alone stated it (and only S2's mark where
    OpenAlex states it too). An author S2 names without an id is a node per name that the
    benchmark families' loaders share (their edges carry no mark): only S2's mark comes off.
    An S2 paper without an ``authors`` field states nothing about them."""
    any_store.apply_schema()
    path = s2_file(tmp_path)
    obj = json.loads(path.read_text(encoding="utf-8"))
    obj["authors"].append({"name": "Nameless Person"})  # no S2 author id: a name-only Author
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    load_s2(any_store, settings, path)
    assert len(authors(any_store)) == 5
    shorter = {**obj, "authors": obj["authors"][:3]}
    path.write_text(json.dumps(shorter) + "\n", encoding="utf-8")
    load_s2(any_store, settings, path)
    rows = authors(any_store)
    assert [r[0] for r in rows[:3]] == [f"s2author:{900 + i}" for i in range(3)]
    assert [r[5] for r in rows] == [True, True, True, None]  # the name-only one: unmarked
    assert rows[3][0].startswith("author:") and len(rows) == 4
    # an S2 paper without its authors field says nothing of them
    path.write_text(json.dumps({k: v for k, v in obj.items() if k != "authors"}) + "\n",
                    encoding="utf-8")  # fmt: skip
    load_s2(any_store, settings, path)
    assert len(authors(any_store)) == 4
    any_store.run("MATCH (:Paper)-[r:AUTHORED_BY]->(a:Author) WHERE a.id STARTS WITH 'author:' "
                  "DETACH DELETE a")  # fmt: skip
    # OpenAlex lists all four: S2's reload with two takes only S2's mark off the others
    load_catalogue(any_store, settings, openalex_file(tmp_path), openalex.read_works)
    path.write_text(json.dumps({**obj, "authors": obj["authors"][:2]}) + "\n", encoding="utf-8")
    load_s2(any_store, settings, path)
    assert [(r[0], r[3], r[5]) for r in authors(any_store)] == [
        ("openalexauthor:A50", True, True), ("openalexauthor:A51", True, True),
        ("openalexauthor:A52", True, None), ("openalexauthor:A53", True, None),
    ]  # fmt: skip

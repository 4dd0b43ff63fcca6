"""A work known by its title and year alone (a .bib entry with neither a DOI nor an arXiv id)
is the catalogue's work of that normalised title and year when exactly one work has them, in
any load order, on both backends; a title two works share joins nothing, whatever comes later;
a reload changes nothing; a benchmark family's node is never joined by title."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import (
    crossref_item,
    openalex_work,
    write_crossref,
    write_openalex,
)
from _catalogue_works import load_source as load

from scholarkg.config import Settings
from scholarkg.loaders import bibtex, crossref, openalex
from scholarkg.loaders.identity import SourceGroup
from scholarkg.store.base import GraphStore

Reader = Callable[[Path], Iterable[SourceGroup]]

#: W1 in a researcher's .bib with neither a DOI nor an arXiv id: known by title and year
BIB_W1_TITLE_ONLY = r"""@inproceedings{lovelace24,
author = {Lovelace, Ada and Babbage, Charles},
title = {Graphs of the {S}cholarly {R}ecord},
booktitle = {Proc. Graphs},
year = {2024},
}
"""
#: the same work twice in one .bib: by its DOI, and by title and year
BIB_W1_TWICE = r"""@article{withdoi,
author = {Lovelace, Ada and Babbage, Charles},
title = {Graphs of the Scholarly Record},
journal = {Journal of Graphs}, doi = {10.1000/J1},
year = {2024},
}
""" + BIB_W1_TITLE_ONLY.replace("lovelace24", "nodoi")

TITLE = "graphs of the scholarly record"


def papers(store: GraphStore) -> list[tuple[str, list[str]]]:
    """The Papers of W1's title: id, and the citation keys (without the file's folder)."""
    rows = store.run(
        "MATCH (p:Paper {title_norm: $t}) RETURN p.id AS id, p.bib_keys AS keys", {"t": TITLE}
    )
    return sorted((r["id"], sorted(k.rsplit(":", 1)[1] for k in r["keys"] or ())) for r in rows)


def twin() -> dict[str, Any]:
    """W2 under W1's title and year: another work (an editorial, a reply) of one title."""
    work = openalex_work(2)
    work["title"] = openalex_work(1)["title"]
    work["publication_year"] = openalex_work(1)["publication_year"]
    return work


@pytest.fixture
def files(tmp_path: Path) -> dict[str, tuple[Path, Reader]]:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB_W1_TITLE_ONLY, encoding="utf-8")
    twice = tmp_path / "twice" / "refs.bib"
    twice.parent.mkdir()
    twice.write_text(BIB_W1_TWICE, encoding="utf-8")
    return {
        "openalex": (write_openalex(tmp_path / "oa", [openalex_work(1)]), openalex.read_works),
        "twins": (
            write_openalex(tmp_path / "oa2", [openalex_work(1), twin()]),
            openalex.read_works,
        ),
        "twin": (write_openalex(tmp_path / "oa3", [twin()]), openalex.read_works),
        "crossref": (write_crossref(tmp_path / "cr.json", [crossref_item(1)]), crossref.read_works),
        "bibtex": (bib, bibtex.read_bibliography),
        "bib_twice": (twice, bibtex.read_bibliography),
    }


@pytest.mark.parametrize("order", [("openalex", "bibtex"), ("bibtex", "openalex")])
def test_a_bib_entry_known_by_title_and_year_joins_the_catalogues_work_in_either_order(
    any_store: GraphStore,
    settings: Settings,
    files: dict[str, tuple[Path, Reader]],
    order: tuple[str, ...],
) -> None:
    """One Paper, its authors aligned to OpenAlex's (no second Ada), the entry's citation key
    on it, its title-and-year id an alias, in either order and after reloads. Before, the
    entry was a second Paper of the work."""
    any_store.apply_schema()
    for step, name in enumerate([*order, *order]):
        load(any_store, settings, *files[name], name)
        if step == 0:
            continue  # one source so far
        assert papers(any_store) == [("arxiv:2401.00001", ["lovelace24"])], (order, step)
        authors = any_store.run(
            "MATCH (:Paper {id: 'arxiv:2401.00001'})-[r:AUTHORED_BY]->(a:Author) "
            "RETURN a.id AS id, r.from_bibtex AS bib ORDER BY r.position"
        )
        assert authors == [
            {"id": "openalexauthor:A1", "bib": True},
            {"id": "openalexauthor:A2", "bib": True},
        ], (order, step)
    assert any_store.run("MATCH (a:Author) RETURN count(a) AS n") == [{"n": 2}], order
    aliases = any_store.run("MATCH (x:PaperAlias)-[:ALIAS_OF]->(p:Paper) RETURN p.id AS p")
    assert aliases == [{"p": "arxiv:2401.00001"}], order


@pytest.mark.parametrize("order", [("twins", "bibtex"), ("bibtex", "twins")])
def test_a_title_two_works_share_joins_nothing_whatever_comes_later(
    any_store: GraphStore,
    settings: Settings,
    files: dict[str, tuple[Path, Reader]],
    order: tuple[str, ...],
) -> None:
    """Two catalogue works of one title and year: the entry is neither, and the two stay two
    (a title is no id: a wrong join merges two works), also when a later load (Crossref's
    record of one of them, a reload of OpenAlex's a work a chunk) names only one of them."""
    any_store.apply_schema()
    for name in order:
        load(any_store, settings, *files[name], name)
    three = papers(any_store)
    assert len(three) == 3 and three[-1][0].startswith("paper:"), (order, three)
    load(any_store, settings, *files["crossref"], "crossref")
    load(any_store, settings, *files["twins"], "openalex", chunk=1)
    load(any_store, settings, *files["bibtex"], "bibtex")
    assert papers(any_store) == three, order


def test_a_joined_entry_stays_joined_when_a_namesake_arrives_and_the_bib_is_reloaded(
    any_store: GraphStore, settings: Settings, files: dict[str, tuple[Path, Reader]]
) -> None:
    """Once joined, the entry's id is the work's alias: a work of the same title and year
    loaded later, then the .bib reloaded, changes nothing (the reload finds the work by id,
    not by title)."""
    any_store.apply_schema()
    load(any_store, settings, *files["openalex"], "openalex")
    load(any_store, settings, *files["bibtex"], "bibtex")
    load(any_store, settings, *files["twin"], "openalex")
    before = (papers(any_store), any_store.run("MATCH (a:Author) RETURN count(a) AS n"))
    resolver = load(any_store, settings, *files["bibtex"], "bibtex")
    assert (papers(any_store), any_store.run("MATCH (a:Author) RETURN count(a) AS n")) == before
    assert ("arxiv:2401.00001", ["lovelace24"]) in before[0]
    assert resolver.report.title_matches == 0


@pytest.mark.parametrize("order", [("openalex", "bib_twice"), ("bib_twice", "openalex")])
def test_a_bib_naming_the_work_by_doi_and_by_title_is_one_work_in_either_order(
    any_store: GraphStore,
    settings: Settings,
    files: dict[str, tuple[Path, Reader]],
    order: tuple[str, ...],
) -> None:
    """The .bib's DOI entry lands on the stored work: it is that work, not a second
    candidate of the title, so the title-only entry joins it too (it did only when the
    .bib came first)."""
    any_store.apply_schema()
    for name in order:
        load(any_store, settings, *files[name], name)
    assert papers(any_store) == [("arxiv:2401.00001", ["nodoi", "withdoi"])], order


def test_a_benchmark_familys_node_is_never_joined_by_title(
    any_store: GraphStore, settings: Settings, files: dict[str, tuple[Path, Reader]]
) -> None:
    any_store.apply_schema()
    any_store.run(
        "CREATE (:Paper {id: 'pwc:graphs', title: 'Graphs of the scholarly record', "
        "title_norm: $t, year: 2024, family_key: true, source: 'pwc'})",
        {"t": TITLE},
    )
    load(any_store, settings, *files["bibtex"], "bibtex")
    rows = papers(any_store)
    assert rows[1] == ("pwc:graphs", []) and rows[0][0].startswith("paper:"), rows


def test_a_catalogue_load_into_a_graph_without_title_only_works_asks_no_title(
    store: GraphStore, settings: Settings, files: dict[str, tuple[Path, Reader]]
) -> None:
    """The title look-up costs an OpenAlex load nothing while the graph holds no work known
    by title alone: one read of their titles a load, no ``papers_by_title`` a chunk."""
    store.apply_schema()
    asked: list[str] = []
    run_named = store.run_named

    def recording(name: str, params: Any = None, **kw: Any) -> Any:
        asked.append(name)
        return run_named(name, params, **kw)

    store.run_named = recording  # type: ignore[method-assign]  # a spy on the real store
    load(store, settings, *files["twins"], "openalex", chunk=1)
    assert asked.count("identity/title_keyed_works") == 1
    assert "identity/papers_by_title" not in asked


@pytest.mark.parametrize("title_only_first", [True, False])
def test_one_bib_naming_a_work_by_title_then_by_doi_is_one_work_in_any_chunking(
    any_store: GraphStore, settings: Settings, tmp_path: Path, title_only_first: bool
) -> None:
    """A .bib whose title-only entry comes before the work's DOI entry, read a chunk an
    entry: the DOI entry's chunk holds no title-only record, and the graph's title-only works
    were read when the load began (none), so it asked nothing and the work stayed two
    Papers, while the other order in the file gave one. The titles a load makes count too."""
    any_store.apply_schema()
    doi_entry, title_entry = BIB_W1_TWICE.split("@inproceedings")
    entries = [f"@inproceedings{title_entry}", doi_entry]
    bib = tmp_path / "refs.bib"
    bib.write_text("\n".join(entries if title_only_first else entries[::-1]), encoding="utf-8")
    load(any_store, settings, bib, bibtex.read_bibliography, "bibtex", chunk=1)
    assert papers(any_store) == [("doi:10.1000/j1", ["nodoi", "withdoi"])]
    load(any_store, settings, bib, bibtex.read_bibliography, "bibtex", chunk=1)
    assert papers(any_store) == [("doi:10.1000/j1", ["nodoi", "withdoi"])]

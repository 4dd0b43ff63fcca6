"""``load bibtex``: a researcher's own ``.bib`` (synthetic entries we wrote) as a fourth
catalogue source: each entry lands on the work's one Paper (by DOI, arXiv id or title and
year) whatever the load order, its authors aligned to the work's listed ones and marked
``from_bibtex``, ranked below the catalogues, reloads idempotent, a bad entry named by file,
line, key and field. The graph tests run on both backends."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import arxiv_record, openalex_work, write_arxiv, write_openalex
from _catalogue_works import load_source as load
from _cli import runner

from scholarkg.cli import app
from scholarkg.config import Settings
from scholarkg.errors import InputError
from scholarkg.loaders import arxiv, bibtex, openalex
from scholarkg.loaders.identity import IdentityResolver, SourceGroup, StatedList
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.schema import ids
from scholarkg.schema.records import Author, Authorship, Paper
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore

Reader = Callable[[Path], Iterable[SourceGroup]]

#: W1 of ``_catalogue_works`` as a reference manager exports it: the DOI upper-cased, the title
#: capitalised and braced, a third author no catalogue lists, names in both orders, an accent
BIB_W1 = r"""% a researcher's bibliography (synthetic)
@string{jg = "J. Graphs"}
@comment{read by bibtexparser, ignored}
@preamble{"\newcommand{\noop}[1]{}"}

@article{lovelace2024graphs,
  title   = {Graphs of the {S}cholarly {R}ecord},
  author  = {Lovelace, Ada and Charles Babb{\'a}ge and Hopper, Grace},
  journal = jg,
  year    = 2024,
  doi     = {10.1000/J1},
}
"""

#: W2 (DOI only in OpenAlex, which names no venue): the .bib's venue fills the gap
BIB_W2 = r"""@article{ids2024,
  title   = {Identifiers across catalogues},
  author  = {Turing, Alan},
  journal = {Journal of Identifiers},
  year    = {2024},
  url     = {https://doi.org/10.1000/j2},
}
"""


def in_folder(folder: Path, *keys: str) -> list[str]:
    """``bib_keys`` entries of files in ``folder``: its name, the file's, the key."""
    return [f"{folder.name}/{key}" for key in keys]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load_in_order(
    store: GraphStore,
    settings: Settings,
    files: dict[str, tuple[Path, Reader]],
    order: Iterable[str],
) -> None:
    """Load ``files`` (source name → file and reader) in ``order``, each by its own load."""
    for name in order:
        load(store, settings, *files[name], name)


def bib_keys(store: GraphStore) -> list[Any]:
    """Every Paper's ``bib_keys``, in the store's order."""
    return [r["k"] for r in store.run("MATCH (p:Paper) RETURN p.bib_keys AS k")]


def groups(path: Path) -> list[list[Any]]:
    return [list(recs) for _, recs in bibtex.read_bibliography(path)]


def paper_of(recs: list[Any]) -> Paper:
    return next(r for r in recs if isinstance(r, Paper))


def snapshot(store: GraphStore) -> list[dict[str, Any]]:
    return store.run(
        "MATCH (p:Paper) OPTIONAL MATCH (p)-[r:AUTHORED_BY]->(a:Author) "
        "RETURN p.id AS p, properties(p) AS props, a.id AS a, properties(r) AS r ORDER BY p, a"
    )


# --------------------------------------------------------------------------- reading


def test_an_entry_becomes_a_paper_its_authors_and_the_whole_list_mark(tmp_path: Path) -> None:
    [recs] = groups(write(tmp_path / "mine.bib", BIB_W1))
    paper = paper_of(recs)
    assert (paper.id, paper.doi, paper.arxiv_id) == ("doi:10.1000/j1", "10.1000/j1", None)
    assert paper.title == "Graphs of the Scholarly Record"  # braces dropped
    assert (paper.year, paper.venue, paper.source) == (2024, "J. Graphs", "bibtex")  # @string
    assert paper.bib_keys == in_folder(tmp_path, "mine.bib:lovelace2024graphs")
    names = [r.name for r in recs if isinstance(r, Author)]
    assert names == ["Ada Lovelace", "Charles Babbáge", "Grace Hopper"]
    edges = [r for r in recs if isinstance(r, Authorship)]
    assert [(e.position, e.from_bibtex) for e in edges] == [(0, True), (1, True), (2, True)]
    assert StatedList(paper.id, "bibtex", "AUTHORED_BY") in recs


def test_arxiv_ids_in_each_form_a_bib_writes_them(tmp_path: Path) -> None:
    """eprint + archivePrefix (BibTeX) or eprinttype (biblatex), an arxiv.org url, Google
    Scholar's journal "arXiv preprint arXiv:…", and arXiv's DataCite DOI: one arXiv id."""
    text = r"""@misc{a, title={Merging works}, eprint={2402.00002v3}, archivePrefix={arXiv}}
@online{b, title={Merging works}, eprint={2402.00002}, eprinttype={arxiv}}
@misc{c, title={Merging works}, url={https://arxiv.org/abs/2402.00002v1}}
@article{d, title={Merging works}, journal={arXiv preprint arXiv:2402.00002}, year={2024}}
@misc{e, title={Merging works}, doi={10.48550/arXiv.2402.00002}}
"""
    papers = [paper_of(g) for g in groups(write(tmp_path / "ax.bib", text))]
    assert {(p.id, p.doi) for p in papers} == {("arxiv:2402.00002", None)}
    assert papers[3].venue is None  # "arXiv preprint …" names the id, not a venue


def test_names_braces_accents_and_others(tmp_path: Path) -> None:
    text = r"""@book{k, title={T}, doi={10.1000/k},
  author={{Barnes and Noble} and M{\"u}ller, J{\"o}rg and von Neumann, John and
          Smith, Jr., Bob and {\O}degaard, K. and others}}
"""
    [recs] = groups(write(tmp_path / "n.bib", text))
    assert [r.name for r in recs if isinstance(r, Author)] == [
        "Barnes and Noble", "Jörg Müller", "John von Neumann", "Bob Smith Jr.", "K. Ødegaard",
    ]  # fmt: skip


def test_concatenations_are_joined_and_a_hash_inside_braces_is_text(tmp_path: Path) -> None:
    """``#`` joins macros, BibTeX's month names, braced and quoted parts and numbers, in
    ``@string`` definitions too (bibtexparser 2.1 left them as written: a title stored with
    its quotes and ``#``, JabRef's ``author = Patterson # { and } # Arvind`` one author); an
    undefined macro is an error naming the field; ACM's DOI resolver URL is a DOI."""
    text = r"""@string{conf = "Proc. of"}
@string{Pat = {Patterson}}
@string{full = conf # " the Society"}
@article{a, title = "Notes on " # "the Engine", journal = conf # { Royal {S}ociety},
  author = Pat # { and Babbage, Charles}, year = 2020, url = {http://x.org/#anchor},
  doi = {http://doi.acm.org/10.1145/1137627.1137631}}
@article{b, title = {Two}, year = 2021, journal = full # " " # 2021 # { (} # mar # {)}}
"""
    [first, second] = groups(write(tmp_path / "c.bib", text))
    paper = paper_of(first)
    assert (paper.title, paper.venue, paper.url) == (
        "Notes on the Engine", "Proc. of Royal Society", "http://x.org/#anchor"
    )  # fmt: skip
    assert paper.doi == "10.1145/1137627.1137631"
    assert [r.name for r in first if isinstance(r, Author)] == ["Patterson", "Charles Babbage"]
    assert paper_of(second).venue == "Proc. of the Society 2021 (March)"
    bad = write(tmp_path / "bad.bib", '@article{c,\n title = "A" # nomacro, year = 2020}\n')
    with pytest.raises(InputError) as err:
        groups(bad)
    assert (err.value.line, err.value.field) == (1, "title") and "nomacro" in err.value.message


def test_crossref_and_xdata_fields_are_inherited_and_set_entries_are_no_works(
    tmp_path: Path,
) -> None:
    """As BibTeX and biblatex read them: an entry takes the fields it lacks from its
    ``crossref`` parent (the proceedings' title as its ``booktitle``) and its ``xdata``,
    never the parent's identifiers; ``@set`` and ``@xdata`` describe no work (biblatex's
    example file was refused whole for want of their titles, a JabRef ``@InBook`` whose
    title is its book's too)."""
    text = r"""@set{both, entryset = {chapter, book}}
@xdata{pub, publisher = {Pub}, year = 1999}
@inproceedings{chapter, author = {Westfahl, Gary}, title = {The Frontier}, crossref = {book}}
@proceedings{book, title = {Space and Beyond}, year = 2000, doi = {10.1000/book}}
@inbook{einstein, crossref = {book}, pages = {1--9}}
@article{data, title = {Own}, xdata = {pub}, doi = {10.1000/own}}
"""
    recs = groups(write(tmp_path / "x.bib", text))
    papers = {str(p.title): p for p in map(paper_of, recs)}
    chapter = papers["The Frontier"]
    assert (chapter.year, chapter.venue, chapter.doi) == (2000, "Space and Beyond", None)
    assert papers["Own"].year == 1999 and papers["Own"].doi == "10.1000/own"
    # the book, and the @inbook whose title is the book's (read as a work of that title)
    assert sorted(papers) == ["Own", "Space and Beyond", "The Frontier"]
    assert len(recs) == 4


def test_month_and_biblatex_date_give_the_date_as_precise_as_the_entry(tmp_path: Path) -> None:
    text = (
        "@article{m, title={A}, year=2020, month=may}\n"
        "@article{b, title={B}, year={2021}, month={Sep}}\n"
        "@article{n, title={C}, year={2021}, month={11}}\n"
        "@article{d, title={D}, date={2019-03-04}}\n"
        "@article{y, title={E}, date={2018}}\n"
        "@article{o, title={F}, year={2017}}\n"
        # as real exports write them (a review): the first month, the date a range or an
        # uncertain or timed date starts with; what says no month is left out, counted
        "@article{i, title={G}, year={2020}, month={Jan.-Feb.}}\n"
        "@article{j, title={H}, year={2020}, month={jun--jul}}\n"
        '@article{k, title={I}, year={2020}, month=jul # "~4,"}\n'
        "@article{s, title={J}, year={2020}, month={Spring}}\n"
        "@article{r, title={K}, date={2020-05/2020-06}}\n"
        "@article{u, title={L}, date={2020?}}\n"
        "@article{t, title={M}, date={2020-05-17T10:00:00}}\n"
        "@article{x, title={N}, year={2021}, date={2020-05}}\n"
        "@article{z, title={O}, date={05/17/2020}}\n"
    )
    from scholarkg.schema.text import collect_cleaning

    with collect_cleaning() as cleaned:
        papers = [
            next(r for r in recs if isinstance(r, Paper))
            for _, recs in bibtex.read_bibliography(write(tmp_path / "dates.bib", text))
        ]
    assert [(p.year, p.date) for p in papers] == [
        (2020, "2020-05"), (2021, "2021-09"), (2021, "2021-11"), (2019, "2019-03-04"),
        (2018, None), (2017, None),
        (2020, "2020-01"), (2020, "2020-06"), (2020, "2020-07"), (2020, None),
        (2020, "2020-05"), (2020, None), (2020, "2020-05-17"), (2021, None), (None, None),
    ]  # fmt: skip
    assert cleaned == {
        ("Paper", "date", "unreadable month left out"): 1,
        ("Paper", "date", "unreadable date left out"): 2,
    }


def test_an_entry_without_ids_takes_the_title_and_year_id(tmp_path: Path) -> None:
    text = "@inproceedings{t, title={A Work Known by Title}, booktitle={Proc. Things}, year=2020}\n"
    [recs] = groups(write(tmp_path / "t.bib", text))
    paper = paper_of(recs)
    assert paper.id == ids.paper_id(title="A work known by title", year=2020)
    assert paper.venue == "Proc. Things"
    assert not any(isinstance(r, StatedList) for r in recs)  # no author field: no list


@pytest.mark.parametrize(
    ("text", "line", "key", "field", "words"),
    [
        ("@misc{ok, title={x}}\n\n@misc{bad,\n  title = {Oops,\n  year = 2020\n}\n",
         3, "bad", "title", "unbalanced"),
        ("@misc{ok, title={x}}\n@misc{nothing, year={2020}, author={A B}}\n",
         2, "nothing", "title", "needs a title, a DOI or an arXiv id"),
        ("@misc{y, title={x},\n year={in press}}\n", 1, "y", "year", "not a year"),
        ("@misc{d, title={x}, doi={nope}}\n", 1, "d", "doi", "not a DOI"),
        ("@misc{e, title={x}, eprint={hep/1}, archiveprefix={arXiv}}\n", 1, "e", "eprint",
         "not an arXiv id"),
        ("@misc{m, title={x} year={2020}}\n", 1, "m", "title", "missing comma before 'year'"),
        ("@misc{f, title={x}, title={y}}\n", 1, "f", "title", "given twice"),
        ("@misc{s, title={x}}\n@misc{s, title={y}}\n", 2, "s", None, "second entry"),
        # names bibtexparser cannot split: an IndexError with no file, line or key (a review)
        ("@misc{n,\n title={x}, author={Lovelace, Ada,}}\n", 1, "n", "author",
         "Trailing comma"),
        ("@misc{n, title={x}, author={Lovelace, Ada, Jr., Extra}}\n", 1, "n", "author",
         "Too many commas"),
    ],
)  # fmt: skip
def test_a_bad_entry_names_file_line_key_and_field(
    tmp_path: Path, text: str, line: int, key: str, field: str | None, words: str
) -> None:
    path = write(tmp_path / "bad.bib", text)
    with pytest.raises(InputError) as err:
        list(bibtex.read_bibliography(path))
    assert (err.value.path, err.value.line, err.value.field) == (str(path), line, field)
    assert f"entry {key!r}" in err.value.message and words in err.value.message


#: W1 as Web of Science exports it: each author's ORCID iD in ``ORCID-Numbers``, under the
#: name of the ORCID record (words in another order, LaTeX), parted by new lines or ``;``
BIB_W1_WOS = r"""@article{ WOS:000001,
Author = {Lovelace, Ada and Babb{\'a}ge, Charles and Hopper, Grace and Turing, Alan},
Title = {Graphs of the Scholarly Record},
Journal = {J. Graphs},
Year = {2024},
DOI = {10.1000/J1},
ORCID-Numbers = {Ada, Lovelace/0000-0001-2345-6789
   Hopper, Grace/https://orcid.org/0000-0002-0000-001X; Turing, Alan/not-an-id
   Nobody, Else/0000-0003-0000-0001},
}
"""


def test_orcid_numbers_give_each_named_author_their_id(tmp_path: Path) -> None:
    [recs] = groups(write(tmp_path / "wos.bib", BIB_W1_WOS))
    authors = [(r.name, r.orcid, r.id) for r in recs if isinstance(r, Author)]
    assert authors == [
        ("Ada Lovelace", "0000-0001-2345-6789", "orcid:0000-0001-2345-6789"),
        ("Charles Babbáge", None, authors[1][2]),
        ("Grace Hopper", "0000-0002-0000-001X", "orcid:0000-0002-0000-001X"),
        ("Alan Turing", None, authors[3][2]),  # "not-an-id" is no iD
    ]
    ends = [r.end for r in recs if isinstance(r, Authorship)]
    assert ends == [a[2] for a in authors]


def test_an_entry_without_a_citation_key_is_named_as_such(tmp_path: Path) -> None:
    """JabRef writes such entries (``@techreport{`` then the fields): the error blamed an
    unbalanced field, which it is not."""
    text = "@misc{ok, title={x}}\n\n@techreport{\n  author = {Lovelace, Ada},\n  title = {T}\n}\n"
    with pytest.raises(InputError, match="without a citation key") as err:
        groups(write(tmp_path / "keyless.bib", text))
    assert err.value.line == 3 and "'author'" in err.value.message


def test_every_bad_entry_of_a_file_is_named_at_once(tmp_path: Path) -> None:
    text = "".join(
        f"@article{{k{i}, title={{T{i}}}, year={{{'in press' if i % 2 else 2020}}}}}\n"
        for i in range(6)
    )
    with pytest.raises(InputError) as err:
        groups(write(tmp_path / "many.bib", text))
    assert (err.value.line, err.value.field) == (2, "year")
    assert err.value.message.endswith("(and 2 more bad entries, on lines 4, 6)")


# --------------------------------------------------------------------------- the graph


@pytest.mark.parametrize("order", list(itertools.permutations(["openalex", "bibtex"])))
def test_an_authors_orcid_in_a_bib_is_the_catalogues_person(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    """An ``ORCID-Numbers`` iD makes the BibTeX author the person every catalogue naming the
    iD has (OpenAlex's A1 for Ada, whatever the order), and one no catalogue names a
    node of its own by the iD, not by the name; reloads change nothing."""
    any_store.apply_schema()
    files: dict[str, tuple[Path, Reader]] = {
        "openalex": (write_openalex(tmp_path / "oa", [openalex_work(1)]), openalex.read_works),
        "bibtex": (write(tmp_path / "wos.bib", BIB_W1_WOS), bibtex.read_bibliography),
    }
    load_in_order(any_store, settings, files, order)
    authors = any_store.run(
        "MATCH (:Paper {openalex_id: 'W1'})-[r:AUTHORED_BY]->(a:Author) RETURN a.id AS id, "
        "a.orcid AS orcid, r.from_openalex AS oa, r.from_bibtex AS bib ORDER BY r.position, a.id"
    )
    assert [(a["id"], a["orcid"], a["oa"], a["bib"]) for a in authors] == [
        ("openalexauthor:A1", "0000-0001-2345-6789", True, True),
        ("openalexauthor:A2", None, True, True),
        ("orcid:0000-0002-0000-001X", "0000-0002-0000-001X", None, True),
        (authors[3]["id"], None, None, True),
    ], order
    orcid_nodes = any_store.run(
        "MATCH (a:Author) WHERE a.orcid IS NOT NULL RETURN a.id AS id ORDER BY id"
    )
    assert [r["id"] for r in orcid_nodes] == ["openalexauthor:A1", "orcid:0000-0002-0000-001X"]
    before = snapshot(any_store)
    load_in_order(any_store, settings, files, order)
    assert snapshot(any_store) == before, order


@pytest.mark.parametrize("order", list(itertools.permutations(["openalex", "bibtex"])))
def test_an_entry_lands_on_the_openalex_work_with_one_node_per_author(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    any_store.apply_schema()
    files: dict[str, tuple[Path, Reader]] = {
        "openalex": (
            write_openalex(tmp_path / "oa", [openalex_work(1), openalex_work(2)]),
            openalex.read_works,
        ),
        "bibtex": (write(tmp_path / "mine.bib", BIB_W1 + BIB_W2), bibtex.read_bibliography),
    }
    load_in_order(any_store, settings, files, order)
    rows = any_store.run(
        "MATCH (p:Paper {openalex_id: 'W1'}) RETURN p.id AS id, p.title AS title, "
        "p.venue AS venue, p.source AS source, p.bib_keys AS keys"
    )
    # OpenAlex's values win over the .bib's (ranked last), whatever the order
    expected = [{"id": "arxiv:2401.00001", "title": "Graphs of the scholarly record",
                 "venue": "Journal of Graphs", "source": "openalex",
                 "keys": in_folder(tmp_path, "mine.bib:lovelace2024graphs")}]  # fmt: skip
    assert rows == expected, order
    assert any_store.run("MATCH (p:Paper) WHERE p.doi = '10.1000/j1' RETURN count(p) AS n") == [
        {"n": 1}
    ]
    authors = any_store.run(
        "MATCH (:Paper {openalex_id: 'W1'})-[r:AUTHORED_BY]->(a:Author) RETURN a.id AS id, "
        "a.name AS name, r.from_openalex AS oa, r.from_bibtex AS bib ORDER BY r.position, a.id"
    )
    # Ada and Charles (OpenAlex ids; the .bib by name, "Babbáge" too), Grace (the .bib only)
    assert [(a["id"], a["oa"], a["bib"]) for a in authors] == [
        ("openalexauthor:A1", True, True),
        ("openalexauthor:A2", True, True),
        (authors[2]["id"], None, True),
    ], order
    assert authors[2]["name"] == "Grace Hopper" and authors[2]["id"].startswith("author:")
    # W2: the .bib fills the venue OpenAlex lacks, and says so (named_by)
    w2 = any_store.run(
        "MATCH (p:Paper {openalex_id: 'W2'}) RETURN p.venue AS venue, p.named_by AS named"
    )
    assert w2 == [{"venue": "Journal of Identifiers", "named": ["venue:bibtex"]}], order
    lone = any_store.run("MATCH (a:Author) WHERE NOT (a)<-[:AUTHORED_BY]-() RETURN a.id AS id")
    assert lone == [], order
    # reloading both changes nothing
    before = snapshot(any_store)
    load_in_order(any_store, settings, files, order)
    assert snapshot(any_store) == before, order


def test_a_reloaded_file_replaces_only_what_bibtex_stated(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """The entry loses Charles and Grace: Grace's edge (BibTeX's only) goes, Charles's keeps
    OpenAlex's mark and loses BibTeX's; OpenAlex's statements are untouched."""
    any_store.apply_schema()
    load(any_store, settings, write_openalex(tmp_path / "oa", [openalex_work(1)]),
         openalex.read_works, "openalex")  # fmt: skip
    bib = write(tmp_path / "mine.bib", BIB_W1)
    load(any_store, settings, bib, bibtex.read_bibliography, "bibtex")
    bib.write_text(BIB_W1.replace(" and Charles Babb{\\'a}ge and Hopper, Grace", ""))
    load(any_store, settings, bib, bibtex.read_bibliography, "bibtex")
    authors = any_store.run(
        "MATCH (:Paper {openalex_id: 'W1'})-[r:AUTHORED_BY]->(a:Author) RETURN a.id AS id, "
        "r.from_openalex AS oa, r.from_bibtex AS bib ORDER BY a.id"
    )
    assert authors == [
        {"id": "openalexauthor:A1", "oa": True, "bib": True},
        {"id": "openalexauthor:A2", "oa": True, "bib": None},
    ]


@pytest.mark.parametrize("order", [("arxiv", "bibtex"), ("bibtex", "arxiv")])
def test_an_arxiv_only_entry_and_a_title_only_entry(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    any_store.apply_schema()
    text = (
        "@misc{hopper, title={Merging Works}, author={Grace Hopper}, eprint={2402.00002},\n"
        "  archivePrefix={arXiv}, year={2024}}\n"
        "@book{notes, title={Notes on the engine}, author={Lovelace, Ada}, year={1843}}\n"
    )
    files: dict[str, tuple[Path, Reader]] = {
        "arxiv": (write_arxiv(tmp_path / "ax.json", [arxiv_record(3)]), arxiv.read_snapshot),
        "bibtex": (write(tmp_path / "mine.bib", text), bibtex.read_bibliography),
    }
    load_in_order(any_store, settings, files, order)
    rows = any_store.run(
        "MATCH (p:Paper) OPTIONAL MATCH (p)-[r:AUTHORED_BY]->(a:Author) RETURN p.id AS id, "
        "p.title AS title, p.source AS source, collect(a.name) AS authors ORDER BY id"
    )
    assert rows == [
        {"id": "arxiv:2402.00002", "title": "Merging works", "source": "arxiv",
         "authors": ["Grace Hopper"]},
        {"id": ids.paper_id(title="Notes on the engine", year=1843),
         "title": "Notes on the engine", "source": "bibtex", "authors": ["Ada Lovelace"]},
    ], order  # fmt: skip


# --------------------------------------------------------------------------- the CLI


def test_load_bibtex_through_the_cli_and_a_bad_file_writes_nothing(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    good = write(tmp_path / "lib" / "mine.bib", BIB_W1 + BIB_W2)
    res = runner.invoke(app, ["load", "bibtex", str(tmp_path / "lib")])  # a folder of .bib
    assert res.exit_code == 0, res.output
    assert "load bibtex" in res.output
    before = snapshot(store)
    assert [r["p"] for r in before if r["a"] is None] == []  # every work has its authors
    assert {r["p"] for r in before} == {"doi:10.1000/j1", "doi:10.1000/j2"}
    res = runner.invoke(app, ["load", "bibtex", str(good), "--resume"])
    assert res.exit_code == 0, res.output
    assert snapshot(store) == before
    # a good entry before a bad one: the error names the bad one, and nothing is written
    bad = write(
        tmp_path / "bad.bib",
        "@misc{new, title={A new work}, doi={10.1000/new}}\n\n"
        "@misc{worse, title={x}, year={soon}}\n",
    )
    res = runner.invoke(app, ["load", "bibtex", str(bad)])
    assert isinstance(res.exception, InputError), res.output
    assert str(res.exception).startswith(f"{bad}:line 3 (field 'year'): entry 'worse'")
    assert "nothing of this file is stored" in res.output
    assert snapshot(store) == before


def test_two_entries_of_one_work_keep_both_keys(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """One paper cited under two keys (its arXiv ``eprint``, arXiv's DataCite DOI): one
    record of the work, the later entry's fields, and both keys in ``bib_keys`` (the first
    key vanished; a new user's review)."""
    any_store.apply_schema()
    path = write(
        tmp_path / "refs.bib",
        "@misc{eprint, author={A. Lovelace}, title={Eprint title}, year={2020},\n"
        " eprint={2001.00001}, archivePrefix={arXiv}}\n"
        "@misc{datacite, author={Lovelace, Ada}, title={DataCite title}, year={2020},\n"
        " doi={10.48550/arXiv.2001.00001}}\n",
    )
    load(any_store, settings, path, bibtex.read_bibliography, "bib")
    rows = any_store.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS t, p.bib_keys AS keys")
    assert rows == [
        {"id": "arxiv:2001.00001", "t": "DataCite title",
         "keys": in_folder(tmp_path, "refs.bib:eprint", "refs.bib:datacite")},
    ]  # fmt: skip


def test_each_files_keys_of_a_work_are_kept_and_a_files_reload_replaces_its_own(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Two bibliographies cite one work under two keys: each file's key stays in
    ``bib_keys`` (the second file's load took the first's away), and a file loaded again
    replaces only its own key, in one load of both files and in two loads alike."""
    any_store.apply_schema()
    entry = "@article{{{key}, title={{Graphs}}, year={{2024}}, doi={{10.1000/J1}}}}\n"
    thesis = write(tmp_path / "thesis.bib", entry.format(key="lovelace2024"))
    talk = write(tmp_path / "talk.bib", entry.format(key="DBLP:journals/jg/Lovelace24"))

    load(any_store, settings, thesis, bibtex.read_bibliography, "thesis")
    load(any_store, settings, talk, bibtex.read_bibliography, "talk")
    assert bib_keys(any_store) == [
        in_folder(tmp_path, "thesis.bib:lovelace2024", "talk.bib:DBLP:journals/jg/Lovelace24")
    ]
    write(thesis, entry.format(key="ada24"))
    load(any_store, settings, thesis, bibtex.read_bibliography, "thesis2")
    assert bib_keys(any_store) == [
        in_folder(tmp_path, "talk.bib:DBLP:journals/jg/Lovelace24", "thesis.bib:ada24")
    ]
    # both files in one load (one resolver, one chunk): the same keys
    any_store.clear()
    any_store.apply_schema()
    resolver = IdentityResolver(any_store, chunk=50)

    def step(path: Path) -> Step:
        def resolved() -> Iterable[Any]:
            return resolver.resolve(bibtex.read_bibliography(path))

        return Step(path.name, path, path.name, resolved, family=False)

    steps = [step(talk), step(thesis)]
    run_steps(any_store, steps, settings=settings, batch_size=50, summary=LoadSummary())
    resolver.finish()
    assert bib_keys(any_store) == [
        in_folder(tmp_path, "talk.bib:DBLP:journals/jg/Lovelace24", "thesis.bib:ada24")
    ]


def test_two_projects_refs_bib_keep_their_own_keys_and_a_key_named_before_folders_goes(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Every LaTeX project has its ``refs.bib``: loading a second project's took the first's
    key of a shared work away, as if the first file had been loaded again. The file's part
    of a key names its folder; a key stored before it did (``refs.bib:old``) is replaced by
    the next ``refs.bib`` loaded, as the same file's would have been."""
    any_store.apply_schema()
    entry = "@article{{{key}, title={{Graphs}}, year={{2024}}, doi={{10.1000/J1}}}}\n"
    first = write(tmp_path / "paperA" / "refs.bib", entry.format(key="lovelace24"))
    second = write(tmp_path / "paperB" / "refs.bib", entry.format(key="ada"))

    load(any_store, settings, first, bibtex.read_bibliography, "a")
    load(any_store, settings, second, bibtex.read_bibliography, "b")
    assert bib_keys(any_store) == [["paperA/refs.bib:lovelace24", "paperB/refs.bib:ada"]]
    write(first, entry.format(key="lovelace2024"))
    load(any_store, settings, first, bibtex.read_bibliography, "a2")
    assert bib_keys(any_store) == [["paperB/refs.bib:ada", "paperA/refs.bib:lovelace2024"]]
    # a graph loaded before keys named folders: the next refs.bib replaces the bare one
    any_store.run("MATCH (p:Paper) SET p.bib_keys = ['refs.bib:old', 'talk.bib:t']")
    load(any_store, settings, second, bibtex.read_bibliography, "b2")
    assert bib_keys(any_store) == [["talk.bib:t", "paperB/refs.bib:ada"]]


def test_every_entrys_key_stays_when_entries_land_on_one_work_by_different_ids(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """A review's cases: an entry that is not the work's own ``.bib`` record (its DOI is not
    the Paper's) still adds its key; two entries of one file that meet on one work only
    through the graph (one by DOI, one by arXiv id) keep both; a merge of two works the
    entries made apart keeps every file's keys; a ``:`` in a file name cannot be taken for
    the end of its part."""
    any_store.apply_schema()

    def entry(key: str, ids: str) -> str:
        return f"@article{{{key}, title={{Graphs}}, year={{2024}}, {ids}}}\n"

    journal = "doi={10.1000/J1}, eprint={2401.00001}, archivePrefix={arXiv}"
    other = "doi={10.9999/other}, eprint={2401.00001}, archivePrefix={arXiv}"
    load(any_store, settings, write(tmp_path / "a.bib", entry("ka", journal)),
         bibtex.read_bibliography, "a")  # fmt: skip
    load(any_store, settings, write(tmp_path / "b.bib", entry("kb", other)),
         bibtex.read_bibliography, "b")  # fmt: skip
    assert bib_keys(any_store) == [in_folder(tmp_path, "a.bib:ka", "b.bib:kb")]
    two = entry("bydoi", "doi={10.1000/J1}") + entry(
        "byeprint", "eprint={2401.00001}, archivePrefix={arXiv}"
    )
    load(any_store, settings, write(tmp_path / "refs.bib", two), bibtex.read_bibliography, "r")
    assert bib_keys(any_store) == [
        in_folder(tmp_path, "a.bib:ka", "b.bib:kb", "refs.bib:bydoi", "refs.bib:byeprint")
    ]

    any_store.clear()
    any_store.apply_schema()
    load(any_store, settings, write(tmp_path / "x:a.bib", entry("ka", "doi={10.1000/J1}")),
         bibtex.read_bibliography, "xa")  # fmt: skip
    eprint = "eprint={2401.00001}, archivePrefix={arXiv}"
    load(any_store, settings, write(tmp_path / "b.bib", entry("kb", eprint)),
         bibtex.read_bibliography, "b2")  # fmt: skip
    two_works = sorted(map(tuple, bib_keys(any_store)))
    assert two_works == [tuple(in_folder(tmp_path, k)) for k in ("b.bib:kb", "x_a.bib:ka")]
    load(any_store, settings, write(tmp_path / "c.bib", entry("kc", journal)),
         bibtex.read_bibliography, "c")  # fmt: skip
    [merged] = bib_keys(any_store)
    assert sorted(merged) == in_folder(tmp_path, "b.bib:kb", "c.bib:kc", "x_a.bib:ka")


def test_a_bibtex_inbook_is_its_book_and_joins_the_books_entry_in_one_load(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """BibTeX's ``@inbook`` names the book in ``title`` and the part in ``chapter`` (or
    ``pages``): it is read as its book (citing a part cites the book), so with the book's own
    entry it is one Paper, in one load (the chunk's records of one title and year join) and
    after a reload. Not the chapter's title: ``Introduction`` in two books of one year would
    be one work. A part biblatex titles, naming its book in ``booktitle``, is a work of its
    own. Before, each ``@inbook`` was a second Paper of the book's title."""
    text = r"""@book{engine, title = {Notes on the Engine}, year = 1843, doi = {10.1000/engine},
  author = {Lovelace, Ada}}
@inbook{sorting, title = {Notes on the Engine}, chapter = {Introduction}, year = 1843,
  author = {Lovelace, Ada}}
@inbook{third, title = {Notes on the Engine}, chapter = {3}, pages = {1--9}, year = 1843}
@inbook{other, title = {Tables of the Engine}, chapter = {Introduction}, year = 1843}
@inbook{tables, title = {Tables}, booktitle = {Notes on the Engine}, year = 1843}
"""
    path = write(tmp_path / "x.bib", text)
    papers = {p.bib_keys[0].rsplit(":", 1)[1]: p for p in map(paper_of, groups(path)) if p.bib_keys}
    assert (papers["sorting"].title, papers["sorting"].venue) == ("Notes on the Engine", None)
    assert (papers["tables"].title, papers["tables"].venue) == ("Tables", "Notes on the Engine")
    any_store.apply_schema()
    key = f"{tmp_path.name}/x.bib:"
    for _ in range(2):  # a load, and a reload that changes nothing
        load(any_store, settings, path, bibtex.read_bibliography, "bibtex")
        rows = any_store.run("MATCH (p:Paper) RETURN p.id AS id, p.bib_keys AS keys")
        assert sorted((r["id"], sorted(r["keys"])) for r in rows) == sorted([
            ("doi:10.1000/engine", [key + "engine", key + "sorting", key + "third"]),
            (ids.paper_id(title="Tables of the Engine", year=1843), [key + "other"]),
            (ids.paper_id(title="Tables", year=1843), [key + "tables"]),
        ])  # fmt: skip
        authors = any_store.run("MATCH (a:Author) RETURN count(a) AS n")
        assert authors == [{"n": 1}]  # Ada, once: the entries of the book align to its list

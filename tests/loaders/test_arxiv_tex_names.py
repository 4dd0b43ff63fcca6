"""arXiv's flat ``authors`` string writes accents in LaTeX (``C. Bal\\'azs``), as files
without ``authors_parsed`` (harvested OAI records, trimmed snapshot samples) carry them:
the names are read as the letters they stand for, so an arXiv line aligns with the author
list OpenAlex gave the work instead of adding a second Author (issue 35: a second source
adds no author to a listed work). Both backends."""

from __future__ import annotations

from pathlib import Path

import pytest
from _catalogue_works import openalex_work, write_arxiv, write_openalex

from scholarkg.config import Settings
from scholarkg.loaders import arxiv, openalex
from scholarkg.schema.records import Author
from scholarkg.store.base import GraphStore

from .test_catalogue_identity import load


@pytest.mark.parametrize(
    ("tex", "name"),
    [
        ("C. Bal\\'azs", "C. Balázs"),
        ("{\\O}deg{\\aa}rd", "Ødegård"),
        ("P. Erd\\H{o}s", "P. Erdős"),
        ('J\\"{u}rgen M\\"uller', "Jürgen Müller"),
        ("\\v{S}ime \\v Cap", "Šime Čap"),
        ("Fran\\c{c}ois", "François"),
        ("{\\L}ukasz Wr\\'{o}bel", "Łukasz Wróbel"),
        ("J. Gro\\ss", "J. Groß"),
        ("Mart\\'{\\i}n", "Martín"),
        ("Plain Name", "Plain Name"),
    ],
)
def test_latex_accents_in_author_names_are_letters(tex: str, name: str) -> None:
    assert arxiv.untex_name(tex) == name


def _line() -> dict[str, object]:
    """An arXiv line without ``authors_parsed`` (we made it up)."""
    return {
        "id": "0704.9999",
        "doi": "10.1000/tex",
        "title": "Accents",
        "authors": "C. Bal\\'azs, E. L. Berger and {\\O}. Deg{\\aa}rd",
        "versions": [{"version": "v1", "created": "Mon, 2 Apr 2007 19:18:42 GMT"}],
    }


def test_the_flat_author_string_is_read_with_its_accents(tmp_path: Path) -> None:
    recs = arxiv.parse_record(_line(), path=tmp_path / "a.json", line=1)
    names = [r.name for r in recs if isinstance(r, Author)]
    assert names == ["C. Balázs", "E. L. Berger", "Ø. Degård"]


def test_an_arxiv_line_in_latex_adds_no_author_to_the_work_openalex_listed(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    people = [("A1", "Csaba Balázs"), ("A2", "Edmond L. Berger"), ("A3", "Øyvind Degård")]
    work = openalex_work(
        2, id="https://openalex.org/W77", doi="https://doi.org/10.1000/tex",
        ids={"openalex": "https://openalex.org/W77"},
        authorships=[
            {"author": {"id": f"https://openalex.org/{a}", "display_name": n}}
            for a, n in people
        ],
    )  # fmt: skip
    load(any_store, settings, write_openalex(tmp_path / "oa", [work]), openalex.read_works, "oa")
    path = write_arxiv(tmp_path / "arxiv.json", [_line()])
    load(any_store, settings, path, arxiv.read_snapshot, "arxiv")
    rows = any_store.run(
        "MATCH (:Paper {doi: '10.1000/tex'})-[r:AUTHORED_BY]->(a:Author) "
        "RETURN a.id AS id, r.from_arxiv AS arxiv ORDER BY id"
    )
    assert rows == [{"id": f"openalexauthor:{a}", "arxiv": True} for a, _ in people]
    assert any_store.run("MATCH (a:Author) RETURN count(a) AS n") == [{"n": 3}]

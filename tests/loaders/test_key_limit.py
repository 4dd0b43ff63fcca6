"""Ids too long to be keys, from the catalogue loaders, through the real CLI and server.

FalkorDB 4.x's unique-constraint check crashes the embedded server on a key over 4,096 UTF-8
bytes (``schema.text.MAX_KEY_BYTES``); before the limit, one OpenAlex work with a reference
of 5,000 digits took the server down mid-load. Each source's broken identifier is now either
not taken as one (a 5,000-character "DOI" beside a good OpenAlex id) or refused naming the
file, line and field, and the server answers afterwards with what was stored before kept.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _catalogue_works import openalex_work
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.errors import InputError

W = "https://openalex.org/W"


def _ids() -> set[str]:
    out = cli_ok(["cypher", "MATCH (p:Paper) RETURN p.id AS id", "--format", "json"])
    return {r["id"] for r in json.loads(out.strip().splitlines()[-1])}


def _refused(args: list[str]) -> InputError:
    result = runner.invoke(app, args)
    assert isinstance(result.exception, InputError), (result.output, result.exception)
    return result.exception


def _lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_openalex_long_doi_is_not_taken_and_long_reference_is_refused(
    graph_env: str, tmp_path: Path
) -> None:
    works = [
        openalex_work(1, referenced_works=[]),
        # a 5,000-character "DOI": the work is keyed by its OpenAlex id instead
        {**openalex_work(2, referenced_works=[]), "doi": "https://doi.org/10.1/" + "x" * 5000,
         "ids": {"openalex": f"{W}2"}},
        openalex_work(3, referenced_works=[f"{W}1", W + "2" * 5000]),
    ]  # fmt: skip
    path = _lines(tmp_path / "works.jsonl", works)
    err = _refused(["load", "openalex", str(path)])
    assert (err.path, err.line, err.field) == (str(path), 3, "referenced_works")
    assert "not an OpenAlex work id" in str(err)
    assert "openalex:W2" in _ids()  # the two works before it are stored, the server answers
    assert len(_ids()) == 2


def test_crossref_and_bibtex_say_the_doi_is_too_long(graph_env: str, tmp_path: Path) -> None:
    items = [{"DOI": "10.1/ok", "title": ["Ok"]}, {"DOI": "10.1/" + "y" * 5000, "title": ["No"]}]
    path = _lines(tmp_path / "items.jsonl", items)
    err = _refused(["load", "crossref", str(path)])
    assert (err.line, err.field) == (2, "DOI") and "5,005 characters" in str(err)
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "@article{a, title={Fine}, doi={10.1/fine}}\n"
        "@article{b, title={Broken}, doi={10.1/" + "q" * 5000 + "}}\n",
        encoding="utf-8",
    )
    err = _refused(["load", "bibtex", str(bib)])
    assert (err.line, err.field) == (2, "doi") and "a DOI has at most 1,000" in str(err)
    assert _ids() == {"doi:10.1/ok"}


def test_s2_long_author_id_skips_its_line_and_an_orcid_key_is_refused(
    graph_env: str, tmp_path: Path
) -> None:
    papers = _lines(tmp_path / "papers.jsonl", [
        {"corpusid": 11, "title": "Kept", "year": 2020,
         "authors": [{"authorId": "5", "name": "A"}]},
        {"corpusid": 12, "title": "Skipped", "year": 2020,
         "authors": [{"authorId": "9" * 5000, "name": "B"}]},
    ])  # fmt: skip
    out = cli_ok(["load", "s2", "--papers", str(papers)])
    assert "1 malformed line(s) skipped" in out and "papers.jsonl:2 (id)" in out
    assert "over the 4,096 a key may" in out
    items = _lines(tmp_path / "orcid.jsonl", [{"DOI": "10.1/o", "title": ["O"], "author": [
        {"given": "C", "family": "D", "ORCID": "https://orcid.org/" + "0" * 5000}]}])  # fmt: skip
    err = _refused(["load", "crossref", str(items)])
    assert (err.line, err.field) == (1, "id") and "5,006 bytes long" in str(err)
    assert _ids() == {"s2:11"}


def test_a_venue_named_by_a_page_of_text_makes_no_venue_node(
    graph_env: str, tmp_path: Path
) -> None:
    """A venue name too long for a key is a broken field, as a 5,000-character DOI is: the work
    loads (keeping the text as its ``venue``) without the Venue node, incrementally and with
    ``--bulk`` alike (which failed the whole load naming an intermediate file)."""
    long_name = "Journal of " + "Graphs " * 700
    work = openalex_work(1, referenced_works=[])
    work["primary_location"] = {"source": {"id": f"{W}S1", "display_name": long_name}}
    path = _lines(tmp_path / "works.jsonl", [work])
    cli_ok(["load", "openalex", str(path)])
    out = cli_ok(["cypher", "MATCH (p:Paper) OPTIONAL MATCH (p)-[:IN_VENUE]->(v) "
                  "RETURN size(p.venue) AS n, v.id AS v", "--format", "json"])  # fmt: skip
    assert json.loads(out.strip().splitlines()[-1]) == [{"n": len(long_name.strip()), "v": None}]
    bulk = runner.invoke(app, ["--graph", f"{graph_env}-bulk", "load", "openalex", "--bulk",
                               str(path)])  # fmt: skip
    try:
        assert bulk.exit_code == 0, (bulk.output, bulk.exception)
        out = cli_ok(["--graph", f"{graph_env}-bulk", "cypher",
                      "MATCH (v:Venue) RETURN count(v) AS n", "--format", "json"])  # fmt: skip
        assert json.loads(out.strip().splitlines()[-1]) == [{"n": 0}]
    finally:
        runner.invoke(app, ["--graph", f"{graph_env}-bulk", "db", "reset", "--yes"])

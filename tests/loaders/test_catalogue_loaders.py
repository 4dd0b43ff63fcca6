"""The OpenAlex, arXiv and Crossref readers on synthetic files in the real layouts: what each
work becomes, bad input (file:line and field, earlier records stored, a resume hint), the CLI
verbs and the bulk path."""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from _catalogue_works import (
    arxiv_record,
    crossref_item,
    inverted,
    openalex_work,
    write_arxiv,
    write_crossref,
    write_openalex,
)
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders import arxiv, crossref, openalex
from scholarkg.loaders.identity import StatedFields, StatedList
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.schema.records import Author, Authorship, Citation, Paper
from scholarkg.store.falkordb.store import FalkorDBStore


def _paper(records: Sequence[object]) -> Paper:
    """The work a reader's group of records describes: its first record, a Paper."""
    paper = records[0]
    assert isinstance(paper, Paper)
    return paper


def test_abstract_is_rebuilt_exactly_from_the_inverted_index() -> None:
    text = "the cat saw the other cat , then the dog"
    assert openalex.abstract_from_inverted_index(inverted(text)) == text
    # holes (positions nobody holds) are skipped, not filled
    assert openalex.abstract_from_inverted_index({"b": [3], "a": [0], "c": [7]}) == "a b c"
    assert openalex.abstract_from_inverted_index(None) is None
    with pytest.raises(InputError) as err:
        openalex.abstract_from_inverted_index({"a": ["x"]}, path=Path("f"), line=3)
    assert err.value.field == "abstract_inverted_index" and err.value.line == 3


def test_an_openalex_work_becomes_paper_authors_venue_and_stub_citations(tmp_path: Path) -> None:
    part = write_openalex(tmp_path, [openalex_work(1)])
    [(line, records)] = list(openalex.read_works(part))
    paper = records[0]
    assert isinstance(paper, Paper) and line == 1
    assert paper.row() == {
        "id": "arxiv:2401.00001", "title": "Graphs of the scholarly record",
        "title_norm": "graphs of the scholarly record",
        "abstract": "one graph per work of the record", "year": 2024, "date": "2024-01-15",
        "arxiv_id": "2401.00001", "doi": "10.1000/j1", "openalex_id": "W1", "mag_id": "111",
        "pmid": "999", "venue": "Journal of Graphs", "citation_count": 10,
        "url": "https://openalex.org/W1", "source": "openalex", "work_type": "article",
        "language": "en", "is_oa": True, "oa_status": "green", "oa_url": "https://example.org/1",
        "topics": ["Graphs"], "topic_scores_e4": [9000], "related": ["W7"],
    }  # fmt: skip
    authors = [r for r in records if isinstance(r, Author)]
    # keyed by OpenAlex's author id (on every authorship; the ORCID only on some)
    assert [a.id for a in authors] == ["openalexauthor:A1", "openalexauthor:A2"]
    assert authors[0].orcid == "0000-0001-2345-6789"  # stored bare, whatever the URL
    ships = [r for r in records if isinstance(r, Authorship)]
    assert [(s.position, s.institutions, s.raw_name) for s in ships] == [
        (0, ["Analytical U"], "Ada L."), (1, None, None),
    ]  # fmt: skip
    # the references travel as one record (loaders/reference_lists.py) standing for the
    # reference stubs and their Citation records
    [refs] = [r for r in records if isinstance(r, ReferenceList)]
    assert refs.ends == tuple(f"openalex:W{n}" for n in (2, 3, 9))
    expanded = refs.records()
    assert [r.row() for r in expanded if isinstance(r, Paper)] == [
        {"id": f"openalex:W{n}", "openalex_id": f"W{n}"} for n in (2, 3, 9)
    ]
    cites = [(r.start, r.end, r.from_openalex) for r in expanded if isinstance(r, Citation)]
    assert cites == [("arxiv:2401.00001", f"openalex:W{n}", True) for n in (2, 3, 9)]


def test_api_pages_and_plain_jsonl_read_like_the_snapshot(tmp_path: Path) -> None:
    page = tmp_path / "page.json"
    page.write_text(
        json.dumps({"meta": {"count": 2}, "results": [openalex_work(2), openalex_work(3)]})
    )
    assert [_paper(g[1]).id for g in openalex.read_works(page)] == [
        "doi:10.1000/j2",
        "arxiv:2402.00002",
    ]
    pages = tmp_path / "pages.jsonl"
    pages.write_text(json.dumps({"meta": {}, "results": [openalex_work(2)]}) + "\n")
    assert [_paper(g[1]).id for g in openalex.read_works(pages)] == ["doi:10.1000/j2"]
    # trimmed by select=: no referenced_works → the reference list is not known, not empty
    trimmed = tmp_path / "t.jsonl"
    trimmed.write_text(json.dumps({"id": "https://openalex.org/W5", "display_name": "T"}) + "\n")
    [(_, recs)] = list(openalex.read_works(trimmed))
    assert _paper(recs).id == "openalex:W5" and _paper(recs).title == "T"
    # ... and neither are its authors nor the properties only OpenAlex gives; of the
    # shared ones it states only those whose fields it has (the title, the id's URL)
    assert not [r for r in recs if isinstance(r, StatedList)]
    assert [r for r in recs if isinstance(r, StatedFields)] == [
        StatedFields("openalex:W5", frozenset(), frozenset({"title", "title_norm", "url"}))
    ]


def test_snapshot_files_are_read_in_updated_date_order(tmp_path: Path) -> None:
    new = write_openalex(tmp_path, [openalex_work(1)], date="2024-06-01")
    old = write_openalex(tmp_path, [openalex_work(1)], date="2024-01-01")
    (tmp_path / "data" / "works" / "manifest").write_text("{}")
    works, merged = openalex.snapshot_files([tmp_path])
    assert works == [old, new] and merged == []


@pytest.mark.parametrize(
    ("line", "field", "what"),
    [
        ('{"id": "https://openalex.org/W8", "title": "cut', None, "invalid JSON"),
        ('{"title": "no id"}', "id", "OpenAlex id"),
        ('{"id": "https://openalex.org/W8", "referenced_works": "W1"}', "referenced_works", "list"),
        ('{"id": "https://openalex.org/W8", "abstract_inverted_index": {"a": [1, "2"]}}',
         "abstract_inverted_index", "positions"),
        ('{"id": "https://openalex.org/W8", "publication_date": "2024-13-01"}', "date", "date"),
    ],
)  # fmt: skip
def test_a_bad_openalex_line_names_file_line_and_field(
    tmp_path: Path, line: str, field: str | None, what: str
) -> None:
    path = tmp_path / "part_000.jsonl"
    path.write_text(json.dumps(openalex_work(2)) + "\n" + line + "\n")
    groups = openalex.read_works(path)
    assert _paper(next(groups)[1]).id == "doi:10.1000/j2"
    with pytest.raises(InputError) as err:
        next(groups)
    assert (err.value.path, err.value.line, err.value.field) == (str(path), 2, field)
    assert what in str(err.value)


def test_messy_but_valid_text_is_cleaned_and_missing_title_is_fine(tmp_path: Path) -> None:
    work = openalex_work(2, title=None, display_name=None,
                         abstract_inverted_index={"nul\x00here": [0], "tab\x07": [1]})  # fmt: skip
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(work) + "\n")
    paper = next(openalex.read_works(path))[1][0]
    assert isinstance(paper, Paper)
    assert paper.title is None and paper.id == "doi:10.1000/j2"
    assert (
        paper.abstract is not None and "\x00" not in paper.abstract and "\x07" not in paper.abstract
    )


def test_a_non_utf8_byte_and_a_10mb_abstract_are_located(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(json.dumps(openalex_work(2)).encode() + b"\n" + b'{"id": "W\xff"}\n')
    groups = openalex.read_works(path)
    next(groups)
    with pytest.raises(InputError) as err:
        next(groups)
    assert err.value.line == 2 and "UTF-8" in str(err.value)
    huge = tmp_path / "huge.jsonl"
    # a 10 MB abstract: one 9-letter word at a million positions (a million distinct words
    # build the same size of text but take ten times longer to write and parse)
    words = {"abcdefghi": list(range(1_000_000))}
    huge.write_text(json.dumps(openalex_work(2, abstract_inverted_index=words)) + "\n")
    with pytest.raises(InputError) as err:
        list(openalex.read_works(huge))
    assert (err.value.line, err.value.field) == (1, "abstract")
    assert "refused rather than truncated" in str(err.value)


def test_arxiv_and_crossref_records(tmp_path: Path) -> None:
    [(_, ax)] = list(arxiv.read_snapshot(write_arxiv(tmp_path / "a.json", [arxiv_record(1)])))
    p = ax[0]
    assert isinstance(p, Paper)
    assert (p.id, p.doi, p.title, p.abstract, p.date, p.categories) == (
        "arxiv:2401.00001", "10.1000/j1", "Graphs of the scholarly record", "One graph per work.",
        "2024-01-01", ["cs.DL", "cs.DB"],
    )  # fmt: skip
    assert [r.id for r in ax if isinstance(r, Author)] == [
        Author(name="Ada Lovelace", listed_on=p.id).id,
        Author(name="Charles Babbage", listed_on=p.id).id,
    ]  # name-only: one Author per listing work
    groups = list(crossref.read_works(write_crossref(tmp_path / "c.json", [crossref_item(2)])))
    [(_, cr)] = groups
    assert _paper(cr).id == "doi:10.1000/j2" and _paper(cr).abstract == "Ids everywhere ."
    assert [(r.start, r.end) for r in cr if isinstance(r, Citation)] == [
        ("doi:10.1000/j2", "arxiv:2402.00002")
    ]
    bad = tmp_path / "c.jsonl"
    bad.write_text(json.dumps(crossref_item(1)) + "\n" + json.dumps({"title": ["x"]}) + "\n")
    with pytest.raises(InputError) as err:
        list(crossref.read_works(bad))
    assert (err.value.line, err.value.field) == (2, "DOI")


def test_load_openalex_cli_stops_on_a_cut_line_and_resumes(
    graph_env: str, store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_PROGRESS", "lines")  # the progress counts works (below)
    part = write_openalex(tmp_path, [openalex_work(1), openalex_work(2)])
    with gzip.open(part, "at") as fh:
        fh.write('{"id": "https://openalex.org/W3", "title": "cu\n')
    res = runner.invoke(app, ["load", "openalex", str(tmp_path), "--batch-size", "1"])
    assert isinstance(res.exception, InputError), res.output
    assert res.exception.line == 3 and "cut or corrupt line" in str(res.exception)
    assert "2 source record(s) before the error are stored" in res.output
    assert "--resume" in res.output
    assert len(store.run("MATCH (p:Paper) WHERE p.title IS NOT NULL RETURN p.id")) == 2
    part.write_bytes(b"")
    write_openalex(tmp_path, [openalex_work(1), openalex_work(2), openalex_work(3)])
    res = runner.invoke(app, ["load", "openalex", str(tmp_path), "--resume"])
    assert res.exit_code == 0, res.output
    titled = store.run(
        "MATCH (p:Paper) WHERE p.title IS NOT NULL RETURN p.id AS id, p.doi AS doi ORDER BY id"
    )
    # W2 and W3 were first seen as W1's references: keyed by their records' ids once those
    # arrive, as a load of the whole file at once (or --bulk) keys them
    assert titled == [
        {"id": "arxiv:2401.00001", "doi": "10.1000/j1"},
        {"id": "arxiv:2402.00002", "doi": None},
        {"id": "doi:10.1000/j2", "doi": "10.1000/j2"},
    ]
    assert "works" in res.output


def test_load_openalex_bulk_builds_the_same_papers_and_citations(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    write_openalex(tmp_path, [openalex_work(1), openalex_work(2)], date="2024-01-01")
    write_openalex(tmp_path, [openalex_work(3), openalex_work(2, title="Newer")], date="2024-02-01")
    merged = tmp_path / "data" / "merged_ids" / "works" / "m.csv.gz"
    merged.parent.mkdir(parents=True)
    with gzip.open(merged, "wt") as fh:
        fh.write("merge_date,id,merge_into_id\n2024-02-01,W9,W3\n")
    res = runner.invoke(app, ["load", "openalex", str(tmp_path), "--bulk"])
    assert res.exit_code == 0, res.output
    papers = store.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS t ORDER BY id")
    assert papers == [
        {"id": "arxiv:2401.00001", "t": "Graphs of the scholarly record"},
        {"id": "arxiv:2402.00002", "t": "Merging works"},
        {"id": "doi:10.1000/j2", "t": "Newer"},  # the newest partition wins
    ]  # W9 was merged into W3: no stub, its citation goes to W3
    cites = store.run("MATCH (a)-[:CITES]->(b) RETURN a.id AS a, b.id AS b ORDER BY b")
    assert cites == [
        {"a": "arxiv:2401.00001", "b": "arxiv:2402.00002"},
        {"a": "arxiv:2401.00001", "b": "doi:10.1000/j2"},
    ]
    assert store.run("MATCH (:Paper)-[:AUTHORED_BY]->(a:Author) RETURN count(a) AS n") == [{"n": 2}]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_bulk_rows_equal_the_records_rows(tmp_path: Path, n: int) -> None:
    """The bulk path writes rows without pydantic: they must be what the records store."""
    from scholarkg.loaders.openalex_bulk import _author_rows, paper_row, paper_table

    work = openalex_work(n, title="  Spaced\x00 title ")
    fields = openalex.work_fields(work, path=tmp_path, line=1)
    parsed = openalex.parse_work(work, path=tmp_path, line=1)
    assert paper_row(fields, path=tmp_path, line=1) == parsed.paper.row()
    # and the Arrow columns the bulk loaders read hold exactly that row
    [stored] = paper_table([parsed.paper.row()], path=tmp_path, lines=[1]).to_pylist()
    assert {k: v for k, v in stored.items() if v is not None} == parsed.paper.row()
    rows = _author_rows(fields, parsed.paper.id, tmp_path, 1)
    assert [json.loads(a) for _, a, _ in rows] == [a.row() for a in parsed.authors]
    # plus the source mark the incremental write path puts on OpenAlex's authorships
    assert [json.loads(e) for _, _, e in rows] == [
        {"start": s.start, "end": s.end, **s.properties(), "from_openalex": True}
        for s in parsed.authorships
    ]


def test_a_paper_value_arrow_cannot_hold_names_its_line_and_field(tmp_path: Path) -> None:
    """orjson reads 2**63 as an unsigned integer: past Arrow's int64, so the bulk path's
    Paper table refuses it with the line and field, as the MERGE path's records do."""
    from scholarkg.loaders.openalex_bulk import paper_table

    rows = [{"id": "openalex:W1", "year": 2001}, {"id": "openalex:W2", "citation_count": 2**63}]
    with pytest.raises(InputError) as err:
        paper_table(rows, path=tmp_path / "part_000.gz", lines=[4, 9])
    assert (err.value.line, err.value.field) == (9, "citation_count")
    assert "part_000.gz" in str(err.value)


def test_identifier_normalisation() -> None:
    from scholarkg.schema import ids

    assert ids.normalize_openalex_id("https://openalex.org/W2741809807") == "W2741809807"
    assert ids.normalize_openalex_id("w12") == "W12"
    assert ids.normalize_openalex_id("https://openalex.org/keywords/x") is None
    assert ids.normalize_pmid("https://pubmed.ncbi.nlm.nih.gov/29456894") == "29456894"
    assert ids.normalize_pmcid("https://www.ncbi.nlm.nih.gov/pmc/articles/5815332") == "PMC5815332"
    assert ids.normalize_pmcid("PMC42") == "PMC42"
    assert ids.normalize_mag_id(2741809807) == "2741809807"
    assert ids.arxiv_id_from_doi("https://doi.org/10.48550/arXiv.2106.09685") == "2106.09685"
    assert ids.arxiv_id_from_doi("10.1000/j1") is None
    # the new Paper id slot joins the id rule after the benchmark families' ids, before titles
    assert Paper(openalex_id="W5", title="T").id == "openalex:W5"
    assert Paper(doi="10.1/x", openalex_id="W5").id == "doi:10.1/x"


FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_the_fixture_folders_load_through_the_cli_into_one_graph(
    graph_env: str, store: FalkorDBStore
) -> None:
    """tests/fixtures/{openalex,arxiv,crossref}: the snapshot layout (two updated_date
    partitions, W1 updated in the newer one without its W9 reference, and merged_ids retiring
    W9 into W3), arXiv's snapshot lines and a Crossref list response, loaded in turn."""
    for source in ("openalex", "arxiv", "crossref"):
        res = runner.invoke(app, ["load", source, str(FIXTURES / source)])
        assert res.exit_code == 0, res.output
    papers = store.run(
        "MATCH (p:Paper) RETURN coalesce(p.openalex_id, p.doi) AS name ORDER BY name"
    )
    assert [r["name"] for r in papers] == ["10.1000/x9", "W1", "W2", "W3"]
    cites = store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN coalesce(a.openalex_id, a.doi) AS a, "
        "coalesce(b.openalex_id, b.doi) AS b, r.from_openalex AS oa, r.from_crossref AS cr "
        "ORDER BY a, b"
    )
    assert [(r["a"], r["b"], r["oa"], r["cr"]) for r in cites] == [
        ("W1", "10.1000/x9", None, True),
        ("W1", "W2", True, True),
        ("W1", "W3", True, None),
        ("W2", "W3", None, True),
    ]
    w1 = store.run("MATCH (p:Paper {openalex_id: 'W1'}) RETURN p.arxiv_id AS a, p.categories AS c")
    assert w1 == [{"a": "2401.00001", "c": ["cs.DL", "cs.DB"]}]  # arXiv's fields joined W1


def test_a_trimmed_crossref_record_keeps_the_stored_authors_and_references(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """A record fetched with ``select=DOI,title`` has no ``author`` and no ``reference`` key:
    it states neither list, so reloading it drops nothing (it dropped every Crossref
    authorship of the work: "1 AUTHORED_BY edge(s) dropped")."""
    full = write_crossref(tmp_path / "full.json", [crossref_item(1)])
    trimmed = write_crossref(
        tmp_path / "trimmed.json", [{"DOI": "10.1000/J1", "title": ["Graphs, retitled"]}]
    )
    for path in (full, trimmed):
        res = runner.invoke(app, ["load", "crossref", str(path)])
        assert res.exit_code == 0, res.output
        assert "dropped" not in res.output
    rows = store.run(
        "MATCH (p:Paper {doi: '10.1000/j1'}) "
        "RETURN size([(p)-[:AUTHORED_BY]->(a) | a]) AS authors, "
        "size([(p)-[:CITES]->(c) | c]) AS refs"
    )
    assert rows == [{"authors": 1, "refs": 2}]
    # an author list the record does state replaces the stored one
    item = {**crossref_item(1), "author": []}
    res = runner.invoke(
        app, ["load", "crossref", str(write_crossref(tmp_path / "no.json", [item]))]
    )
    assert res.exit_code == 0, res.output
    assert store.run(
        "MATCH (p:Paper {doi: '10.1000/j1'})-[:AUTHORED_BY]->(a) RETURN count(a) AS n"
    ) == [{"n": 0}]


def test_a_bad_work_in_a_crossref_page_is_named_by_record_and_doi(tmp_path: Path) -> None:
    """A pretty-printed API page: its lines are not its works, so the error says which
    record (and which DOI), not "line 2" of a file whose line 2 is something else."""
    bad = {**crossref_item(2), "reference": "not a list"}
    page = write_crossref(tmp_path / "page.json", [crossref_item(1), bad])
    with pytest.raises(InputError) as err:
        list(crossref.read_works(page))
    assert str(err.value).startswith(f"{page}:record 2 (field 'reference')")
    assert "10.1000/j2" in str(err.value)

"""What the Crossref and OpenAlex loads count and say in their summary: values stored as
missing, and references they do not store (``loaders/left_out.py``).

Found by a user: a Crossref ``NaN`` in ``is-referenced-by-count`` was stored as missing
without appearing under the summary's cleaned values, where OpenAlex's ``cited_by_count``
says ``Paper.citation_count: nan stored as missing in 1 value(s)``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _catalogue_works import openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders import crossref, openalex
from scholarkg.loaders.left_out import SELF_CITATION, collect_left_out
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.store.falkordb.store import FalkorDBStore

NAN_NOTE = "Paper.citation_count: nan stored as missing in 1 value(s)"


def _load(*args: str) -> str:
    result = runner.invoke(app, ["load", *args])
    assert result.exit_code == 0, (result.output, result.exception)
    return " ".join(result.output.split())  # the console wraps long lines


def _crossref_lines(path: Path, *items: str) -> Path:
    path.write_text("".join(f"{item}\n" for item in items), encoding="utf-8")
    return path


def test_a_crossref_nan_count_is_stored_as_missing_and_counted_like_openalex(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    works = _crossref_lines(
        tmp_path / "works.jsonl",
        '{"DOI": "10.1000/nan", "title": ["Counted"], "is-referenced-by-count": NaN}',
        '{"DOI": "10.1000/twelve", "title": ["Twelve"], "is-referenced-by-count": 12.0}',
    )
    assert NAN_NOTE in _load("crossref", str(works))
    rows = store.run("MATCH (p:Paper) RETURN p.doi AS doi, p.citation_count AS n ORDER BY doi")
    assert rows == [{"doi": "10.1000/nan", "n": None}, {"doi": "10.1000/twelve", "n": 12}]

    part = tmp_path / "openalex"
    part.mkdir()
    work = openalex_work(2, cited_by_count=float("nan"))
    assert NAN_NOTE in _load("openalex", str(write_openalex(part, [work])))


def test_a_crossref_nan_in_a_date_is_stored_as_missing_and_counted(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """``issued.date-parts [[NaN]]`` left the work without a date and said nothing (a new
    user's review)."""
    works = _crossref_lines(
        tmp_path / "works.jsonl",
        '{"DOI": "10.1000/nandate", "title": ["T"], "issued": {"date-parts": [[NaN]]}}',
    )
    assert "Paper.date: nan stored as missing in 1 value(s)" in _load("crossref", str(works))
    assert store.run("MATCH (p:Paper) RETURN p.date AS d, p.year AS y") == [{"d": None, "y": None}]


@pytest.mark.parametrize(
    ("parts", "date"),
    [
        ([[2020, float("nan"), 17]], "2020"),
        ([[float("nan"), 5, 1]], None),
        ([[2020, 5]], "2020-05"),
    ],
)
def test_a_nan_date_part_ends_the_date_there(parts: list[list[float]], date: str | None) -> None:
    """The parts after a NaN moved into its place: ``[2020, NaN, 17]`` gave ``2020-17`` (a
    refused date: the load stopped) and ``[NaN, 5, 1]`` the year 5 (a review)."""
    from scholarkg.schema.records import Paper
    from scholarkg.schema.text import collect_cleaning

    item = {"DOI": "10.1/x", "title": ["T"], "issued": {"date-parts": parts}}
    with collect_cleaning() as cleaned:
        recs = crossref.parse_item(item, path=Path("works.json"), line=1)
    paper = next(r for r in recs if isinstance(r, Paper))
    assert paper.date == date
    nan = sum(1 for p in parts[0] if p != p)
    assert cleaned == ({("Paper", "date", "nan stored as missing"): 1} if nan else {})


@pytest.mark.parametrize("count", ['"12"', "12.5", "true"])
def test_a_crossref_count_that_is_no_whole_number_names_its_field(
    tmp_path: Path, count: str
) -> None:
    """Dropped silently before, as anything not an ``int`` was."""
    works = _crossref_lines(
        tmp_path / "works.jsonl",
        '{"DOI": "10.1000/ok", "is-referenced-by-count": 3}',
        f'{{"DOI": "10.1000/bad", "is-referenced-by-count": {count}}}',
    )
    with pytest.raises(InputError) as err:
        list(crossref.read_works(works))
    assert (err.value.line, err.value.field) == (2, "is-referenced-by-count")
    assert "expected a whole number" in err.value.message


# ----------------------------------------------------------------- references left out
#
# Found by the same user: a Crossref work listing its own DOI among its references had that
# reference dropped with the summary saying "skipped 0"; OpenAlex did the same for its own W
# id, and Crossref's references without a DOI were dropped uncounted, although its module
# documentation said they were counted.

SELF_NOTE = "1 CITES skipped: the work's own id among its references (a self-citation"
NO_DOI_NOTE = "1 CITES skipped: a reference without a DOI (nothing to match it on)"


def _loops(store: FalkorDBStore) -> int:
    rows = store.run("MATCH (p:Paper)-[c:CITES]->(p) RETURN count(c) AS n")
    return int(rows[0]["n"])


def test_crossref_counts_a_self_citation_and_a_reference_without_doi_as_skipped(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    works = _crossref_lines(
        tmp_path / "works.jsonl",
        json.dumps(
            {
                "DOI": "10.1000/self",
                "title": ["Cites itself"],
                "reference": [
                    {"key": "a", "DOI": "10.1000/SELF"},  # its own DOI, spelled otherwise
                    {"key": "b", "DOI": "https://doi.org/10.1000/self"},  # and again
                    {"key": "c", "DOI": "10.1000/other"},
                    {"key": "d", "unstructured": "A book, 1999."},
                ],
            }
        ),
    )
    out = _load("crossref", str(works))
    assert SELF_NOTE in out and NO_DOI_NOTE in out
    assert "│ relationship │ CITES │ 1 │ 2 │" in out  # merged 1, skipped 2
    assert "endpoint is not in the graph" not in out  # not the writer's kind of skip
    assert _loops(store) == 0


def test_openalex_counts_a_self_citation_as_skipped(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """Both spellings the reader meets: the snapshot's URLs (its fast path) and a bare id."""
    part = tmp_path / "openalex"
    part.mkdir()
    urls = openalex_work(2, referenced_works=["https://openalex.org/W2", "https://openalex.org/W3"])
    bare = openalex_work(3, referenced_works=["W3", "https://openalex.org/W2"])
    out = _load("openalex", str(write_openalex(part, [urls, bare])))
    assert "2 CITES skipped: the work's own id among its references" in out
    assert _loops(store) == 0


def test_openalex_parse_workers_send_their_counts_back(tmp_path: Path) -> None:
    path = tmp_path / "part_000.jsonl"
    path.write_text(
        json.dumps(openalex_work(2, referenced_works=["https://openalex.org/W2"])) + "\n"
    )
    with collect_left_out() as counts, openalex.WorkParser(1) as parser:
        [(_, records)] = list(openalex.read_works(path, parser=parser))
    assert counts == {("CITES", SELF_CITATION): 1}
    assert not [r for r in records if isinstance(r, ReferenceList)]

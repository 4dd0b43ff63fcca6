"""What the Crossref and OpenAlex loads count and say in their summary: values stored as
missing, and references they do not store.

Found by a user: a Crossref ``NaN`` in ``is-referenced-by-count`` was stored as missing
without appearing under the summary's cleaned values, where OpenAlex's ``cited_by_count``
says ``Paper.citation_count: nan stored as missing in 1 value(s)``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _catalogue_works import openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders import crossref
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

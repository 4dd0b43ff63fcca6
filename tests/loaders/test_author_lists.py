"""Author lists read from JSON: a list of names, or an error naming file, line and field.

Found by a user: ``load apc`` with ``"authors": "Jane Doe"`` made one Author per character
(and one with an empty name), ``[1, null]`` made Authors named "1" and "None", exit 0. The
same reading was in the PwC, Semantic Scholar and unarXive loaders.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders import apc, citerec_s2, citerec_unarxive, pwc
from scholarkg.loaders.tolerant import SkipReport
from scholarkg.schema.records import Author, Authorship
from scholarkg.store.falkordb.store import FalkorDBStore


def _jsonl(path: Path, *rows: dict[str, Any]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("authors", "says"),
    [
        ("Jane Doe", "got a string 'Jane Doe'; write one name per item: [\"Jane Doe\"]"),
        ([1, None], "author 1 of 2 is the number 1, not a name"),
        (["Ann Example", None], "author 2 of 2 is null, not a name"),
        (["Ann Example", "  "], "author 2 of 2 is an empty string, not a name"),
        ({"name": "Ann"}, "expected a list of author names, got an object"),
    ],
)
def test_an_apc_author_list_that_is_no_list_of_names_names_line_and_field(
    tmp_path: Path, authors: object, says: str
) -> None:
    path = _jsonl(
        tmp_path / "papers.jsonl",
        {"id": "2310.00001", "title": "Fine", "authors": ["Ann Example"]},
        {"id": "2310.00002", "title": "T", "authors": authors},
    )
    with pytest.raises(InputError) as err:
        list(apc.read_papers(path))
    assert (err.value.path, err.value.line, err.value.field) == (str(path), 2, "authors")
    assert says in err.value.message


def test_apc_names_are_kept_in_order_and_stripped(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "papers.jsonl",
        {"id": "2310.00001", "title": "T", "authors": [" Jane Doe ", "Bo Roe"]},
        {"id": "2310.00002", "title": "U", "authors": None},
        {"id": "2310.00003", "title": "V"},
    )
    assert [r.name for r in apc.read_papers(path) if isinstance(r, Author)] == [
        "Jane Doe", "Bo Roe",
    ]  # fmt: skip


def test_apc_categories_that_are_not_names_are_refused(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "papers.jsonl", {"id": "2310.00001", "categories": ["cs.CL", None]})
    with pytest.raises(InputError) as err:
        list(apc.read_papers(path))
    assert err.value.field == "categories" and "a category is null" in err.value.message


def test_load_apc_stops_on_the_bad_list_and_keeps_the_lines_before(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    path = _jsonl(
        tmp_path / "papers.jsonl",
        {"id": "2310.00001", "title": "T", "authors": ["Ann Example"]},
        {"id": "2310.00002", "title": "U", "authors": "Jane Doe"},
    )
    result = runner.invoke(app, ["load", "apc", "--papers", str(path)])
    assert result.exit_code != 0 and isinstance(result.exception, InputError), result.output
    assert str(result.exception).startswith(f"{path}:line 2 (field 'authors'): expected a list")
    names = store.run("MATCH (a:Author) RETURN a.name AS name")
    assert names == [{"name": "Ann Example"}]
    assert store.run("MATCH (p:Paper) RETURN p.id AS id") == [{"id": "arxiv:2310.00001"}]


def test_pwc_refuses_an_author_that_is_no_name(tmp_path: Path) -> None:
    """PwC skipped null and empty items and stored a number as its digits."""
    path = tmp_path / "papers-with-abstracts.json"
    paper = {"paper_url": "https://x/p", "arxiv_id": "2101.00001", "title": "T", "abstract": ""}
    path.write_text(json.dumps([paper, {**paper, "authors": ["Ann Example", 1]}]))
    with pytest.raises(InputError) as err:
        [group for _, group in pwc.read_papers_with_abstracts(path)]
    assert (err.value.line, err.value.field) == (2, "authors")
    assert "author 2 of 2 is the number 1" in err.value.message


def test_s2_and_unarxive_skip_and_report_a_line_whose_authors_are_the_wrong_shape(
    tmp_path: Path,
) -> None:
    """Both are tolerant readers: the line is skipped and reported, not loaded wrong (S2
    dropped a string's characters one by one; unarXive dropped a list without a word)."""
    s2 = _jsonl(
        tmp_path / "papers.jsonl",
        {"corpusid": 1, "title": "T", "authors": "Jane Doe"},
        {"corpusid": 2, "title": "U", "authors": [None]},
        {"corpusid": 3, "title": "V", "authors": [{"authorId": "7", "name": "Ann"}]},
    )
    report = SkipReport()
    kept = list(citerec_s2.read_papers(s2, report))
    assert [line for line, _ in kept] == [3]
    assert [(e.line, e.field) for e in report.examples] == [(1, "authors"), (2, "authors")]
    assert "got a string 'Jane Doe'" in report.examples[0].reason
    assert "author 1 is null" in report.examples[1].reason

    with pytest.raises(InputError) as err:
        citerec_unarxive.paper_records(
            {"paper_id": "2105.05862", "metadata": {"authors": ["Ann Zorb"]}, "body_text": []},
            tmp_path / "u.jsonl",
            4,
        )
    assert (err.value.line, err.value.field) == (4, "metadata.authors")


def test_pwc_skips_a_blank_or_null_name_and_keeps_the_positions(tmp_path: Path) -> None:
    """The dumps hold empty names: refused, they stopped a whole ~500k-record load at the
    first one (a review of the strict check); skipped, as before it, the others keep their
    positions."""
    path = tmp_path / "papers-with-abstracts.json"
    paper = {"paper_url": "https://x/p", "arxiv_id": "2101.00001", "title": "T", "abstract": ""}
    path.write_text(json.dumps([{**paper, "authors": ["Ann Example", "", None, "Bo Sample"]}]))
    [(_, group)] = list(pwc.read_papers_with_abstracts(path))
    positions = [r.position for r in group if isinstance(r, Authorship)]
    names = [r.name for r in group if isinstance(r, Author)]
    assert names == ["Ann Example", "Bo Sample"] and positions == [0, 3]

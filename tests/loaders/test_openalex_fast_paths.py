"""The OpenAlex parser's fast paths give exactly what the one-by-one rules give.

The bulk reader skips the per-string ``clean_text`` call when one test over a whole record
says no string can need it, and ``work_fields`` reads a list of work URLs in the snapshot's
own spelling in three C passes. Both must be invisible: same rows, same cleaning counts, same
errors, on dirty records (controls, CRLF, BOM, NUL, lone surrogates, over-long fields) and
on the odd spellings the slow paths accept or refuse.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work

from scholarkg.errors import InputError
from scholarkg.loaders import openalex, openalex_bulk
from scholarkg.schema import ids
from scholarkg.schema.text import collect_cleaning

# one value per defect ``clean_text`` handles, and clean look-alikes next to them
DIRTY = [
    "nul\x00inside",
    "bell\x07and\x1f",
    "windows\r\nline\rends",
    "\ufeffbom first",
    "bom\ufeffinside",
    "lone \ud83d surrogate",
    "tab\tand\nnewline kept",
    "  padded  ",
    "\u00a0nbsp padded\u3000",
    "back\\slash",
    "caf\u00e9 \u2028 \x85",
]


def _per_string(values: dict[str, Any], label: str) -> tuple[Any, Any]:
    """The one-by-one rule's row and cleaning counts (or its error)."""
    with collect_cleaning() as counts:
        try:
            row: Any = openalex_bulk._cleaned(values, label, Path("f"), 7)
        except InputError as err:
            row = (str(err), err.field)
    return row, dict(counts)


def _fast(values: dict[str, Any], label: str) -> tuple[Any, Any]:
    with collect_cleaning() as counts:
        try:
            row: Any = openalex_bulk._clean_fields(values, label, Path("f"), 7)
        except InputError as err:
            row = (str(err), err.field)
    return row, dict(counts)


def test_every_character_clean_text_may_change_turns_the_fast_path_away() -> None:
    from scholarkg.schema.text import _SUSPECT

    suspects = [chr(c) for c in range(sys.maxunicode + 1) if _SUSPECT.match(chr(c))]
    assert len(suspects) > 2000  # the controls, the BOM, every surrogate
    for ch in suspects:
        assert not openalex_bulk._needs_no_cleaning({"title": f"a{ch}b"}), repr(ch)
        assert not openalex_bulk._needs_no_cleaning({"topics": ["x", f"{ch}"]}), repr(ch)
    assert openalex_bulk._needs_no_cleaning({"title": "plain caf\u00e9 \u2028", "year": 2001})


@pytest.mark.parametrize("text", DIRTY)
def test_a_record_cleans_the_same_on_both_paths(text: str) -> None:
    values = {
        "title": text,
        "abstract": f"words {text} words",
        "year": 2001,
        "doi": None,
        "topics": ["clean", text, None],
        "is_oa": True,
    }
    assert _fast(values, "Paper") == _per_string(values, "Paper")


def test_the_field_cap_is_named_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openalex_bulk, "_CAP", [40])
    under = {"title": "t" * 40, "venue": "v" * 10}  # 40 characters pass, the record is longer
    over = {"title": "t" * 10, "abstract": "a" * 41}
    assert _fast(under, "Paper") == _per_string(under, "Paper") == (under, {})
    refused = _fast(over, "Paper")
    assert refused == _per_string(over, "Paper")
    assert refused[0][1] == "abstract" and "over the 40-character field limit" in refused[0][0]
    # a multi-byte text within the cap in characters, over it in bytes: the slow path, same row
    wide = {"title": "\u00e9" * 30}
    assert _fast(wide, "Paper") == _per_string(wide, "Paper") == (wide, {})


def _work_rows(work: dict[str, Any]) -> Any:
    """A work's Paper, Author and AUTHORED_BY rows through the bulk functions, and the
    cleaning they counted, or the error they raised."""
    fields = openalex.work_fields(work, path=Path("f"), line=3)
    with collect_cleaning() as counts:
        try:
            paper = openalex_bulk.paper_row(fields, path=Path("f"), line=3)
            authors = openalex_bulk._author_rows(fields, paper["id"], Path("f"), 3)
        except InputError as err:
            return (str(err), err.line, err.field)
    return paper, authors, dict(counts)


@pytest.mark.parametrize("text", DIRTY)
def test_dirty_works_give_the_rows_of_the_per_string_rule(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every field the bulk rows hold, dirty in turn: the fast path's rows equal those of
    the per-string rule (the fast path switched off) and, validated, the records' rows."""
    work = openalex_work(1, title=f"A {text} title")
    work["authorships"][0]["raw_author_name"] = text
    work["authorships"][0]["institutions"].append({"display_name": text})
    work["authorships"][1]["author"]["display_name"] = f"{text} Babbage"
    work["topics"] = [{"display_name": text, "score": 0.5}]
    fast = _work_rows(work)
    monkeypatch.setattr(openalex_bulk, "_needs_no_cleaning", lambda values: False)
    assert fast == _work_rows(work)
    paper, authors, _ = fast
    parsed = openalex.parse_work(work, path=Path("f"), line=3)
    assert paper == parsed.paper.row()
    assert [json.loads(a) for _, a, _ in authors] == [a.row() for a in parsed.authors]


def test_an_over_long_author_name_is_refused_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(openalex_bulk, "_CAP", [60])
    work = openalex_work(1)
    work["authorships"][1]["author"]["display_name"] = "n" * 61
    fast = _work_rows(work)
    assert fast[1:] == (3, "name") and "60-character field limit" in fast[0]
    monkeypatch.setattr(openalex_bulk, "_needs_no_cleaning", lambda values: False)
    assert _work_rows(work) == fast


W = "https://openalex.org/W"


@pytest.mark.parametrize(
    "refs",
    [
        [f"{W}5", f"{W}6", f"{W}5", f"{W}1", f"{W}7"],  # a duplicate and the work itself
        [f"{W}1"],
        [],
        [f"{W}5", "w6", "https://openalex.org/W7/", " W8 "],  # spellings the regex takes
        [f"{W}5\n{W}6"],  # one item holding a newline is one bad id, not two good ones
        [f"{W}5", 6],
        [f"{W}5", f"{W}"],
        [f"{W}5", f"{W}\u0661\u0662"],  # non-ASCII digits: the slice path's ``isdigit``
        [f"{W}5", "https://openalex.org/A6"],
        [f"{W}5", f"{W}{'1' * 18}"],  # the most digits an id may have
        [f"{W}5", f"{W}{'2' * 19}"],  # more: a broken field (a key over the graph's limit)
        [f"{W}5", f"{W}{'3' * 5000}"],
    ],
)
def test_work_url_lists_read_as_one_by_one(refs: list[Any]) -> None:
    """``referenced_works`` and ``related_works`` through the fast path or the item loop:
    the same ids, or the same error."""
    work = openalex_work(1, referenced_works=refs, related_works=refs)

    def one_by_one() -> Any:
        related = [w for r in refs if isinstance(r, str) and (w := ids.normalize_openalex_id(r))]
        try:
            references = openalex._referenced_ids(refs, "W1", Path("f"), 3)
        except InputError as err:
            return (str(err), err.field)
        return list(dict.fromkeys(references)), related or None

    try:
        fields = openalex.work_fields(work, path=Path("f"), line=3)
        got: Any = (fields.references, fields.paper["related"])
    except InputError as err:
        got = (str(err), err.field)
    assert got == one_by_one()


@pytest.mark.parametrize(
    "raw",
    ["https://openalex.org/W12", "https://openalex.org/A3", "https://openalex.org/w12",
     "https://openalex.org/W", "https://openalex.org/X12", "https://openalex.org/W12 ",
     "https://openalex.org/W12/", "https://openalex.org/W\u0661", "https://openalex.org/W1\n",
     "http://openalex.org/W12", "W12", "https://openalex.org/W12x", 12,
     "https://openalex.org/W" + "1" * 18, "https://openalex.org/W" + "1" * 19,
     "https://openalex.org/A" + "1" * 5000],
)  # fmt: skip
def test_the_openalex_id_slice_path_agrees_with_the_regex(raw: object) -> None:
    """At most 18 digits (a 64-bit integer always; a longer one is a broken field)."""
    m = re.match(
        r"^(?:https?://openalex\.org/)?([WAISCTPF]\d{1,18})$",
        str(raw).strip().rstrip("/"),
        re.IGNORECASE,
    )
    assert ids.normalize_openalex_id(raw) == (m.group(1).upper() if m else None)


class _Position(int):
    """An int subclass: the type-by-type rule refuses it, so the fast test must too."""


@pytest.mark.parametrize(
    "positions",
    [[0], [3, 1, 2], [0, 2**64 - 1], [], [True], [0, False], [1.0], [1e20], [-1], [0, -0.0],
     [2**64], [_Position(3)], [[]], [0, []], [0, [1]], ["1"], [None], [float("nan")], [0, {}]],
)  # fmt: skip
def test_the_one_pass_position_test_is_the_type_by_type_rule(positions: list[Any]) -> None:
    """The fast test may only say yes where the type-by-type rule does (a no sends the list
    to that rule), and says yes for the ordinary lists; the abstract is the rule's either way."""
    expected = bool(positions) and all(type(p) is int and p >= 0 for p in positions)
    fast = openalex._plain_positions(positions)
    assert fast == expected or (not fast and positions == [2**64])  # orjson's 64-bit limit
    index = {"w": positions, "v": [0]}
    try:
        got: Any = openalex.abstract_from_inverted_index(index, path=Path("f"), line=2)
    except InputError as err:
        got = err.field
    if expected:
        assert isinstance(got, str) and "w" in got.split()
    else:
        assert got == "abstract_inverted_index" or positions == []


def test_a_works_venue_edge_is_the_validated_record() -> None:
    """``work_records`` makes a work's ``IN_VENUE`` edge as a copy of a template (no second
    validation of two validated ids): it equals the record validation makes."""
    from scholarkg.schema.records import Paper, PublishedIn

    found = 0
    for n in (1, 2, 3):
        records = openalex.work_group(openalex_work(n), path=Path("w.jsonl"), line=n)
        paper = records[0]
        assert isinstance(paper, Paper)
        for rec in records:
            if isinstance(rec, PublishedIn):
                found += 1
                assert rec == PublishedIn(start=rec.start, end=rec.end)
                assert rec.model_dump() == PublishedIn(start=rec.start, end=rec.end).model_dump()
                assert rec.start == paper.id
    assert found >= 1

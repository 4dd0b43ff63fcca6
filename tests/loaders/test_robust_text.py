"""Real text at the record layer and below: the shared sanitiser, the reading side, the store.

Every defect here was met in an authors' released file: NUL characters left by PDF
extraction in ReviewCritique's ``body_text`` (they cut FalkorDB's query text short and left a
half-written graph), BOMs and CRLF from Windows tools, lone surrogates from ``\\ud83d``-style
JSON escapes, bare ``NaN``, Latin-1 bytes in a "UTF-8" file, integers beyond 64 bits.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from scholarkg.errors import CypherError, InputError
from scholarkg.loaders.base import iter_delimited, iter_json_array
from scholarkg.schema.records import CitationContext, Judgement, Paper, Result, Review, Section
from scholarkg.schema.text import MAX_FIELD_CHARS, clean_text, collect_cleaning
from scholarkg.store.base import GraphStore
from scholarkg.textio import iter_jsonl, iter_lines, read_json_object


def test_clean_text_policy_one_rule_per_defect() -> None:
    assert clean_text("plain text\twith tab\nand newline") == (
        "plain text\twith tab\nand newline",
        [],
    )
    text, done = clean_text("a\x00b\r\nc\rd\ufeffe\ud83df\x07g")
    assert text == "ab\nc\nde\ufffdfg"
    assert done == [
        "NUL character(s) removed",
        "CR/CRLF line ends made LF",
        "byte-order mark(s) removed",
        "lone surrogate(s) replaced by U+FFFD",
        "control character(s) removed",
    ]


def test_records_clean_every_string_field_and_count_it() -> None:
    with collect_cleaning() as counts:
        sec = Section(paper="p", ordinal=0, text="body\x00 text\r\n", kind="body")
        paper = Paper(title="\ufeffA title", categories=["cs.CL\x00"])
    assert sec.text == "body text\n"
    assert paper.title == "A title" and paper.categories == ["cs.CL"]
    assert counts[("Section", "text", "NUL character(s) removed")] == 1
    assert counts[("Paper", "categories", "NUL character(s) removed")] == 1


def test_ids_come_from_the_cleaned_text() -> None:
    dirty = CitationContext(citing="p", text="we follow <REF>\x00 closely")
    clean = CitationContext(citing="p", text="we follow <REF> closely")
    assert dirty.id == clean.id and dirty.text == clean.text


def test_nan_is_missing_where_optional_refused_where_required() -> None:
    assert Review(paper="p", reviewer="r", source="s", rating=float("nan")).rating is None
    with pytest.raises(ValidationError, match="not a finite number"):
        Judgement(start="a", end="b", score=float("inf"))
    # a leaderboard score is optional but a NaN one is a broken row
    with pytest.raises(ValidationError, match="not a finite number"):
        Result(method="m", task="t", dataset="d", metric="x", score=float("nan"))


def test_over_long_fields_and_huge_integers_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    assert MAX_FIELD_CHARS == 2_000_000
    monkeypatch.setenv("SCHOLARKG_MAX_FIELD_CHARS", "50")
    with pytest.raises(ValidationError, match="over the 50-character field limit") as err:
        Paper(id="p", abstract="x" * 51)
    assert err.value.errors()[0]["loc"] == ("abstract",)
    with pytest.raises(ValidationError, match="64-bit"):
        Paper(id="p", corpus_id=2**64)


def test_a_cleaning_block_reads_the_field_cap_once_when_it_begins(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Inside ``collect_cleaning`` (a load, a parse worker's block) the cap is the one in
    force when the block began; outside, the environment is read for each value."""
    monkeypatch.setenv("SCHOLARKG_MAX_FIELD_CHARS", "50")
    with collect_cleaning():
        monkeypatch.setenv("SCHOLARKG_MAX_FIELD_CHARS", "100")
        with pytest.raises(ValidationError, match="over the 50-character field limit"):
            Paper(id="p", abstract="x" * 51)
        with collect_cleaning():  # a block inside reads it again
            assert Paper(id="p", abstract="x" * 51).abstract == "x" * 51
        with pytest.raises(ValidationError, match="over the 50-character field limit"):
            Paper(id="p", abstract="x" * 51)
    assert Paper(id="p", abstract="x" * 100).abstract == "x" * 100
    monkeypatch.setenv("SCHOLARKG_MAX_FIELD_CHARS", "20")
    with pytest.raises(ValidationError, match="over the 20-character field limit"):
        Paper(id="p", abstract="x" * 21)


# --------------------------------------------------------------------------- reading side


def test_invalid_utf8_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    path.write_bytes(b'{"id": "a"}\n{"id": "b", "title": "caf\xe9"}\n')
    with pytest.raises(InputError, match=r"byte 0xE9 at column 26") as err:
        list(iter_jsonl(path))
    assert err.value.line == 2
    whole = tmp_path / "doc.json"
    whole.write_bytes(b'{\n  "a": 1,\n  "b": "\xff"\n}\n')
    with pytest.raises(InputError, match=r"byte 0xFF at column 9") as err:
        read_json_object(whole)
    assert err.value.line == 3


def test_bom_and_crlf_files_read_like_clean_ones(tmp_path: Path) -> None:
    tsv = tmp_path / "edges.tsv"
    tsv.write_bytes("\ufeffstart\tend\r\na\tb\r\n".encode())
    assert list(iter_delimited(tsv, required=("start", "end"))) == [(2, {"start": "a", "end": "b"})]
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_bytes('\ufeff{"id": 1}\r\n\r\n{"id": 2}\r\n'.encode())
    assert [obj["id"] for _, obj in iter_jsonl(jsonl)] == [1, 2]
    arr = tmp_path / "arr.json"
    arr.write_bytes('\ufeff[{"a": NaN}]'.encode())
    assert [type(x["a"]).__name__ for _, x in iter_json_array(arr)] == ["float"]
    assert [n for n, _ in iter_lines(jsonl)] == [1, 3]


def test_invalid_json_reports_its_column(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"id": 1}\n{"id": 2,, "x": 1}\n', encoding="utf-8")
    with pytest.raises(InputError, match="at column 10") as err:
        list(iter_jsonl(path))
    assert err.value.line == 2


# --------------------------------------------------------------------------- store defence


@pytest.mark.parametrize(
    ("value", "what"),
    [
        ("a\x00b", "NUL character"),
        ("x\ud800y", "lone surrogate"),
        (2**70, "outside the 64-bit range"),
    ],
)
def test_store_refuses_values_it_cannot_take_before_sending(
    store: GraphStore, value: object, what: str
) -> None:
    """Never the server's "Invalid input at end of input" about a query cut at a NUL, never
    the client's UnicodeEncodeError, never 2**70 silently clamped to 2**63 - 1."""
    with pytest.raises(InputError, match=what) as err:
        store.merge_nodes("Paper", [{"id": "p1", "title": value}])
    assert not isinstance(err.value, CypherError)
    assert err.value.field == "rows[0].props.title"
    with pytest.raises(InputError, match=what):
        store.run("RETURN $q AS q", {"q": value})
    assert store.counts().nodes == {}


def test_a_json_nul_escape_survives_a_whole_load_path(store: GraphStore, tmp_path: Path) -> None:
    """The exact failing shape: ``"\\u0000"`` inside a JSON string, through a record, stored."""
    line = json.dumps({"text": "before\u0000after"})
    obj = json.loads(line)
    sec = Section(paper="p", ordinal=0, text=obj["text"], kind="body")
    store.merge_nodes("Section", [sec.row()])
    assert store.run("MATCH (s:Section) RETURN s.text AS t") == [{"t": "beforeafter"}]


@pytest.mark.parametrize(
    ("value", "what"),
    [
        (12345678901234567890123, "outside the 64-bit range"),
        (-(2**63) - 1, "outside the 64-bit range"),
        (float("nan"), "non-finite number"),
        (float("inf"), "non-finite number"),
        ({"deep": [1, float("-inf")]}, r"parameter x\.deep\[1\] is a non-finite number"),
    ],
)
def test_a_users_query_parameter_the_store_cannot_take_is_refused_by_name(
    store: GraphStore, value: object, what: str
) -> None:
    """``scholarkg cypher -p x=…`` and the explorer: an integer past 64 bits was clamped to
    2^63 - 1 and answered as that, NaN gave FalkorDB's "Invalid input at end of input"."""
    store.merge_nodes("Paper", [{"id": "p1"}])
    with pytest.raises(InputError, match=what):
        store.explore("RETURN $x AS v", {"x": value})
    assert store.explore("RETURN $x AS v", {"x": 2**63 - 1}).rows == [[2**63 - 1]]

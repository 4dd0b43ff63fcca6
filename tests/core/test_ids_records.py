"""Stable ids and record validation: the rules in schema/ids.py, pinned."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from scholarkg.schema import ids
from scholarkg.schema.records import (
    AliasOf,
    Aspect,
    Author,
    Citation,
    Leaderboard,
    Metric,
    Paper,
    Query,
    Result,
    ReviewSegment,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2401.06233", "2401.06233"),
        ("2401.06233v3", "2401.06233"),
        ("arXiv:2401.06233v1", "2401.06233"),
        ("https://arxiv.org/abs/1706.03762", "1706.03762"),
        ("https://arxiv.org/pdf/1706.03762v5.pdf", "1706.03762"),
        ("hep-th/9901001", "hep-th/9901001"),
        ("math.AG/0601001v2", "math.AG/0601001"),
        ("10.1000/xyz", None),
        ("not an id", None),
    ],
)
def test_arxiv_normalisation(raw: str, expected: str | None) -> None:
    assert ids.normalize_arxiv_id(raw) == expected


def test_paper_id_priority() -> None:
    # arXiv beats DOI beats corpus id beats title hash
    assert ids.paper_id(arxiv_id="1706.03762v2", doi="10.1/x", corpus_id=5) == "arxiv:1706.03762"
    assert ids.paper_id(doi="https://doi.org/10.1000/ABC", corpus_id=5) == "doi:10.1000/abc"
    assert ids.paper_id(corpus_id="42", title="T") == "s2:42"
    assert ids.paper_id(openalex_id="https://openalex.org/W123") == "openalex:W123"
    a = ids.paper_id(title="Attention  Is All You Need!", year=2017)
    b = ids.paper_id(title="attention is all you need", year=2017)
    assert a == b and a.startswith("paper:") and len(a) == len("paper:") + 16
    assert ids.paper_id(title="attention is all you need", year=2018) != a
    with pytest.raises(ValueError):
        ids.paper_id()


def test_named_and_hashed_ids_are_stable() -> None:
    assert ids.named_id("task", "  Image   Classification ") == "task:image classification"
    assert ids.leaderboard_id("QA", "SQuAD", "F1") == ids.leaderboard_id("qa", "squad", "f1")
    assert ids.result_id("arxiv:1", "BERT", "SQuAD", "QA", "F1") != ids.result_id(
        "arxiv:2", "BERT", "SQuAD", "QA", "F1"
    )
    assert ids.content_hash("a", "b") != ids.content_hash("ab")  # separator matters
    with pytest.raises(ValueError):
        ids.named_id("task", "  !! ")


def test_paper_record_derives_fields_and_drops_unstored() -> None:
    paper = Paper(
        title="Deep Nets", arxiv_id="arXiv:2101.00001v2", date="2021-01-04T10:00:00",
        full_text="long text", authors=["A"],
    )  # fmt: skip
    assert paper.id == "arxiv:2101.00001"
    assert paper.arxiv_id == "2101.00001"
    assert paper.year == 2021 and paper.date == "2021-01-04"
    row = paper.row()
    assert row["title_norm"] == "deep nets"
    assert "full_text" not in row and "authors" not in row and "abstract" not in row


def test_record_errors_name_the_field() -> None:
    with pytest.raises(ValidationError) as err:
        Paper(title="x", date="Jan 2020")
    assert "date" in str(err.value)
    with pytest.raises(ValidationError):
        Result(method="m", task="t", dataset="d", metric="m", score=float("nan"))
    with pytest.raises(ValidationError):
        # extra fields are rejected, not silently dropped (the bad call is the test)
        Paper(title="x", unknown_field=1)  # type: ignore[call-arg]  # an unknown field, on purpose
    with pytest.raises(ValidationError):
        Metric(name="acc", direction="sideways")


def test_scoped_and_edge_records() -> None:
    q = Query(qid="7", text="find papers", source="dorismae")
    assert q.id == "query:dorismae:7"
    asp = Aspect(aspect_id="7.1", text="uses graphs", source="dorismae", parent="aspect:dorismae:7")
    assert asp.id == "aspect:dorismae:7.1" and asp.row()["parent"] == "aspect:dorismae:7"
    assert Author(name="Ada Lovelace").id == Author(name="ada  lovelace").id
    assert Author(name="X", orcid="https://orcid.org/0000-0001").id == "orcid:0000-0001"
    seg = ReviewSegment(review="review:aaar:p#1", ordinal=3, text="weak baseline")
    assert seg.id == "review:aaar:p#1/seg/3"
    lb = Leaderboard(task="QA", dataset="SQuAD", metric="F1")
    assert lb.id == ids.leaderboard_id("QA", "SQuAD", "F1")
    cite = Citation(start="arxiv:1", end="arxiv:2", sentence="as shown by <REF>", intents=["m"])
    ctx = cite.context()
    assert ctx is not None and ctx.citing == "arxiv:1" and ctx.intent == "m"
    assert Citation(start="a", end="b").context() is None
    assert cite.row() == {
        "start": "arxiv:1",
        "end": "arxiv:2",
        "props": {"sentence": "as shown by <REF>", "intents": ["m"]},
    }


def test_identifiers_too_long_to_be_one_are_none() -> None:
    """A "DOI" of thousands of characters or an OpenAlex / PubMed / MAG id of more than 18
    digits is a broken field: taken as an identifier it would make a key FalkorDB's unique
    check crashes the server on (schema.text.MAX_KEY_BYTES)."""
    longest = "10.1/" + "x" * (ids.MAX_DOI_CHARS - 5)
    assert ids.normalize_doi(longest) == longest
    assert ids.normalize_doi(longest + "x") is None
    assert ids.normalize_openalex_id("https://openalex.org/W" + "1" * 18) == "W" + "1" * 18
    assert ids.normalize_openalex_id("https://openalex.org/W" + "1" * 19) is None
    assert ids.normalize_openalex_id("w" + "1" * 19) is None
    assert ids.normalize_pmid("1" * 19) is None
    assert ids.normalize_pmcid("PMC" + "1" * 19) is None
    assert ids.normalize_mag_id("1" * 19) is None
    assert ids.normalize_mag_id("1" * 18) == "1" * 18
    # a paper named by a long DOI falls back to its next identifier
    assert ids.paper_id(doi="10.1/" + "x" * 5000, openalex_id="W1") == "openalex:W1"


def test_an_id_over_the_key_limit_is_refused_at_its_field() -> None:
    """4,096 UTF-8 bytes is the longest key (4,097 killed the embedded server, measured),
    counted in bytes, not characters; the refusal names the field, as a loader reports it."""
    from scholarkg.schema.text import MAX_KEY_BYTES

    assert Paper(id="x" * MAX_KEY_BYTES, title="t").id == "x" * MAX_KEY_BYTES
    assert Paper(id=" " + "é" * (MAX_KEY_BYTES // 2) + " ", title="t").id == "é" * 2048
    for key in ("x" * (MAX_KEY_BYTES + 1), "é" * (MAX_KEY_BYTES // 2) + "x"):
        with pytest.raises(ValidationError) as err:
            Paper(id=key, title="t")
        assert err.value.errors()[0]["loc"] == ("id",)
        assert "over the 4,096 a key may have" in str(err.value)
    # an id a rule derives from a long name too (a venue named by a whole page)
    with pytest.raises(ValidationError, match="4,096"):
        Metric(name="m" * 5000)


def test_plain_records_leave_an_over_long_id_to_validation() -> None:
    """The unvalidated fast path makes no record of an over-long id (validation refuses it)."""
    from scholarkg.schema.plain_records import plain_record

    assert plain_record(Paper, {"id": "x" * 4096, "title": "t"}) is not None
    assert plain_record(Paper, {"id": "x" * 4097, "title": "t"}) is None


def test_an_alias_over_the_key_limit_is_left_out() -> None:
    """A slot keeps a raw id no rule could read; as an alias key it could be over the limit
    the embedded store indexes (and no look-up would find it): no alias is made of it."""
    from scholarkg.loaders.identity import alias_records

    kept = alias_records("doi:10.1/x", ["arxiv:" + "z" * 5000, "openalex:W1", "doi:10.1/x"])
    assert [(a.start, a.end) for a in kept if isinstance(a, AliasOf)] == [
        ("openalex:W1", "doi:10.1/x")
    ]
    assert len(kept) == 1

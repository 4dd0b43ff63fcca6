"""``plain_record`` makes exactly the record validation makes, or declines.

For every input here: either ``plain_record`` gives ``None`` (the caller validates), or its
record equals the validated one in class, ``__dict__`` (values and key order) and set
fields; and it never gives a record where validation refuses the input. Inputs: the
synthetic OpenAlex works of the catalogue tests as the parser reads them, then each of their
values disturbed in the ways real files are dirty (surrounding whitespace, NUL, BOM, CR, tab,
lone surrogates, wrong types, NaN, over-long text, bad dates, unknown keys)."""

from __future__ import annotations

import importlib
import math
import typing
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work
from pydantic import ValidationError

from scholarkg.loaders import openalex
from scholarkg.schema.plain_records import plain_record
from scholarkg.schema.records import (
    Author,
    Authorship,
    EdgeRecord,
    NodeRecord,
    Paper,
    Record,
    Venue,
)
from scholarkg.schema.text import collect_cleaning

_PATH = Path("works.jsonl")


def _validated(cls: type[Record], data: dict[str, Any]) -> Record | None:
    try:
        return cls(**data)
    except (ValidationError, ValueError, KeyError, TypeError):
        return None


def _same(plain: Record, validated: Record) -> None:
    assert type(plain) is type(validated)
    assert list(plain.__dict__.items()) == list(validated.__dict__.items())
    assert plain.__pydantic_fields_set__ == validated.__pydantic_fields_set__
    assert plain == validated
    assert isinstance(plain, NodeRecord | EdgeRecord)
    assert isinstance(validated, NodeRecord | EdgeRecord)
    assert plain.row() == validated.row()


def _check(cls: type[Record], data: dict[str, Any]) -> Record | None:
    """Assert the contract for one input; the plain record (or None)."""
    with collect_cleaning() as counts:
        plain = plain_record(cls, data)
    assert not counts, "plain_record must never clean (validation counts what it cleans)"
    validated = _validated(cls, dict(data))
    if plain is not None:
        assert validated is not None, f"plain made a record validation refuses: {data!r}"
        _same(plain, validated)
    return plain


def _work_inputs(n: int, **over: Any) -> list[tuple[type[Record], dict[str, Any]]]:
    fields = openalex.work_fields(openalex_work(n, **over), path=_PATH, line=1)
    paper = Paper(**fields.paper)
    out: list[tuple[type[Record], dict[str, Any]]] = [(Paper, fields.paper)]
    for author, ship in zip(fields.authors, fields.authorships, strict=True):
        out.append((Author, author))
        aid = Author(**author).id
        out.append((Authorship, {"start": paper.id, "end": aid, **ship}))
    if paper.venue:
        out.append((Venue, {"name": paper.venue}))
    return out


@pytest.mark.parametrize("n", [1, 2, 3])
def test_the_catalogue_works_are_made_plainly_and_equal(n: int) -> None:
    for cls, data in _work_inputs(n):
        assert _check(cls, data) is not None, f"{cls.__name__} should need no validation"


_DIRT: list[Any] = [
    "  padded  ",
    "nul\x00inside",
    "\ufeffbom",
    "cr\r\nline",
    "tab\there",
    "lone \ud800 surrogate",
    "back\\slash",
    "",
    "   ",
    True,
    1,
    2**63,
    -(2**63) - 1,
    1.5,
    math.nan,
    math.inf,
    ["a", " b "],
    ["x\x00"],
    [1, 2],
    [True],
    [1.0],
    {"k": "v"},
    None,
    "2020-13-45",
    "2020-02-30",
    "2021-06",
    "2021-06-01T12:00:00",
    "arXiv:2401.00001v2",
]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_value_disturbed_either_matches_or_is_left_to_validation(n: int) -> None:
    made = declined = 0
    for cls, data in _work_inputs(n):
        for name in [*data, "not_a_field"]:
            for dirt in _DIRT:
                got = _check(cls, {**data, name: dirt})
                made += got is not None
                declined += got is None
    assert made and declined  # both branches were exercised


def test_the_field_cap_in_force_is_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    (_, data), *_ = _work_inputs(1)
    monkeypatch.setenv("SCHOLARKG_MAX_FIELD_CHARS", "60")
    long = {**data, "abstract": "word " * 30}
    assert _validated(Paper, long) is None  # refused by validation
    assert _check(Paper, long) is None


def test_required_fields_and_given_ids() -> None:
    assert _check(Author, {"name": None}) is None
    assert _check(Author, {"orcid": "0000-0002-1825-0097"}) is None
    made = _check(Author, {"name": " Ada ", "orcid": "https://orcid.org/0000-0002-1825-0097"})
    assert isinstance(made, Author) and made.id.startswith("orcid:")
    assert _check(Paper, {"id": "doi:10.1/x", "title": "T"}) is not None
    assert _check(Authorship, {"start": "a", "end": None}) is None


def _subclasses(cls: type[Record]) -> list[type[Record]]:
    out = []
    for sub in cls.__subclasses__():
        out += [sub, *_subclasses(sub)]
    return out


#: a value of each plain field type, with surrounding space where it is text
_SAMPLES: dict[Any, Any] = {
    str: " text ", int: 3, bool: True, float: 1.5,
    list[str]: [" a ", "b"], list[int]: [1, 2], list[float]: [0.5], list[bool]: [False],
}  # fmt: skip


def _sample(annotation: Any) -> Any:
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    plain = args[0] if len(args) == 1 and typing.get_origin(annotation) is not list else annotation
    try:
        return _SAMPLES.get(plain, "x")
    except TypeError:
        return "x"


def test_every_record_class_is_made_equal_or_declined() -> None:
    """Every record class, with its required fields and then with every field given a value
    of its type: made equal, or declined (a class with more to validate, an id rule the
    values do not satisfy)."""
    for module in ("aaar", "citerec", "dorismae", "retrieval", "scireplicate"):
        importlib.import_module(f"scholarkg.schema.{module}")  # their record classes
    classes = [
        c for c in _subclasses(Record) if getattr(c, "LABEL", None) or getattr(c, "TYPE", None)
    ]
    assert len(classes) > 40
    made = 0
    for cls in classes:
        fields = cls.__pydantic_fields__
        required = {name: "x" for name, info in fields.items() if info.is_required()}
        full = {name: _sample(info.annotation) for name, info in fields.items()}
        for data in (required, {**required, "id": "some:id"} if "id" in fields else required, full):
            made += _check(cls, data) is not None
    assert made > 40  # most classes are plain enough to be made here


class _Tagged(NodeRecord):
    """A record with a mutable default: pydantic copies it per record, a plain one could not."""

    LABEL = "Tagged"
    tags: list[str] | None = ["x"]  # noqa: RUF012 (the case under test)


def test_a_class_with_a_mutable_default_is_left_to_validation() -> None:
    assert _Tagged(id="t:1").tags == ["x"]
    assert plain_record(_Tagged, {"id": "t:1"}) is None

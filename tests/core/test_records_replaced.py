"""``Record.replaced``: the loaders' unvalidated copy equals pydantic's ``model_copy``."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from scholarkg.schema.records import Authorship, Citation, Paper, Record

CASES: list[tuple[Record, dict[str, Any]]] = [
    (Paper.model_construct(id="openalex:W0", openalex_id="W0"),
     {"id": "openalex:W7", "openalex_id": "W7"}),
    (Paper(id="doi:10.1/x", title="A title", doi="10.1/x", year=2020), {"family_key": True}),
    (Citation.model_construct(start="", end="", from_openalex=True),
     {"start": "openalex:W1", "end": "openalex:W2"}),
    (Authorship(start="openalex:W1", end="openalex:A1", position=0), {"from_openalex": True}),
]  # fmt: skip


@pytest.mark.parametrize(("record", "update"), CASES)
def test_replaced_equals_model_copy(record: Record, update: dict[str, Any]) -> None:
    before = record.model_dump()
    fast = record.replaced(update)
    slow = record.model_copy(update=update)
    assert fast == slow
    assert type(fast) is type(slow)
    assert fast.model_fields_set == slow.model_fields_set
    assert fast.model_dump() == slow.model_dump()
    assert record.model_dump() == before  # the template is unchanged
    with pytest.raises(pydantic.ValidationError):  # still frozen
        fast.start = "x"  # type: ignore[attr-defined]  # assigning is what is tested

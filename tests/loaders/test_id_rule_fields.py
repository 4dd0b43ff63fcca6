"""A value of the wrong type that reaches a record's id rule is reported at its field.

Found by a user: ``load apc`` with ``"title": ["list", "title"]`` said ``a field has the
wrong type for the Paper id rule (normalize() argument 2 must be str, not list)``, naming no
field, where ``"date": 2023`` said ``(field 'date'): Input should be a valid string``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from scholarkg.errors import InputError
from scholarkg.loaders import apc
from scholarkg.schema.records import Author, Paper


def test_apc_names_the_field_whose_type_the_id_rule_could_not_take(tmp_path: Path) -> None:
    path = tmp_path / "papers.jsonl"
    path.write_text(
        json.dumps({"id": "2301.99012", "title": "Fine"})
        + "\n"
        + json.dumps({"id": "2301.99013", "title": ["list", "title"]})
        + "\n"
    )
    with pytest.raises(InputError) as err:
        list(apc.read_papers(path))
    assert str(err.value) == (
        f"{path}:line 2 (field 'title'): Input should be a valid string (in a Paper record)"
    )


@pytest.mark.parametrize(
    ("record", "field"),
    [(Paper, "title"), (Author, "name")],  # the Paper rule normalises it, Author's hashes it
)
def test_every_record_locates_the_wrong_type_at_its_field(
    record: type[Paper | Author], field: str
) -> None:
    with pytest.raises(ValidationError) as err:
        record.model_validate({field: ["Jane", "Doe"]})
    first = err.value.errors()[0]
    assert first["loc"] == (field,) and first["type"] == "string_type"

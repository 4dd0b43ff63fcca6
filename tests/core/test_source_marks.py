"""The source marks an edge can carry are listed once (``loaders/source_rank.EDGE_MARKS``)
but named again in static Cypher: each authorship prune query keeps an edge another source
marks, the copy query carries every mark over. A mark added to the list and forgotten in
one query would let one source's reload delete what another stated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import scholarkg.queries
from scholarkg.loaders.source_rank import EDGE_MARKS, RECORD_MARKS, SOURCE_SLOT

pytestmark = pytest.mark.unit

FOLDER = Path(scholarkg.queries.__file__).parent / "identity"


def _marks(path: Path) -> set[str]:
    return set(re.findall(r"\bfrom_[a-z0-9]+\b", path.read_text(encoding="utf-8")))


@pytest.mark.parametrize(
    "name",
    [*sorted(p.name for p in FOLDER.glob("prune_*_authorships.cypher")), "copy_authorships.cypher"],
)
def test_each_authorship_prune_and_copy_query_names_every_source_mark(name: str) -> None:
    assert _marks(FOLDER / name) == set(EDGE_MARKS)


def test_each_record_mark_has_its_prune_and_unmark_queries() -> None:
    assert {m.removeprefix("from_") for m in RECORD_MARKS} == set(SOURCE_SLOT)
    for mark in RECORD_MARKS:
        source = mark.removeprefix("from_")
        for step in ("prune", "unmark"):
            path = FOLDER / f"{step}_{source}_authorships.cypher"
            assert path.exists(), path.name
        assert _marks(FOLDER / f"unmark_{source}_authorships.cypher") == {mark}


def test_the_author_lists_read_names_every_mark_in_the_order_the_name_ranking_reads_them() -> None:
    """``identity/paper_authors`` lists a name-only Author's marks positionally; the spelling
    ranking (``author_identity._listing_rank``) reads them in ``_LISTING_MARKS``' order."""
    from scholarkg.loaders.author_identity import _LISTING_MARKS

    text = (FOLDER / "paper_authors.cypher").read_text(encoding="utf-8")
    listed = re.search(r"THEN \[([^\]]*)\]", text)
    assert listed is not None
    order = re.findall(r"r\.from_([a-z0-9]+)", listed[1])
    assert order == list(_LISTING_MARKS)
    assert {f"from_{m}" for m in order} == set(EDGE_MARKS)

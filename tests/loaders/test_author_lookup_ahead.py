"""A chunk's Author look-up sent while its Papers resolve (``AuthorResolver.
send_lookup_ahead``) leaves exactly the graph and the report that looking the Authors up where
their resolution needs them leaves, on both backends.

It is sent once the chunk's Paper look-up has answered, after the ids the chunk before
brought to other nodes of their person are written (a record stating ``A41`` with the ORCID
of the stored ``A40`` lands on ``A40`` and keeps ``openalexauthor:A41`` there as an alias,
which a later chunk naming ``A41`` alone lands through). The other cases are
``test_settled_authors``' stored graph: an ORCID node merged into the better key, an id merged
away, an empty slot, records of one chunk sharing an ORCID."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import write_openalex

from scholarkg.loaders.author_identity import AuthorResolver
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.store.base import GraphStore

from . import test_settled_authors as authors
from .test_bulk_equals_incremental import everything
from .test_settled_references import fresh_graph, resolved_load


def _load(store: GraphStore, path: Path, *, chunk: int, ahead: bool, used: list[bool]) -> Any:
    """``path`` loaded with the look-ups ahead on or off; ``used`` gets, per chunk with
    Authors of an id, whether their look-up came from the one sent ahead."""
    resolver = IdentityResolver(store, chunk=chunk)
    resolver.lookup_ahead = ahead
    resolver_authors = resolver._authors
    by_id = resolver_authors._by_id

    def noted(found: list[Any], sent: Any = None) -> dict[str, str]:
        used.append(sent is not None)
        return by_id(found, sent)

    resolver_authors._by_id = noted  # type: ignore[method-assign,assignment]  # notes each chunk's look-up
    return resolved_load(store, resolver, path)


@pytest.mark.parametrize("chunk", [pytest.param(1, marks=pytest.mark.slow), 4])
def test_the_author_look_up_sent_ahead_leaves_the_graph_and_report_of_one_run_in_place(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    snapshots = authors._files(tmp_path / "snap")
    results = []
    for ahead in (True, False):
        fresh_graph(any_store, authors._stored, tmp_path / f"home-{ahead}", monkeypatch)
        used: list[bool] = []
        reports = [_load(any_store, p, chunk=chunk, ahead=ahead, used=used) for p in snapshots]
        assert used and all(used) is ahead and any(used) is ahead, used
        results.append((everything(any_store), reports))
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1]


def test_an_id_kept_elsewhere_is_found_in_every_later_chunk(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of one work: W1's A41 states the ORCID of the stored A40 (one person, kept on
    A40, ``openalexauthor:A41`` an alias of it once W1 is written); W2 and W4 name A41
    without an ORCID: W2 lands through what the chunk before mapped, W4 (after W3) only
    through that alias, written before W3's look-up was sent. One person, one node, with the
    look-ups ahead as without; the same graph both ways."""
    lone_a41 = {
        "author": {"id": "https://openalex.org/A41", "display_name": "Person A41"},
        "institutions": [],
        "raw_author_name": "Person A41",
    }
    works = [authors._work(1, ["A41", "A1"]), authors._work(2, ["A2"]),
             authors._work(3, ["A1"]), authors._work(4, ["A5"])]  # fmt: skip
    for w in (works[1], works[3]):
        w["authorships"].append(lone_a41)
    path = write_openalex(tmp_path / "snap", works)
    graphs = []
    for ahead in (True, False):
        fresh_graph(any_store, authors._stored, tmp_path / f"home-{ahead}", monkeypatch)
        used: list[bool] = []
        _load(any_store, path, chunk=1, ahead=ahead, used=used)
        assert used == [ahead] * 4
        graphs.append(everything(any_store))
        rows = any_store.run(
            "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Author) WHERE a.orcid = '0000-0002-0000-0040' "
            "RETURN p.openalex_id AS w, a.id AS id ORDER BY w"
        )
        assert rows == [{"w": w, "id": "openalexauthor:A40"} for w in ("W1", "W2", "W4")]
        assert any_store.run("MATCH (a:Author {id: 'openalexauthor:A41'}) RETURN a.id") == []
    assert graphs[0] == graphs[1]


def test_a_look_up_sent_for_other_keys_is_not_used(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``resolve`` asked for keys the look-up sent ahead did not ask: it looks them up
    afresh and finds the stored Author."""
    fresh_graph(any_store, authors._stored, tmp_path / "home", monkeypatch)
    resolver = AuthorResolver(any_store)
    first = authors._work(1, ["A1"])
    second = authors._work(2, ["A2"])
    from scholarkg.loaders.openalex import parsed_work, work_records

    def records(obj: dict[str, Any]) -> list[Any]:
        work, stated, known = parsed_work(obj, path=tmp_path / "x.jsonl", line=1)
        return work_records(work, stated=stated, authors_known=known)

    resolver.send_lookup_ahead([records(first)])
    assert resolver._ahead is not None
    rows = resolver.resolve([records(second)], ["openalex:W2"])
    assert rows == {}
    assert resolver._ahead is None
    assert "openalexauthor:A2" in resolver._recent
    assert resolver._unknown == set()

"""Author records settled outside the union-find (``AuthorResolver._settled``: a record whose
ids name only its own node, or nothing, and no other record of the chunk) leave exactly the
graph and the report that resolving every record through the union-find leaves, on both
backends.

The stored graph holds the cases next to the plain ones (``A1``, ``A2`` stored under their
own ids): a person stored under an ORCID whose OpenAlex id a record brings (``A3``: the
ORCID node merges into the better key), an id merged away and kept as an alias (``A90`` of
``A9``), an Author whose id is ``openalexauthor:A70`` but whose slot is empty, a stored
Author holding another person's... no: a stored Author holding the ORCID a record of another
OpenAlex id states (``A40`` / ``A41``: one person, merged). Records of one chunk share an
ORCID (``A11``, ``A12``). Two loads go through it, a base and an update, with authors drawn
at random; chunks of one work carry each chunk's new Authors (not yet written) to the next.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_openalex

from scholarkg.loaders.identity import IdentityResolver
from scholarkg.store.base import GraphStore

from .test_bulk_equals_incremental import everything
from .test_settled_references import fresh_graph, resolved_load

#: the ORCIDs records state: A3's is the stored ``orcid:`` node's, A11 and A12 share one,
#: A41's is the stored A40's
_ORCIDS = {
    "A2": "0000-0002-0000-0002",
    "A3": "0000-0002-0000-0003",
    "A11": "0000-0002-0000-0011",
    "A12": "0000-0002-0000-0011",
    "A41": "0000-0002-0000-0040",
}
#: the authors a work may list: stored (1, 2, 70, 40), found through the stored graph under
#: another id (3, 90, 41), sharing an ORCID (11, 12), or new (5-8, 20-24)
_PEOPLE = ["A1", "A2", "A3", "A5", "A6", "A7", "A8", "A11", "A12", "A20", "A21", "A22", "A23",
           "A24", "A40", "A41", "A70", "A90"]  # fmt: skip


def _authorship(author: str) -> dict[str, Any]:
    orcid = _ORCIDS.get(author)
    return {
        "author": {
            "id": f"https://openalex.org/{author}",
            "display_name": f"Person {author}",
            "orcid": f"https://orcid.org/{orcid}" if orcid else None,
        },
        "institutions": [],
        "raw_author_name": f"Person {author}",
    }


def _work(w: int, authors: list[str], *, year: int = 2001) -> dict[str, Any]:
    return openalex_work(
        1, id=f"https://openalex.org/W{w}", title=f"Work {w}", doi=None,
        ids={"openalex": f"https://openalex.org/W{w}"}, locations=[], cited_by_count=w,
        publication_year=year, referenced_works=[], primary_location=None,
        authorships=[_authorship(a) for a in authors],
    )  # fmt: skip


def _stored(store: GraphStore) -> None:
    """The graph before the loads (see the module's docstring)."""
    store.apply_schema()
    for statement in (
        "CREATE (:Author {id: 'openalexauthor:A1', openalex_id: 'A1', name: 'Person A1'})",
        "CREATE (:Author {id: 'openalexauthor:A2', openalex_id: 'A2', name: 'Person A2', "
        "orcid: '0000-0002-0000-0002'})",
        "CREATE (:Author {id: 'orcid:0000-0002-0000-0003', orcid: '0000-0002-0000-0003', "
        "name: 'Person A3'})",
        "CREATE (:Author {id: 'openalexauthor:A9', openalex_id: 'A9', name: 'Person A9'})",
        "CREATE (:AuthorAlias {id: 'openalexauthor:A90'})",
        "MATCH (x:AuthorAlias {id: 'openalexauthor:A90'}), (a:Author {id: 'openalexauthor:A9'}) "
        "CREATE (x)-[:ALIAS_OF]->(a)",
        "CREATE (:Author {id: 'openalexauthor:A70', name: 'Person A70'})",
        "CREATE (:Author {id: 'openalexauthor:A40', openalex_id: 'A40', name: 'Person A40', "
        "orcid: '0000-0002-0000-0040'})",
    ):
        store.run(statement)


def _files(root: Path) -> tuple[Path, Path]:
    """A base (works 1-12) and an update (1-12 again, every third list redrawn; 13-24 new),
    authors drawn with a fixed seed."""
    rng = random.Random(5)

    def people() -> list[str]:
        return rng.sample(_PEOPLE, 3)

    lists = {w: people() for w in range(1, 13)}
    works = {
        "base": [_work(w, lists[w]) for w in range(1, 13)],
        "update": [_work(w, lists[w] if w % 3 else people(), year=2002) for w in range(1, 13)]
        + [_work(w, people()) for w in range(13, 25)],
    }
    base, update = (
        write_openalex(root / name, works[name], date=date)
        for name, date in (("base", "2024-05-01"), ("update", "2024-06-01"))
    )
    return base, update


def _resolver(
    store: GraphStore,
    chunk: int,
    settle: bool,
    calls: list[tuple[set[str], set[str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> IdentityResolver:
    """A resolver settling authors or not, noting per chunk what settled and what did not."""
    resolver = IdentityResolver(store, chunk=chunk)
    authors = resolver._authors
    authors.settle_authors = settle
    find = authors._settled

    def noted(keys_of: dict[str, set[str]], *args: Any) -> set[str]:
        out = find(keys_of, *args)
        calls.append((out, keys_of.keys() - out))
        return out

    monkeypatch.setattr(authors, "_settled", noted)
    return resolver


@pytest.mark.parametrize("chunk", [pytest.param(1, marks=pytest.mark.slow), 4])
def test_settled_authors_leave_the_graph_and_report_the_union_find_leaves(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    snapshots = _files(tmp_path / "snap")

    def loaded(settle: bool) -> tuple[Any, list[dict[str, Any]], list[tuple[set[str], set[str]]]]:
        """The graph and the two loads' reports, settling or not, and per chunk what settled."""
        fresh_graph(any_store, _stored, tmp_path / f"home-{settle}", monkeypatch)
        calls: list[tuple[set[str], set[str]]] = []
        reports = [
            resolved_load(any_store, _resolver(any_store, chunk, settle, calls, monkeypatch), p)
            for p in snapshots
        ]
        return everything(any_store), reports, calls

    graph, reports, calls = loaded(True)
    settled = set().union(*(done for done, _ in calls))
    # both kinds: a stored Author of the record's id, and a new one
    assert {"openalexauthor:A1", "openalexauthor:A20"} <= settled, settled
    # the hard cases went through the union-find (at least where they first met it)
    left = set().union(*(rest for _, rest in calls))
    assert {"openalexauthor:A3", "openalexauthor:A90", "openalexauthor:A41"} <= left
    assert loaded(False) == (graph, reports, [])  # the union-find alone: the same graph
    # the cases the stored graph holds came out as one node per person
    people = {
        r["id"]
        for r in any_store.run("MATCH (:Paper)-[:AUTHORED_BY]->(a:Author) RETURN a.id AS id")
    }
    assert "orcid:0000-0002-0000-0003" not in people  # merged into A3's OpenAlex id
    assert "openalexauthor:A90" not in people  # landed on A9 through its alias
    assert not {"openalexauthor:A11", "openalexauthor:A12"} <= people  # one person
    assert not {"openalexauthor:A40", "openalexauthor:A41"} <= people  # one person

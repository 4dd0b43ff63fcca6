"""The identity look-ups (``identity/lookup_papers``, ``identity/lookup_authors``) answer with
exactly the (key, node) pairs the three seeks of a key give — by its slot, as a node id, through
an alias — each pair once, on both backends. The queries leave out the row of an id seek that
the slot seek repeats (the node whose id is ``scheme:v`` holds ``v`` in that slot); every seek
stays, because a key can land on two or three different nodes (an id whose node's slot holds
another value, a slot value on a second node, an alias of a third) and the resolver must see
them all to merge them. The graphs here hold each of those cases."""

from __future__ import annotations

from collections import Counter
from typing import Any

from scholarkg.loaders.author_identity import lookup_author_keys
from scholarkg.loaders.identity import SLOTS, IdentityResolver
from scholarkg.store.base import GraphStore

#: Papers (id, slot properties): one per case a key can meet
PAPERS: list[tuple[str, dict[str, Any]]] = [
    ("openalex:W1", {"openalex_id": "W1"}),  # id and slot: one node, one row
    ("doi:10.1/a", {"doi": "10.1/a", "openalex_id": "W2"}),  # a reference's W id: by slot
    ("openalex:W3", {"openalex_id": "W9"}),  # id "W3", slot W9 (OpenAlex retired W3) ...
    ("doi:10.1/c", {"doi": "10.1/c", "openalex_id": "W3"}),  # ... and W3 in another's slot
    ("openalex:W5", {}),  # an id no slot expresses
    ("s2:7", {"corpus_id": 7}),
    ("s2:8", {"corpus_id": 9}),
    ("doi:10.1/b", {"doi": "10.1/b"}),  # two nodes share a DOI (a --bulk graph can)
    ("arxiv:2401.00001", {"arxiv_id": "2401.00001", "doi": "10.1/b"}),
    ("aaar:x1", {}),  # a family's id of no slot scheme
    ("doi:10.1/d", {"doi": "10.1/e"}),  # a renamed key: its DOI in the slot is another
]
#: PaperAlias id → Paper id
PAPER_ALIASES = {
    "openalex:W6": "doi:10.1/a",
    "openalex:W1": "doi:10.1/a",  # an alias of a key another node holds as id and slot
    "doi:10.1/d": "doi:10.1/d",  # the renamed key, findable as its alias too
}
PAPER_KEYS = {
    "openalex:W1", "openalex:W2", "openalex:W3", "openalex:W5", "openalex:W6", "openalex:W9",
    "openalex:W404", "s2:7", "s2:8", "s2:9", "s2:x", "doi:10.1/b", "doi:10.1/d",
    "doi:10.1/e", "arxiv:2401.00001", "aaar:x1", "aaar:none", "doi:", "mag:1",
}  # fmt: skip


#: the node and alias labels the fixtures write (constants of this module, never input)
_ALIAS_LABEL = {"Paper": "PaperAlias", "Author": "AuthorAlias"}


def _graph(
    store: GraphStore,
    label: str,
    nodes: list[tuple[str, dict[str, Any]]],
    aliases: dict[str, str],
) -> None:
    """``nodes`` (id, properties) of ``label``, and a ``<label>Alias`` node per alias id
    pointing at the node it names."""
    alias_label = _ALIAS_LABEL[label]
    store.apply_schema()
    for nid, props in nodes:
        store.run(f"CREATE (n:{label} {{id: $id}}) SET n += $props", {"id": nid, "props": props})
    for alias, nid in aliases.items():
        store.run(
            f"MATCH (n:{label} {{id: $of}}) CREATE (:{alias_label} {{id: $id}})-[:ALIAS_OF]->(n)",
            {"id": alias, "of": nid},
        )


def _paper_seeks(store: GraphStore, key: str) -> set[tuple[str, str]]:
    """What the three seeks of ``key`` find, one statement each (the look-up's definition):
    a key of a slot's scheme whose value is an integer for the corpus id is sought in its
    slot under the key ``scheme:`` + the stored value (``s2:007`` → ``s2:7``)."""
    by_id = store.run("MATCH (p:Paper {id: $k}) RETURN p.id AS id", {"k": key})
    out = {(key, r["id"]) for r in by_id}
    out |= {
        (key, r["id"])
        for r in store.run(
            "MATCH (:PaperAlias {id: $k})-[:ALIAS_OF]->(p:Paper) RETURN p.id AS id", {"k": key}
        )
    }
    scheme, _, value = key.partition(":")
    slot = {v: k for k, v in SLOTS.items()}.get(scheme)
    if slot is None or not value:
        return out
    v: Any = value
    if slot == "corpus_id":
        if not value.isdigit():
            return out
        v = int(value)
    for r in store.run(f"MATCH (p:Paper) WHERE p.{slot} = $v RETURN p.id AS id", {"v": v}):
        out.add((f"{scheme}:{v}", r["id"]))
    return out


def test_the_paper_lookup_answers_each_pair_the_three_seeks_give_once(
    any_store: GraphStore,
) -> None:
    _graph(any_store, "Paper", PAPERS, PAPER_ALIASES)
    rows = IdentityResolver(any_store, chunk=100)._lookup(PAPER_KEYS)
    want = set().union(*(_paper_seeks(any_store, k) for k in PAPER_KEYS))
    assert set(rows) == want
    # no pair twice (the id seek's repeat of the slot's is left out) but where an alias
    # repeats an id: the alias seek answers whole (few keys have an alias)
    twice = {pair for pair, n in Counter(rows).items() if n > 1}
    assert twice == {("doi:10.1/d", "doi:10.1/d")}
    assert len(rows) == len(want) + 1
    # the cases: a key on three nodes (id + slot, an alias), on two (id, another's slot), a
    # DOI two nodes share, an id only, an alias only, a corpus id by id and by slot
    assert {i for k, i in rows if k == "openalex:W1"} == {"openalex:W1", "doi:10.1/a"}
    assert {i for k, i in rows if k == "openalex:W3"} == {"openalex:W3", "doi:10.1/c"}
    assert {i for k, i in rows if k == "doi:10.1/b"} == {"doi:10.1/b", "arxiv:2401.00001"}
    assert {i for k, i in rows if k == "openalex:W5"} == {"openalex:W5"}
    assert {i for k, i in rows if k == "openalex:W6"} == {"doi:10.1/a"}
    assert {i for k, i in rows if k == "s2:8"} == {"s2:8"}
    assert {i for k, i in rows if k == "s2:9"} == {"s2:8"}
    assert ("s2:7", "s2:7") in rows and ("aaar:x1", "aaar:x1") in rows
    assert ("doi:10.1/d", "doi:10.1/d") in rows and ("doi:10.1/e", "doi:10.1/d") in rows
    assert not {k for k, _ in rows} & {"openalex:W404", "aaar:none", "s2:x", "doi:", "mag:1"}
    # a corpus id not written as an integer prints: sought as an id, and in its slot under
    # the key the slot's value makes (as the three-seek query always answered)
    odd = IdentityResolver(any_store, chunk=100)._lookup({"s2:007"})
    assert set(odd) == _paper_seeks(any_store, "s2:007") == {("s2:7", "s2:7")}


#: Authors (id, slot properties) and AuthorAlias id → Author id
AUTHORS: list[tuple[str, dict[str, Any]]] = [
    ("openalexauthor:A1", {"openalex_id": "A1", "orcid": "0000-0001"}),
    ("openalexauthor:A3", {"openalex_id": "A4"}),  # id A3, slot A4 ...
    ("openalexauthor:A4x", {"openalex_id": "A3"}),  # ... and A3 in another's slot
    ("orcid:0000-0002", {}),  # an id no slot expresses
    ("s2author:5", {"s2_author_id": "5"}),
    ("name:ada", {}),
]
AUTHOR_ALIASES = {"openalexauthor:A9": "openalexauthor:A1", "s2author:5": "orcid:0000-0002"}
AUTHOR_KEYS = {
    "openalexauthor:A1", "openalexauthor:A3", "openalexauthor:A4", "openalexauthor:A9",
    "orcid:0000-0001", "orcid:0000-0002", "orcid:", "s2author:5", "name:ada", "name:none",
}  # fmt: skip
_AUTHOR_SLOTS = {"openalexauthor": "openalex_id", "orcid": "orcid", "s2author": "s2_author_id"}


def _author_seeks(store: GraphStore, key: str) -> set[tuple[str, str, bool]]:
    out = {
        (key, r["id"], False)
        for r in store.run("MATCH (a:Author {id: $k}) RETURN a.id AS id", {"k": key})
    }
    out |= {
        (key, r["id"], True)
        for r in store.run(
            "MATCH (:AuthorAlias {id: $k})-[:ALIAS_OF]->(a:Author) RETURN a.id AS id", {"k": key}
        )
    }
    scheme, _, value = key.partition(":")
    if (slot := _AUTHOR_SLOTS.get(scheme)) is not None:
        for r in store.run(f"MATCH (a:Author) WHERE a.{slot} = $v RETURN a.id AS id", {"v": value}):
            out.add((key, r["id"], False))
    return out


def test_the_author_lookup_answers_each_row_the_three_seeks_give_once(
    any_store: GraphStore,
) -> None:
    from scholarkg.loaders.author_identity import _lookup_params

    _graph(any_store, "Author", AUTHORS, AUTHOR_ALIASES)
    rows = any_store.run_named("identity/lookup_authors", _lookup_params(AUTHOR_KEYS))
    got = [(r["key"], r["id"], bool(r["alias"])) for r in rows]
    want = set().union(*(_author_seeks(any_store, k) for k in AUTHOR_KEYS))
    assert set(got) == want
    assert len(got) == len(want)
    assert {(i, a) for k, i, a in got if k == "openalexauthor:A3"} == {
        ("openalexauthor:A3", False),
        ("openalexauthor:A4x", False),
    }
    assert {(i, a) for k, i, a in got if k == "s2author:5"} == {
        ("s2author:5", False),
        ("orcid:0000-0002", True),
    }
    # one id per key: a node's own id (or slot) before an alias, then by id
    found = lookup_author_keys(any_store, AUTHOR_KEYS)
    assert found["s2author:5"] == "s2author:5"
    assert found["openalexauthor:A9"] == "openalexauthor:A1"
    assert found["openalexauthor:A3"] == "openalexauthor:A3"
    assert "name:none" not in found and "orcid:" not in found

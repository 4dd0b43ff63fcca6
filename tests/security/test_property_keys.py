"""A user's write that could give a graph more property keys than the embedded FalkorDB
numbers (16 bits: past 65,536 one key's values are read and written as another's, stored)
is refused before it is sent (``store/falkordb/property_keys.py``). The limit is lowered
here so that a test graph reaches it: the check reads it from the module."""

from __future__ import annotations

import pytest

from scholarkg.store.falkordb import property_keys
from scholarkg.store.falkordb.property_keys import TooManyPropertyKeys, check_room, names_in
from scholarkg.store.falkordb.store import FalkorDBStore


def _create(first: int, count: int) -> str:
    return "CREATE (:Ak {" + ", ".join(f"k{i}: 1" for i in range(first, first + count)) + "})"


def test_the_names_a_write_could_add_are_counted_in_every_reading() -> None:
    assert names_in("CREATE (:Ak {a: 1, `b c`: 2})") == 4  # CREATE, Ak, a, `b c`
    # a map parameter's keys travel in the text: CYPHER, m, x, CREATE, n, SET
    assert names_in("CYPHER m={x: 1} CREATE (n) SET n += $m") == 6
    check_room(65_000, "CREATE (n {a: 1})")
    with pytest.raises(TooManyPropertyKeys, match="65,530 property keys"):
        check_room(65_530, _create(0, 10))
    with pytest.raises(TooManyPropertyKeys, match="LOAD CSV"):
        check_room(40_000, "LOAD CSV WITH HEADERS FROM 'file://x.csv' AS r CREATE (n) SET n += r")


def test_a_write_past_the_limit_is_refused_and_nothing_is_changed(
    store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(property_keys, "MAX_PROPERTY_KEYS", 400)
    store.explore(_create(0, 150), allow_writes=True)
    store.explore(_create(150, 150), allow_writes=True)  # read again past half the limit
    with pytest.raises(TooManyPropertyKeys, match=r"30[0-9] property keys"):
        store.explore(_create(300, 150), allow_writes=True)
    keys = store.run("CALL db.propertyKeys() YIELD propertyKey RETURN count(propertyKey) AS n")
    assert keys == [{"n": 300}]
    store.explore(_create(300, 50), allow_writes=True)  # what still fits is written
    assert store.run("MATCH (n:Ak) RETURN count(n) AS n") == [{"n": 3}]

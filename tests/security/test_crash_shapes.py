"""Query shapes the embedded FalkorDB crashes on are refused before they are sent, with a
form it runs (``store/falkordb/crash_shapes.py``); the server is never taken down by them,
through the explorer's read-only mode either."""

from __future__ import annotations

import pytest

from scholarkg.store.falkordb.crash_shapes import CrashShapeRefused, check_crash_shapes
from scholarkg.store.falkordb.store import FalkorDBStore

CRASHED = [
    "MATCH (a:P) WHERE a.x XOR (a)-[:R]->() RETURN count(a)",
    "MATCH (a:P) WITH a WHERE (a)-[:R]->() XOR a.x RETURN count(a)",
    "MATCH (a) WHERE ()-[]->() XOR TRUE RETURN 0 LIMIT 1",
    "MATCH (a) WHERE NOT (a)<-[:CITES]-() xor a.year > 2000 RETURN a",
]

RUN = [
    "MATCH (a:P) WHERE a.x XOR true RETURN count(a)",
    "MATCH (a:P)-[:R]->(b) WHERE a.x XOR b.y RETURN count(a)",  # the pattern is the MATCH's
    "MATCH (a:P) WHERE (a.x AND NOT (a)-[:R]->()) OR (NOT a.x AND (a)-[:R]->()) RETURN count(a)",
    "RETURN 'WHERE (a)-->() XOR b' AS text",
]


@pytest.mark.parametrize("query", CRASHED)
def test_a_shape_the_server_crashes_on_is_refused_with_its_rewrite(query: str) -> None:
    with pytest.raises(CrashShapeRefused, match=r"\(p AND NOT q\) OR \(NOT p AND q\)"):
        check_crash_shapes(query)


@pytest.mark.parametrize("query", RUN)
def test_the_other_shapes_pass(query: str) -> None:
    check_crash_shapes(query)


def test_the_server_answers_the_rewrite_and_is_never_restarted(store: FalkorDBStore) -> None:
    store.run("CREATE (:P {x: true})-[:R]->(:P {x: false})")
    pid = store._server.pid() if store._server is not None else None
    for query in CRASHED[:2]:
        with pytest.raises(CrashShapeRefused):
            store.explore(query)
    rows = [store.explore(q).rows for q in RUN[:3]]
    assert rows == [[[1]], [[0]], [[0]]]  # the second P; a null b.y; neither
    assert (store._server.pid() if store._server is not None else None) == pid

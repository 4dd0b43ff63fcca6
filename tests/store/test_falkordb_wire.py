"""``store/falkordb/wire.py`` against the falkordb client it stands in for: the parameter
header must be the client's text for every value a statement sends, and a reply of plain
values must read as the client's ``QueryResult`` reads it (on the real server)."""

from __future__ import annotations

import random
from enum import StrEnum
from typing import Any

import pytest
from falkordb.helpers import stringify_param_value
from falkordb.query_result import QueryResult

from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.falkordb.wire import encode_value, params_header, plain_reply


class _Kind(StrEnum):
    A = "a-kind"


VALUES: list[Any] = [
    "",
    "plain",
    'quote " inside',
    "back\\slash",
    '","',
    "naïve – ünïcode ✓",
    "new\nline\ttab",
    0,
    -7,
    2**62,
    1.5,
    -0.0,
    1e20,
    True,
    False,
    None,
    [],
    (),
    ["openalex:W1", "openalex:W2"],
    ["a", 'b"c', "d\\e"],
    [1, 2, 3],
    [1.0, "x", None, True],
    [["W1", ["W2", "W3"]], ["W4", []]],
    # a string first and not last (an authorship's [end, props]), and a string first and
    # last with another value between: neither is one join of strings
    ["openalex:A1", {"position": 1, "institutions": ["I1"], "raw_name": 'a "b"'}],
    ["a", 1, "b"],
    {"id": "x", "props": {"title": "t", "year": 2020, "topics": ["a", "b"]}},
    {"weird key": 1, "@type": "x"},
    {},
    _Kind.A,
    [_Kind.A],
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_encode_value_is_the_clients_text(value: Any) -> None:
    assert encode_value(value) == stringify_param_value(value)


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(8 if depth < 3 else 5)
    alphabet = 'aZ0:/."\\,[]{}`é\n '
    if kind == 0:
        return "".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
    if kind == 1:
        return rng.randint(-(2**40), 2**40)
    if kind == 2:
        return rng.random() * 10 ** rng.randint(-5, 5)
    if kind == 3:
        return rng.choice([True, False, None])
    if kind == 4:
        return [
            "".join(rng.choice(alphabet) for _ in range(rng.randrange(4)))
            for _ in range(rng.randrange(5))
        ]
    if kind in (5, 6):
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {
        f"k{i}{rng.choice('ab_')}": _random_value(rng, depth + 1) for i in range(rng.randrange(4))
    }


def test_random_values_encode_as_the_client_does() -> None:
    rng = random.Random(36)
    for _ in range(3_000):
        value = _random_value(rng)
        assert encode_value(value) == stringify_param_value(value), value


def test_params_header_and_bad_names() -> None:
    params = {"rows": [{"id": "a", "props": {}}], "pairs": [["a", "b"]], "k": 3}
    assert params_header(params) == (
        'CYPHER `rows`=[{`id`:"a",`props`:{}}] `pairs`=[["a","b"]] `k`=3 '
    )
    with pytest.raises(ValueError, match="backtick"):
        params_header({"a`b": 1})
    with pytest.raises(ValueError, match="empty"):
        params_header({"": 1})
    with pytest.raises(ValueError, match="backtick"):
        encode_value({"a`b": 1})


def test_plain_reply_leaves_other_replies_to_the_client() -> None:
    assert plain_reply([["stats"]]) is not None  # statistics only: a write
    node = [[[1, "n"]], [[[8, [1, [0], []]]]], ["stats"]]
    assert plain_reply(node) is None  # a node: QueryResult reads it (the graph's schema)
    assert plain_reply([[[1, "m"]], [[[10, ["k", [3, 1]]]]], ["stats"]]) is None  # a map
    assert plain_reply("OK") is None


def test_replies_read_as_the_client_reads_them(store: FalkorDBStore) -> None:
    """Every scalar type through the real server: the fast reading equals QueryResult's."""
    store.run("CREATE (:Paper {id: 'p1', title: 'a \"q\" \\\\ é', year: 2020, score: 0.5})")
    queries = [
        "MATCH (p:Paper) RETURN p.id AS id, p.title AS t, p.year AS y, p.score AS s, "
        "p.missing AS m, p.year > 2000 AS b, [1, 'x', null, [2.5, false]] AS l",
        "UNWIND range(1, 5) AS x RETURN x, toString(x) AS s",
        "MATCH (p:Paper) WHERE p.id = 'nothing' RETURN p.id",
        "UNWIND $pairs AS p RETURN p[0] AS a, p[1] AS b",
    ]
    params = {"pairs": [["x\\y", 'q"'], ["é", ""]]}
    for query in queries:
        raw = store._g.execute_command(
            "GRAPH.QUERY", store.graph, params_header(params) + query, "--compact"
        )
        fast = plain_reply(raw)
        client = QueryResult(store._g, raw)
        assert fast is not None
        assert fast.header == client.header
        assert fast.result_set == client.result_set
        assert [[type(v) for v in row] for row in fast.result_set] == [
            [type(v) for v in row] for row in client.result_set
        ]
    rows = store.run("UNWIND $pairs AS p RETURN p[0] AS a, p[1] AS b", params)
    assert rows == [{"a": "x\\y", "b": 'q"'}, {"a": "é", "b": ""}]
    # rows of a plain reply are returned as read (no second pass): arrays, nested and mixed
    listed = store.run(
        "RETURN ['W1', 'a \"q\"'] AS ids, [1, 'x', null, [2.5, false, 'y']] AS l, [] AS e"
    )
    assert listed == [{"ids": ["W1", 'a "q"'], "l": [1, "x", None, [2.5, False, "y"]], "e": []}]
    assert [type(v) for v in listed[0]["l"][3]] == [float, bool, str]
    hits = store.run("MATCH (p:Paper) RETURN p")  # a node: read by the client
    assert hits[0]["p"]["id"] == "p1"

"""The explorer's Neo4j path: its Cypher linted offline by Neo4j's own parser, and the
store method against a live server (only when ``NEO4J_URI`` is set, like tests/neo4j)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from scholarkg.errors import CypherError, QueryLimitExceeded
from scholarkg.store.neo4j import dialect as neo4j_dialect

_SUPPORT = Path(__file__).parents[1] / "neo4j" / "neo4j_lint_support.py"


def _lint_support() -> ModuleType:
    """tests/neo4j's lint helpers (imported by path: ``neo4j`` is also the driver's name)."""
    if "neo4j_lint_support" not in sys.modules:
        spec = importlib.util.spec_from_file_location("neo4j_lint_support", _SUPPORT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["neo4j_lint_support"] = module
        spec.loader.exec_module(module)
    return sys.modules["neo4j_lint_support"]


def test_explorer_statements_pass_neo4j_lint() -> None:
    support = _lint_support()
    node = support.require_linter()
    queries = [
        support.Query(
            "explore_neighbours",
            neo4j_dialect.EXPLORE_NEIGHBOURS,
            {"ref": "4:0d6d6c1e:12", "limit": 25},
        ),
        support.Query(
            "explore_node_keys", neo4j_dialect.EXPLORE_NODE_KEYS, {"refs": ["4:0d6d6c1e:12"]}
        ),
        support.Query("show_indexes", neo4j_dialect.SHOW_INDEXES, {}),
    ]
    out = support.lint(node, queries)
    assert out.diagnostics == {
        "explore_neighbours": [],
        "explore_node_keys": [],
        "show_indexes": [],
    }


def _graph() -> tuple[Any, Any, Any, Any]:
    """Two driver nodes and a relationship, built as the driver's hydrator builds them."""
    from neo4j.graph import Graph, Node, Path

    g = Graph()
    a = Node(g, "4:db:1", 1, ["Paper"], {"id": "p1", "emb_minilm_l6": [0.1] * 8})
    b = Node(g, "4:db:2", 2, ["Paper"], {"id": "p2"})
    rel = g.relationship_type("CITES")(g, "5:db:1", 1, {"w": 0.5})
    rel._start_node, rel._end_node = a, b
    return a, b, rel, Path(a, rel)


class _FakeResult:
    def __init__(self, keys: list[str], rows: list[list[Any]]) -> None:
        self._keys, self._rows = keys, rows

    def keys(self) -> list[str]:
        return self._keys

    def __iter__(self) -> Iterator[Any]:
        for row in self._rows:
            yield type("Rec", (), {"values": lambda self, r=row: r})()

    def consume(self) -> Any:
        """The summary read once every record is: what a write changed (here one node)."""
        from neo4j import SummaryCounters

        return type("Summary", (), {"counters": SummaryCounters({"nodes-created": 1})})()


class _FakeDriver:
    """Records how ``explore`` opens its session and what it runs."""

    def __init__(self, result: _FakeResult) -> None:
        self.result = result
        self.session_kwargs: dict[str, Any] = {}
        self.query: Any = None

    def session(self, **kwargs: Any) -> Any:
        self.session_kwargs = kwargs
        driver = self

        class _Session:
            def __enter__(self) -> Any:
                return self

            def __exit__(self, *exc: Any) -> None:
                return None

            def run(self, query: Any, params: dict[str, Any]) -> _FakeResult:
                driver.query = (query, params)
                return driver.result

        return _Session()


def test_neo4j_explore_reads_in_a_read_session_with_a_timeout_and_limit() -> None:
    from neo4j import READ_ACCESS, WRITE_ACCESS

    from scholarkg.store.neo4j.store import Neo4jStore

    a, b, rel, path = _graph()
    rows = [[a, rel, b, path, [a, 3]]] + [[a, rel, b, path, None]] * 4
    drv = _FakeDriver(_FakeResult(["a", "r", "b", "p", "x"], rows))
    store = Neo4jStore(drv, "neo4j")  # type: ignore[arg-type]  # a fake driver answering the query, not neo4j.Driver
    res = store.explore("MATCH ...", {"k": 1}, timeout_ms=1500, row_limit=3)
    assert drv.session_kwargs["default_access_mode"] == READ_ACCESS
    assert drv.session_kwargs["fetch_size"] == 4
    query, params = drv.query
    assert query.timeout == 1.5 and params == {"k": 1}
    assert len(res.rows) == 3 and res.truncated
    assert res.rows[0] == [
        {"~node": "4:db:1"},
        {"~rel": "5:db:1"},
        {"~node": "4:db:2"},
        {"~path": ["4:db:1", "5:db:1", "4:db:2"]},
        [{"~node": "4:db:1"}, 3],
    ]
    node = res.nodes["4:db:1"]
    assert node.labels == ("Paper",)
    assert node.properties == {"id": "p1", "emb_minilm_l6": "<vector, 8 values>"}
    assert res.relationships["5:db:1"].as_dict() == {
        "ref": "5:db:1",
        "type": "CITES",
        "start": "4:db:1",
        "end": "4:db:2",
        "properties": {"w": 0.5},
    }
    drv.result = _FakeResult([], [])
    assert store.explore("CREATE ()", allow_writes=True).changes == {"nodes created": 1}
    assert drv.session_kwargs["default_access_mode"] == WRITE_ACCESS


@pytest.fixture
def neo4j_store(neo4j_env: Any) -> Iterator[Any]:
    from scholarkg.store.neo4j.store import Neo4jStore

    st = Neo4jStore.from_settings(neo4j_env)
    st.clear()
    st.merge_nodes("Paper", [{"id": f"p{i}", "title": f"Paper {i}"} for i in (1, 2, 3)])
    st.merge_relationships(
        "CITES", "Paper", "Paper", [{"start": "p1", "end": "p2"}, {"start": "p2", "end": "p3"}]
    )
    try:
        yield st
    finally:
        st.clear()
        st.close()


@pytest.mark.neo4j
def test_neo4j_explore_payload_read_only_and_limits(neo4j_store: Any) -> None:
    res = neo4j_store.explore(
        "MATCH p = (a:Paper {id: 'p1'})-[c:CITES]->(b:Paper) RETURN a, c, b, p"
    )
    (row,) = res.rows
    a = res.nodes[row[0]["~node"]]
    assert a.labels == ("Paper",) and a.properties["id"] == "p1"
    rel = res.relationships[row[1]["~rel"]]
    assert rel.type == "CITES" and rel.start == a.ref and rel.end == row[2]["~node"]
    assert len(row[3]["~path"]) == 3
    with pytest.raises(CypherError):
        neo4j_store.explore("CREATE (:Paper {id: 'x'})")
    assert neo4j_store.run("MATCH (p:Paper) RETURN count(p) AS n")[0]["n"] == 3
    neo4j_store.explore("CREATE (:Paper {id: 'p4'})", allow_writes=True)
    assert neo4j_store.run("MATCH (p:Paper) RETURN count(p) AS n")[0]["n"] == 4
    res = neo4j_store.explore("UNWIND range(1, 500) AS x RETURN x", row_limit=20)
    assert len(res.rows) == 20 and res.truncated
    # the server's timeout (CypherError) or, when a loaded machine's server has not answered
    # a second past the limit, scholarkg's watchdog (QueryLimitExceeded): refused either way
    with pytest.raises((CypherError, QueryLimitExceeded)):
        neo4j_store.explore(
            "UNWIND range(1, 100000) AS x UNWIND range(1, 100000) AS y RETURN count(*)",
            timeout_ms=200,
        )
    around = neo4j_store.explore_neighbours(row[2]["~node"])
    assert {n.properties["id"] for n in around.nodes.values()} == {"p1", "p2", "p3"}
    neo4j_store.apply_schema()
    assert any(
        r["label"] == "Paper" and r["properties"] == ["id"] for r in neo4j_store.explore_indexes()
    )

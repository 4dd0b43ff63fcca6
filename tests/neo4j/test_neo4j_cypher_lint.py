"""Offline Neo4j conformance: every Cypher string the Neo4j path can send, linted by Neo4j.

The linter is Neo4j's own parser + semantic analysis (npm ``@neo4j-cypher/language-support``
2.0.0-next.38) with a ``dbSchema`` of a Neo4j 5.26 server with APOC and GDS
(``tests/neo4j_lint/dbschema.json``) and scholarkg's label / relationship-type whitelists.
Any diagnostic, warning or error, fails. Negative controls prove the lint can fail:
FalkorDB-only constructs and Neo4j-5-invalid Cypher must be rejected.

Everything is linted in one Node process (module fixture): the analyser takes seconds to load.
"""

from __future__ import annotations

from typing import Any

import pytest
from neo4j_lint_support import (
    LintOutput,
    Query,
    browser_parameters,
    lint,
    load_schema_file,
    parameters_in,
    require_linter,
)

from scholarkg.queries import all_queries
from scholarkg.schema.ddl import default_schema
from scholarkg.store import transfer
from scholarkg.store.neo4j import dialect as neo4j_dialect

# slow: one Node process loads Neo4j's analyser and lints every statement (30-80 s on the
# shared 2-core box); `make test-marked` (CI) runs it
pytestmark = pytest.mark.slow

#: (query, parameters, expected message fragment): each must be rejected.
NEGATIVE_CONTROLS: dict[str, tuple[str, dict[str, Any], str]] = {
    # FalkorDB-only constructs leaking into the Neo4j path
    "vecf32": (
        "MATCH (p:Paper {id: $id}) SET p.embedding = vecf32($v)",
        {"id": "p", "v": [0.1]},
        "Function vecf32 is not present",
    ),
    "db.idx.vector": (
        "CALL db.idx.vector.queryNodes('Paper', 'embedding', 5, $v) YIELD node, score RETURN node",
        {"v": [0.1]},
        "Procedure db.idx.vector.queryNodes is not present",
    ),
    "db.idx.fulltext": (
        "CALL db.idx.fulltext.queryNodes('Paper', $q) YIELD node RETURN node",
        {"q": "x"},
        "Procedure db.idx.fulltext.queryNodes is not present",
    ),
    "algo.pageRank": (
        "CALL algo.pageRank('Paper', 'CITES') YIELD node, score RETURN node, score",
        {},
        "Procedure algo.pageRank is not present",
    ),
    # valid on FalkorDB, invalid on Neo4j 5
    "size(pattern)": (
        "MATCH (p:Paper) RETURN size((p)-[:CITES]->()) AS n",
        {},
        "pattern expression should only be used in order to test the existence",
    ),
    "dangling +": ("MATCH (p:Paper) RETURN p.year + AS y", {}, "Invalid input"),
    # the lint also knows our whitelists, parameters and procedure signatures
    "unknown label": ("MATCH (p:Papr) RETURN p", {}, "Label Papr is not present"),
    "undeclared parameter": (
        "MATCH (p:Paper {id: $id}) RETURN p",
        {},
        "Parameter $id is not defined",
    ),
    "wrong arity": (
        "CALL db.index.vector.queryNodes('paper_vec', $k) YIELD node RETURN node",
        {"k": 5},
        "required number of arguments",
    ),
}

POSITIVE_CONTROLS: dict[str, tuple[str, dict[str, Any]]] = {
    "constraint": ("CREATE CONSTRAINT c IF NOT EXISTS FOR (p:Paper) REQUIRE p.id IS UNIQUE", {}),
    "vector": (
        "CALL db.index.vector.queryNodes('paper_vec', $k, $v) YIELD node, score "
        "RETURN node.id AS id, score",
        {"k": 5, "v": [0.1, 0.2]},
    ),
}


def browser_queries() -> list[Query]:
    """The saved queries: the files, and the cross-benchmark view built from the families."""
    from scholarkg.explorer.saved import saved_queries

    return [Query(f"browser/{q.name}", q.text, browser_parameters(q.text)) for q in saved_queries()]


def adapter_queries() -> list[Query]:
    """Everything the Neo4j adapter renders: DDL, procedures, per-task named queries, transfer."""
    queries = [
        Query(f"dialect/{s.name}", s.text, s.parameters)
        for s in neo4j_dialect.all_statements(default_schema())
    ]
    queries += [
        Query(f"transfer/{s.name}", s.text, s.parameters) for s in transfer.transfer_statements()
    ]
    queries += [
        Query(f"named/{name}", text, parameters_in(text))
        for name, text in all_queries("neo4j").items()
    ]
    return queries


@pytest.fixture(scope="module")
def linted() -> LintOutput:
    node = require_linter()
    spec = load_schema_file()
    queries = adapter_queries() + browser_queries()
    queries += [Query(f"neg/{k}", t, p) for k, (t, p, _) in NEGATIVE_CONTROLS.items()]
    queries += [Query(f"pos/{k}", t, p) for k, (t, p) in POSITIVE_CONTROLS.items()]
    names = [q.name for q in queries]
    assert len(names) == len(set(names)), "query names must be unique"
    out = lint(
        node,
        queries,
        reference_procedures=sorted(spec["procedures"]),
        reference_functions=sorted(spec["functions"]) + sorted(spec["builtin_functions"]),
    )
    assert set(out.diagnostics) == set(names)
    return out


def _format(failures: dict[str, list[dict[str, Any]]], texts: dict[str, str]) -> str:
    lines = []
    for name, diags in failures.items():
        lines.append(f"--- {name}\n{texts[name]}")
        lines += [
            f"    {d['severity']} at {d['line']}:{d['column']}: {d['message'].splitlines()[0]}"
            for d in diags
        ]
    return "\n".join(lines)


def test_every_neo4j_statement_passes_neo4j_lint(linted: LintOutput) -> None:
    queries = adapter_queries() + browser_queries()
    failures = {q.name: linted.diagnostics[q.name] for q in queries if linted.diagnostics[q.name]}
    texts = {q.name: q.text for q in queries}
    assert not failures, "Neo4j rejects or warns about:\n" + _format(failures, texts)


def test_collection_covers_the_adapter() -> None:
    names = [q.name for q in adapter_queries()]
    n_ddl = sum(n.startswith("dialect/ddl[") for n in names)
    assert n_ddl >= len(default_schema().keys) + len(default_schema().fulltext)
    for needed in ("fulltext_search", "vector_search", "await_indexes", "delete_all"):
        assert f"dialect/{needed}" in names
    assert sum(n.startswith("dialect/pagerank_mutate") for n in names) == 6
    assert sum(n.startswith("transfer/") for n in names) == len(transfer.transfer_statements())
    assert 6 <= len(browser_queries()) <= 20  # 13 since suggest/related added theirs
    assert all(browser_parameters(q.text) for q in browser_queries()), "each documents :param"


@pytest.mark.parametrize("name", sorted(NEGATIVE_CONTROLS))
def test_negative_controls_are_rejected(linted: LintOutput, name: str) -> None:
    text, _, expected = NEGATIVE_CONTROLS[name]
    diags = linted.diagnostics[f"neg/{name}"]
    assert diags, f"lint accepted: {text}"
    assert any(expected in d["message"] for d in diags), diags


@pytest.mark.parametrize("name", sorted(POSITIVE_CONTROLS))
def test_positive_controls_are_accepted(linted: LintOutput, name: str) -> None:
    assert linted.diagnostics[f"pos/{name}"] == []


def test_dbschema_signatures_match_neo4j_snapshot(linted: LintOutput) -> None:
    """Our signatures (written from the docs) agree with the package's Neo4j snapshot."""
    spec = load_schema_file()
    ref = linted.reference
    assert ref is not None
    for kind in ("procedures", "functions"):
        for name, entry in spec[kind].items():
            assert ref[kind][name] is not None, f"{name} unknown to Neo4j"
            assert ref[kind][name]["signature"] == entry["signature"], name
    for name in spec["builtin_functions"]:
        assert ref["functions"][name] is not None, f"{name} is not a Neo4j built-in"
        assert ref["functions"][name]["builtIn"], name


def test_parameter_extraction_ignores_comments_and_strings() -> None:
    text = "// $nope\nMATCH (p {id: $id, t: '$notparam'}) /* $no */ RETURN $`k` AS k"
    assert parameters_in(text) == {"id": None, "k": None}
    assert browser_parameters("// :param paperId => 'p1'\n// :param limit => 5\nRETURN 1") == {
        "paperId": "'p1'",
        "limit": "5",
    }

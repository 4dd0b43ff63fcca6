"""Index definitions the embedded FalkorDB cannot build are refused before they are sent:
each crashed the server at once and, stored, at every start after (a crash hunt through
``scholarkg cypher`` found them; ``store/falkordb/index_options.py``). The sound ones are
created, and the server stays up."""

from __future__ import annotations

import pytest

from scholarkg.store.falkordb.index_options import IndexOptionRefused, check_index_definitions
from scholarkg.store.falkordb.store import FalkorDBStore

REFUSED = {
    "CREATE FULLTEXT INDEX FOR (n:Kx) ON (n.name) OPTIONS {language: 'klingon'}": "klingon",
    "create fulltext index ft for (n:Kx) on (n.name) options {Language: 'English'}": "lower",
    "CREATE FULLTEXT INDEX FOR (n:Kx) ON (n.name) OPTIONS {language: $lang}": "literal",
    "CREATE VECTOR INDEX FOR (n:Vb) ON (n.v) OPTIONS {dimension: 2, "
    "similarityFunction: 'cosine', M: -1}": "'M'",
    "CREATE VECTOR INDEX FOR (n:Vb) ON (n.v) OPTIONS {dimension: 2, "
    "similarityFunction: 'cosine', efConstruction: 100000000}": "'efConstruction'",
    "CREATE VECTOR INDEX FOR ()-[r:R]-() ON (r.v) OPTIONS {M: 1.5}": "'M'",
    "CREATE INDEX FOR (n:Odd) ON (n.``)": "empty name",
    "CREATE INDEX FOR ()-[r:OddR]-() ON (r.``)": "empty name",
    # escaped: Neo4j-style readers decode it, and so does the check
    "CREATE FULLTEXT INDEX FOR (n:Kx) ON (n.name) OPTIONS {language: 'kl\\u0069ngon'}": "kl",
}

ACCEPTED = [
    "CREATE FULLTEXT INDEX FOR (n:Kx) ON (n.name) OPTIONS {language: 'german'}",
    "CREATE VECTOR INDEX FOR (n:Vb) ON (n.v) OPTIONS {dimension: 2, "
    "similarityFunction: 'cosine', M: 16, efConstruction: 200, efRuntime: 10}",
    "CREATE INDEX FOR (n:Kx) ON (n.name)",
    "MATCH (n:Kx) RETURN n.name AS index LIMIT 1",  # the word alone is no definition
    "RETURN 'CREATE FULLTEXT INDEX OPTIONS {language: \"klingon\"}' AS text",  # a string
]


@pytest.mark.parametrize("query", sorted(REFUSED))
def test_a_definition_the_server_cannot_build_is_refused_naming_why(query: str) -> None:
    with pytest.raises(IndexOptionRefused, match=REFUSED[query]):
        check_index_definitions(query)


@pytest.mark.parametrize("query", ACCEPTED)
def test_sound_definitions_and_other_queries_pass(query: str) -> None:
    check_index_definitions(query)


def test_the_server_stays_up_and_builds_the_sound_ones(store: FalkorDBStore) -> None:
    store.run("UNWIND range(1, 5) AS i CREATE (:Kx {name: 'word ' + toString(i)})")
    store.run("UNWIND range(1, 3) AS i CREATE (:Vb {v: vecf32([1.0, toFloat(i)])})")
    for query in REFUSED:
        with pytest.raises(IndexOptionRefused):
            store.explore(query, allow_writes=True)
    for query in ACCEPTED[:2]:
        store.explore(query, allow_writes=True)
    found = store.run("CALL db.idx.fulltext.queryNodes('Kx', 'word') YIELD node RETURN count(node)")
    assert found == [{"count(node)": 5}]
    assert store.run("MATCH (n) RETURN count(n) AS n") == [{"n": 8}]  # nothing was lost

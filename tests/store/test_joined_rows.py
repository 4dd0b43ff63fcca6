"""Reads whose rows FalkorDB returns as joined strings (``store/falkordb/joined_rows.py``)
give exactly the rows of the plain read: every kind of column (strings, booleans and nulls,
lists of strings, empty lists), no row at all, and values that hold a separator (the store
then runs the plain read). And the named queries that ask for it answer as without it."""

from __future__ import annotations

from typing import Any

import pytest

from scholarkg.store.falkordb.joined_rows import LIST_SEPARATOR, ROW_SEPARATOR, joined_read
from scholarkg.store.falkordb.store import FalkorDBStore

_READ = """// falkordb-joined-rows: key str, id str, flag bool, ends strs
// a test read: two branches, every kind of column
UNWIND $vals AS v MATCH (p:Paper {openalex_id: v})
RETURN 'openalex:' + v AS key, p.id AS id,
       CASE WHEN p.n = 1 THEN null ELSE p.n = 2 END AS flag, coalesce(p.ends, []) AS ends
UNION ALL
UNWIND $vals AS v MATCH (p:Paper {id: v})
RETURN v AS key, p.id AS id, true AS flag, [] AS ends"""


def _plain(query: str) -> str:
    """``query`` without its joined-rows header line."""
    return "\n".join(line for line in query.split("\n") if "falkordb-joined-rows" not in line)


@pytest.fixture
def papers(store: FalkorDBStore) -> FalkorDBStore:
    store.apply_schema()
    store.run(
        "UNWIND $rows AS r CREATE (:Paper {id: r.id, openalex_id: r.o, n: r.n, ends: r.ends})",
        {
            "rows": [
                {"id": "openalex:W1", "o": "W1", "n": 1, "ends": ["a", "b"]},
                {"id": "doi:10.1/2", "o": "W2", "n": 2, "ends": ["c"]},
                {"id": "openalex:W3", "o": "W3", "n": 3, "ends": []},
                {"id": "W4", "o": "W4", "n": 4, "ends": None},
            ]
        },
    )
    return store


def _calls(store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    sent: list[str] = []
    query = store._query

    def counted(text: str, params: Any = None, **how: Any) -> Any:
        sent.append(text)
        return query(text, params, **how)

    monkeypatch.setattr(store, "_query", counted)
    return sent


@pytest.mark.parametrize("vals", [["W1", "W2", "W3", "W4", "W9"], ["W9"], []])
def test_joined_rows_are_the_plain_reads_rows(
    papers: FalkorDBStore, monkeypatch: pytest.MonkeyPatch, vals: list[str]
) -> None:
    plain = papers.run(_plain(_READ), {"vals": vals})
    sent = _calls(papers, monkeypatch)
    assert papers.run(_READ, {"vals": vals}) == plain
    assert len(sent) == 1 and sent[0].startswith("CALL {")  # answered joined, once
    if vals[:1] == ["W1"]:  # every kind of value came through
        assert {r["flag"] for r in plain} == {None, True, False}
        assert ["a", "b"] in [r["ends"] for r in plain] and [] in [r["ends"] for r in plain]


@pytest.mark.parametrize(
    "ends",
    [[f"x{ROW_SEPARATOR}y"], [f"x{LIST_SEPARATOR}y"], [""]],
    ids=["row-separator", "list-separator", "empty-string"],
)
def test_a_value_holding_a_separator_gets_the_plain_read(
    papers: FalkorDBStore, monkeypatch: pytest.MonkeyPatch, ends: list[str]
) -> None:
    papers.run("MATCH (p:Paper {id: 'openalex:W3'}) SET p.ends = $ends", {"ends": ends})
    vals = ["W1", "W3"]
    plain = papers.run(_plain(_READ), {"vals": vals})
    assert ends in [r["ends"] for r in plain]
    sent = _calls(papers, monkeypatch)
    assert papers.run(_READ, {"vals": vals}) == plain
    assert len(sent) == 2 and not sent[1].startswith("CALL {")  # joined, then plain


def test_an_id_holding_the_row_separator_gets_the_plain_read(
    papers: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    papers.run(f"CREATE (:Paper {{id: 'odd{ROW_SEPARATOR}id', openalex_id: 'W7', n: 7}})")
    plain = papers.run(_plain(_READ), {"vals": ["W7", "W1"]})
    sent = _calls(papers, monkeypatch)
    assert papers.run(_READ, {"vals": ["W7", "W1"]}) == plain
    assert plain[0]["id"] == f"odd{ROW_SEPARATOR}id" and len(sent) == 2


def test_only_a_header_line_asks_for_joined_rows() -> None:
    assert joined_read(_plain(_READ)) is None
    assert joined_read("MATCH (n) RETURN n.id AS id") is None
    # the marker in the body (a string, not the header) is not one
    assert joined_read("// a read\nRETURN '// falkordb-joined-rows: id str' AS id") is None
    read = joined_read(_READ)
    assert read is not None
    assert read.columns == (("key", "str"), ("id", "str"), ("flag", "bool"), ("ends", "strs"))


def test_the_identity_reads_answer_as_without_the_header(
    papers: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The named reads that ask for joined rows, against the same text without the header."""
    from scholarkg.queries import load_query

    papers.run("MATCH (p:Paper {id: 'openalex:W3'}) SET p:Stub")
    papers.run(
        "MATCH (a:Paper {id: 'openalex:W1'}), (b:Paper {id: 'doi:10.1/2'}), "
        "(c:Paper {id: 'openalex:W3'}) CREATE (a)-[:CITES {from_openalex: true}]->(b), "
        "(a)-[:CITES]->(c), (c)-[:CITES {from_openalex: true}]->(a)"
    )
    papers.run(
        "CREATE (:Author {id: 'openalexauthor:A1', openalex_id: 'A1'}), "
        "(:AuthorAlias {id: 'orcid:0000-0001-0000-0001'})-[:ALIAS_OF]->"
        "(:Author {id: 'openalexauthor:A2', openalex_id: 'A2'})"
    )
    ids = ["openalex:W1", "doi:10.1/2", "openalex:W3", "W4", "nope"]
    cases: list[tuple[str, dict[str, Any]]] = [
        ("identity/paper_states", {"ids": ids}),
        ("identity/stored_openalex_references", {"ids": ids}),
        (
            "identity/lookup_papers",
            {
                **{k: [] for k in ("arxiv", "corpus", "corpus_slot", "mag", "pmid", "pmcid")},
                "s2paper": [],
                "ids": ["W4"],
                "doi": ["10.1/2"],
                "openalex": ["W1", "W2", "W3", "W9"],
                "aliases": ["W4", "doi:10.1/2", "openalex:W1"],
            },
        ),
        (
            "identity/lookup_authors",
            {
                "ids": [],
                "orcid": ["0000-0001-0000-0001"],
                "openalex": ["A1", "A2", "A9"],
                "s2": [],
                "aliases": ["openalexauthor:A1", "orcid:0000-0001-0000-0001"],
            },
        ),
    ]
    for name, params in cases:
        text = load_query(name, "falkordb")
        assert joined_read(text) is not None, name
        plain = papers.run(_plain(text), params)
        assert plain, name
        sent = _calls(papers, monkeypatch)
        assert papers.run(text, params) == plain, name
        assert len(sent) == 1, name
        monkeypatch.undo()


def test_a_read_sent_ahead_comes_joined_and_its_rows_are_the_plain_reads(
    papers: FalkorDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``read_named_ahead`` (identity resolution's look-up of the next chunk) sends the
    joined form and splits it; an id holding a separator gets the plain read, run then."""
    params: dict[str, Any] = {
        **{k: [] for k in ("arxiv", "corpus", "corpus_slot", "mag", "pmid", "pmcid")},
        "s2paper": [],
        "ids": ["W4"],
        "doi": ["10.1/2"],
        "openalex": ["W1", "W2", "W3", "W7", "W9"],
        "aliases": ["W4", "doi:10.1/2", "openalex:W1"],
    }
    plain = papers.run_named("identity/lookup_papers", params)
    sent = _calls(papers, monkeypatch)
    rows = papers.read_named_ahead("identity/lookup_papers", params)
    assert rows() == plain and len(plain) >= 4
    assert sent == []  # answered by the read sent ahead, joined
    monkeypatch.undo()
    papers.run(f"CREATE (:Paper {{id: 'odd{ROW_SEPARATOR}id', openalex_id: 'W7', n: 7}})")
    plain = papers.run_named("identity/lookup_papers", params)
    assert f"odd{ROW_SEPARATOR}id" in [r["id"] for r in plain]
    sent = _calls(papers, monkeypatch)
    rows = papers.read_named_ahead("identity/lookup_papers", params)
    assert rows() == plain
    assert len(sent) == 1 and not sent[0].startswith("CALL {")  # the plain read, run then

"""Named look-ups marked ``skip-empty-branches`` run without the branches whose list is empty
(store/named.py): the same rows on both backends, fewer branches for Neo4j to plan."""

from __future__ import annotations

from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.queries import load_query, query_names
from scholarkg.store.base import GraphStore
from scholarkg.store.named import SKIP_EMPTY_BRANCHES, render_named, without_empty_branches

_PAPER_LISTS = ("arxiv", "doi", "corpus", "corpus_slot", "openalex", "mag", "pmid", "pmcid",
                "s2paper", "ids", "aliases")  # fmt: skip


def _lookup_params(**given: list[object]) -> dict[str, list[object]]:
    return {name: list(given.get(name, [])) for name in _PAPER_LISTS}


def test_only_the_branches_of_non_empty_lists_are_kept() -> None:
    text = render_named("identity/lookup_papers", "neo4j")
    pruned = without_empty_branches(
        "identity/lookup_papers", text, _lookup_params(openalex=["W1"], aliases=["openalex:W1"])
    )
    assert pruned is not None
    body = [line for line in pruned.splitlines() if not line.startswith("//")]
    assert [line for line in body if line.startswith("UNWIND")] == [
        "UNWIND $openalex AS v MATCH (p:Paper {id: 'openalex:' + v}) "
        "WHERE NOT coalesce(p.openalex_id = v, false)",
        "UNWIND $openalex AS v MATCH (p:Paper {openalex_id: v})",
        "UNWIND $aliases AS v MATCH (:PaperAlias {id: v})-[:ALIAS_OF]->(p:Paper)",
    ]
    assert body.count("UNION ALL") == 2
    # the file's header (what the query is) stays with it
    assert pruned.startswith(SKIP_EMPTY_BRANCHES)


def test_every_list_empty_runs_nothing_and_a_missing_list_stays() -> None:
    text = render_named("identity/lookup_papers", "neo4j")
    assert without_empty_branches("identity/lookup_papers", text, _lookup_params()) is None
    # a list not passed at all is the server's error to name, so its branch is kept
    params = _lookup_params()
    del params["mag"]
    kept = without_empty_branches("identity/lookup_papers", text, params)
    assert kept is not None and kept.count("UNWIND $mag AS") == 2


def test_an_unmarked_query_is_left_as_it_is() -> None:
    text = "UNWIND $a AS v RETURN count(v) AS n"
    assert without_empty_branches("x", text, {"a": []}) == text


def test_the_marker_on_a_branch_without_a_leading_unwind_is_refused() -> None:
    text = (
        f"{SKIP_EMPTY_BRANCHES}\nUNWIND $a AS v RETURN v\nUNION ALL\nMATCH (n) RETURN n.id AS v\n"
    )
    with pytest.raises(InputError, match="skip-empty-branches needs every UNION ALL branch"):
        without_empty_branches("x", text, {"a": []})


@pytest.mark.parametrize("dialect", ["falkordb", "neo4j"])
def test_every_marked_query_splits_into_unwind_branches(dialect: str) -> None:
    marked = [
        name for name in query_names(dialect) if SKIP_EMPTY_BRANCHES in load_query(name, dialect)
    ]
    assert "identity/lookup_papers" in marked and "identity/lookup_authors" in marked
    for name in marked:
        text = render_named(name, dialect)
        # a list per branch, each present: nothing is dropped, and the split is checked
        assert without_empty_branches(name, text, {}) == text


def test_the_pruned_look_up_answers_as_the_whole_one(
    any_store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    any_store.apply_schema()
    any_store.run(
        "CREATE (:Paper {id: 'openalex:W1', openalex_id: 'W1', doi: '10.1/a'}), "
        "(:Paper {id: 'doi:10.1/b', doi: '10.1/b'}), (:Paper {id: 'openalex:W3'})"
    )
    params = _lookup_params(
        openalex=["W1", "W3"], doi=["10.1/a", "10.1/b"],
        aliases=["openalex:W1", "openalex:W3", "doi:10.1/a", "doi:10.1/b"],
    )  # fmt: skip
    whole = render_named("identity/lookup_papers", any_store.dialect)
    expected = sorted((r["key"], r["id"]) for r in any_store.run(whole, params))
    # what run_named sends: the store's own run, seen on its way (so the pruning is wired in)
    sent: list[str] = []
    run = any_store.run

    def seen(query: str, p: Any = None) -> list[dict[str, Any]]:
        sent.append(query)
        return run(query, p)

    monkeypatch.setattr(any_store, "run", seen)
    got = sorted((r["key"], r["id"]) for r in any_store.run_named("identity/lookup_papers", params))
    assert (
        got
        == expected
        == [
            ("doi:10.1/a", "openalex:W1"),
            ("doi:10.1/b", "doi:10.1/b"),
            ("openalex:W1", "openalex:W1"),
            ("openalex:W3", "openalex:W3"),
        ]
    )
    # the openalex, doi and aliases branches only (2 + 2 + 1), and nothing sent for no list
    assert len(sent) == 1 and sent[0].count("\nUNION ALL\n") == 4
    assert any_store.run_named("identity/lookup_papers", _lookup_params()) == []
    assert len(sent) == 1


def test_rows_in_one_record_come_back_as_the_rows(
    any_store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``// rows-in-one-record`` (Neo4j sends the rows as one record, store/neo4j/store.py;
    FalkorDB reads it as a comment): the same rows, in their order, nulls kept, on both."""
    any_store.apply_schema()
    sent: list[str] = []
    if any_store.dialect == "neo4j":  # what reaches the driver: the wrapped read
        execute = any_store._execute  # type: ignore[attr-defined]  # Neo4jStore only, not GraphStore

        def seen(query: str, params: Any = None, **kw: Any) -> Any:
            sent.append(query)
            return execute(query, params, **kw)

        monkeypatch.setattr(any_store, "_execute", seen)
    any_store.run("CREATE (:Paper {id: 'p1', year: 2001}), (:Paper {id: 'p2'})")
    text = (
        "MATCH (p:Paper) RETURN p.id AS key, p.year AS year ORDER BY key DESC\n"
        "UNION ALL\n"
        "UNWIND $ids AS v RETURN v AS key, null AS year"
    )
    params = {"ids": ["x", "a"]}
    plain = any_store.run(text, params)
    marked = any_store.run("// rows-in-one-record: key, year\n" + text, params)
    assert (
        marked
        == plain
        == [
            {"key": "p2", "year": None},
            {"key": "p1", "year": 2001},
            {"key": "x", "year": None},
            {"key": "a", "year": None},
        ]
    )
    assert any_store.run("// rows-in-one-record: key, year\n" + text, {"ids": []})[:2] == plain[:2]
    if any_store.dialect == "neo4j":
        wrapped = [q for q in sent if q.startswith("CALL () {")]
        assert len(wrapped) == 2 and all(q.endswith("AS rows_in_one_record") for q in wrapped)


def test_the_one_record_form_is_opt_in() -> None:
    from scholarkg.store.neo4j.store import rows_in_one_record

    assert rows_in_one_record("MATCH (n) RETURN n.id AS id") is None
    wrapped = rows_in_one_record(
        "// rows-in-one-record: key, id\nUNWIND $v AS v RETURN v AS key, v AS id"
    )
    assert wrapped is not None and wrapped[1] == ("key", "id")
    assert wrapped[0].startswith("CALL () {\n") and wrapped[0].endswith(
        "RETURN collect([key, id]) AS rows_in_one_record"
    )
    # only a header line counts: the marker inside the statement (a string) is not one
    assert rows_in_one_record("RETURN '\n// rows-in-one-record: key' AS key") is None
    # a column list that is not plain identifiers is not taken
    assert rows_in_one_record("// rows-in-one-record: key}) RETURN 1 //\nRETURN 1 AS key") is None

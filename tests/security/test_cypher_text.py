"""How a user's Cypher is read before it is sent (``store/cypher_text.py``): every call any
server's reading shows, and the shape limits. Each trick below was checked against the live
servers when it was written: Neo4j 5.26 runs the escaped call, FalkorDB 4.16 the backtick one."""

from __future__ import annotations

import pytest

from scholarkg.store.cypher_text import (
    Call,
    QueryTooComplex,
    ShapeLimits,
    check_shape,
    decode_unicode_escapes,
    has_load_csv,
    procedure_call_count,
    read_calls,
    shape_of,
    show_mirror,
    subquery_expressions,
    tokens,
)

PROJECT = Call("function", "gds.graph.project")


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (n) RETURN gds.graph.project('g', n, null)",
        # Neo4j decodes \u escapes anywhere: an escaped dot, an escaped quote that ends the
        # string the call seems to be in, an escaped line end that ends the comment
        "RETURN gds\\u002Egraph\\u002Eproject('g', 1, null)",
        "RETURN \"a\\u0022 AS x, gds.graph.project('g', 1, null) AS y //\"",
        "RETURN 1 AS x // \\u000a, gds.graph.project('g', 1, null) AS y",
        "RETURN 1 AS x /* \\u002A/, gds.graph.project('g', 1, null) AS y /* */",
        # backticks, comments and spaces between the parts
        "RETURN `gds`.`graph`.`project`('g', 1, null)",
        "RETURN /* c */ gds /* c */ . graph . project ('g', 1, null)",
        "RETURN gds.graph.project // c\n('g', 1, null)",
        # a quote in a backtick name does not start a string
        "MATCH (`it's`) RETURN gds.graph.project('g', `it's`, null) AS `'`",
        # an odd run of backslashes: the last one escapes
        "RETURN 'a\\\\\\u0027, gds.graph.project('g', 1, null) AS y //'",
    ],
)
def test_a_call_is_found_in_every_disguise(query: str) -> None:
    assert PROJECT in read_calls(query)


@pytest.mark.parametrize(
    "query",
    [
        "RETURN 'gds.graph.project(1)' AS s",
        'RETURN "gds.graph.project(1)" AS s',
        "RETURN 1 AS x // gds.graph.project(1)",
        "RETURN 1 AS x /* gds.graph.project(1) */",
        "RETURN 'it\\'s gds.graph.project(1)' AS s",
        # an escaped backslash before u: no escape, the string goes on
        "RETURN 'a\\\\u0027 gds.graph.project(1)' AS s",
    ],
)
def test_text_in_strings_and_comments_is_no_call(query: str) -> None:
    assert read_calls(query) == set()


def test_procedures_with_and_without_parentheses_backticks_and_case() -> None:
    assert read_calls("CALL db.labels") == {Call("procedure", "db.labels")}
    assert read_calls("CALL db . labels ( ) YIELD label RETURN label") == {
        Call("procedure", "db.labels")
    }
    # FalkorDB takes one backtick name with dots as the procedure's name
    assert read_calls("CALL `db.idx.fulltext.drop`('Paper')") == {
        Call("procedure", "db.idx.fulltext.drop")
    }
    assert Call("procedure", "db.labels") in read_calls("CALL db\\u002Elabels()")
    # subqueries are no procedures
    assert read_calls("CALL { MATCH (n) RETURN n } RETURN n") == set()
    assert read_calls("MATCH (n) CALL (n) { RETURN 1 AS x } RETURN x") == set()
    union = "CALL db.labels() YIELD label RETURN label UNION "
    assert procedure_call_count(union + "CALL db.labels() YIELD label RETURN label") == 2


def test_show_commands_and_what_they_mirror() -> None:
    assert read_calls("SHOW SETTINGS") == {Call("show", "SHOW SETTINGS")}
    assert read_calls("show all functions yield name") == {Call("show", "SHOW ALL FUNCTIONS")}
    assert read_calls("SHOW TRANSACTIONS YIELD *") == {Call("show", "SHOW TRANSACTIONS")}
    assert read_calls("SHOW\\u0020SETTINGS") >= {Call("show", "SHOW SETTINGS")}
    assert show_mirror("SHOW SETTINGS") == "dbms.listConfig"
    assert show_mirror("SHOW TRANSACTIONS") == "dbms.listTransactions"
    assert show_mirror("SHOW ALL FUNCTIONS") == "dbms.functions"
    assert show_mirror("SHOW RANGE INDEXES") == "db.indexes"
    assert show_mirror("SHOW DATABASES") is None
    # a variable called show is not a command
    assert read_calls("WITH 1 AS show RETURN show") == set()


def test_load_csv_is_seen_through_comments_and_escapes() -> None:
    assert has_load_csv("LOAD /* x */ CSV FROM 'file:///etc/passwd' AS r RETURN r")
    assert has_load_csv("LOAD\\u0020CSV FROM 'file:///etc/passwd' AS r RETURN r")
    assert not has_load_csv("RETURN 'LOAD CSV' AS s")


def test_unicode_escapes_decode_as_neo4j_does() -> None:
    assert decode_unicode_escapes("RETURN 1") is None
    assert decode_unicode_escapes("a\\u0041b") == "aAb"
    assert decode_unicode_escapes("a\\\\u0041b") is None  # an escaped backslash
    assert decode_unicode_escapes("a\\\\\\u0041b") == "a\\\\Ab"


def test_unterminated_strings_and_comments_are_read_on_as_code() -> None:
    kinds = [t.kind for t in tokens("RETURN 'abc, gds.x(1)")]
    assert "string" not in kinds
    assert Call("function", "gds.x") in read_calls("RETURN 'abc, gds.x(1)")
    assert Call("function", "gds.x") in read_calls("RETURN 1 /* gds.x(1)")


@pytest.mark.parametrize(
    ("query", "depth"),
    [
        ("RETURN " + "(" * 16 + "1" + ")" * 16, 16),
        ("RETURN " + "[" * 16 + "1" + "]" * 16, 16),
        ("RETURN " + "NOT " * 16 + "true", 16),
        ("RETURN " + "- " * 16 + "1", 16),
        ("RETURN " + "CASE WHEN true THEN " * 5 + "1" + " END" * 5, 5),
        ("RETURN 1" + " + 1" * 500, 0),
        ("MATCH (a)-->(b)<-[:T]-(c) RETURN a", 2),
        ("RETURN 1 - -1 - 2", 1),
    ],
)
def test_depth_counts_what_nests_in_the_parser(query: str, depth: int) -> None:
    assert shape_of(tokens(query)).depth == depth


def test_shape_limits_refuse_with_a_clear_message() -> None:
    limits = ShapeLimits(server="the test server", max_depth=12, max_cost=250_000, max_chars=1000)
    check_shape("RETURN " + "(" * 12 + "1" + ")" * 12, limits)
    with pytest.raises(QueryTooComplex, match=r"nests 13 levels deep.*takes at most 12"):
        check_shape("RETURN " + "(" * 13 + "1" + ")" * 13, limits)
    with pytest.raises(QueryTooComplex, match="1,007 characters long"):
        check_shape("RETURN " + "1" * 1000, limits)
    many = "RETURN " + ", ".join(f"{'(' * 12}1{')' * 12} AS a{i}" for i in range(40))
    with pytest.raises(QueryTooComplex, match="too many deeply nested expressions"):
        check_shape(many, ShapeLimits(server="x", max_depth=12, max_cost=250_000))
    # the decoded reading counts too
    with pytest.raises(QueryTooComplex):
        check_shape("RETURN " + "\\u0028" * 13 + "1" + ")" * 13, limits)


def test_neo4j_subquery_expressions_are_named() -> None:
    assert subquery_expressions(
        "MATCH (n) WHERE EXISTS { MATCH (n)-->() } AND count { (n)--() } > 1 RETURN n"
    ) == ["EXISTS { }", "COUNT { }"]
    assert subquery_expressions("MATCH (n) RETURN count(n), exists(n.x)") == []

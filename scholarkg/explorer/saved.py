"""The saved queries of ``scholarkg/queries/browser/``, as the explorer lists them, and the
cross-benchmark view built from the families' declarations (``cross_benchmark_papers``).

Each file documents itself in its header: the first comment line is the title, the lines
from ``// Why:`` on say what it is for, and ``// :param name => value`` lines (Neo4j
Browser's syntax, so the file can be pasted there too) give example parameters.
"""

from __future__ import annotations

from scholarkg.errors import InputError
from scholarkg.queries.saved import (
    SavedQuery,
    browser_query_files,
    cypher_literal,
    parse_saved_query,
)

__all__ = [
    "CROSS_BENCHMARK",
    "SavedQuery",
    "cross_benchmark_query",
    "cypher_literal",
    "parse_saved_query",
    "saved_queries",
]

#: the saved query built from the families' ``reaches_papers`` declarations
CROSS_BENCHMARK = "cross_benchmark_papers"


def saved_queries() -> tuple[SavedQuery, ...]:
    """Every saved query by name: the files, and the cross-benchmark view of the families
    in the catalog now."""
    cross = parse_saved_query(CROSS_BENCHMARK, cross_benchmark_query())
    return tuple(sorted((*browser_query_files(), cross), key=lambda q: q.name))


def cross_benchmark_query() -> str:
    """The saved query ``cross_benchmark_papers``: papers several families reach, one node
    each, with a column per family (its :class:`~scholarkg.family.PaperReach`).

    Labels and relationship types come from the declarations and are checked against the
    whitelists; the only value, ``$minFamilies``, is a parameter.
    """
    from scholarkg.families import families
    from scholarkg.schema.ddl import check_label, check_rel_type

    reaches = [f.reaches_papers for f in families() if f.reaches_papers is not None]
    lists = []
    for k, reach in enumerate(reaches):
        if not reach.column.isidentifier():
            raise InputError(f"cross-view column {reach.column!r} is not an identifier")
        # one variable per comprehension: FalkorDB 4.x returns empty lists for the later
        # comprehensions of one WITH that reuse a variable name (Neo4j does not)
        var, path = f"n{k}", "(p)"
        for i, (direction, rel, label) in enumerate(reach.hops):
            label, rel = check_label(label), check_rel_type(rel)
            node = f"({var}:{label})" if i == len(reach.hops) - 1 else f"(:{label})"
            path += f"-[:{rel}]->{node}" if direction == "out" else f"<-[:{rel}]-{node}"
        lists.append(f"     [{path} | {var}.id] AS {reach.column}")
    columns = [r.column for r in reaches]
    reached = "\n     + ".join(f"CASE WHEN size({c}) > 0 THEN 1 ELSE 0 END" for c in columns)
    total = " + ".join(f"size({c})" for c in columns)
    names = ", ".join(f.title for f in families() if f.reaches_papers is not None)
    counts = ",\n       ".join(f"size({c}) AS {c}" for c in columns)
    return (
        "// Papers several benchmark families reach, one node each\n"
        f"// Why: a column per family ({names}). The id rules (arxiv:<id> > doi > s2 > ...)\n"
        "// merge a paper from every corpus into one node; `scholarkg demo` loads every family's\n"
        "// synthetic corpus into one graph to show it. Built from the families' declarations.\n"
        "// :param minFamilies => 2\n"
        "MATCH (p:Paper)\n"
        "WITH p,\n" + ",\n".join(lists) + "\n"
        f"WITH p, {', '.join(columns)},\n     {reached} AS families,\n"
        f"     {total} AS reached\n"
        "WHERE families >= $minFamilies\n"
        f"RETURN p.id AS paper, families,\n       {counts}\n"
        "ORDER BY families DESC, reached DESC, paper\nLIMIT 25\n"
    )

"""The saved queries of ``scholarkg/queries/browser/``, as the explorer lists them, and the
cross-benchmark view built from the families' declarations (``cross_benchmark_papers``).

Each file documents itself in its header: the first comment line is the title, the lines
from ``// Why:`` on say what it is for, and ``// :param name => value`` lines (Neo4j
Browser's syntax, so the file can be pasted there too) give example parameters.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from scholarkg.errors import InputError

_PARAM = re.compile(r"^//\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*$")


@dataclass(frozen=True)
class SavedQuery:
    """One ``.cypher`` file: its name (file stem), header texts, parameters and full text."""

    name: str
    title: str
    why: str
    params: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "why": self.why,
            "params": self.params,
            "text": self.text,
        }


def cypher_literal(text: str) -> Any:
    """The value of a ``:param`` line: a quoted string, else JSON (numbers, null, lists)."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1].replace("\\" + text[0], text[0])
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def parse_saved_query(name: str, text: str) -> SavedQuery:
    """Title, purpose and parameters from the ``//`` header of one saved query."""
    title = ""
    why: list[str] = []
    params: dict[str, Any] = {}
    in_why = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("//"):
            break
        m = _PARAM.match(stripped)
        if m:
            params[m.group(1)] = cypher_literal(m.group(2))
            in_why = False
            continue
        body = stripped[2:].strip()
        if not title:
            title = body
        elif body.startswith("Why:"):
            in_why = True
            why.append(body[4:].strip())
        elif in_why and body:
            why.append(body)
    return SavedQuery(
        name=name, title=title or name, why=" ".join(why), params=params, text=text.strip()
    )


#: the saved query built from the families' ``reaches_papers`` declarations
CROSS_BENCHMARK = "cross_benchmark_papers"


def saved_queries() -> tuple[SavedQuery, ...]:
    """Every saved query by name: the files, and the cross-benchmark view of the families
    in the catalog now."""
    cross = parse_saved_query(CROSS_BENCHMARK, cross_benchmark_query())
    return tuple(sorted((*_query_files(), cross), key=lambda q: q.name))


@cache
def _query_files() -> tuple[SavedQuery, ...]:
    """The ``.cypher`` files (read once per process: they ship with the package)."""
    root = resources.files("scholarkg.queries") / "browser"
    files = sorted((p for p in root.iterdir() if p.name.endswith(".cypher")), key=lambda p: p.name)
    return tuple(
        parse_saved_query(p.name.removesuffix(".cypher"), p.read_text(encoding="utf-8"))
        for p in files
    )


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

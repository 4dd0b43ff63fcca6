"""The saved exploration queries of ``queries/browser/``: their files and their headers.

Each file documents itself in its header: the first comment line is the title, the lines
from ``// Why:`` on say what it is for, and ``// :param name => value`` lines (Neo4j
Browser's syntax, so the file can be pasted there too) give example parameters; a
``// :example name => <Cypher expression>`` line says how the Neo4j Browser guide picks a
real value of that parameter from the graph it opens on (e.g. the most cited loaded work),
where the literal example names no node of the user's graph. Two readers
list them: ``scholarkg explore`` (``explorer/saved.py``, which adds a view built from the
families) and the managed Neo4j's Browser guide (``store/neo4j/browser_guide.py``), so the
parsing lives here, below both.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

_PARAM = re.compile(r"^//\s*:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*$")
_EXAMPLE = re.compile(r"^//\s*:example\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?)\s*$")


@dataclass(frozen=True)
class SavedQuery:
    """One ``.cypher`` file: its name (file stem), header texts, parameters and full text."""

    name: str
    title: str
    why: str
    params: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    #: parameter -> a Cypher expression (Neo4j) picking a real value from the graph
    examples: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "why": self.why,
            "params": self.params,
            "text": self.text,
            "examples": self.examples,
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
    examples: dict[str, str] = {}
    in_why = False
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("//"):
            break
        e = _EXAMPLE.match(stripped)
        if e:
            examples[e.group(1)] = e.group(2)
            in_why = False
            continue
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
        name=name,
        title=title or name,
        why=" ".join(why),
        params=params,
        text=text.strip(),
        examples=examples,
    )


@cache
def browser_query_files() -> tuple[SavedQuery, ...]:
    """The ``.cypher`` files (read once per process: they ship with the package)."""
    root = resources.files("scholarkg.queries") / "browser"
    files = sorted((p for p in root.iterdir() if p.name.endswith(".cypher")), key=lambda p: p.name)
    return tuple(
        parse_saved_query(p.name.removesuffix(".cypher"), p.read_text(encoding="utf-8"))
        for p in files
    )

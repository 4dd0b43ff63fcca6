"""The drawing of the package's import graph on the Architecture page, made from the code.

``python tests/core/test_import_drawing.py`` prints it; the test below fails when the page's
copy (between the ``import-drawing`` markers in docs/architecture.md) differs from what the
code draws, or when the graph has a circle or an arrow running back up. Imports inside
functions and under ``TYPE_CHECKING`` count: a type is a dependency too.

A box of the drawing is a folder or a module, as the layer table names them, with the shared
parts of a folder apart from its sub-folders (``store/*.py`` beside ``store/falkordb/``, and
``store/__init__.py``, which opens either backend, above both). Boxes are listed from the top
layer down (:data:`test_layering.LAYERS`), and inside a layer each box above those it
imports; each box lists the boxes it imports that it does not already reach through another
(the graph's transitive reduction), so the drawing stays readable. Every arrow points to a
box further down: that is the check.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

# a sibling: on the path under pytest (tests/core) and when run as a script (its folder)
from test_layering import PACKAGE, import_graph, layer_of

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs/architecture.md"
BEGIN = "<!-- import-drawing: begin (python tests/core/test_import_drawing.py) -->"
END = "<!-- import-drawing: end -->"
#: folders drawn as boxes of their own inside their parent's
SPLIT = {
    "scholarkg.store": ("falkordb", "neo4j"),
    "scholarkg.benchmark": ("metrics", "rankers", "tasks"),
}
#: a split folder whose ``__init__.py`` is a box of its own: it imports the sub-folders
INIT_APART = frozenset({"scholarkg.store"})


def box(module: str) -> str:
    """The box ``module`` is drawn in: its folder (``loaders/``), its module at the top
    (``cli.py``), a split folder's part (``store/*.py``, ``store/__init__.py``,
    ``store/falkordb/``), or a family's package (``benchmark/tasks/aaar/``)."""
    parts = module.split(".")
    if module == "scholarkg":
        return "scholarkg/__init__.py"
    if parts[1:3] == ["benchmark", "tasks"]:
        if len(parts) == 3 or parts[3] in ("llm_run", "predictions"):
            return "benchmark/tasks/*.py"
        return f"benchmark/tasks/{parts[3]}/"
    parent = ".".join(parts[:2])
    if parent in SPLIT:
        folder = parts[1]
        if len(parts) == 2:
            return f"{folder}/__init__.py" if parent in INIT_APART else f"{folder}/*.py"
        if parts[2] in SPLIT[parent]:
            return f"{folder}/{parts[2]}/"
        return f"{folder}/*.py"
    return f"{parts[1]}/" if (PACKAGE / parts[1]).is_dir() else f"{parts[1]}.py"


def box_graph(package: Path = PACKAGE) -> tuple[dict[str, set[str]], dict[str, int]]:
    """``({box: boxes it imports}, {box: layer rank})`` over every import of the package."""
    graph: dict[str, set[str]] = {}
    ranks: dict[str, int] = {}
    for module, edges in import_graph(package).items():
        src = box(module)
        graph.setdefault(src, set())
        rank = layer_of(module)
        ranks[src] = max(ranks.get(src, -2), -1 if rank is None else rank)
        for target in edges:
            if target.startswith("scholarkg") and box(target) != src:
                graph[src].add(box(target))
    return graph, ranks


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return seen


def circles(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Each arrow ``a -> b`` from which ``a`` can be reached again."""
    return sorted((a, b) for a in graph for b in graph[a] if a in _reach(graph, b) | {b})


def order(graph: dict[str, set[str]], ranks: dict[str, int]) -> list[str]:
    """Boxes from the top layer down; inside a layer, a box before the boxes it reaches."""

    def height(node: str, seen: frozenset[str] = frozenset()) -> int:
        same = [t for t in graph[node] if ranks[t] == ranks[node] and t not in seen]
        return 1 + max((height(t, seen | {node}) for t in same), default=0)

    return sorted(graph, key=lambda n: (-ranks[n], -height(n), n))


def arrows_up(graph: dict[str, set[str]], listed: list[str]) -> list[str]:
    """``a -> b`` for each arrow to a box listed above ``a`` (or at ``a``)."""
    where = {name: i for i, name in enumerate(listed)}
    return sorted(f"{a} -> {b}" for a in graph for b in graph[a] if where[b] <= where[a])


def reduced(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The arrows not implied by a longer path (the transitive reduction of a DAG)."""
    out = {}
    for a, targets in graph.items():
        implied = set().union(*(_reach(graph, t) for t in targets)) if targets else set()
        out[a] = {t for t in targets if t not in implied}
    return out


def _names(boxes: Iterable[str], listed: list[str]) -> str:
    where = {name: i for i, name in enumerate(listed)}
    return ", ".join(sorted(boxes, key=where.__getitem__)) or "(nothing of scholarkg)"


def drawing(package: Path = PACKAGE) -> str:
    """The text drawing: one line per box, ``box  ──▶ what it imports``, a rule between
    layers."""
    graph, ranks = box_graph(package)
    listed = order(graph, ranks)
    short = reduced(graph)
    width = max(len(n) for n in listed) + 2
    lines: list[str] = []
    for i, name in enumerate(listed):
        if i and ranks[listed[i - 1]] != ranks[name]:
            lines.append("  " + "─" * 96)
        lines.append(f"  {name:<{width}}──▶ {_names(short[name], listed)}")
    return "\n".join(lines) + "\n"


def documented() -> str:
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
    block = text[start:end].strip("\n")
    assert block.startswith("```text\n") and block.endswith("\n```"), "a text block"
    return block[len("```text\n") : -len("```")]


def test_the_import_graph_has_no_circle_and_no_arrow_up() -> None:
    graph, ranks = box_graph()
    assert circles(graph) == []
    assert arrows_up(graph, order(graph, ranks)) == []


def test_the_architecture_page_shows_the_drawing_of_the_code() -> None:
    assert documented() == drawing(), (
        "docs/architecture.md's import drawing is stale: "
        "python tests/core/test_import_drawing.py --write"
    )


def test_the_checks_see_a_circle_and_an_arrow_up() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}
    assert circles(graph) == [("a", "b"), ("b", "c"), ("c", "a")]
    assert arrows_up({"a": {"b"}, "b": {"a"}}, ["a", "b"]) == ["b -> a"]
    chain: dict[str, set[str]] = {"a": {"b", "c"}, "b": {"c"}, "c": set()}
    assert reduced(chain) == {"a": {"b"}, "b": {"c"}, "c": set()}


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        text = DOC.read_text(encoding="utf-8")
        start, end = text.index(BEGIN) + len(BEGIN), text.index(END)
        DOC.write_text(text[:start] + "\n```text\n" + drawing() + "```\n" + text[end:])
    else:
        print(drawing(), end="")

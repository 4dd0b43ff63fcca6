"""The package's layering: the CLI is a thin face over the library, never a dependency of it.

``scholarkg/commands/`` and ``scholarkg/cli.py`` parse options and print; everything else
(library, demo, explorer, benchmarks' tasks) must work without them, so no module outside
those imports from ``scholarkg.commands`` or ``scholarkg.cli`` (CONTRIBUTING: "Nothing imports
cli.py"). An AST walk, so imports inside functions count too.

The other layers, lowest first (:data:`LAYERS`): a module imports its own layer and those below,
never one above, with no exceptions list:

* base (``errors``, ``textio``, ``textnorm``, ``config``, ``codegraph``, ``console``,
  ``interrupts``), then
  ``schema`` (the graph model as data: it imports nothing above it; the families' catalog
  registers their schema parts with the DDL), then the families' declarations and catalog
  (``family``, ``families``), then the named Cypher files (``queries``: files and dialect
  names, nothing of a store), then ``store``, which runs them;
* over the store: ``loaders``, ``graphalgo``, ``leaderboards``, ``services``; then
  ``synthetic`` (corpora in the real formats, read back by the loaders);
* ``benchmark`` (task interface, runner, runs, rankers, metrics), then ``recommend`` (suggest
  and related: the benchmark's rankers fitted on the user's graph), then the families'
  packages ``benchmark/tasks`` (their demo steps get a ``DemoContext`` and never import the
  demo);
* ``explorer`` and ``demo``, then the CLI (``commands``, ``cli``);
* ``benchmark/metrics`` are pure functions besides: they import only each other and
  ``errors``, ``textio``, ``textnorm``, ``codegraph``, so a metric can be checked by hand on
  plain data; ``benchmark/rankers`` import only each other, ``errors``, the metrics, and of
  the layers below the store protocol (``store.base``), the schema whitelists
  (``schema.ddl``), the embedding service (``services.embeddings``) and the PageRank scores
  of ``graphalgo.topk`` (:data:`ALLOWED`);
* the families are siblings: a module of one family's package (``benchmark/tasks/<family>/``)
  never imports another family's package, only the modules ``benchmark/tasks`` shares
  (``llm_run``, ``predictions``), so a family can be read, moved or dropped alone; the same
  holds for the modules its ``FAMILY`` names outside the package (schema records, synthetic
  corpus, load commands);
* no import cycle between any two modules, imports under ``if TYPE_CHECKING:`` included: they
  never run, but a type is a dependency too, and a cycle through one is a pair of modules
  that cannot be read, tested or moved apart (``benchmark/outputs`` and ``benchmark/task``
  were one until their value types moved to ``benchmark/results``).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

import scholarkg

PACKAGE = Path(scholarkg.__file__).resolve().parent
CLI_LAYER = ("scholarkg.commands", "scholarkg.cli")


def _module_name(path: Path, package: Path) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """``(line, absolute module)`` of every import in ``tree``, relative ones resolved."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module if is_package else module.rpartition(".")[0]
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            # the module itself, or (``from scholarkg import commands``) a name it imports
            names = [base, *(f"{base}.{alias.name}" for alias in node.names)]
            found.append((node.lineno, next((n for n in names if _in_cli_layer(n)), base)))
    return found


@functools.cache
def parsed(path: Path) -> ast.Module:
    """``path``'s syntax tree, parsed once per process: the checks here walk every module of
    the package (~1.7 s a parse of it all), and callers only read the trees."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _in_cli_layer(name: str) -> bool:
    return any(name == top or name.startswith(top + ".") for top in CLI_LAYER)


def cli_layer_imports(package: Path) -> list[str]:
    """``path:line imports module`` for each library module that imports the CLI layer."""
    offenders = []
    for path in sorted(package.rglob("*.py")):
        module = _module_name(path, package)
        if _in_cli_layer(module):
            continue
        tree = parsed(path)
        for line, name in _imported(tree, module, path.name == "__init__.py"):
            if _in_cli_layer(name):
                offenders.append(f"{path.relative_to(package.parent)}:{line} imports {name}")
    return sorted(set(offenders))


def test_no_library_module_imports_the_cli_layer() -> None:
    assert cli_layer_imports(PACKAGE) == []


def test_the_walk_finds_such_imports(tmp_path: Path) -> None:
    """The check itself catches the forms an offender could take (else the test above
    would pass vacuously)."""
    pkg = tmp_path / "scholarkg"
    (pkg / "commands").mkdir(parents=True)
    (pkg / "explorer").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "commands" / "__init__.py").write_text("")
    (pkg / "commands" / "load.py").write_text("from scholarkg.commands.common import x\n")
    (pkg / "cli.py").write_text("import scholarkg.commands.load\n")
    (pkg / "explorer" / "__init__.py").write_text("")
    (pkg / "explorer" / "app.py").write_text(
        "def f():\n    from scholarkg.commands.leaderboard import list_leaderboards\n"
        "from ..commands import load\n"
        "from scholarkg import cli\n"
    )
    (pkg / "demo.py").write_text(
        "import scholarkg.commands.load as load\nimport scholarkg.config\n"
    )
    assert cli_layer_imports(pkg) == [
        "scholarkg/demo.py:1 imports scholarkg.commands.load",
        "scholarkg/explorer/app.py:2 imports scholarkg.commands.leaderboard",
        "scholarkg/explorer/app.py:3 imports scholarkg.commands",
        "scholarkg/explorer/app.py:4 imports scholarkg.cli",
    ]


# --------------------------------------------------------------------------- the module graph

#: The layers, lowest first. A module may import its own layer and the ones below it, never
#: one above (imports inside functions and under TYPE_CHECKING count); every module of the
#: package belongs to one layer (the longest prefix below that names it). No exceptions.
LAYERS: tuple[tuple[str, ...], ...] = (
    # base: no scholarkg imports beyond each other (console: rich output, no loads or stores)
    ("scholarkg.errors", "scholarkg.textio", "scholarkg.textnorm", "scholarkg.config",
     "scholarkg.codegraph", "scholarkg.console", "scholarkg.interrupts"),
    # the graph model as data: records, ids, labels and the DDL
    ("scholarkg.schema",),
    # the families' declarations and their catalog (registers their schema parts)
    ("scholarkg.family", "scholarkg.families"),
    # the named Cypher, as files in their dialect variants (nothing of the stores)
    ("scholarkg.queries",),
    # the databases: they run the named Cypher
    ("scholarkg.store",),
    # what builds on a store: loading files, graph algorithms, leaderboards, models
    ("scholarkg.loaders", "scholarkg.graphalgo", "scholarkg.leaderboards", "scholarkg.services"),
    # synthetic corpora, written in the real formats and read back by the loaders
    ("scholarkg.synthetic",),
    # the task interface, runner, runs, rankers and metrics every family uses
    ("scholarkg.benchmark",),
    # citation recommendation on the user's graph (suggest, related): the benchmark's
    # rankers and fusion fitted on the loaded graph
    ("scholarkg.recommend",),
    # the families' tasks, loaders glue and demo steps
    ("scholarkg.benchmark.tasks",),
    # applications over the library: the explorer and the demo
    ("scholarkg.explorer", "scholarkg.demo"),
    # the command line
    ("scholarkg.commands", "scholarkg.cli"),
)  # fmt: skip
#: layer -> the only scholarkg modules it may import (besides itself): stricter than its rank
ALLOWED: dict[str, tuple[str, ...]] = {
    "scholarkg.benchmark.metrics": (
        "scholarkg.errors", "scholarkg.textio", "scholarkg.textnorm", "scholarkg.codegraph",
    ),
    # the rankers: text on plain data, the graph through the store protocol; what else they
    # may reach is named one module at a time (docs/architecture.md says the same)
    "scholarkg.benchmark.rankers": (
        "scholarkg.errors", "scholarkg.benchmark.metrics", "scholarkg.store.base",
        "scholarkg.schema.ddl", "scholarkg.services.embeddings", "scholarkg.graphalgo.topk",
    ),
}  # fmt: skip


def layer_of(module: str) -> int | None:
    """The rank of ``module``'s layer (0 = lowest); ``None`` for a module in no layer. The
    package root (``__version__``) is below everything."""
    if module == "scholarkg":
        return -1
    best: tuple[int, int] | None = None  # (prefix length, rank)
    for rank, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if _under(module, prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), rank)
    return None if best is None else best[1]


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _type_checking_blocks(tree: ast.AST) -> set[int]:
    """ids of import nodes inside ``if TYPE_CHECKING:`` (they never run)."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and (
            (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
            or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
        ):
            for stmt in node.body:
                skipped.update(id(n) for n in ast.walk(stmt))
    return skipped


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> Iterator[str]:
    """Absolute names an import statement reaches: ``from pkg import sub`` is ``pkg.sub``."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    base = node.module or ""
    if node.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}" if base else package
    for alias in node.names:
        yield f"{base}.{alias.name}"


@functools.cache
def import_graph(package: Path) -> dict[str, dict[str, tuple[int, bool]]]:
    """``{module: {imported module: (line, under TYPE_CHECKING)}}`` for every module of the
    package, imports inside functions included; names resolve to the longest existing module
    (``from scholarkg.store.base import GraphStore`` is ``scholarkg.store.base``). Built once
    per package and shared by the checks below (callers must not change it)."""
    files = {_module_name(p, package): p for p in sorted(package.rglob("*.py"))}
    graph: dict[str, dict[str, tuple[int, bool]]] = {}
    for module, path in files.items():
        tree = parsed(path)
        typing_only = _type_checking_blocks(tree)
        edges: dict[str, tuple[int, bool]] = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in _targets(node, module, path.name == "__init__.py"):
                while name and name not in files:
                    name = name.rpartition(".")[0]
                if name and name != module:
                    runs = id(node) not in typing_only
                    old = edges.get(name)
                    if old is None or (runs and old[1]):  # keep the first line that runs
                        edges[name] = (node.lineno, not runs)
        graph[module] = edges
    return graph


def layer_violations(package: Path) -> list[str]:
    """``module:line imports other`` for each import reaching a higher layer (or, for the
    layers in :data:`ALLOWED`, anything not allowed), and each module in no layer."""
    out = []
    for module, edges in import_graph(package).items():
        rank = layer_of(module)
        if rank is None:
            out.append(f"{module} is in no layer (add it to LAYERS)")
            continue
        for target, (line, _typing) in edges.items():
            if not _under(target, "scholarkg"):
                continue
            target_rank = layer_of(target)
            if target_rank is not None and target_rank > rank:
                out.append(f"{module}:{line} imports {target} (a higher layer)")
            for layer, allowed in ALLOWED.items():
                ok = target == "scholarkg" or any(_under(target, a) for a in (layer, *allowed))
                if _under(module, layer) and not ok:
                    out.append(f"{module}:{line} imports {target} (layer {layer})")
    return sorted(out)


def import_cycles(package: Path) -> list[list[str]]:
    """Every strongly connected set of modules (Tarjan), each as one cycle through it, so the
    failure message shows a path to cut: ``a -> b -> c -> a``."""
    graph = {m: sorted(edges) for m, edges in import_graph(package).items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def strongconnect(v: str) -> None:  # recursion depth = longest import chain (small)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strongconnect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                components.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strongconnect(v)
    return [_cycle_through(graph, comp) for comp in sorted(components)]


def _cycle_through(graph: dict[str, list[str]], component: list[str]) -> list[str]:
    """A shortest cycle from the component's first module back to itself (BFS inside it)."""
    start, members = component[0], set(component)
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in graph[v]:
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return [*reversed(path), start]
                if w in members and w not in parent:
                    parent[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"no cycle in component {component}")  # Tarjan guarantees one


def test_layers_hold() -> None:
    assert layer_violations(PACKAGE) == []


RANKERS = "scholarkg.benchmark.rankers"


def test_the_rankers_list_is_what_they_import_and_what_the_page_says() -> None:
    """:data:`ALLOWED`'s list for the rankers is the code's (every module on it is imported:
    the list is not a wish) and docs/architecture.md's (its ``benchmark/`` paragraph names
    each, as ``store.base`` is named), so the page's sentence cannot drift from the code."""
    allowed = ALLOWED[RANKERS]
    reached = {
        target
        for module, edges in import_graph(PACKAGE).items()
        if _under(module, RANKERS)
        for target in edges
        if _under(target, "scholarkg") and not _under(target, RANKERS)
    }
    assert [a for a in allowed if not any(_under(t, a) for t in reached)] == []
    page = (PACKAGE.parent / "docs/architecture.md").read_text(encoding="utf-8")
    paragraph = page[page.index("**`benchmark/`**") : page.index("**`recommend/`**")]
    named = [a.removeprefix("scholarkg.") for a in allowed]
    assert [n for n in named if f"`{n}`" not in paragraph] == []


FAMILIES_ROOT = "scholarkg.benchmark.tasks"


def family_crossings(package: Path) -> list[str]:
    """``module:line imports other (family F)`` for each import from one family's package
    (``benchmark/tasks/<F>/``) into another's: the declared rule below, each family owning
    its package."""
    root = package / "benchmark" / "tasks"
    owned = {
        d.name: {f"{FAMILIES_ROOT}.{d.name}"}
        for d in root.iterdir()
        if (d / "__init__.py").is_file()
    }
    return declared_crossings(package, owned)


def test_no_family_imports_another() -> None:
    assert family_crossings(PACKAGE) == []


def declared_modules() -> dict[str, set[str]]:
    """family -> the modules its ``FAMILY`` names outside its package: its schema records
    (unless they are the core's, ``schema/records.py``), its synthetic corpus and its load
    commands' modules. A family's records, corpus and load commands are as much its own as
    its package is (``schema/retrieval.py`` is the retrieval family's, ``schema/citerec.py``
    citation recommendation's)."""
    from scholarkg.families import families
    from scholarkg.schema.ddl import CORE

    out: dict[str, set[str]] = {}
    for fam in families():
        own = {fam.package} if fam.package else set()
        if fam.schema.records and fam.schema.records != CORE.records:
            own.add(fam.schema.records)
        if fam.synthetic:
            own.add(fam.synthetic)
        own |= {ref.partition(":")[0] for ref in fam.load_commands.values()}
        out[fam.name] = own
    return out


def declared_crossings(package: Path, owned: dict[str, set[str]]) -> list[str]:
    """``module:line imports other`` for each import from a module one family owns
    (``owned``: family -> module prefixes) into a module another family owns."""

    def owner(module: str) -> str | None:
        return next((f for f, mods in owned.items() if any(_under(module, m) for m in mods)), None)

    out = []
    for module, edges in import_graph(package).items():
        own = owner(module)
        if own is None:
            continue
        for target, (line, _typing) in edges.items():
            other = owner(target)
            if other is not None and other != own:
                out.append(f"{module}:{line} imports {target} (family {other})")
    return sorted(out)


def test_no_family_module_imports_another_familys() -> None:
    """The sibling rule over every module a family declares, not only its package: the
    retrieval family's records, loader command and synthetic collection import nothing of
    citation recommendation's (the citation world they share is ``synthetic/citation_world``,
    no family's), and so for every pair."""
    owned = declared_modules()
    assert owned["retrieval"] >= {"scholarkg.schema.retrieval", "scholarkg.synthetic.beir"}
    assert declared_crossings(PACKAGE, owned) == []


def test_the_declared_rule_catches_a_crossing(tmp_path: Path) -> None:
    pkg = _write_package(
        tmp_path,
        {
            "scholarkg/__init__.py": "",
            "scholarkg/schema/__init__.py": "",
            "scholarkg/schema/records.py": "",
            "scholarkg/schema/citerec.py": "from scholarkg.schema import records\n",
            "scholarkg/synthetic/__init__.py": "",
            "scholarkg/synthetic/world.py": "",
            "scholarkg/synthetic/beir.py": (
                "from scholarkg.synthetic import world\n"
                "def f():\n    from scholarkg.schema.citerec import Gold\n"
            ),
        },
    )
    owned = {
        "citerec": {"scholarkg.schema.citerec"},
        "retrieval": {"scholarkg.synthetic.beir"},
    }
    assert declared_crossings(pkg, owned) == [
        "scholarkg.synthetic.beir:3 imports scholarkg.schema.citerec (family citerec)"
    ]


def test_the_family_rule_catches_a_crossing(tmp_path: Path) -> None:
    """A function-level import of a sibling family is caught; the shared modules are not."""
    pkg = _write_package(
        tmp_path,
        {
            "scholarkg/__init__.py": "",
            "scholarkg/benchmark/__init__.py": "",
            "scholarkg/benchmark/tasks/__init__.py": "",
            "scholarkg/benchmark/tasks/predictions.py": "",
            "scholarkg/benchmark/tasks/citerec/__init__.py": "",
            "scholarkg/benchmark/tasks/citerec/querytext.py": "",
            "scholarkg/benchmark/tasks/retrieval/__init__.py": "",
            "scholarkg/benchmark/tasks/retrieval/task.py": (
                "from scholarkg.benchmark.tasks import predictions\n"
                "def f():\n    from scholarkg.benchmark.tasks.citerec.querytext import q\n"
            ),
        },
    )
    assert family_crossings(pkg) == [
        "scholarkg.benchmark.tasks.retrieval.task:3 imports "
        "scholarkg.benchmark.tasks.citerec.querytext (family citerec)"
    ]


BACKENDS = ("scholarkg.store.falkordb", "scholarkg.store.neo4j")


def backend_crossings(package: Path) -> list[str]:
    """``module:line imports other`` for each import from one backend's folder into the
    other's: what both share lives in ``store/`` itself (``process``, ``bulk_files``,
    ``batch_writes``, ``cypher_common``...), so a backend can be read, changed or dropped
    alone."""
    out = []
    for module, edges in import_graph(package).items():
        own = next((b for b in BACKENDS if _under(module, b)), None)
        if own is None:
            continue
        for target, (line, _typing) in edges.items():
            other = next((b for b in BACKENDS if _under(target, b)), None)
            if other is not None and other != own:
                out.append(f"{module}:{line} imports {target}")
    return sorted(out)


def test_no_backend_imports_the_other() -> None:
    assert backend_crossings(PACKAGE) == []


def test_the_backend_rule_catches_a_crossing(tmp_path: Path) -> None:
    pkg = _write_package(
        tmp_path,
        {
            "scholarkg/__init__.py": "",
            "scholarkg/store/__init__.py": "",
            "scholarkg/store/process.py": "",
            "scholarkg/store/falkordb/__init__.py": "",
            "scholarkg/store/falkordb/bulk.py": "",
            "scholarkg/store/neo4j/__init__.py": "",
            "scholarkg/store/neo4j/importer.py": (
                "from scholarkg.store import process\n"
                "def f():\n    from scholarkg.store.falkordb.bulk import x\n"
            ),
        },
    )
    assert backend_crossings(pkg) == [
        "scholarkg.store.neo4j.importer:3 imports scholarkg.store.falkordb.bulk"
    ]


def assert_no_cycles(package: Path) -> None:
    cycles = import_cycles(package)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_import_cycle() -> None:
    assert_no_cycles(PACKAGE)


def _write_package(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "scholarkg"


def test_the_layer_rules_catch_offenders(tmp_path: Path) -> None:
    """Each rule fires on the forms an offender takes: a function-level import, a relative
    one, ``from pkg import submodule``, and a type-only import."""
    pkg = _write_package(
        tmp_path,
        {
            "scholarkg/__init__.py": "",
            "scholarkg/errors.py": "",
            "scholarkg/benchmark/__init__.py": "",
            "scholarkg/benchmark/metrics/__init__.py": "",
            "scholarkg/benchmark/metrics/ir.py": "from scholarkg.errors import InputError\n",
            "scholarkg/benchmark/metrics/bad.py": (
                "from scholarkg.benchmark.metrics import ir\n"
                "def f():\n    from scholarkg.store import base\n"
            ),
            "scholarkg/store/__init__.py": "",
            "scholarkg/store/base.py": "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n    from scholarkg.graphalgo import projection\n",
            "scholarkg/graphalgo/__init__.py": "",
            "scholarkg/graphalgo/projection.py": "",
            "scholarkg/loaders/__init__.py": "",
            "scholarkg/loaders/x.py": "from ..benchmark.metrics import ir\n",
            "scholarkg/schema/__init__.py": "",
            "scholarkg/schema/ddl.py": "def f():\n    from scholarkg.families import families\n",
            "scholarkg/families.py": "",
            "scholarkg/newthing.py": "",
        },
    )
    assert layer_violations(pkg) == [
        "scholarkg.benchmark.metrics.bad:3 imports scholarkg.store.base "
        "(layer scholarkg.benchmark.metrics)",
        "scholarkg.loaders.x:1 imports scholarkg.benchmark.metrics.ir (a higher layer)",
        "scholarkg.newthing is in no layer (add it to LAYERS)",
        "scholarkg.schema.ddl:2 imports scholarkg.families (a higher layer)",
        "scholarkg.store.base:3 imports scholarkg.graphalgo.projection (a higher layer)",
    ]


def test_the_cycle_check_prints_the_cycle(tmp_path: Path) -> None:
    """A cycle closed by a function-level import is found and printed as a path; so is a cycle
    closed under ``TYPE_CHECKING``."""
    pkg = _write_package(
        tmp_path,
        {
            "scholarkg/__init__.py": "",
            "scholarkg/a.py": "from scholarkg import b\n",
            "scholarkg/b.py": "def f():\n    from scholarkg.c import x\n",
            "scholarkg/c.py": "import scholarkg.a\nx = 1\n",
            "scholarkg/d.py": "from typing import TYPE_CHECKING\nimport scholarkg.e\n",
            "scholarkg/e.py": "import typing\nif typing.TYPE_CHECKING:\n    import scholarkg.d\n",
        },
    )
    assert import_cycles(pkg) == [
        ["scholarkg.a", "scholarkg.b", "scholarkg.c", "scholarkg.a"],
        ["scholarkg.d", "scholarkg.e", "scholarkg.d"],
    ]
    with pytest.raises(AssertionError, match=r"scholarkg\.a -> scholarkg\.b -> scholarkg\.c"):
        assert_no_cycles(pkg)

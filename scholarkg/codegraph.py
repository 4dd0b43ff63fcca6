"""SciReplicate-Bench reasoning graphs, built from step-annotated code with Python's ``ast``.

A base-layer module (standard library only): the SciReplicate loader builds each reference
graph when it loads ``Data.json`` and the metric
(:mod:`scholarkg.benchmark.metrics.code_graph`) scores generated graphs against them, and
loaders may not import the benchmark package, so the parser lives below both.

A generated (or reference) function body is annotated with reasoning steps::

    # ---------------------------------------------------------------
    # Snippet 1: scale the input
    # ---------------------------------------------------------------
    # [Begin Snippet 1]
    y = x * 2
    # [End Snippet 1]

Each step becomes a node with a *significance* (a complexity count of its code) and data-flow
edges link step S to step T when T reads a variable whose last definition happened in S. The
released scorer (``xyzCS/SciReplicate-Bench``, ``utils/Reason_Process_ACC.py``) then compares a
generated graph to the reference graph given a node matching (an LLM judge's answer, or an
offline embedding match); see
:func:`scholarkg.benchmark.metrics.code_graph.reasoning_graph_score`.

What follows the released code exactly (``xyzCS/SciReplicate-Bench:utils/Reason_Process_ACC.py``;
the paper, Xiang et al., arXiv 2504.00255, states the metric as its Eq. 1):
the marker regexes, the Begin-without-End rule (the step ends before the next ``# ---`` line,
and only when a later Begin marker exists), the step text (comment lines after a delimiter,
text after the first ``:``), the complexity counts and score, the data-flow visitor, judge
parsing, path-based edge matching with ``ga != gb``, ``S = (min(1, N) + min(1, E)) / 2`` and
``E = 1`` for an edge-less reference.

What differs, on purpose: upstream asks an LLM (o3-mini) to repair snippets that ``ast`` cannot
parse on their own (8 of 475 reference snippets); we instead count the nodes of the
whole-function AST whose ``lineno`` lies in the snippet (``StepStats.from_whole_function``),
equal to upstream on 456 of 467 parseable snippets. Code whose whole function does not parse
gets ``parse_error`` set and scores 0 -- no LLM repair.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from scholarkg.errors import InputError

BEGIN_RE = re.compile(r"#\s*\[Begin\s+Snippet\s+(\d+)\]", re.IGNORECASE)
END_RE = re.compile(r"#\s*\[End\s+Snippet\s+(\d+)\]", re.IGNORECASE)
DELIMITER_RE = re.compile(r"#\s*-+\s*", re.IGNORECASE)
_DELIMITER_LINE_RE = re.compile(r"^\s*#\s*-+\s*$")
_MARKER_TEXT_RE = re.compile(r"^\[(Begin|End)\s+Snippet\s+\d+\]$")
#: method calls that count as (re)defining their receiver in the data-flow analysis
MUTATORS = frozenset({"append", "extend", "pop", "remove", "insert", "update", "clear"})


@dataclass(frozen=True)
class StepStats:
    """The released complexity counts of one step's code.

    lines L, distinct defined names Vd, distinct used names Vu, Vt = |Vd u Vu|, calls C,
    operations O (BinOp, AugAssign, If, For, While, Try, FunctionDef, ClassDef);
    ``score = round(0.3 O + 0.2 C + 0.1 Vt + 0.05 L, 2)``;
    ``total = L + Vd + Vu + Vt + C + O + score`` is the node's unnormalised significance.
    """

    lines: int
    defined: int
    used: int
    variables: int
    calls: int
    operations: int
    score: float
    total: float
    fallback: bool = False  # counted on the whole-function AST (snippet did not parse alone)


class _ComplexityVisitor(ast.NodeVisitor):
    """Mirror of the released ``CodeComplexityAnalyzer``, optionally restricted to line range."""

    def __init__(self, lines: range | None = None) -> None:
        self.lines = lines
        self.defined: set[str] = set()
        self.used: set[str] = set()
        self.calls = 0
        self.operations = 0

    def _in(self, node: ast.AST) -> bool:
        return self.lines is None or getattr(node, "lineno", -1) in self.lines

    def _targets(self, node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            self.defined.add(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for elt in node.elts:
                self._targets(elt)
        elif isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.value, ast.Name):
            self.used.add(node.value.id)

    def visit_Assign(self, node: ast.Assign) -> None:
        if self._in(node):
            for target in node.targets:
                self._targets(target)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        if self._in(node):
            self.operations += 1
            self._targets(node.target)
            if isinstance(node.target, ast.Name):
                self.used.add(node.target.id)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and self._in(node):
            self.used.add(node.id)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if self._in(node):
            self.calls += 1
        self.generic_visit(node)

    def _operation(self, node: ast.AST) -> None:
        if self._in(node):
            self.operations += 1
        self.generic_visit(node)

    visit_BinOp = _operation
    visit_If = _operation
    visit_For = _operation
    visit_While = _operation
    visit_Try = _operation
    visit_FunctionDef = _operation
    visit_ClassDef = _operation

    def stats(self, n_lines: int, *, fallback: bool) -> StepStats:
        variables = len(self.defined | self.used)
        score = round(
            self.operations * 0.3 + self.calls * 0.2 + variables * 0.1 + n_lines * 0.05, 2
        )
        total = (
            n_lines
            + len(self.defined)
            + len(self.used)
            + variables
            + self.calls
            + self.operations
            + score
        )
        return StepStats(
            n_lines,
            len(self.defined),
            len(self.used),
            variables,
            self.calls,
            self.operations,
            score,
            total,
            fallback,
        )


@dataclass(frozen=True)
class ReasoningStep:
    """One annotated step: ``snippet`` is its ``Snippet k`` number; lines are 1-based inclusive."""

    snippet: int
    start: int
    end: int
    text: str
    stats: StepStats | None


@dataclass(frozen=True)
class ReasoningGraph:
    """Steps in the released boundary order, data-flow edges as ``(from, to)`` snippet numbers.

    ``parse_error`` is set when the whole code does not parse: edges are then empty and the
    graph scores 0 as a generated answer (and is rejected as a reference).
    """

    steps: list[ReasoningStep]
    edges: frozenset[tuple[int, int]]
    parse_error: str | None = None
    #: snippet numbers in first-Begin order: the order the released prompt lists the steps in
    prompt_order: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.prompt_order:
            self.prompt_order.extend(s.snippet for s in self.steps)

    @cached_property
    def by_snippet(self) -> dict[int, ReasoningStep]:
        """Steps by snippet number (derived from :attr:`steps`, never passed in)."""
        return {s.snippet: s for s in self.steps}

    @property
    def texts(self) -> list[str]:
        """Step descriptions as listed to the judge (``Ref i.`` / ``Gen j.``), first-Begin order.

        This equals :attr:`steps` order unless a step was recovered by the Begin-without-End
        rule (its boundary is found last), as in one released task.
        """
        return [self.by_snippet[k].text for k in self.prompt_order]

    def weights(self) -> dict[int, float]:
        """Normalised node significance ``w(s) = total(s) / sum of totals`` per snippet number.

        Empty when the totals sum to 0 (the scorer then returns 0).
        """
        totals = {s.snippet: s.stats.total for s in self.steps if s.stats is not None}
        norm = sum(totals.values())
        return {k: v / norm for k, v in totals.items()} if norm else {}

    def edge_weights(self) -> dict[tuple[int, int], float]:
        """``ew(a->b) = w(a) w(b) / sum over edges of w w`` (unnormalised if that sum is 0)."""
        w = self.weights()
        raw = {(a, b): w.get(a, 0.0) * w.get(b, 0.0) for a, b in sorted(self.edges)}
        norm = sum(raw.values())
        return {e: v / norm for e, v in raw.items()} if norm else raw


def _collect_comment_block(lines: list[str], before: int) -> list[str]:
    """Comment/blank lines directly above 1-based line ``before + 1``, top-down."""
    out: list[str] = []
    idx = before
    while idx > 0:
        text = lines[idx - 1].strip()
        if text.startswith("#") or text == "":
            out.append(lines[idx - 1])
            idx -= 1
        else:
            break
    out.reverse()
    return out


def step_text(comment_block: list[str]) -> str:
    """Step description: comment lines after a ``# ---`` delimiter, text after the first ``:``."""
    lines = textwrap.dedent("\n".join(comment_block)).splitlines()
    parts: list[str] = []
    in_block = False
    for original in lines:
        line = original.strip()
        if not line:
            continue
        if _DELIMITER_LINE_RE.match(original):
            in_block = True
            continue
        if in_block and line.startswith("#"):
            text = line.lstrip("#").strip()
            if text and not _MARKER_TEXT_RE.match(text):
                if ":" in text:
                    text = text[text.find(":") + 1 :].strip()
                if text:
                    parts.append(text)
        elif in_block:
            in_block = False
    return " ".join(parts)


def _boundaries(lines: list[str]) -> tuple[dict[int, tuple[int, int]], dict[int, int], list[int]]:
    """Released boundary scan: ``{snippet: (start, end)}``, ``{line: snippet}``, Begin order."""
    bounds: dict[int, tuple[int, int]] = {}
    line_to_step: dict[int, int] = {}
    begins: list[int] = []
    current: int | None = None
    current_start = 0
    for i, line in enumerate(lines, start=1):
        begin = BEGIN_RE.search(line)
        if begin:
            current, current_start = int(begin.group(1)), i
            begins.append(current)
            continue
        end = END_RE.search(line)
        if end and current is not None:
            if int(end.group(1)) == current:
                bounds[current] = (current_start, i)
                for ln in range(current_start, i + 1):
                    line_to_step[ln] = current
            current = None
    ended = {int(m.group(1)) for line in lines if (m := END_RE.search(line))}
    for snippet in begins:
        if snippet in bounds or snippet in ended:
            continue
        # Begin with no End anywhere: runs to the line before the next delimiter, searched
        # once a later Begin marker of another step is seen (released behaviour).
        start: int | None = None
        for j, line in enumerate(lines, start=1):
            begin = BEGIN_RE.search(line)
            if not begin:
                continue
            if int(begin.group(1)) == snippet:
                start = j
                continue
            if start is not None:
                for k in range(start, len(lines)):
                    if DELIMITER_RE.search(lines[k]):
                        bounds[snippet] = (start, k)
                        for ln in range(start, k):  # the released map stops one line short
                            line_to_step[ln] = snippet
                        break
                break
    return bounds, line_to_step, begins


def _step_stats(lines: list[str], start: int, end: int, tree: ast.AST | None) -> StepStats | None:
    code_lines = [
        lines[ln - 1] for ln in range(start, end + 1) if not lines[ln - 1].strip().startswith("#")
    ]
    code = "\n".join(code_lines)
    n_lines = len(code.strip().split("\n"))
    try:
        snippet_tree = ast.parse(textwrap.dedent(code))
    except SyntaxError:
        if tree is None:
            return None
        visitor = _ComplexityVisitor(range(start, end + 1))
        visitor.visit(tree)
        return visitor.stats(n_lines, fallback=True)
    visitor = _ComplexityVisitor()
    visitor.visit(snippet_tree)
    return visitor.stats(n_lines, fallback=False)


def _base_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute | ast.Subscript):
        return _base_name(node.value)
    return None


class _RhsCollector(ast.NodeVisitor):
    def __init__(self, last_def: dict[str, set[int]]) -> None:
        self.last_def = last_def
        self.union: set[int] = set()

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.union |= self.last_def.get(node.id, set())
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Load) and (base := _base_name(node.value)):
            self.union |= self.last_def.get(base, set())
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if base := _base_name(node.value):
            self.union |= self.last_def.get(base, set())
        self.generic_visit(node)


class _FlowVisitor(ast.NodeVisitor):
    """Mirror of the released ``_SnippetVisitor``: last definitions -> step dependencies."""

    def __init__(self, line_to_step: dict[int, int], steps: Sequence[int]) -> None:
        self.line_to_step = line_to_step
        self.last_def: dict[str, set[int]] = {}
        self.deps: dict[int, set[int]] = {s: set() for s in steps}

    def _step(self, node: ast.AST) -> int | None:
        return self.line_to_step.get(getattr(node, "lineno", -1))

    def _rhs(self, node: ast.AST) -> set[int]:
        collector = _RhsCollector(self.last_def)
        collector.visit(node)
        return collector.union

    def _assign(self, var: str, step: int | None, rhs: set[int]) -> None:
        self.last_def[var] = {step} if step is not None else set(rhs)

    def _target(self, target: ast.AST, step: int | None, rhs: set[int]) -> None:
        if isinstance(target, ast.Name):
            self._assign(target.id, step, rhs)
        elif isinstance(target, ast.Tuple):
            for elt in target.elts:
                if isinstance(elt, ast.Name):
                    self._assign(elt.id, step, rhs)
        elif isinstance(target, ast.Subscript) and (base := _base_name(target.value)):
            self._assign(base, step, rhs)

    def _use(self, var: str, step: int | None) -> None:
        if step is not None and step in self.deps:
            self.deps[step] |= self.last_def.get(var, set())

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        rhs = self._rhs(node.value)
        step = self._step(node)
        for target in node.targets:
            self._target(target, step, rhs)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.generic_visit(node)
        combined = self._rhs(node.target) | self._rhs(node.value)
        self._target(node.target, self._step(node), combined)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._use(node.id, self._step(node))
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Load) and (base := _base_name(node.value)):
            self._use(base, self._step(node))
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if base := _base_name(node.value):
            self._use(base, self._step(node))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            base = _base_name(node.func.value)
            if base:
                self._assign(base, self._step(node), set())


def build_reasoning_graph(code: str) -> ReasoningGraph:
    """Steps, significance counts and data-flow edges of step-annotated code.

    The code is dedented first (as released). Line numbers refer to the dedented text.
    """
    if not isinstance(code, str):
        raise InputError(f"expected code as a string, got {type(code).__name__}", field="code")
    text = textwrap.dedent(code)
    lines = text.splitlines()
    bounds, line_to_step, begins = _boundaries(lines)
    parse_error: str | None = None
    try:
        tree: ast.AST | None = ast.parse(text)
    except SyntaxError as exc:
        tree = None
        parse_error = f"line {exc.lineno}: {exc.msg}"
    comment_text: dict[int, str] = {}
    for i, line in enumerate(lines, start=1):
        begin = BEGIN_RE.search(line)
        if begin:
            comment_text[int(begin.group(1))] = step_text(_collect_comment_block(lines, i - 1))
    steps = [
        ReasoningStep(k, start, end, comment_text.get(k, ""), _step_stats(lines, start, end, tree))
        for k, (start, end) in bounds.items()
    ]
    edges: set[tuple[int, int]] = set()
    if tree is not None:
        flow = _FlowVisitor(line_to_step, list(bounds))
        flow.visit(tree)
        edges = {(a, b) for b, deps in flow.deps.items() for a in deps if a != b}
    prompt_order = [k for k in dict.fromkeys(begins) if k in bounds]
    return ReasoningGraph(steps, frozenset(edges), parse_error, prompt_order)

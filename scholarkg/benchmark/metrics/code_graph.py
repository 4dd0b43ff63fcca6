"""SciReplicate-Bench reasoning graphs, built from step-annotated code with Python's ``ast``.

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
offline embedding match); see :func:`reasoning_graph_score`.

What follows the released code exactly (``/work/shared/reference/scireplicate.md`` 2.4):
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
from collections import deque
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


# --- node matching -------------------------------------------------------------------------


def parse_judge_matches(response: str) -> list[list[int]]:
    """Parse a judge's ``Gen j: Ref x, Ref y`` / ``Gen j: -1`` lines (released parser).

    Every line containing ``:`` is the next generated step, in order (its label is ignored);
    items are split on commas; ``Ref x`` or ``x`` gives the 0-based index ``x - 1``; ``-1`` and
    junk give ``-1``.
    """
    matches: list[list[int]] = []
    for raw in response.split("\n"):
        line = raw.strip()
        if not line or ":" not in line:
            continue
        part = line.split(":", 1)[-1].strip()
        refs: list[int] = []
        if part == "-1":
            refs = [-1]
        else:
            for item in part.split(","):
                item = item.strip()
                if not item:
                    continue
                number = item.split()[-1] if item.lower().startswith("ref") else item
                try:
                    value = int(number)
                except ValueError:
                    refs.append(-1)
                    continue
                refs.append(-1 if value == -1 else value - 1)
        if refs:
            matches.append(refs)
    return matches


def identity_matches(n_steps: int) -> list[list[int]]:
    """Generated step j matches reference step j: the self-test judge (reference vs itself)."""
    return [[j] for j in range(n_steps)]


def format_judge_steps(graph: ReasoningGraph, prefix: str) -> str:
    """Numbered step lines as sent to the judge: ``Ref 1. <text>`` (``prefix`` Ref or Gen)."""
    return "".join(f"{prefix} {i}. {t.strip()}\n" for i, t in enumerate(graph.texts, start=1))


# --- scoring -------------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphScore:
    """Reasoning-graph accuracy of one task: ``score = (node + edge) / 2``."""

    score: float
    node: float
    edge: float
    matched_steps: list[int]
    matched_edges: list[tuple[int, int]]
    reason: str | None = None  # why the score is 0 by rule (no steps, parse error...)


def _has_path(adj: dict[int, list[int]], start: int, goal: int) -> bool:
    if start == goal:
        return False  # a step cannot satisfy an edge with itself
    seen = {start}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        for nxt in adj.get(cur, []):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return False


def reasoning_graph_score(
    reference: ReasoningGraph, generated: ReasoningGraph, matches: Sequence[Sequence[int]]
) -> GraphScore:
    """Released reasoning-graph score of a generated graph given a node matching.

    ``matches[j]`` lists the 0-based reference indices generated step ``j`` implements (``-1``
    for none). N = min(1, sum of the weights of the distinct matched reference steps); a
    reference edge a->b is matched when some ga in M(a) and gb in M(b), ga != gb, are joined by
    a directed path in the generated graph; E = min(1, sum of matched edge weights), or 1 if
    the reference has no edges.

    Indexing, as released: judge index ``i`` names step ``Snippet i+1`` for node weights,
    generated ``j`` is the j-th step in boundary order, and a reference edge between the steps
    at boundary positions ``p -> q`` is looked up by judge indices ``p, q`` and weighted as
    ``Snippet p+1 -> Snippet q+1``. With steps numbered 1..n in file order (every well-formed
    task) all of these agree; on malformed numbering the released mix-up is reproduced.
    """
    if reference.parse_error is not None:
        raise InputError(f"reference code does not parse ({reference.parse_error})", field="code")
    weights = reference.weights()
    if not weights:
        return GraphScore(0.0, 0.0, 0.0, [], [], "reference has zero total weight")
    if generated.parse_error is not None:
        return GraphScore(
            0.0, 0.0, 0.0, [], [], f"generated code does not parse ({generated.parse_error})"
        )
    if not generated.steps:
        return GraphScore(0.0, 0.0, 0.0, [], [], "no generated steps")
    if not matches:
        return GraphScore(0.0, 0.0, 0.0, [], [], "empty judge answer")
    ref_to_gen: dict[int, list[int]] = {}
    for j, refs in enumerate(matches):
        for r in refs:
            if r >= 0:
                ref_to_gen.setdefault(r + 1, []).append(j)
    matched_steps = sorted(k for k in ref_to_gen if k in weights)
    node = min(1.0, float(sum(weights[k] for k in matched_steps)))

    position = {s.snippet: j for j, s in enumerate(generated.steps)}
    adj: dict[int, list[int]] = {}
    for a, b in sorted(generated.edges):
        adj.setdefault(position[a], []).append(position[b])
    edge_w = reference.edge_weights()
    ref_pos = {s.snippet: i + 1 for i, s in enumerate(reference.steps)}  # 1-based positions
    matched_edges: list[tuple[int, int]] = []
    for a, b in sorted((ref_pos[a], ref_pos[b]) for a, b in reference.edges):
        sources, targets = ref_to_gen.get(a, []), ref_to_gen.get(b, [])
        if any(_has_path(adj, ga, gb) for ga in sources for gb in targets):
            matched_edges.append((a, b))
    edge = 1.0 if not edge_w else min(1.0, sum(edge_w.get(e, 0.0) for e in matched_edges))
    return GraphScore((node + edge) / 2, node, edge, matched_steps, matched_edges)

"""SciReplicate-Bench code metrics: CodeBLEU, execution accuracy, dependency recall, RG accuracy.

Follows the released ``xyzCS/SciReplicate-Bench`` ``Evaluation.py`` (the published Table 3),
``xyzCS/SciReplicate-Bench:Evaluation.py``:

* **CodeBLEU**: ``codebleu`` 0.7.0 ``calc_codebleu([ref], [hyp], lang="python",
  weights=(0.25,)*4)``, one call per task, each of the five fields macro-averaged over tasks,
  after both sides go through :func:`strip_comments` (which also drops the docstring). The
  package's own ``dataflow or 1`` quirk is kept: an unrelated answer still scores >= 0.25.
* **Execution accuracy**: a pure aggregation of per-task pass/fail outcomes, divided by the
  released hard-coded 100. A task that could not be evaluated (no patched repository, no
  ``compare.py``) makes the result ``unavailable`` rather than silently 0.
* **Dependency / API recall**: micro-averaged (pooled) over all tasks per category: the sum of
  hits over the sum of annotated items.
* **Reasoning-graph accuracy**: per task :func:`~scholarkg.benchmark.metrics.code_graph.
  reasoning_graph_score`; tasks whose judge failed every attempt are dropped from the mean.

* **Found dependencies** (:func:`found_dependencies`): what the generated code uses, rebuilt
  like the released ``Recall``: external APIs through the import alias map, bare-name calls to
  functions of the target file, and for methods ``Class.x`` for ``self.x`` class methods and
  attributes. Each detector falls back to an empty set on any exception, as released.
"""

from __future__ import annotations

import ast
import logging
import math
import re
import textwrap
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from scholarkg.benchmark.metrics.similarity import EmbeddingTable, Encoder, Progress
from scholarkg.errors import InputError, NotSupported

log = logging.getLogger(__name__)

#: the released execution-accuracy denominator (``count_true_in_file`` divides by 100)
SCIREPLICATE_TASKS = 100
CODEBLEU_FIELDS = (
    "codebleu",
    "ngram_match_score",
    "weighted_ngram_match_score",
    "syntax_match_score",
    "dataflow_match_score",
)
_LINE_COMMENT_RE = re.compile(r"#[^\n]*")
_TRIPLE_QUOTED_RE = re.compile(r"(\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?''')", re.DOTALL)


def strip_comments(code: str) -> str:
    """Released ``remove_comments_from_function``: the text CodeBLEU compares.

    In this order: delete ``#`` to end of line (also inside strings -- a released quirk), delete
    every triple-quoted block (docstrings), drop blank lines, strip trailing spaces.
    """
    code = _LINE_COMMENT_RE.sub("", code)
    code = _TRIPLE_QUOTED_RE.sub("", code)
    return "\n".join(line.rstrip() for line in code.splitlines() if line.strip())


# --- CodeBLEU ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CodeBleuScores:
    """Macro means of the five ``calc_codebleu`` fields, plus the per-task results."""

    means: dict[str, float]
    per_task: list[dict[str, float]] = field(default_factory=list)

    @property
    def codebleu(self) -> float:
        return self.means["codebleu"]


def codebleu_pair(reference: str, hypothesis: str, *, clean: bool = True) -> dict[str, float]:
    """CodeBLEU of one task (Python, weights 0.25 each, whitespace tokeniser)."""
    try:
        from codebleu import calc_codebleu
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise NotSupported(
            "CodeBLEU needs the 'eval' extra: pip install 'scholarkg[eval]' "
            "(codebleu==0.7.0, tree-sitter==0.22.3, tree-sitter-python==0.21.0)"
        ) from exc
    if clean:
        reference, hypothesis = strip_comments(reference), strip_comments(hypothesis)
    result = calc_codebleu(
        [reference], [hypothesis], lang="python", weights=(0.25, 0.25, 0.25, 0.25), tokenizer=None
    )
    return {k: float(result[k]) for k in CODEBLEU_FIELDS}


def codebleu_scores(
    references: Sequence[str],
    hypotheses: Sequence[str],
    *,
    clean: bool = True,
    progress: Progress | None = None,
) -> CodeBleuScores:
    """Released CodeBLEU: one ``calc_codebleu`` call per task, fields averaged over tasks."""
    if len(references) != len(hypotheses):
        raise InputError(
            f"{len(references)} references but {len(hypotheses)} hypotheses", field="hypotheses"
        )
    if not references:
        raise InputError("no tasks to score", field="references")
    per_task: list[dict[str, float]] = []
    for k, (ref, hyp) in enumerate(zip(references, hypotheses, strict=True)):
        if not isinstance(ref, str) or not isinstance(hyp, str):
            raise InputError(f"task {k}: code must be a string", field="hypotheses")
        per_task.append(codebleu_pair(ref, hyp, clean=clean))
        if progress is not None:
            progress(k + 1, len(references))
    means = {f: sum(t[f] for t in per_task) / len(per_task) for f in CODEBLEU_FIELDS}
    return CodeBleuScores(means, per_task)


# --- execution accuracy ----------------------------------------------------------------------

ExecStatus = Literal["ok", "unavailable"]


@dataclass(frozen=True)
class ExecutionAccuracy:
    """Passed tasks over the denominator; ``value`` is ``None`` when ``status == 'unavailable'``."""

    value: float | None
    status: ExecStatus
    passed: int
    failed: int
    unavailable: int
    denominator: int


def execution_accuracy(
    outcomes: Mapping[str, bool | None], *, denominator: int | None = SCIREPLICATE_TASKS
) -> ExecutionAccuracy:
    """Execution accuracy from ``{task_id: passed}`` (``None`` = could not be evaluated).

    A crash, timeout or missing output pickle is a failure (``False``), decided upstream of
    this function. The released score divides by a hard-coded 100 (``denominator`` default);
    ``denominator=None`` divides by the number of tasks instead (not the published protocol).
    If any task is ``None`` the result is ``unavailable`` with ``value=None``: an evaluation
    that could not run must never read as 0.
    """
    passed = sum(1 for v in outcomes.values() if v is True)
    failed = sum(1 for v in outcomes.values() if v is False)
    missing = sum(1 for v in outcomes.values() if v is None)
    bad = [k for k, v in outcomes.items() if v not in (True, False, None)]
    if bad:
        raise InputError(f"task {bad[0]!r}: outcome must be True, False or None", field="outcomes")
    den = len(outcomes) if denominator is None else denominator
    if den <= 0:
        raise InputError("execution accuracy over zero tasks", field="denominator")
    if passed + failed + missing > den:
        raise InputError(
            f"{len(outcomes)} outcomes exceed the denominator {den}", field="denominator"
        )
    if missing or not outcomes:
        return ExecutionAccuracy(None, "unavailable", passed, failed, missing, den)
    return ExecutionAccuracy(passed / den, "ok", passed, failed, missing, den)


# --- dependency / API recall -----------------------------------------------------------------


@dataclass(frozen=True)
class Recall:
    """Pooled recall: ``hits / annotated`` (0 when nothing is annotated, as released)."""

    value: float
    hits: int
    annotated: int


def pooled_recall(tasks: Sequence[tuple[Sequence[str], Collection[str]]]) -> Recall:
    """Micro recall over tasks given ``(annotated items, found set)`` per task.

    An annotated string is a hit iff it is *exactly* in the found set; duplicates in the
    annotation count each time (released loop over the annotation list).
    """
    hits = total = 0
    for k, (annotated, found) in enumerate(tasks):
        if isinstance(annotated, str):
            raise InputError(f"task {k}: annotations must be a list of strings", field="annotated")
        found_set = set(found)
        total += len(annotated)
        hits += sum(1 for item in annotated if item in found_set)
    return Recall(hits / total if total else 0.0, hits, total)


@dataclass(frozen=True)
class DependencyTask:
    """One task's annotations and what was detected in the generated code."""

    api: Sequence[str]
    intra_file: Sequence[str]
    cross_file: Sequence[str]
    found: Collection[str]


def dependency_recall(tasks: Sequence[DependencyTask]) -> dict[str, Recall]:
    """Intra-file, cross-file and API recall, each pooled over all tasks."""
    return {
        "intra_file": pooled_recall([(t.intra_file, t.found) for t in tasks]),
        "cross_file": pooled_recall([(t.cross_file, t.found) for t in tasks]),
        "api": pooled_recall([(t.api, t.found) for t in tasks]),
    }


# --- found dependencies (released ``Recall`` in Evaluation.py + utils/CodeAgentTools.py) -----

_DEF_RE = re.compile(r"def\s+([a-zA-Z_]\w*)\s*\(")


def strip_code_fence(answer: str) -> str:
    """Released ``FormatCode``: the text between the first ``python`` fence and the last fence."""
    code = answer.strip()
    start = code.find("```python")
    if start >= 0:
        code = code[start + 9 :]
    end = code.rfind("```")
    if end >= 0:
        code = code[:end]
    return code


def import_statements(source: str) -> list[str]:
    """Every ``import`` / ``from ... import`` of a file (``ast.walk`` order); [] if unparseable."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    out: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            segment = ast.get_source_segment(source, node)
            if segment:
                out.append(segment.strip())
            elif isinstance(node, ast.Import):  # pragma: no cover - segments exist on 3.8+
                out.append("import " + ", ".join(a.name for a in node.names))
            else:  # pragma: no cover
                names = ", ".join(a.name for a in node.names)
                out.append(f"from {node.module or ''} import {names}")
    return out


class _ApiFinder(ast.NodeVisitor):
    """Calls through imported names, resolved to their module paths (released rules)."""

    def __init__(self) -> None:
        self.alias: dict[str, str] = {}
        self.apis: set[str] = set()

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.alias[a.asname or a.name] = a.name
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.names[0].name != "*":
            for a in node.names:
                self.alias[a.asname or a.name] = f"{node.module}.{a.name}"
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = self._dotted(node.func)
        if name and name.split(".")[0] in self.alias:
            self.apis.add(self._resolve(name))
        self.generic_visit(node)

    def _dotted(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            prefix = self._dotted(node.value)
            return f"{prefix}.{node.attr}" if prefix else None
        return None

    def _resolve(self, name: str) -> str:
        parts = name.split(".")
        if name in self.alias:
            return self.alias[name]
        if parts[-1] in self.alias:
            return self.alias[parts[-1]]
        base = self.alias[parts[0]]
        if len(parts) > 1 and parts[1] == base.split(".")[-1]:  # drop a duplicated segment
            return base + ("." + ".".join(parts[2:]) if len(parts) > 2 else "")
        return base + "." + ".".join(parts[1:])


def find_external_apis(code: str) -> set[str]:
    """Fully qualified external calls in ``code`` (imports must precede their use)."""
    finder = _ApiFinder()
    finder.visit(ast.parse(code))
    return finder.apis


def find_local_calls(code: str, function_name: str) -> set[str]:
    """Bare-name calls in ``function_name`` to functions defined in the file.

    Defined = module-level functions and methods one class deep; the target is the *last*
    ``def`` with that name in traversal order (released; mis-targets a name shared by classes).
    """
    tree = ast.parse(code)
    defined: set[str] = set()
    target: ast.FunctionDef | None = None

    class _Defs(ast.NodeVisitor):
        def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
            nonlocal target
            defined.add(node.name)
            if node.name == function_name:
                target = node

    _Defs().visit(tree)
    if target is None:
        raise InputError(f"function {function_name!r} not found", field="code")
    calls: set[str] = set()
    for stmt in target.body:
        for node in ast.walk(stmt):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in defined
            ):
                calls.add(node.func.id)
    return calls


def class_source(code: str, class_name: str) -> str | None:
    """Source lines of the first class named ``class_name`` (``ast.walk`` order), or None."""
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            lines = code.splitlines()
            return "\n".join(lines[node.lineno - 1 : node.end_lineno])
    return None


def _self_attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr if node.value.id == "self" else None
    return None


class _MethodDeps(ast.NodeVisitor):
    """Literal port of the released ``DependencyFinder`` (its visiting order matters)."""

    def __init__(self, method_name: str) -> None:
        self.method_name = method_name
        self.attrs: set[str] = set()
        self.methods: set[str] = set()
        self.used_vars: set[str] = set()
        self.used_methods: set[str] = set()
        self.current: ast.FunctionDef | None = None

    def _in_target(self) -> bool:
        return self.current is not None and self.current.name == self.method_name

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        defs = [c for c in node.body if isinstance(c, ast.FunctionDef)]
        self.methods |= {c.name for c in defs}
        targets = [c for c in defs if c.name == self.method_name]
        for child in defs:  # collect self.x assignments; also scans same-named methods
            self.current = child
            for stmt in child.body:
                self.visit(stmt)
        if targets:  # the last same-named method again, with every attribute known
            self.current = targets[-1]
            for stmt in targets[-1].body:
                self.visit(stmt)
        self.current = None

    def visit_Assign(self, node: ast.Assign) -> None:
        if self.current is not None:
            for target in node.targets:
                if (name := _self_attr(target)) is not None:
                    self.attrs.add(name)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self._in_target() and (name := _self_attr(node)) is not None:
            if name in self.methods:
                self.used_methods.add(name)
            elif name in self.attrs:
                self.used_vars.add(name)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        if self._in_target():
            if (name := _self_attr(node.func)) is not None and name in self.methods:
                self.used_methods.add(name)
            for arg in node.args:
                if (name := _self_attr(arg)) is not None:
                    if name in self.attrs:
                        self.used_vars.add(name)
                    elif name in self.methods:
                        self.used_methods.add(name)
        self.generic_visit(node)


def find_method_dependencies(class_code: str, method_name: str) -> tuple[set[str], set[str]]:
    """``(attributes, methods)`` of the class that ``method_name`` reads through ``self``.

    Attributes are names assigned as ``self.x = ...`` (plain assignment) in a method; a
    ``self.x`` in the target method counts as a method if the class defines ``x``, else as an
    attribute if assigned. Follows the released visitor, including its quirk that methods
    sharing the target's name (property getter/setter) are scanned too.
    """
    finder = _MethodDeps(method_name)
    finder.visit(ast.parse(class_code))
    return finder.used_vars, finder.used_methods


def splice_answer(
    ori_python_file: str,
    signature_position: Sequence[int],
    body_position: Sequence[int],
    answer: str,
    indent: int,
) -> str:
    """The target file with the original function replaced by ``answer`` (released splice).

    Lines ``signature_position[0]..body_position[1]`` (1-based, inclusive) are removed and the
    answer, indented by ``indent - 1`` levels, is inserted at 0-based index
    ``signature_position[0]`` -- one line below where the function was (a released quirk that
    only matters for the recall detectors, which read the spliced file).
    """
    lines = ori_python_file.split("\n")
    start, end = int(signature_position[0]), int(body_position[1])
    if not 1 <= start <= end <= len(lines):
        raise InputError(
            f"positions {start}..{end} outside a file of {len(lines)} lines",
            field="signature_position",
        )
    del lines[start - 1 : end]
    lines[start:start] = textwrap.indent(answer, "    " * max(indent - 1, 0)).split("\n")
    return "\n".join(lines)


def found_dependencies(
    answer: str,
    *,
    ori_python_file: str,
    signature_position: Sequence[int],
    body_position: Sequence[int],
    indent: int,
    task_type: str,
    namespace: str,
) -> set[str]:
    """Everything the generated function uses that recall can hit (released ``Recall``).

    ``answer`` is the generated function (``def`` line at column 0). External APIs are read
    from the target file's imports + the answer; intra-file calls and (for ``method`` tasks)
    ``Class.attr`` / ``Class.method`` from the file with the answer spliced in. Each detector
    yields an empty set on any exception, as released, so broken code simply finds nothing.
    """
    code = strip_code_fence(answer)
    imports = "\n".join(import_statements(ori_python_file)) + "\n"
    found: set[str] = set()
    try:
        found |= find_external_apis(imports + code)
    except Exception:  # released rule: any failure means "nothing found"
        log.debug("API detection failed", exc_info=True)
    lines = ori_python_file.split("\n")
    sig = "\n".join(lines[signature_position[0] - 1 : signature_position[1]])
    match = _DEF_RE.search(sig)
    spliced = splice_answer(ori_python_file, signature_position, body_position, code, indent)
    if match:
        try:
            found |= find_local_calls(spliced, match.group(1))
        except Exception:
            log.debug("intra-file detection failed", exc_info=True)
    if task_type == "method":
        parts = namespace.split(".")
        class_name, method_name = parts[-2], parts[-1]
        try:
            source = class_source(spliced, class_name)
            if source is None:
                raise InputError(f"class {class_name!r} not found", field="namespace")
            attrs, methods = find_method_dependencies(source, method_name)
            found |= {f"{class_name}.{x}" for x in attrs | methods}
        except Exception:
            log.debug("class dependency detection failed", exc_info=True)
    return found


# --- reasoning-graph accuracy aggregation and offline node matching ---------------------------


@dataclass(frozen=True)
class MeanOverScored:
    """Mean over the tasks that produced a score; ``dropped`` lists the others."""

    value: float | None
    scored: int
    dropped: list[str]


def reasoning_graph_accuracy(scores: Mapping[str, float | None]) -> MeanOverScored:
    """Mean RG score over tasks; ``None`` (judge failed all attempts) is dropped, as released."""
    kept = {k: v for k, v in scores.items() if v is not None}
    for k, v in kept.items():
        if not isinstance(v, int | float) or math.isnan(v):
            raise InputError(f"task {k!r}: score must be a number", field="scores")
    dropped = [k for k, v in scores.items() if v is None]
    value = sum(kept.values()) / len(kept) if kept else None
    return MeanOverScored(value, len(kept), dropped)


def embedding_matches(
    reference_steps: Sequence[str],
    generated_steps: Sequence[str],
    *,
    encoder: Encoder | None = None,
    threshold: float = 0.5,
) -> list[list[int]]:
    """Offline node matching: each generated step -> its most similar reference step.

    A stand-in for the GPT-4o judge when no LLM is available: the generated step's best
    reference by cosine of step descriptions, or ``-1`` below ``threshold``. Ties go to the
    earlier reference step. Scores computed this way are *not comparable* to published RG
    accuracy (different judge); label them so.
    """
    if not generated_steps:
        return []
    if not reference_steps:
        return [[-1] for _ in generated_steps]
    table = EmbeddingTable([*reference_steps, *generated_steps], encoder)
    sim = table.cosine(list(generated_steps), list(reference_steps))
    out: list[list[int]] = []
    for row in sim:
        best = int(row.argmax())
        out.append([best] if row[best] >= threshold else [-1])
    return out

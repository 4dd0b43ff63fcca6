"""SciReplicate-Bench scoring of generated code: one pure path for `bench run` and `bench score`.

Per task, from the answer (a function body as in ``ReferenceCode_With_Comments``, or a whole
``def``): CodeBLEU against the reference function, the reasoning-graph score against the
reference reasoning graph (node matching by the offline embedding matcher, imported LLM
judgements, or the identity self-test judge), and the set of dependencies the code uses for
the pooled intra-file / cross-file / API recall. Everything here calls the metrics library
(``metrics/code.py``, ``metrics/code_graph.py``); this module only decides what text goes in.

How an answer becomes the function that is scored (the SciReplicate-Bench paper (Xiang et al.,
arXiv 2504.00255); ``xyzCS/SciReplicate-Bench``
section 2): a body is indented ``indent`` levels under the task's own signature lines, exactly
as the reference is assembled, so the reference body as an answer is the reference function
(CodeBLEU 1.0); a whole ``def`` is re-indented to the signature's column. A ``python`` code
fence is removed first (released ``FormatCode``).
"""

from __future__ import annotations

import logging
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scholarkg.benchmark.metrics.code import (
    CODEBLEU_FIELDS,
    DependencyTask,
    codebleu_pair,
    dependency_recall,
    embedding_matches,
    execution_accuracy,
    found_dependencies,
    reasoning_graph_accuracy,
    strip_code_fence,
)
from scholarkg.benchmark.metrics.code_graph import (
    ReasoningGraph,
    build_reasoning_graph,
    identity_matches,
    parse_judge_matches,
    reasoning_graph_score,
)
from scholarkg.benchmark.metrics.similarity import EmbeddingTable, Encoder
from scholarkg.errors import InputError
from scholarkg.loaders.scireplicate_data import TaskSpec, assemble_reference_code
from scholarkg.textio import iter_jsonl

log = logging.getLogger(__name__)

JUDGES = ("embedding", "imported", "identity")
_DEF_LINE = re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(")


# --------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class ScoredAnswer:
    """An answer as scored: the function text and the code its reasoning graph is read from."""

    function: str  # aligned with the reference function (signature column)
    graph_code: str  # what build_reasoning_graph reads (body, or the whole def)
    whole_def: bool


def answer_function(spec: TaskSpec, code: str) -> ScoredAnswer:
    """The scored function for ``code`` (a body, or a whole def of the task's function).

    No answer (empty code) is scored as an empty hypothesis, not as the bare signature, so a
    missing answer earns no credit for the signature the task gave away.
    """
    if not code.strip():
        return ScoredAnswer("", "", False)
    text = strip_code_fence(code) if "```" in code else code
    text = textwrap.dedent(text.replace("\t", "    ")).strip("\n")
    first = next(
        (ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith(("#", "@"))),
        "",
    )
    match = _DEF_LINE.match(first)
    if match and not first.startswith((" ", "\t")):
        sig_indent = len(spec.signature) - len(spec.signature.lstrip(" "))
        function = textwrap.indent(text, " " * sig_indent) + "\n"
        return ScoredAnswer(function, text + "\n", True)
    body = text + "\n"
    return ScoredAnswer(assemble_reference_code(spec.signature, body, spec.indent), body, False)


def read_predictions(
    path: str | Path, known: Mapping[tuple[int, int], TaskSpec]
) -> dict[str, str | None]:
    """``{"paper_id": int, "task_id": int, "code": str}`` lines -> ``{instance uid: code}``.

    ``code`` may be ``null`` (no answer). An unknown task, a repeated task, a missing or
    mistyped field is an InputError naming the file, the line and the field.
    """
    path = Path(path)
    out: dict[str, str | None] = {}
    for line_no, obj in iter_jsonl(path):
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", path=path, line=line_no)
        for name in ("paper_id", "task_id"):
            value = obj.get(name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InputError(
                    f"expected an integer, got {value!r}", path=path, line=line_no, field=name
                )
        if "code" not in obj or not (obj["code"] is None or isinstance(obj["code"], str)):
            raise InputError("expected a string (or null)", path=path, line=line_no, field="code")
        key = (obj["paper_id"], obj["task_id"])
        spec = known.get(key)
        if spec is None:
            raise InputError(
                f"no task (paper_id={key[0]}, task_id={key[1]}) in the data",
                path=path,
                line=line_no,
                field="task_id",
            )
        if spec.uid in out:
            raise InputError(
                f"task (paper_id={key[0]}, task_id={key[1]}) predicted twice",
                path=path,
                line=line_no,
                field="task_id",
            )
        out[spec.uid] = obj["code"]
    return out


def read_judgements(path: str | Path, known: Mapping[tuple[int, int], TaskSpec]) -> dict[str, str]:
    """Imported LLM judge answers: ``{"paper_id", "task_id", "response"}`` JSONL lines.

    ``response`` is the judge's raw text (``Gen 1: Ref 1, Ref 2`` lines), parsed by the
    released parser. Judgements are tied to the generated code they judged only by task, so
    score the same predictions they were made for.
    """
    path = Path(path)
    out: dict[str, str] = {}
    for line_no, obj in iter_jsonl(path):
        # unchecked JSON values: a key that is not a known (int, int) pair finds no task
        key: tuple[Any, Any] | None = (
            (obj.get("paper_id"), obj.get("task_id")) if isinstance(obj, dict) else None
        )
        spec = known.get(key) if key else None
        if spec is None:
            raise InputError(
                "unknown or missing paper_id/task_id", path=path, line=line_no, field="task_id"
            )
        if not isinstance(obj.get("response"), str):
            raise InputError("expected a string", path=path, line=line_no, field="response")
        out[spec.uid] = obj["response"]
    return out


# --------------------------------------------------------------------------- scoring


class _TableEncoder:
    """Serves vectors from one table built over every step text of a scoring call.

    ``embedding_matches`` encodes per task; encoding all step texts in one batch first (and
    each distinct text once) keeps 100 tasks to one model call.
    """

    def __init__(self, table: EmbeddingTable) -> None:
        self.table = table

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.table.vectors(texts)


def exact_text_matches(
    reference: Sequence[str], generated: Sequence[str]
) -> list[list[int]] | None:
    """The embedding matcher's answer when every generated step repeats a reference step's text.

    A text's cosine with itself is 1, the maximum, and ties go to the earlier reference step,
    so each generated step matches the first reference step with the same text: what
    :func:`~scholarkg.benchmark.metrics.code.embedding_matches` returns, without encoding
    anything (scoring the reference, or copies of it, needs no model). ``None`` when some
    generated text is new: then the encoder decides.
    """
    first: dict[str, int] = {}
    for i, text in enumerate(reference):
        first.setdefault(text, i)
    if not generated or not all(t in first for t in generated):
        return None
    return [[first[t]] for t in generated]


@dataclass
class TaskScores:
    """One task's results (``rg`` is None when the judge gave no usable answer: dropped)."""

    codebleu: dict[str, float]
    rg: float | None
    rg_node: float | None
    rg_edge: float | None
    rg_reason: str | None
    found: set[str]
    answered: bool
    parse_error: bool


def score_answers(
    specs: Sequence[TaskSpec],
    answers: Mapping[str, str | None],
    *,
    judge: str = "embedding",
    judgements: Mapping[str, str] | None = None,
    encoder: Encoder | None = None,
    threshold: float = 0.5,
    exec_outcomes: Mapping[str, bool | None] | None = None,
    exec_denominator: int | None = None,
) -> tuple[dict[str, float | None], dict[str, dict[str, float | None]], dict[str, int]]:
    """Aggregate, per-task scores and counts; missing answers score as empty code.

    Aggregates (fractions): ``codebleu`` (macro mean, with its four components), ``rg_acc``
    (mean over tasks the judge scored; dropped ones listed in counts), ``recall_intra``,
    ``recall_cross``, ``recall_api`` (pooled), ``exec_acc`` (None unless execution ran and
    every task could be evaluated).
    """
    if judge not in JUDGES:
        raise InputError(f"judge {judge!r} not in {JUDGES}", field="judge")
    if judge == "imported" and judgements is None:
        raise InputError("the imported judge needs a judgements file", field="judgements")
    functions: dict[str, ScoredAnswer] = {}
    ref_graphs: dict[str, ReasoningGraph] = {}
    gen_graphs: dict[str, ReasoningGraph] = {}
    for spec in specs:
        functions[spec.uid] = answer_function(spec, answers.get(spec.uid) or "")
        ref_graphs[spec.uid] = build_reasoning_graph(spec.reference_body)
        gen_graphs[spec.uid] = build_reasoning_graph(functions[spec.uid].graph_code)
    matcher = _StepMatcher(judge, judgements, threshold)
    if judge == "embedding":
        matcher.prepare_embeddings(ref_graphs, gen_graphs, encoder)
    scored = {
        spec.uid: _task_scores(
            spec,
            functions[spec.uid],
            ref_graphs[spec.uid],
            gen_graphs[spec.uid],
            matcher.matches(spec.uid, ref_graphs[spec.uid], gen_graphs[spec.uid]),
            answered=bool(answers.get(spec.uid)),
        )
        for spec in specs
    }
    aggregate, counts = _aggregate(specs, scored, exec_outcomes, exec_denominator)
    per_task = {spec.uid: _task_row(spec, scored[spec.uid], exec_outcomes) for spec in specs}
    return aggregate, per_task, counts


class _StepMatcher:
    """Which generated steps match which reference steps, by the chosen judge: every step
    its own (``identity``), a judge's imported answer, exact text, or embedding similarity
    (every step text of the run encoded in one batch first: :meth:`prepare_embeddings`)."""

    def __init__(self, judge: str, judgements: Mapping[str, str] | None, threshold: float) -> None:
        self.judge = judge
        self.judgements = judgements or {}
        self.threshold = threshold
        self.exact: dict[str, list[list[int]]] = {}
        self.encoder: Encoder | None = None

    def prepare_embeddings(
        self,
        ref_graphs: Mapping[str, ReasoningGraph],
        gen_graphs: Mapping[str, ReasoningGraph],
        encoder: Encoder | None,
    ) -> None:
        need: list[str] = []
        for uid, gen in gen_graphs.items():
            if (same := exact_text_matches(ref_graphs[uid].texts, gen.texts)) is not None:
                self.exact[uid] = same
            else:
                need += [*ref_graphs[uid].texts, *gen.texts]
        if need:
            self.encoder = _TableEncoder(EmbeddingTable(need, encoder))

    def matches(self, uid: str, ref: ReasoningGraph, gen: ReasoningGraph) -> list[list[int]] | None:
        """``None``: no usable judgement (the task is dropped from ``rg_acc``)."""
        if self.judge == "identity":
            return identity_matches(len(gen.steps))
        if self.judge == "imported":
            raw = self.judgements.get(uid)
            return parse_judge_matches(raw) if raw is not None else None
        if uid in self.exact:
            return self.exact[uid]
        return embedding_matches(
            ref.texts, gen.texts, encoder=self.encoder, threshold=self.threshold
        )


def _task_scores(
    spec: TaskSpec,
    answer: ScoredAnswer,
    ref: ReasoningGraph,
    gen: ReasoningGraph,
    matches: list[list[int]] | None,
    *,
    answered: bool,
) -> TaskScores:
    """One task's CodeBLEU, reasoning-graph score and the dependencies its code uses."""
    bleu = codebleu_pair(spec.reference_code, answer.function)
    rg = rg_node = rg_edge = None
    reason = None
    if matches is not None:
        result = reasoning_graph_score(ref, gen, matches)
        rg, rg_node, rg_edge, reason = result.score, result.node, result.edge, result.reason
    else:
        reason = "no judgement for this task (dropped from rg_acc)"
    found = found_dependencies(
        textwrap.dedent(answer.function),
        ori_python_file=spec.ori_python_file,
        signature_position=spec.signature_position,
        body_position=spec.body_position,
        indent=spec.indent,
        task_type=spec.type,
        namespace=spec.namespace,
    )
    return TaskScores(
        bleu, rg, rg_node, rg_edge, reason, found, answered, gen.parse_error is not None
    )


def _aggregate(
    specs: Sequence[TaskSpec],
    scored: Mapping[str, TaskScores],
    exec_outcomes: Mapping[str, bool | None] | None,
    exec_denominator: int | None,
) -> tuple[dict[str, float | None], dict[str, int]]:
    """The aggregates and the counts behind them (see :func:`score_answers`)."""
    recall = dependency_recall(
        [
            DependencyTask(s.external_apis, s.intra_file, s.cross_file, scored[s.uid].found)
            for s in specs
        ]
    )
    rg_mean = reasoning_graph_accuracy({uid: s.rg for uid, s in scored.items()})
    n = len(specs)
    aggregate: dict[str, float | None] = {
        field: sum(s.codebleu[field] for s in scored.values()) / n for field in CODEBLEU_FIELDS
    }
    aggregate.update(
        rg_acc=rg_mean.value,
        recall_intra=recall["intra_file"].value,
        recall_cross=recall["cross_file"].value,
        recall_api=recall["api"].value,
        exec_acc=None,
    )
    counts = {
        "tasks": n,
        "answered": sum(s.answered for s in scored.values()),
        "rg_scored": rg_mean.scored,
        "rg_dropped": len(rg_mean.dropped),
        "parse_errors": sum(s.parse_error for s in scored.values()),
        "intra_hits": recall["intra_file"].hits,
        "intra_annotated": recall["intra_file"].annotated,
        "cross_hits": recall["cross_file"].hits,
        "cross_annotated": recall["cross_file"].annotated,
        "api_hits": recall["api"].hits,
        "api_annotated": recall["api"].annotated,
    }
    if exec_outcomes is not None:
        exe = execution_accuracy(
            {s.uid: exec_outcomes.get(s.uid) for s in specs},
            denominator=exec_denominator or n,
        )
        aggregate["exec_acc"] = exe.value
        counts.update(
            exec_passed=exe.passed, exec_failed=exe.failed, exec_unavailable=exe.unavailable
        )
    return aggregate, counts


def _task_row(
    spec: TaskSpec, s: TaskScores, exec_outcomes: Mapping[str, bool | None] | None
) -> dict[str, float | None]:
    """A task's per-instance scores: CodeBLEU and its parts, the reasoning graph, its
    dependency hits against the annotated ones, and execution when it ran."""
    found = s.found
    row: dict[str, float | None] = dict(s.codebleu)
    row.update(
        rg=s.rg,
        rg_node=s.rg_node,
        rg_edge=s.rg_edge,
        intra_hits=float(sum(d in found for d in spec.intra_file)),
        intra_annotated=float(len(spec.intra_file)),
        cross_hits=float(sum(d in found for d in spec.cross_file)),
        cross_annotated=float(len(spec.cross_file)),
        api_hits=float(sum(d in found for d in spec.external_apis)),
        api_annotated=float(len(spec.external_apis)),
        parse_error=1.0 if s.parse_error else 0.0,
        answered=1.0 if s.answered else 0.0,
    )
    if exec_outcomes is not None:
        outcome = exec_outcomes.get(spec.uid)
        row["exec"] = None if outcome is None else float(outcome)
    return row

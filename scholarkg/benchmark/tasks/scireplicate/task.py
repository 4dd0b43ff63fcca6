"""``scireplicate``: reproduce a paper's algorithm as the body of a repository function.

Instances are the benchmark's CodeTasks (id ``scirep:<paper_id>:<task_id>``), read from the
graph (``bench run``) or straight from ``Data.json`` (``bench score``, no store). Answers come
from a predictions file (``{"paper_id", "task_id", "code"}`` JSONL) or from a model through the
ReAct agent (:mod:`.agent`, look-ups in :mod:`.lookups`). Scores: :mod:`.scoring` (CodeBLEU,
reasoning-graph accuracy, dependency/API recall) and, with ``--execute``, the sandbox in
:mod:`.sandbox` (execution accuracy). See the SciReplicate-Bench paper (Xiang et al., arXiv
2504.00255); ``xyzCS/SciReplicate-Bench``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.benchmark.results import PublishedRow, ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    BenchmarkTask,
    Instance,
    PredictionFormat,
    StageProgress,
    TaskOption,
)
from scholarkg.benchmark.tasks.scireplicate.scoring import (
    JUDGES,
    read_judgements,
    score_answers,
)
from scholarkg.benchmark.tasks.scireplicate.scoring import (
    read_predictions as read_code_predictions,
)
from scholarkg.benchmark.tasks.scireplicate.step_vectors import EMBEDDING_BACKENDS, step_encoder
from scholarkg.errors import InputError
from scholarkg.loaders.scireplicate_data import TaskSpec, read_benchmark

if TYPE_CHECKING:
    from scholarkg.benchmark.metrics.similarity import Encoder
    from scholarkg.store.base import GraphReader

log = logging.getLogger(__name__)

_SOURCE = "SciReplicate-Bench Table 3 (Sci-Reproducer)"
_NO_AGENT = "SciReplicate-Bench Table 3 (No Agent)"
# (model, exe, codebleu, rg, intra, cross, api) for Sci-Reproducer, then No Agent
_TABLE3 = (
    (
        "GPT-4o-mini",
        (0.170, 0.303, 0.741, 0.576, 0.364, 0.362),
        (0.030, 0.238, 0.694, 0.012, 0.000, 0.217),
    ),
    (
        "GPT-4o",
        (0.270, 0.329, 0.751, 0.688, 0.636, 0.417),
        (0.040, 0.259, 0.705, 0.059, 0.000, 0.281),
    ),
    (
        "Claude-Sonnet-3.7",
        (0.390, 0.401, 0.773, 0.776, 0.636, 0.626),
        (0.070, 0.282, 0.725, 0.094, 0.091, 0.362),
    ),
    (
        "Gemini-2.0-Flash",
        (0.250, 0.346, 0.727, 0.588, 0.333, 0.455),
        (0.070, 0.275, 0.688, 0.071, 0.000, 0.294),
    ),
    (
        "Deepseek-V3",
        (0.220, 0.334, 0.738, 0.565, 0.333, 0.443),
        (0.030, 0.260, 0.712, 0.012, 0.061, 0.272),
    ),
    (
        "o3-mini-low",
        (0.180, 0.280, 0.771, 0.376, 0.121, 0.328),
        (0.080, 0.259, 0.758, 0.035, 0.000, 0.323),
    ),
    (
        "o3-mini-medium",
        (0.240, 0.283, 0.758, 0.341, 0.061, 0.362),
        (0.040, 0.263, 0.729, 0.035, 0.000, 0.336),
    ),
    (
        "o3-mini-high",
        (0.160, 0.283, 0.763, 0.294, 0.091, 0.357),
        (0.070, 0.269, 0.718, 0.047, 0.000, 0.345),
    ),
)
COLUMNS = ("exec_acc", "codebleu", "rg_acc", "recall_intra", "recall_cross", "recall_api")


def _published() -> tuple[PublishedRow, ...]:
    variants = (
        ("Sci-Reproducer", _SOURCE, "sci-reproducer"),
        ("No Agent", _NO_AGENT, "none"),
    )
    return tuple(
        PublishedRow(
            f"{model} ({label})", dict(zip(COLUMNS, values, strict=True)), source, {"agent": agent}
        )
        for model, *per_variant in _TABLE3
        for values, (label, source, agent) in zip(per_variant, variants, strict=True)
    )


def spec_from_graph(task: Mapping[str, Any], file_text: str | None) -> TaskSpec:
    """A :class:`TaskSpec` from a CodeTask node's properties and its target file's text."""
    if file_text is None:
        raise InputError(
            f"task {task.get('task_id')}: its target file {task.get('file_path')!r} is not in "
            "the graph; reload with 'scholarkg load scireplicate'",
            field="file_path",
        )
    return TaskSpec(
        paper_index=int(task["paper_index"]),
        task_index=int(task["task_index"]),
        type=task["entity_type"],
        namespace=task["namespace"],
        indent=int(task["indent"]),
        completion_path=task.get("completion_path") or task["file_path"],
        script=task.get("script") or "",
        latex_code=task.get("latex_code") or "",
        signature_position=(int(task["signature_start"]), int(task["signature_end"])),
        body_position=(int(task["body_start"]), int(task["body_end"])),
        ori_python_file=file_text,
        reference_body=task.get("reference_code") or "",
        arguments=task.get("arguments") or "",
        argument_names=tuple(task.get("argument_names") or ()),
        returns=task.get("returns") or "",
        return_names=tuple(task.get("return_names") or ()),
        dependency_text=task.get("dependency_text") or "",
        intra_file=tuple(task.get("intra_file") or ()),
        cross_file=tuple(task.get("cross_file") or ()),
        external_apis=tuple(task.get("external_apis") or ()),
        missing_details=tuple(task.get("missing_details") or ()),
        mismatched_details=tuple(task.get("mismatched_details") or ()),
        description=task.get("description"),
        project_path=task.get("project_path") or "",
        environment=task.get("environment"),
    )


class ScireplicateTask(BenchmarkTask):
    """SciReplicate-Bench: generated function bodies scored as the released evaluation does."""

    name = "scireplicate"
    family = "scireplicate"
    description = (
        "Reproduce a paper's algorithm as a repository function body; CodeBLEU, reasoning-graph "
        "accuracy, dependency/API recall and sandboxed execution accuracy."
    )
    reference = "Xiang et al., arXiv 2504.00255, Table 3; xyzCS/SciReplicate-Bench:Evaluation.py"
    metrics = (
        TaskMetric(
            "exec_acc",
            "fraction",
            decimals=3,
            description="passed / denominator (released: 100); null when not run",
        ),
        TaskMetric("codebleu", "fraction", decimals=3, description="macro mean of calc_codebleu"),
        TaskMetric("ngram_match_score", "fraction", decimals=3),
        TaskMetric("weighted_ngram_match_score", "fraction", decimals=3),
        TaskMetric("syntax_match_score", "fraction", decimals=3),
        TaskMetric("dataflow_match_score", "fraction", decimals=3),
        TaskMetric(
            "rg_acc",
            "fraction",
            decimals=3,
            description="reasoning-graph accuracy; judge named in the configuration",
        ),
        TaskMetric("recall_intra", "fraction", decimals=3),
        TaskMetric("recall_cross", "fraction", decimals=3),
        TaskMetric("recall_api", "fraction", decimals=3),
    )
    options = (
        TaskOption(
            "judge",
            str,
            "embedding",
            "reasoning-graph node matcher: embedding (offline, "
            "not comparable to GPT-4o), imported (--judgements), identity (self-test)",
            choices=JUDGES,
        ),
        TaskOption(
            "judgements",
            Path,
            None,
            "JSONL of LLM judge answers {paper_id, task_id, response} for --judge imported",
        ),
        TaskOption("match_threshold", float, 0.5, "cosine below which a step matches nothing"),
        TaskOption(
            "embedding_backend",
            str,
            "torch",
            "offline judge's MiniLM: torch (fp32) or torch-int8 (about 1.7x faster on CPU; "
            "a different judge, so runs are compared within one backend)",
            choices=EMBEDDING_BACKENDS,
        ),
        TaskOption("embedding_cache", bool, True, "keep step vectors in <home>/cache (per model)"),
        TaskOption(
            "embedding_threads", int, 1, "torch threads of the judge's encoder (0: torch's)"
        ),
        TaskOption("execute", bool, False, "run the task scripts in the sandbox (exec_acc)"),
        TaskOption("repos_dir", Path, None, "patched repositories (<dir>/<project_path>)"),
        TaskOption("exec_timeout", float, 900.0, "seconds per script run (released: 15 min)"),
        TaskOption("exec_memory_mb", int, 4096, "address-space limit per script run"),
        TaskOption(
            "exec_denominator",
            int,
            0,
            "exec_acc denominator; 0 = number of tasks (100 on the release, the released constant)",
        ),
        TaskOption(
            "python",
            str,
            "",
            "interpreter for 'python' in task scripts; '{env}' is replaced by the paper's "
            "environment name (default: this interpreter)",
        ),
        TaskOption(
            "exec_user",
            str,
            "nobody",
            "run scripts as nobody (needs root and an interpreter every user can run) or as "
            "the current user; either way without network",
            choices=("nobody", "current"),
        ),
        TaskOption(
            "exec_args",
            str,
            "",
            "words appended to every script (the authors' archive: --TestCode)",
        ),
        TaskOption("max_turns", int, 8, "ReAct agent: tool calls before it must answer"),
        TaskOption(
            "max_tokens",
            int,
            None,
            "model answers: tokens per model call (default: SCHOLARKG_LLM_MAX_TOKENS, else 512)",
        ),
        TaskOption(
            "agent",
            str,
            "sci-reproducer",
            "model answers: sci-reproducer (paper + code look-ups) or none (prompt only)",
            choices=("sci-reproducer", "none"),
        ),
    )
    answer_kinds = frozenset({"predictions", "model"})
    prediction_format = PredictionFormat(
        task="scireplicate",
        answer_field="code",
        description="(paper_id, task_id) -> the function body; 'raw' holds the model's final reply",
        id_fields=("paper_id", "task_id"),
    )
    layout = ReportLayout(
        title="SciReplicate-Bench (layout of Table 3)",
        columns=COLUMNS,
        config_keys=("judge", "execute", "agent"),
        instance_label="task",
        published=_published(),
    )
    scores_files = True

    def __init__(self, encoder: Encoder | None = None) -> None:
        #: the step-text encoder of the offline judge (``None``: bundled MiniLM)
        self.encoder = encoder

    def _encoder(self, options: Mapping[str, Any]) -> Encoder | None:
        """The offline judge's encoder: the one given to the task, else MiniLM (cached)."""
        if self.encoder is not None or options["judge"] != "embedding":
            return self.encoder
        from scholarkg.config import load_settings

        cache = load_settings().cache_dir if options["embedding_cache"] else None
        encoder: Encoder = step_encoder(
            options["embedding_backend"], cache_dir=cache, threads=options["embedding_threads"]
        )
        return encoder

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        keys = ["judge", "match_threshold", "execute", "agent"]
        if options["judge"] == "embedding":
            keys.append("embedding_backend")
        return {k: options[k] for k in keys}

    # -- instances ---------------------------------------------------------------------
    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        rows = store.run_named("scireplicate/tasks", {})
        return [self._instance(spec_from_graph(r["task"], r["file"])) for r in rows]

    @staticmethod
    def _instance(spec: TaskSpec) -> Instance:
        return Instance(id=spec.uid, data={"spec": spec})

    def released_instances(self, data: Path) -> list[Instance]:
        return [self._instance(t) for p in read_benchmark(data) for t in p.tasks]

    # -- answers -----------------------------------------------------------------------
    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        if source.kind == "predictions":
            from scholarkg.benchmark.runner import predictions_model

            assert source.path is not None
            model = predictions_model(source.path)
            return Answers(by_instance=self.read_predictions(source.path, instances),
                           source=source, models={"llm": model} if model else {})  # fmt: skip
        specs = [i.data["spec"] for i in instances]
        from scholarkg.benchmark.tasks.scireplicate.agent import generate_answers

        return generate_answers(store, specs, source, options, progress=progress)

    def read_predictions(self, path: Path, instances: Sequence[Instance]) -> dict[str, Any]:
        """Each task's generated code, by (paper, task) index (no store needed)."""
        return read_code_predictions(path, {i.data["spec"].key: i.data["spec"] for i in instances})

    def prediction_rows(
        self, instances: Sequence[Instance], answers: Answers
    ) -> list[dict[str, Any]]:
        """``{"paper_id", "task_id", "code"}`` per answered task (``read_predictions``'s layout)."""
        model = answers.models.get("llm")
        rows = []
        for inst in instances:
            if inst.id not in answers.by_instance:
                continue
            spec: TaskSpec = inst.data["spec"]
            row: dict[str, Any] = {"paper_id": spec.paper_index, "task_id": spec.task_index,
                                   "code": answers.by_instance[inst.id]}  # fmt: skip
            if inst.id in answers.raw:
                row["raw"] = answers.raw[inst.id]
            if model:
                row["model"] = model
            rows.append(row)
        return rows

    # -- scores ------------------------------------------------------------------------
    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        specs: list[TaskSpec] = [i.data["spec"] for i in instances]
        known = {s.key: s for s in specs}
        judgements = None
        if options["judge"] == "imported":
            if options["judgements"] is None:
                raise InputError("--judge imported needs --judgements FILE", field="judgements")
            judgements = read_judgements(options["judgements"], known)
        codes = {k: (v if isinstance(v, str) else None) for k, v in answers.by_instance.items()}
        outcomes = None
        if options["execute"]:
            from scholarkg.benchmark.tasks.scireplicate.sandbox import execute_tasks

            outcomes = execute_tasks(specs, codes, options)
        encoder = self._encoder(options)
        try:
            aggregate, per_task, counts = score_answers(
                specs,
                codes,
                judge=options["judge"],
                judgements=judgements,
                encoder=encoder,
                threshold=options["match_threshold"],
                exec_outcomes=outcomes,
                exec_denominator=options["exec_denominator"] or None,
            )
        finally:
            if encoder is not None and encoder is not self.encoder and hasattr(encoder, "close"):
                encoder.close()
        # n = what each aggregate is over: tasks, judged tasks, or annotated items (pooled)
        n = {k: counts["tasks"] for k in aggregate}
        n.update(
            rg_acc=counts["rg_scored"],
            recall_intra=counts["intra_annotated"],
            recall_cross=counts["cross_annotated"],
            recall_api=counts["api_annotated"],
        )
        return TaskResult(aggregate=aggregate, per_instance=per_task, n=n)

"""The one interface every benchmark task implements: its declarations and base class.

Why: five benchmark families (LEGOBench, DORIS-MAE, citeBench, AAAR-1.0, SciReplicate-Bench)
each build instances from the graph, answer them (with a ranker, a model, or predictions made
elsewhere), score the answers, and report. Only the first three steps differ between tasks;
option checking, timing, the run record, the output files and the report layout must not. So a
task *declares* what it is (:class:`BenchmarkTask` class attributes: metrics with canonical
names and units, options, answer kinds, rankers, report layout) and *implements* three steps;
:func:`scholarkg.benchmark.runner.run_task` does the rest the same way for every task.

Flow (``scholarkg bench run NAME ...`` and the Python API are the same path)::

    options = task.resolve_options(given)           # unknown option -> InputError, no work done
    instances = task.build_instances(store, options) # Cypher candidate retrieval, gold labels
    answers = task.answer(store, instances, source, options)   # ranker | model | predictions
    result = task.score(instances, answers, options) # aggregate + per-instance (+ per-class)
    run_task(...) -> TaskRun                         # timings, RunRecord with units, files

The command line is generic (``commands/bench.py``); the flags every task shares are::

    scholarkg bench run NAME [--ranker R | --model M [--base-url URL] | --predictions FILE]
                             [--out DIR] [--limit N] [--no-record] [--format table|json]
                             [task options: --pool corpus --task subquery ...]
    scholarkg bench score NAME --data PATH --predictions PATH [--format json] [task options]
    scholarkg bench import-predictions NAME FILE [task options]

and everything after them is parsed (``commands/task_args.py``) against the task's own
:class:`TaskOption` list, so a new task needs no CLI code.

Rules every task keeps (checked by ``run_task`` and ``tests/benchmark``):

* every aggregate metric the task returns is declared in ``metrics`` (name *and* unit); the
  run record stores the units, so reports print what was recorded and never guess a scale;
* instance ids are stable graph ids, shared by the tasks of a family (LEGOBench's RPG, RPLM
  and LGPLM all use Leaderboard ids), so per-instance results join across tasks;
* heavy imports (torch, transformers) happen inside methods: the registry imports task
  modules to list them, and ``scholarkg bench list`` must stay instant.
"""

from __future__ import annotations

import json
import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from scholarkg.benchmark.outputs import layout_table
from scholarkg.benchmark.results import ReportLayout, TaskMetric, TaskResult
from scholarkg.errors import InputError, NotSupported
from scholarkg.textio import atomic_write_text

if TYPE_CHECKING:
    from scholarkg.benchmark.runs import RunGraph, RunRecord
    from scholarkg.store.base import GraphReader, GraphStore

log = logging.getLogger(__name__)

__all__ = [
    "AnswerKind",
    "AnswerSource",
    "Answers",
    "BenchmarkTask",
    "Instance",
    "PredictionFormat",
    "TaskOption",
]

#: Where a task's answers come from: a ranker over candidates, a generative model, or a file
#: of predictions produced elsewhere (released outputs, an API run, a GPU machine).
AnswerKind = Literal["ranker", "model", "predictions"]
ANSWER_KINDS: tuple[str, ...] = ("ranker", "model", "predictions")

#: ``progress(stage, n_done, n_total)``; stages are "build", "answer", "score" or a task's own.
StageProgress = Callable[[str, int, int], None]

#: the progress callback of the run being scored: ``score`` keeps its pure signature, and the
#: few scorers that encode text (AAAR's similarity metrics, SciReplicate's judge) report
#: through :func:`scoring_progress` (minutes of encoding on two cores must show a bar)
_SCORING_PROGRESS: ContextVar[StageProgress | None] = ContextVar(
    "scholarkg_scoring_progress", default=None
)


def scoring_progress() -> StageProgress | None:
    """The progress callback of the run whose answers are being scored (None: nobody draws)."""
    return _SCORING_PROGRESS.get()


@contextmanager
def report_scoring_to(progress: StageProgress | None) -> Iterator[None]:
    """Within the block, :func:`scoring_progress` is ``progress`` (run_task, bench score)."""
    token = _SCORING_PROGRESS.set(progress)
    try:
        yield
    finally:
        _SCORING_PROGRESS.reset(token)


# ----------------------------------------------------------------------------- declarations


@dataclass(frozen=True)
class TaskOption:
    """A task-specific option: ``name`` is the Python name, ``--name-with-dashes`` the flag.

    ``kind`` is one of ``str``, ``int``, ``float``, ``bool``, ``Path``, or ``list`` (a
    comma-separated list of strings on the command line, e.g. ``--context-words 100,300``).
    """

    name: str
    kind: type
    default: Any
    help: str
    choices: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def convert(self, raw: Any, *, task: str) -> Any:
        """The typed value of ``raw`` (a CLI string or a Python value); InputError if invalid."""
        value: Any = raw
        try:
            if self.kind is bool:
                if isinstance(raw, str):
                    lowered = raw.strip().lower()
                    if lowered not in ("1", "0", "true", "false", "yes", "no", "on", "off"):
                        raise ValueError(raw)
                    value = lowered in ("1", "true", "yes", "on")
                else:
                    value = bool(raw)
            elif self.kind is list:
                if isinstance(raw, str):
                    value = [part.strip() for part in raw.split(",") if part.strip()]
                else:
                    value = [str(v) for v in raw]
            elif self.kind is Path:
                value = Path(raw).expanduser()
            elif raw is not None:
                value = self.kind(raw)
        except (TypeError, ValueError) as err:
            raise InputError(
                f"task {task!r}: {self.flag} expects {self.kind.__name__}, got {raw!r}",
                field=self.name,
            ) from err
        if self.choices:
            values = value if isinstance(value, list) else [value]
            bad = [v for v in values if str(v) not in self.choices]
            if bad:
                raise InputError(
                    f"task {task!r}: {self.flag} {bad[0]!r} is not one of "
                    f"{', '.join(self.choices)}",
                    field=self.name,
                )
        return value


@dataclass(frozen=True)
class PredictionFormat:
    """How a task's answers are written as a file: what ``bench run --predictions``,
    ``bench import-predictions`` and ``bench score --predictions`` read, and what
    :func:`run_task` writes for every run (``predictions.jsonl``), so a run's answers can be
    scored again without the model.

    ``answer_field`` is the JSONL field holding the answer; ``id_fields`` the fields naming the
    instance (``id`` for most tasks); ``workbook_suffix`` the answer column of released
    ``.xlsx`` workbooks (LEGOBench), if the task has that layout.
    """

    task: str
    answer_field: str
    description: str
    workbook_suffix: str | None = None
    id_fields: tuple[str, ...] = ("id",)
    #: the file :func:`run_task` writes under ``--out``
    file_name: str = "predictions.jsonl"
    #: ``(task, dataset, metric)`` from a workbook's ``prompt``/``instruction`` cell, or
    #: ``None``; the family supplies it, so the shared prediction reader knows no family
    parse_prompt: Callable[[str], tuple[str, str, str] | None] | None = None


@dataclass(frozen=True)
class Instance:
    """One unit the task is scored on: a stable id and whatever the task needs to answer it."""

    id: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AnswerSource:
    """Where answers come from. ``name`` is the ranker name, the model name, or the file.

    ``client`` is an :class:`scholarkg.services.llm.LLMClient` for ``model``; ``path`` is the
    predictions file (or released result folder) for ``predictions``; ``params`` are the
    ranker's or model's settings as the user gave them.
    """

    kind: AnswerKind
    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    client: Any = None
    path: Path | None = None

    def __post_init__(self) -> None:
        if self.kind not in ANSWER_KINDS:
            raise InputError(f"answer source {self.kind!r} not in {ANSWER_KINDS}")
        if self.kind == "predictions" and self.path is None:
            raise InputError("a predictions answer source needs a file", field="predictions")
        if self.kind == "model" and self.client is None:
            raise InputError("a model answer source needs a client", field="model")

    @classmethod
    def ranker(cls, name: str, **params: Any) -> AnswerSource:
        return cls(kind="ranker", name=name, params=params)

    @classmethod
    def predictions(cls, path: str | Path) -> AnswerSource:
        path = Path(path)
        return cls(kind="predictions", name=path.name, path=path)

    @classmethod
    def model(cls, client: Any, name: str | None = None, **params: Any) -> AnswerSource:
        return cls(kind="model", name=name or str(getattr(client, "model", "model")),
                   params=params, client=client)  # fmt: skip


@dataclass
class Answers:
    """The answers of one source to a task's instances, with what produced them.

    ``by_instance`` maps instance ids to the task's answer type (a ranking, a text, a list);
    instances without an answer are absent. ``params`` are the resolved settings of the
    ranker/model (defaults filled in); ``models`` maps roles to model names (``encoder``,
    ``llm``); ``extra`` holds provenance the run config should keep (usage, matching counts).
    """

    #: keyed by instance id, or by a tuple naming a part of an instance when a task answers
    #: per part (AAAR ReviewCritique: ``(paper id, review key)``)
    by_instance: dict[Any, Any]
    source: AnswerSource
    params: dict[str, Any] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    #: prompt-template name -> template text (only hashes are recorded)
    prompts: dict[str, str] = field(default_factory=dict)
    #: the model's raw replies behind each parsed answer (same keys as ``by_instance``), kept
    #: in the predictions file beside the parsed answer for audit; never read by scoring
    raw: dict[Any, Any] = field(default_factory=dict)


# ----------------------------------------------------------------------------- the interface


class BenchmarkTask(ABC):
    """Base of every benchmark task. Subclasses set the class attributes and three methods.

    ``build_instances`` reads the graph (named Cypher queries only); ``answer`` produces one
    answer per instance from the given source; ``score`` is pure (no store), so the same code
    scores answers made here and answers imported from elsewhere. ``score_files`` is the
    store-free path of ``scholarkg bench score`` for tasks whose released data can be scored
    directly from files (``scores_files = True``).
    """

    name: ClassVar[str]
    family: ClassVar[str]
    description: ClassVar[str]
    #: where the definitions come from, e.g. ``"Wang et al., arXiv 2310.04678, Tables 11, 14, 15"``
    reference: ClassVar[str] = ""
    metrics: ClassVar[tuple[TaskMetric, ...]]
    options: ClassVar[tuple[TaskOption, ...]] = ()
    answer_kinds: ClassVar[frozenset[str]] = frozenset({"ranker"})
    #: ranker names ``answer`` accepts (for ``ranker`` sources), best-known baseline first
    rankers: ClassVar[tuple[str, ...]] = ()
    #: which ranker/model reproduces the published baseline (labelled so in reports)
    baseline: ClassVar[str | None] = None
    #: rankers/models that are scholarkg's own contribution (labelled "ours" in reports)
    ours: ClassVar[tuple[str, ...]] = ()
    layout: ClassVar[ReportLayout]
    scores_files: ClassVar[bool] = False
    #: a folder given as ``--predictions`` is ONE released result folder (AAAR-1.0's
    #: ``<run>/<id>/eval_results.json`` layout) rather than a folder of answer files, one per
    #: model (LEGOBench's workbooks)
    predictions_folder_is_one_run: ClassVar[bool] = False
    #: options of :meth:`fit` (``scholarkg bench fit NAME``), for tasks with stored models
    fit_options: ClassVar[tuple[TaskOption, ...]] = ()
    #: the file format of this task's answers (every task that takes ``predictions`` or a
    #: ``model`` declares one); :func:`run_task` writes each run's answers in it
    prediction_format: ClassVar[PredictionFormat | None] = None

    # -- declared things, derived ------------------------------------------------------
    def metric(self, name: str) -> TaskMetric:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(f"task {self.name!r} declares no metric {name!r}")

    def units(self) -> dict[str, str]:
        return {m.name: m.unit for m in self.metrics}

    def decimals(self) -> dict[str, int]:
        """Per metric, the decimals its published table prints (what tables show)."""
        return {m.name: m.decimals for m in self.metrics}

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Defaults filled in, values converted; an option the task does not take is an error.

        ``given`` may use Python names (``context_words``) or flags (``--context-words``);
        ``None`` values mean "not given" so a CLI can pass every declared flag through.
        """
        return resolve_declared_options(
            self.name, self.options, given, f"task {self.name!r}", "no task options"
        )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """What identifies this run's configuration in reports (default: all options).

        Runs are compared only within one configuration, so tasks whose options include
        things that do not change the benchmark (paths, batch sizes) should override this.
        """
        return {k: (str(v) if isinstance(v, Path) else v) for k, v in options.items()}

    def check_source(self, source: AnswerSource) -> None:
        """The source kind (and ranker name) is one this task accepts, before any work."""
        if source.kind not in self.answer_kinds:
            raise InputError(
                f"task {self.name!r} cannot be answered by a {source.kind}; it takes "
                f"{', '.join(sorted(self.answer_kinds))}",
                field=source.kind,
            )
        if source.kind == "ranker" and self.rankers and source.name not in self.rankers:
            raise InputError(
                f"task {self.name!r} has no ranker {source.name!r}; choose one of "
                f"{', '.join(self.rankers)}",
                field="ranker",
            )

    # -- the three steps ---------------------------------------------------------------
    @abstractmethod
    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        """The task's instances, read from the graph (gold labels included in ``data``)."""

    @abstractmethod
    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        """One answer per instance from ``source`` (missing ones are left out)."""

    @abstractmethod
    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        """Aggregate and per-instance scores; pure: no store, no model."""

    def score_files(
        self,
        data: Path,
        predictions: Path,
        options: Mapping[str, Any],
        *,
        only_answered: bool = False,
    ) -> TaskResult:
        """Score answers in released/JSONL files against released data, without a store.

        The one recipe of every task that scores files (``scores_files = True``): the
        instances of the released ``data`` (:meth:`released_instances`), the answers the
        ``predictions`` file gives them (:meth:`read_predictions`), then :meth:`score`, the
        same pure scoring a run's answers get, so a run's predictions file rescores to the
        run's numbers. A task implements the two hooks, never this method.

        ``only_answered`` scores just the instances the file answers (a ``--limit`` run's
        file); otherwise an instance without an answer is scored as an empty answer."""
        if not self.scores_files:
            raise NotSupported(f"task {self.name!r} does not score files; use 'bench run'")
        resolved = self.resolve_options(options)
        instances = self.released_instances(Path(data))
        by_instance = self.read_predictions(Path(predictions), instances)
        if only_answered:
            # a key is an instance id, or a tuple whose first member is one (Answers)
            answered = {k[0] if isinstance(k, tuple) else k for k in by_instance}
            instances = [i for i in instances if i.id in answered]
        answers = Answers(by_instance, AnswerSource.predictions(predictions))
        return self.score(instances, answers, resolved)

    def released_instances(self, data: Path) -> list[Instance]:
        """Hook of :meth:`score_files`: the instances of the released data file or folder
        ``data``, with the ids and gold data :meth:`build_instances` gives the same items
        loaded in the graph."""
        raise NotSupported(f"task {self.name!r} does not read released data")

    def read_predictions(self, path: Path, instances: Sequence[Instance]) -> dict[Any, Any]:
        """Hook of :meth:`score_files` (and of ``answer`` for a ``predictions`` source): the
        answers the file ``path`` gives ``instances``, keyed as :attr:`Answers.by_instance`
        is (an instance the file does not answer is absent)."""
        raise NotSupported(f"task {self.name!r} does not read predictions files")

    # -- answers as a file ------------------------------------------------------------------
    def prediction_rows(
        self, instances: Sequence[Instance], answers: Answers
    ) -> list[dict[str, Any]]:
        """The run's answers as rows of :attr:`prediction_format`: what the task's predictions
        reader takes back, so ``bench score``/``--predictions`` on them gives the run's
        metrics again. Default: ``{"id", <answer_field>: answer, "raw"?, "model"?}`` per
        answered instance; tasks whose answers are not one JSON value per instance override.
        """
        fmt = self.prediction_format
        if fmt is None:
            return []
        model = answers.models.get("llm")
        rows = []
        for inst in instances:
            if inst.id not in answers.by_instance:
                continue
            row: dict[str, Any] = {"id": inst.id, fmt.answer_field: answers.by_instance[inst.id]}
            if inst.id in answers.raw:
                row["raw"] = answers.raw[inst.id]
            if model:
                row["model"] = model
            rows.append(row)
        return rows

    # -- optional hooks (defaults do nothing) -------------------------------------------
    def record_answers(
        self,
        store: RunGraph,
        record: RunRecord,
        instances: Sequence[Instance],
        answers: Answers,
    ) -> None:
        """Write the answers to the graph beside the run (e.g. ``ANSWERED {text}`` edges to
        the instances' nodes); called by :func:`run_task` when the run is recorded in the
        graph. Default: nothing (per-instance scores stay in the run file)."""
        return None

    def fit(self, store: GraphStore, options: Mapping[str, Any]) -> dict[str, Any]:
        """Re-fit the task's stored models (``scholarkg bench fit NAME``); returns the
        document the task stores, provenance included. Options are :attr:`fit_options`."""
        raise NotSupported(f"task {self.name!r} has no stored models to fit")

    def stored_models(self) -> dict[str, Any] | None:
        """The models the package ships (what :meth:`fit` reproduces); ``None`` if none."""
        return None

    def resolve_fit_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """:meth:`resolve_options` for :attr:`fit_options`."""
        return resolve_declared_options(
            self.name, self.fit_options, given, f"'bench fit {self.name}'", "no options"
        )

    # -- outputs -----------------------------------------------------------------------
    def write_outputs(
        self,
        out_dir: Path,
        instances: Sequence[Instance],
        answers: Answers,
        result: TaskResult,
        options: Mapping[str, Any],
    ) -> list[Path]:
        """Files a user asked for with ``--out``: ``metrics.json`` always; tasks add theirs.

        ``metrics.json`` is ``{"aggregate": ..., "per_<instance_label>": ...}`` in the units
        the task declares (``units`` says which), the shape the published evaluation
        scripts print.
        """
        from scholarkg.benchmark.outputs import metrics_payload

        out_dir.mkdir(parents=True, exist_ok=True)
        payload = metrics_payload(self, result)
        path = out_dir / "metrics.json"
        atomic_write_text(path, json.dumps(payload, indent=2, allow_nan=False) + "\n")
        table = out_dir / "table.md"
        atomic_write_text(table, self.results_table(result, answers.source.name, options))
        return [path, table]

    def results_table(self, result: TaskResult, source: str, options: Mapping[str, Any]) -> str:
        """``table.md``: this run in the paper's column order beside the published rows of
        the same configuration (:func:`~scholarkg.benchmark.outputs.layout_table`), each
        metric with its declared decimals. A task whose paper prints another shape
        (citeBench: one row per diagnostic class) overrides it."""
        return layout_table(
            self.layout,
            [(source, result)],
            self.configuration(options),
            decimals=self.decimals(),
        )


def resolve_declared_options(
    task: str,
    options: Sequence[TaskOption],
    given: Mapping[str, Any] | None,
    who: str,
    none: str,
) -> dict[str, Any]:
    """``options``' defaults with ``given`` converted over them (a task's run and fit options,
    and the options of ``bench score``'s file scorers alike); a key no option declares is an
    error naming ``who`` and listing what it takes."""
    declared = {o.name: o for o in options}
    out = {o.name: o.default for o in options}
    for raw_key, value in (given or {}).items():
        key = raw_key.lstrip("-").replace("-", "_")
        option = declared.get(key)
        if option is None:
            takes = ", ".join(o.flag for o in options) or none
            raise InputError(
                f"{who} does not take --{key.replace('_', '-')}; it takes: {takes}", field=key
            )
        if value is not None:
            out[key] = option.convert(value, task=task)
    return out

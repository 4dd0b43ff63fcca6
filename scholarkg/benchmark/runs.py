"""Run records: every benchmark run, kept as a JSON file and as ``:Run`` nodes in the graph.

A number in a results table is only worth something if one can say how it was produced, so
each run records its task, configuration, models, prompt-template hashes, scholarkg version
and git commit, timings, aggregate metrics and *per-instance* scores. The per-instance scores
are what make paired significance tests (``compare_runs``) and bootstrap intervals possible.

Files: ``<runs_dir>/<id>.json`` (``Settings.runs_dir`` = ``$SCHOLARKG_HOME/runs``), written
atomically, and beside it ``<id>.summary.json`` (:class:`RunSummary`: what a listing shows), so
listing runs does not parse every run's per-instance scores. Ids are
``YYYYMMDD-HHMMSS-<task slug>-<hash6>`` so a plain sort is chronological and a short prefix
(``20261122-0412``) is usually enough to name a run on the command line.

Graph: ``(:Run {id, task, created, version, ...})-[:SCORED]->(:MetricResult {id, name, value,
n})``, one ``MetricResult`` per aggregate metric and per (class, metric). Maps are stored as
JSON strings because neither backend stores map properties.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import logging
import math
import re
import signal
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scholarkg import __version__
from scholarkg.benchmark.metrics.stats import Method, paired_test
from scholarkg.errors import InputError
from scholarkg.store.base import GraphReader
from scholarkg.textio import atomic_write_text

if TYPE_CHECKING:
    from scholarkg.store.base import ProgressFn

log = logging.getLogger(__name__)

__all__ = [
    "MetricDelta",
    "RunRecord",
    "RunRegistry",
    "RunSummary",
    "compare_runs",
    "forget_run_in_graph",
    "git_commit",
    "half_recorded_runs",
    "instance_values",
    "make_run_id",
    "new_run",
    "prompt_hash",
    "record_run",
    "record_run_in_graph",
    "run_configuration",
    "why_not_comparable",
]

Score = float | None  # None = undefined for this instance (NaN is written as null in JSON)
_SLUG = re.compile(r"[^A-Za-z0-9._-]+")
#: :class:`RunSummary` layout; older summary files are rebuilt on the next listing
SUMMARY_VERSION = 3
_ID = re.compile(r"^\d{8}-\d{6}-[A-Za-z0-9._-]+-[0-9a-f]{6}$")


class _RunHead(BaseModel):
    """The fields a run and its listing row (:class:`RunSummary`) share, declared once so
    the summary cannot drift from the run it summarises."""

    id: str
    task: str
    #: ISO 8601 UTC timestamp, e.g. ``2026-11-22T04:12:00+00:00``
    created: str
    #: role -> model name, e.g. ``{"encoder": "all-MiniLM-L6-v2", "llm": "smollm2-135m"}``
    models: dict[str, str] = Field(default_factory=dict)
    #: aggregate metrics as the benchmark defines them (not necessarily per-instance means)
    metrics: dict[str, Score] = Field(default_factory=dict)


class RunRecord(_RunHead):
    """Everything needed to reproduce, audit and compare one benchmark run."""

    model_config = ConfigDict(extra="forbid")

    config: dict[str, Any] = Field(default_factory=dict)
    #: prompt-template name -> sha256 prefix of its text (``prompt_hash``)
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    version: str = __version__
    git_commit: str | None = None
    #: phase -> seconds, e.g. ``{"rank": 12.5, "score": 0.3, "total": 13.1}``
    timings: dict[str, float] = Field(default_factory=dict)
    #: instance id -> {metric: score}
    per_instance: dict[str, dict[str, Score]] = Field(default_factory=dict)
    #: optional per-class aggregates, class label -> {metric: value}; labels may carry a
    #: group prefix ``"<group>:<class>"`` (e.g. ``"years:2001-2005"``) for per-group charts
    classes: dict[str, dict[str, Score]] = Field(default_factory=dict)
    notes: str | None = None
    #: the run's answers as rows of the task's prediction file (raw and parsed), so the run
    #: can be scored again without the model (``scholarkg runs predictions RUN``)
    predictions: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def configuration(self) -> dict[str, Any]:
        """What identifies the run's configuration (``config["configuration"]``, the task's
        ``configuration(options)``): runs are compared, and reported side by side, only
        within one task and one configuration (``{}`` for runs recorded without one)."""
        return run_configuration(self.config)

    def metric_names(self) -> list[str]:
        """Aggregate metric names, then any metric that only appears per instance."""
        names = list(self.metrics)
        for scores in self.per_instance.values():
            for name in scores:
                if name not in names:
                    names.append(name)
        return names


class RunSummary(_RunHead):
    """What a listing of runs shows, kept beside the run file (``<id>.summary.json``).

    A run file holds every per-instance score (tens of thousands for a large test
    collection), and listing runs (``scholarkg runs list``, the explorer's runs tab) needs
    none of them. One small file per run rather than one shared index: runs recorded by
    concurrent processes each write their own file atomically, nothing to lock or merge.
    """

    model_config = ConfigDict(extra="ignore")

    #: layout version: a summary written by an older version is rebuilt from its run file
    summary_version: int = 0
    #: number of per-instance score rows
    instances: int = 0
    #: ``config["family"]``, for listing one family's runs
    family: str | None = None
    #: what answered: the ranker, the model, or the predictions' model/file
    answered_by: str | None = None
    #: ``ranker``, ``model`` or ``predictions``
    answer_kind: str | None = None
    #: ``baseline`` (reproduces the paper's baseline), ``ours`` (scholarkg's contribution)
    #: or ``None``
    role: str | None = None
    #: the collection/data the run was on (``--dataset``, or the scored data file)
    dataset: str | None = None
    #: the graph the run read (``None`` for ``bench score``, which reads files)
    graph: str | None = None
    #: :attr:`RunRecord.configuration`: what tells two runs of one task apart in a listing
    configuration: dict[str, Any] = Field(default_factory=dict)

    @classmethod
    def of(cls, run: RunRecord) -> RunSummary:
        config = run.config
        family = config.get("family")
        answer_config = config.get("answer")
        answer: dict[str, Any] = answer_config if isinstance(answer_config, dict) else {}
        role = "baseline" if answer.get("baseline") else "ours" if answer.get("ours") else None
        name = answer.get("model") or answer.get("name")
        configuration = config.get("configuration")
        dataset = configuration.get("dataset") if isinstance(configuration, dict) else None
        if not dataset and isinstance(config.get("data"), str):
            dataset = Path(config["data"]).name
        graph = config.get("graph")
        return cls(
            **{name: getattr(run, name) for name in _RunHead.model_fields},
            summary_version=SUMMARY_VERSION,
            instances=len(run.per_instance),
            family=family if isinstance(family, str) else None,
            answered_by=str(name) if name else None,
            answer_kind=answer.get("kind"),
            role=role,
            dataset=str(dataset) if dataset else None,
            graph=graph if isinstance(graph, str) else None,
            configuration=run.configuration,
        )


def run_configuration(config: Mapping[str, Any]) -> dict[str, Any]:
    """A run config's ``configuration`` (``{}`` when absent or not a mapping)."""
    cfg = config.get("configuration")
    return dict(cfg) if isinstance(cfg, Mapping) else {}


def _task_matches(task: str | None, run_task: str, family: Any) -> bool:
    """``task`` selects runs of that task, of its sub-tasks (``task/...``) or of that family."""
    return (
        task is None
        or run_task == task
        or run_task.startswith(task.rstrip("/") + "/")
        or family == task
    )


def _slug(task: str) -> str:
    return _SLUG.sub("-", task).strip("-") or "run"


def make_run_id(task: str, created: datetime, *, salt: str | None = None) -> str:
    """``YYYYMMDD-HHMMSS-<task slug>-<hash6>``; the hash keeps same-second runs apart."""
    stamp = created.astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    digest = hashlib.sha256(
        f"{task}\x1f{created.isoformat()}\x1f{salt or uuid.uuid4().hex}".encode()
    ).hexdigest()[:6]
    return f"{stamp}-{_slug(task)}-{digest}"


def prompt_hash(template: str) -> str:
    """First 16 hex digits of the template's SHA-256: enough to tell prompt versions apart."""
    return hashlib.sha256(template.encode("utf-8")).hexdigest()[:16]


def git_commit(path: Path | None = None) -> str | None:
    """Commit of the scholarkg checkout (``+dirty`` if modified); ``None`` outside git."""
    where = path or Path(__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=where, capture_output=True, text=True, timeout=5, check=True
        ).stdout.strip()

    try:
        head = git("rev-parse", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if dirty else head or None


def new_run(
    task: str,
    *,
    metrics: Mapping[str, float | None],
    per_instance: Mapping[str, Mapping[str, float | None]] | None = None,
    config: Mapping[str, Any] | None = None,
    models: Mapping[str, str] | None = None,
    prompts: Mapping[str, str] | None = None,
    timings: Mapping[str, float] | None = None,
    classes: Mapping[str, Mapping[str, float | None]] | None = None,
    notes: str | None = None,
    created: datetime | None = None,
    predictions: Sequence[Mapping[str, Any]] | None = None,
) -> RunRecord:
    """Build a record with id, timestamp, version and git commit filled in.

    ``prompts`` maps template names to template *text*; only their hashes are stored.
    NaN metric values become ``None`` so the JSON file stays standard JSON.
    """
    when = created or datetime.now(UTC)
    return RunRecord(
        id=make_run_id(task, when),
        task=task,
        created=when.astimezone(UTC).isoformat(timespec="seconds"),
        config=dict(config or {}),
        models=dict(models or {}),
        prompt_hashes={k: prompt_hash(v) for k, v in (prompts or {}).items()},
        git_commit=git_commit(),
        timings=dict(timings or {}),
        metrics=_clean_scores(metrics),
        per_instance={str(k): _clean_scores(v) for k, v in (per_instance or {}).items()},
        classes={str(k): _clean_scores(v) for k, v in (classes or {}).items()},
        notes=notes,
        predictions=[dict(r) for r in predictions or ()],
    )


def _clean_scores(scores: Mapping[str, float | None]) -> dict[str, Score]:
    return {
        name: _finite(None if value is None else float(value)) for name, value in scores.items()
    }


def load_run_file(path: Path) -> RunRecord:
    """Read one run JSON file; errors name the file and the line or field."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot read run file: {err.strerror}", path=path) from err
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON: {err.msg}", path=path, line=err.lineno) from err
    try:
        return RunRecord.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        loc = ".".join(str(p) for p in first["loc"])
        raise InputError(first["msg"], path=path, field=loc or None) from err


class RunRegistry:
    """The run files in one directory: save atomically, load by id or prefix, list."""

    def __init__(self, runs_dir: str | Path) -> None:
        self.runs_dir = Path(runs_dir)

    def path_for(self, run_id: str) -> Path:
        if not _ID.match(run_id):
            raise InputError(f"malformed run id {run_id!r}", field="id")
        return self.runs_dir / f"{run_id}.json"

    def summary_path(self, run_id: str) -> Path:
        return self.runs_dir / f"{run_id}.summary.json"

    def save(self, run: RunRecord) -> Path:
        """Write ``<runs_dir>/<id>.json`` via a temp file + ``os.replace`` (never half-written),
        then its summary (after it, so a summary is never newer than a run it does not match)."""
        target = self.path_for(run.id)
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(target, run.model_dump_json(indent=2) + "\n")
        atomic_write_text(self.summary_path(run.id), RunSummary.of(run).model_dump_json() + "\n")
        return target

    def ids(self) -> list[str]:
        if not self.runs_dir.is_dir():
            return []
        return sorted(p.stem for p in self.runs_dir.glob("*.json") if _ID.match(p.stem))

    def resolve(self, ref: str) -> str:
        """Full id for an id or unique id prefix; the error lists candidates."""
        ids = self.ids()
        if ref in ids:
            return ref
        matches = [i for i in ids if i.startswith(ref)] if ref else []
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise InputError(
                f"no run {ref!r} in {self.runs_dir} (see `scholarkg runs list`)", field="run"
            )
        shown = ", ".join(matches[:5]) + (" ..." if len(matches) > 5 else "")
        raise InputError(f"run prefix {ref!r} is ambiguous: {shown}", field="run")

    def load(self, ref: str) -> RunRecord:
        """Load by id, id prefix, or path to a run JSON file (e.g. one copied from elsewhere)."""
        path = Path(ref)
        if ref.endswith(".json") and path.is_file():
            return load_run_file(path)
        return load_run_file(self.runs_dir / f"{self.resolve(ref)}.json")

    def list(self, task: str | None = None) -> list[RunRecord]:
        """All runs, oldest first; ``task`` keeps runs whose task equals it or starts with
        ``task + "/"`` (so ``legobench`` selects every LEGOBench run).

        An unreadable file is skipped with a warning so one bad file does not hide the rest;
        ``load`` on it raises the precise error.
        """
        out: list[RunRecord] = []
        for run_id in self.ids():
            run = self._load_listed(run_id)
            if run is not None and _task_matches(task, run.task, run.config.get("family")):
                out.append(run)
        return out

    def summaries(
        self, task: str | None = None, *, graph: str | None = None
    ) -> builtins.list[RunSummary]:
        """What :meth:`list` gives, as :class:`RunSummary` rows read from the summary files
        (``graph``: only runs on that graph).

        A run without a summary, or whose run file is newer than it (recorded before
        summaries existed, copied in, or edited by hand), is read in full once and its
        summary written, so the next listing does not parse it again; an unreadable one is
        skipped with a warning.
        """
        out: builtins.list[RunSummary] = []
        for run_id in self.ids():
            summary = self._read_summary(run_id)
            if summary is None:
                run = self._load_listed(run_id)
                if run is None:
                    continue
                summary = RunSummary.of(run)
                with contextlib.suppress(OSError):  # a read-only runs dir still lists
                    atomic_write_text(
                        self.summary_path(run_id), summary.model_dump_json() + "\n", fsync=False
                    )
            if _task_matches(task, summary.task, summary.family) and (
                graph is None or summary.graph == graph
            ):
                out.append(summary)
        return out

    def _load_listed(self, run_id: str) -> RunRecord | None:
        """The run, or ``None`` with a warning: one bad file must not hide the rest of a
        listing (``load`` on it raises the precise error)."""
        try:
            return load_run_file(self.runs_dir / f"{run_id}.json")
        except InputError as err:
            log.warning("skipping unreadable run file: %s", err)
            return None

    def _read_summary(self, run_id: str) -> RunSummary | None:
        """The summary file of ``run_id`` if it is current and valid, else ``None``."""
        path = self.summary_path(run_id)
        try:
            if path.stat().st_mtime_ns < (self.runs_dir / f"{run_id}.json").stat().st_mtime_ns:
                return None
            summary = RunSummary.model_validate_json(path.read_text(encoding="utf-8"))
            if summary.summary_version < SUMMARY_VERSION:
                return None
        except (OSError, ValueError):  # missing, unreadable, or not a summary
            return None
        return summary if summary.id == run_id else None


def instance_values(run: RunRecord, metric: str) -> dict[str, float]:
    """``{instance: value}`` for one metric; undefined (None) scores become NaN."""
    return {
        iid: (math.nan if (value := scores[metric]) is None else float(value))
        for iid, scores in run.per_instance.items()
        if metric in scores
    }


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


@runtime_checkable
class RunGraph(GraphReader, Protocol):
    """What recording a run needs of a store: reading, and MERGE of nodes and relationships
    (every ``GraphWriter`` is one; so is the recording test double, which keeps the rows)."""

    def merge_nodes(
        self,
        label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int: ...

    def merge_relationships(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
        key: Sequence[str] = (),
    ) -> int: ...


def record_run_in_graph(store: RunGraph, run: RunRecord) -> int:
    """MERGE ``(:Run)`` and one ``(:MetricResult)`` per metric (and per class and metric).

    Idempotent: re-recording the same run updates the same nodes. Returns the number of
    ``SCORED`` relationships written. Per-instance scores stay in the JSON file only; the
    graph holds what queries need (which runs exist, their aggregates).
    """
    run_props: dict[str, Any] = {
        "id": run.id,
        "task": run.task,
        "created": run.created,
        "version": run.version,
        "git_commit": run.git_commit,
        "config": json.dumps(run.config, sort_keys=True, ensure_ascii=False, default=str),
        "models": json.dumps(run.models, sort_keys=True, ensure_ascii=False),
        "prompt_hashes": json.dumps(run.prompt_hashes, sort_keys=True),
        "timings": json.dumps(run.timings, sort_keys=True),
        "n_instances": len(run.per_instance),
        "notes": run.notes,
    }
    store.merge_nodes("Run", [{k: v for k, v in run_props.items() if v is not None}])
    results: list[dict[str, Any]] = []
    for name, value in run.metrics.items():
        # n = instances with a defined score; absent when the metric has no per-instance data
        vals = instance_values(run, name)
        n = sum(1 for v in vals.values() if math.isfinite(v)) if vals else None
        results.append(_metric_row(f"{run.id}:{name}", name, value, n))
    for label, scores in run.classes.items():
        for name, value in scores.items():
            row = _metric_row(f"{run.id}:{label}:{name}", name, value, None)
            row["class_label"] = label
            results.append(row)
    if not results:
        return 0
    store.merge_nodes("MetricResult", results)
    return store.merge_relationships(
        "SCORED", "Run", "MetricResult", [{"start": run.id, "end": r["id"]} for r in results]
    )


def forget_run_in_graph(store: GraphReader, run_id: str) -> int:
    """Remove run ``run_id`` from the graph (its ``:Run``, its ``:MetricResult`` nodes and
    their relationships); how many ``:Run`` nodes went (0 or 1)."""
    rows = store.run_named("runs/forget_run", {"id": run_id})
    return int(rows[0]["removed"]) if rows else 0


#: a ``:Run`` without a run file younger than this may still be being recorded
HALF_RECORDED_AFTER = timedelta(minutes=10)


def half_recorded_runs(
    store: GraphReader, registry: RunRegistry, *, now: datetime | None = None
) -> builtins.list[str]:
    """Ids of ``:Run`` nodes in the graph with no run file, older than
    :data:`HALF_RECORDED_AFTER`: left by a command interrupted while it recorded the run
    (the file is written last), before runs were recorded whole (issue #37)."""
    files = set(registry.ids())
    now = now or datetime.now(UTC)
    out: builtins.list[str] = []
    for row in store.run_named("runs/recorded_runs"):
        run_id = str(row["id"])
        if run_id in files:
            continue
        try:
            created = datetime.fromisoformat(str(row.get("created")))
        except ValueError:
            created = None
        if created is None or now - created >= HALF_RECORDED_AFTER:
            out.append(run_id)
    return out


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held until the block ends, then delivered (to the handlers that were
    there before): what the block writes is written whole. Only the main thread receives
    signals in Python; elsewhere this holds nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: builtins.list[int] = []

    def hold(signum: int, frame: object) -> None:
        pending.append(signum)

    previous = {sig: signal.signal(sig, hold) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if pending:
            signal.raise_signal(pending[0])


def record_run(
    store: RunGraph | None,
    registry: RunRegistry,
    run: RunRecord,
    write_more: Callable[[], None] | None = None,
) -> Path:
    """Record ``run`` whole or not at all: its nodes in the graph (``store``; ``write_more``
    adds what the task writes beside them, e.g. answers), then its file, written last and
    atomically, with SIGINT/SIGTERM held meanwhile. If anything fails, what was written to
    the graph is removed again before the error propagates: no ``:Run`` node without its
    scores and its file, no file without its node."""
    with interrupts_deferred():
        try:
            if store is not None:
                record_run_in_graph(store, run)
                if write_more is not None:
                    write_more()
            return registry.save(run)
        except BaseException:
            if store is not None:
                try:
                    forget_run_in_graph(store, run.id)
                except Exception as err:  # the store may be what failed: keep its error
                    log.info(
                        "run %s may be left half-recorded in the graph (%s); 'scholarkg runs "
                        "list' removes it",
                        run.id,
                        err,
                    )
            raise


def _metric_row(mid: str, name: str, value: float | None, n: int | None) -> dict[str, Any]:
    row: dict[str, Any] = {"id": mid, "name": name}
    if (v := _finite(value)) is not None:
        row["value"] = v
    if n is not None:
        row["n"] = n
    return row


@dataclass(frozen=True)
class MetricDelta:
    """One metric of run ``b`` against baseline run ``a``.

    ``value_a``/``value_b`` are the runs' recorded aggregates; ``mean_a``/``mean_b``/``delta``
    are per-instance means over the ``n`` shared instances where both scores are defined —
    the quantity the paired test is about. For metrics whose aggregate is not a per-instance
    mean (e.g. LEGOBench BEM over complete instances only) the two can differ; the test then
    speaks about the per-instance scores. ``p_value`` is ``None`` without per-instance data.
    """

    metric: str
    value_a: float | None
    value_b: float | None
    mean_a: float | None
    mean_b: float | None
    delta: float | None
    n: int
    p_value: float | None
    method: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "value_a": self.value_a,
            "value_b": self.value_b,
            "mean_a": self.mean_a,
            "mean_b": self.mean_b,
            "delta": self.delta,
            "n": self.n,
            "p_value": self.p_value,
            "method": self.method,
        }


def _shown(value: Any) -> str:
    return "–" if value is None else json.dumps(value, sort_keys=True, default=str)


def why_not_comparable(a: RunRecord, b: RunRecord) -> list[str]:
    """What makes ``b``'s deltas against ``a`` meaningless, each as a phrase (none: they
    compare): another task (other metrics, other units: percent against fractions), a metric
    recorded in other units, or no instance in both runs (nothing for the paired test to
    pair: DORIS-MAE's full queries against its sub-queries). Another configuration alone is
    no reason (:func:`setting_differences`): comparing an encoder, a backend or an agent
    against another on the same instances is what a paired test is for."""
    problems: list[str] = []
    if a.task != b.task:
        problems.append(f"different tasks ({a.task} vs {b.task})")
    units_a, units_b = (run.config.get("units") or {} for run in (a, b))
    other_units = [
        f"{m}: {units_a[m]} vs {units_b[m]}"
        for m in sorted(set(units_a) & set(units_b))
        if units_a[m] != units_b[m]
    ]
    if other_units:
        problems.append(f"different units ({', '.join(other_units)})")
    if not set(a.per_instance) & set(b.per_instance):
        problems.append(
            f"no instance in both runs ({len(a.per_instance)} and {len(b.per_instance)} "
            "instances: nothing to pair)"
        )
    return problems


def setting_differences(a: RunRecord, b: RunRecord) -> str | None:
    """The configuration keys whose values differ between the two runs, said as one phrase
    (``encoder: "minilm" vs "specter2"``), or ``None``: what a comparison of them measures."""
    ca, cb = a.configuration, b.configuration
    differ = [k for k in sorted(set(ca) | set(cb)) if _shown(ca.get(k)) != _shown(cb.get(k))]
    if not differ:
        return None
    return ", ".join(f"{k}: {_shown(ca.get(k))} vs {_shown(cb.get(k))}" for k in differ)


def compare_runs(
    a: RunRecord,
    b: RunRecord,
    *,
    method: Method = "randomization",
    n_resamples: int = 10_000,
    seed: int = 0,
    metrics: Sequence[str] | None = None,
) -> list[MetricDelta]:
    """Per-metric deltas of ``b`` vs ``a`` with a paired test over their shared instances.

    Metrics default to those of ``a`` followed by any only ``b`` has. Instances are matched
    by id; NaN pairs are dropped by ``paired_test``.
    """
    names = list(metrics) if metrics is not None else a.metric_names()
    if metrics is None:
        names += [m for m in b.metric_names() if m not in names]
    out: list[MetricDelta] = []
    for name in names:
        va, vb = instance_values(a, name), instance_values(b, name)
        shared = sorted(set(va) & set(vb))
        agg_a, agg_b = _finite(a.metrics.get(name)), _finite(b.metrics.get(name))
        if shared:
            res = paired_test(
                [va[i] for i in shared],
                [vb[i] for i in shared],
                method=method,
                n_resamples=n_resamples,
                seed=seed,
            )
        if not shared or res.n == 0:
            delta = agg_b - agg_a if agg_a is not None and agg_b is not None else None
            out.append(MetricDelta(name, agg_a, agg_b, None, None, delta, 0, None, method))
            continue
        out.append(
            MetricDelta(
                name, agg_a, agg_b, res.mean_a, res.mean_b, res.delta, res.n, res.p_value, method
            )
        )
    return out

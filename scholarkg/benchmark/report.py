"""Reports: Markdown, JSON and a self-contained HTML page for one or more runs.

A reader compares our numbers with the papers', so a task's table follows the layout the task
declares (``BenchmarkTask.layout``: the paper's column order, its decimals) and prints every
value in the unit recorded with the run (``config["units"]``, written by ``run_task`` from the
task's declared metrics). Nothing is guessed: no metric-name aliases, no rescaling; a run
without recorded units says so in its column headers. Runs of tasks the registry does not know
get a generic table (all metrics, recorded order).

Runs are grouped by task *and* configuration (``config["configuration"]``): tables and
significance tests never mix two benchmarks or two configurations. Within a group every run
is tested against the group's first run (paired test over shared instances,
``runs.compare_runs``); per-instance means carry bootstrap confidence intervals. Each row says
what ran: the ranker or model (the paper's baseline and our own rankers labelled as such), its
encoder or LLM, and the run id. Published numbers a task declares for the configuration are
printed beside, labelled as published. Runs with per-class aggregates get grouped bar charts.
Plots are PNGs drawn with matplotlib's object API on the Agg canvas, written under ``plots/``
for the Markdown file and embedded as base64 in the HTML, which loads nothing external.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scholarkg import __version__
from scholarkg.benchmark.metrics._common import mean_defined
from scholarkg.benchmark.metrics.stats import Method, bootstrap_ci
from scholarkg.benchmark.outputs import GENERIC_DECIMALS, format_p, format_value, markdown_table
from scholarkg.benchmark.runs import MetricDelta, RunRecord, compare_runs, instance_values
from scholarkg.errors import InputError
from scholarkg.schema.ids import content_hash
from scholarkg.textio import json_safe

__all__ = ["Column", "TableLayout", "layout_for", "write_report"]

#: p-values below this are marked with ``*`` in the side-by-side tables
SIGNIFICANCE_LEVEL = 0.05
_UNIT_TEXT = {"percent": "%", "fraction": "0-1", "score": "", "count": "n", "seconds": "s"}


@dataclass(frozen=True)
class Column:
    """One table column: a metric by its canonical name, its decimals and recorded unit."""

    metric: str
    decimals: int = GENERIC_DECIMALS

    @property
    def header(self) -> str:
        return self.metric


@dataclass(frozen=True)
class TableLayout:
    """A task's table: title, columns in the paper's order, configuration keys for the title."""

    title: str
    columns: tuple[Column, ...]
    note: str = ""
    #: configuration keys shown in the section title (the others still separate sections)
    config_keys: tuple[str, ...] = ()
    #: published rows: (label, {metric: value}, source, {config key: value})
    published: tuple[tuple[str, Mapping[str, float], str, Mapping[str, str]], ...] = ()
    #: answer names that are scholarkg's own rankers/models (labelled "ours")
    ours: tuple[str, ...] = ()
    #: the answer that reproduces the paper's baseline (labelled so)
    baseline: str | None = None
    #: units the task declares, for metrics a run records per instance only (run records
    #: carry the units of their aggregate metrics)
    declared_units: Mapping[str, str] = field(default_factory=dict)


def layout_for(task: str) -> TableLayout:
    """The layout ``task`` declares (its registry entry), else a generic one."""
    from scholarkg.benchmark.registry import load_task, task_classes

    if task not in task_classes():
        return TableLayout(task, ())
    bench = load_task(task)
    decimals = {m.name: m.decimals for m in bench.metrics}
    return TableLayout(
        title=bench.layout.title,
        columns=tuple(Column(c, decimals.get(c, GENERIC_DECIMALS)) for c in bench.layout.columns),
        note=bench.reference,
        config_keys=bench.layout.config_keys,
        published=tuple(
            (p.label, dict(p.values), p.source, dict(p.configuration))
            for p in bench.layout.published
        ),
        ours=bench.ours,
        baseline=bench.baseline,
        declared_units=bench.units(),
    )


def _unit(runs: Sequence[RunRecord], metric: str, layout: TableLayout | None = None) -> str | None:
    """The unit recorded for ``metric``, else the one its task declares; ``None`` if neither."""
    for run in runs:
        unit = (run.config.get("units") or {}).get(metric)
        if unit:
            return str(unit)
    return None if layout is None else layout.declared_units.get(metric)


def _header(runs: Sequence[RunRecord], col: Column, layout: TableLayout | None = None) -> str:
    unit = _unit(runs, col.metric, layout)
    if unit is None:
        return f"{col.metric} (unit not recorded)"
    text = _UNIT_TEXT.get(unit, unit)
    return f"{col.metric} ({text})" if text else col.metric


def _configuration(run: RunRecord) -> dict[str, Any]:
    return run.configuration


def _group_key(run: RunRecord) -> str:
    config = _configuration(run)
    return run.task + (" " + json.dumps(config, sort_keys=True, default=str) if config else "")


# --------------------------------------------------------------------------- model


@dataclass
class _Table:
    title: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class _Plot:
    name: str
    title: str
    png: bytes


@dataclass
class _Section:
    key: str
    layout: TableLayout
    runs: list[RunRecord]
    baseline: RunRecord
    columns: list[tuple[Column, list[str | None]]]  # column, metric name per run
    tables: list[_Table] = field(default_factory=list)
    plots: list[_Plot] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The layout's title, the task and the configuration the section is about."""
        config = _configuration(self.runs[0])
        shown = [f"{k}={config[k]}" for k in self.layout.config_keys if k in config]
        task = self.runs[0].task
        base = self.layout.title if self.layout.title != task else f"{task}"
        return base + (f" — {', '.join(shown)}" if shown else "")


def what_ran(run: RunRecord, layout: TableLayout | None = None) -> str:
    """What produced a run, for a reader: ranker or model (baseline / ours labelled), its
    encoder or LLM; from the run's recorded answer source and models."""
    answer = run.config.get("answer") or {}
    name = str(answer.get("name") or "")
    bits: list[str] = []
    if name:
        if answer.get("baseline") or (layout is not None and name == layout.baseline):
            name += " (paper's baseline)"
        elif layout is not None and name in layout.ours:
            name += " (ours)"
        bits.append(name)
    models = [f"{k} {v}" for k, v in run.models.items() if v and v != answer.get("name")]
    bits += models
    return ", ".join(bits) or run.task


def _columns(runs: list[RunRecord], layout: TableLayout) -> list[tuple[Column, list[str | None]]]:
    """The layout's columns some run has, then every other recorded metric (by its name)."""
    out: list[tuple[Column, list[str | None]]] = []
    used: set[str] = set()
    for col in layout.columns:
        names = [col.metric if col.metric in r.metric_names() else None for r in runs]
        if any(names):
            out.append((col, names))
            used.add(col.metric)
    extra: list[str] = []
    for run in runs:
        for name in run.metric_names():
            if name not in used and name not in extra:
                extra.append(name)
    for name in extra:
        col = Column(name, GENERIC_DECIMALS)
        out.append((col, [name if name in r.metric_names() else None for r in runs]))
    return out


def _aggregate(run: RunRecord, metric: str | None) -> float | None:
    if metric is None:
        return None
    value = run.metrics.get(metric)
    if value is None and metric not in run.metrics:
        return mean_defined(instance_values(run, metric).values())
    return value


def _build_section(
    key: str,
    layout: TableLayout,
    runs: list[RunRecord],
    baseline: RunRecord,
    *,
    method: Method,
    n_resamples: int,
    seed: int,
    confidence: float,
) -> _Section:
    sec = _Section(key, layout, runs, baseline, _columns(runs, layout))
    # significance of every run against the baseline, per metric
    comparisons: dict[str, dict[str, MetricDelta]] = {}
    for run in runs:
        if run.id == baseline.id:
            continue
        deltas = compare_runs(baseline, run, method=method, n_resamples=n_resamples, seed=seed)
        comparisons[run.id] = {d.metric: d for d in deltas}

    heads = [_header(runs, c, layout) for c, _ in sec.columns]
    header = ["what ran", "run", "n", *heads]
    rows: list[list[str]] = []
    json_rows: list[dict[str, Any]] = []
    for i, run in enumerate(runs):
        cells = [what_ran(run, layout), run.id, str(len(run.per_instance) or "–")]
        values: dict[str, float | None] = {}
        for col, names in sec.columns:
            value = _aggregate(run, names[i])
            values[col.header] = value
            text = format_value(value, col.decimals)
            delta = comparisons.get(run.id, {}).get(names[i] or "")
            if delta and delta.p_value is not None and delta.p_value < SIGNIFICANCE_LEVEL:
                text += "*"
            cells.append(text)
        rows.append(cells)
        json_rows.append(
            {"run": run.id, "task": run.task, "what_ran": what_ran(run, layout), "values": values}
        )
    config = _configuration(runs[0])
    for label, published, source, where in layout.published:
        if any(str(config.get(k)) != str(v) for k, v in where.items()):
            continue
        cells = [f"{label} — published", source, "–"]
        cells += [format_value(published.get(c.metric), c.decimals) for c, _ in sec.columns]
        rows.append(cells)
    sec.tables.append(_Table(sec.title, header, rows))

    # per-instance means with bootstrap intervals
    ci_header = ["what ran", "run", *heads]
    ci_rows: list[list[str]] = []
    ci_json: dict[str, dict[str, Any]] = {}
    any_ci = False
    for i, run in enumerate(runs):
        cells = [what_ran(run, layout), run.id]
        ci_json[run.id] = {}
        for col, names in sec.columns:
            metric_name = names[i]
            vals = list(instance_values(run, metric_name).values()) if metric_name else []
            finite = [v for v in vals if math.isfinite(v)]
            if not finite:
                cells.append("–")
                continue
            any_ci = True
            mean = sum(finite) / len(finite)
            low, high = bootstrap_ci(finite, confidence=confidence, seed=seed)
            d = col.decimals + 1
            m, lo, hi = mean, low, high
            cells.append(f"{m:.{d}f} [{lo:.{d}f}, {hi:.{d}f}]")
            ci_json[run.id][col.header] = {"mean": mean, "low": low, "high": high, "n": len(finite)}
        ci_rows.append(cells)
    if any_ci:
        pct = round(confidence * 100)
        sec.tables.append(
            _Table(
                f"Per-instance means with {pct}% bootstrap CI (instances resampled)",
                ci_header,
                ci_rows,
            )
        )

    comp_json: list[dict[str, Any]] = []
    for run in runs:
        if run.id not in comparisons:
            continue
        crow: list[list[str]] = []
        for col, names in sec.columns:
            idx = runs.index(run)
            delta = comparisons[run.id].get(names[idx] or "")
            if delta is None:
                continue
            dec = col.decimals + 1
            crow.append(
                [
                    _header(runs, col, layout),
                    format_value(delta.value_a, col.decimals),
                    format_value(delta.value_b, col.decimals),
                    format_value(delta.delta, dec),
                    format_p(delta.p_value),
                    str(delta.n),
                ]
            )
            comp_json.append({"run": run.id, "baseline": baseline.id, **delta.as_dict()})
        sec.tables.append(
            _Table(
                f"{what_ran(run, layout)} ({run.id}) vs {what_ran(baseline, layout)} "
                f"({baseline.id}): {method} test, Δ over shared instances",
                ["metric", "baseline", "run", "Δ", "p", "n"],
                crow,
            )
        )
    sec.data = {
        "key": key,
        "title": sec.title,
        "task": runs[0].task,
        "configuration": _configuration(runs[0]),
        "note": layout.note,
        "baseline": baseline.id,
        "columns": [
            {"header": c.header, "metrics": names, "unit": _unit(runs, c.metric, layout)}
            for c, names in sec.columns
        ],
        "rows": json_rows,
        "ci": ci_json,
        "comparisons": comp_json,
        "method": method,
    }
    return sec


# --------------------------------------------------------------------------- plots


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    return buf.getvalue()


def _bar_chart(title: str, categories: list[str], series: dict[str, list[float]]) -> bytes:
    """Grouped bars: one group per category, one bar per series (run)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    width = max(6.0, 0.5 * len(categories) * max(1, len(series)) + 2)
    fig = Figure(figsize=(min(width, 18.0), 4.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    n = max(1, len(series))
    bar_w = 0.8 / n
    for k, (label, values) in enumerate(series.items()):
        xs = [i - 0.4 + bar_w * (k + 0.5) for i in range(len(categories))]
        ax.bar(xs, [0.0 if not math.isfinite(v) else v for v in values], bar_w, label=label)
    ax.set_xticks(range(len(categories)))
    ax.set_xticklabels(categories, rotation=30 if len(categories) > 5 else 0, ha="right")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    if len(series) > 1:
        ax.legend(fontsize="small")
    return _png(fig)


def _section_plots(sec: _Section) -> list[_Plot]:
    plots: list[_Plot] = []
    slug = re.sub(r"[^a-z0-9]+", "-", sec.runs[0].task.lower()).strip("-") or "generic"
    config = _configuration(sec.runs[0])
    if config:  # one task may have sections for several configurations
        slug += "-" + content_hash(json.dumps(config, sort_keys=True, default=str))[:6]
    # per-class charts, one per (class group, metric)
    groups: dict[str, list[str]] = {}
    for run in sec.runs:
        for label in run.classes:
            grp = label.split(":", 1)[0] if ":" in label else ""
            if label not in groups.setdefault(grp, []):
                groups[grp].append(label)
    for grp, labels in groups.items():
        metrics: list[str] = []
        for run in sec.runs:
            for label in labels:
                for m in run.classes.get(label, {}):
                    if m not in metrics:
                        metrics.append(m)
        for metric in metrics:
            series = {
                _legend(run): [_num(run.classes.get(label, {}).get(metric)) for label in labels]
                for run in sec.runs
            }
            cats = [lab.split(":", 1)[1] if ":" in lab else lab for lab in labels]
            title = f"{metric} per class" + (f" ({grp})" if grp else "")
            name = f"{slug}-{re.sub(r'[^a-z0-9]+', '-', (grp + '-' + metric).lower()).strip('-')}"
            plots.append(_Plot(f"{name}.png", title, _bar_chart(title, cats, series)))
    # overview when several runs are compared
    if len(sec.runs) > 1 and sec.columns:
        cols = [c for c, _ in sec.columns][:12]
        series = {
            _legend(run): [_num(_aggregate(run, names[i])) for c, names in sec.columns[: len(cols)]]
            for i, run in enumerate(sec.runs)
        }
        title = f"{sec.title}: runs side by side"
        plots.append(
            _Plot(
                f"{slug}-overview.png", title, _bar_chart(title, [c.header for c in cols], series)
            )
        )
    return plots


def _legend(run: RunRecord) -> str:
    """Short, unique legend entry: models plus the id's hash suffix."""
    models = ", ".join(run.models.values())
    return f"{models} [{run.id.rsplit('-', 1)[-1]}]" if models else run.id


def _num(value: float | None) -> float:
    return float("nan") if value is None else float(value)


# --------------------------------------------------------------------------- rendering


def _md_table(table: _Table) -> str:
    title = table.title.replace("|", "\\|").replace("\n", " ")
    return f"**{title}**\n\n" + markdown_table(table.header, table.rows)


def _run_summary(run: RunRecord) -> dict[str, Any]:
    return {
        "id": run.id,
        "task": run.task,
        "created": run.created,
        "version": run.version,
        "git_commit": run.git_commit,
        "models": run.models,
        "config": run.config,
        "prompt_hashes": run.prompt_hashes,
        "timings": run.timings,
        "metrics": run.metrics,
        "classes": run.classes,
        "n_instances": len(run.per_instance),
        "notes": run.notes,
    }


def _markdown(runs: list[RunRecord], sections: list[_Section], generated: str) -> str:
    out = [
        "# scholarkg report",
        "",
        f"Generated {generated} by scholarkg {__version__}. "
        f"`*` = p < {SIGNIFICANCE_LEVEL} against the section's first run (paired test over "
        "shared instances). Sections hold one task and one configuration; values are printed "
        "in the units recorded with each run.",
        "",
        "## Runs",
        "",
    ]
    runs_table = [
        [
            run.id,
            run.task,
            run.created,
            ", ".join(f"{k}={v}" for k, v in run.models.items()),
            run.version,
            (run.git_commit or "–")[:12],
        ]
        for run in runs
    ]
    out.append(markdown_table(["id", "task", "created", "models", "version", "commit"], runs_table))
    for sec in sections:
        out += ["", f"## {sec.title}", ""]
        if sec.layout.note:
            out += [f"_{sec.layout.note}_", ""]
        for table in sec.tables:
            out += [_md_table(table), ""]
        for plot in sec.plots:
            out += [f"![{plot.title}](plots/{plot.name})", ""]
    return "\n".join(out).rstrip() + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em auto;max-width:1200px;
color:#222;padding:0 1em}
table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#f3f3f3}caption{font-weight:600;text-align:left;padding:4px 0}
.note{color:#555;font-style:italic}img{max-width:100%;display:block;margin:0.5em 0 1.5em}
"""


def _html_table(table: _Table) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in table.rows
    )
    return (
        f"<table><caption>{html.escape(table.title)}</caption>"
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
    )


def _html(runs: list[RunRecord], sections: list[_Section], generated: str) -> str:
    run_table = _Table(
        "Runs",
        ["id", "task", "created", "models", "version", "commit"],
        [
            [
                r.id,
                r.task,
                r.created,
                ", ".join(f"{k}={v}" for k, v in r.models.items()),
                r.version,
                (r.git_commit or "–")[:12],
            ]
            for r in runs
        ],
    )
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>scholarkg report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>scholarkg report</h1>",
        f"<p>Generated {html.escape(generated)} by scholarkg {html.escape(__version__)}. "
        f"<code>*</code> = p &lt; {SIGNIFICANCE_LEVEL} against the section's first run "
        "(paired test over shared instances). Sections hold one task and one configuration; "
        "values are printed in the units recorded with each run.</p>",
        _html_table(run_table),
    ]
    for sec in sections:
        parts.append(f"<h2>{html.escape(sec.title)}</h2>")
        if sec.layout.note:
            parts.append(f'<p class="note">{html.escape(sec.layout.note)}</p>')
        parts += [_html_table(t) for t in sec.tables]
        for plot in sec.plots:
            data = base64.b64encode(plot.png).decode("ascii")
            parts.append(
                f'<img alt="{html.escape(plot.title)}" src="data:image/png;base64,{data}">'
            )
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# --------------------------------------------------------------------------- entry point


def write_report(
    runs: Sequence[RunRecord],
    out_dir: str | Path,
    *,
    method: Method = "randomization",
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence: float = 0.95,
    progress: Callable[[int, int], None] | None = None,
) -> list[Path]:
    """Write ``report.md``, ``report.json``, ``report.html`` (and ``plots/*.png``) to ``out_dir``.

    Runs are grouped by task and configuration, in the order given; the first run overall is
    the baseline for significance (within a group that lacks it, the group's first run).
    ``progress(done, total)`` is called after each section. Returns the paths written: the
    three reports first, then the plots.
    """
    runs = list(runs)
    if not runs:
        raise InputError("no runs to report", field="runs")
    ids = [r.id for r in runs]
    if len(set(ids)) != len(ids):
        raise InputError("the same run is listed twice", field="runs")
    groups: dict[str, list[RunRecord]] = {}
    layouts: dict[str, TableLayout] = {}
    for run in runs:
        key = _group_key(run)
        groups.setdefault(key, []).append(run)
        if key not in layouts:
            layouts[key] = layout_for(run.task)
    sections: list[_Section] = []
    total = len(groups)
    for done, (key, members) in enumerate(groups.items(), start=1):
        baseline = runs[0] if runs[0] in members else members[0]
        ordered = [baseline] + [r for r in members if r.id != baseline.id]
        sec = _build_section(
            key,
            layouts[key],
            ordered,
            baseline,
            method=method,
            n_resamples=n_resamples,
            seed=seed,
            confidence=confidence,
        )
        sec.plots = _section_plots(sec)
        sec.data["plots"] = [p.name for p in sec.plots]
        sections.append(sec)
        if progress:
            progress(done, total)

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    generated = datetime.now(UTC).isoformat(timespec="seconds")
    md_path, json_path, html_path = out / "report.md", out / "report.json", out / "report.html"
    md_path.write_text(_markdown(runs, sections, generated), encoding="utf-8")
    payload = {
        "generated": generated,
        "scholarkg_version": __version__,
        "significance_level": SIGNIFICANCE_LEVEL,
        "runs": [_run_summary(r) for r in runs],
        "sections": [s.data for s in sections],
    }
    json_path.write_text(
        json.dumps(json_safe(payload), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    html_path.write_text(_html(runs, sections, generated), encoding="utf-8")
    written = [md_path, json_path, html_path]
    plots = [p for s in sections for p in s.plots]
    if plots:
        (out / "plots").mkdir(exist_ok=True)
        for plot in plots:
            path = out / "plots" / plot.name
            path.write_bytes(plot.png)
            written.append(path)
    return written

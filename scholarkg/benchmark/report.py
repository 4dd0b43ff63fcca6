"""Reports: Markdown, JSON and a self-contained HTML page for one or more runs.

A reader compares our numbers with the papers', so each benchmark's table uses the paper's
column order and decimals (``TABLE_LAYOUTS``, matched on the task id prefix); unknown tasks
fall back to all metrics in recorded order. scholarkg's metric functions return 0-1 values
where the papers print ×100 (DORIS-MAE, AAAR-1.0), so such columns carry a display scale of
100, applied only when every value of the column lies in [-1, 1] (a task that already
records percentages is never scaled twice). ``report.json`` keeps the raw values.

With several runs, they appear side by side and every run is tested against the *first*
one (paired test over shared instances, ``runs.compare_runs``); per-instance means carry
bootstrap confidence intervals. Runs with per-class aggregates (citeBench's diagnostic
classes) get grouped bar charts. Plots are PNGs drawn with matplotlib's object API on the
Agg canvas (no pyplot global state, no display), written under ``plots/`` for the Markdown
file and embedded as base64 in the HTML, which loads nothing external.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from scholarkg import __version__
from scholarkg.benchmark.metrics._common import mean_defined
from scholarkg.benchmark.metrics.stats import Method, bootstrap_ci
from scholarkg.benchmark.runs import MetricDelta, RunRecord, compare_runs, instance_values
from scholarkg.errors import InputError
from scholarkg.textio import json_safe

__all__ = ["TABLE_LAYOUTS", "Column", "TableLayout", "layout_for", "write_report"]

#: p-values below this are marked with ``*`` in the side-by-side tables
SIGNIFICANCE_LEVEL = 0.05


@dataclass(frozen=True)
class Column:
    """One table column: header as printed in the paper, metric names it accepts, decimals."""

    header: str
    keys: tuple[str, ...]
    decimals: int = 2
    #: display factor: 100 where the paper prints ×100 but metrics are recorded on 0-1.
    #: Applied only when every value in the column is within [-1, 1], so a task that
    #: already records percentages is never scaled twice.
    scale: float = 1.0


@dataclass(frozen=True)
class TableLayout:
    title: str
    columns: tuple[Column, ...]
    note: str = ""
    #: metrics drawn per class (all class metrics when empty)
    class_metrics: tuple[str, ...] = ()
    #: config keys whose values label a row (e.g. the RPG graph/text configuration)
    label_config: tuple[str, ...] = ()


def _c(header: str, *aliases: str, decimals: int = 2, scale: float = 1.0) -> Column:
    return Column(header, (header, *aliases), decimals, scale)


_RPLM = TableLayout(
    "LEGOBench RPLM (layout of Table 4)",
    (_c("CIS"), _c("BEM"), _c("KTau", "kendall_tau", "tau"), _c("CP")),
    "CIS and CP in %, BEM a fraction, KTau Kendall τ-b; the paper prints '-' for BEM/KTau "
    "when CIS < 1 % (legobench-paper protocol).",
    label_config=("protocol",),
)
_DORIS = TableLayout(
    "DORIS-MAE (layout of Tables 11-16)",
    (
        _c("R@5", "recall@5", scale=100),
        _c("R@20", "recall@20", scale=100),
        _c("RP", "r-precision", "rprec", scale=100),
        _c("NDCG_10%", "ndcg@10%", "ndcg_10pct", "ndcg10pct", scale=100),
        _c("NDCG^exp", "ndcg_exp", "ndcg_exp_10%", "ndcgexp10pct", "ndcg^exp_10%", scale=100),
        _c("MRR@10", "mrr10", scale=100),
        _c("MAP", "ap", scale=100),
    ),
    "Values ×100 as in the paper; state the query set (100 / 60 / first 50) with them.",
    label_config=("split", "query_set"),
)
_CITEREC = TableLayout(
    "citeBench local citation recommendation (Recall@10 / MRR@10 per class)",
    (_c("Recall@10", "R@10", "hit@10", decimals=3), _c("MRR@10", decimals=3)),
    "Averages over samples; per-class values in the charts below.",
    class_metrics=("Recall@10", "MRR@10"),
    label_config=("diag_dataset", "corpus"),
)
_REVIEWCRITIQUE = TableLayout(
    "ReviewCritique deficient-segment detection",
    (_c("P", "precision", scale=100), _c("R", "recall", scale=100), _c("F1", "f1", scale=100)),
    label_config=("combination", "prompt"),
)

#: task-id prefix -> layout. Prefixes match whole components of the task id, and ``/``,
#: ``-``, ``_``, ``.`` and ``:`` are interchangeable separators, so ``legobench/rplm``
#: covers ``legobench/rplm/clean`` and ``legobench-rplm``. The longest prefix wins.
TABLE_LAYOUTS: dict[str, TableLayout] = {
    "legobench/rplm": _RPLM,
    "legobench/rpg": TableLayout(
        "LEGOBench RPG (layout of Table 3, PageRank)",
        (_c("BEM", "BEM%", decimals=3), _c("KTau", "kendall_tau", "tau", decimals=3)),
        "BEM in % of leaderboards (unlike RPLM); one row per graph/text configuration.",
        label_config=("configuration", "graph", "text", "encoder"),
    ),
    "legobench/lgplm": TableLayout(
        "LEGOBench LGPLM (layout of Table 5)",
        (_c("MR", decimals=3), _c("MP"), _c("SP")),
        "Name matching and score tolerance are platform options: not comparable to the paper.",
    ),
    "dorismae": _DORIS,
    "doris/mae": _DORIS,
    "citerec": _CITEREC,
    "citebench": _CITEREC,
    "aaar/eqinfer": TableLayout(
        "AAAR-1.0 EqInfer", (_c("Accuracy", "acc", scale=100),), "Accuracy in % (random 25 %)."
    ),
    "aaar/expdesign": TableLayout(
        "AAAR-1.0 ExpDesign",
        (
            _c("S-F1", "s_f1", scale=100),
            _c("S-P", "s_p", scale=100),
            _c("S-R", "s_r", scale=100),
            _c("S-Match", "s_match", scale=100),
            _c("ROUGE-L", "rougeL", scale=100),
            _c("ROUGE-1", "rouge1", scale=100),
        ),
    ),
    "aaar/weakness": TableLayout(
        "AAAR-1.0 Weakness",
        (
            _c("SN-F1", "sn_f1", scale=100),
            _c("SN-P", "sn_p", scale=100),
            _c("SN-R", "sn_r", scale=100),
            _c("ITF-IDF", "itf_idf"),
        ),
        "ITF-IDF is not comparable across runs with different paper counts W.",
    ),
    "aaar/reviewcritique": _REVIEWCRITIQUE,
    "reviewcritique": _REVIEWCRITIQUE,
    "scireplicate": TableLayout(
        "SciReplicate-Bench (layout of Table 3)",
        (
            _c("Exe Acc", "exec_acc", "execution_accuracy", "exe_acc", decimals=3),
            _c("CodeBLEU", "codebleu", decimals=3),
            _c("RG Acc", "rg_acc", "reasoning_graph_accuracy", decimals=3),
            _c("Intra", "intra_file", "intra_recall", decimals=3),
            _c("Cross", "cross_file", "cross_recall", decimals=3),
            _c("API", "api_recall", decimals=3),
        ),
        "Exe Acc is 'unavailable' without the authors' archive (never 0).",
    ),
}

GENERIC_LAYOUT = TableLayout("Metrics", ())

_SEP = re.compile(r"[/\-_.:\s]+")


def _parts(text: str) -> list[str]:
    return [p for p in _SEP.split(text.lower()) if p]


def layout_for(task: str) -> tuple[str, TableLayout]:
    """(matched prefix, layout) for a task id; ``("", GENERIC_LAYOUT)`` when none matches."""
    tparts = _parts(task)
    best: tuple[str, TableLayout] = ("", GENERIC_LAYOUT)
    best_len = 0
    for prefix, layout in TABLE_LAYOUTS.items():
        kparts = _parts(prefix)
        if tparts[: len(kparts)] == kparts and len(kparts) > best_len:
            best, best_len = (prefix, layout), len(kparts)
    return best


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9%^]", "", name.lower())


def _find_metric(run: RunRecord, column: Column) -> str | None:
    names = {_norm(n): n for n in run.metric_names()}
    for key in column.keys:
        if (hit := names.get(_norm(key))) is not None:
            return hit
    return None


def _fmt(value: float | None, decimals: int) -> str:
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{decimals}f}"


def _fmt_p(p: float | None) -> str:
    if p is None or not math.isfinite(p):
        return "–"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


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


def _run_label(run: RunRecord, layout: TableLayout) -> str:
    bits = [run.id]
    cfg = [str(run.config[k]) for k in layout.label_config if k in run.config]
    models = [v for v in run.models.values()]
    if models:
        bits.append(", ".join(models))
    if cfg:
        bits.append(" / ".join(cfg))
    return " · ".join(bits)


def _columns(runs: list[RunRecord], layout: TableLayout) -> list[tuple[Column, list[str | None]]]:
    out: list[tuple[Column, list[str | None]]] = []
    used: set[str] = set()
    for col in layout.columns:
        names = [_find_metric(r, col) for r in runs]
        if any(names):
            if col.scale != 1.0 and not _within_unit(runs, names):
                col = replace(col, scale=1.0)  # already on the paper's scale
            out.append((col, names))
            used.update(n for n in names if n)
    # metrics the layout does not know are shown too, after the paper's columns
    extra: list[str] = []
    for run in runs:
        for name in run.metric_names():
            if name not in used and name not in extra:
                extra.append(name)
    for name in extra:
        col = Column(name, (name,), 4)
        out.append((col, [name if name in r.metric_names() else None for r in runs]))
    return out


def _within_unit(runs: list[RunRecord], names: list[str | None]) -> bool:
    """True if every recorded value (aggregate and per-instance) lies in [-1, 1]."""
    for run, name in zip(runs, names, strict=True):
        if name is None:
            continue
        values = [run.metrics.get(name), *instance_values(run, name).values()]
        if any(v is not None and math.isfinite(v) and abs(v) > 1.0 for v in values):
            return False
    return True


def _scaled(value: float | None, col: Column) -> float | None:
    return None if value is None else value * col.scale


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

    header = ["run", "n", *[c.header for c, _ in sec.columns]]
    rows: list[list[str]] = []
    json_rows: list[dict[str, Any]] = []
    for i, run in enumerate(runs):
        cells = [_run_label(run, layout), str(len(run.per_instance) or "–")]
        values: dict[str, float | None] = {}
        for col, names in sec.columns:
            value = _aggregate(run, names[i])
            values[col.header] = value
            text = _fmt(_scaled(value, col), col.decimals)
            delta = comparisons.get(run.id, {}).get(names[i] or "")
            if delta and delta.p_value is not None and delta.p_value < SIGNIFICANCE_LEVEL:
                text += "*"
            cells.append(text)
        rows.append(cells)
        json_rows.append({"run": run.id, "task": run.task, "values": values})
    sec.tables.append(_Table(layout.title, header, rows))

    # per-instance means with bootstrap intervals
    ci_header = ["run", *[c.header for c, _ in sec.columns]]
    ci_rows: list[list[str]] = []
    ci_json: dict[str, dict[str, Any]] = {}
    any_ci = False
    for i, run in enumerate(runs):
        cells = [run.id]
        ci_json[run.id] = {}
        for col, names in sec.columns:
            vals = [v for v in instance_values(run, names[i]).values()] if names[i] else []
            finite = [v for v in vals if math.isfinite(v)]
            if not finite:
                cells.append("–")
                continue
            any_ci = True
            mean = sum(finite) / len(finite)
            low, high = bootstrap_ci(finite, confidence=confidence, seed=seed)
            d = col.decimals + 1
            m, lo, hi = (x * col.scale for x in (mean, low, high))
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
            d = comparisons[run.id].get(names[idx] or "")
            if d is None:
                continue
            dec = col.decimals + 1
            crow.append(
                [
                    col.header,
                    _fmt(_scaled(d.value_a, col), col.decimals),
                    _fmt(_scaled(d.value_b, col), col.decimals),
                    _fmt(_scaled(d.delta, col), dec),
                    _fmt_p(d.p_value),
                    str(d.n),
                ]
            )
            comp_json.append({"run": run.id, "baseline": baseline.id, **d.as_dict()})
        sec.tables.append(
            _Table(
                f"{run.id} vs baseline {baseline.id} ({method} test, Δ over shared instances)",
                ["metric", "baseline", "run", "Δ", "p", "n"],
                crow,
            )
        )
    sec.data = {
        "key": key or "generic",
        "title": layout.title,
        "note": layout.note,
        "baseline": baseline.id,
        "columns": [
            {"header": c.header, "metrics": names, "display_scale": c.scale}
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
    slug = re.sub(r"[^a-z0-9]+", "-", (sec.key or "generic").lower()).strip("-")
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
        if sec.layout.class_metrics:
            wanted = {_norm(m) for m in sec.layout.class_metrics}
            metrics = [m for m in metrics if _norm(m) in wanted] or metrics
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
            _legend(run): [
                _num(_scaled(_aggregate(run, names[i]), c)) for c, names in sec.columns[: len(cols)]
            ]
            for i, run in enumerate(sec.runs)
        }
        title = f"{sec.layout.title}: runs side by side"
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


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_table(table: _Table) -> str:
    lines = [
        f"**{_md_escape(table.title)}**",
        "",
        "| " + " | ".join(_md_escape(h) for h in table.header) + " |",
        "|" + "|".join("---" for _ in table.header) + "|",
    ]
    lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines)


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
        f"`*` = p < {SIGNIFICANCE_LEVEL} against the first run (paired test over shared "
        "instances). Columns the paper prints ×100 are scaled when recorded on 0-1 "
        "(`display_scale` in report.json).",
        "",
        "## Runs",
        "",
        "| id | task | created | models | version | commit |",
        "|---|---|---|---|---|---|",
    ]
    for run in runs:
        models = ", ".join(f"{k}={v}" for k, v in run.models.items())
        out.append(
            "| "
            + " | ".join(
                _md_escape(x)
                for x in (
                    run.id,
                    run.task,
                    run.created,
                    models,
                    run.version,
                    (run.git_commit or "–")[:12],
                )
            )
            + " |"
        )
    for sec in sections:
        out += ["", f"## {sec.layout.title}", ""]
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
        f"<code>*</code> = p &lt; {SIGNIFICANCE_LEVEL} against the first run (paired test "
        "over shared instances). Columns the paper prints ×100 are scaled when recorded "
        "on 0-1 (<code>display_scale</code> in report.json).</p>",
        _html_table(run_table),
    ]
    for sec in sections:
        parts.append(f"<h2>{html.escape(sec.layout.title)}</h2>")
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

    Runs are grouped by table layout (benchmark family), in the order given; the first run
    overall is the baseline for significance (within a group that lacks it, the group's
    first run). ``progress(done, total)`` is called after each section. Returns the paths
    written: the three reports first, then the plots.
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
        key, layout = layout_for(run.task)
        groups.setdefault(key, []).append(run)
        layouts[key] = layout
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

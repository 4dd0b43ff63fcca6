"""Terminal presentation shared by the CLI and the demo: consoles, row tables, counters, summaries.

Not under ``commands/`` because the demo (and anything else that is not a CLI verb) prints
the same tables; the dependency goes CLI → library, never back. Library functions that do
work take a ``progress`` callback and return data; the drawing lives here.
"""

from __future__ import annotations

import csv
import io
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import ProgressColumn, Task, TaskID
from rich.table import Table
from rich.text import Text

from scholarkg.textio import json_safe

#: Width of output that is not a terminal (a pipe, a file). Rich's default there is 80
#: columns, which folds wide tables and splits numbers across lines; a reader of piped output
#: (grep, a file, a CI log) wants one row per line. ``COLUMNS`` still wins when set.
PIPE_WIDTH = 100


def _console(*, stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    try:
        tty = stream.isatty()
    except (AttributeError, ValueError):
        tty = False
    width = None if tty or os.environ.get("COLUMNS") else PIPE_WIDTH
    return Console(stderr=stderr, width=width)


console = _console()
err_console = _console(stderr=True)

OUTPUT_FORMATS = ("table", "json", "csv")


def to_json(data: Any) -> str:
    return json.dumps(json_safe(data), ensure_ascii=False)


def print_rows(
    rows: Sequence[dict[str, Any]],
    fmt: str = "table",
    *,
    title: str | None = None,
    out: Console | None = None,
    nowrap: Sequence[str] = (),
) -> None:
    """Print query rows as a rich table (on ``out``, default stdout), a JSON list, or CSV.

    ``nowrap``: columns a table never folds (ids: a reader copies them whole); the other
    columns give way, long titles are cut with an ellipsis."""
    if fmt == "json":
        print(to_json(list(rows)))
        return
    columns: list[str] = []
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    if fmt == "csv":
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k)) for k in columns})
        print(buf.getvalue(), end="")
        return
    out = out or console
    table = Table(title=title, show_lines=False)
    widths = {c: max((len(_cell(r.get(c))) for r in rows), default=0) for c in columns}
    squeeze = "title" if nowrap and "title" in columns else None
    for col in columns:
        if col in nowrap or (nowrap and col != squeeze and widths[col] <= 12):
            # ids, ranks, years: whole, never folded
            table.add_column(col, no_wrap=True, min_width=max(widths[col], len(col)))
        elif col == squeeze:
            # what is left of the width once every other column has its minimum
            others = [c for c in columns if c != col]
            fixed = sum(
                max(widths[c], len(c)) if (c in nowrap or widths[c] <= 12) else min(widths[c], 28)
                for c in others
            )
            room = out.width - fixed - 3 * len(columns) - 1
            table.add_column(col, overflow="ellipsis", no_wrap=True, max_width=max(16, room))
        elif nowrap:
            table.add_column(col, overflow="fold", min_width=min(widths[col], 28))
        else:
            table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*(_cell(row.get(c)) for c in columns))
    out.print(table)
    out.print(f"[dim]{len(rows)} row(s)[/dim]")


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict | list):
        return to_json(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


# -- progress ----------------------------------------------------------------------------
# One mechanism for every long command: library functions report ``progress(stage, done,
# total)`` (``total`` None while a stage streams), and :func:`progress_display` turns those
# calls into rich bars on a terminal or into plain lines in a pipe, a file or a CI log.

#: ``SCHOLARKG_PROGRESS``: ``auto`` (bars on a terminal, lines otherwise), ``bars``,
#: ``lines`` or ``off``
PROGRESS_ENV = "SCHOLARKG_PROGRESS"
#: ``SCHOLARKG_PROGRESS_INTERVAL``: seconds between two lines of one stage (default 10)
INTERVAL_ENV = "SCHOLARKG_PROGRESS_INTERVAL"
DEFAULT_INTERVAL = 10.0
#: besides the interval, a line when a stage with a known total crosses each tenth of it,
#: but never two lines of one stage closer than this fraction of the interval
_STEP_GAP = 0.1

#: ``progress(stage, done, total)``: what every long command's library call reports
StageProgress = Callable[[str, int, "int | None"], None]


def progress_mode(out: Console | None = None) -> str:
    """``bars``, ``lines`` or ``off``: ``SCHOLARKG_PROGRESS``, else bars on a terminal."""
    mode = os.environ.get(PROGRESS_ENV, "auto").strip().lower() or "auto"
    if mode not in ("auto", "bars", "lines", "off"):
        raise ValueError(f"{PROGRESS_ENV}={mode!r}: choose auto, bars, lines or off")
    if mode == "auto":
        return "bars" if (out or err_console).is_terminal else "lines"
    return mode


def progress_interval() -> float:
    text = os.environ.get(INTERVAL_ENV, "")
    try:
        value = float(text) if text.strip() else DEFAULT_INTERVAL
    except ValueError:
        raise ValueError(f"{INTERVAL_ENV}={text!r}: a number of seconds") from None
    return max(0.0, value)


def human_count(n: float, unit: str, *, as_bytes: bool = False) -> str:
    """``12,345 works`` (or ``1.2 GB`` with ``as_bytes``)."""
    if as_bytes:
        for scale, name in ((2**30, "GB"), (2**20, "MB"), (2**10, "kB")):
            if n >= scale:
                return f"{n / scale:,.1f} {name}"
        return f"{n:,.0f} B"
    return f"{n:,.0f} {unit}".rstrip()


def rate_text(rate: float, unit: str, *, as_bytes: bool = False) -> str:
    """``1,905 works/s``, ``2.5 nodes/s``, ``12.0 MB/s``."""
    if as_bytes:
        return f"{human_count(rate, '', as_bytes=True)}/s"
    number = f"{rate:,.0f}" if rate >= 10 else f"{rate:,.1f}"
    return f"{number} {unit}/s" if unit else f"{number}/s"


def human_seconds(s: float) -> str:
    """``42 s``, ``3 min 05 s``, ``2 h 07 min``."""
    s = max(0.0, s)
    if s < 60:
        return f"{s:.1f} s" if s < 10 else f"{s:.0f} s"
    m, sec = divmod(round(s), 60)
    if m < 60:
        return f"{m} min {sec:02d} s"
    h, m = divmod(m, 60)
    return f"{h} h {m:02d} min"


class _Stage:
    __slots__ = ("done", "finished", "last_line", "last_step", "lines", "start", "total", "unit")

    def __init__(self, unit: str, now: float) -> None:
        self.unit = unit
        self.start = now
        self.done = 0
        self.total: int | None = None
        self.finished = False
        self.last_line = now
        self.last_step = 0
        self.lines = 0


class ProgressLines:
    """Progress as plain lines for a pipe, a file or a CI log (no cursor tricks).

    A line per running stage every ``interval`` seconds (also when no count came in since:
    a heartbeat thread keeps a log of a long batch alive), and at each tenth of a known
    total, never two lines of a stage closer than a tenth of the interval: the count, the
    rate and, with a total, the percentage and the time left. A stage ends with one line of
    totals when ``done`` reaches ``total``, or when the display closes (``close``), which
    says "stopped" for the stages an error interrupted. Output goes to ``out`` (stderr by
    default), so ``--format json`` on stdout stays clean.
    """

    def __init__(
        self,
        out: Console,
        *,
        unit: str | Callable[[str], str] = "",
        as_bytes: bool = False,
        interval: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        expected: int | None = None,
    ) -> None:
        self.out = out
        self.unit = unit
        self.as_bytes = as_bytes
        #: what all stages together will count (e.g. a snapshot manifest's record counts):
        #: running lines then also say how far the whole job is and the time it has left
        self.expected = expected
        self.began = clock()
        self.carried = 0  # counts of finished stages whose name a later stage took
        self.interval = progress_interval() if interval is None else interval
        self.clock = clock
        self.stages: dict[str, _Stage] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the heartbeat (a daemon thread calling :meth:`tick`)."""
        if self._thread is None and self.interval > 0:
            self._thread = threading.Thread(target=self._beat, name="progress-lines", daemon=True)
            self._thread.start()

    def _beat(self) -> None:
        wait = min(1.0, max(0.05, self.interval / 10))
        while not self._stop.wait(wait):
            self.tick()

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        with self._lock:
            now = self.clock()
            st = self.stages.get(stage)
            if st is None or (st.finished and (done < st.done or total != st.total)):
                if st is not None:  # a stage name used again (part_000.gz of another day)
                    self.carried += st.done
                unit = self.unit(stage) if callable(self.unit) else self.unit
                st = self.stages[stage] = _Stage(unit, now)
            if st.finished:
                return
            st.done, st.total = int(done), total
            if total is not None and done >= total:
                st.finished = True
                self._print(stage, st, now, final=True)
                return
            quiet_for = now - st.last_line
            stepped = total is not None and int(10 * done / total) > st.last_step
            if quiet_for >= self.interval or (stepped and quiet_for >= self.interval * _STEP_GAP):
                self._print(stage, st, now, final=False)

    def tick(self) -> None:
        """A line for each running stage that printed none for ``interval`` seconds."""
        with self._lock:
            now = self.clock()
            for stage, st in self.stages.items():
                if not st.finished and now - st.last_line >= self.interval:
                    self._print(stage, st, now, final=False)

    def note(self, text: str) -> None:
        """A line of its own (what a stage is doing when it has no count to show)."""
        with self._lock:
            self.out.print(text, highlight=False, markup=False, soft_wrap=True)

    def close(self, *, failed: bool = False) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            now = self.clock()
            for stage, st in self.stages.items():
                if not st.finished and (st.done or st.lines or failed):
                    st.finished = True
                    self._print(stage, st, now, final=True, stopped=failed)

    def _count(self, n: float, unit: str) -> str:
        return human_count(n, unit, as_bytes=self.as_bytes)

    def _overall(self, now: float) -> str:
        """``; all: 45,000/100,000 (45%), eta 5 min 10 s`` with an ``expected`` total."""
        if not self.expected:
            return ""
        done = self.carried + sum(st.done for st in self.stages.values())
        text = f"; all: {self._count(done, '')}/{self._count(self.expected, '')}"
        text += f" ({min(100.0, 100.0 * done / self.expected):.0f}%)"
        spent = now - self.began
        if 0 < done < self.expected and spent > 0:
            text += f", eta {human_seconds((self.expected - done) * spent / done)}"
        return text

    def _print(
        self, stage: str, st: _Stage, now: float, *, final: bool, stopped: bool = False
    ) -> None:
        st.last_line = now
        st.lines += 1
        if st.total:
            st.last_step = int(10 * st.done / st.total)
        elapsed = now - st.start
        rate = (
            rate_text(st.done / elapsed, st.unit, as_bytes=self.as_bytes)
            if elapsed > 0 and st.done
            else ""
        )
        what = self._count(st.done, st.unit)
        if final:
            took = human_seconds(elapsed)
            if stopped:
                text = f"{stage}: stopped after {what} in {took}"
            elif st.done or st.total is not None:
                text = f"{stage}: {what} in {took}"
            else:  # a stage that counts nothing (a message): how long it took
                text = f"{stage}: done in {took}"
            text += f" ({rate})" if rate else ""
        else:
            parts = []
            if st.total:
                pct = 100.0 * st.done / st.total
                parts.append(
                    f"{self._count(st.done, '')}/{self._count(st.total, st.unit)} ({pct:.0f}%)"
                )
            elif st.done:
                parts.append(what)
            if rate:
                parts.append(rate)
            parts.append(f"{human_seconds(elapsed)} elapsed")
            if st.total and st.done:
                parts.append(f"eta {human_seconds((st.total - st.done) * elapsed / st.done)}")
            text = f"{stage}: " + ", ".join(parts) + self._overall(now)
        self.out.print(text, highlight=False, markup=False, soft_wrap=True)


class _CountColumn(ProgressColumn):
    """``1,234/5,000 works`` (or ``1,234 works`` while the total is unknown)."""

    def __init__(self, as_bytes: bool) -> None:
        super().__init__()
        self.as_bytes = as_bytes

    def render(self, task: Task) -> Text:
        unit = str(task.fields.get("unit", ""))
        done = human_count(task.completed, unit, as_bytes=self.as_bytes)
        if task.total is not None:
            total = human_count(task.total, unit, as_bytes=self.as_bytes)
            done = f"{human_count(task.completed, '', as_bytes=self.as_bytes)}/{total}"
        return Text(done, style="progress.download")


class _RateColumn(ProgressColumn):
    """Items per second (``1,905 works/s``), blank until rich has measured a speed."""

    def __init__(self, as_bytes: bool) -> None:
        super().__init__()
        self.as_bytes = as_bytes

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text("", style="progress.data.speed")
        unit = str(task.fields.get("unit", ""))
        return Text(rate_text(speed, unit, as_bytes=self.as_bytes), style="progress.data.speed")


class _EtaColumn(ProgressColumn):
    """``eta 3 min 05 s`` when the total is known, blank otherwise."""

    def render(self, task: Task) -> Text:
        left = task.time_remaining
        if task.total is None or left is None or task.finished:
            return Text("")
        return Text(f"eta {human_seconds(left)}", style="progress.remaining")


class ProgressBars:
    """The same calls drawn as rich bars on a terminal, one row per stage."""

    def __init__(
        self,
        out: Console,
        *,
        unit: str | Callable[[str], str] = "",
        as_bytes: bool = False,
        transient: bool = False,
        expected: int | None = None,
    ) -> None:
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.unit = unit
        self.counts: dict[str, int] = {}
        self.carried = 0
        self.bar = Progress(
            SpinnerColumn(),
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            _CountColumn(as_bytes),
            _RateColumn(as_bytes),
            TimeElapsedColumn(),
            _EtaColumn(),
            console=out,
            transient=transient,
        )
        self.tasks: dict[str, TaskID] = {}
        self.all: TaskID | None = None
        if expected:
            unit_all = "" if callable(unit) else unit
            self.all = self.bar.add_task("all", total=expected, unit=unit_all)

    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        if stage not in self.tasks:
            unit = self.unit(stage) if callable(self.unit) else self.unit
            self.tasks[stage] = self.bar.add_task(stage, total=total, unit=unit)
        self.bar.update(self.tasks[stage], completed=done, total=total)
        if self.all is not None:
            if done < self.counts.get(stage, 0):  # a stage name used again
                self.carried += self.counts[stage]
            self.counts[stage] = done
            self.bar.update(self.all, completed=self.carried + sum(self.counts.values()))

    def note(self, text: str) -> None:
        self.bar.console.print(text, highlight=False, markup=False)

    def close(self, *, failed: bool = False) -> None:
        self.bar.stop()


class _NoProgress:
    def __call__(self, stage: str, done: int, total: int | None = None) -> None:
        return None

    def note(self, text: str) -> None:
        return None

    def close(self, *, failed: bool = False) -> None:
        return None


#: what :func:`progress_display` yields: ``progress(stage, done, total)`` plus ``note(text)``
ProgressDisplay = ProgressLines | ProgressBars | _NoProgress


@contextmanager
def progress_display(
    *,
    unit: str | Callable[[str], str] = "",
    as_bytes: bool = False,
    transient: bool = False,
    out: Console | None = None,
    expected: int | None = None,
) -> Iterator[ProgressDisplay]:
    """The one progress display of every long command: yields ``progress(stage, done,
    total=None)`` (``total`` None while a stage streams; ``done == total`` ends a stage).

    On a terminal: rich bars (count, rate, elapsed, ETA), one row per stage, on stderr.
    In a pipe, a file or a CI log: :class:`ProgressLines` (a line per stage every ~10 s or
    each tenth of a known total, and a final line of totals). ``SCHOLARKG_PROGRESS`` forces
    ``bars``, ``lines`` or ``off``. ``unit`` names what a stage counts (``works``), or is a
    function of the stage name; ``as_bytes`` shows sizes (downloads); ``expected``, what
    all stages will count together, adds the whole job's share and time left to the lines
    (an ``all`` bar on a terminal). Leaving the block ends the display, so a message
    printed after an error comes below it.
    """
    out = out or err_console
    mode = progress_mode(out)
    display: ProgressDisplay
    if mode == "off":
        display = _NoProgress()
    elif mode == "bars":
        display = ProgressBars(
            out, unit=unit, as_bytes=as_bytes, transient=transient, expected=expected
        )
        display.bar.start()
    else:
        display = ProgressLines(out, unit=unit, as_bytes=as_bytes, expected=expected)
        display.start()
    try:
        yield display
    except BaseException:
        display.close(failed=True)
        raise
    display.close()


@contextmanager
def activity(text: str, *, out: Console | None = None) -> Iterator[None]:
    """A step with nothing to count (compacting the store, loading a model, fitting): a
    spinner on a terminal; in a log, a line every interval while it runs and one saying how
    long it took, if it ran that long (a short step prints nothing)."""
    out = out or err_console
    mode = progress_mode(out)
    if mode == "bars":
        with out.status(text):
            yield
    elif mode == "off":
        yield
    else:
        with progress_display(out=out) as show:
            show(text, 0, None)
            yield


@contextmanager
def stage_counter(
    count_column: str = "records", *, out: Console | None = None
) -> Iterator[StageProgress]:
    """:func:`progress_display` counting ``count_column`` (a unit: ``records``) per stage:
    the shape of ``loaders.steps.run_steps``' callback (``total`` None while a stage
    streams, the final count when it ends)."""
    with progress_display(unit=count_column, out=out) as progress:
        yield progress


@contextmanager
def working(text: str, *, out: Console | None = None) -> Iterator[None]:
    """A step of unknown length that says it is running wherever the output goes.

    On a terminal: rich's spinner (``Console.status``). In a pipe or a log, where a spinner
    prints nothing at all: ``text…`` when the step begins, ``text: still running, N s`` every
    ``SCHOLARKG_PROGRESS_INTERVAL`` seconds (10 by default) and ``text: done in N s`` at the
    end, so a log shows a long PageRank or a checkpointing server moving. ``SCHOLARKG_PROGRESS
    =off`` prints nothing.
    """
    out = out or err_console
    mode = progress_mode(out)
    if mode == "off":
        yield
        return
    if mode == "bars":
        with out.status(text):
            yield
        return
    t0 = time.monotonic()
    stop = threading.Event()
    interval = progress_interval()

    def beat() -> None:
        while not stop.wait(interval):
            out.print(f"{text}: still running, {time.monotonic() - t0:.0f} s", highlight=False)

    out.print(f"{text}…", highlight=False)
    thread = threading.Thread(target=beat, daemon=True) if interval > 0 else None
    if thread is not None:
        thread.start()
    try:
        yield
    finally:
        stop.set()
        if thread is not None:
            thread.join()
    out.print(f"{text}: done in {time.monotonic() - t0:.1f} s", highlight=False)

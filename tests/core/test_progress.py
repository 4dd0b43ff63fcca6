"""Progress where people look: lines in a pipe or a log, bars on a terminal, stdout clean.

The line rules on a fake clock (:class:`scholarkg.console.ProgressLines`), then the real CLI
in a subprocess with its output captured (a pipe, not a terminal): a real ``load openalex``
and ``graph embed --format json`` on the session's embedded server.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from scholarkg.console import (
    INTERVAL_ENV,
    PROGRESS_ENV,
    ProgressLines,
    activity,
    human_seconds,
    progress_display,
    progress_mode,
)
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _lines(interval: float = 10.0, **kw: object) -> tuple[ProgressLines, io.StringIO, Clock]:
    buf = io.StringIO()
    clock = Clock()
    out = Console(file=buf, width=200, force_terminal=False)
    return ProgressLines(out, interval=interval, clock=clock, **kw), buf, clock  # type: ignore[arg-type]  # unit / as_bytes only


def test_a_streaming_stage_prints_every_interval_and_its_totals() -> None:
    lines, buf, clock = _lines(unit="works")
    lines("load (a.gz)", 0, None)
    for n in range(1, 31):  # a batch of 100 works every second, for 30 s
        clock.now += 1.0
        lines("load (a.gz)", 100 * n, None)
    lines("load (a.gz)", 3000, 3000)  # the stage ends: its final count
    out = buf.getvalue().splitlines()
    assert out == [
        "load (a.gz): 1,000 works, 100 works/s, 10 s elapsed",
        "load (a.gz): 2,000 works, 100 works/s, 20 s elapsed",
        "load (a.gz): 3,000 works, 100 works/s, 30 s elapsed",
        "load (a.gz): 3,000 works in 30 s (100 works/s)",
    ]
    lines.close()  # a finished stage says nothing more
    assert len(buf.getvalue().splitlines()) == 4


def test_a_known_total_prints_each_tenth_with_eta_but_never_floods() -> None:
    lines, buf, clock = _lines(unit="nodes")
    lines("embedding Paper", 0, 640)  # a stage's clock starts at its first report
    for n in range(1, 641):  # 640 nodes at 64/s: a tenth every second (exact in binary)
        clock.now += 1 / 64
        lines("embedding Paper", n, 640)
    out = buf.getvalue().splitlines()
    assert out[0] == "embedding Paper: 64/640 nodes (10%), 64 nodes/s, 1.0 s elapsed, eta 9.0 s"
    assert out[-1] == "embedding Paper: 640 nodes in 10 s (64 nodes/s)"
    assert len(out) == 10  # nine tenths and the totals

    fast, buf, clock = _lines(unit="nodes")  # the whole job in 0.1 s: tenths come too fast
    fast("embedding Paper", 0, 1000)
    for n in range(1, 1001):
        clock.now += 0.0001
        fast("embedding Paper", n, 1000)
    assert buf.getvalue().splitlines() == ["embedding Paper: 1,000 nodes in 0.1 s (10,000 nodes/s)"]


def test_heartbeat_stopped_stages_bytes_and_notes() -> None:
    lines, buf, clock = _lines(unit="works")
    lines("one huge batch", 0, None)
    clock.now += 9.9
    lines.tick()
    assert buf.getvalue() == ""  # not yet an interval
    clock.now += 0.2
    lines.tick()  # no count came in for 10 s: the log still hears from the stage
    assert buf.getvalue().splitlines() == ["one huge batch: 10 s elapsed"]
    lines("one huge batch", 500, None)
    lines.note("retiring merged ids")
    lines.close(failed=True)
    assert buf.getvalue().splitlines()[1:] == [
        "retiring merged ids",
        "one huge batch: stopped after 500 works in 10 s (50 works/s)",
    ]

    download, buf, clock = _lines(as_bytes=True)
    download("data.zip", 0, 6 * 2**20)
    clock.now += 2.0
    download("data.zip", 3 * 2**20, 6 * 2**20)
    clock.now += 2.0
    download("data.zip", 6 * 2**20, 6 * 2**20)
    assert buf.getvalue().splitlines() == [
        "data.zip: 3.0 MB/6.0 MB (50%), 1.5 MB/s, 2.0 s elapsed, eta 2.0 s",
        "data.zip: 6.0 MB in 4.0 s (1.5 MB/s)",
    ]


def test_an_expected_total_gives_the_whole_job_an_eta() -> None:
    lines, buf, clock = _lines(unit="works", expected=4000)
    for name in ("a (part_000.gz)", "b (part_001.gz)", "a (part_000.gz)"):  # a name used again
        lines(name, 0, None)
        for _ in range(10):
            clock.now += 1.0
            lines(name, lines.stages[name].done + 100, None)
        lines(name, 1000, 1000)
    assert buf.getvalue().splitlines()[-2:] == [
        "a (part_000.gz): 1,000 works, 100 works/s, 10 s elapsed; all: 3,000/4,000 (75%), eta 10 s",
        "a (part_000.gz): 1,000 works in 10 s (100 works/s)",
    ]


def test_an_activity_without_counts_shows_in_a_log_only_when_it_lasts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import time

    monkeypatch.setenv(PROGRESS_ENV, "lines")
    monkeypatch.setenv(INTERVAL_ENV, "0.05")
    buf = io.StringIO()
    out = Console(file=buf, width=200, force_terminal=False)
    with activity("compacting", out=out):
        pass
    assert buf.getvalue() == ""  # a short step says nothing
    with activity("compacting", out=out):
        time.sleep(0.3)  # the heartbeat thread writes while the step runs
    lines = buf.getvalue().splitlines()
    assert re.match(r"^compacting: [\d.]+ s elapsed$", lines[0]), lines
    assert re.match(r"^compacting: done in [\d.]+ s$", lines[-1]), lines


def test_mode_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    piped = Console(file=io.StringIO(), force_terminal=False)
    tty = Console(file=io.StringIO(), force_terminal=True)
    monkeypatch.delenv(PROGRESS_ENV, raising=False)
    assert (progress_mode(piped), progress_mode(tty)) == ("lines", "bars")
    monkeypatch.setenv(PROGRESS_ENV, "off")
    with progress_display(out=piped) as progress:
        progress("quiet", 5, 5)
    assert piped.file.getvalue() == ""  # type: ignore[attr-defined]  # a StringIO
    monkeypatch.setenv(PROGRESS_ENV, "sometimes")
    with pytest.raises(ValueError, match=PROGRESS_ENV):
        progress_mode(piped)
    assert [human_seconds(s) for s in (4.25, 42, 185, 7620)] == [
        "4.2 s", "42 s", "3 min 05 s", "2 h 07 min",
    ]  # fmt: skip


# -- the real CLI, output captured -------------------------------------------------------------

ANSI = re.compile(r"\x1b\[")


def _snapshot(root: Path, works: int) -> Path:
    """A synthetic OpenAlex snapshot in the real layout (made-up works, 3 references each)."""
    part = root / "data" / "works" / "updated_date=2024-01-01" / "part_000.gz"
    part.parent.mkdir(parents=True)
    with gzip.open(part, "wt", encoding="utf-8") as fh:
        for w in range(1, works + 1):
            refs = [f"https://openalex.org/W{(w * 7 + k) % works + 1}" for k in range(3)]
            work = {
                "id": f"https://openalex.org/W{w}",
                "title": f"A made-up work number {w}",
                "publication_year": 2000 + w % 20,
                "type": "article",
                "referenced_works": refs,
            }
            fh.write(json.dumps(work) + "\n")
    url = "s3://openalex/data/works/updated_date=2024-01-01/part_000.gz"
    manifest = {"entries": [{"url": url, "meta": {"content_length": 1, "record_count": works}}]}
    (root / "data" / "works" / "manifest").write_text(json.dumps(manifest))
    return root


def _cli(*args: str, interval: str | None = None) -> subprocess.CompletedProcess[str]:
    """``scholarkg ARGS`` in a subprocess on the session's server, stdout and stderr piped."""
    env = {k: v for k, v in os.environ.items() if k not in (PROGRESS_ENV, INTERVAL_ENV)}
    if interval is not None:
        env[INTERVAL_ENV] = interval
    code = "from scholarkg.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=600
    )


def test_a_piped_load_prints_progress_lines_on_stderr(
    graph_env: str, embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    snap = _snapshot(tmp_path / "snapshot", 600)
    done = _cli("load", "openalex", str(snap), "--batch-size", "50", interval="0.02")
    assert done.returncode == 0, done.stderr
    stage = re.escape("openalex-works (updated_date=2024-01-01/part_000.gz)")  # its partition
    running = re.compile(
        rf"^{stage}: [\d,]+ works, [\d,.]+ works/s, [\d.]+ s elapsed; "
        r"all: [\d,]+/600 \(\d+%\), eta [\d.]+ s$"  # the manifest's record counts: an ETA
    )
    final = re.compile(rf"^{stage}: 600 works in [\d.]+ s \([\d,.]+ works/s\)$")
    err = done.stderr.splitlines()
    assert any(running.match(line) for line in err), done.stderr
    assert [line for line in err if final.match(line)], done.stderr
    assert not ANSI.search(done.stderr)  # plain lines: no cursor tricks, no colours
    assert "works/s" not in done.stdout  # the summary table alone on stdout
    assert "load openalex" in done.stdout
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        assert st.counts().nodes["Paper"] == 600
    finally:
        st.close()


def test_graph_embed_json_stays_clean_with_progress_on_stderr(
    graph_env: str, embedded_server: EmbeddedServer
) -> None:
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        st.merge_nodes("Paper", [{"id": f"p{i}", "title": f"paper {i}"} for i in range(50)])
        rows = [{"start": f"p{i}", "end": f"p{(i * 3 + 1) % 50}"} for i in range(50)]
        st.merge_relationships("CITES", "Paper", "Paper", rows)
    finally:
        st.close()
    done = _cli("graph", "embed", "--dimension", "8", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["written"] == 50  # stdout is the JSON document alone
    err = done.stderr.splitlines()
    assert any(re.match(r"^write: 50 vectors in [\d.]+ s", line) for line in err), done.stderr
    assert any(re.match(r"^iterate: 3 iterations in ", line) for line in err), done.stderr


def test_a_step_of_unknown_length_says_it_runs_in_a_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """``working`` (graph pagerank, db stop/snapshot/restore): a spinner prints nothing into a
    pipe, so a log gets a line when the step begins, one per interval, one at the end."""
    import time

    from rich.console import Console

    from scholarkg.console import working

    monkeypatch.setenv("SCHOLARKG_PROGRESS", "auto")
    monkeypatch.setenv("SCHOLARKG_PROGRESS_INTERVAL", "0.05")
    buf = io.StringIO()
    with working("PageRank", out=Console(file=buf, width=100)):
        time.sleep(0.18)
    lines = buf.getvalue().splitlines()
    assert lines[0] == "PageRank…"
    assert any(re.fullmatch(r"PageRank: still running, \d+ s", line) for line in lines[1:-1])
    assert re.fullmatch(r"PageRank: done in 0\.\d s", lines[-1]), lines

    monkeypatch.setenv("SCHOLARKG_PROGRESS", "off")
    quiet = io.StringIO()
    with working("PageRank", out=Console(file=quiet)):
        pass
    assert quiet.getvalue() == ""

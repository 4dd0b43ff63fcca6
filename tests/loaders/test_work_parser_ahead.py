"""``WorkParser`` parses a bounded number of lines ahead of its caller: enough for the next
chunk of identity resolution (so the loading thread does not wait for the worker), never the
whole file (so memory stays bounded whatever its size); the groups come in file order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work

from scholarkg.loaders import openalex


def _jsonl(path: Path, works: int) -> Path:
    lines = [
        json.dumps(openalex_work(1, id=f"https://openalex.org/W{w}", title=f"Work {w}", ids={}))
        for w in range(1, works + 1)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_look_ahead_is_whole_blocks_and_at_least_one_per_worker_and_more() -> None:
    """No worker process is started here (the pool is made on the first file)."""
    blocks = openalex.BLOCK_LINES
    assert openalex.WorkParser(1, ahead_lines=0).ahead == 3
    assert openalex.WorkParser(2, ahead_lines=blocks).ahead == 5
    assert openalex.WorkParser(1, ahead_lines=10 * blocks + 1).ahead == 11
    assert openalex.WorkParser(1).ahead * blocks >= openalex.AHEAD_LINES


def test_the_parser_stays_a_bounded_number_of_lines_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openalex, "BLOCK_LINES", 100)  # 25 blocks, 11 of them ahead
    path = _jsonl(tmp_path / "part_000.jsonl", 2_500)
    submitted: list[int] = []
    blocks = 11
    with openalex.WorkParser(1, ahead_lines=1_025) as parser:
        pool = parser._executor()
        real = pool.submit

        def counting(fn: Any, *args: Any) -> Any:
            submitted.append(len(args[1]))
            return real(fn, *args)

        monkeypatch.setattr(pool, "submit", counting)
        seen: list[int] = []
        for number, _ in parser.groups(path):
            if not seen:  # the first group: the blocks read so far are the look-ahead
                assert len(submitted) == parser.ahead + 1 == blocks + 1
            seen.append(number)
    assert seen == list(range(1, 2_501))
    assert sum(submitted) == 2_500


def test_a_warmed_parser_has_its_worker_up_before_the_first_file(tmp_path: Path) -> None:
    """``warm`` starts the worker (its import done) before any file is read; what it parses
    afterwards is what a cold parser gives."""
    path = _jsonl(tmp_path / "part_000.jsonl", 30)
    with openalex.WorkParser(1) as cold:
        expected = [(n, len(recs)) for n, recs in cold.groups(path)]
    with openalex.WorkParser(1) as parser:
        parser.warm()
        processes = parser._pool._processes
        assert processes and all(p.is_alive() for p in processes.values())
        assert [(n, len(recs)) for n, recs in parser.groups(path)] == expected
    assert [n for n, _ in expected] == list(range(1, 31))


def test_the_parse_worker_ends_when_its_load_is_killed(tmp_path: Path) -> None:
    """``kill -9`` of a load left its parse worker (and Python's resource tracker) running:
    the worker blocks on a queue whose other end it holds itself. It now watches its
    parent."""
    import os
    import signal
    import subprocess
    import sys
    import time

    script = (
        "import sys, time\n"
        "from scholarkg.loaders import openalex\n"
        "parser = openalex.WorkParser(1)\n"
        "parser.warm()\n"
        "pool = parser._executor()\n"
        "pool.submit(int, 1).result()\n"
        "print(*pool._processes, flush=True)\n"
        "time.sleep(600)\n"
    )
    load = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert load.stdout is not None
    workers = [int(p) for p in load.stdout.readline().split()]
    assert workers
    os.kill(load.pid, signal.SIGKILL)
    load.wait()
    deadline = time.monotonic() + 10
    alive = list(workers)
    while alive and time.monotonic() < deadline:
        time.sleep(0.1)
        alive = [p for p in alive if _running(p)]
    assert alive == [], "the parse worker outlived its load"


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not reaped by its dead parent's init, no)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False

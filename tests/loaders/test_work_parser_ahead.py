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


def test_the_look_ahead_is_whole_blocks_and_at_least_three() -> None:
    """No worker process is started here (the pool is made on the first file)."""
    blocks = openalex.BLOCK_LINES
    assert openalex.WorkParser(ahead_lines=0).ahead == 3
    assert openalex.WorkParser(ahead_lines=blocks).ahead == 3
    assert openalex.WorkParser(ahead_lines=3 * blocks + 1).ahead == 4
    assert openalex.WorkParser(ahead_lines=10 * blocks + 1).ahead == 11
    assert openalex.WorkParser().ahead * blocks >= openalex.AHEAD_LINES


def test_the_parser_stays_a_bounded_number_of_lines_ahead(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(openalex, "BLOCK_LINES", 100)  # 25 blocks, 11 of them ahead
    path = _jsonl(tmp_path / "part_000.jsonl", 2_500)
    submitted: list[int] = []
    blocks = 11
    with openalex.WorkParser(ahead_lines=1_025) as parser:
        pool = parser._executor()
        real = pool.submit

        def counting(fn: Any, *args: Any) -> Any:
            future = real(fn, *args)
            submitted.append(future)
            return future

        monkeypatch.setattr(pool, "submit", counting)
        seen: list[int] = []
        for number, _ in parser.groups(path):
            if not seen:  # the first group: the blocks asked for so far are the look-ahead
                assert len(submitted) == parser.ahead == blocks
            seen.append(number)
    assert seen == list(range(1, 2_501))
    # every block asked for came back (one empty, ended, past the file's end at most):
    # the 25 blocks of lines read once each, none ahead by more than the look-ahead
    lines = [len(f.result().works) for f in submitted if not f.cancelled()]
    assert sum(lines) == 2_500
    assert 25 <= len(submitted) <= 25 + blocks


def test_a_warmed_parser_has_its_worker_up_before_the_first_file(tmp_path: Path) -> None:
    """``warm`` starts the worker (its import done) before any file is read; what it parses
    afterwards is what a cold parser gives."""
    path = _jsonl(tmp_path / "part_000.jsonl", 30)
    with openalex.WorkParser() as cold:
        expected = [(n, len(recs)) for n, recs in cold.groups(path)]
    with openalex.WorkParser() as parser:
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
        "parser = openalex.WorkParser()\n"
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


def test_the_worker_digests_each_work_as_the_loading_process_would(tmp_path: Path) -> None:
    """The digest a group carries from the worker is that of the records the loading
    process makes of it (the checkpoint's flush points depend on it), gzip included."""
    import gzip

    from scholarkg.loaders.checkpoint import DigestedGroup, digest_bytes

    plain = _jsonl(tmp_path / "part_000.jsonl", 450)
    part = tmp_path / "part_001.gz"
    part.write_bytes(gzip.compress(plain.read_bytes()))
    with openalex.WorkParser() as parser:
        for path in (part, plain):
            got = list(parser.groups(path))
            assert [n for n, _ in got] == list(range(1, 451))
            for number, recs in got:
                assert type(recs) is DigestedGroup
                assert recs.digest == digest_bytes(recs), number
    mine = [digest_bytes(recs) for _, recs in openalex.read_works(part)]
    with openalex.WorkParser() as parser:
        assert [recs.digest for _, recs in parser.groups(part)] == mine


def test_the_worker_names_a_missing_file_and_a_bad_line(tmp_path: Path) -> None:
    """Opening and reading happen in the worker: what goes wrong there reaches the caller as
    the same ``InputError``, after the works read before it."""
    from scholarkg.errors import InputError

    bad = _jsonl(tmp_path / "part_000.jsonl", 500)
    lines = bad.read_text().splitlines()
    lines[449] = '{"id": "https://openalex.org/W450", "title": '
    bad.write_text("\n".join(lines) + "\n")
    with openalex.WorkParser() as parser:
        with pytest.raises(InputError, match="file not found") as missing:
            list(parser.groups(tmp_path / "gone.jsonl"))
        assert missing.value.path is not None and missing.value.path.endswith("gone.jsonl")
        read: list[int] = []
        with pytest.raises(InputError) as err:
            for number, _ in parser.groups(bad):
                read.append(number)
        assert err.value.line == 450 and read == list(range(1, 450))
        # the worker reads the next file from its start
        assert [n for n, _ in parser.groups(_jsonl(tmp_path / "b.jsonl", 3))] == [1, 2, 3]

"""``WorkParser`` parses a bounded number of lines ahead of its caller: enough for the next
chunk of identity resolution (so the loading thread does not wait for the worker), never the
whole file (so memory stays bounded whatever its size); the groups come in file order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work

from scholarkg.errors import InputError
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


def _parsed(parser: openalex.WorkParser, path: Path) -> list[tuple[int, list[Any]]]:
    return [(n, list(recs)) for n, recs in parser.groups(path)]


def test_the_lead_runs_on_into_the_next_expected_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Told the files (``expect``), the parser reads the next one's first blocks while the
    caller takes the last works of the one before, within the same lead: the next file's
    works come out as a parser without the lead gives them, each line submitted once."""
    monkeypatch.setattr(openalex, "BLOCK_LINES", 100)
    first = _jsonl(tmp_path / "part_000.jsonl", 550)
    second = _jsonl(tmp_path / "part_001.jsonl", 430)
    with openalex.WorkParser(1, ahead_lines=300) as cold:  # 3 blocks ahead, 4 in flight
        expected = _parsed(cold, first), _parsed(cold, second)
    submitted: list[tuple[str, int, int]] = []
    with openalex.WorkParser(1, ahead_lines=300) as parser:
        parser.expect([first, second])
        pool = parser._executor()
        real = pool.submit

        def recording(fn: Any, *args: Any) -> Any:
            submitted.append((Path(args[0]).name, args[1][0][0], len(args[1])))
            return real(fn, *args)

        monkeypatch.setattr(pool, "submit", recording)
        got_first: list[tuple[int, list[Any]]] = []
        for number, recs in parser.groups(first):
            got_first.append((number, list(recs)))
            if number == 550:  # its last work: the next file's first blocks are on their way
                ahead_of_it = [s for s in submitted if s[0] == "part_001.jsonl"]
                assert ahead_of_it == [("part_001.jsonl", 1, 100), ("part_001.jsonl", 101, 100),
                                       ("part_001.jsonl", 201, 100)]  # fmt: skip
        assert got_first == expected[0]
        assert _parsed(parser, second) == expected[1]
    assert [s for s in submitted if s[0] == "part_000.jsonl"] == [
        ("part_000.jsonl", first_line, 100 if first_line < 501 else 50)
        for first_line in range(1, 551, 100)
    ]
    assert [s[1:] for s in submitted if s[0] == "part_001.jsonl"] == [
        (first_line, 100 if first_line < 401 else 30) for first_line in range(1, 431, 100)
    ]


def test_a_file_asked_for_out_of_order_is_read_from_its_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lines read ahead of the expected file are dropped when another is asked for (a
    resumed load skips a file it finished), and that file, asked for later, is read whole."""
    monkeypatch.setattr(openalex, "BLOCK_LINES", 100)
    paths = [_jsonl(tmp_path / f"part_00{i}.jsonl", 250 + 10 * i) for i in range(3)]
    with openalex.WorkParser(1, ahead_lines=200) as cold:
        expected = [_parsed(cold, p) for p in paths]
    with openalex.WorkParser(1, ahead_lines=200) as parser:
        parser.expect(paths)
        assert _parsed(parser, paths[0]) == expected[0]  # part_001 read ahead …
        assert parser._next is not None and parser._next.path == paths[1]
        assert parser._next.pending  # its first blocks on their way to the worker
        assert _parsed(parser, paths[2]) == expected[2]  # … and dropped
        assert _parsed(parser, paths[1]) == expected[1]
        assert _parsed(parser, paths[0]) == expected[0]


def test_errors_of_the_file_read_ahead_are_raised_in_its_own_turn(tmp_path: Path) -> None:
    """A bad line, a truncated download or a missing file met while reading ahead is raised
    when the load reads that file (its step: its name and line in the error, its works
    before the error read), not in the file before, which reads to its end."""
    import gzip

    goods = [_jsonl(tmp_path / f"part_00{i}.jsonl", 900) for i in range(3)]
    bad_line = _jsonl(tmp_path / "part_010.jsonl", 300)
    lines = bad_line.read_text().splitlines(keepends=True)
    lines[119] = '{"id": "https://openalex.org/W120", "title": \n'
    bad_line.write_text("".join(lines))
    truncated = tmp_path / "part_011.gz"
    data = gzip.compress(_jsonl(tmp_path / "whole.jsonl", 3_000).read_bytes())
    truncated.write_bytes(data[: len(data) * 2 // 3])
    missing = tmp_path / "part_012.jsonl"
    with openalex.WorkParser(1) as parser:
        parser.expect([goods[0], bad_line, goods[1], truncated, goods[2], missing])

        def read_whole(good: Path, then: Path) -> None:
            """``good`` read to its end, without an error, and ``then`` read ahead of it:
            wholly (a short file), up to its read error, or to the open's error."""
            assert [n for n, _ in parser.groups(good)] == list(range(1, 901))
            ahead = parser._next
            assert ahead is not None and ahead.path == then and ahead.done

        read_whole(goods[0], bad_line)
        read: list[int] = []
        with pytest.raises(InputError) as err:
            read.extend(n for n, _ in parser.groups(bad_line))
        assert (err.value.path, err.value.line) == (str(bad_line), 120)
        assert read == list(range(1, 120))
        read_whole(goods[1], truncated)
        assert parser._next is not None and parser._next.read_error is not None  # met ahead
        read.clear()
        with pytest.raises(InputError, match="cannot read file past line") as err:
            read.extend(n for n, _ in parser.groups(truncated))
        assert err.value.path == str(truncated)
        assert err.value.line is not None and err.value.line > 1_000
        assert read == list(range(1, err.value.line))
        read_whole(goods[2], missing)
        with pytest.raises(InputError, match="file not found") as err:
            list(parser.groups(missing))
        assert err.value.path == str(missing)

"""Resumable loads against the real store: a bad line 50 keeps what was flushed, the error
names line 50, and a rerun after fixing the line resumes instead of starting over."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.loaders import apc
from scholarkg.loaders.checkpoint import (
    Checkpoint,
    Group,
    _digest_update,
    run_resumable,
    single_groups,
)
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.schema.records import Citation, Paper
from scholarkg.store.falkordb.store import FalkorDBStore


def _paper(i: int, *, date: str = "2021-01-04") -> str:
    return json.dumps(
        {"id": f"2101.{i:05d}", "title": f"Invented paper {i}", "date": date,
         "authors": [f"Author {i % 7}"]}
    )  # fmt: skip


def _write(path: Path, n: int, bad: int | None = None) -> None:
    lines = [_paper(i, date="not-a-date" if i == bad else "2021-01-04") for i in range(1, n + 1)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _groups(path: Path) -> Iterator[Group]:
    return apc.paper_groups(path)


def _papers(store: FalkorDBStore) -> int:
    return store.counts().nodes.get("Paper", 0)


def test_bad_line_keeps_flushed_batches_and_resume_completes(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    src = tmp_path / "papers.jsonl"
    _write(src, 60, bad=50)
    cp = Checkpoint.open(src, directory=tmp_path / "cp", scope="test:papers")
    with pytest.raises(InputError) as info:
        run_resumable(store, _groups(src), source=src, checkpoint=cp, batch_size=10)
    err = info.value
    assert err.line == 50 and err.field == "date" and str(src) in str(err)
    # lines 1-49 are whole records, 49 included (grouped by the next Paper's start, as
    # before, line 49's group was still open when line 50 failed, and it was lost)
    assert _papers(store) == 49
    assert Checkpoint.open(src, directory=tmp_path / "cp", scope="test:papers").done == 49

    _write(src, 60)  # the user fixes line 50 (size and mtime change)
    os.utime(src, ns=(1, 1))
    cp = Checkpoint.open(src, directory=tmp_path / "cp", scope="test:papers")
    stats = run_resumable(
        store, _groups(src), source=src, checkpoint=cp, resume=True, batch_size=10
    )
    assert stats.skipped_on_resume == 49 and not stats.prefix_changed
    assert stats.written_records == 11 and stats.records == 60
    assert _papers(store) == 60
    assert cp.complete and cp.done == 60

    # unchanged file, --resume again: nothing to write
    again = run_resumable(
        store, _groups(src), source=src, checkpoint=cp, resume=True, batch_size=10
    )
    assert again.skipped_on_resume == 60 and again.written_records == 0
    assert _papers(store) == 60


def test_changed_prefix_is_rewritten_not_skipped(store: FalkorDBStore, tmp_path: Path) -> None:
    src = tmp_path / "papers.jsonl"
    _write(src, 30)
    cp = Checkpoint.open(src, directory=tmp_path, scope="s")
    run_resumable(store, _groups(src), source=src, checkpoint=cp, batch_size=10)
    lines = src.read_text(encoding="utf-8").splitlines()
    lines[14] = json.dumps({"id": "2101.00015", "title": "Retitled", "date": "2021-01-04"})
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cp = Checkpoint.open(src, directory=tmp_path, scope="s")
    stats = run_resumable(
        store, _groups(src), source=src, checkpoint=cp, resume=True, batch_size=10
    )
    # records 1-10 verified and skipped; 11-30 rewritten because record 15 changed
    assert stats.prefix_changed and stats.skipped_on_resume == 10
    assert stats.written_records == 20
    rows = store.run("MATCH (p:Paper {id: 'arxiv:2101.00015'}) RETURN p.title AS t")
    assert rows == [{"t": "Retitled"}]


def test_scope_separates_graphs_and_without_resume_everything_is_written(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    src = tmp_path / "cites.csv"
    src.write_text("start,end\n2101.00001,2101.00002\n2101.00002,2101.00003\n", "utf-8")
    for i in (1, 2, 3):
        store.merge_nodes("Paper", [{"id": f"arxiv:2101.0000{i}"}])
    a = Checkpoint.open(src, directory=tmp_path, scope="g1:cites")
    run_resumable(store, single_groups(apc.read_citations(src)), source=src, checkpoint=a)
    b = Checkpoint.open(src, directory=tmp_path, scope="g2:cites")
    assert b.file != a.file and b.done == 0
    stats = run_resumable(
        store, single_groups(apc.read_citations(src)), source=src, checkpoint=a, resume=False
    )
    assert stats.written_records == 2 and stats.write.relationships["CITES"] == 2
    assert store.counts().relationships["CITES"] == 2


def test_torn_checkpoint_is_ignored(tmp_path: Path) -> None:
    src = tmp_path / "x.jsonl"
    src.write_text("{}\n", "utf-8")
    cp = Checkpoint.open(src, directory=tmp_path, scope="s")
    cp.file.write_text("{not json", "utf-8")
    assert Checkpoint.open(src, directory=tmp_path, scope="s").done == 0


def test_large_groups_flush_by_record_count(store: FalkorDBStore, tmp_path: Path) -> None:
    src = tmp_path / "papers.jsonl"
    _write(src, 12)  # each line: Paper + Author + AUTHORED_BY = 3 records
    cp = Checkpoint.open(src, directory=tmp_path, scope="s")
    run_resumable(store, _groups(src), source=src, checkpoint=cp, batch_size=1000, max_records=9)
    assert [n for n, _ in cp.points] == [3, 6, 9, 12]


def test_checkpoint_scopes_name_the_store_location(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two data directories under one home never share load progress."""
    from scholarkg.config import load_settings
    from scholarkg.loaders.checkpoint import checkpoint_scope_prefix

    cfg = load_settings(home=tmp_path)
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(tmp_path / "a"))
    in_a = checkpoint_scope_prefix(cfg, "g")
    monkeypatch.setenv("SCHOLARKG_DATA_DIR", str(tmp_path / "b"))
    in_b = checkpoint_scope_prefix(cfg, "g")
    assert in_a != in_b
    assert in_b.startswith(checkpoint_scope_prefix(cfg, None))
    assert not checkpoint_scope_prefix(cfg, "g2").startswith(in_b)


def _digest(records: list[Any]) -> str:
    h = hashlib.sha256()
    _digest_update(h, records)
    return h.hexdigest()


def test_the_digest_tells_every_field_apart() -> None:
    """A flush point's digest stands for the records before it: two groups that differ in any
    field, in a list's order or in a reference list, hash apart; equal groups hash equal."""
    paper = Paper(id="openalex:W1", title="A title", year=2021, authors=["A. One", "B. Two"],
                  topics=["t1", "t2"], citation_count=3)  # fmt: skip
    refs = ReferenceList.openalex("openalex:W1", ["W2", "W3"])
    cites = Citation(start="openalex:W1", end="openalex:W2", intents=["background"])
    base = _digest([paper, refs, cites])
    assert _digest([paper.model_copy(), refs, cites]) == base
    variants = [
        [paper.model_copy(update={"title": "A title."}), refs, cites],
        [paper.model_copy(update={"year": None}), refs, cites],
        [paper.model_copy(update={"authors": ["B. Two", "A. One"]}), refs, cites],
        [paper.model_copy(update={"topics": ["t1"]}), refs, cites],
        [paper, ReferenceList.openalex("openalex:W1", ["W3", "W2"]), cites],
        [paper, refs, cites.model_copy(update={"intents": ["method"]})],
        [paper, cites, refs],
        [paper, refs],
    ]
    digests = {_digest(v) for v in variants}
    assert base not in digests and len(digests) == len(variants)


def _openalex(path: Path, *, bad: int | None = None, title15: str = "Work 15") -> None:
    """200 works, each citing the next; line ``bad`` cites a malformed id."""
    lines = []
    for i in range(1, 201):
        refs: list[Any] = [123] if i == bad else [f"https://openalex.org/W{i + 1}"]
        title = title15 if i == 15 else f"Work {i}"
        lines.append(json.dumps({"id": f"https://openalex.org/W{i}", "title": title,
                                 "referenced_works": refs}))  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_fix_the_line_and_resume_skips_the_resolved_prefix(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """``load openalex``'s records pass identity resolution, which depends on the graph (a
    reference to a work stored since is no longer a new stub): the flush points vouch for
    the records as read. Fixing line 150 and ``--resume`` skips the 149 works stored (it
    once rewrote them all: "changed after record 0"); a changed record 15 rewrites from
    the flush point before it."""
    from _cli import runner

    from scholarkg.cli import app

    src = tmp_path / "works.jsonl"
    _openalex(src, bad=150)
    load = ["load", "openalex", str(src), "--batch-size", "50"]
    res = runner.invoke(app, load)
    assert res.exit_code != 0 and "line 150" in str(res.exception)
    _openalex(src)
    res = runner.invoke(app, [*load, "--resume"])
    assert res.exit_code == 0, res.output
    assert "resumed, skipped 149 record(s)" in res.output
    assert "changed after" not in res.output
    assert store.run("MATCH (p:Paper) WHERE NOT p:Stub RETURN count(p) AS n") == [{"n": 200}]

    runner.invoke(app, ["db", "reset", "--yes"])
    _openalex(src, bad=150)
    runner.invoke(app, load)
    _openalex(src, title15="Work 15, revised")
    res = runner.invoke(app, [*load, "--resume"])
    assert res.exit_code == 0, res.output
    assert "resumed, skipped" not in res.output  # nothing before record 15 is a flush point
    title = store.run("MATCH (p:Paper {openalex_id: 'W15'}) RETURN p.title AS t")
    assert title == [{"t": "Work 15, revised"}]


def test_a_resumed_load_says_how_many_records_it_skipped_and_how_many_it_loaded(
    graph_env: str, tmp_path: Path
) -> None:
    """A load stopped at a bad line, the line fixed, ``--resume``: the summary said "30
    source record(s) from 1 file(s)" of a run that stored 6 of them (the 24 before the bad
    line were skipped as stored), and counted the cleaning of all 30 without a word."""
    import json

    from _cli import runner

    from scholarkg.cli import app

    src = tmp_path / "papers.jsonl"

    def write(bad: bool) -> None:
        rows = [
            json.dumps({"id": f"2310.{i:05d}", "title": f"T {i}", "abstract": "a\u0001b"})
            for i in range(30)
        ]
        if bad:
            rows[24] = '{"id": "2310.00024", "title": '
        src.write_text("\n".join(rows) + "\n")

    write(bad=True)
    load = ["load", "apc", "--papers", str(src), "--batch-size", "10"]
    res = runner.invoke(app, load)
    assert res.exit_code != 0 and "line 25" in str(res.exception)
    write(bad=False)
    res = runner.invoke(app, [*load, "--resume"])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert (
        "30 source record(s) from 1 file(s): 24 skipped as already stored (--resume), "
        "6 loaded now" in out
    ), out
    assert "Paper.abstract: control character(s) removed in 30 value(s)" in out
    assert (
        "papers.jsonl: resumed, skipped 24 record(s) already stored (read again: the counts "
        "above include them)" in out
    )
    res = runner.invoke(app, load)  # no --resume: nothing skipped, nothing said of it
    out = " ".join(res.output.split())
    assert "30 source record(s) from 1 file(s)" in out and "loaded now" not in out

"""References held until their work's record comes (``loaders/held_references.py``, with the
load's foresight from ``loaders/coming_works.py``) leave the graph that stubs leave.

The loads are those of ``test_settled_references.py`` (a stored graph with a stub described
under a DOI, a Paper holding no OpenAlex id, a key two nodes hold, an alias; a base and an
update whose references are drawn among works described before, later, in the same chunk
or never), read with and without foresight, chunk by chunk so references cross chunks and
files. Then what foresight cannot see: a work it names whose record never comes, a list
restated by a newer record of its work, an interrupted load and its ``--resume``.
"""

from __future__ import annotations

import gzip
import json
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from _catalogue_works import write_openalex
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.loaders import openalex
from scholarkg.loaders.coming_works import ComingWorks, scan_coming_works
from scholarkg.loaders.held_references import HeldReferences
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.steps import Step, run_steps
from scholarkg.store.base import GraphStore

from .test_bulk_equals_incremental import everything
from .test_settled_references import _files, _stored, _work, fresh_graph


def _load(
    store: GraphStore, paths: list[Path], *, chunk: int, held: HeldReferences | None
) -> IdentityResolver:
    """``paths`` loaded in order through one resolver, as ``load openalex`` does: the
    references still held written at the end, then the last merges."""
    from scholarkg.config import load_settings

    resolver = IdentityResolver(store, chunk=chunk, held=held)

    def groups(path: Path) -> Any:
        return resolver.resolve(openalex.read_works(path))

    steps = [Step("w", p, "held", partial(groups, p), family=False) for p in paths]
    run_steps(store, steps, settings=load_settings(), batch_size=chunk)
    resolver.write_held(chunk)
    resolver.finish()
    return resolver


def _foresight(paths: list[Path], journal: Path | None = None) -> HeldReferences:
    coming = scan_coming_works(paths, is_page=openalex.is_page)
    assert coming is not None
    return HeldReferences(coming, journal)


#: chunks of one hold across every chunk (~30 s on the managed Neo4j: the slow tier)
@pytest.mark.parametrize("chunk", [pytest.param(1, marks=pytest.mark.slow), 4])
def test_held_references_leave_the_graph_stubs_leave(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    base, update = _files(tmp_path / "snap")
    graphs = []
    for foresight in (True, False):
        fresh_graph(any_store, _stored, tmp_path / f"home-{foresight}", monkeypatch)
        held = _foresight([base, update], tmp_path / f"held-{foresight}.jsonl")
        resolver = _load(any_store, [base, update], chunk=chunk, held=held if foresight else None)
        if foresight:
            # the base cites the update's new works (13-24): held across the two files
            assert held.released > 0
            assert held.count == 0 and not (tmp_path / "held-True.jsonl").exists()
        graphs.append((everything(any_store), resolver.report.merges))
    assert graphs[0][0] == graphs[1][0]


def test_a_work_whose_record_never_comes_is_cited_through_its_stub(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Foresight that names works no record describes (W30-W34, which the loads cite):
    their references are held to the end, then written with the stubs they had without
    foresight; the journal goes once they are."""
    base, update = _files(tmp_path / "snap")
    scanned = scan_coming_works([base, update], is_page=openalex.is_page)
    assert scanned is not None
    wrong = ComingWorks(np.array([*scanned._numbers.tolist(), 30, 31, 32, 33, 34]))
    graphs = []
    for held in (HeldReferences(wrong, tmp_path / "held.jsonl"), None):
        fresh_graph(any_store, _stored, tmp_path / f"home-{held is None}", monkeypatch)
        _load(any_store, [base, update], chunk=4, held=held)
        if held is not None:
            assert held.leftover > 0 and not (tmp_path / "held.jsonl").exists()
        graphs.append(everything(any_store))
    assert graphs[0] == graphs[1]
    stubs = any_store.run("MATCH (p:Paper:Stub) RETURN p.openalex_id AS w ORDER BY w")
    assert {r["w"] for r in stubs} >= {"W30", "W31"}


def test_a_newer_record_restates_what_an_older_one_held(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """W1's older record (an earlier partition) cites W7 and W8, whose records come last;
    its newer one cites only W8. The reference to W7 must not be written when W7 comes."""
    older = write_openalex(tmp_path / "snap", [_work(1, [7, 8]), _work(2, [7])], date="2024-05-01")
    newer = write_openalex(
        tmp_path / "snap", [_work(1, [8], year=2002), _work(3, [1]), _work(7, []), _work(8, [])],
        date="2024-06-01",
    )  # fmt: skip
    graphs = []
    for foresight in (True, False):
        fresh_graph(any_store, _schema_only, tmp_path / f"h-{foresight}", monkeypatch)
        held = _foresight([older, newer]) if foresight else None
        _load(any_store, [older, newer], chunk=1, held=held)
        graphs.append(everything(any_store))
    assert graphs[0] == graphs[1]
    cites = any_store.run(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) RETURN a.openalex_id AS a, b.openalex_id AS b"
    )
    assert sorted((r["a"], r["b"]) for r in cites) == [("W1", "W8"), ("W2", "W7"), ("W3", "W1")]


def _schema_only(store: GraphStore) -> None:
    store.apply_schema()


def _cut_line(part: Path, line: int) -> bytes:
    """Line ``line`` (1-based) of the gzipped ``part`` cut in half; returns the whole one."""
    lines = gzip.decompress(part.read_bytes()).splitlines(keepends=True)
    whole = lines[line - 1]
    lines[line - 1] = whole[: len(whole) // 2] + b"\n"
    part.write_bytes(gzip.compress(b"".join(lines)))
    return whole


def _restore_line(part: Path, line: int, whole: bytes) -> None:
    lines = gzip.decompress(part.read_bytes()).splitlines(keepends=True)
    lines[line - 1] = whole
    part.write_bytes(gzip.compress(b"".join(lines)))


def test_a_load_stopped_with_references_held_resumes_to_the_whole_graph(
    graph_env: str, store: GraphStore, tmp_path: Path
) -> None:
    """``load openalex`` of two partitions stops at a cut line of the second while references
    are held (works of the first cite works of both, some released already); the journal
    keeps them. ``--resume`` after the line is mended skips the first partition (taken
    whole), re-reads the second from its checkpoint, writes at the end what the first
    partition's records held (those released before the stop included: idempotent), gives
    the graph an uninterrupted load gives, and deletes the journal."""
    snap = tmp_path / "snap"
    write_openalex(snap, [_work(w, [w + 9, w + 10, w + 11]) for w in range(1, 16)],
                   date="2024-05-01")  # fmt: skip
    second = write_openalex(
        snap, [_work(w, [w + 9, w + 10, w + 11]) for w in range(16, 31)], date="2024-06-01"
    )
    cli_ok(["load", "openalex", str(snap), "--batch-size", "3"])
    whole_load = everything(store)
    assert list(checkpoints().glob("held-references-*.jsonl")) == []  # deleted when done
    runner.invoke(app, ["db", "reset", "--yes"])

    whole = _cut_line(second, 5)
    res = runner.invoke(app, ["load", "openalex", str(snap), "--batch-size", "3"])
    assert res.exit_code != 0 and "line 5" in str(res.exception), res.output
    journals = list(checkpoints().glob("held-references-*.jsonl"))
    assert len(journals) == 1
    events = [json.loads(x) for x in journals[0].read_text().splitlines()]
    assert any(e[0] == "h" and e[1] == "openalex:W15" for e in events)  # 24-26: not yet
    _restore_line(second, 5, whole)
    out = " ".join(cli_ok(["load", "openalex", str(snap), "--batch-size", "3", "--resume"]).split())
    assert "skipped 2 work file(s)" not in out  # the second partition was read again
    assert "reference(s) held for a work whose record did not come" in out
    got = everything(store)
    assert set(got[1]) - set(whole_load[1]) == set() and set(whole_load[1]) - set(got[1]) == set()
    assert got == whole_load
    assert not journals[0].exists()


def checkpoints() -> Path:
    """The load checkpoints' folder of the test's settings (the journal lives there)."""
    from scholarkg.config import load_settings

    return Path(load_settings().checkpoints_dir)


def test_the_scan_reads_each_layout_and_skips_what_it_cannot(tmp_path: Path) -> None:
    """Ids first (OpenAlex's order), another key order, a page of results on one line, a
    line that is not JSON, an API page file (not scanned), an unreadable file."""
    jsonl = tmp_path / "part_000.gz"
    with gzip.open(jsonl, "wt", encoding="utf-8") as fh:
        fh.write('{"id": "https://openalex.org/W5", "doi": null}\n')
        fh.write('{"doi": null, "id": "https://openalex.org/W9"}\n')
        fh.write(json.dumps({"meta": {}, "results": [{"id": "https://openalex.org/W12"}]}) + "\n")
        fh.write('{"id": "https://openalex.org/W7", "title": "cut\n')
        fh.write("not json\n")
        fh.write('{"id":"https://openalex.org/W3","title":"x"}\n')
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"results": [{"id": "https://openalex.org/W99"}]}))
    broken = tmp_path / "broken.gz"
    broken.write_bytes(b"\x1f\x8b not gzip")
    coming = scan_coming_works([jsonl, page, broken], is_page=openalex.is_page)
    assert coming is not None
    assert coming.coming(["W5", "W9", "W12", "W7", "W3", "W99", "W4", "A5", "W", ""]) == [
        True, True, True, True, True, False, False, False, False, False,
    ]  # fmt: skip


def test_held_references_follow_moves_and_supersedes_and_replay_from_the_journal(
    tmp_path: Path,
) -> None:
    coming = ComingWorks(np.array([7, 8, 9]))
    journal = tmp_path / "held.jsonl"
    held = HeldReferences(coming, journal)
    held.hold("openalex:W1", ["W7", "W8"], chunk=1, record="f#1")
    held.hold("openalex:W2", ["W7"], chunk=1, record="f#2")
    held.hold("openalex:W3", ["W9"], chunk=2, record="f#3")
    held.moved("openalex:W1", "doi:10.1/1")  # renamed after it held
    held.supersede("openalex:W1", chunk=3, record="f#1")  # its own record read again: kept
    held.supersede("openalex:W3", chunk=3, record="f#9")  # a newer list of W3
    held.save()
    assert held.count == 3
    assert held.release("W7") == ["doi:10.1/1", "openalex:W2"]
    assert held.release("W9") == []
    assert held.count == 1
    held.save()
    held.close()
    # releases are not journalled: a replay holds W7's references again, as a resumed
    # load needs them (written at its end); the rest is as above
    again = HeldReferences(coming, journal)
    assert sorted(again.leftovers()) == [("doi:10.1/1", ["W7", "W8"]), ("openalex:W2", ["W7"])]
    # a resumed load reads W1's record again (its work W7 may be stored by then): its own
    # holds stay; another record of W1 supersedes them
    again.supersede("doi:10.1/1", chunk=1, record="f#1")
    assert again.count == 3
    again.supersede("doi:10.1/1", chunk=1, record="g#1")
    assert sorted(again.leftovers()) == [("openalex:W2", ["W7"])]
    # a cut last line (a crash mid-write) is ignored
    with journal.open("ab") as fh:
        fh.write(b'["h", "openalex:W4", ["W')
    assert HeldReferences(coming, journal).count == 3
    again.clear()
    assert not journal.exists() and again.count == 0 and not again

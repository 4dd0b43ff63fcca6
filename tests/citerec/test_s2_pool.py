"""``read_s2orc`` with a process pool yields exactly what the serial reader yields.

The S2ORC file is a synthetic world (``synthetic/citerec_corpus.py``, real S2ORC layout)
plus the defects the real releases have: invalid JSON, a non-object line, a record without
a corpus id, an annotation that is not JSON, blank lines. Records, their order and the skip
report must be identical, with the pool chunks smaller than the file so that several
workers and the in-order reassembly are exercised.
"""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from scholarkg.loaders import citerec_s2 as s2
from scholarkg.loaders.checkpoint import AnyRecord
from scholarkg.loaders.citerec_bulk import bulk_load_s2
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.loaders.tolerant import SkipReport
from scholarkg.loaders.unchanged_edges import UnchangedEdge
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.synthetic.citation_world import generate
from scholarkg.synthetic.citerec_corpus import write_world

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "citerec" / "s2"


def _s2orc_with_defects(tmp_path: Path) -> tuple[Path, dict[int, str]]:
    world = generate(200, seed=5, full_text_share=1.0)
    files = write_world(world, tmp_path / "world")
    lines = files["s2orc"].read_text(encoding="utf-8").splitlines(keepends=True)
    bad_annotation = json.loads(lines[3])
    bad_annotation["content"]["annotations"]["bibref"] = "[not json"
    defects = [
        "{not json\n",
        "[1, 2]\n",
        json.dumps({"content": {"text": "no corpus id"}}) + "\n",
        json.dumps(bad_annotation) + "\n",
        "\n",
    ]
    for i, defect in enumerate(defects):
        lines.insert(5 + 7 * i, defect)
    path = tmp_path / "s2orc.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    # every paper except a few is "in the graph", so some contexts are dropped as missing
    known = {p.corpus_id: f"s2:{p.corpus_id}" for p in world.papers if p.corpus_id % 11}
    return path, known


def _read(
    path: Path, known: dict[int, str], workers: int
) -> tuple[list[tuple[int, list[tuple[str, dict[str, Any]]]]], SkipReport]:
    report = SkipReport()

    def lookup(ids: Sequence[int]) -> Mapping[int, str]:
        return {c: known[c] for c in ids if c in known}

    def dump(r: AnyRecord) -> tuple[str, dict[str, Any]]:
        # S2ORC's references are records; only identity resolution makes UnchangedEdge
        assert not isinstance(r, ReferenceList | UnchangedEdge)
        return type(r).__name__, r.model_dump()

    groups = [
        (line, [dump(r) for r in records])
        for line, records in s2.read_s2orc(path, report, lookup, workers=workers)
    ]
    return groups, report


@pytest.mark.parametrize("workers", [1, 3])
def test_pool_equals_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int) -> None:
    monkeypatch.setattr(s2, "POOL_CHUNK_LINES", 4)  # many chunks, several in flight
    path, known = _s2orc_with_defects(tmp_path)
    serial, serial_report = _read(path, known, workers=0)
    pooled, pooled_report = _read(path, known, workers=workers)
    assert pooled == serial
    assert pooled_report == serial_report
    n_contexts = sum(name == "CitationContext" for _, recs in serial for name, _ in recs)
    assert n_contexts > 100 and len(serial) > 50
    assert serial_report.total == 4  # the four defective lines, the blank one is ignored
    assert any("not in the graph" in reason for reason in serial_report.dropped)


def test_pool_on_the_gzipped_fixture(tmp_path: Path) -> None:
    """The hand-written fixture (gzip, a bad annotation on line 2) through both paths."""
    path = tmp_path / "s2orc.jsonl.gz"
    shutil.copy(FIX / "s2orc.jsonl.gz", path)
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        ids = [json.loads(line).get("corpusid") for line in fh if line.strip()]
    known = {int(c): f"s2:{c}" for c in ids if c is not None}
    serial, serial_report = _read(path, known, workers=0)
    pooled, pooled_report = _read(path, known, workers=2)
    assert pooled == serial and pooled_report == serial_report
    assert serial_report.examples[0].line == 2


def test_bulk_load_with_workers_builds_the_same_graph(store: FalkorDBStore, tmp_path: Path) -> None:
    """``load s2 --bulk --workers 1`` end to end: the same graph as ``--workers 0``."""
    files = write_world(generate(120, seed=9, full_text_share=1.0), tmp_path / "world")
    states = []
    for workers in (0, 1):
        res = bulk_load_s2(store, files, SkipReport(), workdir=tmp_path, workers=workers)
        rows = store.run(
            "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b ORDER BY a, t, b"
        )
        nodes = store.run("MATCH (n) RETURN properties(n) AS p ORDER BY n.id")
        states.append((res["nodes"], res["relationships"], rows, nodes))
        store.clear()
    assert states[0] == states[1]
    assert states[0][0] > 120 and states[0][1] > 300  # contexts and their edges included

"""BEIR collections as other benchmarks re-release them: where the qrels are, their header,
their grades, and ``score ir`` reading the same files ``load beir`` accepts.

Before: a top-level ``qrels.tsv`` gave "no qrels/<split>.tsv files", and ``score ir`` refused
BEIR's three columns ("expected 4 columns 'qid iter docid grade', found 3").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _cli import cli_ok, runner

from scholarkg.benchmark.metrics.trec import read_qrels
from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.store.falkordb.store import FalkorDBStore

FIX = Path(__file__).parent.parent / "fixtures" / "retrieval" / "beir-mini"
GRADED = "q1\td1\t2\nq1\td7\t0.5\nq3\td2\t1.64\n"


def _collection(tmp: Path, qrels: dict[str, str]) -> Path:
    """beir-mini's corpus and queries with the given qrels files instead of its own."""
    d = tmp / "coll"
    d.mkdir(parents=True)
    for name in ("corpus.jsonl", "queries.jsonl"):
        shutil.copy(FIX / name, d / name)
    for rel, text in qrels.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(text, encoding="utf-8")
    return d


def _qrels(graph: FalkorDBStore) -> list[tuple[str, str, float, str]]:
    rows = graph.run(
        "MATCH (q:Query)-[j:HAS_QREL]->(p:Paper) RETURN q.qid AS q, p.id AS p, j.score AS s, "
        "j.split AS split ORDER BY q, p"
    )
    return [(r["q"], r["p"], r["s"], r["split"]) for r in rows]


@pytest.mark.parametrize("header", ["query-id\tcorpus-id\tscore\n", ""])
def test_top_level_qrels_tsv_graded_with_or_without_header(
    graph: FalkorDBStore, tmp_path: Path, header: str
) -> None:
    d = _collection(tmp_path, {"qrels.tsv": header + GRADED})
    out = " ".join(cli_ok(["load", "beir", str(d), "--name", "mini"]).split())
    assert "qrels split(s) found: test (qrels.tsv)" in out
    assert _qrels(graph) == [
        ("q1", "beir:mini:d1", 2.0, "test"),
        ("q1", "beir:mini:d7", 0.5, "test"),
        ("q3", "beir:mini:d2", 1.64, "test"),
    ]


def test_top_level_split_name_trec_columns_and_a_second_split(
    graph: FalkorDBStore, tmp_path: Path
) -> None:
    d = _collection(
        tmp_path, {"qrels.tsv": "q1 0 d1 1\nq1 0 d7 0\n", "qrels/train.tsv": "q3\td2\t1\n"}
    )
    out = " ".join(
        cli_ok(["load", "beir", str(d), "--name", "mini", "--qrels-split", "dev"]).split()
    )
    assert "qrels split(s) found: train (qrels/train.tsv), dev (qrels.tsv)" in out
    assert {(q, s) for q, _, _, s in _qrels(graph)} == {("q1", "dev"), ("q3", "train")}


def test_the_same_split_in_two_places_is_refused(graph: FalkorDBStore, tmp_path: Path) -> None:
    d = _collection(tmp_path, {"qrels.tsv": GRADED, "qrels/test.tsv": GRADED})
    result = runner.invoke(app, ["load", "beir", str(d), "--name", "mini"])
    assert isinstance(result.exception, InputError)
    assert "both qrels.tsv and qrels/test.tsv give split 'test'" in str(result.exception)
    empty = _collection(tmp_path / "e", {})
    result = runner.invoke(app, ["load", "beir", str(empty), "--name", "mini"])
    assert "qrels.tsv at the top level" in str(result.exception)


@pytest.mark.parametrize("header", ["query-id\tcorpus-id\tscore\n", ""])
def test_score_ir_reads_beir_qrels_like_trec_qrels(tmp_path: Path, header: str) -> None:
    beir = tmp_path / "qrels.tsv"
    beir.write_text(header + GRADED, encoding="utf-8")
    trec = tmp_path / "qrels.trec"
    trec.write_text("q1 0 d1 2\nq1 0 d7 0.5\nq3 0 d2 1.64\n", encoding="utf-8")
    assert (
        read_qrels(beir) == read_qrels(trec) == {"q1": {"d1": 2.0, "d7": 0.5}, "q3": {"d2": 1.64}}
    )
    run = tmp_path / "run.trec"
    run.write_text("q1 Q0 d7 1 2.0 t\nq1 Q0 d1 2 1.0 t\nq3 Q0 d2 1 1.0 t\n", encoding="utf-8")
    scores = []
    for qrels in (beir, trec):
        out = cli_ok(["score", "ir", "--qrels", str(qrels), "--run", str(run),
                      "--metrics", "nDCG@3,MRR", "--format", "json"])  # fmt: skip
        scores.append(json.loads(out.strip().splitlines()[-1]))
    assert scores[0] == scores[1]


def test_mixed_qrels_layouts_are_refused_at_the_line(tmp_path: Path) -> None:
    path = tmp_path / "qrels.tsv"
    path.write_text("q1\td1\t1\nq1 0 d2 1\n", encoding="utf-8")
    with pytest.raises(InputError, match="expected 3 columns 'query-id corpus-id score'") as err:
        read_qrels(path)
    assert err.value.line == 2

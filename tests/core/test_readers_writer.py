"""Streaming readers, the APC loader and the record writer against the real embedded store."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from scholarkg.errors import InputError
from scholarkg.loaders.apc import (
    chunk_text,
    read_citations,
    read_comparisons,
    read_papers,
    resolve_paper_ref,
)
from scholarkg.loaders.base import iter_delimited, iter_edges, iter_jsonl, parse_number
from scholarkg.loaders.writer import write_records
from scholarkg.schema.records import Chunk, Paper
from scholarkg.store.falkordb.store import FalkorDBStore


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_jsonl_reader_reports_line_numbers(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.jsonl", '{"id": "1"}\n\n{"id": "2"}\n{broken\n')
    seen = []
    with pytest.raises(InputError) as err:
        for lineno, obj in iter_jsonl(path):
            seen.append((lineno, obj["id"]))
    assert seen == [(1, "1"), (3, "2")]
    assert "p.jsonl:line 4" in str(err.value) and "invalid JSON" in str(err.value)


def test_gzip_and_missing_files(tmp_path: Path) -> None:
    gz = tmp_path / "p.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as fh:
        fh.write('{"id": "a"}\n')
    assert [obj for _, obj in iter_jsonl(gz)] == [{"id": "a"}]
    with pytest.raises(InputError, match="file not found"):
        list(iter_jsonl(tmp_path / "nope.jsonl"))


def test_delimited_and_edge_readers(tmp_path: Path) -> None:
    tsv = _write(tmp_path / "e.tsv", "start\tend\tweight\na\tb\t0.5\n")
    assert list(iter_delimited(tsv)) == [(2, {"start": "a", "end": "b", "weight": "0.5"})]
    bad = _write(tmp_path / "e.csv", "start,end\na,b\nc,\n")
    with pytest.raises(InputError) as err:
        list(iter_edges(bad))
    assert "line 3" in str(err.value) and "'end'" in str(err.value)
    no_header = _write(tmp_path / "h.csv", "src,dst\na,b\n")
    with pytest.raises(InputError, match="missing column"):
        list(iter_edges(no_header))
    ragged = _write(tmp_path / "r.csv", "start,end\na,b,c\n")
    with pytest.raises(InputError, match="3 cells but 2 columns"):
        list(iter_edges(ragged))
    jl = _write(tmp_path / "e.jsonl", '{"start": "x", "end": "y", "metric": "F1"}\n')
    assert list(iter_edges(jl)) == [(1, {"start": "x", "end": "y", "metric": "F1"})]


@pytest.mark.parametrize(
    ("text", "value"),
    [("85.2%", 85.2), ("1,234", 1234.0), ("−3.5", -3.5), ("71.2 ± 0.3", 71.2), ("-", None),
     ("", None), (None, None), (7, 7.0), (True, None), ("nan", None), ("inf", None),
     ("-Infinity", None), (float("nan"), None), (float("inf"), None)],
)  # fmt: skip
def test_parse_number(text: object, value: float | None) -> None:
    assert parse_number(text) == value


def test_chunking_respects_paragraphs_and_limit() -> None:
    text = "one two three\n\nfour five\n\n" + " ".join(f"w{i}" for i in range(25))
    chunks = chunk_text(text, max_words=10)
    assert chunks[0] == "one two three\n\nfour five"
    assert [len(c.split()) for c in chunks[1:]] == [10, 10, 5]
    assert chunk_text("   \n\n  ") == []


def test_resolve_paper_ref() -> None:
    assert resolve_paper_ref("2101.00001v2") == "arxiv:2101.00001"
    assert resolve_paper_ref("doi:10.1/x") == "doi:10.1/x"
    assert resolve_paper_ref("P123") == "apc:P123"


def _apc_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    papers = tmp_path / "papers.jsonl"
    rows = [
        {"id": "2101.00001", "title": "Alpha nets", "abstract": "a", "date": "2021-01-04",
         "categories": "cs.LG cs.CL", "authors": ["Ann Example", "Bo Sample"],
         "full_text": "Intro text.\n\n| Method | F1 |\n| --- | --- |\n| Alpha | 90.1 |"},
        {"id": "2102.00002", "title": "Beta nets", "date": "2021-02-01", "categories": ["cs.CV"]},
        {"id": "P3", "title": "Gamma", "year": 2019},
    ]  # fmt: skip
    papers.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    cites = _write(tmp_path / "cites.csv", "start,end,sentence\n2102.00002,2101.00001,as in <REF>\n"
                   "2102.00002,P3,\n2102.00002,9999.99999,\n")  # fmt: skip
    comps = _write(tmp_path / "comps.jsonl", '{"start": "2102.00002", "end": "2101.00001", '
                   '"dataset": "D", "metric": "F1"}\n')  # fmt: skip
    return papers, cites, comps


def test_apc_records(tmp_path: Path) -> None:
    papers, cites, comps = _apc_files(tmp_path)
    records = list(read_papers(papers))
    kinds = [type(r).__name__ for r in records]
    assert kinds.count("Paper") == 3 and kinds.count("Author") == 2 and kinds.count("Chunk") == 1
    first = records[0]
    assert isinstance(first, Paper) and first.id == "arxiv:2101.00001"
    assert first.categories == ["cs.LG", "cs.CL"] and first.year == 2021
    chunk = next(r for r in records if isinstance(r, Chunk))
    assert "| Alpha | 90.1 |" in chunk.text
    assert [p.id for p in records if isinstance(p, Paper)][2] == "apc:P3"
    citations = list(read_citations(cites))
    assert citations[0].sentence == "as in <REF>" and citations[1].sentence is None
    (comparison,) = read_comparisons(comps)
    assert comparison.dataset == "D" and comparison.task is None


def test_apc_bad_record_names_file_line_field(tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.jsonl", '{"id": "1", "title": "ok"}\n{"id": "2", "date": "x"}\n')
    with pytest.raises(InputError) as err:
        list(read_papers(path))
    assert "bad.jsonl:line 2" in str(err.value) and "date" in str(err.value)
    path = _write(tmp_path / "noid.jsonl", '{"title": "no id"}\n')
    with pytest.raises(InputError, match="field 'id'"):
        list(read_papers(path))


def test_write_records_is_idempotent_and_counts_skips(store: FalkorDBStore, tmp_path: Path) -> None:
    papers, cites, comps = _apc_files(tmp_path)
    store.apply_schema()
    for _ in range(2):  # loading twice must not duplicate anything
        r1 = write_records(store, read_papers(papers), batch_size=2)
        r2 = write_records(store, read_citations(cites), batch_size=2)
        r3 = write_records(store, read_comparisons(comps))
    assert r1.nodes["Paper"] == 3
    assert r2.relationships["CITES"] == 2 and r2.skipped_relationships["CITES"] == 1
    assert r3.relationships["COMPARES_WITH"] == 1
    counts = store.counts()
    assert counts.nodes["Paper"] == 3 and counts.nodes["Author"] == 2
    assert counts.nodes["CitationContext"] == 1
    assert counts.relationships["CITES"] == 2 and counts.relationships["AUTHORED_BY"] == 2
    assert counts.relationships["IN_PAPER"] == 1 and counts.relationships["GOLD"] == 1
    rows = store.run(
        "MATCH (c:CitationContext)-[:GOLD]->(p:Paper) RETURN c.text AS text, p.id AS cited"
    )
    assert rows == [{"text": "as in <REF>", "cited": "arxiv:2101.00001"}]
    pos = store.run(
        "MATCH (:Paper {id: $p})-[r:AUTHORED_BY]->(a:Author) RETURN a.name AS name, "
        "r.position AS pos ORDER BY pos",
        {"p": "arxiv:2101.00001"},
    )
    assert pos == [{"name": "Ann Example", "pos": 0}, {"name": "Bo Sample", "pos": 1}]


def test_writer_collapses_duplicate_pairs(store: FalkorDBStore) -> None:
    from scholarkg.schema.records import Comparison

    store.apply_schema()
    write_records(store, [Paper(id="arxiv:1", title="a"), Paper(id="arxiv:2", title="b")])
    report = write_records(
        store,
        [Comparison(start="arxiv:2", end="arxiv:1", dataset="D1"),
         Comparison(start="arxiv:2", end="arxiv:1", dataset="D2")],
    )  # fmt: skip
    assert report.relationships["COMPARES_WITH"] == 1 and not report.skipped_relationships
    (row,) = store.run("MATCH (:Paper)-[r:COMPARES_WITH]->(:Paper) RETURN r.dataset AS d")
    assert row == {"d": "D2"}


def test_unknown_metric_direction_never_erases_a_known_one(store: FalkorDBStore) -> None:
    from scholarkg.schema.records import Metric

    store.apply_schema()
    write_records(store, [Metric(name="Error Rate", direction="lower")])
    write_records(store, [Metric(name="error rate")])  # a later source that cannot tell
    (row,) = store.run("MATCH (m:Metric) RETURN m.direction AS d, count(m) AS n")
    assert row == {"d": "lower", "n": 1}


def test_paper_date_must_be_a_calendar_date() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="not a calendar date"):
        Paper(title="x", date="2021-13-45")
    assert Paper(title="x", date="2020-02-29").date == "2020-02-29"


def test_gzipped_csv_keeps_quoted_newlines(tmp_path: Path) -> None:
    path = tmp_path / "cites.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8", newline="") as fh:
        fh.write('start,end,sentence\na,b,"first line\nsecond line"\n')
    ((_lineno, row),) = list(iter_edges(path))
    assert row["sentence"] == "first line\nsecond line"

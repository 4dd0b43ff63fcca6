"""DORIS-MAE's scores do not depend on what else the graph holds.

Its corpus abstracts are ``Paper`` nodes shared with every other source of the same work (one
node per work), whose shared ``abstract`` the last record of the work writes. The benchmark
ranks the text the dataset stated, kept on the node as ``doris_abstract``: found by a new
user, the README's tour gave R@5 29.67 after ``load dorismae`` and 23.0 after a later ``load
s2`` rewrote the abstracts of the works both name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import AnswerSource
from scholarkg.loaders.apc import read_papers
from scholarkg.loaders.writer import write_records
from scholarkg.schema.ids import normalize_arxiv_id
from scholarkg.store.base import GraphStore

from .conftest import load


def _rewrite_abstracts(doris_json: dict[str, Any], path: Path) -> list[str]:
    """An APC ``papers.jsonl`` (the real layout) describing every corpus work that has an
    arXiv id with an abstract of other words; returns the Paper ids it names."""
    lines, named = [], []
    for n, abstract in enumerate(doris_json["Corpus"]):
        arxiv = normalize_arxiv_id(abstract["url"]) if abstract.get("url") else None
        if arxiv is None:
            continue
        named.append(f"arxiv:{arxiv}")
        words = " ".join(f"unrelated{(n * 7 + k) % 23}" for k in range(40))
        lines.append(json.dumps({"id": arxiv, "title": f"Another record {n}", "abstract": words}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return named


def test_a_later_record_of_the_works_changes_no_score(
    any_store: GraphStore, doris_file: Path, doris_json: dict[str, Any], tmp_path: Path
) -> None:
    store = any_store
    load(store, doris_file)
    task = load_task("dorismae")
    before = run_task(task, store, AnswerSource.ranker("bm25"), record_in_graph=False)

    named = _rewrite_abstracts(doris_json, tmp_path / "papers.jsonl")
    write_records(store, read_papers(tmp_path / "papers.jsonl"))
    rows = store.run(
        "MATCH (p:Paper) WHERE p.id IN $ids RETURN p.abstract AS shared, "
        "p.doris_abstract AS stated",
        {"ids": named},
    )
    assert len(rows) == len(named) > 10
    stated = {a["original_abstract"] for a in doris_json["Corpus"]}
    assert all(r["shared"].startswith("unrelated") for r in rows)  # the later record's text
    assert all(r["stated"] in stated for r in rows)  # the dataset's, kept

    after = run_task(task, store, AnswerSource.ranker("bm25"), record_in_graph=False)
    assert after.answers.by_instance == before.answers.by_instance
    assert after.answers.extra["texts_sha256"] == before.answers.extra["texts_sha256"]
    assert after.result.aggregate == before.result.aggregate

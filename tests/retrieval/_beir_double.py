"""beir-mini on the recording double: the rows ``load beir`` leaves in the graph, without one.

A module of its own (not the conftest) so tests import it by a name no other folder uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _fakes import RecordingStore

FIX = Path(__file__).parent.parent / "fixtures" / "retrieval" / "beir-mini"


def beir_recording_store(directory: Path = FIX, name: str = "mini") -> RecordingStore:
    """A :class:`RecordingStore` answering the retrieval task's four named queries for the
    collection in ``directory`` as the graph would after ``load beir``.

    The records come from the real BEIR readers (so the planted bad lines are skipped as in a
    load); each query's answer applies its Cypher's MATCH to them: a judgement counts only if
    its document is in the collection (the writer skips the rest), rows in the query's order.
    The live tests (``test_beir.py``) check the loader and these queries on the real store.
    """
    from scholarkg.loaders.beir import qrels_files, read_corpus, read_qrels, read_queries
    from scholarkg.loaders.tolerant import SkipReport
    from scholarkg.schema.records import Paper, Query
    from scholarkg.schema.retrieval import Collection, PaperInCollection, Qrel

    report = SkipReport()
    groups = [*read_corpus(directory / "corpus.jsonl", name, report)]
    groups += read_queries(directory / "queries.jsonl", name, report)
    for split, path in qrels_files(directory).items():
        groups += read_qrels(path, name, split, report)
    records = [r for _, group in groups for r in group]
    colls = {r.id: r for r in records if isinstance(r, Collection)}
    papers = {r.id: r for r in records if isinstance(r, Paper)}
    queries = {r.id: r for r in records if isinstance(r, Query)}
    members = {r.start: r for r in records if isinstance(r, PaperInCollection)}
    qrels = [r for r in records if isinstance(r, Qrel) and r.end in members]

    def info(p: dict[str, Any]) -> list[dict[str, Any]]:
        c = colls.get(p["collection"])
        n = sum(m.end == p["collection"] for m in members.values())
        return [] if c is None else [{"name": c.name, "kind": c.kind, "n_docs": n}]

    def judged(p: dict[str, Any]) -> list[tuple[Query, Qrel]]:
        return [
            (queries[j.start], j)
            for j in qrels
            if queries[j.start].source == p["source"] and members[j.end].end == p["collection"]
        ]

    def beir_queries(p: dict[str, Any]) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}
        for q, j in judged(p):
            if j.split == p["split"]:
                row = rows.setdefault(q.id, {"id": q.id, "qid": q.qid, "text": q.text, "qrels": []})
                row["qrels"].append({"doc_id": members[j.end].doc_id, "score": j.score})
        return sorted(rows.values(), key=lambda r: r["qid"])

    def beir_splits(p: dict[str, Any]) -> list[dict[str, Any]]:
        by_split: dict[str, set[str]] = {}
        for q, j in judged(p):
            by_split.setdefault(j.split, set()).add(q.id)
        return [{"split": s, "n_queries": len(by_split[s])} for s in sorted(by_split)]

    def docs(p: dict[str, Any]) -> list[dict[str, Any]]:
        rows = sorted(
            (
                {"doc_id": m.doc_id, "id": pid, "title": papers[pid].title,
                 "text": papers[pid].abstract}
                for pid, m in members.items()
                if m.end == p["collection"]
            ),
            key=lambda r: str(r["doc_id"]),
        )  # fmt: skip
        return rows[p["skip"] : p["skip"] + p["limit"]]

    return RecordingStore(
        {
            "retrieval/collection_info": info,
            "retrieval/beir_queries": beir_queries,
            "retrieval/beir_splits": beir_splits,
            "retrieval/collection_docs": docs,
        }
    )

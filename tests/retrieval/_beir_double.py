"""beir-mini on the recording double: the rows ``load beir`` leaves in the graph, without one.

A module of its own (not the conftest) so tests import it by a name no other folder uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _fakes import LoadedGraph, RecordingStore

FIX = Path(__file__).parent.parent / "fixtures" / "retrieval" / "beir-mini"


def beir_recording_store(directory: Path = FIX, name: str = "mini") -> RecordingStore:
    """A :class:`RecordingStore` answering the retrieval task's four named queries for the
    collection in ``directory`` as the graph would after ``load beir``.

    The records come from the real BEIR readers (so the planted bad lines are skipped as in a
    load) and are merged as the writer merges them (:class:`LoadedGraph`: a judgement whose
    document was not loaded is not written); each query's answer applies its Cypher's MATCH
    to them, rows in the query's order. The live tests (``test_beir.py``) check the loader and
    these rows against the real store's.
    """
    from scholarkg.loaders.beir import qrels_files, read_corpus, read_qrels, read_queries
    from scholarkg.loaders.tolerant import SkipReport

    report = SkipReport()
    groups = [*read_corpus(directory / "corpus.jsonl", name, report)]
    groups += read_queries(directory / "queries.jsonl", name, report)
    for split, path in qrels_files(directory).items():
        groups += read_qrels(path, name, split, report)
    g = LoadedGraph(r for _, group in groups for r in group)

    def members(collection: str) -> list[tuple[str, dict[str, Any]]]:
        """``(paper id, IN_COLLECTION properties)`` of the collection's documents."""
        return [
            (paper["id"], m)
            for paper in g.of_label("Paper")
            for end, m in g.out(paper["id"], "IN_COLLECTION")
            if end == collection and g.label(end) == "Collection"
        ]

    def judged(p: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any], str]]:
        """``(query, HAS_QREL properties, doc id)`` of the collection's judged documents."""
        doc_ids = {paper: m["doc_id"] for paper, m in members(p["collection"])}
        return [
            (q, j, doc_ids[paper])
            for q in g.of_label("Query")
            if q.get("source") == p["source"]
            for paper, j in g.out(q["id"], "HAS_QREL")
            if paper in doc_ids
        ]

    def info(p: dict[str, Any]) -> list[dict[str, Any]]:
        if g.label(p["collection"]) != "Collection":
            return []
        c = g.props(p["collection"])
        return [{"name": c["name"], "kind": c["kind"], "n_docs": len(members(c["id"]))}]

    def beir_queries(p: dict[str, Any]) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}
        for q, j, doc_id in judged(p):
            if j["split"] == p["split"]:
                row = rows.setdefault(
                    q["id"], {"id": q["id"], "qid": q["qid"], "text": q["text"], "qrels": []}
                )
                row["qrels"].append({"doc_id": doc_id, "score": j["score"]})
        return sorted(rows.values(), key=lambda r: r["qid"])

    def beir_splits(p: dict[str, Any]) -> list[dict[str, Any]]:
        by_split: dict[str, set[str]] = {}
        for q, j, _ in judged(p):
            by_split.setdefault(j["split"], set()).add(q["id"])
        return [{"split": s, "n_queries": len(by_split[s])} for s in sorted(by_split)]

    def docs(p: dict[str, Any]) -> list[dict[str, Any]]:
        rows = sorted(
            (
                {"doc_id": m["doc_id"], "id": paper, "title": g.props(paper).get("title"),
                 "text": g.props(paper).get("abstract")}
                for paper, m in members(p["collection"])
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

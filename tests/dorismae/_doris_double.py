"""The synthetic DORIS-MAE release on the recording double: the rows its named queries return
after a load, without a server.

A module of its own beside the conftest, which builds the ``doris_double`` fixture from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _fakes import LoadedGraph, RecordingStore

Rows = list[dict[str, Any]]

#: the named queries the double answers: every read of the DORIS-MAE task
QUERIES = (
    "dorismae/queries",
    "dorismae/subqueries",
    "dorismae/relevance",
    "dorismae/subquery_relevance",
    "dorismae/query_units",
    "dorismae/subquery_units",
    "dorismae/pools",
    "dorismae/corpus",
)


def doris_loaded_graph(path: Path) -> LoadedGraph:
    """The release file at ``path`` as the load the live fixtures make (``conftest.load``)
    leaves it: the real reader's records (``DorisReader``), merged as the writer merges them."""
    from scholarkg.loaders.dorismae import DorisLoadReport, DorisReader

    return LoadedGraph(DorisReader(path, report=DorisLoadReport()).records())


def doris_recording_store(g: LoadedGraph) -> RecordingStore:
    """A :class:`RecordingStore` answering :data:`QUERIES` from ``g``
    (:func:`doris_loaded_graph`) as the graph does after the load.

    Each answer applies its Cypher's MATCH to the loaded records, in load order where the
    query has no ORDER BY (the task does not rely on that order; the live test compares such
    rows as multisets). ``test_doris_double.py`` checks every query's rows against the
    loaded graph's.
    """
    units_rel = ("HAS_ASPECT", "HAS_SUB_ASPECT")

    def queries_of(source: str) -> list[dict[str, Any]]:
        return [q for q in g.of_label("Query") if q.get("source") == source]

    def subqueries_of(source: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """``(sub-query, parent query)`` of each ``DERIVED_FROM`` edge."""
        return [
            (s, g.props(parent))
            for s in g.of_label("SubQuery")
            if s.get("source") == source
            for parent, _ in g.out(s["id"], "DERIVED_FROM")
        ]

    def distinct_units(node_id: str, *types: str) -> list[dict[str, Any]]:
        ends = dict.fromkeys(end for end, _ in g.out(node_id, *types))
        return [g.props(u) for u in ends]

    def relevance_rows(qid: str, units: list[dict[str, Any]], pool_of: str, judge: str) -> Rows:
        # MATCH ...->(u) fails for a query without units: no rows at all
        if not units:
            return []
        rows = []
        for paper, cand in g.out(pool_of, "HAS_CANDIDATE"):
            raw = 0.0
            for u in units:  # OPTIONAL MATCH (u)-[j:JUDGED {source: $judge}]->(p)
                raw += sum(
                    float(j.get("score") or 0.0)
                    for end, j in g.out(u["id"], "JUDGED")
                    if end == paper and j.get("source") == judge
                )
            rows.append(
                {
                    "qid": qid,
                    "abstract_id": g.props(paper).get("doris_abstract_id"),
                    "position": cand.get("position"),
                    "n_units": len(units),
                    "raw": raw,
                }
            )
        return rows

    def queries(p: dict[str, Any]) -> Rows:
        return [
            {"qid": q["qid"], "text": q["text"], "type": q.get("type"),
             "split": q.get("split"), "parent": q["qid"]}
            for q in queries_of(p["source"])
        ]  # fmt: skip

    def subqueries(p: dict[str, Any]) -> Rows:
        return [
            {"qid": s["qid"], "text": s["text"], "type": q.get("type"),
             "split": q.get("split"), "parent": q["qid"]}
            for s, q in subqueries_of(p["source"])
        ]  # fmt: skip

    def relevance(p: dict[str, Any]) -> Rows:
        return [
            row
            for q in queries_of(p["source"])
            for row in relevance_rows(
                q["qid"], distinct_units(q["id"], *units_rel), q["id"], p["judge"]
            )
        ]

    def subquery_relevance(p: dict[str, Any]) -> Rows:
        return [
            row
            for s, q in subqueries_of(p["source"])
            for row in relevance_rows(
                s["qid"], distinct_units(s["id"], "USES_ASPECT"), q["id"], p["judge"]
            )
        ]

    def unit_rows(owners: list[dict[str, Any]], *types: str) -> Rows:
        rows: dict[tuple[Any, ...], dict[str, Any]] = {}  # RETURN DISTINCT
        for o in owners:
            for u in distinct_units(o["id"], *types):
                row = {"qid": o["qid"], "unit": u.get("aspect_id"), "text": u.get("text")}
                rows.setdefault(tuple(row.values()), row)
        return list(rows.values())

    def query_units(p: dict[str, Any]) -> Rows:
        return unit_rows(queries_of(p["source"]), *units_rel)

    def subquery_units(p: dict[str, Any]) -> Rows:
        subs = [s for s in g.of_label("SubQuery") if s.get("source") == p["source"]]
        return unit_rows(subs, "USES_ASPECT")

    def pools(p: dict[str, Any]) -> Rows:
        rows = []
        for q in queries_of(p["source"]):
            for paper, cand in g.out(q["id"], "HAS_CANDIDATE"):
                doc = g.props(paper)
                rows.append(
                    {"qid": q["qid"], "position": cand.get("position"), "paper": paper,
                     "abstract_id": doc.get("doris_abstract_id"), "title": doc.get("title"),
                     "abstract": doc.get("abstract")}
                )  # fmt: skip
        return rows

    def corpus(p: dict[str, Any]) -> Rows:
        docs = sorted(
            (
                d
                for d in g.of_label("Paper")
                if d.get("doris_abstract_id") is not None and d["doris_abstract_id"] > p["after"]
            ),
            key=lambda d: d["doris_abstract_id"],
        )
        return [
            {"paper": d["id"], "abstract_id": d["doris_abstract_id"], "title": d.get("title"),
             "abstract": d.get("abstract")}
            for d in docs[: p["limit"]]
        ]  # fmt: skip

    answers = {
        "dorismae/queries": queries,
        "dorismae/subqueries": subqueries,
        "dorismae/relevance": relevance,
        "dorismae/subquery_relevance": subquery_relevance,
        "dorismae/query_units": query_units,
        "dorismae/subquery_units": subquery_units,
        "dorismae/pools": pools,
        "dorismae/corpus": corpus,
    }
    assert tuple(answers) == QUERIES
    return RecordingStore(answers)

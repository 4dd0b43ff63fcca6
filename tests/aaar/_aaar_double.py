"""The AAAR fixture layouts on the recording double: the rows the four tasks' named queries
return after ``conftest.load_aaar``, without a server.

A module of its own (not the conftest) so tests import it by a name no other folder uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _fakes import LoadedGraph, RecordingStore

Rows = list[dict[str, Any]]

#: the named queries the double answers: every read of the four tasks without the optional
#: related-work context (``related_cited`` / ``related_citing`` stay on the live graph)
QUERIES = (
    "aaar/eqinfer_items",
    "aaar/expdesign_experiments",
    "aaar/paper_sections",
    "aaar/reviewcritique_segments",
    "aaar/weakness_reviews",
)


def aaar_records(fix: Path) -> list[Any]:
    """Every fixture layout's records, in the order ``load_aaar`` writes them."""
    from scholarkg.loaders.aaar import aaar_groups, reviewcritique_groups, task_sources

    records = []
    for task, path in task_sources(fix):
        records += [r for _, group in aaar_groups(task, path) for r in group]
    records += [
        r for _, group in reviewcritique_groups(fix / "ReviewCritique.jsonl") for r in group
    ]
    return records


def _order(rows: Rows, *keys: str) -> Rows:
    """ORDER BY ``keys``, ascending, nulls last (both backends' rule)."""
    return sorted(
        rows, key=lambda r: tuple((r[k] is None, r[k] if r[k] is not None else 0) for k in keys)
    )


def aaar_recording_store(g: LoadedGraph) -> RecordingStore:
    """A :class:`RecordingStore` answering :data:`QUERIES` from ``g`` (the records of
    :func:`aaar_records`, merged as the writer merges them): each answer applies its Cypher's
    MATCH. ``test_aaar_double.py`` checks every query's rows against the loaded graph's."""

    def ends(start: str, rel: str, label: str) -> list[tuple[str, dict[str, Any]]]:
        return [(end, props) for end, props in g.out(start, rel) if g.label(end) == label]

    def eqinfer_items(p: dict[str, Any]) -> Rows:
        rows = [
            {"id": i["id"], "idx": i.get("index"), "context_before": i.get("context_before"),
             "context_after": i.get("context_after"), "options": i.get("options"),
             "answer": i.get("answer")}
            for i in g.of_label("EqItem")
        ]  # fmt: skip
        return _order(rows, "idx", "id")

    def expdesign_experiments(p: dict[str, Any]) -> Rows:
        rows = []
        for paper in g.of_label("Paper"):
            for exp, h in ends(paper["id"], "HAS_EXPERIMENT", "Experiment"):
                explanations: list[tuple[str | None, dict[str, Any]]] = [
                    *ends(exp, "EXPLAINED_BY", "Explanation")
                ] or [(None, {})]
                rows += [
                    {"paper": paper["id"], "arxiv_id": paper.get("arxiv_id"),
                     "ordinal": h.get("ordinal"), "experiment": g.props(exp).get("text"),
                     "explanation": None if x is None else g.props(x).get("text")}
                    for x, _ in explanations
                ]  # fmt: skip
        return _order(rows, "paper", "ordinal")

    def paper_sections(p: dict[str, Any]) -> Rows:
        rows = [
            {"paper": pid, "ordinal": h.get("ordinal"), "heading": g.props(s).get("title"),
             "text": g.props(s).get("text"), "kind": g.props(s).get("kind")}
            for pid in p["ids"]  # UNWIND: an id given twice gives its rows twice
            if g.label(pid) == "Paper"
            for s, h in ends(pid, "HAS_SECTION", "Section")
        ]  # fmt: skip
        return _order(rows, "paper", "ordinal")

    def reviews(source: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """``(review, paper)`` of each ``REVIEWS`` edge of the source's reviews."""
        return [
            (r, g.props(paper))
            for r in g.of_label("Review")
            if r.get("source") == source
            for paper, _ in ends(r["id"], "REVIEWS", "Paper")
        ]

    def reviewcritique_segments(p: dict[str, Any]) -> Rows:
        rows = [
            {"paper": paper["id"], "title": paper.get("title"), "review_id": r["id"],
             "review": r.get("reviewer"), "ordinal": h.get("ordinal"),
             "text": g.props(s).get("text"), "deficient": g.props(s).get("deficient"),
             "explanation": g.props(s).get("explanation")}
            for r, paper in reviews(p["source"])
            for s, h in ends(r["id"], "HAS_SEGMENT", "ReviewSegment")
        ]  # fmt: skip
        return _order(rows, "paper", "review", "ordinal")

    def weakness_reviews(p: dict[str, Any]) -> Rows:
        rows = []
        for r, paper in reviews(p["source"]):
            weaknesses: list[tuple[str | None, dict[str, Any]]] = [
                *ends(r["id"], "HAS_WEAKNESS", "Weakness")
            ] or [(None, {})]
            rows += [
                {"paper": paper["id"], "title": paper.get("title"),
                 "abstract": paper.get("abstract"), "url": paper.get("url"),
                 "reviewer": r.get("reviewer"), "ordinal": h.get("ordinal"),
                 "weakness": None if w is None else g.props(w).get("text")}
                for w, h in weaknesses
            ]  # fmt: skip
        return _order(rows, "paper", "reviewer", "ordinal")

    answers = {
        "aaar/eqinfer_items": eqinfer_items,
        "aaar/expdesign_experiments": expdesign_experiments,
        "aaar/paper_sections": paper_sections,
        "aaar/reviewcritique_segments": reviewcritique_segments,
        "aaar/weakness_reviews": weakness_reviews,
    }
    assert tuple(answers) == QUERIES
    return RecordingStore(answers)

"""The synthetic LEGOBench world on the recording double: the rows the RPLM and LGPLM prompt
builders' named queries return after a load, without a server.

A module of its own (not the conftest) so tests import it by a name no other folder uses.
"""

from __future__ import annotations

import itertools
from typing import Any

from _fakes import LoadedGraph, RecordingStore

Rows = list[dict[str, Any]]

#: the named queries the double answers: every read of the RPLM and LGPLM prompt builders
QUERIES = (
    "legobench/rplm_instances",
    "legobench/lgplm_leaderboards",
    "legobench/lgplm_gold",
    "legobench/lgplm_leaderboard_papers",
    "legobench/lgplm_chunks",
)


def lego_loaded_graph(world_mod: Any, world: Any, *, rplm: bool) -> LoadedGraph:
    """The world as ``load_world`` leaves it: the same record streams (``world_parts``),
    merged as the writer merges them."""
    return LoadedGraph(itertools.chain(*world_mod.world_parts(world, rplm=rplm)))


def _nulls_last(*values: Any) -> tuple[tuple[bool, Any], ...]:
    """An ORDER BY key: ascending, nulls last (both backends' rule)."""
    return tuple((v is None, v if v is not None else 0) for v in values)


def _union(*parts: Rows) -> Rows:
    """Cypher's UNION: the rows of every part, duplicates removed."""
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for row in itertools.chain(*parts):
        seen.setdefault(tuple(row.items()), row)
    return list(seen.values())


def lego_recording_store(g: LoadedGraph) -> RecordingStore:
    """A :class:`RecordingStore` answering :data:`QUERIES` from ``g`` (:func:`lego_loaded_graph`)
    as the graph does after the load: each answer applies its Cypher's MATCH to the loaded
    records. ``test_lego_double.py`` checks every query's rows against the loaded graph's.
    """

    def boards(ids: list[str] | None) -> list[dict[str, Any]]:
        return [lb for lb in g.of_label("Leaderboard") if ids is None or lb["id"] in ids]

    def rplm_instances(p: dict[str, Any]) -> Rows:
        rows = []
        for lb in boards(p["ids"]):
            for end, e in g.out(lb["id"], "HAS_ENTRY"):
                kind = g.label(end)
                if kind not in ("TitleLine", "Paper"):
                    continue
                x = g.props(end)
                rows.append(
                    {"id": lb["id"], "task": lb.get("task"), "dataset": lb.get("dataset"),
                     "metric": lb.get("metric"), "row": lb.get("row"), "kind": kind,
                     "entry_id": end,
                     "title": x["text"] if x.get("text") is not None else x.get("title"),
                     "gt_rank": e.get("gt_rank"), "option_index": e.get("option_index")}
                )  # fmt: skip
        return sorted(
            rows, key=lambda r: _nulls_last(r["id"], r["kind"], r["gt_rank"], r["entry_id"])
        )

    def lgplm_leaderboards(p: dict[str, Any]) -> Rows:
        rows = [
            {"id": lb["id"], "task": lb.get("task"), "dataset": lb.get("dataset"),
             "metric": lb.get("metric"), "row": lb.get("row")}
            for lb in boards(p["ids"])
        ]  # fmt: skip
        return sorted(rows, key=lambda r: r["id"])

    def lgplm_gold(p: dict[str, Any]) -> Rows:
        entries = [
            {"leaderboard_id": lb["id"], "method": e["method"], "score": e.get("score"),
             "rank": e.get("gt_rank"), "source": "entry"}
            for lb in boards(p["ids"])
            for end, e in g.out(lb["id"], "HAS_ENTRY")
            if g.label(end) == "Paper" and e.get("method") is not None
        ]  # fmt: skip
        results = [
            {"leaderboard_id": lb, "method": r["method"], "score": r.get("score"), "rank": None,
             "source": "result"}
            for r in g.of_label("Result")
            if r.get("method") is not None
            for lb, _ in g.out(r["id"], "IN_LEADERBOARD")
            if lb in p["ids"] and g.label(lb) == "Leaderboard"
        ]  # fmt: skip
        return _union(entries, results)

    def lgplm_leaderboard_papers(p: dict[str, Any]) -> Rows:
        def row(lb: str, paper: str) -> dict[str, Any]:
            return {"leaderboard_id": lb, "paper_id": paper}

        direct, via_lines, via_results = [], [], []
        for lb in boards(p["ids"]):
            for end, _ in g.out(lb["id"], "HAS_ENTRY"):
                if g.label(end) == "Paper":
                    direct.append(row(lb["id"], end))
                elif g.label(end) == "TitleLine":
                    via_lines += [
                        row(lb["id"], paper)
                        for paper, _ in g.out(end, "OF_PAPER")
                        if g.label(paper) == "Paper"
                    ]
        for paper in g.of_label("Paper"):
            for result, _ in g.out(paper["id"], "HAS_RESULT"):
                via_results += [
                    row(lb, paper["id"])
                    for lb, _ in g.out(result, "IN_LEADERBOARD")
                    if lb in p["ids"] and g.label(lb) == "Leaderboard"
                ]
        return _union(direct, via_lines, via_results)

    def lgplm_chunks(p: dict[str, Any]) -> Rows:
        rows = [
            {"paper_id": paper, "chunk_id": c, "ordinal": g.props(c).get("ordinal"),
             "text": g.props(c).get("text")}
            for paper in dict.fromkeys(p["paperIds"])
            if g.label(paper) == "Paper"
            for c, _ in g.out(paper, "HAS_CHUNK")
            if g.label(c) == "Chunk"
        ]  # fmt: skip
        return sorted(rows, key=lambda r: _nulls_last(r["paper_id"], r["ordinal"]))

    answers = {
        "legobench/rplm_instances": rplm_instances,
        "legobench/lgplm_leaderboards": lgplm_leaderboards,
        "legobench/lgplm_gold": lgplm_gold,
        "legobench/lgplm_leaderboard_papers": lgplm_leaderboard_papers,
        "legobench/lgplm_chunks": lgplm_chunks,
    }
    assert tuple(answers) == QUERIES
    return RecordingStore(answers)

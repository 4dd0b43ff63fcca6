"""The LEGOBench recording double answers as the loaded graph does.

The RPLM/LGPLM logic tests run on ``wdouble`` (``_lego_double.lego_recording_store``), no
server; they are honest only if its rows are the rows the real named queries return after
``load_world``. This test runs every query the double answers on both (the world with its
rplm.xlsx leaderboards, so Paper and TitleLine entries are both there), with every
leaderboard, a few, and none known, and requires the same rows: in order where the query
has ORDER BY, as multisets where it has UNION.
"""

from __future__ import annotations

from typing import Any

import pytest
from _fakes import LoadedGraph, RecordingStore, assert_double_answers_as_live

from scholarkg.schema.records import Leaderboard
from scholarkg.store.falkordb.store import FalkorDBStore

from ._lego_double import QUERIES

WORLD_WITH_RPLM = True  # both kinds of entries, as in test_rplm_run.py
UNORDERED = {"legobench/lgplm_gold", "legobench/lgplm_leaderboard_papers"}


def _params(name: str, g: LoadedGraph) -> list[dict[str, Any]]:
    boards = sorted(lb["id"] for lb in g.of_label("Leaderboard"))
    papers = sorted(p["id"] for p in g.of_label("Paper"))
    if name == "legobench/lgplm_chunks":
        return [{"paperIds": papers}, {"paperIds": papers[3:9]}, {"paperIds": ["arxiv:nowhere"]}]
    some = [{"ids": boards}, {"ids": boards[2:5]}, {"ids": ["lb:nowhere"]}]
    return some if name in UNORDERED else [{"ids": None}, *some]


@pytest.mark.parametrize("name", QUERIES)
def test_double_answers_as_the_loaded_graph(
    wstore: FalkorDBStore, wgraph: LoadedGraph, wdouble: RecordingStore, name: str
) -> None:
    for i, params in enumerate(_params(name, wgraph)):
        live = assert_double_answers_as_live(
            wstore, wdouble, name, params, ordered=name not in UNORDERED
        )
        if i == 0:
            assert live, f"{name} {params}: the comparison needs rows"  # not vacuous


def test_double_answers_as_a_papers_with_code_graph(store: FalkorDBStore) -> None:
    """The world has no Papers-with-Code ``Result`` nodes: the branches of the LGPLM queries
    that read them (gold from Results, papers via ``HAS_RESULT``) are compared on a small
    graph of that shape, with a Result without a paper and one in another leaderboard."""
    from scholarkg.loaders.writer import write_records
    from scholarkg.schema.records import (
        Chunk,
        HasChunk,
        HasResult,
        InLeaderboard,
        Leaderboard,
        Paper,
        Result,
    )

    from ._lego_double import lego_recording_store

    boards = [Leaderboard(task="toy", dataset=d, metric="acc") for d in ("Toyset", "Other")]
    records: list[Any] = [*boards, Paper(id="paper:a", title="A"), Paper(id="paper:b")]
    for pid, n in (("paper:a", 2), ("paper:b", 1)):
        for i in reversed(range(n)):  # read out of order: the query orders by ordinal
            chunk = Chunk(paper=pid, ordinal=i, text=f"{pid} passage {i}")
            records += [chunk, HasChunk(start=pid, end=chunk.id)]
    results: tuple[tuple[str | None, str, float | None, Leaderboard], ...] = (
        ("paper:a", "Alphanet", 91.5, boards[0]), ("paper:a", "Betaformer", 88.25, boards[0]),
        ("paper:b", "Gammaboost", None, boards[0]), (None, "Deltanet", 70.0, boards[0]),
        ("paper:b", "Gammaboost", 50.0, boards[1]),
    )  # fmt: skip
    for paper, method, score, board in results:
        result = Result(paper=paper, method=method, score=score, task="toy",
                        dataset=board.dataset, metric="acc")  # fmt: skip
        records += [result, InLeaderboard(start=result.id, end=board.id)]
        if paper is not None:
            records.append(HasResult(start=paper, end=result.id))
    store.apply_schema()
    write_records(store, records)
    double = lego_recording_store(LoadedGraph(records))
    ids = {"ids": [boards[0].id, boards[1].id]}
    for name, params in (
        ("legobench/lgplm_leaderboards", {"ids": None}),
        ("legobench/lgplm_gold", ids),
        ("legobench/lgplm_leaderboard_papers", ids),
        ("legobench/lgplm_chunks", {"paperIds": ["paper:a", "paper:b"]}),
        ("legobench/rplm_instances", {"ids": None}),
    ):
        live = assert_double_answers_as_live(
            store, double, name, params, ordered=name not in UNORDERED
        )
        assert live or name == "legobench/rplm_instances", name  # no HAS_ENTRY in this graph
        if name == "legobench/lgplm_gold":  # the Result branch answered: all five Results
            assert {r["source"] for r in live} == {"result"} and len(live) == 5

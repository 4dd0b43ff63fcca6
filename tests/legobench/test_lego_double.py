"""The LEGOBench recording double answers as the loaded graph does.

The RPLM/LGPLM logic tests run on ``wdouble`` (``_lego_double.lego_recording_store``), no
server; they are honest only if its rows are the rows the real named queries return after
``load_world``. This test runs every query the double answers on both (the world with its
rplm.xlsx leaderboards, so Paper and TitleLine entries are both there), with every
leaderboard, a few, and none known, and requires the same rows: in order where the query
has ORDER BY, as multisets where it has UNION.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _fakes import LoadedGraph, RecordingStore
from _lego_double import QUERIES

from scholarkg.store.falkordb.store import FalkorDBStore

WORLD_WITH_RPLM = True  # both kinds of entries, as in test_rplm_run.py
UNORDERED = {"legobench/lgplm_gold", "legobench/lgplm_leaderboard_papers"}


def _params(name: str, g: LoadedGraph) -> list[dict[str, Any]]:
    boards = sorted(lb["id"] for lb in g.of_label("Leaderboard"))
    papers = sorted(p["id"] for p in g.of_label("Paper"))
    if name == "legobench/lgplm_chunks":
        return [{"paperIds": papers}, {"paperIds": papers[3:9]}, {"paperIds": ["arxiv:nowhere"]}]
    some = [{"ids": boards}, {"ids": boards[2:5]}, {"ids": ["lb:nowhere"]}]
    return some if name in UNORDERED else [{"ids": None}, *some]


def _canonical(rows: list[dict[str, Any]]) -> list[str]:
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


@pytest.mark.parametrize("name", QUERIES)
def test_double_answers_as_the_loaded_graph(
    wstore: FalkorDBStore, wgraph: LoadedGraph, wdouble: RecordingStore, name: str
) -> None:
    for i, params in enumerate(_params(name, wgraph)):
        live = wstore.run_named(name, params)
        canned = wdouble.run_named(name, params)
        if name in UNORDERED:
            assert _canonical(canned) == _canonical(live), params
        else:
            assert canned == live, params
        if i == 0:
            assert live, f"{name} {params}: the comparison needs rows"  # not vacuous

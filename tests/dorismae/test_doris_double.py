"""The DORIS-MAE recording double answers as the loaded graph does.

The task's logic tests run on ``doris_double`` (``_doris_double.doris_recording_store``), no
server; they are honest only if its rows are the rows the real named queries return after a
real load. This test runs every query the double answers on both, with the parameters the
task passes and a few more (the ``human`` judgements the release holds beside ``gpt``, an
``llm`` source nobody loaded, another source, a page of the corpus), and requires the same
rows. Queries without ORDER BY are compared as multisets; ``raw`` (a sum of floats) to
rounding.
"""

from __future__ import annotations

from typing import Any

import pytest
from _fakes import RecordingStore, assert_double_answers_as_live

from scholarkg.schema.dorismae import SOURCE
from scholarkg.store.base import GraphStore

from ._doris_double import QUERIES

ORDERED = {"dorismae/corpus"}


def _params(name: str) -> list[dict[str, Any]]:
    if name == "dorismae/corpus":
        return [
            {"after": -1, "limit": 5000},
            {"after": 11, "limit": 7},
            {"after": 10**6, "limit": 5},
        ]
    sources = [{"source": SOURCE}, {"source": "not-loaded"}]
    if name.endswith("relevance"):
        return [{**s, "judge": j} for s in sources for j in ("gpt", "human", "llm")]
    return sources


@pytest.mark.parametrize("name", QUERIES)
def test_double_answers_as_the_loaded_graph(
    doris_graph: GraphStore, doris_double: RecordingStore, name: str
) -> None:
    for params in _params(name):
        live = assert_double_answers_as_live(
            doris_graph, doris_double, name, params, ordered=name in ORDERED, places=9
        )
        if params.get("source", SOURCE) == SOURCE and params.get("after", -1) < 10**6:
            assert live, f"{name} {params}: the comparison needs rows"  # not vacuous

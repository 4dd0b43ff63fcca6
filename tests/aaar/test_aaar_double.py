"""The AAAR recording double answers as the loaded graph does.

The four tasks' logic tests (``test_run_tasks.py``) run on ``aaar_double``
(``_aaar_double.aaar_recording_store``), no server; they are honest only if its rows are the
rows the real named queries return after ``load_aaar``. This test runs every query the double
answers on both, with the parameters the tasks pass and others (a source nobody loaded,
paper ids given twice or unknown), and requires the same rows in the same order (every
query orders its rows).
"""

from __future__ import annotations

from typing import Any

import pytest
from _fakes import LoadedGraph, RecordingStore, assert_double_answers_as_live

from scholarkg.store.base import GraphStore

from ._aaar_double import QUERIES


def _params(name: str, g: LoadedGraph) -> list[dict[str, Any]]:
    """The parameters the tasks pass first (they must give rows), then others."""
    if name == "aaar/paper_sections":
        owners = sorted({s for rel, s, _, _ in g.edges if rel == "HAS_SECTION"})
        return [{"ids": owners}, {"ids": [owners[0], owners[0], "arxiv:nowhere"]}, {"ids": []}]
    if name == "aaar/reviewcritique_segments":
        return [{"source": "reviewcritique"}, {"source": "aaar"}, {"source": "not-loaded"}]
    if name == "aaar/weakness_reviews":
        return [{"source": "aaar"}, {"source": "reviewcritique"}, {"source": "not-loaded"}]
    return [{}]


@pytest.mark.parametrize("name", QUERIES)
def test_double_answers_as_the_loaded_graph(
    aaar_store: GraphStore, aaar_graph: LoadedGraph, aaar_double: RecordingStore, name: str
) -> None:
    for i, params in enumerate(_params(name, aaar_graph)):
        live = assert_double_answers_as_live(aaar_store, aaar_double, name, params)
        if i == 0:
            assert live, f"{name} {params}: the comparison needs rows"  # not vacuous

"""``scholarkg --backend neo4j demo`` writes the same report as the embedded demo.

The whole demo (tiny sizes, no LLM) runs once per backend; every number of the two
``report.json`` files must agree: metrics, per-instance scores, fitted fusion weights, paired
comparisons. Only what names a run or a machine differs (ids, paths, timings, the graph's
name). The demo embeds papers with the bundled MiniLM, hence ``slow``.

And the guard: Neo4j Community has one user database, so the demo clears *it*; it refuses a
database that holds data an earlier demo did not write, and deletes nothing.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from scholarkg.config import Neo4jSettings, Settings
from scholarkg.demo import DEMO_GRAPH, run_demo
from scholarkg.errors import ConfigError
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

pytestmark = pytest.mark.neo4j

#: keys that name a run, a file or a machine, not a result
_NOT_RESULTS = {"id", "created", "generated", "timings", "prepare_s", "mean_query_s", "graph",
                "path", "run", "baseline", "ci"}  # fmt: skip


def _results(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: _results(v) for k, v in doc.items() if k not in _NOT_RESULTS}
    if isinstance(doc, list):
        return [_results(v) for v in doc]
    return doc


def _demo(settings: Settings, out: Path) -> dict[str, Any]:
    summary = run_demo(
        settings, out_dir=out, n_papers=120, n_leaderboards=6, n_citerec=150, with_llm=False,
        console=Console(file=io.StringIO(), width=160),
    )  # fmt: skip
    report = next(Path(p) for p in summary["report"] if str(p).endswith(".json"))
    data: dict[str, Any] = json.loads(report.read_text())
    return data


@pytest.mark.slow
def test_neo4j_demo_report_equals_embedded(
    settings: Settings,
    embedded_server: EmbeddedServer,
    neo4j_env: Neo4jSettings,
    neo4j_store: GraphStore,
    tmp_path: Path,
) -> None:
    try:
        emb = _demo(settings.with_overrides(home=tmp_path / "emb-home"), tmp_path / "emb")
    finally:
        demo_graph = FalkorDBStore(embedded_server.connect(), DEMO_GRAPH)
        demo_graph.clear()
        demo_graph.close()
    neo_settings = settings.with_overrides(
        backend="neo4j", neo4j=neo4j_env, home=tmp_path / "neo-home"
    )
    neo = _demo(neo_settings, tmp_path / "neo")
    assert [s["title"] for s in neo["sections"]] == [s["title"] for s in emb["sections"]]
    assert len(emb["sections"]) == 6
    assert _results(neo) == _results(emb)
    # a second demo on the database it filled is allowed (the marker names it)
    again = _demo(neo_settings, tmp_path / "neo2")
    assert _results(again) == _results(emb)


def test_neo4j_demo_refuses_a_database_with_other_data(
    settings: Settings, neo4j_env: Neo4jSettings, neo4j_store: GraphStore, tmp_path: Path
) -> None:
    neo4j_store.apply_schema()
    neo4j_store.merge_nodes("Paper", [{"id": "arxiv:9999.00001", "title": "Someone's paper"}])
    neo_settings = settings.with_overrides(backend="neo4j", neo4j=neo4j_env, home=tmp_path)
    with pytest.raises(ConfigError, match="holds 1 scholarkg nodes that an earlier demo"):
        _demo(neo_settings, tmp_path / "out")
    assert neo4j_store.counts().nodes == {"Paper": 1}

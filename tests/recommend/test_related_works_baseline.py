"""``suggest --method related-works``: OpenAlex's own ``related_works`` of the query's work as
a baseline, on both backends: in the record's order, only works of the graph, never the
excluded work, nothing for a work whose record carried none."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _cli import runner

from scholarkg.cli import app
from scholarkg.recommend.model import Recommender

from ._group import group_works, stub_id, text_of, work_id


def _works() -> list[dict[str, Any]]:
    works = group_works()
    query = works[5]
    assert query["id"].endswith(work_id(0, 5))
    query["related_works"] = [
        f"https://openalex.org/{w}"
        # a loaded work (keyed by its DOI), one not in the graph, a stub, the first again,
        # the work itself
        for w in (work_id(0, 3), "W987654321", stub_id(0, 1), work_id(0, 3), work_id(0, 5))
    ]
    del works[6]["related_works"]  # a record that carries none
    return works


def test_related_works_ranks_the_records_list_in_order(
    any_store: Any, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    works = _works()
    group_loader(any_store, works)
    rec = Recommender(any_store, cache_root=tmp_path / "recommend")
    me = f"doi:10.5555/{work_id(0, 5).lower()}"
    answer = rec.suggest(text_of(works[5]), 10, exclude=[me], method="related-works")
    assert [r.id for r in answer.rows] == [
        f"doi:10.5555/{work_id(0, 3).lower()}",
        f"openalex:{stub_id(0, 1)}",
    ]
    assert [r.score for r in answer.rows] == [1.0, 0.5]
    assert answer.rows[1].stub
    none = rec.suggest(
        text_of(works[6]), 10, exclude=[f"doi:10.5555/{work_id(0, 6).lower()}"],
        method="related-works",
    )  # fmt: skip
    assert none.rows == []
    assert rec.suggest("anything", 10, method="related-works").rows == []  # no query work


def test_related_works_in_batch_mode(
    graph_env: str, embedded_server: Any, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    from scholarkg.store.falkordb.store import FalkorDBStore

    works = _works()
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        group_loader(st, works)
    finally:
        st.close()
    queries = tmp_path / "q.jsonl"
    queries.write_text(
        json.dumps({"id": "q1", "text": text_of(works[5]), "exclude": [work_id(0, 5)]}) + "\n"
    )
    out = tmp_path / "run.trec"
    res = runner.invoke(
        app,
        ["suggest", "--queries", str(queries), "--out", str(out), "--method", "related-works"],
    )
    assert res.exit_code == 0, res.output
    rows = [line.split() for line in out.read_text().splitlines()]
    assert [r[2] for r in rows] == [
        f"doi:10.5555/{work_id(0, 3).lower()}",
        f"openalex:{stub_id(0, 1)}",
    ]

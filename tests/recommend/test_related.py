"""``related WORK``: co-citation and coupling counts equal the ones counted by hand from the
records, every row says why, stubs are flagged, and WORK is any id the graph knows."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from _cli import cli_ok

from scholarkg.recommend.related import related_works
from scholarkg.store.falkordb.store import FalkorDBStore

from ._group import group_works


def _node(wid: str) -> str:
    n = wid.rsplit("/", 1)[-1]
    return f"doi:10.5555/{n.lower()}" if int(n[1:]) < 900 else f"openalex:{n}"


def test_related_counts_are_the_records_own(
    store: FalkorDBStore, group_loader: Callable[..., None]
) -> None:
    group_loader(store)
    works = group_works()
    refs = {_node(w["id"]): {_node(r) for r in w["referenced_works"]} for w in works}
    me = "doi:10.5555/w105"
    result = related_works(store, me, k=15)
    assert {"cocited", "coupled", "fastrp", "text"} <= set(result.lists)
    assert len(result.rows) == 15 and all(r.id != me for r in result.rows)
    for row in result.rows:
        citing_both = sum(1 for rs in refs.values() if me in rs and row.id in rs)
        shared = len(refs.get(me, set()) & refs.get(row.id, set()))
        assert (row.shared_citing, row.shared_cited) == (citing_both, shared), row.id
        assert row.why() and row.fastrp is not None
        assert row.stub == row.id.startswith("openalex:")
    only = related_works(store, me, k=10, loaded_only=True)
    assert len(only.rows) == 10 and not any(r.stub for r in only.rows)


def test_related_from_the_command_line_by_any_id(
    graph_env: str, embedded_server: Any, group_loader: Callable[..., None]
) -> None:
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        group_loader(st)
    finally:
        st.close()
    by_openalex = json.loads(cli_ok(["related", "W105", "-k", "5", "-f", "json"]))
    by_doi = json.loads(
        cli_ok(["related", "https://doi.org/10.5555/W105", "-k", "5", "-f", "json"])
    )
    assert by_openalex["work"]["id"] == by_doi["work"]["id"] == "doi:10.5555/w105"
    assert [r["id"] for r in by_openalex["related"]] == [r["id"] for r in by_doi["related"]]
    table = cli_ok(["related", "W105", "-k", "5"])
    assert "shared reference" in table or "cite both" in table
    for r in by_openalex["related"]:
        assert r["id"] in table

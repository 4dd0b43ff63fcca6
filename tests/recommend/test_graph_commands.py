"""``graph pagerank``, ``graph similar`` on a group's records: any id the graph knows names a
work, stubs are flagged, ``--loaded-only`` ranks over the whole graph and lists loaded works."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from _cli import cli_ok

from scholarkg.store.falkordb.store import FalkorDBStore


def test_pagerank_and_similar_flag_stubs_and_list_loaded_works_only(
    graph_env: str, embedded_server: Any, group_loader: Callable[..., None]
) -> None:
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        group_loader(st)
    finally:
        st.close()
    everything = json.loads(cli_ok(["graph", "pagerank", "--top", "10", "-f", "json"]))["top"]
    assert any(r["stub"] for r in everything)  # the stubs are the most cited works here
    assert all(r["title"] is None for r in everything if r["stub"])
    loaded = json.loads(
        cli_ok(["graph", "pagerank", "--top", "10", "--loaded-only", "-f", "json"])
    )["top"]
    assert len(loaded) == 10 and not any(r["stub"] for r in loaded)
    assert all(r["title"] for r in loaded)
    # the same ranking: the loaded works keep their order and scores
    scores = {r["id"]: r["score"] for r in everything}
    assert all(scores[r["id"]] == r["score"] for r in loaded if r["id"] in scores)
    assert [r["score"] for r in loaded] == sorted((r["score"] for r in loaded), reverse=True)

    # a work named by its OpenAlex id, DOI or node id: one Paper
    by_openalex = json.loads(cli_ok(["graph", "pagerank", "-s", "W100", "-k", "3", "-f", "json"]))
    by_doi = json.loads(
        cli_ok(["graph", "pagerank", "-s", "https://doi.org/10.5555/W100", "-k", "3", "-f", "json"])
    )
    assert by_openalex["top"] == by_doi["top"]

    cli_ok(["graph", "embed"])
    near = json.loads(cli_ok(["graph", "similar", "W100", "-k", "8", "-f", "json"]))
    assert len(near) == 8 and {"stub", "title", "score"} <= near[0].keys()
    only = json.loads(cli_ok(["graph", "similar", "10.5555/w100", "-k", "8", "--loaded-only",
                              "-f", "json"]))  # fmt: skip
    assert len(only) == 8 and not any(r["stub"] for r in only)
    assert all(r["id"] != "doi:10.5555/w100" for r in only)
    table = cli_ok(["graph", "similar", "W100", "-k", "8"])
    for r in near:
        assert r["id"] in table  # whole, never folded

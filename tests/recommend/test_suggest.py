"""``suggest`` on a research group's OpenAlex records (embedded store): stubs found through the
graph and flagged, ``exclude`` equal to a graph loaded without the work, the fit kept with the
graph version and refitted when the graph changes, batch runs as TREC files."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.recommend.fusion import Fusion
from scholarkg.recommend.model import Recommender
from scholarkg.recommend.signals import GRAPH_SIGNALS
from scholarkg.store.falkordb.store import FalkorDBStore

from ._group import TOPICS, group_works, stub_id, text_of, without, work_id


def _rec(store: Any, tmp_path: Path, **kw: Any) -> Recommender:
    return Recommender(store, cache_root=tmp_path / "recommend", **kw)


def test_suggest_finds_the_topics_reference_stubs_and_flags_them(
    store: FalkorDBStore, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    group_loader(store)
    rec = _rec(store, tmp_path)
    record = rec.prepare(fit_queries=40)
    assert record is not None and record.n_queries == 40
    answer = rec.suggest(TOPICS["graphs"], 10)
    ids = [r.id for r in answer.rows]
    # the graph topic's popular references are stubs no text ranker can find
    assert f"openalex:{stub_id(0, 0)}" in ids[:5]
    stubs = [r for r in answer.rows if r.stub]
    assert stubs and all(r.title is None for r in stubs)
    assert all(r.why() for r in answer.rows)
    row = next(r for r in answer.rows if r.id == f"openalex:{stub_id(0, 0)}")
    assert row.cited_by_matches >= 3 and "cited by" in row.why()
    # text alone cannot name a stub; text-then-references does, from the text's finds
    bm25 = rec.suggest(TOPICS["graphs"], 10, method="bm25")
    assert not any(r.stub for r in bm25.rows)
    refs = rec.suggest(TOPICS["graphs"], 10, method="text-refs")
    assert any(r.stub for r in refs.rows)


def test_the_fit_beats_text_alone_and_text_then_references_on_the_graph(
    store: FalkorDBStore, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    group_loader(store)
    record = _rec(store, tmp_path).prepare()
    assert record is not None
    assert record.score > record.baselines["bm25"] + 0.2
    assert record.score >= record.baselines["text-refs"]
    assert set(record.inputs) >= {"bm25", *GRAPH_SIGNALS} and "dense" not in record.inputs


def test_the_fit_is_kept_with_the_graph_version_and_refitted_when_it_changes(
    store: FalkorDBStore, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    works = group_works()
    group_loader(store, works[:-3])
    first = _rec(store, tmp_path).prepare(fit_queries=20)
    assert first is not None
    again = _rec(store, tmp_path).prepare(fit_queries=20)
    assert again is not None and again.created == first.created  # read back, not refitted
    store.run("CREATE (:Run {id: 'r1'})")  # a write the recommender never reads
    kept = _rec(store, tmp_path).prepare(fit_queries=20)
    assert kept is not None and kept.created == first.created
    group_loader(store, works[-3:])  # three more works: another graph
    changed = _rec(store, tmp_path).prepare(fit_queries=20)
    assert changed is not None and changed.version != first.version
    saved = json.loads((_rec(store, tmp_path).cache / "fit.json").read_text())
    assert saved["version"] == changed.version


def _graph_inputs(rec: Recommender, text: str, exclude: list[str]) -> dict[str, Any]:
    parts, _ = rec.inputs(text, exclude=exclude, wanted=GRAPH_SIGNALS, seeds=20)
    return {n: (r.ids, [round(s, 9) for s in r.scores]) for n, r in parts.items() if n != "bm25"}


@pytest.mark.parametrize("topic,n", [(0, 6), (2, 11)])
def test_exclude_equals_a_graph_loaded_without_the_work(
    embedded_server: Any, group_loader: Callable[..., None], tmp_path: Path, topic: int, n: int
) -> None:
    works = group_works()
    wid = work_id(topic, n)
    work = next(w for w in works if w["id"].endswith(f"/{wid}"))
    full = FalkorDBStore(embedded_server.connect(), f"t_full_{wid}")
    small = FalkorDBStore(embedded_server.connect(), f"t_small_{wid}")
    try:
        group_loader(full, works)
        group_loader(small, without(works, wid))
        a, b = _rec(full, tmp_path / "a"), _rec(small, tmp_path / "b")
        node = next(r["id"] for r in full.run_named("papers/resolve", _keys(wid)))
        # every graph input, computed without the work, is the smaller graph's (same seeds:
        # the text side is asked for the same works)
        text = text_of(work)
        seeds_a = a.seeds(a.text.bm25_ranking(text, 100, frozenset({node})), None)
        seeds_b = b.seeds(b.text.bm25_ranking(text, 100), None)
        assert seeds_a.ids == seeds_b.ids
        got = a.client.signals(seeds_a, frozenset({node}), 100, set(GRAPH_SIGNALS))
        want = b.client.signals(seeds_b, frozenset(), 100, set(GRAPH_SIGNALS))
        for name in GRAPH_SIGNALS:
            ga, gb = got.rankings[name], want.rankings[name]
            assert ga.ids == gb.ids, name
            assert ga.scores == pytest.approx(gb.scores, rel=1e-5, abs=1e-6), name
        # the suggestions themselves, with one fusion on both graphs
        fusions = (
            Fusion(inputs=("bm25", *GRAPH_SIGNALS)),
            Fusion("combsum", ("bm25", "refs", "ppr", "fastrp"), (0.2, 0.4, 0.2, 0.2)),
        )
        for fusion in fusions:
            a.fusion = b.fusion = fusion
            top_a = [r.id for r in a.suggest(text, 10, exclude=[node]).rows]
            top_b = [r.id for r in b.suggest(text, 10).rows]
            assert node not in top_a
            assert len(set(top_a) & set(top_b)) >= 9, (top_a, top_b)
    finally:
        for st in (full, small):
            st.clear()
            st.close()


def _keys(wid: str) -> dict[str, Any]:
    empty: dict[str, Any] = {k: [] for k in ("doi", "arxiv", "corpus", "mag", "pmid", "pmcid",
                                             "s2paper")}  # fmt: skip
    return {"ids": [], **empty, "openalex": [wid]}


def test_batch_mode_writes_a_trec_run_with_the_graphs_paper_ids(
    graph_env: str, embedded_server: Any, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        group_loader(st)
    finally:
        st.close()
    works = group_works()
    queries = tmp_path / "q.jsonl"
    lines = [
        {"id": "q1", "text": text_of(works[3]), "exclude": ["W103"]},  # an OpenAlex id
        {"id": "q2", "text": TOPICS["speech"], "exclude": ["W99999999", "nonexistent-id"]},
        {"id": "q3", "text": TOPICS["vision"]},
    ]
    queries.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "run.trec"
    res = runner.invoke(
        app, ["suggest", "--queries", str(queries), "--out", str(out), "--top", "5", "--no-fit"]
    )
    assert res.exit_code == 0, res.output
    rows = [line.split() for line in out.read_text().splitlines()]
    assert {r[0] for r in rows} == {"q1", "q2", "q3"}
    assert all(len(r) == 6 and r[1] == "Q0" for r in rows)
    q1 = [r[2] for r in rows if r[0] == "q1"]
    assert len(q1) == 5 and "doi:10.5555/w103" not in q1
    assert all(d.startswith(("doi:", "openalex:")) for d in q1)  # the graph's Paper ids
    # ids no work holds exclude nothing, and the output says so (a typo would leak a work)
    assert "2 exclude id(s) name no work in the graph" in res.output
    assert "W99999999" in res.output and "nonexistent-id" in res.output


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ('{"id": "q1"}', "text"),
        ('{"text": "x"}', "id"),
        ('{"id": "q1", "text": "x", "exclude": "W1"}', "exclude"),
        ('{"id": "q 1", "text": "x"}', "id"),
    ],
)
def test_a_bad_query_line_is_named(graph_env: str, tmp_path: Path, line: str, field: str) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "ok", "text": "fine"}\n' + line + "\n")
    res = runner.invoke(
        app, ["suggest", "--queries", str(queries), "--out", str(tmp_path / "r.trec")]
    )
    assert res.exit_code != 0
    message = str(res.exception) + res.output
    assert "q.jsonl" in message and "line 2" in message and field in message


def test_the_table_keeps_ids_whole_on_a_narrow_terminal(
    graph_env: str, embedded_server: Any, group_loader: Callable[..., None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    st = FalkorDBStore(embedded_server.connect(), graph_env)
    try:
        group_loader(st)
    finally:
        st.close()
    from rich.console import Console

    import scholarkg.console as console_mod

    monkeypatch.setattr(console_mod, "console", Console(width=60, force_terminal=False))
    import scholarkg.commands.common as common

    monkeypatch.setattr(common, "console", console_mod.console)
    res = runner.invoke(app, ["suggest", TOPICS["parsing"], "--no-fit", "--top", "8"])
    assert res.exit_code == 0, res.output
    json_res = runner.invoke(
        app, ["suggest", TOPICS["parsing"], "--no-fit", "--top", "8", "--format", "json"]
    )
    ids = [r["id"] for r in json.loads(json_res.output)["suggestions"]]
    assert len(ids) == 8
    for doc in ids:
        assert doc in res.output, doc  # never folded across two lines
    loaded = runner.invoke(
        app, ["suggest", TOPICS["parsing"], "--no-fit", "--loaded-only", "-f", "json"]
    )
    assert all(not r["stub"] for r in json.loads(loaded.output)["suggestions"])


def test_engine_server_needs_the_managed_neo4j(store: FalkorDBStore, tmp_path: Path) -> None:
    """``--engine server`` on a store without scholarkg's PageRank procedure says why; the
    embedded store ranks on its projection whatever the query excludes."""
    from scholarkg.errors import InputError

    with pytest.raises(InputError, match=r"scholarkg\.recommend\.ppr"):
        _rec(store, tmp_path, engine="server")
    rec = _rec(store, tmp_path)
    assert rec.server is None and rec.graph_for(["x"]) is rec.client
    assert rec.graph_inputs(exclude=True) == rec.graph_inputs() == set(GRAPH_SIGNALS)


def test_a_baseline_the_fit_found_better_answers_by_default_and_says_so(
    store: FalkorDBStore, group_loader: Callable[..., None], tmp_path: Path
) -> None:
    """A user's graph where text-then-references scored above every fusion the fit tried
    (nDCG@10 0.547 against 0.497 in a review): the default ranked by the worse fusion with
    no word. It now answers as that baseline does, and the notes say why."""
    import dataclasses

    group_loader(store)
    rec = _rec(store, tmp_path)
    record = rec.prepare(fit_queries=20)
    assert record is not None
    rec.fit_record = dataclasses.replace(
        record, baselines={**record.baselines, "text-refs": record.score + 0.05}
    )
    answer = rec.suggest(TOPICS["graphs"], 10)
    refs = rec.suggest(TOPICS["graphs"], 10, method="text-refs")
    assert [r.id for r in answer.rows] == [r.id for r in refs.rows]
    assert answer.method == "text-refs" and "ranked by text-refs" in answer.notes[0]
    rec.fit_record = record  # the fit's own record: the fusion answers
    fused = rec.suggest(TOPICS["graphs"], 10)
    assert fused.method == "fused" and not any("ranked by" in n for n in fused.notes)

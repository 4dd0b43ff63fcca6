"""Issue 35's goals, checked where the audit of round 5 found them not to hold (both
backends; the bulk and S2 cases on the embedded store). Each test is a rule of
docs/decisions.md ("One Paper per work") that a real-layout snapshot broke; the expected
graph is the one the rule gives.

* Which OpenAlex record of a merged work is its own (its ``W`` id in ``openalex_id``, its
  title, its marks) is "the first one loaded", whatever the batch size, also when a work is
  cited (so a stub holds the *later* record's ``W`` id) in a batch before the one that
  holds both of its records, and on ``--bulk`` (whose import makes every stub first): a
  stub's ids count after every describing record's (round 6; before, the stub's slot beat
  the first record's).
* A record that is not its work's own states its references under the key
  ``<source>:<its id in the source>`` (round 6; before, the parsed Paper's best id, which
  two OpenAlex records sharing a DOI both have, so reloading one of three records took the
  other's statements off). Old keys are migrated on the record's next load.
* A work's shared properties follow the source rank (arXiv > Crossref > S2 > OpenAlex),
  whatever the order the sources are loaded in (round 6; before, the last source loaded
  named the work), ``load s2`` (family mode) included.
* An S2 Graph API paper's authors unknown to the graph are aligned to the work's list
  (round 6; before, they were added beside it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.config import Settings
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore

from .test_catalogue_identity import load as load_source
from .test_catalogue_identity import write_sources
from .test_record_provenance import load, snapshot


def _work(w: int, doi: str, *, refs: tuple[int, ...] = (), title: str | None = None) -> Any:
    return openalex_work(
        2, id=f"https://openalex.org/W{w}", doi=f"https://doi.org/{doi}",
        ids={"openalex": f"https://openalex.org/W{w}"}, title=title or f"Work {w}",
        cited_by_count=w, referenced_works=[f"https://openalex.org/W{r}" for r in refs],
        authorships=[], related_works=[],
    )  # fmt: skip


def _cited_before_its_records() -> list[dict[str, Any]]:
    """W3 cites W1 (a stub until W1's record comes); W2 and W1 are two records of one work
    (one DOI), W2 first in the file: W2 is the work's own record by the rule."""
    return [
        _work(3, "10.1000/x", refs=(1,)),
        _work(4, "10.1000/y"),
        _work(2, "10.1000/d", refs=(4,), title="The first record"),
        _work(1, "10.1000/d", refs=(3,), title="The second record"),
    ]


def _own(store: GraphStore) -> list[dict[str, Any]]:
    return store.run(
        "MATCH (p:Paper {doi: '10.1000/d'}) RETURN p.openalex_id AS w, p.title AS t, "
        "p.alt_ids AS alt"
    )


def test_a_work_cited_before_its_records_keeps_its_first_record_whatever_the_batch_size(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    path = write_openalex(tmp_path / "w", _cited_before_its_records())
    graphs = {}
    for batch in (1, 2, 3, 50):
        any_store.clear()
        any_store.apply_schema()
        load(any_store, settings, path, batch=batch, kind=f"b{batch}")
        assert _own(any_store) == [{"w": "W2", "t": "The first record", "alt": ["openalex:W1"]}], (
            f"batch {batch}"
        )
        graphs[batch] = snapshot(any_store)
    assert graphs[2] == graphs[1] == graphs[3] == graphs[50]


def test_bulk_keeps_the_first_record_of_a_work_cited_before_its_records(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    snap = write_openalex(tmp_path / "snap", _cited_before_its_records())
    res = runner.invoke(app, ["load", "openalex", str(snap)])
    assert res.exit_code == 0, res.output
    incremental = snapshot(store)
    assert _own(store) == [{"w": "W2", "t": "The first record", "alt": ["openalex:W1"]}]
    runner.invoke(app, ["db", "reset", "--yes"])
    res = runner.invoke(app, ["load", "openalex", str(snap), "--bulk"])
    assert res.exit_code == 0, res.output
    assert _own(store) == [{"w": "W2", "t": "The first record", "alt": ["openalex:W1"]}]
    assert snapshot(store) == incremental


def test_reloading_one_of_three_records_of_a_work_changes_nothing(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    records = [
        _work(2, "10.1000/d", refs=(4,)),
        _work(1, "10.1000/d", refs=(3,)),
        _work(5, "10.1000/d", refs=(6,)),
    ]
    load(any_store, settings, write_openalex(tmp_path / "all", records), kind="all")
    cited = "MATCH (:Paper {doi: '10.1000/d'})-[:CITES]->(b) RETURN b.openalex_id AS w ORDER BY w"
    assert [r["w"] for r in any_store.run(cited)] == ["W3", "W4", "W6"]
    # each record that is not the work's own keeps its statements under its own W id, and
    # the work keeps both of their ids
    also = "MATCH (:Paper {doi: '10.1000/d'})-[r:CITES]->(b) RETURN b.openalex_id AS w, r.also AS k"
    assert {r["w"]: r["k"] for r in any_store.run(also)} == {
        "W3": ["openalex:W1"], "W4": None, "W6": ["openalex:W5"],
    }  # fmt: skip
    assert _own(any_store) == [{"w": "W2", "t": "Work 2", "alt": ["openalex:W1", "openalex:W5"]}]
    clean = snapshot(any_store)
    for n, rec in enumerate(records):
        resolver = load(any_store, settings, write_openalex(tmp_path / f"one{n}", [rec]),
                        kind=f"one{n}")  # fmt: skip
        assert [r["w"] for r in any_store.run(cited)] == ["W3", "W4", "W6"], rec["id"]
        assert resolver.report.pruned == 0, rec["id"]
        assert snapshot(any_store) == clean, rec["id"]


def test_reloading_one_source_record_of_a_work_other_sources_describe_changes_nothing(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """W1 is described by OpenAlex, arXiv and Crossref (one node, keyed by its arXiv id).
    Reloading its unchanged OpenAlex record after the others changes nothing, and the three
    sources loaded in either order give one graph: the title, abstract and date do not
    depend on which source came last."""
    sources = write_sources(tmp_path)
    graphs = {}
    for order in (("openalex", "arxiv", "crossref"), ("arxiv", "crossref", "openalex")):
        any_store.clear()
        any_store.apply_schema()
        for name in order:
            path, read = sources[name]
            load_source(any_store, settings, path, read, "-".join(order) + name)
        graphs[order] = snapshot(any_store)
        if order[0] == "openalex":
            path, read = sources["openalex"]
            load_source(any_store, settings, path, read, "reload")
            assert _changed(graphs[order], snapshot(any_store)) == set(), "reloading OpenAlex"
    first, second = graphs.values()
    assert _changed(first, second) == set(), _props_diff(first, second)


def _props_diff(a: tuple[list[Any], list[Any]], b: tuple[list[Any], list[Any]]) -> list[Any]:
    """Per node id, the properties two snapshots give differently (a failure's message)."""
    pa = {(tuple(n[0]), n[1]): dict(n[2]) for n in a[0]}
    pb = {(tuple(n[0]), n[1]): dict(n[2]) for n in b[0]}
    out: list[Any] = [k for k in pa.keys() ^ pb.keys()]
    for k in sorted(pa.keys() & pb.keys()):
        for name in sorted(pa[k].keys() | pb[k].keys()):
            if pa[k].get(name) != pb[k].get(name):
                out.append((k[1], name, pa[k].get(name), pb[k].get(name)))
    return out


def _changed(a: tuple[list[Any], list[Any]], b: tuple[list[Any], list[Any]]) -> set[str]:
    """The node and edge rows only one of two snapshots has."""
    rows_a = {repr(r) for part in a for r in part}
    rows_b = {repr(r) for part in b for r in part}
    return rows_a ^ rows_b


@pytest.mark.parametrize("keyed", ["arxiv", "doi"])
def test_an_s2_graph_api_paper_adds_no_author_to_a_listed_work(
    cli_store: GraphStore, tmp_path: Path, keyed: str
) -> None:
    """The OpenAlex record lists Ada Lovelace and Charles Babbage on W1; the S2 Graph API
    paper of the same work (same DOI) names them by S2 author ids the graph has never seen.
    A librarian expects the work to keep two authors (the S2 ids joining them), as an arXiv
    line or a Crossref item does."""
    import json

    # keyed by its arXiv id (the S2 paper's node, keyed by the DOI, takes it in), or by the
    # DOI (the S2 paper's own key: the stored work is the record's node)
    work = openalex_work(1) if keyed == "arxiv" else openalex_work(1, locations=[])
    snap = write_openalex(tmp_path / "oa", [work])
    res = runner.invoke(app, ["load", "openalex", str(snap)])
    assert res.exit_code == 0, res.output
    count = "MATCH (:Paper {doi: '10.1000/j1'})-[:AUTHORED_BY]->(a) RETURN count(a) AS n"
    assert cli_store.run(count) == [{"n": 2}]
    paper = {
        "paperId": "f" * 40,
        "corpusId": 4242,
        "externalIds": {"DOI": "10.1000/J1", "CorpusId": 4242},
        "title": "Graphs of the scholarly record",
        "year": 2024,
        "authors": [
            {"authorId": "901", "name": "Ada Lovelace"},
            {"authorId": "902", "name": "Charles Babbage"},
        ],
    }
    path = tmp_path / "paper.json"
    path.write_text(json.dumps(paper), encoding="utf-8")
    res = runner.invoke(app, ["load", "s2", "--papers", str(path)])
    assert res.exit_code == 0, res.output
    assert cli_store.run(count) == [{"n": 2}]
    # the S2 ids joined the listed people: a later record naming them finds them
    ids = "MATCH (a:Author) RETURN a.name AS n, a.s2_author_id AS s2 ORDER BY n"
    assert cli_store.run(ids) == [
        {"n": "Ada Lovelace", "s2": "901"}, {"n": "Charles Babbage", "s2": "902"},
    ]  # fmt: skip


def _old_keys(store: GraphStore) -> int:
    """Turn the graph into one loaded before round 6: every ``also`` entry of the work's
    records keyed by the parsed Paper id (``openalex:doi:10.1000/d``) instead of the W id."""
    rows = store.run(
        "MATCH (:Paper {doi: '10.1000/d'})-[r:CITES]->() WHERE r.also IS NOT NULL "
        "SET r.also = ['openalex:doi:10.1000/d'] RETURN count(r) AS n"
    )
    return int(rows[0]["n"])


def test_old_also_keys_are_migrated_on_the_records_next_load(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """A graph loaded before round 6 holds ``openalex:<best id>`` where the records' own
    keys now go. Reloading the one other record of a work renames the old key on every
    edge (it can only be that record's); with two such records, reloading both renames
    each on the edges it lists: either way the graph is then the clean load's."""
    any_store.apply_schema()
    two = [_work(2, "10.1000/d", refs=(4,)), _work(1, "10.1000/d", refs=(3, 7))]
    load(any_store, settings, write_openalex(tmp_path / "two", two), kind="two")
    clean = snapshot(any_store)
    assert _old_keys(any_store) == 2
    load(any_store, settings, write_openalex(tmp_path / "w1", [two[1]]), kind="w1")
    assert snapshot(any_store) == clean

    any_store.clear()
    any_store.apply_schema()
    three = [*two, _work(5, "10.1000/d", refs=(6, 7))]
    path = write_openalex(tmp_path / "three", three)
    load(any_store, settings, path, kind="three")
    clean = snapshot(any_store)
    assert _old_keys(any_store) == 3
    resolver = load(any_store, settings, path, kind="again")
    assert resolver.report.pruned == 0
    assert snapshot(any_store) == clean


def _three_sources(tmp: Path, *, arxiv_title: str, openalex_title: str) -> dict[str, Any]:
    """W1 from OpenAlex, arXiv and Crossref, each with a title of its own."""
    from _catalogue_works import arxiv_record, crossref_item, write_arxiv, write_crossref

    from scholarkg.loaders import arxiv, crossref, openalex

    a = dict(arxiv_record(1), title=arxiv_title)
    c = dict(crossref_item(1), title=["The publisher's title"])
    return {
        "openalex": (write_openalex(tmp / "oa", [openalex_work(1, title=openalex_title)]),
                     openalex.read_works),
        "arxiv": (write_arxiv(tmp / "arxiv.json", [a]), arxiv.read_snapshot),
        "crossref": (write_crossref(tmp / "crossref.json", [c]), crossref.read_works),
    }  # fmt: skip


def test_a_works_shared_properties_follow_the_source_rank_in_every_order(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """arXiv > Crossref > S2 > OpenAlex, property by property: the title and abstract are
    arXiv's, the work type (which arXiv does not give) Crossref's over OpenAlex's, in every
    order; a reloaded arXiv line replaces its own title, a reloaded OpenAlex record with a
    new title does not replace arXiv's."""
    import itertools

    sources = _three_sources(tmp_path, arxiv_title="The author's title", openalex_title="OA")
    node = (
        "MATCH (p:Paper {doi: '10.1000/j1'}) RETURN p.title AS t, p.abstract AS a, "
        "p.work_type AS k, p.source AS s, p.named_by AS n, p.venue AS v"
    )
    seen = []
    for order in itertools.permutations(sources):
        any_store.clear()
        any_store.apply_schema()
        for name in order:
            path, read = sources[name]
            load_source(any_store, settings, path, read, "-".join(order) + name)
        [row] = any_store.run(node)
        assert (row["t"], row["a"], row["k"], row["s"]) == (
            "The author's title", "One graph per work.", "journal-article", "arxiv"
        ), order  # fmt: skip
        seen.append(snapshot(any_store))
    assert all(_changed(seen[0], other) == set() for other in seen[1:])
    assert "work_type:crossref" in row["n"]
    newer = _three_sources(tmp_path / "v2", arxiv_title="The author's v2", openalex_title="OA v2")
    path, read = newer["openalex"]
    load_source(any_store, settings, path, read, "oa-v2")
    assert any_store.run(node)[0]["t"] == "The author's title"
    path, read = newer["arxiv"]
    load_source(any_store, settings, path, read, "arxiv-v2")
    assert any_store.run(node)[0]["t"] == "The author's v2"


def _s2_papers(tmp: Path, *, arxiv: bool) -> Path:
    """An S2 Graph API page: W1 (DOI 10.1000/j1; with its arXiv id, the S2 record's key is
    the arXiv line's, else its DOI) with S2's own title, abstract and venue, and a work no
    catalogue describes."""
    import json

    ext: dict[str, Any] = {"DOI": "10.1000/J1", "CorpusId": 4242}
    if arxiv:
        ext["ArXiv"] = "2401.00001"
    papers = [
        {"paperId": "f" * 40, "corpusId": 4242, "externalIds": ext, "title": "S2's title",
         "abstract": "S2's abstract.", "venue": "S2 Venue", "year": 2024},
        {"paperId": "e" * 40, "corpusId": 4343, "externalIds": {"CorpusId": 4343},
         "title": "Only S2", "abstract": "Only here.", "venue": "S2 Venue", "year": 2023},
    ]  # fmt: skip
    path = tmp / ("s2-arxiv.json" if arxiv else "s2-doi.json")
    path.write_text(json.dumps({"data": papers}), encoding="utf-8")
    return path


def _load_s2(store: GraphStore, settings: Settings, path: Path) -> None:
    from scholarkg.loaders.corpus_lookup import corpus_lookup
    from scholarkg.loaders.steps import LoadSummary, run_steps, s2_steps
    from scholarkg.loaders.tolerant import SkipReport

    steps = s2_steps({"papers": path}, SkipReport(), corpus_lookup(store))
    run_steps(store, steps, settings=settings, batch_size=50, summary=LoadSummary())


@pytest.mark.parametrize("keyed", ["arxiv", "doi"])
def test_an_s2_paper_follows_the_source_rank_in_both_orders(
    any_store: GraphStore, settings: Settings, tmp_path: Path, keyed: str
) -> None:
    """``load s2`` (family mode) on a work an arXiv line described: the arXiv title and
    abstract stay (arXiv ranks above S2), S2's venue (which arXiv lacks) is added and named
    by S2, whether S2 comes first or second and whether the S2 record's key is the arXiv
    line's node (same arXiv id) or its own (the DOI: the arXiv node merges into it). A work
    no catalogue describes keeps S2's record as it is; a reload of either changes nothing."""
    from _catalogue_works import arxiv_record, write_arxiv

    from scholarkg.loaders import arxiv

    line = write_arxiv(tmp_path / "arxiv.json", [arxiv_record(1)])
    s2 = _s2_papers(tmp_path, arxiv=keyed == "arxiv")
    node = (
        "MATCH (p:Paper {doi: '10.1000/j1'}) RETURN p.id AS id, p.title AS t, "
        "p.abstract AS a, p.venue AS v, p.source AS s, p.named_by AS n, p.family_key AS f"
    )
    alone = "MATCH (p:Paper {corpus_id: 4343}) RETURN properties(p) AS p"
    seen = []
    for order in (("arxiv", "s2"), ("s2", "arxiv")):
        any_store.clear()
        any_store.apply_schema()
        for name in order:
            if name == "arxiv":
                load_source(any_store, settings, line, arxiv.read_snapshot, "-".join(order))
            else:
                _load_s2(any_store, settings, s2)
        [row] = any_store.run(node)
        assert row == {
            "id": "arxiv:2401.00001" if keyed == "arxiv" else "doi:10.1000/j1",
            "t": "Graphs of the scholarly record", "a": "One graph per work.",
            "v": "S2 Venue", "s": "arxiv", "n": ["venue:s2"], "f": True,
        }, order  # fmt: skip
        [only] = any_store.run(alone)
        assert only["p"]["title"] == "Only S2" and only["p"]["source"] == "s2"
        assert only["p"].get("named_by") is None
        seen.append(snapshot(any_store))
        _load_s2(any_store, settings, s2)  # reloads change nothing
        load_source(any_store, settings, line, arxiv.read_snapshot, "again-" + "-".join(order))
        assert _changed(seen[-1], snapshot(any_store)) == set(), order
    assert _changed(seen[0], seen[1]) == set()

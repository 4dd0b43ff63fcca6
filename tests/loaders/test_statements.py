"""What each source record stated about a work several describe is kept (``Statement``
nodes), and the work's shared properties follow the records as they are now: a value a
record drops falls back to another record's, the citation count is the largest stated now,
and the graph does not depend on the load order or the batch size. Both backends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _catalogue_works import (
    arxiv_record,
    citing_work,
    crossref_item,
    inverted,
    openalex_work,
    write_arxiv,
    write_crossref,
    write_openalex,
)

from scholarkg.config import Settings
from scholarkg.loaders import arxiv, crossref, openalex
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.store.base import GraphStore

from .test_catalogue_identity import Reader
from .test_catalogue_identity import load as load_source


def oa_w2(**over: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "abstract_inverted_index": inverted("what the aggregator says"),
        "cited_by_count": 20,
    }
    return openalex_work(2, **(fields | over))


def cr_j2(**over: Any) -> dict[str, Any]:
    item = crossref_item(2)
    # a whole item (Crossref's "indexed" stamp): a field it leaves out has no value
    item.update({"abstract": "<jats:p>What the publisher says.</jats:p>",
                 "is-referenced-by-count": 3, "container-title": ["Journal of Ids"],
                 "indexed": {"date-time": "2024-06-01T00:00:00Z"}})  # fmt: skip
    item.update(over)
    return {k: v for k, v in item.items() if v is not None}


def paper_of(store: GraphStore, doi: str) -> dict[str, Any]:
    rows = store.run("MATCH (p:Paper {doi: $doi}) RETURN properties(p) AS props", {"doi": doi})
    assert len(rows) == 1, rows
    return dict(rows[0]["props"])


def statements(store: GraphStore) -> dict[str, tuple[str, dict[str, Any]]]:
    rows = store.run(
        "MATCH (s:Statement) OPTIONAL MATCH (s)-[:STATES]->(p:Paper) "
        "RETURN s.id AS id, properties(s) AS props, collect(p.id) AS papers"
    )
    out = {}
    for r in rows:
        assert len(r["papers"]) == 1, r  # one work per statement
        out[str(r["id"])] = (str(r["papers"][0]), dict(r["props"]))
    return out


def graph(store: GraphStore) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    rows = store.run("MATCH (p:Paper) WHERE NOT p:Stub RETURN p.id AS id, properties(p) AS props")
    papers = {}
    for r in rows:
        props = dict(r["props"])
        for k, v in props.items():
            if isinstance(v, list):
                props[k] = sorted(v)
        papers[str(r["id"])] = props
    return papers, statements(store)


def _differences(a: Any, b: Any) -> list[str]:
    """Where two ``graph`` views differ (node, property): a readable failure."""
    out = []
    for part, (x, y) in enumerate(zip(a, b, strict=True)):
        for key in sorted(x.keys() | y.keys()):
            u, v = x.get(key), y.get(key)
            if u != v:
                if isinstance(u, dict) and isinstance(v, dict):
                    names = sorted(n for n in u.keys() | v.keys() if u.get(n) != v.get(n))
                    out += [f"{part}:{key}.{n}: {u.get(n)!r} != {v.get(n)!r}" for n in names]
                else:
                    out.append(f"{part}:{key}: {u!r} != {v!r}")
    return out


def load(store: GraphStore, settings: Settings, path: Path, read: Reader, kind: str) -> int:
    """Load one file; returns how many Paper merges it made."""
    return len(load_source(store, settings, path, read, kind).report.merges)


def test_each_record_keeps_its_statement_and_a_dropped_value_falls_back(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    oa = write_openalex(tmp_path / "oa", [oa_w2()])
    load(any_store, settings, oa, openalex.read_works, "oa")
    assert statements(any_store) == {}  # one record: its values are the Paper's own
    cr = write_crossref(tmp_path / "cr.json", [cr_j2()])
    load(any_store, settings, cr, crossref.read_works, "cr")
    paper = paper_of(any_store, "10.1000/j2")
    # the publisher's values rank above the aggregator's; the count is the largest
    assert paper["abstract"] == "What the publisher says."
    assert paper["venue"] == "Journal of Ids"
    assert paper["citation_count"] == 20
    assert paper["source"] == "crossref"
    said = statements(any_store)
    assert set(said) == {"openalex:W2", "crossref:10.1000/j2"}
    assert said["openalex:W2"] == (
        paper["id"],
        {"id": "openalex:W2", "source": "openalex", "title": "Identifiers across catalogues",
         "title_norm": paper["title_norm"], "abstract": "what the aggregator says",
         "year": 2024, "date": "2024-02-15", "work_type": "article", "language": "en",
         "url": "https://openalex.org/W2", "citation_count": 20},
    )  # fmt: skip
    assert said["crossref:10.1000/j2"][1]["abstract"] == "What the publisher says."
    assert said["crossref:10.1000/j2"][1]["citation_count"] == 3

    # the publisher's record is reloaded without its abstract and venue: the work's
    # abstract is the aggregator's again, and nobody states a venue any more
    cr2 = write_crossref(tmp_path / "cr2.json", [cr_j2(abstract=None, **{"container-title": []})])
    load(any_store, settings, cr2, crossref.read_works, "cr2")
    paper = paper_of(any_store, "10.1000/j2")
    assert paper["abstract"] == "what the aggregator says"
    assert "venue" not in paper
    # OpenAlex's day refines Crossref's month ("2024-02"): its date, named
    assert paper["named_by"] == ["abstract:openalex", "date:openalex", "language:openalex"]
    assert "abstract" not in statements(any_store)["crossref:10.1000/j2"][1]
    # the aggregator's count falls: the largest stated now, not the largest ever seen
    oa2 = write_openalex(tmp_path / "oa2", [oa_w2(cited_by_count=2)])
    load(any_store, settings, oa2, openalex.read_works, "oa2")
    assert paper_of(any_store, "10.1000/j2")["citation_count"] == 3

    # a fresh graph of the same records, loaded the other way round, is the same graph
    after = graph(any_store)
    any_store.clear()
    any_store.apply_schema()
    load(any_store, settings, oa2, openalex.read_works, "oa2")
    load(any_store, settings, cr2, crossref.read_works, "cr2")
    assert graph(any_store) == after
    any_store.clear()
    any_store.apply_schema()
    load(any_store, settings, cr2, crossref.read_works, "cr2")
    load(any_store, settings, oa2, openalex.read_works, "oa2")
    assert graph(any_store) == after


def _load_chunked(store: GraphStore, settings: Settings, path: Path, chunk: int) -> None:
    resolver = IdentityResolver(store, chunk=chunk)
    step = Step("oa", path, "oa", lambda: resolver.resolve(openalex.read_works(path)), family=False)
    run_steps(store, [step], settings=settings, batch_size=chunk, summary=LoadSummary())
    resolver.finish()


def test_two_records_of_one_source_give_the_same_statements_whatever_the_batch(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """A preprint's and its article's OpenAlex records share a DOI: one work, two
    statements, the work's own record's title first, in one batch or one record a batch."""
    works = [
        citing_work(5, [], doi="10.1/shared") | {"title": "The preprint's title"},
        citing_work(6, [], doi="10.1/shared") | {"title": "The article's title",
                                                 "cited_by_count": 40},
        citing_work(7, [5]),
    ]  # fmt: skip
    path = write_openalex(tmp_path / "oa", works)
    seen = []
    for chunk in (1, 50):
        any_store.clear()
        any_store.apply_schema()
        _load_chunked(any_store, settings, path, chunk)
        seen.append(graph(any_store))
    assert seen[0] == seen[1], _differences(*seen)
    papers, said = seen[0]
    assert set(said) == {"openalex:W5", "openalex:W6"}
    (work,) = [p for p in papers.values() if p.get("doi") == "10.1/shared"]
    assert work["title"] == "The preprint's title"  # W5 came first: the work's own record
    assert work["citation_count"] == 40
    assert papers["openalex:W7"].get("title") == "Work 7"
    assert said["openalex:W6"][1]["title"] == "The article's title"


def test_two_stored_nodes_of_one_work_merge_with_every_record_statement(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """A publisher's record and an arXiv line that names no DOI are two nodes until an
    OpenAlex record names both ids: the nodes merge, and the work holds the three records'
    statements and the values they rank first, as when OpenAlex's record came first (no
    merge)."""
    sources = {
        "crossref": (write_crossref(tmp_path / "cr.json", [cr_j1()]), crossref.read_works),
        "arxiv": (write_arxiv(tmp_path / "ax.json", [arxiv_record(1) | {"doi": None}]),
                  arxiv.read_snapshot),
        "openalex": (write_openalex(tmp_path / "oa", [openalex_work(1)]), openalex.read_works),
    }  # fmt: skip
    seen = []
    merges = []
    for order in (("crossref", "arxiv", "openalex"), ("openalex", "crossref", "arxiv")):
        any_store.clear()
        any_store.apply_schema()
        merged = 0
        for name in order:
            path, read = sources[name]
            merged += load(any_store, settings, path, read, name)
        seen.append(graph(any_store))
        merges.append(merged)
    assert merges == [1, 0]
    assert seen[0] == seen[1]
    papers, said = seen[0]
    assert set(said) == {"crossref:10.1000/j1", "arxiv:2401.00001", "openalex:W1"}
    work = papers["arxiv:2401.00001"]
    assert work["title"] == "Graphs of the scholarly record"
    assert work["abstract"] == "One graph per work."  # the arXiv line's, ranked first
    assert work["venue"] == "Journal of the publisher"  # Crossref's, above OpenAlex's
    assert work["citation_count"] == 10


def cr_j1() -> dict[str, Any]:
    item = crossref_item(1)
    item["container-title"] = ["Journal of the publisher"]
    return item


def test_the_best_records_reload_falls_back_where_it_gave_every_value(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """The publisher's record gives every shared value the work holds (``named_by`` empty):
    its reload without the abstract still meets the work's statements (``stated_by``)."""
    any_store.apply_schema()
    oa = write_openalex(tmp_path / "oa", [oa_w2(language=None, type=None, publication_date=None)])
    load(any_store, settings, oa, openalex.read_works, "oa")
    load(any_store, settings, write_crossref(tmp_path / "cr.json", [cr_j2()]),
         crossref.read_works, "cr")  # fmt: skip
    paper = paper_of(any_store, "10.1000/j2")
    assert "named_by" not in paper and paper["abstract"] == "What the publisher says."
    assert paper["stated_by"] == ["crossref:10.1000/j2", "openalex:W2"]
    cr2 = write_crossref(tmp_path / "cr2.json", [cr_j2(abstract=None)])
    load(any_store, settings, cr2, crossref.read_works, "cr2")
    paper = paper_of(any_store, "10.1000/j2")
    assert paper["abstract"] == "what the aggregator says"
    assert paper["named_by"] == ["abstract:openalex"]


def _retire(store: GraphStore, folder: Path, pairs: list[tuple[str, str]]) -> None:
    import gzip

    from scholarkg.loaders.identity import retire_ids

    merged = folder / "data" / "merged_ids" / "works" / "2024-06-01.csv.gz"
    merged.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(merged, "wt") as fh:
        fh.write("merge_date,id,merge_into_id\n")
        fh.writelines(f"2024-06-01,{old},{new}\n" for old, new in pairs)
    retire_ids(store, openalex.read_merged_ids(merged), IdentityResolver(store))


def _load_preprint_and_article(store: GraphStore, settings: Settings, tmp_path: Path) -> None:
    """W5 (no title, 4 citations) and W6 (a title, 40), two OpenAlex records of one DOI."""
    store.apply_schema()
    works = [
        citing_work(5, [], doi="10.1/shared") | {"title": None, "cited_by_count": 4},
        citing_work(6, [], doi="10.1/shared") | {"title": "The article's title",
                                                 "cited_by_count": 40},
    ]  # fmt: skip
    _load_chunked(store, settings, write_openalex(tmp_path / "oa", works), 50)


def test_a_record_openalex_retires_takes_its_statement_with_it(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Two OpenAlex records of one work, W6 retired into W5: W6's statement goes and the
    work is restated without it (its title and count were W6's); a record retired into
    one the graph does not hold hands its statement to that id."""
    _load_preprint_and_article(any_store, settings, tmp_path)
    work = paper_of(any_store, "10.1/shared")
    assert (work["title"], work["citation_count"]) == ("The article's title", 40)
    _retire(any_store, tmp_path / "m1", [("W6", "W5")])
    work = paper_of(any_store, "10.1/shared")
    assert "title" not in work and work["citation_count"] == 4
    # one record describes it now: its values are the Paper's own, as a fresh load of W5
    assert "stated_by" not in work and "named_by" not in work
    assert statements(any_store) == {}

    any_store.clear()
    any_store.apply_schema()
    load(
        any_store, settings, write_openalex(tmp_path / "oa2", [oa_w2()]), openalex.read_works, "oa"
    )
    load(any_store, settings, write_crossref(tmp_path / "cr.json", [cr_j2()]),
         crossref.read_works, "cr")  # fmt: skip
    _retire(any_store, tmp_path / "m2", [("W2", "W22")])
    work = paper_of(any_store, "10.1000/j2")
    assert work["openalex_id"] == "W22"
    assert work["stated_by"] == ["crossref:10.1000/j2", "openalex:W22"]
    assert statements(any_store)["openalex:W22"][1]["abstract"] == "what the aggregator says"


def test_an_unchanged_reload_after_a_single_record_dropped_a_value_changes_nothing(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """OpenAlex's record drops its abstract while it alone describes the work: the Paper
    loses it (it holds that record's values), so Crossref's record arriving later makes no
    statement of it, and reloading the same OpenAlex file changes nothing (review)."""
    any_store.apply_schema()
    oa1 = write_openalex(tmp_path / "oa1", [oa_w2()])
    oa2 = write_openalex(tmp_path / "oa2", [oa_w2(abstract_inverted_index=None)])
    cr = write_crossref(tmp_path / "cr.json", [cr_j2(abstract=None)])
    for path, read, kind in ((oa1, openalex.read_works, "oa1"), (oa2, openalex.read_works, "oa2"),
                             (cr, crossref.read_works, "cr")):  # fmt: skip
        load(any_store, settings, path, read, kind)
    history = graph(any_store)
    assert "abstract" not in paper_of(any_store, "10.1000/j2")
    load(any_store, settings, oa2, openalex.read_works, "oa2-again")
    assert graph(any_store) == history, _differences(history, graph(any_store))
    any_store.clear()
    any_store.apply_schema()
    load(any_store, settings, oa2, openalex.read_works, "oa2")
    load(any_store, settings, cr, crossref.read_works, "cr")
    assert graph(any_store) == history, _differences(history, graph(any_store))


def test_a_work_left_with_one_record_by_a_retirement_holds_its_values_again(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """After W6 is retired into W5, W5's later record and a Crossref record after it give
    the values they state (the retirement left no lone statement to go stale; review)."""
    _load_preprint_and_article(any_store, settings, tmp_path)
    _retire(any_store, tmp_path / "m1", [("W6", "W5")])
    w5 = citing_work(5, [], doi="10.1/shared") | {"title": "New title", "cited_by_count": 50}
    _load_chunked(any_store, settings, write_openalex(tmp_path / "oa5", [w5]), 50)
    assert paper_of(any_store, "10.1/shared")["citation_count"] == 50
    item = crossref_item(2) | {"DOI": "10.1/shared", "is-referenced-by-count": 3}
    item.pop("abstract")
    load(
        any_store, settings, write_crossref(tmp_path / "cr.json", [item]), crossref.read_works, "cr"
    )
    assert paper_of(any_store, "10.1/shared")["citation_count"] == 50
    assert statements(any_store)["openalex:W5"][1]["citation_count"] == 50


def test_a_single_source_update_reads_no_statements(
    any_store: GraphStore, settings: Settings, tmp_path: Path, monkeypatch: Any
) -> None:
    """The incremental load's hot path: works one record describes (here with retired ids
    in ``alt_ids``) send no statements read (review)."""
    any_store.apply_schema()
    first = [citing_work(w, [], doi=f"10.1/s{w}") for w in (1, 2, 3)]
    _load_chunked(any_store, settings, write_openalex(tmp_path / "oa", first), 50)
    _retire(any_store, tmp_path / "m", [("W1", "W101"), ("W2", "W102"), ("W3", "W103")])
    update = [citing_work(w, [], doi=f"10.1/s{w - 100}") for w in (101, 102, 103)]
    calls = []
    real = type(any_store).run_named

    def spy(self: GraphStore, name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "identity/paper_statements":
            calls.append(args)
        return real(self, name, *args, **kwargs)

    monkeypatch.setattr(type(any_store), "run_named", spy)
    _load_chunked(any_store, settings, write_openalex(tmp_path / "upd", update), 1)
    assert statements(any_store) == {}
    assert calls == []


def _s2_with_count(tmp: Path, count: int) -> Path:
    import json

    from .test_identity_gaps import _s2_papers

    path = _s2_papers(tmp, arxiv=True)
    doc = json.loads(path.read_text())
    doc["data"][0]["citationCount"] = count
    path.write_text(json.dumps(doc))
    return path


def _load(store: GraphStore, settings: Settings, name: str, paths: dict[str, Path]) -> None:
    from .test_identity_gaps import _load_s2

    if name == "s2":
        _load_s2(store, settings, paths["s2"])
    else:
        read = {"oa": openalex.read_works, "cr": crossref.read_works}[name]
        load(store, settings, paths[name], read, name)


def test_an_s2_record_keeps_its_statement_in_every_order(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """``load s2`` (its own keys) beside OpenAlex's and Crossref's records of one work: S2's
    statement is kept too, so the work's values and citation count (S2's 999, the
    largest) are the same in every order, and an unchanged reload of any changes nothing
    (review: an OpenAlex reload dropped S2's count; S2 between the two catalogues left
    OpenAlex's statement without the values S2 had overwritten)."""
    paths = {
        "oa": write_openalex(tmp_path / "oa", [openalex_work(1)]),
        "cr": write_crossref(tmp_path / "cr.json", [cr_j1()]),
        "s2": _s2_with_count(tmp_path, 999),
    }
    seen = []
    for order in (("oa", "s2", "cr"), ("oa", "cr", "s2"), ("s2", "cr", "oa")):
        any_store.clear()
        any_store.apply_schema()
        for name in order:
            _load(any_store, settings, name, paths)
        seen.append(graph(any_store))
        for name in order:
            _load(any_store, settings, name, paths)
            assert graph(any_store) == seen[-1], (order, name)
        assert seen[-1] == seen[0], (order, _differences(seen[0], seen[-1]))
    papers, said = seen[0]
    assert set(said) == {"openalex:W1", "crossref:10.1000/j1", "s2:4242"}
    (work,) = [p for p in papers.values() if p.get("doi") == "10.1000/j1"]
    assert work["citation_count"] == 999
    assert work["abstract"] == "S2's abstract."  # S2 ranks above OpenAlex; Crossref has none
    assert work["venue"] == "Journal of the publisher"
    assert said["openalex:W1"][1]["title"] == "Graphs of the scholarly record"


def test_a_date_the_best_record_gives_to_the_year_is_made_precise_by_one_that_agrees() -> None:
    """Crossref's ``issued`` of a year replaced OpenAlex's day (a new user's review): the rank
    decides between dates that differ, not between one date said more or less exactly."""
    from scholarkg.loaders.statements import restated

    stated: dict[str, dict[str, Any]] = {
        "crossref:10.1/x": {"source": "crossref", "date": "2021", "year": 2021},
        "openalex:W1": {"source": "openalex", "date": "2021-03-01", "year": 2021},
        "bibtex:10.1/x": {"source": "bibtex", "date": "2021-03"},
    }
    out = restated(stated, {}, {"crossref:10.1/x", "openalex:W1", "bibtex:10.1/x"})
    assert (out["date"], out["source"], out["named_by"]) == (
        "2021-03-01", "crossref", ["date:openalex"],
    )  # fmt: skip
    stated["openalex:W1"]["date"] = "2020-12-31"  # disagrees: the better rank's stands
    out = restated(stated, {}, set(stated))
    assert out["date"] == "2021-03" and out["named_by"] == ["date:bibtex"]


def test_the_saved_query_shows_what_each_source_said(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """The Browser's and the explorer's saved query ``paper_statements``."""
    from scholarkg.explorer.saved import saved_queries

    any_store.apply_schema()
    load(any_store, settings, write_openalex(tmp_path / "oa", [oa_w2()]), openalex.read_works, "oa")
    load(any_store, settings, write_crossref(tmp_path / "cr.json", [cr_j2()]),
         crossref.read_works, "cr")  # fmt: skip
    query = next(q for q in saved_queries() if q.name == "paper_statements")
    rows = any_store.run(query.text, {"paperId": paper_of(any_store, "10.1000/j2")["id"]})
    assert [(r["record"], r["citation_count"], r["best_source"]) for r in rows] == [
        ("crossref:10.1000/j2", 3, "crossref"), ("openalex:W2", 20, "crossref"),
    ]  # fmt: skip
    assert rows[1]["abstract"] == "what the aggregator says"

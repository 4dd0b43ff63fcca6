"""Every field a user's file carries, or a clear refusal: OpenAlex's plain-text ``abstract``
(what client tools write), the Semantic Scholar Graph API's paper JSON given to ``load s2``
(one paper, a list, a ``{"data": [...]}`` page), and no exit 0 after storing nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _catalogue_works import openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.loaders import openalex
from scholarkg.store.falkordb.store import FalkorDBStore


def test_a_plain_abstract_is_kept_and_the_inverted_index_wins(tmp_path: Path) -> None:
    plain = openalex_work(2, abstract="Ids  everywhere.")
    assert openalex.parse_work(plain, path=tmp_path, line=1).paper.abstract == "Ids  everywhere."
    both = openalex_work(1, abstract="something else")
    rebuilt = "one graph per work of the record"
    assert openalex.parse_work(both, path=tmp_path, line=1).paper.abstract == rebuilt
    from scholarkg.errors import InputError

    try:
        openalex.parse_work(openalex_work(2, abstract=["x"]), path=tmp_path, line=4)
    except InputError as err:
        assert (err.line, err.field) == (4, "abstract")
    else:
        raise AssertionError("a list abstract was accepted")


def test_load_openalex_keeps_plain_abstracts_on_both_paths(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    write_openalex(tmp_path / "a", [openalex_work(2, abstract="Plain text.")])
    res = runner.invoke(app, ["load", "openalex", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    rows = store.run("MATCH (p:Paper {openalex_id: 'W2'}) RETURN p.abstract AS a")
    assert rows == [{"a": "Plain text."}]


def _graph_api_paper(n: int, **over: Any) -> dict[str, Any]:
    """A paper as the S2 Graph API returns it with fields=… (camelCase; we made it up)."""
    paper = {
        "paperId": f"{n:040x}",
        "corpusId": 1000 + n,
        "externalIds": {"DOI": f"10.5555/S2.{n}", "CorpusId": 1000 + n},
        "title": f"Graph API paper {n}",
        "abstract": f"Abstract {n}.",
        "year": 2023,
        "publicationDate": "2023-05-01",
        "citationCount": 7,
        "referenceCount": 3,
        "isOpenAccess": True,
        "authors": [{"authorId": f"9{n}", "name": "Grace Hopper"}],
    }
    paper.update(over)
    return paper


def test_load_s2_reads_the_graph_api_paper_json(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_graph_api_paper(1)), encoding="utf-8")
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"total": 2, "data": [_graph_api_paper(2), _graph_api_paper(3)]}))
    lines = tmp_path / "pages.jsonl"
    lines.write_text(json.dumps({"data": [_graph_api_paper(4)]}) + "\n")
    for path in (one, page, lines):
        res = runner.invoke(app, ["load", "s2", "--papers", str(path)])
        assert res.exit_code == 0, res.output
    rows = store.run(
        "MATCH (p:Paper) RETURN p.id AS id, p.corpus_id AS c, p.abstract AS a, "
        "p.s2_paper_id AS sha, p.citation_count AS n, p.is_open_access AS oa ORDER BY c"
    )
    assert [r["c"] for r in rows] == [1001, 1002, 1003, 1004]
    assert rows[0] == {
        "id": "doi:10.5555/s2.1",
        "c": 1001,
        "a": "Abstract 1.",
        "sha": f"{1:040x}",
        "n": 7,
        "oa": True,
    }
    authors = store.run("MATCH (:Paper)-[:AUTHORED_BY]->(a:Author) RETURN DISTINCT a.id AS id")
    assert sorted(r["id"] for r in authors) == [f"s2author:9{n}" for n in (1, 2, 3, 4)]


def test_a_paper_batch_answer_with_nulls_loads_its_papers_and_counts_the_nulls(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """``POST /graph/v1/paper/batch`` answers ``null`` for an id S2 knows no paper of: the
    papers load, the null is counted once, and the load ends 0 (a real answer ended 3,
    "nothing stored", with its papers stored: the reference-list step of the same file,
    which found no list, was taken for the file)."""
    path = tmp_path / "batch.json"
    path.write_text(json.dumps([None, _graph_api_paper(1), _graph_api_paper(2)]))
    res = runner.invoke(app, ["load", "s2", "--papers", str(path)])
    assert res.exit_code == 0, res.output
    assert "batch.json: 1 malformed line(s) skipped" in res.output
    assert "batch.json:1: null: no paper" in res.output
    assert store.counts().nodes.get("Paper") == 2
    only_null = tmp_path / "none.json"
    only_null.write_text("[null]")
    res = runner.invoke(app, ["load", "s2", "--papers", str(only_null)])
    assert res.exit_code != 0 and "nothing stored" in str(res.exception)


def test_a_recommendations_answer_loads_and_a_citations_answer_is_named(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """The Recommendations API answers ``{"recommendedPapers": [papers]}``: its papers load.
    A ``/paper/{id}/citations`` answer holds ``citingPaper`` pairs: refused as what it is
    (it was refused for a missing corpus id, which misled)."""
    recommended = tmp_path / "recommended.json"
    recommended.write_text(json.dumps({"recommendedPapers": [_graph_api_paper(5)]}))
    res = runner.invoke(app, ["load", "s2", "--papers", str(recommended)])
    assert res.exit_code == 0, res.output
    assert store.counts().nodes.get("Paper") == 1
    citations = tmp_path / "citations.json"
    citations.write_text(
        json.dumps({"data": [{"contexts": [], "citingPaper": _graph_api_paper(6)}]})
    )
    res = runner.invoke(app, ["load", "s2", "--papers", str(citations)])
    assert res.exit_code != 0
    assert "/citations answer (citingPaper pairs)" in str(res.exception)


def test_load_s2_refuses_graph_api_papers_without_a_corpus_id(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """The API's default answer has paperId and title only: nothing to key the paper by, so
    the load ends non-zero naming the field and what to request, and stores nothing."""
    path = tmp_path / "default-fields.json"
    path.write_text(json.dumps({"data": [{"paperId": "a" * 40, "title": "T"}]}))
    res = runner.invoke(app, ["load", "s2", "--papers", str(path)])
    assert res.exit_code != 0
    message = str(res.exception)
    assert "nothing stored" in message and "fields=corpusId" in message, message
    assert "default-fields.json:line 1 (field 'corpusId')" in message
    assert store.counts().total_nodes == 0


def test_load_s2_reads_a_graph_api_papers_references_and_citations(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """``fields=…,references.corpusId,citations.corpusId``: each entry naming a paper of
    the graph is a CITES edge (marked ``from_s2``), once however many lists state it; the
    rest is counted, not dropped silently (``load s2`` ignored both lists)."""
    papers = [
        _graph_api_paper(1, references=[
            {"paperId": f"{2:040x}", "corpusId": 1002},
            {"paperId": "f" * 40, "corpusId": 999_999},  # not in the graph
            {"paperId": "e" * 40, "title": "asked without its corpus id"},
        ]),
        _graph_api_paper(2, citations=[{"paperId": f"{1:040x}", "corpusId": 1001}],
                         references=[{"externalIds": {"CorpusId": 1003}}]),
        _graph_api_paper(3),
    ]  # fmt: skip
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"data": papers}), encoding="utf-8")
    res = runner.invoke(app, ["load", "s2", "--papers", str(page)])
    assert res.exit_code == 0, res.output
    rows = store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN a.corpus_id AS a, b.corpus_id AS b, "
        "r.from_s2 AS s2 ORDER BY a, b"
    )
    assert rows == [{"a": 1001, "b": 1002, "s2": True}, {"a": 1002, "b": 1003, "s2": True}]
    out = " ".join(res.output.split())
    assert "Graph API references without a corpus id" in out
    assert "references/citations naming a paper not in the graph" in out
    assert "3 source record(s) from 1 file(s)" in out  # the lists' pass is no second file
    # a second load changes nothing
    res = runner.invoke(app, ["load", "s2", "--papers", str(page)])
    assert res.exit_code == 0, res.output
    assert store.run("MATCH ()-[r:CITES]->() RETURN count(r) AS n") == [{"n": 2}]


def test_a_graph_api_reference_s2_could_not_match_is_said_as_such(
    graph_env: str, tmp_path: Path
) -> None:
    """``{"paperId": null, …}`` is the API's answer for a reference it matched to no paper:
    asking for ``references.corpusId`` again cannot help (a review)."""
    page = tmp_path / "page.json"
    papers = [_graph_api_paper(1, references=[{"paperId": None, "title": "Unmatched"}])]
    page.write_text(json.dumps({"data": papers}), encoding="utf-8")
    res = runner.invoke(app, ["load", "s2", "--papers", str(page)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "1 Graph API references S2 could not match to a paper (paperId null)" in out
    assert "request fields" not in out


def test_the_s2_steps_read_one_object_of_a_papers_file_to_plan_and_parse_a_response_once(
    graph_env: str, tmp_path: Path, monkeypatch: Any
) -> None:
    """Planning the steps parsed a whole Graph API JSON Lines file looking for reference
    lists, and a ``.json`` response was parsed three times (a review)."""
    import scholarkg.loaders.citerec_s2 as s2
    import scholarkg.loaders.tolerant as tolerant
    import scholarkg.textio as textio
    from scholarkg.loaders.steps import s2_steps
    from scholarkg.loaders.tolerant import SkipReport

    lines = tmp_path / "papers.jsonl"
    lines.write_text("".join(json.dumps(_graph_api_paper(n)) + "\n" for n in range(1, 2001)))
    read = []
    real_lines = tolerant.iter_jsonl_tolerant

    def counted_lines(*args: Any, **kwargs: Any) -> Any:
        for item in real_lines(*args, **kwargs):
            read.append(item)
            yield item

    monkeypatch.setattr(s2, "iter_jsonl_tolerant", counted_lines)
    steps = s2_steps({"papers": lines}, SkipReport(), lambda ids: {})
    assert [s.kind for s in steps] == ["s2-papers", "s2-references"] and len(read) == 1

    parsed = []
    real_json = textio.load_json

    def counted_json(path: Any, **kwargs: Any) -> Any:
        parsed.append(path)
        return real_json(path, **kwargs)

    monkeypatch.setattr(textio, "load_json", counted_json)
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"data": [_graph_api_paper(1, references=[{"corpusId": 1002}])]}))
    res = runner.invoke(app, ["load", "s2", "--papers", str(page)])
    assert res.exit_code == 0, res.output
    assert len(parsed) == 1


def test_a_graph_api_papers_shorter_reference_list_takes_s2s_mark_off_what_it_dropped(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """A paper's ``references`` is its whole list: reloaded without a reference, the edge
    only S2 stated goes, one another source stated too keeps that source's mark; an empty
    list drops them all (the reload kept every CITES S2 once stated)."""

    def page(refs: list[int]) -> Path:
        papers = [
            _graph_api_paper(1, references=[{"corpusId": 1000 + n} for n in refs]),
            _graph_api_paper(2), _graph_api_paper(3),
        ]  # fmt: skip
        path = tmp_path / f"page-{len(refs)}.json"
        path.write_text(json.dumps({"data": papers}), encoding="utf-8")
        return path

    def cites() -> list[tuple[int, bool | None, bool | None]]:
        rows = store.run(
            "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN b.corpus_id AS b, r.from_s2 AS s2, "
            "r.from_openalex AS oa ORDER BY b"
        )
        return [(r["b"], r["s2"], r["oa"]) for r in rows]

    for refs in ([2, 3], [2], []):
        res = runner.invoke(app, ["load", "s2", "--papers", str(page(refs))])
        assert res.exit_code == 0, res.output
        if refs == [2, 3]:
            assert cites() == [(1002, True, None), (1003, True, None)]
            # another source states 1 → 2 as well
            store.run(
                "MATCH (a:Paper {corpus_id: 1001})-[r:CITES]->(:Paper {corpus_id: 1002}) "
                "SET r.from_openalex = true"
            )
        elif refs == [2]:
            assert cites() == [(1002, True, True)]
    assert cites() == [(1002, None, True)]


def test_the_parsed_response_is_let_go_after_its_last_pass(graph_env: str, tmp_path: Path) -> None:
    """The one parse shared by the papers and reference-list passes is not kept by the
    process once the reference lists are read (a long explorer or Python session)."""
    import scholarkg.loaders.citerec_s2 as s2

    page = tmp_path / "page.json"
    page.write_text(json.dumps({"data": [_graph_api_paper(1, references=[{"corpusId": 1002}])]}))
    res = runner.invoke(app, ["load", "s2", "--papers", str(page)])
    assert res.exit_code == 0, res.output
    assert s2._LAST_DOCUMENT == []

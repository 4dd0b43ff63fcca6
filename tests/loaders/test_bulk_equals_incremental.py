"""``load openalex --bulk`` builds exactly the graph ``load openalex`` builds from the same
snapshot, id-sharing records included (a preprint and its article: two OpenAlex works, one
Paper), which the bulk path once refused as duplicate ids. Every node (labels, id,
properties), every relationship (type, ends, properties) and every alias is compared."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from _catalogue_works import openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore


def _pair(w: int, arxiv: str, *, cited_by: int, refs: list[int]) -> list[dict[str, Any]]:
    """A preprint (arXiv's DataCite DOI) and its article (journal DOI, arXiv landing page)."""
    common = {
        "ids": {},
        "authorships": [
            {"author": {"id": f"https://openalex.org/A{w}", "display_name": f"Author {w}"}},
        ],
    }
    preprint = openalex_work(
        1, **common, id=f"https://openalex.org/W{w}", title=f"Preprint {w}",
        doi=f"https://doi.org/10.48550/arXiv.{arxiv}", locations=[], cited_by_count=0,
        referenced_works=[f"https://openalex.org/W{r}" for r in refs[:2]],
    )  # fmt: skip
    article = openalex_work(
        1, **common, id=f"https://openalex.org/W{w + 1}", title=f"Article {w}",
        doi=f"https://doi.org/10.1000/a{w}", cited_by_count=cited_by,
        locations=[{"landing_page_url": f"https://arxiv.org/abs/{arxiv}"}],
        referenced_works=[f"https://openalex.org/W{r}" for r in refs[1:]],
    )  # fmt: skip
    return [preprint, article]


def snapshot(root: Path) -> Path:
    write_openalex(
        root,
        [openalex_work(1), *_pair(100, "2405.00100", cited_by=7, refs=[1, 2, 300, 9])],
        date="2024-01-01",
    )
    write_openalex(
        root,
        [
            openalex_work(2),
            openalex_work(3),
            *_pair(200, "2405.00200", cited_by=3, refs=[100, 3, 301]),
            openalex_work(1, title="Graphs, revised"),  # the newest record wins
        ],
        date="2024-02-01",
    )
    return root


def everything(store: GraphStore) -> tuple[list[Any], list[Any]]:
    nodes = store.run("MATCH (n) RETURN labels(n) AS l, n.id AS id, properties(n) AS p")
    edges = store.run(
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS a, b.id AS b, properties(r) AS p"
    )
    return (
        sorted(repr((sorted(n["l"]), n["id"], sorted(n["p"].items()))) for n in nodes),
        sorted(repr((e["t"], e["a"], e["b"], sorted(e["p"].items()))) for e in edges),
    )


def _snapshot_with_merged_ids(root: Path, works: list[dict[str, Any]], merged: str) -> Path:
    """A snapshot folder of ``works`` and one ``merged_ids`` file: ``merged`` its CSV rows."""
    import gzip

    write_openalex(root, works, date="2024-01-01")
    path = root / "data" / "merged_ids" / "works" / "2024-06-01.csv.gz"
    path.parent.mkdir(parents=True)
    with gzip.open(path, "wt") as fh:
        fh.write("merge_date,id,merge_into_id\n" + merged)
    return root


def _incremental_then_bulk(store: FalkorDBStore, root: Path) -> tuple[Any, Any]:
    """``everything`` after ``load openalex`` of ``root``, then after ``--bulk`` of it."""
    res = runner.invoke(app, ["load", "openalex", str(root)])
    assert res.exit_code == 0, res.output
    incremental = everything(store)
    runner.invoke(app, ["db", "reset", "--yes"])
    res = runner.invoke(app, ["load", "openalex", str(root), "--bulk"])
    assert res.exit_code == 0, res.output
    return incremental, everything(store)


def test_bulk_equals_incremental_with_id_sharing_records(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    snap = snapshot(tmp_path / "snap")
    res = runner.invoke(app, ["load", "openalex", str(snap)])
    assert res.exit_code == 0, res.output
    incremental = everything(store)
    counts = store.counts()
    runner.invoke(app, ["db", "reset", "--yes"])

    res = runner.invoke(app, ["load", "openalex", str(snap), "--bulk"])
    assert res.exit_code == 0, res.output
    assert "id sharing works" in res.output  # the two pairs went the incremental way
    bulk = everything(store)
    assert store.counts() == counts
    assert set(bulk[0]) ^ set(incremental[0]) == set()
    assert set(bulk[1]) ^ set(incremental[1]) == set()
    # one Paper per pair, keyed by the arXiv id, the article's W in alt_ids
    pair = store.run(
        "MATCH (p:Paper {arxiv_id: '2405.00100'}) RETURN p.id AS id, p.alt_ids AS alt, "
        "p.citation_count AS n"
    )
    assert pair == [{"id": "arxiv:2405.00100", "alt": ["openalex:W101"], "n": 7}]


def _by(author: dict[str, Any], w: int, **extra: Any) -> dict[str, Any]:
    return openalex_work(1, id=f"https://openalex.org/W{w}", title=f"Work {w}", doi=None,
                         ids={}, locations=[], authorships=[{"author": author}],
                         **extra)  # fmt: skip


def test_bulk_fills_an_author_as_the_incremental_load_does(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """One Author whose records differ: the older partition names it with an ORCID, the
    newer names it three ways, the last without an ORCID. The incremental load keeps each
    property of the last record stating it, whatever the batch size (FalkorDB kept the
    first of a batch's rows for one node); the bulk path reads newest first and must end
    with the same node."""
    a = "https://openalex.org/A9"
    root = tmp_path / "snap"
    orcid = "https://orcid.org/0000-0002-1825-0097"
    write_openalex(root, [_by({"id": a, "display_name": "Grace Hopper", "orcid": orcid}, 500)],
                   date="2024-01-01")  # fmt: skip
    write_openalex(
        root,
        [
            _by({"id": a, "display_name": "G. Hopper"}, 501),
            _by({"id": a, "display_name": "Grace B. Hopper", "orcid": orcid}, 502),
            _by({"id": a, "display_name": "Grace Hopper (Navy)"}, 503),
        ],
        date="2024-02-01",
    )
    for batch in ("1", "2000"):
        runner.invoke(app, ["db", "reset", "--yes"])
        res = runner.invoke(app, ["load", "openalex", str(root), "--batch-size", batch])
        assert res.exit_code == 0, res.output
        node = store.run("MATCH (a:Author) RETURN a.name AS name, a.orcid AS orcid")
        assert node == [{"name": "Grace Hopper (Navy)", "orcid": "0000-0002-1825-0097"}], batch
    incremental = everything(store)
    runner.invoke(app, ["db", "reset", "--yes"])

    res = runner.invoke(app, ["load", "openalex", str(root), "--bulk"])
    assert res.exit_code == 0, res.output
    assert re.search(r"id sharing works\s*│\s*0 ", res.output)  # the bulk files hold it
    assert everything(store) == incremental


def test_bulk_takes_an_authorship_property_the_first_authorship_lacks(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """The first work's authorship lists no institution, later ones do (as in most API pages):
    the bulk path once refused the file ("edge property not present on the first edge",
    naming its own temporary file); now it builds the incremental load's graph, the
    institutions on the authorships that state them."""
    root = tmp_path / "snap"
    ships = [
        {"author": {"id": "https://openalex.org/A1", "display_name": "Ann One"},
         "institutions": []},
        {"author": {"id": "https://openalex.org/A2", "display_name": "Bob Two"},
         "institutions": [{"id": "https://openalex.org/I1", "display_name": "Uni X"}]},
        {"author": {"id": "https://openalex.org/A3", "display_name": "Cy Three"}},
    ]  # fmt: skip
    works = [
        openalex_work(1, id=f"https://openalex.org/W{w}", title=f"Work {w}", doi=None, ids={},
                      locations=[], authorships=[ship])
        for w, ship in enumerate(ships, start=700)
    ]  # fmt: skip
    write_openalex(root, works, date="2024-01-01")
    incremental, bulk = _incremental_then_bulk(store, root)
    assert bulk == incremental
    rows = store.run(
        "MATCH (p:Paper)-[r:AUTHORED_BY]->(a:Author) RETURN a.name AS a, r.institutions AS i "
        "ORDER BY a"
    )
    assert [r["a"] for r in rows] == ["Ann One", "Bob Two", "Cy Three"]
    assert rows[0]["i"] is None and rows[2]["i"] is None
    assert "Uni X" in str(rows[1]["i"])


def test_an_author_line_is_read_by_its_id_without_decoding_unless_escaped() -> None:
    """The fill's rewrite copies every line it does not change by its id alone; a line whose
    id holds an escape (or that is not ``_encode``'s shape) is decoded instead."""
    from scholarkg.loaders.openalex_bulk import _line_id

    assert _line_id(b'{"id":"openalexauthor:A9","name":"G. Hopper"}\n') == "openalexauthor:A9"
    assert _line_id(b'{"id":"name:a\\"b","name":"x"}\n') is None
    assert _line_id(b'{"name":"no id first"}\n') is None


def _citing(w: int, *refs: int) -> dict[str, Any]:
    return openalex_work(1, id=f"https://openalex.org/W{w}", title=f"Work {w}", doi=None,
                         ids={}, locations=[], authorships=[],
                         referenced_works=[f"https://openalex.org/W{r}" for r in refs])  # fmt: skip


SELF_CITATION_LINE = re.compile(
    r"(\d+) CITES skipped: the work's own id among its references \(a self-citation, no "
    r"CITES loop\)"
)


def test_bulk_counts_the_self_citations_it_leaves_out_as_the_incremental_load_does(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """A work that lists itself among its references: both paths leave the CITES loop out,
    but only the incremental load said so; the bulk summary said nothing. Each work counts
    once, as its kept record states it: W7's older record cited itself, its newer one (the
    one loaded) does not."""
    root = tmp_path / "snap"
    write_openalex(root, [_citing(5, 5, 6), _citing(7, 7)], date="2024-01-01")
    write_openalex(root, [_citing(6, 6, 5), _citing(8, 8, 8), _citing(7, 5)], date="2024-02-01")
    res = runner.invoke(app, ["load", "openalex", str(root)])
    assert res.exit_code == 0, res.output
    incremental = [int(n) for n in SELF_CITATION_LINE.findall(" ".join(res.output.split()))]
    assert sorted(incremental) == [2, 2]  # per file: W5 and W7's older record; W6 and W8
    loops = "MATCH (p:Paper)-[:CITES]->(p) RETURN count(*) AS n"
    assert store.run(loops) == [{"n": 0}]
    graph = everything(store)
    runner.invoke(app, ["db", "reset", "--yes"])

    res = runner.invoke(app, ["load", "openalex", str(root), "--bulk"])
    assert res.exit_code == 0, res.output
    assert SELF_CITATION_LINE.findall(" ".join(res.output.split())) == ["3"], res.output
    assert store.run(loops) == [{"n": 0}]
    assert everything(store) == graph


def test_a_reference_to_a_work_retired_into_the_citing_work_is_no_cites_loop(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """W5 cites W9, which ``merged_ids`` retires into W5: the incremental merge leaves no
    CITES loop; the bulk files pointed the reference at the survivor, W5 itself."""
    root = _snapshot_with_merged_ids(
        tmp_path / "snap", [_citing(5, 9, 6), _citing(6, 5)], "2024-06-01,W9,W5\n"
    )
    graph, _ = _incremental_then_bulk(store, root)
    cites = "MATCH (a:Paper)-[:CITES]->(b:Paper) RETURN a.id AS a, b.id AS b ORDER BY a, b"
    assert store.run(cites) == [
        {"a": "openalex:W5", "b": "openalex:W6"},
        {"a": "openalex:W6", "b": "openalex:W5"},
    ]
    assert everything(store) == graph


def test_bulk_equals_incremental_when_merged_ids_retire_a_record_of_a_shared_work(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    """Two OpenAlex records of one work (one DOI), the second retired into the first by
    ``merged_ids``: the incremental load keeps no lone statement of the work (review: it
    kept ``Statement openalex:W5`` and ``stated_by`` where ``--bulk`` has neither)."""
    from _catalogue_works import citing_work

    works = [
        citing_work(5, [], doi="10.1/shared") | {"title": "t5", "cited_by_count": 4},
        citing_work(6, [], doi="10.1/shared") | {"title": "t6", "cited_by_count": 40},
        citing_work(8, [5, 6]),
    ]
    root = _snapshot_with_merged_ids(tmp_path / "snap", works, "2024-06-01,W6,W5\n")
    incremental, bulk = _incremental_then_bulk(store, root)
    assert set(bulk[0]) ^ set(incremental[0]) == set()
    assert set(bulk[1]) ^ set(incremental[1]) == set()

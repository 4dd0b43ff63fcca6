"""``load openalex --bulk`` on the managed Neo4j (the offline importer) builds the graph the
incremental load builds on the embedded store: the same nodes and relationships per label
and type, and the same properties, list properties included (the importer's array columns).

A synthetic snapshot in the real layout (two ``updated_date`` partitions of gzipped parts, a
``merged_ids`` file); the works were made up for the test.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import inverted, openalex_work, write_openalex
from _cli import runner

from scholarkg.cli import app
from scholarkg.config import Neo4jSettings
from scholarkg.store.base import GraphStore
from scholarkg.store.falkordb.store import FalkorDBStore
from scholarkg.store.neo4j.server import ManagedNeo4j, java_available
from scholarkg.store.neo4j.store import Neo4jStore


def _work(n: int) -> dict[str, Any]:
    """A work with everything the bulk files carry: authors with institutions (a list on
    AUTHORED_BY), topics and scores (lists on the Paper), a venue, references inside and
    outside the snapshot; text with the importer's default array delimiter, commas, quotes
    and a line break."""
    return {
        "id": f"https://openalex.org/W{n}",
        "doi": f"https://doi.org/10.5555/{n}" if n % 3 else None,
        "title": f'Work {n}; with "quotes", commas' + ("\nand a second line" if n == 12 else ""),
        "publication_year": 2000 + n,
        "publication_date": f"{2000 + n}-03-0{1 + n % 9}",
        "type": "article",
        "language": "en",
        "cited_by_count": n,
        "ids": {"openalex": f"https://openalex.org/W{n}", "mag": str(1000 + n)},
        "open_access": {"is_oa": bool(n % 2), "oa_status": "green", "oa_url": None},
        "authorships": [
            {
                "author_position": "first" if i == 0 else "middle",
                "author": {
                    "id": f"https://openalex.org/A{(n + i) % 7}",
                    "display_name": f"Author {(n + i) % 7}",
                    "orcid": None,
                },
                "institutions": [
                    {"display_name": f"Institute {n % 3}; Lab"},
                    {"display_name": "University, of Somewhere"},
                ][: 1 + i % 2],
                "raw_author_name": f"A. {(n + i) % 7}",
            }
            for i in range(1 + n % 3)
        ],
        "primary_location": {"source": {"display_name": f"Venue {n % 4}"}},
        "topics": [
            {"display_name": "Graphs; networks", "score": 0.91},
            {"display_name": f"Topic {n % 5}", "score": 0.5},
        ],
        "referenced_works": [f"https://openalex.org/W{r}" for r in (n + 1, n + 2, 40 + n % 3)],
        "related_works": [f"https://openalex.org/W{n + 5}"],
        "abstract_inverted_index": inverted(f"an abstract of work {n} about graphs"),
    }


def _snapshot(root: Path) -> Path:
    write_openalex(root, [_work(n) for n in range(10, 20)], date="2024-01-01")
    newer = {**_work(11), "title": "Work 11, revised"}  # the newest record wins
    write_openalex(root, [newer, *[_work(n) for n in range(20, 26)], openalex_work(1)],
                   date="2024-02-01")  # fmt: skip
    merged = root / "data" / "merged_ids" / "works" / "2024-02-01.csv.gz"
    merged.parent.mkdir(parents=True)
    with gzip.open(merged, "wt") as fh:
        # W41 into a stub; W42 into a loaded work that W11 cites beside W42 (one CITES left)
        fh.write("merge_date,id,merge_into_id\n2024-02-01,W41,W40\n2024-02-01,W42,W12\n")
    return root


def _graph(st: GraphStore) -> dict[str, Any]:
    """Everything comparable: per label the nodes' properties, per type the edges.

    Papers are keyed by their OpenAlex id, not their node id: the incremental load keeps the
    id a work got first (a reference stub's ``openalex:W…``, then filled in; see
    docs/loading-openalex.md), the bulk load gives each work its id by the id rule at once.
    """
    key = "coalesce({v}.openalex_id, {v}.id)"  # Papers and Authors: OpenAlex's; Venues: id
    nodes: dict[str, list[dict[str, Any]]] = {}
    for label in ("Paper", "Author", "Venue", "PaperAlias"):
        rows = st.run(f"MATCH (n:{label}) RETURN {key.format(v='n')} AS k, properties(n) AS p")
        if label == "Paper":
            rows = [
                {"k": r["k"], "p": {k: v for k, v in r["p"].items() if k != "id"}} for r in rows
            ]
        nodes[label] = [r["p"] for r in sorted(rows, key=lambda r: str(r["k"]))]
    edges = {
        rel: sorted(
            (r["a"], r["b"], sorted(r["p"].items()))
            for r in st.run(
                f"MATCH (a)-[e:{rel}]->(b) RETURN {key.format(v='a')} AS a, "
                f"{key.format(v='b')} AS b, properties(e) AS p"
            )
        )
        for rel in ("CITES", "AUTHORED_BY", "IN_VENUE", "ALIAS_OF")
    }
    return {"nodes": nodes, "edges": edges}


@pytest.mark.slow  # its own Neo4j (the importer replaces the database) + 2 loads: 100-180 s
def test_bulk_on_neo4j_equals_the_incremental_load_on_the_embedded_store(
    graph_env: str, store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if java_available():
        pytest.skip(f"no managed Neo4j here: {java_available()}")
    snapshot = _snapshot(tmp_path / "snapshot")
    res = runner.invoke(app, ["load", "openalex", str(snapshot)])
    assert res.exit_code == 0, res.output
    incremental = _graph(store)

    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    # the embedded graph's name selects no Neo4j database: a load naming it is refused
    for name in ("NEO4J_URI", "NEO4J_USER", "NEO4J_PASSWORD", "NEO4J_DATABASE", "SCHOLARKG_GRAPH"):
        monkeypatch.delenv(name, raising=False)
    server = ManagedNeo4j(tmp_path / "home" / "neo4j")
    try:
        res = runner.invoke(
            app, ["--backend", "neo4j", "load", "openalex", str(snapshot), "--bulk"]
        )
        assert res.exit_code == 0, res.output
        st = Neo4jStore.from_settings(
            Neo4jSettings(uri=server.uri(), user="neo4j", password=server.password())
        )
        try:
            bulk = _graph(st)
            counts = st.counts()
        finally:
            st.close()
    finally:
        server.stop()

    embedded_counts = store.counts()
    assert counts.nodes == embedded_counts.nodes
    assert counts.relationships == embedded_counts.relationships
    assert set(counts.relationships) == {"CITES", "AUTHORED_BY", "IN_VENUE", "ALIAS_OF"}
    for label, rows in incremental["nodes"].items():
        for mine, theirs in zip(bulk["nodes"][label], rows, strict=True):
            differ = {k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k)}
            assert not differ, (label, {k: (mine.get(k), theirs.get(k)) for k in differ})
    assert bulk["edges"] == incremental["edges"]
    w40 = next(p for p in bulk["nodes"]["Paper"] if p.get("openalex_id") == "W40")
    assert w40["alt_ids"] == ["openalex:W41"]  # a retired work's id stays an alias
    # … and a PaperAlias node, so a later record citing the retired W41 finds W40
    assert ("openalex:W41", "W40", []) in bulk["edges"]["ALIAS_OF"]
    assert ("openalex:W42", "W12", []) in bulk["edges"]["ALIAS_OF"]
    assert ("W11", "W12", [("from_openalex", True)]) in bulk["edges"]["CITES"]
    # the lists made it through the importer's array columns whole
    w12 = next(p for p in bulk["nodes"]["Paper"] if p.get("openalex_id") == "W12")
    assert w12["topics"] == ["Graphs; networks", "Topic 2"]
    assert w12["topic_scores_e4"] == [9100, 5000]
    assert w12["title"] == 'Work 12; with "quotes", commas\nand a second line'
    institutions = [p for _, _, props in bulk["edges"]["AUTHORED_BY"] for k, p in props
                    if k == "institutions"]  # fmt: skip
    assert ["Institute 1; Lab", "University, of Somewhere"] in institutions

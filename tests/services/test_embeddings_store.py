"""Embedding nodes in the real embedded FalkorDB: hash cache, re-embedding, search, CLI."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import pytest
from _fakes import HashEmbedder
from typer.testing import CliRunner

from scholarkg.benchmark.rankers.bm25 import BM25Ranker
from scholarkg.benchmark.rankers.dense import StoreDenseRanker
from scholarkg.config import Settings
from scholarkg.errors import InputError
from scholarkg.services.embeddings import (
    embed_nodes,
    iter_node_texts,
    load_embedder,
    search_nodes,
)
from scholarkg.store.falkordb.store import FalkorDBStore

PAPERS: list[dict[str, Any]] = [
    {"id": "p1", "title": "Graph neural networks", "abstract": "Message passing over molecules."},
    {"id": "p2", "title": "Speech recognition", "abstract": "Self-supervised audio models."},
    {"id": "p3", "title": "Citation recommendation", "abstract": "Which paper to cite."},
    {"id": "p4", "title": "Protein folding", "abstract": None},
    {"id": "p5", "title": None, "abstract": None},  # nothing to embed
]


@pytest.fixture
def papers(store: FalkorDBStore) -> FalkorDBStore:
    store.merge_nodes("Paper", PAPERS)
    return store


def test_embed_then_skip_then_reembed_changed(papers: FalkorDBStore) -> None:
    emb = HashEmbedder()
    calls: list[tuple[int, int]] = []
    r1 = embed_nodes(
        papers,
        "Paper",
        ["title", "abstract"],
        embedder=emb,
        batch_size=2,
        page_size=2,
        progress=lambda d, t: calls.append((d, t)),
    )
    assert (r1.n_total, r1.n_embedded, r1.n_skipped, r1.n_empty) == (5, 4, 0, 1)
    assert r1.property == "emb_hash32" and r1.model == "hash-embedder"
    assert calls[-1] == (5, 5)
    assert sorted(emb.encoded) == sorted(
        [
            "Graph neural networks\nMessage passing over molecules.",
            "Speech recognition\nSelf-supervised audio models.",
            "Citation recommendation\nWhich paper to cite.",
            "Protein folding",
        ]
    )
    page = papers.run_named(
        "embeddings/node_page",
        {"after": "", "limit": 10, "fields": ["title"]},
        label="Paper",
        prop="emb_hash32",
    )
    row = next(r for r in page if r["id"] == "p1")
    p1_text = "Graph neural networks\nMessage passing over molecules."
    assert row["h"] == hashlib.sha256(p1_text.encode()).hexdigest()
    assert row["m"] == "hash-embedder"

    emb.encoded.clear()
    r2 = embed_nodes(papers, "Paper", ["title", "abstract"], embedder=emb)
    assert (r2.n_embedded, r2.n_skipped, r2.n_empty) == (0, 4, 1)
    assert emb.encoded == []

    papers.merge_nodes("Paper", [{"id": "p2", "abstract": "Now about speech translation."}])
    r3 = embed_nodes(papers, "Paper", ["title", "abstract"], embedder=emb)
    assert (r3.n_embedded, r3.n_skipped) == (1, 3)
    assert emb.encoded == ["Speech recognition\nNow about speech translation."]

    other = HashEmbedder(name="hash-embedder-v2")  # same property, other model: re-embed all
    r4 = embed_nodes(papers, "Paper", ["title", "abstract"], embedder=other)
    assert (r4.n_embedded, r4.n_skipped) == (4, 0)
    r5 = embed_nodes(papers, "Paper", ["title", "abstract"], embedder=other, force=True)
    assert r5.n_embedded == 4


def test_search_and_store_dense_ranker(papers: FalkorDBStore) -> None:
    emb = HashEmbedder()
    embed_nodes(papers, "Paper", ["title", "abstract"], embedder=emb)
    hits = search_nodes(papers, "Paper", "graph neural networks message passing", embedder=emb, k=2)
    assert hits[0].id == "p1"
    assert 0.0 <= hits[-1].score <= hits[0].score <= 1.0
    assert "emb_hash32" not in hits[0].properties

    ranker = StoreDenseRanker(papers, "Paper", emb)
    q = "graph neural networks message passing"
    full = ranker.rank(q, 3)
    qv = emb.encode([q])[0]
    expected_cos = float(qv @ emb.encode([emb.encoded[0]])[0])  # p1's text
    assert full.ids[0] == "p1"
    assert full.scores[0] == pytest.approx(expected_cos, abs=1e-5)
    sub = ranker.rank(q, 5, candidates=["p3", "p2", "p5", "nope"])
    assert set(sub.ids) == {"p2", "p3"}  # p5 has no vector, 'nope' does not exist
    docs = {"p2": emb.encoded[1], "p3": emb.encoded[2]}
    for doc_id, score in zip(sub.ids, sub.scores, strict=True):
        assert score == pytest.approx(float(qv @ emb.encode([docs[doc_id]])[0]), abs=1e-5)


def test_bm25_from_store_reads_the_embedded_text(papers: FalkorDBStore) -> None:
    assert list(iter_node_texts(papers, "Paper", ["title", "abstract"], page_size=2)) == [
        ("p1", "Graph neural networks\nMessage passing over molecules."),
        ("p2", "Speech recognition\nSelf-supervised audio models."),
        ("p3", "Citation recommendation\nWhich paper to cite."),
        ("p4", "Protein folding"),
        ("p5", ""),
    ]
    bm25 = BM25Ranker.from_store(papers, "Paper", ["title", "abstract"])
    assert bm25.ids == ["p1", "p2", "p3", "p4", "p5"]
    ranking = bm25.rank("protein folding", 2, candidates=["p5", "p4"])
    assert ranking.ids == ["p4", "p5"]
    assert ranking.scores[0] > 0 and ranking.scores[1] == 0.0


def test_bad_input(papers: FalkorDBStore) -> None:
    emb = HashEmbedder()
    with pytest.raises(InputError, match="unknown node label"):
        embed_nodes(papers, "Papers", ["title"], embedder=emb)
    with pytest.raises(InputError, match="invalid property name"):
        embed_nodes(papers, "Paper", ["title) DELETE n //"], embedder=emb)
    with pytest.raises(InputError, match="no text fields"):
        embed_nodes(papers, "Paper", [], embedder=emb)
    with pytest.raises(InputError, match="empty search text"):
        search_nodes(papers, "Paper", "  ", embedder=emb)


@pytest.mark.model
def test_real_model_search_in_store(papers: FalkorDBStore) -> None:
    emb = load_embedder("minilm", device="cpu")
    report = embed_nodes(papers, "Paper", ["title", "abstract"], embedder=emb)
    assert (report.n_embedded, report.property) == (4, "emb_minilm_l6")
    hits = search_nodes(papers, "Paper", "automatic speech recognition", embedder=emb, k=3)
    assert hits[0].id == "p2"


@pytest.mark.model
def test_cli_embed_nodes_and_search(
    papers: FalkorDBStore, settings: Settings, graph_name: str
) -> None:
    from scholarkg.cli import app

    runner = CliRunner()
    args = [
        "--graph",
        graph_name,
        "embed",
        "nodes",
        "--label",
        "Paper",
        "--fields",
        "title,abstract",
    ]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert "4 embedded, 0 unchanged (skipped), 1 without text, 5 total" in res.output
    res = runner.invoke(app, args)
    assert "0 embedded, 4 unchanged (skipped)" in res.output
    res = runner.invoke(
        app,
        ["--graph", graph_name, "embed", "search", "which paper should I cite", "--k", "2",
         "--format", "json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    # CliRunner mixes stderr (model loading messages) into output; take the JSON list
    match = re.search(r"\[\{.*\}\]", res.output)
    assert match, res.output
    rows = json.loads(match.group(0))
    assert [r["rank"] for r in rows] == [1, 2]
    assert rows[0]["id"] == "p3"
    assert rows[0]["title"] == "Citation recommendation"
    assert rows[0]["score"] >= rows[1]["score"]

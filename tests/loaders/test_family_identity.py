"""A benchmark family's loader and an open catalogue over the same works, in both orders, on
both backends: one Paper per work, keyed by the id the family uses, and the family's task
scores the same as on the family's graph alone.

The family is citation recommendation's S2 loader (``load s2``: papers, abstracts, citations,
S2ORC contexts) on the synthetic S2 world; the catalogue is OpenAlex, written in its snapshot
layout. OpenAlex names the shared works by ids the S2 records do not use as keys: a work W1
(not in S2) cites them first, so OpenAlex's nodes for them are keyed ``openalex:W…``, and
their own records arrive in a later partition with the arXiv id (DataCite DOI) or the DOI
that S2 keys them by.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import write_openalex

from scholarkg.benchmark.registry import load_task
from scholarkg.benchmark.runner import run_task
from scholarkg.benchmark.task import AnswerSource
from scholarkg.config import Settings
from scholarkg.loaders import openalex
from scholarkg.loaders.checkpoint import Group
from scholarkg.loaders.corpus_lookup import corpus_lookup
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.steps import LoadSummary, Step, run_steps, s2_steps
from scholarkg.loaders.tolerant import SkipReport
from scholarkg.store.base import GraphStore
from scholarkg.synthetic.citation_world import CitationWorld, generate
from scholarkg.synthetic.citerec_corpus import write_world

ARXIV = [f"2001.{i:05d}" for i in range(1, 7)]
#: S2 papers given a DOI (and no arXiv id): S2 keys them doi:…
DOIS = {1003: "10.5555/s2.1003", 1005: "10.5555/s2.1005"}
BATCH = 16  # small: the loads span several chunks, so merges wait for their nodes' flush


def world_files(tmp: Path) -> tuple[CitationWorld, dict[str, Path]]:
    world = generate(120, seed=5, arxiv_ids=ARXIV, refs_per_paper=(3, 6))
    files = write_world(world, tmp / "s2")
    lines = []
    for line in files["papers"].read_text().splitlines():
        obj = json.loads(line)
        if obj["corpusid"] in DOIS:
            obj["externalids"]["DOI"] = DOIS[obj["corpusid"]]
        lines.append(json.dumps(obj))
    files["papers"].write_text("\n".join(lines) + "\n")
    return world, files


def shared(world: CitationWorld) -> dict[str, dict[str, Any]]:
    """OpenAlex's view of the works S2 also has: W id → its identifying fields."""
    works: dict[str, dict[str, Any]] = {}
    n = 2
    for p in world.papers:
        if p.arxiv:
            works[f"W{n}"] = {"doi": f"https://doi.org/10.48550/arXiv.{p.arxiv}"}
        elif p.corpus_id in DOIS:
            works[f"W{n}"] = {"doi": f"https://doi.org/{DOIS[p.corpus_id].upper()}"}
        else:
            continue
        works[f"W{n}"]["s2"] = p
        n += 1
    return works


def openalex_parts(tmp: Path, works: dict[str, dict[str, Any]]) -> list[Path]:
    """Partition 1: W1 (a DOI, no text) citing every shared work; partition 2: their own
    records. No titles or abstracts (OpenAlex would overwrite S2's text, and BM25 would then
    score other words: this test is about ids)."""
    w1 = {
        "id": "https://openalex.org/W1",
        "doi": "https://doi.org/10.5555/oa.w1",
        "referenced_works": [f"https://openalex.org/{w}" for w in works],
        "authorships": [],
    }
    first = write_openalex(tmp / "oa", [w1], date="2024-01-01")
    own = [
        {
            "id": f"https://openalex.org/{w}",
            "doi": fields["doi"],
            "publication_year": fields["s2"].year,
            "open_access": {"is_oa": True, "oa_status": "green"},
            "referenced_works": [],
        }
        for w, fields in works.items()
    ]
    second = write_openalex(tmp / "oa", own, date="2024-02-01")
    return [first, second]


def load_s2(store: GraphStore, settings: Settings, files: dict[str, Path]) -> LoadSummary:
    steps = s2_steps(
        {k: files[k] for k in ("papers", "abstracts", "citations", "s2orc")},
        SkipReport(),
        corpus_lookup(store),
    )
    return run_steps(store, steps, settings=settings, batch_size=BATCH)


def _resolved(resolver: IdentityResolver, part: Path) -> Iterator[Group]:
    return resolver.resolve(openalex.read_works(part))


def load_openalex(store: GraphStore, settings: Settings, parts: list[Path]) -> IdentityResolver:
    resolver = IdentityResolver(store, chunk=BATCH)
    steps = [
        Step("oa", p, f"oa-{i}", functools.partial(_resolved, resolver, p), family=False)
        for i, p in enumerate(parts)
    ]
    run_steps(store, steps, settings=settings, batch_size=BATCH)
    resolver.finish()
    return resolver


def graph(store: GraphStore) -> tuple[dict[str, dict[str, Any]], set[tuple[str, str]]]:
    rows = store.run(
        "MATCH (p:Paper) RETURN p.id AS id, p.corpus_id AS corpus_id, p.arxiv_id AS arxiv, "
        "p.doi AS doi, p.openalex_id AS oa, p.is_oa AS is_oa, p.family_key AS family, "
        "p.title AS title"
    )
    cites = store.run("MATCH (a:Paper)-[:CITES]->(b:Paper) RETURN a.id AS a, b.id AS b")
    return {r["id"]: r for r in rows}, {(c["a"], c["b"]) for c in cites}


def bm25_scores(store: GraphStore, tmp: Path) -> dict[str, dict[str, float | None]]:
    run = run_task(
        load_task("citerec"),
        store,
        AnswerSource.ranker("bm25"),
        {"projection_cache": str(tmp / "proj")},
        out_dir=tmp / "bm25",
        record_in_graph=False,
    )
    return dict(run.result.per_instance)


@pytest.mark.parametrize("order", ["openalex-first", "family-first"])
def test_a_family_and_openalex_share_one_node_per_work_keyed_by_the_family(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: str
) -> None:
    any_store.apply_schema()
    world, files = world_files(tmp_path)
    works = shared(world)
    parts = openalex_parts(tmp_path, works)
    # the family alone: its ids and its task's scores
    load_s2(any_store, settings, files)
    alone, alone_cites = graph(any_store)
    alone_scores = bm25_scores(any_store, tmp_path / "alone")
    assert len(alone_scores) > 10
    any_store.clear()
    any_store.apply_schema()

    if order == "openalex-first":
        load_openalex(any_store, settings, parts)
        keys = {r["id"] for r in any_store.run("MATCH (p:Paper) RETURN p.id AS id")}
        # OpenAlex met the shared works as W1's references first, then their records: each
        # is keyed by its record's id (arXiv id or DOI), not by the stub's OpenAlex id
        assert not {f"openalex:{w}" for w in works} & keys
        summary = load_s2(any_store, settings, files)
        notes = "\n".join(summary.notes)
        # S2 keys them by the same rule (arXiv id, else DOI): its records land on them
        assert "into another" not in notes
    else:
        load_s2(any_store, settings, files)
        resolver = load_openalex(any_store, settings, parts)
        # W1's stubs were merged into the family's nodes when the records named both
        assert len(resolver.report.merges) == len(works)
        assert {b for _, b in resolver.report.merges} == {
            f"arxiv:{f['s2'].arxiv}" if f["s2"].arxiv else f"doi:{DOIS[f['s2'].corpus_id]}"
            for f in works.values()
        }

    papers, cites = graph(any_store)
    # one node per work: the family's nodes, plus W1; every family id still finds its node
    assert set(papers) == set(alone) | {"doi:10.5555/oa.w1"}
    for w, fields in works.items():
        p = fields["s2"]
        key = f"arxiv:{p.arxiv}" if p.arxiv else f"doi:{DOIS[p.corpus_id]}"
        row = papers[key]
        assert (row["oa"], row["corpus_id"], row["is_oa"], row["family"]) == (
            w, p.corpus_id, True, True,
        )  # fmt: skip
        assert row["title"] == alone[key]["title"]  # S2's text is untouched
    assert papers["doi:10.5555/oa.w1"]["family"] is None
    assert all(r["family"] for k, r in papers.items() if k in alone)
    # the family's citations, plus W1's to the shared works (now on the family's nodes)
    assert cites == alone_cites | {
        ("doi:10.5555/oa.w1", k) for k in papers if papers[k]["oa"] not in (None, "W1")
    }
    # the family's task runs on the same instances and scores the same
    assert bm25_scores(any_store, tmp_path / order) == alone_scores

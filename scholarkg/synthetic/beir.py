"""A synthetic BEIR-layout test collection, for the ``retrieval`` family's tests and parity runs.

Why from the citation world (``citation_world``): its papers have invented titles and abstracts
with planted topics, so lexical and dense rankers both have something real to find, and a
paper's references are a natural set of relevant documents. A query is a citing paper's
title; its qrels (grade 1) are the papers it cites.

Files, as BEIR releases them (``beir-cellar/beir``'s ``GenericDataLoader`` reads them):
``corpus.jsonl`` (``{"_id", "title", "text"}``), ``queries.jsonl`` (``{"_id", "text"}``) and
``qrels/<split>.tsv`` with the header ``query-id corpus-id score``; the first ``n_dev``
queries are judged in ``dev``, the rest in ``test``.
"""

from __future__ import annotations

import json
from pathlib import Path

from scholarkg.synthetic.citation_world import generate


def write_collection(
    out: Path, *, n_papers: int = 120, n_queries: int = 24, n_dev: int = 8, seed: int = 5
) -> Path:
    """Write the collection into ``out`` (created; must not exist) and return ``out``."""
    world = generate(n_papers, seed=seed)
    out.mkdir(parents=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for p in world.papers:
            doc = {
                "_id": f"d{p.corpus_id}",
                "title": " ".join(p.title_words),
                "text": " ".join(p.abstract_words),
            }
            fh.write(json.dumps(doc) + "\n")
    askers = [p for p in world.papers if p.references][:n_queries]
    with (out / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for p in askers:
            fh.write(json.dumps({"_id": f"q{p.corpus_id}", "text": " ".join(p.title_words)}))
            fh.write("\n")
    (out / "qrels").mkdir()
    for split, part in (("dev", askers[:n_dev]), ("test", askers[n_dev:])):
        with (out / "qrels" / f"{split}.tsv").open("w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for p in part:
                for r in p.references:
                    fh.write(f"q{p.corpus_id}\td{r}\t1\n")
    return out

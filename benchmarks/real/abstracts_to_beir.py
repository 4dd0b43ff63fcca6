"""Turn real abstracts into a small BEIR-layout "title -> abstract" collection.

Why: ``benchmarks/bench_embeddings.py --beir DIR`` measures the quality cost of the faster
encoder settings (int8, 128-token truncation) on real ~140-word scholarly abstracts, and
the abstracts reachable offline are the unarXive sample's (``IllDepence/unarXive``,
``doc/unarXive_data_sample.tar.gz``, 49 papers with title and abstract) and, as
distractors without queries, the Semantic Scholar ``abstracts`` sample
(``rimonim/quantitative_history`` history, ``semanticscholar_samples/abstracts``, 100
abstracts). Nothing it writes is committed.

    python benchmarks/real/abstracts_to_beir.py arXiv_src_2212_086.jsonl OUT_DIR \\
        --distractors abstracts-sample.jsonl.gz

Queries (``--queries``): ``titles`` (each unarXive title; easy, every configuration finds
almost all) or ``body`` (default: ``--per-paper`` sentences of 12+ words taken at even
intervals from each paper's body text, citation/formula markers removed; harder, since a
sentence covers a part of the paper that the abstract may only mention past its first
128 tokens). The relevant document is the paper's own abstract. Qrels go to ``test``, or
with ``--dev-share F`` to ``dev``/``test`` by a hash of the paper (``citerec.split_of``),
so a ranker fitted on dev never sees a test paper's sentences.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
from pathlib import Path

_MARKER = re.compile(r"\{\{[a-z]+:[^{}]*\}\}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def body_sentences(obj: dict, n: int) -> list[str]:
    """``n`` sentences of 12+ words at even intervals through the paper's body text."""
    pool: list[str] = []
    for para in obj.get("body_text") or []:
        text = " ".join(_MARKER.sub(" ", str(para.get("text") or "")).split())
        pool += [s for s in _SENTENCE.split(text) if len(s.split()) >= 12]
    if len(pool) <= n:
        return pool
    step = len(pool) / n
    return [pool[int(i * step + step / 2)] for i in range(n)]


def _abstract(obj: dict) -> str:
    a = obj.get("abstract")
    if isinstance(a, dict):
        a = a.get("text")
    return " ".join(str(a or "").split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--distractors", type=Path, help="S2 abstracts-sample.jsonl(.gz)")
    ap.add_argument("--queries", choices=("titles", "body"), default="body")
    ap.add_argument("--per-paper", type=int, default=4)
    ap.add_argument("--dev-share", type=float, default=0.0)
    args = ap.parse_args()

    docs: list[dict[str, str]] = []
    queries: list[dict[str, str]] = []
    for line in args.jsonl.open(encoding="utf-8"):
        obj = json.loads(line)
        pid = f"arxiv:{obj['paper_id']}"
        title = " ".join(str((obj.get("metadata") or {}).get("title") or "").split())
        text = _abstract(obj)
        if not (title and text):
            continue
        docs.append({"_id": pid, "title": "", "text": text})
        if args.queries == "titles":
            queries.append({"_id": f"q:{pid}", "text": title, "doc": pid})
            continue
        for n, sentence in enumerate(body_sentences(obj, args.per_paper)):
            queries.append({"_id": f"q{n}:{pid}", "text": sentence, "doc": pid})
    if args.distractors:
        opener = gzip.open if args.distractors.suffix == ".gz" else open
        with opener(args.distractors, "rt", encoding="utf-8") as fh:
            for line in fh:
                obj = json.loads(line)
                text = _abstract(obj)
                if text:
                    docs.append({"_id": f"s2:{obj['corpusid']}", "title": "", "text": text})
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for d in docs:
            fh.write(json.dumps(d) + "\n")
    with (args.out / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps({"_id": q["_id"], "text": q["text"]}) + "\n")
    (args.out / "qrels").mkdir(exist_ok=True)
    from scholarkg.benchmark.tasks.citerec.task import split_of

    splits = {q["_id"]: split_of(q["doc"], args.dev_share) for q in queries}
    for split in sorted(set(splits.values())):
        with (args.out / "qrels" / f"{split}.tsv").open("w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for q in queries:
                if splits[q["_id"]] == split:
                    fh.write(f"{q['_id']}\t{q['doc']}\t1\n")
    words = sorted(len(d["text"].split()) for d in docs)
    print(
        json.dumps(
            {
                "documents": len(docs),
                "queries": len(queries),
                "median_words": words[len(words) // 2],
            }
        )
    )


if __name__ == "__main__":
    main()

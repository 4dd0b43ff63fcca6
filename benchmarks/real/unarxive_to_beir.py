"""Turn an unarXive JSONL file into a BEIR-layout citation-recommendation collection.

Why: the real-text results (``docs/results-real.md``) need a real scholarly collection that
``scholarkg load beir`` + ``bench run retrieval`` can rank, and the unarXive sample the
authors publish (``IllDepence/unarXive``, ``doc/unarXive_data_sample.tar.gz``: 49 papers,
~2,000 citing sentences) is the one reachable offline. Nothing it writes is committed: run it
on your local copy.

    python benchmarks/real/unarxive_to_beir.py arXiv_src_2212_086.jsonl OUT_DIR

* queries: every single-citation sentence (``n_refs = 1``), parsed by our own loader
  (``loaders/citerec_unarxive.py``: the same ``<REF>`` masking as ``load unarxive``), text =
  the sentence with ``<REF>``/``[CIT]``/``[FORMULA]`` markers removed;
* documents: every cited work that our loader resolves to a paper id (arXiv id > DOI >
  OpenAlex id), text = its raw reference string as the citing paper printed it (authors,
  title, venue, year: the cited papers' abstracts are not in the release);
* qrels: the cited work, grade 1; split ``dev``/``test`` by a hash of the *citing paper*
  (``citerec.split_of``, ``--dev-share``), so no paper's sentences are on both sides.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from scholarkg.benchmark.tasks.citerec.recommenders import query_text
from scholarkg.benchmark.tasks.citerec.task import split_of
from scholarkg.loaders.citerec_unarxive import cited_paper_id, read_unarxive
from scholarkg.loaders.tolerant import SkipReport
from scholarkg.schema.records import CitationContext

_PLACEHOLDERS = re.compile(r"\[(?:FORMULA|FIGURE|TABLE)\]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("jsonl", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--dev-share", type=float, default=0.3)
    ap.add_argument(
        "--keep-markers",
        action="store_true",
        help="write each query as the loader masked it (<REF>, [FORMULA], 'Theorem REF'), "
        "for the retrieval task's own citation-aware clean-up (--query-mode)",
    )
    args = ap.parse_args()

    refs: dict[str, str] = {}
    with args.jsonl.open(encoding="utf-8") as fh:
        for line in fh:
            for entry in (json.loads(line).get("bib_entries") or {}).values():
                pid, _ = cited_paper_id(entry)
                raw = " ".join(str(entry.get("bib_entry_raw") or "").split())
                if pid and raw and pid not in refs:
                    refs[pid] = raw
    queries: list[dict[str, str]] = []
    qrels: dict[str, list[tuple[str, str]]] = {"dev": [], "test": []}
    for _line, records in read_unarxive(args.jsonl, SkipReport()):
        for rec in records:
            if not isinstance(rec, CitationContext) or rec.n_refs != 1 or not rec.cited:
                continue
            if rec.cited not in refs:
                continue
            text = " ".join(_PLACEHOLDERS.sub(" ", query_text(rec.text)).split())
            if len(text.split()) < 3:
                continue
            if args.keep_markers:  # the same queries, as the loader masked them
                text = " ".join(rec.text.split())
            queries.append({"_id": rec.id, "text": text, "citing": rec.citing})
            qrels[split_of(rec.citing, args.dev_share)].append((rec.id, rec.cited))
    args.out.mkdir(parents=True, exist_ok=True)
    with (args.out / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for pid, raw in refs.items():
            fh.write(json.dumps({"_id": pid, "title": "", "text": raw}) + "\n")
    with (args.out / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for q in queries:
            fh.write(json.dumps({"_id": q["_id"], "text": q["text"]}) + "\n")
    (args.out / "qrels").mkdir(exist_ok=True)
    for split, rows in qrels.items():
        with (args.out / "qrels" / f"{split}.tsv").open("w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for qid, pid in rows:
                fh.write(f"{qid}\t{pid}\t1\n")
    papers = Counter(q["citing"] for q in queries)
    print(
        json.dumps(
            {
                "documents": len(refs),
                "queries": len(queries),
                "citing_papers": len(papers),
                "dev": len(qrels["dev"]),
                "test": len(qrels["test"]),
            }
        )
    )


if __name__ == "__main__":
    main()

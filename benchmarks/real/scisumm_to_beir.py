"""ScisummNet citing sentences → a BEIR-layout collection (the held-out real citing sentences).

Why: the text rankers' choices (encoder, query clean-up, fusion depth and RRF k) are made on
the dev side of other collections; this one is kept out of every choice and reported last
(``docs/results-real.md``). It is what a new user with a BEIR collection of real citing
sentences meets: ``scholarkg load beir`` + ``bench run retrieval``. Nothing it writes is
committed: run it on the output of ``scisumm_aan_to_s2.py`` (which reads your local copy of
ScisummNet and AAN).

    python benchmarks/real/scisumm_aan_to_s2.py --scisumm DIR --aan-net acl.txt \
        --aan-meta acl-metadata.txt --titles paper_author_title_year.csv S2_DIR
    python benchmarks/real/scisumm_to_beir.py S2_DIR OUT_DIR

* documents: ScisummNet's 978 reference papers (the cited papers), text = title + their
  ``<ABSTRACT>`` (85 have none: title only);
* queries: every distinct ScisummNet citing sentence in which a marker names a reference
  paper, written as citeBench writes a citation context: that marker (all of it, ``Collins
  (1999)`` with the name) replaced by ``<REF>``, every *other* citation marker left as the
  citing paper printed it (the sentence's other citations are part of a real context);
  ``--max-queries`` keeps a deterministic sample (sha256 of the query id);
* qrels: the reference paper, grade 1; split ``dev``/``test`` by a hash of the *citing
  paper* (``citerec.split_of``, ``--dev-share``), so no paper's sentences are on both sides.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from scholarkg.benchmark.tasks.citerec.task import split_of


def _rows(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("s2_dir", type=Path, help="output folder of scisumm_aan_to_s2.py")
    ap.add_argument("out", type=Path)
    ap.add_argument("--dev-share", type=float, default=0.3)
    ap.add_argument("--max-queries", type=int, default=3000)
    args = ap.parse_args()

    abstracts = {
        int(r["corpusid"]): str(r["abstract"])
        for r in _rows(args.s2_dir / "abstracts.jsonl.gz")
        if r.get("abstract")
    }
    papers = {int(r["corpusid"]): r for r in _rows(args.s2_dir / "papers.jsonl.gz")}
    queries: dict[str, tuple[str, int, str]] = {}  # qid -> (text, rp corpus id, citing id)
    rps: set[int] = set()
    counts: Counter[str] = Counter()
    for rec in _rows(args.s2_dir / "s2orc.jsonl.gz"):
        text = rec["content"]["text"]
        ann = rec["content"]["annotations"]
        entries = {
            e["attributes"]["id"]: int(e["attributes"]["matched_paper_id"])
            for e in json.loads(ann["bibentry"] or "[]")
        }
        refs = json.loads(ann["bibref"] or "[]")
        for para in json.loads(ann["paragraph"] or "[]"):
            a, b = para["start"], para["end"]
            inside = [r for r in refs if a <= r["start"] and r["end"] <= b]
            for r in inside:
                rid = (r.get("attributes") or {}).get("ref_id")
                if rid not in entries:
                    continue
                rp = entries[rid]
                rps.add(rp)
                sent = text[a : r["start"]] + "<REF>" + text[r["end"] : b]
                qid = "q" + hashlib.sha256(f"{rec['corpusid']}|{sent}".encode()).hexdigest()[:16]
                counts["other markers kept" if len(inside) > 1 else "single-citation"] += 1
                queries[qid] = (" ".join(sent.split()), rp, str(rec["corpusid"]))
    keep = sorted(queries, key=lambda q: hashlib.sha256(q.encode()).hexdigest())
    keep = sorted(keep[: args.max_queries])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "qrels").mkdir(exist_ok=True)
    with (args.out / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for cid in sorted(rps):
            paper = papers.get(cid, {})
            doc = {"_id": f"acl:{cid}", "title": paper.get("title") or "",
                   "text": abstracts.get(cid, "")}  # fmt: skip
            fh.write(json.dumps(doc) + "\n")
    splits: dict[str, list[str]] = {"dev": [], "test": []}
    with (args.out / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for qid in keep:
            text, rp, citing = queries[qid]
            fh.write(json.dumps({"_id": qid, "text": text}) + "\n")
            split = split_of(citing, args.dev_share)
            splits[split].append(f"{qid}\tacl:{rp}\t1\n")
    for split, lines in splits.items():
        with (args.out / "qrels" / f"{split}.tsv").open("w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            fh.writelines(lines)
    print(json.dumps({"documents": len(rps), "with abstract": len(rps & abstracts.keys()),
                      "distinct contexts": len(queries), "queries kept": len(keep),
                      **{k: len(v) for k, v in splits.items()}, **counts}))  # fmt: skip


if __name__ == "__main__":
    main()

"""BIRCO's DORIS-MAE dev set → a BEIR-layout collection that ``scholarkg load beir`` reads.

Why: the DORIS-MAE dataset JSON is on Zenodo, out of reach here; BIRCO (Wang et al. 2024;
``BIRCO-benchmark/BIRCO``, ``datasets/doris-mae/dev_set.pickle``, CC BY-NC 4.0), by the same
group, republishes 40 DORIS-MAE queries with their candidate pools: ``{"query": {qid: text},
"corpus": {doc id: abstract}, "qrel": {qid: {doc id: score}}}``, where a score is the
query's averaged aspect-level relevance (0 to about 1.64, as in DORIS-MAE's own
normalised scores). The pickle is read through scholarkg's restricted unpickler (built-in
types and numpy arrays only).

Written (``OUT``): ``corpus.jsonl`` (``_id``, ``text``), ``queries.jsonl`` (``_id``,
``text``) and ``qrels/<split>.tsv`` (``query-id corpus-id score``, the fractional grades
kept). Every ``round(1 / --dev-share)``-th query by sorted id goes to a ``dev`` split for
the rankers that tune (``hybrid-learned``; the default 0.5: every second query), the rest to
``test``.

    python benchmarks/real/birco_dorismae_to_beir.py dev_set.pickle OUT --dev-share 0.5
    scholarkg --graph doris load beir OUT --name doris-birco
    scholarkg --graph doris bench run retrieval --ranker bm25 -- --dataset doris-birco \\
        --relevance-threshold 0.5
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from scholarkg.loaders.dorismae_release import read_pickle


def convert(pickle_path: Path, out: Path, dev_share: float) -> dict[str, int]:
    data = read_pickle(pickle_path)
    queries, corpus, qrels = data["query"], data["corpus"], data["qrel"]
    out.mkdir(parents=True, exist_ok=True)
    (out / "qrels").mkdir(exist_ok=True)
    with (out / "corpus.jsonl").open("w", encoding="utf-8") as fh:
        for doc_id, text in corpus.items():
            fh.write(json.dumps({"_id": str(doc_id), "text": str(text)}) + "\n")
    with (out / "queries.jsonl").open("w", encoding="utf-8") as fh:
        for qid, text in queries.items():
            fh.write(json.dumps({"_id": str(qid), "text": str(text)}) + "\n")
    ordered = sorted(qrels, key=lambda q: (len(str(q)), str(q)))
    every = round(1 / dev_share) if dev_share > 0 else 0
    dev = {q for i, q in enumerate(ordered) if every and i % every == 0}
    counts = {"documents": len(corpus), "queries": len(queries)}
    for split, members in (("dev", dev), ("test", set(ordered) - dev)):
        if not members:
            continue
        with (out / "qrels" / f"{split}.tsv").open("w", encoding="utf-8") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for qid in sorted(members, key=lambda q: (len(str(q)), str(q))):
                for doc_id, score in qrels[qid].items():
                    fh.write(f"{qid}\t{doc_id}\t{float(score):g}\n")
        counts[f"{split} queries"] = len(members)
    return counts


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pickle", type=Path, help="BIRCO datasets/doris-mae/dev_set.pickle")
    ap.add_argument("out", type=Path)
    ap.add_argument("--dev-share", type=float, default=0.5)
    args = ap.parse_args(argv)
    for what, n in convert(args.pickle, args.out, args.dev_share).items():
        print(f"{what}: {n:,}")


if __name__ == "__main__":
    main()

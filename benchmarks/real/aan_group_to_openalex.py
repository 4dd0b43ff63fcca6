"""A research group's OpenAlex records, built from the real ACL Anthology Network.

What ``scholarkg suggest`` is for, on real citations: a group's works are loaded with their
text, and everything they cite is a reference known by its id only (a stub). This script
takes the output of ``scisumm_aan_to_s2.py`` (AAN papers, abstracts, citations in the
Semantic Scholar layout), picks a "group" — the works of the ``--authors`` most prolific
authors and of their co-authors on those works — and writes each group work as an OpenAlex
API record (``id`` W<corpus id>, ``doi`` none, ``title``, ``publication_year``,
``abstract_inverted_index`` where AAN has an abstract, ``authorships``, and
``referenced_works``: every AAN work it cites, loaded or not). ``scholarkg load openalex
OUT/works.jsonl`` then gives the graph a user with a group's records has: the group's works
titled, their references stubs.

Nothing of the data is in the repository; AAN's own licence applies to the output.

Usage::

    python benchmarks/real/aan_group_to_openalex.py AAN_S2_DIR OUT_DIR --authors 60
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
from pathlib import Path
from typing import Any


def _rows(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _inverted(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for pos, word in enumerate(text.split()):
        index.setdefault(word, []).append(pos)
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("aan", type=Path, help="the output folder of scisumm_aan_to_s2.py")
    parser.add_argument("out", type=Path)
    parser.add_argument("--authors", type=int, default=60, help="most prolific authors")
    args = parser.parse_args()

    papers = {int(p["corpusid"]): p for p in _rows(args.aan / "papers.jsonl.gz")}
    abstracts = {int(a["corpusid"]): a["abstract"] for a in _rows(args.aan / "abstracts.jsonl.gz")}
    refs: dict[int, list[int]] = collections.defaultdict(list)
    for c in _rows(args.aan / "citations.jsonl.gz"):
        if c.get("citedcorpusid"):
            refs[int(c["citingcorpusid"])].append(int(c["citedcorpusid"]))
    counts = collections.Counter(
        a["name"] for p in papers.values() for a in (p.get("authors") or []) if a.get("name")
    )
    top = {name for name, _ in counts.most_common(args.authors)}
    group = sorted(
        cid
        for cid, p in papers.items()
        if p.get("title") and any(a.get("name") in top for a in (p.get("authors") or []))
    )
    args.out.mkdir(parents=True, exist_ok=True)
    n_refs = 0
    with (args.out / "works.jsonl").open("w", encoding="utf-8") as fh:
        for cid in group:
            p = papers[cid]
            cited = sorted(set(refs.get(cid, [])))
            n_refs += len(cited)
            record = {
                "id": f"https://openalex.org/W{cid}",
                "title": p["title"],
                "publication_year": p.get("year"),
                "type": "article",
                "authorships": [
                    {"author": {"display_name": a["name"]}, "author_position": "middle"}
                    for a in (p.get("authors") or [])
                    if a.get("name")
                ],
                "referenced_works": [f"https://openalex.org/W{r}" for r in cited],
            }
            if cid in abstracts:
                record["abstract_inverted_index"] = _inverted(abstracts[cid])
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    loaded = set(group)
    cited_all = {r for cid in group for r in refs.get(cid, [])}
    report = {
        "authors": args.authors,
        "group works": len(group),
        "with abstract": sum(1 for c in group if c in abstracts),
        "references": n_refs,
        "distinct cited works": len(cited_all),
        "cited works not in the group (stubs)": len(cited_all - loaded),
    }
    (args.out / "report.json").write_text(json.dumps(report, indent=2))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

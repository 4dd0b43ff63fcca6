"""ScisummNet citing sentences + the ACL Anthology Network citation graph → the Semantic
Scholar datasets layout that ``scholarkg load s2`` reads (papers, abstracts, citations, S2ORC).

Why: local citation recommendation needs real citing sentences *and* a citation graph in which
the cited papers are cited together and cite each other, or the graph rankers (ppr,
cocitation, coupling, the hybrids) have no paths to follow. The unarXive sample is one star
per citing paper; this pair of public releases is not:

* ScisummNet (Yasunaga et al., AAAI 2019; ``WING-NUS/scisumm-corpus``,
  ``data/Training-Set-2019/Task1/From-ScisummNet-2019/<ACL id>/``, CC BY 4.0): 978 much-cited
  ACL papers, each with its full text (``Reference_XML/<id>.xml``: the title in sentence 0,
  the ``<ABSTRACT>``) and up to ~20 sentences of other ACL papers citing it
  (``citing_sentences.json``: ``citing_paper_id``, ``raw_text``, ``clean_text``);
* the ACL Anthology Network (Radev et al.; the AAN release's ``acl.txt``, lines
  ``citing ==> cited`` or ``citing , cited``, and ``acl-metadata.txt`` with ``id``, ``author``,
  ``title``, ``venue``, ``year`` records) for the graph and the titles of every paper;
  optionally ``--titles``: the AAN title list of ``davidjurgens/citation-function``
  (``resources/paper_author_title_year.csv``: id, author ids…, title, year) for the graph's
  papers the metadata file lacks (about 12 % of its edges touch one).

What is written (``OUT``): ``papers.jsonl`` (every AAN paper with a title: the ACL id as
``externalids.ACL``, corpus ids numbered by sorted ACL id), ``abstracts.jsonl`` (the 978
reference papers' abstracts), ``citations.jsonl`` (every AAN edge, no contexts) and
``s2orc.jsonl`` (one record per citing paper: its citing sentences as paragraphs, each
cited paper's marker — the first author's surname … year, ``Jing and McKeown (2000)`` or
``(Jing and McKeown, 2000)`` — as a ``bibref`` to a ``bibentry`` matched to the cited corpus
id, so the loader masks it as ``<REF>``). ``clean_text`` is used where it is not empty (the
release's OCR-repaired sentence), else ``raw_text``. A sentence whose marker is not found
(the surname split by OCR, no year) is counted and left out.

Only the 978 reference papers have abstracts; every other paper is a title. Nothing of the
data is in this repository: fetch the two releases and point this script at them.

    python benchmarks/real/scisummnet_to_s2.py --aan-net acl.txt --aan-meta acl-metadata.txt \\
        --titles paper_author_title_year.csv \\
        --scisumm <scisumm-corpus>/data/Training-Set-2019/Task1/From-ScisummNet-2019 OUT
    scholarkg --graph scisumm load s2 --papers OUT/papers.jsonl --abstracts OUT/abstracts.jsonl \\
        --citations OUT/citations.jsonl --s2orc OUT/s2orc.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

_EDGE = re.compile(r"^\s*(\S+)\s*(?:==>|,)\s*(\S+)\s*$")
_FIELD = re.compile(r"^(\w+)\s*=\s*\{(.*)\}\s*$")


def _read_text(path: Path) -> str:
    """Each line UTF-8, else Windows-1252: the AAN metadata file mixes cp1252 quotes (0x92)
    into otherwise UTF-8 text."""
    lines = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(raw.decode("cp1252", errors="replace"))
    return "\n".join(lines)


def read_meta(path: Path) -> dict[str, dict[str, str]]:
    """AAN ``acl-metadata.txt``: blank-line separated ``key = {value}`` records by id."""
    out: dict[str, dict[str, str]] = {}
    record: dict[str, str] = {}
    for line in [*_read_text(path).splitlines(), ""]:
        m = _FIELD.match(line.strip())
        if m:
            record[m.group(1)] = m.group(2).strip()
        elif not line.strip() and record:
            if record.get("id"):
                out[record["id"]] = record
            record = {}
    return out


def read_titles(path: Path) -> dict[str, dict[str, str]]:
    """``id, author ids…, title, year`` rows as metadata records (no author names)."""
    import csv

    out: dict[str, dict[str, str]] = {}
    with path.open(encoding="utf-8", errors="replace", newline="") as fh:
        for row in csv.reader(fh):
            if len(row) >= 3 and row[0].strip() and row[-2].strip():
                out[row[0].strip()] = {"id": row[0].strip(), "title": row[-2].strip(),
                                       "year": row[-1].strip()}  # fmt: skip
    return out


def read_edges(path: Path) -> list[tuple[str, str]]:
    """AAN ``acl.txt``: ``(citing, cited)`` pairs, self-citations and repeats dropped."""
    seen: dict[tuple[str, str], None] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        m = _EDGE.match(line)
        if m and m.group(1) != m.group(2):
            seen[(m.group(1), m.group(2))] = None
    return list(seen)


def reference_paper(xml_path: Path) -> tuple[str | None, str | None]:
    """``(title, abstract)`` of a ScisummNet ``Reference_XML`` file."""
    root = ET.parse(xml_path).getroot()
    title = next((s.text for s in root.iter("S") if s.get("sid") == "0"), None)
    abstract = root.find("ABSTRACT")
    text = None
    if abstract is not None:
        text = " ".join(" ".join((s.text or "").split()) for s in abstract.iter("S")).strip()
    return (" ".join(title.split()) if title else None), (text or None)


def first_surname(authors: str | None) -> str | None:
    """``Rush, Alexander M.; Sontag, David`` → ``Rush``."""
    if not authors:
        return None
    first = authors.split(";")[0].strip()
    surname = first.split(",")[0].strip() if "," in first else (first.split() or [""])[-1]
    return surname or None


def marker_span(sentence: str, surname: str, year: str) -> tuple[int, int] | None:
    """The cited paper's marker in ``sentence``: from the surname to the year, with the
    parentheses of a parenthetical citation; ``None`` when not found."""
    pattern = rf"\b{re.escape(surname)}\b[^;()\[\]]{{0,60}}?\(?{re.escape(year)}[a-z]?\)?"
    m = re.search(pattern, sentence)
    if m is None:
        return None
    start, end = m.start(), m.end()
    if start > 0 and sentence[start - 1] == "(":  # parenthetical: take its brackets too
        span = sentence[start:end]
        if span.endswith(")") and "(" not in span:
            start -= 1
        elif end < len(sentence) and sentence[end] == ")":
            start, end = start - 1, end + 1
    return start, end


def convert(
    scisumm: Path, aan_net: Path, aan_meta: Path, out: Path, titles: Path | None = None
) -> Counter[str]:
    """Write the four files; returns counts of what was written and what was left out."""
    counts: Counter[str] = Counter()
    meta = read_meta(aan_meta)
    if titles is not None:
        extra = read_titles(titles)
        counts["titles from --titles"] = len(set(extra) - set(meta))
        meta = {**extra, **meta}
    edges = read_edges(aan_net)
    refs: dict[str, tuple[str | None, str | None]] = {}
    sentences: list[tuple[str, str, str]] = []  # (citing, cited, text)
    for folder in sorted(p for p in scisumm.iterdir() if p.is_dir()):
        xml = folder / "Reference_XML" / f"{folder.name}.xml"
        if xml.is_file():
            refs[folder.name] = reference_paper(xml)
        cites = folder / "citing_sentences.json"
        if cites.is_file():
            for row in json.loads(cites.read_text(encoding="utf-8")):
                text = (row.get("clean_text") or "").strip() or (row.get("raw_text") or "").strip()
                if row.get("citing_paper_id") and text:
                    sentences.append((str(row["citing_paper_id"]), folder.name, text))
    known = set(meta) | set(refs)
    edge_set = set(edges)
    for citing, cited, _ in sentences:
        if citing in known and (citing, cited) not in edge_set:
            edge_set.add((citing, cited))
            edges.append((citing, cited))
            counts["edges added from ScisummNet"] += 1
    corpus = {acl: i for i, acl in enumerate(sorted(known), start=1)}
    out.mkdir(parents=True, exist_ok=True)

    with (out / "papers.jsonl").open("w", encoding="utf-8") as fh:
        for acl, cid in corpus.items():
            rec = meta.get(acl, {})
            title = rec.get("title") or (refs.get(acl) or (None, None))[0]
            if not title:
                counts["papers without a title"] += 1
                continue
            year = rec.get("year", "")
            authors = [a.strip() for a in rec.get("author", "").split(";") if a.strip()]
            row: dict[str, Any] = {
                "corpusid": cid,
                "externalids": {"ACL": acl, "CorpusId": str(cid)},
                "title": title,
                "authors": [{"authorId": None, "name": a} for a in authors],
                "venue": rec.get("venue") or None,
                "year": int(year) if year.isdigit() else None,
            }
            fh.write(json.dumps(row) + "\n")
            counts["papers"] += 1
    with (out / "abstracts.jsonl").open("w", encoding="utf-8") as fh:
        for acl, (_title, abstract) in refs.items():
            if abstract:
                fh.write(json.dumps({"corpusid": corpus[acl], "abstract": abstract}) + "\n")
                counts["abstracts"] += 1
    with (out / "citations.jsonl").open("w", encoding="utf-8") as fh:
        for citing, cited in edges:
            if citing in corpus and cited in corpus:
                row = {"citingcorpusid": str(corpus[citing]), "citedcorpusid": str(corpus[cited]),
                       "isinfluential": False, "contexts": None, "intents": None}  # fmt: skip
                fh.write(json.dumps(row) + "\n")
                counts["citations"] += 1

    by_citing: dict[str, list[tuple[str, str]]] = {}
    for citing, cited, text in sentences:
        if citing not in corpus:
            counts["sentences of a citing paper AAN does not know"] += 1
            continue
        by_citing.setdefault(citing, []).append((cited, text))
    with (out / "s2orc.jsonl").open("w", encoding="utf-8") as fh:
        for citing, items in sorted(by_citing.items()):
            text, paragraphs, bibrefs, entries = "", [], [], {}
            for cited, sentence in items:
                rec = meta.get(cited, {})
                surname, year = first_surname(rec.get("author")), rec.get("year", "")
                span = marker_span(sentence, surname, year) if surname and year else None
                if span is None:
                    counts["sentences without a findable marker"] += 1
                    continue
                ref_id = entries.setdefault(cited, f"b{len(entries)}")
                start = len(text)
                paragraphs.append({"start": start, "end": start + len(sentence)})
                bibrefs.append({"start": start + span[0], "end": start + span[1],
                                "attributes": {"ref_id": ref_id}})  # fmt: skip
                text += sentence + "\n\n"
                counts["citing sentences"] += 1
            if not paragraphs:
                continue
            bibentry = []
            for cited, ref_id in entries.items():
                start = len(text)
                text += (meta.get(cited, {}).get("title") or cited) + "\n"
                bibentry.append({"start": start, "end": len(text) - 1,
                                 "attributes": {"id": ref_id,
                                                "matched_paper_id": corpus[cited]}})  # fmt: skip
            annotations = {
                "paragraph": json.dumps(paragraphs),
                "bibref": json.dumps(bibrefs),
                "bibentry": json.dumps(bibentry),
            }
            row = {"corpusid": corpus[citing], "externalids": {"acl": citing},
                   "content": {"text": text, "annotations": annotations}}  # fmt: skip
            fh.write(json.dumps(row) + "\n")
            counts["citing papers"] += 1
    return counts


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scisumm", type=Path, required=True, help="From-ScisummNet-2019 folder")
    ap.add_argument("--aan-net", type=Path, required=True, help="AAN acl.txt")
    ap.add_argument("--aan-meta", type=Path, required=True, help="AAN acl-metadata.txt")
    ap.add_argument("--titles", type=Path, help="paper_author_title_year.csv (more titles)")
    ap.add_argument("out", type=Path)
    args = ap.parse_args(argv)
    counts = convert(args.scisumm, args.aan_net, args.aan_meta, args.out, args.titles)
    for what, n in counts.items():
        print(f"{what}: {n:,}")


if __name__ == "__main__":
    main()

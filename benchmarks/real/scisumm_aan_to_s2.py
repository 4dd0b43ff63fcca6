"""ScisummNet citing sentences + the AAN citation graph → Semantic Scholar dataset files.

Converts real ACL Anthology data into the S2 bulk layout that ``scholarkg load s2`` reads,
so ``bench run citerec`` can score real citing sentences on a real citation graph.

Inputs (none of their content is held in this file; pass the paths):

* ``--scisumm DIR``: ScisummNet (WING-NUS/scisumm-corpus, CC BY 4.0), the repository root or
  its ``data/Training-Set-2019/Task1/From-ScisummNet-2019`` folder: one folder per cited
  "reference paper" (RP, an ACL Anthology id) holding ``citing_sentences.json`` (records
  with ``citing_paper_id``, ``clean_text``, ``raw_text`` …) and ``Reference_XML/<RP>.xml``
  (``<S sid="0">`` the title, then ``<ABSTRACT>`` sentences, then ``<SECTION>``s).
* ``--aan-net FILE``: the ACL Anthology Network citation graph, one ``citing , cited`` (or
  ``citing ==> cited``) line per edge, ACL ids (``acl.txt`` of
  jot321/PaperRankRecommendation; AAN, Radev et al.).
* ``--aan-meta FILE``: AAN paper metadata, ``id = {…}`` / ``author = {…}`` / ``title =
  {…}`` / ``venue = {…}`` / ``year = {…}`` blocks (``acl-metadata.txt`` of comrank/ComRank).
* ``--titles FILE`` (optional): ``id,author ids…,title,year`` rows
  (``resources/paper_author_title_year.csv`` of davidjurgens/citation-function), used for
  papers the metadata file lacks.

Written to ``OUT_DIR`` (gzipped JSONL, the S2 field names):

* ``papers.jsonl.gz``: every paper of the AAN graph, every ScisummNet citing paper and RP.
  ``corpusid`` is derived from the ACL id by :func:`corpus_id` (deterministic, injective on
  ``X00-0000[a-z]`` ids); the ACL id is kept in ``externalids.ACL``. Title, authors, venue,
  year from the metadata (then ``--titles``, then the RP's XML title; a missing year is
  read from the id, ``P10-…`` → 2010).
* ``abstracts.jsonl.gz``: the RPs' ``<ABSTRACT>`` sentences joined (RPs whose XML has no
  abstract get none); ``--no-abstracts`` writes none at all (a control: otherwise only the
  RPs, i.e. the possible answers, have an abstract).
* ``citations.jsonl.gz``: one row per AAN edge, plus the ScisummNet (citing, RP) pairs AAN
  lacks; ``contexts`` = that pair's ScisummNet sentences as written (``clean_text``, else
  ``raw_text``), ``null`` for other edges. ``load s2`` keeps these on the ``CITES`` edge
  only: they are not citerec queries.
* ``s2orc.jsonl.gz``: the citerec queries. One record per citing paper, its distinct
  citing sentences as paragraphs; every citation marker found in them (author-year,
  narrative ``Collins (1999)``, numeric ``[3]``) is a ``bibref`` span, and those naming the
  RP (first author's surname, year) carry a ``ref_id`` whose ``bibentry`` has the RP's
  corpus id as ``matched_paper_id``. The loader then masks that marker, all of it
  (``Collins (1999)`` with the name), as ``<REF>``, counts the sentence's markers as
  ``n_refs`` (citerec scores ``n_refs = 1`` only), and applies its clean-up rules. A
  sentence in which no marker names the RP gives no query (counted).

A summary of the counts is printed and written to ``OUT_DIR/convert_report.json``.

Usage::

    python benchmarks/real/scisumm_aan_to_s2.py --scisumm DIR --aan-net acl.txt \
        --aan-meta acl-metadata.txt [--titles paper_author_title_year.csv] OUT_DIR
"""

from __future__ import annotations

import argparse
import csv
import gzip
import hashlib
import html
import json
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCISUMM_SUBDIR = Path("data/Training-Set-2019/Task1/From-ScisummNet-2019")
_ACL_ID = re.compile(r"^([A-Z])(\d\d)-(\d{4})([a-z]?)$")

# --------------------------------------------------------------------------- ids


def corpus_id(acl_id: str) -> int:
    """An integer corpus id for an ACL id: ``letter·10^7 + yy·10^5 + number·10 + suffix``
    for ``X00-0000[a-z]`` ids (injective, readable), else 10^9 + a SHA-256 prefix."""
    m = _ACL_ID.match(acl_id)
    if m:
        letter, yy, number, suffix = m.groups()
        sub = ord(suffix) - ord("a") + 1 if suffix else 0
        return (ord(letter) - ord("A") + 1) * 10**7 + int(yy) * 10**5 + int(number) * 10 + sub
    return 10**9 + int(hashlib.sha256(acl_id.encode()).hexdigest()[:12], 16) % 10**9


def year_of_id(acl_id: str) -> int | None:
    """The publication year an ACL id encodes (``P10-1016`` → 2010, ``J79-…`` → 1979)."""
    m = _ACL_ID.match(acl_id)
    if not m:
        return None
    yy = int(m.group(2))
    return 1900 + yy if yy >= 50 else 2000 + yy


# --------------------------------------------------------------------------- text helpers


def read_text(path: Path) -> str:
    """A file as text: UTF-8 line by line, Windows-1252 for lines that are not UTF-8."""
    out = []
    for raw in path.read_bytes().splitlines(keepends=True):
        try:
            out.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            out.append(raw.decode("cp1252", errors="replace"))
    return "".join(out)


def unescape(text: str) -> str:
    """HTML entities decoded (twice: ScisummNet has ``&amp;quot;``), spaces collapsed."""
    for _ in range(2):
        decoded = html.unescape(text)
        if decoded == text:
            break
        text = decoded
    return " ".join(text.split())


def fold(text: str) -> str:
    """Lower case without accents, for matching surnames."""
    norm = unicodedata.normalize("NFKD", text)
    return "".join(c for c in norm if not unicodedata.combining(c)).lower()


# --------------------------------------------------------------------------- inputs


@dataclass
class Meta:
    """What the metadata files say about one paper."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)  # "First Last"
    surname: str | None = None  # first author's
    venue: str | None = None
    year: int | None = None


def read_aan_edges(path: Path) -> list[tuple[str, str]]:
    """Distinct ``(citing, cited)`` pairs, self-citations of an id to itself dropped."""
    edges: dict[tuple[str, str], None] = {}
    for line in read_text(path).splitlines():
        sep = "==>" if "==>" in line else ","
        parts = [p.strip() for p in line.split(sep)]
        if len(parts) == 2 and all(parts) and parts[0] != parts[1]:
            edges[(parts[0], parts[1])] = None
    return list(edges)


def _int(value: str | None) -> int | None:
    value = (value or "").strip()
    return int(value) if value.isdigit() else None


def read_aan_meta(path: Path) -> dict[str, Meta]:
    """``id = {…}`` blocks → :class:`Meta` per id."""
    out: dict[str, Meta] = {}
    cur: Meta | None = None
    for line in read_text(path).splitlines():
        m = re.match(r"\s*(\w+)\s*=\s*\{(.*)\}\s*$", line)
        if not m:
            continue
        key, value = m.group(1), unescape(m.group(2))
        if key == "id":
            cur = out.setdefault(value, Meta())
        elif cur is None:
            continue
        elif key == "title":
            cur.title = value or None
        elif key == "venue":
            cur.venue = value or None
        elif key == "year":
            cur.year = _int(value)
        elif key == "author":
            names = [a.strip() for a in value.split(";") if a.strip()]
            cur.authors = [" ".join(reversed([p.strip() for p in a.split(",", 1)])) for a in names]
            cur.surname = names[0].split(",", 1)[0].strip() if names else None
    return out


def read_titles_csv(path: Path) -> dict[str, Meta]:
    """``id,author ids…,title,year`` rows (titles may hold commas: quoted by the CSV)."""
    out: dict[str, Meta] = {}
    for row in csv.reader(read_text(path).splitlines()):
        if len(row) >= 3 and row[0].strip():
            out[row[0].strip()] = Meta(title=unescape(row[-2]) or None, year=_int(row[-1]))
    return out


@dataclass
class Citance:
    citing: str
    rp: str
    text: str


@dataclass
class ReferencePaper:
    rp: str
    title: str | None
    abstract: str | None


def scisumm_root(path: Path) -> Path:
    return path / SCISUMM_SUBDIR if (path / SCISUMM_SUBDIR).is_dir() else path


def read_reference_xml(path: Path, rp: str) -> ReferencePaper:
    """Title (``sid="0"``) and ``<ABSTRACT>`` sentences (regex: the XML is not always
    well formed)."""
    xml = read_text(path)
    title = re.search(r'<S sid="0"[^>]*>(.*?)</S>', xml, re.S)
    block = re.search(r"<ABSTRACT>(.*?)</ABSTRACT>", xml, re.S)
    sentences = re.findall(r"<S [^>]*>(.*?)</S>", block.group(1), re.S) if block else []
    abstract = " ".join(s for s in (unescape(x) for x in sentences) if s)
    return ReferencePaper(rp, unescape(title.group(1)) if title else None, abstract or None)


def read_scisumm(root: Path) -> tuple[dict[str, ReferencePaper], list[Citance]]:
    rps: dict[str, ReferencePaper] = {}
    citances: list[Citance] = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        rp = folder.name
        xml = folder / "Reference_XML" / f"{rp}.xml"
        rps[rp] = read_reference_xml(xml, rp) if xml.is_file() else ReferencePaper(rp, None, None)
        sentences = folder / "citing_sentences.json"
        if not sentences.is_file():
            continue
        for rec in json.loads(read_text(sentences)):
            text = unescape(rec.get("clean_text") or "") or unescape(rec.get("raw_text") or "")
            citing = str(rec.get("citing_paper_id") or "").strip()
            if text and citing and citing != rp:
                citances.append(Citance(citing, rp, text))
    return rps, citances


# --------------------------------------------------------------------------- markers

_UP = "A-ZÀ-ÖØ-Þ"
_PARTICLE = r"(?:[Vv]an|[Dd]e|[Dd]er|[Dd]en|[Vv]on|[Dd]i|[Dd]el|[Dd]ella|[Ll][ae]|[Dd][ua]|[Dd]os)"
_NAME = rf"(?:{_PARTICLE}\s+)*[{_UP}][\w'’\-]*"
_AUTHORS = rf"{_NAME}(?:\s+et\.?\s*al\.?|\s+(?:and|&)\s+{_NAME})?"
_YEAR = r"(?:1[89]\d\d|20\d\d)[a-z]?"
# narrative: "Collins (1999)", "Brown et al. (1993; 1995)", "Koehn and Monz (2006, p. 3)"
_NARRATIVE = re.compile(rf"{_AUTHORS}\s*\(\s*{_YEAR}[^()]{{0,30}}\)")
_PAREN = re.compile(r"\(([^()]*)\)")
_HAS_YEAR = re.compile(rf"\b{_YEAR}\b")
_NUMERIC = re.compile(r"\[(\s*\d{1,3}\s*(?:[,;\u2013-]\s*\d{1,3}\s*)*)\]")


def find_markers(text: str) -> list[tuple[int, int]]:
    """Spans of the citation markers in a sentence, one per citation, S2ORC-like:
    a narrative marker with its author names, a parenthetical group cut at ``;`` (the
    first part keeps ``(``, the last ``)``), a numeric group one span per number."""
    spans: list[tuple[int, int]] = [m.span() for m in _NARRATIVE.finditer(text)]

    def free(s: int, e: int) -> bool:
        return all(e <= a or s >= b for a, b in spans)

    for m in _PAREN.finditer(text):
        if not free(*m.span()) or not _HAS_YEAR.search(m.group(1)):
            continue
        inner_start = m.start(1)
        parts: list[tuple[int, int]] = []
        pos = 0
        for piece in m.group(1).split(";"):
            s = inner_start + pos + (len(piece) - len(piece.lstrip()))
            e = inner_start + pos + len(piece.rstrip())
            pos += len(piece) + 1
            if e > s and _HAS_YEAR.search(text[s:e]):
                parts.append((s, e))
        if not parts:
            continue
        if len(parts) == 1:
            spans.append(m.span())
            continue
        parts[0] = (m.start(), parts[0][1])
        parts[-1] = (parts[-1][0], m.end())
        spans.extend(parts)
    for m in _NUMERIC.finditer(text):
        if free(*m.span()):
            for n in re.finditer(r"\d+", m.group(0)):
                spans.append((m.start() + n.start(), m.start() + n.end()))
    return sorted(spans)


def targets(
    text: str, spans: list[tuple[int, int]], surname: str | None, year: int | None
) -> dict[tuple[int, int], tuple[int, int]]:
    """The markers naming the paper (surname and year, else the surname alone), each mapped
    to its span widened over the rest of a multi-word surname left outside it (``Tjong Kim``
    before ``Sang and Buchholz (2000)``), so no part of the name stays beside ``<REF>``."""
    if not surname:
        return {}
    words = fold(surname).split()
    word = re.compile(rf"(?<![^\W\d_]){re.escape(words[-1])}(?![^\W\d_])")
    named = [sp for sp in spans if word.search(fold(text[sp[0] : sp[1]]))]
    dated = [sp for sp in named if year is not None and str(year) in text[sp[0] : sp[1]]]
    head = surname.split()[:-1]
    before = re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, head)) + r"\s+$", re.I)
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for s, e in dated or named:
        m = before.search(text, 0, s) if head else None
        out[(s, e)] = (m.start(), e) if m else (s, e)
    return out


# --------------------------------------------------------------------------- writing


def write_jsonl(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    n = 0
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


def _externalids(acl_id: str, cid: int) -> dict[str, Any]:
    keys = ("ArXiv", "DOI", "MAG", "PubMed", "PubMedCentral", "DBLP")
    return {**dict.fromkeys(keys), "ACL": acl_id, "CorpusId": str(cid)}


def paper_rows(
    ids: Iterable[str], meta: dict[str, Meta], rps: dict[str, ReferencePaper], stats: Counter
) -> Iterator[dict[str, Any]]:
    for pid in ids:
        m = meta.get(pid) or Meta()
        rp = rps.get(pid)
        title = m.title or (rp.title if rp else None)
        year = m.year or year_of_id(pid)
        stats["papers with a title"] += title is not None
        stats["papers with a year read from the id"] += m.year is None and year is not None
        cid = corpus_id(pid)
        yield {
            "corpusid": cid,
            "externalids": _externalids(pid, cid),
            "url": None,
            "title": title,
            "authors": [{"authorId": None, "name": a} for a in m.authors],
            "venue": m.venue,
            "publicationvenueid": None,
            "year": year,
            "referencecount": None,
            "citationcount": None,
            "influentialcitationcount": None,
            "isopenaccess": None,
            "s2fieldsofstudy": None,
            "publicationtypes": None,
            "publicationdate": None,
            "journal": None,
        }


def s2orc_rows(
    citances: list[Citance], meta: dict[str, Meta], stats: Counter
) -> Iterator[dict[str, Any]]:
    """One S2ORC record per citing paper (see the module doc)."""
    by_citing: dict[str, dict[str, list[str]]] = defaultdict(dict)  # citing -> text -> RPs
    for c in citances:
        rps_of = by_citing[c.citing].setdefault(c.text, [])
        if c.rp not in rps_of:
            rps_of.append(c.rp)
    for citing in sorted(by_citing):
        text = "\n"
        paragraphs, bibrefs = [], []
        ref_ids: dict[str, str] = {}
        for sentence, cited in by_citing[citing].items():
            start = len(text)
            text += sentence + "\n\n"
            paragraphs.append({"start": start, "end": start + len(sentence)})
            spans = find_markers(sentence)
            marked: dict[tuple[int, int], tuple[str, tuple[int, int]]] = {}
            for rp in cited:
                m = meta.get(rp) or Meta()
                hit = targets(sentence, spans, m.surname, m.year or year_of_id(rp))
                if not hit:
                    stats["citances without a marker naming the RP (no query)"] += 1
                    continue
                ref = ref_ids.setdefault(rp, f"b{len(ref_ids)}")
                stats["citances with a marker naming the RP"] += 1
                for sp, wide in hit.items():
                    marked.setdefault(sp, (ref, wide))
            stats["markers found"] += len(spans)
            for s, e in spans:
                span: dict[str, Any] = {"start": start + s, "end": start + e}
                if (s, e) in marked:
                    ref, (s, e) = marked[(s, e)]
                    span = {"start": start + s, "end": start + e, "attributes": {"ref_id": ref}}
                bibrefs.append(span)
        entries = []
        for rp, ref in ref_ids.items():
            start = len(text)
            text += rp + "\n"
            entries.append(
                {
                    "start": start,
                    "end": start + len(rp),
                    "attributes": {"id": ref, "matched_paper_id": corpus_id(rp)},
                }
            )
        if not ref_ids:
            continue
        stats["s2orc records (citing papers)"] += 1
        yield {
            "corpusid": corpus_id(citing),
            "externalids": {"acl": citing, "arxiv": None, "doi": None},
            "content": {
                "source": None,
                "text": text,
                "annotations": {
                    "paragraph": json.dumps(paragraphs),
                    "sectionheader": None,
                    "bibref": json.dumps(bibrefs),
                    "bibentry": json.dumps(entries),
                },
            },
        }


def convert(
    scisumm: Path,
    aan_net: Path,
    aan_meta: Path,
    titles: Path | None,
    out_dir: Path,
    *,
    abstracts: bool = True,
) -> dict[str, int]:
    """Write the four files (see the module doc); returns the counts."""
    stats: Counter = Counter()
    edges = read_aan_edges(aan_net)
    meta = read_titles_csv(titles) if titles else {}
    for pid, m in read_aan_meta(aan_meta).items():
        base = meta.get(pid)
        if base and m.year is None:
            m.year = base.year
        if base and not m.title:
            m.title = base.title
        meta[pid] = m
    rps, citances = read_scisumm(scisumm_root(scisumm))
    stats["AAN edges"] = len(edges)
    stats["reference papers"] = len(rps)
    stats["reference papers with an abstract"] = sum(1 for r in rps.values() if r.abstract)
    stats["citances (non-empty text)"] = len(citances)

    ids = sorted({x for e in edges for x in e} | set(rps) | {c.citing for c in citances})
    cids = {corpus_id(i) for i in ids}
    if len(cids) != len(ids):
        raise SystemExit("two ACL ids map to one corpus id: change corpus_id()")
    out_dir.mkdir(parents=True, exist_ok=True)
    stats["papers"] = write_jsonl(out_dir / "papers.jsonl.gz", paper_rows(ids, meta, rps, stats))

    rows = (
        {
            "corpusid": corpus_id(rp),
            "openaccessinfo": {"externalids": {"ACL": rp}, "license": None, "url": None},
            "abstract": r.abstract,
        }
        for rp, r in sorted(rps.items())
        if r.abstract and abstracts
    )
    stats["abstracts"] = write_jsonl(out_dir / "abstracts.jsonl.gz", rows)

    contexts: dict[tuple[str, str], list[str]] = defaultdict(list)
    for c in citances:
        if c.text not in contexts[(c.citing, c.rp)]:
            contexts[(c.citing, c.rp)].append(c.text)
    known = set(edges)
    extra = sorted(set(contexts) - known)
    stats["ScisummNet pairs added (not in AAN)"] = len(extra)
    stats["ScisummNet pairs in AAN"] = len(set(contexts) & known)

    def citation_rows() -> Iterator[dict[str, Any]]:
        for citing, cited in [*edges, *extra]:
            ctx = contexts.get((citing, cited))
            yield {
                "citingcorpusid": str(corpus_id(citing)),
                "citedcorpusid": str(corpus_id(cited)),
                "isinfluential": None,
                "contexts": ctx or None,
                "intents": None,
            }

    stats["citations"] = write_jsonl(out_dir / "citations.jsonl.gz", citation_rows())
    stats["s2orc lines"] = write_jsonl(
        out_dir / "s2orc.jsonl.gz", s2orc_rows(citances, meta, stats)
    )
    report = dict(sorted(stats.items()))
    (out_dir / "convert_report.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scisumm", type=Path, required=True, help="ScisummNet repo or folder")
    ap.add_argument("--aan-net", type=Path, required=True, help="AAN acl.txt")
    ap.add_argument("--aan-meta", type=Path, required=True, help="AAN acl-metadata.txt")
    ap.add_argument("--titles", type=Path, help="paper_author_title_year.csv")
    ap.add_argument("--no-abstracts", action="store_true", help="write no abstracts (control)")
    ap.add_argument("out_dir", type=Path)
    args = ap.parse_args(argv)
    report = convert(
        args.scisumm,
        args.aan_net,
        args.aan_meta,
        args.titles,
        args.out_dir,
        abstracts=not args.no_abstracts,
    )
    for key, value in report.items():
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()

"""Crossref works (the REST API's ``message.items``) → Paper, Author, Venue, AUTHORED_BY,
IN_VENUE and CITES records.

Accepted files: a saved API response ``{"status", "message": {"items": [...]}}`` (a list
page) or ``{"message": {work}}`` (one work), a JSON array of works, or JSON Lines with one
work (or one response) per line; plain or gzipped. Fields read (Crossref's REST API "Work"
schema): ``DOI``, ``title``, ``author`` (``given``, ``family``, ``name``, ``ORCID``,
``sequence``), ``issued``/``published`` ``date-parts``, ``container-title``, ``type``,
``language``, ``abstract`` (JATS markup stripped), ``is-referenced-by-count`` (a whole
number; ``NaN`` is stored as missing and counted in the summary's cleaned values, as in
OpenAlex), and
``reference`` — only references that carry a ``DOI`` become CITES (to a stub Paper holding
that DOI); the others have no identifier to match on, and a reference to the work's own DOI
would be a CITES loop: both are left out and counted as skipped CITES in the load summary
(``loaders/left_out.py``). Unknown fields are ignored.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.loaders.base import validating, whole_number
from scholarkg.loaders.checkpoint import AnyRecord
from scholarkg.loaders.identity import SourceGroup, StatedFields, StatedList, StatedMark
from scholarkg.loaders.left_out import NO_DOI, SELF_CITATION, note_left_out
from scholarkg.schema import ids
from scholarkg.schema.records import Author, Authorship, Citation, Paper, PublishedIn, Venue
from scholarkg.schema.text import note_cleaning
from scholarkg.textio import CUT_LINE, iter_json_lines, load_json, refuse_markup

# JATS tags in Crossref abstracts; a regex rather than an XML parser on purpose: the
# abstracts are fragments (often not well-formed), and only the text is kept
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")


def _first(value: Any) -> str | None:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), None)
    if not isinstance(value, str):
        return None
    return _SPACE.sub(" ", value).strip() or None


def _jats_text(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    return _SPACE.sub(" ", _TAG.sub(" ", value)).strip() or None


def _stated_ranked(item: dict[str, Any]) -> frozenset[str]:
    """The shared properties a Crossref item states (``StatedFields.ranked``). Crossref
    leaves a field with no value out of the item, so a whole item (one with the metadata
    fields every deposit has: ``indexed``, ``deposited``, ``created``) states them all, a
    missing abstract included; an item trimmed by the API's ``select=`` states the fields
    it has."""
    if any(key in item for key in _WHOLE_ITEM):
        return _ALL_RANKED
    return frozenset(name for key, names in _RANKED_KEYS.items() if key in item for name in names)


#: fields every Crossref deposit has: an item holding one is whole (not ``select=``-trimmed)
_WHOLE_ITEM = ("indexed", "deposited", "created")
#: the item field → the shared properties it states (``StatedFields.ranked``); a date from
#: any of the date fields (``_date``), the URL from the DOI
_RANKED_KEYS = {
    "title": ("title", "title_norm"),
    "abstract": ("abstract",),
    "issued": ("date", "year"),
    "published": ("date", "year"),
    "published-print": ("date", "year"),
    "published-online": ("date", "year"),
    "created": ("date", "year"),
    "container-title": ("venue",),
    "type": ("work_type",),
    "language": ("language",),
    "is-referenced-by-count": ("citation_count",),
    "DOI": ("url",),
}
_ALL_RANKED = frozenset(name for names in _RANKED_KEYS.values() for name in names)


def _date(item: dict[str, Any]) -> str | None:
    """The work's date from the first of Crossref's date fields that has one, as precise as
    its ``date-parts`` (year, month, day). A part that is not a whole number (a ``NaN``)
    ends the date there, as if the part were absent: ``[2020, NaN, 17]`` is ``2020``, and
    ``[NaN, 5, 1]`` gives no date from that field. A NaN that cost the work its date, or a
    part of it, is counted in the summary's cleaned values once."""
    cut = False
    for key in ("issued", "published", "published-print", "published-online", "created"):
        parts = (item.get(key) or {}).get("date-parts") if isinstance(item.get(key), dict) else None
        if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
            nums: list[int] = []
            for p in parts[0][:3]:
                if type(p) is not int:
                    cut = cut or (isinstance(p, float) and not math.isfinite(p))
                    break
                nums.append(p)
            if nums and nums[0] > 0:
                if cut:  # a NaN in the date used, or in one before it
                    note_cleaning("Paper", "date", "nan stored as missing")
                return "-".join([f"{nums[0]:04d}", *(f"{n:02d}" for n in nums[1:3])])
    if cut:
        note_cleaning("Paper", "date", "nan stored as missing")
    return None


def parse_item(item: dict[str, Any], *, path: Path, line: int) -> list[AnyRecord | StatedMark]:
    raw_doi = item.get("DOI")
    doi = ids.normalize_doi(raw_doi) if isinstance(raw_doi, str) else None
    if doi is None:
        raise InputError(
            f"a Crossref work needs its DOI, got {ids.why_not_a_doi(raw_doi)}",
            path=path,
            line=line,
            field="DOI",
        )
    arxiv = ids.arxiv_id_from_doi(doi)
    abstract = item.get("abstract")
    refs = item.get("reference")
    if refs is not None and not isinstance(refs, list):
        raise InputError("expected a list", path=path, line=line, field="reference")
    authors = item.get("author") or []
    if not isinstance(authors, list):
        raise InputError("expected a list", path=path, line=line, field="author")
    cited_by = whole_number(
        item.get("is-referenced-by-count"), path=path, line=line, field="is-referenced-by-count"
    )
    with validating(path, line):
        paper = Paper(
            doi=None if arxiv else doi,
            arxiv_id=arxiv,
            title=_first(item.get("title")),
            abstract=_jats_text(abstract),
            date=_date(item),
            venue=_first(item.get("container-title")),
            work_type=item.get("type") if isinstance(item.get("type"), str) else None,
            language=item.get("language") if isinstance(item.get("language"), str) else None,
            citation_count=cited_by,
            url=f"https://doi.org/{doi}",
            source="crossref",
        )
        nodes: list[AnyRecord | StatedMark] = [paper]
        edges: list[AnyRecord | StatedMark] = []
        for position, a in enumerate(authors):
            if not isinstance(a, dict):
                raise InputError("expected an author object", path=path, line=line, field="author")
            name = " ".join(
                p for p in (a.get("given"), a.get("family")) if isinstance(p, str) and p.strip()
            ) or a.get("name")
            if not isinstance(name, str) or not name.strip():
                continue
            orcid = a.get("ORCID")
            author = Author(
                name=name,
                orcid=orcid if isinstance(orcid, str) and orcid else None,
                listed_on=paper.id,
            )
            nodes.append(author)
            edges.append(
                Authorship(start=paper.id, end=author.id, position=position, from_crossref=True)
            )
        edges.append(StatedFields(paper.id, frozenset(), _stated_ranked(item)))
        if "author" in item:  # the whole author list; a record trimmed by the API's
            # select= (no "author" key) states none, so the stored authors stay, as its
            # references stay without a "reference" key
            edges.append(StatedList(paper.id, "crossref", "AUTHORED_BY"))
        if paper.venue and ids.venue_id(paper.venue):  # a name too long for a key: none
            venue = Venue(name=paper.venue)
            nodes.append(venue)
            edges.append(PublishedIn(start=paper.id, end=venue.id))
        seen: set[str] = set()
        for ref in refs or []:
            ref_doi = (
                ids.normalize_doi(ref["DOI"])
                if isinstance(ref, dict) and isinstance(ref.get("DOI"), str)
                else None
            )
            if ref_doi is None:
                note_left_out("CITES", NO_DOI)
                continue
            if ref_doi in seen:  # listed twice: one CITES
                continue
            seen.add(ref_doi)
            if ref_doi == doi:  # counted once however often it is listed
                note_left_out("CITES", SELF_CITATION)
                continue
            ref_arxiv = ids.arxiv_id_from_doi(ref_doi)
            stub = (
                Paper.model_construct(id=f"arxiv:{ref_arxiv}", arxiv_id=ref_arxiv)
                if ref_arxiv
                else Paper.model_construct(id=f"doi:{ref_doi}", doi=ref_doi)
            )
            nodes.append(stub)
            edges.append(Citation.model_construct(start=paper.id, end=stub.id, from_crossref=True))
        if refs is not None:
            edges.append(StatedList(paper.id, "crossref"))
    return nodes + edges


def _items(doc: Any, path: Path, line: int) -> list[Any]:
    if isinstance(doc, list):
        return doc
    if isinstance(doc, dict):
        message = doc.get("message", doc)
        if isinstance(message, dict) and isinstance(message.get("items"), list):
            return list(message["items"])
        if isinstance(message, dict):
            return [message]  # one work (``/works/{doi}``) or a bare work object
    raise InputError(
        "expected a Crossref response {message: {items: [...]}} or a work", path=path, line=line
    )


#: what ``load crossref`` reads, for the message about a file that is not it
READS = (
    "`load crossref` reads Crossref's REST API JSON: saved responses {message: {items}}, "
    "a JSON array of works, or JSON Lines (plain or .gz); not Crossref's XML."
)


def read_works(path: Path) -> Iterator[SourceGroup]:
    """One group per Crossref work of a file (see the module doc for the shapes)."""
    refuse_markup(path, reads=READS)
    name = path.name.removesuffix(".gz")
    if name.endswith(".json"):
        for i, item in enumerate(_items(load_json(path, if_empty=[]), path, 1), start=1):
            if not isinstance(item, dict):
                raise InputError(
                    "expected a work object", path=path, line=i, field="items", unit="record"
                )
            try:
                group = parse_item(item, path=path, line=i)
            except InputError as err:  # a page's lines are not its records: name the work
                doi = item.get("DOI")
                raise InputError(
                    f"{err.message} (the work {doi!r})" if isinstance(doi, str) else err.message,
                    path=path,
                    line=i,
                    field=err.field,
                    unit="record",
                ) from None
            yield i, group
        return
    for number, obj in iter_json_lines(path, invalid_json=CUT_LINE):
        for item in _items(obj, path, number):
            if not isinstance(item, dict):
                raise InputError("expected a work object", path=path, line=number, field="items")
            yield number, parse_item(item, path=path, line=number)

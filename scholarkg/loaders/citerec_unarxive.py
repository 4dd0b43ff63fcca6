"""unarXive full-text JSONL (2022 release, ``IllDepence/unarXive`` ``doc/data_format.md``).

One paper per line: ``paper_id`` (arXiv id), ``metadata`` (the arXiv metadata record:
``title``, ``authors`` (string), ``categories`` (space-separated), ``doi``,
``update_date``, ``versions`` …), ``discipline``, ``abstract`` ({``text``} or a string),
``body_text`` [{``section``, ``sec_number``, ``sec_type``, ``content_type``, ``text``,
``cite_spans``, ``ref_spans``}], ``bib_entries`` {ref id: {``bib_entry_raw``,
``contained_arXiv_ids`` [{id, …}], ``contained_links``, ``discipline``, ``ids``
{``open_alex_id``, ``sem_open_alex_id``, ``pubmed_id``, ``pmc_id``, ``doi``,
``arxiv_id``}}}. ``ids.arxiv_id`` is missing from ``data_format.md`` but present in the
released sample (``doc/unarXive_data_sample.tar.gz``), where most arXiv-matched entries
carry it with an empty ``contained_arXiv_ids``; empty identifiers are ``""``, not null.

Citations are inline markers ``{{cite:<ref id>}}`` in paragraph text. Each marker whose bib
entry names the cited paper (an arXiv id > a DOI > an OpenAlex id, the shared id rules)
becomes a ``<REF>``-masked CitationContext (as for S2ORC), with ``IN_PAPER``, ``GOLD`` and
``CITES``. The cited paper is MERGEd by that id (a node with only its identifiers if nothing
else loaded it): unlike S2's corpus ids these ids are the shared ones, so a later load of
the same paper from another source lands on the same node. Markers whose entry has no id
still count in ``n_refs``. In the stored sentence the *other* citation markers become
``[CIT]`` and formula/figure/table markers ``[FORMULA]``/``[FIGURE]``/``[TABLE]``, so
lexical rankers do not index marker hashes; ``char_start``/``char_end`` are offsets of the
masked marker in the paragraph's released text.

Of citeBench's clean-up steps only the footnote rule applies
(``citerec_contexts.starts_with_footnote``; drops are counted in the summary): each
``{{cite:<key>}}`` is one citation by construction, so there is no merged span to validate.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from scholarkg.errors import InputError
from scholarkg.loaders.base import described
from scholarkg.loaders.checkpoint import AnyRecord, Group
from scholarkg.loaders.citerec_contexts import Marker, SentenceSplitter, extract_contexts
from scholarkg.loaders.citerec_contexts import split_sentences as default_splitter
from scholarkg.loaders.tolerant import SkipReport, iter_jsonl_tolerant, optional_str
from scholarkg.schema import ids
from scholarkg.schema.citerec import Gold, InPaper, S2Citation
from scholarkg.schema.records import Author, Authorship, CitationContext, Paper

_MARKER = re.compile(r"\{\{(cite|formula|figure|table):([^{}]*)\}\}")
_PLACEHOLDER = {"cite": "[CIT]", "formula": "[FORMULA]", "figure": "[FIGURE]", "table": "[TABLE]"}


def _object(obj: dict[str, Any], key: str) -> dict[str, Any]:
    """``obj[key]`` when it is a JSON object, else an empty one (a missing or malformed
    field reads as absent)."""
    value = obj.get(key)
    return value if isinstance(value, dict) else {}


def _tally(counter: Counter[str], reason: str) -> None:
    counter[reason] += 1


def cited_paper_id(entry: Any) -> tuple[str | None, dict[str, str]]:
    """``(Paper id, identifiers)`` of a bib entry, or ``(None, {})`` if it names no paper.

    The arXiv id comes from ``contained_arXiv_ids`` (an id written in the reference) or,
    failing that, from the matched ``ids.arxiv_id``; the DOI from ``ids.doi`` or, failing
    that, from a ``doi.org`` link in ``contained_links`` when the entry has exactly one
    (in the released sample ~40 % of the entries without matched ids carry such a link,
    always the cited work's DOI)."""
    if not isinstance(entry, dict):
        return None, {}
    found = _object(entry, "ids")
    arxiv = None
    candidates = [
        item["id"]
        for item in entry.get("contained_arXiv_ids") or []
        if isinstance(item, dict) and item.get("id")
    ]
    if found.get("arxiv_id"):
        candidates.append(found["arxiv_id"])
    for candidate in candidates:
        arxiv = ids.normalize_arxiv_id(str(candidate))
        if arxiv:
            break
    doi = ids.normalize_doi(str(found.get("doi") or "")) if found.get("doi") else None
    if doi is None:
        doi = _linked_doi(entry.get("contained_links"))
    openalex = optional_str(found, "open_alex_id")
    if not (arxiv or doi or openalex):
        return None, {}
    pid = ids.paper_id(arxiv_id=arxiv, doi=doi, openalex_id=openalex)
    props = {k: v for k, v in (("arxiv_id", arxiv), ("doi", doi)) if v}
    return pid, props


def _linked_doi(links: Any) -> str | None:
    """The DOI of the only distinct ``doi.org`` link among a bib entry's links, else None."""
    if not isinstance(links, list):
        return None
    found = set()
    for link in links:
        if isinstance(link, dict) and isinstance(link.get("url"), str):
            doi = ids.normalize_doi(unquote(link["url"]))
            if doi:
                found.add(doi)
    return found.pop() if len(found) == 1 else None


def _abstract(obj: dict[str, Any]) -> str | None:
    value = obj.get("abstract")
    if isinstance(value, dict):
        return optional_str(value, "text")
    if isinstance(value, str):
        return value.strip() or None
    meta = obj.get("metadata")
    return optional_str(meta, "abstract") if isinstance(meta, dict) else None


def arxiv_month(arxiv: str) -> str | None:
    """``YYYY-MM`` of first submission, read from the arXiv id itself (``2105.05862`` →
    ``2021-05``; ``hep-th/9901001`` → ``1999-01``): the metadata's ``update_date`` is the
    last revision, not the publication date."""
    m = re.search(r"(?:^|/)(\d{2})(\d{2})", arxiv)
    if not m:
        return None
    yy, mm = int(m.group(1)), int(m.group(2))
    if not 1 <= mm <= 12:
        return None
    return f"{1900 + yy if yy >= 91 else 2000 + yy}-{mm:02d}"


def _clean(sentence: str) -> str:
    """Other markers → placeholders (the target is already ``<REF>``)."""
    return " ".join(_MARKER.sub(lambda m: _PLACEHOLDER[m.group(1)], sentence).split())


def paper_records(
    obj: dict[str, Any],
    path: Path,
    line: int,
    splitter: SentenceSplitter = default_splitter,
    on_drop: Callable[[str], None] | None = None,
) -> list[AnyRecord]:
    """All records of one unarXive line (the citing paper first); contexts removed by the
    footnote rule are passed to ``on_drop`` (see ``extract_contexts``)."""
    arxiv = ids.normalize_arxiv_id(str(obj.get("paper_id") or ""))
    if arxiv is None:
        raise InputError("missing or invalid arXiv id", path=path, line=line, field="paper_id")
    meta = _object(obj, "metadata")
    categories = optional_str(meta, "categories")
    paper = Paper(
        arxiv_id=arxiv,
        title=" ".join((optional_str(meta, "title") or "").split()) or None,
        abstract=_abstract(obj),
        doi=ids.normalize_doi(optional_str(meta, "doi") or "") or None,
        categories=categories.split() if categories else None,
        fields_of_study=[obj["discipline"]] if isinstance(obj.get("discipline"), str) else None,
        date=arxiv_month(arxiv),
        source="unarxive",
    )
    records: list[AnyRecord] = [paper]
    raw_authors = meta.get("authors")
    if raw_authors is not None and not isinstance(raw_authors, str):  # a list made none
        raise InputError(
            "expected the arXiv metadata's author string (\"A. Name, B. Name and C. Name\"), "
            f"got {described(raw_authors)}",
            path=path, line=line, field="metadata.authors",
        )  # fmt: skip
    authors = optional_str(meta, "authors")
    if authors:
        # arXiv wraps long author lists ("Ann\n  Zorb"): collapse the whitespace
        names = [" ".join(a.split()) for a in re.split(r",\s*|\s+and\s+", authors) if a.strip()]
        for pos, name in enumerate(names, start=1):
            author = Author(name=name)
            records += [author, Authorship(start=paper.id, end=author.id, position=pos)]

    bib = _object(obj, "bib_entries")
    targets: dict[str, str] = {}
    for ref_id, entry in bib.items():
        pid, props = cited_paper_id(entry)
        if pid is not None and pid != paper.id:
            targets[str(ref_id)] = pid
            records.append(Paper(id=pid, **props))
    body = obj.get("body_text")
    if not isinstance(body, list):
        raise InputError("expected a list", path=path, line=line, field="body_text")
    cited_seen: set[str] = set()
    for para in body:
        if not isinstance(para, dict) or not isinstance(para.get("text"), str):
            continue
        text = para["text"]
        all_markers = list(_MARKER.finditer(text))
        cites = [
            Marker(m.start(), m.end(), targets.get(m.group(2)))
            for m in all_markers
            if m.group(1) == "cite"
        ]
        if not cites:
            continue
        protected = [(m.start(), m.end()) for m in all_markers]

        def split(t: str, s: int, e: int, _p: Any, protected: Any = protected) -> Any:
            return splitter(t, s, e, protected)

        section = optional_str(para, "section")
        for ctx in extract_contexts(text, [(0, len(text))], cites, splitter=split, on_drop=on_drop):
            node = CitationContext(
                citing=paper.id,
                cited=ctx.target,
                text=_clean(ctx.text),
                citation_text=ctx.citation_text,
                section=section,
                char_start=ctx.char_start,
                char_end=ctx.char_end,
                n_refs=ctx.n_refs,
                source="unarxive",
            )
            records += [
                node,
                InPaper(start=node.id, end=paper.id),
                Gold(start=node.id, end=ctx.target),
            ]
            if ctx.target not in cited_seen:
                cited_seen.add(ctx.target)
                records.append(S2Citation(start=paper.id, end=ctx.target, source="unarxive"))
    return records


def read_unarxive(
    path: Path, report: SkipReport, *, splitter: SentenceSplitter = default_splitter
) -> Iterator[Group]:
    """One group per paper line; a malformed line is reported, counted and skipped.

    Contexts dropped by the footnote rule are counted per reason (only for lines that load:
    a skipped line's drops would double-count with its skip)."""
    for line, obj in iter_jsonl_tolerant(path, report):
        dropped: Counter[str] = Counter()
        try:
            records = paper_records(
                obj,
                path,
                line,
                splitter,
                on_drop=functools.partial(_tally, dropped),
            )
        except InputError as err:
            report.skip_error(err, path=path, line=line)
            continue
        except ValueError as err:  # pydantic validation of a field
            report.skip(path, line, str(err).splitlines()[0])
            continue
        for reason, n in sorted(dropped.items()):
            report.drop(f"unarxive {reason}", n)
        yield line, records

"""Semantic Scholar datasets (S2AG bulk JSONL, gzipped or not) → papers, authors, venues,
citations with contexts and intents, and ``<REF>``-masked citing sentences from S2ORC.

Formats (the citeBench paper (Maharjan, arXiv 2412.07713); Semantic Scholar Datasets API
documentation; field names checked against the official sample files):

* ``papers``: ``corpusid``, ``externalids`` {ArXiv, DOI, MAG, PubMed, PubMedCentral, DBLP,
  ACL, CorpusId}, ``title``, ``authors`` [{authorId, name}], ``venue``,
  ``publicationvenueid``, ``year``, ``publicationdate``, ``referencecount``,
  ``citationcount``, ``influentialcitationcount``, ``isopenaccess``, ``s2fieldsofstudy``
  [{category, source}] | null, ``publicationtypes``, ``journal``, ``url``;
* ``abstracts``: ``corpusid``, ``abstract``, ``openaccessinfo`` {externalids, …};
* ``tldrs``: ``corpusid``, ``model``, ``text``;
* ``authors``: ``authorid``, ``name``, ``aliases``, ``externalids`` {ORCID, DBLP} | null,
  ``papercount``, ``citationcount``, ``hindex``, ``affiliations``, ``homepage``;
* ``publication-venues``: ``id`` (uuid), ``name``, ``alternate_names``, ``issn``, ``type``,
  ``url``;
* ``citations``: ``citingcorpusid``, ``citedcorpusid`` (strings; cited null when S2 could
  not match it), ``isinfluential``, ``contexts`` [str] | null, ``intents`` — [str] per pair
  (older releases) or [[str], …] one list per context (newer, with ``citationid``);
* ``s2orc``: ``corpusid``, ``externalids`` (lower-case keys), ``content`` {``text``,
  ``annotations`` {name: JSON-encoded list of {start, end, attributes} | null}}.

Ids: a paper's id follows ``schema/ids.py`` (arXiv > DOI > ``s2:<corpusid>``), so an S2 paper
is the same node as the arXiv/DOI paper other loaders write. Citations and S2ORC name papers
by corpus id only, so their endpoints are *looked up* by ``corpus_id`` among the papers
already in the graph (batched; ``lookup``): load ``--papers`` before ``--citations``/``--s2orc``
(the command orders the steps so). A citation whose paper is not in the graph is counted
(``SkipReport.dropped``), never stored against an invented node, because a later
``--papers`` load would give that paper a different id (its DOI).

Authors are keyed ``s2author:<authorid>`` in both ``papers`` and ``authors`` even when the
author record carries an ORCID (stored as a property), so the two files meet on one node.

Intents: the per-pair layout gives ``intents`` for the whole pair; the per-context layout is
kept as ``context_intents`` (JSON) beside their union in ``intents``. S2's ``methodology``
is kept verbatim here; the diagnostics map it to citeBench's ``method``.

S2ORC citing sentences: paragraphs are split into sentences (``citerec_contexts``), each
``bibref`` whose ``ref_id`` names a ``bibentry`` with a ``matched_paper_id`` becomes a
CitationContext (marker → ``<REF>``, section from the last ``sectionheader`` before the
paragraph, marker offsets, ``n_refs`` = markers in the sentence) with ``IN_PAPER`` →
citing, ``GOLD`` → cited, and a ``CITES`` edge. Bibrefs without ``ref_id`` or without a
matched entry still count as markers of their sentence. citeBench's two clean-up steps
drop a context, counted in the summary per reason: its sentence starts with a footnote
marker (footnote text or a flattened superscript), or its marker is not one citation in a
recognised style (S2ORC merges adjacent citations into one span); the rules are
``citerec_contexts.starts_with_footnote`` and ``citerec_contexts.citation_style``.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from scholarkg.errors import InputError
from scholarkg.loaders.base import described
from scholarkg.loaders.checkpoint import AnyRecord, Group
from scholarkg.loaders.citerec_contexts import (
    Marker,
    SentenceSplitter,
    extract_contexts,
    split_sentences,
)
from scholarkg.loaders.identity import StatedList
from scholarkg.loaders.tolerant import (
    SkipReport,
    iter_jsonl_tolerant,
    optional_int,
    optional_str,
)
from scholarkg.schema import ids
from scholarkg.schema.citerec import (
    Gold,
    InPaper,
    S2Author,
    S2Citation,
    S2Paper,
    S2Venue,
)
from scholarkg.schema.records import Author, Authorship, CitationContext, PublishedIn, Venue
from scholarkg.textio import refuse_markup

#: ``lookup(corpus ids) -> {corpus id: Paper id}`` for the papers already in the graph
CorpusLookup = Callable[[Sequence[int]], Mapping[int, str]]
#: lines resolved per lookup round trip
RESOLVE_BATCH = 2_000


# --------------------------------------------------------------------------- helpers


def _ext(ext: Any, *keys: str) -> str | None:
    """First non-empty value among ``keys`` of an externalids object (any key case)."""
    if not isinstance(ext, dict):
        return None
    lowered = {str(k).lower(): v for k, v in ext.items()}
    for key in keys:
        value = lowered.get(key.lower())
        if isinstance(value, list):
            value = value[0] if value else None
        if value not in (None, ""):
            return str(value).strip()
    return None


def s2_paper_id(corpus_id: int | None, ext: Any) -> str:
    """The Paper id of an S2 record by the shared rules (arXiv > DOI > corpus id)."""
    return ids.paper_id(arxiv_id=_ext(ext, "ArXiv"), doi=_ext(ext, "DOI"), corpus_id=corpus_id)


def _fields_of_study(value: Any) -> list[str] | None:
    """Unique categories, the ``s2-fos-model`` ones first (S2's own classifier)."""
    if not isinstance(value, list):
        return None
    ranked = sorted(
        (f for f in value if isinstance(f, dict) and f.get("category")),
        key=lambda f: f.get("source") != "s2-fos-model",
    )
    out: list[str] = []
    for f in ranked:
        if f["category"] not in out:
            out.append(str(f["category"]))
    return out or None


def _str_list(value: Any) -> list[str] | None:
    if not isinstance(value, list):
        return None
    out = [str(v).strip() for v in value if v not in (None, "") and not isinstance(v, dict)]
    return out or None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _require_corpus_id(obj: dict[str, Any], key: str, path: Path, line: int) -> int:
    cid = optional_int(obj.get(key))
    if cid is None:
        raise InputError(
            "missing, non-integer or out-of-range corpus id", path=path, line=line, field=key
        )
    return cid


@dataclass
class _Pending:
    """A parsed line waiting for corpus ids to be resolved to Paper ids."""

    line: int
    corpus_ids: tuple[int, ...]
    build: Callable[[Mapping[int, str]], list[AnyRecord]]


def _resolve(pending: Iterable[_Pending], lookup: CorpusLookup) -> Iterator[Group]:
    """Resolve corpus ids in batches of :data:`RESOLVE_BATCH` lines, then build records."""
    batch: list[_Pending] = []

    def flush() -> Iterator[Group]:
        wanted = sorted({c for p in batch for c in p.corpus_ids})
        found = lookup(wanted) if wanted else {}
        for p in batch:
            yield p.line, p.build(found)
        batch.clear()

    for item in pending:
        batch.append(item)
        if len(batch) >= RESOLVE_BATCH:
            yield from flush()
    if batch:
        yield from flush()


def _guard(report: SkipReport, path: Path, line: int, fn: Callable[[], Any]) -> Any:
    """Run ``fn``; a bad field skips the line (reported), anything else propagates."""
    try:
        return fn()
    except InputError as err:
        report.skip_error(err, path=path, line=line)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or None
        report.skip(path, line, first.get("msg", "invalid value"), where)
    except (ValueError, TypeError, KeyError) as err:
        report.skip(path, line, str(err))
    return None


def _guarded_lines(
    path: Path, report: SkipReport, fn: Callable[[dict[str, Any], int], Any]
) -> Iterator[tuple[int, dict[str, Any], Any]]:
    """``(line, obj, fn(obj, line))`` for each JSONL line whose ``fn`` passes :func:`_guard`."""
    for line, obj in iter_jsonl_tolerant(path, report):
        value = _guard(report, path, line, functools.partial(fn, obj, line))
        if value is not None:
            yield line, obj, value


def _corpus_id(key: str, path: Path) -> Callable[[dict[str, Any], int], int]:
    return lambda obj, line: _require_corpus_id(obj, key, path, line)


# --------------------------------------------------------------------------- papers etc.


#: the Graph API's (``api.semanticscholar.org/graph/v1/paper/…``) spelling of the datasets'
#: ``papers`` keys: one paper JSON (or ``{"data": [...]}``) loads as a ``papers`` line
_GRAPH_API_KEYS = {
    "externalIds": "externalids",
    "publicationDate": "publicationdate",
    "s2FieldsOfStudy": "s2fieldsofstudy",
    "citationCount": "citationcount",
    "referenceCount": "referencecount",
    "influentialCitationCount": "influentialcitationcount",
    "isOpenAccess": "isopenaccess",
    "publicationTypes": "publicationtypes",
}
_SHA = re.compile(r"^[0-9a-f]{40}$")


def graph_api_paper(obj: dict[str, Any], path: Path, line: int) -> dict[str, Any]:
    """A Graph API paper object in the datasets' ``papers`` spelling (unchanged when it is
    one already). Its corpus id is ``corpusId`` or ``externalIds.CorpusId``; an object with
    neither (the API returns only ``paperId`` and ``title`` unless asked for more) is refused
    by name, since S2's papers are keyed by it here."""
    if "corpusid" in obj or not ({"paperId", "corpusId", "externalIds"} & obj.keys()):
        return obj
    out = {_GRAPH_API_KEYS.get(k, k): v for k, v in obj.items()}
    given = obj.get("externalIds")
    ext: dict[str, Any] = given if isinstance(given, dict) else {}
    cid = obj.get("corpusId", ext.get("CorpusId"))
    if cid is None:
        raise InputError(
            "a Semantic Scholar Graph API paper without its corpus id: request "
            "fields=corpusId,externalIds,title,abstract,year,authors,… (the API returns only "
            "paperId and title by default)",
            path=path, line=line, field="corpusId",
        )  # fmt: skip
    out["corpusid"] = cid
    venue = obj.get("publicationVenue")
    if isinstance(venue, dict) and isinstance(venue.get("id"), str):
        out["publicationvenueid"] = venue["id"]
    out.pop("publicationVenue", None)
    return out


def _paper_records(obj: dict[str, Any], path: Path, line: int) -> list[AnyRecord | StatedList]:
    obj = graph_api_paper(obj, path, line)
    cid = _require_corpus_id(obj, "corpusid", path, line)
    sha = obj.get("paperId")
    ext = obj.get("externalids")
    title = optional_str(obj, "title")
    paper = S2Paper(
        id=s2_paper_id(cid, ext),
        corpus_id=cid,
        title=title,
        abstract=optional_str(obj, "abstract"),  # the Graph API's; the datasets' file has none
        s2_paper_id=sha if isinstance(sha, str) and _SHA.match(sha) else None,
        year=optional_int(obj.get("year")),
        date=optional_str(obj, "publicationdate"),
        arxiv_id=_ext(ext, "ArXiv"),
        doi=ids.normalize_doi(_ext(ext, "DOI") or "") or None,
        venue=optional_str(obj, "venue"),
        fields_of_study=_fields_of_study(obj.get("s2fieldsofstudy")),
        citation_count=optional_int(obj.get("citationcount")),
        reference_count=optional_int(obj.get("referencecount")),
        influential_citation_count=optional_int(obj.get("influentialcitationcount")),
        is_open_access=_bool(obj.get("isopenaccess")),
        publication_types=_str_list(obj.get("publicationtypes")),
        s2_venue_id=optional_str(obj, "publicationvenueid"),
        mag_id=_ext(ext, "MAG"),
        pubmed_id=_ext(ext, "PubMed"),
        pmc_id=_ext(ext, "PubMedCentral"),
        dblp_id=_ext(ext, "DBLP"),
        acl_id=_ext(ext, "ACL"),
        url=optional_str(obj, "url"),
        source="s2",
    )
    records: list[AnyRecord | StatedList] = [paper]
    if paper.venue and ids.venue_id(paper.venue):  # a name too long for a key: none
        venue = Venue(name=paper.venue)
        records += [venue, PublishedIn(start=paper.id, end=venue.id)]
    authors = obj.get("authors")
    if authors is not None and not isinstance(authors, list):  # a string made no authors
        raise InputError(
            f"expected a list of author objects, got {described(authors)}",
            path=path, line=line, field="authors",
        )  # fmt: skip
    # positions from 0, as every other source numbers them: aligning a work's lists by
    # position and name needs one numbering (S2's from 1 moved other sources' authors)
    for pos, author in enumerate(authors or []):
        if not isinstance(author, dict):
            raise InputError(
                f"author {pos + 1} is {described(author)}, not an author object "
                "{authorId, name}",
                path=path, line=line, field="authors",
            )  # fmt: skip
        if not optional_str(author, "name"):
            continue
        aid = optional_str(author, "authorId")
        rec = (
            S2Author(id=f"s2author:{aid}", name=author["name"], s2_author_id=aid)
            if aid
            else Author(name=author["name"])
        )
        records += [rec, Authorship(start=paper.id, end=rec.id, position=pos, from_s2=True)]
    if isinstance(authors, list):
        # the paper's whole author list, even empty: an authorship S2 no longer lists loses
        # S2's mark, and the edge when no other source states it (identity/prune_s2_authorships)
        records.append(StatedList(paper.id, "s2", "AUTHORED_BY"))
    return records


def read_papers(path: Path, report: SkipReport) -> Iterator[Group]:
    """One group per paper: Paper, its Venue + IN_VENUE, its Authors + AUTHORED_BY.

    Reads the datasets' ``papers`` JSONL and the Graph API's paper JSON alike: one paper per
    line, a ``.json`` file holding one paper, a list of them or a ``{"data": [...]}`` page
    (also one page per line)."""
    for line, obj in _paper_objects(path, report):
        records = _guard(report, path, line, functools.partial(_paper_records, obj, path, line))
        if records is not None:
            yield line, records


#: the last whole ``.json`` document read, by (path, size, mtime): the papers step, the
#: reference lists' step and the check between them read one Graph API response once
_LAST_DOCUMENT: list[tuple[tuple[str, int, int], Any]] = []


def _json_document(path: Path) -> Any:
    from scholarkg.textio import load_json

    stat = path.stat()
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    if _LAST_DOCUMENT and _LAST_DOCUMENT[0][0] == key:
        return _LAST_DOCUMENT[0][1]
    doc = load_json(path, if_empty=[])
    _LAST_DOCUMENT[:] = [(key, doc)]
    return doc


def _paper_objects(path: Path, report: SkipReport) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, paper object)``: JSONL lines (a ``{"data": [...]}`` page expanded), or the
    items of a whole ``.json`` document (numbered from 1)."""
    if path.name.removesuffix(".gz").endswith(".json"):
        doc = _json_document(path)
        if isinstance(doc, dict) and isinstance(doc.get("data"), list):
            items: list[Any] = doc["data"]
        elif isinstance(doc, dict) and isinstance(doc.get("recommendedPapers"), list):
            items = doc["recommendedPapers"]  # the Recommendations API's answer: papers
        else:
            items = doc if isinstance(doc, list) else [doc]
        for number, item in enumerate(items, start=1):
            if isinstance(item, dict):
                _refuse_pair(item, path, number)
                yield number, item
            elif item is None:  # the Graph API's /paper/batch: an id it knows no paper of
                report.skip(path, number, "null: no paper (S2 knows none for that id)")
            else:
                report.skip(path, number, "expected a paper object")
        return
    for line, obj in iter_jsonl_tolerant(path, report):
        page = obj.get("data")
        if isinstance(page, list) and "corpusid" not in obj and "paperId" not in obj:
            for item in page:
                if isinstance(item, dict):
                    _refuse_pair(item, path, line)
                    yield line, item
                else:
                    report.skip(path, line, "expected a paper object", "data")
        else:
            yield line, obj


def _refuse_pair(item: dict[str, Any], path: Path, line: int) -> None:
    """A ``/paper/{id}/citations`` or ``/references`` answer holds citing/cited pairs, not
    papers; read as papers it was refused for a missing corpus id, which misled."""
    for key, endpoint in (("citingPaper", "citations"), ("citedPaper", "references")):
        if key in item and "paperId" not in item:
            raise InputError(
                f"an S2 Graph API /paper/{{id}}/{endpoint} answer ({key} pairs), not papers: "
                "ask /paper/batch with fields=corpusId,…,references.corpusId,"
                "citations.corpusId for the papers and their lists",
                path=path, line=line, field=key,
            )  # fmt: skip


def read_authors(path: Path, report: SkipReport) -> Iterator[Group]:
    """One group per author (``s2author:<authorid>``; ORCID and DBLP names as properties)."""

    def build(obj: dict[str, Any], line: int) -> list[AnyRecord]:
        aid = optional_str(obj, "authorid")
        if aid is None:
            raise InputError("missing value", path=path, line=line, field="authorid")
        name = optional_str(obj, "name")
        if name is None:
            raise InputError("missing value", path=path, line=line, field="name")
        ext = obj.get("externalids")
        return [
            S2Author(
                id=f"s2author:{aid}",
                name=name,
                s2_author_id=aid,
                orcid=_ext(ext, "ORCID"),
                dblp_names=_str_list(ext.get("DBLP")) if isinstance(ext, dict) else None,
                aliases=_str_list(obj.get("aliases")),
                paper_count=optional_int(obj.get("papercount")),
                citation_count=optional_int(obj.get("citationcount")),
                h_index=optional_int(obj.get("hindex")),
                homepage=optional_str(obj, "homepage"),
                affiliations=_str_list(obj.get("affiliations")),
            )
        ]

    for line, _obj, records in _guarded_lines(path, report, build):
        yield line, records


def read_venues(path: Path, report: SkipReport) -> Iterator[Group]:
    """One group per venue (id by the shared venue-name rule; S2's uuid as a property)."""

    def build(obj: dict[str, Any], line: int) -> list[AnyRecord]:
        name = optional_str(obj, "name")
        if name is None:
            raise InputError("missing value", path=path, line=line, field="name")
        return [
            S2Venue(
                name=name,
                s2_venue_id=optional_str(obj, "id"),
                issn=optional_str(obj, "issn"),
                type=optional_str(obj, "type"),
                url=optional_str(obj, "url"),
                alternate_names=_str_list(obj.get("alternate_names")),
            )
        ]

    for line, _obj, records in _guarded_lines(path, report, build):
        yield line, records


def read_abstracts(path: Path, report: SkipReport, lookup: CorpusLookup) -> Iterator[Group]:
    """Set ``abstract`` on the paper with that corpus id (loaded, else by the id rules)."""

    def parse() -> Iterator[_Pending]:
        for line, obj, cid in _guarded_lines(path, report, _corpus_id("corpusid", path)):
            info = obj.get("openaccessinfo")
            ext = info.get("externalids") if isinstance(info, dict) else None
            abstract = optional_str(obj, "abstract")

            def build(
                found: Mapping[int, str],
                cid: int = cid,
                ext: Any = ext,
                abstract: str | None = abstract,
            ) -> list[AnyRecord]:
                if abstract is None:
                    report.drop("abstract line(s) without an abstract")
                    return []
                pid = found.get(cid) or s2_paper_id(cid, ext)
                return [S2Paper(id=pid, corpus_id=cid, abstract=abstract)]

            yield _Pending(line, (cid,), build)

    yield from _resolve(parse(), lookup)


def read_tldrs(path: Path, report: SkipReport, lookup: CorpusLookup) -> Iterator[Group]:
    """Set ``tldr`` on loaded papers (a TLDR of a paper not in the graph is counted)."""

    def parse() -> Iterator[_Pending]:
        for line, obj, cid in _guarded_lines(path, report, _corpus_id("corpusid", path)):
            text = optional_str(obj, "text")

            def build(
                found: Mapping[int, str], cid: int = cid, text: str | None = text
            ) -> list[AnyRecord]:
                if cid not in found or text is None:
                    report.drop("tldr(s) of papers not in the graph (load --papers first)")
                    return []
                return [S2Paper(id=found[cid], tldr=text)]

            yield _Pending(line, (cid,), build)

    yield from _resolve(parse(), lookup)


# --------------------------------------------------------------------------- citations


def normalise_intents(intents: Any, n_contexts: int) -> tuple[list[str] | None, str | None]:
    """``(union of intents, per-context lists as JSON or None)`` for both S2 layouts.

    Per pair: ``["background", "methodology"]``. Per context: ``[["background"], [],
    ["result"]]`` aligned with ``contexts`` (JSON kept only when the lengths agree).
    """
    if not isinstance(intents, list) or not intents:
        return None, None
    if all(isinstance(i, list) or i is None for i in intents):
        lists = [[str(x) for x in (i or []) if x] for i in intents]
        union = sorted({x for i in lists for x in i})
        per_context = json.dumps(lists) if len(lists) == n_contexts else None
        return union or None, per_context
    flat = sorted({str(i) for i in intents if isinstance(i, str) and i})
    return flat or None, None


def read_citations(path: Path, report: SkipReport, lookup: CorpusLookup) -> Iterator[Group]:
    """One group per citation line: a CITES edge between two papers already in the graph."""

    def parse() -> Iterator[_Pending]:
        for line, obj, citing in _guarded_lines(path, report, _corpus_id("citingcorpusid", path)):
            cited = optional_int(obj.get("citedcorpusid"))
            contexts = _str_list(obj.get("contexts"))
            intents, per_context = normalise_intents(obj.get("intents"), len(contexts or []))
            props = {
                "contexts": contexts,
                "intents": intents,
                "context_intents": per_context,
                "is_influential": _bool(obj.get("isinfluential")),
                "citation_id": optional_str(obj, "citationid"),
            }
            if cited is None:
                report.drop("citation(s) whose cited paper S2 did not match (citedcorpusid null)")
                yield _Pending(line, (), lambda _found: [])
                continue

            def build(
                found: Mapping[int, str],
                citing: int = citing,
                cited: int = cited,
                props: dict[str, Any] = props,
            ) -> list[AnyRecord]:
                if citing not in found or cited not in found:
                    report.drop("citation(s) with a paper not in the graph (load --papers first)")
                    return []
                return [S2Citation(start=found[citing], end=found[cited], from_s2=True, **props)]

            yield _Pending(line, (citing, cited), build)

    yield from _resolve(parse(), lookup)


def read_graph_api_citations(
    path: Path, report: SkipReport, lookup: CorpusLookup
) -> Iterator[Group]:
    """The ``references`` and ``citations`` lists of a saved Graph API response's papers
    (``fields=corpusId,…,references.corpusId,citations.corpusId``): a CITES edge per entry
    between two papers of the graph, as a line of the ``citations`` dataset gives one (the
    file's own papers are loaded by then: this step follows ``papers``). An entry without a
    corpus id (the API gives only ``paperId`` unless asked; ``paperId`` null: S2 matched no
    paper) or naming a paper the graph does not hold is counted, not loaded. Only a file in
    the Graph API's spelling gets this step (``dataset_path``); a ``.json`` response is
    parsed once for both steps (``_json_document``)."""
    quiet = SkipReport(quiet=True)  # the papers step reported this file's bad lines already

    def parse() -> Iterator[_Pending]:
        for line, obj in _paper_objects(path, quiet):
            if "corpusid" in obj:
                return  # the datasets' papers: no reference lists
            lists = [(k, obj.get(k)) for k in ("references", "citations")]
            # a references list, even empty, is the paper's whole list: what S2 no longer
            # lists loses S2's mark (identity/prune_s2_references)
            whole = isinstance(obj.get("references"), list)
            if not whole and not any(isinstance(entries, list) and entries for _, entries in lists):
                continue
            try:
                me = _require_corpus_id(graph_api_paper(obj, path, line), "corpusid", path, line)
            except InputError:
                continue  # refused by the papers step, with its reason
            pairs: list[tuple[int, int]] = []
            for key, entries in lists:
                for entry in entries if isinstance(entries, list) else ():
                    given = entry if isinstance(entry, dict) else {}
                    ext = given.get("externalIds")
                    other = optional_int(given.get("corpusId", _ext(ext, "CorpusId")))
                    if other is None and "paperId" in given and given["paperId"] is None:
                        report.drop(f"Graph API {key} S2 could not match to a paper (paperId null)")
                    elif other is None:
                        report.drop(
                            f"Graph API {key} without a corpus id (request fields={key}.corpusId)"
                        )
                    elif other != me:
                        pairs.append((me, other) if key == "references" else (other, me))

            def build(
                found: Mapping[int, str],
                pairs: list[tuple[int, int]] = pairs,
                me: int = me,
                whole: bool = whole,
            ) -> list[AnyRecord]:
                out: list[Any] = []
                if whole and me in found:  # resolution consumes the mark (_apply_marks)
                    out.append(StatedList(found[me], "s2"))
                for citing, cited in pairs:
                    if citing in found and cited in found:
                        out.append(S2Citation(start=found[citing], end=found[cited], from_s2=True))
                    else:
                        report.drop(
                            "Graph API references/citations naming a paper not in the graph"
                        )
                return out

            yield _Pending(line, tuple(sorted({me, *(c for pair in pairs for c in pair)})), build)

    try:
        yield from _resolve(parse(), lookup)
    finally:  # the last pass over the response: a long process keeps no copy of it
        _LAST_DOCUMENT.clear()


# --------------------------------------------------------------------------- s2orc


def _spans(annotations: dict[str, Any], name: str, path: Path, line: int) -> list[dict[str, Any]]:
    """A decoded annotation list (JSON string or already a list); null/absent → []."""
    raw = annotations.get(name)
    if raw in (None, ""):
        return []
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as err:
            raise InputError(
                f"annotation is not valid JSON: {err.msg}",
                path=path,
                line=line,
                field=f"content.annotations.{name}",
            ) from None
    if not isinstance(raw, list):
        raise InputError(
            "annotation is not a list", path=path, line=line, field=f"content.annotations.{name}"
        )
    out = []
    for span in raw:
        if (
            isinstance(span, dict)
            and isinstance(span.get("start"), int)
            and isinstance(span.get("end"), int)
        ):
            out.append(span)
    return out


@dataclass(frozen=True)
class FullTextPaper:
    """What the S2ORC reader extracted from one line before corpus ids are resolved."""

    corpus_id: int
    externalids: Any
    contexts: list[Any]  # ExtractedContext, target = cited corpus id as str
    #: contexts removed by the clean-up rules, by ``citerec_contexts.DROP_*`` reason
    dropped: dict[str, int] = field(default_factory=dict)


def parse_s2orc_record(
    obj: dict[str, Any], path: Path, line: int, splitter: SentenceSplitter = split_sentences
) -> FullTextPaper:
    """Spans → citing sentences of one S2ORC record (see the module doc)."""
    cid = _require_corpus_id(obj, "corpusid", path, line)
    content = obj.get("content") or {}
    if not isinstance(content, dict):
        raise InputError("expected an object", path=path, line=line, field="content")
    text = content.get("text")
    annotations = content.get("annotations") or {}
    if not isinstance(text, str) or not text or not isinstance(annotations, dict):
        return FullTextPaper(cid, obj.get("externalids"), [])
    entries: dict[str, str] = {}
    for span in _spans(annotations, "bibentry", path, line):
        attrs = span.get("attributes") or {}
        matched = optional_int(attrs.get("matched_paper_id"))
        if attrs.get("id") is not None and matched is not None:
            entries[str(attrs["id"])] = str(matched)
    markers = {}
    for span in _spans(annotations, "bibref", path, line):
        ref = (span.get("attributes") or {}).get("ref_id")
        key = (span["start"], span["end"])
        # a span without a letter or digit (a stray quote) is a parser artefact, not a marker
        if 0 <= key[0] < key[1] <= len(text) and any(c.isalnum() for c in text[key[0] : key[1]]):
            markers[key] = Marker(
                key[0], key[1], entries.get(str(ref)) if ref is not None else None
            )
    paragraphs = [(s["start"], s["end"]) for s in _spans(annotations, "paragraph", path, line)]
    headers = sorted(
        {
            (s["start"], " ".join(text[s["start"] : s["end"]].split()))
            for s in _spans(annotations, "sectionheader", path, line)
        }
    )
    dropped: Counter[str] = Counter()
    contexts = list(
        extract_contexts(
            text,
            paragraphs,
            list(markers.values()),
            headers,
            splitter=splitter,
            check_style=True,
            on_drop=lambda reason: dropped.update((reason,)),
        )
    )
    return FullTextPaper(cid, obj.get("externalids"), contexts, dict(dropped))


#: S2ORC lines per task sent to a worker process (big enough to amortise pickling)
POOL_CHUNK_LINES = 64


class _RecordedReport:
    """A ``SkipReport`` stand-in for worker processes: records the calls, in order, for
    the parent to replay into the real report (so the summary is the serial one)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []

    def skip(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("skip", args, kwargs))

    def skip_error(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("skip_error", args, kwargs))

    def drop(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append(("drop", args, kwargs))


def _parse_s2orc_line(
    path: Path, line: int, text: str, report: Any, splitter: SentenceSplitter
) -> FullTextPaper | None:
    """One S2ORC line as the serial reader treats it (``iter_jsonl_tolerant`` + ``_guard``)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        report.skip(path, line, f"invalid JSON: {err.msg}")
        return None
    if not isinstance(obj, dict):
        report.skip(path, line, "expected a JSON object")
        return None
    paper: FullTextPaper | None = _guard(
        report, path, line, lambda: parse_s2orc_record(obj, path, line, splitter)
    )
    return paper


def _parse_s2orc_chunk(
    path: Path, lines: list[tuple[int, str]], splitter: SentenceSplitter
) -> list[tuple[int, FullTextPaper | None, list[Any]]]:
    """Worker: ``(line, parsed paper or None, report calls)`` per line, in order."""
    out = []
    for line, text in lines:
        report = _RecordedReport()
        doc = _parse_s2orc_line(path, line, text, report, splitter)
        out.append((line, doc, report.calls))
    return out


def _parsed_s2orc_pool(
    path: Path, report: SkipReport, splitter: SentenceSplitter, workers: int
) -> Iterator[tuple[int, FullTextPaper]]:
    """``(line, paper)`` in file order, parsed by ``workers`` processes besides this one
    (which reads the lines, resolves ids and builds the records meanwhile).

    Reading, JSON decoding, masking and sentence splitting are most of ``load s2 --bulk``
    and independent per line, so chunks of lines go to a process pool (the GIL rules out
    threads); results are taken in submission order with a bounded number in flight, and
    each line's skips are replayed into ``report`` in that order: same records, same report
    as the serial reader (tests/citerec/test_s2_pool.py).
    """
    from collections import deque
    from concurrent.futures import ProcessPoolExecutor

    from scholarkg.textio import iter_lines

    def chunks() -> Iterator[list[tuple[int, str]]]:
        chunk: list[tuple[int, str]] = []
        for item in iter_lines(path):
            chunk.append(item)
            if len(chunk) >= POOL_CHUNK_LINES:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    with ProcessPoolExecutor(max_workers=workers) as pool:
        inflight: deque[Any] = deque()
        for chunk in chunks():
            inflight.append(pool.submit(_parse_s2orc_chunk, path, chunk, splitter))
            while len(inflight) > 4 * workers + 2:
                yield from _replayed(inflight.popleft().result(), report)
        while inflight:
            yield from _replayed(inflight.popleft().result(), report)


def _replayed(
    results: list[tuple[int, FullTextPaper | None, list[Any]]], report: SkipReport
) -> Iterator[tuple[int, FullTextPaper]]:
    for line, doc, calls in results:
        for method, args, kwargs in calls:
            getattr(report, method)(*args, **kwargs)
        if doc is not None:
            yield line, doc


def read_s2orc(
    path: Path,
    report: SkipReport,
    lookup: CorpusLookup,
    *,
    splitter: SentenceSplitter = split_sentences,
    workers: int = 0,
) -> Iterator[Group]:
    """One group per full-text paper: the citing Paper, its contexts and CITES edges.

    ``workers >= 1`` parses the lines in that many processes (``splitter`` must then be
    picklable: a module-level function); the groups and the report are the same.
    """

    def parsed() -> Iterator[tuple[int, FullTextPaper]]:
        if workers >= 1:
            yield from _parsed_s2orc_pool(path, report, splitter, workers)
            return
        for line, _obj, doc in _guarded_lines(
            path, report, lambda obj, line: parse_s2orc_record(obj, path, line, splitter)
        ):
            yield line, doc

    def parse() -> Iterator[_Pending]:
        for line, doc in parsed():
            for reason, n in sorted(doc.dropped.items()):
                report.drop(f"s2orc {reason}", n)
            wanted = (doc.corpus_id, *sorted({int(c.target) for c in doc.contexts}))
            yield _Pending(line, wanted, functools.partial(_s2orc_records, doc, report=report))

    yield from _resolve(parse(), lookup)


def _s2orc_records(
    doc: FullTextPaper, found: Mapping[int, str], report: SkipReport
) -> list[AnyRecord]:
    citing = found.get(doc.corpus_id) or s2_paper_id(doc.corpus_id, doc.externalids)
    records: list[AnyRecord] = [
        S2Paper(id=citing, corpus_id=doc.corpus_id, arxiv_id=_ext(doc.externalids, "arxiv"))
    ]
    cited_seen: set[str] = set()
    missing = 0
    for ctx in doc.contexts:
        cited = found.get(int(ctx.target))
        if cited is None:
            missing += 1
            continue
        node = CitationContext(
            citing=citing,
            cited=cited,
            text=ctx.text,
            citation_text=ctx.citation_text,
            section=ctx.section,
            char_start=ctx.char_start,
            char_end=ctx.char_end,
            n_refs=ctx.n_refs,
            source="s2orc",
        )
        records += [node, InPaper(start=node.id, end=citing), Gold(start=node.id, end=cited)]
        if cited not in cited_seen:
            cited_seen.add(cited)
            records.append(S2Citation(start=citing, end=cited))
    if missing:
        report.drop("s2orc citing sentence(s) whose cited paper is not in the graph", missing)
    return records


def dataset_readers(
    report: SkipReport, lookup: Any, *, workers: int = 0
) -> list[tuple[str, Callable[[Path], Iterator[Group]]]]:
    """``(dataset, reader)`` for every S2 dataset, in the order they must load: later ones
    find their papers by corpus id (``lookup``) among those loaded before. One list for the
    incremental steps (``loaders.steps.s2_steps``) and the bulk loader."""
    return [
        ("venues", _json_only(lambda p: read_venues(p, report))),
        ("authors", _json_only(lambda p: read_authors(p, report))),
        ("papers", _json_only(lambda p: read_papers(p, report))),
        # the papers file again: a Graph API response's reference lists (PAPER_LISTS)
        ("references", _json_only(lambda p: read_graph_api_citations(p, report, lookup))),
        ("abstracts", _json_only(lambda p: read_abstracts(p, report, lookup))),
        ("tldrs", _json_only(lambda p: read_tldrs(p, report, lookup))),
        ("citations", _json_only(lambda p: read_citations(p, report, lookup))),
        ("s2orc", _json_only(lambda p: read_s2orc(p, report, lookup, workers=workers))),
    ]


#: datasets read from another dataset's file: the ``references`` step reads the papers file
PAPER_LISTS = {"references": "papers"}


def dataset_path(kind: str, files: Mapping[str, Path | None]) -> Path | None:
    """The file the step ``kind`` reads: its own, or for ``references`` the papers file when
    it is a Graph API response holding reference lists (a datasets' papers file has none: no
    step, rather than one that reads nothing and is taken for an empty file)."""
    own = files.get(kind)
    if own is not None or kind not in PAPER_LISTS:
        return own
    papers = files.get(PAPER_LISTS[kind])
    return papers if papers is not None and _has_reference_lists(papers) else None


def _has_reference_lists(path: Path) -> bool:
    """Whether a papers file may hold Graph API reference lists: its first paper is in the
    Graph API's spelling (the datasets' files never hold them). One object is read, not the
    file: a Graph API file without lists gets a second pass that finds none, said by no
    warning (``Step.reread``)."""
    try:
        for _, obj in _paper_objects(path, SkipReport(quiet=True)):
            return "corpusid" not in obj
    except InputError:
        return False  # the papers step reports the file
    return False


#: what ``load s2`` reads, for the message about a file that is not it
READS = (
    "`load s2` reads Semantic Scholar's dataset files: JSON Lines, one JSON object per line "
    "(plain or .gz), or a saved Graph API JSON response."
)


def _json_only(read: Callable[[Path], Iterator[Group]]) -> Callable[[Path], Iterator[Group]]:
    """``read``, stopping first on a file that starts with ``<`` (``textio.refuse_markup``):
    every line of it would be skipped as invalid JSON, and the load would end saying only
    that nothing was stored."""

    def reader(path: Path) -> Iterator[Group]:
        refuse_markup(path, reads=READS)
        yield from read(path)

    return reader

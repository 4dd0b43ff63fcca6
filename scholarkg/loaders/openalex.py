"""OpenAlex works → Paper, Author, Venue, AUTHORED_BY, IN_VENUE and CITES records.

Reads the three shapes OpenAlex hands out, one work object each (the fields are documented in
OpenAlex's "Work object" reference):

* the snapshot: ``data/works/updated_date=YYYY-MM-DD/part_NNN.gz``, gzipped JSON Lines (a
  folder is walked in ``updated_date`` order, so a work that changed is read last in its newest
  form); plain ``.jsonl`` works too;
* saved API responses: ``{"meta": {…}, "results": [work, …]}`` (a ``.json`` file, or one page
  per line), possibly trimmed by ``select=`` (a missing field is simply not known);
* ``data/merged_ids/works/*.csv.gz`` (``merge_date,id,merge_into_id``): works OpenAlex merged
  into another (:func:`read_merged_ids`, applied by ``loaders/identity.retire_ids``).

Per work: the Paper (every id in ``ids``; a DataCite DOI ``10.48550/arXiv.…`` or an arXiv
landing page gives the arXiv id), the abstract rebuilt from ``abstract_inverted_index``
(:func:`abstract_from_inverted_index`) or, without one, a plain-text ``abstract`` (what OpenAlex
client tools such as pyalex write), authorships in order with their OpenAlex author id,
ORCID and institutions, the venue, topics (or legacy concepts) with scores, open access,
and ``referenced_works`` as CITES to a stub Paper that holds only the OpenAlex id until that
work is loaded (identity resolution then finds it by that id and fills it in).

Unknown fields are ignored (OpenAlex adds fields); a field of the wrong shape is an
``InputError`` naming file, line and field.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as _dt
import json
import math
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, pairwise
from pathlib import Path
from typing import IO, Any, cast

import orjson

from scholarkg.errors import InputError
from scholarkg.loaders.base import validating, whole_number
from scholarkg.loaders.checkpoint import AnyRecord
from scholarkg.loaders.identity import SourceGroup, StatedFields, StatedList, StatedMark
from scholarkg.loaders.left_out import SELF_CITATION, collect_left_out, note_left_out
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.schema import ids
from scholarkg.schema.plain_records import plain_record
from scholarkg.schema.records import (
    Author,
    Authorship,
    Paper,
    PublishedIn,
    Record,
    Venue,
    share_fields_sets,
)
from scholarkg.textio import (
    CUT_LINE,
    cannot_read,
    decoded_lines,
    json_line_error,
    not_utf8,
    open_binary,
    refuse_markup,
)

_PARTITION = re.compile(r"updated_date=(\d{4}-\d{2}-\d{2})")
#: the folders of an OpenAlex snapshot's ``data/`` that hold other entities than works: a
#: walk of ``data/`` (the whole snapshot synced) reads ``works/`` and ``merged_ids/`` only
OTHER_ENTITIES = frozenset(
    {"authors", "awards", "concepts", "domains", "fields", "funders", "institutions",
     "keywords", "publishers", "sources", "subfields", "topics"}
)  # fmt: skip
_ARXIV_LANDING = re.compile(r"arxiv\.org/(?:abs|pdf)/(.+?)(?:\.pdf)?/?$", re.IGNORECASE)


# --------------------------------------------------------------------------- files


def snapshot_files(paths: Iterable[Path]) -> tuple[list[Path], list[Path]]:
    """Work files and ``merged_ids`` files under ``paths`` (folders or files), in load order.

    Work files sort by their ``updated_date=`` partition (oldest first: a work re-appears in
    a newer partition when it changes, and the newest record must win), then by name.
    """
    works: list[Path] = []
    merged: list[Path] = []
    for path in paths:
        if path.is_dir():
            if path.name in OTHER_ENTITIES and "merged_ids" not in path.parts:
                raise InputError(
                    f"this folder holds OpenAlex {path.name}, not works: give the snapshot's "
                    "data/ folder or its data/works",
                    path=path,
                )
            for f in sorted(path.rglob("*")):
                if not f.is_file() or f.name.startswith(".") or f.name == "manifest":
                    continue
                inside = f.relative_to(path).parts[:-1]
                if "merged_ids" not in inside and OTHER_ENTITIES.intersection(inside):
                    continue  # data/authors, data/sources, …: not works
                if "merged_ids" in f.parts:
                    if "works" in f.parts and f.name.endswith((".csv", ".csv.gz")):
                        merged.append(f)
                elif f.name.endswith((".gz", ".jsonl", ".json")):
                    works.append(f)
        elif _merged_authors(path):
            continue  # OpenAlex's retired author ids: merged_author_files
        elif "merged_ids" in path.parts or path.name.endswith((".csv", ".csv.gz")):
            merged.append(path)
        else:
            works.append(path)
    if not works and not merged and not merged_author_files(paths):
        raise InputError("no OpenAlex work files found", path=", ".join(map(str, paths)))
    return sorted(works, key=_partition_key), sorted(merged)


def _partition_key(path: Path) -> tuple[str, str]:
    m = _PARTITION.search(str(path))
    return (m.group(1) if m else "", str(path))


#: what ``load openalex`` reads, for the message about a file that is not it
READS = (
    "`load openalex` reads OpenAlex works as JSON: snapshot parts (JSON Lines, .gz), JSON "
    "Lines files, or saved API pages {meta, results}."
)


def iter_work_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line, work object)`` of a JSONL(.gz) file of works or of API pages, or of a whole
    ``.json`` API page. Record numbers inside a page are the page's line (JSONL) or the
    1-based position in ``results`` (a ``.json`` file)."""
    refuse_markup(path, reads=READS)
    name = path.name.removesuffix(".gz")
    if name.endswith(".json"):
        from scholarkg.textio import load_json

        doc = load_json(path, if_empty=[])
        results = doc.get("results") if isinstance(doc, dict) else doc
        if isinstance(doc, dict) and "results" not in doc:
            results = [doc]  # a single work (``/works/W…``)
        if not isinstance(results, list):
            raise InputError("expected an API page {meta, results: [...]}", path=path)
        for i, work in enumerate(results, start=1):
            if not isinstance(work, dict):
                raise InputError(
                    "expected a work object", path=path, line=i, field="results", unit="record"
                )
            yield i, work
        return
    for number, obj in _json_lines(path):
        for work in _line_works(obj, path, number):
            yield number, work


def is_page(path: Path) -> bool:
    """A whole-file JSON document (an API page, ``.json``): its records are numbered by
    their place in ``results``, not by a line (:func:`iter_work_objects`)."""
    return path.name.removesuffix(".gz").endswith(".json")


def page_record_error(err: InputError, path: Path, work: Any) -> InputError:
    """``err``, raised for a work of ``path``, as the user can find it: in an API page
    (:func:`is_page`) the number is the work's place in ``results`` (``record N``) and
    the work's id is named; a line number would point into a page printed on one line, or
    at the wrong line of an indented one. Any other error is returned as it is."""
    if err.unit != "line" or err.line is None or not is_page(path):
        return err
    wid = work.get("id") if isinstance(work, dict) else None
    return InputError(
        f"{err.message} (the work {wid!r})" if isinstance(wid, str) else err.message,
        path=err.path or path,
        line=err.line,
        field=err.field,
        unit="record",
    )


def _line_works(obj: Any, path: Path, number: int) -> Iterator[dict[str, Any]]:
    """The work objects of one JSON Lines value: a work, or a saved API page's results."""
    if not isinstance(obj, dict):
        raise InputError("expected a JSON object (one work per line)", path=path, line=number)
    if "results" in obj and "id" not in obj:  # a saved API page per line
        page = obj["results"]
        if not isinstance(page, list):
            raise InputError("results is not a list", path=path, line=number, field="results")
        for work in page:
            if not isinstance(work, dict):
                raise InputError("expected a work object", path=path, line=number, field="results")
            yield work
    else:
        yield obj


def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """``(line, value)`` per non-blank line, exactly as ``textio.iter_json_lines`` gives them
    (same values, same errors) but parsed by orjson: the stdlib decoder was the largest
    single cost of a snapshot load (~18 µs of a 2.5 kB work line against ~6 µs).

    orjson is stricter than the stdlib (no NaN, no lone surrogate escapes, no BOM, no blank
    lines): a line it refuses goes through the stdlib rules, so it is decoded the way every
    other reader decodes it or refused with their error. One difference remains, deliberately:
    orjson reads an integer past 64 bits (which neither backend can store) as a float, so
    such a ``publication_year`` or ``cited_by_count`` is not an integer and is left out, as
    any non-integer there is, instead of being refused by name; finding those digits first
    (a regex over each line) cost more than the whole parse.
    """
    loads = orjson.loads
    with open_binary(path) as handle:
        number = 0
        try:
            for number, raw in enumerate(handle, start=1):
                try:
                    value = loads(raw)
                except orjson.JSONDecodeError:
                    value = _stdlib_line(raw, path, number)
                    if value is _BLANK:
                        continue
                yield number, value
        except (OSError, EOFError) as err:  # EOFError: truncated gzip stream
            raise cannot_read(err, path, lines_read=number) from err


_BLANK = object()


def _stdlib_line(raw: bytes, path: Path, number: int) -> Any:
    """One line the way ``textio.iter_json_lines`` reads it (``_BLANK`` for a blank one)."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise not_utf8(err, raw, path=path, line=number) from None
    if number == 1:
        line = line.removeprefix("\ufeff")
    if not line.strip():
        return _BLANK
    try:
        return json.loads(line)
    except json.JSONDecodeError as err:
        raise InputError(json_line_error(err, line, CUT_LINE), path=path, line=number) from None


def read_merged_ids(path: Path) -> Iterator[tuple[str, str]]:
    """``(old W id, surviving W id)`` per row of a ``merged_ids/works`` CSV(.gz)."""
    with open_binary(path) as handle:
        lines = decoded_lines(handle, path=path)
        reader = csv.DictReader(lines)
        for row in reader:
            old = ids.normalize_openalex_id(row.get("id") or "")
            new = ids.normalize_openalex_id(row.get("merge_into_id") or "")
            if old is None or new is None:
                raise InputError(
                    "expected OpenAlex work ids in id and merge_into_id",
                    path=path,
                    line=reader.line_num,
                    field="id" if old is None else "merge_into_id",
                )
            yield old, new


# --------------------------------------------------------------------------- one work


def abstract_from_inverted_index(
    index: Any, *, path: Path | None = None, line: int | None = None
) -> str | None:
    """The abstract text: every word at each of its positions, in position order, joined by
    single spaces. OpenAlex's index may have holes (positions nobody holds): they are
    skipped, not filled. ``None``/empty → ``None``."""
    if index is None or index == {}:
        return None
    if not isinstance(index, dict):
        raise InputError(
            "expected {word: [positions]}", path=path, line=line, field="abstract_inverted_index"
        )
    # Validated in C (the types of all positions at once); each word then goes into its
    # slot of a list as long as the text. Words sharing a position (never seen in OpenAlex;
    # then the (position, word) order decides) or a position far past the word count (a list
    # that size would be wasted) take the sorting path. ~2.5x cheaper than sorting pairs.
    lists = list(index.values())
    positions_all = list(chain.from_iterable(lists)) if set(map(type, lists)) <= _ONLY_LIST else []
    if not _plain_positions(positions_all) and (
        not positions_all or set(map(type, positions_all)) != _ONLY_INT or min(positions_all) < 0
    ):
        _check_positions(index, path, line)  # raises for the first bad word, if any
        if not positions_all:
            return None
    total, last = len(positions_all), max(positions_all)
    if last < 4 * total + 64:
        slots: list[str | None] = [None] * (last + 1)
        for word, positions in index.items():
            for p in positions:
                slots[p] = word
        holes = slots.count(None)
        if len(slots) - holes == total:  # no shared position
            words = [w for w in slots if w is not None] if holes else cast(list[str], slots)
            return " ".join(words) or None
    pairs = sorted((p, word) for word, positions in index.items() for p in positions)
    return " ".join(w for _, w in pairs) or None


_ONLY_LIST = {list}
_ONLY_INT = {int}  # not bool: a bool is an int to isinstance, not to type()
_DIGITS_AND_COMMAS = b"0123456789,"


def _plain_positions(positions: list[Any]) -> bool:
    """True when every item is a non-negative ``int`` (not a bool, not a subclass): what the
    type set and ``min`` test, in one C pass that costs half as much (~150 positions a work).

    orjson writes such a list as ``[d,d,…]`` with nothing but digits and one comma between
    items; a bool becomes ``true``, a float holds ``.``/``e``, a negative ``-``, a string
    quotes, ``None`` ``null``, a nested list brackets (or an extra comma), and an ``int``
    subclass or an integer past 64 bits is refused (``OPT_PASSTHROUGH_SUBCLASS``). ``False``
    sends the caller to the type-by-type test, which decides (an empty list included).
    """
    try:
        encoded = orjson.dumps(positions, option=orjson.OPT_PASSTHROUGH_SUBCLASS)
    except orjson.JSONEncodeError:
        return False
    return (
        len(encoded) > 2
        and not encoded[1:-1].translate(None, _DIGITS_AND_COMMAS)
        and encoded.count(b",") == len(positions) - 1
    )


def _check_positions(index: dict[Any, Any], path: Path | None, line: int | None) -> None:
    """Raise for the first word whose positions are not a list of non-negative integers."""
    for word, positions in index.items():
        if isinstance(positions, list) and all(type(p) is int and p >= 0 for p in positions):
            continue
        raise InputError(
            f"positions of {word[:40]!r} are not a list of non-negative integers",
            path=path,
            line=line,
            field="abstract_inverted_index",
        )


@dataclass
class Work:
    """One parsed work: its records, and what the bulk path needs as plain values."""

    paper: Paper
    references: list[str] = field(default_factory=list)
    authors: list[Author] = field(default_factory=list)
    authorships: list[Authorship] = field(default_factory=list)
    venue: Venue | None = None
    #: the work states its references (``referenced_works`` present, not trimmed by select=)
    references_known: bool = False


@dataclass
class WorkFields:
    """One work's values before validation: the Paper's fields, its references (W ids), and
    per authorship the Author's fields and the AUTHORED_BY properties. :func:`parse_work`
    validates them into records; the bulk path (``loaders/openalex_bulk.py``) writes them
    as rows directly (millions of works: pydantic per record would dominate)."""

    paper: dict[str, Any]
    references: list[str]
    authors: list[dict[str, Any]]
    authorships: list[dict[str, Any]]
    references_known: bool


_OPENALEX_URL = "https://openalex.org/"
_W_URL = _OPENALEX_URL + "W"
#: a work URL with the most digits an id may have (``schema.ids.normalize_openalex_id``)
_W_URL_LONGEST = len(_W_URL) + 18


def _opt_str(work: dict[str, Any], key: str, path: Path, line: int) -> str | None:
    value = work.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InputError(
            f"expected a string, got {type(value).__name__}", path=path, line=line, field=key
        )
    return value


def _opt_int(work: dict[str, Any], key: str, path: Path, line: int) -> int | float | None:
    """``work[key]`` as a whole number or nothing (``loaders.base.whole_number``: NaN goes
    through for the record to count; an integer past 64 bits too, which orjson reads as a
    float; ``"12"``, ``12.5`` or ``true`` stop the load naming the field, where they were
    dropped silently)."""
    value = work.get(key)
    if value is None or type(value) is int:  # nearly always: no call
        return value
    return whole_number(value, path=path, line=line, field=key)


def _updated_date(work: dict[str, Any], path: Path, line: int) -> str | None:
    """The record's ``updated_date`` in one canonical ISO form, ``YYYY-MM-DDTHH:MM:SS`` with
    ``.ffffff`` only when the time has a fraction (a day alone is its midnight; a time with a
    zone, ``Z`` or ``+02:00``, as UTC), so two records' dates compare as strings: identity
    resolution skips a record older than the one the graph took
    (``identity._older_records``). OpenAlex writes ``2024-01-15T06:36:47.513290``; a file
    re-saved by another tool may carry a zone or another precision, and the same instant
    must not win or lose by its spelling. A value that is no ISO date stops the load naming
    the field: compared as text, a date in another format would make a record win or lose
    at random."""
    value = _opt_str(work, "updated_date", path, line)
    if value is None:
        return None
    try:
        when = _dt.datetime.fromisoformat(value)
    except ValueError:
        raise InputError(
            f"expected an ISO date (YYYY-MM-DD[THH:MM:SS]), got {value[:40]!r}",
            path=path,
            line=line,
            field="updated_date",
        ) from None
    if when.tzinfo is not None:
        when = when.astimezone(_dt.UTC).replace(tzinfo=None)
    return when.isoformat()


def _opt_dict(work: dict[str, Any], key: str, path: Path, line: int) -> dict[str, Any]:
    value = work.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(
            f"expected an object, got {type(value).__name__}", path=path, line=line, field=key
        )
    return value


def _opt_list(work: dict[str, Any], key: str, path: Path, line: int) -> list[Any]:
    value = work.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(
            f"expected a list, got {type(value).__name__}", path=path, line=line, field=key
        )
    return value


def _arxiv_from_locations(work: dict[str, Any]) -> str | None:
    for loc in [work.get("primary_location"), *(work.get("locations") or [])]:
        if isinstance(loc, dict):
            for key in ("landing_page_url", "pdf_url"):
                url = loc.get(key)
                m = _ARXIV_LANDING.search(url) if isinstance(url, str) else None
                if m and (a := ids.normalize_arxiv_id(m.group(1))):
                    return a
    return None


def _referenced_ids(refs: list[Any], openalex: str, path: Path, line: int) -> list[str]:
    """The W ids of ``referenced_works`` one by one (any spelling ``normalize_openalex_id``
    takes), the work's own id left out and counted (a CITES loop, once a work:
    ``loaders/left_out.py``); anything else is an error naming the field."""
    references: list[str] = []
    cites_itself = False
    for ref in refs:
        # the snapshot's own spelling first (a slice); anything else through the regex
        if (
            isinstance(ref, str)
            and ref.startswith(_W_URL)
            and ref[22:].isdigit()
            and len(ref) <= _W_URL_LONGEST
        ):
            w: str | None = ref[21:]
        else:
            w = ids.normalize_openalex_id(ref) if isinstance(ref, str) else None
        if w is None or not w.startswith("W"):
            raise InputError(
                f"not an OpenAlex work id: {str(ref)[:60]!r}",
                path=path,
                line=line,
                field="referenced_works",
            )
        if w != openalex:
            references.append(w)
        else:
            cites_itself = True
    if cites_itself:
        note_left_out("CITES", SELF_CITATION)
    return references


#: a list of work URLs in the snapshot's own spelling, joined by newlines
_CANONICAL_WORK_URLS = re.compile(
    r"https://openalex\.org/W[0-9]{1,18}(?:\nhttps://openalex\.org/W[0-9]{1,18})*"
)


def _canonical_work_ids(urls: list[Any]) -> list[str] | None:
    """``["https://openalex.org/W1", …]`` → ``["W1", …]`` when every item is spelled exactly
    so (as in the snapshot), else ``None`` (the caller then takes each item on its own).

    Three C passes (join, one regex over the joined text, split) instead of a Python loop
    with five tests per reference: 20 references a work made that loop the largest single
    cost of :func:`work_fields`. The pieces are the items: a match with one newline fewer
    than items means no item held a newline of its own.
    """
    try:
        joined = "\n".join(urls)
    except TypeError:  # an item that is not a string
        return None
    if joined.count("\n") != len(urls) - 1 or not _CANONICAL_WORK_URLS.fullmatch(joined):
        return None
    return joined[len(_OPENALEX_URL) :].split("\n" + _OPENALEX_URL)


def work_fields(work: dict[str, Any], *, path: Path, line: int) -> WorkFields:
    """One OpenAlex work object → :class:`WorkFields` (see the module doc); a field of the
    wrong shape is an ``InputError`` naming it."""
    oa_raw = _opt_str(work, "id", path, line)
    openalex = ids.normalize_openalex_id(oa_raw) if oa_raw else None
    if openalex is None or not openalex.startswith("W"):
        raise InputError(
            "a work needs its OpenAlex id (https://openalex.org/W…)",
            path=path,
            line=line,
            field="id",
        )
    id_map = _opt_dict(work, "ids", path, line)
    doi_raw = _opt_str(work, "doi", path, line) or (
        id_map.get("doi") if isinstance(id_map.get("doi"), str) else None
    )
    doi = ids.normalize_doi(doi_raw) if doi_raw else None
    arxiv_doi = ids.arxiv_id_from_doi(doi)
    arxiv = arxiv_doi or _arxiv_from_locations(work)
    if doi and arxiv_doi:
        doi = None  # arXiv's DataCite DOI is the arXiv id, kept in that slot
    mag = id_map.get("mag")
    pmid = id_map.get("pmid")
    pmcid = id_map.get("pmcid")
    oa = _opt_dict(work, "open_access", path, line)
    # the legacy concepts only when the record has no topics at all: "topics": [] states
    # that the work has none (its concepts once became ten topics)
    topics = (
        _opt_list(work, "topics", path, line)
        if work.get("topics") is not None
        else _opt_list(work, "concepts", path, line)
    )
    topic_names: list[str] = []
    topic_scores: list[int] = []
    for t in topics:
        if isinstance(t, dict) and isinstance(t.get("display_name"), str):
            topic_names.append(t["display_name"])
            score = t.get("score")
            if type(score) is str:  # a number some exports quote ("0.4473064"); "high" is not
                with contextlib.suppress(ValueError):
                    score = float(score)
            if score is not None and (
                type(score) not in (int, float) or not math.isfinite(score)
            ):  # "high" was stored as 0
                raise InputError(
                    f"expected a number as a topic's score, got {str(score)[:40]!r}",
                    path=path,
                    line=line,
                    field="topics",
                )
            topic_scores.append(round(float(score or 0) * 10_000))
    primary = _opt_dict(work, "primary_location", path, line)
    source = _opt_dict(primary, "source", path, line) or None  # "Nature": not a source object
    refs_raw = work.get("referenced_works")
    ref_list = _opt_list(work, "referenced_works", path, line)
    references = _canonical_work_ids(ref_list)
    if references is not None:
        if openalex in references:  # a CITES loop: left out, counted once a work
            references = [w for w in references if w != openalex]
            note_left_out("CITES", SELF_CITATION)
    else:
        references = _referenced_ids(ref_list, openalex, path, line)
    related_list = _opt_list(work, "related_works", path, line)
    related = _canonical_work_ids(related_list)
    if related is None:
        related = [
            w for r in related_list if isinstance(r, str) and (w := ids.normalize_openalex_id(r))
        ]
    abstract = abstract_from_inverted_index(
        work.get("abstract_inverted_index"), path=path, line=line
    ) or _opt_str(work, "abstract", path, line)  # plain text, as OpenAlex client tools write it
    year = _opt_int(work, "publication_year", path, line)
    cited_by = _opt_int(work, "cited_by_count", path, line)
    paper = {
        "title": _opt_str(work, "title", path, line) or _opt_str(work, "display_name", path, line),
        "abstract": abstract,
        "year": year,
        "date": _opt_str(work, "publication_date", path, line),
        "arxiv_id": arxiv,
        "doi": doi,
        "openalex_id": openalex,
        "mag_id": ids.normalize_mag_id(mag) if mag is not None else None,
        "pmid": ids.normalize_pmid(pmid) if isinstance(pmid, str | int) else None,
        "pmcid": ids.normalize_pmcid(pmcid) if isinstance(pmcid, str | int) else None,
        "work_type": _opt_str(work, "type", path, line),
        "language": _opt_str(work, "language", path, line),
        "openalex_updated": _updated_date(work, path, line),
        "is_oa": is_oa if isinstance(is_oa := oa.get("is_oa"), bool) else None,
        "oa_status": status if isinstance(status := oa.get("oa_status"), str) else None,
        "oa_url": oa_url if isinstance(oa_url := oa.get("oa_url"), str) else None,
        "citation_count": cited_by,
        "venue": venue if source and isinstance(venue := source.get("display_name"), str) else None,
        "topics": topic_names or None,
        "topic_scores_e4": topic_scores or None,
        "related": related or None,
        "url": f"https://openalex.org/{openalex}",
        "source": "openalex",
    }
    authors: list[dict[str, Any]] = []
    authorships: list[dict[str, Any]] = []
    for position, authorship in enumerate(_opt_list(work, "authorships", path, line)):
        if not isinstance(authorship, dict):
            raise InputError(
                "expected an authorship object", path=path, line=line, field="authorships"
            )
        who = authorship.get("author")
        person: dict[str, Any] = who if isinstance(who, dict) else {}
        raw = authorship.get("raw_author_name")
        name = person.get("display_name") or raw
        if not isinstance(name, str) or not name.strip():
            continue
        orcid = person.get("orcid")
        author_oa = person.get("id")
        if author_oa is not None and not isinstance(author_oa, str):  # 5: was name-keyed
            raise InputError(
                f"expected an OpenAlex author id, got {str(author_oa)[:40]!r}",
                path=path,
                line=line,
                field="authorships.author.id",
            )
        authors.append(
            {
                "name": name,
                "orcid": (ids.normalize_orcid(orcid) or orcid)
                if isinstance(orcid, str) and orcid
                else None,
                "openalex_id": ids.normalize_openalex_id(author_oa)
                if isinstance(author_oa, str)
                else None,
            }
        )
        insts = [
            inst
            for i in authorship.get("institutions") or []
            if isinstance(i, dict) and isinstance(inst := i.get("display_name"), str)
        ]
        authorships.append(
            {
                "position": position,
                "institutions": insts or None,
                "raw_name": raw if isinstance(raw, str) else None,
            }
        )
    return WorkFields(
        paper=paper,
        references=list(dict.fromkeys(references)),
        authors=authors,
        authorships=authorships,
        references_known=refs_raw is not None,
    )


def parse_work(work: dict[str, Any], *, path: Path, line: int) -> Work:
    """One OpenAlex work object → :class:`Work`: :func:`work_fields`, validated as records."""
    fields = work_fields(work, path=path, line=line)
    # each record made without pydantic where nothing needs validating (schema/plain_records:
    # most of a parse worker's time was the constructors), else validated as ever
    with validating(path, line):
        paper = plain_record(Paper, fields.paper) or Paper(**fields.paper)
        parsed = Work(
            paper=paper,
            references=fields.references,
            references_known=fields.references_known,
        )
        for author_fields, ship in zip(fields.authors, fields.authorships, strict=True):
            author_fields = {**author_fields, "listed_on": paper.id}
            author = plain_record(Author, author_fields) or Author(**author_fields)
            parsed.authors.append(author)
            edge = {"start": paper.id, "end": author.id, **ship}
            parsed.authorships.append(plain_record(Authorship, edge) or Authorship(**edge))
        if paper.venue:
            venue = {"name": paper.venue}
            # the fast path makes the id once; a name too long for a key (no record there,
            # nor a valid one) makes no Venue: the name is normalised twice only then
            parsed.venue = plain_record(Venue, venue) or (
                Venue(**venue) if ids.venue_id(paper.venue) else None
            )
    return parsed


#: the Paper properties only OpenAlex gives, per work-object field that states them: a work
#: that has the field (even empty) and no value for a property loses the stored one on reload
#: (a field trimmed away by the API's ``select=`` states nothing)
OWNED_FIELDS = {
    "open_access": ("is_oa", "oa_status", "oa_url"),
    "topics": ("topics", "topic_scores_e4"),
    "related_works": ("related",),
}
#: the work-object field → the shared properties it states (``StatedFields.ranked``): a
#: record that has the field and no value no longer states them; the URL is made from the id
RANKED_KEYS = {
    "title": ("title", "title_norm"),
    "display_name": ("title", "title_norm"),
    "abstract_inverted_index": ("abstract",),
    "abstract": ("abstract",),
    "publication_year": ("year",),
    "publication_date": ("date",),
    "primary_location": ("venue",),
    "type": ("work_type",),
    "language": ("language",),
    "cited_by_count": ("citation_count",),
    "id": ("url",),
}


#: the edge every work's venue statement is a copy of: its two ids are the validated
#: Paper's and Venue's, so validating them again (~0.1 ms a work, the record's validator
#: runs per field) is left out (``Record.replaced``)
_IN_VENUE = PublishedIn.model_construct(start="", end="")


def work_records(
    work: Work, *, stated: Iterable[str] = (), authors_known: bool = False
) -> list[AnyRecord | StatedMark]:
    """A work's records for the incremental path: nodes before the edges that need them.

    ``stated``: the work-object fields present in the source record (see ``OWNED_FIELDS``);
    ``authors_known``: it had ``authorships``, so that list replaces OpenAlex's stored one."""
    paper = work.paper
    out: list[AnyRecord | StatedMark] = [paper]
    # the references (ids normalised by the parser) as one record, not ~20 stub Papers and
    # ~20 Citations: see loaders/reference_lists.py
    if work.references:
        out.append(ReferenceList.openalex(paper.id, work.references))
    out += work.authors
    if work.venue is not None:
        out.append(work.venue)
        out.append(_IN_VENUE.replaced({"start": paper.id, "end": work.venue.id}))
    out += [a.replaced({"from_openalex": True}) for a in work.authorships]
    if authors_known:
        out.append(StatedList(paper.id, "openalex", "AUTHORED_BY"))
    if work.references_known:
        out.append(StatedList(paper.id, "openalex"))
    owned = [name for key in stated for name in OWNED_FIELDS.get(key, ())]
    ranked = [name for key in stated for name in RANKED_KEYS.get(key, ())]
    if owned or ranked:
        out.append(StatedFields(paper.id, frozenset(owned), frozenset(ranked)))
    return out


#: one parsed work object as a parse worker hands it over: the validated records (a few per
#: work; the ~20 reference stubs and CITES are made from ``Work.references`` by
#: :func:`work_records` on the receiving side, as copies of a template: pickling them costs
#: more than making them), the fields it states, and whether it lists its authors
ParsedWork = tuple[Work, list[str], bool]


def parsed_work(obj: dict[str, Any], *, path: Path, line: int) -> ParsedWork:
    """:func:`parse_work` and what :func:`work_records` needs besides the records."""
    work = parse_work(obj, path=path, line=line)
    # the legacy ``concepts`` states topics too (the parser reads it when topics is absent)
    stated = [k for k in OWNED_FIELDS if k in obj or (k == "topics" and "concepts" in obj)]
    stated += [k for k in RANKED_KEYS if k in obj]
    return work, stated, obj.get("authorships") is not None


def work_group(obj: dict[str, Any], *, path: Path, line: int) -> list[AnyRecord | StatedMark]:
    """One work object's records and marks, as the incremental path writes them."""
    work, stated, authors_known = parsed_work(obj, path=path, line=line)
    return work_records(work, stated=stated, authors_known=authors_known)


def read_works(path: Path, *, parser: WorkParser | None = None) -> Iterator[SourceGroup]:
    """One group per work of an OpenAlex file (snapshot part, JSONL, or API page).

    With a ``parser`` (:class:`WorkParser`), the lines of a JSON Lines file are parsed in
    its worker processes while the caller writes the works before them; the groups, their
    order, the cleaning counts and a bad line's error are the same."""
    if parser is not None and not is_page(path):
        refuse_markup(path, reads=READS)  # before any worker reads it
        yield from parser.groups(path)
        return
    for number, obj in iter_work_objects(path):
        try:
            group = work_group(obj, path=path, line=number)
        except InputError as err:
            raise page_record_error(err, path, obj) from None
        yield number, group


# --------------------------------------------------------------------------- parse workers

#: lines a parse worker gets at a time (~1 MB of a snapshot part)
BLOCK_LINES = 400
#: lines :class:`WorkParser` parses ahead of the caller by default: two chunks of identity
#: resolution at ``load openalex``'s default batch size (2,000)
AHEAD_LINES = 4_000


@dataclass
class _Block:
    """What a parse worker returns for a block of lines: the works before the first bad
    line, the fields it cleaned, and the bad line's error (message, path, line, field)."""

    works: list[tuple[int, ParsedWork]]
    cleaned: dict[tuple[str, str, str], int]
    error: tuple[str, str | None, int | None, str | None] | None = None
    #: the references left out (``loaders/left_out.py``), counted in the worker
    left_out: dict[tuple[str, str], int] = field(default_factory=dict)


def _parse_block(path_text: str, lines: list[tuple[int, bytes]]) -> _Block:
    """Parse one block of ``(line number, raw line)`` in a worker (see :class:`WorkParser`)."""
    from scholarkg.schema.text import collect_cleaning

    path = Path(path_text)
    out: list[tuple[int, ParsedWork]] = []
    error = None
    with collect_cleaning() as counts, collect_left_out() as left_out:
        try:
            for number, raw in lines:
                try:
                    value = orjson.loads(raw)
                except orjson.JSONDecodeError:
                    value = _stdlib_line(raw, path, number)
                    if value is _BLANK:
                        continue
                for work in _line_works(value, path, number):
                    out.append((number, parsed_work(work, path=path, line=number)))
        except InputError as err:
            error = (err.message, err.path, err.line, err.field)
    # pickled once per class a block, not once a record: the loading process unpickles them
    share_fields_sets(_block_records(out))
    return _Block(out, dict(counts), error, dict(left_out))


def _block_records(works: list[tuple[int, ParsedWork]]) -> Iterator[Record]:
    """Every record of a block's parsed works (their Papers, authors, authorships, venues)."""
    for _, (work, _, _) in works:
        yield work.paper
        yield from work.authors
        yield from work.authorships
        if work.venue is not None:
            yield work.venue


def _warmed_up() -> bool:
    """Nothing: a task whose unpickling makes a new worker import this module (and with it
    the parser's schema), which :meth:`WorkParser.warm` sends before the first block."""
    return True


def _worker_init() -> None:
    """Parse workers ignore Ctrl-C (the parent stops them) and do without the cyclic garbage
    collector (parsed works make no cycles; a collection walked every live record). Each
    ends when its parent does: after a ``kill -9`` of the load, the worker (and Python's
    resource tracker, which waits for it) stayed alive, blocked on a queue whose other end
    it holds itself."""
    import gc
    import multiprocessing
    import os
    import signal
    import threading
    from multiprocessing.connection import wait

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.disable()
    parent = multiprocessing.parent_process()
    if parent is not None:
        sentinel = parent.sentinel

        def end_with_parent() -> None:
            wait([sentinel])
            os._exit(1)

        threading.Thread(target=end_with_parent, name="end-with-parent", daemon=True).start()


class _FileFeed:
    """One file's lines on their way to the parse workers: the open handle, the blocks
    submitted and not yet taken (in file order), and the read error that ended it, raised
    once the lines before it are taken. :class:`WorkParser` fills the next file's feed while
    the caller writes a file's last works."""

    def __init__(self, path: Path, submit: Callable[[str, list[tuple[int, bytes]]], Any]) -> None:
        self.path = path
        self.pending: deque[Any] = deque()
        self.read_error: InputError | None = None
        self.done = False
        self._submit = submit
        self._handle: IO[bytes] | None = None
        self._lines = 0

    def fill(self, blocks: int) -> None:
        """Read and submit blocks until ``blocks`` are pending or the file has ended."""
        while not self.done and len(self.pending) < blocks:
            self._read_block()

    def _read_block(self) -> None:
        block: list[tuple[int, bytes]] = []
        try:
            if self._handle is None:
                self._handle = open_binary(self.path)
            for raw in self._handle:
                self._lines += 1
                block.append((self._lines, raw))
                if len(block) >= BLOCK_LINES:
                    break
            else:
                self.done = True
        except InputError as err:  # open_binary's: no such file, or it cannot be opened
            self.read_error, self.done = err, True
        except (OSError, EOFError) as err:  # EOFError: truncated gzip stream
            self.read_error = cannot_read(err, self.path, lines_read=self._lines)
            self.done = True
        if block:
            self.pending.append(self._submit(str(self.path), block))
        if self.done:
            self._close_handle()

    def discard(self) -> None:
        """Cancel what is not parsed yet and close the file (the load ended or reads
        another file)."""
        for future in self.pending:
            future.cancel()
        self.pending.clear()
        self.done = True
        self._close_handle()

    def _close_handle(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


class WorkParser:
    """Worker processes that parse OpenAlex work lines while the caller writes (``with
    WorkParser(1) as parser: read_works(path, parser=parser)``). The parent reads the raw
    lines (gzip included) and hands blocks of :data:`BLOCK_LINES` to the workers, at most
    ``ahead_lines`` lines (and ``2 * workers + 1`` blocks) ahead of what it has yielded, so
    memory stays bounded whatever the file's size; the groups come back in file order.

    Why that many lines ahead: identity resolution takes works a chunk at a time (the
    load's batch size, 2,000 by default), then resolves and writes them for about a
    second; the workers parse the next chunk meanwhile. With three blocks (1,200 works)
    ahead, the loading thread waited for them ~29 s of a quarterly-style update of a
    200,000-work graph (``py-spy --idle`` over ``bench_openalex.py``): most of each chunk
    was parsed only once it asked. Each line ahead holds its parsed work (a few KB) until
    it is taken.

    Told the files a load will read (:meth:`expect`), the lead runs on into the next file
    once a file's last line is read, within the same number of lines: a file's first
    chunks are parsed while the one before's last chunks resolve, instead of after."""

    def __init__(self, workers: int = 1, *, ahead_lines: int = AHEAD_LINES) -> None:
        self.workers = max(1, workers)
        self.ahead = 0
        self.look_ahead(ahead_lines)
        self._pool: Any = None
        self._after: dict[Path, Path] = {}
        self._next: _FileFeed | None = None

    def look_ahead(self, lines: int) -> None:
        """Read up to ``lines`` lines ahead from the next file on (``load openalex`` chooses its
        chunk, and so this lead, once the store is open: ``loaders/chunk_size.py``)."""
        self.ahead = max(2 * self.workers + 1, -(-lines // BLOCK_LINES))

    def expect(self, paths: Iterable[Path]) -> None:
        """The files the load reads, in order (``load openalex`` once it knows which
        partitions the graph took): reading one on to its end, the parser starts on the
        next. A file asked for out of this order is read from its start, the lines read
        ahead of another dropped; a read error of the file read ahead is raised when that
        file is read, after its lines before the error, as without the lead. API pages
        are read without the workers (:func:`read_works`): they are passed over."""
        files = [p for p in paths if not is_page(p)]
        self._after = dict(pairwise(files))

    def __enter__(self) -> WorkParser:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        if self._next is not None:
            self._next.discard()
            self._next = None
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def warm(self) -> None:
        """Start the worker processes now, each importing the parser, while the caller
        opens the store: a spawned worker takes ~1 s to start and import, which the first
        block otherwise waits for (0.7-1.1 s of the loading thread in a 22,000-work update,
        ``py-spy --idle`` over ``bench_openalex.py``)."""
        pool = self._executor()
        for _ in range(self.workers):
            pool.submit(_warmed_up)

    def _executor(self) -> Any:
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_worker_init,
            )
        return self._pool

    def _submit(self, path_text: str, block: list[tuple[int, bytes]]) -> Any:
        return self._executor().submit(_parse_block, path_text, block)

    def _feed(self, path: Path) -> _FileFeed:
        """``path``'s feed: the one read ahead when it is that file's, else a new one."""
        feed, self._next = self._next, None
        if feed is not None and feed.path == path:
            return feed
        if feed is not None:
            feed.discard()
        return _FileFeed(path, self._submit)

    def _feed_after(self, path: Path) -> _FileFeed | None:
        """The feed of the file expected after ``path`` (made on the first call)."""
        if self._next is None:
            following = self._after.get(path)
            if following is None:
                return None
            self._next = _FileFeed(following, self._submit)
        return self._next

    def groups(self, path: Path) -> Iterator[SourceGroup]:
        from scholarkg.schema.text import note_cleaning

        feed = self._feed(path)
        in_flight = self.ahead + 1

        def take() -> Iterator[SourceGroup]:
            block: _Block = feed.pending.popleft().result()
            for (label, name, what), n in block.cleaned.items():
                note_cleaning(label, name, what, n)
            for (rel_type, why), n in block.left_out.items():
                note_left_out(rel_type, why, n)
            for number, (work, stated, authors_known) in block.works:
                yield number, work_records(work, stated=stated, authors_known=authors_known)
            if block.error is not None:
                message, where, line, field_name = block.error
                raise InputError(message, path=where, line=line, field=field_name)

        try:
            while True:
                feed.fill(in_flight)
                if not feed.pending:
                    break
                if feed.done:  # the rest is parsed or on its way: the next file's turn
                    following = self._feed_after(path)
                    if following is not None:
                        following.fill(in_flight - len(feed.pending))
                yield from take()
            if feed.read_error is not None:
                raise feed.read_error
        finally:
            feed.discard()


# --------------------------------------------------------------------------- retired authors


def _merged_authors(path: Path) -> bool:
    return (
        "merged_ids" in path.parts
        and "authors" in path.parts
        and path.name.endswith((".csv", ".csv.gz"))
    )


def merged_author_files(paths: Iterable[Path]) -> list[Path]:
    """The ``merged_ids/authors/*.csv.gz`` files under ``paths`` (folders or files): the
    OpenAlex author ids OpenAlex retired into another (:func:`read_merged_author_ids`,
    applied by ``loaders/author_identity.retire_authors``), oldest first."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += [f for f in sorted(path.rglob("*")) if f.is_file() and _merged_authors(f)]
        elif _merged_authors(path):
            out.append(path)
    return sorted(out)


def read_merged_author_ids(path: Path) -> Iterator[tuple[str, str]]:
    """``(old A id, surviving A id)`` per row of a ``merged_ids/authors`` CSV(.gz) (the
    works' layout: ``merge_date,id,merge_into_id``)."""
    with open_binary(path) as handle:
        lines = decoded_lines(handle, path=path)
        reader = csv.DictReader(lines)
        for row in reader:
            old = ids.normalize_openalex_id(row.get("id") or "")
            new = ids.normalize_openalex_id(row.get("merge_into_id") or "")
            for value, name in ((old, "id"), (new, "merge_into_id")):
                if value is None or not value.startswith("A"):
                    raise InputError(
                        "expected OpenAlex author ids (A…) in id and merge_into_id",
                        path=path,
                        line=reader.line_num,
                        field=name,
                    )
            yield str(old), str(new)


# --------------------------------------------------------------------------- only stubs


def work_keys(work: dict[str, Any], path: Path, line: int) -> list[str]:
    """A work object's ids as scheme-prefixed keys (``openalex:W1``, ``doi:10.1/x``,
    ``arxiv:…``, ``mag:…``, ``pmid:…``, ``pmcid:…``): the keys of the Paper
    :func:`parse_work` makes, read without parsing the rest (``load openalex --only-stubs``
    reads every record of a snapshot to find the few that describe a stub; a test keeps the
    two in step). Only a missing or malformed ``id`` is an error here: the rest of a record
    is checked when it is loaded."""
    raw = work.get("id")
    openalex = ids.normalize_openalex_id(raw) if isinstance(raw, str) else None
    if openalex is None or not openalex.startswith("W"):
        raise InputError(
            "a work needs its OpenAlex id (https://openalex.org/W…)",
            path=path,
            line=line,
            field="id",
        )
    out = [f"openalex:{openalex}"]
    given = work.get("ids")
    id_map: dict[str, Any] = given if isinstance(given, dict) else {}
    doi_raw = work.get("doi")
    if not (isinstance(doi_raw, str) and doi_raw):
        doi_raw = id_map.get("doi") if isinstance(id_map.get("doi"), str) else None
    doi = ids.normalize_doi(doi_raw) if doi_raw else None
    arxiv_doi = ids.arxiv_id_from_doi(doi)
    arxiv = arxiv_doi or _arxiv_from_locations(work)
    if arxiv:
        out.append(f"arxiv:{arxiv}")
    if doi and not arxiv_doi:
        out.append(f"doi:{doi}")
    mag, pmid, pmcid = id_map.get("mag"), id_map.get("pmid"), id_map.get("pmcid")
    for scheme, value in (
        ("mag", ids.normalize_mag_id(mag) if mag is not None else None),
        ("pmid", ids.normalize_pmid(pmid) if isinstance(pmid, str | int) else None),
        ("pmcid", ids.normalize_pmcid(pmcid) if isinstance(pmcid, str | int) else None),
    ):
        if value:
            out.append(f"{scheme}:{value}")
    return out


def read_selected_works(path: Path, positions: Iterable[int]) -> Iterator[SourceGroup]:
    """The groups of the records of ``path`` at ``positions`` (0-based, in
    :func:`iter_work_objects`' order: what ``loaders/stubs.scan_for_stubs`` chose); the
    others are not parsed."""
    wanted = set(positions)
    last = max(wanted, default=-1)
    for position, (number, obj) in enumerate(iter_work_objects(path)):
        if position > last:
            return
        if position in wanted:
            try:
                group = work_group(obj, path=path, line=number)
            except InputError as err:
                raise page_record_error(err, path, obj) from None
            yield number, group

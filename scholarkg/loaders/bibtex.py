"""A researcher's own bibliography (``.bib``, BibTeX or biblatex) → Paper, Author and
AUTHORED_BY records: a fourth open-catalogue source beside OpenAlex, arXiv and Crossref.

Why a catalogue source and not a family: a ``.bib`` names works the catalogues name too, so
each entry goes through identity resolution (``loaders/identity.py``) and lands on the
work's one Paper, whichever source created it. A ``.bib`` is the least authoritative of the
four (hand-typed, or exported by a reference manager from one of the others, often
abbreviated): ``source_rank.SOURCE_RANK`` ranks it last, so it fills what no catalogue gave and
overrides none.

Parsing is bibtexparser's (v2): ``@string`` macros are resolved, ``@comment`` and
``@preamble`` blocks are skipped, ``#`` concatenation and the enclosing braces or quotes
are handled as BibTeX handles them. Fields read (case-insensitive):

* ids, best first: ``doi`` (or a ``doi.org`` ``url``); else an arXiv id: ``eprint`` with
  ``archivePrefix``/``eprinttype = arXiv``, an ``arxiv.org`` ``url``, or a ``journal`` of
  the form Google Scholar exports, ``arXiv preprint arXiv:2401.00001``; arXiv's own DataCite
  DOI (``10.48550/arXiv.…``) is read as the arXiv id, as the other loaders read it. An
  entry with neither gets the id every loader gives a work known only by its title
  (``schema/ids.paper_id``: a hash of the normalised title and the year);
* ``title``, ``year`` (with ``month``, or biblatex's ``date``: the Paper's ``date``, as
  precise as the entry), ``journal`` or ``booktitle`` (the venue), ``abstract``, ``url``
  (LaTeX decoded by bibtexparser's ``LatexDecodingMiddleware``: ``{\\"o}`` → ``ö``, the
  protecting braces dropped; math kept as written);
* ``author``: ``and``-separated, in ``Last, First``, ``Last, Jr., First`` or ``First von
  Last`` form (bibtexparser's ``SeparateCoAuthors``/``SplitNameParts``, so a braced
  ``{Barnes and Noble}`` is one name), each written ``First von Last Jr.`` and LaTeX
  decoded; ``and others`` (et al.) is dropped. The authors are name-only statements,
  aligned to the work's listed authors as arXiv's are (``loaders/author_identity.py``),
  their edges marked ``from_bibtex`` so that reloading a file replaces only what BibTeX
  stated. An entry without an ``author`` field states no author list (the stored one stays).
  An author whose ORCID iD the entry's ``ORCID-Numbers`` field gives (Web of Science's
  export) is an Author by that iD instead (``_orcids``).

The entry's citation key is kept on the Paper as ``bib_keys``
(``["<folder name>/<file name>:<key>"]``: ``_file_name``).
Unknown fields (``pages``, ``publisher``, ``keywords``…) and entry types are ignored. A
``.bib`` states no references, so BibTeX adds no CITES; nor IN_VENUE: a hand-typed venue name
(``J. Graphs``) would be a second Venue node beside the catalogue's, and an edge that carries
no source mark could not be taken back by a reload.

A bad entry (unbalanced braces, two entries with one key, a field given twice, neither a
title nor an id, a ``year``/``doi``/``eprint`` that is not one) is an ``InputError`` naming
the file, the line where the entry starts, its key and the field. The whole file is parsed
and checked before its first entry is yielded, so a bad entry writes nothing of its file.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path

from bibtexparser import middlewares
from bibtexparser.entrypoint import parse_string
from bibtexparser.library import Library
from bibtexparser.model import (
    Block,
    DuplicateBlockKeyBlock,
    DuplicateFieldKeyBlock,
    Entry,
    Field,
)

from scholarkg.errors import InputError
from scholarkg.loaders.author_identity import name_only_authorships, name_tokens, names_match
from scholarkg.loaders.base import validating
from scholarkg.loaders.checkpoint import AnyRecord
from scholarkg.loaders.identity import SourceGroup, StatedFields, StatedList, StatedMark
from scholarkg.loaders.source_rank import record_key
from scholarkg.schema import ids
from scholarkg.schema.records import Author, Paper
from scholarkg.schema.text import note_cleaning
from scholarkg.textio import read_text

_SPACE = re.compile(r"\s+")
#: one ``name/iD`` pair of an ``ORCID-Numbers`` field (``_orcids``); an iD's check digit
#: may be ``X``, and some exports give the iD as its orcid.org URL
_ORCID_PAIR = re.compile(
    r"([^/;]+?)\s*/\s*((?:https?://orcid\.org/)?\d{4}-\d{4}-\d{4}-\d{3}[\dXx])"
)
#: the fields whose text is LaTeX (decoded); ids and URLs are read as written, since LaTeX
#: decoding takes a URL's ``%20`` for a comment and cuts it there
_TEXT_FIELDS = ("title", "journal", "booktitle", "abstract")
#: ``arXiv preprint arXiv:2401.00001`` (Google Scholar's export), ``arXiv:2401.00001``,
#: ``CoRR abs/2401.00001`` (DBLP's)
_ARXIV_IN_JOURNAL = re.compile(
    r"^(?:arxiv\s+preprint\s+|corr\s+abs/|arxiv\s*[:/]\s*)(?:arxiv\s*:\s*)?(\S+)$", re.I
)
_ARXIV_URL = re.compile(r"^https?://(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(.+?)/?$", re.I)
_DOI_URL = re.compile(r"^https?://(?:(?:(?:dx|www)\.)?doi\.org|doi\.acm\.org)/", re.I)
#: ``@article{key,`` / ``@misc(key,``: a failed block's type and key, read off its text
_HEAD = re.compile(r"@\s*(\w+)\s*[{(]\s*([^\s,{}()]+)\s*,")
#: ``@techreport{ author = {…},``: an entry whose first field stands where its key belongs
_KEYLESS = re.compile(r"\s*@\s*(\w+)\s*[{(]\s*([A-Za-z][\w:+.-]*)\s*=")
#: where a field of a failed block starts: ``, name =`` (or the first, after the key)
_FIELD_AT = re.compile(r"[,{(]\s*([A-Za-z][\w:+.-]*)\s*=")
_ESCAPED_BRACE = re.compile(r"\\[{}]")
#: a value that swallowed the next field (``title = {x} year = {2020}``: the comma missing),
#: which bibtexparser reads as one unenclosed value
_RUN_ON = re.compile(r"^[{\"].*[}\"]\s*([A-Za-z][\w:+.-]*)\s*=", re.S)
#: makes the InputError for a message about a field of the entry being read
_Fail = Callable[[str, str], InputError]


#: the shared properties a ``.bib`` entry states (``StatedFields.ranked``)
_RANKED = frozenset({"title", "title_norm", "abstract", "year", "date", "venue", "url"})


def read_bibliography(path: Path) -> Iterator[SourceGroup]:
    """One group per entry of a ``.bib`` file (plain or gzipped), numbered by the line the
    entry starts on; every entry is checked before the first is yielded."""
    text = read_text(path)
    splitter_log = logging.getLogger("bibtexparser.splitter")
    # bibtexparser logs each block it cannot read, counting lines from 0; every such block
    # is our InputError below, counted from 1 as editors count: its own line would only
    # contradict ours, so it is held back while this file is parsed
    splitter_log.addFilter(_drop_record)
    try:
        library = parse_string(text)
    finally:
        splitter_log.removeFilter(_drop_record)
    failed = sorted(library.failed_blocks, key=_line_of)
    if failed:
        raise _failed_block_error(failed[0], path)
    _join_concatenations(library, path)
    _inherit_fields(library)
    groups: list[SourceGroup] = []
    errors: list[InputError] = []
    for entry in library.entries:
        if entry.entry_type.lower() in _NOT_WORKS:
            continue
        try:
            groups.append((_line_of(entry), parse_entry(entry, path=path)))
        except InputError as err:
            errors.append(err)
    if errors:
        raise _first_of(errors)
    yield from _keys_of_one_work_together(groups)


def _first_of(errors: Sequence[InputError]) -> InputError:
    """The first bad entry's error, saying where the others are: the whole file is checked
    before anything is written, so a user fixing a file with a dozen bad entries (a real
    JabRef test file has 12) learns of them all at once, not one run at a time."""
    first = errors[0]
    if len(errors) == 1:
        return first
    lines = ", ".join(str(e.line) for e in errors[1:11]) + (", …" if len(errors) > 11 else "")
    more = (
        "1 more bad entry, on line"
        if len(errors) == 2
        else f"{len(errors) - 1} more bad entries, on lines"
    )
    return InputError(
        f"{first.message} (and {more} {lines})",
        path=first.path,
        line=first.line,
        field=first.field,
    )


#: BibTeX's own month macros (``month = jan``), which a file need not define
_MONTH_MACROS = {
    m[:3]: m
    for m in ("january", "february", "march", "april", "may", "june", "july", "august",
              "september", "october", "november", "december")
}  # fmt: skip


def _join_concatenations(library: Library, path: Path) -> None:
    """Join BibTeX's ``#`` concatenations in place: ``title = "Notes on " # "the Engine"``,
    ``journal = conf # {Royal Society}`` (``@string`` macros, BibTeX's month names, braced and
    quoted parts and numbers), in ``@string`` definitions too.

    Why here: bibtexparser 2.1 resolves a value that is one macro, but leaves a
    concatenation as written, so the graph held ``"Notes on " # "the Engine"``, quotes
    included, and JabRef's ``author = Patterson # { and } # Arvind # …`` was one author of
    that name. Only a value written without enclosing braces or quotes is an expression
    (``removed_enclosing``: ``no-enclosing``); a ``#`` inside ``{…}`` or ``"…"`` is text
    (a URL's anchor). An undefined macro is an error naming the entry and field: BibTeX
    itself refuses it, and a guess would store the macro's name as text."""
    strings: dict[str, str] = {}
    for block in library.strings:
        value = block.value if isinstance(block.value, str) else str(block.value)
        if "#" in value and _is_expression(block, "value"):
            value = _joined(value, strings) or value
        strings[block.key.lower()] = value
    for entry in library.entries:
        for field in entry.fields:
            if isinstance(field.value, str) and "#" in field.value:
                if not _is_expression(entry, field.key):
                    continue
                joined = _joined(field.value, strings)
                if joined is None:
                    raise InputError(
                        f"entry {entry.key!r}: a concatenation names a macro no @string "
                        f"defines: {field.value[:80]!r}",
                        path=path,
                        line=_line_of(entry),
                        field=field.key,
                    )
                field.value = joined


#: biblatex entry types that describe no work: ``@set`` groups other entries, ``@xdata``
#: holds fields other entries take (``_inherit_fields``); read as works they were refused
#: for want of a title (biblatex's own example file, whole)
_NOT_WORKS = frozenset({"set", "xdata"})
#: fields an entry never takes from its ``crossref`` parent or ``xdata``: its identifiers
#: (a chapter is not its book: a DOI taken from the parent would make them one work) and
#: the links themselves
_NOT_INHERITED = frozenset(
    {"crossref", "xdata", "ids", "doi", "eprint", "archiveprefix", "eprinttype", "url",
     "entryset", "isbn"}
)  # fmt: skip
#: parent types whose ``title`` is a child's ``booktitle`` (biblatex's inheritance rules;
#: BibTeX's styles do the same for ``@inproceedings`` under ``@proceedings``)
_CONTAINERS = frozenset(
    {"proceedings", "book", "collection", "reference", "mvbook", "mvcollection",
     "mvproceedings", "mvreference", "periodical"}
)  # fmt: skip


def _inherit_fields(library: Library) -> None:
    """Give each entry the fields it lacks from its ``crossref`` parent and its ``xdata``
    entries, as BibTeX and biblatex do: ``@inproceedings{c, crossref = {P}}`` takes the
    year, and the proceedings' title as its ``booktitle``, from ``@proceedings{P}``.

    Why: an entry read alone lost them (stored with no year or venue, so its title-and-year
    id could never meet a catalogue's record of the work), and one whose title is its
    parent's was refused with its whole file (JabRef's test files). Identifiers are never
    taken (``_NOT_INHERITED``). A parent the file does not hold gives nothing: BibTeX
    warns, and the entry loads with what it has."""
    by_key = {e.key.lower(): e for e in library.entries}
    for entry in library.entries:
        have = {f.key.lower(): f.value for f in entry.fields}
        parents = [str(have["crossref"]).strip()] if have.get("crossref") else []
        parents += [k.strip() for k in str(have.get("xdata") or "").split(",") if k.strip()]
        for key in parents:
            parent = by_key.get(key.lower())
            if parent is None or parent is entry:
                continue
            fields = {f.key.lower(): f.value for f in parent.fields}
            taken = dict(fields)
            if parent.entry_type.lower() in _CONTAINERS and "title" in fields:
                taken["booktitle"] = fields.get("booktitle", fields["title"])
            for name, value in taken.items():
                if name not in have and name not in _NOT_INHERITED:
                    entry.set_field(Field(name, value))
                    have[name] = value


def _is_expression(block: Block, key: str) -> bool:
    """Whether ``block``'s ``key`` was written bare (a macro, a number or a concatenation),
    not in braces or quotes (bibtexparser's ``removed_enclosing`` metadata)."""
    enclosing = block.parser_metadata.get("removed_enclosing") or {}
    if isinstance(enclosing, str):  # an @string block: its one value's enclosing
        return enclosing == "no-enclosing"
    return bool(enclosing.get(key, "no-enclosing") == "no-enclosing")


def _joined(value: str, strings: Mapping[str, str]) -> str | None:
    """The text of the concatenation ``value`` (parts split at each ``#`` outside braces and
    quotes); ``None`` when a part is a macro ``strings`` does not define."""
    parts: list[str] = []
    depth, quoted, start = 0, False, 0
    for i, c in enumerate(value):
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == '"' and depth == 0:
            quoted = not quoted
        elif c == "#" and depth == 0 and not quoted:
            parts.append(value[start:i])
            start = i + 1
    parts.append(value[start:])
    out: list[str] = []
    for raw in parts:
        part = raw.strip()
        if len(part) >= 2 and (part[0], part[-1]) in (("{", "}"), ('"', '"')):
            out.append(part[1:-1])
        elif part.isdigit():
            out.append(part)
        elif (name := part.lower()) in strings:
            out.append(strings[name])
        elif name in _MONTH_MACROS:
            out.append(_MONTH_MACROS[name].capitalize())
        else:
            return None
    return "".join(out)


def _keys_of_one_work_together(groups: Sequence[SourceGroup]) -> Sequence[SourceGroup]:
    """Two entries of one file naming one work (one under its arXiv ``eprint``, one under
    arXiv's DataCite DOI; a paper cited under two keys) are one record of the work: the
    later entry's fields are what the file states, and its ``bib_keys`` lists both keys, so
    the work is found by either (before, the earlier key vanished)."""
    keys: dict[str, list[str]] = {}
    for _, recs in groups:
        for rec in recs:
            if isinstance(rec, Paper):
                keys.setdefault(record_key(rec), []).extend(rec.bib_keys or ())
    if all(len(k) < 2 for k in keys.values()):
        return groups
    out: list[SourceGroup] = []
    for number, recs in groups:
        out.append(
            (
                number,
                [
                    rec.replaced({"bib_keys": keys[record_key(rec)]})
                    if isinstance(rec, Paper) and len(keys[record_key(rec)]) > 1
                    else rec
                    for rec in recs
                ],
            )
        )
    return out


def _file_name(path: Path) -> str:
    """The file's part of a ``bib_keys`` entry: its folder's name and its own (``.gz``
    off), ``paperA/refs.bib``, a ``:`` in them made ``_`` so the part ends at the first ``:``
    (a citation key may hold some: ``DBLP:…``).

    The folder's name is there because every LaTeX project has its ``refs.bib``: with the
    file's name alone, loading a second project's took the first's keys away as if the
    first file had been loaded again. Not the whole path: a project folder moved or
    mounted elsewhere is still the same bibliography, and the graph should not hold the
    user's home directory. A part without a folder (``refs.bib:…``, written before) is
    replaced by the next file of that name loaded (``identity._bib_file_of``)."""
    folder = path.absolute().parent.name
    return f"{folder}/{path.name.removesuffix('.gz')}".replace(":", "_")


def _drop_record(record: logging.LogRecord) -> bool:
    """A logging filter that lets nothing through."""
    return False


def _line_of(block: Block) -> int:
    """The 1-based line a block starts on (bibtexparser counts from 0)."""
    return (block.start_line or 0) + 1


def _failed_block_error(block: Block, path: Path) -> InputError:
    line = _line_of(block)
    if isinstance(block, DuplicateBlockKeyBlock):
        first = _line_of(block.previous_block)
        return InputError(
            f"entry {block.key!r}: a second entry with this key (the first is on line {first})",
            path=path,
            line=line,
        )
    if isinstance(block, DuplicateFieldKeyBlock):
        keys = sorted(block.duplicate_keys)
        entry = block.ignore_error_block
        key = entry.key if isinstance(entry, Entry) else "?"
        return InputError(
            f"entry {key!r}: the field is given twice",
            path=path,
            line=line,
            field=keys[0] if keys else None,
        )
    raw = block.raw or ""
    head = _HEAD.search(raw)
    if head is None and (keyless := _KEYLESS.match(raw)):
        return InputError(
            f"an @{keyless[1]} entry without a citation key (its first field, {keyless[2]!r}, "
            "comes where the key belongs): give it one, '@article{key, …'",
            path=path,
            line=line,
        )
    name = f"entry {head[2]!r}" if head else "an entry"
    return InputError(
        f"{name}: not readable BibTeX (unbalanced braces or quotes, or a missing comma "
        "between fields)",
        path=path,
        line=line,
        field=_unbalanced_field(raw),
    )


def _unbalanced_field(raw: str) -> str | None:
    """The field of a failed entry whose braces do not balance: each field's value up to the
    next field must close all it opens; the last one, the entry's own ``}`` too. ``None``
    when no field is to blame (an entry with a missing comma reads as one long field)."""
    starts = [(m[1], m.end(), m.start()) for m in _FIELD_AT.finditer(raw)]
    for i, (name, value_start, _) in enumerate(starts):
        last = i + 1 == len(starts)
        value = raw[value_start : len(raw) if last else starts[i + 1][2]]
        value = _ESCAPED_BRACE.sub("", value)
        depth = value.count("{") - value.count("}")
        closes_entry = last and raw.lstrip().split("{", 1)[0].find("(") < 0
        if depth != (-1 if closes_entry else 0) or value.count('"') % 2:
            return name
    return None


def parse_entry(entry: Entry, *, path: Path) -> list[AnyRecord | StatedMark]:
    """One entry's records: its Paper, its Authors and their AUTHORED_BY edges (marked
    ``from_bibtex``), and the whole-list mark when it has an ``author`` field."""
    line = _line_of(entry)
    raw = {f.key.lower(): f.value for f in entry.fields}

    def fail(message: str, field: str) -> InputError:
        return InputError(f"entry {entry.key!r}: {message}", path=path, line=line, field=field)

    for name, value in raw.items():
        if not isinstance(value, str):
            raise fail(f"expected text, got {type(value).__name__}", name)
        if m := _RUN_ON.match(value):
            raise fail(f"reads as two fields: a missing comma before {m[1]!r}?", name)
    text = _decoded(entry, raw, fail)
    doi, arxiv = _ids(raw, fail)
    year = _year(raw.get("year"), fail)
    if year is None and (m := _ISO_DATE.match(_clean(raw.get("date")) or "")):
        year = int(m[1])  # biblatex's date without a year field
    date = _date(raw, year)
    title = text.get("title")
    if title is None and doi is None and arxiv is None:
        parent = _clean(raw.get("crossref"))
        lost = f"; its crossref parent {parent!r} is not in this file" if parent else ""
        raise fail(f"needs a title, a DOI or an arXiv id (it has none{lost})", "title")
    venue = text.get("journal") or text.get("booktitle")
    if venue and _ARXIV_IN_JOURNAL.match(venue):
        venue = None  # "arXiv preprint arXiv:…" names the id, not a venue
    url = _clean(raw.get("url"))
    with validating(path, line):
        paper = Paper(
            doi=doi,
            arxiv_id=arxiv,
            title=title,
            abstract=text.get("abstract"),
            year=year,
            date=date,
            venue=venue,
            url=url,
            bib_keys=[f"{_file_name(path)}:{entry.key}"],
            source="bibtex",
        )
        out: list[AnyRecord | StatedMark] = [paper]
        edges: list[AnyRecord | StatedMark] = []
        names = _authors(entry, raw, fail)
        authors, authorships = name_only_authorships(paper.id, names, "from_bibtex")
        for i, orcid in _orcids(names, _orcid_numbers(entry, raw, fail)):
            # the person's iD: the Author is the one every catalogue naming the iD has
            authors[i] = Author(name=names[i], orcid=orcid, listed_on=paper.id)
            authorships[i] = authorships[i].replaced({"end": authors[i].id})
        out += authors
        edges += authorships
        if "author" in raw:  # the whole author list: what BibTeX stated before is replaced
            edges.append(StatedList(paper.id, "bibtex", "AUTHORED_BY"))
        # an entry is whole: a field it no longer has is no longer stated
        edges.append(StatedFields(paper.id, frozenset(), _RANKED))
    return out + edges


def _orcid_numbers(entry: Entry, raw: Mapping[str, str], fail: _Fail) -> str | None:
    """The entry's ``ORCID-Numbers`` field, LaTeX decoded (``Heged{\\H{u}}s``)."""
    if not raw.get("orcid-numbers"):
        return None
    field = Field("orcid-numbers", raw["orcid-numbers"])
    decoded = _latex_decoded(Entry(entry.entry_type, entry.key, [field]), fail, "orcid-numbers")
    return decoded["orcid-numbers"]


def _orcids(names: Sequence[str], field: str | None) -> list[tuple[int, str]]:
    """``(position in names, ORCID iD)`` of the authors an ``ORCID-Numbers`` field names.

    Web of Science's BibTeX export (and others copying it) gives each author's iD beside the
    name on their ORCID record: ``{Lovelace, Ada/0000-0002-1825-0097; Byron, George/…}``,
    the pairs parted by ``;`` or a new line. That name need not be spelled as in ``author``
    (WoS writes ``Sheng, Liu`` for the author ``Liu, Sheng``): a pair goes to the one author
    whose name matches (``names_match``), else to the one with the same words in another
    order; a pair that matches no author or several, or whose iD is not one, is left out
    (counted in the summary): a wrong iD would merge two people, a missing one splits none.
    """
    if not field:
        return []
    out: dict[int, str] = {}
    # pairs are read line by line (and ``;`` by ``;``), so that a pair whose iD is not one
    # cannot lend its text to the next pair's name; a line may still hold several pairs
    pairs: list[tuple[str, str | None]] = []
    for piece in re.split(r"[;\n]", field):
        found = [(m[1], m[2]) for m in _ORCID_PAIR.finditer(piece)]
        pairs += found or ([(piece, None)] if "/" in piece else [])
    for raw_name, raw_orcid in pairs:
        name = raw_name.strip(" \t,")
        orcid = ids.normalize_orcid(raw_orcid) if raw_orcid else None
        hits = [i for i, n in enumerate(names) if names_match(name, n)]
        if len(hits) != 1:
            words = sorted(name_tokens(name))
            hits = [i for i, n in enumerate(names) if sorted(name_tokens(n)) == words]
        if orcid is None or len(hits) != 1 or hits[0] in out or orcid in out.values():
            note_cleaning("Author", "orcid", "ORCID-Numbers pair matching no one author left out")
            continue
        out[hits[0]] = orcid
    return sorted(out.items())


def _clean(value: str | None) -> str | None:
    """A field's text with its whitespace collapsed; ``None`` when empty."""
    if value is None:
        return None
    return _SPACE.sub(" ", value).strip() or None


def _ids(raw: Mapping[str, str], fail: _Fail) -> tuple[str | None, str | None]:
    """``(doi, arxiv id)`` of an entry (see the module doc); a ``doi``/``eprint`` field that
    is not one is an error, a ``url`` that names neither is only a URL."""
    doi: str | None = None
    arxiv: str | None = None
    written = _clean(raw.get("doi"))
    if written is not None:
        doi = ids.normalize_doi(written.replace("\\_", "_"))
        if doi is None:
            raise fail(f"not a DOI: {ids.why_not_a_doi(written)}", "doi")
    url = _clean(raw.get("url")) or ""
    if doi is None and _DOI_URL.match(url):
        doi = ids.normalize_doi(url)
    if doi is not None and (from_doi := ids.arxiv_id_from_doi(doi)):
        return None, from_doi  # arXiv's DataCite DOI is the arXiv id, as elsewhere
    prefix = (_clean(raw.get("archiveprefix")) or _clean(raw.get("eprinttype")) or "").lower()
    eprint = _clean(raw.get("eprint"))
    if eprint is not None and prefix == "arxiv":
        arxiv = ids.normalize_arxiv_id(eprint)
        if arxiv is None:
            raise fail(f"not an arXiv id: {eprint[:60]!r}", "eprint")
    if arxiv is None and (m := _ARXIV_URL.match(url)):
        arxiv = ids.normalize_arxiv_id(m[1])
    journal = _clean(raw.get("journal"))
    if arxiv is None and journal is not None and (m := _ARXIV_IN_JOURNAL.match(journal)):
        arxiv = ids.normalize_arxiv_id(m[1])
    return doi, arxiv


_MONTHS = {
    name: n
    for n, names in enumerate(
        (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"),
         ("may",), ("jun", "june"), ("jul", "july"), ("aug", "august"),
         ("sep", "sept", "september"), ("oct", "october"), ("nov", "november"),
         ("dec", "december")),
        start=1,
    )
    for name in names
}  # fmt: skip
#: the date a biblatex ``date`` starts with (a range, an uncertain date, a date-time)
_ISO_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?(?![\d-])")
#: a month field's first word (``Jan.-Feb.`` → ``jan.``, ``jul # "~4,"`` → ``jul``)
_FIRST_WORD = re.compile(r"[a-z]+\.?|\d+")


def _date(raw: Mapping[str, str], year: int | None) -> str | None:
    """The entry's date, as precise as it says: biblatex's ``date`` (``2020``, ``2020-05``,
    ``2020-05-17``; of a range ``2020-05/2020-06``, an uncertain ``2020?`` or a date-time,
    the date it starts with), else ``year`` with BibTeX's ``month`` (``may``, ``{May}``,
    ``5``; of ``Jan.-Feb.``, ``jun--jul`` or ``jul # "~4,"`` the first month) as
    ``2020-05``; a year alone gives no date (``year`` holds it). A month or date that says
    none of these (``Spring``), or a date outside the entry's ``year``, is left out and
    counted in the summary's cleaned values: real exports write them, and they are no
    reason to refuse the file."""
    given = _clean(raw.get("date"))
    if given is not None:
        m = _ISO_DATE.match(given)
        if m is None or (year is not None and int(m[1]) != year):
            note_cleaning("Paper", "date", "unreadable date left out")
            return None
        return m[0] if m[2] else None
    month = _clean(raw.get("month"))
    if month is None or year is None:
        return None
    first = _FIRST_WORD.search(month.lower())
    key = first[0] if first else ""
    n = _MONTHS.get(key.rstrip(".")) or (
        int(key) if key.isdigit() and 1 <= int(key) <= 12 else None
    )
    if n is None:
        note_cleaning("Paper", "date", "unreadable month left out")
        return None
    return f"{year:04d}-{n:02d}"


def _year(value: str | None, fail: _Fail) -> int | None:
    text = _clean(value)
    if text is None:
        return None
    if not (len(text) == 4 and text.isdigit()):
        raise fail(f"not a year: {text[:20]!r}", "year")
    return int(text)


def _decoded(entry: Entry, raw: Mapping[str, str], fail: _Fail) -> dict[str, str]:
    """The entry's LaTeX text fields (``_TEXT_FIELDS``) decoded, whitespace collapsed."""
    fields = [Field(name, raw[name]) for name in _TEXT_FIELDS if name in raw]
    if not fields:
        return {}
    decoded = _latex_decoded(Entry(entry.entry_type, entry.key, fields), fail, "title")
    return {name: value for name in _TEXT_FIELDS if (value := _clean(decoded.get(name)))}


def _only_entry(library: Library, fail: _Fail, field: str) -> Entry:
    """The one entry a middleware gave back: bibtexparser turns an entry it cannot
    transform (a name ``{Lovelace, Ada,}`` it cannot split) into an error block instead,
    which surfaced as an ``IndexError`` with no file, line or key."""
    if not library.entries:
        blocks = library.failed_blocks
        why = str(getattr(blocks[0], "error", "")) if blocks else ""
        raise fail(f"cannot be read as BibTeX{f' ({why[:120]})' if why else ''}", field)
    return library.entries[0]


def _latex_decoded(entry: Entry, fail: _Fail, field: str) -> dict[str, str]:
    """bibtexparser's ``LatexDecodingMiddleware`` on one entry of string fields."""
    library = middlewares.LatexDecodingMiddleware().transform(Library([entry]))
    return {f.key: str(f.value) for f in _only_entry(library, fail, field).fields}


def _authors(entry: Entry, raw: Mapping[str, str], fail: _Fail) -> list[str]:
    """The entry's authors, in order, each ``First von Last Jr.``, LaTeX decoded.

    Split before decoding (bibtexparser's ``SeparateCoAuthors``, ``SplitNameParts``,
    ``MergeNameParts``): decoding first would drop the braces that keep ``{Barnes and
    Noble}`` one name. ``LatexDecodingMiddleware`` decodes string fields only, so each name
    is decoded as a field of its own."""
    if not raw.get("author"):
        return []
    library = Library([Entry(entry.entry_type, entry.key, [Field("author", raw["author"])])])
    for step in (
        middlewares.SeparateCoAuthors(),
        middlewares.SplitNameParts(),
        middlewares.MergeNameParts(style="first"),
    ):
        library = step.transform(library)
    value = _only_entry(library, fail, "author").fields_dict["author"].value
    names = [str(n) for n in value] if isinstance(value, list) else [str(value)]
    names = [n for n in names if n.strip().lower() != "others"]
    if not names:
        return []
    decoded = _latex_decoded(
        Entry(entry.entry_type, entry.key, [Field(f"n{i}", n) for i, n in enumerate(names)]),
        fail,
        "author",
    )
    out = [_clean(decoded[f"n{i}"]) for i in range(len(names))]
    return [n for n in out if n]

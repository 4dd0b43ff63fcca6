"""arXiv's metadata snapshot (``arxiv-metadata-oai-snapshot.json``, one JSON object per line)
→ Paper, Author and AUTHORED_BY records.

Fields read (arXiv's OAI metadata as the snapshot serialises it): ``id`` (``0704.0001`` or
``hep-th/9901001``), ``title``, ``abstract`` (both with hard line breaks, collapsed here;
LaTeX is kept as written), ``authors_parsed`` (``[last, first, suffix]``; the flat ``authors``
string when absent; LaTeX accents in names, ``Bal\\'azs`` or ``{\\O}degaard`` as the flat
string writes them, are read as the letters they stand for, so the names align with other
sources' author lists), ``doi`` (sometimes several, space-separated: the first fills the
slot, the rest go to ``alt_ids``), ``journal-ref``, ``categories`` (space-separated),
``versions`` (the first version's date is the publication date), ``update_date``. Unknown
fields are ignored. The snapshot has no reference lists, so arXiv adds no CITES.
"""

from __future__ import annotations

import email.utils
import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.loaders.author_identity import name_only_authorships
from scholarkg.loaders.base import validating
from scholarkg.loaders.checkpoint import AnyRecord
from scholarkg.loaders.identity import SourceGroup, StatedFields, StatedList, StatedMark
from scholarkg.schema import ids
from scholarkg.schema.records import Paper
from scholarkg.textio import CUT_LINE, iter_jsonl, refuse_markup

_SPACE = re.compile(r"\s+")

#: LaTeX accent commands → the combining mark each stands for
_TEX_ACCENTS = {"`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304",
                ".": "\u0307", '"': "\u0308", "H": "\u030b", "c": "\u0327", "v": "\u030c",
                "u": "\u0306", "k": "\u0328", "r": "\u030a"}  # fmt: skip
#: ``\'a``, ``\'{a}``, ``{\'a}``, ``\v{s}``, ``\c c``: a letter with a LaTeX accent
_TEX_ACCENT = re.compile(
    r"\\([`'^~=.\"])\s*\{?\s*([^\W\d_])\}?|\\([Hcvukr])(?:\s*\{\s*|\s+)([^\W\d_])\}?"
)
#: LaTeX commands for letters of their own (``\o``, ``\ss``, ``\aa``...)
_TEX_LETTERS = {"o": "ø", "O": "Ø", "l": "ł", "L": "Ł", "ss": "ß", "ae": "æ", "AE": "Æ",
                "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "i": "i", "j": "j"}  # fmt: skip
_TEX_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])\s*(?:\{\})?")


#: the shared properties an arXiv line states (``StatedFields.ranked``)
_RANKED = frozenset({"title", "title_norm", "abstract", "year", "date", "url"})


def untex_name(name: str) -> str:
    """An author name with its LaTeX accents written as letters (``C. Bal\\'azs`` → ``C.
    Balázs``, ``{\\O}deg{\\aa}rd`` → ``Ødegård``); braces around them dropped. A name
    without a backslash is returned as it is."""
    if "\\" not in name:
        return name

    def accent(m: re.Match[str]) -> str:
        mark, letter = (m[1], m[2]) if m[1] else (m[3], m[4])
        return unicodedata.normalize("NFC", letter + _TEX_ACCENTS[mark])

    text = _TEX_LETTER.sub(lambda m: _TEX_LETTERS[m[1]], name)  # first: \'{\i} is í
    text = _TEX_ACCENT.sub(accent, text)
    return text.replace("{", "").replace("}", "")


def _text(value: Any, field: str, path: Path, line: int) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError(
            f"expected a string, got {type(value).__name__}", path=path, line=line, field=field
        )
    text = _SPACE.sub(" ", value).strip()
    return text or None


def _first_version_date(versions: Any) -> str | None:
    if not isinstance(versions, list) or not versions or not isinstance(versions[0], dict):
        return None
    created = versions[0].get("created")
    if not isinstance(created, str):
        return None
    try:
        return email.utils.parsedate_to_datetime(created).date().isoformat()
    except (TypeError, ValueError):
        return None


def _authors(obj: dict[str, Any], path: Path, line: int) -> list[str]:
    parsed = obj.get("authors_parsed")
    if parsed is None:
        flat = _text(obj.get("authors"), "authors", path, line)
        return [untex_name(a.strip()) for a in re.split(r",| and ", flat or "") if a.strip()]
    if not isinstance(parsed, list):
        raise InputError(
            "expected a list of [last, first, suffix]", path=path, line=line, field="authors_parsed"
        )
    names = []
    for entry in parsed:
        if not isinstance(entry, list) or not all(isinstance(p, str) for p in entry):
            raise InputError(
                "expected [last, first, suffix]", path=path, line=line, field="authors_parsed"
            )
        last, first, suffix = (*entry, "", "", "")[:3]
        name = untex_name(_SPACE.sub(" ", f"{first} {last} {suffix}").strip())
        if name:
            names.append(name)
    return names


def parse_record(obj: dict[str, Any], *, path: Path, line: int) -> list[AnyRecord | StatedMark]:
    raw_id = obj.get("id")
    arxiv = ids.normalize_arxiv_id(str(raw_id)) if isinstance(raw_id, str | int | float) else None
    if arxiv is None:
        raise InputError(f"not an arXiv id: {str(raw_id)[:60]!r}", path=path, line=line, field="id")
    dois = [
        d
        for d in (
            ids.normalize_doi(x) for x in (_text(obj.get("doi"), "doi", path, line) or "").split()
        )
        if d
    ]
    categories = (_text(obj.get("categories"), "categories", path, line) or "").split()
    date = _first_version_date(obj.get("versions")) or _text(
        obj.get("update_date"), "update_date", path, line
    )
    with validating(path, line):
        paper = Paper(
            arxiv_id=arxiv,
            doi=dois[0] if dois else None,
            alt_ids=[f"doi:{d}" for d in dois[1:]] or None,
            title=_text(obj.get("title"), "title", path, line),
            abstract=_text(obj.get("abstract"), "abstract", path, line),
            date=date,
            categories=categories or None,
            url=f"https://arxiv.org/abs/{arxiv}",
            source="arxiv",
        )
        out: list[AnyRecord | StatedMark] = [paper]
        edges: list[AnyRecord | StatedMark] = []
        authors, authorships = name_only_authorships(
            paper.id, _authors(obj, path, line), "from_arxiv"
        )
        out += authors
        edges += authorships
        edges.append(StatedList(paper.id, "arxiv", "AUTHORED_BY"))  # the whole author list
        # arXiv states every line's categories; a snapshot line is whole: its title,
        # abstract and dates are stated with or without a value
        owned = frozenset({"categories"}) if "categories" in obj else frozenset()
        edges.append(StatedFields(paper.id, owned, _RANKED))
    return out + edges


#: what ``load arxiv`` reads, for the message about a file that is not it
READS = (
    "`load arxiv` reads arXiv's JSON metadata snapshot: one JSON object per line "
    "(arxiv-metadata-oai-snapshot.json, plain or .gz), not OAI-PMH XML."
)


def read_snapshot(path: Path) -> Iterator[SourceGroup]:
    """One group per line of an arXiv metadata snapshot file (plain or gzipped)."""
    refuse_markup(path, reads=READS)
    for number, obj in iter_jsonl(path, invalid_json=CUT_LINE):
        yield number, parse_record(obj, path=path, line=number)

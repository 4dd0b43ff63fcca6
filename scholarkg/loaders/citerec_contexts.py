"""Citing sentences from annotated full text: sentence spans, ``<REF>`` masking, sections.

Both full-text sources of the family reduce to the same input: a text, paragraph spans,
section-header spans and citation-marker spans (S2ORC gives them as annotations; unarXive's
inline ``{{cite:…}}`` markers are turned into spans by its loader). From them this module
yields one :class:`ExtractedContext` per (sentence, marker): the sentence with that marker
replaced by ``<REF>``, the marker text, character offsets into the source text, the section,
and how many markers the sentence holds.

Sentence splitting is deterministic and offline (rule-based, no model): a boundary is
``.``, ``?`` or ``!`` followed by whitespace and an upper-case letter, digit, quote or
opening bracket, except

* inside a citation marker (S2ORC markers such as ``(Smith et al., 2019)`` contain periods);
* after a known abbreviation (``et al.``, ``Fig.``, ``Eq.``, ``e.g.``, ``i.e.``, ``cf.``,
  ``vs.``, ``Sec.``, ``Tab.``, ``Ref.``, ``No.``, ``Dr.`` …) or a single-letter initial
  (``J. Smith``).

Why not scispaCy (the citeBench authors' splitter): it needs a downloaded model; the
splitter is pluggable through :data:`SentenceSplitter` and this is the tested fallback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

REF = "<REF>"
Span = tuple[int, int]
#: ``splitter(text, start, end, protected) -> sentence spans`` inside ``[start, end)``
SentenceSplitter = Callable[[str, int, int, Sequence[Span]], list[Span]]

ABBREVIATIONS = frozenset(
    {
        "al",
        "fig",
        "figs",
        "eq",
        "eqs",
        "e.g",
        "i.e",
        "cf",
        "vs",
        "sec",
        "secs",
        "tab",
        "ref",
        "refs",
        "no",
        "nos",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "approx",
        "resp",
        "ch",
        "vol",
        "pp",
        "ca",
        "eg",
        "ie",
        "viz",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
        "dept",
        "univ",
        "sect",
        "app",
        "thm",
        "lem",
        "def",
        "prop",
        "cor",
        "alg",
    }
)
_BOUNDARY = re.compile(r"[.?!]+[\"')\]]*(?=\s+[\"'(\[A-Z0-9<])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")


def _inside(pos: int, spans: Sequence[Span]) -> bool:
    return any(s <= pos < e for s, e in spans)


def split_sentences(text: str, start: int, end: int, protected: Sequence[Span] = ()) -> list[Span]:
    """Sentence spans (trimmed of surrounding whitespace) of ``text[start:end]``."""
    spans: list[Span] = []
    cursor = start
    chunk = text[start:end]
    for m in _BOUNDARY.finditer(chunk):
        cut = start + m.end()
        dot = start + m.start()
        if _inside(dot, protected):
            continue
        head = text[cursor : dot + 1]
        word = _WORD_BEFORE.search(head)
        if word and m.group(0).startswith("."):
            token = word.group(1).lower()
            if token in ABBREVIATIONS or (len(token) == 1 and word.group(1).isupper()):
                continue
        spans.append((cursor, cut))
        cursor = cut
    spans.append((cursor, end))
    out = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


@dataclass(frozen=True)
class Marker:
    """A citation marker: its span in the source text and what it points to (``None``:
    unresolvable, e.g. a bibref without ``ref_id``; it still counts as a marker)."""

    start: int
    end: int
    target: str | None


@dataclass(frozen=True)
class ExtractedContext:
    text: str
    citation_text: str
    target: str
    char_start: int
    char_end: int
    n_refs: int
    section: str | None


def section_of(position: int, headers: Sequence[tuple[int, str]]) -> str | None:
    """The text of the last section header starting before ``position`` (headers sorted)."""
    current = None
    for start, title in headers:
        if start > position:
            break
        current = title
    return current


def extract_contexts(
    text: str,
    paragraphs: Sequence[Span],
    markers: Sequence[Marker],
    headers: Sequence[tuple[int, str]] = (),
    *,
    splitter: SentenceSplitter = split_sentences,
) -> Iterator[ExtractedContext]:
    """One context per (sentence, resolvable marker), in text order (see the module doc)."""
    ordered = sorted(markers, key=lambda m: (m.start, m.end))
    for p_start, p_end in sorted(set(paragraphs)):
        inside = [m for m in ordered if p_start <= m.start and m.end <= p_end]
        if not inside:
            continue
        protected = [(m.start, m.end) for m in inside]
        for s_start, s_end in splitter(text, p_start, p_end, protected):
            in_sentence = [m for m in inside if s_start <= m.start and m.end <= s_end]
            for m in in_sentence:
                if m.target is None:
                    continue
                masked = text[s_start : m.start] + REF + text[m.end : s_end]
                yield ExtractedContext(
                    text=" ".join(masked.split()),
                    citation_text=text[m.start : m.end],
                    target=m.target,
                    char_start=m.start,
                    char_end=m.end,
                    n_refs=len(in_sentence),
                    section=section_of(p_start, headers),
                )

"""Citing sentences from annotated full text: sentence spans, ``<REF>`` masking, sections.

Both full-text sources of the family reduce to the same input: a text, paragraph spans,
section-header spans and citation-marker spans (S2ORC gives them as annotations; unarXive's
inline ``{{cite:…}}`` markers are turned into spans by its loader). From them this module
yields one :class:`ExtractedContext` per (sentence, marker): the sentence with that marker
replaced by ``<REF>``, the marker text, character offsets into the source text, the section,
and how many markers the sentence holds.

Sentence splitting is deterministic and offline (rule-based, no model): a boundary is
``.``, ``?`` or ``!`` followed by whitespace and an upper-case letter, digit (also a
superscript one), quote or opening bracket, except

* inside a citation marker (S2ORC markers such as ``(Smith et al., 2019)`` contain periods);
* after a known abbreviation (``et al.``, ``Fig.``, ``Eq.``, ``e.g.``, ``i.e.``, ``cf.``,
  ``vs.``, ``Sec.``, ``Tab.``, ``Ref.``, ``No.``, ``Dr.`` …) or a single-letter initial
  (``J. Smith``).

Citation markers written as bare numbers (a flattened superscript, Nature and biomedical
styles: "… previously.¹² These …" reaches S2ORC as ``previously. 12 These``) that directly
follow a boundary belong to the sentence before it, so the cut moves past them (and past
any further such markers separated only by spaces, ``,``, ``;`` or a dash). Without this
the next sentence would open with the marker, which reads like a footnote mark, and a
marker at the end of a paragraph would become a sentence of its own. A bracketed or
author marker opening a sentence (``[3] proposed …``, ``Smith et al. (2019) showed …``)
is its subject and stays where it is.

Why not scispaCy (the citeBench authors' splitter): it needs a downloaded model; the
splitter is pluggable through :data:`SentenceSplitter` and this is the tested fallback.

Two clean-up steps of citeBench's extraction (the citeBench paper (Maharjan, arXiv 2412.07713),
"Sentence extraction") run here,
so both full-text loaders share them; each context they remove is reported through the
``on_drop`` callback (the loaders count them in their ``SkipReport``):

* a sentence that starts with a footnote marker is dropped (:func:`starts_with_footnote`),
  for every source;
* with ``check_style=True`` (S2ORC only) a context whose marker text is not *one* citation
  in a recognised style is dropped (:func:`citation_style`): S2ORC's PDF parser sometimes
  puts two citations in one ``bibref`` span that points to one bib entry. unarXive markers
  are ``{{cite:<key>}}`` written by its LaTeX converter, one key each, so there is nothing
  to validate and the check is off there.
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
_SUPERSCRIPT_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
_BOUNDARY = re.compile(rf"[.?!]+[\"')\]]*(?=\s+[\"'(\[A-Z0-9<{_SUPERSCRIPT_DIGITS}])")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
# what may separate two superscript markers that follow a full stop: "12 13", "12,13", "12-14"
_BETWEEN_MARKERS = re.compile(r"[\s,;\-\u2013]*")
_SPACES = re.compile(r"\s*")


def _inside(pos: int, spans: Sequence[Span]) -> bool:
    return any(s <= pos < e for s, e in spans)


def _past_trailing_markers(text: str, cut: int, end: int, bare: dict[int, int]) -> int:
    """Where a sentence cut at ``cut`` really ends: after the bare-number markers
    (``bare``: start -> end) that directly follow it, with only whitespace before the first
    and :data:`_BETWEEN_MARKERS` between the next ones."""
    pos = cut
    gap = _SPACES
    while True:
        spaces = gap.match(text, pos, end)
        assert spaces is not None  # _SPACES and _BETWEEN_MARKERS match the empty string
        nxt = spaces.end()
        stop = bare.get(nxt)
        if stop is None or stop > end:
            return pos
        pos = stop
        gap = _BETWEEN_MARKERS


def split_sentences(text: str, start: int, end: int, protected: Sequence[Span] = ()) -> list[Span]:
    """Sentence spans (trimmed of surrounding whitespace) of ``text[start:end]``; the
    ``protected`` spans are the citation markers (see the module doc)."""
    spans: list[Span] = []
    cursor = start
    chunk = text[start:end]
    # markers that are a bare number (a flattened superscript): start -> end
    bare = {
        s: e
        for s, e in protected
        if text[s : s + 1].isdigit() or text[s : s + 1] in _SUPERSCRIPT_DIGITS
    }
    for m in _BOUNDARY.finditer(chunk):
        cut = start + m.end()
        dot = start + m.start()
        if dot < cursor or _inside(dot, protected):
            continue
        head = text[cursor : dot + 1]
        word = _WORD_BEFORE.search(head)
        if word and m.group(0).startswith("."):
            token = word.group(1).lower()
            if token in ABBREVIATIONS or (len(token) == 1 and word.group(1).isupper()):
                continue
        if bare:
            cut = _past_trailing_markers(text, cut, end, bare)
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


# --------------------------------------------------------------------------- clean-up rules

#: ``on_drop`` reasons (the loaders prefix the source, e.g. ``s2orc``)
DROP_FOOTNOTE = "citing sentence(s) dropped: the sentence starts with a footnote marker"
DROP_STYLE = (
    "citing sentence(s) dropped: the marker is not one citation in a recognised style "
    "(merged or unparsable span)"
)

_FOOTNOTE_SYMBOLS = "*\u2020\u2021\u00a7\u00b6\u2016"  # * † ‡ § ¶ ‖
# a capitalised word that follows a number at a sentence start without being footnote text
_NOT_FOOTNOTE_WORDS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
    "|Mbps|Gbps|Kbps|Tbps|Gyr|Myr|Kyr|Tesla"
    "|Hundred|Thousand|Million|Billion|Trillion|Percent"
    "|Seconds|Minutes|Hours|Days|Weeks|Months|Years|Times"
)
# section-heading words: "3 Results We found …" is a numbered heading merged into the
# paragraph when the word is followed by another capitalised word
_HEADING_WORDS = (
    "Abstract|Introduction|Background|Preliminaries|Overview|Related|Methods|Methodology"
    "|Materials|Approach|Implementation|Experiments|Experimental|Evaluation|Results|Analysis"
    "|Discussion|Limitations|Conclusion|Conclusions|Summary|Acknowledgements|Acknowledgments"
    "|Appendix"
)
# the word a footnote marker is glued or spaced to: a capitalised word of 3+ letters (not a
# month, unit, quantity word or heading), a two-letter sentence opener ("As" only spaced:
# "75As" is arsenic-75); a URL (footnote text such as "1 https://…")
_FOOTNOTE_TAIL = (
    rf"(?:\s*(?:https?://|www\.|(?!(?:{_NOT_FOOTNOTE_WORDS})\b)"
    rf"(?!(?:{_HEADING_WORDS})\s+[A-Z])[A-Z][a-z]{{2,}}"
    r"|(?:By|We|It|To|On|At|An|If|Of|So|Or|In|No)\b)|\s+As\b)"
)
_FOOTNOTE = re.compile(
    rf"^(?:[{_SUPERSCRIPT_DIGITS}]+{_FOOTNOTE_TAIL}"
    rf"|[1-9]\d?{_FOOTNOTE_TAIL}"
    rf"|[{_FOOTNOTE_SYMBOLS}]\s*(?:https?://|www\.|[A-Za-z][a-z]))"
)


def starts_with_footnote(sentence: str) -> bool:
    """Whether a sentence begins with a footnote marker (citeBench drops such sentences).

    S2ORC has no footnote annotation: the PDF parser flattens a superscript footnote mark
    into plain text, so a mark placed after a full stop ("… arguments.² The Netherlands …")
    opens the next sentence as ``2 The Netherlands …``, and footnote bodies merged into a
    paragraph read ``1 https://github.com/…``, ``²This work was …`` or ``*Corresponding
    author``. The rule is therefore textual, and deliberately narrow:

    * Unicode superscript digits (``¹²³…``) or a bare number of one or two digits (1–99,
      footnotes are numbered from 1), spaced or glued, followed by a URL, by a capitalised
      word of three or more letters, or by a two-letter sentence opener (``In``, ``As``,
      ``By``, ``We``, ``It``, ``Of``, ``No`` …). ``As`` counts only after a space, since
      ``75As`` is arsenic-75; ``In`` and ``No`` (indium, nobelium) may be glued, their
      isotopes have three-digit mass numbers (``115In``), which this rule never reads as
      a mark;
    * a footnote symbol (``*``, ``†``, ``‡``, ``§``, ``¶``, ``‖``) followed by a URL or a
      word (a letter then a lower-case letter).

    Kept on purpose: years and larger numbers ("2019 saw …", "48,505 SNPs …"), decimals
    and list labels ("1.7 …", "2) …", "3: …"), numbers before lower-case words ("10
    participants …", "7 in [3] …"), dimensions and isotopes ("3D models", "¹H NMR",
    "4He", "2Fe-2S", "75As NMR"), dates and units ("15 March …", "10 Mbps …"), quantity
    words ("5 Million people", "24 Hours later", "10 Percent", "Years", "Times" …), a
    numbered heading merged into the paragraph, i.e. a heading word followed by a
    capitalised word ("3 Results We found …", "2 Related Work Glorps …"; "3 Results are
    averaged …" is footnote text and dropped) and section signs before a number or roman
    numeral ("§3", "§IV"). The price is that a sentence really opening with a digit before
    another capitalised word ("3 Participants were …") is dropped; style guides spell
    such numbers out, so this is rare in published prose.
    """
    return _FOOTNOTE.match(sentence.lstrip()) is not None


_YEAR = r"(?:1[6-9]\d\d|20\d\d)[a-z]?"
_DIGIT_RUN = re.compile(r"\d+")
_NO_YEAR = r"(?:n\.\s?d\.?|in press|forthcoming|submitted|unpublished(?: data| work| results)?)"
# optional locator after the year: ", 296", ": 12-14", ", p. 3", ", pp. 28–29", ", chap. 3",
# ", Table 2", ", Fig. 1", ", § 4"; "sep" and "label" tell a labelled or ':' locator (whose
# number may look like a year: "pp. 1998-2005") from a bare ", 2020" (a second year)
_LOCATOR_LABEL = (
    r"(?i:pp?|chaps?|ch|secs?|sect|paras?|figs?|figures?|tables?|tab|eqs?|vol)\.?|\u00a7"
)
_LOCATOR = rf"(?:\s*(?P<sep>[,:])\s*(?P<label>(?:{_LOCATOR_LABEL})\s*)?\d+(?:\s*[-\u2013]\s*\d+)?)?"
# authors: start with a letter, hold no digit, ';' or square bracket except around an
# abbreviation ("World Health Organization [WHO]", APA group authors), end with a letter,
# '.', ')', ']' or an apostrophe (never '-': "-1988a" is the tail of a year range)
# (checked apart from the year: one regex with a lazy author part backtracks, ~10x slower;
# each bracket group must start with '[', which the runs around it exclude, so a failing
# match stays linear)
_AUTHORS = re.compile(r"[^\W\d_][^\d;\[\]]*(?:\[[A-Z][A-Za-z&.\-]*\][^\d;\[\]]*)*")
_AUTHORS_END = re.compile(r"[^\W\d_]|[.)\]'\u2019]")
_YEAR_AND_LOCATOR = re.compile(rf"{_YEAR}{_LOCATOR}")
_NO_YEAR_TAIL = re.compile(rf"{_NO_YEAR}$", re.IGNORECASE)
_NUMERIC = re.compile(r"^\d{1,4}[a-z]?$")
_YEAR_ONLY = re.compile(rf"^{_YEAR}$")
_ALPHA_LABEL = re.compile(r"^[A-Z][A-Za-z+]{0,7}\d{2}[a-z]?$")


def citation_style(marker: str) -> str | None:
    """The style of a citation marker holding exactly ONE citation, else ``None``.

    S2ORC's ``bibref`` span covers one citation's marker, possibly with a bracket or
    separator of the group it sits in (``[8,``, ``43]``, ``(Bryman 2001;``): those are
    stripped first (leading ``(``/``[``, trailing ``)``/``]``/``;``/``,``/``.``). The rest
    must then be, as a whole, one of

    * ``numeric``: one reference number, ``[12]``, ``(12)``, ``12]``, or bare (a flattened
      superscript, ``12``), possibly sub-numbered (``[12a]``); ``[3,4]``, ``[3-5]`` hold
      several;
    * ``alpha-label``: one bracketed alphanumeric key, ``[HZRS16]``, ``[Knu84a]``;
    * ``year``: a year alone, ``(2019)``, ``2019a`` (a narrative citation whose author the
      parser left outside the span);
    * ``author-year``: ``(Smith et al., 2019)``, ``(Smith and Lee 2019a, 296)``,
      ``(Smith, n.d.)``, ``(e.g. Smith 2019)``, ``(World Health Organization [WHO], 2019)``;
    * ``narrative``: ``Smith et al. (2019)``, ``Smith and Lee (2019a)``.

    After the year one locator may follow: a page number or range after ``,`` or ``:``,
    with or without ``p.``/``pp.``, or a labelled part (``chap. 3``, ``ch. 3``, ``sec. 2``,
    ``§ 4``, ``para. 2``, ``Table 2``, ``Fig. 1``, ``Eq. 5``, ``vol. 2``). A labelled or
    ``:`` locator may hold year-like numbers (``(Smith 2019, pp. 1998-2005)``); a bare
    ``, 2020`` is a second year.

    Rejected, because they hold several citations or none recognisable: anything with
    ``;`` inside (``(Smith, 2019; Lee, 2020)``, ``Smith (2019); Lee (2020)``), two years
    (``Smith 2019, 2020``, ``(Smith 2019, 1998-2005)``, ``(Smith 2019 and Lee 2020)``),
    a year with extra suffixes
    (``2010a,b``), a range fragment (``-1990a``), and text that is no citation at all
    (``(41 SNPs)``, ``Fig. 1)``, ``Smith et al.`` without a year).
    """
    text = " ".join(marker.split())
    core = text.lstrip("([").rstrip(")];,.").strip()
    if not core:
        return None
    if _NUMERIC.match(core):
        if _YEAR_ONLY.match(core) and not text.startswith("["):
            return "year"
        return "numeric"
    if "[" in text and _ALPHA_LABEL.match(core):
        return "alpha-label"
    if ";" in core:
        return None
    years = [
        m.start()
        for m in _DIGIT_RUN.finditer(core)
        if len(m.group()) == 4 and 1600 <= int(m.group()) <= 2099
    ]
    if years:
        year = _YEAR_AND_LOCATOR.fullmatch(core, years[0])
        if year is None:
            return None
        # further year-like numbers can only sit in the locator: pages after "pp." or ":"
        # ("pp. 1998-2005"), a second year after a bare comma ("2019, 2020")
        if len(years) > 1 and year["sep"] == "," and year["label"] is None:
            return None
        start = years[0]
    else:
        undated = _NO_YEAR_TAIL.search(core)
        if undated is None:
            return None
        start = undated.start()
    head = core[:start].rstrip()
    paren = head.endswith("(")
    authors = (head[:-1] if paren else head).rstrip(" ,")
    if not authors:
        return "year" if not paren and _YEAR_ONLY.fullmatch(core) else None
    if not (_AUTHORS.fullmatch(authors) and _AUTHORS_END.fullmatch(authors[-1])):
        return None
    return "narrative" if paren else "author-year"


# --------------------------------------------------------------------------- contexts


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
    check_style: bool = False,
    on_drop: Callable[[str], None] | None = None,
) -> Iterator[ExtractedContext]:
    """One context per (sentence, resolvable marker), in text order (see the module doc).

    The footnote rule is not applied to a sentence that opens inside a citation marker:
    the number there is a citation (a superscript marker), not a footnote mark.
    A context removed by a clean-up rule calls ``on_drop`` with :data:`DROP_FOOTNOTE` or
    :data:`DROP_STYLE` (once per resolvable marker, i.e. per context not yielded); the
    dropped marker still counts in the ``n_refs`` of its sentence's other contexts.
    """
    ordered = sorted(markers, key=lambda m: (m.start, m.end))
    for p_start, p_end in sorted(set(paragraphs)):
        inside = [m for m in ordered if p_start <= m.start and m.end <= p_end]
        if not inside:
            continue
        protected = [(m.start, m.end) for m in inside]
        for s_start, s_end in splitter(text, p_start, p_end, protected):
            in_sentence = [m for m in inside if s_start <= m.start and m.end <= s_end]
            # a sentence opening inside a marker opens with a citation, not a footnote mark
            # (a superscript marker a custom splitter left after the boundary)
            footnote = (
                bool(in_sentence)
                and not _inside(s_start, protected)
                and starts_with_footnote(text[s_start:s_end])
            )
            for m in in_sentence:
                if m.target is None:
                    continue
                if footnote:
                    reason = DROP_FOOTNOTE
                elif check_style and citation_style(text[m.start : m.end]) is None:
                    reason = DROP_STYLE
                else:
                    reason = None
                if reason is not None:
                    if on_drop is not None:
                        on_drop(reason)
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

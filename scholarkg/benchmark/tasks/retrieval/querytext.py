"""Citation-aware query text: what a citing sentence says about the paper it cites.

A citing sentence used as a query carries words that describe nothing of the cited paper:
the ``<REF>`` placeholder (or ``[CIT]``), the sentence's *other* citation markers
(``[12]``, ``(Collins, 1999)``, ``Och and Ney (2003)``, ``[HZRS16]``), and document
boilerplate (``Theorem REF``, ``Table 2``, ``Section 3.1``, ``[FORMULA]``). citeBench
(Gu et al.; its context builder) and the local-recommendation literature it follows
(He et al., WWW 2010; Jeong et al. 2020, "A context-aware citation recommendation model
with BERT and GCN") mask the target and strip the other markers before the text reaches a
ranker, and weigh the words nearest the citation (the window around ``[CIT]``) more than
the rest of the context. This module does those steps, each one separately switchable, so
each can be measured (``benchmarks/real/bench_text_choices.py``):

* ``"none"``: the text as given;
* ``"ref"``: ``<REF>`` / ``[CIT]`` / unarXive ``{{cite:…}}`` placeholders removed;
* ``"markers"``: ``ref`` + every other citation marker removed (numeric and alphanumeric
  brackets, parenthesised author–year groups, narrative ``Name et al. (2019)`` with the
  name). A name without a year (``Saha et al. [3] observe``, ``Saha et al. <REF>``) is
  not a marker (``citerec_contexts.citation_style``'s definitions) and stays: where the
  documents carry author names (reference strings) it is the best clue there is;
* ``"clean"``: ``markers`` + boilerplate removed (cross-references to theorems, sections,
  tables, figures, equations; ``[FORMULA]``/``[FIGURE]``/``[TABLE]`` placeholders; a bare
  ``REF`` left by a LaTeX converter).

:func:`weigh_ref_window` repeats the ``window`` words either side of the ``<REF>`` position
once, so term-frequency (BM25) and embedding rankers both lean towards them. As BM25's only
query it was a second free parameter chosen on few queries; as an *extra* input of
``retrieval``'s ``hybrid-learned`` (BM25 on this text beside BM25 and dense on the cleaned
one, window 3) it won on the dev queries and is the default there (``docs/results-real.md``).

Text without any of these (a DORIS-MAE query, an abstract) passes unchanged but for
whitespace, so the same handling is safe on every collection.
"""

from __future__ import annotations

import re

QUERY_MODES = ("none", "ref", "markers", "clean")

_REF = re.compile(r"<REF>|\[CIT\]|\{\{cite:[^{}]*\}\}", re.IGNORECASE)
_YEAR = r"(?:1[6-9]\d\d|20\d\d)[a-z]?"
#: [12], [3, 4], [3-5], [12a], [HZRS16], [Knu84a; Lee02]
_BRACKET = re.compile(
    r"\[\s*(?:\d{1,4}[a-z]?|[A-Z][A-Za-z+]{0,7}\d{2}[a-z]?)"
    r"(?:\s*[,;\u2013-]\s*(?:\d{1,4}[a-z]?|[A-Z][A-Za-z+]{0,7}\d{2}[a-z]?))*\s*\]"
)
#: a parenthesis holding a year: (Collins, 1999), (e.g. Och and Ney 2003; Koehn 2004), (1999)
_PAREN_YEAR = re.compile(rf"\((?=[^()]*\b{_YEAR}\b)[^()]{{0,200}}\)")
_NAME = r"(?:(?:de|van|von|der|den|da|di|le|la)\s+)*[A-Z][\w'\u2019-]+(?:\s+[A-Z][\w'\u2019-]+)?"
#: narrative citation: "Collins (1999)", "Och and Ney (2003)", "Brown et al. (1993a)"
_NARRATIVE = re.compile(
    rf"\b{_NAME}(?:\s+(?:and|&)\s+{_NAME}|\s+et\s+al\.?)?\s*\(\s*{_YEAR}(?:\s*[,;]\s*{_YEAR})*\s*\)"
)
_XREF = re.compile(
    r"\b(?:Theorems?|Lemmas?|Corollary|Corollaries|Propositions?|Definitions?|Remarks?|"
    r"Examples?|Conjectures?|Claims?|Sections?|Sect\.|Sec\.|Subsections?|Chapters?|"
    r"Appendix|Appendices|Tables?|Tab\.|Figures?|Figs?\.|Equations?|Eqs?\.|Algorithms?|"
    r"Steps?|Parts?|Footnotes?)\s*(?:REF\b|\d+(?:\.\d+)*[a-z]?|\(\d+\))(?:\s*(?:and|,|-)\s*"
    r"(?:REF\b|\d+(?:\.\d+)*))*"
)
_PLACEHOLDER = re.compile(r"\[(?:FORMULA|FIGURE|TABLE|MATH|EQUATION)\]|\bREF\b")
_EMPTY_BRACKETS = re.compile(r"\(\s*[,;]*\s*\)|\[\s*[,;]*\s*\]")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?)\]])")
_TOKEN = re.compile(r"\S+")


def _tidy(text: str) -> str:
    text = _EMPTY_BRACKETS.sub(" ", text)
    text = " ".join(text.split())
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text)


def citation_query(text: str, mode: str = "clean") -> str:
    """``text`` with the citation clutter of ``mode`` removed (see the module docstring)."""
    if mode not in QUERY_MODES:
        raise ValueError(f"unknown query mode {mode!r}; choose one of {QUERY_MODES}")
    if mode == "none":
        return text
    out = _REF.sub(" ", text)
    if mode in ("markers", "clean"):
        out = _NARRATIVE.sub(" ", out)
        out = _PAREN_YEAR.sub(" ", out)
        out = _BRACKET.sub(" ", out)
    if mode == "clean":
        out = _XREF.sub(" ", out)
        out = _PLACEHOLDER.sub(" ", out)
    return _tidy(out)


def weigh_ref_window(text: str, window: int, mode: str = "clean") -> str:
    """The cleaned ``text`` followed by the ``window`` words either side of its first
    ``<REF>``/``[CIT]`` once more (unchanged when it has none or ``window`` is 0)."""
    cleaned = citation_query(text, mode)
    m = _REF.search(text)
    if m is None or window <= 0:
        return cleaned
    before = citation_query(text[: m.start()], mode).split()[-window:]
    after = citation_query(text[m.end() :], mode).split()[:window]
    near = " ".join(before + after)
    return f"{cleaned} {near}" if near else cleaned

"""Features of a ``<REF>`` sentence for the diagnostic classes: tokens, length, location, POS.

Pitfalls handled (the citeBench paper (Maharjan, arXiv 2412.07713), data pitfalls): ``<REF>`` is
swapped for one placeholder token before
tokenising (tokenisers split it into ``<``, ``REF``, ``>``) and skipped when taking the words
before/after it; residual markers (``[3]``, ``(Smith et al., 2019)``, ``[CIT]``) are removed
first so the "word before" is never a bracket or a year.

POS tagging is pluggable (:class:`Tagger`): :class:`NltkTagger` (NLTK's averaged perceptron)
when its data is installed — it is a network download, so never assumed — and
:class:`RuleTagger`, a deterministic offline fallback (closed-class word lists, a list of
common verbs with their inflections, suffix rules), tested on fixtures. Tags are Penn
Treebank tags; :func:`pos_class` merges them with the published table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

PLACEHOLDER = "REFTOKEN"
_RESIDUAL = re.compile(r"\[CIT\]|\[[\d,\s–-]+\]|\([A-Z][^()]{0,60}?\d{4}[a-z]?\)|\[FORMULA\]")
_TOKEN = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:\.\d+)?|" + PLACEHOLDER)

#: the published merge table (the citeBench paper (Maharjan, arXiv 2412.07713)); any other tag ->
#: "others"
POS_CLASSES: dict[str, tuple[str, ...]] = {
    "verb": ("VB", "VBD", "VBG", "VBN", "VBP", "VBZ"),
    "noun": ("NN", "NNS", "NNP", "NNPS"),
    "adjective": ("JJ", "JJR", "JJS"),
    "adverb": ("RB", "RBR", "RBS"),
    "pronoun": ("PRP", "PRP$", "WP", "EX"),
    "preposition": ("IN", "TO"),
}
_TAG_CLASS = {tag: cls for cls, tags in POS_CLASSES.items() for tag in tags}


def pos_class(tag: str | None) -> str:
    return _TAG_CLASS.get(tag or "", "others")


class Tagger(Protocol):
    @property
    def name(self) -> str: ...

    def tag(self, tokens: Sequence[str]) -> list[str]:
        """One Penn Treebank tag per token."""
        ...


_CLOSED: dict[str, str] = {
    **dict.fromkeys(
        (
            "the",
            "a",
            "an",
            "this",
            "that",
            "these",
            "those",
            "each",
            "every",
            "some",
            "any",
            "no",
            "another",
        ),
        "DT",
    ),
    **dict.fromkeys(
        (
            "in",
            "of",
            "on",
            "at",
            "by",
            "for",
            "with",
            "from",
            "into",
            "over",
            "under",
            "between",
            "through",
            "during",
            "after",
            "before",
            "about",
            "against",
            "among",
            "within",
            "without",
            "via",
            "than",
            "as",
            "since",
            "because",
            "while",
            "although",
            "if",
            "whereas",
            "like",
            "per",
        ),
        "IN",
    ),
    "to": "TO",
    **dict.fromkeys(("and", "or", "but", "nor", "yet"), "CC"),
    **dict.fromkeys(
        ("we", "i", "you", "he", "she", "it", "they", "us", "them", "him", "me"), "PRP"
    ),
    **dict.fromkeys(("our", "their", "its", "his", "her", "my", "your"), "PRP$"),
    **dict.fromkeys(("who", "what", "whom"), "WP"),
    **dict.fromkeys(("which", "whose"), "WDT"),
    **dict.fromkeys(("where", "when", "how", "why"), "WRB"),
    "there": "EX",
    **dict.fromkeys(
        ("can", "could", "may", "might", "must", "shall", "should", "will", "would"), "MD"
    ),
    **dict.fromkeys(("is", "are", "am"), "VBZ"),
    **dict.fromkeys(("was", "were"), "VBD"),
    "be": "VB",
    "been": "VBN",
    "being": "VBG",
    "has": "VBZ",
    "have": "VBP",
    "had": "VBD",
    "does": "VBZ",
    "do": "VBP",
    "did": "VBD",
    **dict.fromkeys(
        (
            "not",
            "also",
            "very",
            "recently",
            "previously",
            "however",
            "further",
            "often",
            "well",
            "only",
            "still",
            "already",
            "then",
            "thus",
            "here",
            "similarly",
            "respectively",
            "too",
            "again",
        ),
        "RB",
    ),
    **dict.fromkeys(("all", "both", "such", "half"), "PDT"),
}
_VERBS = frozenset(
    [
        "show",
        "propose",
        "use",
        "report",
        "introduce",
        "improve",
        "extend",
        "describe",
        "measure",
        "predict",
        "explain",
        "reduce",
        "model",
        "find",
        "present",
        "demonstrate",
        "suggest",
        "apply",
        "develop",
        "study",
        "observe",
        "obtain",
        "compare",
        "follow",
        "achieve",
        "provide",
        "employ",
        "adopt",
        "define",
        "evaluate",
        "analyse",
        "analyze",
        "investigate",
        "examine",
        "identify",
        "estimate",
        "derive",
        "perform",
        "consider",
        "address",
        "outperform",
        "combine",
        "require",
        "increase",
        "decrease",
        "allow",
        "enable",
        "lead",
        "indicate",
        "reveal",
        "confirm",
        "note",
        "argue",
        "claim",
        "build",
        "train",
        "learn",
        "compute",
        "generate",
        "design",
        "implement",
        "base",
        "focus",
        "discuss",
    ]
)
_ADJECTIVES = frozenset(
    [
        "novel",
        "new",
        "different",
        "similar",
        "large",
        "small",
        "recent",
        "previous",
        "other",
        "same",
        "high",
        "low",
        "good",
        "better",
        "best",
        "first",
        "second",
        "last",
        "several",
        "many",
        "various",
        "important",
        "simple",
        "robust",
        "efficient",
        "main",
        "major",
        "recent",
        "early",
        "late",
        "prior",
        "further",
        "strong",
        "weak",
    ]
)
_ADJ_SUFFIX = ("ic", "al", "ous", "ive", "able", "ible", "ful", "less", "ary", "ant", "ent")
_NOUN_SUFFIX = (
    "tion",
    "sion",
    "ment",
    "ness",
    "ity",
    "ism",
    "ance",
    "ence",
    "ure",
    "ship",
    "er",
    "or",
    "ist",
    "ogy",
    "on",
)


def _verb_form(word: str) -> str | None:
    if word in _VERBS:
        return "VBP"
    for suffix, tag in (
        ("ies", "VBZ"),
        ("es", "VBZ"),
        ("s", "VBZ"),
        ("ed", "VBD"),
        ("d", "VBD"),
        ("ing", "VBG"),
    ):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            for candidate in (
                stem,
                stem + "e",
                stem + "y",
                stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem,
            ):
                if candidate in _VERBS:
                    return tag
    return None


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith(("ss", "sis", "us", "ics"))


@dataclass(frozen=True)
class RuleTagger:
    """Deterministic offline Penn tagger (see the module doc). ``name`` is recorded."""

    name: str = "rules-v1"

    def tag(self, tokens: Sequence[str]) -> list[str]:
        tags = []
        for i, token in enumerate(tokens):
            low = token.lower()
            if token == PLACEHOLDER:
                tags.append("NNP")
            elif low == "that" and tags and tags[-1].startswith("VB"):
                tags.append("IN")  # complementiser: "shows that"
            elif low in _CLOSED:
                tags.append(_CLOSED[low])
            elif low in _ADJECTIVES:
                tags.append("JJ")
            elif re.fullmatch(r"\d+(?:\.\d+)?", token):
                tags.append("CD")
            elif (form := _verb_form(low)) is not None:
                prev = tags[-1] if tags else ""
                nominal = prev in ("DT", "JJ", "VBN", "PRP$", "IN", "CD", "PDT")
                if form == "VBZ" and nominal:
                    form = "NNS"  # "the proposed models", "in studies"
                elif form == "VBP" and nominal:
                    form = "NN"  # "a model", "the use"
                elif form == "VBD" and prev in ("DT", "VBZ", "VBD", "VBP"):
                    form = "VBN"  # "the proposed method", "were evaluated"
                tags.append(form)
            elif low.endswith("ly") and len(low) > 4:
                tags.append("RB")
            elif low.endswith(_ADJ_SUFFIX):
                tags.append("JJ")
            elif token[0].isupper() and i > 0:
                tags.append("NNP")
            elif low.endswith(_NOUN_SUFFIX):
                tags.append("NNS" if _plural(low) else "NN")
            elif _plural(low) and len(low) > 3:
                tags.append("NNS")
            else:
                tags.append("NN")
        return tags


class NltkTagger:
    """NLTK's averaged perceptron tagger; only usable when its data is installed."""

    name = "nltk-perceptron"

    def __init__(self) -> None:
        import nltk  # type: ignore[import-untyped]  # ships no type information

        self._tag = nltk.pos_tag
        self._tag(["probe"])  # LookupError when the model data is missing

    def tag(self, tokens: Sequence[str]) -> list[str]:
        return [t for _, t in self._tag(list(tokens))]


def load_tagger(name: str = "auto") -> Tagger:
    """``rules`` (the fallback), ``nltk`` (error if its data is missing) or ``auto``."""
    if name == "rules":
        return RuleTagger()
    try:
        return NltkTagger()
    except (ImportError, LookupError) as err:
        if name == "nltk":
            from scholarkg.errors import ConfigError

            raise ConfigError(
                f"NLTK tagger data is not installed ({type(err).__name__}); use --tagger rules"
            ) from err
        return RuleTagger()


@dataclass(frozen=True)
class SentenceFeatures:
    tokens: tuple[str, ...]
    length_tokens: int
    ref_index: int | None
    location_ratio: float | None
    word_before: str | None
    word_after: str | None
    tag_before: str | None
    tag_after: str | None


def tokens_of(text: str) -> list[str]:
    """Word tokens of a masked sentence, ``<REF>`` as :data:`PLACEHOLDER`, markers removed."""
    cleaned = _RESIDUAL.sub(" ", text.replace("<REF>", f" {PLACEHOLDER} "))
    return _TOKEN.findall(cleaned)


def sentence_features(text: str, tagger: Tagger) -> SentenceFeatures:
    """Length in words (the placeholder not counted), location ratio = index of ``<REF>`` /
    length, and the words and tags right before and after ``<REF>``."""
    tokens = tokens_of(text)
    words = [t for t in tokens if t != PLACEHOLDER]
    if PLACEHOLDER not in tokens:
        return SentenceFeatures(tuple(tokens), len(words), None, None, None, None, None, None)
    ref = tokens.index(PLACEHOLDER)
    tags = tagger.tag(tokens)
    before = ref - 1 if ref > 0 else None
    after = ref + 1 if ref + 1 < len(tokens) else None
    return SentenceFeatures(
        tokens=tuple(tokens),
        length_tokens=len(words),
        ref_index=ref,
        location_ratio=ref / len(words) if words else None,
        word_before=tokens[before] if before is not None else None,
        word_after=tokens[after] if after is not None else None,
        tag_before=tags[before] if before is not None else None,
        tag_after=tags[after] if after is not None else None,
    )


def location_class(ratio: float) -> str:
    """Thirds (the cut points are unpublished; the citeBench paper (Maharjan, arXiv 2412.07713)):
    first < 1/3 <= middle <= 2/3 <
    last."""
    if ratio < 1 / 3:
        return "first"
    return "middle" if ratio <= 2 / 3 else "last"

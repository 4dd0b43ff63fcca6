"""Records of AAAR-1.0 (EqInfer, ExpDesign, Weakness) and ReviewCritique beyond ``records.py``.

Graph model (the AAAR graph model in docs/families/aaar.md, parents as edges, never as properties)::

    (:Paper)-[:HAS_SECTION {ordinal}]->(:Section {title, text, kind})
    (:Paper)-[:HAS_FIGURE]->(:Figure {name, kind: figure|table})
    (:Paper)-[:HAS_ITEM]->(:EqItem {index, context_before, context_after, options, answer})
    (:EqItem)-[:HAS_OPTION {letter}]->(:Equation {letter, latex, correct})
    (:Paper)-[:HAS_EXPERIMENT {ordinal}]->(:Experiment {text})-[:EXPLAINED_BY]->(:Explanation)
    (:Review)-[:REVIEWS]->(:Paper)
    (:Review)-[:HAS_WEAKNESS {ordinal}]->(:Weakness {text})
    (:Review)-[:HAS_SEGMENT {ordinal}]->(:ReviewSegment {text, deficient, explanation, error_type})

Fields named after a parent (``paper``, ``item``, ``experiment``) only feed the stable id and
the loader's edges: they are ``NOT_STORED``. The released EqInfer file names no paper, so an
EqItem has a ``HAS_ITEM`` parent only when the input record carries one (``paper_id``).
"""

from __future__ import annotations

from typing import ClassVar, Literal

from scholarkg.schema import ids
from scholarkg.schema.records import EdgeRecord, HasSection, NodeRecord, Section

#: id scope of every AAAR-1.0 node (``review:aaar:...``) and of ReviewCritique
AAAR_SOURCE = "aaar"
REVIEWCRITIQUE_SOURCE = "reviewcritique"


class Figure(NodeRecord):
    """A figure or table image shipped with a paper (``<id>-Figure1.png``, ``-Table2.png``)."""

    LABEL: ClassVar[str] = "Figure"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"paper"})
    paper: str
    name: str
    kind: Literal["figure", "table", "image"] = "image"
    #: the caption pdffigures2 extracted (``images/*_data_*.json``), and its page
    caption: str | None = None
    page: int | None = None

    ID_RULE = staticmethod(lambda d: f"{d['paper']}/figure/{d['name']}")


class EqItem(NodeRecord):
    """One EqInfer item: the LaTeX around a removed equation, four options, the gold letter.

    ``index`` is the 0-based position in the released file: result files of the released
    scripts carry no id, so predictions are aligned by it. The id hashes the content, so the
    same item loaded from a re-ordered file is still one node.
    """

    LABEL: ClassVar[str] = "EqItem"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"paper"})
    index: int
    context_before: str
    context_after: str
    options: str
    answer: Literal["A", "B", "C", "D"]
    paper: str | None = None
    source: str = AAAR_SOURCE

    ID_RULE = staticmethod(
        lambda d: ids.scoped_id(
            "eqitem",
            d.get("source", AAAR_SOURCE),
            ids.content_hash(d["context_before"], d["context_after"], d["options"]),
        )
    )


class Equation(NodeRecord):
    """A candidate equation of an EqItem; ``correct`` marks the gold option."""

    LABEL: ClassVar[str] = "Equation"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"item"})
    item: str
    letter: Literal["A", "B", "C", "D"]
    latex: str
    correct: bool

    ID_RULE = staticmethod(lambda d: f"{d['item']}/option/{d['letter']}")


class Explanation(NodeRecord):
    """Why a gold experiment is suggested (ExpDesign's second list, index-aligned)."""

    LABEL: ClassVar[str] = "Explanation"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"experiment"})
    experiment: str
    text: str

    ID_RULE = staticmethod(lambda d: f"{d['experiment']}/explanation")


# --------------------------------------------------------------------------- edges


class HasFigure(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_FIGURE"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Figure"


class HasItem(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_ITEM"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "EqItem"


class HasOption(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_OPTION"
    START: ClassVar[str] = "EqItem"
    END: ClassVar[str] = "Equation"
    letter: str


class HasExperiment(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_EXPERIMENT"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Experiment"
    ordinal: int


class ExplainedBy(EdgeRecord):
    TYPE: ClassVar[str] = "EXPLAINED_BY"
    START: ClassVar[str] = "Experiment"
    END: ClassVar[str] = "Explanation"


class Reviews(EdgeRecord):
    TYPE: ClassVar[str] = "REVIEWS"
    START: ClassVar[str] = "Review"
    END: ClassVar[str] = "Paper"


class HasWeakness(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_WEAKNESS"
    START: ClassVar[str] = "Review"
    END: ClassVar[str] = "Weakness"
    ordinal: int


class HasSegment(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_SEGMENT"
    START: ClassVar[str] = "Review"
    END: ClassVar[str] = "ReviewSegment"
    ordinal: int


__all__ = [
    "AAAR_SOURCE",
    "REVIEWCRITIQUE_SOURCE",
    "EqItem",
    "Equation",
    "ExplainedBy",
    "Explanation",
    "Figure",
    "HasExperiment",
    "HasFigure",
    "HasItem",
    "HasOption",
    "HasSection",
    "HasSegment",
    "HasWeakness",
    "Reviews",
    "Section",
]

"""DORIS-MAE records beyond the shared ``Query`` / ``Aspect`` / ``Judgement`` (schema/records.py).

Graph model (the DORIS-MAE graph model in docs/families/dorismae.md, with abstracts as ``Paper``
nodes so that a paper loaded from
another corpus is the same node)::

    (:Query {qid, text, type, split})-[:HAS_ASPECT]->(:Aspect {aspect_id, text})
    (:Query)-[:HAS_SUB_ASPECT {parent}]->(:Aspect)-[:SUB_ASPECT_OF]->(:Aspect)
    (:Query)-[:HAS_SENTENCE {ordinal}]->(:Sentence {text})-[:EXPRESSES]->(:Aspect)
    (:Query)-[:HAS_CANDIDATE {position}]->(:Paper {doris_abstract_id, ...})
    (:Paper)-[:CITES]->(:Paper)
    (:Aspect)-[:JUDGED {score, source, annotator, key}]->(:Paper)
    (:SubQuery {qid, text, pair})-[:DERIVED_FROM]->(:Query)
    (:SubQuery)-[:USES_ASPECT {role}]->(:Aspect)

The units of a query are the DISTINCT aspects reachable by ``HAS_ASPECT|HAS_SUB_ASPECT``
(``USES_ASPECT`` for a sub-query): identical aspect strings share one id, so node identity
gives the distinct count |Q| that relevance divides by.
"""

from __future__ import annotations

from typing import ClassVar

from scholarkg.schema import ids
from scholarkg.schema.records import EdgeRecord, NodeRecord, Paper

SOURCE = "dorismae"


class DorisPaper(Paper):
    """A corpus abstract: a ``Paper`` plus the dataset's own id and Semantic Scholar id.

    ``doris_abstract_id`` is the abstract's list index in ``Corpus``: run files use it as
    the docid, so it is stored (and indexed) on the shared Paper node.

    ``doris_abstract`` is the dataset's own text of the abstract (``original_abstract``),
    the document the benchmark ranks. The shared ``abstract`` holds it too, but any later
    record of the work may overwrite that (an OpenAlex record rebuilds its abstract from an
    inverted index; S2, arXiv or another family state theirs), and the shared node is the
    point of keeping one node per work. The benchmark reads this copy, so its scores do not
    depend on what else the graph holds or the order things were loaded in; the price is
    the abstract stored twice on the corpus's Papers.
    """

    doris_abstract_id: int
    doris_abstract: str | None = None
    ss_id: str | None = None
    primary_category: str | None = None


class Sentence(NodeRecord):
    """One sentence of a query, in order (``ordinal``); id scoped by the query."""

    LABEL: ClassVar[str] = "Sentence"
    text: str
    query: str
    ordinal: int

    ID_RULE = staticmethod(lambda d: f"{d['query']}/sent/{d['ordinal']}")


class SubQuery(NodeRecord):
    """A two-aspect sub-query built from a parent query
    (``Real-Doris-Mae/Doris-Mae-Dataset:benchmarking/dataset_util.py`` construction rule).

    ``qid`` is ``<parent qid>:<aspect a>+<aspect b>`` (stable; the released
    ``subquery-2.txt`` numbering is shuffled and carries no parent, so it is kept as
    ``upstream_no`` when a block's text matches).
    """

    LABEL: ClassVar[str] = "SubQuery"
    qid: str
    parent_qid: str
    text: str
    pair: list[str]
    source: str = SOURCE
    upstream_no: int | None = None

    ID_RULE = staticmethod(lambda d: ids.scoped_id("subquery", d.get("source", SOURCE), d["qid"]))


class HasAspect(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_ASPECT"
    START: ClassVar[str] = "Query"
    END: ClassVar[str] = "Aspect"


class HasSubAspect(EdgeRecord):
    """``(Query)-[:HAS_SUB_ASPECT {parent}]->(Aspect)``; ``parent`` is the aspect id refined."""

    TYPE: ClassVar[str] = "HAS_SUB_ASPECT"
    START: ClassVar[str] = "Query"
    END: ClassVar[str] = "Aspect"
    parent: str


class SubAspectOf(EdgeRecord):
    TYPE: ClassVar[str] = "SUB_ASPECT_OF"
    START: ClassVar[str] = "Aspect"
    END: ClassVar[str] = "Aspect"


class HasSentence(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_SENTENCE"
    START: ClassVar[str] = "Query"
    END: ClassVar[str] = "Sentence"
    ordinal: int


class Expresses(EdgeRecord):
    TYPE: ClassVar[str] = "EXPRESSES"
    START: ClassVar[str] = "Sentence"
    END: ClassVar[str] = "Aspect"


class HasCandidate(EdgeRecord):
    """``(Query)-[:HAS_CANDIDATE {position}]->(Paper)``: pool membership, in pool order."""

    TYPE: ClassVar[str] = "HAS_CANDIDATE"
    START: ClassVar[str] = "Query"
    END: ClassVar[str] = "Paper"
    position: int


class DerivedFrom(EdgeRecord):
    TYPE: ClassVar[str] = "DERIVED_FROM"
    START: ClassVar[str] = "SubQuery"
    END: ClassVar[str] = "Query"


class UsesAspect(EdgeRecord):
    """``(SubQuery)-[:USES_ASPECT {role}]->(Aspect)``: a unit of the sub-query."""

    TYPE: ClassVar[str] = "USES_ASPECT"
    START: ClassVar[str] = "SubQuery"
    END: ClassVar[str] = "Aspect"
    role: str


def query_node_id(qid: int | str) -> str:
    return ids.scoped_id("query", SOURCE, qid)


def aspect_node_id(aspect_id: int | str) -> str:
    return ids.scoped_id("aspect", SOURCE, aspect_id)

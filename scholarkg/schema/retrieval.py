"""Records of the retrieval family: BEIR-layout test collections and their judgements.

A BEIR-layout collection (``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``) becomes:

* ``(:Collection {id: "collection:beir:<name>", name, kind})`` — the collection itself;
* ``(:Paper)-[:IN_COLLECTION {doc_id}]->(:Collection)`` — each document is a Paper (ids by
  :func:`doc_paper_id`), and ``doc_id`` keeps the collection's own id for run files;
* ``(:Query {id: "query:beir:<name>:<qid>", qid, text, source: "beir:<name>"})``
  ``-[:IN_COLLECTION]->(:Collection)``;
* ``(:Query)-[:HAS_QREL {score, split}]->(:Paper)`` — one judgement. MERGE is per
  (query, paper) pair, so a pair judged in two splits keeps the last split read; BEIR's
  splits use disjoint queries, so this does not happen in released collections.

Why the membership edge instead of a ``collection`` property on Paper: a paper whose id is a
DOI or arXiv id is *one* node shared with every other source (``schema/ids.py``), and it may
sit in several collections under different collection ids.
"""

from __future__ import annotations

from typing import ClassVar

from scholarkg.schema import ids
from scholarkg.schema.records import EdgeRecord, NodeRecord


def collection_id(kind: str, name: str) -> str:
    return f"collection:{kind}:{name}"


def beir_source(name: str) -> str:
    """``Query.source`` of a BEIR collection's queries (and the scope of its doc ids)."""
    return f"beir:{name}"


def doc_paper_id(collection: str, doc_id: str) -> str:
    """The Paper id of a collection document.

    A document id that is an arXiv id or a DOI joins the paper everyone else loads under the
    same rules (``arxiv:…`` / ``doi:…``); any other id is opaque and scoped to its collection
    (``beir:<name>:<doc id>``), because ``"1234"`` in two collections are different papers.
    """
    raw = str(doc_id).strip()
    if a := ids.normalize_arxiv_id(raw):
        return f"arxiv:{a}"
    if d := ids.normalize_doi(raw):
        return f"doi:{d}"
    return f"{beir_source(collection)}:{raw}"


class Collection(NodeRecord):
    """A test collection (a BEIR-layout directory); ``kind`` says which layout."""

    LABEL: ClassVar[str] = "Collection"
    name: str
    kind: str
    path: str | None = None

    ID_RULE = staticmethod(lambda d: collection_id(d["kind"], d["name"]))


class PaperInCollection(EdgeRecord):
    """``(Paper)-[:IN_COLLECTION {doc_id}]->(Collection)``.

    A document whose id is an arXiv id or a DOI is the Paper every other source of the work
    writes too (``doc_paper_id``), and the last record of the work writes its shared title
    and abstract. Its edge then keeps the collection's own text (``own_text``, ``doc_title``,
    ``doc_text``), which the benchmark ranks, so a later load of the work changes no score.
    A collection-scoped document (``beir:<name>:<id>``) is written by its collection only:
    its Paper's text is the collection's, and the edge holds no copy."""

    TYPE: ClassVar[str] = "IN_COLLECTION"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Collection"
    doc_id: str
    own_text: bool | None = None
    doc_title: str | None = None
    doc_text: str | None = None


class QueryInCollection(EdgeRecord):
    """``(Query)-[:IN_COLLECTION]->(Collection)``."""

    TYPE: ClassVar[str] = "IN_COLLECTION"
    START: ClassVar[str] = "Query"
    END: ClassVar[str] = "Collection"


class Qrel(EdgeRecord):
    """``(Query)-[:HAS_QREL {score, split}]->(Paper)``: a graded judgement of one split."""

    TYPE: ClassVar[str] = "HAS_QREL"
    START: ClassVar[str] = "Query"
    END: ClassVar[str] = "Paper"
    score: float
    split: str

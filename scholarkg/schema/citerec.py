"""Records of the citation-recommendation family: test collections and their judgements.

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
from scholarkg.schema.records import Author, EdgeRecord, NodeRecord, Paper, Venue


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
    """``(Paper)-[:IN_COLLECTION {doc_id}]->(Collection)``."""

    TYPE: ClassVar[str] = "IN_COLLECTION"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Collection"
    doc_id: str


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


# --------------------------------------------------------------------------- Semantic Scholar
#
# The S2 datasets carry more per-node facts than the shared records hold; these subclasses
# keep the shared label and id rule and add the S2 fields, so a paper loaded from S2 and from
# arXiv is still one node (``schema/ids.py``).


class S2Paper(Paper):
    """A Paper from the S2 ``papers`` dataset (also updated by ``abstracts`` and ``tldrs``)."""

    reference_count: int | None = None
    influential_citation_count: int | None = None
    is_open_access: bool | None = None
    publication_types: list[str] | None = None
    s2_venue_id: str | None = None
    mag_id: str | None = None
    pubmed_id: str | None = None
    pmc_id: str | None = None
    dblp_id: str | None = None
    acl_id: str | None = None
    tldr: str | None = None


class S2Author(Author):
    """An Author from S2; the id is always ``s2author:<authorid>`` (see the S2 loader)."""

    aliases: list[str] | None = None
    paper_count: int | None = None
    citation_count: int | None = None
    h_index: int | None = None
    homepage: str | None = None
    affiliations: list[str] | None = None
    dblp_names: list[str] | None = None


class S2Venue(Venue):
    """A publication venue from S2 (``publication-venues``); the id is the shared name rule."""

    s2_venue_id: str | None = None
    issn: str | None = None
    type: str | None = None
    url: str | None = None
    alternate_names: list[str] | None = None


class S2Citation(EdgeRecord):
    """``(citing)-[:CITES]->(cited)`` from the S2 ``citations`` dataset.

    ``contexts`` are the citing snippets as S2 gives them (markers not masked). ``intents``
    is the set of intents over all contexts; ``context_intents`` the per-context lists as a
    JSON string (newer releases; neither backend stores nested lists portably).
    """

    TYPE: ClassVar[str] = "CITES"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Paper"
    contexts: list[str] | None = None
    intents: list[str] | None = None
    context_intents: str | None = None
    is_influential: bool | None = None
    citation_id: str | None = None
    source: str | None = None


class InPaper(EdgeRecord):
    """``(CitationContext)-[:IN_PAPER]->(Paper)``: the citing paper."""

    TYPE: ClassVar[str] = "IN_PAPER"
    START: ClassVar[str] = "CitationContext"
    END: ClassVar[str] = "Paper"


class Gold(EdgeRecord):
    """``(CitationContext)-[:GOLD]->(Paper)``: the cited paper (the answer)."""

    TYPE: ClassVar[str] = "GOLD"
    START: ClassVar[str] = "CitationContext"
    END: ClassVar[str] = "Paper"


class PublishedIn(EdgeRecord):
    """``(Paper)-[:IN_VENUE]->(Venue)``."""

    TYPE: ClassVar[str] = "IN_VENUE"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Venue"


class DiagnosticDataset(NodeRecord):
    """A built citeBench-style diagnostic dataset (``diag:<build name>/<dataset>``).

    ``cuts`` is a JSON string of the cut values the classes were derived with (length
    mean/std and bounds, citation-count decile edges per stratum, main-field shares), stored
    with ``version`` so a dataset is reproducible and comparable across rebuilds.
    """

    LABEL: ClassVar[str] = "DiagnosticDataset"
    name: str
    build: str
    version: str
    seed: int
    cuts: str
    n_examples: int
    classes: list[str]
    tagger: str

    ID_RULE = staticmethod(lambda d: f"diag:{d['build']}/{d['name']}")


class InDataset(EdgeRecord):
    """``(CitationContext)-[:IN_DATASET]->(DiagnosticDataset)``."""

    TYPE: ClassVar[str] = "IN_DATASET"
    START: ClassVar[str] = "CitationContext"
    END: ClassVar[str] = "DiagnosticDataset"

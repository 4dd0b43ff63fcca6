"""Records of the citation-recommendation family: Semantic Scholar's papers, authors, venues
and citations with the fields S2 adds, a citing sentence's paper and gold (``IN_PAPER``,
``GOLD``), and citeBench-style diagnostic datasets.

BEIR-layout test collections and their judgements are the retrieval family's
(``schema/retrieval.py``).
"""

from __future__ import annotations

from typing import ClassVar

from scholarkg.schema.records import Author, EdgeRecord, NodeRecord, Paper, Venue

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
    #: S2 states it (its citations dataset, a Graph API paper's reference list): another
    #: source's reload that no longer lists the edge takes only its own mark off and keeps it
    from_s2: bool | None = None


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

"""Whose value a work's shared properties hold when several source records describe it.

The open catalogues (arXiv, Crossref, OpenAlex, a researcher's BibTeX) and S2 each describe
a work with their own title, abstract, dates, venue…; the graph keeps one Paper per work, so
each of those properties takes the value of the best-ranked source that gave one. This
module is that rule and the names it needs (the record's key within its source, the slot
that holds it), shared by identity resolution (``identity.py``) and the per-record
statements (``statements.py``) without either importing the other's machinery.
"""

from __future__ import annotations

from scholarkg.schema.records import Paper

__all__ = [
    "EDGE_MARKS",
    "RANKED_FIELDS",
    "RECORD_MARKS",
    "SOURCE_RANK",
    "SOURCE_SLOT",
    "record_key",
    "source_rank",
]

#: the id slot that names a record within its source: a Paper's own record of a source is
#: the one whose id there is the Paper's (a second record of the source, e.g. a preprint's
#: OpenAlex record on its article's node, has its id in ``alt_ids``). A ``.bib`` entry has no
#: id of its own source; it names a work by its DOI first, as Crossref does, so its DOI is
#: its record id (an entry with only an arXiv id or a title is always its Paper's own)
SOURCE_SLOT = {"openalex": "openalex_id", "crossref": "doi", "arxiv": "arxiv_id", "bibtex": "doi"}

#: the mark a work's own record of an open catalogue puts on the CITES and AUTHORED_BY
#: edges it states (another record of the work states them in ``also``); one per
#: ``SOURCE_SLOT`` source, whose slot tells a work's own record from another
RECORD_MARKS = ("from_openalex", "from_arxiv", "from_crossref", "from_bibtex")
#: every source mark an edge can carry: the catalogues' and S2's (``load s2``, which keys its
#: records itself: no slot, no ``also``). The prune, unmark and copy queries of
#: ``queries/identity`` name each (``tests/core/test_source_marks.py`` holds them to it)
EDGE_MARKS = (*RECORD_MARKS, "from_s2")

#: which source's values a work's shared properties (title, abstract, dates, venue…) hold
#: when several describe it, best first: the author's own deposit (arXiv), then the
#: publisher's (Crossref), then the aggregators (S2, OpenAlex), then a researcher's own
#: ``.bib`` (hand-typed or exported by a reference manager from any of those, often
#: abbreviated: it fills what no catalogue gave, never overrides one). Anything else ranks
#: last.
SOURCE_RANK = {"arxiv": 0, "crossref": 1, "s2": 2, "openalex": 3, "bibtex": 4}

#: the properties several sources give a work, whose value follows ``SOURCE_RANK``; the
#: rest are a source's own (OpenAlex's open-access status, arXiv's categories), the ids, the
#: citation count (the largest) and the bookkeeping (``source``, ``named_by``)
RANKED_FIELDS = (
    "title", "title_norm", "abstract", "year", "date", "venue", "work_type", "language", "url",
    "fields_of_study",
)  # fmt: skip


def source_rank(source: str | None) -> int:
    """``SOURCE_RANK`` of ``source`` (lower is better; unknown and none rank last)."""
    return SOURCE_RANK.get(source or "", 9)


def record_key(rec: Paper) -> str:
    """The key ``<source>:<id within the source>`` of a source record: its id in the
    source's slot (``openalex:W5``, ``crossref:10.1/x``, ``arxiv:2101.00001``), so two
    records of one source sharing a DOI (hence one best id) keep two keys. A record that
    is not its Paper's own states its edges under it (``also`` lists), and every record of
    a work several describe keeps its values under it (a ``Statement``). A record without
    that id falls back to its parsed id."""
    source = rec.source or ""
    slot = SOURCE_SLOT.get(source)
    value = getattr(rec, slot) if slot is not None else None
    return f"{source}:{value}" if value not in (None, "") else f"{source}:{rec.id}"

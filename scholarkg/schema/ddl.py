"""The graph model as data: labels, relationship types, keys and indexes.

Both backends render this one spec into their own DDL (``store/*_dialect.py``), so the
graph looks the same whichever store holds it. These sets are also the *whitelists*:
a label, relationship type or indexed property that is not named here never reaches a
Cypher string (values always travel as parameters).

The model is assembled, not listed: the core below (papers, authors, citations, runs) plus
the :class:`~scholarkg.schema.spec.SchemaPart` each benchmark family declares. The schema is
the bottom layer and imports nothing above it: the families' catalog (``scholarkg.families``,
imported by ``scholarkg.store``) registers its parts here with
:func:`register_family_parts`. A new family's labels join the whitelists, the constraints and
the properties ``graph pagerank --write`` must not overwrite without an edit here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from functools import lru_cache

from scholarkg.errors import InputError
from scholarkg.schema.spec import (
    FulltextIndex,
    LookupIndex,
    NodeKey,
    SchemaPart,
    SchemaSpec,
    VectorIndex,
)

__all__ = [
    "CORE",
    "MARKER_LABELS",
    "STUB",
    "FulltextIndex",
    "LookupIndex",
    "NodeKey",
    "SchemaPart",
    "SchemaSpec",
    "VectorIndex",
    "check_label",
    "check_property",
    "check_rel_type",
    "declared_properties",
    "default_schema",
    "node_labels",
    "register_family_parts",
    "rel_types",
]

#: What every family builds on: the bibliographic core, complex queries (DORIS-MAE's and the
#: BEIR collections' ``Query``), and the runs benchmarks record.
CORE = SchemaPart(
    labels=frozenset(
        {
            "Paper", "Author", "Venue", "CitationContext", "Chunk", "Section", "Repository",
            "Query", "Run", "MetricResult",
            "PaperAlias",  # an id of a Paper no slot holds (loaders/identity.py)
            "AuthorAlias",  # an id of an Author no slot holds (loaders/author_identity.py)
            "Stub",  # second label of a Paper no source record described (MARKER_LABELS)
            "LoadState",  # the snapshot partitions a graph took (loaders/openalex_updates.py)
            "Statement",  # one source record's values of a work several describe (identity)
        }
    ),
    rel_types=frozenset(
        {
            "AUTHORED_BY", "IN_VENUE", "CITES", "HAS_CHUNK", "HAS_SECTION", "HAS_CODE",
            "IN_PAPER", "GOLD",  # CitationContext -> citing / cited Paper
            "RANKED", "ANSWERED", "SCORED", "PREDICTED",
            "ALIAS_OF",  # PaperAlias -> Paper, AuthorAlias -> Author
            "STATES",  # Statement -> Paper
        }
    ),
    lookups=(
        LookupIndex("Paper", "arxiv_id"),
        LookupIndex("Paper", "doi"),
        LookupIndex("Paper", "corpus_id"),
        # identity resolution matches a record on every id it carries (loaders/identity.py)
        LookupIndex("Paper", "openalex_id"),
        LookupIndex("Paper", "mag_id"),
        LookupIndex("Paper", "pmid"),
        LookupIndex("Paper", "pmcid"),
        LookupIndex("Paper", "s2_paper_id"),
        LookupIndex("Paper", "title_norm"),
        LookupIndex("Paper", "year"),
        LookupIndex("Author", "name"),
        # one node per person whichever source named them (loaders/identity.py)
        LookupIndex("Author", "orcid"),
        LookupIndex("Author", "openalex_id"),
        LookupIndex("Author", "s2_author_id"),
        LookupIndex("Query", "qid"),
        LookupIndex("Query", "source"),
        LookupIndex("Run", "task"),
    ),
    fulltext=(
        FulltextIndex("paper_text", "Paper", ("title", "abstract")),
        FulltextIndex("chunk_text", "Chunk", ("text",)),
        FulltextIndex("paper_sections", "Section", ("title", "text")),  # SciReplicate, AAAR
    ),
    records="scholarkg.schema.records",
)  # fmt: skip


#: The second label of a Paper that no source record described: a work known only by an id,
#: as someone's reference (``Paper.is_stub``). Loaders add it when they create such a node and
#: take it off when a record describing the work is loaded (``loaders/writer.py``); queries,
#: the Browser style and the explorer filter on it (``MATCH (p:Paper) WHERE NOT p:Stub``).
STUB = "Stub"
#: labels that only ever sit on a node beside its own label (never a node's only label): no
#: key constraint of their own (the node's label has it) and not counted as nodes twice
MARKER_LABELS = frozenset({STUB})


def _no_families() -> tuple[SchemaPart, ...]:
    return ()


#: ``(parts, key)``: the families' parts, and a cheap key that changes when the set of
#: families does (a plugin installed or removed); set by :func:`register_family_parts`
_families: tuple[Callable[[], tuple[SchemaPart, ...]], Callable[[], Hashable]] = (
    _no_families,
    _no_families,
)


def register_family_parts(
    parts: Callable[[], tuple[SchemaPart, ...]], *, key: Callable[[], Hashable]
) -> None:
    """Where the families' schema parts come from: ``parts()`` gives them (read when the
    model is assembled, so families found later, plugins included, still join), ``key()``
    names the current set of families (the assembled model is cached per key)."""
    global _families
    _families = (parts, key)
    _assembled.cache_clear()


def _parts() -> tuple[SchemaPart, ...]:
    return (CORE, *_families[0]())


def node_labels() -> frozenset[str]:
    """Every node label scholarkg writes. Each node carries a unique, stable ``id``."""
    return _model()[0]


def rel_types() -> frozenset[str]:
    """Every relationship type scholarkg writes."""
    return _model()[1]


def default_schema() -> SchemaSpec:
    """Keys on every label, and every part's lookup and full-text indexes."""
    return _model()[2]


def _model() -> tuple[frozenset[str], frozenset[str], SchemaSpec]:
    # keyed by the catalog's key (its module names: a few short strings): the whitelists are
    # read per node by some callers, so a lookup must not rehash every family's schema part
    return _assembled(_families[1]())


@lru_cache(maxsize=8)
def _assembled(key: Hashable) -> tuple[frozenset[str], frozenset[str], SchemaSpec]:
    """The model of the families ``key`` names (the catalog's list when it was asked)."""
    parts = _parts()
    labels = frozenset().union(*(p.labels for p in parts))
    rels = frozenset().union(*(p.rel_types for p in parts))
    lookups = tuple(dict.fromkeys(x for p in parts for x in p.lookups))
    fulltext = tuple(x for p in parts for x in p.fulltext)
    spec = SchemaSpec(
        keys=tuple(NodeKey(label) for label in sorted(labels - MARKER_LABELS)),
        lookups=lookups,
        fulltext=fulltext,
    )
    return labels, rels, spec


_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def check_label(label: str) -> str:
    """Return ``label`` if it is a known node label, else raise (labels are never user text)."""
    known = node_labels()
    if label not in known:
        raise InputError(f"unknown node label {label!r}; known: {', '.join(sorted(known))}")
    return label


def check_rel_type(rel_type: str) -> str:
    known = rel_types()
    if rel_type not in known:
        raise InputError(
            f"unknown relationship type {rel_type!r}; known: {', '.join(sorted(known))}"
        )
    return rel_type


def check_property(name: str) -> str:
    """Property names may be pasted into DDL/SET clauses only if they are plain identifiers."""
    if not _IDENT.match(name):
        raise InputError(f"invalid property name {name!r} (letters, digits, '_' only)")
    return name


def declared_properties(label: str, schema: SchemaSpec | None = None) -> frozenset[str]:
    """Properties of ``label`` that loaders own: the record fields of every node record with
    that label, and every key, lookup, full-text and vector property of the schema.

    Why: commands that *write* computed values onto nodes (``graph pagerank --write``) must
    never overwrite data (``SET n.id = score`` would destroy the merge keys).
    """
    import importlib

    from scholarkg.schema.records import NodeRecord

    schema = schema or default_schema()
    for part in _parts():  # import each family's records, so their classes are registered
        if part.records:
            importlib.import_module(part.records)
    out: set[str] = {k.property for k in schema.keys if k.label == label}
    out |= {x.property for x in schema.lookups if x.label == label}
    out |= {p for f in schema.fulltext if f.label == label for p in f.properties}
    out |= {v.property for v in schema.vector if v.label == label}
    pending = list(NodeRecord.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if getattr(cls, "LABEL", None) == label:
            out |= set(cls.model_fields)
    return frozenset(out)

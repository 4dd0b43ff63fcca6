"""The graph model as data: labels, relationship types, keys and indexes.

Both backends render this one spec into their own DDL (``store/*_dialect.py``), so the
graph looks the same whichever store holds it. These sets are also the *whitelists*:
a label, relationship type or indexed property that is not named here never reaches a
Cypher string (values always travel as parameters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from scholarkg.errors import InputError

#: Every node label scholarkg writes. Each node carries a unique, stable ``id`` (schema/ids.py).
NODE_LABELS: frozenset[str] = frozenset(
    {
        # bibliographic core
        "Paper", "Author", "Venue", "CitationContext", "Chunk", "Section", "Repository",
        # local citation recommendation (citeBench) and BEIR-layout test collections
        "Collection", "DiagnosticDataset",
        # leaderboards (LEGOBench, Papers with Code)
        "Task", "Dataset", "Metric", "Method", "Result", "Leaderboard", "TitleLine",
        # complex queries (DORIS-MAE)
        "Query", "Aspect", "Sentence", "SubQuery",
        # peer review (AAAR-1.0, ReviewCritique)
        "Review", "ReviewSegment", "Weakness", "Experiment", "Explanation", "EqItem", "Equation",
        "Figure",
        # code (SciReplicate-Bench)
        "CodeTask", "CodeFile", "CodeEntity", "ExternalAPI", "Implementation", "ReasoningStep",
        # runs and scores
        "Run", "MetricResult",
    }
)  # fmt: skip

#: Every relationship type scholarkg writes.
REL_TYPES: frozenset[str] = frozenset(
    {
        "AUTHORED_BY", "IN_VENUE", "CITES", "COMPARES_WITH", "HAS_CHUNK", "HAS_SECTION", "HAS_CODE",
        "IN_PAPER", "GOLD",  # CitationContext -> citing / cited Paper
        "IN_COLLECTION", "HAS_QREL", "IN_DATASET",  # BEIR collections, citeBench diagnostics
        "HAS_RESULT", "FOR_METHOD", "ON_DATASET", "FOR_TASK", "USING_METRIC", "IN_LEADERBOARD",
        "SUBTASK_OF", "HAS_ENTRY", "OF_PAPER", "USES_METHOD",
        "HAS_ASPECT", "HAS_SUB_ASPECT", "SUB_ASPECT_OF", "JUDGED", "HAS_CANDIDATE", "HAS_SENTENCE",
        "EXPRESSES", "DERIVED_FROM", "USES_ASPECT",
        "REVIEWS", "HAS_SEGMENT", "HAS_WEAKNESS", "HAS_EXPERIMENT", "EXPLAINED_BY", "HAS_ITEM",
        "HAS_OPTION", "HAS_FIGURE",
        "HAS_TASK", "TARGETS", "DEPENDS_ON", "CALLS_API", "CONTAINS", "DEFINES", "HAS_STEP",
        "DATA_FLOW", "IMPLEMENTS",
        "RANKED", "ANSWERED", "SCORED", "PREDICTED",
    }
)  # fmt: skip

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def check_label(label: str) -> str:
    """Return ``label`` if it is a known node label, else raise (labels are never user text)."""
    if label not in NODE_LABELS:
        raise InputError(f"unknown node label {label!r}; known: {', '.join(sorted(NODE_LABELS))}")
    return label


def check_rel_type(rel_type: str) -> str:
    if rel_type not in REL_TYPES:
        raise InputError(
            f"unknown relationship type {rel_type!r}; known: {', '.join(sorted(REL_TYPES))}"
        )
    return rel_type


def check_property(name: str) -> str:
    """Property names may be pasted into DDL/SET clauses only if they are plain identifiers."""
    if not _IDENT.match(name):
        raise InputError(f"invalid property name {name!r} (letters, digits, '_' only)")
    return name


@dataclass(frozen=True)
class NodeKey:
    """A unique key (``id`` on every label): MERGE target and uniqueness constraint."""

    label: str
    property: str = "id"


@dataclass(frozen=True)
class LookupIndex:
    """A range/exact-match index for frequent lookups by a non-key property."""

    label: str
    property: str


@dataclass(frozen=True)
class FulltextIndex:
    """A full-text index. ``name`` is the logical name tasks use; FalkorDB keys it by label."""

    name: str
    label: str
    properties: tuple[str, ...]


@dataclass(frozen=True)
class VectorIndex:
    """A cosine vector index on ``label.property`` (one per label, property and model)."""

    name: str
    label: str
    property: str
    dimensions: int
    similarity: str = "cosine"


@dataclass(frozen=True)
class SchemaSpec:
    keys: tuple[NodeKey, ...]
    lookups: tuple[LookupIndex, ...] = ()
    fulltext: tuple[FulltextIndex, ...] = ()
    vector: tuple[VectorIndex, ...] = field(default_factory=tuple)

    def fulltext_index(self, name: str) -> FulltextIndex:
        for idx in self.fulltext:
            if idx.name == name:
                return idx
        known = ", ".join(i.name for i in self.fulltext)
        raise InputError(f"unknown full-text index {name!r}; known: {known}")


DEFAULT_SCHEMA = SchemaSpec(
    keys=tuple(NodeKey(label) for label in sorted(NODE_LABELS)),
    lookups=(
        LookupIndex("Paper", "arxiv_id"),
        LookupIndex("Paper", "doi"),
        LookupIndex("Paper", "corpus_id"),
        LookupIndex("Paper", "title_norm"),
        LookupIndex("Paper", "year"),
        LookupIndex("Author", "name"),
        LookupIndex("Dataset", "name"),
        LookupIndex("Task", "name"),
        LookupIndex("Metric", "name"),
        LookupIndex("Method", "name"),
        LookupIndex("Query", "qid"),
        LookupIndex("SubQuery", "qid"),
        LookupIndex("Paper", "doris_abstract_id"),
        LookupIndex("CitationContext", "diag_class"),
        LookupIndex("CitationContext", "diag_dataset"),
        LookupIndex("Query", "source"),
        LookupIndex("Run", "task"),
        LookupIndex("CodeEntity", "name"),
        LookupIndex("CodeFile", "path"),  # SciReplicate
    ),
    fulltext=(
        FulltextIndex("paper_text", "Paper", ("title", "abstract")),
        FulltextIndex("chunk_text", "Chunk", ("text",)),
        FulltextIndex("paper_sections", "Section", ("title", "text")),  # SciReplicate, AAAR
    ),
)


def declared_properties(label: str, schema: SchemaSpec = DEFAULT_SCHEMA) -> frozenset[str]:
    """Properties of ``label`` that loaders own: the record fields of every node record with
    that label, and every key, lookup, full-text and vector property of the schema.

    Why: commands that *write* computed values onto nodes (``graph pagerank --write``) must
    never overwrite data (``SET n.id = score`` would destroy the merge keys).
    """
    import importlib

    from scholarkg.schema.records import NodeRecord

    for module in ("aaar", "citerec", "dorismae", "scireplicate"):  # register their records
        importlib.import_module(f"scholarkg.schema.{module}")
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

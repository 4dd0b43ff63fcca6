"""The vocabulary of the graph model: keys, indexes, and the part of the model one family owns.

Plain frozen dataclasses with no scholarkg imports but ``errors``: a family's declaration
(``benchmark/tasks/<family>/__init__.py``) builds its :class:`SchemaPart` from them without
importing the DDL, which assembles the whole model from every family's part
(``schema/ddl.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from scholarkg.errors import InputError


@dataclass(frozen=True)
class NodeKey:
    """A unique key (``id`` on every label): the MERGE target; a uniqueness constraint on Neo4j,
    an exact-match index on FalkorDB (``store/falkordb/dialect.plan_schema`` says why)."""

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


@dataclass(frozen=True)
class SchemaPart:
    """The labels, relationship types and indexes one family adds to the graph model.

    ``records`` names the module of its pydantic node records (``scholarkg.schema.dorismae``),
    imported by name when the DDL needs the properties loaders own (``declared_properties``).
    """

    labels: frozenset[str] = frozenset()
    rel_types: frozenset[str] = frozenset()
    lookups: tuple[LookupIndex, ...] = ()
    fulltext: tuple[FulltextIndex, ...] = ()
    records: str | None = None

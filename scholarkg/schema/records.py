"""Typed records for everything scholarkg loads: loaders yield these, writers store them.

Node records subclass ``NodeRecord`` (a ``LABEL`` and a stable ``id`` computed by the rules
in ``ids.py`` when the source gives none). Relationship records subclass ``EdgeRecord``
(``TYPE``, start/end labels and ids). Validation happens here, at the edge, so a bad field
is reported with its record before anything reaches the graph.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails

from scholarkg.errors import InputError
from scholarkg.schema import ids
from scholarkg.schema.text import clean_mapping, key_too_long, key_too_long_message, sanitise_value

Direction = Literal["higher", "lower", "unknown"]


class Record(BaseModel):
    """Base of every record; its one validator is the shared text sanitiser.

    Every field of every record passes ``schema.text.sanitise_value`` before pydantic's own
    validation: NUL and other control characters, BOMs, CR line ends and lone surrogates are
    cleaned, non-finite numbers become missing (optional field) or are refused (required),
    over-long strings are refused. Here rather than in each loader, so a new loader cannot
    forget it and a NUL can never reach the graph store (it cut FalkorDB's query text short).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)
    #: optional number fields where NaN/±inf is an error rather than "missing" (a leaderboard
    #: score that is NaN is a broken row, not an unknown one)
    REFUSE_NONFINITE: ClassVar[frozenset[str]] = frozenset()

    def replaced(self, update: dict[str, Any]) -> Self:
        """A copy with ``update`` applied and not validated, as ``model_copy(update=…)``.

        For the loaders' hot paths only, on values that were validated or normalised
        already (a work's ~20 reference stubs and CITES edges are copies of a template with
        two fields changed): pydantic 2.14's ``model_copy`` copies through ``__copy__`` and
        ``copy.copy`` of each internal dict, ~1.7 µs a record, 15 % of an incremental
        OpenAlex load; this makes the instance directly (~0.9 µs)."""
        data = self.__dict__.copy()
        data.update(update)
        fields_set = self.__pydantic_fields_set__ | update.keys()
        return type(self).unvalidated(data, fields_set, self.__pydantic_private__)

    @classmethod
    def unvalidated(
        cls, values: dict[str, Any], fields_set: set[str], private: dict[str, Any] | None = None
    ) -> Self:
        """An instance holding ``values`` (every field, in declaration order) as they are,
        without validation: for :meth:`replaced` and ``schema/plain_records``, which have
        made sure the values are what validation would leave."""
        made = object.__new__(cls)
        object.__setattr__(made, "__dict__", values)
        object.__setattr__(made, "__pydantic_fields_set__", fields_set)
        object.__setattr__(made, "__pydantic_extra__", None)  # extra="forbid": never any
        object.__setattr__(made, "__pydantic_private__", private)
        return made

    @field_validator("*", mode="before")
    @classmethod
    def _sanitise(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None:  # what sanitise_value gives back for it, without the look-ups
            return None
        name = info.field_name or "?"
        try:
            label, required = _FIELD_SPECS[(cls, name)]
        except KeyError:
            label, required = _FIELD_SPECS.setdefault((cls, name), _field_spec(cls, name))
        return sanitise_value(value, label=label, field=name, required=required)


#: (record class, field name) → (label, required) as ``Record._sanitise`` reports them: a
#: work's ~50 field values each looked both up (a missing ``LABEL`` on an edge class goes
#: through pydantic's metaclass ``__getattr__``), ~15 % of an OpenAlex parse worker's time
_FIELD_SPECS: dict[tuple[type, str], tuple[str, bool]] = {}


def _field_spec(cls: type[Record], name: str) -> tuple[str, bool]:
    # the class's own dict, not ``cls.model_fields``: pydantic 2.11+ reaches that through a
    # deprecation descriptor
    spec = cls.__pydantic_fields__.get(name)
    label = getattr(cls, "LABEL", None) or getattr(cls, "TYPE", None) or cls.__name__
    required = bool(spec and spec.is_required()) or name in cls.REFUSE_NONFINITE
    return str(label), required


#: (record class, field name) → a validator of the field's type alone, for
#: ``NodeRecord._wrong_type``
_TYPE_CHECKS: dict[tuple[type, str], TypeAdapter[Any]] = {}


def _type_check(cls: type, name: str, annotation: Any) -> TypeAdapter[Any]:
    check = _TYPE_CHECKS.get((cls, name))
    if check is None:
        check = _TYPE_CHECKS[(cls, name)] = TypeAdapter(annotation)
    return check


def share_fields_sets(records: Iterable[Record]) -> None:
    """Give records of one class that set the same fields one shared fields-set object.

    Why: records are pickled in a parse worker and unpickled by the loading process, where
    every record's ``__pydantic_fields_set__`` (a set of ~5-30 names) used to be built
    again for each (16,000 records a 2,000-work chunk of OpenAlex); shared, pickle writes
    each set once a block. With the load's fewer collections, unpickling fell from 45.9 to
    24.5 µs a work (``benchmarks/bench_openalex_parse.py --reader incremental``, against the
    code before both; docs/performance.md, round 45). Safe because records are
    frozen: pydantic never adds to the set of a frozen model, and :meth:`Record.replaced`
    makes a new one."""
    shared: dict[tuple[type[Record], frozenset[str]], set[str]] = {}
    for rec in records:
        names = rec.__pydantic_fields_set__
        one = shared.setdefault((type(rec), frozenset(names)), names)
        if one is not names:
            object.__setattr__(rec, "__pydantic_fields_set__", one)


class NodeRecord(Record):
    """A node: ``properties()`` is what gets stored (``None`` dropped, ``id`` separate).

    Each subclass states its id rule in one line, ``ID_RULE = staticmethod(lambda d: ...)``,
    applied by the single ``_fill_id`` validator below when the source gave no ``id``: one
    validator instead of one per class, with every rule still visible next to its fields.
    """

    LABEL: ClassVar[str]
    #: fields kept on the record for loaders but never stored as node properties
    NOT_STORED: ClassVar[frozenset[str]] = frozenset()
    #: the id from the (normalized) input fields; ``None``: the source must give ``id``
    if TYPE_CHECKING:  # subclasses assign ``staticmethod(...)`` (not subscriptable at run time)
        ID_RULE: ClassVar[staticmethod[[dict[str, Any]], str] | None] = None
    else:
        ID_RULE: ClassVar[Callable[[dict[str, Any]], str] | None] = None

    if TYPE_CHECKING:
        # Required at run time, but usually derived by ``_fill_id`` from the other fields
        # (``ID_RULE``), so a constructor call need not pass it: the type checker sees a
        # default, pydantic (which reads only the ``else`` branch) still requires a value.
        id: str = ""
    else:
        id: str

    @classmethod
    def _normalize(cls, data: dict[str, Any]) -> dict[str, Any]:
        """Derive fields before the id rule sees them (a fresh dict; default: unchanged)."""
        return data

    @classmethod
    def make_id(cls, data: dict[str, Any]) -> str | None:
        """The id for ``data`` by this class's rule (overridden where the rule needs ``cls``)."""
        return None if cls.ID_RULE is None else cls.ID_RULE(data)

    @model_validator(mode="before")
    @classmethod
    def _fill_id(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        # ids come from cleaned text: a stray NUL must not change a record's identity
        try:
            data = cls._normalize(clean_mapping(data, label=cls.LABEL))
            if data.get("id"):
                return data
            made = cls.make_id(data)
        except (TypeError, AttributeError) as err:
            # a field of the wrong type reached an id rule (a list where a title was
            # expected): reported at that field, as pydantic reports it when no rule runs
            # first; pydantic reports ValueError as a validation error, not TypeError
            wrong = cls._wrong_type(data)
            if wrong is not None:
                raise wrong from err
            raise ValueError(
                f"a field has the wrong type for the {cls.LABEL} id rule ({err})"
            ) from err
        # no rule: leave ``id`` missing so pydantic reports the field
        return data if made is None else {**data, "id": made}

    @field_validator("id")
    @classmethod
    def _key_within_limit(cls, value: str) -> str:
        """Refuse an id over ``schema.text.MAX_KEY_BYTES``: FalkorDB's unique-constraint
        check crashes the server on one, so it is a broken record, named at its field."""
        if key_too_long(value):
            raise ValueError(key_too_long_message(value))
        return value

    @classmethod
    def _wrong_type(cls, data: dict[str, Any]) -> ValidationError | None:
        """The first field of ``data`` whose value its own type refuses, as the error
        pydantic gives for it (located at the field: ``(field 'title'): Input should be a
        valid string``), or ``None``.

        Why: an id rule runs before the fields are validated, so a value of the wrong type
        failed inside it with Python's words and no field (``normalize() argument 2 must
        be str, not list``). Only on that error path; each field type's validator is made
        once (:func:`_type_check`)."""
        for name, value in data.items():
            spec = cls.__pydantic_fields__.get(name)
            if spec is None or value is None:
                continue
            try:
                _type_check(cls, name, spec.annotation).validate_python(value)
            except ValidationError as err:
                return ValidationError.from_exception_data(
                    cls.__name__,
                    [
                        InitErrorDetails(
                            type=e["type"],
                            loc=(name, *e["loc"]),
                            input=e["input"],
                            ctx=e.get("ctx", {}),
                        )
                        for e in err.errors()
                    ],
                )
        return None

    def properties(self) -> dict[str, Any]:
        data = self.model_dump(exclude_none=True, exclude={"id", *self.NOT_STORED})
        return data

    def row(self) -> dict[str, Any]:
        """``{"id": ..., **properties}``, the shape ``GraphStore.merge_nodes`` takes."""
        return {"id": self.id, **self.properties()}


class EdgeRecord(Record):
    """A relationship between two nodes identified by their ``id``."""

    TYPE: ClassVar[str]
    START: ClassVar[str]
    END: ClassVar[str]
    #: properties that, with the two endpoints, identify one relationship. Empty (the
    #: default): one relationship per (start, end) pair, later properties win. Non-empty:
    #: one per (start, end, key values), e.g. several judgements of one pair
    #: (``MERGE (a)-[r:TYPE {k: row.key.k}]->(b)``, ``store.cypher_common``).
    MERGE_KEY: ClassVar[tuple[str, ...]] = ()
    #: properties a source's own record always states, by the mark that names the source
    #: (``{"from_openalex": ("institutions", …)}``): such a record with no value for one
    #: removes the stored value (identity resolution clears it, ``identity/
    #: clear_authorship_fields``), so reloading a newer record equals loading it fresh (the
    #: edge-level ``loaders/openalex.OWNED_FIELDS``)
    OWNED: ClassVar[dict[str, tuple[str, ...]]] = {}

    start: str
    end: str

    def properties(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True, exclude={"start", "end"})

    def owned_unset(self) -> tuple[str, ...]:
        """The ``OWNED`` properties this record states by leaving them unset."""
        return tuple(
            name
            for mark, names in self.OWNED.items()
            if getattr(self, mark, None)
            for name in names
            if getattr(self, name) is None
        )

    def merge_key(self) -> dict[str, Any]:
        """``{name: value}`` of the ``MERGE_KEY`` properties; a missing value is an error."""
        if not self.MERGE_KEY:
            return {}
        props = self.properties()
        missing = [k for k in self.MERGE_KEY if props.get(k) is None]
        if missing:
            raise InputError(
                f"{self.TYPE} {self.start!r} -> {self.end!r} has no merge key value",
                field=missing[0],
            )
        return {k: props[k] for k in self.MERGE_KEY}

    def row(self) -> dict[str, Any]:
        return {"start": self.start, "end": self.end, "props": self.properties()}


# --------------------------------------------------------------------------- bibliographic


class Paper(NodeRecord):
    LABEL: ClassVar[str] = "Paper"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"full_text", "authors"})

    title: str | None = None
    title_norm: str | None = None
    abstract: str | None = None
    year: int | None = None
    date: str | None = Field(default=None, description="ISO date YYYY[-MM[-DD]]")
    arxiv_id: str | None = None
    doi: str | None = None
    corpus_id: int | None = None
    venue: str | None = None
    categories: list[str] | None = None
    fields_of_study: list[str] | None = None
    citation_count: int | None = None
    url: str | None = None
    source: str | None = None
    full_text: str | None = None
    authors: list[str] | None = None
    # -- identifiers beyond the three above (identity resolution matches on every one of
    # them, ``loaders/identity.py``; normalised by ``schema/ids.py``'s ``normalize_*``)
    openalex_id: str | None = Field(default=None, description="W… (no URL)")
    mag_id: str | None = None
    pmid: str | None = None
    pmcid: str | None = Field(default=None, description="PMC…")
    s2_paper_id: str | None = Field(default=None, description="S2's 40-hex paper sha")
    #: scheme-prefixed ids of this work that do not fit the slots above (a second DOI) and
    #: the primary ids of Papers merged into this one (``loaders/identity.py``)
    alt_ids: list[str] | None = None
    #: a benchmark family's loader wrote a record with this id: the id the family's tasks
    #: look the work up by, so identity resolution keeps it as the node's key and never
    #: merges it away (``loaders/identity.py``)
    family_key: bool | None = None
    #: where sources of different rank describe the work (``loaders/source_rank.SOURCE_RANK``):
    #: the shared properties whose value a source other than ``source`` (the best-ranked
    #: that described it) gave, as ``"property:source"``, so a later record knows whose
    #: value it meets and the load order does not matter
    named_by: list[str] | None = None
    #: where several records describe the work: their keys (``openalex:W5``,
    #: ``crossref:10.1/x``), each the id of the ``Statement`` that keeps what it stated
    #: (``loaders/statements.py``); none on a work one record describes
    stated_by: list[str] | None = None
    # -- what the open catalogues add (OpenAlex, Crossref)
    work_type: str | None = None
    language: str | None = None
    is_oa: bool | None = None
    oa_status: str | None = None
    oa_url: str | None = None
    topics: list[str] | None = None
    #: OpenAlex's topic scores (0-1) x 10 000, rounded, parallel to ``topics``: integers, so
    #: the snapshot bulk path keeps GRAPH.BULK's columnar reader (it hands floats to the slow
    #: line reader)
    topic_scores_e4: list[int] | None = None
    related: list[str] | None = Field(default=None, description="OpenAlex related_works (W ids)")
    #: the ``updated_date`` of the OpenAlex record the node last took (ISO, ``T``-separated):
    #: a record older than it is skipped, whatever order the files were read in
    openalex_updated: str | None = None
    # -- what a researcher's own bibliography adds (``loaders/bibtex.py``)
    #: each ``.bib`` entry that described the work, ``"<folder>/<file name>:<citation key>"``: the
    #: key a user cites it by, so a graph answer can be traced back to their bibliography
    bib_keys: list[str] | None = None

    ID_RULE = staticmethod(
        lambda d: ids.paper_id(
            arxiv_id=d.get("arxiv_id"),
            doi=d.get("doi"),
            corpus_id=d.get("corpus_id"),
            openalex_id=d.get("openalex_id"),
            title=d.get("title"),
            year=d.get("year"),
        )
    )

    @classmethod
    def _normalize(cls, data: dict[str, Any]) -> dict[str, Any]:
        data = dict(data)
        if data.get("arxiv_id"):
            data["arxiv_id"] = ids.normalize_arxiv_id(str(data["arxiv_id"])) or data["arxiv_id"]
        if data.get("title") and not data.get("title_norm"):
            data["title_norm"] = ids.normalize_title(data["title"])
        if data.get("date") and not data.get("year"):
            head = str(data["date"])[:4]
            if head.isdigit():
                data["year"] = int(head)
        return data

    def is_stub(self) -> bool:
        """No source record describes this work: it is known only by an id, as someone's
        reference (no title, no source). Such a Paper is stored with the extra label
        ``Stub`` (``schema/ddl.STUB``), which goes when a record describing it is loaded."""
        return self.title is None and self.source is None

    @field_validator("date")
    @classmethod
    def _iso_date(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value[:10]
        parts = value.split("-")
        if not (1 <= len(parts) <= 3 and all(p.isdigit() for p in parts) and len(parts[0]) == 4):
            raise ValueError(f"not an ISO date (YYYY[-MM[-DD]]): {value!r}")
        year, month, day = (int(p) for p in (*parts, "1", "1")[:3])
        try:
            _dt.date(year, month, day)
        except ValueError as err:
            raise ValueError(f"not a calendar date: {value!r} ({err})") from err
        return value


class PaperAlias(NodeRecord):
    """An id of a Paper that no id slot holds (a second DOI, a merged-away primary id, an
    OpenAlex id retired by ``merged_ids``): ``id`` is the scheme-prefixed id (``doi:10.1/x``).
    A node of its own, with ``ALIAS_OF`` to the Paper, because a unique id index finds it on
    both backends, where an indexed list property could not (``loaders/identity.py``)."""

    LABEL: ClassVar[str] = "PaperAlias"


class AliasOf(EdgeRecord):
    TYPE: ClassVar[str] = "ALIAS_OF"
    START: ClassVar[str] = "PaperAlias"
    END: ClassVar[str] = "Paper"


class Statement(NodeRecord):
    """What one source record stated about a work that several records describe: the
    shared properties whose value on the Paper follows the source rank, and its citation
    count. ``id`` is the record's key (``openalex:W5``, ``crossref:10.1/x``,
    ``arxiv:2101.00001``), ``STATES`` leads to the Paper. The Paper holds, property by
    property, the best-ranked statement's value (``loaders/identity.py``); keeping every
    statement is what lets a record that drops a value fall back to another source's, and
    lets a user ask what each source said. A work one record describes has none: its
    Paper's values are that record's (its ``source``), so a single-source load writes
    nothing more."""

    LABEL: ClassVar[str] = "Statement"

    source: str
    title: str | None = None
    title_norm: str | None = None
    abstract: str | None = None
    year: int | None = None
    date: str | None = None
    venue: str | None = None
    work_type: str | None = None
    language: str | None = None
    url: str | None = None
    fields_of_study: list[str] | None = None
    citation_count: int | None = None


class States(EdgeRecord):
    TYPE: ClassVar[str] = "STATES"
    START: ClassVar[str] = "Statement"
    END: ClassVar[str] = "Paper"


class AuthorAlias(NodeRecord):
    """An id of an Author that no id slot holds: an OpenAlex author id merged away (two
    OpenAlex ids of one person, found by a shared ORCID) or retired by OpenAlex's
    ``merged_ids/authors``, a second ORCID. ``id`` is the scheme-prefixed id
    (``openalexauthor:A9``); ``ALIAS_OF`` leads to the Author (``loaders/author_identity.py``)."""

    LABEL: ClassVar[str] = "AuthorAlias"


class AuthorAliasOf(EdgeRecord):
    TYPE: ClassVar[str] = "ALIAS_OF"
    START: ClassVar[str] = "AuthorAlias"
    END: ClassVar[str] = "Author"


class Author(NodeRecord):
    LABEL: ClassVar[str] = "Author"
    name: str
    orcid: str | None = None
    s2_author_id: str | None = None
    openalex_id: str | None = Field(default=None, description="A… (no URL)")
    #: the id of the work whose record lists this author (the open catalogues set it): an
    #: author named only by name is then one node per work, not one per spelled name
    #: (``ids.author_id``); not stored
    listed_on: str | None = None

    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"listed_on"})
    ID_RULE = staticmethod(
        lambda d: ids.author_id(
            d["name"],
            orcid=d.get("orcid"),
            s2_author_id=d.get("s2_author_id"),
            openalex_author_id=d.get("openalex_id"),
            listed_on=d.get("listed_on"),
        )
    )

    @classmethod
    def _normalize(cls, data: dict[str, Any]) -> dict[str, Any]:
        if isinstance(data.get("orcid"), str):  # one spelling, so the slot matches across sources
            data = {**data, "orcid": ids.normalize_orcid(data["orcid"]) or data["orcid"]}
        return data


class Venue(NodeRecord):
    LABEL: ClassVar[str] = "Venue"
    name: str

    ID_RULE = staticmethod(lambda d: ids.named_id("venue", d["name"]))


class Authorship(EdgeRecord):
    TYPE: ClassVar[str] = "AUTHORED_BY"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Author"
    position: int | None = None
    #: the institutions the work lists for this author (OpenAlex ``authorships``)
    institutions: list[str] | None = None
    raw_name: str | None = None
    #: set by the open-catalogue loaders: which source's author list holds this edge, so
    #: re-loading a record replaces *that* source's authorships (``loaders/identity.py``)
    from_openalex: bool | None = None
    from_arxiv: bool | None = None
    from_crossref: bool | None = None
    #: set by ``load s2`` (a benchmark family's loader, which prunes nothing itself): the
    #: other sources' reloads keep an authorship Semantic Scholar lists
    from_s2: bool | None = None
    #: a researcher's own ``.bib`` (``loaders/bibtex.py``): authors only, never references
    from_bibtex: bool | None = None
    #: the other source records listing this author, as ``Citation.also``
    also: list[str] | None = None

    #: OpenAlex's ``authorships`` entry gives the institutions and the raw name (or none):
    #: a newer record without them clears the ones an older record gave
    OWNED: ClassVar[dict[str, tuple[str, ...]]] = {"from_openalex": ("institutions", "raw_name")}


class PublishedIn(EdgeRecord):
    """``(Paper)-[:IN_VENUE]->(Venue)``: written by every source that names a venue
    (Semantic Scholar, OpenAlex, Crossref), so it lives beside ``Venue``."""

    TYPE: ClassVar[str] = "IN_VENUE"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Venue"


class Citation(EdgeRecord):
    """``citing CITES cited``; sentence/section/intent also become a CitationContext node."""

    TYPE: ClassVar[str] = "CITES"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Paper"
    sentence: str | None = None
    section: str | None = None
    intents: list[str] | None = None
    is_influential: bool | None = None
    weight: float | None = None
    #: set by the open-catalogue loaders: which source's reference list holds this edge, so
    #: re-loading a record can drop the references *that* source dropped and keep the rest
    #: (``loaders/identity.py``)
    from_openalex: bool | None = None
    from_crossref: bool | None = None
    #: the *other* source records stating this edge: ``<source>:<record id>`` of each record
    #: of the work that is not its Paper's own record of that source (a preprint's OpenAlex
    #: record on the node its article keys), sorted; the writer adds one at a time
    #: (``identity/merge_also_cites``), so reloading one record replaces only its statements
    also: list[str] | None = None

    def context(self) -> CitationContext | None:
        if not self.sentence:
            return None
        return CitationContext(
            citing=self.start,
            cited=self.end,
            text=self.sentence,
            section=self.section,
            intent=self.intents[0] if self.intents else None,
        )


class CitationContext(NodeRecord):
    """A citing sentence (with ``<REF>`` masks for citation recommendation).

    Loaders (S2ORC, unarXive) store every citing sentence with its marker replaced by
    ``<REF>`` (``citation_text`` keeps the marker), the marker's character offsets in the
    source full text (``char_start``/``char_end``), and ``n_refs``: how many citation
    markers the sentence holds (citeBench keeps sentences with exactly one). The diagnostic
    builder stores its sampled examples as separate nodes with the ``diag_*``/class fields
    (``benchmark/tasks/citerec/diagnostics.py``).
    """

    LABEL: ClassVar[str] = "CitationContext"
    citing: str
    cited: str | None = None
    text: str
    citation_text: str | None = None
    section: str | None = None
    intent: str | None = None
    location_ratio: float | None = None
    length_tokens: int | None = None
    diag_dataset: str | None = None
    diag_class: str | None = None
    char_start: int | None = None
    char_end: int | None = None
    n_refs: int | None = None
    source: str | None = None
    sample_id: str | None = None
    dataset_version: str | None = None
    stratum: str | None = None
    field: str | None = None
    year: int | None = None
    year_group: str | None = None
    citation_count_group: int | None = None
    pos_before: str | None = None
    pos_after: str | None = None
    pos_before_tag: str | None = None
    pos_after_tag: str | None = None
    location: str | None = None
    length_class: str | None = None

    ID_RULE = staticmethod(
        lambda d: ids.citation_context_id(d["citing"], d.get("cited") or "", d["text"])
    )


class Chunk(NodeRecord):
    """A passage of a paper's full text (full-text retrieval and LGPLM's BM25 contexts)."""

    LABEL: ClassVar[str] = "Chunk"
    paper: str
    ordinal: int
    text: str
    section: str | None = None

    ID_RULE = staticmethod(lambda d: f"{d['paper']}/chunk/{d['ordinal']}")


class HasChunk(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_CHUNK"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Chunk"


class Section(NodeRecord):
    """A section of a paper's text, shared by every family that reads papers' structure.

    SciReplicate-Bench's LaTeX sections (``title``, ``level``, ``label``: what SearchPaper and
    SearchSection return) and AAAR-1.0's released sections (``title`` = the released
    ``heading``; ``kind`` marks ExpDesign's whole pre-experiment text and Weakness's body) are
    the same thing, so they are one label with one full-text index. Whitespace is kept: LaTeX
    and released text are reproduced as given.
    """

    LABEL: ClassVar[str] = "Section"
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"paper"})
    paper: str
    ordinal: int
    title: str | None = None
    text: str = ""
    #: "section", or a whole-text part such as "pre-experiment" / "body"
    kind: str = "section"
    level: int = 1
    label: str | None = None

    ID_RULE = staticmethod(
        lambda d: (
            f"{d['paper']}/section/{d['ordinal']}"
            if d.get("kind", "section") == "section"
            else f"{d['paper']}/section/{d['kind']}/{d['ordinal']}"
        )
    )


class HasSection(EdgeRecord):
    """``(Paper)-[:HAS_SECTION {ordinal}]->(Section)``."""

    TYPE: ClassVar[str] = "HAS_SECTION"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Section"
    ordinal: int | None = None


class Comparison(EdgeRecord):
    """``start COMPARES_WITH end``: paper *start* reports results against baseline *end*."""

    TYPE: ClassVar[str] = "COMPARES_WITH"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Paper"
    dataset: str | None = None
    task: str | None = None
    metric: str | None = None
    source: str | None = None
    weight: float | None = None


# --------------------------------------------------------------------------- leaderboards


class _Named(NodeRecord):
    KIND: ClassVar[str]
    name: str

    @classmethod
    def make_id(cls, data: dict[str, Any]) -> str:
        return ids.named_id(cls.KIND, data["name"])  # the rule needs the subclass's KIND


class Task(_Named):
    LABEL: ClassVar[str] = "Task"
    KIND: ClassVar[str] = "task"
    description: str | None = None
    area: str | None = None
    parent: str | None = Field(default=None, description="id of the parent Task")


class Dataset(_Named):
    LABEL: ClassVar[str] = "Dataset"
    KIND: ClassVar[str] = "dataset"
    description: str | None = None


class Metric(_Named):
    LABEL: ClassVar[str] = "Metric"
    KIND: ClassVar[str] = "metric"
    direction: Direction = "unknown"

    def properties(self) -> dict[str, Any]:
        """``unknown`` is not stored: a later load that cannot tell must not erase a direction
        an earlier source knew (readers treat a missing direction as unknown)."""
        props = super().properties()
        if props.get("direction") == "unknown":
            del props["direction"]
        return props


class Method(_Named):
    LABEL: ClassVar[str] = "Method"
    KIND: ClassVar[str] = "method"
    full_name: str | None = None


class Leaderboard(NodeRecord):
    """A ⟨task, dataset, metric⟩ leaderboard (LEGOBench's query unit)."""

    LABEL: ClassVar[str] = "Leaderboard"
    task: str
    dataset: str
    metric: str
    source: str | None = None

    ID_RULE = staticmethod(lambda d: ids.leaderboard_id(d["task"], d["dataset"], d["metric"]))


class Result(NodeRecord):
    """A leaderboard entry: ``method`` of ``paper`` scored ``score`` on ⟨task, dataset, metric⟩."""

    LABEL: ClassVar[str] = "Result"
    REFUSE_NONFINITE: ClassVar[frozenset[str]] = frozenset({"score"})
    method: str
    paper: str | None = Field(default=None, description="Paper id, when the entry has a paper")
    task: str
    dataset: str
    metric: str
    score: float | None = None
    raw_score: str | None = None
    date: str | None = None
    uses_additional_data: bool | None = None

    ID_RULE = staticmethod(
        lambda d: ids.result_id(d.get("paper"), d["method"], d["dataset"], d["task"], d["metric"])
    )

    @field_validator("score")
    @classmethod
    def _finite(cls, value: float | None) -> float | None:
        if value is not None and not math.isfinite(value):
            raise ValueError("score must be a finite number")
        return value


# --------------------------------------------------------------------------- complex queries


class Query(NodeRecord):
    LABEL: ClassVar[str] = "Query"
    qid: str
    text: str
    source: str
    type: str | None = None
    split: str | None = None

    ID_RULE = staticmethod(lambda d: ids.scoped_id("query", d["source"], d["qid"]))


class Aspect(NodeRecord):
    """An aspect of a complex query; ``parent`` is the aspect id it refines (sub-aspect).

    ``text`` may be absent at first: DORIS-MAE names an aspect by id inside ``Query`` and gives
    its text only later in the file (``aspect_id2aspect``), so a streaming load merges the
    text onto the node when it gets there. DORIS-MAE links sub-aspects to parents with
    ``SUB_ASPECT_OF`` edges instead of ``parent`` (one text id can refine several aspects).
    """

    LABEL: ClassVar[str] = "Aspect"
    aspect_id: str
    text: str | None = None
    source: str
    parent: str | None = None

    ID_RULE = staticmethod(lambda d: ids.scoped_id("aspect", d["source"], d["aspect_id"]))


class Judgement(EdgeRecord):
    """``(Aspect)-[:JUDGED {score, source, annotator, key}]->(Paper)``: one graded judgement.

    ``key`` identifies the judgement itself (e.g. ``gpt:<annotation index>``), so several
    judgements of one (aspect, paper) pair stay several relationships: DORIS-MAE *sums*
    duplicate annotations and keeps three human grades per pair. Writers MERGE on ``key``
    (``MERGE_KEY``), not on the pair; without one it is ``<source>:<start>:<end>``.
    """

    TYPE: ClassVar[str] = "JUDGED"
    START: ClassVar[str] = "Aspect"
    END: ClassVar[str] = "Paper"
    MERGE_KEY: ClassVar[tuple[str, ...]] = ("key",)
    score: float
    judge: str | None = Field(default=None, description="'gpt', 'human' or an annotator id")
    source: str | None = Field(default=None, description="'gpt' or 'human'")
    annotator: str | None = None
    key: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _default_key(cls, data: Any) -> Any:
        """One judgement per (source, pair) when the source gives no key of its own."""
        if isinstance(data, dict) and not data.get("key"):
            return {**data, "key": f"{data.get('source')}:{data.get('start')}:{data.get('end')}"}
        return data


#: relationship types whose edges are keyed graph-wide (``EdgeRecord.MERGE_KEY`` of the record
#: that writes them), for code that moves edges without their records (``store/transfer.py``)
KEYED_RELATIONSHIPS: dict[str, tuple[str, ...]] = {Judgement.TYPE: Judgement.MERGE_KEY}


# --------------------------------------------------------------------------- peer review


class Review(NodeRecord):
    """A review of ``paper``; the paper is the ``REVIEWS`` edge, not a property (the field
    only feeds the id). ``writer`` is ``"human"`` or the model that wrote it."""

    LABEL: ClassVar[str] = "Review"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"paper"})
    paper: str
    reviewer: str
    source: str
    text: str | None = None
    rating: float | None = None
    decision: str | None = None
    writer: str | None = None

    ID_RULE = staticmethod(
        lambda d: ids.scoped_id("review", d["source"], f"{d['paper']}#{d['reviewer']}")
    )


class ReviewSegment(NodeRecord):
    """One segment of a review (ReviewCritique); the review is the ``HAS_SEGMENT`` edge."""

    LABEL: ClassVar[str] = "ReviewSegment"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"review"})
    review: str
    ordinal: int
    text: str
    deficient: bool | None = None
    explanation: str | None = None
    error_type: str | None = None

    ID_RULE = staticmethod(lambda d: f"{d['review']}/seg/{d['ordinal']}")


class Weakness(NodeRecord):
    """One weakness of a reviewer's list (AAAR-1.0); the review is the ``HAS_WEAKNESS`` edge."""

    LABEL: ClassVar[str] = "Weakness"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"review"})
    review: str
    ordinal: int
    text: str

    ID_RULE = staticmethod(lambda d: f"{d['review']}/weakness/{d['ordinal']}")


class Experiment(NodeRecord):
    """A gold experiment (AAAR-1.0 ExpDesign); the paper is the ``HAS_EXPERIMENT`` edge and
    the explanation an ``Explanation`` node behind ``EXPLAINED_BY`` (``schema/aaar.py``)."""

    LABEL: ClassVar[str] = "Experiment"
    NOT_STORED: ClassVar[frozenset[str]] = frozenset({"paper", "explanation"})
    paper: str
    ordinal: int
    text: str
    explanation: str | None = None
    source: str = "aaar"

    ID_RULE = staticmethod(
        lambda d: ids.scoped_id(
            "experiment", d.get("source", "aaar"), f"{d['paper']}#{d['ordinal']}"
        )
    )


# --------------------------------------------------------------------------- code


class CodeTask(NodeRecord):
    """A function/method to reproduce from a paper (SciReplicate-Bench)."""

    LABEL: ClassVar[str] = "CodeTask"
    # code and LaTeX keep their whitespace: indentation and line numbers are data here
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)
    paper: str
    task_id: str
    name: str
    file_path: str | None = None
    entity_type: str | None = None
    namespace: str | None = None
    description: str | None = None
    source: str = "scireplicate"
    # SciReplicate-Bench task fields (Data.json; see scholarkg/loaders/scireplicate.py)
    paper_index: int | None = None
    task_index: int | None = None
    indent: int | None = None
    latex_code: str | None = None
    arguments: str | None = Field(default=None, description="Arguments.string as released")
    argument_names: list[str] | None = None
    returns: str | None = Field(default=None, description="Return.Return_String as released")
    return_names: list[str] | None = None
    dependency_text: str | None = None
    intra_file: list[str] | None = None
    cross_file: list[str] | None = None
    external_apis: list[str] | None = None
    missing_details: list[str] | None = None
    mismatched_details: list[str] | None = None
    reference_code: str | None = Field(default=None, description="body with step comments")
    signature: str | None = None
    signature_start: int | None = None
    signature_end: int | None = None
    body_start: int | None = None
    body_end: int | None = None
    script: str | None = None
    completion_path: str | None = None
    project_path: str | None = None
    environment: str | None = None

    ID_RULE = staticmethod(
        lambda d: ids.scoped_id("codetask", d.get("source", "scireplicate"), d["task_id"])
    )


class ReasoningStep(NodeRecord):
    """One commented step of an implementation's reasoning graph."""

    LABEL: ClassVar[str] = "ReasoningStep"
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)
    implementation: str
    ordinal: int
    text: str
    weight: float | None = None
    # line range (1-based, inclusive, in the dedented body) and how the step was delimited:
    # ``recovered`` = a Begin marker without its End (released boundary rule)
    start_line: int | None = None
    end_line: int | None = None
    recovered: bool | None = None
    code: str | None = None

    ID_RULE = staticmethod(lambda d: f"{d['implementation']}/step/{d['ordinal']}")


# --------------------------------------------------------------------------- leaderboard edges
# ORKG-style results (Papers with Code): (Paper)-[:HAS_RESULT]->(Result)-[:FOR_METHOD]->(Method),
# (Result)-[:ON_DATASET|FOR_TASK|USING_METRIC]->(...), (Result)-[:IN_LEADERBOARD]->(Leaderboard)
# and the leaderboard's own (Leaderboard)-[:ON_DATASET|FOR_TASK|USING_METRIC]->(...). One class
# per (type, start label, end label) because the writer batches by that triple.


class HasResult(EdgeRecord):
    TYPE: ClassVar[str] = "HAS_RESULT"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Result"


class ResultMethod(EdgeRecord):
    TYPE: ClassVar[str] = "FOR_METHOD"
    START: ClassVar[str] = "Result"
    END: ClassVar[str] = "Method"


class ResultDataset(EdgeRecord):
    TYPE: ClassVar[str] = "ON_DATASET"
    START: ClassVar[str] = "Result"
    END: ClassVar[str] = "Dataset"


class ResultTask(EdgeRecord):
    TYPE: ClassVar[str] = "FOR_TASK"
    START: ClassVar[str] = "Result"
    END: ClassVar[str] = "Task"


class ResultMetric(EdgeRecord):
    TYPE: ClassVar[str] = "USING_METRIC"
    START: ClassVar[str] = "Result"
    END: ClassVar[str] = "Metric"


class InLeaderboard(EdgeRecord):
    TYPE: ClassVar[str] = "IN_LEADERBOARD"
    START: ClassVar[str] = "Result"
    END: ClassVar[str] = "Leaderboard"


class LeaderboardDataset(EdgeRecord):
    TYPE: ClassVar[str] = "ON_DATASET"
    START: ClassVar[str] = "Leaderboard"
    END: ClassVar[str] = "Dataset"


class LeaderboardTask(EdgeRecord):
    TYPE: ClassVar[str] = "FOR_TASK"
    START: ClassVar[str] = "Leaderboard"
    END: ClassVar[str] = "Task"


class LeaderboardMetric(EdgeRecord):
    TYPE: ClassVar[str] = "USING_METRIC"
    START: ClassVar[str] = "Leaderboard"
    END: ClassVar[str] = "Metric"


class UsesMethod(EdgeRecord):
    """``(:Paper)-[:USES_METHOD]->(:Method)``: a method the paper introduces or uses (PwC)."""

    TYPE: ClassVar[str] = "USES_METHOD"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Method"


class SubtaskOf(EdgeRecord):
    """``(child:Task)-[:SUBTASK_OF]->(parent:Task)`` (Papers with Code's task tree)."""

    TYPE: ClassVar[str] = "SUBTASK_OF"
    START: ClassVar[str] = "Task"
    END: ClassVar[str] = "Task"


def repository_id(url: str) -> str:
    """``repo:github.com/owner/name`` from any spelling of a repository URL.

    Scheme, ``www.``, ``.git`` and trailing slashes are dropped and the host is lower-cased.
    """
    text = url.strip()
    text = text.split("://", 1)[1] if "://" in text else text
    text = text.removeprefix("www.").rstrip("/").removesuffix(".git").rstrip("/")
    if not text:
        raise ValueError("empty repository URL")
    host, _, path = text.partition("/")
    return f"repo:{host.lower()}/{path}" if path else f"repo:{host.lower()}"


class Repository(NodeRecord):
    """A code repository; the id is the URL without scheme, ``.git`` or trailing slash."""

    LABEL: ClassVar[str] = "Repository"
    url: str

    ID_RULE = staticmethod(lambda d: repository_id(d["url"]))


class HasCode(EdgeRecord):
    """``(Paper)-[:HAS_CODE]->(Repository)`` from links-between-papers-and-code.json."""

    TYPE: ClassVar[str] = "HAS_CODE"
    START: ClassVar[str] = "Paper"
    END: ClassVar[str] = "Repository"
    is_official: bool | None = None
    framework: str | None = None
    mentioned_in_paper: bool | None = None
    mentioned_in_github: bool | None = None


class RPLMLeaderboard(Leaderboard):
    """A LEGOBench RPLM query (one ``rplm.xlsx`` row); id ``lego:rplm:<row>``.

    A row, not the ⟨task, dataset, metric⟩ triple, is the identity: RPLM's dataset strings carry
    PwC variant suffixes and the row is what answer workbooks align with.
    """

    #: 0-based data row of ``rplm.xlsx``; stored as the node property ``row`` (the field
    #: cannot be called ``row``: that is ``NodeRecord.row()``)
    sheet_row: int

    ID_RULE = staticmethod(lambda d: ids.scoped_id("lego", "rplm", d["sheet_row"]))

    def properties(self) -> dict[str, Any]:
        props = super().properties()
        props["row"] = props.pop("sheet_row")
        return props


class TitleLine(NodeRecord):
    """One raw line of an RPLM GT list, kept verbatim (split fragments are not papers).

    ``text_norm`` is only a matching key for the optional OF_PAPER pass; ``text`` is never
    cleaned. One node per (leaderboard, GT position), so duplicate lines stay two entries.
    """

    LABEL: ClassVar[str] = "TitleLine"
    leaderboard: str
    gt_rank: int
    text: str
    text_norm: str | None = None
    # keep surrounding whitespace: the defects are the data
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=False)

    ID_RULE = staticmethod(lambda d: f"{d['leaderboard']}/line/{d['gt_rank']}")

    @classmethod
    def _normalize(cls, data: dict[str, Any]) -> dict[str, Any]:
        if data.get("text") and not data.get("text_norm"):
            data = {**data, "text_norm": ids.normalize_title(data["text"]) or None}
        return data


class HasEntry(EdgeRecord):
    """``(Leaderboard)-[:HAS_ENTRY {gt_rank, option_index}]->(TitleLine)`` (RPLM gold).

    ``gt_rank`` is 1-based (best first); ``option_index`` is the 0-based position of the same
    line in the shuffled ``model_options`` (k-th duplicate ↔ k-th duplicate).
    """

    TYPE: ClassVar[str] = "HAS_ENTRY"
    START: ClassVar[str] = "Leaderboard"
    END: ClassVar[str] = "TitleLine"
    gt_rank: int
    option_index: int | None = None


class HasPaperEntry(EdgeRecord):
    """``(Leaderboard)-[:HAS_ENTRY {gt_rank, score, method}]->(Paper)`` (ground-truth files)."""

    TYPE: ClassVar[str] = "HAS_ENTRY"
    START: ClassVar[str] = "Leaderboard"
    END: ClassVar[str] = "Paper"
    gt_rank: int
    score: float | None = None
    method: str | None = None


class OfPaper(EdgeRecord):
    """``(TitleLine)-[:OF_PAPER]->(Paper)``: the line resolved to a paper by normalized title."""

    TYPE: ClassVar[str] = "OF_PAPER"
    START: ClassVar[str] = "TitleLine"
    END: ClassVar[str] = "Paper"


def _concrete(base: type[Record], marker: str) -> tuple[Any, ...]:
    """Every subclass of ``base`` (at any depth) that sets ``marker``, in definition order.

    Derived rather than listed by hand: a hand-kept tuple had already lost ``UsesMethod``, and
    a record class missing from it would escape the tests that iterate over it.
    """
    found: list[type[Record]] = []
    for cls in base.__subclasses__():
        if hasattr(cls, marker):
            found.append(cls)
        found += _concrete(cls, marker)
    return tuple(found)


NODE_RECORDS: tuple[type[NodeRecord], ...] = _concrete(NodeRecord, "LABEL")
EDGE_RECORDS: tuple[type[EdgeRecord], ...] = _concrete(EdgeRecord, "TYPE")

"""One Paper per work, whatever source named it first: identity resolution for every loader
(the open catalogues OpenAlex, arXiv and Crossref, and the benchmark families).

Why: ``schema/ids.paper_id`` picks *one* id by priority, so a work read from arXiv (arXiv id +
DOI → ``arxiv:…``) and from OpenAlex (DOI only → ``doi:…``) would become two nodes. Real
sources carry different subsets of a work's ids; what large graphs do (and what this module
does) is keep one stable key per work and an index from every external id to it.

The rules (docs/decisions.md, "One Paper per work"):

* every identifier is an indexed *slot* property (``arxiv_id``, ``doi``, ``corpus_id``,
  ``openalex_id``, ``mag_id``, ``pmid``, ``pmcid``, ``s2_paper_id``);
* before a chunk of source records is written, every id its Papers carry (the work's own and
  those of the works it cites) is looked up in one batched query (``identity/lookup_papers``),
  and a union-find over the ids groups the records and stored Papers of each work;
* **the key**: a benchmark family's record (``loaders/steps.run_steps`` resolves every
  family step, :class:`IdentityResolver` with ``family=True``) keeps its own id, because the
  family's tasks look the work up and score by it; its node is marked ``family_key``, and a
  stored Paper of the same work that no family keys (an open catalogue made it) is merged into
  it. A catalogue record lands on the work's stored node (a family-keyed one first, else the
  one whose id ranks first by ``paper_id``'s priority), else on the best id among its records;
* a record that joins two stored Papers merges them: the loser's relationships are re-MERGEd
  onto the survivor through the store's own batch writer (keyed types keep one relationship
  per key), the survivor gets the properties it lacks and the loser's ids (a slot it already
  fills with a different value goes to ``alt_ids``, with the merged-away primary id), and the
  loser is deleted; each merge is logged and counted. Two *family-keyed* nodes are never
  merged (that would break one family's lookups): they are kept apart and reported;
* a slot value that contradicts the stored one (a second DOI) is not overwritten: it is kept
  in ``alt_ids``; every alternative id (those, merged-away and retired ids) is also a
  ``PaperAlias`` node with ``ALIAS_OF`` to the Paper, which the lookup matches (a list
  property has no index on both backends, a node's unique id does);
* *kept current*: a catalogue record that states a work's whole reference list (an OpenAlex
  work with ``referenced_works``, a Crossref item with ``reference``) or author list marks
  those edges (``CITES``/``AUTHORED_BY`` ``from_openalex`` / ``from_arxiv`` /
  ``from_crossref`` / ``from_bibtex``); re-reading the work takes its mark off the edges it
  no longer lists and deletes an edge nobody else asserts (``identity/prune_*``,
  :class:`StatedList`); the properties only that source gives (:class:`StatedFields`, e.g.
  OpenAlex's open-access status) that the new record lacks are removed.

Memory is bounded by the chunk (the ids of one chunk and of the previous one, whose records may
still sit in the writer's buffer when the next chunk is looked up), plus the merges waiting for
their nodes' flush.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import is_, is_not, itemgetter, ne
from typing import Any, Literal, cast

from scholarkg.errors import InputError
from scholarkg.loaders.author_identity import (
    AuthorResolver,
    described_paper,
    rewrite_authors,
)
from scholarkg.loaders.checkpoint import FLUSH, AnyRecord, Group, SourceDigests
from scholarkg.loaders.collection_pace import paused_collections
from scholarkg.loaders.held_references import HeldReferences
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.loaders.source_rank import (
    RANKED_FIELDS,
    RECORD_MARKS,
    SOURCE_RANK,
    SOURCE_SLOT,
    record_key,
    source_rank,
)
from scholarkg.loaders.statements import (
    STATED_FIELDS,
    implicit_statements,
    own_keys,
    restated,
    statement_of,
)
from scholarkg.loaders.unchanged_edges import UnchangedEdge
from scholarkg.loaders.writer import RecordWriter
from scholarkg.schema.records import (
    AliasOf,
    Authorship,
    Citation,
    EdgeRecord,
    NodeRecord,
    Paper,
    Statement,
    States,
)
from scholarkg.schema.text import key_too_long
from scholarkg.store.base import GraphStore
from scholarkg.store.batch_writes import BatchWriteStore
from scholarkg.store.cypher_common import chunked

log = logging.getLogger(__name__)

#: id slot property → key scheme (the key of ``doi`` "10.1/x" is "doi:10.1/x"); arXiv, DOI and
#: corpus id keys equal the primary ids ``paper_id`` makes from them
SLOTS: dict[str, str] = {
    "arxiv_id": "arxiv",
    "doi": "doi",
    "corpus_id": "s2",
    "openalex_id": "openalex",
    "mag_id": "mag",
    "pmid": "pmid",
    "pmcid": "pmcid",
    "s2_paper_id": "s2paper",
}
_SLOT_NAMES = frozenset(SLOTS)
#: the id scheme of a work known by its title and year alone (``schema/ids.paper_id``)
_TITLE_KEYED = "paper:"
_EMPTY: dict[str, Any] = {}  # read only
_NO_ENDS: frozenset[str] = frozenset()


class _PropertiesOnRead(Mapping[str, dict[str, Any]]):
    """``{node id: record.properties()}``, each made when first read.

    Why: a chunk keeps its described Papers' properties for the next chunk's checks (the
    newest record of a work wins, ``_older_records``; a work's merged base,
    ``_merged_bases``), which read only the few works two chunks share. Made up front for
    every described Paper they took ~0.18 s of the loading thread in a 22,000-work update
    into a 200,000-work graph (``py-spy`` over ``bench_openalex.py``), and the writer makes
    the same properties again for the rows it sends. Records are frozen, so a late read
    gives what an early one would have."""

    def __init__(self, records: Mapping[str, NodeRecord]) -> None:
        self._records = records
        self._made: dict[str, dict[str, Any]] = {}

    def __getitem__(self, key: str) -> dict[str, Any]:
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = self._records[key].properties()
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)


#: an OpenAlex work's key, its slot, and where its bare id starts in the key: a settled
#: reference's slot is read off its key (``IdentityResolver._settled_references``)
_OPENALEX_SLOT = "openalex_id"
_OPENALEX_KEY = SLOTS[_OPENALEX_SLOT] + ":"
_OPENALEX_CUT = len(_OPENALEX_KEY)
#: a look-up row's key and Paper id, and whether a key is not an OpenAlex one, in C
#: (``IdentityResolver._settled_references``: ~50,000 rows a chunk)
_FIRST = itemgetter(0)
_SECOND = itemgetter(1)
_NOT_OPENALEX = re.compile(f"(?!{re.escape(_OPENALEX_KEY)})").match
#: what every edge of an OpenAlex reference list carries (``ReferenceList.openalex``)
_OPENALEX_REF_PROPS = (("from_openalex", True),)
#: lookup query parameter per slot (``identity/lookup_papers``)
_PARAMS = {
    "arxiv_id": "arxiv",
    "doi": "doi",
    "corpus_id": "corpus",
    "openalex_id": "openalex",
    "mag_id": "mag",
    "pmid": "pmid",
    "pmcid": "pmcid",
    "s2_paper_id": "s2paper",
}
#: key scheme → its slot's lookup query parameter (``IdentityResolver._lookup``)
_BY_SCHEME = {scheme: _PARAMS[slot] for slot, scheme in SLOTS.items()}
#: primary id schemes by priority (``schema/ids.paper_id``); anything else ranks last
_RANK = {"arxiv": 0, "doi": 1, "s2": 2, "openalex": 3}

Source = Literal["openalex", "arxiv", "crossref", "bibtex", "s2"]


#: the relationships identity/lookup_papers reads (a PaperAlias to its Paper)
_ALIAS_OF = frozenset({"ALIAS_OF"})


def id_rank(paper_id: str) -> tuple[int, str]:
    """Sort key choosing a merge's survivor: the id ``paper_id`` would prefer, then by text."""
    return (_RANK.get(paper_id.split(":", 1)[0], 9), paper_id)


def slot_keys(values: dict[str, Any]) -> set[str]:
    """The scheme-prefixed keys of the id slots in ``values`` (a record row or lookup row)."""
    return {f"{SLOTS[s]}:{values[s]}" for s in SLOTS if values.get(s) not in (None, "")}


#: the relationship types whose whole list a source states per work, and the name of that
#: list in the named queries (``identity/prune_<source>_<list>``)
_LISTS = {"CITES": "references", "AUTHORED_BY": "authorships"}


@dataclass(frozen=True)
class StatedList:
    """Marker a reader puts in a group: ``paper`` (a Paper record id in the group) is the work
    whose *whole* list of ``rel`` edges (its references, ``CITES``, or its authors,
    ``AUTHORED_BY``) ``source`` states in this group's records, so edges of that type that
    source asserted before and no longer lists are dropped (the edge itself only when no
    other source asserts it). Not stored; the resolver consumes it."""

    paper: str
    source: Source
    rel: Literal["CITES", "AUTHORED_BY"] = "CITES"


@dataclass(frozen=True)
class StatedFields:
    """Marker a reader puts in a group: the source record of Paper ``paper`` states the
    properties ``names`` (properties only that source gives, e.g. OpenAlex's open-access
    status): one the record has no value for is removed from the stored node, so a reload
    equals a fresh load of the new record. ``ranked``: the shared properties
    (``RANKED_FIELDS``, the citation count) whose fields the record has, with or without a
    value: one it has no value for is no longer stated by it (``loaders/statements``);
    one whose field it lacks (an API page trimmed by ``select=``) it says nothing about.
    Not stored; the resolver consumes it."""

    paper: str
    names: frozenset[str]
    ranked: frozenset[str] = frozenset()


StatedMark = StatedList | StatedFields
#: what the readers of the open catalogues yield per source record
SourceGroup = tuple[int, Sequence[AnyRecord | StatedMark]]


@dataclass
class IdentityReport:
    """What resolution did, for the load summary."""

    matched: int = 0
    merges: list[tuple[str, str]] = field(default_factory=list)
    conflicts: int = 0
    pruned: int = 0
    pruned_authorships: int = 0
    #: name-only Authors deleted because no work lists them any more
    unlisted_authors: int = 0
    #: (id, id): two benchmark families key one work differently; both nodes are kept
    kept_apart: list[tuple[str, str]] = field(default_factory=list)
    #: stored Papers given a better key of their work (renamed in place)
    renamed: int = 0
    #: Author nodes of one person merged; names aligned to a work's listed authors
    author_merges: int = 0
    authors_aligned: int = 0
    #: keys answered from an earlier chunk's look-up instead of the server's
    lookups_reused: int = 0
    #: OpenAlex records skipped: the graph or the load held a newer record of their work
    older_skipped: int = 0
    #: works joined by their title and year alone (``IdentityResolver._title_matches``)
    title_matches: int = 0

    def notes(self) -> list[str]:
        out = []
        if self.matched:
            out.append(
                f"{self.matched:,} time(s) a work the records describe or cite was found in "
                "the graph by one of its ids (a work cited in several batches counts in each)"
            )
        if self.merges:
            shown = ", ".join(f"{a} → {b}" for a, b in self.merges[:5])
            more = f" (+{len(self.merges) - 5} more, see the log)" if len(self.merges) > 5 else ""
            out.append(f"merged {len(self.merges):,} Paper(s) into another: {shown}{more}")
        if self.conflicts:
            out.append(
                f"{self.conflicts:,} id(s) contradicted a stored one (e.g. a second DOI): "
                "kept in alt_ids"
            )
        if self.pruned:
            out.append(f"{self.pruned:,} CITES edge(s) dropped: no longer in their source's list")
        if self.pruned_authorships:
            out.append(
                f"{self.pruned_authorships:,} AUTHORED_BY edge(s) dropped: no longer in their "
                "source's author list"
            )
        if self.unlisted_authors:
            out.append(
                f"{self.unlisted_authors:,} name-only Author(s) deleted: listed by no work now"
            )
        if self.renamed:
            out.append(
                f"{self.renamed:,} stored Paper(s) re-keyed by a better id of their work "
                "(a reference's id, then its record's)"
            )
        if self.title_matches:
            out.append(
                f"{self.title_matches:,} record(s) joined to a stored work by title and year "
                "(one of them known by nothing else, e.g. a .bib entry without a DOI)"
            )
        if self.older_skipped:
            out.append(
                f"{self.older_skipped:,} OpenAlex record(s) skipped: the graph or a file read "
                "earlier holds a newer record of the work (updated_date)"
            )
        if self.author_merges:
            out.append(f"merged {self.author_merges:,} Author node(s) into another of one person")
        if self.authors_aligned:
            out.append(
                f"{self.authors_aligned:,} author name(s) matched to the work's listed authors "
                "(no new Author)"
            )
        if self.kept_apart:
            shown = ", ".join(f"{a} / {b}" for a, b in self.kept_apart[:5])
            out.append(
                f"{len(self.kept_apart):,} work(s) keyed differently by two benchmark families "
                f"kept as two Papers (each family finds its own): {shown}"
            )
        return out


class _UnionFind:
    """Union-find over keys and nodes. A value never united is its own root and is not
    stored: a chunk's ~40,000 reference ends are mostly alone in their work."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, x: str) -> str:
        parent = self.parent
        root = parent.get(x)
        if root is None:
            return x
        if root == x:
            return root
        while (up := parent.get(root, root)) != root:
            root = up
        while x != root:
            parent[x], x = root, parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[rb] = ra


_NODE = "\x00node:"  # cannot collide with a scheme-prefixed key


def _ignore_count(_: int) -> None:
    """The count of a statement written ahead that nobody reports (an unmark)."""


def _nothing() -> None:
    """A statement written ahead failed: its error is raised where its reply is read,
    and the writer, reading it, undoes its unsaved batch."""


def _node(paper_id: str) -> str:
    return _NODE + paper_id


#: the row of a looked-up Paper whose slots were not read (``_fill_slots``): shared, never
#: written to
_UNFILLED: dict[str, Any] = {}


class _RefStub:
    """An end of a :class:`ReferenceList` as resolution sees a reference's stub Paper: its
    id, the one id slot it fills and that slot's key (``slot_keys`` of the stub's row; the
    stub's keys are that and its id). A plain object: a chunk holds ~40,000 of them."""

    __slots__ = ("id", "key", "slot", "value")

    def __init__(self, paper_id: str, slot: str, value: str, key: str) -> None:
        self.id = paper_id
        self.slot = slot
        self.value = value
        self.key = key

    def is_stub(self) -> bool:
        return True


#: what a chunk's resolution groups by work: its Paper records and its references' ends
_Entry = Paper | _RefStub


@dataclass
class _Entries:
    """A chunk's entries (:func:`_entries`)."""

    #: its Paper records and reference ends, in record order (an end once a list)
    all: list[_Entry]
    #: the Paper records among them
    papers: list[Paper]
    #: the entries whose keys (``slot_keys`` of the row, and the id) are more than their
    #: id, with their keys: an entry's id is always one of its keys, and most have no other
    multi: list[tuple[_Entry, Collection[str]]]
    #: every key of every entry
    keys: set[str]


@dataclass
class _AheadLookup:
    """The next chunk's look-up, sent while this chunk resolves
    (:meth:`IdentityResolver._send_lookup_ahead`)."""

    #: the next chunk's groups (the object ``_resolve_chunk`` is then called with)
    groups: list[SourceGroup]
    #: their entries, made once
    entries: _Entries
    #: the keys the read asked about
    asked: set[str]
    #: every key of the chunk resolving when it was sent (its records' and references'):
    #: that chunk's writes may change what these name, so they are looked up afresh
    touched: set[str]
    #: ``IdentityResolver._identity_changes`` when it was sent
    changes: int
    #: its rows, read when called
    rows: Callable[[], list[dict[str, Any]]]
    #: Papers renamed, or whose ids were kept as aliases, since it was sent: the keys whose
    #: rows name one are sought afresh (``IdentityResolver._forget_finds``)
    moved: set[str] = field(default_factory=set)


def _entries(groups: Sequence[SourceGroup]) -> _Entries:
    """The chunk's Paper records and reference ends, with their keys, in one pass."""
    out: list[_Entry] = []
    papers: list[Paper] = []
    multi: list[tuple[_Entry, Collection[str]]] = []
    wanted: set[str] = set()
    add, want = out.append, wanted.add
    for _, recs in groups:
        for r in recs:
            if isinstance(r, Paper):
                add(r)
                papers.append(r)
                want(r.id)
                keys = slot_keys(r.__dict__)
                if keys and keys != {r.id}:
                    keys.add(r.id)
                    multi.append((r, keys))
                    wanted.update(keys)
            elif isinstance(r, ReferenceList):
                slot = r.slot
                scheme = SLOTS[slot]
                seen: set[str] = set()
                for end, value in zip(r.ends, r.values, strict=True):
                    if end not in seen:
                        seen.add(end)
                        key = f"{scheme}:{value}"
                        stub = _RefStub(end, slot, value, key)
                        add(stub)
                        if key != end:
                            multi.append((stub, (key, end)))
                            want(key)
                wanted.update(seen)
    return _Entries(out, papers, multi, wanted)


def _record_keys(papers: list[Paper], multi: list[tuple[_Entry, Collection[str]]]) -> set[str]:
    """The keys a chunk's Paper records hold: their ids, the keys of their id slots, and
    their alternative ids (which the writer makes aliases of their nodes). Neither an earlier
    look-up's answer (``_lookup_with_finds``) nor a settled reference
    (``_settled_references``) may stand for one of them: the records decide them."""
    keys = {p.id for p in papers}
    for p in papers:
        if p.alt_ids:
            keys.update(p.alt_ids)
    for entry, slot_keys_of in multi:
        if isinstance(entry, Paper):
            keys.update(slot_keys_of)
    return keys


def _expanded(recs: Sequence[AnyRecord | StatedMark]) -> list[AnyRecord | StatedMark]:
    """``recs`` with each reference list as the records it stands for."""
    out: list[AnyRecord | StatedMark] = []
    for r in recs:
        if isinstance(r, ReferenceList):
            out += r.records()
        else:
            out.append(r)
    return out


#: what an authorship record may set on its edge, compared with the stored edge by
#: :func:`_held_as_stated` (a field the stored-authors read does not return reads as
#: absent, so a record that sets it is written as before)
_AUTHORSHIP_SET = tuple(
    sorted(
        set(Authorship.model_fields)
        - {"start", "end", "also", "from_arxiv", "from_crossref", "from_bibtex"}
    )
)


def _held_as_stated(rec: Authorship, have: Mapping[str, Any]) -> bool:
    """Whether ``rec``'s ``MERGE … SET r += props`` would change nothing on the stored edge
    whose properties ``have`` holds: every value it sets is there already, and every
    ``Authorship.OWNED`` field it leaves unset is absent (one that is not is cleared,
    :meth:`IdentityResolver._cleared_authorship_fields`, and the edge written). The
    record's fields, not ``properties()``: pydantic's dump cost more than the comparison
    saved."""
    if rec.from_arxiv is not None or rec.from_crossref is not None or rec.from_bibtex is not None:
        return False
    for key in _AUTHORSHIP_SET:
        value = getattr(rec, key)
        if value is not None and have.get(key) != value:
            return False
    # an owned field left unset removes the stored value (Authorship.OWNED)
    return all(have.get(key) is None for key in rec.owned_unset())


def _swap_records(out: list[Group], swap: Callable[[AnyRecord], AnyRecord | None]) -> None:
    """Each group of ``out`` with the records ``swap`` gives a replacement for replaced (a
    group is copied only when one is: most of a chunk's groups keep their list)."""
    for k, (number, recs) in enumerate(out):
        changed: list[AnyRecord] | None = None
        for i, rec in enumerate(recs):
            if (new := swap(rec)) is not None:
                changed = list(recs) if changed is None else changed
                changed[i] = new
        if changed is not None:
            out[k] = (number, changed)


class IdentityResolver:
    """Rewrites streamed groups so every Paper record lands on the one node of its work.

    Use :meth:`resolve` around a reader's groups, then call :meth:`finish` after the load's
    last flush (it runs merges that had to wait for records still in the writer's buffer).
    ``chunk`` must equal the load's batch size: ``run_resumable`` flushes at least every
    ``batch_size`` groups, so when chunk *k+2* is looked up, chunk *k* is in the store; a merge
    found in chunk *k* whose node may be unwritten waits until then (or :meth:`finish`).

    ``family=True`` is the mode of the benchmark families' loaders (``loaders/steps``): a
    family record keeps its own id, because the family's tasks look the work up by it and
    score against it; a stored Paper of the same work that no family keys (one an open
    catalogue created) is merged *into* the record's node, and every node the record writes
    is marked ``family_key``. In the catalogues' mode a record lands on a family-keyed node
    first. Two families that key one work differently keep two nodes (merging would break one
    family's lookups); the summary names them. A family record of a ranked source (``load
    s2``'s) on a work an open catalogue described writes its shared properties by the source
    rank too (:meth:`_family_rank_states`), so the load order does not matter.
    """

    #: answer a chunk's reference-only keys from earlier look-ups (:meth:`_lookup_with_finds`);
    #: off only to compare (tests/loaders/test_lookup_reuse.py)
    reuse_lookups = True
    #: leave out the reference edges a chunk's works already hold as OpenAlex states them
    #: (:meth:`_skip_stored_references`); off only to compare (tests/loaders/
    #: test_stated_references.py)
    skip_stored_references = True
    #: the same for the ``AUTHORED_BY`` edges of OpenAlex author lists
    #: (:meth:`_skip_stored_authorships`); off only to compare (the same test module)
    skip_stored_authorships = True
    #: settle a reference whose key finds one stored Paper that nothing else of the chunk
    #: touches outside the union-find (:meth:`_settled_references`); off only to compare
    #: (tests/loaders/test_settled_references.py)
    settle_references = True
    #: the most keys ``_finds`` remembers (:meth:`_lookup_with_finds`); past it, it starts
    #: again empty. Why: it holds a key per distinct work the load's references cite and a
    #: look-up found (~170 bytes with its Paper id), and a load's peak RSS must not grow
    #: with its input (1M + 100k in bench_openalex.py: 459 MB, hundreds of thousands held)
    finds_limit = 1_000_000
    #: send the next chunk's look-up while a chunk resolves (:meth:`_send_lookup_ahead`),
    #: and the chunk's Author look-up while its Papers resolve
    #: (``AuthorResolver.send_lookup_ahead``); off only to compare
    #: (tests/loaders/test_lookup_ahead.py, tests/loaders/test_author_lookup_ahead.py)
    lookup_ahead = True
    #: join a work known only by its title and year (a ``.bib`` entry with neither a DOI nor
    #: an arXiv id) to the one stored work of that title and year (:meth:`_title_matches`)
    match_titles = True

    def __init__(
        self,
        store: GraphStore,
        *,
        chunk: int = 5_000,
        family: bool = False,
        held: HeldReferences | None = None,
    ) -> None:
        self.store = store
        self.chunk = chunk
        self.family = family
        #: references to works a later record of the load describes, held until it comes
        #: (``loaders/held_references.py``; catalogue mode, ``load openalex``)
        self.held = None if family else held
        #: the file being resolved (``run_steps`` sets it per step): with a group's number,
        #: the source record a hold names; else the count of :meth:`resolve` calls
        self.source = ""
        self._resolves = 0
        #: the source record whose group :meth:`_rewrite` is rewriting
        self._record = ""
        self.report = IdentityReport()
        #: key → Paper id assigned in the previous chunk (maybe not written yet)
        self._recent: dict[str, str] = {}
        #: Paper ids the previous chunk's describing records landed on, and the properties
        #: its own records (record id = Paper id) gave them (maybe not written yet)
        self._recent_described: set[str] = set()
        self._recent_slots: dict[str, dict[str, Any]] = {}
        #: the slots the previous chunk's references alone gave (a stub's W id): they come
        #: after every describing record's (``_slots``)
        self._recent_stub_slots: dict[str, dict[str, Any]] = {}
        #: Paper id → key of the previous chunk's settled references
        #: (:meth:`_settled_references`) whose one slot is the OpenAlex id of that key
        #: (``_recent_stub_slots`` kept as keys: ~40,000 a chunk, each slot read off it)
        self._recent_settled: dict[str, str] = {}
        self._recent_props: Mapping[str, dict[str, Any]] = {}
        #: per Paper id a record of this chunk (or the previous one) writes: every alternative
        #: id known for it (stored, then the records'), so each written row carries the union
        self._alts: dict[str, set[str]] = {}
        self._recent_alts: dict[str, set[str]] = {}
        #: per Paper id a ``.bib`` entry of this chunk (or the previous one) describes: the
        #: citation keys it holds (stored, then the entries'), each ``<file>:<key>``
        self._bibs: dict[str, list[str]] = {}
        self._recent_bibs: dict[str, list[str]] = {}
        #: per Paper id, the ``.bib`` files whose stored keys of it this load has replaced
        #: (so a second entry of one file naming the work adds its key to the first's)
        self._bib_files: dict[str, set[str]] = {}
        #: per Paper id of this chunk that another record of its work lands on: the
        #: properties it holds (stored, then its own record's), which that record only fills
        self._base: dict[str, dict[str, Any]] = {}
        #: Paper ids of this chunk a better-ranked source described: its records only fill
        #: per Paper id of this chunk that sources of different rank describe: what it
        #: holds and which source gave each ranked property (``_RankState``)
        self._ranked: dict[str, _RankState] = {}
        #: family mode, per record's Paper id (a record of a ranked source, ``load s2``'s):
        #: the work as the open catalogues described it, whose ranked properties it meets
        self._family_ranked: dict[str, _RankState] = {}
        #: family mode, per such record's Paper id: the stored nodes of its work a catalogue
        #: described (its own, those merging into it), with their properties and statements
        self._family_work: dict[str, list[tuple[str, dict[str, Any], list[Any]]]] = {}
        #: one Author node per person (loaders/author_identity.py): by id in both modes, by
        #: name on a listed work in the catalogues' only
        self._authors = AuthorResolver(store, by_name=not family)
        #: name-only Authors a list dropped during the load: deleted in finish if left alone
        self._unlisted: set[str] = set()
        #: the source groups' digests for the load's checkpoints (``run_steps`` sets one per
        #: file): taken as :meth:`resolve` reads them, before resolution rewrites them
        self.digests: SourceDigests | None = None
        #: (chunk number, loser, survivor): merges whose nodes may still be unwritten
        self._deferred: list[tuple[int, str, str]] = []
        self._chunk_no = 0
        #: per chunk: Paper ids already in the store, and those a record of the chunk writes
        #: (a reference's stub to either adds nothing, so it is not sent)
        self._stored: set[str] = set()
        self._written: set[str] = set()
        #: family mode, per record's Paper id: the stored nodes of its work (whose author
        #: list the record's authors are aligned to)
        self._work_nodes: dict[str, list[str]] = {}
        #: leading groups of the next ``resolve`` a resumed load skips (:meth:`skip`)
        self._skip = 0
        #: key -> the one Paper id an earlier chunk's look-up found for it, reused for keys a
        #: chunk's references alone name (:meth:`_lookup_with_finds`)
        self._finds: dict[str, str] = {}
        #: Papers renamed (or whose displaced ids became aliases) since ``_finds`` was last
        #: cleared: a find naming one is stale (:meth:`_held_finds`)
        self._finds_moved: set[str] = set()
        #: Paper id -> its internal node id (as text, as it is read and sent), as the look-ups
        #: since ``_finds`` was last cleared read it (FalkorDB's look-up returns it:
        #: ``identity/lookup_papers.falkordb.cypher``);
        #: given to the writer with the references that land on that Paper
        #: (:meth:`_rewrite_references`), whose ``CITES`` then take their end by it. Kept as
        #: long as ``_finds`` (most of an update's references are answered from there), and
        #: dropped where a find is: a merge or a retired id clears both (a merge deletes a
        #: node, and FalkorDB gives a deleted node's id to the next one created), a renamed
        #: or displaced Paper's entry goes (:meth:`_forget_finds`)
        self._nodes: dict[str, str] = {}
        #: the keys of the previous chunk's Paper records (their rows may be unwritten)
        self._recent_record_keys: set[str] = set()
        #: the next chunk's groups while this one resolves (:meth:`resolve`), and its
        #: look-up sent ahead (:meth:`_send_lookup_ahead`)
        self._next_groups: list[SourceGroup] = []
        self._ahead_lookup: _AheadLookup | None = None
        #: counts what may change which Paper a key names beyond the keys a chunk holds,
        #: a merge (deferred or not) or a retired id: a look-up sent ahead across one is
        #: not used (a rename or a displaced id only moves Papers: ``_AheadLookup.moved``)
        self._identity_changes = 0
        #: this chunk's works whose OpenAlex list lost ends, with those ends
        #: (:meth:`_skip_stored_references`, applied in :meth:`_apply_lists`)
        self._gone_ends: list[dict[str, Any]] = []
        #: the titles and years of the graph's works known by title alone: read once a load,
        #: then those the load's chunks write (:meth:`_title_keyed_titles`)
        self._graph_title_keyed: set[tuple[str, int]] | None = None
        #: the title-only ids the chunks joined to another work: each becomes its alias
        #: (:meth:`_title_matches`, :meth:`_rewrite`)
        self._title_joined: set[str] = set()

    # -- public --------------------------------------------------------------------------
    def resolve(self, groups: Iterable[SourceGroup]) -> Iterator[Group]:
        """``groups`` resolved a chunk at a time. A bad record (``InputError`` from the
        reader) first lets the groups read before it through, so they are stored and the
        load can resume after them, as without resolution."""
        source = iter(groups if self.digests is None else self.digests.wrap(groups))
        self._resolves += 1
        skip, self._skip = self._skip, 0
        failed: InputError | None = None
        self._ahead_lookup = None

        def take() -> list[SourceGroup]:
            """The next chunk's groups; those before a bad record, which is raised after
            them (``failed``)."""
            nonlocal failed
            buf: list[SourceGroup] = []
            while failed is None and len(buf) < self.chunk:
                try:
                    group = next(source, None)
                except InputError as err:
                    failed = err
                    break
                if group is None:
                    break
                buf.append(group)
            return buf

        def chunk(buf: list[SourceGroup]) -> list[Group]:
            nonlocal skip
            skipped = min(skip, len(buf))
            skip -= skipped
            return self._resolve_chunk(buf, skipped=skipped)

        buf = take()
        first = True
        while buf and failed is None:
            # the chunk before is sent before this one is looked up: the store runs the
            # look-up after it (the flush is not waited for: the Python up to the look-up,
            # the next chunk's parse and this chunk's keys, runs while the server writes it)
            yield FLUSH
            if first:  # no chunk before sent its look-up: it goes out now, while the next
                # chunk is read (:meth:`_send_first_lookup`)
                self._send_first_lookup(buf)
                first = False
            # the next chunk is read before this one resolves: its look-up goes out while
            # this one resolves (:meth:`_send_lookup_ahead`)
            nxt = take()
            self._next_groups = nxt
            try:
                yield from chunk(buf)
            finally:
                self._next_groups = []
            buf = nxt
        if failed is not None:
            if buf:  # the groups before the bad record: flushed with the chunk before
                yield from chunk(buf)
            raise failed
        self._ahead_lookup = None

    def skip(self, records: int) -> None:
        """The next :meth:`resolve`'s first ``records`` groups are skipped by a resumed load
        (its checkpoint claims them and the file is unchanged:
        ``Checkpoint.skipped_outright``): they are still resolved, so the merges and renames
        their ids call for run (an interrupted load may have died before a deferred merge),
        but what they state is not applied: no prune of their reference or author lists,
        no removal of their owned fields. Applied, those would follow what their ids resolve
        to *now*, against a graph holding later records: an id that resolves differently
        after an interruption took edges off a skipped work, and nothing wrote them again."""
        self._skip = records

    def finish(self) -> None:
        """Run the merges deferred until every record of the load is written; then every
        statement written ahead has answered, so the report counts what they did."""
        self._send_held()
        self._run_deferred(final=True)
        authors = self._authors
        authors.finish()
        self.report.author_merges = len(authors.merged)
        self.report.authors_aligned = authors.aligned
        if isinstance(self.store, BatchWriteStore):
            self.store.settle()  # the last chunk's prunes (_write_ahead): their counts
        unlisted, self._unlisted = sorted(self._unlisted), set()
        for start in range(0, len(unlisted), 10_000):
            # a name-only Author whose authorship a record no longer lists: deleted if that
            # was its last (one per work since their ids are the work's: nothing else would)
            rows = self.store.run_named(
                "identity/drop_lone_authors", {"ids": unlisted[start : start + 10_000]}
            )
            self.report.unlisted_authors += int(rows[0]["deleted"]) if rows else 0

    def merge(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Merge each ``(loser, survivor)`` Paper pair (ids); a missing node is skipped."""
        self._send_held()
        self._forget_finds()
        self._note_moves(pairs)
        for loser, survivor in pairs:
            if loser != survivor and merge_papers(self.store, loser, survivor):
                self.report.merges.append((loser, survivor))

    def _run_deferred(self, *, final: bool) -> None:
        due = [d for d in self._deferred if final or d[0] <= self._chunk_no - 2]
        if not due:
            return
        self._deferred = [d for d in self._deferred if d not in due]
        self._forget_finds()
        self._note_moves([(loser, survivor) for _, loser, survivor in due])
        for number, loser, survivor in due:
            if loser == survivor:
                continue
            if merge_papers(self.store, loser, survivor):
                self.report.merges.append((loser, survivor))
            elif not final:  # a resumed load may flush later than usual: try again at the end
                self._deferred.append((number, loser, survivor))

    def _note_moves(self, pairs: Sequence[tuple[str, str]]) -> None:
        """Papers about to be renamed or merged (``old``, ``new``): the references they
        hold follow, journalled before the statement runs (a crash between the two leaves
        them naming the work's other node, which the merge then joins); so do the ``.bib``
        files whose keys of it this load has replaced (:meth:`_move_bib_files`)."""
        self._move_bib_files(pairs)
        held = self.held
        if held is None or not held:
            return
        for old, new in pairs:
            held.moved(old, new)
        held.save()

    def _move_bib_files(self, pairs: Sequence[tuple[str, str]]) -> None:
        """``_bib_files`` of each ``old`` Paper id under its ``new`` one, as a rename or a
        merge moves the keys (``merge_papers``, ``identity/rename_papers``).

        Why: keyed by the id alone, a file's entries of one work read in two chunks under
        two ids (by title and year, then by DOI: the title-only node is renamed) looked like
        a second load of the file to the later one, whose key then replaced the earlier's on
        the work (``test_title_join.py``)."""
        files = self._bib_files
        for old, new in pairs:
            if old != new and (moved := files.pop(old, None)):
                files.setdefault(new, set()).update(moved)

    def _defer(self, loser: str, survivor: str) -> None:
        self._move_bib_files([(loser, survivor)])
        self._deferred.append((self._chunk_no, loser, survivor))
        self._identity_changes += 1  # the chunk's writes may give the survivor the loser's ids

    def _keep_apart(self, a: str, b: str) -> None:
        pair = (min(a, b), max(a, b))
        if pair not in self.report.kept_apart:
            self.report.kept_apart.append(pair)
            log.warning("two benchmark families key one work differently: %s and %s", *pair)

    # -- one chunk -----------------------------------------------------------------------
    def _resolve_chunk(self, groups: list[SourceGroup], *, skipped: int = 0) -> list[Group]:
        """``groups`` resolved; the first ``skipped`` are skipped by a resumed load
        (:meth:`skip`): resolved, their statements not applied. The cyclic collector is off
        meanwhile (``collection_pace.paused_collections``): a chunk makes ~40,000 reference
        ends, their look-up rows and maps, nearly all dropped at its end; with it on, its
        young collections walked them again and again (~4 CPU-s of a 22,000-work update)."""
        with paused_collections():
            return self._resolve_chunk_now(groups, skipped=skipped)

    def _resolve_chunk_now(self, groups: list[SourceGroup], *, skipped: int) -> list[Group]:
        self._chunk_no += 1
        self._send_held()
        if self._deferred:
            self._run_deferred(final=False)
        if self.family:  # family loaders state references as records: nothing to gain
            groups = [(number, _expanded(recs)) for number, recs in groups]
        ahead, self._ahead_lookup = self._ahead_lookup, None
        if ahead is not None and ahead.groups is not groups:
            ahead = None
        chunk = _entries(groups) if ahead is None else ahead.entries
        if ahead is not None and ahead.changes != self._identity_changes:
            ahead = None  # a merge or a retired id since it was sent: every key afresh
        entries, papers, multi, wanted = chunk.all, chunk.papers, chunk.multi, chunk.keys
        stored: dict[str, dict[str, Any]] = {}
        found: list[tuple[str, str]]
        #: (record id, record id): two records of the chunk one title and year join
        title_unions: list[tuple[str, str]] = []
        #: reference key → the stored Paper it settles on (:meth:`_settled_references`)
        settled: dict[str, str] = {}
        if self.family:
            found = []
            for key, row in self._lookup_others(papers):
                stored[row["id"]] = row
                found.append((key, row["id"]))
        else:  # (key, id): the rows resolution reads get their flags and slots in _fill_slots
            record_keys = _record_keys(papers, multi)
            # the next chunk's look-up first: its Python (~0.1 s a chunk) runs while the
            # server still writes the chunk before, which this chunk's look-up waits for
            self._send_lookup_ahead(wanted | record_keys)
            found = self._lookup_with_finds(wanted, record_keys, ahead)
            if self.match_titles:
                by_title, title_unions = self._title_matches(papers, found)
                found += by_title
            settled = self._settled_references(found, record_keys, multi)
            if settled:
                found = [row for row in found if row[0] not in settled]
                entries = [e for e in entries if e.id not in settled]
            # one shared empty row, not a dict per Paper (~50,000 a chunk): _fill_slots
            # puts the rows resolution reads in its place
            stored = dict.fromkeys([pid for _, pid in found], _UNFILLED)
        if self.lookup_ahead:  # the chunk before is in the store: its authors' look-up
            # runs on the server while the Papers resolve below
            self._authors.send_lookup_ahead([recs for _, recs in groups])
        #: Paper id → the one key that settles on it
        settled_on = {pid: k for k, pid in settled.items()}
        uf = _UnionFind()
        union, find, parent = uf.union, uf.find, uf.parent
        for key, pid in found:
            node = _NODE + pid  # _node(pid), inline: a call per row
            if key in parent or node in parent:
                union(key, node)
            else:  # two roots (most rows: a key and the one node it finds)
                parent[node] = key
        for _, keys in multi:
            first = next(iter(keys))
            for k in keys:
                union(first, k)
        for a, b in title_unions:
            union(a, b)
        pseudo: set[str] = set()
        recent = self._recent
        if recent and not self.family:  # a family record keeps its id: nothing to land on
            for k in recent.keys() & wanted:  # set order, as iterating wanted was
                if (prev := recent[k]) not in stored and prev not in settled_on:
                    pseudo.add(prev)
                    union(k, _node(prev))
        # per component: the stored (or previous-chunk) Papers it touches and its records
        nodes: dict[str, set[str]] = {}
        for pid in (*stored, *pseudo):
            root = find(_NODE + pid)
            if (have := nodes.get(root)) is None:
                nodes[root] = {pid}  # not setdefault(root, set()): a set made per call
            else:
                have.add(pid)
        #: each entry's component, found once (an id never united is its own root)
        roots = [p.id if p.id not in parent else find(p.id) for p in entries]
        described = {find(p.id) for p in papers if not p.is_stub()}
        if not self.family:
            self._fill_slots(stored, self._needing_slots(described, nodes, stored))
            older = self._older_records(papers, find, nodes, stored)
            if older:  # rare: the rest of the chunk resolves without them
                groups = [
                    (n, [] if any(id(r) in older for r in recs) else recs) for n, recs in groups
                ]
                papers = [p for p in papers if id(p) not in older]
                entries = [e for e in entries if id(e) not in older]
                # a work keyed by several ids (a DOI beside its W id) is in multi too
                multi = [(p, keys) for p, keys in multi if id(p) not in older]
                roots = [p.id if p.id not in parent else find(p.id) for p in entries]
                described = {find(p.id) for p in papers if not p.is_stub()}
        if self.family:
            # before the merges below: they keep the family node's values
            self._family_ranked = self._family_rank_states(papers, uf, nodes, stored)
            mapping = self._family_targets(papers, uf, nodes, stored)
        else:
            mapping = self._catalogue_targets(entries, roots, described, nodes, stored)
            if settled:  # what _catalogue_targets gives a reference alone on its stored node
                mapping.update(settled)
                self._stored.update(settled_on)
                self.report.matched += len(settled)
        stated_ahead = self._stored_references_ahead(groups[skipped:], mapping)
        self._written = set()
        targets = set(mapping.values())
        slots = {} if self.family else self._slots(stored, entries, mapping, targets, settled_on)
        self._alts = {}
        if not self.family:
            for t in {mapping[p.id] for p in papers if not p.is_stub()}:
                known = set(stored.get(t, _EMPTY).get("alt_ids") or ()) | self._recent_alts.get(
                    t, set()
                )
                if known:
                    self._alts[t] = known
            self._keep_displaced(stored, slots, targets)
            self._bibs = {}
            for cited in papers:
                if cited.bib_keys and (work := mapping[cited.id]) not in self._bibs:
                    had = stored.get(work, _EMPTY).get("bib_keys") or self._recent_bibs.get(work)
                    self._bibs[work] = list(had or ())
        # every key of the chunk → its record's Paper id: an entry's keys hold its id, and
        # entries sharing a key are one work's, so the mapping plus the other keys
        keyed = dict(mapping)
        for p, keys in multi:
            t = mapping[p.id]
            for k in keys:
                keyed[k] = t
        self._recent = keyed
        if not self.family:
            self._ranked = self._rank_states(papers, mapping, stored)
            self._base = self._merged_bases(papers, mapping, stored, slots)
            self._recent_described = {mapping[p.id] for p in papers if not p.is_stub()}
            self._recent_props = _PropertiesOnRead(
                {
                    mapping[p.id]: p
                    for p in papers
                    if not p.is_stub() and _own_record(p, slots.get(mapping[p.id]))
                }
            )
        out: list[Group] = []
        lists: dict[tuple[str, str], list[dict[str, Any]]] = {}
        cleared: list[dict[str, Any]] = []
        rewritten = []
        file = self.source or str(self._resolves)
        for number, recs in groups:
            self._record = f"{file}#{number}"  # the holds' source record (held_references)
            rewritten.append((number, recs, *self._rewrite(recs, mapping, slots)))
        amap: dict[tuple[str | None, str], str] = {}
        paper_of: list[str | None] = []
        sources: list[str] = []
        for _, recs, *_ in rewritten:
            own = described_paper(recs)
            paper_of.append(mapping.get(own.id, own.id) if own is not None else None)
            sources.append(own.source or "" if own is not None else "")
        amap = self._authors.resolve(
            [r[2] for r in rewritten],
            paper_of,
            self._stored,
            lists_of=self._work_nodes if self.family else None,
            sources=sources,
        )
        for i, (number, recs, written, marks, other) in enumerate(rewritten):
            if amap:
                written = rewrite_authors(written, paper_of[i], amap)
            if i >= skipped:
                self._apply_marks(recs, written, marks, other, mapping, lists, cleared)
            out.append((number, written))
        if not self.family:
            self._recent_alts = self._alts
            self._recent_bibs = self._bibs
        if skipped == len(groups):  # nothing here is written: nothing of it is applied
            return out
        if self.family:
            self._restate_family(groups, out, skipped)
        else:
            self._restate(groups, out, mapping, slots, stored, skipped, cleared)
        if not self.family and self.skip_stored_references:
            self._skip_stored_references(out, lists, stated_ahead)
        if not self.family and self.skip_stored_authorships:
            self._skip_stored_authorships(out, lists)
        self._apply_lists(lists)
        if not self.family and (gone := self._cleared_authorship_fields(out[skipped:])):
            self._write_ahead("identity/clear_authorship_fields", {"rows": gone})
        for t, state in self._ranked.items():  # every property now the best source's
            if state.had_named and all(g == state.best for g in state.given.values()):
                cleared.append({"id": t, "props": {"named_by": None}})
        if cleared:  # one row a Paper (its owned fields, shared ones, named_by)
            by_id: dict[str, dict[str, Any]] = {}
            for row in cleared:
                by_id.setdefault(row["id"], {}).update(row["props"])
            rows = [{"id": pid, "props": props} for pid, props in by_id.items()]
            self._write_ahead("identity/set_paper_properties", {"rows": rows})
        if self.held is not None:
            if self.held:
                self._release_held(groups, out, mapping, skipped)
            self.held.save()  # before the chunk's flush, so before its checkpoint
        return out

    def _release_held(
        self,
        groups: list[SourceGroup],
        out: list[Group],
        mapping: Mapping[str, str],
        skipped: int,
    ) -> None:
        """The references held for the works this chunk's records describe, each added to
        the group of the record describing its work as ``CITES`` lists to its node
        (``held_references``). The citing Papers were written by earlier chunks, so the
        writer ``MERGE``s them.

        Why the work's own group: a resumed load that cannot trust its checkpoint's count
        resolves the records its checkpoint claims and leaves them unwritten, and a release
        must be written exactly when its work's record is (the run that stored that record
        wrote its releases with it). A group the resolver itself skips (:meth:`skip`)
        releases nothing: its references stay held and are written at the end
        (:meth:`write_held`)."""
        held = self.held
        assert held is not None
        for k in range(skipped, len(groups)):
            works = [
                r.openalex_id
                for r in groups[k][1]
                if type(r) is Paper and r.openalex_id is not None and not r.is_stub()
            ]
            if not works or not (waiting := held.waiting(works)):
                continue
            per_start: dict[str, tuple[list[str], list[str]]] = {}
            for rec in groups[k][1]:
                if type(rec) is not Paper or rec.openalex_id not in waiting or rec.is_stub():
                    continue
                target = mapping.get(rec.id, rec.id)
                work = rec.openalex_id
                for start in held.release(work):
                    ends, values = per_start.setdefault(start, ([], []))
                    ends.append(target)
                    values.append(work)
            lists = [
                ReferenceList(start, tuple(ends), tuple(values), ())
                for start, (ends, values) in per_start.items()
            ]
            number, recs = out[k]
            out[k] = (number, [*recs, *lists])

    def write_held(self, batch_size: int, progress: Callable[[int], None] | None = None) -> int:
        """Write the references still held at the end of a load (their work's record never
        came, or a resumed load held them again from its journal): resolved like any
        reference list, so each lands on its work's node where the graph has one and on a
        stub where it has none; then the journal is deleted. Returns how many.
        ``progress(records written)``: a resumed load may hold up to ``MAX_HELD``."""
        held = self.held
        if held is None:
            return 0
        lists = [
            (n, [ReferenceList.openalex(start, works)])
            for n, (start, works) in enumerate(held.leftovers(), start=1)
        ]
        if not lists:
            held.clear()
            return 0
        if progress is not None:
            progress(0)  # the stage starts (the writer reports each thousand records)
        coming, held.coming = held.coming, None  # nothing is held again
        digests, self.digests = self.digests, None
        try:
            writer = RecordWriter(self.store, batch_size=batch_size, progress=progress)
            for group in self.resolve(lists):
                if group is FLUSH:
                    writer.flush()
                    continue
                for rec in group[1]:
                    writer.add(rec)
            writer.flush()
            self._send_held()
            if isinstance(self.store, BatchWriteStore):
                self.store.settle()
        finally:
            held.coming, self.digests = coming, digests
        n = sum(len(recs[0].ends) for _, recs in lists if isinstance(recs[0], ReferenceList))
        held.leftover += n
        held.clear()
        return n

    def _older_records(
        self,
        papers: list[Paper],
        find: Callable[[str], str],
        nodes: dict[str, set[str]],
        stored: dict[str, dict[str, Any]],
    ) -> set[int]:
        """The Paper records of the chunk (as ``id()``: records are not hashable) older
        than another record of *their* OpenAlex work (same ``openalex_id``) that the graph
        took, the previous chunk wrote, or this chunk holds: their ``openalex_updated``
        (the record's ``updated_date``) sorts before it. Their groups are skipped (counted
        in ``IdentityReport.older_skipped``).

        Why: OpenAlex re-publishes a work whenever it changes, and only its newest record
        is right. A snapshot folder is read oldest partition first, but files named on the
        command line, pages saved at different times, or an older snapshot applied to a
        graph restored from a newer dump come in any order; before, the record read last
        won. A record without ``updated_date`` (trimmed by ``select=``) is never skipped,
        and records of one date are applied in file order, as before. The stored dates
        come with the slots ``_fill_slots`` reads for every described work anyway, so this
        costs no query."""
        dated = [p for p in papers if p.openalex_updated is not None and p.openalex_id]
        if not dated:
            return set()
        recent, recent_keys = self._recent_props, self._recent
        newest: dict[tuple[str, str], str] = {}
        for p in dated:  # the newest date the graph, the chunk before and this chunk hold
            work = cast(str, p.openalex_id)
            key = (find(p.id), work)
            have = [stored.get(pid, _EMPTY) for pid in nodes.get(key[0], ())]
            for k in (p.id, "openalex:" + work):
                if (prev := recent_keys.get(k)) is not None:
                    have.append(recent.get(prev, _EMPTY))
            date = cast(str, p.openalex_updated)
            for row in have:
                if row.get("openalex_id") == work and (other := row.get("openalex_updated")):
                    date = max(date, other)
            newest[key] = max(date, newest.get(key, date))
        older = {
            id(p)
            for p in dated
            if cast(str, p.openalex_updated) < newest[(find(p.id), cast(str, p.openalex_id))]
        }
        self.report.older_skipped += len(older)
        return older

    def _family_targets(
        self,
        papers: list[Paper],
        uf: _UnionFind,
        nodes: dict[str, set[str]],
        stored: dict[str, dict[str, Any]],
    ) -> dict[str, str]:
        """Family mode: every record keeps its id; per work, the catalogue-made nodes merge
        into the record id ``paper_id`` prefers (family-keyed ones are kept apart)."""
        best: dict[str, str] = {}
        for p in papers:
            root = uf.find(p.id)
            if root not in best or id_rank(p.id) < id_rank(best[root]):
                best[root] = p.id
        for root, target in best.items():
            have = nodes.get(root, set())
            if have - {target}:
                self.report.matched += 1
            for n in sorted(have - {target}):
                if stored[n].get("family_key"):
                    if not any(uf.find(p.id) == root and p.id == n for p in papers):
                        self._keep_apart(n, target)
                elif target in stored:
                    self.merge([(n, target)])
                else:  # the record's node is written with this chunk: merge once it is
                    self._defer(n, target)
        self._stored = set()
        # the nodes holding each work's author list before this chunk: the catalogue-made
        # ones merging into the record's node, and that node when stored
        self._work_nodes = {
            target: sorted(
                n for n in nodes.get(root, set()) if n == target or not stored[n].get("family_key")
            )
            for root, target in best.items()
            if nodes.get(root)
        }
        return {p.id: p.id for p in papers}

    def _catalogue_targets(
        self,
        papers: list[_Entry],
        roots: list[str],
        described: set[str],
        nodes: dict[str, set[str]],
        stored: dict[str, dict[str, Any]],
    ) -> dict[str, str]:
        """Catalogue mode: the key of a work is a family's key if one keys it, else the id
        ``paper_id`` prefers among the ids of the records that *describe* it (this chunk's,
        and the keys of the described nodes stored or written by the previous chunk; a
        reference's stub id counts only while nothing describes the work). So the key does
        not depend on load order or batch size. Every other node of the work merges into
        it (at once when both are stored, else once the records' node is written)."""

        def survivor_rank(n: str) -> tuple[bool, tuple[int, str]]:
            return (not stored[n].get("family_key"), id_rank(n))

        final: dict[str, str] = {}  # component root → the Paper id its records get
        # A component no record describes, with at most one node, keeps that node, else its
        # best id (what the rule below gives): most of a chunk's, one reference's work each.
        # Only the others are grouped and go through the rule.
        by_root: dict[str, list[_Entry]] = {}
        alone: dict[str, str] = {}  # such a component → the best id of its entries so far
        ruled = described.union(root for root, have in nodes.items() if len(have) > 1)
        for p, root in zip(papers, roots, strict=True):
            if root in ruled:
                by_root.setdefault(root, []).append(p)
            elif (best := alone.get(root)) is None or (
                best != p.id and id_rank(p.id) < id_rank(best)
            ):
                alone[root] = p.id
        landed: set[str] = set()  # the targets that are nodes of their work
        for root, best in alone.items():
            have = nodes.get(root)
            if have:
                (node,) = have
                final[root] = node
                landed.add(node)
                if node in stored:
                    self.report.matched += 1
            else:
                final[root] = best
        renames: list[tuple[str, str]] = []
        for root, recs in by_root.items():
            have = nodes.get(root, set())
            real = sorted((n for n in have if n in stored), key=survivor_rank)
            if real and stored[real[0]].get("family_key"):
                target = real[0]
            else:
                describing = [p.id for p in recs if not p.is_stub()]
                describing += [n for n in real if not stored[n].get("stub")]
                describing += [n for n in have - set(real) if n in self._recent_described]
                target = min(describing or (real or sorted(have)) or [recs[0].id], key=id_rank)
                if not describing and not have:
                    target = min((p.id for p in recs), key=id_rank)
            if real and target not in have:
                # a new key for a stored work: its node (the described one first) is renamed
                # in place, one statement for the chunk, instead of a new node and a merge
                keep = sorted(real, key=lambda n: (bool(stored[n].get("stub")), id_rank(n)))[0]
                renames.append((keep, target))
                stored[target] = {**stored.pop(keep), "id": target}
                have = (have - {keep}) | {target}
                nodes[root] = have
            final[root] = target
        if renames:
            self._rename(renames, stored)
        for root in by_root:
            target = final[root]
            have = nodes.get(root, set())
            if not have:
                continue
            if any(n in stored for n in have):  # not isdisjoint(dict): a scan of the dict
                self.report.matched += 1
            for n in sorted(have - {target}):
                if n in stored and stored[n].get("family_key"):
                    self._keep_apart(n, target)
                elif n in stored and target in stored:
                    self.merge([(n, target)])
                    if lost := stored[n].get("bib_keys"):  # merge_papers kept them: so does
                        had = stored[target].get("bib_keys") or ()  # what the chunk writes
                        keys = list(dict.fromkeys([*had, *lost]))
                        stored[target] = {**stored[target], "bib_keys": keys}
                else:  # one of the two is written with this chunk or the previous one
                    self._defer(n, target)
        landed.update(t for root in by_root if (t := final[root]) in nodes.get(root, ()))
        self._stored = landed
        return {p.id: final[root] for p, root in zip(papers, roots, strict=True)}

    def _restate(
        self,
        groups: Sequence[SourceGroup],
        out: list[Group],
        mapping: Mapping[str, str],
        slots: Mapping[str, Mapping[str, Any]],
        stored: Mapping[str, Mapping[str, Any]],
        skipped: int,
        cleared: list[dict[str, Any]],
    ) -> None:
        """Keep what each record of a work several describe stated (``loaders/statements``)
        and write the work's shared properties as its statements rank them. The works: those
        two records of this chunk describe, those whose stored node lists statements
        (``stated_by``, on its slot row), those another source described before
        (``_rank_states`` found them), and those a record lands on that is not the work's own
        record of its source (another record of it is). A work one record describes, the
        hot path of an update, reads nothing here (``_clear_unstated`` only). One read of those
        few works and their statements; then per work the chunk's Paper rows carry the
        recomputed values (a value no record states any more cleared), and the statements
        that changed are written beside them (a stored work's own values become its first
        record's statement the first time). Skipped records (``--resume``) write nothing."""
        #: work → (group, record key, its statement, the shared properties it states)
        chunk: dict[str, list[tuple[int, str, dict[str, Any], frozenset[str]]]] = {}
        for i, (_, recs) in enumerate(groups):
            says = {m.paper: m.ranked for m in recs if isinstance(m, StatedFields)}
            for rec in recs:
                if isinstance(rec, Paper) and not rec.is_stub() and rec.source in SOURCE_SLOT:
                    key, values = statement_of(rec)
                    names = says.get(rec.id) or frozenset(values) - {"source"}
                    chunk.setdefault(mapping[rec.id], []).append((i, key, values, names))
        works = {t for t, entries in chunk.items() if len({e[1] for e in entries}) > 1}
        works |= self._ranked.keys() & chunk.keys()  # another source described it
        for t, entries in chunk.items():
            own = own_keys(slots.get(t, _EMPTY))
            if stored.get(t, _EMPTY).get("stated_by") or any(e[1] not in own for e in entries):
                works.add(t)  # statements kept, or another record of the source is its own
        works = {t for t in works if any(e[0] >= skipped for e in chunk[t])}
        self._clear_unstated(chunk, works, stored, skipped, cleared)
        if not works:
            return
        patched: dict[int, list[AnyRecord]] = {}

        def records(i: int) -> list[AnyRecord]:
            if i not in patched:
                patched[i] = list(out[i][1])
            return patched[i]

        rows = self.store.run_named("identity/paper_statements", {"ids": sorted(works)})
        held = {str(r["id"]): r for r in rows}
        stale: list[dict[str, Any]] = []
        lone: list[str] = []
        for t in sorted(works):
            row = held.get(t)
            props: dict[str, Any] = dict(row["props"]) if row else {}
            before = {str(s["id"]): s for s in row["statements"]} if row else {}
            stated = {k: {n: v for n, v in s.items() if n != "id"} for k, s in before.items()}
            if not stated:
                arriving = {str(e[2]["source"]): e[1] for e in reversed(chunk[t])}
                stated = implicit_statements(t, props, arriving)
            first_time = set(stated) - set(before)
            mine: dict[str, int] = {}
            for i, key, values, names in chunk[t]:
                # what it states replaces its statement; what it says nothing about stays
                kept = {n: v for n, v in stated.get(key, _EMPTY).items() if n not in names}
                stated[key] = {**kept, **values}
                mine[key] = i
            if len(stated) < 2:
                if before:  # its other record went: the work's values are its own again
                    lone.extend(before)
                    cleared.append({"id": t, "props": {"stated_by": None}})
                continue  # one record after all (a reload of the work's only one)
            final = restated(stated, props, own_keys(slots.get(t, _EMPTY)))
            writes = [e[0] for e in chunk[t] if e[0] >= skipped]
            for i in writes:
                written = records(i)
                for n, rec in enumerate(written):
                    # every row of the work, a stub's too: another record's row (_fill_only)
                    # holds its ids alone and looks like a stub
                    if isinstance(rec, Paper) and rec.id == t:
                        written[n] = rec.replaced(final)
            gone = {n: None for n, v in final.items() if v is None and props.get(n) is not None}
            if gone:
                cleared.append({"id": t, "props": gone})
            for key, values in stated.items():
                i = mine.get(key, writes[0])
                if i < skipped or (key not in mine and key not in first_time):
                    continue
                records(i).extend(
                    (Statement.model_validate({"id": key, **values}), States(start=key, end=t))
                )
                if key in before:
                    dropped = {
                        n: None
                        for n in STATED_FIELDS
                        if before[key].get(n) is not None and values.get(n) is None
                    }
                    if dropped:
                        stale.append({"id": key, "props": dropped})
        for i, recs in patched.items():
            out[i] = (out[i][0], recs)
        if stale:
            self._write_ahead("identity/clear_statement_fields", {"rows": stale})
        if lone:
            self._write_ahead("identity/delete_statements", {"ids": lone})

    def _restate_family(
        self, groups: Sequence[SourceGroup], out: list[Group], skipped: int
    ) -> None:
        """Family mode (``load s2``): an S2 record on a work an open catalogue described
        keeps its statement beside the catalogue records' (``loaders/statements``), so the
        work's shared properties and citation count are what every record states now, in
        whichever order S2 and the catalogues came. The work's catalogue-described nodes
        (``_family_rank_states`` read them with their statements) give theirs; a node
        without any gives its own values as its record's statement. The S2 record's row
        carries the recomputed values; the statements go to its node, which the others
        merge into."""
        for i, (_, recs) in enumerate(groups):
            if i < skipped:
                continue
            rows = list(out[i][1])
            changed = False
            for n, rec in enumerate(rows):
                if not isinstance(rec, Paper) or rec.id not in self._family_work:
                    continue
                stated: dict[str, dict[str, Any]] = {}
                fresh: set[str] = set()
                slots: dict[str, Any] = {}
                for node, props, held in self._family_work[rec.id]:
                    have = {str(x["id"]): {k: v for k, v in x.items() if k != "id"} for x in held}
                    if not have:
                        have = implicit_statements(node, props)
                        fresh |= set(have) - set(stated)
                    stated.update(have)
                    slots = {**props, **slots}
                original = next(r for r in recs if isinstance(r, Paper) and r.id == rec.id)
                key, values = statement_of(original)
                kept = {k: v for k, v in stated.get(key, _EMPTY).items() if k not in values}
                stated[key] = {**kept, **values}
                fresh.add(key)
                if len(stated) < 2:
                    continue
                rows[n] = rec.replaced(restated(stated, slots, own_keys(slots)))
                rows += [
                    x
                    for k in sorted(fresh)
                    for x in (
                        Statement.model_validate({"id": k, **stated[k]}),
                        States(start=k, end=rec.id),
                    )
                ]
                changed = True
            if changed:
                out[i] = (out[i][0], rows)

    @staticmethod
    def _clear_unstated(
        chunk: Mapping[str, Sequence[tuple[int, str, dict[str, Any], frozenset[str]]]],
        works: Collection[str],
        stored: Mapping[str, Mapping[str, Any]],
        skipped: int,
        cleared: list[dict[str, Any]],
    ) -> None:
        """A stored work one record describes holds that record's values: a shared
        property its reload states without a value is cleared (the writer only sets), so
        the Paper is the record as it is now, as a fresh load gives (and as the statement
        the work's next record makes of it says). The server leaves out rows that change
        nothing (``identity/set_paper_properties``)."""
        for t, stated in chunk.items():
            row = stored.get(t)
            if t in works or not row or row.get("named_by"):
                continue
            for i, _, values, names in stated:
                if i < skipped or row.get("source") != values["source"]:
                    continue
                scheme = SLOTS[SOURCE_SLOT[values["source"]]] + ":"
                if any(str(a).startswith(scheme) for a in row.get("alt_ids") or ()):
                    continue  # another record of its source may have filled a value (a graph
                    # loaded before statements were kept): only statements may clear it
                gone = {n: None for n in sorted(names) if values.get(n) is None}
                if gone:
                    cleared.append({"id": t, "props": gone})

    def _rank_states(
        self, papers: list[Paper], mapping: dict[str, str], stored: dict[str, dict[str, Any]]
    ) -> dict[str, _RankState]:
        """The stored Papers a record of this chunk describes that another source described
        (the node's ``source`` differs from the record's, or ``named_by`` lists a property
        another source gave): their properties, read in one query, and who gave each ranked
        one, so each record writes only what ``source_rank`` lets it (``_ranked``)."""
        wanted: set[str] = set()
        for p in papers:
            if p.is_stub():
                continue
            t = mapping[p.id]
            row = stored.get(t)
            if row and row.get("source") and (row["source"] != p.source or row.get("named_by")):
                wanted.add(t)
        if not wanted:
            return {}
        return {
            str(row["id"]): _combined_state([row["props"]])
            for row in self.store.run_named("identity/paper_properties", {"ids": sorted(wanted)})
        }

    def _family_rank_states(
        self,
        papers: list[Paper],
        uf: _UnionFind,
        nodes: dict[str, set[str]],
        stored: dict[str, dict[str, Any]],
    ) -> dict[str, _RankState]:
        """Family mode: per record of a ranked source (``SOURCE_RANK``: ``load s2``'s) whose
        work an open catalogue described, the work as those records left it: its own stored
        node when a catalogue described it (``source`` a catalogue's, or a ``named_by``
        list), and the catalogue-made nodes that merge into it (:meth:`_family_targets`).
        Family records of a work no catalogue described get no state: written as they are.
        One slot read of the chunk's ranked records, then one property read of the few
        such works."""
        ranked = [p for p in papers if not p.is_stub() and p.source in SOURCE_RANK]
        if not ranked:
            return {}
        own = {
            str(r["id"]): r
            for r in self.store.run_named(
                "identity/paper_slots", {"ids": sorted({p.id for p in ranked})}
            )
        }
        wanted: dict[str, list[str]] = {}
        for p in ranked:
            ids = []
            row = own.get(p.id)
            if row is not None and _catalogue_described(row):
                ids.append(p.id)
            ids += sorted(
                n
                for n in nodes.get(uf.find(p.id), ())
                if n != p.id and n in stored and not stored[n].get("family_key")
            )
            if ids:
                wanted[p.id] = ids
        if not wanted:
            return {}
        rows = self.store.run_named(
            "identity/paper_statements",
            {"ids": sorted({n for ids in wanted.values() for n in ids})},
        )
        props = {str(r["id"]): dict(r["props"]) for r in rows}
        held = {str(r["id"]): list(r["statements"]) for r in rows}
        out: dict[str, _RankState] = {}
        self._family_work = {}
        for pid, ids in wanted.items():
            # what a catalogue described: a stub (no source) or another family's node is not
            described = [n for n in ids if _catalogue_described(props.get(n, {}))]
            if described:
                out[pid] = _combined_state([props[n] for n in described])
                self._family_work[pid] = [(n, props[n], held[n]) for n in described]
        return out

    def _merged_bases(
        self,
        papers: list[Paper],
        mapping: dict[str, str],
        stored: dict[str, dict[str, Any]],
        slots: dict[str, dict[str, Any]],
    ) -> dict[str, dict[str, Any]]:
        """Per Paper id that several records describe (a record of this chunk lands on it
        that is not its own record of its source, or it is stored with merged-away ids):
        the properties it holds, stored ones overlaid by its own records' in this chunk or
        the previous one. One query for the chunk's few such Papers (most works have one
        record per source)."""
        described = [p for p in papers if not p.is_stub()]
        own = {mapping[p.id]: p for p in described if _own_record(p, slots.get(mapping[p.id]))}
        shared = {mapping[p.id] for p in described if mapping[p.id] not in own}
        shared |= {
            mapping[p.id]
            for p in described
            if mapping[p.id] not in own or own[mapping[p.id]] is not p
        }
        shared |= {t for t in own if stored.get(t, {}).get("alt_ids")}
        if not shared:
            return {}
        base: dict[str, dict[str, Any]] = {t: {} for t in shared}
        have = sorted(t for t in shared if t in stored)
        if have:
            for row in self.store.run_named("identity/paper_properties", {"ids": have}):
                base[str(row["id"])] = dict(row["props"])
        for t in shared:
            for props in (self._recent_props.get(t, {}), own[t].properties() if t in own else {}):
                counts = [base[t].get("citation_count"), props.get("citation_count")]
                base[t].update(props)
                ints = [c for c in counts if isinstance(c, int)]
                if len(ints) == 2:
                    base[t]["citation_count"] = max(ints)
        return base

    def _keep_displaced(
        self,
        stored: dict[str, dict[str, Any]],
        slots: dict[str, dict[str, Any]],
        targets: set[str],
    ) -> None:
        """A stored stub's id that a describing record's takes the slot of (a reference's
        ``W`` id of the work's *later* record, ``_slots``), or a described node's slot value
        that its key now names otherwise (a DOI the work's record changed, when the new
        DOI is the better key: ``_own_key_in_slot``), is written as an alternative id
        (``alt_ids`` and a ``PaperAlias``) now, before the chunk's records overwrite the
        slot: so the work stays findable by that id at every moment. An interrupted load
        that wrote the record's row but not yet its alias would otherwise leave an id
        nothing finds, and ``--resume``, re-resolving the skipped records that cite it,
        would take their edges off the work (and not write them again)."""
        displaced: dict[str, set[str]] = {}
        for pid, row in stored.items():
            if row is _UNFILLED or pid not in targets:  # no slot read: nothing displaced
                continue
            keep = slots.get(pid, _EMPTY)
            for s, scheme in SLOTS.items():
                value = row.get(s)
                if value not in (None, "") and keep.get(s) not in (None, value):
                    displaced.setdefault(pid, set()).add(f"{scheme}:{value}")
        if not displaced:
            return
        self._forget_finds(moved=displaced)
        rows = []
        for pid, alts in sorted(displaced.items()):
            known = self._alts.setdefault(pid, set(stored[pid].get("alt_ids") or ()))
            known.update(alts)
            rows.append({"id": pid, "props": {"alt_ids": sorted(known - {pid})}})
        self.store.run_named("identity/set_paper_properties", {"rows": rows})
        write_aliases(self.store, displaced)

    def _rename(self, renames: list[tuple[str, str]], stored: dict[str, dict[str, Any]]) -> None:
        """Give stored Papers their work's new key (``identity/rename_papers``); an old key
        that the node's id slots do not express stays findable as an alias, written by the
        rename's own statement (``identity/rename_papers_aliased``)."""
        olds = {a for a, _ in renames}
        self._note_moves(renames)
        self._forget_finds(
            moved=[p for pair in renames for p in pair],
            renamed_to={b for _, b in renames} - olds,  # not an id renamed in turn
        )
        aliases = {new: [old] for old, new in renames if old not in slot_keys(stored[new])}
        store = self.store
        renamed = {"rows": [{"old": a, "new": b} for a, b in renames]}
        if aliases:
            self._rename_aliased(renames, aliases, stored)
        elif not isinstance(store, BatchWriteStore) or not store.reads_beside_relationships:
            # the managed Neo4j (whose reads wait for every queued statement anyway) runs it
            # after every queued statement, as before: written ahead there, two A/B pairs of
            # a 22,000-work update into 200,000 were 2-15 % slower (performance.md, round 46)
            store.run_named("identity/rename_papers", renamed)
        else:
            # every old key stays in its node's id slot, so the rename alone leaves the
            # graph whole: it is written ahead like any write, queued behind what was sent
            # before it (relationship writes naming its old id among them), and every later
            # read follows it (a read passes trailing relationship writes only). The look-ups
            # sent ahead before it see the graph before it, as _forget_finds expects. It ran
            # beside the queue and was waited for until round 46 of performance.md, which
            # found the wait only moved to the chunk's next read: the simpler order is kept
            with store.writes_ahead(_ignore_count, _nothing):
                store.send_named("identity/rename_papers", renamed)
        for old, new in renames:
            log.info("renamed Paper %s to %s (a better id of the work)", old, new)
        self.report.renamed += len(renames)

    def _rename_aliased(
        self,
        renames: list[tuple[str, str]],
        aliases: dict[str, list[str]],
        stored: dict[str, dict[str, Any]],
    ) -> None:
        """The chunk's renames when some old key (``aliases``: new id → old keys) stays
        findable only as an alias: the rename, the node's ``alt_ids`` and the alias in one
        statement (``identity/rename_papers_aliased``). As three, a load stopped between
        them left an old key leading nowhere, and ``--resume``, finding the node by its new
        key, renamed nothing and never wrote the alias. The ``alt_ids`` it extends are read
        first, after every statement written ahead (``run_named``: the chunk before may have
        written them); such renames are rare (a key without its slot), so the wait is too."""
        store = self.store
        new_of = {old: new for old, new in renames if new in aliases}
        held = store.run_named("identity/paper_properties", {"ids": sorted(new_of)})
        alt_ids = {
            new_of[row["id"]]: sorted(
                set(row["props"].get("alt_ids") or []) | set(aliases[new_of[row["id"]]])
            )
            for row in held
        }
        rows = [
            {"old": a, "new": b, "alt_ids": alt_ids.get(b),
             "aliases": aliases[b] if b in alt_ids else []}
            for a, b in renames
        ]  # fmt: skip
        for b, alts in alt_ids.items():
            stored[b]["alt_ids"] = alts  # what the chunk's later alt_ids writes start from
        store.run_named("identity/rename_papers_aliased", {"rows": rows})

    def _stored_references_ahead(
        self, groups: Sequence[SourceGroup], mapping: Mapping[str, str]
    ) -> Callable[[], list[dict[str, Any]]] | None:
        """``identity/stored_openalex_references`` of every work whose OpenAlex reference
        list the chunk states, sent now (``BatchWriteStore.read_named_ahead``) and read by
        :meth:`_skip_stored_references` (which keeps the rows of the works it asks about).

        Why now: the works are known once their ids are resolved, and nothing resolution
        does after that changes a ``CITES`` edge (renames and merges are done; what follows
        reads, or writes aliases and authors), so the server answers it while the chunk's
        slots and records are made. Waiting for it took ~14-20 s of a quarterly-style
        update's loading thread (200,000 works, ``py-spy --idle`` over
        ``bench_openalex.py``). Sent ahead while the chunk's prunes were queued at once, the
        wait only moved to the writer's first read, which then waited for the prunes; those
        are held until the writer's first write now (:meth:`_write_ahead`)."""
        store = self.store
        if self.family or not self.skip_stored_references:
            return None
        if not isinstance(store, BatchWriteStore):
            return None
        ids = sorted(
            {
                mapping.get(m.paper, m.paper)
                for _, recs in groups
                for m in recs
                if type(m) is StatedList and m.rel == "CITES" and m.source == "openalex"
            }
        )
        if not ids:
            return None
        return store.read_named_ahead("identity/stored_openalex_references", {"ids": ids})

    def _skip_stored_references(
        self,
        out: list[Group],
        lists: dict[tuple[str, str], list[dict[str, Any]]],
        stated_ahead: Callable[[], list[dict[str, Any]]] | None = None,
    ) -> None:
        """What an OpenAlex work's reference list would write again, left out.

        Why: in an update most works come back with the references the graph already holds
        for them, and each one used to be ``MERGE``d again (an index seek for each end and a
        ``SET`` that changes nothing) and then scanned by the prune that looks for the ones
        the record no longer lists: in a quarterly-style update of a 200,000-work graph,
        ~4 million edges and 45 % of the server's time (``bench_openalex_server_time.py``).
        One read per chunk (``identity/stored_openalex_references``) says which edges out of
        the chunk's works OpenAlex already states; the writer skips those ends
        (``ReferenceList.stated``) and a work none of whose stated edges left its list is
        not sent to the prune (it would find nothing). The graph is the same: a skipped
        ``MERGE`` would have matched that one edge and set what it holds, and the prune
        deletes only ends outside the record's list.

        A work that two lists of the chunk name (two OpenAlex records landing on one node) is
        left as it was: the prune for one list runs before the other list's edges are
        written, so an edge the second one states may be gone by then.
        """
        self._gone_ends = []  # this chunk's only, whatever an earlier chunk left
        works = lists.get(("openalex", "CITES"))
        if not works:
            return
        times = Counter(w["id"] for w in works)
        single = sorted(pid for pid, n in times.items() if n == 1)
        if not single:
            return
        stated: dict[str, set[str]] = {}
        unchanged: dict[str, frozenset[str]] = {}
        if stated_ahead is not None:  # every work of the chunk's lists: these are asked about
            asked = set(single)
            rows = [row for row in stated_ahead() if row["id"] in asked]
        else:
            rows = self.store.run_named("identity/stored_openalex_references", {"ids": single})
        for row in rows:
            mine = set(row["stated"])
            stated[row["id"]] = mine
            # an end with a second edge that OpenAlex does not state is written as before
            unchanged[row["id"]] = frozenset(mine.difference(row["other"]))
        # a single work sends only the ends it lost (the prune's scan of each work's edges
        # against its whole list was most of the prune's time), one named twice its list
        lists[("openalex", "CITES")] = [w for w in works if times[w["id"]] > 1]
        self._gone_ends = [
            {"id": w["id"], "gone": sorted(gone)}
            for w in works
            if times[w["id"]] == 1 and (gone := stated.get(w["id"], _NO_ENDS) - set(w["refs"]))
        ]
        if not unchanged:
            return

        def held(rec: AnyRecord) -> AnyRecord | None:
            if (
                isinstance(rec, ReferenceList)
                and rec.props == _OPENALEX_REF_PROPS
                and (known := unchanged.get(rec.start))
            ):
                keep = tuple(j for j, end in enumerate(rec.ends) if end in known)
                return rec.with_stated(keep) if keep else None
            return None

        _swap_records(out, held)

    def _skip_stored_authorships(
        self, out: list[Group], lists: dict[tuple[str, str], list[dict[str, Any]]]
    ) -> None:
        """The OpenAlex authorships a chunk's works already hold as stated, left out.

        Why: as for references (:meth:`_skip_stored_references`), an update's works mostly
        come back with the authors they have, and each ``AUTHORED_BY`` edge was ``MERGE``d
        again with a ``SET`` that changed nothing, then scanned by the prune. The stored
        edges come from the read author alignment already makes (``identity/paper_authors``,
        :class:`AuthorResolver`), so nothing more is read. An ``Authorship`` is wrapped as
        :class:`UnchangedEdge` (counted, not sent) when its pair has one stored edge holding
        every property the record sets, with the same value; a work whose stored OpenAlex
        edges are all in its list leaves the prune. Left as before: a work two OpenAlex
        records of the chunk name or another source's list names in it, and a pair two
        records of the chunk state (the later record's properties win in the writer, so
        which one is left out would matter).
        """
        works = lists.get(("openalex", "AUTHORED_BY"))
        read = self._authors.lists_read
        if not works or not read:
            return
        stored = self._authors.stored_authorships
        times = Counter(w["id"] for w in works)
        elsewhere = {  # works another source's list (or an ``also`` list) names here
            w["id"]
            for (source, rel), others in lists.items()
            if rel == "AUTHORED_BY" and source != "openalex"
            for w in others
        }
        single = {
            pid for pid, n in times.items() if n == 1 and pid in read and pid not in elsewhere
        }
        if not single:
            return
        # a pair stated twice: the writer merges two rows it holds at once (the later's
        # properties win), but a flush between them would let the first change the edge
        # the second was compared with
        pairs: Counter[tuple[str, str]] = Counter()
        for _, recs in out:
            for r in recs:
                if isinstance(r, Authorship):
                    pairs[(r.start, r.end)] += 1
        lists[("openalex", "AUTHORED_BY")] = [
            w
            for w in works
            if w["id"] not in single
            or not {
                aid for aid, props in stored.get(w["id"], ()) if props.get("from_openalex") is True
            }.issubset(w["refs"])
        ]
        held: dict[tuple[str, str], Mapping[str, Any] | None] = {}
        for pid in single:
            for aid, props in stored.get(pid, ()):
                # a pair joined by two edges: a MERGE would set both, so it is written
                held[(pid, aid)] = None if (pid, aid) in held else props
        if not held:
            return

        def unchanged(rec: AnyRecord) -> AnyRecord | None:
            if (
                isinstance(rec, Authorship)
                and rec.also is None
                and rec.start in single
                and (have := held.get((rec.start, rec.end))) is not None
                and pairs[(rec.start, rec.end)] == 1
                and _held_as_stated(rec, have)
            ):
                return UnchangedEdge(rec)
            return None

        _swap_records(out, unchanged)

    def _cleared_authorship_fields(self, out: Sequence[Group]) -> list[dict[str, Any]]:
        """Rows for ``identity/clear_authorship_fields``: per stored authorship a work's own
        record restates without a value ``Authorship.OWNED`` gives it, the values it held.

        Why here: the writer's ``SET r += props`` never sends a null (the store drops them:
        a missing value states nothing for most records), so what a newer record no longer
        gives would stay. The stored values come from the author lists alignment read
        (``identity/paper_authors``, every stored work of the chunk that lists authors), so
        only edges that change are touched. Runs before the chunk is written, after the
        chunks before it (the resolver yields ``FLUSH`` first); two records of one pair in a
        chunk are merged by the writer, the later one's unset fields dropped."""
        stored = self._authors.stored_authorships
        if not stored:
            return []
        held: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
        rows: list[dict[str, Any]] = []
        for _, recs in out:
            for r in recs:
                if (
                    type(r) is not Authorship
                    or r.also is not None
                    or r.start not in stored
                    or not (names := r.owned_unset())
                ):
                    continue
                if not held:
                    for pid, edges in stored.items():
                        for aid, have in edges:
                            held.setdefault((pid, aid), []).append(have)
                values = held.get((r.start, r.end), ())
                gone = {n: None for n in names if any(h.get(n) is not None for h in values)}
                if gone:
                    rows.append({"paper": r.start, "author": r.end, "props": gone})
        return rows

    def _apply_lists(self, lists: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
        """Drop what each source no longer lists (``identity/prune_*``, then ``unmark_*``).
        The name-only Authors a list drops (read with the chunk's stored lists) are kept
        for :meth:`finish`, which deletes those left with no relationship: a scan of every
        name-only Author would cost a large graph seconds at the end of each update."""
        stored = self._authors.stored_authorships
        for (source, rel), works in lists.items():
            name = _LISTS[rel]
            if rel == "AUTHORED_BY" and stored:
                for w in works:
                    listed = set(w["refs"])
                    self._unlisted.update(
                        aid
                        for aid, _ in stored.get(w["id"], ())
                        if aid.startswith("author:") and aid not in listed
                    )
            if source == "also":
                self._write_ahead(f"identity/migrate_also_{name}", {"works": works})
            if works:
                self._write_ahead(
                    f"identity/prune_{source}_{name}", {"works": works},
                    self._count_pruned if rel == "CITES" else self._count_pruned_authorships,
                )  # fmt: skip
                self._write_ahead(f"identity/unmark_{source}_{name}", {"works": works})
            if (source, rel) == ("openalex", "CITES") and self._gone_ends:
                gone, self._gone_ends = self._gone_ends, []
                self._write_ahead(
                    "identity/retire_openalex_reference_ends", {"works": gone}, self._count_pruned
                )

    def _write_ahead(
        self,
        name: str,
        params: Mapping[str, Any],
        counted: Callable[[int], None] | None = None,
    ) -> None:
        """Run a write of resolution whose reply nothing here reads (a prune, an unmark, a
        property cleared): on a store that writes ahead (``BatchWriteStore.writes_ahead``)
        it is held back (``hold_until_write``) and sent, written ahead, just before the
        record writer's first write of the chunk, its count (the statement's one row)
        passed to ``counted`` once its reply is read.

        Why: waiting for these took ~22 s of the loading thread in a quarterly-style update
        of a 200,000-work graph (``py-spy --idle`` over ``bench_openalex.py``), while the
        chunk's records, built next, need none of their answers; queued at once, they still
        made the writer's first read of the chunk (which ids exist) wait ~60 s in all, and
        that read cannot see what they change: they delete and mark edges and set
        properties, never create, delete or relabel a node. A stub's "no relationship out"
        (``identity/paper_states``) can only be read as false where a prune would have made
        it true, and false is the safe answer (its edges are then MERGEd, not CREATEd).

        Order is kept where it matters: they go before every write of the chunk (a cleared
        property before the MERGE that may set it again, a list's prune before the other
        list's edges), and before this resolver's next read (:meth:`_send_held`); a read
        reads every reply before it, so it sees the graph they leave; an error is raised
        where it is read (the next call that reaches the server), and that chunk's
        checkpoint is not saved."""
        store = self.store
        if not isinstance(store, BatchWriteStore):
            rows = store.run_named(name, dict(params))
            if counted is not None:
                counted(int(next(iter(rows[0].values()))) if rows else 0)
            return

        def send() -> None:
            with store.writes_ahead(counted or _ignore_count, _nothing):
                answered = store.send_named_counted(name, params)
            if counted is not None and answered:  # a store that answers at once
                counted(answered)

        # held until the writer's next write (or this resolver's next read): the writer's
        # first reads of the chunk (which ids exist, which Papers are stubs) see nothing
        # these change, and would otherwise wait for the server to run them
        store.hold_until_write(send)

    def _send_held(self) -> None:
        """Send the writes :meth:`_write_ahead` held back, before this resolver reads or
        merges anything: the look-up, the stored lists and the merges see what they did.
        The record writer sends them before its own writes (``RecordWriter._store_call``);
        this covers a chunk the writer never wrote (a resumed load skipping it)."""
        if isinstance(self.store, BatchWriteStore):
            self.store.send_held()

    def _count_pruned(self, n: int) -> None:
        self.report.pruned += n

    def _count_pruned_authorships(self, n: int) -> None:
        self.report.pruned_authorships += n

    def _title_matches(
        self, papers: Sequence[Paper], found: Sequence[tuple[str, str]]
    ) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """Joins a title and a year make: ``(key, stored Paper id)`` rows for the look-up's,
        and ``(record id, record id)`` pairs of the chunk to unite. A work known by its title
        and year alone (``paper:`` id: a ``.bib`` entry with neither a DOI nor an arXiv id;
        one such id per normalised title and year) is the other work of that title and year
        when there is exactly one, stored or described by the chunk (a record landing on a
        stored Paper counts as that Paper), and it is no benchmark family's node. The record
        then lands on that work (its authors aligned to the work's list), or the work's
        record merges it, as a shared DOI would; the ``paper:`` id becomes the work's alias,
        so a reload finds it by id and a namesake loaded later changes nothing. Two such
        works, a family's among them, join nothing: a title is not an id, and a wrong join
        merges two works.

        Why: the title-and-year id met only another title-and-year id, so a researcher's
        entry without a DOI was a second Paper beside the catalogue's, its authors a second
        set of people. Asked only for the titles and years of the chunk's own title-only
        records and of the graph's (read once a load, :meth:`_title_keyed_titles`): a slice
        of OpenAlex asks nothing."""
        graph_titles = self._title_keyed_titles()
        if not graph_titles and not any(p.id.startswith(_TITLE_KEYED) for p in papers):
            return [], []  # an OpenAlex chunk, in a graph of works with ids: nothing to ask
        #: the chunk's described records, each with its title and year
        described: list[tuple[tuple[str, int], Paper]] = [
            ((p.title_norm, p.year), p)
            for p in papers
            if p.year is not None and p.title_norm and not p.is_stub()
        ]
        titles = {named for named, p in described if p.id.startswith(_TITLE_KEYED)}
        # the chunk's own, for the later chunks' records (one joined now is an alias after
        # it, so asking for it again only finds nothing)
        graph_titles |= titles
        if graph_titles:
            titles |= {named for named, _ in described} & graph_titles
        if not titles:
            return [], []
        found_at: dict[str, str | None] = {}
        for key, pid in found:  # a key that names two Papers names none of them here
            found_at[key] = pid if found_at.get(key, pid) == pid else None
        chunk: dict[tuple[str, int], list[Paper]] = {}
        for named, p in described:
            if named in titles:
                chunk.setdefault(named, []).append(p)
        rows = [{"title": t, "year": y} for t, y in sorted(titles)]
        stored: dict[tuple[str, int], dict[str, bool]] = {}
        for r in self.store.run_named("identity/papers_by_title", {"rows": rows}):
            stored.setdefault((str(r["title"]), int(r["year"])), {})[str(r["id"])] = bool(
                r["family"]
            )
        by_title: list[tuple[str, str]] = []
        unions: list[tuple[str, str]] = []
        for title in sorted(titles):
            recs, nodes = chunk.get(title, []), stored.get(title, {})
            keyed = {p.id for p in recs if p.id.startswith(_TITLE_KEYED)}
            keyed |= {pid for pid in nodes if pid.startswith(_TITLE_KEYED)}
            if len(keyed) != 1:
                continue
            (t,) = keyed
            if found_at.get(t, t) != t:
                continue  # its id names another Paper: joined before (an alias)
            #: the other works of the title: each record as the Paper it lands on
            others = {found_at.get(p.id) or p.id for p in recs if p.id != t}
            others |= {pid for pid in nodes if pid != t}
            if len(others) != 1:
                continue
            (work,) = others
            if nodes.get(work) or nodes.get(t):
                continue  # a benchmark family's node is never joined by title
            if any(p.id == t for p in recs):  # the title-only record is in the chunk
                if work in nodes:
                    by_title.append((t, work))
                else:  # the work is new: its record is in the chunk
                    unions.append((t, next(p.id for p in recs if p.id == work)))
            else:  # the title-only work is stored: the work's record merges it
                rec = next(p for p in recs if (found_at.get(p.id) or p.id) == work)
                by_title.append((rec.id, t))
            self._title_joined.add(t)
        self.report.title_matches += len(by_title) + len(unions)
        return by_title, unions

    def _title_keyed_titles(self) -> set[tuple[str, int]]:
        """The titles and years of the graph's described works known by title and year alone
        (not a benchmark family's): read once a load, then kept current by
        :meth:`_title_matches`, which adds those of each chunk's title-only records (a later
        chunk's record with ids may be their work: a .bib naming it by title, then by DOI).
        A work merged away stays in the set, which costs a look-up that finds nothing. A
        range on the id index, not ``STARTS WITH`` (FalkorDB scans every Paper for that:
        0.26 s at 320k)."""
        if self._graph_title_keyed is None:
            rows = self.store.run_named("identity/title_keyed_works", {})
            self._graph_title_keyed = set(
                (str(r["title"]), int(r["year"])) for r in rows if r["title"] and r["year"]
            )
        return self._graph_title_keyed

    def _lookup_with_finds(
        self, wanted: set[str], record_keys: set[str], ahead: _AheadLookup | None = None
    ) -> list[tuple[str, str]]:
        """:meth:`_lookup` of a chunk's keys, the keys only its references name answered from
        what an earlier chunk's look-up found (``_finds``) when that still holds.

        Why: an update's works cite ~20 works each, mostly stored ones, and a chunk's look-up
        seeks every key three ways (slot, id, alias); the works a file cites repeat from
        chunk to chunk (every work of a quarterly update is cited by others of the slice).
        A key answered by one row is remembered; the answer stays what the graph would give
        while nothing changes which Paper holds that key, and only these change it: a record
        holding the key or stating it among its ``alt_ids`` (looked up afresh and dropped
        from ``_finds``, as are the previous chunk's records' keys, whose rows may still be
        on their way), a merge or a retired id (each clears ``_finds``), a rename or a
        displaced stub id (each drops the finds naming those Papers: :meth:`_forget_finds`).
        A key no Paper holds is never remembered: the chunk's writer may create its stub,
        and a stub written under another key leaves an alias the next look-up finds.
        ``record_keys``: :func:`_record_keys` of the chunk;
        ``ahead``: its look-up sent while the chunk before resolved, when still usable
        (:meth:`_lookup_from_ahead`)."""
        if not self.reuse_lookups:
            return self._lookup_from_ahead(wanted, ahead)
        finds = self._finds
        for k in record_keys:
            finds.pop(k, None)
        ask: Collection[str] = wanted
        reused: list[tuple[str, str]] = []
        if finds:
            # one probe of ``_finds`` per key, both lists cut from it in C: ``_finds`` holds
            # every key an update's chunks found (~10^5), so each probe is a cache miss, and
            # two Python passes (``not in``, then ``in`` and ``[]``) cost ~0.17 s a chunk
            keys = list(wanted)
            had = self._held_finds(keys)
            ask = list(compress(keys, map(is_, had, repeat(None))))
            if len(ask) < len(keys):
                mask = list(map(is_not, had, repeat(None)))
                # the Papers of the held keys: strings, never None
                reused = cast(
                    list[tuple[str, str]],
                    list(zip(compress(keys, mask), compress(had, mask), strict=True)),
                )
        found = self._lookup_from_ahead(ask, ahead)
        rows_of: dict[str, int] = {}
        for key, _ in found:
            rows_of[key] = rows_of.get(key, 0) + 1
        unsettled = record_keys | self._recent_record_keys
        self._recent_record_keys = record_keys
        moved = self._finds_moved
        for key, pid in found:
            if rows_of[key] == 1 and key not in unsettled and pid not in moved:
                finds[key] = pid
        if len(finds) > self.finds_limit:
            finds.clear()  # nothing stale is left to guard against either
            moved.clear()
            self._nodes.clear()
        self.report.lookups_reused += len(reused)
        return found + reused

    def _settled_references(
        self,
        found: list[tuple[str, str]],
        record_keys: set[str],
        multi: list[tuple[_Entry, Collection[str]]],
    ) -> dict[str, str]:
        """The chunk's reference keys resolution has nothing to decide for, each with the
        Paper it lands on: an OpenAlex reference ``openalex:W1`` that the look-up answers
        with one row (the stored Paper ``openalex:W1``, or ``doi:…`` holding ``W1`` in its
        slot), a Paper no other key of the chunk finds and no record of the chunk is, and
        that the previous chunk's resolution gave to no other node. Its component is that
        key and that node; :meth:`_catalogue_targets` would land it there (a match), and
        :meth:`_slots` would give that node only the reference's ``openalex_id``. The
        caller does exactly that for them, outside the union-find.

        Why: in an update nearly every reference names one stored work (a quarterly-style
        update of a 200,000-work slice: ~40,000 of a chunk's ~50,000 keys), and each went
        through the union-find, the component targets and the slots, a fifth of the loading
        thread's Python (``py-spy`` over ``bench_openalex.py``).
        Nothing in the graph differs: ``tests/loaders/test_settled_references.py`` loads
        with and without them, on both backends."""
        if not self.settle_references:
            return {}
        # one pass each in C (a Python pass over the ~50,000 rows cost ~0.25 s a chunk):
        # every key with its Paper, then out go the keys that are not settled
        settled = dict(found)
        if len(settled) != len(found):  # a key with two rows (two nodes): the union-find's
            for k, n in Counter(map(_FIRST, found)).most_common():
                if n == 1:
                    break
                del settled[k]
        per_node = Counter(map(_SECOND, found))
        # Papers two rows find (a described work's, by its id and DOI): the union-find's
        shared = {pid for pid, n in per_node.items() if n > 1}
        # the keys a record of the chunk holds (:func:`_record_keys`) or that a reference
        # names under another id, and the Papers that are records of the chunk
        held = set(record_keys)
        for _, keys in multi:
            held.update(keys)
        shared |= held
        gone = settled.keys() & held
        gone.update(compress(map(_FIRST, found), map(shared.__contains__, map(_SECOND, found))))
        gone.update(compress(settled, map(_NOT_OPENALEX, settled)))
        recent = self._recent
        # the previous chunk gave the key to another Paper: in C, the settled keys it holds
        # with another Paper (not a set of all its pairs: ~10^5 tuples made and hashed)
        both = list(settled.keys() & recent.keys())
        gone.update(
            compress(both, map(ne, map(recent.__getitem__, both), map(settled.__getitem__, both)))
        )
        for k in gone:
            settled.pop(k, None)
        return settled

    def _forget_finds(
        self, *, moved: Iterable[str] | None = None, renamed_to: Collection[str] = ()
    ) -> None:
        """Something other than the writer's rows changed which Paper holds a key (a merge,
        a rename, an alias, a retired id): no earlier look-up's answer is reused.
        ``moved``: the change renamed these Papers or kept ids they lose as aliases (every
        key that named one of them still names it, under its new id), so what an earlier
        look-up found stays true for the keys that name none of them, in ``_finds`` as in
        the look-up sent ahead; else nothing of either is.

        ``renamed_to``: those of ``moved`` that are a rename's new id. No find names one
        (a Paper holding that id would have been found with the renamed one, and the two
        merged instead), so only the look-up sent ahead, read before the rename, treats
        them as moved, and what a look-up finds for them afterwards is kept.

        Why not clear ``_finds`` on a rename too: nearly every chunk of an update renames a
        stub to its work's better id, so ``_finds`` was emptied chunk after chunk and the
        works a file cites were sought again in every chunk (bench_openalex.py)."""
        if moved is None:
            self._finds.clear()
            self._finds_moved.clear()
            self._nodes.clear()
            self._identity_changes += 1
            return
        gone = set(moved)
        nodes = self._nodes
        for pid in gone:
            nodes.pop(pid, None)
        # their finds are dropped where met (_held_finds)
        self._finds_moved.update(gone.difference(renamed_to))
        if self._ahead_lookup is not None:
            self._ahead_lookup.moved.update(gone)

    def _held_finds(self, keys: list[str]) -> list[str | None]:
        """``_finds.get`` of each key, ``None`` for a find naming a Paper moved since
        (``_finds_moved``: renamed, or its displaced id kept as an alias), which is dropped.

        Why not drop those when the Paper moves: that is a pass over every find (~10^5 at
        200,000 works, ~10^6 at 1M: 0.05-0.5 s), and nearly every chunk renames; the keys
        a chunk asks are ~40,000, checked here in C. A find made after the move is not
        kept either (:meth:`_lookup_with_finds`): a moved Paper's keys are sought each time,
        a few hundred a chunk (a rename's new id is not moved here: :meth:`_forget_finds`)."""
        finds = self._finds
        had = list(map(finds.get, keys))
        moved = self._finds_moved
        if not moved:
            return had
        stale = list(map(moved.__contains__, had))
        if not any(stale):
            return had
        for k in compress(keys, stale):
            del finds[k]
        return [None if s else h for h, s in zip(had, stale, strict=True)]

    def _send_first_lookup(self, groups: list[SourceGroup]) -> None:
        """Send the look-up of a :meth:`resolve`'s first chunk ``groups`` as soon as they are
        read, as :meth:`_send_lookup_ahead` sends every later chunk's: the server answers
        it while this thread waits for the parse worker's next chunk and reads it.

        Why: the first chunk sought its keys only once the next chunk was read, and waited
        for the answer: 0.51-0.68 s in a 22,000-work update into 200,000, against 0.05-0.30 s
        for a chunk whose look-up went ahead (``bench_openalex.py --chunk-times``); sent at
        once, 0.06 s. On two cores the update as a whole gains little (the parse worker and
        this thread already use both while the next chunk is read: performance.md, round
        54); a machine with a core to spare answers it meanwhile.

        Every write sent before it (the chunk before's flush, the writes this resolver
        holds back) reaches the server first, so nothing it reads is touched by a write it
        does not see: no key is sought afresh.
        A merge or a retired id before the chunk resolves voids it as it voids any look-up
        sent ahead (``_AheadLookup.changes``)."""
        self._send_held()
        self._send_lookup_ahead(set(), groups)

    def _send_lookup_ahead(
        self, touched: set[str], groups: list[SourceGroup] | None = None
    ) -> None:
        """Send the next chunk's look-up now (``BatchWriteStore.read_named_ahead``), while
        this chunk resolves; ``touched``: every key of this chunk.

        Why: a chunk's look-up waited for the chunk before's writes and then for its own
        seeks (three a key, ~40,000 keys), while the server had nothing to do as the
        loading thread resolved the chunk before. Sent ahead, the server answers it during
        that resolution. It reads the graph before this chunk's writes, which change what a
        key names only for the keys this chunk holds (the Papers its records and references
        write, their slots and alternative ids), for the keys naming a Paper this chunk
        renames or keeps a displaced id of (``_AheadLookup.moved``), or through a merge or
        a retired id (``_identity_changes``): the next chunk seeks the ``touched`` keys and
        those naming a moved Paper afresh, and uses none of it across a merge or a retired
        id (nor when the chunk it was sent for is not the one resolving). The rows it gives
        are then the ones a look-up after the writes gives
        (``tests/loaders/test_lookup_ahead.py``). A store that does not queue reads
        (``BatchWriteStore.reads_ahead``; both of ours do) is sent none: run at once, it
        would only add the seeks of the keys sought afresh. ``groups``: the chunk to send
        it for, if not the next one (:meth:`_send_first_lookup`)."""
        nxt = self._next_groups if groups is None else groups
        store = self.store
        if not nxt or self.family or not self.lookup_ahead:
            return
        if not isinstance(store, BatchWriteStore) or not store.reads_ahead:
            return
        entries = _entries(nxt)
        # not the keys this chunk holds: the next chunk seeks them again after the writes
        keys = list(entries.keys - touched)
        if self.reuse_lookups and self._finds:  # what _lookup_with_finds will not ask
            keys = list(compress(keys, map(is_, self._held_finds(keys), repeat(None))))
        self._ahead_lookup = _AheadLookup(
            groups=nxt,
            entries=entries,
            asked=set(keys),
            touched=touched,
            changes=self._identity_changes,
            rows=store.read_named_ahead("identity/lookup_papers", self._lookup_params(keys))
            if keys
            else list,
        )

    def _lookup_from_ahead(
        self, keys: Collection[str], ahead: _AheadLookup | None
    ) -> list[tuple[str, str]]:
        """:meth:`_lookup` of ``keys``: those the look-up sent ahead asked about and the
        chunk before did not touch answered from its rows, the rest sought now."""
        if ahead is None:
            return self._lookup(keys)
        covered = (ahead.asked & set(keys)) - ahead.touched
        read = ahead.rows()
        rows = [(r["key"], r["id"]) for r in read]
        self._note_nodes(read, ahead.moved)
        if moved := ahead.moved:
            covered.difference_update(k for k, pid in rows if pid in moved)
        fresh = [k for k in keys if k not in covered]
        answered = list(compress(rows, map(covered.__contains__, map(_FIRST, rows))))
        return self._lookup(fresh) + answered

    def _lookup(self, keys: Collection[str]) -> list[tuple[str, str]]:
        """``(key, Paper id)`` for every stored Paper each key names: by its slot, as its id,
        through a ``PaperAlias`` (``identity/lookup_papers``; a pair the slot and the id both
        give comes once)."""
        if not keys:
            return []
        rows = self._read_nodes(
            "identity/lookup_papers", self._lookup_params(keys), reads=_ALIAS_OF
        )
        self._note_nodes(rows)
        # both columns are strings as the stores return them (str() of each: ~50,000 a chunk)
        return [(r["key"], r["id"]) for r in rows]

    def _note_nodes(
        self, rows: list[dict[str, Any]], moved_since: Collection[str] = frozenset()
    ) -> None:
        """Keep the internal node id of each Paper a look-up's ``rows`` name, where the
        store's look-up gives it (``_nodes``). A Paper the graph holds twice over cannot
        be (ids are unique), so a later row only repeats an earlier one's node; what a
        move dropped is noted afresh only by a look-up made after the move
        (``moved_since``: the Papers moved after a look-up sent ahead was read)."""
        if not rows or "node" not in rows[0]:
            return
        nodes = self._nodes
        moved = self._finds_moved
        for r in rows:
            pid = r["id"]
            if pid not in moved and pid not in moved_since:
                nodes[pid] = str(r["node"])

    def _read_nodes(
        self,
        name: str,
        params: dict[str, Any],
        *,
        reads: frozenset[str] = frozenset(),
        ids: Collection[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The named statement ``name``, which reads Papers' ids, slots and labels and
        relationships of the types ``reads`` anywhere (or, with ``ids``, at those nodes only)
        and writes nothing, run beside the chunk before's last relationship writes when the
        store can (``BatchWriteStore.run_named_beside_relationships``): its ``CITES`` and
        authorships change nothing a look-up or a slot read sees. A write does not come
        here: a failure of a write it passed would surface after it had run."""
        store = self.store
        if isinstance(store, BatchWriteStore):
            return store.run_named_beside_relationships(name, params, reads=reads, ids=ids)
        return store.run_named(name, params)

    @staticmethod
    def _lookup_params(keys: Collection[str]) -> dict[str, list[Any]]:
        """``identity/lookup_papers``'s parameters for ``keys``: a key of a slot's scheme goes
        to that slot's list (its id seek reads the same value), any other to ``$ids``;
        every key is sought as an alias."""
        params: dict[str, list[Any]] = {
            name: [] for name in ("ids", "corpus_slot", *_PARAMS.values())
        }
        other = params["ids"]
        by_scheme = _BY_SCHEME
        for key in keys:
            scheme, _, value = key.partition(":")
            name = by_scheme.get(scheme)
            if name is None or not value:
                other.append(key)
            elif name == "corpus":
                if not value.isdigit():  # "s2:x": no corpus id, only an id or alias names it
                    other.append(key)
                elif str(int(value)) == value:
                    params["corpus"].append(int(value))
                else:  # "s2:007": its id is not "s2:" + the slot's value (the query's comment)
                    other.append(key)
                    params["corpus_slot"].append(int(value))
            else:
                params[name].append(value)
        other.sort()
        params["aliases"] = sorted(keys)
        return params

    @staticmethod
    def _needing_slots(
        described: set[str],
        nodes: dict[str, set[str]],
        stored: dict[str, dict[str, Any]],
    ) -> list[str]:
        """The stored Papers whose id slots resolution reads: those of a work a record of the
        chunk describes (``described``: their components), or of a work with more than one
        node (a merge or a rename). A reference that lands alone on a stored Paper adds
        nothing to it (its stub is not sent), so the slots of most looked-up Papers are never
        needed."""
        return sorted(
            n
            for root, have in nodes.items()
            if len(have) > 1 or root in described
            for n in have
            if n in stored
        )

    def _fill_slots(self, stored: dict[str, dict[str, Any]], ids: list[str]) -> None:
        """Add the id slots, ``alt_ids`` and flags (``family_key``, ``stub``) of ``ids`` to
        their lookup rows (``identity/paper_slots``; the look-up answers with key and id)."""
        for part in chunked(ids, self.chunk * 4):
            for row in self._read_nodes("identity/paper_slots", {"ids": part}):
                pid = str(row["id"])
                if (have := stored.get(pid)) is not None:  # the row holds the id too
                    stored[pid] = row if have is _UNFILLED else {**have, **row}

    def _lookup_others(self, papers: list[Paper]) -> list[tuple[str, dict[str, Any]]]:
        """Family mode: the stored Papers, other than each record's own node, that share one
        of its id slots (``identity/lookup_family_papers``). A family record keeps its id, so
        its own node needs no lookup, and leaving it out on the server keeps the answer small
        when a family's files are loaded again (every record would find its own node)."""
        params: dict[str, set[tuple[Any, str]]] = {
            name: set() for name in (*_PARAMS.values(), "alias")
        }
        for p in papers:
            for slot, name in _PARAMS.items():
                value = getattr(p, slot)
                if value not in (None, ""):
                    params[name].add((value, p.id))
            params["alias"] |= {(key, p.id) for key in slot_keys(p.__dict__) | {p.id}}
        if not any(params.values()):
            return []
        rows = self.store.run_named(
            "identity/lookup_family_papers",
            {
                name: [{"v": v, "own": own} for v, own in sorted(pairs)]
                for name, pairs in params.items()
            },
        )
        return [(str(r["key"]), r) for r in rows]

    def _slots(
        self,
        stored: dict[str, dict[str, Any]],
        papers: list[_Entry],
        mapping: dict[str, str],
        targets: set[str],
        settled: Mapping[str, str] = _EMPTY,
    ) -> dict[str, dict[str, Any]]:
        """Per final Paper id, the slot values it keeps: what describes the work first (the
        stored node if a record described it, the previous chunk's describing records, this
        chunk's in file order), then what only names it as a reference (a stored stub, the
        previous chunk's references, this chunk's). So the first record loaded is the work's
        own of its source however its references fell into batches: a reference to the
        *later* record's ``W`` id, stored as a stub or met in the chunk before, does not
        take the slot from the first record, in a clean load, a resumed one (whose skipped
        chunks are resolved against a graph holding later ones) or ``--bulk``. ``targets``:
        the values of ``mapping``. A Paper with no slot value has no entry (read as empty).

        ``settled`` (:meth:`_settled_references`): Paper id → the one reference key that
        names it; each such Paper gets that key's ``openalex_id`` as the reference would
        give it, but is left out of the returned slots (nothing of the chunk reads them:
        the node is stored and no record lands on it) and kept for the next chunk as its
        key (``_recent_settled``), unless a slot given before makes it differ from that."""
        slots: dict[str, dict[str, Any]] = {}
        # a looked-up row holds slots only where _fill_slots added them
        with_slots = [(pid, row) for pid, row in stored.items() if not _SLOT_NAMES.isdisjoint(row)]
        for pid, row in with_slots:
            if not row.get("stub"):
                have = {s: row[s] for s in SLOTS if row.get(s) not in (None, "")}
                if have:
                    slots[pid] = have
        for pid, more in self._recent_slots.items():  # the previous chunk's, maybe unwritten
            if pid in targets:
                have = slots.setdefault(pid, {})
                for s, value in more.items():
                    have.setdefault(s, value)
        stubs: list[_Entry] = []
        for p in papers:
            if type(p) is _RefStub or p.is_stub():
                stubs.append(p)
                continue
            have = slots.setdefault(mapping[p.id], {})
            for s in SLOTS:
                value = getattr(p, s)
                if value not in (None, "") and s not in have:
                    have[s] = value
        for pid, have in slots.items():
            if pid in targets:
                _own_key_in_slot(pid, have)
        self._recent_slots = {t: v for t, v in slots.items() if t in targets}
        # then what only names the work; kept apart so the described slots stay as they are
        extra: dict[str, dict[str, Any]] = {}
        for pid, row in with_slots:  # a stored stub's ids (a reference's W id)
            if row.get("stub"):
                have = slots.get(pid, _EMPTY)
                for s in SLOTS:
                    if row.get(s) not in (None, "") and s not in have:
                        extra.setdefault(pid, {}).setdefault(s, row[s])
        for pid, more in self._recent_stub_slots.items():
            if pid in targets:
                have = slots.get(pid, _EMPTY)
                for s, value in more.items():
                    if s not in have:
                        extra.setdefault(pid, {}).setdefault(s, value)
        # the previous chunk's settled Papers (one implicit slot each); one settled again
        # now by the same key gets the same slot below
        recent_settled = self._recent_settled
        for pid in recent_settled.keys() & targets:
            key = recent_settled[pid]
            if key != settled.get(pid) and _OPENALEX_SLOT not in slots.get(pid, _EMPTY):
                extra.setdefault(pid, {}).setdefault(_OPENALEX_SLOT, key[_OPENALEX_CUT:])
        for p in stubs:
            pid = mapping[p.id]
            have = slots.get(pid, _EMPTY)
            if isinstance(p, _RefStub):  # one slot: ~40,000 a chunk
                slot, value = p.slot, p.value
                if value not in (None, "") and slot not in have:
                    if (given := extra.get(pid)) is None:
                        extra[pid] = {slot: value}
                    elif slot not in given:
                        given[slot] = value
                continue
            for s in SLOTS:
                value = getattr(p, s)
                if value not in (None, "") and s not in have:
                    extra.setdefault(pid, {}).setdefault(s, value)
        # a settled Paper: its references give it their key's OpenAlex id, after anything
        # above (only a slot the previous chunk gave can come first: those few are written
        # out, the others kept as their keys)
        known = settled.keys() & (slots.keys() | extra.keys()) if settled else _NO_ENDS
        for pid in known:
            if _OPENALEX_SLOT not in slots.get(pid, _EMPTY):
                extra.setdefault(pid, {}).setdefault(_OPENALEX_SLOT, settled[pid][_OPENALEX_CUT:])
        for pid, more in extra.items():
            slots[pid] = {**slots[pid], **more} if pid in slots else more
            if pid in targets:
                _own_key_in_slot(pid, slots[pid])
        self._recent_stub_slots = {t: v for t, v in extra.items() if t in targets}
        self._recent_settled = (
            {pid: k for pid, k in settled.items() if pid not in known} if known else dict(settled)
        )
        return slots

    def _rewrite(
        self,
        recs: Sequence[AnyRecord | StatedMark],
        mapping: dict[str, str],
        slots: dict[str, dict[str, Any]],
    ) -> tuple[list[AnyRecord], list[StatedMark], dict[str, str]]:
        out: list[AnyRecord] = []
        marks: list[StatedMark] = []
        #: record id → its key, for the records of this group that land on a Paper keyed by
        #: another record (their statements go to the edges' ``also`` lists)
        other: dict[str, str] = {}
        if not self.family:
            for rec in recs:
                if isinstance(rec, Paper) and not _own_record(rec, slots.get(mapping[rec.id])):
                    other[rec.id] = record_key(rec)
        if other:  # such a record's references go to the also lists as records
            recs = [
                x
                for r in recs
                for x in (
                    r.records() if isinstance(r, ReferenceList) and r.start in other else (r,)
                )
            ]
        for rec in recs:
            kind = _KINDS.get(type(rec))
            if kind is None:
                kind = _KINDS[type(rec)] = _kind(type(rec))
            if kind == _OTHER:
                out.append(cast(AnyRecord, rec))
            elif kind == _EDGE:
                edge = cast(EdgeRecord, rec)
                update: dict[str, Any] = {}
                if edge.START == "Paper" and (start := mapping.get(edge.start)) is not None:
                    if start != edge.start:
                        update["start"] = start
                    if edge.start in other and isinstance(edge, Citation | Authorship):
                        update.update({f: None for f in _MARKS if getattr(edge, f, None)})
                        update["also"] = [other[edge.start]]
                end = mapping.get(edge.end) if edge.END == "Paper" else None
                if end is not None and end != edge.end:
                    update["end"] = end
                out.append(edge.replaced(update) if update else edge)
            elif kind == _MARK:
                marks.append(cast(StatedMark, rec))
            elif isinstance(rec, ReferenceList):
                out += self._rewrite_references(rec, mapping, slots)
            elif isinstance(rec, Paper):
                target = mapping[rec.id]
                if self.family:  # its key is a family's: mark it so nothing merges it away
                    if rec.id in self._family_ranked and not rec.is_stub():
                        rec = _ranked_over(rec, self._family_ranked[rec.id])
                    out.append(rec.replaced({"family_key": True}))
                    continue
                if rec.is_stub() and (target in self._stored or target in self._written):
                    continue  # the node exists (or is written in this chunk): nothing to add
                self._written.add(target)
                paper = self._rewrite_paper(rec, mapping, slots)
                if target in self._ranked and not rec.is_stub():
                    paper = _ranked(paper, self._ranked[target], own=rec.id not in other)
                elif target in self._base and not rec.is_stub():
                    paper = _fill_only(paper, self._base[target], own=rec.id not in other)
                out.append(paper)
                out += alias_records(target, getattr(paper, "alt_ids", None) or ())
                if rec.id in self._title_joined and target != rec.id:
                    out += alias_records(target, [rec.id])  # found by its id from now on
        return out, marks, other

    def _rewrite_references(
        self, refs: ReferenceList, mapping: dict[str, str], slots: dict[str, dict[str, Any]]
    ) -> list[AnyRecord]:
        """A reference list resolved as its stub and ``Citation`` records would be, one by
        one (:meth:`_rewrite`): its ends mapped to their works' keys, a stub kept only where
        the node is neither stored nor written by this chunk. A stub that lands on another
        key or whose slot the node fills differently goes back to the records path (its
        rewritten Paper record, before the list)."""
        out: list[AnyRecord] = []
        ends = tuple(map(mapping.get, refs.ends, refs.ends))  # mapping.get(end, end) each
        keep: list[int] = []
        stored, written = self._stored, self._written
        start = mapping.get(refs.start, refs.start)
        held = self.held
        if held is not None and refs.props == _OPENALEX_REF_PROPS:
            if held:
                held.supersede(start, self._chunk_no, self._record)
            if refs.stubs and held.can_hold():
                kept = self._hold_references(refs, ends, start)
                if kept is not None:
                    refs, ends = kept
        for i in refs.stubs:
            target = ends[i]
            if target in stored or target in written:
                continue
            written.add(target)
            have = slots.get(target, {}).get(refs.slot)
            if target == refs.ends[i] and have in (None, refs.values[i]):
                keep.append(i)
                continue
            paper = self._rewrite_paper(refs.stub(i), mapping, slots)
            out.append(paper)
            out += alias_records(target, getattr(paper, "alt_ids", None) or ())
        nodes = self._nodes
        # each end's node as a look-up read it ("": none read): a Paper the chunk creates or
        # renames has none, and its CITES seek it by id as before
        read = tuple(map(nodes.get, ends, repeat(""))) if nodes else ()
        out.append(refs.with_ends(start, ends, tuple(keep), read))
        return out

    def _hold_references(
        self, refs: ReferenceList, ends: tuple[str, ...], start: str
    ) -> tuple[ReferenceList, tuple[str, ...]] | None:
        """``refs`` (its ends resolved: ``ends``) without the ends held for a later record
        (``held_references``): a stub end the graph lacks (neither stored, nor written or
        described by this chunk) whose work a later record of the load describes. ``None``
        when it holds none."""
        held = self.held
        assert held is not None
        stored, written, described = self._stored, self._written, self._recent_described
        originals = refs.ends
        candidates = [
            i
            for i in refs.stubs
            if (end := ends[i]) == originals[i]
            and end not in stored
            and end not in written
            and end not in described
        ]
        if not candidates:
            return None
        values = refs.values
        coming = held.coming_mask([values[i] for i in candidates])
        held_ends = {ends[i] for i, c in zip(candidates, coming, strict=True) if c}
        if not held_ends:
            return None
        held.hold(start, sorted({values[i] for i in candidates if ends[i] in held_ends}),
                  self._chunk_no, self._record)  # fmt: skip
        recent = self._recent  # the next chunk must not take them for nodes this one wrote
        for end in held_ends:
            recent.pop(end, None)
        kept = [j for j, end in enumerate(ends) if end not in held_ends]
        at = {j: n for n, j in enumerate(kept)}
        stubs = tuple(at[i] for i in refs.stubs if i in at)
        smaller = ReferenceList(
            refs.start, tuple(originals[j] for j in kept), tuple(values[j] for j in kept),
            stubs, refs.slot, refs.props, (), (),
        )  # fmt: skip
        return smaller, tuple(ends[j] for j in kept)

    def _apply_marks(
        self,
        recs: Sequence[AnyRecord | StatedMark],
        out: list[AnyRecord],
        marks: list[StatedMark],
        other: dict[str, str],
        mapping: dict[str, str],
        lists: dict[tuple[str, str], list[dict[str, Any]]],
        cleared: list[dict[str, Any]],
    ) -> None:
        """The group's whole-list marks (``StatedList``) and owned fields (``StatedFields``)
        as prune work on the records as they will be written (``out``)."""
        for mark in marks:
            pid = mapping.get(mark.paper, mark.paper)
            key = other.get(mark.paper)
            if isinstance(mark, StatedFields):
                if key is not None:
                    continue  # the Paper's own record owns those properties
                paper = next(r for r in recs if isinstance(r, Paper) and r.id == mark.paper)
                gone = {name: None for name in sorted(mark.names) if getattr(paper, name) is None}
                if gone:
                    cleared.append({"id": pid, "props": gone})
                continue
            stated = {
                r.end
                for r in out
                if isinstance(r, EdgeRecord)
                and mark.rel == r.TYPE
                and r.start == pid
                and (key is None or key in (getattr(r, "also", None) or ()))
            }
            if key is None and mark.rel == "CITES":  # a list with also entries is records
                for r in out:
                    if isinstance(r, ReferenceList) and r.start == pid:
                        stated.update(r.ends)
            ends = sorted(stated)
            if key is None:
                lists.setdefault((mark.source, mark.rel), []).append({"id": pid, "refs": ends})
            else:
                # the key graphs loaded before round 6 hold (migrate_also_*): renamed to key
                # on every edge when no other record of the source shares the work
                scheme = SLOTS[SOURCE_SLOT[mark.source]] + ":"
                others = sum(1 for a in self._alts.get(pid, ()) if a.startswith(scheme))
                lists.setdefault(("also", mark.rel), []).append(
                    {
                        "id": pid,
                        "rec": key,
                        "old": f"{mark.source}:{mark.paper}",
                        "sole": others <= 1,
                        "refs": ends,
                    }
                )

    def _rewrite_paper(
        self, rec: Paper, mapping: dict[str, str], slots: dict[str, dict[str, Any]]
    ) -> NodeRecord:
        target = mapping[rec.id]
        keep = slots.get(target, {})
        update: dict[str, Any] = {}
        if target != rec.id:
            update["id"] = target
        alt = list(rec.alt_ids or [])
        for s, scheme in SLOTS.items():
            value = getattr(rec, s)
            if value not in (None, "") and keep.get(s) not in (None, value):
                update[s] = None
                alt.append(f"{scheme}:{value}")
                self.report.conflicts += 1
                log.info("%s: %s %r kept in alt_ids (the Paper has %r)", target, s, value, keep[s])
        if alt:
            # every record's alternative ids, not the last written one's: two records of one
            # source beside the work's own each add their id (stored ones are kept)
            known = self._alts.setdefault(target, set())
            known.update(alt)
            union = sorted(known - {target})
            if union != list(rec.alt_ids or []):
                update["alt_ids"] = union
        if rec.bib_keys and not self.family:
            # a .bib entry's keys replace those its own file gave the work, beside the other
            # files' (each file's entry is a record of its own: a second file citing the work
            # under another key took the first file's key away)
            files = {k.partition(":")[0] for k in rec.bib_keys}
            done = self._bib_files.setdefault(target, set())
            fresh = files - done  # files whose stored keys this load replaces now
            done |= files
            fresh |= {f.rpartition("/")[2] for f in fresh}  # the same file's, before folders
            others = [k for k in self._bibs.get(target, ()) if _bib_file_of(k) not in fresh]
            union_keys = others + [k for k in rec.bib_keys if k not in others]
            self._bibs[target] = union_keys
            if others:
                update["bib_keys"] = union_keys
        return rec.replaced(update) if update else rec


def _bib_file_of(key: str) -> str:
    """The file part of a ``bib_keys`` entry (``paperA/refs.bib`` of
    ``paperA/refs.bib:ada24``; ``refs.bib`` of one written before parts named the folder)."""
    return key.partition(":")[0]


#: what ``_rewrite`` does with a record, by its class (``_kind``, cached in ``_KINDS``)
_OTHER, _EDGE, _MARK, _SPECIAL = 0, 1, 2, 3
_KINDS: dict[type, int] = {}


#: key scheme → the slot whose value a Paper keyed by that scheme holds ("doi:10.1/x" is the
#: Paper whose ``doi`` is "10.1/x"); the corpus id's key is not its slot's (an integer)
_KEY_SLOT = {"arxiv": "arxiv_id", "doi": "doi", "openalex": "openalex_id"}


def _own_key_in_slot(pid: str, have: dict[str, Any]) -> None:
    """The Paper keyed ``pid`` holds its key's value in that key's slot (``have``: the slot
    values :meth:`IdentityResolver._slots` keeps for it), whatever the first record gave.

    Why: the key is the best id of the records describing the work, whatever their order;
    the slots keep the first record's values. When a source changes a work's DOI and the new
    one is the better key, the node was keyed ``doi:10.1/aaa`` with ``doi`` "10.2/zzz" and
    the new DOI nowhere else (a ``MATCH (p:Paper {doi: '10.1/aaa'})`` found nothing, and the
    load said "kept in alt_ids" of a value it was not kept in); loaded the other way round,
    ``doi`` "10.1/aaa" and ``alt_ids`` ["doi:10.2/zzz"]. Now both orders give the second."""
    scheme, _, value = pid.partition(":")
    slot = _KEY_SLOT.get(scheme)
    if slot is not None and value and have.get(slot) not in (None, value):
        have[slot] = value


def _kind(cls: type) -> int:
    if issubclass(cls, StatedList | StatedFields):
        return _MARK
    if issubclass(cls, ReferenceList | Paper):
        return _SPECIAL
    if issubclass(cls, EdgeRecord):
        return _EDGE
    return _OTHER


#: a Paper's own record of a source states an edge: the source's mark on it
_MARKS = RECORD_MARKS
#: the relationship types whose statements are kept per record, and the named query that
#: adds one record's statement to an edge's ``also`` list (loaders/writer.py uses it too)
_ALSO_TYPES = ("CITES", "AUTHORED_BY")
_ALSO_QUERIES = {
    "CITES": "identity/merge_also_cites",
    "AUTHORED_BY": "identity/merge_also_authorships",
}
#: Paper fields a record that is not its Paper's own never overwrites: the key, the id slots
#: (kept or moved to alt_ids by ``_rewrite_paper``), the merged ids, and the ``.bib`` keys
#: (every file's, merged there too)
_ID_FIELDS = frozenset({"id", "alt_ids", *SLOTS, "bib_keys"})


def _own_record(rec: Paper, slots: Mapping[str, Any] | None) -> bool:
    """Whether ``rec`` is its Paper's own record of its source (see ``SOURCE_SLOT``); a stub
    or a record of another loader (no catalogue source) always is."""
    slot = SOURCE_SLOT.get(rec.source or "")
    if slot is None or rec.is_stub():
        return True
    value = getattr(rec, slot)
    return value in (None, "") or (slots or {}).get(slot) == value


def _fill_only(paper: NodeRecord, base: Mapping[str, Any], *, own: bool) -> NodeRecord:
    """``paper`` as written on a Paper several records of one source describe (``base``:
    the properties it holds). Its own record (``own``) overwrites as usual; another record
    only fills what the Paper lacks, so the result does not depend on which record came
    last. The citation count is the largest any record gives (citations of either version
    are the work's)."""
    update: dict[str, Any] = {}
    count = getattr(paper, "citation_count", None)
    stored_count = base.get("citation_count")
    if isinstance(count, int) and isinstance(stored_count, int) and stored_count > count:
        update["citation_count"] = stored_count
    if not own:
        for name in type(paper).model_fields:
            if name in _ID_FIELDS or name == "citation_count":
                continue
            if getattr(paper, name) is not None and base.get(name) is not None:
                update[name] = None
    return paper.replaced(update) if update else paper


@dataclass
class _RankState:
    """A Paper several sources describe, as a chunk's records update it in turn: its
    properties, the source that gave each ranked one, the best source that described it
    (the node's ``source``), and whether the stored node had a ``named_by`` list."""

    props: dict[str, Any]
    given: dict[str, str]
    best: str
    had_named: bool


def _ranked(paper: NodeRecord, state: _RankState, *, own: bool) -> NodeRecord:
    """``paper`` as written on a Paper another source described too. A ranked property it
    gives is written where the Paper lacks it, or, by the work's own record of its source,
    over a value a source of the same or a worse rank gave (``source_rank``: a record
    reloaded replaces its own values); else the Paper's value stays. Other properties
    follow ``_fill_only``. The node's ``source`` becomes the best source that described
    it, and ``named_by`` lists the ranked properties another source gave
    (``"venue:crossref"``), so the next record knows whose value it meets: the result does
    not depend on the order in which the sources are loaded."""
    source = str(getattr(paper, "source", None) or "")
    props, given = state.props, state.given
    update: dict[str, Any] = {}
    for name in type(paper).model_fields:
        value = getattr(paper, name)
        if value is None or name in _ID_FIELDS or name in ("source", "named_by"):
            continue
        have = props.get(name)
        if name == "citation_count":
            if isinstance(have, int) and isinstance(value, int) and have > value:
                update[name] = have
            else:
                props[name] = value
        elif name in RANKED_FIELDS:
            if have is None or (
                own and source_rank(source) <= source_rank(given.get(name, state.best))
            ):
                props[name], given[name] = value, source
            else:
                update[name] = None
        elif have is not None and not own:
            update[name] = None
        else:
            props[name] = value
    if source_rank(source) < source_rank(state.best):
        state.best = source
    named = sorted(f"{n}:{g}" for n, g in given.items() if g != state.best)
    update["source"] = state.best or None
    update["named_by"] = named or None
    return paper.replaced(update)


def _catalogue_described(row: Mapping[str, Any]) -> bool:
    """Whether a stored Paper (its properties or slot row) holds what an open catalogue's
    record gave: its ``source`` is a catalogue's, or ``named_by`` says whose values it holds."""
    return row.get("source") in SOURCE_SLOT or bool(row.get("named_by") or row.get("stated_by"))


def _combined_state(rows: Sequence[Mapping[str, Any]]) -> _RankState:
    """The rank state of a work whose properties one stored node holds (catalogue mode) or
    several (family mode: the family record's own node and the catalogue-made ones merging
    into it): per ranked property the value of the best-ranked source that gave one, the
    others from the best-ranked node that has them."""
    rows = sorted(rows, key=lambda r: source_rank(r.get("source")))
    props: dict[str, Any] = {}
    given: dict[str, str] = {}
    had_named = False
    for row in rows:
        source = str(row.get("source") or "")
        named = dict(str(x).split(":", 1) for x in row.get("named_by") or ())
        had_named = had_named or bool(named)
        for name, value in row.items():
            if value is None:
                continue
            if name in RANKED_FIELDS:
                giver = named.get(name, source)
                if name not in given or source_rank(giver) < source_rank(given[name]):
                    props[name], given[name] = value, giver
            else:
                props.setdefault(name, value)
    return _RankState(props, given, str(rows[0].get("source") or ""), had_named)


def _ranked_over(paper: Paper, state: _RankState) -> NodeRecord:
    """A family record (``load s2``'s, keyed by its own id) on a work an open catalogue
    described: ``_ranked`` as the work's own record of its source, except that a ranked
    value a better source gave is written (not left out): the record's node may be new, or
    the survivor of a merge that keeps its own values, so the catalogue's value must be on
    it explicitly for both load orders to give one work."""
    out = _ranked(paper, state, own=True)
    keep = {
        name: state.props[name]
        for name in RANKED_FIELDS
        if getattr(paper, name, None) is not None
        and getattr(out, name, None) is None
        and state.props.get(name) is not None
    }
    return out.replaced(keep) if keep else out


def alias_records(paper_id: str, alt_ids: Iterable[str]) -> list[AnyRecord]:
    """An ``ALIAS_OF`` edge record per alternative id of ``paper_id``, so a later record
    carrying that id finds the Paper (``identity/lookup_papers``). No ``PaperAlias`` node
    record: the writer writes an ``ALIAS_OF`` batch with :func:`write_aliases`'s one
    statement, which makes the alias node and its edge together. An alternative id over the
    key limit is left out (:func:`write_alias_rows` says why)."""
    return [
        AliasOf(start=alt, end=paper_id)
        for alt in sorted(set(alt_ids) - {paper_id})
        if not key_too_long(alt)
    ]


#: the alias label of each node label that has aliases (``identity/write_aliases``)
ALIAS_LABELS = {"Paper": "PaperAlias", "Author": "AuthorAlias"}


def write_aliases(
    store: GraphStore,
    aliases: Mapping[str, Iterable[str]],
    *,
    label: str = "Paper",
    batch_size: int = 10_000,
) -> int:
    """Make each alternative id of each ``node id → alternative ids`` an alias node
    (``PaperAlias`` of a Paper, ``AuthorAlias`` of an Author) with its ``ALIAS_OF`` edge to
    the node, node and edge in one statement (``identity/write_aliases``), so however a load
    is interrupted no alias is left without its edge. A node not in the graph gets none.
    Returns how many aliases found their node."""
    rows = [
        {"id": alt, "of": node_id}
        for node_id, alt_ids in sorted(aliases.items())
        for alt in sorted(set(alt_ids) - {node_id})
    ]
    return write_alias_rows(store, rows, label=label, batch_size=batch_size)


def write_alias_rows(
    store: GraphStore,
    rows: Sequence[Mapping[str, Any]],
    *,
    label: str = "Paper",
    batch_size: int = 10_000,
) -> int:
    """:func:`write_aliases` for rows ``{id: alias, of: node id}`` (the writer's form). An
    alias over the key limit (``schema.text.MAX_KEY_BYTES``: a raw id no rule could read, as
    a slot keeps it) is left out: no look-up could find it, and a key that long is refused."""
    rows = [r for r in rows if not key_too_long(str(r["id"]))]
    written = 0
    for start in range(0, len(rows), batch_size):
        batch = list(rows[start : start + batch_size])
        result = store.run_named(
            "identity/write_aliases",
            {"rows": batch},
            label=label,
            label_alias=ALIAS_LABELS[label],
        )
        written += int(result[0]["written"]) if result else 0
    return written


# --------------------------------------------------------------------------- merging


def merge_papers(store: GraphStore, loser: str, survivor: str) -> bool:
    """Merge Paper ``loser`` into ``survivor`` (see the module doc); ``False`` if either is
    missing. Plain named queries and the store's batch writer, so both backends run the same
    steps (no APOC): survivor's properties first, then the relationships, then the delete,
    so an interruption never loses what the loser held."""
    from scholarkg.schema.records import EdgeRecord as _Edge

    rows = store.run_named("identity/paper_properties", {"ids": [loser, survivor]})
    props = {str(r["id"]): dict(r["props"]) for r in rows}
    if loser not in props or survivor not in props:
        return False
    stub = {str(r["id"]): bool(r["stub"]) for r in rows}
    fields = set(Paper.model_fields) - {"id"}
    a, b = props[survivor], props[loser]
    update: dict[str, Any] = {}
    alt = set(a.get("alt_ids") or []) | set(b.get("alt_ids") or []) | {loser}
    for name, value in b.items():
        if name not in fields or value is None or name == "alt_ids":
            continue
        if name == "bib_keys":  # every file's citation keys of the work, as its ids
            update[name] = list(dict.fromkeys([*(a.get(name) or ()), *value]))
            continue
        if name in SLOTS and a.get(name) not in (None, value):
            alt.add(f"{SLOTS[name]}:{value}")
        elif a.get(name) is None:
            update[name] = value
    # an id the survivor's slots hold is found by them: no alias (a stub "openalex:W1" merged
    # into the node of W1's record leaves what loading both in one batch leaves)
    alt -= slot_keys({**a, **update})
    update["alt_ids"] = sorted(alt) or None
    update.update(_merged_statements(store, loser, survivor, a, b, {**a, **update}))
    store.run_named("identity/set_paper_properties", {"rows": [{"id": survivor, "props": update}]})
    if stub[survivor] and not stub[loser]:  # the loser was described: so is the work
        store.run_named("identity/unmark_stubs", {"ids": [survivor]})
    if alt:
        write_aliases(store, {survivor: alt})
    keyed = _merge_keys(_Edge)
    batches: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    also: dict[str, list[dict[str, Any]]] = {}
    for r in store.run_named("identity/paper_relationships", {"id": loser}):
        other = survivor if r["other"] == loser else str(r["other"])
        label = "Paper" if r["other"] == loser else str(r["label"])
        start, end = (survivor, other) if r["dir"] == "out" else (other, survivor)
        if start == end and r["other"] != loser:
            continue  # the loser cited the survivor (or vice versa): no self-citation
        start_label, end_label = ("Paper", label) if r["dir"] == "out" else (label, "Paper")
        row: dict[str, Any] = {"start": start, "end": end, "props": dict(r["props"] or {})}
        if r["dir"] == "out" and str(r["type"]) in _ALSO_TYPES:
            # a source's mark stays where the loser's record of that source stays the work's
            # own (the survivor has no other id in its slot); else that record is now another
            # record of the work: its statements become also entries, keyed by the record's
            # id (the loser's)
            props = row["props"]
            recs = list(props.pop("also", None) or ())
            for m in _MARKS:
                source = m.removeprefix("from_")
                slot = SOURCE_SLOT[source]
                if props.get(m) and a.get(slot) not in (None, b.get(slot)):
                    props.pop(m)
                    recs.append(f"{source}:{b.get(slot) or loser}")
            for rec in recs:
                also.setdefault(str(r["type"]), []).append({**row, "rec": rec})
            if recs and not any(props.get(m) for m in _MARKS):
                continue
        key = keyed.get(str(r["type"]), ())
        if key:
            row["key"] = {k: row["props"].get(k) for k in key}
        batches.setdefault((str(r["type"]), start_label, end_label), []).append(row)
    for (rel, start_label, end_label), rel_rows in batches.items():
        store.merge_relationships(rel, start_label, end_label, rel_rows, key=keyed.get(rel, ()))
    for rel, rows_also in also.items():
        store.run_named(_ALSO_QUERIES[rel], {"rows": rows_also})
    store.delete_nodes("Paper", [loser])
    log.info("merged Paper %s into %s", loser, survivor)
    return True


def _merged_statements(
    store: GraphStore,
    loser: str,
    survivor: str,
    kept: Mapping[str, Any],
    gone: Mapping[str, Any],
    slots: Mapping[str, Any],
) -> dict[str, Any]:
    """Two nodes of one work, each a record described, merge: what each record stated stays
    (``loaders/statements``), and the survivor's shared properties become what those
    statements rank first, as a load of all the records into one node gives. A node that
    one record described holds that record's statement in its own values: it is written as
    a Statement of the survivor before the merge moves the loser's. Returns the survivor's
    recomputed properties (``{}`` unless records described both nodes)."""
    if not all(p.get("source") in SOURCE_SLOT or p.get("named_by") for p in (kept, gone)):
        return {}  # a stub (or a family's node) merging: the other's statements stand
    if kept.get("family_key") or gone.get("family_key"):
        # a benchmark family's node (load s2's) holds the catalogue's values copied by the
        # family's own rule (_ranked_over), not a record's statement
        return {}
    rows = store.run_named("identity/paper_statements", {"ids": [loser, survivor]})
    stated: dict[str, dict[str, Any]] = {}
    new: dict[str, dict[str, Any]] = {}
    for row in rows:
        have = {str(x["id"]): {k: v for k, v in x.items() if k != "id"} for x in row["statements"]}
        if not have:
            have = new_here = implicit_statements(str(row["id"]), dict(row["props"]))
            new.update(new_here)
        stated.update(have)
    if len(stated) < 2:
        return {}
    if new:
        store.merge_nodes("Statement", [{"id": k, **v} for k, v in new.items()])
        store.merge_relationships(
            "STATES",
            "Statement",
            "Paper",
            [{"start": k, "end": survivor, "props": {}} for k in new],
        )
    return restated(stated, kept, own_keys(slots))


def _merge_keys(base: type[EdgeRecord]) -> dict[str, tuple[str, ...]]:
    """Relationship type → its record's ``MERGE_KEY`` (keyed types keep one edge per key)."""
    out: dict[str, tuple[str, ...]] = {}
    pending: list[type[EdgeRecord]] = list(base.__subclasses__())
    while pending:
        cls = pending.pop()
        pending.extend(cls.__subclasses__())
        if getattr(cls, "MERGE_KEY", ()) and hasattr(cls, "TYPE"):
            out[cls.TYPE] = cls.MERGE_KEY
    return out


def retire_ids(
    store: GraphStore,
    pairs: Iterable[tuple[str, str]],
    resolver: IdentityResolver,
    *,
    chunk: int = 5_000,
) -> int:
    """Apply OpenAlex's ``merged_ids``: each ``(old W, surviving W)``. When both works are
    stored, the old one is merged into the survivor (OpenAlex decided, so its survivor wins
    whatever the id ranks); when only the old one is, it takes the surviving id (the old one
    goes to ``alt_ids``). One lookup per ``chunk`` pairs (the file lists millions, most of
    them never loaded). Returns how many stored Papers changed."""

    def apply(batch: list[tuple[str, str]]) -> int:
        resolver._forget_finds()  # a retired id moves to its survivor
        keys = {f"openalex:{w}" for pair in batch for w in pair}
        found = dict(resolver._lookup(keys))  # per key the last row's id, as before
        n = 0
        for old, new in batch:
            a, b = found.get(f"openalex:{old}"), found.get(f"openalex:{new}")
            if a is None:
                continue
            if b is not None and a != b:
                resolver.merge([(a, b)])
            elif b is None:
                rows = store.run_named("identity/paper_properties", {"ids": [a]})
                alt = sorted(set(rows[0]["props"].get("alt_ids") or []) | {f"openalex:{old}"})
                store.run_named(
                    "identity/set_paper_properties",
                    {"rows": [{"id": a, "props": {"openalex_id": new, "alt_ids": alt}}]},
                )
                write_aliases(store, {a: [f"openalex:{old}"]})
                found[f"openalex:{new}"] = a
            n += 1
        _retire_statements(store, batch)
        return n

    return sum(apply(batch) for batch in chunked(pairs, chunk))


def _retire_statements(store: GraphStore, pairs: Sequence[tuple[str, str]]) -> None:
    """The statements of records OpenAlex retired (``merged_ids``): where the surviving
    record states the work too, the retired record's goes; else it becomes the surviving
    record's (the work's own OpenAlex record now). The works touched are restated."""
    rows = [{"old": f"openalex:{old}", "new": f"openalex:{new}"} for old, new in pairs]
    touched = {
        str(r["id"]) for r in store.run_named("identity/drop_retired_statements", {"rows": rows})
    }
    touched |= {
        str(r["id"]) for r in store.run_named("identity/rename_retired_statements", {"rows": rows})
    }
    if touched:
        restate_stored(store, sorted(touched))


def restate_stored(store: GraphStore, paper_ids: Sequence[str]) -> None:
    """Write the stored Papers ``paper_ids``' shared properties as their statements rank
    them (``statements.restated``), after their statements changed outside a load (a
    retired record's went). A Paper left with one statement takes its values and drops it:
    a work one record describes holds that record's values itself."""
    rows = []
    lone = []
    for row in store.run_named("identity/paper_statements", {"ids": list(paper_ids)}):
        props = dict(row["props"])
        stated = {
            str(x["id"]): {k: v for k, v in x.items() if k != "id"} for x in row["statements"]
        }
        if not stated:
            continue
        values = restated(stated, props, own_keys(props))
        if len(stated) == 1:
            lone += list(stated)
            values["stated_by"] = None
        rows.append({"id": row["id"], "props": values})
    if rows:
        store.run_named("identity/set_paper_properties", {"rows": rows})
    if lone:
        store.run_named("identity/delete_statements", {"ids": lone})


# --------------------------------------------------------------------------- stubs


def mark_stub_ids(store: GraphStore, paper_ids: Sequence[str], *, batch_size: int = 10_000) -> int:
    """Give the Papers ``paper_ids`` (written by a bulk path, which has no per-node labels)
    the ``Stub`` label; returns how many were found."""
    marked = 0
    for start in range(0, len(paper_ids), batch_size):
        batch = list(paper_ids[start : start + batch_size])
        rows = store.run_named("identity/mark_stubs", {"ids": batch})
        marked += int(rows[0]["marked"]) if rows else 0
    return marked


def mark_existing_stubs(store: GraphStore, *, page: int = 10_000, force: bool = False) -> int:
    """The one-shot upgrade of a graph loaded before the ``Stub`` label existed: every Paper
    with neither a title nor a source (``Paper.is_stub``) gets it. Without ``force`` it runs
    only on a graph that has Papers and no ``Stub`` at all (a cheap check, so every catalogue
    load can call it). Returns how many Papers it marked."""
    if not force:
        rows = store.run_named("identity/has_stub_label")
        if not rows or not rows[0]["papers"] or rows[0]["stubs"]:
            return 0
    marked = 0
    while True:
        rows = store.run_named("identity/mark_unlabelled_stubs", {"limit": page})
        n = int(rows[0]["marked"]) if rows else 0
        marked += n
        if n < page:
            return marked

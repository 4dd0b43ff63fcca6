"""Store a stream of records through the ``GraphStore`` interface in idempotent batches.

Loaders yield records; this is the only place that turns them into ``merge_nodes`` /
``merge_relationships`` calls. Nodes are buffered per label and relationships per type;
before any relationship batch is written, every pending node batch is flushed, so an edge
never waits on a node that was already read. Loaders therefore yield a source's nodes before
the edges that need them; an edge whose endpoint never arrives is skipped and counted (it
cannot be stored without inventing a node).

A failed write never leaves a half-written graph: before each node batch is sent the writer
asks the store which of its ids exist already, and keeps the new ones on an *undo list*
until :meth:`RecordWriter.mark` (called when the load's checkpoint is saved). When any write
fails (the server rejects a statement, the connection drops, the store refuses a value),
:meth:`RecordWriter.rollback` deletes the nodes created since the mark with their
relationships, so the graph is again what the last checkpoint describes, and ``--resume``
continues from there. Relationships between nodes that existed before the mark are whole
records of their own (MERGE on both endpoints) and are left as written.

A Paper record that describes no work (``Paper.is_stub``: a reference known only by its ids)
that is not in the graph yet is created by ``identity/create_stub_papers`` with the second
label ``Stub``; a record of a Paper the graph holds as a stub is written by
``identity/describe_stubs``, which takes the label off in the same statement (a writer without
an undo list, which reads nothing before a batch, follows the batch with
``identity/unmark_stubs`` instead). So whichever order a work's stub and its record arrive in,
the node is ``:Paper:Stub`` exactly while no record has described it.

Writes overlap the Python that follows them: node and relationship batches go out under the
store's ``writes_ahead`` (``store/batch_writes.py``), so on a store that writes ahead (the
embedded FalkorDB) the server executes a statement while this writer builds and encodes the
next ones, and the statements of a flush run while the next records are added. A node flush
first reads what it needs (which ids exist, and which Papers are stubs with no relationship
out: ``identity/paper_states``), then sends all its writes, so they go out one after another.
A statement's ``written`` count arrives when its reply is read; the counts of a flush go into
the report once every reply of it is read: at the end of :meth:`RecordWriter.flush`, or, with
``flush(then=…)`` (``run_resumable``), when the next call that reaches the server reads them,
just before ``then`` saves the checkpoint, so a checkpoint never claims a write still under
way. A failed statement is the last one the server ran (none is sent after it), and its
error is raised as it is, as without writing ahead.

Re-running a load is safe: everything is MERGE on stable ids. A relationship type whose
record declares ``MERGE_KEY`` (e.g. ``Judgement``: several judgements of one pair) is MERGEd
on its endpoints *and* those key properties, so it keeps one relationship per key.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from scholarkg.errors import InputError, ScholarKGError
from scholarkg.interrupts import interrupts_deferred
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.loaders.unchanged_edges import UnchangedEdge
from scholarkg.schema.records import Citation, EdgeRecord, NodeRecord, Paper
from scholarkg.store.base import GraphStore
from scholarkg.store.batch_writes import BatchWriteStore, one_row_per_node
from scholarkg.store.cypher_common import chunked, clean_props, node_rows

log = logging.getLogger(__name__)

#: relationship rows buffered per type before they are sent (whatever the batch size): the
#: node buffers are flushed before any edge batch, so with ~20 references a work an edge
#: buffer of ``batch_size`` rows made a node batch of ~100 works, and five round trips
#: (undo ids, MERGE, stub label, stub ids, CREATE) for each; ``run_resumable`` flushes
#: everything at each checkpoint anyway, so a larger edge buffer only means fewer, fuller
#: batches. 100,000 holds a chunk of ``load openalex`` (2,000 works citing 20-40 each): at
#: 20,000 the references filled it twice or more a chunk, and each such flush read which
#: node ids exist again, a read that waited for the writes of the flush before it
#: (``bench_openalex.py --update-new``: 39.1 → 34.0 s). ~20 MB of rows at most
EDGE_BUFFER = 100_000

#: relationship rows a statement of an edge flush carries (at least ``batch_size``): the size
#: the edge statements always had, whatever the buffer
EDGE_BATCH = 10_000

#: node rows buffered per label (and stub rows) before a flush of that label: a chunk of an
#: update (2,000 works: ~6,000 authors, 2,000 venues, the stubs its references name) is
#: flushed once, every label's read of which ids exist before any write of the chunk, instead
#: of a flush per 2,000 rows whose read waited for the writes of the one before
NODE_BUFFER = 20_000

#: the named query adding a record's statement to an edge's ``also`` list, per type
#: (``Citation.also``; ``loaders/identity.py`` names the same queries for its merges)
_ALSO_QUERIES = {
    "CITES": "identity/merge_also_cites",
    "AUTHORED_BY": "identity/merge_also_authorships",
}


@dataclass
class WriteReport:
    nodes: Counter[str] = field(default_factory=Counter)
    relationships: Counter[str] = field(default_factory=Counter)
    skipped_relationships: Counter[str] = field(default_factory=Counter)
    records: int = 0

    def summary(self) -> dict[str, Any]:
        return {
            "records": self.records,
            "nodes": dict(self.nodes),
            "relationships": dict(self.relationships),
            "skipped_relationships": dict(self.skipped_relationships),
        }


class _EdgeKind(NamedTuple):
    """One relationship batch: type, endpoint labels and the merge key property names."""

    rel_type: str
    start_label: str
    end_label: str
    merge_key: tuple[str, ...] = ()


class _Stored(NamedTuple):
    """What the store holds of a node batch's ids, read before the batch is written."""

    #: id → whether it is a stub with no relationship out (always ``False`` but for Papers)
    bare: dict[str, bool]
    #: the Papers among them with the ``Stub`` label
    stubs: frozenset[str]


#: the relationship batch of a reference list's edges (``Citation``)
_CITES_KIND = _EdgeKind(Citation.TYPE, Citation.START, Citation.END)


class RecordWriter:
    """Buffering writer; use as a context manager or call ``flush()`` at the end."""

    def __init__(
        self,
        store: GraphStore,
        *,
        batch_size: int = 5_000,
        progress: Callable[[int], None] | None = None,
        undo: bool = True,
    ) -> None:
        self.store = store
        self.batch_size = batch_size
        #: relationship rows per type buffered before a send (see ``EDGE_BUFFER``)
        self.edge_buffer = max(batch_size, EDGE_BUFFER)
        self.progress = progress
        self.report = WriteReport()
        #: keep an undo list (one id lookup per node batch); off for throwaway graphs
        self.undo = undo
        #: label -> ids of the nodes this writer created since the last ``mark()``
        self._created: dict[str, set[str]] = defaultdict(set)
        #: the last :meth:`rollback` could not delete what it had to (the server was gone):
        #: part of a batch stays in the graph beyond the checkpoint until ``--resume``
        self.undo_failed = False
        #: while a flush's late ``then`` runs: the nodes that flush left created (:meth:`mark`)
        self._marking: dict[str, set[str]] | None = None
        #: a write failed: the buffers are no longer what the graph lacks
        self._failed = False
        self._nodes: dict[str, list[dict[str, Any]]] = defaultdict(list)
        #: Paper rows of records that describe no work (``Paper.is_stub``)
        self._stubs: list[dict[str, Any]] = []
        #: per type, edges other records of a work state (``Citation.also``), by (start,
        #: end, record key)
        self._also: dict[str, dict[tuple[str, str, str], dict[str, Any]]] = defaultdict(dict)
        # per (type, start label, end label, merge key names), rows keyed by (start, end,
        # key values): MERGE makes one relationship per pair (per pair and key values for a
        # keyed type), so one seen twice in a batch is one write (later properties win), and
        # the skipped count stays exact
        self._edges: dict[_EdgeKind, dict[tuple[Any, ...], dict[str, Any]]] = defaultdict(dict)
        #: since the last :meth:`flush`: per label, the ids this writer's node MERGEs created
        #: or took the Stub label off while they had no relationship out (a work cited before
        #: its record: most of an update's new works), and per type, the start ids
        #: relationships were sent from. Such a node no relationship of a type was sent from
        #: has none (nothing else writes between two flushes: identity resolution runs its
        #: statements after one), so the store may CREATE its relationships instead of
        #: MERGEing them (``merge_relationships``' ``new_starts``). Known only with the undo
        #: list (its id look-up).
        self._new: dict[str, set[str]] = defaultdict(set)
        self._sent_from: dict[str, set[str]] = defaultdict(set)
        #: per kind, (start, end) pairs the graph already holds as the records state them
        #: (``ReferenceList.stated``, ``UnchangedEdge``), not sent; counted at the kind's
        #: next flush
        self._unchanged: dict[_EdgeKind, dict[tuple[str, str], None]] = defaultdict(dict)
        #: the properties map shared by the rows of reference lists, per ``props`` tuple
        self._ref_props: dict[tuple[tuple[str, Any], ...], dict[str, Any]] = {}
        #: reference lists' ``CITES`` kept as lists until their flush, per start id: its
        #: ends (end id → its node hint, ``""`` for none) and their properties map, sent by
        #: the store's ``merge_relationship_lists``. Why: as one dict a row, walked again at
        #: every step of the flush, they were a fifth of the loading thread's time in an
        #: update (see :meth:`_add_references`). A start here has no ``CITES`` row in
        #: ``_edges`` or ``_unchanged`` (those are ``_rowed``), so a pair is in one place
        self._lists: dict[str, tuple[dict[str, str], dict[str, Any]]] = {}
        #: the pairs in ``_lists``
        self._list_rows = 0
        #: since the last ``CITES`` flush: the starts of ``CITES`` rows in ``_edges`` or
        #: ``_unchanged``
        self._rowed: set[str] = set()
        #: since the last :meth:`flush`, per type: relationship rows sent, and what the
        #: server answered it wrote (counts of statements written ahead arrive late)
        self._rows_sent: Counter[str] = Counter()
        self._written: Counter[str] = Counter()
        #: the store, when it may write ahead (``BatchWriteStore.writes_ahead``)
        self._ahead = store if isinstance(store, BatchWriteStore) else None
        #: node rows buffered per label before they are flushed (sent in batch_size batches)
        self._node_buffer = max(batch_size, NODE_BUFFER)

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, exc_type: object, *_: object) -> None:
        if exc_type is None:
            self.flush()

    def add(self, record: NodeRecord | EdgeRecord | ReferenceList | UnchangedEdge) -> None:
        if isinstance(record, ReferenceList):
            self._add_references(record)
            return
        if isinstance(record, UnchangedEdge):
            self._add_unchanged(record.record)
            return
        self.report.records += 1
        if isinstance(record, NodeRecord):
            buf = (
                self._stubs
                if isinstance(record, Paper) and record.is_stub()
                else self._nodes[record.LABEL]
            )
            buf.append(record.row())
            if len(buf) >= self._node_buffer:
                self._flush_label(record.LABEL)
        else:
            if isinstance(record, Citation) and (ctx := record.context()) is not None:
                self.add(ctx)
                self._add_edge("IN_PAPER", "CitationContext", "Paper", ctx.id, record.start)
                self._add_edge("GOLD", "CitationContext", "Paper", ctx.id, record.end)
                record = record.replaced({"sentence": None, "section": None})
            also = getattr(record, "also", None)
            if also:  # another record of the work states it: added to its list, not set
                self._add_also(record, also)
                return
            self._add_edge(
                record.TYPE, record.START, record.END, record.start, record.end,
                record.properties(), record.merge_key(), record if record.OWNED else None,
            )  # fmt: skip
        if self.progress and self.report.records % 1000 == 0:
            self.progress(self.report.records)

    def _add_unchanged(self, record: EdgeRecord) -> None:
        """An edge the graph holds as ``record`` states it: counted, not sent (a row of the
        same pair already buffered is written, and counts it)."""
        kind = _EdgeKind(record.TYPE, record.START, record.END, ())
        ident = (record.start, record.end)
        if kind == _CITES_KIND:
            self._to_rows(record.start)
        if record.MERGE_KEY or ident in self._edges[kind]:
            self.add(record)
            return
        self.report.records += 1
        self._unchanged[kind][ident] = None
        if self.progress and self.report.records % 1000 == 0:
            self.progress(self.report.records)

    def _add_references(self, refs: ReferenceList) -> None:
        """A reference list: the rows its stub Papers and ``CITES`` records would add, made
        here directly (the same buffers, the same flush points as those records)."""
        before = self.report.records
        self.report.records += refs.weight()
        for i in refs.stubs:
            self._stubs.append(refs.stub_row(i))
            if len(self._stubs) >= self._node_buffer:
                self._flush_label("Paper")
        kind = _CITES_KIND
        # one map for every row of the lists with these properties: rows' maps are never
        # changed in place (a row seen again gets a new one), and the edge flush groups
        # rows by their map (every OpenAlex reference: {from_openalex: true})
        props = self._ref_props.get(refs.props)
        if props is None:
            props = self._ref_props[refs.props] = dict(refs.props)
        start = refs.start
        if (
            refs.ends
            and self._ahead is not None
            and not refs.stated
            and start not in self._rowed
            and start not in self._lists
        ):
            # each end once: a map from the ends (and their hints) made in C
            nodes = refs.nodes
            ends = (
                dict(zip(refs.ends, nodes, strict=True)) if nodes else dict.fromkeys(refs.ends, "")
            )
            if len(ends) == len(refs.ends):  # else a repeat: rows fold it
                self._lists[start] = (ends, props)
                self._list_rows += len(ends)
                if len(self._edges.get(kind, ())) + self._list_rows >= self.edge_buffer:
                    self._flush_nodes()
                    self._flush_edges(kind)
                if self.progress and before // 1000 != self.report.records // 1000:
                    self.progress(self.report.records)
                return
        self._to_rows(start)
        buf = self._edges[kind]
        stated = frozenset(refs.stated)
        unchanged = self._unchanged[kind]
        nodes = refs.nodes
        for i, end in enumerate(refs.ends):
            ident = (start, end)
            if stated and i in stated and ident not in buf:
                # the graph holds it as the list states it (identity resolution read it)
                unchanged[ident] = None
                continue
            if unchanged:
                unchanged.pop(ident, None)  # this row's MERGE counts it
            if ident in buf:
                row = buf[ident]
                row["props"] = {**row["props"], **props}
                continue
            if nodes and nodes[i]:  # its node as read: the store may take the end by it
                buf[ident] = {"start": start, "end": end, "props": props, "node": nodes[i]}
            else:
                buf[ident] = {"start": start, "end": end, "props": props}
            if len(buf) + self._list_rows >= self.edge_buffer:
                self._flush_nodes()
                self._flush_edges(kind)
                buf = self._edges[kind]
        if self.progress and before // 1000 != self.report.records // 1000:
            self.progress(self.report.records)

    def _to_rows(self, start: str) -> None:
        """Before a ``CITES`` row or unchanged pair from ``start`` is buffered: its list
        kept in ``_lists`` becomes rows of ``_edges`` (one place for each pair, so a row
        seen twice folds as before), and ``start`` is ``_rowed`` until the next flush."""
        self._rowed.add(start)
        kept = self._lists.pop(start, None)
        if kept is None:
            return
        ends, props = kept
        self._list_rows -= len(ends)
        buf = self._edges[_CITES_KIND]
        for end, node in ends.items():
            row = {"start": start, "end": end, "props": props}
            if node:
                row["node"] = node
            buf[(start, end)] = row

    def add_all(
        self, records: Iterable[NodeRecord | EdgeRecord | ReferenceList | UnchangedEdge]
    ) -> WriteReport:
        """Write every record; on a bad record (``InputError`` from the reader) everything
        read before it is written first, so nothing already validated is lost. A failed
        write, or Ctrl-C / SIGTERM meanwhile, rolls back what this call created
        (:meth:`rollback`) and re-raises."""
        try:
            for record in records:
                self.add(record)
        except InputError:
            if self._failed:  # the store refused a value: not a bad line to stop after
                self.rollback()
                raise
            self._flush_or_undo()
            raise
        except (ScholarKGError, KeyboardInterrupt):  # Ctrl-C too: nothing half-written
            self.rollback()
            raise
        self._flush_or_undo()
        return self.report

    def _flush_or_undo(self) -> None:
        try:
            self.flush()
        except (ScholarKGError, KeyboardInterrupt):
            self.rollback()
            raise

    # -- undo ----------------------------------------------------------------------------
    def mark(self) -> None:
        """Everything written so far is durable (its checkpoint is saved): forget the undo list.
        Called from a flush's ``then`` (its replies read after later writes were sent), only
        what that flush created is durable: the nodes created since stay on the list."""
        if self._marking is None:
            self._created.clear()
            return
        for label, ids in self._marking.items():
            self._created[label] -= ids

    def rollback(self) -> int:
        """Drop unsent buffers and delete the nodes created since :meth:`mark`.

        Returns how many nodes were deleted. A failure here (the server is gone) is logged,
        not raised: the caller is already reporting the original error, and ``--resume``
        re-MERGEs whatever is left, so the graph ends up whole either way. A Ctrl-C during
        it (the second, impatient one) waits for it to end; a third goes through.
        """
        with interrupts_deferred():
            return self._rollback()

    def _rollback(self) -> int:
        self._nodes.clear()
        self._stubs = []
        self._also.clear()
        self._edges.clear()
        self._unchanged.clear()
        self._lists.clear()
        self._list_rows = 0
        self._rowed.clear()
        self._new.clear()
        self._sent_from.clear()
        self._rows_sent.clear()
        self._written.clear()
        if self._ahead is not None:
            # what resolution held for this chunk's writes goes with them (--resume
            # resolves the chunk again)
            self._ahead.drop_held()
            # a flush not yet answered: read it first, so a flush that landed is claimed
            # (``flush(then=…)``: its checkpoint saved, its nodes off the undo list) and one
            # that failed is not
            try:
                self._ahead.settle()
            except ScholarKGError as err:
                log.warning("a write sent ahead failed too: %s", err)
        deleted = 0
        self.undo_failed = False
        try:
            for label, ids in list(self._created.items()):
                if ids:
                    deleted += self.store.delete_nodes(label, sorted(ids))
        except ScholarKGError as err:
            self.undo_failed = True
            log.warning("could not undo the failed batch (%s); --resume will complete it", err)
        self._created.clear()
        return deleted

    def _add_edge(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        start: str,
        end: str,
        props: dict[str, Any] | None = None,
        merge_key: dict[str, Any] | None = None,
        owner: EdgeRecord | None = None,
    ) -> None:
        """Buffer one edge row; a second row of the same edge adds its properties to the
        first's, less the ones its record ``owner`` leaves unset among those its source owns
        (``EdgeRecord.owned_unset``: the later record gives none, so none is written). Asked
        only then: a second row of one edge is rare, an authorship record on every work."""
        merge_key = merge_key or {}
        kind = _EdgeKind(rel_type, start_label, end_label, tuple(merge_key))
        if kind == _CITES_KIND:
            self._to_rows(start)
        buf = self._edges[kind]
        ident = (start, end, *merge_key.values())
        if (unchanged := self._unchanged.get(kind)) is not None:
            unchanged.pop((start, end), None)  # this row's MERGE counts it
        if ident in buf:  # a new map: rows may share theirs (``_add_references``)
            merged = {**buf[ident]["props"], **(props or {})}
            for name in owner.owned_unset() if owner is not None else ():
                merged.pop(name, None)
            buf[ident]["props"] = merged
        else:
            buf[ident] = {"start": start, "end": end, "props": dict(props or {})}
            if merge_key:
                buf[ident]["key"] = dict(merge_key)
        if len(buf) >= self.edge_buffer:
            self._flush_nodes()
            self._flush_edges(kind)

    def _add_also(self, record: EdgeRecord, also: list[str]) -> None:
        """Buffer an edge stated by records that are not its Paper's own record of their
        source (``Citation.also``): one row per (edge, record key)."""
        props = record.properties()
        props.pop("also", None)
        buf = self._also[record.TYPE]
        for rec in also:
            buf[(record.start, record.end, rec)] = {
                "start": record.start, "end": record.end, "props": props, "rec": rec,
            }  # fmt: skip
        if len(buf) >= self.edge_buffer:
            self._flush_nodes()
            self._flush_also(record.TYPE)

    def _flush_also(self, rel_type: str) -> None:
        rows = list(self._also.pop(rel_type, {}).values())
        if not rows:
            return
        name = _ALSO_QUERIES[rel_type]
        written = 0
        for batch in chunked(rows, self.batch_size):
            for row in batch:
                row["props"] = clean_props(row["props"])
            result = self._store_call(self.store.run_named, name, {"rows": batch})
            written += int(result[0]["written"]) if result else 0
        self._sent_from[rel_type].update(row["start"] for row in rows)
        self.report.relationships[rel_type] += written
        if written < len(rows):
            self.report.skipped_relationships[rel_type] += len(rows) - written

    def _flush_label(self, label: str) -> None:
        self._flush_labels([label])

    def _flush_labels(self, labels: list[str]) -> None:
        """Write the buffered nodes of ``labels`` (the Paper stubs with ``Paper``): first
        every read they need (which ids exist, :meth:`_found`), then every write, so the
        writes go out one after another (written ahead, the server runs them while this
        writer goes on). Labels do not meet: one label's writes change nothing another's
        read sees."""
        batches = []
        for label in labels:
            rows = self._nodes.pop(label, [])
            stubs: dict[str, dict[str, Any]] = {}
            if label == "Paper" and self._stubs:
                for row in self._stubs:
                    stubs.setdefault(str(row["id"]), {}).update(row)
                self._stubs = []
            if rows or stubs:
                batches.append((label, rows, stubs, self._found(label, rows, stubs)))
        for label, rows, stubs, found in batches:
            self._write_label(label, rows, stubs, found)

    def _found(
        self, label: str, rows: list[dict[str, Any]], stubs: dict[str, dict[str, Any]]
    ) -> _Stored | None:
        """Which ids of ``rows`` and ``stubs`` the store holds (``None``: not looked up,
        without an undo list and stubs); for Papers, which of them are stubs, and per id
        whether it is a stub with no relationship out (``identity/paper_states``)."""
        if not stubs and not self.undo:
            return None
        ids = sorted({str(r["id"]) for r in rows}.union(stubs))
        if label != "Paper":
            have = self._existence_read(
                self.store.existing_ids, label, ids, batch_size=self.batch_size
            )
            return _Stored(dict.fromkeys(have, False), frozenset())
        found: dict[str, bool] = {}
        stub_ids: set[str] = set()
        for part in chunked(ids, self.batch_size):
            rows_found = self._existence_read(self._paper_states, part)
            for r in rows_found:
                found[str(r["id"])] = bool(r["bare"])
                if r["stub"]:
                    stub_ids.add(str(r["id"]))
        return _Stored(found, frozenset(stub_ids))

    def _write_label(
        self,
        label: str,
        rows: list[dict[str, Any]],
        stubs: dict[str, dict[str, Any]],
        stored: _Stored | None,
    ) -> None:
        found = None if stored is None else stored.bare
        described: set[str] = set()
        if rows:
            written = len(rows)
            described = {str(r["id"]) for r in rows}
            had: set[str] | None = None
            if self.undo and found is not None:
                had = {i for i in described if i in found}
                created = described - had
                self._created[label] |= created
                self._new[label] |= created
            if label == "Paper" and stored is not None:
                # described now: no longer a stub. The stubs among the rows are described
                # and unlabelled in one statement, the rest MERGEd (a node the MERGE creates
                # has no Stub label); see identity/describe_stubs for what one statement saves
                if stored.stubs & described:
                    self._describe_stubs([r for r in rows if str(r["id"]) in stored.stubs])
                    rows = [r for r in rows if str(r["id"]) not in stored.stubs]
                if rows:
                    self._write_ahead(
                        self.store.merge_nodes, label, rows, batch_size=self.batch_size
                    )
            else:
                self._write_ahead(self.store.merge_nodes, label, rows, batch_size=self.batch_size)
                if label == "Paper":  # not read before (no undo list): unmark what is a stub
                    self._unmark_stubs([str(r["id"]) for r in rows])
            self.report.nodes[label] += written
            if label == "Paper" and had is not None and found is not None:
                # works cited before their record (stubs with no relationship out, as read
                # before): new starts too
                self._new[label].update(i for i in had if found[i])
        if stubs:
            # after the described rows: a stub of a work described in this batch is not new.
            # New stubs are CREATEd with both labels: adding a label to an existing node
            # (MERGE … ON CREATE SET p:Stub) cost FalkorDB ~2-4 ms a node, 35x the write
            assert found is not None
            have = {sid for sid in stubs if sid in found or sid in described}
            if self.undo:
                self._created[label] |= set(stubs) - have
            old = [row for sid, row in stubs.items() if sid in have]
            if old:
                self._write_ahead(self.store.merge_nodes, label, old, batch_size=self.batch_size)
            new = [row for sid, row in stubs.items() if sid not in have]
            if new:
                self._write_ahead(
                    self.store.write_named, "identity/create_stub_papers",
                    node_rows(new, label), batch_size=self.batch_size,
                )  # fmt: skip
            self.report.nodes[label] += len(stubs)

    def _describe_stubs(self, rows: list[dict[str, Any]]) -> None:
        """Write the records of Papers the graph holds as stubs with ``identity/describe_stubs``:
        their properties set and the ``Stub`` label taken off in one statement (the label
        first, so FalkorDB's full-text index takes the text once: a MERGE and then
        ``identity/unmark_stubs`` indexed it twice), one row per id, the later record's
        properties over the earlier's as :meth:`GraphStore.merge_nodes` folds them."""
        folded = one_row_per_node(list(node_rows(rows, "Paper")))
        for part in chunked(folded, self.batch_size):
            self._write_ahead(
                self.store.write_named, "identity/describe_stubs", part,
                batch_size=self.batch_size,
            )  # fmt: skip
            self._labels_removed()

    def _labels_removed(self) -> None:
        """After a statement that took the ``Stub`` label off Papers: the store settles what
        it left pending (``BatchWriteStore.labels_removed``; each statement's removals
        settled before the next's, as ``pending_changes.py`` of the embedded store says)."""
        if isinstance(self.store, BatchWriteStore):
            self._write_ahead(self.store.labels_removed)

    def _unmark_stubs(self, ids: list[str]) -> None:
        """Take the ``Stub`` label off the Papers among ``ids`` that have it (described now)."""
        for part in chunked(ids, self.batch_size):
            if self._ahead is not None:  # its rows are not needed: written ahead
                self._write_ahead(self._ahead.send_named, "identity/unmark_stubs", {"ids": part})
            else:
                self._store_call(self.store.run_named, "identity/unmark_stubs", {"ids": part})
            self._labels_removed()

    def _note_created(self, label: str, rows: list[dict[str, Any]]) -> set[str] | None:
        """Put the ids of ``rows`` not yet in the store on the undo list; returns the ids that
        are in the store (``None`` without an undo list: not looked up)."""
        if not self.undo:
            return None
        ids = {str(r["id"]) for r in rows}
        have: set[str] = self._existence_read(
            self.store.existing_ids, label, ids, batch_size=self.batch_size
        )
        created = ids - have
        self._created[label] |= created
        self._new[label] |= created
        return have

    @property
    def failed(self) -> bool:
        """A store write failed since this writer was made (see :meth:`rollback`)."""
        return self._failed

    def _store_call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """One write (:meth:`_call`), after the writes identity resolution held back
        (``BatchWriteStore.hold_until_write``: a chunk's prunes, unmarks and cleared
        properties), so they run before any of the chunk's own writes."""
        if self._ahead is not None:
            self._call(self._ahead.send_held)
        return self._call(fn, *args, **kwargs)

    def _existence_read(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """A read of which ids exist (and which Papers are stubs, and whether one has a
        relationship out), sent ahead of the held writes (:meth:`_call` alone): those never
        create, delete or relabel a node, so the read answers the same without waiting for
        them (see ``IdentityResolver._write_ahead`` for the stub case)."""
        return self._call(fn, *args, **kwargs)

    def _paper_states(self, ids: list[str]) -> list[dict[str, Any]]:
        """``identity/paper_states`` of ``ids``, beside the relationship writes still running
        that name none of them (``BatchWriteStore.run_named_beside_relationships``): only
        those change whether one of these Papers has a relationship out."""
        store = self.store
        if isinstance(store, BatchWriteStore):
            return store.run_named_beside_relationships(
                "identity/paper_states", {"ids": ids}, ids=ids
            )
        return store.run_named("identity/paper_states", {"ids": ids})

    def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``fn(...)``; a failure marks the writer failed, so ``add_all`` does not mistake a
        store refusal (an ``InputError`` naming a parameter) for a bad source record."""
        try:
            return fn(*args, **kwargs)
        except ScholarKGError:
            self._failed = True
            raise

    def _write_ahead(
        self, fn: Callable[..., Any], *args: Any, counts: str | None = None, **kwargs: Any
    ) -> Any:
        """:meth:`_store_call` of a write whose statements may be answered after it returns
        (``store.writes_ahead``); their ``written`` counts, late or not, go to
        ``self._written[counts]`` (the return value holds only those answered in time)."""
        if self._ahead is None:
            return self._store_call(fn, *args, **kwargs)
        written = self._written

        def late(n: int) -> None:
            if counts is not None:
                written[counts] += n

        with self._ahead.writes_ahead(late, self._fail):
            return self._store_call(fn, *args, **kwargs)

    def _fail(self) -> None:
        """A statement written ahead failed (its error is raised where its reply is read)."""
        self._failed = True

    def _flush_nodes(self) -> None:
        labels = list(self._nodes)
        if self._stubs and "Paper" not in labels:
            labels.append("Paper")
        self._flush_labels(labels)

    def _flush_edges(self, kind: _EdgeKind) -> None:
        if kind == _CITES_KIND:
            self._rowed.clear()  # both buffers are emptied below
            if self._lists:
                self._flush_lists()
        if unchanged := self._unchanged.get(kind):
            # counted as their MERGE would have counted them: the report's relationships
            # are the ones the load's records state, written or already there
            self._rows_sent[kind.rel_type] += len(unchanged)
            self._written[kind.rel_type] += len(unchanged)
            unchanged.clear()  # in place: _add_references holds it across a flush
        rows = list(self._edges.pop(kind, {}).values())
        if not rows:
            return
        if kind.rel_type == "ALIAS_OF":  # node and edge in one statement
            written = self._flush_aliases(kind, rows)
        else:
            written = self._merge_grouped(kind, rows)
        self._rows_sent[kind.rel_type] += len(rows)
        self._written[kind.rel_type] += written

    def _flush_lists(self) -> None:
        """Send the reference lists kept in ``_lists`` (``merge_relationship_lists``, a
        call per properties map), counted as their rows would have been."""
        kind = _CITES_KIND
        store = self._ahead
        assert store is not None, "lists are kept only for a BatchWriteStore"
        lists, self._lists = self._lists, {}
        rows, self._list_rows = self._list_rows, 0
        by_props: dict[int, tuple[dict[str, Any], dict[str, dict[str, str]]]] = {}
        for start, (ends, props) in lists.items():
            if (have := by_props.get(id(props))) is None:
                by_props[id(props)] = (props, {start: ends})
            else:
                have[1][start] = ends
        new = self._new.get(kind.start_label)
        sent = self._sent_from[kind.rel_type]
        new_starts = new - sent if new else frozenset()
        written = 0
        for props, group in by_props.values():
            written += self._write_ahead(
                store.merge_relationship_lists,
                kind.rel_type, kind.start_label, kind.end_label, group, props,
                batch_size=max(self.batch_size, EDGE_BATCH), new_starts=new_starts,
                counts=kind.rel_type,
            )  # fmt: skip
        sent.update(lists)
        self._rows_sent[kind.rel_type] += rows
        self._written[kind.rel_type] += written

    def _count_edges(self, rows_sent: Counter[str], written: Counter[str]) -> None:
        """The relationship counts of a flush (every reply read) into the report."""
        for rel_type, rows in rows_sent.items():
            got = written[rel_type]
            self.report.relationships[rel_type] += got
            if got < rows:
                self.report.skipped_relationships[rel_type] += rows - got
                log.warning(
                    "%d %s relationship(s) skipped: endpoint not in the graph", rows - got,
                    rel_type,
                )  # fmt: skip

    def _merge_grouped(self, kind: _EdgeKind, rows: list[dict[str, Any]]) -> int:
        # rows that share their properties go together: the store sends such a group as
        # [start, end] pairs and one property map (every OpenAlex reference is
        # {from_openalex: true}); the others as before
        groups: dict[Any, list[dict[str, Any]]] = {}
        if not kind.merge_key:
            seen: dict[int, Any] = {}  # a map many rows share is keyed once
            for row in rows:
                props = row["props"]
                key = seen.get(id(props), seen)
                if key is seen:
                    try:
                        key = frozenset(props.items())
                    except TypeError:  # a list value: not shared, sent row by row
                        key = None
                    seen[id(props)] = key
                groups.setdefault(key, []).append(row)
            small = [key for key, group in groups.items() if key is not None and len(group) < 64]
            for key in small:  # few rows: not worth a statement of their own
                groups.setdefault(None, []).extend(groups.pop(key))
        else:
            groups[None] = rows
        new = self._new.get(kind.start_label)
        sent = self._sent_from[kind.rel_type]
        new_starts = new - sent if new and not kind.merge_key else frozenset()
        written = 0
        for group in groups.values():
            written += self._write_ahead(
                self.store.merge_relationships,
                kind.rel_type, kind.start_label, kind.end_label, group,
                batch_size=max(self.batch_size, EDGE_BATCH), key=kind.merge_key,
                new_starts=new_starts, counts=kind.rel_type,
            )  # fmt: skip
        sent.update(row["start"] for row in rows)
        return written

    def _flush_aliases(self, kind: _EdgeKind, rows: list[dict[str, Any]]) -> int:
        """``ALIAS_OF`` rows (``identity.alias_records``): the alias node and its edge in one
        statement (``identity/write_aliases``), so an interrupted load never leaves an alias
        without its edge; the alias nodes it creates join the undo list."""
        aliases = [{"id": r["start"], "of": r["end"]} for r in rows]
        self._note_created(kind.start_label, [{"id": r["id"]} for r in aliases])
        written = 0
        for batch in chunked(aliases, self.batch_size):
            result = self._store_call(
                self.store.run_named, "identity/write_aliases", {"rows": batch},
                label=kind.end_label, label_alias=kind.start_label,
            )  # fmt: skip
            written += int(result[0]["written"]) if result else 0
        self.report.nodes[kind.start_label] += len(aliases)
        return written

    def flush(self, *, then: Callable[[], None] | None = None) -> WriteReport:
        """Send everything buffered and wait for every reply. With ``then``, do not wait:
        ``then()`` is called once every statement of the flush has answered without an
        error (on a store that writes ahead: when the next call that reaches the server
        reads their replies; at once on one that does not), never if one failed; the
        flush's relationship counts reach the report just before."""
        self._flush_nodes()
        for key in list(self._edges):
            self._flush_edges(key)
        for kind in list(self._unchanged):  # kinds whose rows were all held already
            self._flush_edges(kind)
        if self._lists:  # no CITES row beside them
            self._flush_edges(_CITES_KIND)
        for rel_type in list(self._also):
            self._flush_also(rel_type)
        # this flush's counts: late ones still arrive in ``written`` (its writes captured it)
        rows_sent, written = self._rows_sent, self._written
        self._rows_sent, self._written = Counter(), Counter()

        # what this flush leaves created, for a mark() its late ``then`` calls: by then the
        # next flush may have put nodes of its own on the undo list (a statement run beside
        # relationship writes reads before this flush's last replies)
        created = {label: set(ids) for label, ids in self._created.items() if ids}

        def counted() -> None:
            self._count_edges(rows_sent, written)
            if then is not None:
                self._marking = created
                try:
                    then()
                finally:
                    self._marking = None

        if self._ahead is not None:  # a flush that wrote nothing: what resolution held
            self._call(self._ahead.send_held)
        if self._ahead is None:
            counted()
        elif then is None:  # every reply read before a checkpoint claims the records
            self._store_call(self._ahead.settle)
            counted()
        else:
            self._ahead.when_settled(counted)
        self._new.clear()  # statements of others may run before the next flush
        self._sent_from.clear()
        if self.progress:
            self.progress(self.report.records)
        return self.report


def write_records(
    store: GraphStore,
    records: Iterable[NodeRecord | EdgeRecord | ReferenceList | UnchangedEdge],
    *,
    batch_size: int = 5_000,
    progress: Callable[[int], None] | None = None,
) -> WriteReport:
    """Write every record; returns what was written and what was skipped."""
    return RecordWriter(store, batch_size=batch_size, progress=progress).add_all(records)

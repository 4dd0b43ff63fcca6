"""The write half of ``GraphStore``, written once for both backends.

``merge_nodes``, ``merge_relationships``, ``write_batches``, ``set_vectors``,
``run_named`` and ``write_named`` do the same thing on FalkorDB and Neo4j: validate rows,
render the shared openCypher (``cypher_common``) or the dialect's text, send ``UNWIND $rows``
batches and count what the server reports written. Only *sending* a statement differs, so a backend
subclasses :class:`BatchWriteStore` and provides :meth:`_send` and :meth:`_count_written`
(and, if it needs indexes before MERGE, :meth:`_prepare_labels`).

*Writing ahead* (:meth:`BatchWriteStore.writes_ahead`): a backend may send a write statement
and return before its reply, so the caller's Python (the next batch's rows, their encoding,
the next records) runs while the server executes it. The statements run in the order they
were sent and none after one that failed, so its error is its own; the next call that
reaches the server reads every reply first. A count reaches the ``written`` callback when
its reply is read; :meth:`BatchWriteStore.settle` reads them at once, and
:meth:`BatchWriteStore.when_settled` calls back once they are read without an error (the
load's checkpoint is saved then, never before). A backend that does not write ahead (the
default; both stores override it) answers every statement at once and returns its counts as
before.

*Held writes* (:meth:`BatchWriteStore.hold_until_write`): a write a caller knows no read
until the next write depends on may be held back and sent just before that write
(:meth:`BatchWriteStore.send_held`), so the reads in between do not wait behind it. Identity
resolution holds a chunk's prunes and unmarks this way; the record writer's existence reads
come next, then its writes, which send them first. The store does not decide what depends
on what: whoever holds a write and whoever reads next agree on it (``loaders/identity.py``,
``loaders/writer.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any, NamedTuple, TypeVar

import numpy as np

from scholarkg.errors import InputError
from scholarkg.store.base import ProgressFn
from scholarkg.store.cypher_common import (
    check_params,
    chunked,
    clean_props,
    create_grouped_query,
    delete_nodes_query,
    existing_ids_query,
    merge_nodes_query,
    merge_pairs_query,
    merge_relationships_query,
    node_rows,
    rel_rows,
    run_batches,
)
from scholarkg.store.cypher_text import writes
from scholarkg.store.named import render_named, without_empty_branches
from scholarkg.store.vector_batches import VectorBatch, prepared_ahead

_Prepared = TypeVar("_Prepared")


def one_row_per_node(batch: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``batch``'s ``{id, props}`` rows with one row per id, later rows' properties over
    earlier ones', in the order ids first appear.

    Why: the backends disagree on ``UNWIND`` + ``MERGE`` over one id twice in a statement.
    Neo4j applies each row's ``SET`` in turn (the last value stays); FalkorDB keeps the
    first row's values. Sent one statement per row, both keep the last. Folding the rows
    here gives every backend and every batch size the last record's values.
    """
    folded: dict[str, dict[str, Any]] = {}
    for row in batch:
        have = folded.get(row["id"])
        if have is None:
            folded[row["id"]] = row
        else:
            folded[row["id"]] = {**have, "props": {**have["props"], **row["props"]}}
    return list(folded.values()) if len(folded) < len(batch) else batch


def checked_pairs(batch: Sequence[tuple[str, str]], done: int = 0) -> list[list[str]]:
    """``batch``'s (start id, end id) pairs as stripped ``[start, end]`` lists; a blank
    endpoint is an ``InputError`` naming the row (1-based, counting the ``done`` rows of the
    batches before)."""
    rows = [[str(a).strip(), str(b).strip()] for a, b in batch]
    for i, (a, b) in enumerate(rows, done + 1):
        if not a or not b:
            raise InputError(
                "relationship record without an endpoint id",
                line=i, field="start" if not a else "end",
            )  # fmt: skip
    return rows


class BatchWriteStore:
    """Shared writes; subclasses set ``_dialect`` and ``_vector_props`` and send statements."""

    #: the dialect module (``DIALECT``, ``set_vectors_query``)
    _dialect: ModuleType
    #: vector properties this store knows of; left out of search hits
    _vector_props: set[str]

    # -- what a backend provides -------------------------------------------------------
    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        raise NotImplementedError

    def _send(self, query: str, params: Mapping[str, Any]) -> Any:
        """Run one write statement; returns the driver's raw result."""
        raise NotImplementedError

    def _count_written(self, result: Any) -> int:
        """The count a ``RETURN count(…) AS written`` statement produced: its first column
        (``deleted``, ``unmarked`` … count the same way)."""
        raise NotImplementedError

    def _prepare_labels(self, *labels: str) -> None:
        """Hook before MERGE on ``labels`` (FalkorDB creates the ``id`` index lazily)."""

    def _send_counted(self, query: str, params: Mapping[str, Any]) -> int:
        """Run one ``RETURN count(…) AS written`` statement; its count (0 when the backend
        writes it ahead: the count then goes to :meth:`writes_ahead`'s ``written``)."""
        return self._count_written(self._send(query, params))

    @contextmanager
    def writes_ahead(
        self, written: Callable[[int], None], failed: Callable[[], None]
    ) -> Iterator[None]:
        """Within the block, the write statements of ``merge_nodes``,
        ``merge_relationships``, ``write_named`` and ``write_batches`` may be answered
        later: the counts of those not answered when the call returns are passed to
        ``written`` once their replies are read (the call's own return value leaves them
        out), and ``failed()`` is called before a late reply's error is raised, wherever
        it surfaces. Replies are read in the order the statements were sent, by the next
        call that reaches the server or by :meth:`settle` (a statement run beside
        relationship writes, :meth:`run_named_beside_relationships`, reads those it must
        follow and those already in). This default answers every statement at once
        (``written`` is never called)."""
        yield

    #: inside :meth:`writes_ahead` of a store that writes ahead: its ``written`` and
    #: ``failed`` callbacks (:meth:`_writing_ahead_to`)
    _ahead_to: tuple[Callable[[int], None], Callable[[], None]] | None = None

    @contextmanager
    def _writing_ahead_to(
        self, written: Callable[[int], None], failed: Callable[[], None]
    ) -> Iterator[None]:
        """The callbacks of a :meth:`writes_ahead` block, the outer block's restored after
        it (blocks nest): what a store that writes ahead keeps for its late replies."""
        outer = self._ahead_to
        self._ahead_to = (written, failed)
        try:
            yield
        finally:
            self._ahead_to = outer

    def _ahead_prepared(
        self, params: Mapping[str, Any], prepare: Callable[[], _Prepared]
    ) -> tuple[Callable[[int], None], Callable[[], None], _Prepared]:
        """A statement about to be written ahead: the block's callbacks, and its parameters
        checked and ``prepare()``d (the Python that overlaps the statements still running).
        A bad parameter is raised only after what is unanswered was read: their error, if
        any, came first."""
        assert self._ahead_to is not None
        written, failed = self._ahead_to
        try:
            check_params(params)
            return written, failed, prepare()
        except BaseException:
            self.settle()
            raise

    def settle(self) -> None:
        """Read the reply of a statement written ahead (raising its error); a no-op when
        none is unanswered."""

    @contextmanager
    def loading(self) -> Iterator[None]:
        """A load runs inside this block: many write statements into a graph that may hold
        data, with reads between them. The embedded store tunes how often its server merges
        pending matrix changes for it (``falkordb/pending_changes.py``); this default does
        nothing."""
        yield

    def labels_removed(self) -> None:
        """Called after statements that took labels off nodes (a stub described), inside
        :meth:`loading`. The embedded store settles what they left pending in its server's
        node-label matrix (``falkordb/pending_changes.py``); this default does nothing."""

    def when_settled(self, then: Callable[[], None]) -> None:
        """Call ``then()`` once every statement written ahead so far has answered without
        an error (when their replies are read: the next call that reaches the server, or
        :meth:`settle`), and never if one of them failed. This default reads what is
        unanswered first (:meth:`settle`: a store writing ahead one statement at a time, as
        the managed Neo4j does, raises its error there), then calls it."""
        self.settle()
        then()

    # -- held writes -------------------------------------------------------------------
    #: the sends held back by :meth:`hold_until_write`, in the order they were held
    _held: list[Callable[[], None]] | None = None

    def hold_until_write(self, send: Callable[[], None]) -> None:
        """Hold ``send`` (one write, written ahead when it runs) until :meth:`send_held`.

        Why: a write the next reads cannot see the difference of need not run before them.
        The loading thread then reads without waiting for the server to finish it, and the
        server runs it while the thread builds the writes that follow (a quarterly-style
        update's prunes and unmarks had the writer's first read of each chunk wait ~0.4 s).
        The caller keeps the order it needs by calling :meth:`send_held` before any write,
        and before any read that could see what the held writes change."""
        if self._held is None:
            self._held = []
        self._held.append(send)

    def send_held(self) -> None:
        """Send the held writes, in the order they were held (a no-op when none is held).
        All are taken off first: a send that reaches this again (a write sends what is held
        before it) finds nothing left to send out of order."""
        held, self._held = self._held, None
        for send in held or ():
            send()

    def drop_held(self) -> list[Callable[[], None]]:
        """Forget the held writes, unsent (a failed load rolled back: ``--resume`` writes
        their chunk again); returns them."""
        held, self._held = self._held or [], None
        return held

    # -- shared ------------------------------------------------------------------------
    @property
    def dialect(self) -> str:
        """The dialect of the named queries this store runs (``falkordb``, ``neo4j``)."""
        return str(self._dialect.DIALECT)

    def run_named(
        self, name: str, params: Mapping[str, Any] | None = None, **identifiers: str
    ) -> list[dict[str, Any]]:
        query = without_empty_branches(name, render_named(name, self.dialect, identifiers), params)
        return [] if query is None else self.run(query, params)

    #: whether :meth:`read_named_ahead` returns before the server answers (a store that
    #: writes ahead queues it); this default runs the read at once
    reads_ahead: bool = False

    def read_named_ahead(
        self, name: str, params: Mapping[str, Any], **identifiers: str
    ) -> Callable[[], list[dict[str, Any]]]:
        """The named read ``name`` sent now, its rows returned by the function handed back:
        :meth:`run_named`'s rows, as the graph stands after every statement sent before it
        (and before any written ahead after it; a statement the caller runs itself
        meanwhile may reach the server first). A store that writes ahead queues it behind
        those statements and goes on, so the server runs it while the caller's Python does;
        this default runs it at once. Its error (or an earlier statement's) is raised where
        its reply is read: by the function, or by the next call that reaches the server."""
        rows = self.run_named(name, params, **identifiers)
        return lambda: rows

    #: whether :meth:`run_named_beside_relationships` runs a statement before the
    #: relationship writes written ahead have answered (it needs their end ids)
    reads_beside_relationships: bool = False

    def run_named_beside_relationships(
        self,
        name: str,
        params: Mapping[str, Any] | None = None,
        *,
        reads: frozenset[str] = frozenset(),
        ids: Collection[str] | None = None,
        **identifiers: str,
    ) -> list[dict[str, Any]]:
        """:meth:`run_named` of a statement that relationships written ahead cannot change
        the result of, nor be changed by, unless they are of a type in ``reads`` or (with
        ``ids``) start or end at one of the nodes ``ids``: it sees nodes' labels and
        properties, and relationships of those types anywhere, or (``ids``) only at those
        nodes. A store that writes ahead may run it while such relationships are still being
        written (:attr:`reads_beside_relationships`); this default waits for every
        statement, as :meth:`run_named` does.

        A statement that writes waits for every statement: had a write it passed failed after
        it ran, the load would stop with its change in the graph, and a write that something
        must complete (a rename whose old key only an alias written next keeps findable)
        would be left half done. (A write that leaves the graph whole by itself is written
        ahead instead, in order, and waited for by nobody: identity resolution's renames on
        a store that reads beside relationship writes.)"""
        query = without_empty_branches(name, render_named(name, self.dialect, identifiers), params)
        if query is None:
            return []
        if writes(query):
            return self.run(query, params)
        return self._run_beside(query, params, reads, None if ids is None else frozenset(ids))

    def _run_beside(
        self,
        query: str,
        params: Mapping[str, Any] | None,
        reads: frozenset[str],
        ids: frozenset[str] | None,
    ) -> list[dict[str, Any]]:
        """:meth:`run_named_beside_relationships` of a rendered statement; this default
        :meth:`run`s it."""
        return self.run(query, params)

    def send_named(
        self, name: str, params: Mapping[str, Any] | None = None, **identifiers: str
    ) -> None:
        """Run the named write ``name`` once with ``params``, its rows not read: under
        :meth:`writes_ahead` it may be answered later, like the other writes."""
        self._send(render_named(name, self.dialect, identifiers), params or {})

    def send_named_counted(self, name: str, params: Mapping[str, Any], **identifiers: str) -> int:
        """:meth:`send_named` of a statement whose one row is a count (``RETURN count(…)``):
        the count, or 0 under :meth:`writes_ahead` when it is answered later (the count then
        goes to the block's ``written``)."""
        return self._send_counted(render_named(name, self.dialect, identifiers), params)

    def write_named(
        self,
        name: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
        **identifiers: str,
    ) -> int:
        query = render_named(name, self.dialect, identifiers)
        return self.write_batches(query, rows, batch_size=batch_size, progress=progress)

    def write_batches(
        self,
        query: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int:
        def send(batch: list[dict[str, Any]]) -> int:
            self._send(query, {"rows": batch})
            return len(batch)

        return run_batches(send, rows, batch_size=batch_size, progress=progress)[0]

    def _write_counted(
        self,
        query: str,
        rows: Iterable[Mapping[str, Any]],
        batch_size: int,
        progress: ProgressFn | None = None,
    ) -> int:
        """Send batches of a ``RETURN count(…) AS written`` statement; the total written."""

        def send(batch: list[dict[str, Any]]) -> int:
            return self._send_counted(query, {"rows": batch})

        return run_batches(send, rows, batch_size=batch_size, progress=progress)[1]

    def merge_nodes(
        self,
        label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
    ) -> int:
        query = self._merge_nodes_query(label)
        self._prepare_labels(label)

        def send(batch: list[dict[str, Any]]) -> int:
            self._send(query, {"rows": one_row_per_node(batch)})
            return len(batch)

        return run_batches(send, node_rows(rows, label), batch_size=batch_size,
                           progress=progress)[0]  # fmt: skip

    def _merge_nodes_query(self, label: str) -> str:
        """The statement :meth:`merge_nodes` sends (a backend may write only what changed)."""
        return merge_nodes_query(label)

    def merge_relationships(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int = 10_000,
        progress: ProgressFn | None = None,
        key: Sequence[str] = (),
        new_starts: Collection[str] = frozenset(),
    ) -> int:
        ends: frozenset[str] | None = None
        if self.reads_beside_relationships and isinstance(rows, list):
            # A streamed iterable is not materialised to learn its ends: that would
            # hold the whole stream in memory; unknown ends only make reads wait.
            ends = relationship_ends(rows)
        with self._writing_relationships(rel_type, ends):
            return self._merge_relationships(
                rel_type, start_label, end_label, rows,
                batch_size=batch_size, progress=progress, key=key, new_starts=new_starts,
            )  # fmt: skip

    #: while :meth:`merge_relationships` sends its statements: what they write (they
    #: change relationships of one type and nothing else), else ``None``
    _relationship_writes: RelationshipWrites | None = None

    @contextmanager
    def _writing_relationships(self, rel_type: str, ends: frozenset[str] | None) -> Iterator[None]:
        """:attr:`_relationship_writes` set while the statements of one call are sent."""
        outer = self._relationship_writes
        self._relationship_writes = RelationshipWrites(rel_type, ends)
        try:
            yield
        finally:
            self._relationship_writes = outer

    def merge_relationship_lists(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        lists: Mapping[str, Mapping[str, str]],
        props: Mapping[str, Any],
        *,
        batch_size: int = 10_000,
        new_starts: Collection[str] = frozenset(),
    ) -> int:
        """:meth:`merge_relationships` of rows given as lists: ``lists`` maps each start id
        to its end ids (so each pair once), every relationship getting ``props``; an end's
        value is the internal node id a look-up read for it (``""``: none), a hint as a
        row's ``node`` is. The same relationships, properties and count as those rows.

        Why: the record writer's ``CITES`` of reference lists are ~20 a work, all with one
        property map. As rows they were a dict each, then walked by a pass per step (their
        ends, the shared map, the pairs, the hints, the check, the grouping by start): ~2.4
        CPU-s of the loading thread in a 22,000-work update, for a grouping by start the
        lists already have. Ids that are not plain (blank, padded, not text) or a map that
        is not one of scalars go the rows' way, whose checks name the row."""
        ids = frozenset(lists).union(*lists.values())
        if not _plain_lists(ids, props):
            rows = [
                {"start": start, "end": end, "props": props}
                for start, ends in lists.items()
                for end in ends
            ]
            return self.merge_relationships(
                rel_type, start_label, end_label, rows,
                batch_size=batch_size, new_starts=new_starts,
            )  # fmt: skip
        # the ids checked are the ends of the reads beside these writes (where there are any)
        ends = ids if self.reads_beside_relationships else None
        with self._writing_relationships(rel_type, ends):
            return self._merge_lists(
                rel_type, start_label, end_label, lists, clean_props(props),
                batch_size=batch_size, new_starts=new_starts,
            )  # fmt: skip

    def _merge_lists(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        lists: Mapping[str, Mapping[str, str]],
        props: dict[str, Any],
        *,
        batch_size: int,
        new_starts: Collection[str],
    ) -> int:
        """:meth:`merge_relationship_lists` once its ids are checked: the lists of
        ``new_starts`` CREATEd in groups as :meth:`_create_then_merge` does (ends with a
        node hint taken by node where the backend does), the others MERGEd as pairs."""
        created = (
            [start for start in lists if start in new_starts]
            if new_starts and self._creates_from_new_starts
            else []
        )
        written = 0
        if created:
            keyed: list[list[Any]] = []
            noded: list[list[Any]] = []
            by_node = self._takes_ends_by_node
            for start in created:
                ends = lists[start]
                found = [end for end, node in ends.items() if node] if by_node else []
                if not found:
                    keyed.append([start, list(ends)])
                    continue
                if len(found) < len(ends):
                    keyed.append([start, [end for end, node in ends.items() if not node]])
                # two flat lists, not [node, end] pairs: a list of strings is sent as one
                # join (falkordb/wire.py), a list of lists one value at a time
                noded.append([start, found, [ends[end] for end in found]])
            self._prepare_labels(start_label, end_label)
            if keyed:
                query = create_grouped_query(rel_type, start_label, end_label)
                written += self._send_groups(query, keyed, batch_size, {"props": props})
            if noded:
                query = self._grouped_by_node_query(rel_type, start_label, end_label)
                written += self._send_groups(query, noded, batch_size, {"props": props})
        if len(created) < len(lists):
            done = set(created)
            pairs = [
                (start, end) for start, ends in lists.items() if start not in done for end in ends
            ]
            written += self._merge_pairs(
                rel_type, start_label, end_label, pairs, props, batch_size=batch_size
            )
        return written

    def _merge_relationships(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        batch_size: int,
        progress: ProgressFn | None,
        key: Sequence[str],
        new_starts: Collection[str],
    ) -> int:
        if not key and progress is None:
            rows = rows if isinstance(rows, list) else list(rows)
            shared = shared_props(rows)
            if shared is not None:
                pairs = [(r["start"], r["end"]) for r in rows]
                if new_starts and self._creates_from_new_starts:
                    return self._create_then_merge(
                        rel_type, start_label, end_label, pairs, shared, new_starts, batch_size,
                        nodes=self._end_nodes(rows),
                    )  # fmt: skip
                return self._merge_pairs(
                    rel_type, start_label, end_label, pairs, shared, batch_size=batch_size
                )
            if new_starts and self._creates_from_new_starts:
                return self._create_rows_then_merge(
                    rel_type, start_label, end_label, rows, new_starts, batch_size
                )
        return self._merge_rows(
            rel_type, start_label, end_label, rows,
            key=key, batch_size=batch_size, progress=progress,
        )  # fmt: skip

    def _merge_rows(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        rows: Iterable[Mapping[str, Any]],
        *,
        key: Sequence[str],
        batch_size: int,
        progress: ProgressFn | None,
    ) -> int:
        """:meth:`merge_relationships` for rows that carry their own properties, one MERGE
        per row (a backend may send them its own way: Neo4j groups them by start node)."""
        query = merge_relationships_query(rel_type, start_label, end_label, key)
        self._prepare_labels(start_label, end_label)
        return self._write_counted(query, rel_rows(rows, key), batch_size, progress)

    def _merge_pairs(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        pairs: Sequence[tuple[str, str]],
        props: Mapping[str, Any],
        *,
        batch_size: int = 10_000,
    ) -> int:
        """:meth:`merge_relationships` for rows that all get the properties ``props``:
        ``pairs`` of (start id, end id), sent as lists (``cypher_common.merge_pairs_query``).
        A blank endpoint is an ``InputError`` naming the row (1-based), as there."""
        query = merge_pairs_query(rel_type, start_label, end_label)
        self._prepare_labels(start_label, end_label)
        clean = clean_props(props)
        written = 0
        done = 0
        for batch in chunked(pairs, batch_size):
            rows = checked_pairs(batch, done)
            written += self._send_pairs(query, rows, clean)
            done += len(rows)
        return written

    #: ``merge_relationships(new_starts=…)`` CREATEs those rows (Neo4j decides that on the
    #: server: ``neo4j/dialect.merge_grouped_relationships_query``)
    _creates_from_new_starts = True

    #: rows' ``node`` hints (the internal node id a look-up read for the end: the writer's
    #: ``CITES`` of references it found) are used: :meth:`_grouped_by_node_query` takes such
    #: ends by node. Off where the backend has no such statement (Neo4j's look-up reads no
    #: node), and its rows carry none anyway.
    _takes_ends_by_node = False

    def _grouped_by_node_query(self, rel_type: str, start_label: str, end_label: str) -> str:
        """The backend's :func:`~scholarkg.store.cypher_common.create_grouped_query` whose
        ends are taken by their internal node id and checked against the id they carry
        (``[start id, [end id, …], [node, …]]`` groups), where :attr:`_takes_ends_by_node`."""
        raise NotImplementedError(type(self).__name__)

    def _end_nodes(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, str] | None:
        """End id → the internal node id a row hints for it, where the backend takes ends by
        it and some row hints one."""
        if not self._takes_ends_by_node:
            return None
        nodes = {r["end"]: r["node"] for r in rows if "node" in r}
        return nodes or None

    def _create_then_merge(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        pairs: Sequence[tuple[str, str]],
        props: Mapping[str, Any],
        new_starts: Collection[str],
        batch_size: int,
        *,
        nodes: Mapping[str, str] | None = None,
    ) -> int:
        """Shared-property rows whose start node is in ``new_starts`` (created by the caller,
        no ``rel_type`` relationship from it yet) by ``create_grouped_query``, the rest (and
        a pair seen again) after them by :meth:`_merge_pairs`: the same relationships and
        the same count as MERGE. Every row is checked first, so a blank endpoint names the
        same row as without ``new_starts``.

        ``nodes``: end id → its internal node id as a look-up read it (:meth:`_end_nodes`);
        those ends are taken by node (:meth:`_grouped_by_node_query`), checked to carry
        their id still. Why: seeking an end in the id index was most of the server's cost
        of a new work's ``CITES`` (``bench_relationship_ends.py``). The check keeps the
        graph what the seek gives as long as the node that held the id when read holds it
        when written, which the identity resolver guarantees for its own load (a merge,
        the one statement of a load that deletes a Paper, drops every node it read:
        ``IdentityResolver._nodes``); a row whose node no longer carries its id is not
        written, as a row whose end is gone is not."""
        rows = checked_pairs(pairs)
        groups: dict[str, dict[str, None]] = {}
        rest: list[tuple[str, str]] = []
        for start, end in rows:
            ends = groups.setdefault(start, {}) if start in new_starts else None
            if ends is None or end in ends:  # a pair again: MERGEd onto the one CREATEd
                rest.append((start, end))
            else:
                ends[end] = None
        written = 0
        if groups and nodes:
            keyed: list[list[Any]] = []
            noded: list[list[Any]] = []
            for start, ends in groups.items():
                by_id = [end for end in ends if end not in nodes]
                if by_id:
                    keyed.append([start, by_id])
                if len(by_id) < len(ends):
                    found = [end for end in ends if end in nodes]
                    # two flat lists, not [node, end] pairs: a list of strings is sent as
                    # one join (falkordb/wire.py), a list of lists one value at a time
                    noded.append([start, found, [nodes[end] for end in found]])
            self._prepare_labels(start_label, end_label)
            clean = clean_props(props)
            if keyed:
                query = create_grouped_query(rel_type, start_label, end_label)
                written += self._send_groups(query, keyed, batch_size, {"props": clean})
            if noded:
                query = self._grouped_by_node_query(rel_type, start_label, end_label)
                written += self._send_groups(query, noded, batch_size, {"props": clean})
        elif groups:
            query = create_grouped_query(rel_type, start_label, end_label)
            self._prepare_labels(start_label, end_label)
            written += self._send_groups(
                query, [[start, list(ends)] for start, ends in groups.items()], batch_size,
                {"props": clean_props(props)},
            )  # fmt: skip
        if rest:
            written += self._merge_pairs(
                rel_type, start_label, end_label, rest, props, batch_size=batch_size
            )
        return written

    def _create_rows_then_merge(
        self,
        rel_type: str,
        start_label: str,
        end_label: str,
        rows: Sequence[Mapping[str, Any]],
        new_starts: Collection[str],
        batch_size: int,
    ) -> int:
        """:meth:`_create_then_merge` for rows that carry their own properties: those whose
        start is in ``new_starts`` CREATEd in ``[start, [[end, props], …]]`` groups
        (``create_grouped_query(own_props=True)``), the rest after them by :meth:`_merge_rows`; the
        same relationships, properties and count as a MERGE a row. A (start, end) pair seen
        twice sends them all by :meth:`_merge_rows`, row by row as before (the record writer
        folds a batch's repeats, so that is only a guard).

        Why: a MERGE a row (two index seeks, the match of the pattern, the ``SET``) cost the
        embedded server 16-23 µs an ``AUTHORED_BY`` row in an update of 22,000 works into
        200,000 (``bench_openalex_server_time.py``), nearly all of them from works the
        update describes for the first time; grouped and CREATEd, one seek of the work a
        group and none of the pattern."""
        checked = list(rel_rows(rows))  # every row checked first: its InputError names it
        groups: dict[str, list[list[Any]]] = {}
        rest: list[dict[str, Any]] = []
        seen: set[tuple[str, str]] = set()
        for row in checked:
            start, end = row["start"], row["end"]
            if (start, end) in seen:
                groups, rest = {}, checked
                break
            seen.add((start, end))
            if start in new_starts:
                groups.setdefault(start, []).append([end, row["props"]])
            else:
                rest.append(row)
        written = 0
        if groups:
            query = create_grouped_query(rel_type, start_label, end_label, own_props=True)
            self._prepare_labels(start_label, end_label)
            written += self._send_groups(
                query, [[start, ends] for start, ends in groups.items()], batch_size
            )
        if rest:
            written += self._merge_rows(
                rel_type, start_label, end_label, rest,
                key=(), batch_size=batch_size, progress=None,
            )  # fmt: skip
        return written

    def _send_groups(
        self,
        query: str,
        groups: list[list[Any]],
        batch_size: int,
        params: Mapping[str, Any] | None = None,
    ) -> int:
        """Send ``create_grouped_query``'s ``[start, ends]`` groups, a statement each time
        ``batch_size`` relationships are reached (a group is never split); the counts added.
        ``params``: the statement's other parameters (the shared ``props``)."""
        written = 0
        batch: list[list[Any]] = []
        size = 0
        for i, group in enumerate(groups, 1):
            batch.append(group)
            size += len(group[1])
            if size >= batch_size or i == len(groups):
                written += self._send_counted(query, {"groups": batch, **(params or {})})
                batch, size = [], 0
        return written

    def _send_pairs(self, query: str, pairs: list[list[str]], props: dict[str, Any]) -> int:
        """Send one :func:`merge_pairs_query` batch; its count (as :meth:`_send_counted`)."""
        return self._send_counted(query, {"pairs": pairs, "props": props})

    def existing_ids(self, label: str, ids: Iterable[str], *, batch_size: int = 10_000) -> set[str]:
        """The subset of ``ids`` that exist as ``label`` nodes."""
        query = existing_ids_query(label)
        self._prepare_labels(label)
        found: set[str] = set()
        for batch in chunked(ids, batch_size):
            # whether a node exists no relationship write changes: run beside them
            found.update(
                str(r["id"]) for r in self._run_beside(query, {"ids": batch}, frozenset(), None)
            )
        return found

    def delete_nodes(self, label: str, ids: Iterable[str], *, batch_size: int = 10_000) -> int:
        """Delete ``label`` nodes by id with their relationships; returns how many."""
        query = delete_nodes_query(label)
        deleted = 0
        for batch in chunked(ids, batch_size):
            rows = self.run(query, {"ids": batch})
            deleted += int(rows[0]["deleted"]) if rows else 0
        return deleted

    def set_vectors(
        self,
        label: str,
        property: str,
        rows: Iterable[tuple[str, Sequence[float] | np.ndarray]],
        *,
        extra: Mapping[str, Mapping[str, Any]] | None = None,
        batch_size: int = 2_000,
    ) -> int:
        """Batches checked and formatted one ahead in a worker thread while the server
        writes the one before (``vector_batches.prepared_ahead``)."""
        query = self._dialect.set_vectors_query(label, property)
        self._vector_props.add(property)
        return sum(
            self._send_vector_payload(payload)
            for payload in prepared_ahead(
                rows, extra, batch_size, lambda batch: self._vector_payload(query, batch)
            )
        )

    def _send_vectors(self, query: str, batch: VectorBatch) -> int:
        """One ``set_vectors_query`` batch, formatted and sent in this thread."""
        return self._send_vector_payload(self._vector_payload(query, batch))

    def _vector_payload(self, query: str, batch: VectorBatch) -> tuple[str, dict[str, Any] | None]:
        """``(query, params)`` of one batch; each vector travels as the dialect's text
        (``vector_param``): one string per vector, not one encoded value per component.
        Pure formatting (run in ``prepared_ahead``'s worker thread)."""
        rows = [
            {"id": i, "v": self._dialect.vector_param(v), "extra": e}
            for i, v, e in zip(batch.ids, batch.vectors, batch.extras, strict=True)
        ]
        return query, {"rows": rows}

    def _send_vector_payload(self, payload: tuple[str, dict[str, Any] | None]) -> int:
        query, params = payload
        return self._count_written(self._send(query, params or {}))


class RelationshipWrites(NamedTuple):
    """What the statements :meth:`BatchWriteStore.merge_relationships` sends write: only
    relationships of ``rel_type``, between the nodes ``ends`` (``None``: not known)."""

    rel_type: str
    ends: frozenset[str] | None


def relationship_ends(rows: Sequence[Mapping[str, Any]]) -> frozenset[str] | None:
    """The start and end ids of relationship rows, stripped as the statements send them
    (``rel_rows``, ``checked_pairs``): a row naming ``" openalex:W2"`` writes an edge of
    ``openalex:W2``. ``None`` when one is not a string (such a row is refused later, by the
    checks that name it)."""
    try:
        ends = frozenset(r["start"] for r in rows) | frozenset(r["end"] for r in rows)
    except (KeyError, TypeError):
        return None
    if not all(type(e) is str for e in ends):
        return None
    return frozenset(e.strip() for e in ends)


def _plain_lists(ids: frozenset[Any], props: Mapping[str, Any]) -> bool:
    """Whether :meth:`BatchWriteStore.merge_relationship_lists` may send lists whose start
    and end ids are ``ids`` as they are: every id non-blank text without surrounding space
    (what ``checked_pairs`` would make of it unchanged) and ``props`` a map of scalars
    (``shared_props``)."""
    if any(isinstance(v, Mapping | list | tuple) for v in props.values()):
        return False
    return all(type(i) is str and i and not i[0].isspace() and not i[-1].isspace() for i in ids)


def shared_props(rows: list[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The ``props`` map every row of ``rows`` (``{start, end, props}``) carries, when they
    all carry an equal one of scalars (the writer groups a batch's rows so: every OpenAlex
    reference is ``{from_openalex: true}``); else ``None``. A row may also carry its end's
    ``node`` (a hint, not a property: ``RecordWriter._add_references``)."""
    if not rows:
        return None
    first = rows[0].get("props")
    if (
        "start" not in rows[0]
        or not isinstance(first, dict)
        or any(isinstance(v, Mapping | list | tuple) for v in first.values())
    ):
        return None
    for r in rows:
        props = r.get("props")
        if (props is not first and props != first) or "end" not in r:
            return None
        if len(r) != 3 and (len(r) != 4 or "node" not in r):
            return None
    return first

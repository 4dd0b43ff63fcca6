"""``GraphStore`` on FalkorDB (the embedded default), over the native RESP client.

The writes both backends share live in ``batch_writes.py`` (row checks and MERGE text in
``cypher_common.py``), FalkorDB spellings in ``falkordb/dialect.py``; this module only sends
statements and turns replies into plain dicts. Numeric
contracts (PageRank) are computed beside the database with the GDS-identical scipy
implementation, because FalkorDB's ``algo.pageRank`` has different semantics
(the Neo4j GDS manual, PageRank).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import threading
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from scholarkg.errors import (
    CypherError,
    InputError,
    QueryLimitExceeded,
    ScholarKGError,
    ServerError,
    StoreError,
)
from scholarkg.schema.ddl import (
    SchemaSpec,
    VectorIndex,
    check_label,
    check_property,
    check_rel_type,
    default_schema,
    node_labels,
    rel_types,
)
from scholarkg.store.base import (
    EXPLORE_MAX_BYTES,
    VECTOR_MIN_FETCH,
    WATCHDOG_GRACE,
    EdgeSnapshot,
    ExploreResult,
    GraphCounts,
    GraphNode,
    Hit,
    PageRankConfig,
    PageRankResult,
    best_hits,
    bounded_timeout_ms,
    counted_changes,
    explore_check_limits,
    node_keys_in_chunks,
)
from scholarkg.store.batch_writes import BatchWriteStore, RelationshipWrites
from scholarkg.store.cypher_common import (
    check_params,
    chunked,
    find_fulltext_index,
    unstorable,
    without_vectors,
)
from scholarkg.store.cypher_text import (
    ShapeLimits,
    check_shape,
    has_load_csv,
    subquery_expressions,
    views,
    writes,
)
from scholarkg.store.falkordb import dialect, pending_changes, property_keys
from scholarkg.store.falkordb.crash_shapes import check_crash_shapes
from scholarkg.store.falkordb.index_options import check_index_definitions
from scholarkg.store.falkordb.joined_rows import joined_read
from scholarkg.store.falkordb.pending_changes import LOAD_PENDING_CHANGES
from scholarkg.store.falkordb.resp import (
    ConnectionLost,
    LimitedReply,
    NoAnswer,
    OverMemory,
    send_limited,
)
from scholarkg.store.falkordb.running_queries import Watch, plan_only_reads, watching
from scholarkg.store.falkordb.wire import PlainReply, params_header, plain_reply
from scholarkg.store.named import render_named, without_empty_branches

if TYPE_CHECKING:
    import falkordb
    from falkordb.query_result import QueryResult

    from scholarkg.config import Settings
    from scholarkg.store.base import QueryPlan
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.vector_batches import VectorBatch

log = logging.getLogger(__name__)

_LOST = "lost the embedded FalkorDB server ({err}); 'scholarkg db status' shows its state"
_STOPPED = (
    "the embedded server was stopped ('scholarkg db stop', or a restore) and is not started "
    "again behind that: a query it was running was not applied; 'scholarkg db start' starts it"
)
#: how long a server that dropped a query's connection may take to exit before it is taken
#: for alive (an abort on a failed allocation frees its heap first: seconds at many GB)
_DYING_GRACE = 30.0

#: what a query needs the indexes built for (a server restarted with its indexes built in
#: the background, ``EmbeddedServer.start``): writes (a MERGE finds its node by the key's
#: index) and the index procedures (``db.idx.fulltext.queryNodes`` finds nothing in an
#: index being built). Read loosely: a match in a string or a ``\u`` escape costs a wait,
#: never a wrong answer.
_NEEDS_INDEXES = re.compile(r"\b(?:CREATE|MERGE|SET|DELETE|REMOVE|idx)\b|\\u", re.IGNORECASE)
_READ_NEEDS_INDEXES = re.compile(r"\bidx\b|\\u", re.IGNORECASE)
#: how long a query waits for indexes being built after a restart
INDEX_WAIT_SECONDS = 3600.0


def _lost(err: Exception, server: EmbeddedServer | None) -> ServerError:
    """The error for a server lost midway: "was stopped" when ``db stop`` (or a restore)
    ended it on purpose, which a load or the explorer reported as a crash ("lost the
    embedded FalkorDB server … Connection reset by peer"), else "lost"."""
    if server is not None and server.stopped_on_purpose():
        return ServerError(_STOPPED)
    return ServerError(_LOST.format(err=err))


@contextmanager
def _server_lost_is_server_error(server: EmbeddedServer | None = None) -> Iterator[None]:
    """A dropped or refused connection (the server died or was stopped) as ``ServerError``:
    every call that reaches the server goes through this, so a server lost midway is one
    clear error wherever it happens, never redis' own exception."""
    import redis

    try:
        yield
    except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
        raise _lost(err, server) from err


#: Internal-id window per edge-export query: big enough that round trips do not dominate,
#: small enough that one reply stays a few tens of MB.
SNAPSHOT_WINDOW = 250_000
#: Upper bound of the over-fetch in ``vector()`` (see its docstring).
MAX_VECTOR_FETCH = 100_000
#: separator for joined application ids (ids containing it fall back to a list)
_ID_SEP = "\x1f"


def _int_array(joined: str) -> np.ndarray:
    """``'3,17,42'`` → int64 array (``''`` → empty)."""
    if not joined:
        return np.zeros(0, dtype=np.int64)
    return np.array(joined.split(","), dtype=np.int64)


#: reply values that are plain already: ``run`` passes them through without ``_plain``'s
#: imports and type tests (a look-up answering 40,000 rows of 13 columns spent most of its
#: client time there)
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """FalkorDB client objects → plain Python (nodes/edges → property dicts, paths → lists)."""
    if type(value) in _SCALARS:
        return value
    from falkordb.edge import Edge
    from falkordb.node import Node
    from falkordb.path import Path as FPath

    if isinstance(value, Node | Edge):
        return {k: _plain(v) for k, v in value.properties.items()}
    if isinstance(value, FPath):
        out: list[Any] = []
        nodes, edges = value.nodes(), value.edges()
        for i, node in enumerate(nodes):
            out.append(_plain(node))
            if i < len(edges):
                out.append(_plain(edges[i]))
        return out
    if isinstance(value, dict | OrderedDict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


#: statements written ahead and not yet read back at most (``FalkorDBStore.writes_ahead``)
#: and their parameter text at most: the queue holds each one's text until it is sent
AHEAD_STATEMENTS = 32
AHEAD_BYTES = 64 << 20


def _no_count(_: int) -> None:
    """A statement's count nobody reads (a read sent ahead)."""


def _no_failure() -> None:
    """Nothing to undo when a read sent ahead fails: its error is raised where it is read."""


#: what :meth:`FalkorDBStore.run_named_beside_relationships` runs beside: the relationship
#: types it sees anywhere, and the nodes at which it sees or changes relationships
_Beside = tuple[frozenset[str], frozenset[str] | None]


class _Ahead:
    """A write statement written ahead (:meth:`FalkorDBStore.writes_ahead`): queued for the
    sender thread, sent, answered; its reply is read back by the store's own thread."""

    __slots__ = (
        "command", "done", "error", "failed", "query", "raw", "rel_type", "reply", "sent", "side",
        "size", "text", "then", "written",
    )  # fmt: skip

    def __init__(
        self, text: str, query: str, written: Callable[[int], None] | None,
        failed: Callable[[], None],
    ) -> None:  # fmt: skip
        #: the whole statement (parameter header and query); dropped once sent
        self.text: str | None = text
        self.size = len(text)
        #: its text without the parameter header, for its error
        self.query = query
        #: gets its ``written`` count (``None``: a statement without one)
        self.written = written
        self.failed = failed
        #: set by the sender once the reply is in (or the statement was dropped)
        self.done = threading.Event()
        self.raw: Any = None
        #: what sending it or reading its reply raised (a redis exception), else ``None``
        self.error: BaseException | None = None
        #: it reached the server (``False``: dropped after a statement before it failed)
        self.sent = False
        #: called once its reply (and every one before) is read without an error
        #: (:meth:`FalkorDBStore.when_settled`)
        self.then: list[Callable[[], None]] = []
        #: a read sent ahead (:meth:`FalkorDBStore.read_named_ahead`): once the statements
        #: before it have answered, the sender hands it to a connection of its own and goes
        #: on (:class:`_Sender`); its reply, kept once read without an error
        self.side = False
        self.reply: Any = None
        #: what a statement that writes relationships of one type and nothing else writes
        #: (``BatchWriteStore.merge_relationships``), else ``None``
        self.rel_type: RelationshipWrites | None = None
        #: a server command sent in the queue's order instead of ``GRAPH.QUERY`` (a setting
        #: changed between two statements: :meth:`FalkorDBStore.labels_removed`), else ``None``
        self.command: tuple[str, ...] | None = None


def _failed_reply(raw: Any) -> bool:
    """A reply that holds an error (FalkorDB answers a runtime error inside the array)."""
    return isinstance(raw, Exception) or (
        isinstance(raw, list) and any(isinstance(part, Exception) for part in raw)
    )


class _Sender:
    """The thread that sends the statements written ahead, in order, one at a time on one
    pooled connection: it sends a statement, waits for its reply (the socket wait releases
    the GIL, so the loader's Python runs meanwhile) and only then sends the next. After a
    statement that failed (an error reply, a lost connection) it sends nothing more: what
    is queued behind it is dropped until the store has read that failure (:meth:`resume`),
    so a failed statement is the last one the server ran.

    A read sent ahead (``_Ahead.side``) goes out once every statement before it has
    answered, on a pooled connection of its own (:meth:`_send_side`), and the thread goes
    on: the store's own statements then run beside it, while the next statement of the
    queue waits for it, so the read sees every write sent before it and none written
    ahead after it, as on the managed Neo4j (``Neo4jStore.read_named_ahead``).

    Why: the read sent ahead (identity resolution's look-up of the next chunk) sat in the
    queue in front of the loading thread's next statement, which waited for it: ~1.4 s of
    a 22,000-work update of a 200,000-work graph (``py-spy --idle`` over
    ``bench_openalex.py``), where the managed Neo4j's reads sent ahead held the caller's
    statements not at all."""

    def __init__(self, pool: Any, graph: str) -> None:
        self._pool = pool
        self._graph = graph
        self._queue: deque[_Ahead | None] = deque()
        self._ready = threading.Condition(threading.Lock())
        self._stopped = False
        #: reads handed to a connection of their own and not yet answered (sender thread)
        self._reading: list[_Ahead] = []
        self._side: ThreadPoolExecutor | None = None
        self._thread = threading.Thread(
            target=self._run, name=f"falkordb-writes-ahead-{graph}", daemon=True
        )
        self._thread.start()

    def put(self, item: _Ahead | None) -> None:
        with self._ready:
            self._queue.append(item)
            self._ready.notify()

    def resume(self) -> None:
        """The store read the failure: statements queued from now on are sent again."""
        self._stopped = False

    def halt(self) -> None:
        """Send nothing more of what is queued (until :meth:`resume`): the store was
        interrupted while it read a reply that did not fail."""
        self._stopped = True

    def stop(self) -> None:
        """Send nothing more (what is queued is dropped) and end the thread; a read already
        handed to its own connection is answered first."""
        self._stopped = True
        self.put(None)
        self._thread.join()
        if self._side is not None:
            self._side.shutdown(wait=True)

    def _run(self) -> None:
        while True:
            with self._ready:
                while not self._queue:
                    self._ready.wait()
                item = self._queue.popleft()
            if item is None:
                return
            if item.side and not self._stopped:
                self._reading.append(item)
                if self._side is None:
                    self._side = ThreadPoolExecutor(2, thread_name_prefix="falkordb-read-ahead")
                self._side.submit(self._send_side, item)
                continue
            for reading in self._reading:  # a write runs after the reads sent before it
                reading.done.wait()
            self._reading.clear()
            try:
                if not self._stopped:
                    self._send(item)
                    if item.error is not None or _failed_reply(item.raw):
                        self._stopped = True
            finally:
                item.text = None
                item.done.set()

    def _send_side(self, item: _Ahead) -> None:
        """A read sent ahead, on its own connection: its failure is its own (raised where
        its rows are read) and stops nothing, since a read changes nothing."""
        try:
            self._send(item)
        finally:
            item.text = None
            item.done.set()

    def _send(self, item: _Ahead) -> None:
        import redis

        try:
            conn = self._pool.get_connection()
        except BaseException as err:  # the server is gone: nothing was sent
            item.error = err
            return
        try:
            item.sent = True
            if item.command is not None:
                conn.send_command(*item.command)
            else:
                conn.send_command("GRAPH.QUERY", self._graph, item.text, "--compact")
            item.raw = conn.read_response()
        except redis.exceptions.ResponseError as err:  # read whole: the connection is clean
            item.error = err
        except BaseException as err:  # lost or interrupted: never reused with a reply pending
            item.error = err
            conn.disconnect()
        finally:
            self._pool.release(conn)


class FalkorDBStore(BatchWriteStore):
    """One FalkorDB graph (a Redis key) behind the ``GraphStore`` protocol."""

    backend = "embedded"
    capabilities: frozenset[str] = frozenset({"fulltext", "vector"})
    #: reads sent ahead go to the sender thread's queue (:meth:`read_named_ahead`)
    reads_ahead = True
    #: no GDS catalogue: the graph algorithms run beside the store (``graphalgo/``)
    gds: None = None
    _dialect = dialect
    #: a new work's ``CITES`` take the ends its look-up found by node (``identity/
    #: lookup_papers.falkordb.cypher`` reads them; ``dialect.create_grouped_by_node_query``)
    _takes_ends_by_node = True

    def _grouped_by_node_query(self, rel_type: str, start_label: str, end_label: str) -> str:
        return dialect.create_grouped_by_node_query(rel_type, start_label, end_label)

    def __init__(
        self, db: falkordb.FalkorDB, graph: str, *, server: EmbeddedServer | None = None
    ) -> None:
        """``server``: the process behind ``db``, which a user's runaway query restarts
        (``explore``); without it such a query is reported, not stopped."""
        if not graph or any(c.isspace() for c in graph):
            raise InputError(f"invalid graph name {graph!r}")
        self.db = db
        self._server = server
        self._timeout_max: int | None = None
        self.graph = graph
        self._g = db.select_graph(graph)
        self._schema: SchemaSpec = default_schema()
        self._key_indexed: set[str] = set()
        #: vector properties this store knows of; left out of search hits
        self._vector_props: set[str] = {v.property for v in default_schema().vector}
        #: whether a user's write found no key constraint left to drop (:meth:`explore`)
        self._key_constraints_checked = False
        #: at most how many property keys the graph has (:meth:`_check_property_key_room`)
        self._property_keys_bound: int | None = None
        #: the server was (re)started building its indexes in the background and this store
        #: has not yet seen them all built (:meth:`_settle_indexes`)
        self._indexes_settling = False
        #: the write statements written ahead whose replies this thread has not read, in
        #: the order they were sent, and their text's size
        self._unanswered: deque[_Ahead] = deque()
        self._unanswered_bytes = 0
        #: the thread that sends them (started by the first)
        self._sender: _Sender | None = None
        #: the reads sent ahead, each answered on a connection of its own (:class:`_Sender`)
        self._reads_out: list[_Ahead] = []
        #: inside :meth:`loading`: the ``DELTA_MAX_PENDING_CHANGES`` to put back after it
        self._pending_kept: int | None = None
        #: what became of the last user query interrupted (:meth:`_stop_interrupted`), for
        #: the command to say
        self.interrupted_query: str | None = None

    @classmethod
    def from_settings(
        cls, settings: Settings, *, graph: str | None = None, allow_incomplete: bool = False
    ) -> FalkorDBStore:
        """Start (or reuse) the embedded server of ``settings.data_dir`` and open the graph.

        A graph whose bulk load never finished is refused (``check_complete``) unless
        ``allow_incomplete`` (``db reset`` and ``db status`` must still reach it).
        """
        from scholarkg.store.falkordb.server import EmbeddedServer

        server = EmbeddedServer(settings.data_dir)
        server.ensure_running()
        store = cls(server.connect(), graph or settings.graph, server=server)
        store._indexes_settling = server.indexes_in_background()
        if not allow_incomplete:
            try:
                store.check_complete()
                store.upgrade_vectors()
            except BaseException:
                store.close()
                raise
        return store

    # -- raw access --------------------------------------------------------------------
    def _query(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        beside: _Beside | None = None,
    ) -> Any:
        """``GRAPH.QUERY``: the parameter header written and a reply of plain values read by
        ``wire.py`` (the client's ``QueryResult`` for any other reply). ``beside``: a read
        that sees relationships of these types only, run while the relationships of other
        types written ahead last are still being written
        (:meth:`run_named_beside_relationships`)."""
        import redis
        from falkordb.query_result import QueryResult

        if beside is None:
            self._settle_queue()  # not the reads sent ahead: this runs beside them
        else:
            self._settle_unless_beside(*beside)
        check_params(params)
        text = params_header(params) + query if params else query
        with _server_lost_is_server_error(self._server):
            self._settle_indexes(query)
            try:
                raw = self._g.execute_command("GRAPH.QUERY", self._g.name, text, "--compact")
                reply = plain_reply(raw)
                return reply if reply is not None else QueryResult(self._g, raw)
            except redis.exceptions.ResponseError as err:
                raise dialect.cypher_error(err, query) from err

    # -- writing ahead (BatchWriteStore.writes_ahead) -----------------------------------
    @contextmanager
    def writes_ahead(
        self, written: Callable[[int], None], failed: Callable[[], None]
    ) -> Iterator[None]:
        """Write statements are queued for a sender thread (:class:`_Sender`) and the caller
        goes on: the server executes them in order while Python builds and encodes the next
        rows, the next batches, the next records. The thread sends a statement only once the
        one before answered, and none after one that failed, so nothing runs after a failed
        statement and its error is its own; this thread reads the replies back in order
        (counts to ``written``, a failure raised after ``failed()``) at the next call that
        reaches the server, or at :meth:`settle`. At most :data:`AHEAD_STATEMENTS`
        statements (:data:`AHEAD_BYTES` of text) are unanswered: one more waits for the
        oldest."""
        with self._writing_ahead_to(written, failed):
            yield

    def read_named_ahead(
        self, name: str, params: Mapping[str, Any], **identifiers: str
    ) -> Callable[[], list[dict[str, Any]]]:
        """The read queued for the sender thread like a write (:meth:`writes_ahead`): the
        server runs it once the statements sent before it have answered, on a connection
        of its own (:class:`_Sender`), while this thread goes on; the function returned
        waits for its rows. It sees every statement sent before it and none written ahead
        after it (the sender holds those until it is answered); a statement this thread
        runs itself meanwhile (:meth:`run`) runs beside it and may reach the server first,
        as on the managed Neo4j, whose reads sent ahead wait in its sender thread. Its
        error, or the error of a statement before it (whose failure kept it from being
        sent), is raised by the function.
        A read whose rows come joined (:meth:`run`) is sent joined; in the one case where
        they cannot be split (a value held a separator) its plain form is run then, on the
        graph as it stands at that moment, which the two callers (identity resolution's
        reads ahead) accept: what they read is not changed by what they send after it."""
        query = without_empty_branches(name, render_named(name, self.dialect, identifiers), params)
        if query is None:
            return list
        joined = joined_read(query)
        with self._writing_ahead_to(_no_count, _no_failure):
            sent = query if joined is None else joined.query
            item = self._send_ahead(sent, params, counted=False, side=True)

        def rows() -> list[dict[str, Any]]:
            item.done.wait()
            if not item.sent and item.error is None:  # dropped: a statement before it failed
                self.settle()  # raises that failure, unless it was read already
                raise StoreError(f"{name} was not read: a statement before it failed")
            if item.reply is None:
                item.reply = self._reply_of(item)
            got = self._rows(item.reply)
            if joined is None:
                return got
            if (split := joined.rows(got[0])) is not None:
                return split
            return self._rows(self._query(query, params))

        return rows

    def _send_ahead(
        self,
        query: str,
        params: Mapping[str, Any],
        *,
        counted: bool,
        side: bool = False,
        command: tuple[str, ...] | None = None,
    ) -> _Ahead:
        """``GRAPH.QUERY`` queued for the sender thread (:meth:`writes_ahead`); with
        ``side``, a read sent ahead, answered on a connection of its own (:class:`_Sender`)
        and read by its caller, not in the queue's order; with ``command``, that server
        command sent instead (``query`` then only names it)."""
        written, failed, text = self._ahead_prepared(
            params, lambda: params_header(params) + query if params else query
        )
        self._read_answered()
        if self._indexes_settling:
            self._settle_indexes(query)
        while self._unanswered and (
            len(self._unanswered) >= AHEAD_STATEMENTS
            or self._unanswered_bytes + len(text) > AHEAD_BYTES
        ):
            self._read_oldest()
        item = _Ahead(text, query, written if counted else None, failed)
        item.side = side
        item.command = command
        item.rel_type = self._relationship_writes
        sender = self._sender
        if sender is None:
            sender = self._sender = _Sender(self.db.connection.connection_pool, self._g.name)
        if item.side:  # answered on its own: read by its caller, not in the queue's order
            self._reads_out = [r for r in self._reads_out if not r.done.is_set()]
            self._reads_out.append(item)
        else:
            self._unanswered.append(item)
            self._unanswered_bytes += item.size
        sender.put(item)
        return item

    def _send_command_ahead(self, *command: str) -> None:
        """A server command queued like a statement written ahead (:class:`_Sender` sends it
        between the statements before and after it; its "OK" is read in their order)."""
        self._send_ahead(" ".join(command), {}, counted=False, command=command)

    @contextmanager
    def loading(self) -> Iterator[None]:
        """FalkorDB's ``DELTA_MAX_PENDING_CHANGES`` raised for the block (a load that reads
        between its writes), the value found put back after it; see ``pending_changes.py``
        for why. Blocks nest (the outer one sets and puts back)."""
        if self._pending_kept is not None:
            yield
            return
        import redis

        conn = self.db.connection
        before: int | None = None
        with _server_lost_is_server_error(self._server):
            try:
                before = pending_changes.current_setting(conn)
                conn.execute_command(*pending_changes.setting_command(LOAD_PENDING_CHANGES))
            except redis.exceptions.ResponseError as err:  # a FalkorDB without the setting
                log.info("loading at FalkorDB's own %s: %s", pending_changes.SETTING, err)
                before = None
        if before is None:
            yield
            return
        self._pending_kept = before
        try:
            yield
        finally:
            self._pending_kept = None
            # the settings labels_removed queued go out before the value is put back (else
            # its last one, queued, would raise it again for good); their replies, and any
            # error among them, stay for the caller to read as always
            for item in tuple(self._unanswered):
                item.done.wait()
            with contextlib.suppress(Exception):  # a server gone starts with the default
                conn.execute_command(*pending_changes.setting_command(before))

    def labels_removed(self) -> None:
        """Inside :meth:`loading`, after statements that took labels off nodes: FalkorDB
        merges the node-label matrix's delta now (``pending_changes.SETTLE_LABELS`` under a
        setting of 1, in the order of the statements written ahead), so the next label
        change does not pass over what these left pending."""
        if self._pending_kept is None:
            return
        low = pending_changes.setting_command(1)
        high = pending_changes.setting_command(LOAD_PENDING_CHANGES)
        if self._ahead_to is None:
            self._command(*low)
            try:
                self._query(pending_changes.SETTLE_LABELS)
            finally:
                self._command(*high)
            return
        self._send_command_ahead(*low)
        self._send_ahead(pending_changes.SETTLE_LABELS, {}, counted=False)
        self._send_command_ahead(*high)

    def _wait_for_reads(self) -> None:
        """The reads sent ahead still running have answered (:meth:`settle`)."""
        for item in self._reads_out:
            item.done.wait()
        self._reads_out.clear()

    def _reply_of(self, item: _Ahead) -> Any:
        """The reply of a statement sent ahead, read; its failure raised as the store's own
        error: the redis error sending it or reading its reply raised, or the error inside
        its reply."""
        import redis
        from falkordb.query_result import QueryResult

        err = item.error
        if item.command is not None and err is None:  # a setting: its reply is "OK"
            return None
        if err is None and not _failed_reply(item.raw):
            try:
                reply = plain_reply(item.raw)
                return reply if reply is not None else QueryResult(self._g, item.raw)
            except redis.exceptions.ResponseError as parse_err:  # defensive: an error inside
                err = parse_err
        if err is None:  # an error inside the reply: the client's reading raises it
            try:
                QueryResult(self._g, item.raw)
            except redis.exceptions.ResponseError as inner:
                err = inner
            else:  # pragma: no cover - _failed_reply said it holds one
                err = redis.exceptions.ResponseError(str(item.raw))
        if isinstance(err, redis.exceptions.ResponseError):
            raise dialect.cypher_error(err, item.query) from err
        if isinstance(err, redis.exceptions.ConnectionError | redis.exceptions.TimeoutError):
            raise _lost(err, self._server) from err
        raise err

    def settle(self) -> None:
        """Read the replies of the statements written ahead, in order: counts to their
        ``written``, the first error raised (after its ``failed``; the statements queued
        behind it were never sent); then wait for the reads sent ahead still running. A
        no-op when none is unanswered."""
        self._settle_queue()
        if self._reads_out:
            self._wait_for_reads()

    def _settle_unless_beside(self, reads: frozenset[str], ids: frozenset[str] | None) -> None:
        """:meth:`_settle_queue` up to the last statement written ahead that a statement
        :meth:`run_named_beside_relationships` runs with ``reads`` and ``ids`` must follow:
        the ones after it, relationship writes it neither sees nor changes, may still run."""
        last = 0
        for i, item in enumerate(self._unanswered, 1):
            writes = item.rel_type
            if (
                writes is None
                or writes.rel_type in reads
                or (ids is not None and (writes.ends is None or not writes.ends.isdisjoint(ids)))
            ):
                last = i
        for _ in range(last):
            self._read_oldest()
        self._read_answered()

    def _settle_queue(self) -> None:
        """:meth:`settle` of the statements written ahead, not of the reads sent ahead
        (what this thread's own statements wait for: :meth:`read_named_ahead`)."""
        while self._unanswered:
            self._read_oldest()

    def when_settled(self, then: Callable[[], None]) -> None:
        """``then()`` once the statements written ahead so far have answered (their
        replies read, in order, without an error): at once when none is unanswered, else
        when the last one's reply is read; never if one of them failed."""
        if self._unanswered:
            self._unanswered[-1].then.append(then)
        else:
            then()

    def _read_answered(self) -> None:
        """Read the replies already in (a failure raised now rather than later)."""
        while self._unanswered and self._unanswered[0].done.is_set():
            self._read_oldest()

    def _read_oldest(self) -> None:
        ahead = self._unanswered[0]
        ahead.done.wait()
        self._unanswered.popleft()
        self._unanswered_bytes -= ahead.size
        # the callbacks below are the caller's, not part of a relationship write that may be
        # sending now (merge_relationships holds its tag while it sends): a statement one of
        # them queued must not count as that write
        tag, self._relationship_writes = self._relationship_writes, None
        try:
            try:
                result = self._reply_of(ahead)
            except BaseException as err:
                if not isinstance(err, Exception) and self._sender is not None:
                    # Ctrl-C or SIGTERM while a good reply was read: the sender would go on
                    # sending what is queued (its effects unclaimed and, beyond new nodes,
                    # not undone); halted, it drops them as after a failure
                    self._sender.halt()
                self._drop_unsent()
                ahead.failed()
                raise
            if ahead.written is not None:
                ahead.written(self._count_written(result))
            for then in ahead.then:
                then()
        finally:
            self._relationship_writes = tag

    def _drop_unsent(self) -> None:
        """After a failure: the statements queued behind it, which the sender dropped (the
        reads sent ahead among them too: none is sent once the sender resumes)."""
        for item in (*self._unanswered, *self._reads_out):
            item.done.wait()
        self._unanswered.clear()
        self._unanswered_bytes = 0
        if self._sender is not None:
            self._sender.resume()

    def _settle_indexes(self, query: str, *, read_only: bool = False) -> None:
        """After a restart that builds the indexes in the background: wait until they are
        built before a query that needs them (:data:`_NEEDS_INDEXES`; a read-only query
        only for the index procedures). Once seen built, never again for this store."""
        if not self._indexes_settling:
            return
        self.settle()
        if not (_READ_NEEDS_INDEXES if read_only else _NEEDS_INDEXES).search(query):
            return
        log.info("waiting for graph %r's indexes, rebuilt after a restart", self.graph)
        dialect.await_indexes(self._g, timeout=INDEX_WAIT_SECONDS)
        self._indexes_settling = False

    def _command(self, *args: Any) -> Any:
        import redis

        self.settle()
        with _server_lost_is_server_error(self._server):
            try:
                return self.db.connection.execute_command(*args)
            except redis.exceptions.ResponseError as err:
                raise StoreError(f"FalkorDB {args[0]} failed: {err}") from err

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        return self._run(query, params)

    def _run(
        self,
        query: str,
        params: Mapping[str, Any] | None,
        *,
        beside: _Beside | None = None,
    ) -> list[dict[str, Any]]:
        if (joined := joined_read(query)) is not None:  # rows as joined strings
            reply = self._rows(self._query(joined.query, params, beside=beside))
            if (rows := joined.rows(reply[0])) is not None:
                return rows  # else a value held a separator: the plain read
        return self._rows(self._query(query, params, beside=beside))

    reads_beside_relationships = True

    def _run_beside(
        self,
        query: str,
        params: Mapping[str, Any] | None,
        reads: frozenset[str],
        ids: frozenset[str] | None,
    ) -> list[dict[str, Any]]:
        """``BatchWriteStore.run_named_beside_relationships``: the statement runs once
        every statement written ahead has answered except the last ones that write
        relationships (nothing else) of a type not in ``reads`` and, with ``ids``, between
        nodes none of which is in ``ids``: the sender thread may still be sending those.
        FalkorDB runs a statement of one connection beside another's, and those change
        nothing this one sees or sets. Their replies are read in order later, as always.

        Why: identity resolution's reads of a chunk (its look-up, its slots, its renames, the
        writer's existence read) waited for the chunk before's last statements, its ``CITES``
        and authorships (about a third of the server's time in an update), while the
        loading thread had nothing else to do."""
        return self._run(query, params, beside=(reads, ids))

    def _rows(self, res: Any) -> list[dict[str, Any]]:
        """A reply's rows as dicts of plain values."""
        header = [h[1] if isinstance(h, list | tuple) else h for h in res.header]
        cols = [str(col) for col in header]
        if type(res) is PlainReply:  # its cells are plain already (wire.plain_reply)
            return [dict(zip(cols, row, strict=False)) for row in res.result_set]
        scalars = _SCALARS
        return [
            {
                col: val if type(val) in scalars else _plain(val)
                for col, val in zip(cols, row, strict=False)
            }
            for row in res.result_set
        ]

    # -- writes (shared in BatchWriteStore) --------------------------------------------
    def _send(self, query: str, params: Mapping[str, Any]) -> Any:
        if self._ahead_to is not None:
            self._send_ahead(query, params, counted=False)
            return None
        return self._query(query, params)

    def _send_counted(self, query: str, params: Mapping[str, Any]) -> int:
        if self._ahead_to is not None:
            self._send_ahead(query, params, counted=True)
            return 0
        return self._count_written(self._query(query, params))

    def _count_written(self, result: Any) -> int:
        return int(result.result_set[0][0]) if result.result_set else 0

    def _merge_nodes_query(self, label: str) -> str:
        return dialect.merge_changed_nodes_query(label)

    def _vector_payload(self, query: str, batch: VectorBatch) -> tuple[str, dict[str, Any] | None]:
        """``$rows`` written as FalkorDB's ``CYPHER rows=[…]`` parameter header here, one
        ``%`` format per vector, instead of by falkordb-py's recursion into each float; the
        rows were checked whole by ``vector_batches`` (no ``check_params`` walk either).
        Ids and extra properties are quoted by falkordb-py's own helpers."""
        from falkordb.helpers import quote_string, stringify_param_value

        rows = ",".join(
            f"{{id:{quote_string(i)},v:[{dialect.vector_param(v)}],"
            f"extra:{stringify_param_value(e)}}}"
            for i, v, e in zip(batch.ids, batch.vectors, batch.extras, strict=True)
        )
        return f"CYPHER rows=[{rows}] {query}", None

    def _send_vector_payload(self, payload: tuple[str, dict[str, Any] | None]) -> int:
        return self._count_written(self._query(payload[0]))

    def _prepare_labels(self, *labels: str) -> None:
        for label in labels:
            self._ensure_key_index(check_label(label))

    def _ensure_key_index(self, label: str) -> None:
        """Create the ``id`` range index if missing: MERGE without it is a label scan per row.

        Done lazily (once per label and store) so writes stay linear even when the caller
        has not run ``apply_schema`` yet (which creates the other indexes).

        Waits until the label's index is built before the first write. FalkorDB answers a
        query on a label whose index is still building in one of two wrong ways: a new index
        is bypassed by a label scan per row (merging 7,000 rows into 50,000 nodes took 62 s,
        and the scan holds the lock the build needs), and a field added to an existing index
        rebuilds it, during which look-ups miss nodes already there (a MERGE would make a
        second copy).
        """
        if label in self._key_indexed:
            return
        self.settle()
        with _server_lost_is_server_error(self._server):
            indexes = dialect.list_indexes(self._g)
        building = any(i.label == label and i.status != "OPERATIONAL" for i in indexes)
        created = False
        if not dialect.has_index(indexes, label, "id", "RANGE"):
            try:
                self._query(dialect.range_index_ddl(label, "id"))
            except StoreError as err:  # a concurrent writer created it first
                if "already indexed" not in str(err):
                    raise
            else:
                created = True
            building = True
        if building:
            with _server_lost_is_server_error(self._server):
                dialect.await_indexes(self._g, timeout=INDEX_WAIT_SECONDS)
        if created:
            # into the snapshot before the rows: replaying MERGEs logged after a logged
            # CREATE INDEX is what took a crashed 20k-paper store 11 minutes to reload
            self.compact()
        self._key_indexed.add(label)

    # -- persistence -------------------------------------------------------------------
    def compact(self) -> None:
        """Fold the server's query log into a snapshot (AOF rewrite) and wait for it.

        Called once at the end of every bulk-writing CLI command (``store_session(
        write=True)``) and after schema changes, so a restart loads a snapshot instead of
        replaying queries. A no-op when nothing was logged or the server keeps no files.
        """
        import redis

        from scholarkg.store.falkordb.persistence import compact_aof

        self.settle()
        try:
            compact_aof(self.db.connection)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as err:
            raise ServerError(
                f"lost the embedded FalkorDB server while compacting its files ({err}); "
                "'scholarkg db status' shows its state"
            ) from err

    def mark_incomplete(self, what: str) -> None:
        """Record that ``what`` (a command line) is building this graph right now.

        Written before the first byte of a bulk load and deleted after its last step, in
        the same log as the graph itself, so after a crash the graph either does not exist
        or carries this marker: never a silently partial graph.
        """
        payload = json.dumps({"command": what, "started": datetime.now(UTC).isoformat()})
        self._command("SET", dialect.incomplete_key(self.graph), payload)

    def mark_complete(self) -> None:
        self._command("DEL", dialect.incomplete_key(self.graph))

    def is_incomplete(self) -> bool:
        """A bulk load of this graph was cut off (its marker is there, the graph perhaps not:
        ``db reset`` deletes such a graph rather than call it missing)."""
        return self._command("GET", dialect.incomplete_key(self.graph)) is not None

    def check_complete(self) -> None:
        """Raise if a bulk load of this graph was interrupted (the marker is still there)."""
        raw = self._command("GET", dialect.incomplete_key(self.graph))
        if raw is None:
            return
        try:
            info = json.loads(raw)
        except ValueError:
            info = {}
        raise StoreError(
            f"graph {self.graph!r} is incomplete: {info.get('command', 'a bulk load')!s} "
            f"started at {info.get('started', '?')} did not finish (crash or kill). Delete it "
            f"with 'scholarkg --graph {self.graph} db reset --yes' and run the load again"
        )

    # -- schema ------------------------------------------------------------------------
    def apply_schema(self, schema: SchemaSpec | None = None, *, compact: bool = True) -> list[str]:
        """Create what is missing of ``schema`` and wait until it is online.

        Returns a description of each index/constraint created (empty on a re-run), which
        ``scholarkg schema apply`` prints. ``compact=False`` leaves the AOF rewrite to the
        caller (the bulk loader rewrites once, and times it on its own).
        """
        created = self.issue_schema(schema or default_schema())
        if created:
            with _server_lost_is_server_error(self._server):
                dialect.await_indexes(self._g)
        if created and compact:
            # into the snapshot at once: queries replayed after a crash need the indexes
            # already built, not still building from the log (and a store made when keys
            # were constraints logged each GRAPH.CONSTRAINT CREATE twice, the second
            # failing on replay: its drop goes into the snapshot too)
            self.compact()
        return created

    def issue_schema(self, spec: SchemaSpec) -> list[str]:
        """Send the DDL of what is missing of ``spec`` without waiting for it to build; returns
        a description of each index/constraint sent. ``apply_schema`` waits after it; the
        bulk loader waits on its own (it times the indexes apart from the AOF rewrite).
        Either way the store searches by ``spec`` from here on."""
        self._schema = spec
        self._vector_props |= {v.property for v in spec.vector}
        self.settle()
        with _server_lost_is_server_error(self._server):
            steps = dialect.plan_schema(
                spec, dialect.list_indexes(self._g), dialect.list_constraints(self._g)
            )
        ranges: dict[str, list[str]] = {}  # one CREATE INDEX per label (dialect says why)
        for step in steps:
            if step.kind == "range":
                ranges.setdefault(step.label, []).append(step.properties[0])
        for label, props in ranges.items():
            self._query(dialect.range_index_ddl(label, *props))
        self._drop_unique(steps)
        for step in steps:
            if step.kind == "fulltext":
                self._query(dialect.fulltext_index_ddl(step.label, step.properties))
            elif step.kind == "vector":
                vec = next(
                    v
                    for v in spec.vector
                    if v.label == step.label and v.property == step.properties[0]
                )
                self._query(dialect.vector_index_ddl(vec))
        return [step.describe() for step in steps]

    def ensure_vector_index(self, index: VectorIndex) -> None:
        self._vector_props.add(index.property)
        self.settle()
        with _server_lost_is_server_error(self._server):
            indexes = dialect.list_indexes(self._g)
        vlabel = dialect.vector_label(index.label, index.property)
        if not dialect.has_index(indexes, vlabel, index.property, "VECTOR"):
            self._query(dialect.vector_index_ddl(index))
            with _server_lost_is_server_error(self._server):
                dialect.await_indexes(self._g)

    def upgrade_vectors(self, progress: Callable[[int], None] | None = None) -> int:
        """Move the vectors a previous version kept on the nodes onto vector nodes
        (``dialect.vector_label``); returns how many moved (0 on an upgraded store).

        Per old index: the new index first, then batches of 2,000 (each one query: a node's
        vector is on it or on its vector node, never half), the old index last — an
        interrupted upgrade still shows the old index and goes on where it stopped.
        ``progress(moved so far)`` after each batch. ``from_settings`` runs it when it
        finds an old index, so a store the previous version wrote answers as before.

        Once a graph is upgraded (or found to need nothing) a key says so, and later calls
        read only that key: the look for old indexes is a graph query, which waits for a free
        worker, and every command opens the store through here, so with both workers busy
        with others' long queries even ``scholarkg cypher --timeout 5 "RETURN 1"`` waited
        for them here, before its own limit applied.
        """
        if not self._exists():
            return 0
        done_key = dialect.vectors_upgraded_key(self.graph)
        if self._command("EXISTS", done_key):
            return 0
        self.settle()
        with _server_lost_is_server_error(self._server):
            old = dialect.old_vector_indexes(self._g)
        moved = 0
        for idx in old:  # scholarkg's own, each with a dimension (old_vector_indexes)
            log.warning(
                "moving the %s.%s vectors to their own nodes (once, for this version)",
                idx.label,
                idx.property,
            )
            self.ensure_vector_index(
                VectorIndex(f"{idx.label}_{idx.property}", idx.label, idx.property, idx.dimensions)
            )
            query = dialect.move_vectors_query(idx.label, idx.property)
            while True:
                n = int(self._query(query, {"batch": 2_000}).result_set[0][0])
                if not n:
                    break
                moved += n
                if progress is not None:
                    progress(moved)
            try:
                self._query(dialect.drop_old_vector_index_ddl(idx.label, idx.property))
            except CypherError as err:
                # FalkorDB may still list an index it is dropping (an upgrade run again at
                # once saw it and failed "no such index"): gone is what this wants
                if "no such index" not in str(err):
                    raise
        if old:
            with _server_lost_is_server_error(self._server):
                dialect.await_dropped_vector_indexes(self._g, old)
            self.compact()
        self._command("SET", done_key, "1")
        return moved

    # -- search ------------------------------------------------------------------------
    def fulltext(
        self, index: str, terms: Sequence[str], *, k: int = 100, require_all: bool = False
    ) -> list[Hit]:
        spec = find_fulltext_index(index, self._schema)
        q = dialect.fulltext_query_text(terms, require_all=require_all)
        if not q:
            return []
        res = self._query(dialect.fulltext_search_query(), {"label": spec.label, "q": q, "k": k})
        return [self._hit(node, float(score)) for node, score in res.result_set]

    def _hit(self, node: Any, score: float, extra: Mapping[str, Any] | None = None) -> Hit:
        """``extra``: the vector node's properties beside the vector (``set_vectors``'
        ``extra``: they read as the node's, as on Neo4j, where they are)."""
        props = _plain(node)
        if extra:
            props = {**{str(k): _plain(v) for k, v in extra.items()}, **props}
        props = without_vectors(props, self._vector_props)
        return Hit(id=str(props.get("id")), score=score, properties=props)

    def vector(self, index: VectorIndex, vector: Sequence[float], *, k: int = 10) -> list[Hit]:
        """k nearest nodes; asks for more than ``k`` when the index answers with fewer.

        The index is over the vector nodes (``dialect.vector_label``); each hit is followed
        to its node. A rewritten vector leaves a deleted entry in the index until garbage
        collection, and a vector node whose node was deleted is no hit: a kNN query for
        ``k`` may then return fewer than ``k`` live nodes (seen on FalkorDB 4.16). So when
        a query comes back short, it is repeated with a doubled ``k`` until it returns
        ``k`` hits or every node holding the property.
        """
        want = int(k)
        if want < 1:
            raise InputError(f"k must be >= 1, got {k}", field="k")
        query = dialect.vector_search_query(index.label, index.property)
        params: dict[str, Any] = {
            "k": max(want, VECTOR_MIN_FETCH),
            "v": [float(x) for x in vector],
        }
        self._vector_props.add(index.property)
        available: int | None = None
        while True:
            hits = [
                self._hit(node, dialect.similarity_from_distance(distance), extra)
                for node, extra, distance in self._query(query, params).result_set
            ]
            if len(hits) >= want:
                break
            if available is None:
                available = self._count_with(index.label, index.property)
            if len(hits) >= available or params["k"] >= MAX_VECTOR_FETCH:
                break
            params["k"] = min(params["k"] * 2, MAX_VECTOR_FETCH)
        return best_hits(hits, want)

    def _count_with(self, label: str, prop: str) -> int:
        """How many ``label`` nodes hold a ``prop`` vector (a label scan: only on a short kNN
        answer)."""
        return int(self._query(dialect.vector_count_query(label, prop)).result_set[0][0])

    # -- inspection --------------------------------------------------------------------
    def counts(self) -> GraphCounts:
        """Counts per whitelisted label and type; every alias is referenced in ``count()``.

        Labels and types the server reports but scholarkg never writes are skipped (as on
        Neo4j): only whitelisted names are pasted into Cypher, and both backends must
        return the same counts for the same graph.

        (FalkorDB only existence-checks unreferenced relationship aliases, which can
        undercount: known-limitations.mdx.)
        """
        if not self._exists():
            return GraphCounts(nodes={}, relationships={})
        nodes: dict[str, int] = {}
        for (label,) in self._query(dialect.LABELS_QUERY).result_set:
            if str(label) not in node_labels():  # pasted into Cypher: whitelisted names only
                log.debug("ignoring label %r: not a scholarkg label", label)
                continue
            n = self._query(dialect.label_count_query(str(label))).result_set[0][0]
            if n:
                nodes[str(label)] = int(n)
        rels: dict[str, int] = {}
        for (rtype,) in self._query(dialect.REL_TYPES_QUERY).result_set:
            if str(rtype) not in rel_types():
                log.debug("ignoring relationship type %r: not a scholarkg type", rtype)
                continue
            n = self._query(dialect.rel_count_query(str(rtype))).result_set[0][0]
            if n:
                rels[str(rtype)] = int(n)
        return GraphCounts(nodes=nodes, relationships=rels)

    def graph_names(self) -> list[str]:
        return sorted(str(g) for g in self._command("GRAPH.LIST"))

    def graph_exists(self) -> bool:
        """``GRAPH.LIST`` holds the key: asked before a read, as any ``GRAPH.QUERY`` (reads
        too) creates it, and ``GRAPH.RO_QUERY`` fails on it for reads and writes alike."""
        return self.graph in self.graph_names()

    def _exists(self) -> bool:
        return self.graph_exists()

    def edge_snapshot(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
    ) -> EdgeSnapshot:
        """Arrays of the subgraph, fetched as one joined string per column and window.

        Never one row per edge: the server joins internal ids into a comma-separated
        string per window of source nodes (``string.join``), which NumPy parses. Lists of
        integers cost one RESP element each and made a 1M-edge export ~5x slower with
        redis-py's pure-Python parser. Weights travel as a list (``toString`` would round
        them to 6 decimals).
        """
        check_label(node_label)
        check_rel_type(rel_type)
        if weight_property is not None:
            check_property(weight_property)
        empty = np.zeros(0, dtype=np.int64)
        if not self._exists():
            return EdgeSnapshot(ids=[], src=empty, dst=empty, weight=np.zeros(0))
        if node_ids is None:
            ids, internal = self._all_nodes(node_label)
        else:
            ids, internal = self._some_nodes(node_label, node_ids)
        if len(ids) == 0:
            return EdgeSnapshot(ids=[], src=empty, dst=empty, weight=np.zeros(0))
        parts: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
        q = dialect.edge_window_query(
            node_label, rel_type, weight_property, by_ids=node_ids is not None
        )
        if node_ids is None:
            top = int(internal.max())
            for lo in range(0, top + 1, SNAPSHOT_WINDOW):
                parts.append(self._edge_part(q, {"lo": lo, "hi": lo + SNAPSHOT_WINDOW}))
        else:
            for batch in chunked(internal.tolist(), 50_000):
                parts.append(self._edge_part(q, {"ids": batch}))
        a_all = np.concatenate([p[0] for p in parts]) if parts else empty
        b_all = np.concatenate([p[1] for p in parts]) if parts else empty
        if weight_property:
            w_all = np.concatenate([p[2] for p in parts if p[2] is not None])
        else:
            w_all = np.ones(len(a_all), dtype=np.float64)
        # map internal ids to positions; drop edges leaving the node set (subgraph case)
        pos = np.full(int(max(internal.max(), b_all.max(initial=0))) + 1, -1, dtype=np.int64)
        pos[internal] = np.arange(len(internal), dtype=np.int64)
        src, dst = pos[a_all], pos[b_all]
        keep = (src >= 0) & (dst >= 0)
        return EdgeSnapshot(ids=ids, src=src[keep], dst=dst[keep], weight=w_all[keep])

    def _edge_part(
        self, query: str, params: Mapping[str, Any]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        row = self._query(query, params).result_set[0]
        a, b = _int_array(row[0]), _int_array(row[1])
        w = np.asarray(row[2], dtype=np.float64) if len(row) > 2 else None
        if len(a) != len(b) or (w is not None and len(w) != len(a)):
            raise StoreError("edge export returned columns of different lengths")
        return a, b, w

    def _all_nodes(self, label: str) -> tuple[list[str], np.ndarray]:
        """Internal and application ids of every ``label`` node that has an ``id``.

        Nodes without ``id`` (created by hand) have no identity here and are left out,
        with their edges.
        """
        top = self._query(dialect.max_node_id_query(label)).result_set[0][0]
        if top is None:
            return [], np.zeros(0, dtype=np.int64)
        ids: list[str] = []
        internal: list[np.ndarray] = []
        q = dialect.node_window_query(label)
        for lo in range(0, int(top) + 1, SNAPSHOT_WINDOW):
            params = {"lo": lo, "hi": lo + SNAPSHOT_WINDOW, "sep": _ID_SEP}
            iids, joined, n = self._query(q, params).result_set[0]
            app_ids = joined.split(_ID_SEP) if n else []
            if len(app_ids) != n:  # an id contains the separator: fetch this window as a list
                lq = dialect.node_window_list_query(label)
                app_ids = self._query(lq, params).result_set[0][0]
            internal.append(_int_array(iids))
            ids.extend(app_ids)
        all_internal = np.concatenate(internal)
        order = np.argsort(all_internal, kind="stable")  # creation order: deterministic
        return [ids[i] for i in order], all_internal[order]

    def _some_nodes(self, label: str, node_ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
        wanted = list(dict.fromkeys(str(x) for x in node_ids))
        found: dict[str, int] = {}
        q = dialect.nodes_by_ids_query(label)
        for batch in chunked(wanted, 50_000):
            app_ids, iids = self._query(q, {"ids": batch}).result_set[0]
            found.update(zip((str(x) for x in app_ids), (int(i) for i in iids), strict=True))
        ids = [x for x in wanted if x in found]
        return ids, np.asarray([found[x] for x in ids], dtype=np.int64)

    def delete_nodes(self, label: str, ids: Iterable[str], *, batch_size: int = 10_000) -> int:
        """As on every store, and their vector nodes with them
        (:func:`dialect.delete_vector_nodes_query`)."""
        ids = list(ids)
        for batch in chunked(ids, batch_size):
            self.run(dialect.delete_vector_nodes_query(label), {"ids": batch})
        return super().delete_nodes(label, ids, batch_size=batch_size)

    def pagerank(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
        config: PageRankConfig | None = None,
    ) -> PageRankResult:
        """GDS-semantics PageRank computed in scipy on an edge snapshot (§4)."""
        from scholarkg.store.pagerank import check_pagerank_config, pagerank_on_snapshot

        cfg = config or PageRankConfig()
        check_pagerank_config(cfg)  # before the snapshot, which can take seconds
        snap = self.edge_snapshot(
            node_label, rel_type, node_ids=node_ids, weight_property=weight_property
        )
        return pagerank_on_snapshot(
            snap, cfg, weighted=weight_property is not None, label=node_label
        )

    # -- lifecycle ---------------------------------------------------------------------
    def clear(self) -> None:
        """``GRAPH.DELETE``: nodes, relationships, indexes and constraints go at once."""
        import redis

        self.settle()
        try:
            self.db.connection.execute_command("GRAPH.DELETE", self.graph)
        except redis.exceptions.ResponseError as err:
            if "empty key" not in str(err) and "not exist" not in str(err).lower():
                raise StoreError(f"GRAPH.DELETE {self.graph}: {err}") from err
        self.mark_complete()
        self._command("DEL", dialect.vectors_upgraded_key(self.graph))  # a new graph's own
        self._key_indexed.clear()

    def close(self) -> None:
        try:
            self.settle()
        except Exception as err:  # the caller settles what it needs; never mask its error
            log.warning("a write sent ahead failed as the store closed: %s", err)
        finally:
            sender, self._sender = self._sender, None
            if sender is not None:
                sender.stop()
        try:
            self.db.connection.close()
        except Exception as err:  # closing must never mask the caller's own error
            log.debug("closing FalkorDB connection: %s", err)

    # -- a user's query (scholarkg explore, scholarkg cypher) -----------------------------
    #: what FalkorDB's parser takes in time (``cypher_text.check_shape``; measured on 4.16)
    shape_limits = ShapeLimits(
        server="the embedded FalkorDB",
        max_depth=12,
        max_cost=250_000,
        why="its parser's time doubles with each level: 16 levels take up to 1 s, 20 do not "
        "finish, and no time limit covers parsing",
    )

    def _user_text(self, query: str, params: Mapping[str, Any] | None) -> str:
        """What goes to the server for ``query``: the client's ``CYPHER name=value`` header
        (parameters travel in the text) and the query, shape-checked as a whole."""
        if params and (found := unstorable(dict(params), "")):  # small: always walked
            where, what = found
            raise InputError(
                f"parameter {where.lstrip('.')} {what}: the embedded store cannot take it"
            )
        try:
            header = self._g._build_params_header(dict(params)) if params else ""
        except (ValueError, TypeError) as err:  # a map key the client cannot quote
            raise InputError(f"unsupported parameter value: {err}", field="params") from err
        text = header + query
        check_shape(text, self.shape_limits)
        check_index_definitions(text)  # an index the server cannot build would down it for good
        check_crash_shapes(text)
        return text

    def server_timeout_ms(self) -> int | None:
        """FalkorDB's ``TIMEOUT_MAX`` (``None`` when 0: no limit)."""
        if self._timeout_max is None:
            reply = self._command("GRAPH.CONFIG", "GET", "TIMEOUT_MAX")
            self._timeout_max = int(reply[1]) if isinstance(reply, list | tuple) else 0
        return self._timeout_max or None

    def _send_user(
        self, args: tuple[Any, ...], query: str, *, limit_ms: int, row_limit: int, max_bytes: int
    ) -> LimitedReply:
        """``args`` on a connection of its own, under the watchdog (``falkordb/resp.py``)."""
        import time

        path = self.db.connection.connection_pool.connection_kwargs.get("path")
        if not path:
            raise ServerError("the embedded store is reached over its unix socket only")
        self._start_if_gone()
        pid = self._server.pid() if self._server is not None else None
        self.settle()
        with _server_lost_is_server_error(self._server):
            self._settle_indexes(query, read_only=args[0] == "GRAPH.RO_QUERY")
        deadline = time.monotonic() + limit_ms / 1000 + WATCHDOG_GRACE
        over_memory, budget, base = self._memory_watch(pid)
        watch = self._watched_by_keeper(args, pid, limit_ms, base, budget)
        unsettled = False  # an interrupt the client did not finish handling: the keeper's
        try:
            return send_limited(
                str(path), args, deadline=deadline, row_limit=row_limit, max_bytes=max_bytes,
                over_memory=over_memory,
            )  # fmt: skip
        except NoAnswer:
            raise self._stop_runaway(
                pid, args[2], limit_ms, read_only=args[0] == "GRAPH.RO_QUERY"
            ) from None
        except OverMemory:
            raise self._stop_memory_hog(pid, budget) from None
        except ConnectionLost as err:
            raise self._lost_during_query(pid, err) from None
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM while the server runs the query
            unsettled = True
            self._stop_interrupted(pid, args[2], read_only=args[0] == "GRAPH.RO_QUERY")
            unsettled = False
            raise
        finally:
            if not unsettled:  # a second Ctrl-C during the restart: the keeper stops it
                watch.close()

    def _watched_by_keeper(
        self, args: tuple[Any, ...], pid: int | None, limit_ms: int, base: int | None, budget: int
    ) -> Watch:
        """Tell the server's keeper (``falkordb/keeper.py``) about this user query, so it is
        stopped even if this process is killed before its reply."""
        import time

        if self._server is None or not self._server.keeper or args[0] == "GRAPH.EXPLAIN":
            return Watch(None)
        self._server.ensure_keeper()
        return watching(
            self._server.data_dir,
            pid,
            self.graph,
            args[2],
            deadline=time.time() + limit_ms / 1000,
            writes=args[0] == "GRAPH.QUERY",
            memory_base=base,
            memory_budget=budget or None,
        )

    def _stop_interrupted(self, pid: int | None, text: str, *, read_only: bool) -> None:
        """The user interrupted their query: stop it on the server too.

        Why: FalkorDB has no way to cancel a query, and the client going away does not end
        it: it ran on up to its limit (15 minutes by default) with nothing watching it (no
        memory share either: one grew the server from 2 to 3.5 GB after its client had
        gone), holding a worker, or the whole server when it writes; an interrupted write was
        even committed when it ended. So a query still running (``GRAPH.INFO`` lists it, or
        the server does not answer at all: a write holding it) is stopped the watchdog's way,
        by a restart on the server's files (nothing acknowledged is lost; a read's restart
        rewrites the log first and answers at once). One only queued, or already ended, is
        left: it is not running. A second Ctrl-C stops the restart; the next command starts
        the server again if it was down."""
        server = self._server
        if server is None or pid is None:
            return
        try:
            running = [
                q
                for q in server.running_queries(timeout=1.0)
                if q["query"] == text and q["graph"] == self.graph
            ]
        except Exception as err:  # no answer: a write holds the server's main thread
            log.debug("GRAPH.INFO did not answer: %s", err)
            if read_only:  # not this one, which only reads: another client's write
                self.interrupted_query = (
                    "another query holds the server, so scholarkg could not tell whether "
                    "the interrupted one still runs (a read: it ends at its time limit)"
                )
                return
            running = [{"waiting": False}]
        if not any(not q["waiting"] for q in running):
            self.interrupted_query = "the server was no longer running the query"
            return
        if not server.keeps_files():
            self.interrupted_query = (
                "the server still runs the query and keeps no files (persistence 'none'), so "
                "scholarkg did not restart it: it ends at its time limit, or with 'scholarkg "
                "db stop' (and the data with it)"
            )
            return
        took = self._restart_for(
            server,
            pid,
            text,
            read_only=read_only,
            why="its query was interrupted (Ctrl-C or SIGTERM)",
        )
        self.interrupted_query = (
            f"the query was stopped: scholarkg restarted the embedded server in {took:.1f} s "
            "to end it (FalkorDB cannot cancel a query; an interrupted write is not applied)"
        )

    def _start_if_gone(self) -> None:
        """Start this store's server again on its files if its process is gone (killed, or
        ended by the machine's OOM killer) before a user's query is sent.

        Why: a CLI command starts the server as it opens the store, but ``scholarkg
        explore`` keeps one store for hours; after a ``kill -9`` it answered every query
        with "lost the embedded FalkorDB server" until another command started it."""
        server = self._server
        if server is None or server.pid() is not None or not server.keeps_files():
            return
        if server.stopped_on_purpose():
            raise ServerError(_STOPPED)
        log.warning("the embedded server is not running: starting it again on its files")
        with _server_lost_is_server_error(self._server):
            server.ensure_running(background_indexes=True)
        self._indexes_settling = server.indexes_in_background()

    def _memory_watch(self, pid: int | None) -> tuple[Callable[[], bool] | None, int, int | None]:
        """``(over, budget, base)``: ``over()`` says whether server ``pid``'s resident memory
        grew past ``budget`` bytes (``SCHOLARKG_FALKORDB_QUERY_MEMORY``) from ``base``, its
        memory now; ``None`` without a server of its own, a limit or ``/proc``."""
        from scholarkg.store.falkordb.server import query_memory, resident_bytes

        budget = query_memory()
        base = resident_bytes(pid) if pid is not None and self._server is not None else None
        if budget is None or base is None or pid is None:
            return None, 0, None
        watched, start = pid, base

        def over() -> bool:
            now = resident_bytes(watched)
            return now is not None and now - start > budget

        return over, budget, base

    def _stop_memory_hog(self, pid: int | None, budget: int) -> StoreError:
        """A user's query grew the server past its memory share: restart the server (its
        files are kept), other clients' queries running or not: left alone, the query grows
        until the server's address-space limit aborts it, which ends those queries too."""
        what = (
            f"the query took more than {budget / (1 << 30):.1f} GiB of the server's memory "
            "(SCHOLARKG_FALKORDB_QUERY_MEMORY) and FalkorDB did not stop it"
        )
        server = self._server
        if server is None or pid is None:
            return QueryLimitExceeded(f"{what}; 'scholarkg db stop' ends it")
        if not server.keeps_files():
            return QueryLimitExceeded(
                f"{what}; this server keeps no files, so scholarkg did not restart it "
                "('scholarkg db stop' ends the query, and the data)"
            )
        took = server.restart_runaway(pid, "a query took more than its memory share")
        self._indexes_settling = server.indexes_in_background()
        return QueryLimitExceeded(
            f"{what}; scholarkg restarted the embedded server in {took:.1f} s: nothing "
            "stored was lost"
        )

    def _stop_runaway(
        self, pid: int | None, text: str, limit_ms: int, *, read_only: bool = False
    ) -> StoreError:
        """A query with no answer ``WATCHDOG_GRACE`` s past its limit: stop it (restart; a
        read's restart rewrites the log first, so the server answers before its indexes)."""
        what = (
            f"the query ran past its time limit of {limit_ms / 1000:g} s and FalkorDB did not "
            "stop it (its time limit covers neither parsing nor the work within one row)"
        )
        server = self._server
        if server is None or pid is None:
            return QueryLimitExceeded(
                f"{what}; it may still hold one of the server's workers ('scholarkg db stop' "
                "ends it)"
            )
        try:
            mine = [q for q in server.running_queries() if q["query"] == text]
        except Exception as err:  # the server does not answer at all: it is stuck too
            log.warning("GRAPH.INFO did not answer: %s", err)
            mine = [{"waiting": False}]
        if mine and all(q["waiting"] for q in mine):
            return QueryLimitExceeded(
                f"the query waited past its time limit of {limit_ms / 1000:g} s for a free "
                "worker: the server is busy with other queries (not restarted)"
            )
        if not server.keeps_files():
            return QueryLimitExceeded(
                f"{what}; this server keeps no files, so scholarkg did not restart it "
                "('scholarkg db stop' ends the query, and the data)"
            )
        took = self._restart_for(server, pid, text, read_only=read_only)
        return QueryLimitExceeded(
            f"{what}; scholarkg restarted the embedded server in {took:.1f} s: nothing "
            "stored was lost"
        )

    def _restart_for(
        self,
        server: EmbeddedServer,
        pid: int,
        text: str,
        *,
        read_only: bool,
        why: str = "a query outlived its limit",
    ) -> float:
        """Stop the query ``text`` by restarting ``server`` (the watchdog's and an
        interruption's way); a read's restart rewrites the log first. Seconds it took."""
        read = read_only or plan_only_reads(server, self.graph, text)
        took = server.restart_runaway(pid, why, rewrite_log=read)
        self._indexes_settling = server.indexes_in_background()
        return took

    def _lost_during_query(self, pid: int | None, err: Exception) -> StoreError:
        """The connection dropped mid-query: a server that died (its memory limit) comes back.

        A server that aborted on a failed allocation closes its connections before its
        process is gone (it writes its crash report and frees a heap of many GB first), so
        its pid is waited for (``_DYING_GRACE``, or until it answers PING: a server that
        only closed this connection lives on) before deciding that it lives: taken for
        alive at once, it was never restarted and ``db status`` said ``stale``."""
        import time

        server = self._server
        if server is None or pid is None or not server.keeps_files():
            return ServerError(_LOST.format(err=err))
        deadline = time.monotonic() + _DYING_GRACE
        while server.pid() == pid and not server.answers() and time.monotonic() < deadline:
            time.sleep(0.1)
        if server.pid() == pid:  # it lives (it answers, or never ended): not restarted
            return ServerError(_LOST.format(err=err))
        if server.stopped_on_purpose():  # db stop (or restore) ended it: it stays stopped
            return ServerError(_STOPPED)

        from scholarkg.store.falkordb.server import out_of_memory_in_log

        cause = (
            f"it asked for more memory than the server may use "
            f"({server.memory_limit / (1 << 30):.1f} GiB; SCHOLARKG_FALKORDB_MEMORY)"
            if server.memory_limit and out_of_memory_in_log(server.log_file)
            else "it died"
        )
        t0 = time.monotonic()
        server.ensure_running(background_indexes=True)
        self._indexes_settling = server.indexes_in_background()
        return QueryLimitExceeded(
            f"the embedded server stopped while running the query: {cause}; scholarkg "
            f"started it again in {time.monotonic() - t0:.1f} s: nothing stored was lost"
        )

    def _user_error(self, err: Exception, query: str) -> CypherError:
        """A server error on a user's query; Neo4j-only syntax named as such (issue #38)."""
        text = str(err)
        if "empty key" in text:  # RO_QUERY cannot create the graph key
            return CypherError(f"graph {self.graph!r} does not exist yet: load data into it first")
        gaps = subquery_expressions(query)
        if gaps and ("Invalid input" in text or "errMsg" in text):
            return CypherError(
                f"the embedded FalkorDB has no {' or '.join(gaps)} subquery expression "
                "(Neo4j 5 syntax): write COUNT { (n)-->(m) } as size([(n)-->(m) | m]) and "
                "EXISTS { (n)-->(m) } as the pattern (n)-->(m) in WHERE, or run it with "
                "--backend neo4j"
            )
        return dialect.cypher_error(err, query)

    def explore(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        allow_writes: bool = False,
        timeout_ms: int = 10_000,
        row_limit: int = 1_000,
        max_bytes: int = EXPLORE_MAX_BYTES,
    ) -> ExploreResult:
        """``GRAPH.RO_QUERY`` (``GRAPH.QUERY`` with ``allow_writes``) under the limits of
        ``GraphStore.explore``.

        FalkorDB itself refuses a write sent as RO_QUERY, whatever the text looks like, and
        rolls back a write that times out. The rows are cut while they are read
        (``falkordb/resp.py``): FalkorDB's own cap (RESULTSET_SIZE) is a server-wide setting
        that would also cut the benchmarks' queries.
        """
        import time

        import redis
        from falkordb.query_result import QueryResult

        explore_check_limits(timeout_ms, row_limit)
        text = self._user_text(query, params)
        self._start_if_gone()
        if allow_writes and writes(query):
            self._drop_key_constraints()
            self._check_property_key_room(text)
        limit_ms = bounded_timeout_ms(timeout_ms, self.server_timeout_ms())
        cmd = "GRAPH.QUERY" if allow_writes else "GRAPH.RO_QUERY"
        start = time.perf_counter()
        limited = self._send_user(
            (cmd, self.graph, text, "--compact", "timeout", limit_ms),
            query,
            limit_ms=limit_ms,
            row_limit=row_limit,
            max_bytes=max_bytes,
        )
        try:
            if isinstance(limited.reply, redis.exceptions.ResponseError):
                raise limited.reply
            res = QueryResult(self._g, limited.reply)
        except redis.exceptions.ResponseError as err:
            if allow_writes and writes(query):
                self._fold_log_after_user_write()
            raise self._user_error(err, query) from err
        except RecursionError:
            raise QueryLimitExceeded("a value in the reply is nested too deep to show") from None
        if allow_writes and has_load_csv(query):
            self._fold_log_after_user_write()
        if res.indices_created or res.indices_deleted:
            # returned once the index is usable, as ``schema apply`` does: FalkorDB builds it
            # in the background, and a write meanwhile scans the label per row (or, while a
            # field added to a label's index rebuilds it, misses nodes that are there)
            log.info("waiting for graph %r's indexes to be built", self.graph)
            with _server_lost_is_server_error(self._server):
                dialect.await_indexes(self._g, timeout=INDEX_WAIT_SECONDS)
        header = [str(h[1] if isinstance(h, list | tuple) else h) for h in res.header]
        out = ExploreResult(columns=header, elapsed_ms=(time.perf_counter() - start) * 1000)
        out.changes = _changes(res)
        if allow_writes and _may_share_a_key(query, out.changes):
            out.warnings = self._shared_keys()
        rows = res.result_set
        out.truncated = len(rows) > row_limit or limited.cut is not None
        out.limited_by = "rows" if len(rows) > row_limit else limited.cut
        for row in rows[:row_limit]:
            out.rows.append([_explore_value(v, out, self._vector_props) for v in row])
        return out

    def _drop_key_constraints(self) -> None:
        """Drop the key constraints a store made before keys became indexes still has (a
        restored backup, a graph no load has touched since), before a user's write: their
        check is what crashed the server on an odd key (``dialect.plan_schema``). Once per
        store; a load drops them when it applies the schema."""
        if self._key_constraints_checked or not self.graph_exists():
            return
        with _server_lost_is_server_error(self._server):
            constraints = dialect.list_constraints(self._g)
            self._drop_unique(dialect.plan_schema(self._schema, [], constraints))
        self._key_constraints_checked = True

    def _fold_log_after_user_write(self) -> None:
        """Rewrite the server's log from the graph in memory (an AOF rewrite) after a
        user's write that failed, or read a CSV file.

        Why: FalkorDB 4.16 logs a write as its query text (or its effects), and a restart
        replays the log. A write that fails part-way can leave what it did before the error
        in memory but not in the log (``CREATE (x:T) DELETE x MERGE (:T)<-[:A]-(:T) DELETE
        x CREATE (x)-[:B]->()`` keeps a node; upstream FalkorDB issues 2235 and 2201), and a
        ``LOAD CSV`` is replayed by reading its file again, which may be gone. Either way the
        next restart after a crash replayed a log that no longer matched (a later write's
        effects named the node that was not there) and crashed, at every start: the store
        never came back (found by a crash hunt). A log rewritten from memory holds what the
        graph holds. Failed writes and CSV reads by hand are rare; a rewrite takes seconds
        on a large graph."""
        with _server_lost_is_server_error(self._server):
            self.compact()

    def _check_property_key_room(self, text: str) -> None:
        """Refuse a user's write that could pass the graph's property-key numbering
        (``falkordb/property_keys.py``). The keys are read once per store and counted up
        by what each write could add; read again only when that bound comes near the limit
        (a graph holds a few dozen keys: one read per process, nearly always)."""
        could_add = property_keys.names_in(text)
        bound = self._property_keys_bound
        if bound is None or bound + could_add >= property_keys.MAX_PROPERTY_KEYS // 2:
            bound = 0
            if self.graph_exists():
                with _server_lost_is_server_error(self._server):
                    rows = self._g.ro_query(
                        "CALL db.propertyKeys() YIELD propertyKey RETURN count(propertyKey)"
                    ).result_set
                bound = int(rows[0][0]) if rows else 0
        property_keys.check_room(bound, text)
        self._property_keys_bound = bound + could_add

    def _drop_unique(self, steps: Sequence[dialect.DDLStep]) -> None:
        """Send the ``drop-unique`` steps of ``steps`` (the schema's others are not these)."""
        for step in steps:
            if step.kind == "drop-unique":
                self._command(
                    *dialect.drop_unique_constraint_command(
                        self.graph, step.label, step.properties[0]
                    )
                )

    def _shared_keys(self) -> list[str]:
        """The keys (``id``) two or more nodes of one label share, a warning each (a few per
        label). Keys are indexes here, not unique constraints (``dialect.plan_schema`` says
        why), so a user's own write may make two nodes share one; scholarkg's writes never
        do (they MERGE on the key, and FalkorDB runs writes one at a time). A scan of each
        keyed label, after a write only: ~0.2 s per 100,000 nodes (0.13 s on 60,000 Papers)."""
        found: list[str] = []
        for label in sorted({k.label for k in self._schema.keys if k.property == "id"}):
            try:
                rows = self.run(
                    f"MATCH (n:{check_label(label)}) WHERE n.id IS NOT NULL "
                    "WITH n.id AS key, count(n) AS nodes WHERE nodes > 1 "
                    "RETURN key, nodes LIMIT 3"
                )
            except ScholarKGError as err:  # the write is done: say what the scan could not
                return [*found, f"could not check whether nodes now share an id ({err})"]
            found += [
                f"{r['nodes']} :{label} nodes now share the id {str(r['key'])[:80]!r}: "
                "scholarkg's loads and tasks expect one node per id (the managed Neo4j "
                "refuses such a write); delete or rename the extra nodes"
                for r in rows
            ]
        return found

    def explore_neighbours(
        self, ref: str, *, limit: int = 25, timeout_ms: int = 10_000
    ) -> ExploreResult:
        try:
            node_id = int(ref)
        except ValueError:
            raise InputError(f"not a FalkorDB node id: {ref!r}", field="ref") from None
        return self.explore(
            dialect.EXPLORE_NEIGHBOURS,
            {"ref": node_id, "limit": int(limit)},
            timeout_ms=timeout_ms,
            row_limit=max(1, int(limit)),
        )

    def explore_node_keys(
        self, refs: Sequence[str], *, timeout_ms: int = 10_000
    ) -> dict[str, GraphNode]:
        ids = sorted({int(r) for r in refs if str(r).isdigit()})
        return node_keys_in_chunks(self.explore, dialect.EXPLORE_NODE_KEYS, ids, timeout_ms)

    def explain(
        self, query: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int = 10_000
    ) -> QueryPlan:
        """``GRAPH.EXPLAIN``: the plan's operators, one per line of the reply, in tree order.

        Shape-checked and sent like :meth:`explore` (planning parses: the same parser
        hazards, the same watchdog). FalkorDB gives ``ProcedureCall`` without the
        procedure's name (the explorer's guard takes the names from the text and checks
        their number against the plan) and answers a schema command (``CREATE INDEX``) with
        no plan at all: query type ``s``.
        """
        import redis

        from scholarkg.store.base import QueryPlan

        text = self._user_text(query, params)
        self._start_if_gone()
        limit_ms = bounded_timeout_ms(timeout_ms, self.server_timeout_ms())
        limited = self._send_user(
            ("GRAPH.EXPLAIN", self.graph, text), query, limit_ms=limit_ms, row_limit=1 << 30,
            max_bytes=EXPLORE_MAX_BYTES,
        )  # fmt: skip
        plan = limited.reply
        if isinstance(plan, redis.exceptions.ResponseError):
            if "empty key" in str(plan):  # no graph yet: nothing to plan against
                return QueryPlan(operators=(), planned=False)
            raise self._user_error(plan, query)
        if not isinstance(plan, list):  # a schema command: no plan
            return QueryPlan(operators=(), query_type="s")
        ops = []
        for line in plan:
            name, _, details = str(line).strip().partition("|")
            ops.append((name.strip().replace(" ", ""), details.strip()))
        return QueryPlan(operators=tuple(ops))

    def explore_indexes(self) -> list[dict[str, Any]]:
        """``db.indexes()`` (one row per label and property) and ``db.constraints()``."""
        if not self._exists():
            return []
        self.settle()
        rows: list[dict[str, Any]] = []
        with _server_lost_is_server_error(self._server):
            indexes = dialect.list_indexes(self._g)
            constraints = dialect.list_constraints(self._g)
        for info in indexes:
            for prop, kinds in sorted(info.types.items()):
                rows.append(
                    {
                        "label": info.label,
                        "entity": info.entity_type,
                        "properties": [prop],
                        "type": ", ".join(sorted(kinds)),
                        "state": info.status,
                    }
                )
        for ctype, label, props, status in constraints:
            rows.append(
                {
                    "label": label,
                    "entity": "NODE",
                    "properties": list(props),
                    "type": f"{ctype} constraint",
                    "state": status,
                }
            )
        return rows

    # -- change detection (added for resident graph projections, graphalgo/projection.py) --
    def write_fingerprint(self) -> str:
        """A token that changes whenever a write reaches this server (any graph).

        Redis' change counter since the last save, that save's time and the server's run id:
        reads and MERGEs that change nothing leave it as it is; a restart or a save changes
        it, after which callers re-validate with a content checksum. Cheap (one INFO call).
        """
        self.settle()
        info = self.db.connection.info("persistence", "server")
        return (
            f"{info.get('run_id', '')}:{info.get('rdb_last_save_time')}:"
            f"{info.get('rdb_changes_since_last_save')}"
        )


def _may_share_a_key(query: str, changes: Mapping[str, int]) -> bool:
    """Whether a user's write may have made two nodes share a key (``FalkorDBStore.
    _shared_keys`` then looks): it created nodes or added labels, or set properties in a
    way that may include the key: ``n.id =`` (or ``n.`id` =``; a ``WHERE n.id = …`` too:
    a scan too many, never one too few), ``+=``, or a whole map in any ``SET`` item (``SET
    n = $map``, ``SET n.x = 1, n = properties(m)``), whose keys the text does not show. Read
    on the query's tokens (``cypher_text.views``: strings and comments are not code, and
    every way a server may read it), so a URL's ``//`` in a string hides nothing."""
    if changes.get("nodes created") or changes.get("labels added"):
        return True
    if not changes.get("properties set"):
        return False
    for toks in views(query):
        for i, tok in enumerate(toks):
            if not tok.is_symbol("="):
                continue
            prev = toks[i - 1] if i else None
            if prev is None:
                continue
            if prev.is_symbol("+"):  # += (two symbol tokens)
                return True
            name = prev.text.lower() if prev.kind in ("word", "quoted") else ""
            before = toks[i - 2] if i > 1 else None
            if name == "id" and before is not None and before.is_symbol("."):
                return True
            if name and before is not None and (before.is_word("SET") or before.is_symbol(",")):
                return True  # a map assigned to a variable (SET n = …, …, n = …)
    return False


def _changes(res: QueryResult) -> dict[str, int]:
    """FalkorDB's statistics under the names both backends share (``CHANGE_COUNTERS``)."""
    return counted_changes(
        {
            "nodes created": res.nodes_created,
            "nodes deleted": res.nodes_deleted,
            "relationships created": res.relationships_created,
            "relationships deleted": res.relationships_deleted,
            "properties set": res.properties_set,
            "properties removed": res.properties_removed,
            "labels added": res.labels_added,
            "labels removed": res.labels_removed,
            "indexes created": res.indices_created,
            "indexes deleted": res.indices_deleted,
        }
    )


def _explore_value(value: Any, out: ExploreResult, vector_props: set[str]) -> Any:
    """A FalkorDB reply value as an explorer cell, recording nodes/edges in ``out``."""
    from falkordb.edge import Edge
    from falkordb.node import Node
    from falkordb.path import Path as FPath

    from scholarkg.store.base import GraphNode, GraphRel, explore_property

    def props(entity: Node | Edge) -> dict[str, Any]:
        return {
            str(k): explore_property(str(k), _plain(v), vector_props)
            for k, v in entity.properties.items()
        }

    if isinstance(value, Node):
        ref = str(value.id)
        if ref not in out.nodes:
            labels = tuple(str(lb) for lb in (value.labels or []))
            out.nodes[ref] = GraphNode(ref=ref, labels=labels, properties=props(value))
        return {"~node": ref}
    if isinstance(value, Edge):
        ref = str(value.id)
        if ref not in out.relationships:
            src, dst = value.src_node, value.dest_node
            out.relationships[ref] = GraphRel(
                ref=ref,
                type=str(value.relation),
                start=str(src.id if isinstance(src, Node) else src),
                end=str(dst.id if isinstance(dst, Node) else dst),
                properties=props(value),
            )
        return {"~rel": ref}
    if isinstance(value, FPath):
        refs: list[str] = []
        nodes, edges = value.nodes(), value.edges()
        for i, node in enumerate(nodes):
            refs.append(_explore_value(node, out, vector_props)["~node"])
            if i < len(edges):
                refs.append(_explore_value(edges[i], out, vector_props)["~rel"])
        return {"~path": refs}
    if isinstance(value, dict | OrderedDict):
        return {str(k): _explore_value(v, out, vector_props) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_explore_value(v, out, vector_props) for v in value]
    return value

"""``GraphStore`` on Neo4j 5.26+ (optionally with GDS and APOC), over the official driver.

The writes both backends share live in ``batch_writes.py`` (row checks and MERGE text in
``cypher_common.py``), Neo4j spellings in ``neo4j/dialect.py`` (every string there is linted
offline by Neo4j's own parser); this module sends statements and returns plain dicts, like
``falkordb/store.py``.

* Queries run in managed transactions (``driver.execute_query``), which the driver retries
  on transient errors; writes are idempotent ``UNWIND … MERGE`` batches, so retries are safe.
* Inside ``writes_ahead`` a loader's write statement runs in a sender thread while the
  caller goes on (builds the next batch, resolves the next records): one unanswered at
  most, its reply read by the next call that reaches the server (``settle``).
* ``clear()`` deletes in batches with ``CALL … IN TRANSACTIONS``, which needs an
  auto-commit transaction (a session ``run``), not a managed one.
* PageRank runs in GDS (Cypher projection → ``gds.pageRank.mutate`` → read back → drop).
  Without GDS it falls back to the GDS-identical scipy implementation on an edge snapshot,
  so scores never depend on the plugin being installed.
* The password never appears in ``repr``, logs or error messages.

We deliberately call GDS through Cypher rather than the ``graphdatascience`` client: the
same text is then linted with everything else, only one connection is needed, and the
client would only wrap these very procedure calls.
"""

from __future__ import annotations

import logging
import re
import sys
import uuid
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from scholarkg.errors import (
    ConfigError,
    CypherError,
    GraphNotFound,
    NotSupported,
    QueryLimitExceeded,
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
    ProgressFn,
    best_hits,
    bounded_timeout_ms,
    counted_changes,
    explore_check_limits,
    node_keys_in_chunks,
)
from scholarkg.store.batch_writes import BatchWriteStore, checked_pairs
from scholarkg.store.cypher_common import (
    check_params,
    chunked,
    clean_props,
    find_fulltext_index,
    merge_pairs_query,
    merge_relationships_query,
    rel_rows,
    run_batches,
    without_vectors,
)
from scholarkg.store.cypher_text import ShapeLimits, check_shape, comment_header
from scholarkg.store.named import render_named, without_empty_branches
from scholarkg.store.neo4j import dialect
from scholarkg.store.neo4j.gds import Neo4jGds, has_source_bias

if TYPE_CHECKING:
    import neo4j

    from scholarkg.config import Neo4jSettings
    from scholarkg.store.base import QueryPlan

log = logging.getLogger(__name__)

#: seconds ``db.awaitIndexes`` may wait for new indexes to come online
INDEX_TIMEOUT = 300
_USERINFO = re.compile(r"//[^/@]*@")
#: ``CALL { … } IN TRANSACTIONS`` cannot run inside a managed transaction.
_IN_TRANSACTIONS = re.compile(r"\bIN\s+(?:\d+\s+)?(?:CONCURRENT\s+)?TRANSACTIONS\b", re.I)
#: the header line of a read whose rows Neo4j sends as one record (:func:`rows_in_one_record`)
_ONE_RECORD = re.compile(
    r"^// rows-in-one-record: ([A-Za-z_][A-Za-z0-9_]*(?:, [A-Za-z_][A-Za-z0-9_]*)*)$", re.M
)


def rows_in_one_record(query: str) -> tuple[str, tuple[str, ...]] | None:
    """``query`` wrapped to return its rows as one record (``CALL () { … } RETURN
    collect([c1, c2, …])``), with its columns, when its header says ``// rows-in-one-record:
    c1, c2``; else ``None``.

    Why: a record costs the loader ~15 µs of Python in the driver (the Rust codec decodes the
    values; the record objects and the pull loop are Python). One branch of the identity
    look-up of a 2,000-work chunk, 36,574 (key, id) rows: 0.80 s a call of which the server's
    0.25 s; the same pairs as one record 0.21 s (bench_neo4j_record_rows.py). Opt-in, for
    reads whose every branch returns the listed columns (a ``UNION``'s do): ``collect`` of a
    list keeps nulls and the rows' order. FalkorDB reads the header as a comment."""
    found = _ONE_RECORD.search(comment_header(query))
    if found is None:
        return None
    columns = tuple(found.group(1).split(", "))
    return (
        f"CALL () {{\n{query}\n}}\nRETURN collect([{', '.join(columns)}]) AS rows_in_one_record",
        columns,
    )


def _import_driver() -> None:
    """Import the Neo4j driver without its optional pandas/pyarrow integration.

    The driver imports pandas and pyarrow at import time when they are installed (for
    ``Result.to_df``, which scholarkg never calls): about 0.9 s of CPU on every CLI command
    that opens a Neo4j store, a third of a warm ``graph pagerank``. Hiding them while the
    driver imports (only if nobody imported them yet; restored right after) leaves them
    importable for everything else.
    """
    if "neo4j" in sys.modules:
        return
    hidden = [m for m in ("pandas", "pyarrow", "pyarrow.compute") if m not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # None makes import raise ImportError
    try:
        import neo4j  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
_DURATION_MS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


def neo4j_duration_ms(text: str) -> int:
    """A Neo4j setting's duration (``15m``, ``1h30m``, ``500ms``, ``0s``) in milliseconds."""
    compact = text.strip().lower().replace(" ", "")
    parts = _DURATION_PART.findall(compact)
    if not parts or "".join(n + u for n, u in parts) != compact:
        raise ValueError(f"not a Neo4j duration: {text!r}")
    return round(sum(float(n) * _DURATION_MS[u] for n, u in parts))


def approx_bytes(values: Iterable[Any], budget: int) -> int:
    """About how many bytes ``values`` take as JSON, counted until past ``budget`` (a record
    of a 3-million-element list is not walked to the end to learn that it is too big)."""
    total = 0
    stack = list(values)
    while stack and total <= budget:
        value = stack.pop()
        if isinstance(value, str | bytes):
            total += len(value) + 2
        elif isinstance(value, dict):
            total += 2 + sum(len(str(k)) + 3 for k in value)
            stack.extend(value.values())
        elif isinstance(value, list | tuple):
            total += 2
            stack.extend(value)
        elif hasattr(value, "items") and callable(value.items):  # nodes, relationships
            stack.extend(dict(value.items()).values())
            total += 16
        elif hasattr(value, "nodes") and hasattr(value, "relationships"):  # paths
            stack.extend(value.nodes)
            stack.extend(value.relationships)
        else:
            total += 8
    return total


def _within(run: Callable[[], ExploreResult], seconds: float, limit_ms: int) -> ExploreResult:
    """``run()`` in a thread of its own, waited for ``seconds`` at most.

    Neo4j ends a transaction at its time limit but checks the limit between rows only: a
    query whose one row takes longer (a list comprehension over 20,000 x 20,000) is answered
    with the timeout only when that row is done (12.7 s for a 1 s limit, measured on 5.26).
    Past ``seconds`` the caller is told so; the thread waits for the server's answer on its
    own and drops it (the transaction is already ended: nothing it did is kept).
    """
    import threading

    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["result"] = run()
        except BaseException as err:  # handed to the caller's thread
            box["error"] = err

    thread = threading.Thread(target=target, name="neo4j-user-query", daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise QueryLimitExceeded(
            f"the query ran past its time limit of {limit_ms / 1000:g} s: Neo4j ended its "
            "transaction (nothing it did is kept) but checks that limit only between rows, "
            "so it may go on computing the row it is in for a while"
        )
    if "error" in box:
        raise box["error"]
    result: ExploreResult = box["result"]
    return result


def redact_uri(uri: str) -> str:
    """``bolt://user:secret@host`` → ``bolt://***@host``: URIs may carry credentials."""
    return _USERINFO.sub("//***@", uri)


#: value types the driver returns as they are (an identity-resolution look-up returns
#: ~30,000 rows of four of them per chunk)
_SCALARS = frozenset({str, int, float, bool, type(None)})


def plain(value: Any) -> Any:
    """Driver values → plain Python, the same shapes the FalkorDB store returns.

    Nodes and relationships become their property dicts, paths a list alternating node
    and relationship dicts, temporal values ISO-8601 strings, points ``str``.
    """
    if type(value) in _SCALARS:  # most values: returned before the driver's types are looked up
        return value
    from neo4j.graph import Node, Path, Relationship

    if isinstance(value, Node | Relationship):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, Path):
        # path order, not relationship direction: (a)<-[r]-(b) is [a, r, b]
        nodes, rels = value.nodes, value.relationships
        out: list[Any] = [plain(nodes[0])]
        for rel, node in zip(rels, nodes[1:], strict=True):
            out += [plain(rel), plain(node)]
        return out
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool | bytes):
        return value
    iso = getattr(value, "iso_format", None)
    return iso() if callable(iso) else str(value)


#: how the managed server's guard starts its message when it stops a query
GUARD_PREFIX = "scholarkg server guard:"


#: what Neo4j answers when an allocation inside a query failed
OUT_OF_HEAP = "Neo.TransientError.General.OutOfMemoryError"


def cypher_error(err: Exception, query: str | None = None) -> StoreError:
    """One clear line from a driver error (Neo4j's message spans lines with a caret)."""
    from neo4j.exceptions import (
        AuthError,
        Neo4jError,
        ServiceUnavailable,
        SessionExpired,
    )

    if isinstance(err, AuthError):
        return StoreError("Neo4j refused the credentials (check NEO4J_USER / NEO4J_PASSWORD)")
    if isinstance(err, ServiceUnavailable | SessionExpired):
        return ServerError(f"Neo4j is not reachable: {' '.join(str(err).split())}")
    message = getattr(err, "message", None) or str(err)
    first = str(message).strip().splitlines()[0] if str(message).strip() else type(err).__name__
    if GUARD_PREFIX in str(message):
        # the managed server's guard stopped it (neo4j-launcher's ServerGuard.java), maybe
        # inside a function ("Failed to invoke function …: Caused by: …")
        said = str(message).split(GUARD_PREFIX, 1)[1].strip().splitlines()[0]
        return QueryLimitExceeded("the managed Neo4j's guard: " + said)
    code = getattr(err, "code", None) if isinstance(err, Neo4jError) else None
    if code == OUT_OF_HEAP:
        # one allocation of this query failed (the server runs on: store/neo4j/server.py,
        # out_of_memory_arguments); a limit the query met, not a broken query
        return QueryLimitExceeded(
            "Neo4j ran out of heap for this query and stopped it (the server goes on): "
            "it built a value too large for the server's memory"
        )
    snippet = ""
    if query:
        q = " ".join(query.split())
        snippet = f" in: {q[:120]}{'…' if len(q) > 120 else ''}"
    prefix = f"[{code}] " if code else ""
    return CypherError(f"Neo4j rejected the query: {prefix}{first}{snippet}")


def connection_lost_message(mode: str) -> str:
    """What a user is told when the server closed the connection during their query and
    answers again on a new one (``Neo4jStore._answers_again``)."""
    from neo4j import READ_ACCESS

    kept = (
        "it wrote nothing"
        if mode == READ_ACCESS
        else "its transaction was rolled back unless it had committed: check its writes"
    )
    return (
        "Neo4j closed the connection while it ran this query and answers again on a new "
        f"one: the query ended in the server ({kept}); most often it built a value larger "
        "than the server's memory could hold"
    )


#: Neo4j's code for a session on a database the server does not have
DATABASE_NOT_FOUND = "Neo.ClientError.Database.DatabaseNotFound"


def _database_not_found(err: BaseException) -> bool:
    """``err`` (or the driver error it was raised from) says the database does not exist."""
    return any(getattr(e, "code", None) == DATABASE_NOT_FOUND for e in (err, err.__cause__) if e)


def _user_databases(driver: neo4j.Driver) -> list[str] | None:
    """The databases a store may be opened on (for the message naming a missing one);
    ``None`` when the server will not say (a user without the right to list them)."""
    try:
        records = driver.execute_query(
            dialect.USER_DATABASES, database_="system", routing_="r"
        ).records
    except Exception as err:
        log.debug("could not list the databases: %s", err)
        return None
    return [str(r["name"]) for r in records]


def detect_capabilities(driver: neo4j.Driver, database: str | None) -> frozenset[str]:
    """Full-text and vector search always; ``gds`` / ``apoc`` when the plugin answers."""
    caps = {"fulltext", "vector"}
    try:
        records = driver.execute_query(
            dialect.SHOW_PLUGIN_FUNCTIONS, database_=database, routing_="r"
        ).records
    except Exception as err:
        raise cypher_error(err, dialect.SHOW_PLUGIN_FUNCTIONS) from err
    names = {r["name"] for r in records}
    if "gds.version" in names:
        caps |= {"gds", "fastrp", "knn"}
    if "apoc.version" in names:
        caps.add("apoc")
    try:
        procs = driver.execute_query(
            dialect.SHOW_SCHOLARKG_PROCEDURES, database_=database, routing_="r"
        ).records
    except Exception as err:
        raise cypher_error(err, dialect.SHOW_SCHOLARKG_PROCEDURES) from err
    if procs:  # the managed server's launcher (Community's SHOW DATABASES lacks the txn id)
        caps.add("tx_id")
    return frozenset(caps)


def _plain_rows(
    records: Sequence[Any], columns: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The records as plain dicts; with ``columns``, the rows of a read run as one record
    (:func:`rows_in_one_record`)."""
    if columns is None:
        return [{k: plain(v) for k, v in rec.items()} for rec in records]
    return [
        {k: plain(v) for k, v in zip(columns, row, strict=True)}
        for row in records[0]["rows_in_one_record"]
    ]


def dropping_parameters(
    transform: Callable[[neo4j.Result], Any] | None = None,
) -> Callable[[neo4j.Result], Any]:
    """``execute_query``'s result transformer (``transform``, or ``Result.to_eager_result``)
    that then lets the statement's parameters go: the driver's copy of them
    (``ResultSummary.parameters``, made in ``Transaction.run``; the caller's own dict is not
    touched) is emptied once the result is read.

    Why: the driver's transaction and result refer to each other (the result's on-closed
    callback is a method of the transaction), so only the cyclic collector frees them, and
    the result keeps that copy: a write batch's rows, a look-up's 40,000 keys. A load
    freezes what survives each chunk (``loaders/collection_pace``), and such garbage stayed
    until the load ended: 210,000 objects every 40 s (``gc.DEBUG_SAVEALL``), a loading
    process of 2.1 GB after 330,000 works into a 1M-work graph (``bench_openalex.py
    --backend neo4j --update-new 300000``). Emptied, the rows go by reference counting;
    the cycle's few objects of the driver's wait for a collection. A retried transaction
    runs the caller's parameters again, copied afresh."""
    read = transform or _eager

    def run(result: neo4j.Result) -> Any:
        value = read(result)
        parameters = result.consume().parameters  # the summary read already: no round trip
        if isinstance(parameters, dict):
            parameters.clear()
        return value

    return run


def _eager(result: neo4j.Result) -> neo4j.EagerResult:
    return result.to_eager_result()


#: ``execute_query``'s default transformer, with the parameters let go (:func:`dropping_parameters`)
_EAGER = dropping_parameters()


class _Ahead(NamedTuple):
    """A write statement handed to the sender thread and not answered yet
    (:meth:`Neo4jStore.writes_ahead`)."""

    #: its managed transaction, running in the sender thread
    future: Future[Any]
    #: its text, for its error
    query: str
    #: gets its ``written`` count (``None``: a statement without one)
    written: Callable[[int], None] | None
    failed: Callable[[], None]


class Neo4jStore(BatchWriteStore):
    """One Neo4j database behind the ``GraphStore`` protocol."""

    backend = "neo4j"
    _dialect = dialect

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str | None = None,
        *,
        capabilities: Iterable[str] = ("fulltext", "vector"),
        uri: str = "",
        user: str = "",
    ) -> None:
        """Wrap an open driver; ``from_settings`` is the usual way in (it checks the server)."""
        self._driver = driver
        self._database = database
        self.graph = database or "neo4j"
        self.capabilities = frozenset(capabilities)
        self._uri = redact_uri(uri)
        self._user = user
        self._schema: SchemaSpec = default_schema()
        self._vector_props: set[str] = {v.property for v in default_schema().vector}
        #: the GDS catalogue (``store/neo4j/gds.py``), where the server has the plugin
        self.gds: Neo4jGds | None = Neo4jGds(self) if "gds" in self.capabilities else None
        #: db.transaction.timeout in ms (0: none), read once
        self._server_timeout: int | None = None
        #: the write statement sent ahead and not answered yet (at most one)
        self._unanswered: _Ahead | None = None
        #: the one thread statements written ahead run in (made when first needed)
        self._sender: ThreadPoolExecutor | None = None

    @classmethod
    def from_settings(cls, s: Neo4jSettings) -> Neo4jStore:
        """Connect with ``NEO4J_URI`` / ``NEO4J_USER`` / ``NEO4J_PASSWORD`` / ``NEO4J_DATABASE``."""
        if not s.uri:
            raise ConfigError("the neo4j backend needs NEO4J_URI (e.g. bolt://localhost:7687)")
        try:
            _import_driver()
            from neo4j import GraphDatabase, NotificationDisabledClassification
        except ImportError as err:  # pragma: no cover - depends on the installed extras
            raise ConfigError(
                "the neo4j backend needs the driver: pip install 'scholarkg[neo4j]'"
            ) from err
        auth = (s.user, s.password) if s.password is not None else None
        try:
            # One graph holds several families, so a query often names a label, type or
            # property another family owns and this graph lacks (RPG asks for HAS_RESULT on
            # a graph with no Papers with Code results): the server's "does not exist"
            # notifications are expected here, and the driver logged each as a WARNING on
            # every run. Deprecation/performance notifications stay on.
            driver = GraphDatabase.driver(
                s.uri,
                auth=auth,
                notifications_disabled_classifications=[
                    NotificationDisabledClassification.UNRECOGNIZED
                ],
            )
        except Exception as err:  # invalid URI scheme and the like: never echo credentials
            raise ConfigError(f"cannot use NEO4J_URI {redact_uri(s.uri)!r}: {err}") from None
        try:
            driver.verify_connectivity()
            caps = detect_capabilities(driver, s.database)
        except Exception as err:
            try:
                if s.database is not None and _database_not_found(err):
                    # the one error every command would meet first: said as the embedded
                    # store says it, with the databases there are (Community has one)
                    raise GraphNotFound(
                        s.database,
                        _user_databases(driver),
                        hint="a graph is a Neo4j database; NEO4J_DATABASE names one of them",
                    ) from None
            finally:
                driver.close()
            if isinstance(err, StoreError):
                raise
            raise cypher_error(err) from None
        store = cls(driver, s.database, capabilities=caps, uri=s.uri, user=s.user)
        log.info("connected to %r (capabilities: %s)", store, ", ".join(sorted(caps)))
        return store

    def __repr__(self) -> str:
        return f"Neo4jStore(uri={self._uri!r}, user={self._user!r}, database={self.graph!r})"

    # -- raw access --------------------------------------------------------------------
    def _execute(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        read: bool = False,
        transform: Callable[[Any], Any] | None = None,
    ) -> Any:
        """``execute_query`` (managed transaction, retried on transient errors)."""
        self.settle()
        check_params(params)
        kwargs: dict[str, Any] = {
            "database_": self._database,
            "routing_": "r" if read else "w",
            "result_transformer_": _EAGER if transform is None else dropping_parameters(transform),
        }
        try:
            return self._driver.execute_query(query, dict(params or {}), **kwargs)
        except Exception as err:
            raise cypher_error(err, query) from err

    def _autocommit(self, query: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        """Implicit transaction: required by ``CALL … IN TRANSACTIONS`` (no driver retry)."""
        self.settle()
        check_params(params)
        try:
            with self._driver.session(database=self._database) as session:
                rows: list[Any] = dropping_parameters(list)(session.run(query, dict(params or {})))
                return rows
        except Exception as err:
            raise cypher_error(err, query) from err

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        if _IN_TRANSACTIONS.search(query):
            records = self._autocommit(query, params)
        elif (one := rows_in_one_record(query)) is not None:
            return _plain_rows(self._execute(one[0], params).records, one[1])
        else:
            records = self._execute(query, params).records
        return _plain_rows(records)

    # -- writes (shared in BatchWriteStore) --------------------------------------------
    def _send(self, query: str, params: Mapping[str, Any]) -> Any:
        if self._ahead_to is not None:
            self._send_ahead(query, params, counted=False)
            return None
        return self._execute(query, params)

    def _send_counted(self, query: str, params: Mapping[str, Any]) -> int:
        if self._ahead_to is not None:
            self._send_ahead(query, params, counted=True)
            return 0
        return self._count_written(self._execute(query, params))

    def _count_written(self, result: Any) -> int:
        return int(result.records[0][0]) if result.records else 0

    def _send_vector_payload(self, payload: tuple[str, dict[str, Any] | None]) -> int:
        query, params = payload
        return self._count_written(self._execute(query, params or {}))

    # -- writing ahead (BatchWriteStore.writes_ahead) -----------------------------------
    @contextmanager
    def writes_ahead(
        self, written: Callable[[int], None], failed: Callable[[], None]
    ) -> Iterator[None]:
        """Write statements run in a sender thread, each in its own managed transaction,
        while the caller goes on: the server executes one while Python builds the next
        (and resolves the next records). One statement at most is unanswered: sending the
        next one, or any other call that reaches the server, waits for its answer first
        (:meth:`settle`), so nothing runs after a failed statement and its error is its own.
        The driver encodes the parameters in the sender thread: the batches the shared
        writes send are lists and dicts built for that statement (``run_batches``,
        ``node_rows``, ``rel_rows``, ``checked_pairs``), never changed after the call.
        """
        with self._writing_ahead_to(written, failed):
            yield

    def _send_ahead(self, query: str, params: Mapping[str, Any], *, counted: bool) -> None:
        """``execute_query`` handed to the sender thread (:meth:`writes_ahead`)."""
        written, failed, args = self._ahead_prepared(params, lambda: dict(params))
        self.settle()
        future = self._sender_thread().submit(
            self._driver.execute_query, query, args, database_=self._database, routing_="w",
            result_transformer_=_EAGER,
        )  # fmt: skip
        self._unanswered = _Ahead(future, query, written if counted else None, failed)

    def _sender_thread(self) -> ThreadPoolExecutor:
        """The one thread statements sent ahead run in, in the order they were sent."""
        if self._sender is None:
            self._sender = ThreadPoolExecutor(1, thread_name_prefix="neo4j-write-ahead")
        return self._sender

    #: reads sent ahead run in the sender thread, behind the writes sent before them
    reads_ahead = True

    def read_named_ahead(
        self, name: str, params: Mapping[str, Any], **identifiers: str
    ) -> Callable[[], list[dict[str, Any]]]:
        """The read handed to the sender thread (:meth:`writes_ahead`) behind the statements
        sent before it: that thread runs them one at a time in the order they were sent,
        each committed before the next starts, so the read sees the graph after them and
        before any statement sent after it, while this thread goes on. The function
        returned waits for its rows; it raises the read's error, or the error of the statement
        written ahead just before it (the rows would miss its writes).

        Why: identity resolution sends the next chunk's look-up while a chunk resolves
        (``IdentityResolver._send_lookup_ahead``); run at once, the loading thread waited
        for its seeks (the dearest statement of an update on Neo4j, bench_openalex_server_time.py)
        instead of resolving meanwhile. The sender thread keeps one statement unanswered at
        most as before: the read is not :attr:`_unanswered`, and the next write's settle
        waits only for the write before it."""
        query = without_empty_branches(name, render_named(name, self.dialect, identifiers), params)
        if query is None:
            return list
        check_params(params)
        one = rows_in_one_record(query)
        sent = query if one is None else one[0]
        before = self._unanswered
        future = self._sender_thread().submit(
            self._driver.execute_query, sent, dict(params), database_=self._database, routing_="r",
            result_transformer_=_EAGER,
        )  # fmt: skip

        def rows() -> list[dict[str, Any]]:
            if before is not None and before is self._unanswered:
                self.settle()  # answered before the read ran: its count, or its own error
            elif before is not None and before.future.exception() is not None:
                raise StoreError(f"{name} was not read: a statement before it failed")
            try:
                records = future.result().records
            except Exception as err:
                raise cypher_error(err, sent) from err
            return _plain_rows(records, None if one is None else one[1])

        return rows

    def settle(self) -> None:
        """Wait for the statement written ahead, if any: its count to its ``written``, its
        error raised (after its ``failed``). Interrupted while it runs (Ctrl-C), it stays
        unanswered: the next call that reaches the server waits for it first."""
        ahead = self._unanswered
        if ahead is None:
            return
        try:
            result = ahead.future.result()
        except BaseException as err:
            if not ahead.future.done():  # the wait was interrupted, not the statement
                raise
            self._unanswered = None
            ahead.failed()
            if isinstance(err, Exception):
                raise cypher_error(err, ahead.query) from err
            raise
        self._unanswered = None
        if ahead.written is not None:
            ahead.written(self._count_written(result))

    #: relationships from new start nodes: CREATEd on the server's own test
    #: (``dialect.merge_grouped_relationships_query``), whatever the caller's ``new_starts``
    _creates_from_new_starts = False

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
        """Without a merge key the rows go grouped by start node
        (``dialect.merge_grouped_relationships_query``: ``CREATE`` from a start node with no
        such relationship yet, ``MERGE`` from the others)."""
        if key:
            return super()._merge_rows(
                rel_type, start_label, end_label, rows,
                key=key, batch_size=batch_size, progress=progress,
            )  # fmt: skip
        grouped = dialect.merge_grouped_relationships_query(
            rel_type, start_label, end_label, shared_props=False
        )
        one_by_one = merge_relationships_query(rel_type, start_label, end_label)

        def send(batch: list[dict[str, Any]]) -> int:
            groups = dialect.group_by_start((r["start"], r["end"], r["props"]) for r in batch)
            if groups is None:  # a pair twice: each row MERGEd in turn, as everywhere
                return self._send_counted(one_by_one, {"rows": batch})
            return self._send_counted(grouped, {"groups": groups})

        return run_batches(send, rel_rows(rows), batch_size=batch_size, progress=progress)[1]

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
        """The shared-properties rows grouped by start node, like :meth:`merge_relationships`."""
        grouped = dialect.merge_grouped_relationships_query(
            rel_type, start_label, end_label, shared_props=True
        )
        one_by_one = merge_pairs_query(rel_type, start_label, end_label)
        clean = clean_props(props)
        written = 0
        done = 0
        for batch in chunked(pairs, batch_size):
            rows = checked_pairs(batch, done)
            groups = dialect.group_by_start(rows)
            if groups is None:
                written += self._send_counted(one_by_one, {"pairs": rows, "props": clean})
            else:
                written += self._send_counted(grouped, {"groups": groups, "props": clean})
            done += len(rows)
        return written

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
        """The lists as :meth:`_merge_pairs`' groups by start node, as they come (each pair
        once, so no repeat to fall back on); the server decides CREATE or MERGE per start
        node, whatever ``new_starts``. The node hints are not used: Neo4j's look-up reads
        none."""
        grouped = dialect.merge_grouped_relationships_query(
            rel_type, start_label, end_label, shared_props=True
        )
        groups = [[start, list(ends)] for start, ends in lists.items()]
        return self._send_groups(grouped, groups, batch_size, {"props": props})

    # -- schema ------------------------------------------------------------------------
    def _index_names(self) -> set[str]:
        rows = self.run(dialect.SHOW_INDEXES) + self.run(dialect.SHOW_CONSTRAINTS)
        return {str(r["name"]) for r in rows}

    def _await_indexes(self) -> None:
        self._execute(dialect.AWAIT_INDEXES, {"timeout": INDEX_TIMEOUT})
        failed = [r for r in self.run(dialect.SHOW_INDEXES) if r["state"] == "FAILED"]
        if failed:
            names = ", ".join(str(r["name"]) for r in failed)
            raise StoreError(f"Neo4j index(es) failed to build: {names} (see SHOW INDEXES)")

    def apply_schema(self, schema: SchemaSpec | None = None) -> list[str]:
        """Run the idempotent DDL and wait for ONLINE; returns the names it created."""
        spec = schema or default_schema()
        self._schema = spec
        self._vector_props |= {v.property for v in spec.vector}
        before = self._index_names()
        for statement in dialect.schema_ddl(spec):
            self._execute(statement)
        self._await_indexes()
        return sorted(self._index_names() - before)

    def ensure_vector_index(self, index: VectorIndex) -> None:
        self._execute(dialect.vector_index_ddl(index))
        self._vector_props.add(index.property)
        self._await_indexes()

    # -- search ------------------------------------------------------------------------
    def _hit(self, node: Any, score: float, *, drop: Iterable[str] = ()) -> Hit:
        props = without_vectors(plain(node), (*self._vector_props, *drop))
        return Hit(id=str(props.get("id")), score=float(score), properties=props)

    def fulltext(
        self, index: str, terms: Sequence[str], *, k: int = 100, require_all: bool = False
    ) -> list[Hit]:
        spec = find_fulltext_index(index, self._schema)
        q = dialect.fulltext_query_text(terms, require_all=require_all)
        if not q:
            return []
        records = self._execute(
            dialect.FULLTEXT_SEARCH, {"index": spec.name, "q": q, "k": int(k)}, read=True
        ).records
        return [self._hit(r["node"], r["score"]) for r in records]

    def vector(self, index: VectorIndex, vector: Sequence[float], *, k: int = 10) -> list[Hit]:
        check_label(index.label)
        check_property(index.property)
        records = self._execute(
            dialect.vector_search_query(index.property),
            {
                "index": index.name,
                "k": max(int(k), VECTOR_MIN_FETCH),
                "v": [float(x) for x in vector],
            },
            read=True,
        ).records
        hits = [self._hit(r["node"], r["score"], drop=(index.property,)) for r in records]
        return best_hits(hits, k)

    # -- inspection --------------------------------------------------------------------
    def counts(self) -> GraphCounts:
        """Counts per whitelisted label and type, each from Neo4j's count store (O(1))."""
        nodes: dict[str, int] = {}
        for row in self.run(dialect.DB_LABELS):
            label = str(row["label"])
            if label not in node_labels():
                log.debug("ignoring label %r: not a scholarkg label", label)
                continue
            n = self.run(dialect.count_nodes_query(label))[0]["n"]
            if n:
                nodes[label] = int(n)
        rels: dict[str, int] = {}
        for row in self.run(dialect.DB_REL_TYPES):
            rtype = str(row["relationshipType"])
            if rtype not in rel_types():
                log.debug("ignoring relationship type %r: not a scholarkg type", rtype)
                continue
            n = self.run(dialect.count_relationships_query(rtype))[0]["n"]
            if n:
                rels[rtype] = int(n)
        return GraphCounts(nodes=nodes, relationships=rels)

    def edge_snapshot(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
    ) -> EdgeSnapshot:
        check_label(node_label)
        check_rel_type(rel_type)
        if node_ids is None:
            return self._whole_label_snapshot(node_label, rel_type, weight_property)
        params = {"ids": list(dict.fromkeys(str(x) for x in node_ids))}

        def node_list(result: Any) -> list[str]:
            return [str(rec["id"]) for rec in result]

        ids: list[str] = self._execute(
            dialect.snapshot_nodes_query(node_label, subset=True),
            params,
            read=True,
            transform=node_list,
        )
        found = set(ids)
        ids = [x for x in params["ids"] if x in found]  # the caller's order, as embedded
        index = {node_id: i for i, node_id in enumerate(ids)}

        def edge_arrays(result: Any) -> tuple[list[int], list[int], list[float]]:
            src, dst, weight = [], [], []
            for rec in result:
                a, b = index.get(str(rec["src"])), index.get(str(rec["dst"]))
                if a is None or b is None:
                    continue
                src.append(a)
                dst.append(b)
                weight.append(float(rec["weight"]))
            return src, dst, weight

        src, dst, weight = self._execute(
            dialect.snapshot_edges_query(node_label, rel_type, weight_property, subset=True),
            params,
            read=True,
            transform=edge_arrays,
        )
        return EdgeSnapshot(
            ids=ids,
            src=np.asarray(src, dtype=np.int64),
            dst=np.asarray(dst, dtype=np.int64),
            weight=np.asarray(weight, dtype=np.float64),
        )

    #: nodes per page of a whole-label snapshot (about 5 edges each in a citation graph)
    SNAPSHOT_PAGE = 100_000

    def _whole_label_snapshot(
        self, node_label: str, rel_type: str, weight_property: str | None
    ) -> EdgeSnapshot:
        """Every ``node_label`` node and ``rel_type`` edge, read as columns: the ids in one
        list, the edges page by page of :attr:`SNAPSHOT_PAGE` source nodes (a 1M-node, 5M-edge
        graph read as records took 184 s, nearly all of it the driver decoding records)."""
        row = self._execute(dialect.snapshot_all_ids_query(node_label), read=True).records[0]
        ids = [str(x) for x in row["ids"]]
        index = {node_id: i for i, node_id in enumerate(ids)}
        query = dialect.snapshot_edge_columns_query(node_label, rel_type, weight_property)
        src_parts, dst_parts, weight_parts = [], [], []
        for start in range(0, len(ids), self.SNAPSHOT_PAGE):
            page = ids[start : start + self.SNAPSHOT_PAGE]
            cols = self._execute(query, {"ids": page}, read=True).records[0]
            a = np.fromiter((index.get(str(x), -1) for x in cols["src"]), np.int64)
            b = np.fromiter((index.get(str(x), -1) for x in cols["dst"]), np.int64)
            keep = (a >= 0) & (b >= 0)  # a node written since the id list was read
            src_parts.append(a[keep])
            dst_parts.append(b[keep])
            weight_parts.append(np.asarray(cols["weight"], dtype=np.float64)[keep])
        empty_i, empty_f = np.zeros(0, np.int64), np.zeros(0, np.float64)
        return EdgeSnapshot(
            ids=ids,
            src=np.concatenate(src_parts) if src_parts else empty_i,
            dst=np.concatenate(dst_parts) if dst_parts else empty_i,
            weight=np.concatenate(weight_parts) if weight_parts else empty_f,
        )

    # -- PageRank ----------------------------------------------------------------------
    def pagerank(
        self,
        node_label: str,
        rel_type: str,
        *,
        node_ids: Sequence[str] | None = None,
        weight_property: str | None = None,
        config: PageRankConfig | None = None,
    ) -> PageRankResult:
        """Every node's PageRank: a candidate set in scipy, the whole graph in GDS.

        ``node_ids`` (a ranker's candidates): the subgraph they induce is read with an index
        seek per id (its size is the candidates', not the graph's) and ranked by the
        GDS-identical scipy iteration, as on the embedded store: creating and dropping a
        GDS graph per ranked query cost more than the ranking. Whole graph: GDS on a
        throw-away projection (native; Cypher aggregation when weighted), scipy without
        GDS. For the top ``k`` or a few nodes' scores, ``graphalgo.resident`` reads them from
        a resident projection instead, without returning every score.
        """
        from scholarkg.store.pagerank import check_pagerank_config

        cfg = config or PageRankConfig()
        check_pagerank_config(cfg)
        if node_ids is not None:
            return self._pagerank_scipy(node_label, rel_type, node_ids, weight_property, cfg)
        gds = self.gds
        if gds is None:
            log.info("GDS not installed: PageRank runs in scipy with GDS semantics")
            return self._pagerank_scipy(node_label, rel_type, node_ids, weight_property, cfg)
        if has_source_bias(cfg) and gds.source_bias_refused:
            return self._pagerank_scipy(node_label, rel_type, node_ids, weight_property, cfg)
        graph = f"scholarkg_pr_{uuid.uuid4().hex[:12]}"
        try:
            if weight_property is None:
                gds.project_native(graph, node_label, (rel_type,))
            else:
                gds.project_graph(graph, node_label, (rel_type,), weight_property=weight_property)
            return gds.pagerank_projected(
                graph,
                node_label,
                cfg,
                weighted=weight_property is not None,
                node_ids=node_ids,
                property_name=dialect.PAGERANK_PROPERTY,
            )
        except NotSupported:  # this GDS cannot weight source nodes: same semantics in scipy
            return self._pagerank_scipy(node_label, rel_type, node_ids, weight_property, cfg)
        finally:
            try:
                gds.drop_projected(graph)
            except StoreError as err:  # never mask the real error; the projection is on heap
                log.warning("could not drop GDS projection %s: %s", graph, err)

    def write_fingerprint(self) -> str:
        """A token that changes with every committed write to this database.

        Neo4j's last committed transaction id (ids only grow), with the database's start and
        creation times so a restart or a re-created database never matches an old token.
        Enterprise reports the id in ``SHOW DATABASES``; Community leaves it empty, and the
        managed server's ``scholarkg.lastCommittedTxId()`` procedure reads it instead.
        Resident projections are rebuilt when it moves (graphalgo/projection.py).
        """
        name = self._database
        if name is None:  # what this store's sessions use: the user's home database
            name = str(self._system(dialect.HOME_DATABASE)[0]["name"])
        rows = self._system(dialect.DATABASE_WRITE_STATE, {"name": name})
        if len(rows) == 1 and rows[0]["lastCommittedTxn"] is None and "tx_id" in self.capabilities:
            tx = self._execute(dialect.LAST_COMMITTED_TX, read=True).records[0]["txId"]
            r = rows[0]
            return f"{name}:{r['created']}:{r['started']}:{tx}"
        if len(rows) != 1 or rows[0]["lastCommittedTxn"] is None:
            raise NotSupported(
                f"Neo4j reports no single online writer with a last committed transaction "
                f"for database {name!r} ({len(rows)} rows); resident projections cannot tell "
                "when it changes"
            )
        r = rows[0]
        return f"{name}:{r['created']}:{r['started']}:{r['lastCommittedTxn']}"

    def graph_names(self) -> list[str]:
        return [str(r["name"]) for r in self._system(dialect.USER_DATABASES)]

    def graph_exists(self) -> bool:
        """The configured database is there (``NEO4J_DATABASE``; without one, the user's home
        database, which the server always has). Opening the store on a missing one already
        fails (``from_settings``), so this is true of any store opened that way. Neo4j's
        database names are case-insensitive (it lists them lower-cased): ``Papers`` opened
        the database ``papers`` and was then refused as missing."""
        if self._database is None:
            return True
        return self._database.lower() in {name.lower() for name in self.graph_names()}

    def _system(self, query: str, params: Mapping[str, Any] | None = None) -> list[Any]:
        """An administration command (``SHOW DATABASES``) on the ``system`` database."""
        self.settle()
        try:
            return list(
                self._driver.execute_query(
                    query, dict(params or {}), database_="system", routing_="r"
                ).records
            )
        except Exception as err:
            raise cypher_error(err, query) from err

    def _pagerank_scipy(
        self,
        label: str,
        rel_type: str,
        node_ids: Sequence[str] | None,
        weight_property: str | None,
        cfg: PageRankConfig,
    ) -> PageRankResult:
        from scholarkg.store.pagerank import pagerank_on_snapshot

        snap = self.edge_snapshot(
            label, rel_type, node_ids=node_ids, weight_property=weight_property
        )
        return pagerank_on_snapshot(snap, cfg, weighted=weight_property is not None, label=label)

    # -- lifecycle ---------------------------------------------------------------------
    def clear(self) -> None:
        """Delete every node and relationship (in batches), then constraints and indexes,
        and scholarkg's GDS projections (copies of the deleted graph, held on the heap)."""
        if self.gds is not None:
            for name in self.gds.projected_graphs("scholarkg_"):
                self.gds.drop_projected(name)
        self._autocommit(dialect.DELETE_ALL_RELATIONSHIPS)
        self._autocommit(dialect.DELETE_ALL)
        for row in self.run(dialect.SHOW_CONSTRAINTS):
            self._execute(dialect.DROP_CONSTRAINT, {"name": row["name"]})
        for row in self.run(dialect.SHOW_INDEXES):
            if row.get("owningConstraint") is None:
                self._execute(dialect.DROP_INDEX, {"name": row["name"]})
        self._schema = default_schema()

    def compact(self) -> None:
        """No-op: Neo4j checkpoints its transaction log itself."""

    def close(self) -> None:
        try:
            self.settle()
        except Exception as err:  # the caller settles what it needs; never mask its error
            log.warning("a write sent ahead failed as the store closed: %s", err)
        if self._sender is not None:
            self._sender.shutdown()
            self._sender = None
        try:
            self._driver.close()
        except Exception as err:  # closing must never mask the caller's own error
            log.debug("closing the Neo4j driver: %s", err)

    # -- a user's query (scholarkg explore, scholarkg cypher) -----------------------------
    #: what Neo4j's parser takes: it recurses, and overflows its stack (no answer, ever)
    #: between 200 and 300 levels of nested lists (5.26; 1,000 parentheses in issue #37)
    shape_limits = ShapeLimits(
        server="Neo4j",
        max_depth=100,
        why="deeper, Neo4j 5.26's parser overflows its stack and never answers",
    )

    def server_timeout_ms(self) -> int | None:
        """``db.transaction.timeout`` (``None``: 0, or a server that will not say)."""
        if self._server_timeout is None:
            try:
                rows = self._execute(dialect.TRANSACTION_TIMEOUT_SETTING, read=True).records
                value = str(rows[0]["value"]) if rows else "0"
                self._server_timeout = neo4j_duration_ms(value)
            except (StoreError, ValueError) as err:
                log.debug("no db.transaction.timeout from the server: %s", err)
                self._server_timeout = 0
        return self._server_timeout or None

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
        """An auto-commit transaction in a READ session (WRITE with ``allow_writes``).

        The server refuses writes in a READ session and ends the transaction at the
        timeout, which a client may set *shorter* than the server's own but, in Neo4j 5,
        also longer (it replaces ``db.transaction.timeout``): so it is bounded here by the
        server's. Records are pulled a batch at a time and the stream is cut after the row
        limit or the byte limit; the rest is discarded with the session, never sent.
        """
        import time

        from neo4j import READ_ACCESS, WRITE_ACCESS, Query

        explore_check_limits(timeout_ms, row_limit)
        check_shape(query, self.shape_limits)
        self.settle()
        limit_ms = bounded_timeout_ms(timeout_ms, self.server_timeout_ms())
        mode = WRITE_ACCESS if allow_writes else READ_ACCESS
        start = time.perf_counter()

        def run() -> ExploreResult:
            return self._explore_records(
                Query(query, timeout=limit_ms / 1000), params, mode, row_limit, max_bytes
            )

        out = _within(run, limit_ms / 1000 + WATCHDOG_GRACE, limit_ms)
        out.elapsed_ms = (time.perf_counter() - start) * 1000
        return out

    def _explore_records(
        self, query: Any, params: Mapping[str, Any] | None, mode: str, row_limit: int,
        max_bytes: int,
    ) -> ExploreResult:  # fmt: skip
        """``explore``'s session: the records pulled a batch at a time, cut at the limits."""
        try:
            with self._driver.session(
                database=self._database,
                default_access_mode=mode,
                fetch_size=min(int(row_limit) + 1, 1_000),
            ) as session:
                result = session.run(query, dict(params or {}))
                out = ExploreResult(columns=list(result.keys()))
                size = 0
                for i, record in enumerate(result):
                    if i >= row_limit:
                        out.truncated, out.limited_by = True, "rows"
                        break
                    size += approx_bytes(record.values(), max_bytes - size)
                    if size > max_bytes:
                        out.truncated, out.limited_by = True, "bytes"
                        break
                    out.rows.append(
                        [_explore_value(v, out, self._vector_props) for v in record.values()]
                    )
                if not out.truncated:  # the summary comes once every record is read
                    out.changes = _changes(result.consume().counters)
        except RecursionError:
            raise QueryLimitExceeded("a value in the reply is nested too deep to show") from None
        except Exception as err:
            error = cypher_error(err, query.text)
            if isinstance(error, ServerError) and self._answers_again():
                raise QueryLimitExceeded(connection_lost_message(mode)) from err
            raise error from err
        return out

    def _answers_again(self) -> bool:
        """Whether the server answers ``RETURN 1`` on a fresh connection within 5 s.

        Why: a connection the server closed while it ran a user's query, the server itself
        still up, is that query's end, not a server down (the slow suite's growers on a heap
        mostly held by GDS graphs: one CI run in many lost its connection that way and was
        told "Neo4j is not reachable" while the server answered the next query at once).
        """
        from neo4j import Query

        try:
            with self._driver.session(database=self._database) as session:
                return session.run(Query("RETURN 1 AS x", timeout=5)).single() is not None
        except Exception:
            return False

    def explore_neighbours(
        self, ref: str, *, limit: int = 25, timeout_ms: int = 10_000
    ) -> ExploreResult:
        return self.explore(
            dialect.EXPLORE_NEIGHBOURS,
            {"ref": str(ref), "limit": int(limit)},
            timeout_ms=timeout_ms,
            row_limit=max(1, int(limit)),
        )

    def explore_node_keys(
        self, refs: Sequence[str], *, timeout_ms: int = 10_000
    ) -> dict[str, GraphNode]:
        ids = sorted({str(r) for r in refs})
        return node_keys_in_chunks(self.explore, dialect.EXPLORE_NODE_KEYS, ids, timeout_ms)

    def explain(
        self, query: str, params: Mapping[str, Any] | None = None, *, timeout_ms: int = 10_000
    ) -> QueryPlan:
        """``EXPLAIN`` in a READ session (shape-checked first): the plan's operators and the
        query type."""
        from neo4j import READ_ACCESS, Query

        from scholarkg.store.base import QueryPlan

        check_shape(query, self.shape_limits)
        self.settle()
        try:
            with self._driver.session(
                database=self._database, default_access_mode=READ_ACCESS
            ) as session:
                summary = session.run(
                    Query("EXPLAIN " + query, timeout=timeout_ms / 1000), dict(params or {})
                ).consume()
        except Exception as err:
            raise cypher_error(err, query) from err
        ops: list[tuple[str, str]] = []
        stack = [summary.plan or {}]
        while stack:
            step = stack.pop()
            name = str(step.get("operatorType", "")).split("@")[0].replace(" ", "")
            ops.append((name, str((step.get("args") or {}).get("Details", ""))))
            stack.extend(reversed(step.get("children") or []))
        return QueryPlan(operators=tuple(ops), query_type=summary.query_type)

    def explore_indexes(self) -> list[dict[str, Any]]:
        """``SHOW INDEXES`` (constraints appear through their owned index)."""
        return [
            {
                "label": ", ".join(row.get("labelsOrTypes") or []),
                "entity": "",
                "properties": list(row.get("properties") or []),
                "type": str(row["type"])
                + (f" ({row['owningConstraint']})" if row.get("owningConstraint") else ""),
                "state": str(row["state"]),
            }
            for row in self.run(dialect.SHOW_INDEXES)
        ]


def gds_client(s: Neo4jSettings) -> Any:
    """A ``graphdatascience.GraphDataScience`` client on the same server and credentials.

    The store itself calls GDS procedures through Cypher (one connection, and the text is
    linted offline by the Neo4j conformance test); this is for researchers who want GDS's
    Python API beside it (FastRP, kNN, node2vec, ``gds.graph.construct`` from DataFrames).
    """
    try:
        from graphdatascience import GraphDataScience
    except ImportError as err:  # pragma: no cover - depends on the installed extras
        raise ConfigError(
            "GDS's Python client is not installed: pip install 'scholarkg[neo4j]'"
        ) from err
    if not s.uri:
        raise ConfigError("GDS needs NEO4J_URI (e.g. bolt://localhost:7687)")
    auth = (s.user, s.password) if s.password is not None else None
    try:
        return GraphDataScience(s.uri, auth=auth, database=s.database)
    except Exception as err:  # never echo credentials
        raise ConfigError(
            f"cannot open GDS at {redact_uri(s.uri)!r}: {type(err).__name__}"
        ) from None


def _changes(counters: neo4j.SummaryCounters) -> dict[str, int]:
    """Neo4j's summary counters under the names both backends share (``CHANGE_COUNTERS``)."""
    return counted_changes(
        {
            "nodes created": counters.nodes_created,
            "nodes deleted": counters.nodes_deleted,
            "relationships created": counters.relationships_created,
            "relationships deleted": counters.relationships_deleted,
            "properties set": counters.properties_set,
            "labels added": counters.labels_added,
            "labels removed": counters.labels_removed,
            "indexes created": counters.indexes_added,
            "indexes deleted": counters.indexes_removed,
            "constraints created": counters.constraints_added,
            "constraints deleted": counters.constraints_removed,
        }
    )


def _explore_value(value: Any, out: ExploreResult, vector_props: set[str]) -> Any:
    """A driver value as an explorer cell, recording nodes/relationships in ``out``."""
    from neo4j.graph import Node, Path, Relationship

    from scholarkg.store.base import GraphNode, GraphRel, explore_property

    def props(entity: Node | Relationship) -> dict[str, Any]:
        return {str(k): explore_property(str(k), plain(v), vector_props) for k, v in entity.items()}

    if isinstance(value, Node):
        ref = value.element_id
        if ref not in out.nodes:
            labels = tuple(sorted(value.labels))
            out.nodes[ref] = GraphNode(ref=ref, labels=labels, properties=props(value))
        return {"~node": ref}
    if isinstance(value, Relationship):
        ref = value.element_id
        if ref not in out.relationships:
            start, end = value.start_node, value.end_node
            out.relationships[ref] = GraphRel(
                ref=ref,
                type=str(value.type),
                start=start.element_id if start is not None else "",
                end=end.element_id if end is not None else "",
                properties=props(value),
            )
            for node in (start, end):  # endpoints travel with the relationship
                if node is not None and node.element_id not in out.nodes and node.labels:
                    _explore_value(node, out, vector_props)
        return {"~rel": ref}
    if isinstance(value, Path):
        refs: list[str] = [_explore_value(value.nodes[0], out, vector_props)["~node"]]
        for rel, node in zip(value.relationships, value.nodes[1:], strict=True):
            refs.append(_explore_value(rel, out, vector_props)["~rel"])
            refs.append(_explore_value(node, out, vector_props)["~node"])
        return {"~path": refs}
    if isinstance(value, dict):
        return {str(k): _explore_value(v, out, vector_props) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_explore_value(v, out, vector_props) for v in value]
    return plain(value)

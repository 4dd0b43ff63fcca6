"""What a query typed into ``scholarkg explore`` may do, checked on its text and the plan.

The explorer is read-only unless started with ``--allow-writes``, and read-only is one
promise on both backends: no writes or schema changes, no file or URL access, no procedure
outside :data:`EXPLORER_PROCEDURES` (schema listings, index lookups and graph algorithms
that only read), no function with a namespace outside :data:`EXPLORER_FUNCTIONS` (GDS's
``gds.graph.project`` is an aggregation *function* that builds an in-memory graph on the
heap), and no SHOW command whose procedure is refused (``SHOW SETTINGS`` is
``dbms.listConfig``). A READ session (Neo4j) or ``GRAPH.RO_QUERY`` (FalkorDB) refuses
writes, but neither refuses ``LOAD CSV`` (which reads files, and on both backends fetches
URLs), a read-mode procedure such as APOC's ``apoc.load.json``, nor a GDS projection.

So before running a query the explorer reads it twice:

* its text, with :mod:`scholarkg.store.cypher_text`, which reads it the way *each* server
  would (Neo4j decodes ``\\uXXXX`` escapes anywhere in the text, FalkorDB does not; backtick
  and comment rules differ) and takes every call any reading shows: procedures, functions
  with a namespace, SHOW commands;
* the database's own plan (``GraphStore.explain``): it says whether the query writes, loads
  CSV or calls a procedure (Neo4j names it; FalkorDB says only ``ProcedureCall``, so there
  a plan with more calls than the text names is refused).

A query is refused, with one message starting ``read-only explorer:``, if either reading
shows something off the lists. The database's own refusal of writes stays behind it, and its
errors for the explorer's limits are turned into messages that say which limit stopped the
query (docs/decisions.md, "Reading a user's Cypher", says why not a grammar).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from typing import Any

from scholarkg.errors import InputError, QueryLimitExceeded, ScholarKGError
from scholarkg.store.base import GraphStore, QueryPlan
from scholarkg.store.cypher_text import (
    Call,
    has_load_csv,
    procedure_call_count,
    read_calls,
    show_mirror,
)

#: Procedures a read-only explorer may call (``fnmatch`` patterns, case-insensitive): listings
#: of the schema, index lookups, graph algorithms that only read. Names of both backends; a
#: name that one backend does not have is refused by that backend. The managed Neo4j loads
#: only what scholarkg's code calls (docs/backends.md, "Security"), so a GDS algorithm is
#: there only if the code uses it or ``SCHOLARKG_NEO4J_PROCEDURES`` adds it.
EXPLORER_PROCEDURES: tuple[str, ...] = (
    # both backends
    "db.labels",
    "db.relationshipTypes",
    "db.propertyKeys",
    # Neo4j
    "db.schema.nodeTypeProperties",
    "db.schema.relTypeProperties",
    "db.schema.visualization",
    "db.index.fulltext.queryNodes",
    "db.index.fulltext.queryRelationships",
    "db.index.vector.queryNodes",
    "db.index.vector.queryRelationships",
    "dbms.components",
    "gds.version",
    "gds.graph.list",
    "gds.*.stream",  # an algorithm's results streamed back: nothing written
    "gds.*.stats",
    "gds.*.estimate",
    # FalkorDB (and what Neo4j's SHOW PROCEDURES / FUNCTIONS / INDEXES / CONSTRAINTS mirror)
    "db.indexes",
    "db.constraints",
    "db.meta.stats",
    "db.idx.fulltext.queryNodes",
    "db.idx.fulltext.queryRelationships",
    "db.idx.vector.queryNodes",
    "db.idx.vector.queryRelationships",
    "algo.*",  # PageRank, BFS, WCC, betweenness, ...: all read-only in FalkorDB
    "dbms.procedures",
    "dbms.functions",
)

#: Functions with a namespace a read-only explorer may call (patterns, case-insensitive):
#: the databases' own pure ones and GDS's and APOC's that only compute on their arguments.
#: Every other namespaced function is refused by name: ``gds.graph.project`` (builds a
#: graph in the heap: the read-only explorer filled a server's heap with them, issue #37),
#: ``apoc.cypher.run*`` (runs a query held in a string), ``apoc.load.*`` (files, URLs), and
#: whatever a plugin adds. Functions without a namespace are the language's own.
EXPLORER_FUNCTIONS: tuple[str, ...] = (
    # Neo4j's own
    "point.*",
    "date.*",
    "datetime.*",
    "localdatetime.*",
    "localtime.*",
    "time.*",
    "duration.*",
    "vector.similarity.*",
    "db.nameFromElementId",
    # GDS: helpers that read or compute
    "gds.version",
    "gds.isLicensed",
    "gds.graph.exists",
    "gds.util.*",
    "gds.similarity.*",
    "gds.alpha.linkprediction.*",
    # APOC: pure helpers on values
    "apoc.version",
    "apoc.coll.*",
    "apoc.text.*",
    "apoc.map.*",
    "apoc.convert.*",
    "apoc.math.*",
    "apoc.number.*",
    "apoc.date.*",
    "apoc.temporal.*",
    "apoc.agg.*",
    # FalkorDB's own
    "string.*",
    "list.*",
    "vec.*",
)

#: Neo4j plan operators of SHOW commands, as the SHOW command (the text says it too)
_SHOW_OPERATORS = {
    "ShowSettings": "SHOW SETTINGS",
    "ShowTransactions": "SHOW TRANSACTIONS",
    "ShowFunctions": "SHOW FUNCTIONS",
    "ShowProcedures": "SHOW PROCEDURES",
    "ShowIndexes": "SHOW INDEXES",
    "ShowConstraints": "SHOW CONSTRAINTS",
}

#: plan operators that write, on FalkorDB (Neo4j's plan says so in its query type) and
#: Neo4j's TERMINATE TRANSACTIONS, which its planner calls a read
WRITE_OPERATORS = frozenset(
    {"Create", "Merge", "MergeCreate", "Delete", "Update", "TerminateTransactions"}
)

READ_ONLY = "read-only explorer"
WRITES_REFUSED = (
    f"{READ_ONLY}: the query changes the graph or its schema, which this explorer refuses "
    "(start it with --allow-writes to allow that)"
)
LOAD_REFUSED = (
    f"{READ_ONLY}: LOAD CSV reads files or URLs, which the explorer never does "
    "(load data with 'scholarkg load')"
)
_WIDEN = "'scholarkg explore --procedure NAME' adds one"


class QueryRefused(InputError):
    """The explorer will not run this query (read-only mode, files, procedures)."""


class QueryStopped(QueryLimitExceeded):
    """The query ran into the explorer's time limit or the server's memory limit."""


def _allowed(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name.lower(), p.lower()) for p in patterns)


def check_query(
    store: GraphStore,
    query: str,
    params: Mapping[str, Any] | None,
    *,
    allow_writes: bool,
    procedures: Iterable[str] = EXPLORER_PROCEDURES,
    functions: Iterable[str] = EXPLORER_FUNCTIONS,
    timeout_ms: int = 10_000,
) -> QueryPlan:
    """Refuse ``query`` (:class:`QueryRefused`) unless the explorer may run it; its plan.

    ``procedures`` and ``functions`` are the patterns allowed in read-only mode; a name
    the user adds with ``--procedure`` goes on both.
    """
    if has_load_csv(query):  # before the plan: no server reads a file for a refused query
        raise QueryRefused(LOAD_REFUSED)
    calls = read_calls(query)
    if not allow_writes:
        check_calls(calls, procedures=procedures, functions=functions)
    plan = store.explain(query, params, timeout_ms=timeout_ms)
    names = {name for name, _ in plan.operators}
    if "LoadCSV" in names:
        raise QueryRefused(LOAD_REFUSED)
    if allow_writes:
        return plan
    allowed = tuple(procedures)
    called = procedures_called(query, plan, calls)
    for proc in called:
        if not _allowed(proc, allowed):
            raise QueryRefused(
                f"{READ_ONLY}: procedure {proc} is not on the explorer's list "
                f"(schema listings, index lookups, read-only graph algorithms; {_WIDEN})"
            )
    shows = {Call("show", _SHOW_OPERATORS[n]) for n in names if n in _SHOW_OPERATORS}
    check_calls(shows, procedures=procedures, functions=functions)
    # Neo4j's type "s" is a schema command, or a call of a DBMS procedure (dbms.components)
    schema = plan.query_type == "s" and not called and not shows
    if plan.query_type in ("w", "rw") or schema or names & WRITE_OPERATORS:
        raise QueryRefused(WRITES_REFUSED)
    return plan


def check_calls(
    calls: Iterable[Call], *, procedures: Iterable[str], functions: Iterable[str]
) -> None:
    """Refuse a procedure, function or SHOW command off the lists (read-only mode)."""
    allowed_procs = tuple(procedures)
    allowed_funcs = (*functions, *allowed_procs)
    for call in sorted(calls):
        if call.kind == "procedure" and not _allowed(call.name, allowed_procs):
            raise QueryRefused(
                f"{READ_ONLY}: procedure {call.name} is not on the explorer's list "
                f"(schema listings, index lookups, read-only graph algorithms; {_WIDEN})"
            )
        if call.kind == "function" and not _allowed(call.name, allowed_funcs):
            raise QueryRefused(
                f"{READ_ONLY}: function {call.name} is not on the explorer's list (functions "
                f"that only compute on their arguments; gds.graph.project builds a graph in "
                f"the server's memory; {_WIDEN})"
            )
        if call.kind == "show":
            mirror = show_mirror(call.name)
            if mirror is None or not _allowed(mirror, allowed_procs):
                what = f"the procedure it mirrors, {mirror}," if mirror else "it"
                raise QueryRefused(
                    f"{READ_ONLY}: {call.name} is refused as {what} is not on the explorer's "
                    f"list ({_WIDEN})"
                )


def procedures_called(query: str, plan: QueryPlan, calls: Iterable[Call]) -> list[str]:
    """The procedures ``plan`` calls: named by the plan (Neo4j) and the text, else (FalkorDB's
    plan says only ``ProcedureCall``) by the text, which must name as many calls as the plan
    has."""
    in_plan = [details for name, details in plan.operators if name == "ProcedureCall"]
    named = sorted({c.name for c in calls if c.kind == "procedure"})
    if all(in_plan):  # Neo4j: "db.labels() :: (label :: STRING)"
        return sorted({d.split("(", 1)[0].replace("`", "").strip() for d in in_plan} | set(named))
    found = procedure_call_count(query)
    if found < len(in_plan):
        raise QueryRefused(
            f"{READ_ONLY}: could not tell which procedures the query calls "
            f"(the plan has {len(in_plan)}, the text names {found})"
        )
    return named


#: what the databases say when a query hits a limit or writes in read-only mode
_TIMEOUT_MARKERS = ("TransactionTimedOut", "Query timed out", "timed out")
_MEMORY_MARKERS = ("MemoryPoolOutOfMemoryError", "mem consumption exceeded capacity")
_READ_ONLY_MARKERS = (
    "Writing in read access mode not allowed",
    "RO_QUERY is to be executed only on read-only queries",
    "Schema operations are not allowed",
)


def explain_failure(
    err: ScholarKGError, *, timeout_ms: int, allow_writes: bool
) -> ScholarKGError | None:
    """A database error as the explorer reports it: which limit stopped the query, or the
    read-only refusal; ``None`` for other errors (syntax, unknown procedure), which keep
    their own message."""
    text = str(err)
    if isinstance(err, QueryLimitExceeded):  # scholarkg's own watchdog: says what it did
        return None
    if any(m in text for m in _TIMEOUT_MARKERS):
        return QueryStopped(
            f"stopped at the explorer's time limit of {timeout_ms / 1000:g} s "
            "(scholarkg explore --timeout)"
        )
    if any(m in text for m in _MEMORY_MARKERS):
        return QueryStopped(
            "stopped: the query needed more memory than one query may use on this server "
            "(Neo4j: db.memory.transaction.max; FalkorDB: QUERY_MEM_CAPACITY; see "
            "docs/backends.md, Security)"
        )
    if not allow_writes and any(m in text for m in _READ_ONLY_MARKERS):
        return QueryRefused(WRITES_REFUSED)
    return None

"""What a query typed into ``scholarkg explore`` may do, checked on the database's own plan.

The explorer is read-only unless started with ``--allow-writes``, and read-only is one
promise on both backends: no writes or schema changes, no file or URL access, no procedure
outside :data:`EXPLORER_PROCEDURES` (schema listings, index lookups and graph algorithms
that only read). A READ session (Neo4j) or ``GRAPH.RO_QUERY`` (FalkorDB) refuses writes, but
neither refuses ``LOAD CSV`` (which reads files, and on both backends fetches URLs) or a
read-mode procedure such as APOC's ``apoc.load.json``. So before running a query the
explorer asks the database for its plan (``GraphStore.explain``) and refuses, with one
clear message, a plan that writes, loads CSV, or calls a procedure off the list. The
database's own refusal of writes stays behind it, and its errors for the explorer's time
limit and the server's memory limit are turned into messages that say which limit stopped
the query.

Why the plan and not the text: the planner has parsed the query as the database will run it
(comments, strings, subqueries and all). Neo4j's plan names each procedure; FalkorDB's says
only ``ProcedureCall``, so there the names come from the text (:func:`text_procedure_names`,
which skips strings and comments) and a plan with more calls than names found is refused.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping
from typing import Any

from scholarkg.errors import InputError, ScholarKGError
from scholarkg.store.base import GraphStore, QueryPlan

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
    # FalkorDB
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


class QueryRefused(InputError):
    """The explorer will not run this query (read-only mode, files, procedures)."""


class QueryStopped(InputError):
    """The query ran into the explorer's time limit or the server's memory limit."""


def check_query(
    store: GraphStore,
    query: str,
    params: Mapping[str, Any] | None,
    *,
    allow_writes: bool,
    procedures: Iterable[str] = EXPLORER_PROCEDURES,
) -> QueryPlan:
    """Refuse ``query`` (:class:`QueryRefused`) unless the explorer may run it; its plan."""
    plan = store.explain(query, params)
    names = {name for name, _ in plan.operators}
    if not plan.planned and _LOAD_CSV.search(_code_only(query)):
        names.add("LoadCSV")  # no graph to plan against yet: the text says it
    if "LoadCSV" in names:
        raise QueryRefused(LOAD_REFUSED)
    if allow_writes:
        return plan
    allowed = [p.lower() for p in procedures]
    called = procedures_called(query, plan)
    for proc in called:
        if not any(fnmatch.fnmatchcase(proc.lower(), p) for p in allowed):
            raise QueryRefused(
                f"{READ_ONLY}: procedure {proc} is not on the explorer's list "
                "(schema listings, index lookups, read-only graph algorithms; "
                "'scholarkg explore --procedure NAME' adds one)"
            )
    # Neo4j's type "s" is a schema command, or a call of a DBMS procedure (dbms.components)
    schema = plan.query_type == "s" and not called
    if plan.query_type in ("w", "rw") or schema or names & WRITE_OPERATORS:
        raise QueryRefused(WRITES_REFUSED)
    return plan


def procedures_called(query: str, plan: QueryPlan) -> list[str]:
    """The procedures ``plan`` calls: named by the plan (Neo4j), else by the text."""
    calls = [details for name, details in plan.operators if name == "ProcedureCall"]
    if all(calls):  # Neo4j: "db.labels() :: (label :: STRING)"
        return [details.split("(", 1)[0].replace("`", "").strip() for details in calls]
    named = text_procedure_names(query)
    if len(named) < len(calls):
        raise QueryRefused(
            f"{READ_ONLY}: could not tell which procedures the query calls "
            f"(the plan has {len(calls)}, the text names {len(named)})"
        )
    return named


_COMMENT_OR_STRING = re.compile(
    r"//[^\n]*|/\*.*?\*/|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.DOTALL
)
_NAME_PART = r"(?:`[^`]*`|[A-Za-z_][A-Za-z0-9_]*)"
_CALL = re.compile(rf"\bCALL\s+({_NAME_PART}(?:\s*\.\s*{_NAME_PART})*)", re.IGNORECASE)


_LOAD_CSV = re.compile(r"\bLOAD\s+CSV\b", re.IGNORECASE)


def _code_only(query: str) -> str:
    """``query`` with its string literals emptied and its comments blanked."""
    return _COMMENT_OR_STRING.sub(lambda m: "''" if m.group(0)[0] in "'\"" else " ", query)


def text_procedure_names(query: str) -> list[str]:
    """Names after ``CALL`` outside strings and comments (``CALL {`` subqueries have none)."""
    return [re.sub(r"[\s`]", "", m.group(1)) for m in _CALL.finditer(_code_only(query))]


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
) -> InputError | None:
    """A database error as the explorer reports it: which limit stopped the query, or the
    read-only refusal; ``None`` for other errors (syntax, unknown procedure), which keep
    their own message."""
    text = str(err)
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

"""The queries an embedded server runs (``GRAPH.INFO``) and the user queries its clients
await (``<data>/queries/``): what the keeper (``falkordb/keeper.py``) reads to tell a query
nobody watches any more, and how a runaway's restart tells a read from a write.

A client writes a file per user query before sending it (:func:`watching`: what it sent, its
limit, the server's memory then) and removes it once it knows how the query ended; one killed
outright leaves it, which is how the keeper knows the query has no one watching it.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

log = logging.getLogger(__name__)

QUERIES_DIR = "queries"
#: operations of FalkorDB's plans that write (``GRAPH.EXPLAIN``'s first word): a query whose
#: plan has none of them is a read, whichever command sent it (``scholarkg cypher`` sends
#: every query as ``GRAPH.QUERY``); a procedure may write, so it counts as one
WRITING_OPERATIONS = frozenset(
    {"Create", "Merge", "MergeCreate", "Update", "Delete", "Foreach", "ProcedureCall"}
)


@dataclass(frozen=True)
class RunningQuery:
    """One entry of ``GRAPH.INFO``'s running or waiting queries."""

    graph: str
    query: str
    ms: float
    waiting: bool


@dataclass(frozen=True)
class WatchedQuery:
    """What a client wrote about the user query it awaits (:func:`watching`)."""

    client: int
    #: the server it was sent to: a file left by a killed client for an earlier server is
    #: not this one's (it was ended by that server's stop or restart)
    server: int | None
    graph: str
    query: str
    #: when its limit ends (``time.time()``)
    deadline: float
    writes: bool
    memory_base: int | None
    memory_budget: int | None
    path: Path


def parse_graph_info(reply: Sequence[Any]) -> list[RunningQuery]:
    """``GRAPH.INFO``'s running and waiting queries (``[title, entries, ...]``)."""
    out: list[RunningQuery] = []
    for title, entries in zip(reply[::2], reply[1::2], strict=False):
        if not isinstance(entries, list) or "queries" not in str(title).lower():
            continue
        for entry in entries:
            fields = dict(zip(entry[::2], entry[1::2], strict=False))
            ms = fields.get("Execution duration", fields.get("Wait duration", 0))
            out.append(
                RunningQuery(
                    graph=str(fields.get("Graph name") or ""),
                    query=str(fields.get("Query") or ""),
                    ms=float(ms or 0),
                    waiting="Waiting" in str(title),
                )
            )
    return out


class Explains(Protocol):
    def explain(self, graph: str, text: str, *, timeout: float = 2.0) -> list[str]: ...


def plan_only_reads(server: Explains, graph: str, text: str) -> bool:
    """Whether FalkorDB's plan of ``text`` (with its parameters' header) has no operation that
    writes (:data:`WRITING_OPERATIONS`); any failure to say: ``False``. A read's restart
    rewrites the log first, so the server answers before its indexes are rebuilt."""
    try:
        plan = server.explain(graph, text)
    except Exception as err:  # a busy or lost server: the runaway counts as a write
        log.debug("GRAPH.EXPLAIN of a runaway: %s", err)
        return False
    operations = {line.split("|")[0].strip() for line in plan}
    return not operations & WRITING_OPERATIONS


_SEQUENCE = itertools.count()


class Watch:
    """A watched query's file; :meth:`close` once its client knows how the query ended."""

    def __init__(self, path: Path | None) -> None:
        self.path = path

    def close(self) -> None:
        if self.path is not None:
            with contextlib.suppress(OSError):
                self.path.unlink()
            self.path = None


def watching(
    data_dir: Path,
    server: int | None,
    graph: str,
    query: str,
    *,
    deadline: float,
    writes: bool,
    memory_base: int | None = None,
    memory_budget: int | None = None,
) -> Watch:
    """Tell the keeper of ``data_dir``'s server (pid ``server``) that this process awaits
    ``query``, whose limit ends at ``deadline`` (``time.time()``). Written whole (a rename)
    before the query is sent; a store that cannot write it (a read-only directory) sends the
    query unwatched."""
    folder = data_dir / QUERIES_DIR
    name = f"{os.getpid()}-{threading.get_ident()}-{next(_SEQUENCE)}.json"
    record = {
        "client": os.getpid(),
        "server": server,
        "graph": graph,
        "query": query,
        "deadline": deadline,
        "writes": writes,
        "memory_base": memory_base,
        "memory_budget": memory_budget,
    }
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        part = folder / f".{name}"
        part.write_text(json.dumps(record), encoding="utf-8")
        part.replace(folder / name)
    except OSError as err:
        log.debug("could not tell the keeper about a query: %s", err)
        return Watch(None)
    return Watch(folder / name)


def watched_queries(data_dir: Path) -> list[WatchedQuery]:
    """The queries clients await now (files half-written or unreadable are skipped)."""
    out: list[WatchedQuery] = []
    with contextlib.suppress(OSError):
        for path in (data_dir / QUERIES_DIR).glob("[!.]*.json"):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                out.append(
                    WatchedQuery(
                        client=int(data["client"]),
                        server=_whole(data.get("server")),
                        graph=str(data["graph"]),
                        query=str(data["query"]),
                        deadline=float(data["deadline"]),
                        writes=bool(data["writes"]),
                        memory_base=_whole(data.get("memory_base")),
                        memory_budget=_whole(data.get("memory_budget")),
                        path=path,
                    )
                )
            except (OSError, ValueError, KeyError, TypeError):
                continue
    return out


def awaited(data_dir: Path) -> bool:
    """Whether any client awaits a reply now (a directory listing, without reading the
    files: the keeper asks it every second while it looks less often)."""
    try:
        with os.scandir(data_dir / QUERIES_DIR) as entries:
            return any(e.name.endswith(".json") and not e.name.startswith(".") for e in entries)
    except OSError:
        return False


def _whole(value: object) -> int | None:
    """A whole number from a file a client wrote, else ``None`` (never a crash of the keeper)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def leftover_parts(data_dir: Path, older_than: float) -> list[Path]:
    """Half-written files (``.<name>.json``) of clients killed while writing one, older than
    ``older_than`` (``time.time()``)."""
    out: list[Path] = []
    with contextlib.suppress(OSError):
        for path in (data_dir / QUERIES_DIR).glob(".*.json"):
            with contextlib.suppress(OSError):
                if path.stat().st_mtime < older_than:
                    out.append(path)
    return out

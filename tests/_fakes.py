"""Test doubles shared across test folders: a synthetic corpus, deterministic embedders, a
canned LLM server, and the recording store with the in-memory graph its answers read.

A plain module, not a conftest: tests import these classes directly. It is importable from
every test folder because pytest (default ``prepend`` import mode) puts ``tests/`` on
``sys.path`` when it loads ``tests/conftest.py``; the test folders are not packages.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np

from scholarkg.schema.ddl import VectorIndex
from scholarkg.store.base import GraphCounts, GraphReader, Hit
from scholarkg.store.named import render_named


def num(value: float | None) -> float:
    """A score the test needs defined (a metric is ``None`` where it is undefined): ``None``
    fails the test here, so comparisons after it are between numbers."""
    assert value is not None, "the score is undefined"
    return value


def synthetic_corpus(
    n_docs: int = 60, vocab_size: int = 240, doc_len: int = 18, seed: int = 7
) -> tuple[list[str], list[str]]:
    """Documents of made-up words (``w000``..): no third-party text, controlled frequencies.

    With 60 docs of 18 words from 240 words every term's df stays far below N/2, the regime
    where bm25s and rank-bm25 agree exactly.
    """
    rng = random.Random(seed)
    vocab = [f"w{i:03d}" for i in range(vocab_size)]
    ids = [f"d{i:03d}" for i in range(n_docs)]
    texts = [" ".join(rng.choice(vocab) for _ in range(rng.randint(5, doc_len))) for _ in ids]
    return ids, texts


class FakeEmbedder:
    """The ``Embedder`` protocol for tests: subclasses give raw vectors, this L2-normalises
    them (as the real model does) and reports progress once per call."""

    name = "fake-embedder"
    slug = "fake"
    dim: int

    def _vectors(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 32,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        out = np.asarray(self._vectors(list(texts)), dtype=np.float32).reshape(-1, self.dim)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        if progress is not None:
            progress(len(texts))
        unit: np.ndarray = out / norms
        return unit


class TableEmbedder(FakeEmbedder):
    """Embedder whose vectors are given per text: lets tests compute cosines by hand."""

    name = "table-embedder"
    slug = "table"

    def __init__(self, table: Mapping[str, Sequence[float]]) -> None:
        self.table = table
        self.dim = len(next(iter(table.values())))
        self.calls = 0

    def _vectors(self, texts: list[str]) -> np.ndarray:
        self.calls += 1
        return np.asarray([self.table[t] for t in texts], dtype=np.float32)


class HashEmbedder(FakeEmbedder):
    """Bag-of-words hashed into 32 dims: cheap, deterministic, records its encoded texts.

    Stands in for a model where only bookkeeping is under test (which texts get encoded).
    """

    dim = 32

    def __init__(self, name: str = "hash-embedder") -> None:
        self.name = name
        self.slug = "hash32"
        self.encoded: list[str] = []

    def _vectors(self, texts: list[str]) -> np.ndarray:
        self.encoded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for tok in re.findall(r"\w+", text.lower()):
                out[row, int(hashlib.md5(tok.encode()).hexdigest(), 16) % self.dim] += 1.0
        return out


def encoded_by(cached: Any) -> list[str]:
    """The texts the :class:`HashEmbedder` behind a ``CachingEmbedder`` had to encode."""
    inner = cached.inner
    assert isinstance(inner, HashEmbedder)
    return inner.encoded


#: the model name the canned server reports
CANNED_MODEL = "canned-model"


class CannedServer:
    """OpenAI-style ``/v1/models``, ``/v1/completions``, ``/v1/chat/completions`` on loopback.

    ``answer(prompt) -> text`` makes every reply; ``requests`` keeps ``(path, body)`` of each
    POST (``bodies`` just the bodies), so tests check what a task really sent.
    """

    def __init__(self, answer: Callable[[str], str]) -> None:
        self.answer = answer
        self.requests: list[tuple[str, dict[str, Any]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _send(self, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send({"object": "list", "data": [{"id": CANNED_MODEL, "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append((self.path, body))
                usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                if self.path == "/v1/completions":
                    text = owner.answer(body["prompt"])
                    choice: dict[str, Any] = {"index": 0, "text": text, "finish_reason": "stop"}
                else:
                    text = owner.answer(body["messages"][-1]["content"])
                    choice = {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop",
                    }
                self._send({"id": "x", "model": CANNED_MODEL, "choices": [choice], "usage": usage})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [body for _, body in self.requests]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> CannedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --------------------------------------------------------------------------- the store double

Rows = list[dict[str, Any]]
Answer = Rows | Callable[[dict[str, Any]], Rows]


class RecordingStore(GraphReader):
    """The reading role (``GraphReader``) for unit tests of Python logic: reads answered from
    canned rows, every call recorded; mypy checks it against the role it declares. No
    database: what a test checks is what the code *does with* rows and what it *asks*, not
    Cypher (the contract suite checks that on both real backends).

    ``named``: query name (bare or ``family/query``) -> rows, or a function of the params
    giving them; a name with no answer, or one that is not a query in ``scholarkg/queries/``,
    fails the test; ``asked()`` lists the full names. Templated queries are answered the same
    way: their identifiers are checked as a real store checks them and kept in
    ``identifiers``. ``queries``:
    the same for raw Cypher (``run``), keyed by the statement's text with whitespace collapsed.
    Writes (``merge_nodes``, ``merge_relationships``) check labels and types against the
    schema whitelists, like the real stores, and keep the rows in ``nodes`` / ``edges``.
    """

    backend = "recording"
    #: the variant of a named query it checks identifiers against (and ``has_query`` asks)
    dialect = "falkordb"
    capabilities: frozenset[str] = frozenset()
    # importing the store package registers the families' schema parts with the whitelists
    # the writes are checked against, as every real store does
    import scholarkg.store as _registers_family_schema

    def __init__(
        self,
        named: Mapping[str, Answer] | None = None,
        queries: Mapping[str, Answer] | None = None,
        *,
        graph: str = "recording",
    ) -> None:
        self.named = dict(named or {})
        self.queries = {" ".join(q.split()): a for q, a in (queries or {}).items()}
        self.graph = graph
        #: every call, in order: (method, query name or text or label, params or rows)
        self.calls: list[tuple[str, str, Any]] = []
        self.nodes: dict[str, dict[str, dict[str, Any]]] = {}
        self.edges: dict[str, list[dict[str, Any]]] = {}
        #: ``(query name, identifiers)`` of each named query asked, in order
        self.identifiers: list[tuple[str, dict[str, str]]] = []
        self.closed = False

    @staticmethod
    def _answer(answer: Answer, params: dict[str, Any]) -> Rows:
        rows = answer(params) if callable(answer) else answer
        return [dict(r) for r in rows]

    @staticmethod
    def full_name(name: str) -> str:
        """``family/query`` for a name as the code asks it (a bare name: the one folder that
        holds it); a name no query file has fails the test."""
        from scholarkg.queries import query_names

        names = query_names()
        full = [name] if name in names else [n for n in names if n.rpartition("/")[2] == name]
        assert len(full) == 1, f"{name!r} is not a named query"
        return full[0]

    def run_named(self, name: str, params: Any = None, **identifiers: str) -> Rows:
        given = dict(params or {})
        full = self.full_name(name)
        # identifiers are refused as a real store refuses them (whitelists, placeholders)
        render_named(full, self.dialect, identifiers)
        self.calls.append(("run_named", full, given))
        self.identifiers.append((full, dict(identifiers)))
        answer = self.named.get(name, self.named.get(full))
        assert answer is not None, f"the test gave no rows for the named query {full!r}"
        return self._answer(answer, given)

    def fulltext(
        self, index: str, terms: Sequence[str], *, k: int = 100, require_all: bool = False
    ) -> list[Hit]:
        raise AssertionError(f"the recording store has no full-text index ({index!r})")

    def vector(self, index: VectorIndex, vector: Sequence[float], *, k: int = 10) -> list[Hit]:
        raise AssertionError(f"the recording store has no vector index ({index.name!r})")

    def counts(self) -> GraphCounts:
        """What the double holds: the nodes and relationships written to it."""
        return GraphCounts(
            nodes={label: len(rows) for label, rows in self.nodes.items()},
            relationships={rel: len(rows) for rel, rows in self.edges.items()},
        )

    def run(self, query: str, params: Any = None) -> Rows:
        key = " ".join(query.split())
        given = dict(params or {})
        self.calls.append(("run", key, given))
        assert key in self.queries, f"the test gave no rows for the query {key!r}"
        return self._answer(self.queries[key], given)

    def merge_nodes(self, label: str, rows: Any, **_: Any) -> int:
        from scholarkg.schema.ddl import check_label

        check_label(label)
        batch = [dict(r) for r in rows]
        self.calls.append(("merge_nodes", label, batch))
        stored = self.nodes.setdefault(label, {})
        for row in batch:
            stored.setdefault(row["id"], {}).update({k: v for k, v in row.items() if v is not None})
        return len(batch)

    def merge_relationships(
        self, rel_type: str, start_label: str, end_label: str, rows: Any, **_: Any
    ) -> int:
        from scholarkg.schema.ddl import check_label, check_rel_type

        check_rel_type(rel_type)
        check_label(start_label)
        check_label(end_label)
        batch = [dict(r) for r in rows]
        self.calls.append(("merge_relationships", rel_type, batch))
        self.edges.setdefault(rel_type, []).extend(batch)
        return len(batch)

    def asked(self, method: str = "run_named") -> list[str]:
        """The names (or query texts) asked through ``method``, in order."""
        return [what for m, what, _ in self.calls if m == method]

    def close(self) -> None:
        self.closed = True


class LoadedGraph:
    """What loading ``records`` leaves in a graph, kept in memory: for a double whose answers
    apply a named query's MATCH to the records a real reader yields.

    The writer's MERGE rules, as ``loaders/writer.py`` and ``store/batch_writes.py`` apply
    them: one node per id (later properties added to earlier ones), one relationship per
    (type, start, end, merge-key values) (later properties win), and a relationship whose
    endpoint is not loaded under the record's start or end label is not written. Nodes and
    relationships keep the order they were read in. Not modelled: the ``CitationContext``
    the writer makes of a citation's sentence (no double reads one yet), and the order in
    which the writer's batches reach the store (each double's live test would show it).
    """

    def __init__(self, records: Iterable[Any]) -> None:
        from scholarkg.schema.records import NodeRecord

        #: node id -> (label, properties with the id)
        self.nodes: dict[str, tuple[str, dict[str, Any]]] = {}
        edges: dict[tuple[Any, ...], tuple[str, str, str, str, str, dict[str, Any]]] = {}
        for r in records:
            if isinstance(r, NodeRecord):
                self.nodes.setdefault(r.id, (r.LABEL, {"id": r.id}))[1].update(r.properties())
            else:
                key = (r.TYPE, r.start, r.end, *r.merge_key().values())
                edge = edges.setdefault(key, (r.TYPE, r.START, r.END, r.start, r.end, {}))
                edge[5].update(r.properties())
        #: every relationship written: (type, start id, end id, properties)
        self.edges: list[tuple[str, str, str, dict[str, Any]]] = [
            (rel, start, end, props)
            for rel, start_label, end_label, start, end, props in edges.values()
            if self.label(start) == start_label and self.label(end) == end_label
        ]
        self._by_start: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
        for rel, start, end, props in self.edges:
            self._by_start.setdefault(start, []).append((rel, end, props))

    def label(self, node_id: str) -> str | None:
        node = self.nodes.get(node_id)
        return None if node is None else node[0]

    def props(self, node_id: str) -> dict[str, Any]:
        return self.nodes[node_id][1]

    def of_label(self, label: str) -> list[dict[str, Any]]:
        """The properties of every ``label`` node, in load order."""
        return [props for lab, props in self.nodes.values() if lab == label]

    def out(self, start: str, *types: str) -> list[tuple[str, dict[str, Any]]]:
        """``(end id, relationship properties)`` of ``start``'s relationships of ``types``."""
        return [(e, p) for t, e, p in self._by_start.get(start, ()) if t in types]


def _comparable(rows: Rows, *, ordered: bool, places: int | None) -> list[Any]:
    """Rows with floats rounded to ``places`` (None: as they are); as sorted JSON strings
    when the query promises no order."""
    if places is not None:
        rows = [
            {k: round(v, places) if isinstance(v, float) else v for k, v in r.items()} for r in rows
        ]
    if ordered:
        return list(rows)
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def assert_double_answers_as_live(
    live: Any,
    double: RecordingStore,
    name: str,
    params: dict[str, Any],
    *,
    ordered: bool = True,
    places: int | None = None,
) -> Rows:
    """The check every family's double test makes: the double answers the named query as the
    loaded graph does (``ordered=False``: as a multiset; ``places``: floats compared to that
    many decimals, where the two sides sum in different orders). Returns the live rows, so a
    test can also require that the comparison was not of two empty answers."""
    rows: Rows = live.run_named(name, params)
    canned = double.run_named(name, params)
    assert _comparable(canned, ordered=ordered, places=places) == _comparable(
        rows, ordered=ordered, places=places
    ), (name, params)
    return rows

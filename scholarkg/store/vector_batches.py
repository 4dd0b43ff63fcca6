"""Vectors for ``set_vectors``: checked once per row, then sent as one text per vector.

Both backends used to take a vector as a list parameter of Python floats, and each float
then cost several Python calls on its way: our own parameter check walked every component
(``cypher_common.check_params``), falkordb-py built the ``CYPHER rows=[…]`` header by
recursing into each float, and the neo4j driver packed each float with its pure-Python
PackStream encoder. At 20,000 vectors of 384 dimensions that was 7.7 million floats and tens
of seconds of client CPU before the server saw a byte (docs/performance.md, "Vector
writes").

Here a row is checked as a whole (numpy: numeric, finite, one dimension), and each store
turns a vector into text with one C-level format operation per vector:

* FalkorDB: the row literal ``{id:"…",v:[…],extra:{…}}`` of the parameter header itself,
  components as ``%.9g`` of their float32 value, which FalkorDB's ``vecf32`` reads back to
  the same float32 (9 significant digits identify a float32);
* Neo4j: ``row.v`` is the components joined by commas (``%.17g``: text that reads back to
  the same double), split and ``toFloat``-ed on the server into the ``LIST<FLOAT>`` it
  stored before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeVar

import numpy as np

from scholarkg.errors import InputError
from scholarkg.store.cypher_common import clean_props, unstorable

T = TypeVar("T")


@dataclass
class VectorBatch:
    """At most ``batch_size`` checked rows: ids, float64 vectors and extra properties."""

    ids: list[str] = field(default_factory=list)
    vectors: list[np.ndarray] = field(default_factory=list)
    extras: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.ids)


def checked_vector(node_id: str, vec: Sequence[float] | np.ndarray, line: int) -> np.ndarray:
    """``vec`` as a 1-D float64 array, or ``InputError`` naming the node and the row.

    Refused: text or other non-numbers, nested lists, an empty vector, NaN and infinities
    (neither backend's cosine index can rank them; FalkorDB could not even parse them).
    """
    try:
        arr = np.asarray(vec, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise InputError(f"vector of {node_id!r} is not numeric ({err})", line=line) from None
    if arr.ndim != 1 or arr.size == 0:
        raise InputError(
            f"vector of {node_id!r} is not a non-empty list of numbers (shape {arr.shape})",
            line=line,
        )
    finite = np.isfinite(arr)
    if not finite.all():
        at = int(np.flatnonzero(~finite)[0])
        raise InputError(
            f"vector of {node_id!r} holds {vec[at]!r} at position {at}: a missing value, "
            "NaN or an infinity",
            line=line,
        )
    return arr


def check_rows(
    rows: Sequence[tuple[str, Sequence[float] | np.ndarray]],
    extra: Mapping[str, Mapping[str, Any]],
    first_line: int,
) -> VectorBatch:
    """One chunk of ``(id, vector)`` pairs checked into a batch; ``first_line`` is the line
    (from 1 over all rows) of its first pair, so an error names the pair."""
    batch = VectorBatch()
    for line, (node_id, vec) in enumerate(rows, first_line):
        key = str(node_id)
        found = unstorable(key, "id")
        if found is None and not key.strip():
            found = ("id", "is blank")
        if found:
            raise InputError(f"vector row: the node id {found[1]}", line=line, field="id")
        props = clean_props(extra.get(key, {}))
        found = unstorable(props, "extra")
        if found:
            raise InputError(f"vector of {key!r}: {found[0]} {found[1]}", line=line)
        batch.ids.append(key)
        batch.vectors.append(checked_vector(key, vec, line))
        batch.extras.append(props)
    return batch


def _chunks(
    rows: Iterable[tuple[str, Sequence[float] | np.ndarray]], batch_size: int
) -> Iterator[tuple[list[tuple[str, Sequence[float] | np.ndarray]], int]]:
    """``(chunk, line of its first row)``, ``batch_size`` rows each, without materialising
    ``rows``."""
    if batch_size < 1:
        raise ValueError("batch size must be >= 1")
    chunk: list[tuple[str, Sequence[float] | np.ndarray]] = []
    first = 1
    for row in rows:
        chunk.append(row)
        if len(chunk) >= batch_size:
            yield chunk, first
            first += len(chunk)
            chunk = []
    if chunk:
        yield chunk, first


def vector_batches(
    rows: Iterable[tuple[str, Sequence[float] | np.ndarray]],
    extra: Mapping[str, Mapping[str, Any]] | None,
    batch_size: int,
) -> Iterator[VectorBatch]:
    """``(id, vector)`` pairs → checked batches, without materialising ``rows``.

    Lines count from 1 over all of ``rows``, so an error names the pair whatever its batch;
    the batches before it are already written (as with every batched write).
    """
    for chunk, first in _chunks(rows, batch_size):
        yield check_rows(chunk, extra or {}, first)


def prepared_ahead(
    rows: Iterable[tuple[str, Sequence[float] | np.ndarray]],
    extra: Mapping[str, Mapping[str, Any]] | None,
    batch_size: int,
    prepare: Callable[[VectorBatch], T],
) -> Iterator[T]:
    """:func:`vector_batches`, each batch then ``prepare``-d (turned into what the store
    sends: the vectors' text), one batch ahead of the consumer in a worker thread.

    While the consumer waits for the server to write batch *k* (a socket read, which
    releases the GIL), the worker checks and formats batch *k + 1*: the client's CPU (the
    text of 768,000 floats per 2,000 vectors of 384 dimensions) overlaps the server's
    instead of adding to it. ``rows`` itself is iterated here, in the consumer's thread
    (it may read the store); ``prepare`` must only format. An error in a batch is raised
    when the consumer reaches that batch, so the batches before it are written, as
    without the worker.
    """
    pending: Future[T] | None = None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="vector-text") as pool:
        for chunk, first in _chunks(rows, batch_size):
            job = pool.submit(_check_and_prepare, chunk, extra or {}, first, prepare)
            if pending is not None:
                yield pending.result()
            pending = job
        if pending is not None:
            yield pending.result()


def _check_and_prepare(
    chunk: Sequence[tuple[str, Sequence[float] | np.ndarray]],
    extra: Mapping[str, Mapping[str, Any]],
    first: int,
    prepare: Callable[[VectorBatch], T],
) -> T:
    return prepare(check_rows(chunk, extra, first))


@lru_cache(maxsize=16)
def _format(dimensions: int, spec: str) -> str:
    """``"%.9g,%.9g,…"``: one ``%`` operation formats a whole vector in C."""
    return ",".join([spec] * dimensions)


def float32_text(vec: np.ndarray) -> str:
    """Components as ``%.9g`` of their float32 value, comma-separated (FalkorDB's ``vecf32``
    stores float32: this text reads back to exactly the float32 it would have stored)."""
    values = vec.astype(np.float32).tolist()
    return _format(len(values), "%.9g") % tuple(values)


def float64_text(vec: np.ndarray) -> str:
    """Components as ``%.17g``, comma-separated: 17 significant digits read back (Java's
    ``Double.parseDouble``, Cypher's ``toFloat``) to the same double; C's printf, faster
    than ``repr``'s shortest form (which is as long for float32-born values anyway)."""
    values = vec.tolist()
    return _format(len(values), "%.17g") % tuple(values)

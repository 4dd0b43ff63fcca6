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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from scholarkg.errors import InputError
from scholarkg.store.cypher_common import clean_props, unstorable


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


def vector_batches(
    rows: Iterable[tuple[str, Sequence[float] | np.ndarray]],
    extra: Mapping[str, Mapping[str, Any]] | None,
    batch_size: int,
) -> Iterator[VectorBatch]:
    """``(id, vector)`` pairs → checked batches, without materialising ``rows``.

    Lines count from 1 over all of ``rows``, so an error names the pair whatever its batch;
    the batches before it are already written (as with every batched write).
    """
    if batch_size < 1:
        raise ValueError("batch size must be >= 1")
    extra = extra or {}
    batch = VectorBatch()
    for line, (node_id, vec) in enumerate(rows, 1):
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
        if len(batch) >= batch_size:
            yield batch
            batch = VectorBatch()
    if len(batch):
        yield batch


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

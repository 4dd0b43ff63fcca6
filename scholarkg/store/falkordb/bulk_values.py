"""GRAPH.BULK value encoding: the bytes FalkorDB's bulk-insert command takes for a property.

Its own module because both readers of ``falkordb/bulk.py`` (the line reader there and the columnar
reader in ``falkordb/bulk_arrow.py``) encode values and headers the same way, and neither may import
the other.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Mapping, Sequence
from typing import Any

from scholarkg.store.cypher_common import storable_value

T_NULL, T_BOOL, T_DOUBLE, T_STRING, T_LONG, T_ARRAY = 0, 1, 2, 3, 4, 5
_INT64 = (-(2**63), 2**63 - 1)
_PACK_Q = struct.Struct("=Bq").pack
_PACK_D = struct.Struct("=Bd").pack
_NULL = bytes([T_NULL])
_TRUE = bytes([T_BOOL, 1])
_FALSE = bytes([T_BOOL, 0])


class _BadValue(Exception):
    """Internal: a value that cannot be stored; turned into InputError with line/field."""


def _enc_str(value: str) -> bytes:
    if "\x00" in value:
        raise _BadValue("strings may not contain NUL characters")
    return b"\x03" + value.encode("utf-8") + b"\x00"


def encode_value(value: Any) -> bytes:
    """One property value in GRAPH.BULK encoding (dicts/nested lists as JSON strings)."""
    if value is None:
        return _NULL
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    if isinstance(value, str):
        return _enc_str(value)
    if isinstance(value, int):
        if not _INT64[0] <= value <= _INT64[1]:
            raise _BadValue(f"integer {value} does not fit in 64 bits")
        return _PACK_Q(T_LONG, value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _BadValue(f"non-finite number {value}")
        return _PACK_D(T_DOUBLE, value)
    if isinstance(value, Mapping | list | tuple):
        # the same storable form the MERGE path writes (cypher_common.storable_value)
        stored = storable_value(value)
        if isinstance(stored, str):
            return _enc_str(stored)
        return _PACK_Q(T_ARRAY, len(stored)) + b"".join(encode_value(v) for v in stored)
    raise _BadValue(f"unsupported value type {type(value).__name__}")


def _header(name: str, props: Sequence[str]) -> bytes:
    parts = [name.encode() + b"\x00", struct.pack("=I", len(props))]
    parts += [p.encode() + b"\x00" for p in props]
    return b"".join(parts)

"""Records made without pydantic's validation when nothing in them needs validating.

Why: an OpenAlex load validates ~25 field values a work through ``Record._sanitise`` and
pydantic's own validators (a Python call per field); in ``load openalex``'s parse worker that
was ~60 % of its time (``py-spy`` over ``bench_openalex.py``'s quarterly-style update: the
``Paper``, ``Author``, ``Authorship`` and ``Venue`` constructors). Nearly every work's values
are already of their fields' exact types (the parser reads them so) and need no cleaning.

:func:`plain_record` makes the record pydantic would make, the same ``__dict__`` and the same
set fields, when it can prove the validation changes nothing but what it replicates here
(surrounding whitespace stripped, the node's id rule, the class's ``after`` field
validators); otherwise it returns ``None`` and the caller validates as before, so every
refusal, cleaning count and error message stays the record layer's. Proof per record:

* no string of the input needs cleaning or is over the field cap: one ``orjson`` encoding
  (:func:`needs_no_cleaning`, the check the bulk path's rows rely on too);
* every value is of its field's exact type (``int`` in the 64-bit range, not ``bool``; a
  ``float`` finite; lists of those), every key a field, every required field given;
* the class validates nothing else: only ``_sanitise`` and ``after`` field validators, and
  no model validator but ``NodeRecord._fill_id`` (replicated: ``_normalize`` then the id
  rule). A class with anything more is never made here.

``tests/core/test_plain_records.py`` holds the two ways equal, clean and dirty inputs alike.
"""

from __future__ import annotations

import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from scholarkg.schema.records import NodeRecord, Record
from scholarkg.schema.text import current_field_cap, key_too_long

R = TypeVar("R", bound=Record)

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
#: UTF-8 of U+FEFF: orjson writes the BOM as these bytes (it escapes only controls, ``"``, ``\``)
_BOM_UTF8 = "\ufeff".encode()


@dataclass(frozen=True)
class _Plan:
    """What :func:`plain_record` needs of a record class, read once from its pydantic schema."""

    #: field name → its type's code (``_CODES``: a plain type, or a list of one)
    codes: dict[str, int]
    #: every field in declaration order with its default (the order of a validated ``__dict__``)
    defaults: dict[str, Any]
    required: frozenset[str]
    #: the class's ``after`` field validators: (field names, the bound validator)
    after: tuple[tuple[tuple[str, ...], Callable[[Any], Any]], ...]
    node: bool


_PLANS: dict[type, _Plan | None] = {}
#: a field's type → its code in :func:`plain_record`'s loop (one comparison per value instead
#: of a call: ~25 values a work)
_CODES: dict[Any, int] = {
    str: 0, int: 1, bool: 2, float: 3,
    list[str]: 4, list[int]: 5, list[bool]: 6, list[float]: 7,
}  # fmt: skip


def _code(annotation: Any) -> int | None:
    """The code of ``T`` or ``T | None`` for a ``T`` in ``_CODES``; ``None`` for anything else
    (a class with such a field is not made here)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            return None
        annotation = args[0]
    try:
        return _CODES.get(annotation)
    except TypeError:  # an unhashable annotation
        return None


def _plan(cls: type[Record]) -> _Plan | None:
    decorators = cls.__pydantic_decorators__
    if set(decorators.model_validators) - {"_fill_id"} or decorators.root_validators:
        return None
    if decorators.field_serializers or decorators.model_serializers or cls.__private_attributes__:
        return None
    after: list[tuple[tuple[str, ...], Callable[[Any], Any]]] = []
    for name, dec in decorators.field_validators.items():
        if name == "_sanitise":
            continue
        if dec.info.mode != "after" or "*" in dec.info.fields:
            return None
        after.append((tuple(dec.info.fields), dec.func))
    if cls.model_config.get("str_strip_whitespace") is not True:
        return None  # every record strips today; a class that does not is not replicated
    codes: dict[str, int] = {}
    defaults: dict[str, Any] = {}
    required: set[str] = set()
    for name, info in cls.__pydantic_fields__.items():
        code = _code(info.annotation)
        if code is None or info.default_factory is not None or info.alias or info.validate_default:
            return None
        codes[name] = code
        if info.is_required():
            required.add(name)
            defaults[name] = None
        elif isinstance(info.default, str | int | float | None):
            defaults[name] = info.default
        else:
            return None  # a mutable default would be shared by the records made here
    return _Plan(codes, defaults, frozenset(required), tuple(after), issubclass(cls, NodeRecord))


def needs_no_cleaning(values: object, cap: int) -> bool:
    """True when no string in ``values`` (also in lists, tuples and dicts in it) can be
    changed or refused by the record sanitiser (``schema/text.py``) with field cap ``cap``,
    but for its surrounding whitespace.

    Decided on the values, by orjson's encoding of them (one C pass): it escapes every
    character below U+0020 (the NUL, the other controls and CR the sanitiser handles; TAB and
    LF too, which only costs a fast path), so an encoding without a backslash holds none; it
    refuses a lone surrogate (not UTF-8); it writes the BOM as its three UTF-8 bytes; and no
    string is longer in characters than the encoding is in bytes, so an encoding within the
    cap holds no string over it. Anything it refuses (a lone surrogate, an integer past 64
    bits) is ``False``, as is a backslash in the text itself (a LaTeX title): the caller's
    per-value path then cleans, keeps or names it.
    """
    try:
        encoded = orjson.dumps(values)
    except orjson.JSONEncodeError:
        return False
    return len(encoded) <= cap and b"\\" not in encoded and _BOM_UTF8 not in encoded


def _int64(value: int) -> bool:
    return _INT64_MIN <= value <= _INT64_MAX


def plain_record(cls: type[R], data: dict[str, Any]) -> R | None:
    """The record ``cls(**data)`` makes, made without validation; ``None`` when that cannot
    be proven equal (the caller then validates: see the module doc)."""
    try:
        plan = _PLANS[cls]
    except KeyError:
        plan = _PLANS.setdefault(cls, _plan(cls))
    if plan is None:
        return None
    cap = current_field_cap()
    if not needs_no_cleaning(data, cap):
        return None
    if plan.node:
        node = typing.cast(type[NodeRecord], cls)
        try:
            # NodeRecord._fill_id on clean input: clean_mapping would change nothing
            data = node._normalize(data)
            if not data.get("id"):
                made = node.make_id(data)
                if made is None:
                    return None
                data = {**data, "id": made}
        except (TypeError, AttributeError, KeyError, ValueError):
            return None  # validation names the field
        if not needs_no_cleaning(data, cap):  # what the normaliser and the id rule derived
            return None
        made_id = data.get("id")
        if type(made_id) is str and key_too_long(made_id):
            return None  # validation refuses it, naming the field
    codes = plan.codes
    values = dict(plan.defaults)
    # each value as validation leaves it (strings stripped, lists copied), or no record when
    # one is not exactly of its field's type: bool is not int, int is not float (pydantic
    # would convert), an int past 64 bits and a non-finite float are refused or cleaned there
    value: Any
    for name, value in data.items():
        code = codes.get(name)
        if code is None:
            return None  # extra="forbid": validation names it
        kind = type(value)
        if value is None:
            if name in plan.required:
                return None
        elif code == 0:
            if kind is not str:
                return None
            value = value.strip()
        elif code == 1:
            if kind is not int or not _int64(value):
                return None
        elif code == 2:
            if kind is not bool:
                return None
        elif code == 3:
            if kind is not float or not math.isfinite(value):
                return None
        elif kind is not list:
            return None
        elif code == 4:
            if any(type(v) is not str for v in value):
                return None
            value = [v.strip() for v in value]
        elif code == 5:
            if any(type(v) is not int or not _int64(v) for v in value):
                return None
            value = list(value)
        elif code == 6:
            if any(type(v) is not bool for v in value):
                return None
            value = list(value)
        else:
            if any(type(v) is not float or not math.isfinite(v) for v in value):
                return None
            value = list(value)
        values[name] = value
    if any(values[name] is None for name in plan.required):
        return None
    for names, validator in plan.after:
        for name in names:
            if name in data:  # pydantic runs them on a given value, None included
                try:
                    values[name] = validator(values[name])
                except ValueError:
                    return None
    return cls.unvalidated(values, set(data))  # no private attributes (_plan)

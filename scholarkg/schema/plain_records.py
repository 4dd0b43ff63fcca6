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
  (as the bulk path's ``_needs_no_cleaning``: it escapes every control character, refuses a
  lone surrogate, writes the BOM as its bytes, and is never shorter than a string's length);
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
from scholarkg.schema.text import current_field_cap

R = TypeVar("R", bound=Record)

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
#: UTF-8 of U+FEFF: orjson writes the BOM as these bytes (it escapes only controls, ``"``, ``\``)
_BOM_UTF8 = "\ufeff".encode()


@dataclass(frozen=True)
class _Plan:
    """What :func:`plain_record` needs of a record class, read once from its pydantic schema."""

    #: field name → (the exact value type, the list item type or ``None``)
    kinds: dict[str, tuple[type, type | None]]
    #: every field in declaration order with its default (the order of a validated ``__dict__``)
    defaults: dict[str, Any]
    required: frozenset[str]
    #: the class's ``after`` field validators: (field names, the bound validator)
    after: tuple[tuple[tuple[str, ...], Callable[[Any], Any]], ...]
    node: bool


_PLANS: dict[type, _Plan | None] = {}
_KINDS = (str, int, bool, float)


def _kind(annotation: Any) -> tuple[type, type | None] | None:
    """``(type, item type)`` of ``T``, ``T | None``, ``list[T]`` or ``list[T] | None`` for a
    plain ``T``; ``None`` for anything else (a class with such a field is not made here)."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) != 1:
            return None
        annotation = args[0]
    if annotation in _KINDS:
        return annotation, None
    if typing.get_origin(annotation) is list:
        (item,) = typing.get_args(annotation) or (None,)
        if item in _KINDS:
            return list, item
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
    kinds: dict[str, tuple[type, type | None]] = {}
    defaults: dict[str, Any] = {}
    required: set[str] = set()
    for name, info in cls.__pydantic_fields__.items():
        kind = _kind(info.annotation)
        if kind is None or info.default_factory is not None or info.alias or info.validate_default:
            return None
        kinds[name] = kind
        if info.is_required():
            required.add(name)
            defaults[name] = None
        else:
            defaults[name] = info.default
    return _Plan(kinds, defaults, frozenset(required), tuple(after), issubclass(cls, NodeRecord))


def _clean(data: dict[str, Any], cap: int) -> bool:
    """No string in ``data`` needs cleaning and none is over ``cap`` (see the module doc)."""
    try:
        encoded = orjson.dumps(data)
    except orjson.JSONEncodeError:
        return False
    return len(encoded) <= cap and b"\\" not in encoded and _BOM_UTF8 not in encoded


def _typed(value: Any, kind: type, item: type | None) -> Any:
    """``value`` as validation leaves it (strings stripped, lists copied), or ``_REFUSED``
    when it is not exactly of its field's type."""
    if kind is list:
        if type(value) is not list:
            return _REFUSED
        out = []
        for v in value:
            one = _typed(v, item, None) if item is not None else _REFUSED
            if one is _REFUSED:
                return _REFUSED
            out.append(one)
        return out
    if type(value) is not kind:  # bool is not int, int is not float: pydantic would convert
        return _REFUSED
    if kind is str:
        return typing.cast(str, value).strip()
    if kind is int:
        return value if _INT64_MIN <= typing.cast(int, value) <= _INT64_MAX else _REFUSED
    if kind is float:
        return value if math.isfinite(typing.cast(float, value)) else _REFUSED
    return value


_REFUSED = object()


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
    if not _clean(data, cap):
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
        if not _clean(data, cap):  # what the normaliser and the id rule derived
            return None
    kinds = plan.kinds
    values = dict(plan.defaults)
    for name, value in data.items():
        kind = kinds.get(name)
        if kind is None:
            return None  # extra="forbid": validation names it
        if value is None:
            if name in plan.required:
                return None
            values[name] = None
            continue
        typed = _typed(value, *kind)
        if typed is _REFUSED:
            return None
        values[name] = typed
    if any(values[name] is None for name in plan.required):
        return None
    for names, validator in plan.after:
        for name in names:
            if name in data:  # pydantic runs them on a given value, None included
                try:
                    values[name] = validator(values[name])
                except ValueError:
                    return None
    made_record = object.__new__(cls)
    object.__setattr__(made_record, "__dict__", values)
    object.__setattr__(made_record, "__pydantic_fields_set__", set(data))
    object.__setattr__(made_record, "__pydantic_extra__", None)
    object.__setattr__(made_record, "__pydantic_private__", None)
    return made_record

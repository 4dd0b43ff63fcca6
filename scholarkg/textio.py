"""Reading text/JSONL input and writing files atomically: the one copy everybody uses.

Neutral on purpose: it imports nothing but ``scholarkg.errors``, so ``benchmark/metrics`` (which
must not import ``store``/``loaders``/``services``) can share it with the loaders. Before this
module, loaders, TREC readers, prediction import, the run registry and the fetch checksums each
had their own JSONL loop and their own temp-file-and-rename writer.

- Reading is gzip-aware by suffix and opens with ``newline=""`` so the csv module sees quoted
  newlines raw; every problem is an :class:`InputError` naming the file (and line when known).
- Writing goes to a temporary file in the target's directory (same filesystem, so ``os.replace``
  is atomic), flushed and fsynced, then renamed: a crash leaves the old file or the new one,
  never half of one.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import math
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, cast

from scholarkg.errors import InputError

__all__ = [
    "atomic_write_bytes",
    "atomic_write_text",
    "decoded_lines",
    "iter_jsonl",
    "iter_lines",
    "load_json",
    "open_binary",
    "open_text",
    "read_json_object",
    "read_text",
    "refuse_markup",
    "refuse_markup_start",
]


def open_text(path: str | Path, *, missing: str | None = "file not found") -> IO[str]:
    """Open a UTF-8 text file, transparently decompressing ``.gz``.

    ``utf-8-sig``: a byte-order mark at the start of the file (Excel's and Notepad's UTF-8) is
    dropped, not read as part of the first header cell or JSON key. ``missing`` is the message
    for a file that does not exist; ``None`` lets the open fail and report ``cannot read
    file: <reason>`` (the TREC readers' wording).
    """
    path = Path(path)
    if missing is not None and not path.is_file():
        raise InputError(missing, path=path)
    try:
        if path.suffix == ".gz":
            # newline="" as for plain files: the csv module needs to see quoted newlines raw
            return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8-sig", newline="")
        return path.open("r", encoding="utf-8-sig", newline="")
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", path=path) from err


def open_binary(path: str | Path, *, missing: str | None = "file not found") -> IO[bytes]:
    """The raw bytes of a file (gunzipped for ``.gz``), for readers that decode per line."""
    path = Path(path)
    if missing is not None and not path.is_file():
        raise InputError(missing, path=path)
    try:
        if path.suffix == ".gz":
            return cast(IO[bytes], gzip.open(path, "rb"))
        return path.open("rb")
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", path=path) from err


def not_utf8(
    err: UnicodeDecodeError, data: bytes, *, path: str | Path, line: int | None = None
) -> InputError:
    """The ``InputError`` for undecodable bytes: line, column and the offending byte.

    The policy is to refuse, not to guess: replacing bytes would store a mangled text as if it
    were the source's, and the usual cause (a Latin-1 or Windows-1252 file) is fixed once by
    converting the file. ``data`` is the line (``line`` given) or the whole file.
    """
    start = err.start
    if line is None:
        line = data.count(b"\n", 0, start) + 1
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    else:
        column = start + 1
    bad = data[start : start + 1].hex().upper()
    if line == 1 and data[:2] in (b"\xff\xfe", b"\xfe\xff"):  # UTF-16's byte-order mark
        return InputError(
            "not UTF-8 text: UTF-16 (it starts with UTF-16's byte-order mark); convert the "
            "file to UTF-8, e.g. 'iconv -f UTF-16 -t UTF-8'",
            path=path,
            line=line,
        )
    return InputError(
        f"not UTF-8 text: byte 0x{bad} at column {column} (counted in bytes); "
        "convert the file to UTF-8, e.g. 'iconv -f WINDOWS-1252 -t UTF-8'",
        path=path,
        line=line,
    )


def read_text(path: str | Path, *, missing: str | None = "file not found") -> str:
    """A whole (optionally gzipped) UTF-8 file as text; a leading BOM dropped.

    Undecodable bytes are an :class:`InputError` naming line and column (:func:`not_utf8`).
    """
    with open_binary(path, missing=missing) as fh:
        try:
            data = fh.read()
        except (OSError, EOFError) as err:
            raise InputError(
                f"cannot read file: {getattr(err, 'strerror', None) or err}", path=path
            ) from err
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise not_utf8(err, data, path=path) from None


def cannot_read(err: BaseException, path: str | Path, *, lines_read: int) -> InputError:
    """The error for a file that stops being readable after ``lines_read`` whole lines (a
    truncated ``.gz`` above all: Python's "Compressed file ended before the end-of-stream
    marker was reached" named no place), with the line it stopped at."""
    why = getattr(err, "strerror", None) or err
    return InputError(
        f"cannot read file past line {lines_read:,}: {why} (a truncated download? the lines "
        "before it are read)",
        path=path,
        line=lines_read + 1,
    )


def decoded_lines(handle: IO[bytes], *, path: str | Path) -> Iterator[str]:
    """Every line of a binary handle decoded as UTF-8 (newline kept, leading BOM dropped);
    a bad byte is an :class:`InputError` at its line and column (:func:`not_utf8`)."""
    number = 0
    try:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                raise not_utf8(err, raw, path=path, line=number) from None
            yield line.removeprefix("\ufeff") if number == 1 else line
    except (OSError, EOFError) as err:  # EOFError: truncated gzip stream
        raise cannot_read(err, path, lines_read=number) from err


def iter_lines(
    path: str | Path, *, missing: str | None = "file not found"
) -> Iterator[tuple[int, str]]:
    """``(1-based line number, line)`` of each non-blank line, newline included.

    Lines are split on ``\\n`` and decoded one at a time, so a bad byte is reported with its
    line and column (``not UTF-8 text``) rather than the position of a read buffer; a BOM
    at the start of the file is dropped. Read errors surface as :class:`InputError`
    (``cannot read file``) rather than a bare ``OSError`` from deep inside a loader.
    """
    with open_binary(path, missing=missing) as handle:
        for number, line in enumerate(decoded_lines(handle, path=path), start=1):
            if line.strip():
                yield number, line


#: how far into a file :func:`refuse_markup` looks for its first character
_SNIFF_BYTES = 4096


def refuse_markup(path: str | Path, *, reads: str = "") -> None:
    """Stop with a clear ``InputError`` when a file meant to be JSON starts with ``<``: XML
    or HTML, which no JSON reader reads. ``reads`` says what the caller reads instead (``load
    arxiv reads arXiv's JSON metadata snapshot: …``); the catalogue loaders ask before they
    read, every other JSON reader of this module once the decoder refused the file's start
    (:func:`refuse_markup_start`).

    Why: the JSON reader's own words for such a file were ``line 1: invalid JSON … Expecting
    value at column 1``, which says nothing of the usual cause: arXiv's OAI-PMH interface
    answers in XML, and an API's error page saved in place of its data is HTML. One read
    of the file's first bytes (gunzipped for ``.gz``); a file that cannot be read is left
    to the reader, which names where it fails.
    """
    try:
        with open_binary(path) as fh:
            head = fh.read(_SNIFF_BYTES)
    except (OSError, EOFError, InputError):
        return
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not start.startswith(b"<"):
        return
    lower = start.lower()
    if b"oai-pmh" in lower:
        kind = "XML from an OAI-PMH interface"
    elif lower.startswith(b"<!doctype html") or b"<html" in lower[:300]:
        kind = "an HTML page (an error page saved in place of the data?)"
    else:
        kind = "XML or HTML"
    raise InputError(
        f"this file starts with '<': it looks like {kind}, not JSON."
        + (f" {reads}" if reads else ""),
        path=path,
        line=head[: len(head) - len(start)].count(b"\n") + 1,  # after any blank lines
    )


def refuse_markup_start(path: str | Path, start: str) -> None:
    """``start``, what the JSON decoder refused at the start of ``path`` (the whole document,
    or its first non-blank line), begins with ``<``: raise :func:`refuse_markup`'s error.

    Asked only after the decoder failed, so a good file costs nothing; every JSON reader
    (those below, and the loaders' own line loops) calls it, so none of them says
    ``invalid JSON … column 1`` of an XML or HTML file.
    """
    if start.lstrip().startswith("<"):
        refuse_markup(path)


#: the wording the line readers of the open catalogues use for a line that is not JSON
CUT_LINE = "invalid JSON (a cut or corrupt line): {msg}"


def json_line_error(
    err: json.JSONDecodeError, line: str, wording: str = "invalid JSON: {msg}"
) -> str:
    """The message for one JSON Lines line the decoder refused: ``wording`` (``{msg}`` the
    decoder's words) and the column in that line.

    Why not the decoder's column alone: the line is decoded with its newline, so a line that
    stops mid-value (a cut download, a truncated write) fails *after* the newline, which the
    decoder calls "line 2 column 1"; said as "at column 1", it pointed at the line's first
    character, where nothing is wrong. Such a line is told by where it ends instead."""
    what = wording.format(msg=err.msg.removesuffix(" at"))  # "Invalid control character at"
    content = len(line.rstrip("\r\n"))
    if err.pos >= content:
        return f"{what} at column {content + 1}, where the line ends"
    return f"{what} at column {err.colno}"


def iter_json_lines(
    path: str | Path,
    *,
    missing: str | None = "file not found",
    invalid_json: str = "invalid JSON: {msg}",
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each non-blank line of a JSON-lines (.gz) file, the
    value whatever JSON it is (readers whose lines may be objects *or* pages of objects).

    A line that is not JSON is an :class:`InputError` naming file, line and column (a file
    that is XML or HTML is said to be, :func:`refuse_markup`); ``invalid_json`` formats the
    decoder's message (``{msg}``) for callers whose error wording is pinned.
    """
    first = True
    for lineno, line in iter_lines(path, missing=missing):
        try:
            value = json.loads(line)
        except json.JSONDecodeError as err:
            if first:
                refuse_markup_start(path, line)
            raise InputError(
                json_line_error(err, line, invalid_json), path=path, line=lineno
            ) from None
        first = False
        yield lineno, value


def iter_jsonl(
    path: str | Path,
    *,
    missing: str | None = "file not found",
    invalid_json: str = "invalid JSON: {msg}",
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL(.gz) file.

    A line that is not JSON, or not a JSON object, is an :class:`InputError` naming file and
    line (see :func:`iter_json_lines`).
    """
    for lineno, obj in iter_json_lines(path, missing=missing, invalid_json=invalid_json):
        if not isinstance(obj, dict):
            raise InputError("expected a JSON object", path=path, line=lineno)
        yield lineno, obj


def read_json_object(path: str | Path, *, missing: str | None = "file not found") -> dict[str, Any]:
    """A whole-file JSON document that must be an object (manifests, checksum files, runs).

    Errors name the file and, for a syntax error, the line (``invalid JSON: <msg>``).
    """
    data = load_json(path, missing=missing)
    if not isinstance(data, dict):
        raise InputError("expected a JSON object", path=path)
    return data


#: ``load_json(if_empty=…)`` not given: an empty file is an error
_REFUSE_EMPTY: Any = object()


def load_json(
    path: str | Path, *, missing: str | None = "file not found", if_empty: Any = _REFUSE_EMPTY
) -> Any:
    """A whole-file JSON document; syntax and encoding errors name line and column, and an XML
    or HTML file is said to be one (:func:`refuse_markup`). An empty (or blank) file is an
    error, or ``if_empty`` when given: a loader's file of records reads an empty one as no
    records (and warns, as for an empty JSON Lines file) rather than as a broken document."""
    text = read_text(path, missing=missing)
    if not text.strip():
        if if_empty is not _REFUSE_EMPTY:
            return if_empty
        raise InputError("empty file (expected a JSON document)", path=path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        refuse_markup_start(path, text)
        hint = ""
        if err.msg == "Extra data" and err.lineno > 1 and err.colno == 1:
            # a second value at the start of a line: JSON Lines under a .json name (as some
            # API clients save their pages)
            hint = "; one JSON value per line is JSON Lines: name the file .jsonl"
        raise InputError(
            f"invalid JSON: {err.msg.removesuffix(' at')} (column {err.colno}){hint}",
            path=path,
            line=err.lineno,
        ) from None


def atomic_write_bytes(path: str | Path, data: bytes, *, fsync: bool = True) -> Path:
    """Replace ``path`` with ``data`` atomically (temp file in the same directory + rename).

    ``fsync=False`` skips the flush to disk for files rewritten very often whose loss on power
    failure is harmless (the load checkpoint); the rename is atomic either way.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if fsync:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def atomic_write_text(path: str | Path, text: str, *, fsync: bool = True) -> Path:
    """:func:`atomic_write_bytes` of ``text`` encoded as UTF-8 (no newline translation)."""
    return atomic_write_bytes(path, text.encode("utf-8"), fsync=fsync)


def sha256_file(path: str | Path, *, chunk_size: int = 1 << 20) -> str:
    """The hex SHA-256 of a file's bytes, read in ``chunk_size`` pieces.

    One helper for every file checksum (backups, fetched datasets, the vendored explorer
    library, converted model files): they can be gigabytes, so never the whole file in memory.
    """
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        while chunk := fh.read(chunk_size):
            digest.update(chunk)
    return digest.hexdigest()


def json_safe(value: Any) -> Any:
    """A value ``json.dumps`` writes as strict JSON: NaN/±inf → null, keys → str,
    tuples → lists, anything else unknown → ``str``. One rule for CLI output and reports."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)

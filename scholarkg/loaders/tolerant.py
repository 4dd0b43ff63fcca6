"""Tolerant reading of other people's files: line readers that skip bad lines, and the skip
report that counts them (used by the citation-recommendation and BEIR loaders and their CLI).

Why tolerant: the Semantic Scholar bulk files, unarXive and community BEIR collections are
tens of millions of lines produced by other people's pipelines; one truncated or malformed
line must not stop a six-hour load. A bad line is *reported* (file, line number, field,
reason), *counted* and *skipped*; everything else loads. The summary prints the count and
the first examples, and the full list is available to callers (tests, the CLI's JSON).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.textio import iter_lines, refuse_markup_start

log = logging.getLogger(__name__)

#: how many skipped lines are kept verbatim for the summary (all are counted)
KEEP_EXAMPLES = 50


@dataclass
class SkippedLine:
    path: str
    line: int
    reason: str
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}"
        return f"{where} ({self.field}): {self.reason}" if self.field else f"{where}: {self.reason}"


@dataclass
class SkipReport:
    """Malformed source lines that were skipped, per file, with the first examples kept."""

    counts: dict[str, int] = field(default_factory=dict)
    examples: list[SkippedLine] = field(default_factory=list)
    #: valid lines whose records could not all be stored, by reason (e.g. "cited paper not
    #: loaded"): normal in the S2 data, so counted rather than listed
    dropped: dict[str, int] = field(default_factory=dict)
    #: a report of a second pass over a file another report covers: it counts, but says
    #: nothing (the same bad line was printed once per pass)
    quiet: bool = False

    def drop(self, reason: str, n: int = 1) -> None:
        self.dropped[reason] = self.dropped.get(reason, 0) + n

    def skip(self, path: str | Path, line: int, reason: str, field: str | None = None) -> None:
        key = str(path)
        self.counts[key] = self.counts.get(key, 0) + 1
        entry = SkippedLine(key, line, reason, field)
        if len(self.examples) < KEEP_EXAMPLES:
            self.examples.append(entry)
        if not self.quiet:
            log.warning("skipped %s", entry)

    def skip_error(self, err: InputError, *, path: str | Path, line: int) -> None:
        self.skip(err.path or path, err.line or line, err.message, err.field)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def notes(self) -> list[str]:
        """Lines for the load summary: one per file with skips, then the first examples."""
        out = [
            f"{Path(p).name}: {n} malformed line(s) skipped" for p, n in sorted(self.counts.items())
        ]
        out += [
            f"  skipped {SkippedLine(Path(e.path).name, e.line, e.reason, e.field)}"
            for e in self.examples[:10]
        ]
        out += [f"{n} {reason}" for reason, n in sorted(self.dropped.items())]
        return out


def iter_jsonl_tolerant(
    path: str | Path, report: SkipReport
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` of each parseable JSON-object line; bad lines go to ``report``.

    A file whose first line is XML or HTML stops the read (``textio.refuse_markup``): every
    line of it would be skipped, and the load would end saying only that nothing was stored.
    """
    first = True
    for lineno, line in iter_lines(path):
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            if first:
                refuse_markup_start(path, line)
            first = False
            report.skip(path, lineno, f"invalid JSON: {err.msg}")
            continue
        first = False
        if not isinstance(obj, dict):
            report.skip(path, lineno, "expected a JSON object")
            continue
        yield lineno, obj


def require_str(obj: dict[str, Any], key: str, *, path: str | Path, line: int) -> str:
    """``obj[key]`` as a non-empty string (ints are accepted: ids are often numbers)."""
    value = obj.get(key)
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        raise InputError("missing value", path=path, line=line, field=key)
    if not isinstance(value, str | int):
        raise InputError(
            f"expected a string, got {type(value).__name__}", path=path, line=line, field=key
        )
    return str(value).strip()


def optional_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    if value is None or isinstance(value, bool | dict | list):
        return None
    text = str(value).strip()
    return text or None


def optional_int(value: Any) -> int | None:
    """``12``, ``"12"`` → 12; anything else (``None``, ``""``, ``"n/a"``, a number beyond 64
    bits, which no store holds and no id or count can be) → ``None``."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if -(2**63) <= number < 2**63 else None

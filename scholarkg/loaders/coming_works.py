"""Which OpenAlex works a load's files describe, read before the load: its foresight.

Why: most of an update's new works are cited by a work read before their own record (59 %
of them in ``bench_openalex.py``'s 200,000 + 22,000 update). Without foresight each such
reference wrote a stub (``:Paper:Stub``) that the work's record then had to find, read,
describe, unlabel and settle: a quarter of the embedded server's execution at 1M + 110k.
Knowing up front which works the load will describe, identity resolution holds such a
reference until its work's record comes (``loaders/held_references.py``) and the work is
written once, as a new node.

The scan reads each file's bytes once (gunzipped), takes the W id from the start of each
line (``{"id": "https://openalex.org/W…"``, where OpenAlex's snapshot writes it) and parses
only a line that does not start so. It is a hint, never a source of truth: a work it names
whose record never arrives (a bad line, an older copy skipped) has its held references
written with stubs at the end of the load, and a work it misses is cited through a stub as
before. So it skips what it cannot read (an API page, an unreadable file) instead of
raising: the load itself reports those with their file and line.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np
import orjson

from scholarkg.textio import open_binary

#: a line of a works file as OpenAlex writes it: the id first
_LEADING_ID = re.compile(rb'\{\s*"id"\s*:\s*"https://openalex\.org/W(\d{1,18})"')
#: more works than this and the scan gives up (no foresight, references write stubs as
#: before): its array holds 8 bytes a work, so 20M works are 160 MB of the load's memory
MAX_COMING = 20_000_000

#: ``progress(works scanned)``
ScanProgress = Callable[[int], None]


class ComingWorks:
    """The OpenAlex works (W numbers) a load's files describe, as one sorted array."""

    def __init__(self, numbers: np.ndarray) -> None:
        self._numbers = np.unique(numbers.astype(np.int64, copy=False))

    def __len__(self) -> int:
        return int(self._numbers.size)

    def coming(self, values: Sequence[str]) -> list[bool]:
        """For each W id (``"W123"``), whether a record of the load describes it; a value
        that is not a W id is not coming."""
        numbers = np.fromiter((_number(v) for v in values), dtype=np.int64, count=len(values))
        arr = self._numbers
        if not arr.size:
            return [False] * len(values)
        at = np.searchsorted(arr, numbers)
        at[at >= arr.size] = 0
        hit: list[bool] = (arr[at] == numbers).tolist()
        return hit


def _number(value: str) -> int:
    """The number of a W id, -1 for anything else (never in the array)."""
    # at most 18 digits, as schema.ids.normalize_openalex_id takes them (fits an int64)
    if 1 < len(value) <= 19 and value[0] == "W" and value[1:].isdigit():
        return int(value[1:])
    return -1


def scan_coming_works(
    files: Iterable[Path],
    *,
    is_page: Callable[[Path], bool],
    progress: ScanProgress | None = None,
) -> ComingWorks | None:
    """The works ``files`` describe, or ``None`` past :data:`MAX_COMING`. API pages
    (``is_page``) are not scanned: their works are cited through stubs as without a scan."""
    numbers = array("q")  # 8 bytes a work, not a Python int's 28 and a list slot
    if progress is not None:
        progress(0)  # the stage starts now (its time and rate count from here)
    for path in files:
        if is_page(path):
            continue
        try:
            _scan_file(path, numbers)
        except (OSError, EOFError, ValueError):  # the load says what is wrong with it
            continue
        if len(numbers) > MAX_COMING:
            return None
        if progress is not None:
            progress(len(numbers))
    return ComingWorks(np.frombuffer(numbers, dtype=np.int64))


def _scan_file(path: Path, numbers: array[int]) -> None:
    match = _LEADING_ID.match
    add = numbers.append
    with open_binary(path) as handle:
        for raw in handle:
            m = match(raw)
            if m is not None:
                add(int(m.group(1)))
                continue
            _parsed_ids(raw, numbers)


def _parsed_ids(raw: bytes, numbers: array[int]) -> None:
    """The W ids of a line that does not start with one (another key order, a page of
    results on one line), parsed; a line that is not JSON adds nothing."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return
    works = obj.get("results") if isinstance(obj, dict) and "results" in obj else [obj]
    if not isinstance(works, list):
        return
    for work in works:
        ident = work.get("id") if isinstance(work, dict) else None
        if isinstance(ident, str):
            tail = ident.rsplit("/", 1)[-1]
            if (n := _number(tail)) >= 0:
                numbers.append(n)

"""Readers for LEGOBench RPLM workbooks: ``rplm.xlsx`` and the per-model answer workbooks.

Formats (the released files of ``lingo-iitgn/LEGOBench``):

* ``rplm.xlsx``, sheet ``Sheet1``: a blank-headed index column (pandas shows it as
  ``Unnamed: 0``), ``instruction``, ``model_options``, ``GT``. The instruction ends with a
  query line ``Query - Rank the performance of the following papers on <TASK> task on dataset
  <DATASET> using metric <METRIC>:``; options and GT hold one title per ``\\n``-joined line.
* ``<stem>.xlsx`` answer workbooks, aligned by position with ``rplm.xlsx``; the answer column is
  the one whose header ends in ``_gen_rank``. Open models: ``Unnamed: 0``, ``prompt``, ``GT``,
  answer; GPT-4/Gemini: ``Unnamed: 0.1``, ``Unnamed: 0``, ``instruction``, ``model_options``,
  ``GT``, answer. Index columns may have a blank header (openpyxl) or ``Unnamed: N``
  (written by pandas).

Title lines are **never cleaned**: split titles, quoted titles, LaTeX escapes and duplicates
are kept verbatim, because GT and options share them and matching relies on that (§6).

We read with openpyxl in read-only mode rather than pandas: openpyxl is a core dependency,
pandas is not, and we need nothing pandas adds here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.loaders import workbook
from scholarkg.loaders.workbook import read_sheet_rows

log = logging.getLogger(__name__)

GOLD_SHEET = "Sheet1"
GOLD_COLUMNS = ("instruction", "model_options", "GT")
ANSWER_SUFFIX = "_gen_rank"

QUERY_RE = re.compile(
    r"^Query - Rank the performance of the following papers on (?:the )?(?P<task>.+?) task"
    r" on dataset (?P<dataset>.+) using metric (?P<metric>.+?)\s*:\s*$"
)
_INDEX_HEADER = re.compile(r"^Unnamed: \d+(?:\.\d+)?$")


@dataclass(frozen=True)
class RPLMInstance:
    """One RPLM query. ``row`` is the 0-based data row (the sheet's index column).

    ``options`` is the shuffled input list, ``gt`` the leaderboard order (best first); both are
    the raw ``\\n``-separated lines.
    """

    row: int
    instruction: str
    task: str
    dataset: str
    metric: str
    options: list[str]
    gt: list[str]


@dataclass(frozen=True)
class RPLMResponse:
    """One model answer, aligned by position with ``rplm.xlsx``; ``text`` is ``None`` when blank.

    ``gt`` is the workbook's own GT column when it has one (used to check alignment).
    """

    row: int
    text: str | None
    gt: str | None = None


def parse_query(instruction: str) -> tuple[str, str, str] | None:
    """``(task, dataset, metric)`` from the instruction's ``Query - ...`` line, or ``None``."""
    for line in instruction.splitlines():
        m = QUERY_RE.match(line.strip())
        if m:
            return m["task"].strip(), m["dataset"].strip(), m["metric"].strip()
    return None


def _is_index_header(value: Any) -> bool:
    return value is None or (
        isinstance(value, str) and (not value.strip() or bool(_INDEX_HEADER.match(value.strip())))
    )


def _column(header: list[Any], name: str, path: Path) -> int:
    matches = [i for i, h in enumerate(header) if isinstance(h, str) and h.strip() == name]
    if not matches:
        raise InputError(
            f"missing column {name!r}; header is {[h for h in header]}",
            path=path,
            line=1,
            field=name,
        )
    if len(matches) > 1:
        raise InputError(
            f"column {name!r} appears {len(matches)} times", path=path, line=1, field=name
        )
    return matches[0]


def _cell(row: tuple[Any, ...], idx: int) -> Any:
    return row[idx] if idx < len(row) else None


def _text(value: Any, *, path: Path, line: int, field: str) -> str | None:
    """A cell as text (numbers kept as written), ``None`` when blank; other types raise."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise InputError(
        f"expected text, got {type(value).__name__}", path=path, line=line, field=field
    )


def _required_text(value: Any, *, path: Path, line: int, field: str) -> str:
    """:func:`_text` for a cell that must hold text (an empty one raises ``InputError``)."""
    text = _text(value, path=path, line=line, field=field)
    if text is None:
        raise InputError("empty cell", path=path, line=line, field=field)
    return text


def read_rplm_gold(path: str | Path, *, sheet: str = GOLD_SHEET) -> Iterator[RPLMInstance]:
    """Yield the RPLM instances of ``rplm.xlsx`` in sheet order.

    Raises :class:`InputError` naming the file, the spreadsheet row (1-based, header = 1) and
    the column for a missing column, an empty cell, an unparseable query line, or option and
    GT lists that do not hold the same titles.
    """
    path = Path(path)
    header, data = read_sheet_rows(path, sheet)
    cols = {name: _column(header, name, path) for name in GOLD_COLUMNS}
    for i, row in enumerate(data):
        line = i + 2
        instruction, options, gt = (
            _required_text(_cell(row, cols[name]), path=path, line=line, field=name)
            for name in GOLD_COLUMNS
        )
        parsed = parse_query(instruction)
        if parsed is None:
            raise InputError(
                "no 'Query - Rank the performance of the following papers on <TASK> task on "
                "dataset <DATASET> using metric <METRIC>:' line",
                path=path,
                line=line,
                field="instruction",
            )
        opt_lines = options.split("\n")
        gt_lines = gt.split("\n")
        if sorted(opt_lines) != sorted(gt_lines):
            raise InputError(
                f"options ({len(opt_lines)} lines) and GT ({len(gt_lines)} lines) are not the "
                "same titles",
                path=path,
                line=line,
                field="GT",
            )
        task, dataset, metric = parsed
        yield RPLMInstance(
            row=i,
            instruction=instruction,
            task=task,
            dataset=dataset,
            metric=metric,
            options=opt_lines,
            gt=gt_lines,
        )


def answer_column(
    header: list[Any], path: str | Path, suffix: str = ANSWER_SUFFIX
) -> tuple[int, str]:
    """Index and model stem of the single ``<stem><suffix>`` column (stem not empty).

    ``suffix`` defaults to RPLM's ``_gen_rank``; other LEGOBench answer workbooks use the
    same layout with their own suffix (:func:`scholarkg.loaders.workbook.answer_column`).
    """
    return workbook.answer_column(header, path, suffix)


def read_rplm_responses(path: str | Path) -> tuple[str, list[RPLMResponse]]:
    """``(model stem, answers)`` from one answer workbook (either column layout).

    The answer column is found by its ``_gen_rank`` suffix; index columns (blank or
    ``Unnamed: N`` headers, one or two of them) are ignored. Cells are returned as stored
    (no list-literal decoding: that is a scoring-protocol decision).
    """
    path = Path(path)
    header, data = read_sheet_rows(path, None)
    idx, stem = answer_column(header, path)
    gt_idx = next(
        (i for i, h in enumerate(header) if isinstance(h, str) and h.strip() == "GT"), None
    )
    unknown = [
        h
        for i, h in enumerate(header)
        if i not in (idx, gt_idx)
        and not _is_index_header(h)
        and h not in ("prompt", "instruction", "model_options")
    ]
    if unknown:
        # Not an error: extra columns do not change scoring, but say so once.
        log.info("%s: ignoring columns %s", path, unknown)
    out = []
    for i, row in enumerate(data):
        line = i + 2
        text = _text(_cell(row, idx), path=path, line=line, field=header[idx])
        gt = None
        if gt_idx is not None:
            gt = _text(_cell(row, gt_idx), path=path, line=line, field="GT")
        out.append(RPLMResponse(row=i, text=text, gt=gt))
    return stem, out

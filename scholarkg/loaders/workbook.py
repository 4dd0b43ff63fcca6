"""Spreadsheet (``.xlsx``) reading shared by workbook readers: the released LEGOBench answer
and gold workbooks (``loaders.legobench_rplm``) and prediction files imported into any task
(``benchmark.tasks.predictions``), which must not depend on one family's loader.

We read with openpyxl in read-only mode rather than pandas: openpyxl is a core dependency,
pandas is not, and we need nothing pandas adds here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scholarkg.errors import InputError


def read_sheet_rows(
    path: Path, sheet: str | None = None
) -> tuple[list[Any], list[tuple[Any, ...]]]:
    """Header and data rows of ``sheet`` (default: the first); trailing all-empty rows dropped
    (Excel leaves them). Errors name the file."""
    import zipfile

    from openpyxl import load_workbook

    if not path.is_file():
        raise InputError("file not found", path=path)
    try:
        wb = load_workbook(path, read_only=True, data_only=True)
    except (zipfile.BadZipFile, OSError, KeyError, ValueError) as err:
        raise InputError(f"not a readable .xlsx workbook ({err})", path=path) from err
    try:
        if sheet is not None and sheet in wb.sheetnames:
            ws = wb[sheet]
        elif sheet is not None and len(wb.sheetnames) != 1:
            raise InputError(
                f"no sheet {sheet!r}; sheets: {', '.join(wb.sheetnames)}", path=path, field=sheet
            )
        else:
            ws = wb[wb.sheetnames[0]]
        rows = list(ws.iter_rows(values_only=True))
    finally:
        wb.close()
    if not rows:
        raise InputError("empty sheet (no header row)", path=path, line=1)
    header = list(rows[0])
    data = rows[1:]
    while data and all(c is None for c in data[-1]):
        data.pop()
    return header, data


def answer_column(header: list[Any], path: str | Path, suffix: str) -> tuple[int, str]:
    """Index and model stem of the single ``<stem><suffix>`` column (stem not empty).

    Released answer workbooks (LEGOBench's ``<model>_gen_rank``, ``<model>_ldb``) name the
    model in the answer column's header; ``suffix`` is the task's.
    """
    found = [
        (i, h.strip()[: -len(suffix)])
        for i, h in enumerate(header)
        if isinstance(h, str) and h.strip().endswith(suffix) and len(h.strip()) > len(suffix)
    ]
    if len(found) != 1:
        raise InputError(
            f"expected exactly one answer column ending in {suffix!r}, found {len(found)}; "
            f"header is {header}",
            path=path,
            line=1,
            field=suffix,
        )
    return found[0]

"""RPG dates: publication dates as fractional years, read in pages of ids.

Dates order leaderboards in practice (results improve over time), so every RPG ranker but
PageRank reads them. Dates in the collections are ``YYYY-MM-DD``, ``YYYY-MM``, a year, or
missing; a missing date falls back to the arXiv id's ``YYMM``, then to the candidates' median.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from typing import Any

import numpy as np

from scholarkg.benchmark.tasks.legobench.rpg.paging import id_pages
from scholarkg.store.base import GraphStore


def fractional_year(value: Any, arxiv_id: Any = None) -> float:
    """``2019-07-01`` → 2019.5; year-only dates → mid-year; fallback to the arXiv id (YYMM)."""
    if isinstance(value, str) and value.strip():
        parts = value.strip().split("-")
        try:
            y = int(parts[0])
            m = int(parts[1]) if len(parts) > 1 else 7
            d = int(parts[2][:2]) if len(parts) > 2 else 1
            doy = (date(y, m, d) - date(y, 1, 1)).days
            return y + doy / 365.25
        except (ValueError, IndexError):
            pass
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value) + 0.5
    if isinstance(arxiv_id, str) and len(arxiv_id) >= 4 and arxiv_id[:4].isdigit():
        yy, mm = int(arxiv_id[:2]), int(arxiv_id[2:4])
        if 1 <= mm <= 12:
            return 2000 + yy + (mm - 0.5) / 12
    return math.nan


def paper_years(store: GraphStore, ids: Sequence[str]) -> dict[str, float]:
    """Fractional publication year per paper (NaN when unknown)."""
    out: dict[str, float] = {}
    for page in id_pages(ids):
        for row in store.run_named("legobench/rpg_paper_meta", {"ids": page}):
            raw = row.get("date") if row.get("date") else row.get("year")
            out[str(row["id"])] = fractional_year(raw, row.get("arxiv_id"))
    return out


def filled_years(store: GraphStore, ids: Sequence[str]) -> np.ndarray:
    """Years of ``ids`` in order, unknown ones filled with the known ones' median (else 0)."""
    by_id = paper_years(store, ids)
    years = np.asarray([by_id.get(i, math.nan) for i in ids], dtype=np.float64)
    if len(years) and np.isnan(years).any():
        fill = np.nanmedian(years) if (~np.isnan(years)).any() else 0.0
        years = np.where(np.isnan(years), fill, years)
    return years

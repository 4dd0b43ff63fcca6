"""Small rules several metric modules share, kept in one place so they cannot drift apart.

* :func:`mean_defined`: the mean over the values that are defined. Benchmarks mark an
  undefined per-instance score as ``None`` (JSON) or NaN (NumPy/SciPy, e.g. Kendall tau of a
  constant list); either way it is *left out* of the mean, never counted as 0.
* :func:`scores_to_dict`: the ``to_dict`` of the scores dataclasses (per-instance on request).
* :func:`check_paired_lists`: the pairing check of the per-paper list metrics (AAAR
  ExpDesign / Weakness): one prediction list per reference list, and at least one paper.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from typing import Any

from scholarkg.errors import InputError


def scores_to_dict(scores: Any, *, per_instance: bool = False) -> dict[str, Any]:
    """A scores dataclass as a plain dict; its ``per_instance`` list only on request (it is
    by far the largest part and most callers print aggregates)."""
    data = asdict(scores)
    if not per_instance:
        data.pop("per_instance", None)
    return data


def mean_defined(values: Iterable[float | None]) -> float | None:
    """Mean of the finite values (``None``, NaN and ±inf left out); ``None`` when none is left."""
    kept = [float(v) for v in values if v is not None and math.isfinite(v)]
    return sum(kept) / len(kept) if kept else None


def check_paired_lists(
    predictions: Sequence[object],
    references: Sequence[object],
    ids: Sequence[str] | None = None,
) -> None:
    """Raise ``InputError`` unless there is one prediction list per reference list (and id)."""
    if len(predictions) != len(references):
        raise InputError(
            f"{len(predictions)} prediction lists but {len(references)} reference lists",
            field="predictions",
        )
    if not predictions:
        raise InputError("no papers to score", field="predictions")
    if ids is not None and len(ids) != len(predictions):
        raise InputError(f"{len(ids)} ids for {len(predictions)} papers", field="ids")

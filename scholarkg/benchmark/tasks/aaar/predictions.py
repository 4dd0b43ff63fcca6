"""Predictions made elsewhere for the AAAR-1.0 and ReviewCritique tasks: released result
folders as the authors' scripts write them, or JSONL with the task's fields.

Released layouts (the released ``RenzeLou/AAAR-1.0`` data layouts; the key ``predicton`` is
misspelt in every released file and
is read as is; ``prediction`` is accepted too):

* EqInfer ``<save>/<file>/<model>/<context>/eval_results.json``: a list of ``{context_before,
  context_after, options, pred, answer}`` **without ids**, in the order of the data file, so
  rows are aligned by position and each row's ``answer`` must equal the gold letter.
* ExpDesign ``<run>/<arxiv id>/eval_results.json``: ``{id, output, predicton: {<experiments
  question>: [...], <explanations question>: [...]}, oracle}``.
* Weakness ``<run>/<window>/eval_results.json``: a list of ``{id, predicton: [...], output}``.

JSONL (one object per line; ``id`` is the graph id or the released id -- arXiv id, OpenReview
id, EqInfer 0-based index, ReviewCritique 1-based line or title):

=================  ============================================================================
task               fields
=================  ============================================================================
aaar-eqinfer       ``{"id", "pred"}`` (the raw reply; ``response`` also accepted)
aaar-expdesign     ``{"id", "experiments": [...], "explanations": [...]}`` (either may be absent)
aaar-weakness      ``{"id", "weaknesses": [...]}`` or a raw numbered-list reply as ``response``
reviewcritique     ``{"paper", "review", "deficient": [bool]}`` or ``"label_all"`` and/or
                   ``"select_deficient"`` (bools or ``"Yes"``/``"No"`` reliability labels), and
                   optional ``"explanations": [str | null]`` -- one entry per segment
=================  ============================================================================
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.benchmark.metrics.lists import parse_numbered_list
from scholarkg.errors import InputError
from scholarkg.loaders.aaar import EXP_KEY, WHY_KEY, denan, read_json
from scholarkg.textio import iter_jsonl

log = logging.getLogger(__name__)

RESULT_FILE = "eval_results.json"
PRED_KEYS = ("predicton", "prediction")


def _is_jsonl(path: Path) -> bool:
    return path.is_file() and path.name.removesuffix(".gz").endswith((".jsonl", ".ndjson"))


def _pred_value(obj: dict[str, Any], path: Path, line: int | None, *keys: str) -> Any:
    for key in (*PRED_KEYS, *keys):
        if key in obj:
            return obj[key]
    raise InputError(
        f"no prediction field (one of {', '.join((*PRED_KEYS, *keys))})", path=path, line=line,
        field=(PRED_KEYS[0]),
    )  # fmt: skip


def _id(obj: dict[str, Any], path: Path, line: int | None, key: str = "id") -> str:
    value = obj.get(key)
    if value is None or isinstance(value, bool) or (isinstance(value, str) and not value.strip()):
        raise InputError("missing id", path=path, line=line, field=key)
    return str(value).strip()


def _str_items(value: Any, path: Path, line: int | None, field_name: str) -> list[str]:
    """A list of strings, or a raw reply parsed as a numbered list (open-model fallback)."""
    if value is None:
        return []
    if isinstance(value, str):
        return parse_numbered_list(value, open_model=True) if value.strip() else []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("expected a list of strings", path=path, line=line, field=field_name)
    return list(value)


def find_result_files(path: Path) -> list[Path]:
    """``eval_results.json`` files under a released result folder (or the file itself)."""
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise InputError("predictions not found", path=path)
    files = sorted(path.rglob(RESULT_FILE))
    if not files:
        raise InputError(f"no {RESULT_FILE} under the folder", path=path)
    return files


# --------------------------------------------------------------------------- EqInfer


@dataclass
class EqInferPredictions:
    """Replies by item id or, for released files, by position."""

    by_id: dict[str, str | None] = field(default_factory=dict)
    by_position: list[tuple[str | None, str | None]] | None = None  # (reply, answer)


def read_eqinfer_predictions(path: Path) -> EqInferPredictions:
    path = Path(path)
    out = EqInferPredictions()
    if _is_jsonl(path):
        for line, obj in iter_jsonl(path):
            pid = _id(obj, path, line)
            reply = _pred_value(obj, path, line, "pred", "response")
            if reply is not None and not isinstance(reply, str):
                reply = str(reply)
            if pid in out.by_id:
                raise InputError(f"duplicate id {pid!r}", path=path, line=line, field="id")
            out.by_id[pid] = reply
        return out
    file, data = _released_list(path, "one model and context length", "{pred, answer, ...}")
    rows: list[tuple[str | None, str | None]] = []
    for i, row in enumerate(data):
        if not isinstance(row, dict) or "pred" not in row:
            raise InputError("missing field", path=file, line=i + 1, field=f"[{i}].pred")
        pred = row["pred"]
        rows.append((None if pred is None else str(pred), row.get("answer")))
    out.by_position = rows
    return out


# --------------------------------------------------------------------------- ExpDesign


@dataclass(frozen=True)
class ExpDesignPrediction:
    experiments: list[str]
    explanations: list[str] | None


def read_expdesign_predictions(path: Path) -> dict[str, ExpDesignPrediction]:
    path = Path(path)
    out: dict[str, ExpDesignPrediction] = {}
    if _is_jsonl(path):
        for line, obj in iter_jsonl(path):
            pid = _id(obj, path, line)
            if pid in out:  # as the EqInfer and Weakness readers: never a silent overwrite
                raise InputError(f"duplicate id {pid!r}", path=path, line=line, field="id")
            if any(k in obj for k in PRED_KEYS):
                obj = {**obj, **_released_expdesign(_pred_value(obj, path, line), path, line)}
            exps = _str_items(obj.get("experiments"), path, line, "experiments")
            whys = obj.get("explanations")
            out[pid] = ExpDesignPrediction(
                exps, None if whys is None else _str_items(whys, path, line, "explanations")
            )
        return out
    for file in find_result_files(path):
        data = read_json(file)
        if not isinstance(data, dict):
            raise InputError("expected the released {id, predicton, ...} object", path=file)
        pid = _id(data, file, None) if "id" in data else file.parent.name
        if pid in out:
            raise InputError(
                f"duplicate id {pid!r} (another result file has it)", path=file, field="id"
            )
        fields = _released_expdesign(_pred_value(data, file, None), file, None)
        out[pid] = ExpDesignPrediction(
            _str_items(fields["experiments"], file, None, f"predicton[{EXP_KEY!r}]"),
            _str_items(fields["explanations"], file, None, f"predicton[{WHY_KEY!r}]"),
        )
    return out


def _released_expdesign(value: Any, path: Path, line: int | None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError("expected {<experiments>: [...], <explanations>: [...]}", path=path,
                         line=line, field="predicton")  # fmt: skip
    return {"experiments": value.get(EXP_KEY), "explanations": value.get(WHY_KEY)}


# --------------------------------------------------------------------------- Weakness


def read_weakness_predictions(path: Path) -> dict[str, list[str]]:
    path = Path(path)
    out: dict[str, list[str]] = {}
    if _is_jsonl(path):
        for line, obj in iter_jsonl(path):
            pid = _id(obj, path, line)
            value = _pred_value(obj, path, line, "weaknesses", "response")
            if pid in out:
                raise InputError(f"duplicate id {pid!r}", path=path, line=line, field="id")
            out[pid] = _str_items(value, path, line, "weaknesses")
        return out
    file, data = _released_list(path, "one model and window size", "{id, predicton, output}")
    for i, row in enumerate(data):
        if not isinstance(row, dict):
            raise InputError("expected an object", path=file, line=i + 1, field=f"[{i}]")
        pid = _id(row, file, i + 1)
        out[pid] = _str_items(_pred_value(row, file, i + 1), file, i + 1,
                              f"[{i}].predicton")  # fmt: skip
    return out


def _released_list(path: Path, run: str, rows: str) -> tuple[Path, list[Any]]:
    """The one ``eval_results.json`` of a run (``run`` says what fixes it) and its list."""
    files = find_result_files(path)
    if len(files) != 1:
        raise InputError(
            f"{len(files)} {RESULT_FILE} files under the folder; give the one of the run ({run})",
            path=path,
        )
    data = read_json(files[0])
    if not isinstance(data, list):
        raise InputError(f"expected the released list of {rows}", path=files[0])
    return files[0], data


# --------------------------------------------------------------------------- ReviewCritique


@dataclass(frozen=True)
class ReviewPrediction:
    """One review's flags per prompt (``None`` = that prompt was not run) and explanations."""

    deficient: list[bool] | None = None
    label_all: list[bool] | None = None
    select_deficient: list[bool] | None = None
    explanations: list[str | None] | None = None


def _flags(value: Any, path: Path, line: int, name: str) -> list[bool] | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InputError("expected a list, one entry per segment", path=path, line=line,
                         field=name)  # fmt: skip
    out = []
    for k, v in enumerate(value):
        if isinstance(v, bool):
            out.append(v)
        elif isinstance(v, str) and v.strip().lower() in ("yes", "no"):
            out.append(v.strip().lower() == "no")  # reliability label: "No" = deficient
        elif isinstance(v, int) and v in (0, 1):
            out.append(bool(v))
        else:
            raise InputError(f"expected true/false or 'Yes'/'No', got {v!r}", path=path,
                             line=line, field=f"{name}[{k}]")  # fmt: skip
    return out


def read_reviewcritique_predictions(path: Path) -> dict[tuple[str, str], ReviewPrediction]:
    """``{(paper ref, review key): prediction}``; the paper ref is resolved by the task."""
    path = Path(path)
    if not _is_jsonl(path):
        raise InputError("ReviewCritique predictions are JSONL (no released layout exists)",
                         path=path)  # fmt: skip
    out: dict[tuple[str, str], ReviewPrediction] = {}
    for line, obj in iter_jsonl(path):
        obj = denan(obj)
        key = (_id(obj, path, line, "paper"), _id(obj, path, line, "review"))
        pred = ReviewPrediction(
            _flags(obj.get("deficient"), path, line, "deficient"),
            _flags(obj.get("label_all"), path, line, "label_all"),
            _flags(obj.get("select_deficient"), path, line, "select_deficient"),
            None,
        )
        if pred.deficient is None and pred.label_all is None and pred.select_deficient is None:
            raise InputError("give deficient, label_all or select_deficient", path=path,
                             line=line, field="deficient")  # fmt: skip
        expl = obj.get("explanations")
        if expl is not None:
            if not isinstance(expl, list) or not all(e is None or isinstance(e, str)
                                                     for e in expl):  # fmt: skip
                raise InputError("expected a list of strings or nulls", path=path, line=line,
                                 field="explanations")  # fmt: skip
            pred = ReviewPrediction(pred.deficient, pred.label_all, pred.select_deficient,
                                    list(expl))  # fmt: skip
        if key in out:
            raise InputError(f"duplicate review {key!r}", path=path, line=line, field="review")
        out[key] = pred
    if not out:
        raise InputError("no predictions in file", path=path)
    return out

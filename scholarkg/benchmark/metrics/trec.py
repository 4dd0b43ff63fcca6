"""Read and write TREC qrels, TREC runs and JSONL ranked lists, refusing malformed input.

Formats (whitespace-separated columns, blank lines ignored):

- **qrels**: ``qid iter docid grade`` (4 columns; ``iter`` is ignored, usually ``0``; grade a
  number), or BEIR's ``query-id corpus-id score`` (3 columns, tab-separated, with or without
  that header line: what ``scholarkg load beir`` reads). The first judgement line decides
  the layout; a file mixing the two is an error. A repeated ``(qid, docid)`` is an error.
- **run**: ``qid Q0 docid rank score tag`` (6 columns; ``rank`` an integer, ``score`` a finite
  number). Like trec_eval we rank by score (desc, ties by docid desc) and ignore the rank
  column once it is validated. A docid repeated within one query is an error.
- **JSONL ranked lists**: one object per line, ``{"id": ..., "ranking": [docid, ...]}`` best
  first (ids may be numbers; they are read as strings). A repeated id, a repeated docid in a
  ranking or an empty ranking is an error.
- **JSONL predictions** (``read_predictions``): ``{"id": ..., "response": "free text"}`` or
  ``{"id": ..., "ranking": [...]}``; an empty response or ranking is an error.

Every error is an :class:`InputError` naming the file and the 1-based line, and the field
when there is one. With ``known_qids`` given, a query id outside it is an error too (the
usual cause is mismatched id spaces, which would otherwise score as silent zeros).

We parse by hand rather than with ranx's ``Qrels.from_file``/``Run.from_file`` because those
load through pandas without line numbers and keep the last of duplicate entries silently.
Writers go through a temporary file and ``os.replace`` so a crash never leaves half a file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.textio import atomic_write_text, iter_jsonl, iter_lines


def _lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, stripped text) of each non-blank line.

    ``missing=None``: a missing file reports ``cannot read file: <reason>`` like any read error.
    """
    for number, text in iter_lines(path, missing=None):
        yield number, text.strip()


def _number(text: str, path: str | Path, line: int, field: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{text!r} is not a number", path=path, line=line, field=field) from None
    if not math.isfinite(value):
        raise InputError(f"{text!r} is not a finite number", path=path, line=line, field=field)
    return value


def _rows(path: str | Path, columns: tuple[str, ...]) -> Iterator[tuple[Any, ...]]:
    """``(line, *fields)`` per non-blank line, which must have exactly ``len(columns)`` fields."""
    for line, text in _lines(path):
        cols = text.split()
        if len(cols) != len(columns):
            raise InputError(
                f"expected {len(columns)} columns '{' '.join(columns)}', found {len(cols)}",
                path=path,
                line=line,
            )
        yield (line, *cols)


#: the header line of a BEIR qrels file
BEIR_QRELS_HEADER = ("query-id", "corpus-id", "score")


def _qrels_rows(path: str | Path) -> Iterator[tuple[int, str, str, str]]:
    """``(line, qid, docid, grade)`` from TREC (4 columns) or BEIR (3 columns) qrels."""
    layout: int | None = None
    for line, text in _lines(path):
        cols = text.split()
        if layout is None and tuple(c.lower() for c in cols) == BEIR_QRELS_HEADER:
            layout = 3
            continue
        if layout is None and len(cols) in (3, 4):
            layout = len(cols)
        if len(cols) != layout:
            want = (
                "4 columns 'qid iter docid grade' (TREC)"
                if layout == 4
                else "3 columns 'query-id corpus-id score' (BEIR)"
                if layout == 3
                else "4 columns 'qid iter docid grade' (TREC) or 3 'query-id corpus-id score' "
                "(BEIR)"
            )
            raise InputError(f"expected {want}, found {len(cols)}", path=path, line=line)
        if layout == 4:
            yield line, cols[0], cols[2], cols[3]
        else:
            yield line, cols[0], cols[1], cols[2]


def read_qrels(path: str | Path) -> dict[str, dict[str, float]]:
    """``{qid: {docid: grade}}`` from TREC (``qid iter docid grade``) or BEIR qrels."""
    qrels: dict[str, dict[str, float]] = {}
    for line, qid, doc, grade in _qrels_rows(path):
        docs = qrels.setdefault(qid, {})
        if doc in docs:
            raise InputError(
                f"document {doc!r} judged twice for query {qid!r}", path=path, line=line
            )
        docs[doc] = _number(grade, path, line, "grade")
    if not qrels:
        raise InputError("no judgments in file", path=path)
    return qrels


def read_run(
    path: str | Path, *, known_qids: Collection[str] | None = None
) -> dict[str, dict[str, float]]:
    """``{qid: {docid: score}}`` from a TREC run file (``qid Q0 docid rank score tag``)."""
    run: dict[str, dict[str, float]] = {}
    for line, qid, _, doc, rank, score, _tag in _rows(
        path, ("qid", "Q0", "docid", "rank", "score", "tag")
    ):
        if known_qids is not None and qid not in known_qids:
            raise InputError(
                f"query {qid!r} is not in the qrels", path=path, line=line, field="qid"
            )
        try:
            int(rank)
        except ValueError:
            raise InputError(
                f"rank {rank!r} is not an integer", path=path, line=line, field="rank"
            ) from None
        docs = run.setdefault(qid, {})
        if doc in docs:
            raise InputError(
                f"document {doc!r} appears twice in the ranking of query {qid!r}",
                path=path,
                line=line,
            )
        docs[doc] = _number(score, path, line, "score")
    if not run:
        raise InputError("no ranked documents in file", path=path)
    return run


def _json_records(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    return iter_jsonl(path, missing=None, invalid_json="invalid JSON ({msg})")


def _record_id(record: Mapping[str, Any], path: str | Path, line: int) -> str:
    if "id" not in record:
        raise InputError("missing field", path=path, line=line, field="id")
    value = record["id"]
    if isinstance(value, bool) or not isinstance(value, str | int) or value == "":
        raise InputError(
            f"id {value!r} must be a non-empty string or integer", path=path, line=line, field="id"
        )
    return str(value)


def _ranking(record: Mapping[str, Any], path: str | Path, line: int, *, what: str) -> list[str]:
    value = record["ranking"]
    if not isinstance(value, list):
        raise InputError("expected a list", path=path, line=line, field="ranking")
    if not value:
        raise InputError(f"empty {what}", path=path, line=line, field="ranking")
    items: list[str] = []
    for item in value:
        if isinstance(item, bool) or not isinstance(item, str | int) or item == "":
            raise InputError(
                f"entry {item!r} must be a non-empty string or integer",
                path=path,
                line=line,
                field="ranking",
            )
        items.append(str(item))
    return items


def read_ranked_jsonl(
    path: str | Path,
    *,
    known_qids: Collection[str] | None = None,
    allow_duplicates: bool = False,
) -> dict[str, list[str]]:
    """``{id: [item, ...]}`` from JSONL lines ``{"id": ..., "ranking": [...]}`` (best first).

    ``allow_duplicates`` keeps repeated items inside one ranking (gold leaderboards may repeat
    a title); repeated docids in a retrieval run are an error.
    """
    out: dict[str, list[str]] = {}
    for line, record in _json_records(path):
        rid = _record_id(record, path, line)
        if known_qids is not None and rid not in known_qids:
            raise InputError(f"id {rid!r} is not a known query", path=path, line=line, field="id")
        if rid in out:
            raise InputError(f"id {rid!r} appears twice", path=path, line=line, field="id")
        if "ranking" not in record:
            raise InputError("missing field", path=path, line=line, field="ranking")
        items = _ranking(record, path, line, what="ranking")
        if not allow_duplicates and len(set(items)) != len(items):
            dup = next(d for i, d in enumerate(items) if d in items[:i])
            raise InputError(
                f"{dup!r} appears twice in the ranking", path=path, line=line, field="ranking"
            )
        out[rid] = items
    if not out:
        raise InputError("no records in file", path=path)
    return out


def read_predictions(
    path: str | Path, *, known_ids: Collection[str] | None = None
) -> dict[str, str]:
    """``{id: response text}`` from JSONL ``{"id", "response"}`` or ``{"id", "ranking"}`` lines.

    A ``ranking`` list becomes one item per line, which every title matcher reads as a list.
    """
    out: dict[str, str] = {}
    for line, record in _json_records(path):
        rid = _record_id(record, path, line)
        if known_ids is not None and rid not in known_ids:
            raise InputError(
                f"id {rid!r} is not in the gold file", path=path, line=line, field="id"
            )
        if rid in out:
            raise InputError(f"id {rid!r} appears twice", path=path, line=line, field="id")
        if "response" in record:
            text = record["response"]
            if not isinstance(text, str):
                raise InputError("expected a string", path=path, line=line, field="response")
            if not text.strip():
                raise InputError("empty prediction", path=path, line=line, field="response")
        elif "ranking" in record:
            text = "\n".join(_ranking(record, path, line, what="prediction"))
        else:
            raise InputError("missing field 'response' or 'ranking'", path=path, line=line)
        out[rid] = text
    if not out:
        raise InputError("no records in file", path=path)
    return out


def is_jsonl(path: str | Path) -> bool:
    """True when the first non-blank line looks like a JSON object (run format sniffing)."""
    for _, text in _lines(path):
        return text.startswith("{")
    return False


def _check_token(value: str, what: str) -> str:
    if not value or any(c.isspace() for c in value):
        raise InputError(f"{what} {value!r} is empty or contains whitespace; TREC columns cannot")
    return value


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, float]]) -> None:
    """Write ``qid 0 docid grade`` lines (integral grades without a decimal point)."""
    lines = []
    for qid, docs in qrels.items():
        for doc, grade in docs.items():
            g = int(grade) if float(grade).is_integer() else grade
            lines.append(f"{_check_token(qid, 'qid')} 0 {_check_token(doc, 'docid')} {g}\n")
    atomic_write_text(path, "".join(lines))


def write_run(
    path: str | Path,
    run: Mapping[str, Sequence[str] | Mapping[str, float]],
    *,
    tag: str = "scholarkg",
) -> None:
    """Write ``qid Q0 docid rank score tag`` lines.

    Ranked lists get score ``N - rank`` (strictly decreasing, so trec_eval keeps our order);
    scored queries are written in trec_eval order with their own scores.
    """
    from scholarkg.benchmark.metrics.ir import rank_scores

    _check_token(tag, "tag")
    lines = []
    for qid, value in run.items():
        _check_token(qid, "qid")
        if isinstance(value, Mapping):
            ranked = rank_scores(value, qid)
            scores = [float(value[d]) for d in ranked]
        else:
            ranked = list(value)
            scores = [float(len(ranked) - i) for i in range(len(ranked))]
        for rank, (doc, score) in enumerate(zip(ranked, scores, strict=True), start=1):
            lines.append(f"{qid} Q0 {_check_token(doc, 'docid')} {rank} {score!r} {tag}\n")
    atomic_write_text(path, "".join(lines))


def write_ranked_jsonl(path: str | Path, run: Mapping[str, Sequence[str]]) -> None:
    """Write ``{"id": ..., "ranking": [...]}`` lines."""
    text = "".join(
        json.dumps({"id": qid, "ranking": list(items)}, ensure_ascii=False) + "\n"
        for qid, items in run.items()
    )
    atomic_write_text(path, text)

"""LGPLM leaderboard extraction: parse the model's markdown table, then MR, MP and SP.

LEGOBench defines the metrics in prose only (the LEGOBench paper (Singh et al., arXiv 2401.06233),
metric definitions) and publishes no
scoring code, so everything here that the paper leaves open is an explicit, named option:

* **table parsing** is lenient because model output is messy: tables inside prose, several
  tables, rows with too many or too few cells, no separator row, bold/italic marks, percent
  signs, footnote marks and daggers, ``±`` parts, thousands separators;
* **method names** are compared after :func:`normalize_method` (NFKC, casefold, markup and
  footnotes removed, punctuation and whitespace folded away), optionally through an alias map;
* **scores** match within ``max(abs_tol, rel_tol·|gold|)``, optionally also after scaling the
  prediction by 100 or 1/100 (fraction vs percent);
* **SP** exists in two variants because the paper defines it twice: ``sp_generated`` =
  correct scores / generated methods (§3.4), ``sp_correct`` = correct scores / correctly
  generated methods (§4.3).

Results therefore carry ``comparable=False`` and a note: they are not comparable to the paper's
Table 5. Pure functions only (no store, no loaders).

We deliberately parse markdown with a few regular expressions instead of a markdown library:
real answers are rarely valid GFM (ragged rows, missing separators), and a CommonMark parser
would drop exactly the tables we need to salvage.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scholarkg.benchmark.metrics._common import mean_defined, scores_to_dict
from scholarkg.errors import InputError

NOT_COMPARABLE_NOTE = (
    "not comparable to the paper: LEGOBench publishes no LGPLM scoring code; name "
    "normalisation, score tolerance and SP variant are this platform's choices"
)
AVERAGES = ("micro", "macro")

# ----------------------------------------------------------------------------- cell cleaning

_SUP = re.compile(r"<sup>.*?</sup>|\^\{?[\w*†‡§¶#,]+\}?", re.IGNORECASE)
_HTML = re.compile(r"</?[a-zA-Z][^>]*>")
_REF = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]")
_FOOTNOTE_MARKS = "†‡§¶⋆★✝*#"
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`|~~)")
_SEPARATOR_CELL = re.compile(r"^:?-{1,}:?$")
_WS = re.compile(r"\s+")
_PLUS_MINUS = re.compile(r"(±|\+/-|\+-|\(\s*±).*$")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")
_NA = {"", "-", "—", "–", "n/a", "na", "none", "null", "?", "nan", "--", "x"}


def clean_cell(text: str) -> str:
    """Cell text without markup: HTML tags, superscripts, ``[1]`` refs, emphasis, daggers."""
    text = unicodedata.normalize("NFKC", text)
    text = _SUP.sub("", text)
    text = _HTML.sub("", text)
    text = _REF.sub("", text)
    text = _EMPHASIS.sub("", text)
    text = text.strip().rstrip(_FOOTNOTE_MARKS).strip()
    return _WS.sub(" ", text)


@dataclass(frozen=True)
class ParsedScore:
    """A numeric cell: ``value`` as written, and whether it carried a ``%`` sign."""

    value: float
    percent: bool


def parse_score(cell: str) -> ParsedScore | None:
    """The number a score cell states, or ``None`` (``-``, ``N/A``, words).

    ``85.3**†`` → 85.3; ``91.2 ± 0.4`` → 91.2; ``1,234.5`` → 1234.5; ``87.1%`` → 87.1 with
    ``percent=True``; ``−3.2`` (Unicode minus) → −3.2. A comma is read as a thousands separator
    only in the ``1,234`` pattern; decimal commas are not supported (ambiguous).
    """
    text = clean_cell(cell).replace("−", "-").replace("–", "-")
    text = _PLUS_MINUS.sub("", text).strip()
    if text.casefold() in _NA:
        return None
    m = _NUMBER.search(text)
    if m is None:
        return None
    # a number inside words ("F1", "Top-1 of 5 runs", "340M" params) is not a score: apart
    # from parenthesised notes, the rest of the cell must hold no letters
    rest = (text[: m.start()] + text[m.end() :]).strip()
    rest = re.sub(r"\(.*?\)", "", rest)
    if any(ch.isalpha() for ch in rest):
        return None
    value = float(m.group(0).replace(",", ""))
    return ParsedScore(value=value, percent="%" in text)


# ----------------------------------------------------------------------------- table parsing


@dataclass(frozen=True)
class MarkdownTable:
    """One table: header cells and data rows, all padded to the same width.

    ``has_header`` is False when no separator row told us which row is the header; ``header``
    is then ``col1..colN`` and every row is data. ``first_line`` is 0-based in the text.
    """

    header: list[str]
    rows: list[list[str]]
    first_line: int
    has_header: bool = True


def _split_row(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells = re.split(r"(?<!\\)\|", s)
    return [c.replace("\\|", "|").strip() for c in cells]


def _is_table_line(line: str) -> bool:
    s = line.strip()
    return s.count("|") >= 1 and (s.startswith("|") or len(_split_row(s)) >= 2)


def _is_separator(cells: list[str]) -> bool:
    non_empty = [c.replace(" ", "") for c in cells if c.strip()]
    return bool(non_empty) and all(_SEPARATOR_CELL.match(c) for c in non_empty)


def parse_markdown_tables(text: str) -> list[MarkdownTable]:
    """Every pipe table in ``text``, in order; prose around and between tables is ignored.

    A block is a run of consecutive lines holding ``|``. The header is the row just above the
    first separator row (``|---|:--:|``); later separator rows are dropped. Without a
    separator, the first row is taken as header if none of its cells is a number. Ragged rows
    are padded with ``""`` (short) and the header widened (long). Blocks with no data row are
    skipped.
    """
    lines = text.splitlines()
    blocks: list[tuple[int, list[list[str]]]] = []
    current: list[list[str]] = []
    start = 0
    for i, line in enumerate(lines):
        if _is_table_line(line):
            if not current:
                start = i
            current.append(_split_row(line))
        elif current:
            blocks.append((start, current))
            current = []
    if current:
        blocks.append((start, current))

    tables = []
    for start, rows in blocks:
        sep = next((k for k, r in enumerate(rows) if _is_separator(r)), None)
        has_header = True
        if sep is not None and sep >= 1:
            header, data = rows[sep - 1], rows[sep + 1 :]
        elif sep == 0:
            header, data, has_header = [], rows[1:], False
        elif rows and all(parse_score(c) is None for c in rows[0]) and len(rows) > 1:
            header, data = rows[0], rows[1:]
        else:
            header, data, has_header = [], rows, False
        data = [r for r in data if not _is_separator(r) and any(c.strip() for c in r)]
        if not data:
            continue
        width = max(len(header), *(len(r) for r in data))
        if not has_header:
            header = [f"col{j + 1}" for j in range(width)]
        header = [clean_cell(h) for h in header] + [""] * (width - len(header))
        data = [r + [""] * (width - len(r)) for r in data]
        tables.append(MarkdownTable(header, data, start, has_header))
    return tables


# ----------------------------------------------------------------------------- entries

_METHOD_HEADER = re.compile(
    r"\b(method|model|approach|system|name|paper|architecture|algorithm|technique)s?\b", re.I
)
_SCORE_HEADER = re.compile(r"\b(score|result|value|performance)s?\b", re.I)
#: numeric columns that are never the leaderboard score
_NOT_SCORE_HEADER = re.compile(
    r"^\s*(#|no\.?)\s*$|\b(rank|ranking|position|year|date|params?|parameters|size|ref|"
    r"reference|citations?)\b",
    re.I,
)


@dataclass(frozen=True)
class ExtractedEntry:
    """One (method, score) row read from the model's output."""

    method: str
    score: float | None
    percent: bool
    raw_score: str
    table: int
    row: int


def normalize_method(name: str, aliases: Mapping[str, str] | None = None) -> str:
    """Comparison key for a method name: case, markup, punctuation and spacing folded away.

    ``**BERT-Large**†`` and ``bert large`` both become ``bertlarge``. If ``aliases`` maps a
    (normalised) name to a canonical one, the canonical name's key is returned, so
    ``{"RoBERTa": "Robustly optimized BERT"}`` makes both spellings equal.
    """
    text = clean_cell(name).casefold()
    key = "".join(ch for ch in text if unicodedata.category(ch)[0] in "LN")
    if aliases:
        table = _alias_table(aliases)
        key = table.get(key, key)
    return key


def _alias_table(aliases: Mapping[str, str]) -> dict[str, str]:
    out = {}
    for alias, canonical in aliases.items():
        canon = normalize_method(canonical)
        out[normalize_method(alias)] = canon
        out.setdefault(canon, canon)
    return out


def _numeric_share(table: MarkdownTable, col: int) -> float:
    cells = [r[col] for r in table.rows if clean_cell(r[col]).strip()]
    if not cells:
        return 0.0
    return sum(parse_score(c) is not None for c in cells) / len(cells)


def _pick_columns(table: MarkdownTable, metric: str | None) -> tuple[int, int | None]:
    width = len(table.header)
    share = [_numeric_share(table, j) for j in range(width)]
    method_col = next(
        (j for j, h in enumerate(table.header) if _METHOD_HEADER.search(h)),
        None,
    )
    if method_col is None:
        method_col = next((j for j in range(width) if share[j] < 0.5), 0)
    numeric = [
        j
        for j in range(width)
        if j != method_col and share[j] >= 0.5 and not _NOT_SCORE_HEADER.search(table.header[j])
    ]
    score_col = None
    if metric:
        key = normalize_method(metric)
        score_col = next(
            (j for j in numeric if key and key in normalize_method(table.header[j])), None
        )
    if score_col is None:
        score_col = next((j for j in numeric if _SCORE_HEADER.search(table.header[j])), None)
    if score_col is None and numeric:
        after = [j for j in numeric if j > method_col]
        score_col = after[0] if after else numeric[0]
    return method_col, score_col


def extract_entries(text: str, *, metric: str | None = None) -> list[ExtractedEntry]:
    """(method, score) rows from every table in a model answer.

    Per table, the method column is the first whose header names a method/model (else the
    first mostly non-numeric column); the score column is the numeric column whose header
    contains ``metric`` (if given), else one headed score/result/value, else the first mostly
    numeric column right of the method column. Columns headed rank, #, year, params, size are
    never scores. Rows with an empty method cell are skipped.
    """
    out = []
    for t_idx, table in enumerate(parse_markdown_tables(text)):
        mcol, scol = _pick_columns(table, metric)
        for r_idx, row in enumerate(table.rows):
            method = clean_cell(row[mcol])
            if not method:
                continue
            raw = row[scol] if scol is not None else ""
            parsed = parse_score(raw) if scol is not None else None
            out.append(
                ExtractedEntry(
                    method=method,
                    score=parsed.value if parsed else None,
                    percent=parsed.percent if parsed else False,
                    raw_score=raw,
                    table=t_idx,
                    row=r_idx,
                )
            )
    return out


# ----------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class ScoreTolerance:
    """When a generated score counts as correct.

    ``|pred − gold| ≤ max(abs_tol, rel_tol·|gold|)``; with ``scale_percent`` the prediction
    ×100 and ÷100 are tried too, so 0.853 matches 85.3 (fraction vs percent). Defaults allow
    the last printed digit of a two-decimal score to differ by one.
    """

    abs_tol: float = 0.01
    rel_tol: float = 0.001
    scale_percent: bool = True

    def matches(self, pred: float | None, gold: float) -> bool:
        if pred is None or math.isnan(pred) or math.isnan(gold):
            return False
        bound = max(self.abs_tol, self.rel_tol * abs(gold)) + 1e-12
        candidates = [pred, pred * 100, pred / 100] if self.scale_percent else [pred]
        return any(abs(c - gold) <= bound for c in candidates)


@dataclass(frozen=True)
class ExtractionScores:
    """LGPLM scores in percent; ``None`` where a denominator is zero.

    ``sp_generated`` = correct scores / generated methods (paper §3.4);
    ``sp_correct`` = correct scores / correctly generated methods (paper §4.3).
    """

    mr: float | None
    mp: float | None
    sp_generated: float | None
    sp_correct: float | None
    n_leaderboards: int
    n_gold_methods: int
    n_generated: int
    n_correct_methods: int
    n_correct_scores: int
    average: str = "micro"
    comparable: bool = False
    note: str = NOT_COMPARABLE_NOTE
    per_instance: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, *, per_instance: bool = False) -> dict[str, Any]:
        return scores_to_dict(self, per_instance=per_instance)


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


def extraction_percentages(counts: Mapping[str, int]) -> dict[str, float | None]:
    """``mr``, ``mp``, ``sp_generated``, ``sp_correct`` in % from one record's (or the pooled)
    counts ``n_gold``, ``n_generated``, ``n_correct_methods``, ``n_correct_scores``.

    ``None`` where the denominator is 0. The one place these ratios are written: the micro and
    macro averages and the LGPLM run's per-instance scores all use it.
    """
    return {
        "mr": _pct(counts["n_correct_methods"], counts["n_gold"]),
        "mp": _pct(counts["n_correct_methods"], counts["n_generated"]),
        "sp_generated": _pct(counts["n_correct_scores"], counts["n_generated"]),
        "sp_correct": _pct(counts["n_correct_scores"], counts["n_correct_methods"]),
    }


def score_leaderboard(
    gold: Sequence[tuple[str, float]],
    output: str,
    *,
    metric: str | None = None,
    aliases: Mapping[str, str] | None = None,
    tolerance: ScoreTolerance | None = None,
) -> dict[str, Any]:
    """Counts for one leaderboard: gold methods, generated, correct methods, correct scores.

    Generated methods are deduplicated by normalised name (first row wins), as are gold
    methods (first = best entry wins), so a repeated row neither helps nor hurts.
    """
    return _score_leaderboard(
        gold, output, metric, _alias_table(aliases or {}), tolerance or ScoreTolerance()
    )


def _score_leaderboard(
    gold: Sequence[tuple[str, float]],
    output: str,
    metric: str | None,
    alias_table: Mapping[str, str],
    tol: ScoreTolerance,
) -> dict[str, Any]:
    """:func:`score_leaderboard` with the alias table built once by the caller (it normalises
    every alias, so rebuilding it per method name made scoring quadratic in the aliases)."""

    def key_of(name: str) -> str:
        key = normalize_method(name)
        return alias_table.get(key, key)

    gold_map: dict[str, tuple[str, float]] = {}
    for name, value in gold:
        gold_map.setdefault(key_of(name), (name, float(value)))
    gen: dict[str, ExtractedEntry] = {}
    for e in extract_entries(output, metric=metric):
        key = key_of(e.method)
        if key:
            gen.setdefault(key, e)
    correct = [k for k in gen if k in gold_map]
    correct_scores = [k for k in correct if tol.matches(gen[k].score, gold_map[k][1])]
    return {
        "n_gold": len(gold_map),
        "n_generated": len(gen),
        "n_correct_methods": len(correct),
        "n_correct_scores": len(correct_scores),
        "correct_methods": [gold_map[k][0] for k in correct],
        "correct_scores": [gold_map[k][0] for k in correct_scores],
    }


def evaluate_leaderboard_tables(
    gold: Sequence[Sequence[tuple[str, float]]],
    outputs: Sequence[str | None],
    *,
    metrics: Sequence[str | None] | None = None,
    aliases: Mapping[str, str] | None = None,
    tolerance: ScoreTolerance | None = None,
    average: str = "micro",
) -> ExtractionScores:
    """LGPLM MR, MP and both SP variants over many leaderboards.

    ``gold[i]`` is leaderboard ``i`` as ``(method, score)`` pairs; ``outputs[i]`` the model's
    answer text (``None`` = no answer); ``metrics[i]`` optionally names the metric so the right
    score column is picked from wide tables. ``average="micro"`` pools the counts over all
    leaderboards; ``"macro"`` averages the per-leaderboard percentages (undefined ones skipped).
    """
    if average not in AVERAGES:
        raise InputError(f"unknown average {average!r}; choose one of {AVERAGES}")
    if len(gold) != len(outputs):
        raise InputError(f"{len(gold)} gold leaderboards but {len(outputs)} outputs")
    if metrics is not None and len(metrics) != len(gold):
        raise InputError(f"{len(gold)} gold leaderboards but {len(metrics)} metric names")
    alias_table = _alias_table(aliases or {})
    tol = tolerance or ScoreTolerance()
    per = []
    for i, (g, out) in enumerate(zip(gold, outputs, strict=True)):
        metric = metrics[i] if metrics is not None else None
        rec = _score_leaderboard(g, out or "", metric, alias_table, tol)
        rec["index"] = i
        per.append(rec)
    keys = ("n_gold", "n_generated", "n_correct_methods", "n_correct_scores")
    tot = {k: sum(r[k] for r in per) for k in keys}
    if average == "micro":
        agg = extraction_percentages(tot)
    else:
        each = [extraction_percentages(r) for r in per]
        agg = {name: mean_defined([e[name] for e in each]) for name in each[0]} if each else {}
    return ExtractionScores(
        mr=agg.get("mr"),
        mp=agg.get("mp"),
        sp_generated=agg.get("sp_generated"),
        sp_correct=agg.get("sp_correct"),
        n_leaderboards=len(per),
        n_gold_methods=tot["n_gold"],
        n_generated=tot["n_generated"],
        n_correct_methods=tot["n_correct_methods"],
        n_correct_scores=tot["n_correct_scores"],
        average=average,
        per_instance=per,
    )

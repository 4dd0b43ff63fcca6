"""Ranked-list metrics for leaderboard generation: LEGOBench RPLM (CIS, BEM, KTau, CP) and RPG.

LEGOBench ships no scoring code; the rules here are the metric definitions of the LEGOBench
paper (Singh et al., arXiv 2401.06233) (protocol ``clean``, the platform default) and those
reconstructed from the released answers (protocol ``legobench-paper``, which reproduces the
published Table 4 from the released answer files).

Why the odd-looking choices:

* Titles are located in the free-text answer by **lower-cased substring, first occurrence**
  (``matcher="substring"``). The released data has split titles, quoted titles, nested titles
  and duplicates (§4); the GT lines and the options share those defects, so a plain substring
  search is what makes GT and answer comparable. The stricter ``line`` matcher and the
  ``normalized`` matcher exist for sensitivity analyses (an echoed input list scores well under
  ``substring``; see §6).
* Equal offsets (duplicate or nested titles) are *ties*: they count as ordered for BEM, are not
  concordant for CP, and are tie-corrected in Kendall τ-b.
* Everything here is pure: plain lists in, dataclasses out (CONTRIBUTING: ``benchmark/metrics``
  imports nothing from store/loaders/services).
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from scholarkg.benchmark.metrics._common import mean_defined, scores_to_dict
from scholarkg.errors import InputError
from scholarkg.textnorm import normalize_text

PROTOCOLS: tuple[str, ...] = ("clean", "legobench-paper")
MATCHERS: tuple[str, ...] = ("substring", "normalized", "line")
MISSING_POLICIES: tuple[str, ...] = ("bottom", "drop")

#: ``legobench-paper``: only the first 101 rows (index 0..100) were scored for Table 4.
#: Inferred from the released numbers (reference §2.2); why 101 is undocumented.
PAPER_SCORED_ROWS = 101
#: ``legobench-paper``: BEM and KTau are printed "-" when CIS is below this percentage.
PAPER_MIN_CIS = 1.0

#: ``progress(n_done, n_total)`` after each instance.
ProgressFn = Callable[[int, int], None]


# --------------------------------------------------------------------------- response decoding


def _is_blank(cell: object) -> bool:
    if cell is None:
        return True
    if isinstance(cell, float) and math.isnan(cell):
        return True
    return isinstance(cell, str) and cell.strip() == ""


def raw_response(cell: object) -> str:
    """The answer cell as stored (``legobench-paper``): blank/NaN → ``""``, anything else ``str``.

    GPT-4's cells are Python list literals with ``\\'`` escapes; this keeps them verbatim,
    which is what the published numbers were computed on.
    """
    if _is_blank(cell):
        return ""
    return cell if isinstance(cell, str) else str(cell)


def decode_response(cell: object) -> str:
    """The answer cell as text (``clean``): list-literal cells are parsed and joined with ``\\n``.

    ``ast.literal_eval`` only evaluates literals (no names, calls or attribute access), so a
    hostile cell cannot run code; anything that is not a list/tuple of strings stays as is.
    """
    text = raw_response(cell)
    stripped = text.strip()
    if len(stripped) >= 2 and stripped[0] == "[" and stripped[-1] == "]":
        try:
            value = ast.literal_eval(stripped)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return text
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return "\n".join(value)
    return text


# --------------------------------------------------------------------------- title matching

_WS = re.compile(r"\s+")
_LIST_MARKER = re.compile(
    r"""^\s*(?:
        [-*•+·◦▪]+                 # bullets
      | \(?\d{1,4}[.):\]]          # 1.  1)  (1)  1:  1]
      | \[\d{1,4}\]                # [1]
      | [a-zA-Z][.)](?=\s)         # a.  b)
      | \#{1,6}                    # markdown headings
    )\s*""",
    re.VERBOSE,
)
_HTML_TAG = re.compile(r"</?\s*(?:li|ol|ul|p|br|b|strong|em|i)\b[^>]*>", re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»"


def normalize_title(text: str) -> str:
    """``normalized`` matcher key: the ids' title key (:func:`scholarkg.textnorm.normalize_text`:
    NFKC, casefold, punctuation → space, collapse spaces), with ``_`` a space too, since an
    LLM's Markdown marks titles with ``__`` as often as with ``**``.

    Used for both titles and answers, so offsets in the normalised answer still order titles.
    """
    return _WS.sub(" ", normalize_text(text).replace("_", " ")).strip()


def clean_line(line: str) -> str:
    """``line`` matcher key: drop list markers, HTML list tags, ``**``, outer quotes; casefold."""
    line = _HTML_TAG.sub("", line).replace("**", "")
    prev = None
    while prev != line:  # markers can stack: "- 1. Title"
        prev = line
        line = _LIST_MARKER.sub("", line, count=1)
    line = line.strip().strip(_QUOTES).strip()
    return _WS.sub(" ", line).casefold()


def match_positions(gold: Sequence[str], response: str, *, matcher: str = "substring") -> list[int]:
    """Position of each GT line in ``response`` (−1 when absent); only their order matters.

    * ``substring``: ``lower(response).find(lower(title))`` — character offset, first occurrence
      (reference §2.1; no line splitting, no marker stripping, no fuzzy match).
    * ``normalized``: the same search after :func:`normalize_title` on both sides; a title that
      normalises to nothing is reported absent.
    * ``line``: index of the first answer line equal to the title after :func:`clean_line` on
      both sides.
    """
    if matcher == "substring":
        hay = response.lower()
        return [hay.find(title.lower()) for title in gold]
    if matcher == "normalized":
        hay = normalize_title(response)
        out = []
        for title in gold:
            key = normalize_title(title)
            out.append(hay.find(key) if key else -1)
        return out
    if matcher == "line":
        first: dict[str, int] = {}
        for i, line in enumerate(response.splitlines()):
            key = clean_line(line)
            if key and key not in first:
                first[key] = i
        return [first.get(clean_line(title), -1) for title in gold]
    raise InputError(f"unknown title matcher {matcher!r}; choose one of {MATCHERS}")


# --------------------------------------------------------------------------- per-instance metrics


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall τ-b = (C−D)/√((C+D+Tx)(C+D+Ty)); NaN when n < 2 or either side is constant.

    Delegates to ``scipy.stats.kendalltau(variant="b")``. We test constant input ourselves so
    the NaN is a documented rule, not a scipy warning: pairs tied in both variables count
    nowhere, and a zero denominator means τ is undefined (skipped in means).
    """
    if len(x) != len(y):
        raise ValueError("kendall_tau_b: x and y differ in length")
    if len(x) < 2 or len(set(x)) < 2 or len(set(y)) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # imported here: scipy.stats costs ~3 s, and the CLI and task declarations import
        # this module's protocol and matcher names at every start
        from scipy.stats import kendalltau

        res = kendalltau(x, y, variant="b")
    return float(res.statistic)


def is_complete(positions: Sequence[int]) -> bool:
    """Every GT title was found (and there is at least one)."""
    return len(positions) >= 1 and all(p >= 0 for p in positions)


def is_exact(positions: Sequence[int]) -> bool:
    """Complete and found in GT order; equal offsets (ties) count as ordered; n = 1 is exact."""
    return is_complete(positions) and all(a <= b for a, b in pairwise(positions))


def concordant_pairs(positions: Sequence[int]) -> float:
    """CP of one instance as a fraction: #{j<k: both found, pos_j < pos_k} / (n(n−1)/2).

    The denominator is *all* pairs (titles not found count against the answer); n < 2 → 0.
    """
    n = len(positions)
    if n < 2:
        return 0.0
    good = 0
    for j in range(n):
        pj = positions[j]
        if pj < 0:
            continue
        for k in range(j + 1, n):
            pk = positions[k]
            if pk >= 0 and pj < pk:
                good += 1
    return good / (n * (n - 1) / 2)


# --------------------------------------------------------------------------- RPLM aggregate


@dataclass(frozen=True)
class RankedListScores:
    """RPLM scores. ``cis`` and ``cp`` are percentages; ``bem`` is a fraction in [0, 1].

    ``bem``/``ktau`` are ``None`` when undefined (no complete instance, no finite τ) and, under
    ``legobench-paper``, when CIS < 1 % (the paper prints "-" there).
    """

    cis: float
    bem: float | None
    ktau: float | None
    cp: float
    n_instances: int
    n_scored: int
    n_complete: int
    per_instance: list[dict[str, Any]] = field(default_factory=list)
    protocol: str = "clean"
    matcher: str = "substring"
    n_exact: int = 0
    n_tau: int = 0
    notes: tuple[str, ...] = ()

    def to_dict(self, *, per_instance: bool = False) -> dict[str, Any]:
        """Plain dict (JSON-ready apart from NaN); per-instance detail only on request."""
        data = scores_to_dict(self, per_instance=per_instance)
        data["notes"] = list(self.notes)
        return data


def evaluate_ranked_lists(
    gold: Sequence[Sequence[str]],
    responses: Sequence[str | None],
    *,
    protocol: str = "clean",
    matcher: str = "substring",
    progress: ProgressFn | None = None,
) -> RankedListScores:
    """Score RPLM answers against GT title lists (best first), aligned by position.

    ``gold[i]`` is the list of GT lines of instance ``i`` (raw, defects kept); ``responses[i]`` is
    the answer cell (``None``/NaN/blank allowed). ``protocol``:

    * ``clean``: decode list-literal cells, score every instance, CIS over all instances.
    * ``legobench-paper``: raw cells, score only the first 101 instances but divide CIS by all
      instances, BEM/KTau ``None`` when CIS < 1 % — reproduces the published Table 4.
    """
    if protocol not in PROTOCOLS:
        raise InputError(f"unknown RPLM protocol {protocol!r}; choose one of {PROTOCOLS}")
    if matcher not in MATCHERS:
        raise InputError(f"unknown title matcher {matcher!r}; choose one of {MATCHERS}")
    if len(gold) != len(responses):
        raise InputError(
            f"{len(gold)} gold instances but {len(responses)} responses; they must align by row"
        )
    n_instances = len(gold)
    paper = protocol == "legobench-paper"
    n_scored = min(PAPER_SCORED_ROWS, n_instances) if paper else n_instances
    decode = raw_response if paper else decode_response

    per: list[dict[str, Any]] = []
    for i in range(n_scored):
        titles = list(gold[i])
        pos = match_positions(titles, decode(responses[i]), matcher=matcher)
        complete = is_complete(pos)
        tau = kendall_tau_b(list(range(len(pos))), pos) if complete else math.nan
        per.append(
            {
                "index": i,
                "n": len(pos),
                "found": sum(p >= 0 for p in pos),
                "complete": complete,
                "exact": is_exact(pos),
                "ktau": tau,
                "cp": concordant_pairs(pos),
                "positions": pos,
            }
        )
        if progress is not None:
            progress(i + 1, n_scored)

    complete_rows = [r for r in per if r["complete"]]
    n_complete = len(complete_rows)
    n_exact = sum(r["exact"] for r in complete_rows)
    taus = [r["ktau"] for r in complete_rows]
    n_tau = sum(not math.isnan(t) for t in taus)
    cis_den = n_instances if paper else n_scored
    cis = 100.0 * n_complete / cis_den if cis_den else 0.0
    bem = n_exact / n_complete if n_complete else None
    ktau = mean_defined(taus)
    cp = 100.0 * sum(r["cp"] for r in per) / n_scored if n_scored else 0.0
    notes: list[str] = []
    if paper:
        notes.append(
            f"legobench-paper: first {n_scored} of {n_instances} rows scored, "
            f"CIS divided by {n_instances}, raw cells"
        )
        if cis < PAPER_MIN_CIS:
            bem, ktau = None, None
            notes.append("CIS < 1%: BEM and KTau not reported (printed '-' in the paper)")
    return RankedListScores(
        cis=cis,
        bem=bem,
        ktau=ktau,
        cp=cp,
        n_instances=n_instances,
        n_scored=n_scored,
        n_complete=n_complete,
        per_instance=per,
        protocol=protocol,
        matcher=matcher,
        n_exact=n_exact,
        n_tau=n_tau,
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------- RPG rankings


@dataclass(frozen=True)
class RankingScores:
    """RPG scores: ``bem`` is a **percentage** of leaderboards reproduced exactly (unlike RPLM).

    ``ktau`` is the mean τ-b over leaderboards where it is defined (``None`` if none).
    """

    bem: float
    ktau: float | None
    n_leaderboards: int
    n_exact: int
    n_tau: int
    missing: str = "bottom"
    per_instance: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self, *, per_instance: bool = False) -> dict[str, Any]:
        return scores_to_dict(self, per_instance=per_instance)


def evaluate_rankings(
    gold: Sequence[Sequence[str]],
    predicted: Sequence[Sequence[str]],
    *,
    missing: str = "bottom",
) -> RankingScores:
    """RPG: compare generated paper rankings (ids, best first) with the GT leaderboards.

    The paper does not say what happens to GT papers the generator never ranked, nor to
    ranked papers that are not on the leaderboard; the rules chosen here:

    * Predicted ids not in the GT leaderboard are ignored (the baseline ranks every candidate
      of the subgraph; the leaderboard only orders its own papers). Repeated ids keep their
      first rank. Duplicate GT ids are an input error.
    * Generated rank of a GT paper = its position among the GT papers in the predicted list.
    * ``missing="bottom"``: GT papers absent from the prediction share one rank below every
      found paper (a tie, handled by τ-b). ``missing="drop"``: they are left out of τ.
    * BEM (both policies): 1 iff every GT paper is ranked and in exactly GT order.
    * τ-b is NaN (skipped in the mean) with fewer than two papers or a constant side, e.g. a
      prediction that found none of the GT papers under ``bottom``.
    """
    if missing not in MISSING_POLICIES:
        raise InputError(f"unknown missing policy {missing!r}; choose one of {MISSING_POLICIES}")
    if len(gold) != len(predicted):
        raise InputError(f"{len(gold)} gold rankings but {len(predicted)} predicted rankings")
    per: list[dict[str, Any]] = []
    for i, (g, p) in enumerate(zip(gold, predicted, strict=True)):
        g = list(g)
        if len(set(g)) != len(g):
            raise InputError("duplicate paper id in a gold ranking", line=i, field="gold")
        gset = set(g)
        pred = [x for x in dict.fromkeys(p) if x in gset]  # repeated ids keep their first rank
        rank = {x: r for r, x in enumerate(pred)}
        exact = len(g) >= 1 and pred == g
        if missing == "bottom":
            xs = list(range(len(g)))
            ys = [rank.get(x, len(pred)) for x in g]
        else:
            kept = [(k, rank[x]) for k, x in enumerate(g) if x in rank]
            xs = [k for k, _ in kept]
            ys = [r for _, r in kept]
        tau = kendall_tau_b(xs, ys)
        per.append({"index": i, "n": len(g), "found": len(pred), "exact": exact, "ktau": tau})
    n = len(per)
    n_exact = sum(r["exact"] for r in per)
    taus = [r["ktau"] for r in per]
    return RankingScores(
        bem=100.0 * n_exact / n if n else 0.0,
        ktau=mean_defined(taus),
        n_leaderboards=n,
        n_exact=n_exact,
        n_tau=sum(not math.isnan(t) for t in taus),
        missing=missing,
        per_instance=per,
    )

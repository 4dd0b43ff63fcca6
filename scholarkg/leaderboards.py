"""Leaderboards as graph queries: find one by user-typed names, rank its results, list them.

A leaderboard is a ⟨task, dataset, metric⟩ node (ORKG-style pattern, loaded from Papers with
Code or LEGOBench); its Result nodes are ranked in the direction its Metric node says. Names
match exactly first, then case-insensitively, then ignoring punctuation (via
``ids.normalize_text``); otherwise the error lists close names. Plain functions over a store,
so the CLI (``scholarkg leaderboard``), the explorer, the demo and tests share them.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from scholarkg.errors import InputError
from scholarkg.schema.ids import normalize_text
from scholarkg.store.base import GraphReader


def _match(rows: Sequence[dict[str, Any]], want: str, key: str) -> list[dict[str, Any]]:
    """Rows whose ``key`` equals ``want`` exactly; else case-insensitively; else normalised."""
    for same in (
        lambda a, b: a == b,
        lambda a, b: a.casefold() == b.casefold(),
        lambda a, b: normalize_text(a) == normalize_text(b),
    ):
        hits = [r for r in rows if isinstance(r.get(key), str) and same(r[key], want)]
        if hits:
            return hits
    return []


def _no_match(what: str, want: str, names: Sequence[str]) -> InputError:
    close = difflib.get_close_matches(want, sorted(set(names)), n=5, cutoff=0.5)
    if not close:
        lowered = want.casefold()
        close = sorted({n for n in names if lowered in n.casefold()})[:5]
    hint = f"; close names: {', '.join(repr(c) for c in close)}" if close else ""
    return InputError(f"no leaderboard with {what} {want!r}{hint}", field=what)


def resolve_leaderboard(store: GraphReader, task: str, dataset: str, metric: str) -> dict[str, Any]:
    """The leaderboard row (id, task, dataset, metric, source, results) for user-typed names.

    Each name narrows the candidates in turn (task, then dataset, then metric), so the error
    names the first part that matches nothing and suggests close names from what remains.
    When several leaderboards match (e.g. a LEGOBench row and the PwC table of the same
    triple), the one with the most results wins.
    """
    rows = store.run_named("leaderboard_names", {})
    if not rows:
        raise InputError("the graph has no leaderboards; load some with 'scholarkg load pwc'")
    for key, want in (("task", task), ("dataset", dataset), ("metric", metric)):
        hits = _match(rows, want, key)
        if not hits:
            raise _no_match(key, want, [r[key] for r in rows if isinstance(r.get(key), str)])
        rows = hits
    return max(rows, key=lambda r: (int(r.get("results") or 0), r["id"]))


def ranked_results(store: GraphReader, leaderboard_id: str) -> tuple[str, list[dict[str, Any]]]:
    """``(direction, rows)``: results best first, each with a competition rank (ties share).

    An ``unknown`` direction is ranked as higher-is-better and reported as such by the CLI.
    Unscored results (unparseable raw values) come last with rank ``None``.
    """
    meta = store.run_named("leaderboard_metric", {"leaderboardId": leaderboard_id})
    direction = (meta[0].get("direction") if meta else None) or "unknown"
    rows = store.run_named(
        "leaderboard_show",
        {"leaderboardId": leaderboard_id, "lowerIsBetter": direction == "lower"},
    )
    out: list[dict[str, Any]] = []
    rank = 0
    prev: float | None = None
    for i, row in enumerate(rows, start=1):
        score = row.get("score")
        if score is None:
            current = None
        else:
            if prev is None or score != prev:
                rank = i
            prev = score
            current = rank
        out.append(
            {
                "rank": current,
                "method": row.get("method"),
                "paper": row.get("paper_title"),
                "arxiv_id": row.get("arxiv_id"),
                "score": score,
                "raw_score": row.get("raw_score"),
                "date": row.get("date"),
            }
        )
    return direction, out


def gold_entries(store: GraphReader, leaderboard_id: str) -> list[dict[str, Any]]:
    """Ground-truth entries (HAS_ENTRY) in gold order, for leaderboards without Results."""
    return store.run_named("leaderboard_gold", {"leaderboardId": leaderboard_id})


def list_leaderboards(
    store: GraphReader, *, task: str | None = None, limit: int = 100
) -> list[dict[str, Any]]:
    """Leaderboards (optionally of one task, matched like ``show``) with entry counts."""
    if task is None:
        return store.run_named("leaderboard_list", {"tasks": None, "limit": limit})
    rows = store.run_named("leaderboard_list", {"tasks": [task], "limit": limit})
    if rows:
        return rows
    names = store.run_named("leaderboard_names", {})
    hits = _match(names, task, "task")
    if not hits:
        raise _no_match("task", task, [r["task"] for r in names if isinstance(r.get("task"), str)])
    # one query for every spelling that matched, not one per name
    return store.run_named(
        "leaderboard_list", {"tasks": sorted({r["task"] for r in hits}), "limit": limit}
    )

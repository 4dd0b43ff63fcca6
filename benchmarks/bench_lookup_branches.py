"""Where the embedded store's identity look-up spends its time: each kind of seek of
``identity/lookup_papers`` (FalkorDB's variant, with the node column) on its own, against the
whole look-up and against returning the same rows with no seek at all.

    python benchmarks/bench_lookup_branches.py --papers 200000 --keys 11000 --rounds 3

A throwaway server (persistent, as ``scholarkg db start`` runs it) with the load's schema and
``--papers`` Papers laid out as an OpenAlex load leaves them: two in three keyed by their DOI
(``doi:…``, the OpenAlex id in the ``openalex_id`` slot), the rest by their OpenAlex id, one
in fifty with a ``PaperAlias`` (a second DOI). Then ``--keys`` reference keys
(``openalex:W…``, nine in ten naming a Paper of the graph, as an update's references do)
are looked up, per round and form (the forms alternated), in one statement each, wrapped as
the store sends a joined read (``store/falkordb/joined_rows.py``). Printed: the server's own
execution time (its reply's statistics), per key and per statement.

Why: the look-up is the largest single statement of an update on both backends (a fifth of
the embedded server's execution time at 1M + 100k, ``bench_openalex_server_time.py``), and
every one of its seeks stays by design (``identity/lookup_papers.cypher`` says why). This
measures whether anything besides the seeks themselves is left to take out.
"""

from __future__ import annotations

import argparse
import random
import statistics
from typing import Any

from bench_relationship_ends import raw_reply, reply_ms, throwaway_store

#: each form: which of the look-up's branches it keeps (by what the branch seeks)
FORMS = ("the look-up", "id seeks", "slot seeks", "alias seeks", "rows, no seek")


def execution(store: Any, query: str, params: dict[str, Any]) -> tuple[float, int]:
    """The server's execution time of ``query`` (ms, from its reply's statistics) and the
    rows it joined (its ``__rows`` column, the last)."""
    reply = raw_reply(store, query, params)
    return reply_ms(reply), int(reply[1][0][-1])


def _branches(text: str) -> list[str]:
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    return [b.strip() for b in body.split("\nUNION ALL\n")]


def form_query(form: str, params: dict[str, Any]) -> str:
    """``form``'s statement: the look-up's branches it keeps (those whose lists are empty left
    out, as ``store/named.without_empty_branches`` does), wrapped as a joined read."""
    from scholarkg.store.falkordb.joined_rows import joined_read
    from scholarkg.store.named import render_named, without_empty_branches

    text = render_named("identity/lookup_papers", "falkordb")
    kept = without_empty_branches("identity/lookup_papers", text, params)
    assert kept is not None
    header = "\n".join(line for line in kept.splitlines() if line.startswith("//"))
    branches = _branches(kept)
    if form == "id seeks":
        branches = [b for b in branches if "{id:" in b and "PaperAlias" not in b]
    elif form == "slot seeks":
        branches = [b for b in branches if "{id:" not in b and "PaperAlias" not in b]
    elif form == "alias seeks":
        branches = [b for b in branches if "PaperAlias" in b]
    elif form == "rows, no seek":  # the slot branches' rows, each key its own "Paper"
        branches = [
            "UNWIND $openalex AS v RETURN 'openalex:' + v AS key, 'openalex:' + v AS id, "
            "toString(size(v)) AS node"
        ]
    joined = joined_read(header + "\n" + "\nUNION ALL\n".join(branches))
    assert joined is not None
    return joined.query


def run(papers: int, keys: int, rounds: int) -> tuple[dict[str, list[float]], dict[str, int]]:
    """Per form, the server's ms of each measured round, and the rows each returned."""
    from scholarkg.loaders.identity import IdentityResolver, write_aliases

    rng = random.Random(7)
    times: dict[str, list[float]] = {}
    rows_of: dict[str, int] = {}
    with throwaway_store("bench_lookup_branches", "bench-lookup-branches-") as store:
        rows = []
        for i in range(papers):
            row: dict[str, Any] = {"openalex_id": f"W{i}", "year": 2000 + i % 25}
            if i % 3:
                row["doi"] = f"10.5555/{i}"
            row["id"] = f"doi:10.5555/{i}" if i % 3 else f"openalex:W{i}"
            rows.append(row)
        store.merge_nodes("Paper", rows, batch_size=10_000)
        aliases = {r["id"]: [f"doi:10.9999/{i}"] for i, r in enumerate(rows) if i % 50 == 0}
        write_aliases(store, aliases)
        for r in range(rounds + 1):  # round 0 warms up
            wanted = [
                f"openalex:W{rng.randrange(papers) if rng.random() < 0.9 else papers + i}"
                for i in range(keys)
            ]
            params = IdentityResolver._lookup_params(wanted)
            order = FORMS if r % 2 == 0 else FORMS[::-1]
            for form in order:
                ms, rows_of[form] = execution(store, form_query(form, params), params)
                if r:
                    times.setdefault(form, []).append(ms)
    return times, rows_of


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=200_000, help="Papers in the graph")
    ap.add_argument("--keys", type=int, default=11_000, help="keys a look-up")
    ap.add_argument("--rounds", type=int, default=3, help="measured rounds a form")
    args = ap.parse_args()
    times, rows_of = run(args.papers, args.keys, args.rounds)
    print(f"{args.papers:,} Papers; {args.keys:,} keys a look-up; server execution time, "
          f"median of {args.rounds} rounds")  # fmt: skip
    whole = statistics.median(times["the look-up"])
    for form in FORMS:
        ms = times[form]
        med = statistics.median(ms)
        print(f"  {form:14s} {med:7.1f} ms = {med * 1000 / args.keys:5.2f} µs a key "
              f"({rows_of[form]:,} rows; runs {min(ms):.1f}-{max(ms):.1f} ms; "
              f"{med / whole:.0%} of the look-up)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What taking the ``Stub`` label off Papers costs the embedded store as removals pile up
unmerged in its node-label matrix, and what settling them after each statement saves
(``store/falkordb/pending_changes.py``, what ``FalkorDBStore.labels_removed`` does in a load).

    python benchmarks/bench_pending_label_removals.py --papers 200000 --batches 6

A throwaway server (persistent, as ``scholarkg db start`` runs it) with an index on
``Paper.id`` and ``--papers`` Papers created as ``:Paper:Stub`` (their labels then merged
into the node-label matrix: while 200,000 fresh labels sit in its delta a removal costs ~1 ms,
whatever the way); then, per way, ``--batches``
statements each taking the label off ``--batch`` Papers not touched before (``REMOVE p:Stub``),
printed one by one as the server's execution time a node:

* ``default setting, nothing settled``: FalkorDB's ``DELTA_MAX_PENDING_CHANGES`` as it
  starts (10,000), no read between the statements (a read of labels would merge the
  matrix once 10,000 removals are pending);
* ``load setting, nothing settled``: the setting a load runs with
  (``pending_changes.LOAD_PENDING_CHANGES``), nothing between the statements;
* ``load setting, settled after each``: the same, with what ``labels_removed`` sends after
  each statement (the setting lowered to 1, ``pending_changes.SETTLE_LABELS``, raised
  again); that read's own time is printed beside.

Each way runs on a server of its own, so one way's merges do not help the next.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_relationship_ends import execution_ms  # the sibling script's reply reading

WAYS = (
    "default setting, nothing settled",
    "load setting, nothing settled",
    "load setting, settled after each",
)


def run_way(way: str, papers: int, batch: int, batches: int) -> list[tuple[float, float]]:
    """Per statement: µs a node of the removal, and ms of the settling read (0 if none)."""
    from scholarkg.store.falkordb import pending_changes as pc
    from scholarkg.store.falkordb.server import EmbeddedServer
    from scholarkg.store.falkordb.store import FalkorDBStore

    out = []
    with tempfile.TemporaryDirectory(prefix="bench-pending-labels-") as tmp:
        server = EmbeddedServer(Path(tmp) / "falkordb", persistent=True)
        server.start()
        try:
            store = FalkorDBStore(server.connect(), "bench_pending_labels")
            store.run("CREATE INDEX FOR (p:Paper) ON (p.id)")
            store.run("UNWIND range(0, $n - 1) AS i CREATE (:Paper:Stub {id: i})", {"n": papers})
            # the creations' labels merged (a read of labels past 10,000 pending), as a
            # load's first settling or first labels() read does
            store.run("MATCH (p:Paper {id: 0}) RETURN labels(p) AS labels")
            if way != WAYS[0]:
                store._command(*pc.setting_command(pc.LOAD_PENDING_CHANGES))
            remove = "UNWIND $ids AS i MATCH (p:Paper {id: i}) REMOVE p:Stub RETURN count(p) AS n"
            for b in range(batches):
                ids = list(range(1 + b * batch, 1 + (b + 1) * batch))
                ms, _ = execution_ms(store, remove, {"ids": ids})
                settle = 0.0
                if way == WAYS[2]:
                    store._command(*pc.setting_command(1))
                    settle, _ = execution_ms(store, pc.SETTLE_LABELS, {})
                    store._command(*pc.setting_command(pc.LOAD_PENDING_CHANGES))
                out.append((ms * 1000 / batch, settle))
        finally:
            server.stop()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--papers", type=int, default=200_000, help="Papers, all stubs at first")
    ap.add_argument("--batch", type=int, default=2_000, help="labels removed a statement")
    ap.add_argument("--batches", type=int, default=6, help="statements a way")
    args = ap.parse_args()
    if args.batch * args.batches >= args.papers:
        raise SystemExit("--papers must exceed --batch x --batches")
    print(f"{args.papers:,} Papers; {args.batches} statements of {args.batch:,} label removals "
          "each; server execution time, µs a node (statement 1, 2, …)")  # fmt: skip
    for way in WAYS:
        runs = run_way(way, args.papers, args.batch, args.batches)
        line = " ".join(f"{us:6.1f}" for us, _ in runs)
        total = sum(us for us, _ in runs) * args.batch / 1e6
        print(f"  {way:34s} {line}  (removals {total:.2f} s)")
        if way == WAYS[2]:
            settles = ", ".join(f"{ms:.1f}" for _, ms in runs)
            print(f"  {'':34s} settling reads, ms: {settles}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

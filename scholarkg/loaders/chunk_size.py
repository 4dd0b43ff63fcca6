"""How many works ``load openalex`` resolves and writes at a time when ``--batch-size`` is not
given: 2,000, or 4,000 on a graph that already holds half a million Papers.

Why the graph's size decides: each chunk costs the server some statements whose price grows
with the graph, not with the chunk (the settling read after a chunk's ``Stub`` labels come
off merges the whole node-label matrix: 13 ms at 200,000 works, 105 ms at 1M; the look-ups'
and stub reads' fixed parts grow too). Measured with ``bench_openalex.py --chunk``, two runs
each, alternated (docs/performance.md, round 48): updating a 1M-work graph with 110,000
works took 97.3 and 97.8 s in chunks of 4,000 against 104.9 and 111.3 s in chunks of 2,000
(the server's CPU 70-71 against 79-83 s); a 200,000-work graph with 22,000 works, 16.1-16.2 s
against 15.0-16.5 s, no gain. A larger chunk holds more at once (a peak of 713 MB against 529
at 1M, within the update's 1 GB), so it is taken only where it pays. Half a million is
between the two sizes measured: at 200,000 a larger chunk gained nothing and cost memory.
An explicit ``--batch-size`` always wins; the chunk is chosen once, when the load starts
(an interrupted load resumed later may choose the other one: checkpoints count records, not
chunks).
"""

from __future__ import annotations

from scholarkg.store.base import GraphStore

#: the chunk below :data:`LARGE_GRAPH_PAPERS`
DEFAULT_CHUNK = 2_000
#: the chunk on a graph holding at least :data:`LARGE_GRAPH_PAPERS` Papers
LARGE_GRAPH_CHUNK = 4_000
LARGE_GRAPH_PAPERS = 500_000


def chunk_for(papers: int) -> int:
    """The chunk for a graph holding ``papers`` Papers when the load starts."""
    return LARGE_GRAPH_CHUNK if papers >= LARGE_GRAPH_PAPERS else DEFAULT_CHUNK


def stored_papers(store: GraphStore) -> int:
    """How many Papers ``store`` holds (``loads/count_papers``: a label count, not a scan)."""
    rows = store.run_named("loads/count_papers", {})
    return int(rows[0]["n"]) if rows else 0

"""When FalkorDB merges a matrix's pending changes, during a load into a graph that holds data.

FalkorDB keeps the changes a statement makes to a matrix (a relationship type's, a label's,
the node-label matrix) in two deltas beside it, and merges them into the matrix, a rebuild
of all its entries, once a delta holds ``DELTA_MAX_PENDING_CHANGES`` entries (10,000 by
default) and a statement reads that matrix. A load into a graph that holds data reads
between its writes (identity resolution's look-ups, the references stored for a work it
writes again), so at its default FalkorDB rebuilds the ``CITES`` matrix, 26M entries in a
1M-work graph, after nearly every chunk of an update. A load therefore raises the setting
for its duration (:data:`LOAD_PENDING_CHANGES`; ``FalkorDBStore.loading``) and puts back the
value it found: the reads then take the matrix and its deltas as they stand, as FalkorDB
does below the setting anyway.

One kind of change must not wait: a label taken off a node (``REMOVE p:Stub``, a stub
described) leaves an entry in the node-label matrix's delta that every later label change
passes over (GraphBLAS settles the delta for each node it re-labels), so its cost grows with
the entries pending, ~16 µs a node for every 1,000
(``benchmarks/bench_pending_label_removals.py``).
After each statement that removes labels, the load lowers the setting to 1 for one statement
that reads a node's labels (:data:`SETTLE_LABELS`: FalkorDB then merges that matrix, and
only the matrices that statement reads), then raises it again; the three are sent in the
order of the statements written ahead (``FalkorDBStore.labels_removed``).

Measured (``benchmarks/bench_openalex_server_time.py``, docs/performance.md round 44):
110,000 works into a 1M-work graph took 139.8 CPU-s of the server at the default and
99.8-105.7 with the setting raised and labels settled this way.
"""

from __future__ import annotations

from typing import Any

#: FalkorDB's setting (``GRAPH.CONFIG``) and its default
SETTING = "DELTA_MAX_PENDING_CHANGES"
DEFAULT_PENDING_CHANGES = 10_000

#: the setting during a load: past any load's pending changes (FalkorDB reads it as an
#: unsigned 64-bit count)
LOAD_PENDING_CHANGES = 1 << 40

#: read under a setting of 1 after labels were removed: ``labels(n)`` makes FalkorDB merge
#: the node-label matrix (an all-node scan reads no label matrix, so no other is merged)
SETTLE_LABELS = "MATCH (n) WITH n LIMIT 1 RETURN size(labels(n)) AS labels"


def setting_command(value: int) -> tuple[str, ...]:
    """``GRAPH.CONFIG SET DELTA_MAX_PENDING_CHANGES value``."""
    return ("GRAPH.CONFIG", "SET", SETTING, str(value))


def current_setting(conn: Any) -> int:
    """The server's ``DELTA_MAX_PENDING_CHANGES`` (FalkorDB's default when it does not say),
    read on the redis connection ``conn``. A value a load left behind (it was stopped
    before it could put the setting back) counts as the default, so the load that reads it
    puts the default back."""
    reply = conn.execute_command("GRAPH.CONFIG", "GET", SETTING)
    try:
        value = int(reply[1])
    except (IndexError, TypeError, ValueError):
        return DEFAULT_PENDING_CHANGES
    return DEFAULT_PENDING_CHANGES if value == LOAD_PENDING_CHANGES else value

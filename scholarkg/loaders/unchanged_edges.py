"""An edge record whose relationship the graph already holds exactly as it would write it.

Why: a quarterly-style update reads back nearly every work with the authors it already
lists, and each ``AUTHORED_BY`` edge used to be ``MERGE``d again (two index seeks and a
``SET`` that changes nothing): ~15 s of the embedded server's time for a 200,000-work update
(``benchmarks/bench_openalex_server_time.py --changed-lists kept``). Identity resolution
(``IdentityResolver._skip_stored_authorships``) compares each edge record with the stored
relationship it would meet and wraps the ones that would change nothing; the writer counts
them as their ``MERGE`` would have and sends nothing, and the checkpoint digest reads the
record inside, so a resumed load's digest does not depend on what the graph held.
"""

from __future__ import annotations

from dataclasses import dataclass

from scholarkg.schema.records import EdgeRecord


@dataclass(frozen=True, slots=True)
class UnchangedEdge:
    """``record``, whose relationship the graph holds with every property it sets."""

    record: EdgeRecord

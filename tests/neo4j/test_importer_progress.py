"""Neo4j's offline importer's output, read as it comes, moves the progress display: its
stages (``(1/4) Node import``) and the percentages of its dotted lines become stages and
counts out of 100. The lines below are the importer's format (Neo4j 5.26, as it printed them
for a 32-node import here), not data."""

from __future__ import annotations

from scholarkg.store.neo4j.importer import _ImporterProgress

_OUTPUT = """\
Neo4j version: 5.26.19
Import starting 2026-11-28 19:23:27.208+0000
  Estimated number of nodes: 32.00
  Estimated required memory usage: 1020MiB

(1/4) Node import 2026-11-28 19:23:27.255+0000
  Estimated number of nodes: 32.00
-......... .......... .......... .......... ..........   5% ∆510ms [510ms]
.......... .......... .......... .......... ..........  10% ∆0ms [511ms]
.......... .......... .......... .......... .......... 100% ∆0ms [566ms]
Node import COMPLETED in 593ms

(2/4) Relationship import 2026-11-28 19:23:27.849+0000
.......... .......... .......... .......... ..........  55% ∆0ms [292ms]

(3/4) Relationship linking 2026-11-28 19:23:28.163+0000
.......... .......... .......... .......... ..........  40% ∆0ms [2ms]
IMPORT DONE in 1s 120ms.
"""


def test_stages_and_percentages_reach_the_display() -> None:
    seen: list[tuple[str, int, int | None]] = []
    relay = _ImporterProgress(lambda stage, done, total: seen.append((stage, done, total)))
    for line in _OUTPUT.splitlines(keepends=True):
        relay.line(line)
    node, rel, link = (
        "importer 1/4: Node import", "importer 2/4: Relationship import",
        "importer 3/4: Relationship linking",
    )  # fmt: skip
    assert seen == [
        (node, 0, 100), (node, 5, 100), (node, 10, 100), (node, 100, 100),
        (rel, 0, 100), (rel, 55, 100), (rel, 100, 100),  # a stage ends when the next begins
        (link, 0, 100), (link, 40, 100), (link, 100, 100),  # and at IMPORT DONE
    ]  # fmt: skip


def test_nothing_before_the_first_stage_counts() -> None:
    seen: list[tuple[str, int, int | None]] = []
    relay = _ImporterProgress(lambda stage, done, total: seen.append((stage, done, total)))
    relay.line("  Estimated disk space usage: 5% of the volume\n")
    assert seen == []

"""Parametrizations of the contract fixture ``any_store`` that move one backend's run of a
test to the marked tier.

The default suite (``make test``) has a 5-minute budget on two cores, and every Neo4j test
runs on one worker (tests/conftest.py: the database is one per server), so that worker is
the suite's critical path. Right after the session starts the test Neo4j its JVM is cold,
and the heaviest contract tests take 12-20 s there. Those run on Neo4j in the marked tier
(``make test-marked``, which CI runs too) and stay on the embedded store in the default one:
the behaviour is still held on both backends on every CI run.
"""

from __future__ import annotations

import pytest

#: ``any_store`` on both backends, the Neo4j run marked ``slow``
neo4j_run_in_marked_tier = pytest.mark.parametrize(
    "any_store",
    ["embedded", pytest.param("neo4j", marks=pytest.mark.slow)],
    indirect=True,
)

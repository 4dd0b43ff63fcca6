"""A load interrupted as a user interrupts it (issue #37, item 7): ``scholarkg load openalex``
in its own process, Ctrl-C (SIGINT) in the middle, ``--resume``, SIGTERM in the middle of that,
``--resume`` again. Each interrupted run exits with 130 / 143 and says what is stored and how to
go on; at every stop no ``PaperAlias`` is without its ``ALIAS_OF`` edge and no ``:Run``-like
half-state is left; the graph at the end is exactly the graph of the same load run through
once (counts and a fingerprint of every node and relationship with their properties).

The file is synthetic OpenAlex works in the real format: every tenth and eleventh work share a
DOI, so the load merges them and writes ``PaperAlias`` nodes (the case the issue found left
without their edges), and references point at works outside the file (stubs).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore

pytestmark = [pytest.mark.slow, pytest.mark.embedded]

WORKS = 3000
BATCH = 100


def _write_works(path: Path, works: int, *, refs: int = 6, seed: int = 37) -> None:
    rng = random.Random(seed)
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        for w in range(1, works + 1):
            doi = f"10.5555/w{w // 2 * 2}" if w % 10 in (2, 3) else f"10.5555/w{w}"
            cited = sorted({rng.randint(1, works + works // 20) for _ in range(refs)} - {w})
            author = {
                "id": f"https://openalex.org/A{w % 300}",
                "display_name": f"Author {w % 300}",
                "orcid": None,
            }
            record = {
                "id": f"https://openalex.org/W{w}",
                "doi": f"https://doi.org/{doi}",
                "title": f"synthetic work {w}",
                "publication_year": 2000 + w % 20,
                "type": "article",
                "ids": {"openalex": f"https://openalex.org/W{w}", "doi": f"https://doi.org/{doi}"},
                "cited_by_count": w % 50,
                "authorships": [
                    {
                        "author_position": "first",
                        "author": author,
                        "institutions": [],
                        "raw_author_name": author["display_name"],
                    }
                ],
                "primary_location": {"source": {"display_name": f"Venue {w % 40}"}},
                "referenced_works": [f"https://openalex.org/W{c}" for c in cited],
            }
            fh.write(json.dumps(record) + "\n")


def _load(path: Path, graph: str, *extra: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable, "-m", "scholarkg.cli", "load", "openalex",
            "--batch-size", str(BATCH), *extra, str(path),
        ],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=os.environ | {"SCHOLARKG_GRAPH": graph, "SCHOLARKG_PROGRESS": "lines"},
    )  # fmt: skip


def _works_stored(store: FalkorDBStore) -> int:
    try:
        rows = store.run("MATCH (p:Paper) WHERE NOT p:Stub RETURN count(p) AS n")
    except Exception:  # the graph does not exist yet
        return 0
    return int(rows[0]["n"])


def _interrupt(
    proc: subprocess.Popen[str], store: FalkorDBStore, sig: signal.Signals, at_least: int
) -> tuple[str, int]:
    """Send ``sig`` once ``at_least`` works are stored; (stderr, works stored at the stop)."""
    deadline = time.monotonic() + 300
    while _works_stored(store) < at_least:
        assert proc.poll() is None, ("the load ended before it was interrupted", proc.communicate())
        assert time.monotonic() < deadline, "the load stored nothing for 5 minutes"
        time.sleep(0.1)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    code = {signal.SIGINT: 130, signal.SIGTERM: 143}[sig]
    name = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}[sig]
    assert proc.returncode == code, (proc.returncode, out, err)
    assert f"interrupted by {name}" in err, err
    assert "stored whole" in err and "--resume" in err, err
    return err, _works_stored(store)


def _no_alias_without_its_edge(store: FalkorDBStore) -> None:
    rows = store.run(
        "MATCH (a:PaperAlias) WHERE NOT (a)-[:ALIAS_OF]->(:Paper) RETURN a.id AS id LIMIT 5"
    )
    assert rows == [], f"PaperAlias nodes without their ALIAS_OF edge: {rows}"


def _fingerprint(store: FalkorDBStore) -> tuple[dict[str, int], str]:
    """Counts by label / type, and a hash of every node (labels, properties) and relationship
    (type, end ids, properties) in a canonical order: equal graphs, equal fingerprints."""
    nodes = store.run("MATCH (n) RETURN labels(n) AS labels, properties(n) AS props")
    edges = store.run(
        "MATCH (a)-[r]->(b) RETURN type(r) AS type, a.id AS start, b.id AS end, "
        "properties(r) AS props"
    )
    counts: dict[str, int] = {}
    lines = []
    for n in nodes:
        labels = sorted(n["labels"])
        for label in labels:
            counts[label] = counts.get(label, 0) + 1
        lines.append(json.dumps(["node", labels, n["props"]], sort_keys=True, default=str))
    for e in edges:
        counts[e["type"]] = counts.get(e["type"], 0) + 1
        lines.append(
            json.dumps(
                ["edge", e["type"], e["start"], e["end"], e["props"]], sort_keys=True, default=str
            )
        )
    digest = hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()
    return counts, digest


def _graph(server: EmbeddedServer, name: str) -> FalkorDBStore:
    return FalkorDBStore(server.connect(), name)


def test_a_load_interrupted_twice_and_resumed_equals_the_load_run_through(
    embedded_server: EmbeddedServer, settings: Any, tmp_path: Path
) -> None:
    path = tmp_path / "works.jsonl.gz"
    _write_works(path, WORKS)
    tag = os.urandom(4).hex()
    clean, cut = _graph(embedded_server, f"clean_{tag}"), _graph(embedded_server, f"cut_{tag}")
    try:
        proc = _load(path, clean.graph)
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, (out, err)
        want_counts, want = _fingerprint(clean)
        assert want_counts.get("PaperAlias", 0) > 100, want_counts  # the case is exercised
        assert want_counts["PaperAlias"] == want_counts["ALIAS_OF"]
        _no_alias_without_its_edge(clean)
        works = _works_stored(clean)

        err1, first = _interrupt(_load(path, cut.graph), cut, signal.SIGINT, 2 * BATCH)
        _no_alias_without_its_edge(cut)
        assert first < works, "interrupted after the end"

        err2, second = _interrupt(
            _load(path, cut.graph, "--resume"), cut, signal.SIGTERM, first + 3 * BATCH
        )
        _no_alias_without_its_edge(cut)
        assert first < second < works, (first, second, works)

        proc = _load(path, cut.graph, "--resume")
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, (out, err)
        _no_alias_without_its_edge(cut)
        got_counts, got = _fingerprint(cut)
        assert got_counts == want_counts, (got_counts, want_counts, err1, err2)
        assert got == want, "same counts, different graph"
    finally:
        for st in (clean, cut):
            st.clear()
            st.close()

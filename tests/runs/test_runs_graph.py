"""Recording a run in the real embedded FalkorDB graph (``store`` fixture, tests/conftest.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from scholarkg.benchmark.runs import new_run, record_run_in_graph
from scholarkg.store.falkordb.store import FalkorDBStore


def test_record_run_in_graph_is_idempotent(store: FalkorDBStore) -> None:
    run = new_run(
        "citerec/field",
        metrics={"Recall@10": 0.5, "MRR@10": float("nan")},
        per_instance={"s1": {"Recall@10": 1.0}, "s2": {"Recall@10": 0.0}, "s3": {}},
        classes={"field:Biology": {"Recall@10": 1.0}},
        config={"k": 10, "corpus": "toy"},
        models={"ranker": "bm25"},
        created=datetime(2026, 11, 22, 4, 0, tzinfo=UTC),
    )
    assert record_run_in_graph(store, run) == 3
    assert record_run_in_graph(store, run) == 3  # MERGE: same nodes again
    rows = store.run(
        "MATCH (r:Run {id: $id})-[:SCORED]->(m:MetricResult) "
        "RETURN r.task AS task, r.config AS config, r.n_instances AS n_inst, "
        "m.name AS name, m.value AS value, m.n AS n, m.class_label AS cls "
        "ORDER BY m.id",
        {"id": run.id},
    )
    assert len(rows) == 3
    assert {r["task"] for r in rows} == {"citerec/field"}
    assert rows[0]["config"] == '{"corpus": "toy", "k": 10}'
    assert rows[0]["n_inst"] == 3
    by_key = {(r["cls"], r["name"]): r for r in rows}
    assert by_key[(None, "Recall@10")]["value"] == 0.5
    assert by_key[(None, "Recall@10")]["n"] == 2  # instances with a defined score
    assert by_key[(None, "MRR@10")]["value"] is None  # NaN is not stored
    assert by_key[(None, "MRR@10")]["n"] is None  # no per-instance MRR recorded
    assert by_key[("field:Biology", "Recall@10")]["value"] == 1.0
    counts = store.run("MATCH (n:Run) RETURN count(n) AS c")
    assert counts[0]["c"] == 1

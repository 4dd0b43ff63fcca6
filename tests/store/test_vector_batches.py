"""``set_vectors``' rows: checked whole (``vector_batches``), sent as one text per vector,
and stored exactly as before on both backends (FalkorDB: the float32 of each component;
Neo4j: the double)."""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
import pytest

from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore
from scholarkg.store.vector_batches import float32_text, float64_text, vector_batches


def test_batches_check_every_row_and_keep_the_order() -> None:
    rows = (("a", [1, 2]), ("b", np.array([0.5, -0.25], dtype=np.float32)), ("c", (3.0, 4.0)))
    extra = {"a": {"model": "m", "skip": None}}
    batches = list(vector_batches(rows, extra, batch_size=2))
    assert [b.ids for b in batches] == [["a", "b"], ["c"]]
    assert [b.extras for b in batches] == [[{"model": "m"}, {}], [{}]]
    first = batches[0].vectors
    assert first[0].dtype == np.float64 and first[0].tolist() == [1.0, 2.0]
    assert first[1].tolist() == [0.5, -0.25]


def test_batches_never_materialise_the_rows() -> None:
    seen: list[int] = []

    def rows() -> Iterator[tuple[str, list[float]]]:  # records what was read
        for i in range(5):
            seen.append(i)
            yield str(i), [float(i)]

    batches = vector_batches(rows(), None, batch_size=2)
    next(batches)
    assert seen == [0, 1]


@pytest.mark.parametrize(
    ("vec", "words"),
    [
        ([0.1, "x"], "is not numeric"),
        ([0.1, None], "None at position 1"),
        ([0.1, math.nan], "nan at position 1"),
        ([math.inf], "inf at position 0"),
        ([], "not a non-empty list"),
        ([[0.1, 0.2]], "not a non-empty list"),
    ],
)
def test_a_bad_vector_names_its_node_and_line(vec: list[object], words: str) -> None:
    with pytest.raises(InputError, match=words) as info:
        list(vector_batches([("ok", [1.0]), ("bad", vec)], None, batch_size=10))  # type: ignore[list-item]  # bad on purpose
    assert "'bad'" in str(info.value)
    assert info.value.line == 2


def test_a_bad_id_or_extra_value_is_refused() -> None:
    with pytest.raises(InputError, match="blank") as info:
        list(vector_batches([("a", [1.0]), (" ", [1.0])], None, batch_size=10))
    assert (info.value.line, info.value.field) == (2, "id")
    with pytest.raises(InputError, match="NUL"):
        list(vector_batches([("a\x00b", [1.0])], None, batch_size=10))
    with pytest.raises(InputError, match="NUL"):
        list(vector_batches([("a", [1.0])], {"a": {"model": "m\x00"}}, batch_size=10))


def test_texts_read_back_to_the_same_numbers() -> None:
    """float32 text → the same float32 (what FalkorDB's vecf32 keeps); float64 text → the
    same double (what Neo4j's toFloat gives), over magnitudes from subnormal to huge."""
    rng = np.random.default_rng(7)
    values = np.concatenate(
        [
            rng.standard_normal(5_000),
            rng.standard_normal(500) * 1e-30,
            rng.standard_normal(500) * 1e30,
            [0.0, -0.0, 1.0, 0.1, 1 / 3, 1e-45, 3.4028234663852886e38, 2.0**-149],
        ]
    )
    as32 = [float(x) for x in float32_text(values).split(",")]
    assert np.array_equal(np.array(as32).astype(np.float32), values.astype(np.float32))
    as64 = [float(x) for x in float64_text(values).split(",")]
    assert np.array_equal(np.array(as64), values)


def _stored(st: GraphStore, prop: str) -> dict[str, dict[str, object]]:
    """``{id: {v, model}}`` of the Paper vectors in ``prop`` as each backend keeps them: on
    the node (Neo4j), on the node's vector node (the embedded store)."""
    if st.backend == "neo4j":
        query = (
            f"MATCH (n:Paper) WHERE n.{prop} IS NOT NULL "
            f"RETURN n.id AS id, n.{prop} AS v, n.model AS model"
        )
    else:
        query = (
            f"MATCH (v:Vec_Paper_{prop})-[:VECTOR_OF]->(n:Paper) "
            f"RETURN n.id AS id, v.{prop} AS v, v.model AS model"
        )
    return {str(r["id"]): r for r in st.run(query)}


def _read(st: GraphStore, node_id: str) -> dict[str, object]:
    return _stored(st, "emb_t")[node_id]


def test_vectors_are_stored_exactly_with_awkward_ids(any_store: GraphStore) -> None:
    """The FalkorDB store writes the parameter text itself: ids and extra values with
    quotes, backslashes and non-ASCII letters must arrive unchanged, and every component as
    the backend stored it before (float32 on FalkorDB, double on Neo4j)."""
    ids = ['q"uote', "back\\slash", "ünïcode ✓", "plain"]
    any_store.merge_nodes("Paper", [{"id": i} for i in ids])
    rng = np.random.default_rng(3)
    vecs = {i: rng.standard_normal(8) * 10.0 ** rng.integers(-6, 6, 8) for i in ids}
    extra = {i: {"model": f'm"\\{i}'} for i in ids}
    n = any_store.set_vectors(
        "Paper", "emb_t", [(i, v.tolist()) for i, v in vecs.items()], extra=extra, batch_size=3
    )
    assert n == len(ids)
    for i in ids:
        row = _read(any_store, i)
        stored = np.array(row["v"], dtype=np.float64)
        if any_store.backend != "neo4j":  # the embedded FalkorDB stores float32
            assert np.array_equal(stored, vecs[i].astype(np.float32).astype(np.float64))
        else:
            assert np.array_equal(stored, vecs[i])
        assert row["model"] == f'm"\\{i}'


def test_a_bad_vector_stops_before_its_batch(any_store: GraphStore) -> None:
    any_store.merge_nodes("Paper", [{"id": i} for i in ("a", "b", "c")])
    rows = [("a", [1.0, 0.0]), ("b", [0.0, 1.0]), ("c", [math.nan, 1.0])]
    with pytest.raises(InputError, match="'c'") as info:
        any_store.set_vectors("Paper", "emb_t", rows, batch_size=2)
    assert info.value.line == 3
    assert sorted(_stored(any_store, "emb_t")) == ["a", "b"]
    # a missing node is not written and not counted
    assert any_store.set_vectors("Paper", "emb_t", [("nope", [1.0, 2.0])]) == 0

"""The stored RPG models are data with provenance, and re-fitting reproduces them.

``models/rpg_pairwise.json`` was written by ``rpg_training.fit_synthetic`` (``scholarkg bench
fit legobench-rpg``). The fast test re-fits one configuration of the graph-only set on the
same seeded world; the slow one re-fits the whole file (about four minutes on 2 cores).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from scholarkg.benchmark.tasks.legobench.rpg import core as rpg
from scholarkg.benchmark.tasks.legobench.rpg.model import (
    MODEL_SETS,
    PairwiseModel,
    stored_models,
    stored_params,
)
from scholarkg.benchmark.tasks.legobench.rpg.training import (
    SYNTHETIC_WORLD,
    fit_synthetic,
    write_models,
)
from scholarkg.errors import InputError
from scholarkg.store.falkordb.server import EmbeddedServer
from scholarkg.store.falkordb.store import FalkorDBStore


def _fresh(embedded_server: EmbeddedServer) -> FalkorDBStore:
    return FalkorDBStore(embedded_server.connect(), f"rpg_fit_{uuid.uuid4().hex[:8]}")


def test_stored_file_states_its_provenance() -> None:
    doc = stored_models()
    prov = doc["provenance"]
    world = prov["corpus"]
    assert {k: world[k] for k in ("n_papers", "n_leaderboards", "seed")} == {
        k: SYNTHETIC_WORLD[k] for k in ("n_papers", "n_leaderboards", "seed")
    }
    assert prov["split"]["name"] == "dev" and prov["split"]["seed"] == SYNTHETIC_WORLD["seed"]
    assert prov["command"].startswith("scholarkg bench fit legobench-rpg")
    assert prov["fitted_by"].endswith("rpg.training.fit_synthetic")
    for name in MODEL_SETS:
        assert set(doc[name]) == set(rpg.CONFIGS)
        for params in doc[name].values():
            PairwiseModel.from_params(params)  # valid
            assert params["fit"]["split"] == "dev"
            assert params["fit"]["n_leaderboards"] == prov["split"]["n_leaderboards"]
    assert stored_params("cn-tabs", context=True)["fit"]["context"] is True
    with pytest.raises(InputError, match="no stored coefficients"):
        stored_params("cn-nothing", context=False)


# slow: generates and loads the 4,000-paper synthetic world and fits one configuration
# (40 s here); ``bench fit --check`` (tests/legobench/test_tasks.py) is the same computation
@pytest.mark.slow
def test_refit_one_configuration_gives_the_stored_coefficients(
    embedded_server: EmbeddedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the world's files go
    store = _fresh(embedded_server)
    try:
        doc = fit_synthetic(store, configs=["cn-tabs"], model_sets=["graph_only"])
    finally:
        store.clear()
        store.close()
    assert list(tmp_path.iterdir()) == []  # no temporary folder left behind
    assert doc["graph_only"]["cn-tabs"] == stored_models()["graph_only"]["cn-tabs"]
    assert doc["provenance"]["split"] == stored_models()["provenance"]["split"]


def test_fit_refuses_a_graph_that_is_not_empty(store: FalkorDBStore) -> None:
    store.merge_nodes("Paper", [{"id": "arxiv:2001.00001"}])
    with pytest.raises(InputError, match="not empty"):
        fit_synthetic(store, configs=["cn-tabs"])


@pytest.mark.slow
@pytest.mark.timeout(2400)  # ~4 min on a quiet 2-core machine, 10+ on a shared one
def test_refit_reproduces_the_whole_stored_file(
    embedded_server: EmbeddedServer, tmp_path: Path
) -> None:
    store = _fresh(embedded_server)
    try:
        doc = fit_synthetic(store)
    finally:
        store.clear()
        store.close()
    path = write_models(doc, tmp_path / "rpg_pairwise.json")
    assert json.loads(path.read_text(encoding="utf-8")) == stored_models()

"""Embedding service without a store: naming, text/hash rules, and the real bundled model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from scholarkg.errors import ConfigError, InputError
from scholarkg.services.embeddings import (
    Embedder,
    SentenceTransformerEmbedder,
    load_embedder,
    model_slug,
    node_text,
    property_name,
    text_hash,
    vector_index_for,
)

TEXTS = [
    "Graph neural networks predict molecular properties from atom and bond features.",
    "Message passing on molecular graphs improves property prediction for drug discovery.",
    "A speech recogniser trained with self-supervised audio representations.",
    "Citation recommendation ranks papers a sentence should cite.",
]


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("minilm", "minilm_l6"),
        ("sentence-transformers/all-MiniLM-L6-v2", "minilm_l6"),
        ("allenai/specter2_base", "specter2_base"),
        ("/models/My-Model/", "my_model"),
        ("BAAI/bge-small-en-v1.5", "bge_small_en_v1_5"),
        ("org/2024-model", "m2024_model"),
    ],
)
def test_model_slug(name: str, slug: str) -> None:
    assert model_slug(name) == slug


def test_model_slug_rejects_names_without_letters() -> None:
    with pytest.raises(InputError, match="cannot derive a property name"):
        model_slug("///")


def test_node_text_and_hash() -> None:
    assert node_text(["  A title ", None, "", ["x", None, "y"], 3]) == "A title\nx, y\n3"
    assert node_text([None, "  "]) == ""
    h = text_hash("A title\nabstract")
    assert len(h) == 64 and h == text_hash("A title\nabstract")
    assert h != text_hash("A title\nabstract.")


class _Spec:
    name = "m"
    slug = "minilm_l6"
    dim = 384


def test_property_and_index_names() -> None:
    assert property_name(_Spec()) == "emb_minilm_l6"  # type: ignore[arg-type]  # a stand-in spec with the fields these read
    idx = vector_index_for("Paper", _Spec())  # type: ignore[arg-type]  # a stand-in spec with the fields these read
    assert (idx.name, idx.label, idx.property, idx.dimensions, idx.similarity) == (
        "paper_emb_minilm_l6",
        "Paper",
        "emb_minilm_l6",
        384,
        "cosine",
    )
    with pytest.raises(InputError, match="unknown node label"):
        vector_index_for("Paper) DETACH DELETE (n", _Spec())  # type: ignore[arg-type]  # a stand-in spec with the fields these read


def test_unknown_backend_and_int8_on_gpu() -> None:
    with pytest.raises(ConfigError, match="unknown embedding backend"):
        load_embedder("minilm", backend="tensorrt")
    with pytest.raises(ConfigError, match="runs on CPU only"):
        load_embedder("minilm", backend="torch-int8", device="cuda")


# --- the real bundled model ---------------------------------------------------------


@pytest.fixture(scope="module")
def minilm() -> SentenceTransformerEmbedder:
    # the bare model: these tests are about the encoder itself, not the vector cache
    model = load_embedder("minilm", device="cpu", cache=False, max_seq_length=256)
    assert isinstance(model, SentenceTransformerEmbedder)
    return model


@pytest.mark.model
def test_bundled_minilm_encodes_unit_float32(minilm: Embedder) -> None:
    assert isinstance(minilm, Embedder)
    assert (minilm.name, minilm.slug, minilm.dim) == ("all-MiniLM-L6-v2", "minilm_l6", 384)
    seen: list[int] = []
    vecs = minilm.encode(TEXTS, batch_size=3, progress=seen.append)
    assert seen == [3, 4]
    assert vecs.shape == (4, 384) and vecs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    sims = vecs @ vecs.T
    # the two molecule texts are each other's nearest neighbours
    assert int(np.argsort(-sims[0])[1]) == 1 and int(np.argsort(-sims[1])[1]) == 0
    # length-sorted batching returns rows in input order, unchanged by batch composition
    varied = ["short text", TEXTS[0] * 3, "a", TEXTS[2]]
    batched = minilm.encode(varied, batch_size=2)
    for text, row in zip(varied, batched, strict=True):
        np.testing.assert_allclose(minilm.encode([text])[0], row, atol=1e-5)
    assert minilm.encode([]).shape == (0, 384)
    with pytest.raises(InputError, match="batch size"):
        minilm.encode(TEXTS, batch_size=0)


@pytest.mark.model
def test_int8_backend_stays_close_to_torch(minilm: Embedder) -> None:
    int8 = load_embedder("minilm", backend="torch-int8", max_seq_length=256)
    assert int8.name == "all-MiniLM-L6-v2+int8"
    assert int8.slug == minilm.slug  # same vector space -> same property
    a, b = minilm.encode(TEXTS), int8.encode(TEXTS)
    cos = (a * b).sum(axis=1)
    assert cos.min() > 0.95, cos
    # the neighbour structure survives quantisation
    assert np.array_equal(np.argsort(-(a @ a.T), axis=1), np.argsort(-(b @ b.T), axis=1))


@pytest.mark.model
def test_truncation_is_part_of_the_model_name() -> None:
    short = load_embedder("minilm", device="cpu", max_seq_length=16)
    assert short.name == "all-MiniLM-L6-v2+len16"
    assert short.slug == "minilm_l6"
    # the bundled model's default: 128 tokens (measured trade-off, MINILM_MAX_SEQ_LENGTH)
    default = load_embedder("minilm", device="cpu", cache=False)
    assert isinstance(default, SentenceTransformerEmbedder)
    assert default.name == "all-MiniLM-L6-v2+len128"
    assert default.settings["max_seq_length"] == 128 and default.settings["precision"] == "fp32"


def test_missing_local_model_is_config_error() -> None:
    with pytest.raises(ConfigError, match="cannot load embedding model '/nonexistent/model-dir'"):
        load_embedder("/nonexistent/model-dir", device="cpu")


@pytest.mark.model
def test_local_directory_model(tmp_path: Path, minilm: SentenceTransformerEmbedder) -> None:
    minilm.model.save(str(tmp_path / "My-Copy"))
    local = load_embedder(str(tmp_path / "My-Copy"), device="cpu")
    assert (local.name, local.slug, local.dim) == ("My-Copy", "my_copy", 384)
    np.testing.assert_allclose(local.encode(TEXTS[:2]), minilm.encode(TEXTS[:2]), atol=1e-5)


@pytest.mark.model
def test_load_embedder_caches_corpus_vectors_under_settings_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scholarkg.services.embeddings import CachingEmbedder

    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path))
    emb = load_embedder("minilm", device="cpu", max_seq_length=128)
    assert isinstance(emb, CachingEmbedder)
    assert emb.cache.directory.parent == tmp_path / "cache" / "embeddings"
    assert emb.settings["precision"] == "fp32" and emb.settings["max_seq_length"] == 128
    first = emb.encode(TEXTS)
    again = load_embedder("minilm", device="cpu", max_seq_length=128)
    assert isinstance(again, CachingEmbedder)
    np.testing.assert_array_equal(again.encode(TEXTS), first)
    assert (again.stats.n_cached, again.stats.n_encoded) == (len(TEXTS), 0)
    monkeypatch.setenv("SCHOLARKG_EMBED_CACHE", "0")
    assert not isinstance(load_embedder("minilm", device="cpu"), CachingEmbedder)


@pytest.mark.model
def test_loading_the_model_draws_no_bar_of_its_own() -> None:
    """transformers drew "Loading weights: 100%|…" amid ``bench run``'s and ``suggest``'s
    progress lines (a review): the load is quiet now, wherever it is called from."""
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", "from scholarkg.services.embeddings import load_embedder; "
         "load_embedder('minilm', device='cpu', cache=False)"],
        capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    assert "Loading weights" not in out.stderr, out.stderr

"""The file cache of corpus vectors: keyed by (encoder identity, text), shared across runs.

The inner encoder is the bag-of-words ``HashEmbedder`` (records every text it encodes), so the
tests count real encoder work; the cache writes real ``.npz`` shards under ``tmp_path``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from _fakes import HashEmbedder, encoded_by

from scholarkg.services.embeddings import CachingEmbedder, embedder_settings
from scholarkg.services.vector_cache import MAX_SHARDS, VectorCache, text_digest

TEXTS = [
    "graph neural networks for molecules",
    "speech recognition with transformers",
    "citation recommendation from context",
    "graph neural networks for molecules",  # repeated in one call: encoded once
]


def test_second_encoder_instance_encodes_nothing(tmp_path: Path) -> None:
    first = CachingEmbedder(HashEmbedder(), tmp_path)
    seen: list[int] = []
    a = first.encode(TEXTS, batch_size=2, progress=seen.append)
    assert encoded_by(first) == TEXTS[:3]  # the duplicate is not encoded twice
    assert seen[-1] == len(TEXTS)
    assert (first.stats.n_encoded, first.stats.n_cached) == (3, 0)
    np.testing.assert_array_equal(a[0], a[3])

    # a new process: a new wrapper over a new encoder, same cache directory
    second = CachingEmbedder(HashEmbedder(), tmp_path)
    seen.clear()
    b = second.encode(list(reversed(TEXTS)), progress=seen.append)
    assert encoded_by(second) == []
    assert (second.stats.n_encoded, second.stats.n_cached) == (0, 4)
    assert seen == [4]
    np.testing.assert_array_equal(b, a[::-1])
    # vectors are the inner encoder's, bit for bit
    np.testing.assert_array_equal(a, HashEmbedder().encode(TEXTS))


def test_only_new_texts_are_encoded_and_identity_separates_models(tmp_path: Path) -> None:
    CachingEmbedder(HashEmbedder(), tmp_path).encode(TEXTS[:2])
    again = CachingEmbedder(HashEmbedder(), tmp_path)
    again.encode(TEXTS[:3])
    assert encoded_by(again) == [TEXTS[2]]
    # another encoder identity (e.g. '+int8', '+len128') never reads these vectors
    other = CachingEmbedder(HashEmbedder(name="hash-embedder+len128"), tmp_path)
    other.encode(TEXTS[:3])
    assert encoded_by(other) == TEXTS[:3]
    assert len(list(tmp_path.iterdir())) == 2
    assert embedder_settings(other)["cache"].startswith(str(tmp_path))


def test_single_texts_are_memoised_not_written(tmp_path: Path) -> None:
    emb = CachingEmbedder(HashEmbedder(), tmp_path)
    for _ in range(3):
        emb.encode(["one query"])
    assert encoded_by(emb) == ["one query"]
    assert not list(tmp_path.rglob("shard-*.npz"))


def test_shards_are_merged_and_bad_shards_ignored(tmp_path: Path) -> None:
    cache = VectorCache(tmp_path, model="m", slug="m", dim=4)
    rng = np.random.default_rng(0)
    texts = [f"text {i}" for i in range(MAX_SHARDS + 3)]
    vecs = rng.random((len(texts), 4)).astype(np.float32)
    for t, v in zip(texts, vecs, strict=True):
        cache.add([text_digest(t)], v[None, :])
    assert len(list(cache.directory.glob("shard-*.npz"))) <= MAX_SHARDS
    (cache.directory / "shard-zz-broken.npz").write_bytes(b"not a zip file")
    fresh = VectorCache(tmp_path, model="m", slug="m", dim=4)
    got = fresh.lookup([text_digest(t) for t in texts] + [text_digest("unknown")])
    assert got[-1] is None
    found = [v for v in got[:-1] if v is not None]
    assert len(found) == len(texts)
    np.testing.assert_array_equal(np.stack(found), vecs)
    assert not list(cache.directory.glob(".*.tmp.npz"))

"""A file cache of text vectors keyed by (encoder identity, sha256 of the text).

Why a file cache beside the node cache: the content-hash cache on the nodes
(``embed_nodes``) only serves vectors that live on graph nodes. The retrieval and
citation-recommendation rankers encode a collection's documents in memory (a BEIR
collection's ``title + " " + text``, a paper's title + abstract), so before this cache every
run re-encoded the whole corpus: ``bench run retrieval --ranker hybrid`` right after
``--ranker dense`` on 10,000 abstracts paid another quarter of an hour on two cores. With it,
every vector of a collection is computed once per (text, encoder settings) and read back by
every later run, ranker and command that encodes the same text with the same encoder.

Layout: ``<cache_dir>/embeddings/<slug>-<key>/`` where ``key`` is the first 16 hex digits of
the sha256 of the encoder identity (its name, which carries ``+int8`` / ``+len128``, and its
dimension); inside, ``meta.json`` (the identity in clear) and shards ``shard-*.npz``, each
``h`` (``(n, 32)`` uint8 sha256 digests) and ``v`` (``(n, dim)`` float32). A shard is written
to a temporary name and renamed, so a crash never leaves a half-written shard that later
runs would read; two processes writing at once each add their own shard (a text encoded by
both is stored twice, harmlessly). When a directory holds more than :data:`MAX_SHARDS`
shards they are merged into one.

We deliberately do not use a key-value store (sqlite, lmdb, diskcache): a corpus is
written in a few large batches and read whole, which ``.npz`` files do with numpy alone,
and a cache that is a folder of plain arrays can be inspected or deleted by hand.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import secrets
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)

#: shards in one model directory before they are merged into one
MAX_SHARDS = 16


def text_digest(text: str) -> bytes:
    """sha256 of the exact text, 32 raw bytes (the hex of the same is ``text_hash``)."""
    return hashlib.sha256(text.encode("utf-8")).digest()


class VectorCache:
    """Vectors of one encoder identity, read from and appended to ``directory``.

    Reading is lazy: the shards are loaded on the first lookup, into one dict from digest
    to row, so a 10k-document corpus costs one ``np.load`` per shard and no per-text I/O.
    """

    def __init__(self, root: Path, *, model: str, slug: str, dim: int) -> None:
        identity = json.dumps({"model": model, "dim": int(dim)}, sort_keys=True)
        key = hashlib.sha256(identity.encode("utf-8")).hexdigest()[:16]
        self.directory = Path(root) / f"{slug}-{key}"
        self.model = model
        self.dim = int(dim)
        self._rows: dict[bytes, np.ndarray] | None = None

    def __repr__(self) -> str:
        return f"VectorCache({str(self.directory)!r}, model={self.model!r})"

    def _shards(self) -> list[Path]:
        if not self.directory.is_dir():
            return []
        return sorted(self.directory.glob("shard-*.npz"))

    def _load(self) -> dict[bytes, np.ndarray]:
        if self._rows is not None:
            return self._rows
        rows: dict[bytes, np.ndarray] = {}
        for shard in self._shards():
            try:
                with np.load(shard) as data:
                    digests, vectors = data["h"], data["v"]
            except (OSError, ValueError, KeyError, zipfile.BadZipFile) as err:
                # a cache is never the only copy of anything: skip what cannot be read
                log.warning("ignoring unreadable embedding cache shard %s: %s", shard, err)
                continue
            if vectors.ndim != 2 or vectors.shape[1] != self.dim or len(digests) != len(vectors):
                log.warning("ignoring embedding cache shard %s: wrong shape", shard)
                continue
            for d, v in zip(digests, vectors, strict=True):
                rows[bytes(d)] = v
        self._rows = rows
        return rows

    def __len__(self) -> int:
        return len(self._load())

    def lookup(self, digests: Sequence[bytes]) -> list[np.ndarray | None]:
        """The cached vector of each digest, or None."""
        rows = self._load()
        return [rows.get(d) for d in digests]

    def add(self, digests: Sequence[bytes], vectors: np.ndarray) -> None:
        """Store ``vectors`` (one row per digest) as a new shard; merge shards when many."""
        if not len(digests):
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        if vectors.shape != (len(digests), self.dim):
            raise ValueError(f"expected {len(digests)} x {self.dim} vectors, got {vectors.shape}")
        rows = self._load()
        new = [(d, v) for d, v in zip(digests, vectors, strict=True) if d not in rows]
        if not new:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        meta = self.directory / "meta.json"
        if not meta.exists():
            meta.write_text(json.dumps({"model": self.model, "dim": self.dim}) + "\n")
        self._write_shard(
            np.frombuffer(b"".join(d for d, _ in new), dtype=np.uint8).reshape(-1, 32),
            np.stack([v for _, v in new]),
        )
        rows.update(new)
        shards = self._shards()
        if len(shards) > MAX_SHARDS:
            self._merge(shards)

    def _write_shard(self, digests: np.ndarray, vectors: np.ndarray) -> Path:
        name = f"shard-{os.getpid()}-{secrets.token_hex(6)}"
        tmp = self.directory / f".{name}.tmp.npz"
        final = self.directory / f"{name}.npz"
        np.savez(tmp, h=digests, v=vectors)
        os.replace(tmp, final)
        return final

    def _merge(self, shards: Sequence[Path]) -> None:
        """One shard holding every row of ``shards`` (re-read, so rows another process added
        since our first read are kept); then the merged shards are removed."""
        self._rows = None
        rows = self._load()
        digests = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(-1, 32)
        self._write_shard(digests, np.stack(list(rows.values())))
        for shard in shards:
            shard.unlink(missing_ok=True)

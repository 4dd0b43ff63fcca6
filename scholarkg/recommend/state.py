"""The graph version the recommender's caches and fit belong to, and where they live.

A fit and the indexes built for it are valid for one state of what they read: the Papers
(ids, texts, stubs) and the CITES among them. :func:`graph_version` hashes the server's own
aggregates of exactly that (``recommend/signature``), so writes the recommender never reads
(benchmark runs, reviews, leaderboards) do not invalidate it, and any load of works or
citations does. The aggregate scans the Papers and their citations, so it runs only when the
store's write fingerprint moved since this process last asked (a cheap call): a warm query
pays nothing for it.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from scholarkg.store.base import GraphStore

__all__ = ["cache_dir", "graph_version"]

_SEEN: dict[tuple[str, str], tuple[str, str]] = {}  # (backend, graph) -> (fingerprint, version)


def _fingerprint(store: GraphStore) -> str | None:
    try:
        return str(store.write_fingerprint())
    except Exception:  # a role that cannot ask: no shortcut, the aggregate decides
        return None


def graph_version(store: GraphStore) -> str:
    """A 16-hex version of the Papers and citations (see the module doc)."""
    key = (store.backend, store.graph)
    fp = _fingerprint(store)
    seen = _SEEN.get(key)
    if fp is not None and seen is not None and seen[0] == fp:
        return seen[1]
    rows = store.run_named("recommend/signature", {})
    row = {k: int(v or 0) for k, v in (rows[0] if rows else {}).items()}
    version = hashlib.sha256(json.dumps(row, sort_keys=True).encode()).hexdigest()[:16]
    if fp is not None:
        _SEEN[key] = (fp, version)
    return version


def forget(store: GraphStore) -> None:
    """Drop this process's memory of the store's version (tests that write between calls)."""
    _SEEN.pop((store.backend, store.graph), None)


def cache_dir(store: GraphStore, root: Path | None = None) -> Path:
    """``<data dir>/recommend/<backend>-<graph>``: the fit and indexes of one graph."""
    if root is None:
        from scholarkg.config import load_settings

        root = load_settings().data_dir / "recommend"
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", store.graph)[:60]
    digest = hashlib.sha256(store.graph.encode()).hexdigest()[:8]
    return root / f"{store.backend}-{slug}-{digest}"

"""Preparing node rows for ``merge_nodes``: ``cypher_common.node_rows`` (each value's plain
type tested first, one comprehension a row) against the code before it (``clean_props`` of
the row less its id, whose ``storable_value`` tested every value against ``Mapping`` and
``list | tuple`` first: ABC checks), on the same rows, alternated in the same run.

Every node row of every load goes through ``node_rows`` on the loading thread: an update of
22,000 OpenAlex works writes its Papers, their Authors and Venues and the stubs of their
references. The rows here are what the writer makes of the records ``load openalex``'s
reader gives for the first ``--works`` works of a snapshot ``bench_openalex.py`` generates
(``Record.row()``; a reference list's stubs as ``ReferenceList.stub_row``).

    python benchmarks/bench_node_rows.py --works 5000 --rounds 9
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from bench_checkpoint_digest import read_groups
from bench_openalex import generate

from scholarkg.errors import InputError
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.schema.records import NodeRecord
from scholarkg.store.cypher_common import _blank, node_rows


def _storable_before(value: Any) -> Any:
    """``storable_value`` before this change (the ABC checks first), copied on purpose: the
    alternative this script measures."""
    import json

    if isinstance(value, Mapping):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, list | tuple):
        items = [v for v in value if v is not None]
        if any(isinstance(v, Mapping | list | tuple) for v in items):
            return json.dumps(items, ensure_ascii=False, sort_keys=True)
        return list(items)
    return value


def node_rows_before(rows: Iterable[Mapping[str, Any]], label: str = "node") -> Iterator[Any]:
    """``node_rows`` before this change: the row less its id, then ``clean_props`` of it."""
    for i, row in enumerate(rows, 1):
        if _blank(row.get("id")):
            raise InputError(f"{label} node without an id", line=i, field="id")
        less = {k: v for k, v in row.items() if k != "id"}
        props = {k: _storable_before(v) for k, v in less.items() if v is not None}
        yield {"id": str(row["id"]).strip(), "props": props}


def rows_of(groups: list[list[Any]]) -> list[dict[str, Any]]:
    """The node rows the record writer makes of ``groups``."""
    out: list[dict[str, Any]] = []
    for recs in groups:
        for r in recs:
            if isinstance(r, ReferenceList):
                out += [r.stub_row(i) for i in r.stubs]
            elif isinstance(r, NodeRecord):
                out.append(r.row())
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--works", type=int, default=5_000)
    ap.add_argument("--rounds", type=int, default=9)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-node-rows-") as tmp:
        generate(Path(tmp), args.works)
        rows = rows_of(read_groups(Path(tmp), args.works))
    assert list(node_rows(rows)) == list(node_rows_before(rows))
    print(f"{args.works:,} works, {len(rows):,} node rows")
    best = {"before (clean_props, ABC checks first)": float("inf"), "node_rows now": float("inf")}
    for _ in range(args.rounds):  # alternated, each kept at its best
        for name, fn in zip(best, (node_rows_before, node_rows), strict=True):
            t0 = time.perf_counter()
            for _row in fn(rows):
                pass
            best[name] = min(best[name], time.perf_counter() - t0)
    for name, seconds in best.items():
        per = seconds * 1e6 / args.works
        print(f"  {name:40s} {seconds * 1e3:7.1f} ms, {per:5.1f} µs a work (best of {args.rounds})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

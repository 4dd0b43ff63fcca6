"""The batched ``load openalex`` path (the parse worker, 2,000-work resolution chunks, node
batches folded per id, edge buffers of 20,000 sent as ``[start, end]`` pairs) leaves exactly
the graph a load applying one record at a time leaves (chunks and batches of one, every edge
sent on its own, parsed in this process): every node, label, relationship and property, on
both backends, for a base snapshot and then a newer slice loaded into it (changed works whose
references and authors change, new works, a work citing one twice, an author named three
ways, references to works outside the snapshot that a later work describes). And a load
that carries every reference as a stub and a Citation record, not as one reference list
(``loaders/reference_lists.py``), leaves that graph too."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_openalex

from scholarkg.config import load_settings
from scholarkg.loaders import openalex, writer
from scholarkg.loaders.identity import IdentityResolver, SourceGroup
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.loaders.steps import Step, run_steps
from scholarkg.store.base import GraphStore

from .test_bulk_equals_incremental import everything


def _work(w: int, refs: list[int], authors: list[int], **extra: Any) -> dict[str, Any]:
    return openalex_work(
        1, id=f"https://openalex.org/W{w}", title=extra.pop("title", f"Work {w}"),
        doi=f"https://doi.org/10.5555/{w}" if w % 3 else None,
        ids={"openalex": f"https://openalex.org/W{w}", "mag": str(700 + w)}, locations=[],
        cited_by_count=w, publication_year=2000 + w % 20,
        referenced_works=[f"https://openalex.org/W{r}" for r in refs],
        authorships=[
            {"author_position": "first" if i == 0 else "middle",
             "author": {"id": f"https://openalex.org/A{a}",
                        "display_name": extra.get("names", {}).get(a, f"Author {a}")},
             "institutions": [{"display_name": f"Institute {a % 4}"}]}
            for i, a in enumerate(authors)
        ],
        primary_location={"source": {"display_name": f"Venue {w % 5}"}},
        **{k: v for k, v in extra.items() if k != "names"},
    )  # fmt: skip


def _snapshot(root: Path) -> tuple[list[Path], list[Path]]:
    base = [_work(w, [(w * 7 + k) % 90 + 1 for k in range(6)], [w % 11, (w + 3) % 11])
            for w in range(1, 61)]  # fmt: skip
    base[4] = _work(5, [1, 1, 2, 95], [1, 1])  # a reference and an author listed twice
    write_openalex(root / "base", base[:30], date="2024-01-01")
    write_openalex(root / "base", base[30:], date="2024-02-01")
    update = [
        _work(w, [(w * 5 + k) % 120 + 1 for k in range(5)], [(w + 1) % 13],
              title=f"Work {w}, revised", names={(w + 1) % 13: f"A. Author {(w + 1) % 13}"})
        for w in range(2, 61, 6)
    ] + [_work(w, [(w * 3 + k) % 120 + 1 for k in range(7)], [w % 13, 12])
         for w in range(61, 96)]  # fmt: skip
    write_openalex(root / "update", update, date="2024-03-01")
    return (
        openalex.snapshot_files([root / "base"])[0],
        openalex.snapshot_files([root / "update"])[0],
    )


def _as_records(groups: Iterable[SourceGroup]) -> Iterator[SourceGroup]:
    """The groups with each reference list as the stub and Citation records it stands for
    (how every reference travelled before ``loaders/reference_lists.py``)."""
    for number, recs in groups:
        yield (
            number,
            [x for r in recs for x in (r.records() if isinstance(r, ReferenceList) else (r,))],
        )


def _load(
    store: GraphStore, files: list[Path], *, batch: int, parser: Any, records: bool = False
) -> None:
    resolver = IdentityResolver(store, chunk=batch)

    def groups(f: Path) -> Any:
        read = openalex.read_works(f, parser=parser)
        return resolver.resolve(_as_records(read) if records else read)

    steps = [Step("w", f, f"test-{batch}", partial(groups, f), family=False) for f in files]
    run_steps(store, steps, settings=load_settings(), batch_size=batch)
    resolver.finish()


def test_the_batched_load_equals_the_record_by_record_load(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))  # checkpoints apart
    base, update = _snapshot(tmp_path / "snap")
    any_store.apply_schema()
    with openalex.WorkParser(1) as parser:
        _load(any_store, base, batch=2_000, parser=parser)
        _load(any_store, update, batch=2_000, parser=parser)
    batched = everything(any_store)
    titles = any_store.run("MATCH (p:Paper {openalex_id: 'W8'}) RETURN p.title AS t")
    assert titles == [{"t": "Work 8, revised"}]

    any_store.clear()
    any_store.apply_schema()
    monkeypatch.setattr(writer, "EDGE_BUFFER", 1)  # every edge sent on its own
    _load(any_store, base, batch=1, parser=None)
    _load(any_store, update, batch=1, parser=None)
    one_by_one = everything(any_store)
    assert len(batched[0]) > 100 and len(batched[1]) > 400
    assert set(batched[0]) ^ set(one_by_one[0]) == set()
    assert set(batched[1]) ^ set(one_by_one[1]) == set()
    assert batched == one_by_one
    # one relationship per pair: the references of a new work are CREATEd (the writer's
    # new_starts), and a work citing one twice, its list split over two edge batches,
    # gets the second by MERGE
    assert len(set(batched[1])) == len(batched[1])

    # edge batches of three: a work's references split over several batches
    any_store.clear()
    any_store.apply_schema()
    monkeypatch.setattr(writer, "EDGE_BUFFER", 3)
    _load(any_store, base, batch=2_000, parser=None)
    _load(any_store, update, batch=2_000, parser=None)
    assert everything(any_store) == batched

    # the references as records, not lists: the same graph (a reference to a work keyed by
    # its DOI lands on another key and takes the records path inside the list path too)
    any_store.clear()
    any_store.apply_schema()
    monkeypatch.setattr(writer, "EDGE_BUFFER", 20_000)
    _load(any_store, base, batch=2_000, parser=None, records=True)
    _load(any_store, update, batch=2_000, parser=None, records=True)
    assert everything(any_store) == batched

"""An update leaves out the reference and authorship edges the graph already holds as
OpenAlex states them (``IdentityResolver._skip_stored_references``,
``_skip_stored_authorships``) and still leaves exactly the graph, and the load report, that
writing every edge again leaves: on both backends, for works whose lists come back the same,
lose an end, gain one, list one end twice, reorder their authors or change an author's
institutions or raw name; for edges Crossref states too; for a pair joined by a second edge
that OpenAlex does not state; and for two OpenAlex records (a preprint and its article) that
land on one node in one chunk."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_crossref, write_openalex

from scholarkg.config import load_settings
from scholarkg.loaders import crossref, openalex
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.reference_lists import ReferenceList
from scholarkg.loaders.steps import Step, run_steps
from scholarkg.loaders.unchanged_edges import UnchangedEdge
from scholarkg.loaders.writer import RecordWriter
from scholarkg.schema.records import Author, Authorship, Paper
from scholarkg.store.base import GraphStore

from .test_bulk_equals_incremental import everything


def _authorship(a: int, *, institution: str = "I1", raw: str | None = None) -> dict[str, Any]:
    ship: dict[str, Any] = {
        "author": {"id": f"https://openalex.org/A{a}", "display_name": f"Author {a}"},
        "institutions": [{"id": f"https://openalex.org/{institution}",
                          "display_name": f"University {institution}"}],
    }  # fmt: skip
    if raw is not None:
        ship["raw_author_name"] = raw
    return ship


def _authors(w: int) -> list[dict[str, Any]]:
    """Two or three authors a work, with institutions (the base's and an unchanged list's)."""
    ships = [_authorship(w % 4), _authorship(4 + w % 3, institution="I2", raw=f"A. {w % 3}")]
    return ships + ([_authorship(7)] if w % 2 else [])


def _work(w: int, refs: list[int], **extra: Any) -> dict[str, Any]:
    return openalex_work(
        1, id=f"https://openalex.org/W{w}", title=extra.pop("title", f"Work {w}"),
        doi=extra.pop("doi", f"https://doi.org/10.5555/{w}"), ids={},
        locations=extra.pop("locations", []),
        referenced_works=[f"https://openalex.org/W{r}" for r in refs],
        authorships=extra.pop("authorships", _authors(w)),
        **extra,
    )  # fmt: skip


def _pair(w: int, refs: list[int], *, title: str) -> list[dict[str, Any]]:
    """A preprint and its article: two OpenAlex works that are one Paper (one arXiv id)."""
    arxiv = f"2405.{w:05d}"
    preprint = _work(w, refs[:2], title=title, doi=f"https://doi.org/10.48550/arXiv.{arxiv}")
    article = _work(w + 1, refs[1:], title=title,
                    locations=[{"landing_page_url": f"https://arxiv.org/abs/{arxiv}"}])  # fmt: skip
    return [preprint, article]


def _snapshots(root: Path) -> tuple[list[Path], Path, list[Path]]:
    base = [_work(w, [(w * 7 + k) % 40 + 1 for k in range(5)]) for w in range(1, 41)]
    base += _pair(100, [1, 2, 3, 4], title="Pair")
    write_openalex(root / "base", base, date="2024-01-01")
    # Crossref states W1 -> W2 and W1 -> W3 too (by DOI): those edges carry both marks
    items = [{"type": "journal-article", "publisher": "x", "DOI": "10.5555/1",
              "title": ["Work 1"], "reference": [{"key": "a", "DOI": "10.5555/2"},
                                                 {"key": "b", "DOI": "10.5555/3"}]},
             # Crossref lists W3's first author by name: that edge carries both marks
             {"type": "journal-article", "publisher": "x", "DOI": "10.5555/3",
              "title": ["Work 3"], "author": [{"given": "Author", "family": "3",
                                               "sequence": "first"}]}]  # fmt: skip
    cross = write_crossref(root / "crossref.json", items)
    update = (
        [
            _work(w, [(w * 7 + k) % 40 + 1 for k in range(5)], title=f"Work {w}, revised")
            for w in range(1, 11)  # the same lists
        ]
        + [
            _work(w, [(w * 7 + k) % 40 + 1 for k in range(5)], authorships=ships)
            for w, ships in [
                (14, [_authorship(2), *_authors(14)[1:]]),  # an institution changed
                (15, [_authors(15)[0], _authorship(6, institution="I2", raw="A. other")]),  # raw
                (16, _authors(16)[:1]),  # an author gone
                (17, [*_authors(17), _authorship(9)]),  # an author added
                (18, [_authors(18)[1], _authors(18)[0]]),  # the order swapped: positions
                (19, [*_authors(19), _authors(19)[0]]),  # an author listed twice
                (20, []),  # no authors any more
                # institutions and raw name gone: the stored ones are cleared
                (21, [{"author": s["author"]} for s in _authors(21)[:2]] + _authors(21)[2:]),
            ]
        ]
        + [
            _work(11, [(11 * 7 + k) % 40 + 1 for k in range(4)]),  # an end gone
            _work(12, [(12 * 7 + k) % 40 + 1 for k in range(5)] + [77]),  # an end added
            _work(13, [(13 * 7 + k) % 40 + 1 for k in range(5)] * 2),  # every end listed twice
            # W1 again, later in the chunk: W3 left its list (Crossref keeps it), and its
            # authors come without institutions (the earlier record's are not written)
            _work(1, [2, 5], authorships=[{"author": s["author"]} for s in _authors(1)]),
            *_pair(100, [1, 2, 3, 5], title="Pair, revised"),  # two records, one node
            _work(50, [1, 2, 50]),  # a new work
        ]
    )
    write_openalex(root / "update", update, date="2024-03-01")
    return (
        openalex.snapshot_files([root / "base"])[0],
        cross,
        openalex.snapshot_files([root / "update"])[0],
    )


def _load(store: GraphStore, files: list[Path], read: Any = None) -> dict[str, Any]:
    resolver = IdentityResolver(store, chunk=2_000)

    def groups(f: Path) -> Any:
        return resolver.resolve((read or openalex.read_works)(f))

    steps = [Step("w", f, f"test-{f.name}", partial(groups, f), family=False) for f in files]
    summary = run_steps(store, steps, settings=load_settings(), batch_size=2_000)
    resolver.finish()
    return {"pruned": resolver.report.pruned, "totals": summary.totals()}


def _update_graph(
    store: GraphStore, root: Path, *, skip: bool, monkeypatch: pytest.MonkeyPatch
) -> tuple[Any, dict[str, Any], Counter[str]]:
    """The graph and report after base, Crossref and update, and the rows sent per type."""
    store.clear()
    store.apply_schema()
    base, cross, update = _snapshots(root)
    _load(store, base)
    _load(store, [cross], crossref.read_works)
    # a second edge W4 -> W29 that OpenAlex does not state (W4 lists W29 first)
    ends = [(4 * 7 + k) % 40 + 1 for k in range(5)]
    made = store.run(
        "MATCH (a:Paper {openalex_id: $a}), (b:Paper {openalex_id: $b}) "
        "CREATE (a)-[r:CITES {from_s2: true}]->(b) RETURN count(r) AS n",
        {"a": "W4", "b": f"W{ends[0]}"},
    )
    assert made == [{"n": 1}]
    # and a second AUTHORED_BY edge from W5 to its first author, not OpenAlex's
    made = store.run(
        "MATCH (a:Paper {openalex_id: 'W5'}), (b:Author {openalex_id: 'A1'}) "
        "CREATE (a)-[r:AUTHORED_BY {from_s2: true, position: 0}]->(b) RETURN count(r) AS n"
    )
    assert made == [{"n": 1}]
    sent: Counter[str] = Counter()
    real = store.merge_relationships

    def counting(rel_type: str, *args: Any, **kwargs: Any) -> Any:
        sent[rel_type] += len(args[2])
        return real(rel_type, *args, **kwargs)

    monkeypatch.setattr(store, "merge_relationships", counting)
    real_lists = getattr(store, "merge_relationship_lists", None)
    if real_lists is not None:  # reference lists' rows go as lists (RecordWriter._lists)

        def counting_lists(rel_type: str, *args: Any, **kwargs: Any) -> Any:
            sent[rel_type] += sum(len(ends) for ends in args[2].values())
            return real_lists(rel_type, *args, **kwargs)

        monkeypatch.setattr(store, "merge_relationship_lists", counting_lists)
    monkeypatch.setattr(IdentityResolver, "skip_stored_references", skip)
    monkeypatch.setattr(IdentityResolver, "skip_stored_authorships", skip)
    report = _load(store, update)
    monkeypatch.undo()
    return everything(store), report, sent


def test_skipping_stated_references_leaves_the_same_graph_and_report(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))  # checkpoints apart
    written, report, sent = _update_graph(
        any_store, tmp_path / "a", skip=False, monkeypatch=monkeypatch
    )
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home2"))
    skipped, report_skipped, sent_skipped = _update_graph(
        any_store, tmp_path / "b", skip=True, monkeypatch=monkeypatch
    )
    assert set(written[0]) ^ set(skipped[0]) == set()
    assert set(written[1]) ^ set(skipped[1]) == set()
    assert written == skipped
    assert report == report_skipped
    # what the skip saves: the unchanged lists' edges are not sent again
    assert sent["CITES"] >= 60 and sent_skipped["CITES"] <= sent["CITES"] - 40, (sent, sent_skipped)
    assert sent["AUTHORED_BY"] >= 40, sent
    assert sent_skipped["AUTHORED_BY"] <= sent["AUTHORED_BY"] - 20, (sent, sent_skipped)
    marks = {
        (row["b"], tuple(sorted(row["p"].items())))
        for row in any_store.run(
            "MATCH (:Paper {openalex_id: 'W1'})-[r:CITES]->(b:Paper) "
            "RETURN b.openalex_id AS b, properties(r) AS p"
        )
    }
    # W1's second record dropped W3: Crossref's mark keeps the edge, OpenAlex's is off
    assert ("W3", (("from_crossref", True),)) in marks
    assert ("W2", (("from_crossref", True), ("from_openalex", True))) in marks
    assert report["pruned"] >= 1  # W11's lost end
    cleared = any_store.run(
        "MATCH (p:Paper)-[r:AUTHORED_BY]->(a:Author) WHERE p.openalex_id IN ['W1', 'W21'] "
        "RETURN p.openalex_id AS p, a.openalex_id AS a, r.institutions AS inst, "
        "r.raw_name AS raw ORDER BY p, a"
    )
    assert cleared == [
        {"p": "W1", "a": "A1", "inst": None, "raw": None},
        {"p": "W1", "a": "A5", "inst": None, "raw": None},
        {"p": "W1", "a": "A7", "inst": None, "raw": None},
        {"p": "W21", "a": "A1", "inst": None, "raw": None},
        {"p": "W21", "a": "A4", "inst": None, "raw": None},
        {"p": "W21", "a": "A7", "inst": ["University I1"], "raw": None},
    ]


def test_stated_ends_and_unchanged_authorships_are_counted_across_a_buffer_flush(
    store: GraphStore,
) -> None:
    """The writer counts a held edge (``ReferenceList.stated``, ``UnchangedEdge``) as its
    ``MERGE`` would have, also when the edge buffer is flushed in the middle of a list."""
    store.clear()
    store.apply_schema()
    ends = tuple(f"openalex:W{n}" for n in range(2, 12))
    base = ReferenceList(
        "openalex:W1", ends, tuple(e.split(":")[1] for e in ends), tuple(range(10))
    )
    ship = Authorship(start="openalex:W1", end="openalex:A1", position=0, from_openalex=True)
    with RecordWriter(store) as writer:
        writer.add_all([Paper(id="openalex:W1", openalex_id="W1"), base,
                        Author(id="openalex:A1", name="A One"), ship])  # fmt: skip
    held = base.with_ends(base.start, ends, ()).with_stated(tuple(range(0, 10, 2)))
    writer = RecordWriter(store)
    writer.edge_buffer = 3  # a flush every three rows: inside the list
    report = writer.add_all([held, UnchangedEdge(ship)])
    assert report.relationships["CITES"] == 10
    assert report.relationships["AUTHORED_BY"] == 1
    assert store.run("MATCH ()-[r:CITES]->() RETURN count(r) AS n") == [{"n": 10}]


def test_stated_ends_of_a_list_are_counted_with_the_rows_of_the_same_pairs_around_them(
    store: GraphStore,
) -> None:
    """A list's stated ends are counted once each with the rows around them: a later row
    of one of those pairs is counted by its ``MERGE`` (not twice), a list stating a pair
    already buffered merges into that row, and a held end is never sent."""
    store.clear()
    store.apply_schema()
    ends = tuple(f"openalex:W{n}" for n in range(2, 12))
    values = tuple(e.split(":")[1] for e in ends)
    base = ReferenceList("openalex:W1", ends, values, tuple(range(10)))
    with RecordWriter(store) as writer:
        writer.add_all([Paper(id="openalex:W1", openalex_id="W1"), base])
    held = base.with_ends(base.start, ends, ()).with_stated(tuple(range(0, 10, 2)))
    crossref_w4 = ReferenceList(  # a later row of the stated pair W1 → W4
        "openalex:W1", ends[2:3], values[2:3], (), props=(("from_crossref", True),)
    )
    again = ReferenceList("openalex:W1", ends[2:5:2], values[2:5:2], (), stated=(0, 1))
    held_elsewhere = ReferenceList("openalex:W12", ends[:3], values[:3], (), stated=(0, 1, 2))
    writer = RecordWriter(store)
    report = writer.add_all([held, crossref_w4, again, held_elsewhere])
    # W1's ten ends (W4 written again, counted by its row) and W12's three (held: not sent)
    assert report.relationships["CITES"] == 13
    rows = store.run(
        "MATCH (a:Paper)-[r:CITES]->(b:Paper) RETURN b.id AS b, r.from_crossref AS crossref, "
        "r.from_openalex AS openalex ORDER BY b"
    )
    assert len(rows) == 10 and all(r["openalex"] for r in rows)
    assert {r["b"] for r in rows if r["crossref"]} == {"openalex:W4"}


def test_a_chunks_prunes_wait_for_the_writers_reads_and_go_before_its_writes(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resolution's writes (the ends W11 and W1 lost, retired; the fields W21 no longer
    gives, cleared) are held (``hold_until_write``) past the writer's reads of which ids
    exist, and sent before any write of the chunk: the order the store sees."""
    from scholarkg.store.batch_writes import BatchWriteStore

    assert isinstance(any_store, BatchWriteStore)
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    any_store.clear()
    any_store.apply_schema()
    base, _, update = _snapshots(tmp_path)
    _load(any_store, base)
    events: list[str] = []
    store: Any = any_store

    def recording(kind: str, real: Any) -> Any:
        def call(first: str, *args: Any, **kwargs: Any) -> Any:
            events.append(f"{kind} {first}")
            return real(first, *args, **kwargs)

        return call

    real_send_held = store.send_held

    def send_held() -> None:
        if store._held:
            events.append("send held")
        real_send_held()

    monkeypatch.setattr(store, "run_named", recording("read", store.run_named))
    monkeypatch.setattr(
        store,
        "run_named_beside_relationships",
        recording("read", store.run_named_beside_relationships),
    )
    # a chunk's look-up may be sent ahead (the first chunk's always is: _send_first_lookup)
    monkeypatch.setattr(store, "read_named_ahead", recording("read", store.read_named_ahead))
    monkeypatch.setattr(store, "send_named_counted", recording("write", store.send_named_counted))
    monkeypatch.setattr(store, "existing_ids", recording("read existing", store.existing_ids))
    monkeypatch.setattr(store, "merge_nodes", recording("write merge", store.merge_nodes))
    monkeypatch.setattr(store, "send_held", send_held)
    _load(any_store, update)
    monkeypatch.undo()
    assert events.count("send held") == 1, events  # one chunk: its held writes sent once
    at = events.index("send held")
    after = events[at + 1 :]
    n_held = next(i for i, e in enumerate(after) if not e.startswith("write identity/"))
    held = set(after[:n_held])
    assert {
        "write identity/retire_openalex_reference_ends",  # W11's lost end
        "write identity/clear_authorship_fields",  # W21's institutions and raw name
    } <= held, events
    assert after[n_held].startswith("write merge"), events  # then the chunk's own writes
    before = events[:at]
    # resolution's reads, then the writer's reads of which ids exist: none waited for them
    assert "read identity/lookup_papers" in before and "read identity/paper_states" in before
    writer_reads = before[before.index("read identity/paper_states") :]
    assert not any(e.startswith("write") for e in writer_reads), before
    retired = any_store.run(
        "MATCH (:Paper {openalex_id: 'W11'})-[r:CITES]->(b:Paper) RETURN count(r) AS n"
    )
    assert retired == [{"n": 4}]  # W11's lost end is gone, as the whole-list prune leaves it

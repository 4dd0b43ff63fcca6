"""A chunk's look-up sent while the chunk before resolves (``IdentityResolver.
_send_lookup_ahead``) leaves exactly the graph and the report that looking the chunk up after
the writes of the chunk before leaves, on both backends.

It reads the graph before those writes; the chunk seeks afresh every key the chunk before
held and every key naming a Paper renamed or given an alias since, and drops it all after a
merge. The stored graphs hold what makes
that matter: a stub described later under a DOI (its node merges away, so its key names the
survivor afterwards), a merged-away id kept as an alias, a Paper holding a key two records
state, references to works described in the same chunk, the next or never. Chunks of one
work make every chunk depend on the one before; chunks of four carry several. A bad record
stops the load after the groups before it, as it did before the next chunk was read ahead.
Both stores queue it behind the writes sent before it (Neo4j in its sender thread)."""

from __future__ import annotations

import dataclasses
import gzip
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import citing_work, write_openalex

from scholarkg.config import load_settings
from scholarkg.errors import InputError
from scholarkg.loaders import openalex
from scholarkg.loaders.identity import IdentityResolver, _AheadLookup
from scholarkg.loaders.steps import Step, run_steps
from scholarkg.store.base import GraphStore

from . import test_lookup_reuse as reuse
from . import test_settled_references as settled
from .test_bulk_equals_incremental import everything


def _load(
    store: GraphStore,
    path: Path,
    *,
    chunk: int,
    ahead: bool,
    used: list[int],
    moved: list[str] | None = None,
) -> Any:
    """``path`` loaded through a resolver with the look-up ahead on or off; ``used`` gets
    how many keys each chunk answered from a look-up sent ahead, ``moved`` the Papers
    renamed (or given aliases) while one was on its way."""
    resolver = IdentityResolver(store, chunk=chunk)
    resolver.lookup_ahead = ahead
    real = resolver._lookup_from_ahead

    def counted(keys: Any, sent: _AheadLookup | None) -> list[tuple[str, str]]:
        if sent is not None:
            used.append(len((sent.asked & set(keys)) - sent.touched))
            if moved is not None:
                moved.extend(sent.moved)
        return real(keys, sent)

    resolver._lookup_from_ahead = counted  # type: ignore[method-assign,assignment]  # counts its use
    return settled.resolved_load(store, resolver, path)


@pytest.mark.parametrize("chunk", [pytest.param(1, marks=pytest.mark.slow), 4])
def test_the_look_up_sent_ahead_leaves_the_graph_and_report_a_look_up_after_the_writes_leaves(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    base, update = settled._files(tmp_path / "snap")
    results = []
    for ahead in (True, False):
        settled.fresh_graph(any_store, settled._stored, tmp_path / f"home-{ahead}", monkeypatch)
        used: list[int] = []
        moved: list[str] = []
        reports = [
            _load(any_store, path, chunk=chunk, ahead=ahead, used=used, moved=moved)
            for path in (base, update)
        ]
        assert (sum(used) > 0) is ahead, used
        # W70's node renamed to its DOI's key while the next chunk's look-up was on its way
        assert ("openalex:W70" in moved) is ahead, moved
        results.append((everything(any_store), reports))
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1]
    assert len(any_store.run("MATCH (p:Paper {openalex_id: 'W80'}) RETURN p.id AS id")) == 1


def test_a_merge_between_two_chunks_drops_the_look_up_sent_ahead(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of one work: W50's record merges its stub into the node its DOI keys, and the
    chunks after it cite W50 (whose id then names the survivor): the same graph with the
    look-up ahead as without, every reference to W50 on the survivor."""
    works = [
        citing_work(1, [50, 60]),
        citing_work(2, [50, 60, 3]),
        citing_work(50, [1], doi="10.5555/50"),
        citing_work(3, [50, 60, 1]),
        citing_work(60, [2], doi="10.5555/60"),
        citing_work(4, [50, 60, 2, 3]),
        citing_work(5, [50, 60, 4]),
    ]
    path = write_openalex(tmp_path / "snap", works)
    graphs = []
    for ahead in (True, False):
        settled.fresh_graph(any_store, reuse._stored, tmp_path / f"home-{ahead}", monkeypatch)
        used: list[int] = []
        _load(any_store, path, chunk=1, ahead=ahead, used=used)
        assert (sum(used) > 0) is ahead, used
        graphs.append(everything(any_store))
    assert graphs[0] == graphs[1]
    cited = any_store.run(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) WHERE b.openalex_id = 'W50' RETURN DISTINCT b.id AS b"
    )
    assert cited == [{"b": "doi:10.5555/50"}]


def _through_one_resolver(
    store: GraphStore, paths: list[Path], *, ahead: bool
) -> tuple[list[bool], dict[str, Any]]:
    """``paths`` loaded in turn through one resolver (chunks of two works), its look-up
    ahead on or off: for each chunk, whether its keys came from a look-up sent ahead; the
    identity report."""
    resolver = IdentityResolver(store, chunk=2)
    resolver.lookup_ahead = ahead
    sent: list[bool] = []
    real = resolver._lookup_from_ahead

    def noted(keys: Any, ahead_sent: _AheadLookup | None) -> list[tuple[str, str]]:
        sent.append(ahead_sent is not None)
        return real(keys, ahead_sent)

    resolver._lookup_from_ahead = noted  # type: ignore[method-assign,assignment]  # notes its use

    def groups(path: Path) -> Any:
        return resolver.resolve(openalex.read_works(path))

    steps = [Step("w", p, "first-chunks", partial(groups, p), family=False) for p in paths]
    run_steps(store, steps, settings=load_settings(), batch_size=2)
    resolver.finish()
    return sent, dataclasses.asdict(resolver.report)


def test_each_files_first_chunk_is_looked_up_ahead_after_the_file_before(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two files through one resolver, chunks of two works: the second file's first chunk
    cites works the first file's last chunk wrote (W50's stub merged into the node its
    DOI keys, W3 described) and describes W60, cited as a stub before. Its look-up is sent
    as soon as it is read (``_send_first_lookup``), after the first file's last writes, and
    so is each file's first: every chunk's keys come from a look-up sent ahead, and the
    graph and report are those of a load that looks each chunk up after the writes."""
    first = write_openalex(tmp_path / "a", [
        citing_work(1, [50, 60]),
        citing_work(2, [50, 60, 1]),
        citing_work(3, [1, 60]),
        citing_work(50, [1], doi="10.5555/50"),
    ], date="2024-05-01")  # fmt: skip
    second = write_openalex(tmp_path / "b", [
        citing_work(4, [50, 3, 60]),
        citing_work(60, [2, 50], doi="10.5555/60"),
        citing_work(5, [4, 60, 50]),
    ], date="2024-05-02")  # fmt: skip
    results = []
    for ahead in (True, False):
        settled.fresh_graph(any_store, reuse._stored, tmp_path / f"home-{ahead}", monkeypatch)
        sent, report = _through_one_resolver(any_store, [first, second], ahead=ahead)
        assert sent == [ahead] * 4, sent  # 2 + 2 chunks, each file's first included
        results.append((everything(any_store), report))
    assert results[0] == results[1]
    cited = any_store.run(
        "MATCH (a:Paper)-[:CITES]->(b:Paper) WHERE b.openalex_id = 'W50' "
        "RETURN a.openalex_id AS a, b.id AS b ORDER BY a"
    )
    assert cited == [{"a": f"W{w}", "b": "doi:10.5555/50"} for w in ("1", "2", "4", "5", "60")]


def _schema_only(store: GraphStore) -> None:
    store.apply_schema()


@pytest.mark.parametrize("bad_at", [2, 6, 9])
def test_a_bad_record_stops_after_the_groups_before_it(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bad_at: int
) -> None:
    """Chunks of four, the bad line in the first chunk, in the second, and first of the
    third: the load raises it naming the line, after writing every work before it (the
    chunk it falls in included) and none after it."""
    part = write_openalex(tmp_path / "snap", [settled._work(w, [w + 1, 40]) for w in range(1, 12)])
    with gzip.open(part, "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    lines.insert(bad_at - 1, '{"id": "https://openalex.org/W99", "title": ')
    with gzip.open(part, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    settled.fresh_graph(any_store, _schema_only, tmp_path / "home", monkeypatch)
    resolver = IdentityResolver(any_store, chunk=4)
    step = Step("w", part, "bad", lambda: resolver.resolve(openalex.read_works(part)),
                family=False)  # fmt: skip
    with pytest.raises(InputError, match=f"{part.name}.*{bad_at}"):
        run_steps(any_store, [step], settings=load_settings(), batch_size=4)
    described = any_store.run(
        "MATCH (p:Paper) WHERE NOT p:Stub RETURN p.openalex_id AS w ORDER BY w"
    )
    assert sorted(int(r["w"][1:]) for r in described) == list(range(1, bad_at))
    assert dataclasses.asdict(resolver.report)["merges"] == []

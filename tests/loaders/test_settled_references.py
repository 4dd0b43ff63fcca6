"""References settled outside the union-find (``IdentityResolver._settled_references``: a key
that names one stored Paper, which no other key of the chunk finds) leave exactly the graph
and the report that resolving every key through the union-find leaves, on both backends.

The stored graph holds the cases next to the plain ones (a reference to ``openalex:W4``, or
to ``doi:…`` holding ``W3`` in its slot): a stub later described under a DOI (its node merges
away, so its key names the survivor afterwards), a Paper whose id is ``openalex:W70`` but
which holds no OpenAlex id (its slot comes from the references alone), a key two nodes hold
(``W80``: not settled, they merge), a merged-away id kept as an alias (``W90``), a stored
work whose DOI a later record of another OpenAlex id states (``W60``, ``W61``: the chunk
finds the node by two keys, so its reference is not settled). Two loads go through it, a
base and an update, with references drawn at random among works described before, later,
in the same chunk, or never; chunks of one work and of four carry the settled Papers from
chunk to chunk."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_openalex

from scholarkg.config import load_settings
from scholarkg.loaders import openalex
from scholarkg.loaders.identity import IdentityResolver, _record_keys
from scholarkg.loaders.steps import Step, run_steps
from scholarkg.schema.records import Paper
from scholarkg.store.base import GraphStore

from .test_bulk_equals_incremental import everything

#: works a reference may name: described by the loads (1-24), stored before them (50, 60,
#: 70, 80, 90), or never described (30-34, written as stubs)
_CITABLE = [*range(1, 25), 50, 60, 70, 80, 90, *range(30, 35)]


def _work(w: int, refs: list[int], *, doi: str | None = None, year: int = 2001) -> dict[str, Any]:
    return openalex_work(
        1, id=f"https://openalex.org/W{w}", title=f"Work {w}",
        doi=f"https://doi.org/{doi}" if doi else None,
        ids={"openalex": f"https://openalex.org/W{w}"}, locations=[], cited_by_count=w,
        publication_year=year, referenced_works=[f"https://openalex.org/W{r}" for r in refs],
        authorships=[], primary_location=None,
    )  # fmt: skip


def _stored(store: GraphStore) -> None:
    """The graph before the loads (see the module's docstring)."""
    store.apply_schema()
    for statement in (
        "CREATE (:Paper:Stub {id: 'openalex:W50', openalex_id: 'W50'})",
        "CREATE (:Paper {id: 'doi:10.5555/50', doi: '10.5555/50', title: 'Work 50'})",
        "CREATE (:Paper {id: 'openalex:W60', openalex_id: 'W60', doi: '10.5555/60'})",
        "CREATE (:Paper {id: 'openalex:W70', title: 'Work 70'})",
        "CREATE (:Paper {id: 'openalex:W80', openalex_id: 'W80', title: 'Work 80'})",
        "CREATE (:Paper {id: 'doi:10.5555/80', doi: '10.5555/80', openalex_id: 'W80'})",
        "CREATE (:Paper {id: 'doi:10.5555/90', doi: '10.5555/90', title: 'Work 90'})",
        "CREATE (:PaperAlias {id: 'openalex:W90'})",
        "MATCH (a:PaperAlias {id: 'openalex:W90'}), (p:Paper {id: 'doi:10.5555/90'}) "
        "CREATE (a)-[:ALIAS_OF]->(p)",
    ):
        store.run(statement)


def _files(root: Path) -> tuple[Path, Path]:
    """A base (works 1-12) and an update (1-12 again, some lists redrawn; 13-24 new; W50 and
    W70 described under DOIs, W61 under W60's), references drawn with a fixed seed."""
    rng = random.Random(7)

    def refs(w: int) -> list[int]:
        return rng.sample([c for c in _CITABLE if c != w], 6)

    base_lists = {w: refs(w) for w in range(1, 13)}
    # every third work has a DOI, so its node is keyed by it and its references land there
    base = [
        _work(w, base_lists[w], doi=f"10.5555/{w}" if w % 3 == 0 else None) for w in range(1, 13)
    ]
    update = [
        _work(
            w, base_lists[w] if w % 3 else refs(w), doi=f"10.5555/{w}" if w % 3 == 0 else None,
            year=2002,
        )
        for w in range(1, 13)
    ]  # fmt: skip
    update.insert(4, _work(50, refs(50), doi="10.5555/50"))
    update += [_work(w, refs(w)) for w in range(13, 25)]
    update.insert(9, _work(70, refs(70), doi="10.5555/70"))
    update.insert(14, _work(61, [60, *refs(61)[:3]], doi="10.5555/60"))
    return (
        write_openalex(root / "base", base, date="2024-05-01"),
        write_openalex(root / "update", update, date="2024-06-01"),
    )


def _load(
    store: GraphStore,
    path: Path,
    *,
    chunk: int,
    settle: bool,
    settled: list[dict[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> dict[str, Any]:
    resolver = IdentityResolver(store, chunk=chunk)
    resolver.settle_references = settle
    find = resolver._settled_references

    def counted(*args: Any) -> dict[str, str]:
        out = find(*args)
        settled.append(out)
        return out

    monkeypatch.setattr(resolver, "_settled_references", counted)  # counts what settles
    return resolved_load(store, resolver, path)


def fresh_graph(
    store: GraphStore,
    stored: Callable[[GraphStore], None],
    home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``store`` emptied and given the graph ``stored`` writes; the load's checkpoints in
    ``home`` (a home per way of loading, so neither resumes from the other's)."""
    monkeypatch.setenv("SCHOLARKG_HOME", str(home))
    store.clear()
    stored(store)


def resolved_load(store: GraphStore, resolver: IdentityResolver, path: Path) -> dict[str, Any]:
    """``path`` loaded through ``resolver`` (its chunk also the writer's batch size); the
    identity report."""
    step = Step("w", path, "settle", lambda: resolver.resolve(openalex.read_works(path)),
                family=False)  # fmt: skip
    run_steps(store, [step], settings=load_settings(), batch_size=resolver.chunk)
    resolver.finish()
    return dataclasses.asdict(resolver.report)


#: chunks of four carry settled Papers across ~10 chunks; chunks of one (every reference a
#: chunk after its work's) take ~30 s on the managed Neo4j: in the slow tier
@pytest.mark.parametrize("chunk", [pytest.param(1, marks=pytest.mark.slow), 4])
def test_settled_references_leave_the_graph_and_report_the_union_find_leaves(
    any_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    base, update = _files(tmp_path / "snap")
    results = []
    for settle in (True, False):
        fresh_graph(any_store, _stored, tmp_path / f"home-{settle}", monkeypatch)
        settled: list[dict[str, str]] = []
        reports = [
            _load(
                any_store,
                path,
                chunk=chunk,
                settle=settle,
                settled=settled,
                monkeypatch=monkeypatch,
            )
            for path in (base, update)
        ]
        pairs = [(k, pid) for out in settled for k, pid in out.items()]
        assert bool(pairs) is settle, settled
        # both kinds: a reference to the Paper of its own id, and to one keyed by a DOI
        assert any(k == pid for k, pid in pairs) is settle, pairs
        assert any(pid.startswith("doi:") for _, pid in pairs) is settle, pairs
        results.append((everything(any_store), reports))
    assert results[0][0] == results[1][0]
    assert results[0][1] == results[1][1]
    # the cases the stored graph holds came out as a catalogue keeps them
    ids = {
        r["o"]: r["id"]
        for r in any_store.run(
            "MATCH (p:Paper) WHERE p.openalex_id IN ['W50', 'W70', 'W80', 'W90'] "
            "RETURN p.openalex_id AS o, p.id AS id"
        )
    }
    assert ids["W50"] == "doi:10.5555/50" and ids["W70"] == "doi:10.5555/70"
    assert len(any_store.run("MATCH (p:Paper {openalex_id: 'W80'}) RETURN p.id AS id")) == 1
    cited = any_store.run(
        "MATCH (:Paper)-[:CITES]->(b:Paper) WHERE b.id STARTS WITH 'openalex:W' "
        "RETURN count(*) AS n"
    )
    assert cited[0]["n"] > 0  # references landed on their own ids (the settled kind)


def _settled_as_stated(
    found: list[tuple[str, str]], held: set[str], recent: dict[str, str]
) -> dict[str, str]:
    """The rule of ``_settled_references`` written plainly, row by row."""
    per_key = Counter(k for k, _ in found)
    per_node = Counter(pid for _, pid in found)
    return {
        k: pid
        for k, pid in found
        if per_key[k] == 1
        and per_node[pid] == 1
        and k.startswith("openalex:")
        and k not in held
        and pid not in held
        and recent.get(k, pid) == pid
    }


def test_the_settled_keys_follow_the_rule_as_stated() -> None:
    """The resolver finds them with whole-list passes in C; they are the keys the rule,
    applied row by row, gives: random look-up rows with repeated keys and Papers, records'
    keys and alternative ids, the previous chunk's keys."""
    rng = random.Random(11)

    def key() -> str:
        return rng.choice(["openalex:W", "doi:10.1/", "openalex:W", "mag:"]) + str(
            rng.randint(0, 25)
        )

    for _ in range(2_000):
        found = [
            (k, rng.choice([k, key(), key()])) for k in (key() for _ in range(rng.randint(0, 40)))
        ]
        papers = [
            Paper(id=f"openalex:W{rng.randint(0, 25)}", openalex_id="W1",
                  alt_ids=[key()] if rng.random() < 0.3 else None)
            for _ in range(rng.randint(0, 4))
        ]  # fmt: skip
        multi: list[tuple[Any, Collection[str]]] = [
            (papers[0], {key(), key()}) for _ in range(rng.randint(0, 2) if papers else 0)
        ]
        recent = {key(): key() for _ in range(rng.randint(0, 10))}
        resolver = IdentityResolver.__new__(IdentityResolver)  # the rule reads only _recent
        resolver.settle_references = True
        resolver._recent = recent
        held = {p.id for p in papers} | {a for p in papers for a in p.alt_ids or ()}
        held |= {k for _, keys in multi for k in keys}
        assert resolver._settled_references(
            found, _record_keys(papers, multi), multi
        ) == _settled_as_stated(found, held, recent)

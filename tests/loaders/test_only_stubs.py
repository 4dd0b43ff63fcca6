"""``load openalex --only-stubs``: a user's snapshot fills in the graph's stubs and nothing
else (issue 35 item 4). The records that describe a stub (by W id, DOI, or a W id OpenAlex
retired) are loaded through the normal path, so the graph equals loading exactly those
records; the rest are read, skipped and counted; an interrupted job continues with the
records its scan chose. Through the CLI, on both backends."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import crossref_item, openalex_work, write_crossref, write_openalex
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.loaders import openalex
from scholarkg.loaders.identity import slot_keys
from scholarkg.store.base import GraphStore


def rec(w: int, *, cites: tuple[int, ...] = (), **over: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {
        "id": f"https://openalex.org/W{w}", "doi": None, "ids": {}, "title": f"Work {w}",
        "referenced_works": [f"https://openalex.org/W{c}" for c in cites],
    }  # fmt: skip
    return openalex_work(2, **{**fields, **over})


def write_snapshot(root: Path) -> Path:
    """Two partitions: the records of the slice's stubs W1-W4 (W4 twice: an old and a new
    version), W5 (the DOI of a Crossref reference's stub), W7 (OpenAlex merged the stub W6
    into it), and three works the graph never met (W100-W102)."""
    five = rec(5, doi="https://doi.org/10.5555/5")
    first = [rec(1, cites=(100,)), rec(2), rec(100), rec(101), rec(4, title="Old four")]
    write_openalex(root, first, date="2024-05-01")
    write_openalex(root, [rec(3), rec(4, title="Four"), rec(102), five, rec(7)], date="2024-06-01")
    write_merged(root)
    return root


def write_merged(root: Path) -> None:
    merged = root / "data" / "merged_ids" / "works" / "2024-06-02.csv.gz"
    merged.parent.mkdir(parents=True)
    with gzip.open(merged, "wt") as fh:
        fh.write("merge_date,id,merge_into_id\n2024-06-02,W6,W7\n")


def load_slice(tmp: Path) -> None:
    """A group's work W901 citing W1-W4 and W6, and a Crossref item citing DOI 10.5555/5."""
    cli_ok(
        ["load", "openalex", str(write_openalex(tmp / "slice", [rec(901, cites=(1, 2, 3, 4, 6))]))]
    )
    item = dict(crossref_item(2), DOI="10.1000/slice", reference=[{"key": "a", "DOI": "10.5555/5"}])
    cli_ok(["load", "crossref", str(write_crossref(tmp / "cr.json", [item]))])


def snapshot(store: GraphStore) -> tuple[list[Any], list[Any]]:
    """Every node and edge but the ``LoadState`` a normal load of a snapshot folder records
    (the partitions it took wholly: ``--only-stubs`` takes none, and must record none, or a
    later daily load would skip them)."""
    nodes = store.run(
        "MATCH (n) WHERE NOT n:LoadState RETURN labels(n) AS l, n.id AS id, properties(n) AS p"
    )
    edges = store.run(
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS a, b.id AS b, properties(r) AS p"
    )
    return (
        sorted((sorted(n["l"]), n["id"], sorted(n["p"].items())) for n in nodes),
        sorted((e["t"], e["a"], e["b"], sorted(e["p"].items())) for e in edges),
    )


def stubs(store: GraphStore) -> set[str]:
    return {r["id"] for r in store.run("MATCH (p:Stub) RETURN p.id AS id")}


def reference(store: GraphStore, tmp: Path) -> tuple[list[Any], list[Any]]:
    """The graph of loading exactly the records that describe the slice's stubs, normally:
    the retired id applied first (as --only-stubs does), then those records in file order."""
    load_slice(tmp / "ref")
    only_merged = tmp / "ref" / "merged"
    write_merged(only_merged)
    cli_ok(["load", "openalex", str(only_merged), "--batch-size", "2"])
    chosen = tmp / "ref" / "chosen"
    write_openalex(chosen, [rec(1, cites=(100,)), rec(2), rec(4, title="Old four")],
                   date="2024-05-01")  # fmt: skip
    write_openalex(chosen, [rec(3), rec(4, title="Four"), rec(5, doi="https://doi.org/10.5555/5"),
                            rec(7)], date="2024-06-01")  # fmt: skip
    cli_ok(["load", "openalex", str(chosen), "--batch-size", "2"])
    graph = snapshot(store)
    store.run("MATCH (n) DETACH DELETE n")
    return graph


def test_only_stubs_fills_the_stubs_and_loads_nothing_else(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    snap = write_snapshot(tmp_path / "snap")
    want = reference(cli_store, tmp_path)
    load_slice(tmp_path)
    assert stubs(cli_store) == {
        "openalex:W1", "openalex:W2", "openalex:W3", "openalex:W4", "openalex:W6",
        "doi:10.5555/5",
    }  # fmt: skip
    out = cli_ok(["load", "openalex", "--only-stubs", str(snap), "--batch-size", "2"])
    assert "filled 6 of 6 stub(s) from 7 record(s); 3 of 10 record(s) read describe no stub" in out
    assert "1 stub(s) remain (1 new: references of the filled works)" in out
    assert snapshot(cli_store) == want
    assert cli_store.run("MATCH (s:LoadState) RETURN s.id AS id") == []  # no partition taken
    assert stubs(cli_store) == {"openalex:W100"}  # W1's reference
    titles = cli_store.run("MATCH (p:Paper) WHERE p.openalex_id IN ['W4', 'W5', 'W7'] "
                           "RETURN p.openalex_id AS w, p.title AS t ORDER BY w")  # fmt: skip
    assert titles == [{"w": "W4", "t": "Four"}, {"w": "W5", "t": "Work 5"},
                      {"w": "W7", "t": "Work 7"}]  # fmt: skip
    assert cli_store.run("MATCH (p:Paper) WHERE p.openalex_id IN ['W101', 'W102'] RETURN p") == []
    # again: the stub the filled works added is filled now (one step further), nothing else
    out = cli_ok(["load", "openalex", "--only-stubs", str(snap)])
    assert "filled 1 of 1 stub(s) from 1 record(s); 9 of 10 record(s)" in out
    assert stubs(cli_store) == set()
    # no stub left: every record is read and skipped, nothing is written, and it says so
    before = snapshot(cli_store)
    out = cli_ok(["load", "openalex", "--only-stubs", str(snap)])
    assert "filled 0 of 0 stub(s) from 0 record(s); 10 of 10 record(s) read describe no stub" in out
    assert snapshot(cli_store) == before


def test_an_interrupted_only_stubs_job_continues_with_the_records_it_chose(
    cli_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cut after three records (two written, one in the writer's buffer): those stubs are
    filled, so a new scan would skip them; the rerun loads what the first scan chose."""
    snap = write_snapshot(tmp_path / "snap")
    want = reference(cli_store, tmp_path)
    load_slice(tmp_path)
    real = openalex.read_selected_works
    seen = [0]

    def dies(path: Path, positions: Any) -> Iterator[Any]:
        for group in real(path, positions):
            seen[0] += 1
            if seen[0] == 4:
                raise KeyboardInterrupt
            yield group

    monkeypatch.setattr(openalex, "read_selected_works", dies)
    cut = runner.invoke(app, ["load", "openalex", "--only-stubs", str(snap), "--batch-size", "2"])
    assert cut.exit_code != 0
    assert "openalex:W1" not in stubs(cli_store)  # written before the cut: no longer a stub
    monkeypatch.setattr(openalex, "read_selected_works", real)
    out = cli_ok(["load", "openalex", "--only-stubs", str(snap), "--batch-size", "2", "--resume"])
    assert "continued an unfinished --only-stubs job" in out
    assert "filled 6 of 6 stub(s) from 7 record(s)" in out
    assert snapshot(cli_store) == want


@pytest.mark.parametrize("n", [1, 2, 3])
def test_work_keys_are_the_keys_of_the_parsed_paper(n: int, tmp_path: Path) -> None:
    """The scan's cheap id reading gives exactly the Paper's id and slot keys."""
    variants = [
        openalex_work(n),
        openalex_work(n, doi=None, ids={"doi": "https://doi.org/10.1/ABC", "pmcid": "PMC77"}),
        openalex_work(n, doi="", ids={"mag": 5, "pmid": "https://pubmed.ncbi.nlm.nih.gov/12"}),
    ]
    for work in variants:
        paper = openalex.parse_work(work, path=tmp_path, line=1).paper
        keys = openalex.work_keys(work, tmp_path, 1)
        assert set(keys) == slot_keys(paper.__dict__) | {paper.id}, work

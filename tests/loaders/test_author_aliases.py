"""An author id merged away stays an alias of the person (issue 35): two OpenAlex author ids
that share one ORCID, and an OpenAlex author id OpenAlex retired (``merged_ids/authors``),
are kept as ``(:AuthorAlias)-[:ALIAS_OF]->(:Author)``, so a later record naming only that id
lands on the surviving Author; in every load order the graph is the same, on both backends.
"""

from __future__ import annotations

import gzip
import itertools
from pathlib import Path
from typing import Any

import pytest
from _catalogue_works import openalex_work, write_openalex

from scholarkg.config import Settings
from scholarkg.loaders import openalex
from scholarkg.loaders.author_identity import merge_authors, retire_authors
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.store.base import GraphStore

ORCID = "https://orcid.org/0000-0002-1825-0097"


def load(store: GraphStore, settings: Settings, path: Path, kind: str, batch: int = 50) -> None:
    resolver = IdentityResolver(store, chunk=batch)
    step = Step(kind, path, kind, lambda: resolver.resolve(openalex.read_works(path)), family=False)
    run_steps(store, [step], settings=settings, batch_size=batch, summary=LoadSummary())
    resolver.finish()


def snapshot(store: GraphStore) -> tuple[list[Any], list[Any]]:
    nodes = store.run("MATCH (n) RETURN labels(n) AS l, n.id AS id, properties(n) AS p")
    edges = store.run(
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS a, b.id AS b, properties(r) AS p"
    )
    return (
        sorted((sorted(n["l"]), n["id"], sorted(n["p"].items())) for n in nodes),
        sorted((e["t"], e["a"], e["b"], sorted(e["p"].items())) for e in edges),
    )


def authorship(author: str, name: str, orcid: str | None = None) -> dict[str, Any]:
    return {
        "author": {"id": f"https://openalex.org/{author}", "display_name": name, "orcid": orcid},
        "institutions": [],
        "raw_author_name": name,
    }


def work(n: int, *authors: dict[str, Any]) -> dict[str, Any]:
    return openalex_work(
        2, id=f"https://openalex.org/W{n}", doi=f"https://doi.org/10.7777/{n}",
        ids={}, title=f"Work {n}", authorships=list(authors), referenced_works=[],
    )  # fmt: skip


def people(store: GraphStore) -> list[dict[str, Any]]:
    return store.run(
        "MATCH (p:Paper)-[:AUTHORED_BY]->(a:Author) RETURN p.openalex_id AS w, a.id AS a, "
        "a.openalex_id AS oa, a.orcid AS orcid ORDER BY w"
    )


def aliases(store: GraphStore) -> set[tuple[str, str]]:
    rows = store.run("MATCH (x:AuthorAlias)-[:ALIAS_OF]->(a:Author) RETURN x.id AS x, a.id AS a")
    return {(r["x"], r["a"]) for r in rows}


def empty(store: GraphStore) -> None:
    store.run("MATCH (n) DETACH DELETE n")


# W12 names the person A9 with the ORCID, W11 A1 with the same ORCID, W13 A9 only (no ORCID):
# one person; A1 is the key (text order), A9 an alias, whatever came first
TWINS = {
    "W11": [work(11, authorship("A1", "Ada Lovelace", ORCID))],
    "W12": [work(12, authorship("A9", "Ada King", ORCID))],
    "W13": [work(13, authorship("A9", "A. King"))],
}


def test_two_openalex_ids_sharing_an_orcid_are_one_author_in_every_order(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    graphs = {}
    for order in itertools.permutations(TWINS):
        empty(any_store)
        for name in order:
            path = write_openalex(tmp_path / "-".join(order) / name, TWINS[name])
            load(any_store, settings, path, name)
        assert {(r["w"], r["a"]) for r in people(any_store)} == {
            ("W11", "openalexauthor:A1"),
            ("W12", "openalexauthor:A1"),
            ("W13", "openalexauthor:A1"),
        }, order
        assert aliases(any_store) == {("openalexauthor:A9", "openalexauthor:A1")}, order
        graphs[order] = snapshot(any_store)
    first = next(iter(graphs.values()))
    for order, graph in graphs.items():
        assert graph == first, order
    author = next(n for n in first[0] if n[1] == "openalexauthor:A1")
    # the node's own record names it; the ORCID is stored bare
    assert dict(author[2])["name"] == "Ada Lovelace"
    assert dict(author[2])["orcid"] == "0000-0002-1825-0097"
    assert dict(author[2])["openalex_id"] == "A1"


def test_a_record_naming_only_an_alias_lands_on_the_person_in_one_batch_too(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """All three records in one file and one batch, then the A9-only record alone again:
    nothing new (no Author openalexauthor:A9, no edge moves)."""
    any_store.apply_schema()
    both = write_openalex(tmp_path / "all", [*TWINS["W12"], *TWINS["W11"], *TWINS["W13"]])
    load(any_store, settings, both, "all")
    before = snapshot(any_store)
    assert {r["a"] for r in people(any_store)} == {"openalexauthor:A1"}
    again = write_openalex(tmp_path / "again", TWINS["W13"], date="2024-06-01")
    load(any_store, settings, again, "again")
    assert snapshot(any_store) == before


def write_merged_authors(folder: Path, rows: list[tuple[str, str]]) -> Path:
    path = folder / "merged_ids" / "authors" / "2024-06-01.csv.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as fh:
        fh.write("merge_date,id,merge_into_id\n")
        fh.writelines(f"2024-06-01,{old},{new}\n" for old, new in rows)
    return path


RETIRED = {
    "W21": [work(21, authorship("A7", "Grace Hopper"))],  # A7: retired into A8
    "W22": [work(22, authorship("A8", "Grace B. Hopper"))],
    "merged": [],
}


@pytest.mark.parametrize(
    "order",
    [
        ("W21", "W22", "merged"),  # both stored: A7's node merges into A8's
        ("W22", "W21", "merged"),
        ("W21", "merged", "W22"),  # only A7 stored: re-keyed to A8, then A8's record
        ("merged", "W21", "W22"),  # the file before either: nothing to retire yet
    ],
)
def test_an_openalex_author_retired_by_merged_ids_stays_an_alias(
    any_store: GraphStore, settings: Settings, tmp_path: Path, order: tuple[str, ...]
) -> None:
    any_store.apply_schema()
    merged = write_merged_authors(tmp_path, [("A7", "A8"), ("A5", "A6")])  # A5, A6: unknown
    for name in order:
        if name == "merged":
            retire_authors(any_store, openalex.read_merged_author_ids(merged))
        else:
            load(any_store, settings, write_openalex(tmp_path / name, RETIRED[name]), name)
    if order[0] == "merged":  # retired ids the graph did not hold are not kept (as works')
        assert aliases(any_store) == set()
        assert {r["a"] for r in people(any_store)} == {"openalexauthor:A7", "openalexauthor:A8"}
        return
    assert {(r["w"], r["a"]) for r in people(any_store)} == {
        ("W21", "openalexauthor:A8"),
        ("W22", "openalexauthor:A8"),
    }
    assert aliases(any_store) == {("openalexauthor:A7", "openalexauthor:A8")}
    # a later record still naming the retired id lands on the survivor
    late = write_openalex(tmp_path / "late", [work(23, authorship("A7", "G. Hopper"))])
    load(any_store, settings, late, "late")
    rows = people(any_store)
    assert {(r["w"], r["a"], r["oa"]) for r in rows} == {
        ("W21", "openalexauthor:A8", "A8"),
        ("W22", "openalexauthor:A8", "A8"),
        ("W23", "openalexauthor:A8", "A8"),
    }
    names = any_store.run("MATCH (a:Author) RETURN a.name AS name")
    assert names == [{"name": "Grace B. Hopper"}]  # A8's own record names the person


def test_merging_two_authors_loses_no_edge_and_keeps_the_survivors_authorship(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """Two Author nodes of one person, both listed on one work (its preprint and article
    records named them differently) and each on works of its own: the merge keeps every
    work, one authorship on the shared work with the survivor's position and both records'
    statements, the loser's ids as aliases."""
    any_store.apply_schema()
    # the same work (one DOI) by two OpenAlex records: W31 lists A1 second, W32 lists A9 first
    w31 = work(31, authorship("A3", "Alan Turing"), authorship("A1", "Ada Lovelace"))
    w32 = dict(work(32, authorship("A9", "Ada King")), doi="https://doi.org/10.7777/31")
    path = write_openalex(tmp_path / "a", [w31, w32, *TWINS["W13"]])
    load(any_store, settings, path, "a")
    before = any_store.run(
        "MATCH (p:Paper)-[r:AUTHORED_BY]->(a:Author) RETURN p.id AS p, a.id AS a, "
        "r.position AS pos, r.from_openalex AS oa, r.also AS also ORDER BY p, a"
    )
    assert len({r["a"] for r in before}) == 3  # A1, A3, A9: nothing links A1 and A9 yet
    assert merge_authors(any_store, "openalexauthor:A9", "openalexauthor:A1")
    after = any_store.run(
        "MATCH (p:Paper)-[r:AUTHORED_BY]->(a:Author) RETURN p.id AS p, a.id AS a, "
        "r.position AS pos, r.from_openalex AS oa, r.also AS also ORDER BY p, a"
    )
    shared = [r for r in after if r["p"] == "doi:10.7777/31" and r["a"] == "openalexauthor:A1"]
    # W31 is the work's own OpenAlex record (its mark); W32's statement is an also entry,
    # keyed by the record's own id in its source (its W id)
    assert shared == [
        {"p": "doi:10.7777/31", "a": "openalexauthor:A1", "pos": 1, "oa": True,
         "also": ["openalex:W32"]}
    ]  # fmt: skip
    # every work the loser was on is the survivor's now
    assert {r["p"] for r in after if r["a"] == "openalexauthor:A1"} == {
        r["p"] for r in before if r["a"] in ("openalexauthor:A1", "openalexauthor:A9")
    }
    assert aliases(any_store) == {("openalexauthor:A9", "openalexauthor:A1")}
    assert any_store.run("MATCH (a:Author {id: 'openalexauthor:A9'}) RETURN a.id AS id") == []


S2 = Path(__file__).parent.parent / "fixtures" / "citerec" / "s2"


def test_an_s2_author_and_an_openalex_author_sharing_an_orcid_are_one_node_in_either_order(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """S2's papers file names Ann Zorb by her S2 author id only, its authors file gives that
    id's ORCID (and counts, DBLP names); an OpenAlex record of another work names her by
    OpenAlex id and the same ORCID. Either order: one Author, keyed by the OpenAlex id, with
    the S2 id in its slot, S2's counts on it, both works' authorships, no alias (every id has
    its slot)."""
    from _cli import cli_ok

    oa = work(41, authorship("A77", "Ann Zorb", "https://orcid.org/0000-0001-2345-6789"))
    s2 = [
        "load",
        "s2",
        "--papers",
        str(S2 / "papers.jsonl"),
        "--authors",
        str(S2 / "authors.jsonl"),
    ]
    graphs = []
    for first_s2 in (False, True):
        cli_store.run("MATCH (n) DETACH DELETE n")
        path = write_openalex(tmp_path / f"oa{first_s2}", [oa])
        loads = [s2, ["load", "openalex", str(path)]]
        for args in loads if first_s2 else loads[::-1]:
            cli_ok(args)
        ann = cli_store.run(
            "MATCH (a:Author) WHERE a.orcid = '0000-0001-2345-6789' OR a.s2_author_id = '9001' "
            "OPTIONAL MATCH (p:Paper)-[:AUTHORED_BY]->(a) "
            "RETURN a.id AS id, a.s2_author_id AS s2, a.h_index AS h, a.paper_count AS n, "
            "a.name AS name, collect(p.id) AS works"
        )
        assert len(ann) == 1, (first_s2, ann)
        assert ann[0]["id"] == "openalexauthor:A77" and ann[0]["s2"] == "9001", ann
        assert (ann[0]["h"], ann[0]["n"], ann[0]["name"]) == (2, 3, "Ann Zorb")
        assert sorted(ann[0]["works"]) == ["arxiv:2101.00001", "doi:10.7777/41"]
        assert aliases(cli_store) == set()
        graphs.append(snapshot(cli_store))
    assert graphs[0] == graphs[1]


def test_bulk_gives_the_incremental_loads_authors_and_aliases(
    graph_env: str, store: GraphStore, tmp_path: Path
) -> None:
    """``load openalex --bulk`` on the twins (two OpenAlex ids, one ORCID) and a retired
    author id: the same Authors, authorships and AuthorAlias nodes as ``load openalex``."""
    from _cli import cli_ok

    root = tmp_path / "snap"
    write_openalex(root, [*TWINS["W12"], *RETIRED["W21"]], date="2024-01-01")
    write_openalex(root, [*TWINS["W11"], *TWINS["W13"], *RETIRED["W22"]], date="2024-02-01")
    write_merged_authors(root / "data", [("A7", "A8")])
    cli_ok(["load", "openalex", str(root)])
    incremental = snapshot(store)
    assert aliases(store) == {
        ("openalexauthor:A9", "openalexauthor:A1"),
        ("openalexauthor:A7", "openalexauthor:A8"),
    }
    cli_ok(["db", "reset", "--yes"])
    cli_ok(["load", "openalex", str(root), "--bulk"])
    assert snapshot(store) == incremental

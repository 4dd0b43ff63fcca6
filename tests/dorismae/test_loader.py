"""The streaming DORIS-MAE loader: records, ids, tolerated oddities, errors, idempotence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok, runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders.dorismae import DorisLoadReport, DorisReader, iter_sections
from scholarkg.store.base import GraphStore
from scholarkg.synthetic.dorismae import SyntheticDoris, write_json

from .conftest import load


def _counts(store: GraphStore) -> tuple[dict[str, int], dict[str, int]]:
    c = store.counts()
    return dict(c.nodes), dict(c.relationships)


def test_load_writes_every_kind_and_is_idempotent(
    store: GraphStore, doris_file: Path, doris_json: dict[str, Any]
) -> None:
    report = load(store, doris_file)
    nodes, rels = _counts(store)
    n_ann, n_human = len(doris_json["Annotation"]), 3 * len(doris_json["Test_set"])
    assert nodes["Query"] == len(doris_json["Query"])
    assert nodes["Paper"] == len(doris_json["Corpus"])
    assert nodes["Aspect"] == len(doris_json["aspect_id2aspect"])
    assert rels["JUDGED"] == n_ann + n_human  # duplicates stay separate edges
    assert rels["HAS_CANDIDATE"] == sum(len(q["candidate_pool"]) for q in doris_json["Query"])
    cites = {(i, c) for i, a in enumerate(doris_json["Corpus"]) for c in a["outgoing_citations"]}
    assert rels["CITES"] == len(cites)
    assert (
        rels["HAS_SENTENCE"]
        == nodes["Sentence"]
        == sum(len(q["sent2aspect_id"]) for q in doris_json["Query"])
    )
    assert report.counts["annotations"] == n_ann
    # tolerated records are counted, as the sheet asks
    dup = n_ann - len({(a["aspect_id"], a["abstract_id"]) for a in doris_json["Annotation"]})
    assert dup > 0 and report.tolerated["duplicate annotations (summed)"] == dup
    minus = sum(a["score"] == -1 for a in doris_json["Annotation"])
    assert minus > 0
    assert report.tolerated["unparseable annotations (score -1, summed as -1)"] == minus
    empty = sum(not s for q in doris_json["Query"] for s in q["aspects"].values())
    assert report.tolerated["empty sub-aspect lists"] == empty
    load(store, doris_file)  # twice: nothing changes
    assert _counts(store) == (nodes, rels)


def test_paper_ids_follow_the_project_rules(
    doris_graph: GraphStore, doris_json: dict[str, Any]
) -> None:
    rows = doris_graph.run(
        "MATCH (p:Paper) RETURN p.id AS id, p.doris_abstract_id AS aid, p.ss_id AS ss", {}
    )
    by_aid = {r["aid"]: r for r in rows}
    first = doris_json["Corpus"][0]
    assert by_aid[0]["id"] == "arxiv:" + first["url"].rsplit("/", 1)[1]
    no_url = next(i for i, a in enumerate(doris_json["Corpus"]) if not a["url"])
    assert by_aid[no_url]["id"] == f"s2:{int(doris_json['Corpus'][no_url]['ss_id'])}"


def test_same_paper_from_another_corpus_is_one_node(
    fresh_doris_graph: GraphStore, doris_json: dict[str, Any]
) -> None:
    from scholarkg.loaders.writer import write_records
    from scholarkg.schema.records import Paper

    arxiv = doris_json["Corpus"][0]["url"].rsplit("/", 1)[1]
    write_records(fresh_doris_graph, [Paper(arxiv_id=f"arXiv:{arxiv}v2", title="Other corpus")])
    rows = fresh_doris_graph.run(
        "MATCH (p:Paper {arxiv_id: $a}) RETURN count(p) AS n", {"a": arxiv}
    )
    assert rows == [{"n": 1}]


def test_v0_string_ids_are_coerced_and_counted(store: GraphStore, tmp_path: Path) -> None:
    world = SyntheticDoris(n_queries=3, pool_size=12, n_background=2, seed=3, version="v0")
    path = write_json(world, tmp_path / "DORIS_MAE_dataset_v0.json")
    report = load(store, path)
    assert report.tolerated["ids as strings"] > 0
    nodes, rels = _counts(store)
    assert (
        nodes["Query"] == 3 and rels["HAS_CANDIDATE"] == 36 and "Test_set" not in path.read_text()
    )


def _broken(doris_json: dict[str, Any], tmp_path: Path, edit: Any) -> Path:
    data = json.loads(json.dumps(doris_json))
    edit(data)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_structural_error_names_the_json_path_and_keeps_what_was_stored(
    store: GraphStore, doris_json: dict[str, Any], tmp_path: Path
) -> None:
    def edit(d: dict[str, Any]) -> None:
        d["Annotation"][5]["abstract_id"] = "not-an-id"

    path = _broken(doris_json, tmp_path, edit)
    with pytest.raises(InputError, match=r"\$\.Annotation\[5\]\.abstract_id.*integer id") as err:
        load(store, path)
    assert str(path) in str(err.value)
    nodes, rels = _counts(store)
    assert nodes["Paper"] == len(doris_json["Corpus"]) and nodes["Query"] == len(
        doris_json["Query"]
    )
    assert rels["JUDGED"] == 5  # the five annotations before the bad one


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda d: d["Query"][2].pop("aspects"), r"\$\.Query\[2\]\.aspects"),
        (
            lambda d: d["Query"][1]["candidate_pool"].append(10**6),
            r"\$\.Query\[1\]\.candidate_pool",
        ),
        (lambda d: d["Corpus"][3].update(abstract_id=4), r"\$\.Corpus\[3\]\.abstract_id"),
        (lambda d: d.update(Corpus={"a": 1}), r"\$\.Corpus"),
    ],
)
def test_other_structural_errors(
    store: GraphStore, doris_json: dict[str, Any], tmp_path: Path, edit: Any, where: str
) -> None:
    with pytest.raises(InputError, match=where):
        load(store, _broken(doris_json, tmp_path, edit))


def test_truncated_file_is_an_input_error(
    store: GraphStore, doris_file: Path, tmp_path: Path
) -> None:
    path = tmp_path / "cut.json"
    path.write_bytes(doris_file.read_bytes()[:5000])
    with pytest.raises(InputError, match="invalid JSON"):
        load(store, path)


def test_sections_stream_in_any_key_order(tmp_path: Path) -> None:
    path = tmp_path / "order.json"
    path.write_text('{"x": {"a": [1]}, "Annotation": [{"k": 1}, 2], "Query": []}')
    with path.open("rb") as fh:
        got = list(iter_sections(fh))
    assert got == [
        ("x", None, {"a": [1]}),
        ("Annotation", 0, {"k": 1}),
        ("Annotation", 1, 2),
        ("Annotation", -1, None),
        ("Query", -1, None),
    ]


def test_subquery_file_numbers_are_matched(
    store: GraphStore, doris_file: Path, doris_subquery_file: Path
) -> None:
    report = load(store, doris_file, subqueries=doris_subquery_file)
    rows = store.run("MATCH (s:SubQuery) RETURN s.upstream_no AS n", {})
    numbers = sorted(r["n"] for r in rows)
    assert numbers == list(range(report.counts["subquery file blocks"]))
    assert report.counts["subqueries"] == len(rows) > 0


def test_cli_load_prints_counts_and_tolerated(graph_env: str, doris_file: Path) -> None:
    out = cli_ok(["load", "dorismae", str(doris_file)])
    assert "JUDGED" in out and "tolerated:" in out and "duplicate annotations" in out
    bad = runner.invoke(app, ["load", "dorismae", str(doris_file.parent / "missing.json")])
    assert bad.exit_code != 0


def test_reader_reports_progress_in_bytes(doris_file: Path) -> None:
    seen: list[tuple[int, int]] = []
    list(
        DorisReader(
            doris_file, report=DorisLoadReport(), progress=lambda d, t: seen.append((d, t))
        ).records()
    )
    assert seen[-1][0] == seen[-1][1] == doris_file.stat().st_size


def test_two_abstracts_of_one_paper_stay_two_nodes(
    store: GraphStore, doris_json: dict[str, Any], tmp_path: Path
) -> None:
    def edit(d: dict[str, Any]) -> None:
        d["Corpus"][1]["url"] = d["Corpus"][0]["url"]

    report = load(store, _broken(doris_json, tmp_path, edit))
    assert report.tolerated["abstracts sharing a paper id (kept apart)"] == 1
    rows = store.run("MATCH (p:Paper) WHERE p.doris_abstract_id IN [0, 1] RETURN p.id AS id", {})
    assert sorted(r["id"] for r in rows) == [
        "arxiv:" + doris_json["Corpus"][0]["url"][-10:],
        "paper:dorismae:1",
    ]


def test_judged_edges_are_the_file_s_judgements_one_edge_each(
    store: GraphStore, doris_json: dict[str, Any], doris_file: Path
) -> None:
    """Every annotation and every human grade is its own JUDGED edge, keyed and graded as in
    the file (recomputed here from the JSON), through the shared writer's keyed MERGE."""
    from scholarkg.loaders.dorismae import grade_from_response
    from scholarkg.schema.dorismae import aspect_node_id

    def grade(value: Any) -> float:
        if isinstance(value, int | float):
            return float(value)
        value = str(value)
        return (
            float(int(value)) if value.lstrip("-").isdigit() else float(grade_from_response(value))
        )

    expected = {
        (aspect_node_id(a["aspect_id"]), int(a["abstract_id"]), f"gpt:{i}"): (
            grade(a["score"]),
            "gpt",
            None,
        )
        for i, a in enumerate(doris_json["Annotation"])
    }
    for i, h in enumerate(doris_json["Test_set"]):
        for who, value in h["human_annotation"].items():
            key = (aspect_node_id(h["aspect_id"]), int(h["abstract_id"]), f"human:{i}:{who}")
            expected[key] = (grade(value), "human", who)
    pairs = {(a, p) for a, p, _ in expected}
    assert len(pairs) < len(expected)  # the file judges some pairs more than once

    def stored() -> dict[tuple[str, int, str], tuple[float, str, str | None]]:
        rows = store.run(
            "MATCH (a:Aspect)-[r:JUDGED]->(p:Paper) "
            "RETURN a.id AS a, p.doris_abstract_id AS p, properties(r) AS props"
        )
        out = {}
        for r in rows:
            props = dict(r["props"])
            key = (r["a"], int(r["p"]), props.pop("key"))
            assert key not in out
            out[key] = (props.pop("score"), props.pop("source"), props.pop("annotator", None))
            assert props == {}  # nothing else is stored on a judgement
        return out

    load(store, doris_file)
    assert stored() == expected
    load(store, doris_file)  # idempotent: MERGE on the key
    assert stored() == expected


def test_cli_load_stops_on_bad_record_and_resumes_after_the_fix(
    graph_env: str, store: GraphStore, doris_json: dict[str, Any], tmp_path: Path
) -> None:
    """The dataset goes through the shared load steps: a bad annotation stops the load with
    what came before it stored and checkpointed; after the fix ``--resume`` skips that part
    and ends with the graph a clean load gives."""

    def edit(d: dict[str, Any]) -> None:
        d["Annotation"][5]["abstract_id"] = "not-an-id"

    path = _broken(doris_json, tmp_path, edit)
    bad = runner.invoke(app, ["load", "dorismae", str(path), "--batch-size", "7"])
    assert isinstance(bad.exception, InputError)
    said = " ".join(bad.output.split())
    assert "before the error are stored whole" in said and "--resume" in said
    stopped_at = store.counts().relationships.get("JUDGED", 0)
    assert 0 < stopped_at <= 5

    path.write_text(json.dumps(doris_json), encoding="utf-8")
    out = " ".join(cli_ok(["load", "dorismae", str(path), "--resume"]).split())
    assert "skipped" in out or "resumed" in out, out
    resumed = _counts(store)
    cli_ok(["load", "dorismae", str(path)])
    assert _counts(store) == resumed
    assert resumed[1]["JUDGED"] > stopped_at

"""Provenance per source record: two OpenAlex records of one work (a preprint and its
article, one node) each keep their own statements, so reloading one of them, reloading the
whole file or resuming a finished load changes nothing, an updated record replaces only what
it stated, and the graph does not depend on the batch size. Both backends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _catalogue_works import openalex_work, write_openalex

from scholarkg.config import Settings
from scholarkg.loaders import openalex
from scholarkg.loaders.checkpoint import Checkpoint, checkpoint_scope_prefix
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.steps import LoadSummary, Step, run_steps
from scholarkg.store.base import GraphStore


def preprint(**over: Any) -> dict[str, Any]:
    """W10: arXiv's DataCite DOI (so the arXiv id 2403.00010), cites W1 and W2."""
    return openalex_work(
        1,
        **{
            "id": "https://openalex.org/W10",
            "doi": "https://doi.org/10.48550/arXiv.2403.00010",
            "ids": {"openalex": "https://openalex.org/W10"},
            "title": "A preprint",
            "cited_by_count": 0,
            "locations": [],
            "referenced_works": ["https://openalex.org/W1", "https://openalex.org/W2"],
            "authorships": [],
            **over,
        },
    )


def article(**over: Any) -> dict[str, Any]:
    """W11: the journal version (its DOI, the arXiv landing page), cites W2, W3 and W9."""
    return openalex_work(
        1,
        **{
            "id": "https://openalex.org/W11",
            "doi": "https://doi.org/10.1000/j11",
            "ids": {"openalex": "https://openalex.org/W11"},
            "title": "The article",
            "cited_by_count": 48,
            "locations": [{"landing_page_url": "https://arxiv.org/abs/2403.00010"}],
            "referenced_works": [
                "https://openalex.org/W2",
                "https://openalex.org/W3",
                "https://openalex.org/W9",
            ],
            "authorships": [],
            **over,
        },
    )


def load(
    store: GraphStore,
    settings: Settings,
    path: Path,
    *,
    batch: int = 50,
    resume: bool = False,
    kind: str = "oa",
) -> IdentityResolver:
    resolver = IdentityResolver(store, chunk=batch)
    step = Step(kind, path, kind, lambda: resolver.resolve(openalex.read_works(path)),
                family=False, resolver=resolver)  # fmt: skip
    run_steps(store, [step], settings=settings, batch_size=batch, resume=resume,
              summary=LoadSummary())  # fmt: skip
    resolver.finish()
    return resolver


def snapshot(store: GraphStore) -> tuple[list[Any], list[Any]]:
    """Every node (labels, id, properties) and every edge (type, ends, properties)."""
    nodes = store.run("MATCH (n) RETURN labels(n) AS l, n.id AS id, properties(n) AS p")
    edges = store.run(
        "MATCH (a)-[r]->(b) RETURN type(r) AS t, a.id AS a, b.id AS b, properties(r) AS p"
    )
    return (
        sorted((sorted(n["l"]), n["id"], sorted(n["p"].items())) for n in nodes),
        sorted((e["t"], e["a"], e["b"], sorted(e["p"].items())) for e in edges),
    )


def cites(store: GraphStore) -> set[str]:
    rows = store.run(
        "MATCH (:Paper {id: 'arxiv:2403.00010'})-[:CITES]->(b:Paper) RETURN b.openalex_id AS w"
    )
    return {r["w"] for r in rows}


def test_two_records_of_one_work_keep_their_own_statements(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    both = write_openalex(tmp_path / "both", [preprint(), article(), openalex_work(2)])
    load(any_store, settings, both)
    assert cites(any_store) == {"W1", "W2", "W3", "W9"}
    [node] = any_store.run(
        "MATCH (p:Paper {id: 'arxiv:2403.00010'}) RETURN p.title AS t, p.citation_count AS n, "
        "p.openalex_id AS w, p.alt_ids AS alt, p.doi AS doi"
    )
    # the first record of the source is the work's own (its title); the other fills gaps
    # and the citation count is the largest either gives
    assert node == {"t": "A preprint", "n": 48, "w": "W10", "alt": ["openalex:W11"],
                    "doi": "10.1000/j11"}  # fmt: skip
    clean = snapshot(any_store)

    # reloading either record alone, or the whole file, changes nothing and drops nothing
    for name, works in (("pre", [preprint()]), ("art", [article()]), ("all", None)):
        path = both if works is None else write_openalex(tmp_path / name, works)
        resolver = load(any_store, settings, path, kind=name)
        assert snapshot(any_store) == clean, name
        assert resolver.report.pruned == 0 and resolver.report.pruned_authorships == 0, name

    # an updated article record drops only what it alone stated (W9), W2 stays (both)
    load(any_store, settings, write_openalex(tmp_path / "upd", [article(referenced_works=[
        "https://openalex.org/W2", "https://openalex.org/W3"])]), kind="upd")  # fmt: skip
    assert cites(any_store) == {"W1", "W2", "W3"}
    # and an updated preprint that no longer cites W2: the article still does
    load(any_store, settings, write_openalex(tmp_path / "upd2", [preprint(referenced_works=[
        "https://openalex.org/W1"])]), kind="upd2")  # fmt: skip
    assert cites(any_store) == {"W1", "W2", "W3"}
    load(any_store, settings, write_openalex(tmp_path / "upd3", [article(referenced_works=[])]),
         kind="upd3")  # fmt: skip
    assert cites(any_store) == {"W1"}


def test_the_batch_size_does_not_change_the_graph(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    works = [openalex_work(2), preprint(), openalex_work(3), article(), openalex_work(1)]
    path = write_openalex(tmp_path / "w", works)
    graphs = []
    for batch in (1, 2, 50):
        any_store.clear()
        any_store.apply_schema()
        load(any_store, settings, path, batch=batch, kind=f"b{batch}")
        nodes, edges = snapshot(any_store)
        graphs.append(([repr(n) for n in nodes], [repr(e) for e in edges]))
    for other in graphs[1:]:
        assert set(graphs[0][0]) ^ set(other[0]) == set()
        assert set(graphs[0][1]) ^ set(other[1]) == set()


def test_resume_after_a_finished_load_touches_nothing(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    any_store.apply_schema()
    path = write_openalex(tmp_path / "w", [preprint(), article(), openalex_work(2)])
    load(any_store, settings, path, batch=1, kind="resume")
    clean = snapshot(any_store)
    resolver = load(any_store, settings, path, batch=1, resume=True, kind="resume")
    assert snapshot(any_store) == clean
    assert resolver.report.pruned == 0


def test_resume_leaves_the_records_it_skips_alone(
    any_store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    """``--resume`` touches nothing it skips: the skipped records are resolved (merges they
    call for still run) but what they state is not applied, so their reference lists are
    not pruned by what their ids resolve to now (here a CITES edge the preprint's own
    OpenAlex list does not hold, which re-reading that record would drop, stands for an edge
    an interruption left resolving differently)."""
    any_store.apply_schema()
    path = write_openalex(tmp_path / "w", [preprint(), article(), openalex_work(2)])
    load(any_store, settings, path, batch=1, kind="skip")
    any_store.run(
        "MATCH (p:Paper {id: 'arxiv:2403.00010'}) CREATE (s:Paper {id: 'openalex:W77', "
        "openalex_id: 'W77'}) CREATE (p)-[:CITES {from_openalex: true}]->(s)"
    )
    assert cites(any_store) == {"W1", "W2", "W3", "W9", "W77"}
    changed = snapshot(any_store)

    # a finished load: every record skipped, nothing pruned
    resolver = load(any_store, settings, path, batch=1, resume=True, kind="skip")
    assert snapshot(any_store) == changed
    assert resolver.report.pruned == 0

    # a checkpoint claiming the first two records (the file unchanged): the third is resolved
    # and written again (an unchanged record: nothing changes), the two skipped stay as they are
    cp = Checkpoint.open(
        path,
        directory=settings.checkpoints_dir,
        scope=checkpoint_scope_prefix(settings, any_store.graph) + "skip",
    )
    assert cp.done == 3
    cp.save(cp.points[:2])
    assert cp.skipped_outright(resume=True) == 2
    load(any_store, settings, path, batch=1, resume=True, kind="skip")
    assert snapshot(any_store) == changed
    assert resolver.report.pruned == 0

    # without --resume every record is read again: the preprint's list drops W77
    load(any_store, settings, path, batch=1, kind="skip")
    assert cites(any_store) == {"W1", "W2", "W3", "W9"}


def test_load_openalex_resume_leaves_the_records_it_skips_alone(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """The same through the command (its resolver is told what the load skips): a finished
    ``load openalex``, an edge of a skipped record changed by hand, ``--resume``: unchanged."""
    from _cli import runner

    from scholarkg.cli import app

    path = write_openalex(tmp_path / "w", [preprint(), article(), openalex_work(2)])
    args = ["load", "openalex", str(path), "--batch-size", "1"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    cli_store.run(
        "MATCH (p:Paper {id: 'arxiv:2403.00010'}) CREATE (s:Paper {id: 'openalex:W77', "
        "openalex_id: 'W77'}) CREATE (p)-[:CITES {from_openalex: true}]->(s)"
    )
    changed = snapshot(cli_store)
    res = runner.invoke(app, [*args, "--resume"])
    assert res.exit_code == 0, res.output
    assert "skipped 3 record(s)" in res.output
    assert snapshot(cli_store) == changed

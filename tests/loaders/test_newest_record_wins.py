"""An OpenAlex work's newest record wins, whatever order the records are read in.

OpenAlex re-publishes a work whenever it changes (``updated_date``). A snapshot folder is read
oldest partition first, but files named on the command line are read in name order, saved API
pages carry no partition, and a graph restored from a newer dump can be given an older
snapshot: before, whichever record was read last won, so an old title, an old reference list
and old authors could replace current ones. Now a record older than another record of its
work (the same ``W`` id) that the graph holds, or that the load read before, is skipped and
counted, in the same chunk, in the chunk before and across loads, on both backends."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _catalogue_works import openalex_work
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.store.base import GraphStore

from .test_bulk_equals_incremental import everything


def _work(title: str, refs: tuple[int, ...], updated: str | None, *, w: int = 1) -> dict[str, Any]:
    work = openalex_work(
        1, id=f"https://openalex.org/W{w}", title=title, doi=None, ids={}, locations=[],
        referenced_works=[f"https://openalex.org/W{r}" for r in refs],
        authorships=[{"author": {"id": f"https://openalex.org/A{refs[0]}",
                                 "display_name": f"Author of {title}"}}],
    )  # fmt: skip
    if updated is not None:
        work["updated_date"] = updated
    return work


def _jsonl(path: Path, works: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(w) + "\n" for w in works), encoding="utf-8")
    return path


def _load(*args: str) -> str:
    res = runner.invoke(app, ["load", "openalex", *args])
    assert res.exit_code == 0, res.output
    return " ".join(str(res.output).split())


NEW = _work("Current title", (2,), "2024-05-01T06:36:47.513290")
OLD = _work("Outdated title", (3,), "2024-01-15")


def _w1(store: GraphStore) -> dict[str, Any]:
    rows = store.run(
        "MATCH (p:Paper {openalex_id: 'W1'}) OPTIONAL MATCH (p)-[:CITES]->(c:Paper) "
        "OPTIONAL MATCH (p)-[:AUTHORED_BY]->(a:Author) "
        "RETURN p.title AS title, p.openalex_updated AS updated, "
        "collect(DISTINCT c.id) AS cites, collect(DISTINCT a.name) AS authors"
    )
    assert len(rows) == 1
    return {k: sorted(v) if isinstance(v, list) else v for k, v in rows[0].items()}


CURRENT = {
    "title": "Current title",
    "updated": "2024-05-01T06:36:47.513290",
    "cites": ["openalex:W2"],
    "authors": ["Author of Current title"],
}


def test_an_older_file_named_after_a_newer_one_is_skipped(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """``a.jsonl`` (new) and ``b.jsonl`` (old) named together: read in name order, the old
    record came last and won; now it is skipped, said, and the graph is the one the new
    record alone gives. Loaded again on its own, the old file changes nothing."""
    new = _jsonl(tmp_path / "a.jsonl", [NEW])
    old = _jsonl(tmp_path / "b.jsonl", [OLD])
    _load(str(new))
    alone = everything(cli_store)
    assert _w1(cli_store) == CURRENT
    runner.invoke(app, ["db", "reset", "--yes"])

    out = _load(str(new), str(old))
    assert "1 OpenAlex record(s) skipped" in out, out
    assert _w1(cli_store) == CURRENT
    assert everything(cli_store) == alone

    out = _load(str(old))  # against the graph's record alone
    assert "1 OpenAlex record(s) skipped" in out, out
    assert everything(cli_store) == alone


def test_an_older_record_of_a_work_keyed_by_its_doi_or_arxiv_id_is_skipped(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """A work whose key is its DOI or arXiv id (most works) is known by two ids, so it is
    a multi-key entry of its chunk: skipping its older record stopped the load with a bare
    ``KeyError: 'doi:…'`` (a new user's review), in separate loads and in one."""
    doi: dict[str, Any] = {
        "doi": "https://doi.org/10.9/x6",
        "ids": {"doi": "https://doi.org/10.9/x6"},
    }
    arxiv: dict[str, Any] = {"doi": "https://doi.org/10.48550/arXiv.2001.00001"}
    for n, keyed in enumerate((doi, arxiv)):
        new = _jsonl(tmp_path / f"{n}a.jsonl", [NEW | keyed])
        old = _jsonl(tmp_path / f"{n}b.jsonl", [OLD | keyed])
        _load(str(new))
        alone = everything(cli_store)
        out = _load(str(old))
        assert "1 OpenAlex record(s) skipped" in out, out
        assert everything(cli_store) == alone
        runner.invoke(app, ["db", "reset", "--yes"])
        out = _load(str(new), str(old))
        assert "1 OpenAlex record(s) skipped" in out, out
        assert everything(cli_store) == alone
        runner.invoke(app, ["db", "reset", "--yes"])


def test_the_newest_record_wins_within_a_file_and_across_chunks(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """The old record after the new one in one file: in the same chunk (default batch) and
    in the next chunk (``--batch-size 1``, the chunk before not yet read back from the
    graph's look-up), the result is the new record's. An old record *before* the new one
    is applied and then replaced, as in any update."""
    for batch in ("2000", "1"):
        _load(str(_jsonl(tmp_path / "both.jsonl", [NEW, OLD])), "--batch-size", batch)
        assert _w1(cli_store) == CURRENT, batch
        runner.invoke(app, ["db", "reset", "--yes"])
    _load(str(_jsonl(tmp_path / "in-order.jsonl", [OLD, NEW])), "--batch-size", "1")
    assert _w1(cli_store) == CURRENT


def test_records_of_one_day_or_without_a_date_apply_in_file_order(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """A record that states no ``updated_date`` (trimmed by the API's ``select=``) is never
    skipped, and of two records of one date the later is applied, as before; a day alone
    reads as its midnight, so it is older than a time later that day."""
    undated = _work("Undated title", (4,), None)
    _load(str(_jsonl(tmp_path / "a.jsonl", [NEW])), str(_jsonl(tmp_path / "b.jsonl", [undated])))
    assert _w1(cli_store)["title"] == "Undated title"
    same_day = _work("Same moment, read later", (5,), "2024-05-01T06:36:47.513290")
    _load(str(_jsonl(tmp_path / "c.jsonl", [NEW, same_day])))
    assert _w1(cli_store)["title"] == "Same moment, read later"
    day_only = _work("Day only", (6,), "2024-05-01")
    out = _load(str(_jsonl(tmp_path / "d.jsonl", [day_only])))
    assert "1 OpenAlex record(s) skipped" in out, out
    assert _w1(cli_store)["title"] == "Same moment, read later"


def test_another_works_newer_record_does_not_skip_this_one(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """Dates compare between records of one ``W`` id only: a work that cites a newer one,
    or shares its node with another OpenAlex record (a preprint's ``W`` beside the
    article's, same DOI), is applied whatever the other's date."""
    article = _work("Article", (2,), "2024-05-01", w=1)
    article["doi"] = "https://doi.org/10.1000/shared"
    preprint = _work("Preprint", (3,), "2023-01-01", w=7)
    preprint["doi"] = "https://doi.org/10.1000/shared"
    citing = _work("Citing", (1,), "2020-01-01", w=8)
    out = _load(str(_jsonl(tmp_path / "works.jsonl", [article, preprint, citing])))
    assert "record(s) skipped" not in out, out
    rows = cli_store.run(
        "MATCH (p:Paper {doi: '10.1000/shared'})-[r:CITES]->(c:Paper) "
        "RETURN c.id AS cited, r.also AS also ORDER BY cited"
    )
    assert [r["cited"] for r in rows] == ["openalex:W2", "openalex:W3"]
    assert cli_store.run("MATCH (:Paper {openalex_id: 'W8'})-[:CITES]->(c) RETURN c.id AS id") == [
        {"id": "doi:10.1000/shared"}
    ]


def test_an_updated_date_that_is_no_date_names_the_field(tmp_path: Path, graph_env: str) -> None:
    """Compared as text, a date in another format would win or lose at random: it stops
    the load at the record, naming the field."""
    bad = _work("Bad date", (2,), "15/01/2024")
    path = _jsonl(tmp_path / "bad.jsonl", [NEW, bad])
    res = runner.invoke(app, ["load", "openalex", str(path)])
    err = res.exception
    assert res.exit_code != 0 and isinstance(err, InputError), res.output
    assert (Path(str(err.path)).name, err.line, err.field) == ("bad.jsonl", 2, "updated_date")
    assert "15/01/2024" in err.message


def test_the_same_instant_spelled_with_a_zone_compares_as_the_instant(
    cli_store: GraphStore, tmp_path: Path
) -> None:
    """A file re-saved by another tool may write the date with a zone (``Z``, ``+02:00``).
    It is taken as the UTC instant, so a record is older or newer by its time, not by its
    spelling: as text, ``10:00:00+02:00`` (08:00 UTC) sorts after ``09:00:00`` and the newer
    record would have been skipped; an offset was refused as no date before."""
    zoned = _work("Outdated title", (3,), "2024-05-01T10:00:00+02:00")
    plain = _work("Current title", (2,), "2024-05-01T09:00:00")
    out = _load(str(_jsonl(tmp_path / "zoned.jsonl", [zoned])))
    assert _w1(cli_store)["updated"] == "2024-05-01T08:00:00", out
    out = _load(str(_jsonl(tmp_path / "plain.jsonl", [plain])))
    assert "record(s) skipped" not in out, out
    assert _w1(cli_store) == {**CURRENT, "updated": "2024-05-01T09:00:00"}
    # the older one again, now with a UTC "Z": skipped against the graph's newer record
    out = _load(
        str(_jsonl(tmp_path / "z.jsonl", [{**zoned, "updated_date": "2024-05-01T08:00:00Z"}]))
    )
    assert "1 OpenAlex record(s) skipped" in out, out
    assert _w1(cli_store)["title"] == "Current title"


def test_the_chunk_before_keeps_its_papers_properties_as_they_were_made_on_first_read(
    monkeypatch: Any,
) -> None:
    """The next chunk's checks read the properties of the few works two chunks share: they
    are made on first read, once, and equal what the record gives."""
    from scholarkg.loaders.identity import _PropertiesOnRead
    from scholarkg.schema.records import Paper

    papers = {
        "openalex:W1": Paper(id="openalex:W1", title="One", openalex_id="W1", year=2020),
        "openalex:W2": Paper(id="openalex:W2", title="Two", openalex_id="W2"),
    }
    made: list[str] = []
    properties = Paper.properties

    def counted(self: Paper) -> dict[str, Any]:
        made.append(self.id)
        return properties(self)

    monkeypatch.setattr(Paper, "properties", counted)
    recent = _PropertiesOnRead(papers)
    assert made == []
    assert sorted(recent) == ["openalex:W1", "openalex:W2"] and len(recent) == 2
    first = recent.get("openalex:W1", {})
    assert first == properties(papers["openalex:W1"])
    assert first["year"] == 2020 and "id" not in first
    assert recent["openalex:W1"] is first
    assert made == ["openalex:W1"]
    assert recent.get("openalex:W3", {}) == {}
    assert made == ["openalex:W1"]

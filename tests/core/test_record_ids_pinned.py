"""Pins the id (and stored row) of every node record type on sample inputs.

The expected values were computed with the per-class ``_fill`` validators *before* they were
folded into ``NodeRecord.ID_RULE``; ids are graph keys, so a refactor that changes one would
silently split nodes across loads.
"""

from __future__ import annotations

from typing import Any

import pytest

from scholarkg.schema import records as r
from scholarkg.schema.ddl import check_label, check_rel_type

SAMPLES: list[tuple[str, type[r.NodeRecord], dict[str, Any]]] = [
    ("Paper", r.Paper, {"arxiv_id": "arXiv:2101.00001v2", "title": "X"}),
    ("Paper_doi", r.Paper, {"doi": "10.1000/XYZ", "title": "A Study"}),
    ("Paper_corpus", r.Paper, {"corpus_id": 42}),
    ("Paper_title", r.Paper, {"title": "Graph  Neural Nets!", "date": "2020-05-01"}),
    ("PaperAlias", r.PaperAlias, {"id": "doi:10.1000/second"}),
    ("AuthorAlias", r.AuthorAlias, {"id": "openalexauthor:A9"}),
    ("Statement", r.Statement, {"id": "openalex:W5", "source": "openalex", "year": 2020}),
    ("Author", r.Author, {"name": "Ada Lovelace"}),
    ("Author_orcid", r.Author, {"name": "Ada Lovelace", "orcid": "0000-0001-2345-6789"}),
    ("Author_s2", r.Author, {"name": "Ada", "s2_author_id": "123"}),
    ("Venue", r.Venue, {"name": "NeurIPS"}),
    ("CitationContext", r.CitationContext, {"citing": "p1", "cited": "p2", "text": "as in <REF>"}),
    ("CitationContext_nocited", r.CitationContext, {"citing": "p1", "text": "as in <REF>"}),
    ("Chunk", r.Chunk, {"paper": "p1", "ordinal": 3, "text": "t"}),
    ("Section", r.Section, {"paper": "p1", "ordinal": 2, "title": "Intro", "text": "t"}),
    ("Section_body", r.Section, {"paper": "p1", "ordinal": 0, "text": "b", "kind": "body"}),
    ("Task", r.Task, {"name": "Image Classification"}),
    ("Dataset", r.Dataset, {"name": "ImageNet"}),
    ("Metric", r.Metric, {"name": "Top-1 Accuracy"}),
    ("Method", r.Method, {"name": "ResNet-50"}),
    ("Leaderboard", r.Leaderboard, {"task": "t1", "dataset": "d1", "metric": "m1"}),
    (
        "Result",
        r.Result,
        {"method": "m", "paper": "p1", "task": "t", "dataset": "d", "metric": "x"},
    ),
    ("Result_nopaper", r.Result, {"method": "m", "task": "t", "dataset": "d", "metric": "x"}),
    ("Query", r.Query, {"qid": "q7", "text": "t", "source": "doris"}),
    ("Aspect", r.Aspect, {"aspect_id": "a1", "text": "t", "source": "doris"}),
    ("Review", r.Review, {"paper": "p1", "reviewer": "R2", "source": "aaar"}),
    ("ReviewSegment", r.ReviewSegment, {"review": "rv1", "ordinal": 2, "text": "t"}),
    ("Weakness", r.Weakness, {"review": "rv1", "ordinal": 4, "text": "t"}),
    ("Experiment", r.Experiment, {"paper": "p1", "ordinal": 1, "text": "t"}),
    ("Experiment_src", r.Experiment, {"paper": "p1", "ordinal": 1, "text": "t", "source": "x"}),
    ("CodeTask", r.CodeTask, {"paper": "p1", "task_id": "T9", "name": "f"}),
    ("CodeTask_src", r.CodeTask, {"paper": "p1", "task_id": "T9", "name": "f", "source": "s"}),
    ("ReasoningStep", r.ReasoningStep, {"implementation": "impl1", "ordinal": 5, "text": "t"}),
    ("Repository", r.Repository, {"url": "https://www.GitHub.com/Owner/Name.git/"}),
    (
        "RPLMLeaderboard",
        r.RPLMLeaderboard,
        {"task": "t", "dataset": "d", "metric": "m", "sheet_row": 12},
    ),
    ("TitleLine", r.TitleLine, {"leaderboard": "lego:rplm:1", "gt_rank": 2, "text": " A  Title. "}),
    ("Given", r.Venue, {"name": "ICML", "id": "given-id"}),
]

EXPECTED: list[tuple[str, str, dict[str, Any]]] = [
    (
        "Paper",
        "arxiv:2101.00001",
        {"id": "arxiv:2101.00001", "title": "X", "title_norm": "x", "arxiv_id": "2101.00001"},
    ),
    (
        "Paper_doi",
        "doi:10.1000/xyz",
        {
            "id": "doi:10.1000/xyz",
            "title": "A Study",
            "title_norm": "a study",
            "doi": "10.1000/XYZ",
        },
    ),
    ("Paper_corpus", "s2:42", {"id": "s2:42", "corpus_id": 42}),
    (
        "Paper_title",
        "paper:d9663e5353a76f5c",
        {
            "id": "paper:d9663e5353a76f5c",
            "title": "Graph  Neural Nets!",
            "title_norm": "graph neural nets",
            "year": 2020,
            "date": "2020-05-01",
        },
    ),
    ("PaperAlias", "doi:10.1000/second", {"id": "doi:10.1000/second"}),
    ("AuthorAlias", "openalexauthor:A9", {"id": "openalexauthor:A9"}),
    (
        "Statement",
        "openalex:W5",
        {"id": "openalex:W5", "source": "openalex", "year": 2020},
    ),
    (
        "Author",
        "author:177f85df57ad121d",
        {"id": "author:177f85df57ad121d", "name": "Ada Lovelace"},
    ),
    (
        "Author_orcid",
        "orcid:0000-0001-2345-6789",
        {"id": "orcid:0000-0001-2345-6789", "name": "Ada Lovelace", "orcid": "0000-0001-2345-6789"},
    ),
    ("Author_s2", "s2author:123", {"id": "s2author:123", "name": "Ada", "s2_author_id": "123"}),
    ("Venue", "venue:neurips", {"id": "venue:neurips", "name": "NeurIPS"}),
    (
        "CitationContext",
        "cite:17ca8cb83c950605",
        {"id": "cite:17ca8cb83c950605", "citing": "p1", "cited": "p2", "text": "as in <REF>"},
    ),
    (
        "CitationContext_nocited",
        "cite:28a158f418388442",
        {"id": "cite:28a158f418388442", "citing": "p1", "text": "as in <REF>"},
    ),
    ("Chunk", "p1/chunk/3", {"id": "p1/chunk/3", "paper": "p1", "ordinal": 3, "text": "t"}),
    (
        "Section",
        "p1/section/2",
        {
            "id": "p1/section/2",
            "ordinal": 2,
            "title": "Intro",
            "text": "t",
            "kind": "section",
            "level": 1,
        },
    ),
    (
        "Section_body",
        "p1/section/body/0",
        {"id": "p1/section/body/0", "ordinal": 0, "text": "b", "kind": "body", "level": 1},
    ),
    (
        "Task",
        "task:image classification",
        {"id": "task:image classification", "name": "Image Classification"},
    ),
    ("Dataset", "dataset:imagenet", {"id": "dataset:imagenet", "name": "ImageNet"}),
    ("Metric", "metric:top 1 accuracy", {"id": "metric:top 1 accuracy", "name": "Top-1 Accuracy"}),
    ("Method", "method:resnet 50", {"id": "method:resnet 50", "name": "ResNet-50"}),
    (
        "Leaderboard",
        "lb:9b2f3804776a781f",
        {"id": "lb:9b2f3804776a781f", "task": "t1", "dataset": "d1", "metric": "m1"},
    ),
    (
        "Result",
        "result:431fe7bbb62d5577",
        {
            "id": "result:431fe7bbb62d5577",
            "method": "m",
            "paper": "p1",
            "task": "t",
            "dataset": "d",
            "metric": "x",
        },
    ),
    (
        "Result_nopaper",
        "result:0c0f2d238c442374",
        {
            "id": "result:0c0f2d238c442374",
            "method": "m",
            "task": "t",
            "dataset": "d",
            "metric": "x",
        },
    ),
    (
        "Query",
        "query:doris:q7",
        {"id": "query:doris:q7", "qid": "q7", "text": "t", "source": "doris"},
    ),
    (
        "Aspect",
        "aspect:doris:a1",
        {"id": "aspect:doris:a1", "aspect_id": "a1", "text": "t", "source": "doris"},
    ),
    (
        "Review",
        "review:aaar:p1#R2",
        {"id": "review:aaar:p1#R2", "reviewer": "R2", "source": "aaar"},
    ),
    ("ReviewSegment", "rv1/seg/2", {"id": "rv1/seg/2", "ordinal": 2, "text": "t"}),
    (
        "Weakness",
        "rv1/weakness/4",
        {"id": "rv1/weakness/4", "ordinal": 4, "text": "t"},
    ),
    (
        "Experiment",
        "experiment:aaar:p1#1",
        {"id": "experiment:aaar:p1#1", "ordinal": 1, "text": "t", "source": "aaar"},
    ),
    (
        "Experiment_src",
        "experiment:x:p1#1",
        {"id": "experiment:x:p1#1", "ordinal": 1, "text": "t", "source": "x"},
    ),
    (
        "CodeTask",
        "codetask:scireplicate:T9",
        {
            "id": "codetask:scireplicate:T9",
            "paper": "p1",
            "task_id": "T9",
            "name": "f",
            "source": "scireplicate",
        },
    ),
    (
        "CodeTask_src",
        "codetask:s:T9",
        {"id": "codetask:s:T9", "paper": "p1", "task_id": "T9", "name": "f", "source": "s"},
    ),
    (
        "ReasoningStep",
        "impl1/step/5",
        {"id": "impl1/step/5", "implementation": "impl1", "ordinal": 5, "text": "t"},
    ),
    (
        "Repository",
        "repo:github.com/Owner/Name",
        {"id": "repo:github.com/Owner/Name", "url": "https://www.GitHub.com/Owner/Name.git/"},
    ),
    (
        "RPLMLeaderboard",
        "lego:rplm:12",
        {"id": "lego:rplm:12", "task": "t", "dataset": "d", "metric": "m", "row": 12},
    ),
    (
        "TitleLine",
        "lego:rplm:1/line/2",
        {
            "id": "lego:rplm:1/line/2",
            "leaderboard": "lego:rplm:1",
            "gt_rank": 2,
            "text": " A  Title. ",
            "text_norm": "a title",
        },
    ),
    ("Given", "given-id", {"id": "given-id", "name": "ICML"}),
]


@pytest.mark.parametrize(
    ("sample", "expected"), list(zip(SAMPLES, EXPECTED, strict=True)), ids=[s[0] for s in SAMPLES]
)
def test_record_ids_unchanged(
    sample: tuple[str, type[r.NodeRecord], dict[str, Any]],
    expected: tuple[str, str, dict[str, Any]],
) -> None:
    name, cls, data = sample
    assert name == expected[0]
    record = cls(**data)
    assert record.id == expected[1]
    assert record.row() == expected[2]


def test_every_node_record_type_is_pinned() -> None:
    assert {cls for _, cls, _ in SAMPLES} == set(r.NODE_RECORDS)


def test_record_registries_cover_every_record_class_and_the_ddl_whitelists() -> None:
    """Every record class defined in ``records`` is registered (a tuple kept by hand had lost
    ``UsesMethod``), and every label and type it writes passes the DDL whitelist."""
    defined = [v for v in vars(r).values() if isinstance(v, type) and v.__module__ == r.__name__]
    nodes = {c for c in defined if issubclass(c, r.NodeRecord) and hasattr(c, "LABEL")}
    edges = {c for c in defined if issubclass(c, r.EdgeRecord) and hasattr(c, "TYPE")}
    assert r.UsesMethod in edges and r.RPLMLeaderboard in nodes
    assert set(r.NODE_RECORDS) == nodes and len(r.NODE_RECORDS) == len(nodes) == 26
    assert set(r.EDGE_RECORDS) == edges and len(r.EDGE_RECORDS) == len(edges) == 25
    for node in nodes:
        assert check_label(node.LABEL) == node.LABEL
    for edge in edges:
        assert check_rel_type(edge.TYPE) == edge.TYPE
        assert check_label(edge.START) and check_label(edge.END)


def test_missing_id_field_behaves_as_before() -> None:
    """The id rule reads the field it needs directly: a record without it fails as it did."""
    with pytest.raises(KeyError, match="name"):
        r.Venue()  # type: ignore[call-arg]  # the missing name is the test
    assert r.Venue.model_validate(r.Venue(name="x")).id == "venue:x"  # non-dict input passes

"""``scholarkg load s2`` on synthetic files in the exact S2 formats (``fixtures/citerec/s2``).

The fixture world: papers 101 (arXiv + DOI), 102 (DOI), 103 (corpus id only; the S2ORC
full text), 104 (old-style arXiv id); a truncated line, a paper without corpus id and one
with an impossible date; citations in both intent layouts, one unmatched (cited null), one
to a paper not loaded, one with a non-numeric corpus id; an S2ORC record whose citing
sentences include a marker with periods, an unmatched bibentry, a bibref without ref_id and
a citation of a paper that is not loaded; an S2ORC line with a broken annotation string.
"""

from __future__ import annotations

import json
from pathlib import Path

from _cli import cli_ok

from scholarkg.loaders.citerec_contexts import Marker, extract_contexts, split_sentences
from scholarkg.loaders.citerec_s2 import normalise_intents
from scholarkg.store.falkordb.store import FalkorDBStore

FIX = Path(__file__).parent.parent / "fixtures" / "citerec" / "s2"
ARGS = [
    "load",
    "s2",
    "--papers",
    str(FIX / "papers.jsonl"),
    "--abstracts",
    str(FIX / "abstracts.jsonl.gz"),
    "--citations",
    str(FIX / "citations.jsonl"),
    "--s2orc",
    str(FIX / "s2orc.jsonl.gz"),
    "--authors",
    str(FIX / "authors.jsonl"),
    "--venues",
    str(FIX / "publication-venues.jsonl"),
    "--tldrs",
    str(FIX / "tldrs.jsonl"),
]


def test_s2_load_graph_counts_ids_and_skips(graph: FalkorDBStore) -> None:
    out = " ".join(cli_ok(ARGS).split())
    assert "papers.jsonl: 3 malformed line(s) skipped" in out
    assert "papers.jsonl:5: invalid JSON" in out
    assert "papers.jsonl:6 (corpusid): missing, non-integer or out-of-range corpus id" in out
    assert "papers.jsonl:7 (date)" in out
    assert "authors.jsonl:2 (name): missing value" in out
    assert "citations.jsonl:6 (citingcorpusid)" in out
    assert "s2orc.jsonl.gz:2 (content.annotations.bibref): annotation is not valid JSON" in out
    assert "1 citation(s) whose cited paper S2 did not match" in out
    assert "1 citation(s) with a paper not in the graph" in out
    assert "1 s2orc citing sentence(s) whose cited paper is not in the graph" in out
    assert "1 tldr(s) of papers not in the graph" in out

    counts = graph.counts()
    assert counts.nodes["Paper"] == 5  # 101-104 + the DOI-only paper of the abstracts file
    assert counts.nodes["Author"] == 3 and counts.nodes["Venue"] == 1
    assert counts.nodes["CitationContext"] == 3
    assert counts.relationships["CITES"] == 4
    assert counts.relationships["GOLD"] == 3 and counts.relationships["IN_PAPER"] == 3

    ids = {
        r["cid"]: r["id"]
        for r in graph.run("MATCH (p:Paper) RETURN p.corpus_id AS cid, p.id AS id", {})
    }
    assert ids == {
        101: "arxiv:2101.00001",
        102: "doi:10.5555/zorb.2",
        103: "s2:103",
        104: "arxiv:hep-th/9901001",
        999: "doi:10.9/new",
    }

    p101 = graph.run("MATCH (p:Paper {id: 'arxiv:2101.00001'}) RETURN p", {})[0]["p"]
    assert p101["fields_of_study"] == ["Computer Science", "Mathematics"]
    assert p101["abstract"] == "We revisit zorbic lattices and their folding."
    assert p101["doi"] == "10.1/a" and p101["citation_count"] == 3 and p101["year"] == 2019
    assert p101["mag_id"] == "3032046382" and p101["is_open_access"] is True
    tldr = graph.run("MATCH (p:Paper {id: 'doi:10.5555/zorb.2'}) RETURN p.tldr AS t", {})
    assert tldr == [{"t": "Glorp networks tesselate sparse graphs."}]

    ann = graph.run(
        "MATCH (p:Paper {id: 'arxiv:2101.00001'})-[r:AUTHORED_BY]->(a:Author) "
        "RETURN a.id AS id, a.orcid AS orcid, r.position AS pos ORDER BY pos",
        {},
    )
    assert ann[0] == {"id": "s2author:9001", "orcid": "0000-0001-2345-6789", "pos": 0}
    assert ann[1]["id"].startswith("author:") and ann[1]["orcid"] is None
    venue = graph.run("MATCH (:Paper)-[:IN_VENUE]->(v:Venue) RETURN v", {})[0]["v"]
    assert venue["issn"] == "1234-5678" and venue["name"] == "Journal of Zorbs"

    cites = {
        (r["a"], r["b"]): r
        for r in graph.run(
            "MATCH (a:Paper)-[c:CITES]->(b:Paper) RETURN a.corpus_id AS a, b.corpus_id AS b, "
            "c.intents AS intents, c.context_intents AS per, c.is_influential AS infl, "
            "c.contexts AS contexts",
            {},
        )
    }
    assert set(cites) == {(101, 102), (103, 101), (104, 101), (103, 102)}
    assert cites[(101, 102)]["intents"] == ["background", "methodology"]
    assert cites[(101, 102)]["infl"] is True and cites[(101, 102)]["per"] is None
    assert cites[(103, 101)]["intents"] == ["background", "result"]
    assert json.loads(cites[(103, 101)]["per"]) == [["background"], ["result"]]
    assert cites[(103, 101)]["contexts"][0] == "Lattices fold (Zorb et al., 2019)."

    ctx = graph.run(
        "MATCH (c:CitationContext)-[:GOLD]->(g:Paper), (c)-[:IN_PAPER]->(p:Paper) "
        "RETURN c.text AS text, c.citation_text AS marker, c.n_refs AS n, c.section AS sec, "
        "g.corpus_id AS gold, p.corpus_id AS citing, c.char_start AS s, c.char_end AS e "
        "ORDER BY s",
        {},
    )
    assert [(c["text"], c["marker"], c["n"], c["sec"], c["gold"], c["citing"]) for c in ctx] == [
        ("Zorbic lattices fold under pressure <REF>.", "[1]", 1, "Introduction", 101, 103),
        (
            "Glorp networks, e.g. those of Fig. 2, tesselate graphs <REF>.",
            "(Quux et al., 2015)",
            1,
            "Introduction",
            102,
            103,
        ),
        (
            "Both ideas were combined before [3], [4] and later <REF>.",
            "[1]",
            3,
            "Introduction",
            101,
            103,
        ),
    ]
    import gzip

    with gzip.open(FIX / "s2orc.jsonl.gz", "rt") as fh:
        text = json.loads(fh.readline())["content"]["text"]
    assert all(text[c["s"] : c["e"]] == c["marker"] for c in ctx)


def test_s2_load_twice_changes_nothing(graph: FalkorDBStore) -> None:
    cli_ok(ARGS)
    first = graph.counts()
    cli_ok(ARGS)
    assert graph.counts() == first


def test_intent_layouts() -> None:
    assert normalise_intents(["methodology", "background"], 1) == (
        ["background", "methodology"],
        None,
    )
    assert normalise_intents([["background"], [], ["result", "background"]], 3) == (
        ["background", "result"],
        '[["background"], [], ["result", "background"]]',
    )
    # misaligned per-context lists: keep the union, drop the alignment
    assert normalise_intents([["result"]], 2) == (["result"], None)
    assert normalise_intents(None, 0) == (None, None)
    assert normalise_intents([], 0) == (None, None)


def test_sentence_splitter_protects_markers_and_abbreviations() -> None:
    text = (
        "As in Fig. 3 and Eq. 2, J. Smith et al. found it (Smith et al., 2019). "
        "Next, results improve [2]! Why? Because 3.5 is more."
    )
    marker = text.index("(Smith")
    spans = split_sentences(text, 0, len(text), [(marker + 1, marker + 20)])
    assert [text[s:e] for s, e in spans] == [
        "As in Fig. 3 and Eq. 2, J. Smith et al. found it (Smith et al., 2019).",
        "Next, results improve [2]!",
        "Why?",
        "Because 3.5 is more.",
    ]


def test_extract_contexts_masks_one_marker_each() -> None:
    text = "Intro\n\nA uses [1] and [2]. B follows [3]."
    p = (text.index("A"), len(text))
    markers = [
        Marker(text.index("[1]"), text.index("[1]") + 3, "x"),
        Marker(text.index("[2]"), text.index("[2]") + 3, None),
        Marker(text.index("[3]"), text.index("[3]") + 3, "y"),
    ]
    got = list(extract_contexts(text, [p], markers, [(0, "Intro")]))
    assert [(c.text, c.target, c.n_refs, c.section) for c in got] == [
        ("A uses <REF> and [2].", "x", 2, "Intro"),
        ("B follows <REF>.", "y", 1, "Intro"),
    ]


UNARXIVE = (
    Path(__file__).parent.parent / "fixtures" / "citerec" / "unarxive" / "unarxive-sample.jsonl"
)


def test_unarxive_contexts_cited_ids_and_skips(graph: FalkorDBStore) -> None:
    # the DOI-cited paper exists already (e.g. from S2): unarXive must land on it
    graph.merge_nodes("Paper", [{"id": "doi:10.5555/zorb.2", "title": "Glorp networks"}])
    out = " ".join(cli_ok(["load", "unarxive", str(UNARXIVE)]).split())
    assert "unarxive-sample.jsonl: 3 malformed line(s) skipped" in out
    assert "unarxive-sample.jsonl:2: invalid JSON" in out
    assert "unarxive-sample.jsonl:3 (paper_id): missing or invalid arXiv id" in out
    assert "unarxive-sample.jsonl:4 (body_text): expected a list" in out
    paper = graph.run("MATCH (p:Paper {id: 'arxiv:2105.05862'}) RETURN p", {})[0]["p"]
    assert paper["title"] == "Zorbic memory waves" and paper["year"] == 2021
    assert paper["categories"] == ["gr-qc", "hep-th"] and paper["date"] == "2021-05"
    rows = graph.run(
        "MATCH (c:CitationContext)-[:GOLD]->(g:Paper) RETURN c.text AS text, g.id AS gold, "
        "c.n_refs AS n, c.section AS sec, c.citation_text AS marker ORDER BY sec, text",
        {},
    )
    assert rows == [
        {
            "text": "The source tensor [FORMULA] is projected as in <REF>, see also [CIT].",
            "gold": "doi:10.5555/zorb.2",
            "n": 2,
            "sec": "Introduction",
            "marker": "{{cite:bb22}}",
        },
        {
            "text": "Zorbic lattices fold <REF>.",
            "gold": "arxiv:2101.00001",
            "n": 1,
            "sec": "Introduction",
            "marker": "{{cite:aa11}}",
        },
        {
            "text": "We use an OpenAlex-only method <REF> and an unknown key [CIT].",
            "gold": "openalex:W444",
            "n": 2,
            "sec": "Methods",
            "marker": "{{cite:dd44}}",
        },
    ]
    assert graph.counts().nodes["Paper"] == 4  # citing + arXiv-, DOI- and OpenAlex-cited
    assert graph.counts().relationships["CITES"] == 3
    again = graph.counts()
    cli_ok(["load", "unarxive", str(UNARXIVE)])
    assert graph.counts() == again

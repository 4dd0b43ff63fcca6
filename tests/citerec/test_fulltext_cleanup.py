"""citeBench's clean-up of citing sentences (footnote starts, one-citation markers) and the
unarXive id/author shapes seen in the released sample, on synthetic records we write here.

The S2ORC records are built by :func:`s2orc_record` in the real layout (``content.text``
plus annotations as JSON-encoded span lists), from paragraphs whose markers are written
inline as ``<<ref_id|marker text>>`` (``ref_id`` ``-`` = a bibref without ``ref_id``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from _cli import cli_ok

from scholarkg.loaders.citerec_contexts import (
    DROP_FOOTNOTE,
    DROP_STYLE,
    REF,
    Marker,
    citation_style,
    extract_contexts,
    split_sentences,
    starts_with_footnote,
)
from scholarkg.loaders.citerec_s2 import parse_s2orc_record
from scholarkg.loaders.citerec_unarxive import cited_paper_id
from scholarkg.store.falkordb.store import FalkorDBStore

_INLINE = re.compile(r"<<([^|>]+)\|([^>]+)>>")


def s2orc_record(
    corpus_id: int, sections: list[tuple[str, list[str]]], entries: dict[str, int | None]
) -> dict[str, Any]:
    """One S2ORC line: title, sections of paragraphs with inline markers, bibliography."""
    text = "\nA synthetic zorb paper\n\n"
    spans: dict[str, list[dict[str, Any]]] = {
        k: [] for k in ("paragraph", "sectionheader", "bibref", "bibentry", "bibtitle")
    }
    for header, paragraphs in sections:
        spans["sectionheader"].append({"start": len(text), "end": len(text) + len(header)})
        text += header + "\n\n"
        for para in paragraphs:
            start = len(text)
            pos = 0
            for m in _INLINE.finditer(para):
                text += para[pos : m.start()]
                ref: dict[str, Any] = {"start": len(text), "end": len(text) + len(m.group(2))}
                if m.group(1) != "-":
                    ref["attributes"] = {"ref_id": m.group(1)}
                spans["bibref"].append(ref)
                text += m.group(2)
                pos = m.end()
            text += para[pos:]
            spans["paragraph"].append({"start": start, "end": len(text)})
            text += "\n\n"
    for ref_id, matched in entries.items():
        title = f"Work {ref_id}"
        attrs: dict[str, Any] = {"id": ref_id}
        if matched is not None:
            attrs["matched_paper_id"] = matched
        spans["bibentry"].append(
            {"start": len(text), "end": len(text) + len(title) + 7, "attributes": attrs}
        )
        spans["bibtitle"].append({"start": len(text), "end": len(text) + len(title)})
        text += title + ". 2019\n"
    annotations: dict[str, Any] = {k: json.dumps(v) for k, v in spans.items()}
    annotations.update({"abstract": None, "figure": None, "formula": None, "table": None})
    return {
        "corpusid": corpus_id,
        "externalids": {"arxiv": None, "doi": None, "mag": None, "pubmed": None},
        "content": {
            "source": {"pdfurls": None, "oainfo": None},
            "text": text,
            "annotations": annotations,
        },
    }


# the world: 201 cites 202-205; every cleaned-away sentence cites a loaded paper, so any
# leak would show up in the graph
PARAGRAPHS = [
    "Zorbic lattices fold under pressure <<b0|[1]>>. "
    "2 The glorp networks tesselate graphs <<b1|[2]>>. "
    "Both ideas were merged before <<b2|(Quux, 2015; Zorb, 2019)>>. "
    "Later work extended them <<b3|(Blip et al., 2018)>>.",
    "¹This work was funded by the zorb council <<b0|[1]>>. "
    "<<b1|Smith and Lee (2019a)>> showed it first. "
    "2019 saw the first glorp survey <<b2|[3]>>. "
    "Glorps differ <<b2|[3,4]>> from zorbs <<b1|[2]>>. "
    "Blips were reported twice <<b3|(Zorb 2010a,b)>>. "
    "An unlinked pair was merged too <<-|(Ann 2001; Bo 2002)>>.",
]
ENTRIES: dict[str, int | None] = {"b0": 202, "b1": 203, "b2": 204, "b3": 205}


def parse_paper_201(
    header: str, paragraphs: list[str]
) -> tuple[set[tuple[Any, ...]], dict[str, int]]:
    """Paper 201 (one section, :data:`ENTRIES`) through ``parse_s2orc_record``: its contexts
    as ``(text, marker, cited corpus id, n_refs)`` and its drop counts."""
    record = s2orc_record(201, [(header, paragraphs)], ENTRIES)
    doc = parse_s2orc_record(record, Path("s2orc.jsonl"), 1)
    return {(c.text, c.citation_text, int(c.target), c.n_refs) for c in doc.contexts}, doc.dropped


KEPT = {
    ("Zorbic lattices fold under pressure <REF>.", "[1]", 202, 1),
    ("Later work extended them <REF>.", "(Blip et al., 2018)", 205, 1),
    ("<REF> showed it first.", "Smith and Lee (2019a)", 203, 1),
    ("2019 saw the first glorp survey <REF>.", "[3]", 204, 1),
    ("Glorps differ [3,4] from zorbs <REF>.", "[2]", 203, 2),
}


@pytest.mark.parametrize(
    ("marker", "style"),
    [
        ("[12]", "numeric"),
        ("[8,", "numeric"),  # S2ORC splits "[8, 9]" into "[8," and "9]"
        ("43]", "numeric"),
        ("(9)", "numeric"),
        ("12", "numeric"),  # a flattened superscript
        ("[2019]", "numeric"),
        ("[HZRS16]", "alpha-label"),
        ("(2019)", "year"),
        ("2019a", "year"),
        ("(Smith et al., 2019)", "author-year"),
        ("(Smith and Lee 2019a, 296)", "author-year"),
        ("(Bryman 2001;", "author-year"),
        ("Henneman et al. , 2006", "author-year"),
        ("(O'Brien & Müller, n.d.)", "author-year"),
        ("(Zorb et al., In press)", "author-year"),
        ("International Organization for Standardization (ISO) 1999;", "author-year"),
        ("Smith et al. (2019)", "narrative"),
        ("Smith and Lee (2019a)", "narrative"),
        ("Folch-Lyon et al. (1981)", "narrative"),
        ("[12a]", "numeric"),  # sub-numbered reference
        ("12b]", "numeric"),
        # page numbers in 1600-2099 after an explicit locator are no second year
        ("(Smith 2019, pp. 1998-2005)", "author-year"),
        ("(Smith 2019, p. 1776)", "author-year"),
        ("(Smith 2019: 1998)", "author-year"),
        # locators other than pages
        ("(Smith, 2019, chap. 3)", "author-year"),
        ("(Smith, 2019, ch. 3)", "author-year"),
        ("(Smith 2019, sec. 2)", "author-year"),
        ("(Smith et al., 2019, Table 2)", "author-year"),
        ("(Smith et al., 2019, Fig. 1)", "author-year"),
        ("Smith (2019, p. 3)", "narrative"),
        # a bracketed abbreviation in a group author (APA)
        ("(World Health Organization [WHO], 2019)", "author-year"),
        ("World Health Organization [WHO] (2019)", "narrative"),
    ],
)
def test_citation_style_names_one_citation(marker: str, style: str) -> None:
    assert citation_style(marker) == style


@pytest.mark.parametrize(
    "marker",
    [
        "[3,4]",
        "[3, 4]",
        "[3-5]",
        "[HZRS16, KW17]",
        "(Smith, 2019; Lee, 2020)",
        "Smith et al. (2019); Lee (2020)",
        "(Smith 2019 and Lee 2020)",
        "Smith 2019, 2020",
        "(van Zorb et al. 2010a,b)",
        "(de Glorp et al. 2008a, b;",
        "(Parliamentary papers -1988a",  # tail of a year range
        "-1990a",
        "Smith et al.",
        "(41 SNPs)",
        "Fig. 1)",
        "[tw]",
        "()",
        "[12ab]",
        "(Smith 2019, 2020)",  # a bare number after the comma in year range: a second year
        "(Smith 2019, 1998-2005)",
        "(Smith 2019, chap. 3, 2020)",
        "(Smith, 2019, Table)",
        "(Smith [x], 2019)",
        "(World Health Organization [WHO], 2019; Lee, 2020)",
    ],
)
def test_citation_style_rejects_merged_or_unparsable(marker: str) -> None:
    assert citation_style(marker) is None


@pytest.mark.parametrize(
    "sentence",
    [
        "2 The Netherlands is a fine case study [3].",  # mark after the previous full stop
        "3 By introducing this, a standard develops [4].",
        "12 We thank the zorb council.",
        "1 https://github.com/zorb/glorp holds the code.",
        "1https://zorb.example.org/data.",
        "²This work was funded by [2].",
        "¹ The code is public [2].",
        "1This work was supported by [1].",
        "*Corresponding author: zorb@example.org.",
        "† Equal contribution [1].",
        "‡ https://zorb.example.org.",
        "2 In this section we follow [3].",
        "2In this section we follow [3].",
        "4 As shown in [2], zorbs fold.",
        "3 No code was released [1].",
        "7 Of these, two fold [2].",
        "3 Results are averaged over five runs [4].",  # footnote text, not a heading
    ],
)
def test_footnote_starts_are_recognised(sentence: str) -> None:
    assert starts_with_footnote(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "2019 saw the first glorp survey [3].",
        "48,505 SNPs passed quality control [3].",
        "1.7 million zorbs were counted [2].",
        "10 participants were excluded [4].",
        "7 in [3] is proved differently.",
        "3D models are used [2].",
        "¹H NMR spectra were recorded as in [3].",
        "4He nuclei decay slowly [2].",
        "2Fe-2S clusters bind iron [4].",
        "15 March 2020 was the cut-off [1].",
        "10 Mbps links suffice [3].",
        "5 Hz stimulation was applied [2].",
        "100 The end.",
        "2) The room segmentation module [2].",
        "1: Filter nodes as in [1].",
        "§3 describes the method of [2].",
        "§IV describes the method of [2].",
        "* p < 0.05.",
        "The zorb fold [1].",
        "75As NMR spectra were recorded as in [2].",  # arsenic-75, not "As"
        "24 Hours later the zorbs folded [2].",
        "5 Million people were sampled [3].",
        "10 Percent of glorps fold [2].",
        "3 Results We found that zorbs fold [4].",  # a numbered heading merged into the text
        "3 Related Work Glorps were studied in [2].",
    ],
)
def test_prose_starting_with_a_number_is_kept(sentence: str) -> None:
    assert not starts_with_footnote(sentence)


def test_parse_s2orc_record_drops_and_counts() -> None:
    got, dropped = parse_paper_201("Introduction", PARAGRAPHS)
    assert got == KEPT
    # the unlinked merged span yields no context, so nothing is counted for it
    assert dropped == {DROP_FOOTNOTE: 2, DROP_STYLE: 3}


def test_style_check_is_opt_in_and_footnotes_always_apply() -> None:
    text = "Glorps merge (Ann 2001; Bo 2002). 2 The zorb folds [1]."
    merged = Marker(text.index("("), text.index(")") + 1, "x")
    numeric = Marker(text.index("[1]"), text.index("[1]") + 3, "y")
    drops: list[str] = []
    got = list(extract_contexts(text, [(0, len(text))], [merged, numeric], on_drop=drops.append))
    assert [(c.text, c.target) for c in got] == [("Glorps merge <REF>.", "x")]
    assert drops == [DROP_FOOTNOTE]
    drops.clear()
    got = list(
        extract_contexts(
            text, [(0, len(text))], [merged, numeric], check_style=True, on_drop=drops.append
        )
    )
    assert got == [] and sorted(drops) == sorted([DROP_FOOTNOTE, DROP_STYLE])


def test_load_s2orc_counts_drops_and_keeps_them_out_of_the_graph(
    graph: FalkorDBStore, tmp_path: Path
) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        "".join(json.dumps({"corpusid": c, "title": f"Zorb {c}"}) + "\n" for c in range(201, 206))
    )
    s2orc = tmp_path / "s2orc.jsonl"
    s2orc.write_text(json.dumps(s2orc_record(201, [("Introduction", PARAGRAPHS)], ENTRIES)) + "\n")
    out = " ".join(cli_ok(["load", "s2", "--papers", str(papers), "--s2orc", str(s2orc)]).split())
    assert f"2 s2orc {DROP_FOOTNOTE}" in out
    assert f"3 s2orc {DROP_STYLE}" in out
    rows = graph.run(
        "MATCH (c:CitationContext)-[:GOLD]->(g:Paper) "
        "RETURN c.text AS text, c.citation_text AS marker, g.corpus_id AS gold, c.n_refs AS n",
        {},
    )
    assert {(r["text"], r["marker"], r["gold"], r["n"]) for r in rows} == KEPT
    texts = " ".join(r["text"] for r in rows)
    for gone in ("tesselate", "funded", "merged before", "reported twice"):
        assert gone not in texts
    # CITES comes only from kept contexts: 202-205 are each cited by a kept sentence
    cited = graph.run("MATCH (:Paper {corpus_id: 201})-[:CITES]->(p) RETURN p.corpus_id AS c", {})
    assert sorted(r["c"] for r in cited) == [202, 203, 204, 205]


UNARXIVE_LINE: dict[str, Any] = {
    "paper_id": "2107.00003",
    "metadata": {
        "id": "2107.00003",
        "authors": "Ann Zorb, Bo\n  Glorp and Cy\n  Quux",
        "title": "Zorbic\n  waves",
        "categories": "gr-qc",
        "doi": None,
    },
    "discipline": "Physics",
    "abstract": {"section": "Abstract", "text": "Zorbs.", "cite_spans": [], "ref_spans": []},
    "body_text": [
        {
            "section": "Introduction",
            "sec_number": "1",
            "sec_type": "section",
            "content_type": "paragraph",
            "text": "Zorbic waves fold {{cite:k1}}. 3 The memory grows {{cite:k2}}. "
            "Glorps merge {{cite:k3}} and {{cite:k4}}.",
            "cite_spans": [],
            "ref_spans": [],
        }
    ],
    "bib_entries": {
        # matched arXiv id only in ids (contained_arXiv_ids empty), empty ids are ""
        "k1": {
            "bib_entry_raw": "A. Zorb, Zorbic lattices, 2021.",
            "contained_arXiv_ids": [],
            "contained_links": [],
            "discipline": "Physics",
            "ids": {
                "open_alex_id": "https://openalex.org/W1",
                "sem_open_alex_id": "https://semopenalex.org/work/W1",
                "pubmed_id": "",
                "pmc_id": "",
                "doi": "",
                "arxiv_id": "2101.00001",
            },
        },
        "k2": {
            "bib_entry_raw": "B. Glorp, Memory, 2020.",
            "contained_arXiv_ids": [],
            "contained_links": [],
            "discipline": "Physics",
            "ids": {"open_alex_id": "https://openalex.org/W2", "doi": "10.5555/zorb.2"},
        },
        # no matched ids, but a (URL-encoded) doi.org link in the reference
        "k3": {
            "bib_entry_raw": "C. Quux, Glorps, 2019, doi: 10.5555/zorb.3",
            "contained_arXiv_ids": [],
            "contained_links": [
                {"url": "http://dx.doi.org/10.5555%2FZORB.3", "text": "doi", "start": 0, "end": 3}
            ],
        },
        # two different DOI links: ambiguous, no id
        "k4": {
            "bib_entry_raw": "Two works.",
            "contained_arXiv_ids": [],
            "contained_links": [
                {"url": "https://doi.org/10.5555/zorb.4", "text": "a", "start": 0, "end": 1},
                {"url": "https://doi.org/10.5555/zorb.5", "text": "b", "start": 2, "end": 3},
            ],
        },
    },
    "ref_entries": {},
}


def test_unarxive_ids_and_links() -> None:
    entries = UNARXIVE_LINE["bib_entries"]
    assert cited_paper_id(entries["k1"]) == ("arxiv:2101.00001", {"arxiv_id": "2101.00001"})
    assert cited_paper_id(entries["k3"]) == ("doi:10.5555/zorb.3", {"doi": "10.5555/zorb.3"})
    assert cited_paper_id(entries["k4"]) == (None, {})


def test_load_unarxive_footnote_drop_ids_and_authors(graph: FalkorDBStore, tmp_path: Path) -> None:
    path = tmp_path / "unarxive.jsonl"
    path.write_text(json.dumps(UNARXIVE_LINE) + "\n")
    out = " ".join(cli_ok(["load", "unarxive", str(path)]).split())
    assert f"1 unarxive {DROP_FOOTNOTE}" in out
    assert DROP_STYLE not in out  # {{cite:…}} markers are not style-checked
    rows = graph.run(
        "MATCH (c:CitationContext)-[:GOLD]->(g:Paper) "
        "RETURN c.text AS text, g.id AS gold, c.n_refs AS n ORDER BY text",
        {},
    )
    assert rows == [
        {"text": "Glorps merge <REF> and [CIT].", "gold": "doi:10.5555/zorb.3", "n": 2},
        {"text": "Zorbic waves fold <REF>.", "gold": "arxiv:2101.00001", "n": 1},
    ]
    names = graph.run(
        "MATCH (:Paper {id: 'arxiv:2107.00003'})-[r:AUTHORED_BY]->(a:Author) "
        "RETURN a.name AS name ORDER BY r.position",
        {},
    )
    assert [r["name"] for r in names] == ["Ann Zorb", "Bo Glorp", "Cy Quux"]


# Nature / biomedical superscript style: the PDF parser flattens "previously.¹²" into
# "previously. 12" and S2ORC's bibref span covers the "12"
SUPERSCRIPT_PARAGRAPHS = [
    "Zorb folding was shown previously. <<b0|12>> These effects were measured again <<b1|13>>. "
    "Glorps tesselate as well. <<b2|14>> <<b3|15>> Blips do not <<b1|13>>.",
    "Quux lattices were mapped twice. <<b2|14>>,<<b3|15>>",
]
SUPERSCRIPT_KEPT = {
    ("Zorb folding was shown previously. <REF>", "12", 202, 1),
    ("These effects were measured again <REF>.", "13", 203, 1),
    ("Glorps tesselate as well. <REF> 15", "14", 204, 2),
    ("Glorps tesselate as well. 14 <REF>", "15", 205, 2),
    ("Blips do not <REF>.", "13", 203, 1),
    ("Quux lattices were mapped twice. <REF>,15", "14", 204, 2),
    ("Quux lattices were mapped twice. 14,<REF>", "15", 205, 2),
}


def test_superscript_markers_after_a_full_stop_stay_with_their_sentence() -> None:
    got, dropped = parse_paper_201("Results", SUPERSCRIPT_PARAGRAPHS)
    assert got == SUPERSCRIPT_KEPT
    assert not any(text.replace(REF, "").strip(" ,.0123456789") == "" for text, *_ in got)
    assert dropped == {}


def test_splitter_moves_only_bare_number_markers_back() -> None:
    # "[3] proposed …": a numeric marker in brackets is a narrative subject, not a superscript;
    # "4" and "²" are no markers here (footnote marks), so they open their sentences
    text = "Zorbs fold. [3] proposed glorps. 4 The blips differ. ¹² Quux. ²This work. ³⁴"
    markers = [(text.index("[3]"), text.index("[3]") + 3)]
    markers += [(text.index("¹²"), text.index("¹²") + 2), (text.index("³⁴"), len(text))]
    spans = split_sentences(text, 0, len(text), markers)
    assert [text[s:e] for s, e in spans] == [
        "Zorbs fold.",
        "[3] proposed glorps.",
        "4 The blips differ. ¹²",
        "Quux.",
        "²This work. ³⁴",
    ]


def test_footnote_rule_never_fires_on_a_marker_even_with_another_splitter() -> None:
    text = "Zorbs fold. 12 These glorps differ [3]."
    markers = [Marker(12, 14, "x"), Marker(text.index("[3]"), text.index("[3]") + 3, "y")]

    def naive(
        t: str, start: int, end: int, protected: Sequence[tuple[int, int]]
    ) -> list[tuple[int, int]]:
        return [(start, 11), (12, end)]  # cuts before the superscript marker

    drops: list[str] = []
    got = list(
        extract_contexts(text, [(0, len(text))], markers, splitter=naive, on_drop=drops.append)
    )
    assert [c.text for c in got] == [
        "<REF> These glorps differ [3].",
        "12 These glorps differ <REF>.",
    ]
    assert drops == []

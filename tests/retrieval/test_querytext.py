"""Citation-aware query text: each clean-up step on real-format citing sentences."""

from __future__ import annotations

import pytest

from scholarkg.benchmark.tasks.retrieval.querytext import (
    QUERY_MODES,
    citation_query,
    weigh_ref_window,
)

ACL = "Accent restoration <REF>, word sense disambiguation (Yarowsky, 2000), and others."
NARRATIVE = "The earliest efforts are those of Zhao and Vogel (2002) and <REF>."
ARXIV = (
    "Our proof of Theorem REF follows the approach of Kabluchko [3, 4] for [FORMULA] "
    "(as does Byun et al. [HZRS16]); see Table 2 and Section 3.1 of <REF>."
)


def test_ref_mode_drops_only_the_placeholders() -> None:
    assert citation_query(ACL, "ref") == (
        "Accent restoration, word sense disambiguation (Yarowsky, 2000), and others."
    )
    assert citation_query("See [CIT] and {{cite:ab12}} here", "ref") == "See and here"


def test_markers_mode_drops_every_other_citation() -> None:
    assert citation_query(ACL, "markers") == (
        "Accent restoration, word sense disambiguation, and others."
    )
    # a narrative citation goes with its names; a bare name without a year stays
    assert citation_query(NARRATIVE, "markers") == "The earliest efforts are those of and."
    assert citation_query("Pemantle and Rivin <REF> conjectured it", "markers") == (
        "Pemantle and Rivin conjectured it"
    )
    out = citation_query(ARXIV, "markers")
    assert "[3, 4]" not in out and "HZRS16" not in out and "Byun et al." in out
    assert "Theorem REF" in out and "[FORMULA]" in out  # boilerplate is the next step


def test_clean_mode_drops_cross_references_and_placeholders() -> None:
    out = citation_query(ARXIV, "clean")
    assert out == (
        "Our proof of follows the approach of Kabluchko for (as does Byun et al.); see and of."
    )
    # numbers that are not cross-references stay
    assert citation_query("We trained on 4,962 scenarios in 1999 data", "clean") == (
        "We trained on 4,962 scenarios in 1999 data"
    )


def test_text_without_citations_is_unchanged_in_every_mode() -> None:
    doris = "I need a method to clean noisy labels  before training a classifier."
    for mode in QUERY_MODES:
        assert citation_query(doris, mode).split() == doris.split()
    with pytest.raises(ValueError, match="unknown query mode"):
        citation_query(doris, "strip")


def test_ref_window_repeats_the_words_around_the_citation() -> None:
    text = "one two three four <REF> five six seven eight"
    assert weigh_ref_window(text, 2) == (
        "one two three four five six seven eight three four five six"
    )
    assert weigh_ref_window(text, 0) == citation_query(text)
    assert weigh_ref_window("no citation here", 3) == "no citation here"

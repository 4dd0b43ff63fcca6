"""Any id a user has for a work finds its Paper: DOI (bare, prefixed, URL), OpenAlex (id, URL),
arXiv, S2 corpus id, PubMed, an alias, the node id; a miss or an ambiguity says what it
tried. Both backends (the ``any_store`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.services.paper_lookup import candidate_keys, resolve_paper, resolve_papers


def _load(st: Any) -> None:
    st.apply_schema()
    st.merge_nodes(
        "Paper",
        [
            {"id": "arxiv:2401.00001", "title": "Graphs", "arxiv_id": "2401.00001",
             "doi": "10.1000/j1", "openalex_id": "W1", "pmid": "999", "mag_id": "111",
             "source": "openalex", "year": 2024},
            {"id": "s2:42", "title": "Corpus", "corpus_id": 42, "source": "s2"},
            {"id": "openalex:W9"},  # a reference known by its OpenAlex id only
            {"id": "doi:10.1000/x", "doi": "10.1000/x", "pmid": "777", "source": "crossref",
             "title": "Seven"},
            {"id": "s2:777", "corpus_id": 777, "title": "Also seven", "source": "s2"},
        ],
    )  # fmt: skip
    st.merge_nodes("PaperAlias", [{"id": "doi:10.1000/old"}])
    st.merge_relationships(
        "ALIAS_OF", "PaperAlias", "Paper", [{"start": "doi:10.1000/old", "end": "s2:42"}]
    )
    st.run("MATCH (p:Paper {id: 'openalex:W9'}) SET p:Stub")


@pytest.mark.parametrize(
    ("ref", "want"),
    [
        ("10.1000/J1", "arxiv:2401.00001"),
        ("doi:10.1000/j1", "arxiv:2401.00001"),
        ("https://doi.org/10.1000/j1", "arxiv:2401.00001"),
        ("W1", "arxiv:2401.00001"),
        ("https://openalex.org/W1", "arxiv:2401.00001"),
        ("openalex:W1", "arxiv:2401.00001"),
        ("arXiv:2401.00001v2", "arxiv:2401.00001"),
        ("https://arxiv.org/abs/2401.00001", "arxiv:2401.00001"),
        ("pmid:999", "arxiv:2401.00001"),
        ("s2:42", "s2:42"),
        ("CorpusId:42", "s2:42"),
        ("doi:10.1000/old", "s2:42"),  # an alias identity resolution kept
        ("W9", "openalex:W9"),
        ("arxiv:2401.00001", "arxiv:2401.00001"),  # the node id
    ],
)
def test_any_id_finds_the_paper(any_store: Any, ref: str, want: str) -> None:
    _load(any_store)
    assert resolve_paper(any_store, ref).id == want


def test_a_stub_is_flagged_and_misses_and_ambiguities_say_why(any_store: Any) -> None:
    _load(any_store)
    assert resolve_paper(any_store, "W9").stub
    assert not resolve_paper(any_store, "W1").stub
    with pytest.raises(InputError, match=r"no Paper in this graph has the id '10.9/none'"):
        resolve_paper(any_store, "10.9/none")
    # 777 is a PubMed id of one Paper and the corpus id of another
    with pytest.raises(InputError, match=r"names 2 Papers: doi:10.1000/x \(by pmid\), s2:777"):
        resolve_paper(any_store, "777")
    found = resolve_papers(any_store, ["W1", "nope", "s2:42"])
    assert [p.id for p in found["W1"]] == ["arxiv:2401.00001"] and found["nope"] == []


def test_candidate_keys_of_each_form() -> None:
    assert "doi:10.1/x" in candidate_keys("https://dx.doi.org/10.1/X").keys
    assert candidate_keys("W12").values["openalex"] == {"W12"}
    assert candidate_keys("A12").values["openalex"] == set()  # an author, not a work
    assert candidate_keys("12").values["corpus"] == {12}
    assert candidate_keys("12").values["pmid"] == {"12"}
    sha = "a" * 40
    assert candidate_keys(f"https://www.semanticscholar.org/paper/Title-x/{sha}").values[
        "s2paper"
    ] == {sha}

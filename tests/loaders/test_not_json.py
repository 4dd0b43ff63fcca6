"""A file meant to be JSON that starts with ``<`` (XML, HTML) is refused by name: what the
loader reads, and what the file looks like.

Found by a user: ``load arxiv file.xml`` on arXiv's OAI-PMH XML said ``line 1: invalid JSON
… Expecting value at column 1``. The same check runs for Crossref, OpenAlex and Semantic
Scholar files. The files here are made up, in the shape of an OAI-PMH answer and of a
saved error page.
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders import arxiv, crossref, openalex
from scholarkg.loaders.citerec_s2 import dataset_readers
from scholarkg.loaders.tolerant import SkipReport

OAI_PMH = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/">\n'
    "<responseDate>2024-01-01T00:00:00Z</responseDate>\n<ListRecords/>\n</OAI-PMH>\n"
)
ERROR_PAGE = "<!DOCTYPE html>\n<html><body><h1>503 Service Unavailable</h1></body></html>\n"


def _s2_papers(path: Path) -> Iterable[Any]:
    read = dict(dataset_readers(SkipReport(), lookup=None))["papers"]
    return read(path)


def _openalex_in_workers(path: Path) -> Iterable[Any]:
    with openalex.WorkParser(1) as parser:
        return list(openalex.read_works(path, parser=parser))


READERS: dict[str, tuple[Callable[[Path], Iterable[Any]], str]] = {
    "arxiv": (arxiv.read_snapshot, "`load arxiv` reads arXiv's JSON metadata snapshot"),
    "crossref": (crossref.read_works, "`load crossref` reads Crossref's REST API JSON"),
    "openalex": (openalex.read_works, "`load openalex` reads OpenAlex works as JSON"),
    "openalex workers": (_openalex_in_workers, "`load openalex` reads OpenAlex works"),
    "s2": (_s2_papers, "`load s2` reads Semantic Scholar's dataset files"),
}


@pytest.mark.parametrize("loader", sorted(READERS))
@pytest.mark.parametrize("name", ["records.xml", "records.jsonl", "records.json.gz"])
def test_an_oai_pmh_answer_is_named_as_xml_with_what_the_loader_reads(
    tmp_path: Path, loader: str, name: str
) -> None:
    path = tmp_path / name
    data = OAI_PMH.encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    read, reads = READERS[loader]
    with pytest.raises(InputError) as err:
        list(read(path))
    assert (err.value.path, err.value.line) == (str(path), 1)
    assert err.value.message.startswith(
        "this file starts with '<': it looks like XML from an OAI-PMH interface, not JSON. " + reads
    )


def test_an_html_page_after_a_bom_and_blank_lines_is_named_at_its_first_line(
    tmp_path: Path,
) -> None:
    path = tmp_path / "works.json"
    path.write_bytes(b"\xef\xbb\xbf\n  \n" + ERROR_PAGE.encode())
    with pytest.raises(InputError) as err:
        list(crossref.read_works(path))
    assert err.value.line == 3
    assert "it looks like an HTML page (an error page saved in place of the data?)" in str(
        err.value
    )


def test_load_arxiv_on_oai_pmh_xml_says_what_it_reads(graph_env: str, tmp_path: Path) -> None:
    path = tmp_path / "arxiv.xml"
    path.write_text(OAI_PMH)
    result = runner.invoke(app, ["load", "arxiv", str(path)])
    assert result.exit_code != 0 and isinstance(result.exception, InputError), result.output
    message = str(result.exception)
    assert "invalid JSON" not in message
    assert "(arxiv-metadata-oai-snapshot.json, plain or .gz), not OAI-PMH XML" in message

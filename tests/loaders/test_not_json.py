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

from scholarkg import textio
from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders import (
    aaar,
    apc,
    arxiv,
    beir,
    citerec_unarxive,
    crossref,
    legobench_graph,
    metric_direction,
    openalex,
    pwc,
    scireplicate_data,
)
from scholarkg.loaders.citerec_s2 import dataset_readers
from scholarkg.loaders.dorismae import DorisReader
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


# -- every other JSON / JSON Lines reader: the check is in textio, not per loader ----------

#: each family reader that reads a JSON or JSON Lines file, on the file it is given; they said
#: "invalid JSON … column 1" (or, for the tolerant readers, skipped every line and said only
#: that nothing was stored) of an XML or HTML file
OTHER_READERS: dict[str, Callable[[Path], Iterable[Any]]] = {
    "apc papers.jsonl": apc.read_papers,
    "apc citations.jsonl": apc.read_citations,
    "pwc evaluation-tables.json": pwc.read_evaluation_tables,
    "legobench ground truth jsonl": legobench_graph.read_ground_truth,
    "beir corpus.jsonl (tolerant)": lambda p: beir.read_corpus(p, "c", SkipReport()),
    "unarxive jsonl (tolerant)": lambda p: citerec_unarxive.read_unarxive(p, SkipReport()),
    "aaar reviewcritique jsonl": aaar.iter_reviewcritique,
    "scireplicate Data.json": scireplicate_data.read_benchmark,
    "metric directions .json": metric_direction.load_overrides,
    "dorismae (streamed)": lambda p: DorisReader(p).records(),
    "textio.iter_jsonl": textio.iter_jsonl,
    "textio.load_json": lambda p: [textio.load_json(p)],
}


@pytest.mark.parametrize("reader", sorted(OTHER_READERS))
@pytest.mark.parametrize(
    ("text", "kind"),
    [(OAI_PMH, "XML from an OAI-PMH interface"), (ERROR_PAGE, "an HTML page")],
    ids=["oai-pmh", "html"],
)
def test_every_json_reader_names_an_xml_or_html_file(
    tmp_path: Path, reader: str, text: str, kind: str
) -> None:
    path = tmp_path / ("records.jsonl" if "jsonl" in reader else "records.json")
    path.write_text("\n" + text)
    with pytest.raises(InputError) as err:
        list(OTHER_READERS[reader](path))
    assert (err.value.path, err.value.line) == (str(path), 2)
    assert err.value.message.startswith(f"this file starts with '<': it looks like {kind}")
    assert "not JSON" in err.value.message


def test_a_json_lines_file_with_a_bad_line_after_good_ones_is_still_invalid_json(
    tmp_path: Path,
) -> None:
    """Only the file's start is taken for markup: a later line starting with '<' in a file
    of JSON lines is a broken line, said as before."""
    path = tmp_path / "papers.jsonl"
    path.write_text('{"id": "a", "title": "T"}\n<b>cut</b>\n')
    with pytest.raises(InputError) as err:
        list(textio.iter_jsonl(path))
    assert err.value.line == 2
    assert err.value.message.startswith("invalid JSON: Expecting value at column 1")


@pytest.mark.parametrize("command", ["apc", "bulk"])
def test_load_on_an_html_page_says_so(graph_env: str, tmp_path: Path, command: str) -> None:
    path = tmp_path / "papers.jsonl"
    path.write_text(ERROR_PAGE)
    result = runner.invoke(app, ["load", command, "--papers", str(path)])
    assert isinstance(result.exception, InputError), result.output
    message = str(result.exception)
    assert message.startswith(f"{path}:line 1: this file starts with '<': it looks like an HTML")
    assert "invalid JSON" not in message

"""Quoted fields in CSV/TSV edge lists: an unclosed quote is an error at the line where it
opens; quoted fields that span lines, properly closed, still load.

Found by a user: ``load apc --citations c.csv`` with an unterminated quote on one line read
every later line into that field (records lost, exit 0).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli import runner

from scholarkg.cli import app
from scholarkg.errors import InputError
from scholarkg.loaders.base import iter_delimited, iter_edges
from scholarkg.store.falkordb.store import FalkorDBStore

HEADER = "start,end,sentence\n"


def _write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("tail", ["c,d,fine\ne,f,also\n", "c,d,fine"])
def test_a_quote_never_closed_is_an_error_at_the_line_it_opens(tmp_path: Path, tail: str) -> None:
    path = _write(tmp_path / "c.csv", HEADER + 'x,y,ok\na,b,"open quote\n' + tail)
    read: list[tuple[int, dict[str, object]]] = []
    with pytest.raises(InputError) as err:
        read.extend(iter_edges(path))
    assert read == [(2, {"start": "x", "end": "y", "sentence": "ok"})]
    assert (err.value.path, err.value.line, err.value.field) == (str(path), 3, "sentence")
    assert "a quoted field opens on this line and is never closed" in err.value.message


def test_a_quote_closed_lines_later_amid_a_field_points_back_to_where_it_opened(
    tmp_path: Path,
) -> None:
    """The next quote in the file closes the field (``"q"`` two lines on): strict reading
    stops there, and the message names both lines."""
    path = _write(tmp_path / "c.csv", HEADER + 'a,b,"open\nc,d,fine\ne,f,"q"\n')
    with pytest.raises(InputError) as err:
        list(iter_edges(path))
    assert (err.value.line, err.value.field) == (2, "sentence")
    assert "is not closed before line 4" in err.value.message


def test_a_quote_swallowing_more_than_the_field_limit_points_back_too(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.tsv", 'start\tend\tsentence\na\tb\t"open\n' + "c\td\te\n" * 30_000)
    with pytest.raises(InputError) as err:
        list(iter_edges(path))
    assert (err.value.line, err.value.field) == (2, "sentence")
    assert "field larger than field limit" in err.value.message


def test_a_bad_quote_within_one_line_is_named_at_that_line(tmp_path: Path) -> None:
    """The csv reader's own line: ``DictReader.line_num`` still named the line before."""
    path = _write(tmp_path / "c.csv", HEADER + 'a,b,ok\nc,d,"x"y\n')
    with pytest.raises(InputError) as err:
        list(iter_delimited(path))
    assert err.value.line == 3 and "not a readable CSV/TSV line" in err.value.message


def test_closed_quoted_fields_spanning_lines_still_load(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "c.csv",
        HEADER + 'a,b,"two\r\nlines, ""quoted"""\r\nc,d,"one, with a comma"\n\ne,f,plain\n',
    )
    assert list(iter_edges(path)) == [
        (3, {"start": "a", "end": "b", "sentence": 'two\r\nlines, "quoted"'}),
        (4, {"start": "c", "end": "d", "sentence": "one, with a comma"}),
        (6, {"start": "e", "end": "f", "sentence": "plain"}),
    ]


def test_load_apc_stops_at_the_open_quote_and_keeps_the_citations_before(
    graph_env: str, store: FalkorDBStore, tmp_path: Path
) -> None:
    papers = tmp_path / "p.jsonl"
    papers.write_text(
        "".join(json.dumps({"id": f"2310.0000{i}", "title": f"T{i}"}) + "\n" for i in (1, 2, 3))
    )
    cites = _write(
        tmp_path / "c.csv",
        HEADER
        + '2310.00001,2310.00002,fine\n2310.00002,2310.00003,"open\n2310.00003,2310.00001,x\n',
    )
    result = runner.invoke(app, ["load", "apc", "--papers", str(papers), "--citations", str(cites)])
    assert result.exit_code != 0 and isinstance(result.exception, InputError), result.output
    assert str(result.exception).startswith(f"{cites}:line 3 (field 'sentence'): a quoted field")
    assert store.run("MATCH (:Paper)-[c:CITES]->(:Paper) RETURN count(c) AS n") == [{"n": 1}]


@pytest.mark.parametrize(
    "body,line,says",
    [
        ('start,end\na1,b1\na2,"b2\na3,b3\na4,b4\n', 3, "never closed"),
        ('start,end\na1,b1\na2,"b2\nx",y\na4,b4\n', 3, "spans lines"),
    ],
)
def test_the_bulk_edge_reader_refuses_an_unclosed_quote_too(
    tmp_path: Path, body: str, line: int, says: str
) -> None:
    """``load bulk --edges`` reads edge files its own way (Arrow, else line by line): both
    took the lines after an unclosed quote into one end id, and the build stored 1 of 3
    CITES with exit 0 (found by a review). Arrow's read gives way to the line reader, which
    names the line."""
    from scholarkg.store.bulk_files import Unsupported, raw_edge_rows, read_edge_endpoints

    path = tmp_path / "c.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(Unsupported):
        read_edge_endpoints(path, "csv")
    with pytest.raises(InputError, match=says) as err:
        list(raw_edge_rows(path, "csv"))
    assert err.value.line == line

"""The columnar (pyarrow) bulk reader builds exactly the graph the line reader builds, takes
the files it can, hands the others to the line reader, and keeps ``file:line`` errors.

Every test loads the same files twice into the session's real server — ``columnar=True``
and ``columnar=False`` (the line reader, the pre-issue-22 path) — and compares the graphs.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from scholarkg.errors import InputError
from scholarkg.store.bulk_files import EdgeSource, NodeSource
from scholarkg.store.falkordb import bulk
from scholarkg.store.falkordb.bulk import bulk_load
from scholarkg.store.falkordb.store import FalkorDBStore


def _jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _state(store: FalkorDBStore) -> tuple[list[Any], list[Any]]:
    nodes = store.run("MATCH (n) RETURN labels(n)[0] AS l, properties(n) AS p ORDER BY n.id")
    edges = store.run(
        "MATCH (a)-[r]->(b) RETURN a.id AS a, type(r) AS t, b.id AS b, properties(r) AS p "
        "ORDER BY a, t, b"
    )
    return [(r["l"], r["p"]) for r in nodes], [(r["a"], r["t"], r["b"], r["p"]) for r in edges]


def _both(
    store: FalkorDBStore, nodes: list[NodeSource], edges: list[EdgeSource], **kw: Any
) -> tuple[bulk.BulkResult, bulk.BulkResult]:
    fast = bulk_load(store, nodes, edges, apply_schema=False, **kw)
    fast_state = _state(store)
    store.clear()
    slow = bulk_load(store, nodes, edges, apply_schema=False, columnar=False, **kw)
    assert _state(store) == fast_state
    assert not slow.fast_files
    for field in ("nodes", "relationships", "skipped_relationships", "skipped_examples"):
        assert getattr(fast, field) == getattr(slow, field), field
    return fast, slow


# strings (unicode, quotes), integers incl. negative and 2**62, booleans, lists, explicit
# nulls, keys missing on some lines
PAPERS = [
    {"id": "p1", "title": 'Alpha "β" ünï', "year": 2001, "open": True, "tags": ["x", "y"]},
    {"id": "p2", "year": -5, "open": False, "skip": None},
    {"id": "3", "title": "", "year": 2**62, "tags": []},
    {"id": "p4", "n": 0},
]


def test_same_graph_as_the_line_reader(store: FalkorDBStore, tmp_path: Path) -> None:
    papers = _jsonl(tmp_path / "papers.jsonl", PAPERS)
    cites = tmp_path / "cites.csv"
    cites.write_text("start,end\np1,p2\np2,3\n 3 ,p1\np1,zz\nyy,p4\np1,p2\n", encoding="utf-8")
    fast, _ = _both(store, [NodeSource(papers)], [EdgeSource(cites)])
    assert fast.fast_files == [str(papers), str(cites)]
    assert (fast.nodes, fast.relationships, fast.skipped_relationships) == (4, 4, 2)
    assert fast.skipped_examples == [f"{cites}:5 (zz)", f"{cites}:6 (yy)"]


def test_an_arrow_node_file_loads_as_its_json_lines_do(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """Arrow's IPC file (what ``load openalex --bulk`` writes its Papers as) gives the graph
    the same rows give as JSON Lines; a column the encoder cannot take is refused by name
    (there is no line reader to fall back on)."""
    import pyarrow as pa
    import pyarrow.feather as feather
    import pyarrow.json as pajson

    as_json = _jsonl(tmp_path / "papers.jsonl", PAPERS)
    as_arrow = tmp_path / "papers.arrow"
    table = pajson.read_json(str(as_json))  # a column per key of any row, as Arrow infers it
    table = table.append_column("never", pa.nulls(len(PAPERS), pa.string()))
    feather.write_feather(table, str(as_arrow))
    bulk_load(store, [NodeSource(as_json)], [], apply_schema=False)
    from_json = _state(store)
    store.clear()
    for columnar in (True, False):
        result = bulk_load(store, [NodeSource(as_arrow)], [], apply_schema=False, columnar=columnar)
        assert _state(store) == from_json and result.fast_files == [str(as_arrow)]
        store.clear()
    floats = tmp_path / "floats.feather"
    feather.write_feather(pa.table({"id": ["a"], "score": [0.5]}), str(floats))
    with pytest.raises(InputError, match="column 'score' of type double") as err:
        bulk_load(store, [NodeSource(floats)], [], apply_schema=False)
    assert err.value.path == str(floats) and store.counts().total_nodes == 0
    cut = tmp_path / "cut.arrow"  # a file cut short in a copy: no footer
    cut.write_bytes(as_arrow.read_bytes()[:200])
    with pytest.raises(InputError, match="not a readable Arrow IPC file") as err:
        bulk_load(store, [NodeSource(cut)], [], apply_schema=False)
    assert err.value.path == str(cut) and store.counts().total_nodes == 0


def test_gzip_tsv_jsonl_edges_and_two_labels(store: FalkorDBStore, tmp_path: Path) -> None:
    papers = tmp_path / "papers.jsonl.gz"
    with gzip.open(papers, "wt", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in PAPERS))
    # integer ids (stored as strings, as the line reader stores them)
    authors = _jsonl(tmp_path / "authors.jsonl", [{"id": 10, "name": "Ann"}, {"id": 11}])
    tsv = tmp_path / "wrote.tsv"
    tsv.write_text("END\tStart\np1\t10\n3\t11\nnope\t10\n\np2\t10\n", encoding="utf-8")
    cites = _jsonl(tmp_path / "c.jsonl", [{"start": "p1", "end": "3"}, {"start": "3", "end": "p2"}])
    fast, _ = _both(
        store,
        [NodeSource(papers), NodeSource(authors, label="Author")],
        [
            EdgeSource(tsv, rel_type="AUTHORED_BY", start_label="Author", end_label="Paper"),
            EdgeSource(cites),
        ],
    )
    assert len(fast.fast_files) == 4
    # the blank line shifts line numbers: found line by line, as the line reader says
    assert fast.skipped_examples == [f"{tsv}:4 (nope)"]


def test_dates_stay_strings_and_jsonl_edge_properties(store: FalkorDBStore, tmp_path: Path) -> None:
    """S2's layout: ``publicationdate`` strings (Arrow would make them timestamps) and
    AUTHORED_BY edges with a ``position`` property, as ``load s2 --bulk`` writes them."""
    papers = _jsonl(
        tmp_path / "papers.jsonl",
        [
            {"id": "s2:1", "date": "2019-05-01", "year": 2019},
            {"id": "s2:2", "date": "2020-11-30T08:00:00", "year": 2020},
            {"id": "s2:3", "year": 2021},
        ],
    )
    authors = _jsonl(tmp_path / "authors.jsonl", [{"id": "a1", "name": "Ann"}, {"id": "a2"}])
    wrote = _jsonl(
        tmp_path / "wrote.jsonl",
        [
            {"start": "s2:1", "end": "a1", "position": 0, "note": "x"},
            {"start": "s2:1", "end": "a2", "position": 1, "note": None},
            {"start": "s2:9", "end": "a2", "position": 2, "note": "gone"},
            {"start": "s2:3", "end": "a1", "position": 0, "note": "y"},
        ],
    )
    edges = [EdgeSource(wrote, rel_type="AUTHORED_BY", start_label="Paper", end_label="Author")]
    fast, _ = _both(store, [NodeSource(papers), NodeSource(authors, label="Author")], edges)
    assert len(fast.fast_files) == 3 and fast.skipped_examples == [f"{wrote}:3 (s2:9)"]


def test_an_edge_property_missing_on_the_first_edge_loads_the_same_both_ways(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """A key first met on a later edge (an OpenAlex authorship with institutions after one
    without) was an error on both paths; now each edge gets the properties it states, the
    columnar reader's nulls and the line reader's widened tokens alike."""
    papers = _jsonl(tmp_path / "papers.jsonl", [{"id": "a"}, {"id": "b"}, {"id": "c"}])
    cites = _jsonl(
        tmp_path / "cites.jsonl",
        [{"start": "a", "end": "b"}, {"start": "b", "end": "a", "w": 2},
         {"start": "c", "end": "a", "w": 3, "note": "x"}, {"start": "a", "end": "c"}],
    )  # fmt: skip
    store.apply_schema()
    fast, _ = _both(store, [NodeSource(papers)], [EdgeSource(cites)])
    assert fast.relationships == 4
    rows = store.run(
        "MATCH (s)-[r]->(e) RETURN s.id AS s, e.id AS e, r.w AS w, r.note AS note ORDER BY s, e"
    )
    assert rows == [
        {"s": "a", "e": "b", "w": None, "note": None},
        {"s": "a", "e": "c", "w": None, "note": None},
        {"s": "b", "e": "a", "w": 2, "note": None},
        {"s": "c", "e": "a", "w": 3, "note": "x"},
    ]


@pytest.mark.parametrize(
    ("rows", "why"),
    [
        ([{"id": "a", "x": 1}, {"id": "b", "x": 2.5}], "a fraction widens the column"),
        ([{"id": "a", "m": {"k": 1}}, {"id": "b", "m": {"j": 2}}], "nested objects"),
        ([{"id": "a", "x": 1}, {"id": "b", "x": "one"}], "mixed types"),
        ([{"id": "a", "x": ["ok", "nul\u0000"]}], "a list of strings that needs cleaning"),
    ],
)
def test_files_the_fast_reader_cannot_reproduce_go_line_by_line(
    store: FalkorDBStore, tmp_path: Path, rows: list[dict[str, Any]], why: str
) -> None:
    papers = _jsonl(tmp_path / "papers.jsonl", rows)
    cites = tmp_path / "cites.csv"
    cites.write_text("start,end\na,a\n", encoding="utf-8")
    fast, _ = _both(store, [NodeSource(papers)], [EdgeSource(cites)])
    assert fast.line_files == [str(papers)], why
    assert fast.fast_files == [str(cites)]


@pytest.mark.parametrize(
    ("node_lines", "edge_text", "where"),
    [
        (['{"id": "a"}', '{"id": "b"}', '{"id": "a"}'], "start,end\n", ("nodes", 3, "id")),
        (['{"id": "a"}', "{not json", '{"id": "c"}'], "start,end\n", ("nodes", 2, None)),
        (['{"id": "a"}', '{"title": "no id"}'], "start,end\n", ("nodes", 2, "id")),
        (['{"id": "a"}', '{"id": "b"}'], "start,end\na,b\nb,a,extra\n", ("edges", 3, None)),
        (['{"id": "a"}', '{"id": "b"}'], "start,end\na,b\n,b\n", ("edges", 3, "start")),
    ],
)
def test_bad_lines_keep_file_and_line(
    store: FalkorDBStore,
    tmp_path: Path,
    node_lines: list[str],
    edge_text: str,
    where: tuple[str, int | None, str | None],
) -> None:
    papers = tmp_path / "papers.jsonl"
    papers.write_text("\n".join(node_lines) + "\n", encoding="utf-8")
    cites = tmp_path / "cites.csv"
    cites.write_text(edge_text, encoding="utf-8")
    errors = []
    for columnar in (True, False):
        with pytest.raises(InputError) as err:
            bulk_load(store, [NodeSource(papers)], [EdgeSource(cites)], columnar=columnar)
        errors.append((err.value.path, err.value.line, err.value.field, err.value.message))
        assert store.counts().total_nodes == 0
    assert errors[0] == errors[1]
    path = papers if where[0] == "nodes" else cites
    assert errors[0][:3] == (str(path), where[1], where[2])


def test_a_bad_line_after_sending_began_removes_the_partial_graph(
    store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Parsing overlaps sending: with tiny commands the nodes are on the server before the
    bad edge line is read. The load must leave no graph (and no incomplete marker)."""
    monkeypatch.setattr(bulk, "STREAM_COMMAND_BYTES", 1)
    monkeypatch.setattr(bulk, "NODES_PER_TOKEN", 10)
    papers = _jsonl(tmp_path / "papers.jsonl", [{"id": f"p{i}"} for i in range(100)])
    cites = tmp_path / "cites.csv"
    cites.write_text("start,end\np1,p2\np3,unknown\n", encoding="utf-8")
    sent: list[str] = []
    with pytest.raises(InputError) as err:
        bulk_load(
            store,
            [NodeSource(papers)],
            [EdgeSource(cites)],
            strict_edges=True,
            progress=lambda stage, n: sent.append(stage),
        )
    assert (err.value.path, err.value.line, err.value.field) == (str(cites), 3, "end")
    assert "send nodes" in sent  # the bad line really came after the first command
    assert store.counts().total_nodes == 0
    store.check_complete()  # no "incomplete" marker left behind


def test_pipelined_load_of_many_commands(
    store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Many small commands through the parser thread: ids stay aligned across commands."""
    monkeypatch.setattr(bulk, "STREAM_COMMAND_BYTES", 200)
    monkeypatch.setattr(bulk, "NODES_PER_TOKEN", 7)
    monkeypatch.setattr(bulk, "EDGES_PER_TOKEN", 5)
    monkeypatch.setattr(bulk, "LOOKUP_CHUNK", 4)  # endpoints looked up 4 edges at a time
    papers = _jsonl(tmp_path / "papers.jsonl", [{"id": f"p{i}", "i": i} for i in range(60)])
    cites = tmp_path / "cites.csv"
    lines = [f"p{i},p{(i * 7) % 60}\n" for i in range(60)]
    for k, row in enumerate(["x1,p1\n", "p2,x2\n", "x3,x4\n", "p5,x5\n", "x6,p6\n", "x7,p7\n"]):
        lines.insert(3 + 9 * k, row)  # unknown endpoints spread over several chunks
    cites.write_text("start,end\n" + "".join(lines), encoding="utf-8")
    fast, _ = _both(store, [NodeSource(papers)], [EdgeSource(cites)])
    assert fast.skipped_relationships == 6
    assert [e.rsplit(" ", 1)[1] for e in fast.skipped_examples] == [
        "(x1)",
        "(x2)",
        "(x3)",
        "(x5)",
        "(x6)",
    ]
    rows = store.run("MATCH (a:Paper)-[:CITES]->(b:Paper) RETURN a.i AS a, b.i AS b")
    assert sorted((r["a"], r["b"]) for r in rows) == sorted((i, (i * 7) % 60) for i in range(60))


# -- text defects: cleaned as the record layer cleans them ------------------------------

DIRTY = [
    {"id": "p\u00001", "title": "NUL\u0000 in a PDF extraction", "note": "bell\u0007"},
    {"id": "p2", "title": "line one\r\nline two\rthree", "note": "\ufeffbom first"},
    {"id": "p3", "title": "clean", "note": "tab\tand newline\n stay"},
]


def test_text_defects_are_cleaned_on_both_readers_as_records_clean_them(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """NUL (ReviewCritique's ``body_text``), other controls, CR/CRLF, BOMs: the columnar
    reader cleans them with Arrow kernels and keeps the file; both readers store what
    ``schema.text.clean_text`` gives and count it in the same words; the cleaned id joins
    its edge."""
    from scholarkg.schema.text import clean_text

    papers = _jsonl(tmp_path / "papers.jsonl", DIRTY)
    cites = tmp_path / "cites.csv"
    cites.write_text("start,end\np1,p2\np3,p2\n", encoding="utf-8")
    fast, slow = _both(store, [NodeSource(papers)], [EdgeSource(cites)])
    assert fast.fast_files == [str(papers), str(cites)]
    assert fast.cleaned == slow.cleaned
    assert "Paper.title: NUL character(s) removed in 1 value(s)" in fast.cleaned
    assert "Paper.title: CR/CRLF line ends made LF in 1 value(s)" in fast.cleaned
    assert "Paper.note: byte-order mark(s) removed in 1 value(s)" in fast.cleaned
    assert "Paper.note: control character(s) removed in 1 value(s)" in fast.cleaned
    assert "Paper.id: NUL character(s) removed in 1 value(s)" in fast.cleaned
    stored = {r["id"]: r for r in store.run("MATCH (p:Paper) RETURN p.id AS id, p.title AS "
                                            "title, p.note AS note")}  # fmt: skip
    for row in DIRTY:
        key = clean_text(row["id"])[0]
        assert stored[key]["title"] == clean_text(row["title"])[0]
        assert stored[key]["note"] == clean_text(row["note"])[0]
    assert store.run("MATCH (:Paper {id: 'p1'})-[:CITES]->(b) RETURN b.id AS b") == [{"b": "p2"}]


def test_defects_only_the_line_reader_meets_are_cleaned_or_refused_with_file_line_field(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    """Bare NaN (Arrow cannot read it), lone surrogates, strings in lists and in edge
    endpoints/properties: cleaned by the record layer's rules; a NaN id and an over-long
    field are refused naming file, line and field, with no graph left behind."""
    papers = tmp_path / "papers.jsonl"
    papers.write_text(
        '{"id": "a", "score": NaN, "tags": ["x\\u0000y"], "t": "half \\ud83d"}\n'
        '{"id": "b\\u0001", "score": 1.5}\n',
        encoding="utf-8",
    )
    cites = _jsonl(tmp_path / "cites.jsonl", [{"start": "a", "end": "b\u0001", "why": "s\u0000"}])
    result = bulk_load(store, [NodeSource(papers)], [EdgeSource(cites)], apply_schema=False)
    assert result.line_files == [str(papers), str(cites)]
    rows = store.run("MATCH (a:Paper)-[r:CITES]->(b) RETURN a.score AS s, a.tags AS tags, "
                     "a.t AS t, b.id AS b, r.why AS why")  # fmt: skip
    assert rows == [{"s": None, "tags": ["xy"], "t": "half \ufffd", "b": "b", "why": "s"}]
    assert "Paper.score: nan stored as missing in 1 value(s)" in result.cleaned
    assert "CITES.why: NUL character(s) removed in 1 value(s)" in result.cleaned
    store.clear()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a"}\n{"id": NaN}\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        bulk_load(store, [NodeSource(bad)], [], apply_schema=False)
    assert (err.value.path, err.value.line, err.value.field) == (str(bad), 2, "id")
    assert store.counts().total_nodes == 0


def test_arrow_cleaner_matches_the_record_layer_character_for_character() -> None:
    """``bulk_arrow``'s RE2 classes and replacement order against ``schema.text``: every
    C0 control, DEL, BOM and their pairs, in every position, give the same text and counts."""
    import pyarrow as pa

    from scholarkg.schema.text import clean_mapping, collect_cleaning
    from scholarkg.store.bulk_files import clean_string_columns

    specials = [chr(c) for c in range(0x20)] + ["\x7f", "\ufeff", "\r\n", "é"]
    values = [f"{a}x{b}" for a in specials for b in specials] + ["plain", ""]
    table, cleaned = clean_string_columns(pa.table({"v": values}))
    with collect_cleaning() as counts:
        expect = [clean_mapping({"v": v}, label="L")["v"] for v in values]
    assert table.column("v").to_pylist() == expect
    assert {(f, w): n for f, w, n in cleaned} == {(f, w): n for (_, f, w), n in counts.items()}


@pytest.mark.parametrize("columnar", [True, False])
def test_ids_with_surrounding_whitespace_are_stripped_before_the_unique_key(
    store: FalkorDBStore, tmp_path: Path, columnar: bool
) -> None:
    """A fuzzed id ``"\\r\\np3"`` (cleaned to ``"\\np3"``) crashed FalkorDB when the schema's
    unique key was created over it, and the append-only file replayed the crash at every
    start. Ids are stripped (counted) on both readers; JSONL endpoints too."""
    papers = _jsonl(tmp_path / "papers.jsonl", [{"id": " p1"}, {"id": "\r\np2"}, {"id": "p3\t"}])
    cites = _jsonl(tmp_path / "cites.jsonl", [{"start": "p1 ", "end": " p2"}])
    result = bulk_load(store, [NodeSource(papers)], [EdgeSource(cites)], columnar=columnar)
    assert "Paper.id: surrounding whitespace stripped from the key in 3 value(s)" in result.cleaned
    assert sorted(r["id"] for r in store.run("MATCH (p:Paper) RETURN p.id AS id")) == [
        "p1",
        "p2",
        "p3",
    ]
    assert store.run("MATCH (:Paper {id: 'p1'})-[:CITES]->(b) RETURN b.id AS b") == [{"b": "p2"}]
    assert store.run("RETURN 1 AS one") == [{"one": 1}]  # the server is still up


@pytest.mark.parametrize("columnar", [True, False])
def test_an_id_over_the_key_limit_is_refused_by_both_readers_and_arrow_files(
    store: FalkorDBStore, tmp_path: Path, columnar: bool
) -> None:
    """An id over 4,096 UTF-8 bytes killed the server in its unique-constraint check: JSON
    Lines name its line on either reader, an Arrow file (no lines) its record; nothing is
    sent and the server stays up."""
    import pyarrow as pa
    import pyarrow.feather as feather

    long_id = "é" * 2048 + "x"  # 4,097 bytes, 2,049 characters
    papers = _jsonl(tmp_path / "papers.jsonl", [{"id": "p1"}, {"id": "p2"}, {"id": long_id}])
    with pytest.raises(InputError, match="4,097 bytes long") as err:
        bulk_load(store, [NodeSource(papers)], [], columnar=columnar)
    assert (err.value.path, err.value.line, err.value.field) == (str(papers), 3, "id")
    as_arrow = tmp_path / "papers.arrow"
    feather.write_feather(pa.table({"id": ["p1", long_id]}), str(as_arrow))
    with pytest.raises(InputError, match="4,097 bytes long") as err:
        bulk_load(store, [NodeSource(as_arrow)], [], columnar=columnar)
    assert str(err.value).startswith(f"{as_arrow}:record 2 (field 'id')")
    assert store.counts().total_nodes == 0
    assert store.run("RETURN 1 AS one") == [{"one": 1}]  # the server is still up


def test_the_byte_precheck_never_misses_what_the_cleaner_would_change() -> None:
    """``_may_need_cleaning`` (numpy over the data buffers) must say "maybe" for every value
    ``clean_text`` changes — each C0 control, DEL, a BOM anywhere, CRLF — column by column."""
    import pyarrow as pa

    from scholarkg.schema.text import clean_text
    from scholarkg.store.bulk_files import _may_need_cleaning

    specials = [chr(c) for c in range(0x20)] + ["\x7f", "\ufeff", "\r\n", "é", "\u2028"]
    for ch in specials:
        for value in (ch, f"a{ch}", f"{ch}b", f"long text {ch} here"):
            col = pa.chunked_array([pa.array(["clean"]), pa.array([value])])
            if clean_text(value)[0] != value:
                assert _may_need_cleaning(col), repr(value)
    assert not _may_need_cleaning(pa.chunked_array([pa.array(["tab\tand\nnewline", "é"])]))


def test_constant_edge_properties_on_both_readers(store: FalkorDBStore, tmp_path: Path) -> None:
    """``EdgeSource.properties`` (the OpenAlex bulk path's ``from_openalex`` mark): every
    edge of a start,end file gets them, on the columnar and the line reader alike; a file
    with its own properties is refused rather than half-marked."""
    papers = _jsonl(tmp_path / "papers.jsonl", PAPERS)
    tsv = tmp_path / "cites.tsv"
    tsv.write_text("start\tend\np1\tp2\np2\t3\np1\tzz\n", encoding="utf-8")
    mark = (("from_openalex", True), ("weight", 3))
    fast, _ = _both(store, [NodeSource(papers)], [EdgeSource(tsv, properties=mark)])
    assert (fast.relationships, fast.skipped_relationships) == (2, 1)
    rows = store.run("MATCH ()-[r:CITES]->() RETURN properties(r) AS p")
    assert [r["p"] for r in rows] == [{"from_openalex": True, "weight": 3}] * 2
    store.clear()
    own = _jsonl(tmp_path / "c.jsonl", [{"start": "p1", "end": "p2", "w": 1}])
    for columnar in (True, False):
        with pytest.raises(InputError, match="constant edge properties"):
            bulk_load(store, [NodeSource(papers)], [EdgeSource(own, properties=mark)],
                      apply_schema=False, columnar=columnar)  # fmt: skip
        store.clear()


def test_list_columns_are_encoded_in_arrow_as_encode_value_encodes_them() -> None:
    """The vectorised list encoder (strings, integers, booleans, all-null items; null and
    empty lists; ``None`` items dropped; a sliced column) gives ``encode_value``'s bytes."""
    import random

    import pyarrow as pa

    from scholarkg.store.falkordb.bulk_arrow import _encoded_column
    from scholarkg.store.falkordb.bulk_values import encode_value

    rnd = random.Random(28)
    words = [None if rnd.random() < 0.1 else
             [rnd.choice(["q", "zz", None, "", "é€"]) for _ in range(rnd.randint(0, 5))]
             for _ in range(2_000)]  # fmt: skip
    cases = [
        pa.array([["a", "bé"], None, [], [None, "x", None], [""]], pa.list_(pa.string())),
        pa.array([[1, -(2**63), 2**63 - 1], None, [], [None], [5, None, 7]], pa.list_(pa.int64())),
        pa.array([[True, False], None, [], [None, True]], pa.list_(pa.bool_())),
        pa.array([[None], None, [], [None, None]], pa.list_(pa.null())),
        pa.array(words, pa.list_(pa.string())),
        pa.array(words, pa.list_(pa.string())).slice(13, 700),
    ]
    for col in cases:
        assert _encoded_column(col).to_pylist() == [encode_value(v) for v in col.to_pylist()]


def test_list_columns_with_nulls_build_the_line_readers_graph(
    store: FalkorDBStore, tmp_path: Path
) -> None:
    rows: list[dict[str, Any]] = [
        {"id": "p1", "tags": ["x", None, "y"], "scores": [1, None, 3], "flags": [True]},
        {"id": "p2", "tags": None, "scores": [], "flags": [None, False]},
        {"id": "p3", "tags": [], "scores": None, "flags": None},
    ]
    nodes = [NodeSource(_jsonl(tmp_path / "p.jsonl", rows))]
    fast, _ = _both(store, nodes, [])
    assert fast.fast_files and not fast.line_files

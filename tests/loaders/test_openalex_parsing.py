"""The OpenAlex parser's fast paths give exactly what the plain paths give.

The snapshot reader parses lines with orjson and hands the lines it refuses to the stdlib
rules; the abstract is rebuilt through a slot list unless positions are shared or sparse.
Both are speed-ups (``benchmarks/bench_openalex.py``): these tests pin that the values and
errors are the stdlib's and the sort's, on the inputs where the fast path steps aside.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from scholarkg.errors import InputError
from scholarkg.loaders import openalex
from scholarkg.textio import CUT_LINE, iter_json_lines


def _sorted_abstract(index: dict[str, list[int]]) -> str | None:
    """The definition: every word at each position, in (position, word) order."""
    return " ".join(w for _, w in sorted((p, w) for w, ps in index.items() for p in ps)) or None


@pytest.mark.parametrize(
    "index",
    [
        {"b": [3], "a": [0], "c": [7]},  # holes
        {"a": [0], "b": [0]},  # a shared position: both words, in word order
        {"a": [10**9], "b": [0]},  # a position far past the word count
        {"a": [], "b": [1]},
        {"a": [0, 2], "": [1]},  # an empty word is a word
        {"x": [2, 1, 0]},
    ],
)
def test_abstract_fast_path_equals_the_sorted_definition(index: dict[str, list[int]]) -> None:
    assert openalex.abstract_from_inverted_index(index) == _sorted_abstract(index)


def test_abstract_of_random_indexes_equals_the_sorted_definition() -> None:
    rng = random.Random(3)
    for _ in range(300):
        n = rng.randint(1, 60)
        index: dict[str, list[int]] = {}
        for pos in rng.sample(range(n * rng.choice((1, 2, 5))), n):
            index.setdefault(f"w{rng.randint(0, n)}", []).append(pos)
        if rng.random() < 0.2:  # now and then a shared position
            index.setdefault("dup", []).append(rng.choice(next(iter(index.values()))))
        assert openalex.abstract_from_inverted_index(index) == _sorted_abstract(index)


@pytest.mark.parametrize(
    ("index", "word"),
    [
        ({"a": [0], "b": [1, True]}, "b"),  # a bool is not a position
        ({"a": [0], "b": [-1]}, "b"),
        ({"a": "0"}, "a"),
        ({"a": [0], "b": [1.0]}, "b"),
        ({"a": [0, "1"], "b": [None]}, "a"),  # the first bad word is named
    ],
)
def test_abstract_bad_positions_name_the_first_bad_word(
    index: dict[str, object], word: str
) -> None:
    with pytest.raises(InputError) as err:
        openalex.abstract_from_inverted_index(index, path=Path("p.gz"), line=4)
    assert err.value.field == "abstract_inverted_index" and err.value.line == 4
    assert f"positions of {word!r}" in str(err.value)


def _work(w: int, **extra: object) -> str:
    return json.dumps({"id": f"https://openalex.org/W{w}", "title": f"T{w}", **extra})


def test_lines_orjson_refuses_read_as_the_stdlib_reads_them(tmp_path: Path) -> None:
    """BOM, blank lines, NaN, a lone surrogate escape: orjson refuses each; the reader must
    still give the stdlib's values."""
    lines = [
        "\ufeff" + _work(1),
        "",
        "   ",
        _work(2, cited_by_count=float("nan")),  # json.dumps writes NaN
        '{"id": "https://openalex.org/W3", "title": "lone \\ud800 surrogate"}',
        _work(4, cited_by_count=2**62),
        _work(5),
    ]
    path = tmp_path / "part_000.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    fast = list(openalex._json_lines(path))
    plain = list(iter_json_lines(path, invalid_json=CUT_LINE))
    assert [n for n, _ in fast] == [n for n, _ in plain] == [1, 4, 5, 6, 7]
    assert json.dumps([v for _, v in fast]) == json.dumps([v for _, v in plain])


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"id": "https://openalex.org/W1", "title": "cut', "invalid JSON (a cut or corrupt"),
        (b'{"id": "https://openalex.org/W1", "title": "\xff"}', "UTF-8"),
        # stops before a value: the decoder calls it "line 2 column 1" (past the newline), once
        # said here as "at column 1", the line's first character
        (
            b'{"id": "https://openalex.org/W1", "title": ',
            "Expecting value at column 44, where the line ends",
        ),
        (b'{"id": "https://openalex.org/W1", "title": "a"', "at column 47, where the line ends"),
    ],
)
def test_a_bad_line_is_the_same_error_as_the_plain_reader(
    tmp_path: Path, raw: bytes, message: str
) -> None:
    path = tmp_path / "part_000.jsonl"
    path.write_bytes(_work(1).encode() + b"\n" + raw + b"\n")
    with pytest.raises(InputError) as fast:
        list(openalex._json_lines(path))
    with pytest.raises(InputError) as plain:
        list(iter_json_lines(path, invalid_json=CUT_LINE))
    assert str(fast.value) == str(plain.value) and fast.value.line == 2
    assert message in str(fast.value)


def test_an_integer_past_64_bits_is_refused_naming_its_field(tmp_path: Path) -> None:
    """orjson reads it as a float; it is still the whole number the file states, which no
    backend stores: refused as every loader refuses it (it was left out silently), never
    stored clamped or rounded."""
    path = tmp_path / "part_000.jsonl"
    path.write_text(_work(1, cited_by_count=2**70) + "\n")
    [(line, obj)] = list(openalex.iter_work_objects(path))
    with pytest.raises(InputError, match="64-bit range") as err:
        openalex.parse_work(obj, path=path, line=line)
    assert err.value.line == 1 and err.value.field == "citation_count"


@pytest.mark.parametrize(
    ("over", "field", "what"),
    [
        ({"cited_by_count": "12"}, "cited_by_count", "expected a whole number"),
        ({"cited_by_count": 12.5}, "cited_by_count", "expected a whole number"),
        ({"publication_year": "2020"}, "publication_year", "expected a whole number"),
        ({"publication_year": True}, "publication_year", "expected a whole number"),
        ({"topics": [{"display_name": "T", "score": "high"}]}, "topics", "topic's score"),
        ({"primary_location": {"source": "Nature"}}, "source", "expected an object"),
        ({"authorships": [{"author": {"id": 5, "display_name": "A"}}]},
         "authorships.author.id", "OpenAlex author id"),
    ],
)  # fmt: skip
def test_a_field_of_the_wrong_type_stops_the_load_naming_it(
    tmp_path: Path, over: dict[str, object], field: str, what: str
) -> None:
    """Each was stored as something else or dropped without a word: a score "high" as 0, a
    count "12" or a year "2020" left out, an author id 5 keyed by the name, a source
    "Nature" as no venue."""
    path = tmp_path / "part_000.jsonl"
    path.write_text(_work(1, **over) + "\n")
    [(line, obj)] = list(openalex.iter_work_objects(path))
    with pytest.raises(InputError, match=what) as err:
        openalex.parse_work(obj, path=path, line=line)
    assert err.value.line == 1 and err.value.field == field


def test_a_whole_float_is_a_number_and_nan_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "part_000.jsonl"
    path.write_text(_work(1, cited_by_count=float("nan"), publication_year=2024.0) + "\n")
    [(line, obj)] = list(openalex.iter_work_objects(path))
    paper = openalex.parse_work(obj, path=path, line=line).paper
    assert paper.citation_count is None and paper.year == 2024


def test_empty_topics_state_none_and_the_legacy_concepts_are_not_read(tmp_path: Path) -> None:
    concepts = [{"display_name": "Old concept", "score": 0.5}]
    path = tmp_path / "part_000.jsonl"
    path.write_text(_work(1, topics=[], concepts=concepts) + "\n" + _work(2, concepts=concepts)
                    + "\n")  # fmt: skip
    first, second = (openalex.parse_work(o, path=path, line=n).paper
                     for n, o in openalex.iter_work_objects(path))  # fmt: skip
    assert first.topics is None
    assert second.topics == ["Old concept"]


def test_a_topic_score_an_export_quotes_is_read_as_the_number(tmp_path: Path) -> None:
    """A real 2022 API response kept as a test fixture by another project quoted its concept
    scores (``"score": "0.4473064"``): the whole work was refused; a quoted number is the
    number (a word such as ``"high"`` is still refused: see above)."""
    concepts = [{"display_name": "Citation", "score": "0.4473064"}]
    path = tmp_path / "part_000.jsonl"
    path.write_text(_work(1, concepts=concepts) + "\n")
    [(line, obj)] = list(openalex.iter_work_objects(path))
    fields = openalex.work_fields(obj, path=path, line=line)
    assert fields.paper["topics"] == ["Citation"]
    assert fields.paper["topic_scores_e4"] == [4473]


@pytest.mark.parametrize("workers", [0, 1])
def test_a_truncated_gz_names_the_line_it_stopped_at(tmp_path: Path, workers: int) -> None:
    """A download cut short: Python's "Compressed file ended before the end-of-stream marker
    was reached" named no place; now the line after the last whole one, and every work
    before it is read."""
    part = tmp_path / "part_000.gz"
    data = gzip.compress("".join(_work(w) + "\n" for w in range(1, 3001)).encode())
    part.write_bytes(data[: len(data) * 2 // 3])
    read: list[int] = []
    with pytest.raises(InputError, match="cannot read file past line") as err:
        if workers:
            with openalex.WorkParser(workers) as parser:
                for n, _ in openalex.read_works(part, parser=parser):
                    read.append(n)
        else:
            for n, _ in openalex.read_works(part):
                read.append(n)
    assert err.value.line is not None and err.value.line > 1000
    assert read == list(range(1, err.value.line))


def test_invalid_json_messages_read_as_sentences(tmp_path: Path) -> None:
    """A raw control character said "Invalid control character at at column 9"; JSON Lines
    saved under a .json name said only "Extra data"."""
    lines = tmp_path / "pages.jsonl"
    lines.write_text('{"id": "W1", "title": "a\tb"}\n'.replace("\t", "\x01"))
    with pytest.raises(InputError, match=r"Invalid control character at column \d+$"):
        list(iter_json_lines(lines))
    named = tmp_path / "pages.json"
    named.write_text(_work(1) + "\n" + _work(2) + "\n")
    with pytest.raises(InputError, match=r"name the file \.jsonl") as err:
        list(openalex.iter_work_objects(named))
    assert err.value.line == 2


def test_an_api_page_names_a_bad_work_by_record_and_id(tmp_path: Path) -> None:
    """A saved API page (``.json``, indented) numbers its works by their place in
    ``results``: the error says ``record 2`` and the work's id, not a "line 2" of the file,
    in the incremental reader and in the snapshot bulk reader."""
    from scholarkg.loaders.openalex_bulk import _read_file

    good = {"id": "https://openalex.org/W1", "title": "One"}
    bad = {"id": "https://openalex.org/W2", "title": "Two", "cited_by_count": "12"}
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"meta": {}, "results": [good, bad]}, indent=2), "utf-8")
    for read in (lambda: list(openalex.read_works(page)), lambda: _read_file(page)):
        with pytest.raises(InputError) as caught:
            read()
        err = caught.value
        assert (err.line, err.unit, err.field) == (2, "record", "cited_by_count")
        assert "page.json:record 2" in str(err) and "W2" in str(err), str(err)
    lines = tmp_path / "works.jsonl"  # a JSON Lines file keeps its lines
    lines.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n", "utf-8")
    with pytest.raises(InputError) as caught:
        list(openalex.read_works(lines))
    assert (caught.value.line, caught.value.unit) == (2, "line")


def test_a_parse_workers_block_shares_one_fields_set_per_class_and_shape() -> None:
    """Records of a parsed block that set the same fields share one fields-set object (so
    pickle writes it once), hold what they held, and survive pickling and ``replaced``."""
    import pickle

    def authorship(a: int) -> dict[str, object]:
        return {"author": {"id": f"https://openalex.org/A{a}", "display_name": f"Name {a}"}}

    lines = [
        (1, _work(1, authorships=[authorship(1), authorship(2)], publication_year=2020).encode()),
        (2, _work(2, authorships=[authorship(3)]).encode()),
        (3, _work(3, publication_year=2021, doi="https://doi.org/10.1/x").encode()),
    ]
    block = openalex._parse_block("part_000.jsonl", lines)
    separate = [openalex.parse_work(json.loads(raw), path=Path("p"), line=n) for n, raw in lines]
    again = pickle.loads(pickle.dumps(block, protocol=pickle.HIGHEST_PROTOCOL))
    for got in (block, again):
        works = [w for _, (w, _, _) in got.works]
        assert [w.paper for w in works] == [w.paper for w in separate]
        assert [w.paper.model_fields_set for w in works] == [
            w.paper.model_fields_set for w in separate
        ]
        authorships = [a for w in works for a in w.authorships]
        assert authorships == [a for w in separate for a in w.authorships]
        assert len({id(a.__pydantic_fields_set__) for a in authorships}) == 1
        # the Papers set different fields (a year, no year, a DOI): one set per shape
        papers = {id(w.paper.__pydantic_fields_set__) for w in works}
        assert len(papers) == len({frozenset(w.paper.model_fields_set) for w in works})
        first, second = authorships[:2]
        assert "from_openalex" not in first.model_fields_set  # the parser leaves it unset
        changed = first.replaced({"from_openalex": True})
        assert "from_openalex" in changed.model_fields_set
        # the set the two share is not the one the copy extended
        assert "from_openalex" not in second.model_fields_set
        assert second.model_fields_set == separate[0].authorships[1].model_fields_set

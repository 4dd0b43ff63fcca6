"""``scholarkg.textio``: the one JSONL reader and atomic writer everybody shares.

Error wording is part of the contract (callers and their tests match on it), so it is pinned
here: default loader wording, and the TREC readers' variants selected by parameters.
"""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path

import pytest

from scholarkg.errors import InputError
from scholarkg.textio import (
    atomic_write_bytes,
    atomic_write_text,
    iter_jsonl,
    iter_lines,
    open_text,
    read_json_object,
    sha256_file,
)


def test_open_text_reads_gzip_and_keeps_newlines_raw(tmp_path: Path) -> None:
    path = tmp_path / "a.csv.gz"
    with gzip.open(path, "wb") as fh:
        fh.write(b'a,"x\r\ny"\n')
    with open_text(path) as fh:
        assert fh.read() == 'a,"x\r\ny"\n'  # newline="": no translation of the quoted \r\n


def test_missing_file_wording(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="file not found") as err:
        list(iter_jsonl(tmp_path / "absent.jsonl"))
    assert err.value.path == str(tmp_path / "absent.jsonl")
    with pytest.raises(InputError, match="prediction file not found"):
        list(iter_jsonl(tmp_path / "absent.jsonl", missing="prediction file not found"))
    with pytest.raises(InputError, match="cannot read file: No such file"):
        list(iter_lines(tmp_path / "absent.txt", missing=None))


def test_iter_jsonl_line_numbers_skip_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": 1}\n\n   \n{"id": 2}\r\n', encoding="utf-8")
    assert list(iter_jsonl(path)) == [(1, {"id": 1}), (4, {"id": 2})]


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{"id": 1}\n{"id": \n', 2, "invalid JSON: Expecting value"),
        ('{"id": 1}\n\n[1, 2]\n', 3, "expected a JSON object"),
    ],
)
def test_iter_jsonl_errors_name_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        list(iter_jsonl(path))
    assert (err.value.path, err.value.line) == (str(path), line)


def test_invalid_json_wording_is_a_parameter(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text("nope\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"invalid JSON \(Expecting value\)"):
        list(iter_jsonl(path, invalid_json="invalid JSON ({msg})"))


def test_not_utf8_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"t": "caf\xe9"}\n')
    with pytest.raises(InputError, match="not UTF-8 text"):
        list(iter_jsonl(path))


def test_utf16_is_named_as_such_with_the_conversion_that_works(tmp_path: Path) -> None:
    """A UTF-16 export (JabRef writes them) was told to convert from Windows-1252, which
    gives garbage: its byte-order mark says what it is."""
    for name, encoding in (("le.bib", "utf-16"), ("be.bib", "utf-16-be")):
        path = tmp_path / name
        data = "@article{a, title={T}}\n".encode(encoding)
        path.write_bytes(data if encoding == "utf-16" else b"\xfe\xff" + data)
        with pytest.raises(InputError, match="iconv -f UTF-16 -t UTF-8") as err:
            list(iter_lines(path))
        assert err.value.line == 1


def test_read_json_object(tmp_path: Path) -> None:
    good = tmp_path / "m.json"
    good.write_text('{\n  "a": 1\n}\n', encoding="utf-8")
    assert read_json_object(good) == {"a": 1}
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "a": \n', encoding="utf-8")
    with pytest.raises(InputError, match="invalid JSON") as err:
        read_json_object(bad)
    assert err.value.line == 3
    arr = tmp_path / "arr.json"
    arr.write_text("[1]", encoding="utf-8")
    with pytest.raises(InputError, match="expected a JSON object"):
        read_json_object(arr)
    with pytest.raises(InputError, match="no manifest here"):
        read_json_object(tmp_path / "absent.json", missing="no manifest here")


def test_atomic_write_replaces_and_leaves_no_temp_files(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    assert atomic_write_text(target, "first\n") == target
    atomic_write_text(target, "zweite Zeile ü\n", fsync=False)
    assert target.read_bytes() == "zweite Zeile ü\n".encode()
    assert os.listdir(tmp_path) == ["out.json"]


def test_failed_atomic_write_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "keep.bin"
    atomic_write_bytes(target, b"old")
    with pytest.raises(TypeError):
        atomic_write_bytes(target, "not bytes")  # type: ignore[arg-type]  # the wrong type is the test
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["keep.bin"]


def test_json_safe_makes_strict_json() -> None:
    import json
    from pathlib import PurePosixPath

    from scholarkg.textio import json_safe

    value = {1: float("nan"), "b": (1.5, float("inf"), None), "c": PurePosixPath("/x")}
    assert json_safe(value) == {"1": None, "b": [1.5, None, None], "c": "/x"}
    json.dumps(json_safe(value), allow_nan=False)  # raises if anything non-strict is left


def test_sha256_file_known_digests_and_chunking(tmp_path: Path) -> None:
    """FIPS 180-2 test vectors ("abc", the empty message), and a file read in many chunks
    (including a short last one) hashes the same as its bytes in one piece."""
    abc = tmp_path / "abc.bin"
    abc.write_bytes(b"abc")
    assert sha256_file(abc) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert sha256_file(empty) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    data = bytes(range(256)) * 41 + b"tail"  # 10 500 bytes: 10 full 1000-byte chunks + 500
    big = tmp_path / "big.bin"
    big.write_bytes(data)
    expected = hashlib.sha256(data).hexdigest()
    assert sha256_file(big, chunk_size=1000) == expected == sha256_file(str(big))

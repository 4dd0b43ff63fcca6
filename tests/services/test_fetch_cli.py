"""``scholarkg fetch`` through the real CLI app, against a loopback HTTP server."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from scholarkg.cli import app
from scholarkg.errors import FetchError, InputError, ScholarKGError

runner = CliRunner()


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, bytes]]:
    root = tmp_path / "www"
    root.mkdir()
    body = b"id\ttext\n1\tsynthetic row\n"
    (root / "toy.tsv").write_bytes(body)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    reg = tmp_path / "registry.toml"
    reg.write_text(
        f"""
[datasets.toy]
title = "Toy table"
benchmark = "toy"
kind = "download"
licence = "Synthetic test licence XYZ"
[[datasets.toy.files]]
url = "{base}/toy.tsv"
filename = "toy.tsv"
sha256 = "{hashlib.sha256(body).hexdigest()}"

[datasets.byhand]
title = "Hand-delivered data"
benchmark = "toy"
kind = "manual"
licence = "unknown"
homepage = "https://example.org/request"
instructions = "Email the authors."
""",
        encoding="utf-8",
    )
    monkeypatch.setenv("SCHOLARKG_FETCH_REGISTRY", str(reg))
    monkeypatch.setenv("SCHOLARKG_HOME", str(tmp_path / "home"))
    try:
        yield tmp_path, body
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_fetch_list(served: tuple[Path, bytes]) -> None:
    res = runner.invoke(app, ["fetch", "--list"])
    assert res.exit_code == 0, res.output
    assert "toy" in res.stdout and "byhand" in res.stdout and "manual" in res.stdout


def test_fetch_with_yes_downloads_to_default_home(served: tuple[Path, bytes]) -> None:
    tmp_path, body = served
    res = runner.invoke(app, ["fetch", "toy", "--yes"])
    assert res.exit_code == 0, res.output
    assert "Synthetic test licence XYZ" in res.stdout  # licence shown before download
    assert (tmp_path / "home" / "datasets" / "toy" / "toy.tsv").read_bytes() == body
    res = runner.invoke(app, ["fetch", "toy", "--yes"])
    assert res.exit_code == 0 and "kept (verified)" in res.stdout


def test_fetch_licence_prompt_declined(served: tuple[Path, bytes]) -> None:
    tmp_path, _ = served
    dest = tmp_path / "d"
    res = runner.invoke(app, ["fetch", "toy", "--dest", str(dest)], input="n\n")
    assert isinstance(res.exception, FetchError) and "licence not accepted" in str(res.exception)
    assert not (dest / "toy.tsv").exists()
    res = runner.invoke(app, ["fetch", "toy", "--dest", str(dest)], input="y\n")
    assert res.exit_code == 0, res.output
    assert (dest / "toy.tsv").is_file()


def test_fetch_manual_and_unknown(served: tuple[Path, bytes]) -> None:
    res = runner.invoke(app, ["fetch", "byhand"])
    assert isinstance(res.exception, ScholarKGError)
    assert "by hand" in str(res.exception) and "Email the authors." in str(res.exception)
    res = runner.invoke(app, ["fetch", "nope"])
    assert isinstance(res.exception, InputError) and "known: byhand, toy" in str(res.exception)
    res = runner.invoke(app, ["fetch"])
    assert isinstance(res.exception, InputError)

"""Dataset fetching against a loopback HTTP server serving synthetic fixture archives."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from scholarkg.errors import FetchError, InputError
from scholarkg.services import fetch as fetch_mod
from scholarkg.services.fetch import (
    SUMS_FILE,
    DatasetSpec,
    ManualDownloadRequired,
    extract_archive,
    fetch_dataset,
    get_dataset,
    load_registry,
)


@dataclass
class Behaviour:
    """What the fixture server does; tests flip these between requests."""

    files: dict[str, bytes] = field(default_factory=dict)
    honour_range: bool = True
    #: serve only this many bytes of the next full response, then drop the connection
    truncate_next: int | None = None
    requests: list[tuple[str, str | None]] = field(default_factory=list)


def _handler(state: Behaviour) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # keep test output clean
            pass

        def do_GET(self) -> None:
            rng = self.headers.get("Range")
            state.requests.append((self.path, rng))
            body = state.files.get(self.path)
            if body is None:
                self.send_error(404)
                return
            start = 0
            if rng and state.honour_range:
                start = int(rng.removeprefix("bytes=").split("-")[0])
                if start >= len(body):
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(body)}")
                    self.end_headers()
                    return
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
            else:
                self.send_response(200)
            payload = body[start:]
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if state.truncate_next is not None:
                payload = payload[: state.truncate_next]
                state.truncate_next = None
                self.wfile.write(payload)
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(payload)

    return Handler


@pytest.fixture
def server() -> Iterator[tuple[str, Behaviour]]:
    state = Behaviour()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    finally:
        httpd.shutdown()
        httpd.server_close()


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def _tar_gz_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _spec(
    base: str, filename: str, *, sha: str = "", extract: bool = False, **kw: Any
) -> DatasetSpec:
    return DatasetSpec(
        name="toy",
        title="Toy dataset",
        benchmark="toy",
        kind="download",
        licence="CC0 (synthetic fixture)",
        files=[
            {
                "url": f"{base}/{filename}",
                "filename": filename,
                "sha256": sha,
                "extract": extract,
                **kw,
            }
        ],
    )


def test_zip_download_verified_and_extracted(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base, state = server
    archive = _zip_bytes({"toy/data.json": b'{"a": 1}', "toy/README": b"synthetic"})
    state.files["/toy.zip"] = archive
    seen: list[tuple[int, int | None]] = []
    accepted: list[str] = []

    def accept(spec: DatasetSpec) -> bool:
        accepted.append(spec.licence)
        return True

    res = fetch_dataset(
        _spec(base, "toy.zip", sha=_sha(archive), extract=True),
        tmp_path,
        accept_licence=accept,
        progress=lambda name, done, total: seen.append((done, total)),
    )
    [f] = res.files
    assert accepted == ["CC0 (synthetic fixture)"]
    assert f.path == tmp_path / "toy.zip" and f.path.read_bytes() == archive
    assert f.sha256 == _sha(archive) and not f.recorded_sum and not f.reused
    assert (tmp_path / "toy" / "toy" / "data.json").read_bytes() == b'{"a": 1}'
    assert f.extracted_to == tmp_path / "toy"
    assert seen[-1] == (len(archive), len(archive))
    assert not (tmp_path / "toy.zip.part").exists()
    assert not (tmp_path / SUMS_FILE).exists()  # sum was known: nothing recorded
    # a second run reuses the verified file without any request
    n_requests = len(state.requests)
    again = fetch_dataset(_spec(base, "toy.zip", sha=_sha(archive), extract=True), tmp_path)
    assert again.files[0].reused and len(state.requests) == n_requests


def test_unknown_sum_recorded_then_enforced(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base, state = server
    state.files["/d.json"] = b'{"v": 1}'
    res = fetch_dataset(_spec(base, "d.json", size=8), tmp_path)
    assert res.files[0].recorded_sum
    sums = json.loads((tmp_path / SUMS_FILE).read_text())
    assert sums["d.json"]["sha256"] == _sha(b'{"v": 1}')
    assert sums["d.json"]["url"] == f"{base}/d.json"
    # upstream changes the file: a fresh download into the same dest fails verification
    (tmp_path / "d.json").unlink()
    state.files["/d.json"] = b'{"v": 2}'
    with pytest.raises(FetchError, match="checksum mismatch"):
        fetch_dataset(_spec(base, "d.json"), tmp_path)
    assert not (tmp_path / "d.json").exists()
    assert not (tmp_path / "d.json.part").exists()


def test_wrong_registry_checksum_discards_download(
    server: tuple[str, Behaviour], tmp_path: Path
) -> None:
    base, state = server
    state.files["/x.bin"] = b"abc" * 1000
    with pytest.raises(FetchError, match="expected sha256 " + "0" * 64):
        fetch_dataset(_spec(base, "x.bin", sha="0" * 64), tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_truncated_download_resumes_with_range(
    server: tuple[str, Behaviour], tmp_path: Path
) -> None:
    base, state = server
    body = bytes(range(256)) * 400  # 102,400 bytes
    state.files["/big.bin"] = body
    state.truncate_next = 30_000
    spec = _spec(base, "big.bin", sha=_sha(body))
    with pytest.raises(FetchError, match="run the same command again to resume"):
        fetch_dataset(spec, tmp_path)
    part = tmp_path / "big.bin.part"
    assert part.stat().st_size == 30_000
    res = fetch_dataset(spec, tmp_path)
    assert state.requests[-1] == ("/big.bin", "bytes=30000-")
    assert res.files[0].path.read_bytes() == body
    assert not part.exists()


def test_server_ignoring_range_restarts(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base, state = server
    body = b"0123456789" * 5000
    state.files["/f.bin"] = body
    state.truncate_next = 1234
    state.honour_range = False
    spec = _spec(base, "f.bin", sha=_sha(body))
    with pytest.raises(FetchError, match=r"interrupted|truncated"):
        fetch_dataset(spec, tmp_path)
    res = fetch_dataset(spec, tmp_path)
    assert state.requests[-1] == ("/f.bin", "bytes=1234-")  # asked, got a 200, restarted
    assert res.files[0].path.read_bytes() == body


def test_stale_part_larger_than_file_restarts(
    server: tuple[str, Behaviour], tmp_path: Path
) -> None:
    base, state = server
    body = b"short"
    state.files["/s.txt"] = body
    (tmp_path / "s.txt.part").write_bytes(b"much longer stale content")
    res = fetch_dataset(_spec(base, "s.txt", sha=_sha(body)), tmp_path)
    assert res.files[0].path.read_bytes() == body


def test_tar_gz_extraction(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base, state = server
    archive = _tar_gz_bytes({"pkg/a.txt": b"A", "pkg/sub/b.txt": b"B"})
    state.files["/pkg.tar.gz"] = archive
    res = fetch_dataset(_spec(base, "pkg.tar.gz", extract=True), tmp_path)
    assert res.files[0].extracted_to == tmp_path / "pkg"
    assert (tmp_path / "pkg" / "pkg" / "sub" / "b.txt").read_bytes() == b"B"


@pytest.mark.parametrize("name", ["../evil.txt", "/abs/evil.txt", "ok/../../evil.txt"])
def test_path_traversal_rejected(tmp_path: Path, name: str) -> None:
    for kind, data in (("zip", _zip_bytes({name: b"x"})), ("tar.gz", _tar_gz_bytes({name: b"x"}))):
        archive = tmp_path / f"bad.{kind}"
        archive.write_bytes(data)
        with pytest.raises(FetchError, match="unsafe"):
            extract_archive(archive, tmp_path / "out" / "bad")
        assert not (tmp_path / "out" / "bad").exists()
    assert not (tmp_path / "evil.txt").exists()
    assert not (tmp_path / "out" / "evil.txt").exists()
    assert [p.name for p in (tmp_path / "out").iterdir()] == []  # temp dirs cleaned up


def test_tar_symlink_outside_rejected(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        link = tarfile.TarInfo("pkg/link")
        link.type = tarfile.SYMTYPE
        link.linkname = "/etc/passwd"
        tf.addfile(link)
    archive = tmp_path / "l.tar.gz"
    archive.write_bytes(buf.getvalue())
    with pytest.raises(FetchError, match="unsafe"):
        extract_archive(archive, tmp_path / "l")


def test_tar_without_extraction_filters(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a Python before 3.11.4 (no ``filter="data"``: Debian 12's 3.11.2) a tar unpacks
    its plain files and folders with the set-id and group/other write bits cleared, and a
    link member aborts, even one that stays inside."""
    monkeypatch.setattr(fetch_mod, "_TAR_FILTERS", False)
    monkeypatch.setattr(fetch_mod, "_FILTER_ERRORS", ())
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("pkg/run.sh")
        info.size, info.mode = 2, 0o6777
        tf.addfile(info, io.BytesIO(b"ok"))
    archive = tmp_path / "ok.tar.gz"
    archive.write_bytes(buf.getvalue())
    out = extract_archive(archive, tmp_path / "ok")
    unpacked = out / "pkg" / "run.sh"
    assert unpacked.read_bytes() == b"ok"
    assert unpacked.stat().st_mode & 0o7777 == 0o755

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        tf.addfile(tarfile.TarInfo("pkg/a.txt"), io.BytesIO(b""))
        link = tarfile.TarInfo("pkg/link")
        link.type, link.linkname = tarfile.SYMTYPE, "a.txt"
        tf.addfile(link)
    archive = tmp_path / "link.tar.gz"
    archive.write_bytes(buf.getvalue())
    with pytest.raises(FetchError, match="unsafe member 'pkg/link'"):
        extract_archive(archive, tmp_path / "link")
    assert not (tmp_path / "link").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".link")] == []
    for name in ("../evil.txt", "/abs/evil.txt"):
        archive = tmp_path / "bad.tar.gz"
        archive.write_bytes(_tar_gz_bytes({name: b"x"}))
        with pytest.raises(FetchError, match="unsafe"):
            extract_archive(archive, tmp_path / "bad")
    assert not (tmp_path / "evil.txt").exists()


def test_http_error_and_offline(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base, _state = server
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch_dataset(_spec(base, "missing.bin"), tmp_path)
    # a port nobody listens on stands in for "no network"
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(FetchError, match="Are you offline"):
        fetch_dataset(_spec(f"http://127.0.0.1:{port}", "x.bin"), tmp_path, timeout=2)


def test_licence_refused_downloads_nothing(server: tuple[str, Behaviour], tmp_path: Path) -> None:
    base, state = server
    state.files["/d.json"] = b"{}"
    with pytest.raises(FetchError, match="licence not accepted"):
        fetch_dataset(_spec(base, "d.json"), tmp_path / "d", accept_licence=lambda s: False)
    assert state.requests == [] and not (tmp_path / "d").exists()


def test_bundled_registry_is_valid() -> None:
    reg = load_registry()
    expected = {
        "legobench-repo",
        "legobench-osf",
        "dorismae",
        "aaar",
        "reviewcritique",
        "scireplicate",
        "citebench",
        "pwc-evaluation-tables",
    }
    assert expected <= set(reg)
    assert all(s.licence for s in reg.values())
    assert reg["legobench-osf"].kind == "manual" and reg["citebench"].kind == "manual"
    assert reg["scireplicate"].files[0].size == 2_554_523
    assert "8299749" in reg["dorismae"].files[0].url
    with pytest.raises(ManualDownloadRequired, match=r"osf\.io/9v2py"):
        fetch_dataset("legobench-osf", Path("/nonexistent"), registry=reg)


def test_bad_registry_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "reg.toml"
    bad.write_text(
        '[datasets.x]\ntitle = "X"\nbenchmark = "b"\nkind = "download"\nlicence = "l"\n'
        '[[datasets.x.files]]\nurl = "ftp://host/f"\nfilename = "f"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as info:
        load_registry(bad)
    assert str(bad) in str(info.value) and "datasets.x.files.0.url" in str(info.value)
    with pytest.raises(InputError, match="unknown dataset"):
        fetch_dataset("nope", tmp_path, registry={})


def test_legobench_alias_and_one_licence() -> None:
    """``scholarkg fetch legobench`` resolves; the licence is the repository's, and the docs'
    licence section (linked from the README) says so."""
    reg = load_registry()
    spec = get_dataset("legobench", reg)
    assert spec.name == "legobench-repo"
    assert spec.licence.startswith("CC BY-SA 4.0")
    assert "7e0733a" in spec.files[0].url  # pinned to the commit that added LICENSE.txt
    docs = Path(__file__).resolve().parents[2] / "docs" / "contributing.md"
    assert "LEGOBench (CC BY-SA 4.0" in docs.read_text(encoding="utf-8")


def test_alias_may_not_shadow_a_name(tmp_path: Path) -> None:
    bad = tmp_path / "reg.toml"
    entry = '[datasets.{n}]\ntitle = "X"\nbenchmark = "b"\nkind = "manual"\nlicence = "l"\n'
    bad.write_text(
        entry.format(n="a")
        + 'instructions = "i"\naliases = ["b"]\n'
        + entry.format(n="b")
        + 'instructions = "i"\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError, match="alias 'b'"):
        load_registry(bad)

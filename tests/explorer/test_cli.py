"""``scholarkg explore`` as a user starts it: a real process, its printed URL, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest


def _get(url: str, token: str | None = None) -> tuple[int, bytes]:
    req = urllib.request.Request(url, headers={"X-Scholarkg-Token": token} if token else {})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as err:
        return err.code, err.read()


def test_explore_prints_a_tokened_url_serves_it_and_stops_on_ctrl_c(loaded_graph: str) -> None:
    env = os.environ | {"SCHOLARKG_GRAPH": loaded_graph}
    proc = subprocess.Popen(
        [sys.executable, "-m", "scholarkg.cli", "explore", "--no-browser", "--timeout", "3"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = ""
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while time.monotonic() < deadline and not url:
            line = proc.stdout.readline()
            if not line:
                break
            if line.startswith("http://"):
                url = line.strip()
        assert url, proc.stderr.read() if proc.stderr else "no URL printed"
        parts = urlsplit(url)
        assert parts.hostname == "127.0.0.1" and parts.query.startswith("token=")
        token = parts.query.removeprefix("token=")
        base = f"http://127.0.0.1:{parts.port}"
        status, body = _get(url)
        assert status == 200 and b"scholarkg explore" in body
        assert _get(f"{base}/api/info")[0] == 403
        status, body = _get(f"{base}/api/info", token)
        info = json.loads(body)
        assert status == 200
        assert info["graph"] == loaded_graph and info["allow_writes"] is False
        assert info["timeout_ms"] == 3000
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    assert proc.returncode == 0, err
    assert "stopped" in out, err


def test_the_browser_gets_a_private_redirect_file_not_the_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import webbrowser
    from pathlib import Path

    from scholarkg.commands.explore import _open_browser

    opened: list[str] = []

    def open_url(url: str) -> bool:
        opened.append(url)
        return True

    monkeypatch.setattr(webbrowser, "open", open_url)
    url = "http://127.0.0.1:1234/?token=secret-token"
    path = _open_browser(url)
    assert path is not None
    try:
        assert opened == [path.as_uri()] and "secret" not in opened[0]
        assert path.stat().st_mode & 0o777 == 0o600
        assert f'content="0;url={url}"' in Path(path).read_text(encoding="utf-8")
    finally:
        path.unlink()

"""Shared by the explorer tests: the graph's size and an HTTP client for a live server.

A plain module (not ``conftest``), so test modules import it by a name no other folder uses.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

import psutil

from scholarkg.explorer.server import TOKEN_HEADER, ExplorerServer

#: size of the synthetic world the module fixtures load
PAPERS = 60
LEADERBOARDS = 4


@dataclass
class Client:
    """Requests to one explorer server; ``token=None`` sends none."""

    server: ExplorerServer

    def request(
        self,
        path: str,
        body: Any = None,
        *,
        token: str | None = "server",
        headers: dict[str, str] | None = None,
        raw: bytes | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        url = f"http://127.0.0.1:{self.server.port}{path}"
        hdrs = dict(headers or {})
        if token == "server":
            token = self.server.token
        if token is not None:
            hdrs.setdefault(TOKEN_HEADER, token)
        data = raw
        if body is not None:
            data = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        req = urllib.request.Request(url, data=data, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=30) as res:
                return res.status, dict(res.headers), res.read()
        except urllib.error.HTTPError as err:
            return err.code, dict(err.headers), err.read()

    def json(self, path: str, body: Any = None, **kwargs: Any) -> tuple[int, Any]:
        status, _, data = self.request(path, body, **kwargs)
        return status, json.loads(data)


def listening_ips(port: int) -> set[str]:
    """Addresses with a listening TCP socket on ``port`` (every process, every interface)."""
    return {
        c.laddr.ip
        for c in psutil.net_connections(kind="tcp")
        if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port
    }


#: headless Chromium for the browser tests: no network of its own, no first-run pages
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,900",
)

"""AAAR fixtures: the synthetic released files loaded into a fresh graph, and an
OpenAI-protocol HTTP server on loopback that answers from a function of the prompt."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from scholarkg.loaders.aaar import aaar_groups, reviewcritique_groups, task_sources
from scholarkg.loaders.writer import write_records
from scholarkg.store.base import GraphStore

FIX = Path(__file__).parent.parent / "fixtures" / "aaar"
MODEL = "canned-model"


@pytest.fixture
def aaar_store(store: GraphStore) -> GraphStore:
    """Every fixture layout loaded (EqInfer, ExpDesign, Weakness, ReviewCritique)."""
    store.apply_schema()
    records = []
    for task, path in task_sources(FIX):
        records += [r for _, group in aaar_groups(task, path) for r in group]
    records += [
        r for _, group in reviewcritique_groups(FIX / "ReviewCritique.jsonl") for r in group
    ]
    write_records(store, records)
    return store


class CannedServer:
    """``/v1/models`` and ``/v1/chat/completions`` on 127.0.0.1; ``answer(prompt) -> text``."""

    def __init__(self, answer: Callable[[str], str]) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._send({"object": "list", "data": [{"id": MODEL, "object": "model"}]})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append(body)
                text = owner.answer(body["messages"][-1]["content"])
                self._send({
                    "id": "x", "model": MODEL,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13},
                })  # fmt: skip

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> CannedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def canned() -> Callable[[Callable[[str], str]], CannedServer]:
    return CannedServer

"""The LLM client against a real HTTP server on loopback that speaks the OpenAI protocol.

The server below is ``http.server`` in a thread. What it does is steered by the prompt text
(``echo:``, ``flaky429:``, ``slow:``, ``malformed``, ...) so each test states its scenario in
the prompt it sends, and the server records every request so tests can count retries and
cache hits from the server's side.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import logging
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from scholarkg.config import load_settings
from scholarkg.errors import ConfigError, InputError, ScholarKGError
from scholarkg.services.llm import (
    CACHE_FILENAME,
    GenerationParams,
    LLMClient,
    LLMConnectionError,
    LLMHTTPError,
    LLMResponseError,
    LLMTimeoutError,
    ResponseCache,
    _retry_after_seconds,
)

SECRET = "sk-test-DO-NOT-LEAK-1234"


@dataclass
class ServerState:
    requests: list[dict[str, Any]] = field(default_factory=list)
    hits: Counter[str] = field(default_factory=Counter)
    inflight: int = 0
    max_inflight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    models: list[str] = field(default_factory=lambda: ["fake-model"])
    fail_models_once: bool = False


class FakeOpenAI(BaseHTTPRequestHandler):
    """Speaks /v1/chat/completions, /v1/completions and /v1/models with scripted failures."""

    state: ServerState  # set on the subclass per server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        # the client may have given up already (timeout tests)
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(raw)

    def do_GET(self) -> None:
        self.state.requests.append({"path": self.path, "auth": self.headers.get("Authorization")})
        if self.path == "/v1/models" and self.state.fail_models_once:
            self.state.fail_models_once = False
            self._send(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})
        elif self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": m} for m in self.state.models]})
        else:
            self._send(404, {"error": {"message": "no such route"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length))
        st = self.state
        with st.lock:
            st.requests.append(
                {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
            )
        self._answer(body)

    def _sleep_counted_in_flight(self, seconds: float) -> None:
        """Only a `delay:` request's sleep counts as in flight, and it stops counting before
        the answer is written: a client at concurrency 1 sends its next request as soon as it
        has read this answer, which can be before this thread runs again (counting up to the
        write made that overlap look like two requests at once on a busy machine). Sleeping
        handlers left over from the timeout tests (`slow:`) are not counted."""
        st = self.state
        with st.lock:
            st.inflight += 1
            st.max_inflight = max(st.max_inflight, st.inflight)
        try:
            time.sleep(seconds)
        finally:
            with st.lock:
                st.inflight -= 1

    def _answer(self, body: dict[str, Any]) -> None:
        chat = self.path == "/v1/chat/completions"
        text = body["messages"][-1]["content"] if chat else body["prompt"]
        with self.state.lock:
            self.state.hits[text] += 1
            n = self.state.hits[text]
        kind, _, arg = text.partition(":")
        if kind == "flaky429" and n == 1:
            return self._send(
                429, {"error": {"message": "rate limited"}}, {"Retry-After": arg or "0.2"}
            )
        if kind == "slow" and n == 1:
            time.sleep(1.0)
        if kind == "slowalways":
            time.sleep(1.0)
        if kind == "boom":
            return self._send(500, {"error": {"message": "model crashed"}})
        if kind == "bad":
            return self._send(400, {"error": {"message": "prompt too long", "type": "invalid"}})
        if kind == "auth":
            return self._send(401, {"error": {"message": "invalid api key"}})
        if kind == "malformed":
            return self._send(200, b"this is not json {")
        if kind == "nochoices":
            return self._send(200, {"id": "x", "object": "chat.completion"})
        if kind == "nousage":
            return self._send(200, {"choices": [{"message": {"content": "hi"}}]})
        if kind == "delay":
            secs, _, arg = arg.partition(":")
            self._sleep_counted_in_flight(float(secs))
        answer = f"ECHO {arg}"
        usage = {"prompt_tokens": len(arg.split()), "completion_tokens": 2, "total_tokens": 0}
        if chat:
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": answer},
                "finish_reason": "stop",
            }
        else:
            choice = {"index": 0, "text": answer, "finish_reason": "length"}
        self._send(200, {"model": body["model"], "choices": [choice], "usage": usage})


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, ServerState]]:
    state = ServerState()
    handler = type("Handler", (FakeOpenAI,), {"state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", state
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture()
def fake(server: tuple[str, ServerState]) -> tuple[str, ServerState]:
    """The module's server with its request log cleared for this test."""
    url, state = server
    with state.lock:
        state.requests.clear()
        state.hits.clear()
        state.max_inflight = 0
        state.models = ["fake-model"]
    return url, state


@pytest.fixture(autouse=True)
def _no_outside_llm_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own endpoint or config file must not leak into these tests."""
    for var in (
        "SCHOLARKG_LLM_BASE_URL",
        "SCHOLARKG_LLM_MODEL",
        "SCHOLARKG_LLM_API_KEY",
        "SCHOLARKG_CONFIG",
    ):
        monkeypatch.delenv(var, raising=False)


def make_client(url: str, **kwargs: Any) -> LLMClient:
    opts: dict[str, Any] = {"timeout": 5.0, "max_retries": 2, "backoff": 0.01}
    opts.update(kwargs)
    return LLMClient(url, opts.pop("model", "fake-model"), opts.pop("api_key", SECRET), **opts)


def test_chat_round_trip_sends_protocol_fields_and_counts_usage(
    fake: tuple[str, ServerState],
) -> None:
    url, state = fake
    with make_client(url, params=GenerationParams(max_tokens=64)) as client:
        out = client.chat("echo:hello brave world", system="be brief", top_p=0.9)
        assert out.text == "ECHO hello brave world"
        assert (out.prompt_tokens, out.completion_tokens, out.total_tokens) == (3, 2, 5)
        assert out.finish_reason == "stop" and out.model == "fake-model" and not out.cached
        req = state.requests[-1]
        assert req["path"] == "/v1/chat/completions"
        assert req["auth"] == f"Bearer {SECRET}"
        assert req["body"]["messages"] == [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": "echo:hello brave world"},
        ]
        assert req["body"]["temperature"] == 0.0
        assert req["body"]["top_p"] == 0.9
        assert req["body"]["max_tokens"] == 64
        assert "stop" not in req["body"] and "seed" not in req["body"]
        out2 = client.chat([{"role": "user", "content": "echo:a b"}])
        usage = client.usage
        assert usage.requests == 2 and usage.cache_hits == 0 and usage.retries == 0
        assert (usage.prompt_tokens, usage.completion_tokens) == (3 + 2, 2 + 2)
        assert usage.seconds >= out.seconds + out2.seconds - 1e-9
        assert usage.as_dict()["total_tokens"] == 9
        assert SECRET not in repr(client)


def test_completion_mode_posts_raw_prompt_with_stop(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    with make_client(url) as client:
        out = client.complete("echo:Question one", stop=["Question:", "\n\n\n\n"], seed=7)
    req = state.requests[-1]
    assert req["path"] == "/v1/completions"
    assert req["body"]["prompt"] == "echo:Question one"
    assert "messages" not in req["body"]
    assert req["body"]["stop"] == ["Question:", "\n\n\n\n"]
    assert req["body"]["seed"] == 7
    assert out.text == "ECHO Question one" and out.finish_reason == "length"


def test_429_is_retried_after_the_servers_retry_after(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    # the backoff (jitter: 10-20 s) would make the test slow if Retry-After (0.3 s) were ignored
    with make_client(url, backoff=20.0) as client:
        start = time.perf_counter()
        out = client.chat("flaky429:0.3")
        elapsed = time.perf_counter() - start
        assert out.text == "ECHO 0.3"
        assert state.hits["flaky429:0.3"] == 2
        assert 0.3 <= elapsed < 4.5  # headroom for a loaded CI machine
        assert client.usage.retries == 1 and client.usage.requests == 1


def test_timeout_is_retried_then_succeeds(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    with make_client(url, timeout=0.3) as client:
        out = client.chat("slow:x")
        assert out.text == "ECHO x"
        assert state.hits["slow:x"] == 2
        assert client.usage.retries == 1


def test_timeout_every_time_raises_a_clear_error(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    with (
        make_client(url, timeout=0.2, max_retries=1) as client,
        pytest.raises(
            LLMTimeoutError, match=r"no response within 0.2 s \(gave up after 2 attempts\)"
        ) as info,
    ):
        client.chat("slowalways:")
    assert isinstance(info.value, ScholarKGError)
    assert "/v1/chat/completions" in str(info.value)
    assert state.hits["slowalways:"] == 2


def test_malformed_body_is_an_error_and_not_retried(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    with make_client(url) as client:
        with pytest.raises(LLMResponseError, match="malformed response \\(not JSON, HTTP 200\\)"):
            client.chat("malformed")
        with pytest.raises(LLMResponseError, match=r"no choices\[0\].message.content"):
            client.chat("nochoices")
    assert state.hits["malformed"] == 1 and state.hits["nochoices"] == 1


def test_missing_usage_is_counted_not_guessed(fake: tuple[str, ServerState]) -> None:
    url, _ = fake
    with make_client(url) as client:
        out = client.chat("nousage")
        assert out.text == "hi" and out.prompt_tokens == 0 and out.completion_tokens == 0
        assert client.usage.missing_usage == 1


def test_5xx_is_retried_until_attempts_run_out(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    with make_client(url, max_retries=2) as client, pytest.raises(LLMHTTPError) as info:
        client.chat("boom")
    assert info.value.status == 500
    assert "HTTP 500: model crashed (gave up after 3 attempts)" in str(info.value)
    assert state.hits["boom"] == 3


def test_4xx_is_not_retried_and_shows_the_server_message(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    with make_client(url) as client, pytest.raises(LLMHTTPError, match="prompt too long") as info:
        client.chat("bad")
    assert info.value.status == 400 and state.hits["bad"] == 1


def test_api_key_never_appears_in_errors_or_logs(
    fake: tuple[str, ServerState], caplog: pytest.LogCaptureFixture
) -> None:
    url, _ = fake
    caplog.set_level(logging.DEBUG)
    with make_client(url) as client:
        with pytest.raises(LLMHTTPError) as info:
            client.chat("auth")
        client.chat("flaky429:0.01")  # logs a retry warning
    assert "check SCHOLARKG_LLM_API_KEY" in str(info.value)
    assert SECRET not in str(info.value)
    assert any("retry 1/2" in r.getMessage() for r in caplog.records)
    assert all(SECRET not in r.getMessage() for r in caplog.records)


def test_connection_refused_raises_connection_error() -> None:
    import socket

    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = LLMClient(f"http://127.0.0.1:{port}/v1", "m", max_retries=1, backoff=0.01)
    with client, pytest.raises(LLMConnectionError, match=r"cannot connect.*after 2 attempts"):
        client.chat("hello")


def test_cache_hits_skip_the_server_and_survive_a_new_client(
    fake: tuple[str, ServerState], tmp_path: Path
) -> None:
    url, state = fake
    db = tmp_path / "cache.sqlite"
    with make_client(url, cache=db) as client:
        first = client.chat("echo:cache me")
        again = client.chat("echo:cache me")
        assert state.hits["echo:cache me"] == 1
        assert again.cached and not first.cached
        assert (again.text, again.prompt_tokens, again.finish_reason) == (
            first.text,
            first.prompt_tokens,
            first.finish_reason,
        )
        client.chat("echo:cache me", temperature=0.7)  # other parameters: a miss
        client.complete("echo:cache me")  # other mode: a miss
        assert state.hits["echo:cache me"] == 3
        assert client.usage.cache_hits == 1 and client.usage.requests == 3
        assert client.usage.prompt_tokens == 3 * 2  # cache hits are not billed again
    with make_client(url, cache=db) as other:
        assert other.chat("echo:cache me").cached
        assert other.chat("echo:cache me", temperature=0.7).cached
    with make_client(url, cache=db, model="other-model") as other_model:
        assert not other_model.chat("echo:cache me").cached
    assert state.hits["echo:cache me"] == 4
    assert len(ResponseCache(db)) == 4


def test_cache_key_depends_on_every_input() -> None:
    p = GenerationParams()
    msgs = [{"role": "user", "content": "x"}]
    base = ResponseCache.key("chat", "m", msgs, p)
    assert base == ResponseCache.key("chat", "m", [{"role": "user", "content": "x"}], p)
    variants = [
        ResponseCache.key("completion", "m", msgs, p),
        ResponseCache.key("chat", "m2", msgs, p),
        ResponseCache.key("chat", "m", [{"role": "user", "content": "y"}], p),
        ResponseCache.key("chat", "m", msgs, p.with_overrides(stop=["Q:"])),
        ResponseCache.key("chat", "m", msgs, p.with_overrides(max_tokens=9)),
    ]
    assert len({base, *variants}) == 6


def test_complete_many_keeps_order_and_bounds_concurrency(
    fake: tuple[str, ServerState], tmp_path: Path
) -> None:
    url, state = fake
    # earlier prompts sleep longer, so they finish last: order must come from the input
    prompts = [f"delay:{0.4 - 0.05 * i:.2f}:item{i}" for i in range(8)]
    seen: list[int] = []
    with make_client(url, cache=tmp_path / "c.sqlite") as client:
        out = client.complete_many(prompts, concurrency=3, progress=seen.append)
        assert [c.text for c in out] == [f"ECHO item{i}" for i in range(8)]
        assert state.max_inflight == 3
        assert seen == list(range(1, 9))
        # all cached now: a second pass sends nothing
        again = client.complete_many(prompts, concurrency=3)
        assert all(c.cached for c in again) and len(state.requests) == 8
        comp = client.complete_many(["echo:a", "echo:b c"], mode="completion", concurrency=2)
        assert [c.text for c in comp] == ["ECHO a", "ECHO b c"]
        assert all(r["path"] == "/v1/completions" for r in state.requests[-2:])


def test_complete_many_stops_on_error_but_keeps_finished_answers(
    fake: tuple[str, ServerState], tmp_path: Path
) -> None:
    url, _ = fake
    with make_client(url, cache=tmp_path / "c.sqlite") as client:
        with pytest.raises(LLMHTTPError, match="prompt too long"):
            client.complete_many(["echo:one", "bad", "delay:0.2:three"], concurrency=3)
        assert client.chat("echo:one").cached


def test_model_is_taken_from_models_endpoint_when_not_configured(
    fake: tuple[str, ServerState],
) -> None:
    url, state = fake
    client = LLMClient(url, None, backoff=0.01)
    with client:
        assert client.models() == ["fake-model"]
        client.chat("echo:x")
        assert state.requests[-1]["body"]["model"] == "fake-model"
        assert state.requests[-1]["auth"] is None  # no key configured: no header
    # resolving the model survives a retry (the /models request is rate-limited once)
    with make_client(url, model=None) as retried:
        state.fail_models_once = True
        assert retried.chat("echo:y").text == "ECHO y"
        assert retried.usage.retries == 1
    state.models = ["a", "b"]
    with LLMClient(url, None) as ambiguous, pytest.raises(ConfigError, match="serves 2 models"):
        ambiguous.chat("echo:x")


def test_from_settings_uses_settings_and_cache_dir(
    fake: tuple[str, ServerState], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, state = fake
    monkeypatch.setenv("SCHOLARKG_LLM_BASE_URL", url)
    monkeypatch.setenv("SCHOLARKG_LLM_MODEL", "fake-model")
    monkeypatch.setenv("SCHOLARKG_LLM_API_KEY", SECRET)
    settings = load_settings(home=tmp_path)
    with LLMClient.from_settings(settings) as client:
        client.chat("echo:settings")
    assert state.requests[-1]["auth"] == f"Bearer {SECRET}"
    assert (settings.cache_dir / CACHE_FILENAME).is_file()
    monkeypatch.delenv("SCHOLARKG_LLM_BASE_URL")
    with pytest.raises(ConfigError, match="SCHOLARKG_LLM_BASE_URL"):
        LLMClient.from_settings(load_settings(home=tmp_path))
    with pytest.raises(ConfigError, match="must be http"):
        LLMClient("ftp://example.org/v1", "m")
    with pytest.raises(ConfigError, match="must be http"):
        LLMClient("http://:8089/v1", "m")


def test_two_clients_share_one_cache_file_concurrently(
    fake: tuple[str, ServerState], tmp_path: Path
) -> None:
    """Two connections to one sqlite file, writing at the same time (as two processes would)."""
    url, state = fake
    db = tmp_path / "shared.sqlite"
    prompts = [f"delay:0.01:p{i}" for i in range(30)]
    errors: list[BaseException] = []

    def work(client: LLMClient) -> None:
        try:
            client.complete_many(prompts, concurrency=4)
        except BaseException as err:  # surfaced below
            errors.append(err)

    with make_client(url, cache=db) as a, make_client(url, cache=db) as b:
        threads = [threading.Thread(target=work, args=(c,)) for c in (a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert len(ResponseCache(db)) == 30
        assert a.usage.requests + a.usage.cache_hits == 30
        assert b.usage.requests + b.usage.cache_hits == 30
    assert sum(state.hits[p] for p in prompts) == a.usage.requests + b.usage.requests


def test_retry_after_parsing() -> None:
    assert _retry_after_seconds("3") == 3.0
    assert _retry_after_seconds(None) is None
    assert _retry_after_seconds("soon") is None
    assert _retry_after_seconds("-5") == 0.0
    future = email.utils.formatdate(time.time() + 20, usegmt=True)
    assert 17.0 <= (_retry_after_seconds(future) or 0) <= 20.0


def test_generation_params_are_validated() -> None:
    with pytest.raises(InputError, match="temperature"):
        GenerationParams(temperature=3.0)
    with pytest.raises(InputError, match="top_p"):
        GenerationParams(top_p=0.0)
    with pytest.raises(InputError, match="max_tokens"):
        GenerationParams(max_tokens=0)
    with pytest.raises(InputError, match="unknown generation parameter"):
        GenerationParams().with_overrides(temprature=0.5)
    assert GenerationParams().with_overrides(stop="Q:").stop == ("Q:",)
    with pytest.raises(InputError, match="role"):
        LLMClient._messages([{"role": "robot", "content": "x"}], None)


# --- the `scholarkg llm` commands against the same server ----------------------------------


def run_cli(args: list[str], home: Path, env: dict[str, str] | None = None) -> Any:
    from typer.testing import CliRunner

    from scholarkg.cli import app

    base = {"SCHOLARKG_HOME": str(home), "SCHOLARKG_LLM_API_KEY": SECRET}
    return CliRunner().invoke(app, args, env={**base, **(env or {})})


def test_cli_chat_prints_text_and_usage(fake: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = fake
    res = run_cli(["llm", "chat", "echo:one two", "--base-url", url, "--max-tokens", "9"], tmp_path)
    assert res.exit_code == 0, res.output
    assert "ECHO one two" in res.stdout
    assert "2 prompt + 2 completion tokens" in res.stderr
    assert SECRET not in res.output
    body = state.requests[-1]["body"]
    assert body["model"] == "fake-model" and body["max_tokens"] == 9  # model from /models
    assert state.requests[-1]["auth"] == f"Bearer {SECRET}"
    # the same call again is answered from the cache under SCHOLARKG_HOME
    res = run_cli(["llm", "chat", "echo:one two", "--base-url", url, "--max-tokens", "9"], tmp_path)
    assert "cached" in res.stderr and state.hits["echo:one two"] == 1


def test_cli_chat_completion_mode_and_json(fake: tuple[str, ServerState], tmp_path: Path) -> None:
    url, state = fake
    args = ["llm", "chat", "echo:raw", "--completion", "--stop", "Q:", "--json", "--no-cache"]
    res = run_cli([*args, "--model", "fake-model"], tmp_path, {"SCHOLARKG_LLM_BASE_URL": url})
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["text"] == "ECHO raw" and doc["total_tokens"] == 3 and doc["cached"] is False
    assert state.requests[-1]["path"] == "/v1/completions"
    assert state.requests[-1]["body"]["stop"] == ["Q:"]


def test_cli_models_and_errors(fake: tuple[str, ServerState], tmp_path: Path) -> None:
    url, _ = fake
    res = run_cli(["llm", "models", "--base-url", url, "--format", "json"], tmp_path)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout) == [{"id": "fake-model"}]
    res = run_cli(["llm", "chat", "bad", "--base-url", url, "--model", "m"], tmp_path)
    # CliRunner bypasses cli.main(), which maps these to exit codes 7 and 2
    assert isinstance(res.exception, LLMHTTPError) and res.exception.exit_code == 7
    assert "prompt too long" in str(res.exception)
    res = run_cli(["llm", "chat", "hi"], tmp_path)
    assert isinstance(res.exception, ConfigError) and res.exception.exit_code == 2
    assert "SCHOLARKG_LLM_BASE_URL" in str(res.exception)


# --- timeout, concurrency and token cap as settings -------------------------------------------


def test_timeout_concurrency_and_token_cap_from_env_config_and_cli(
    fake: tuple[str, ServerState], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defaults that let a slow local model finish (600 s, one request in flight, no cap);
    ``[llm]`` in the config file overrides them, the environment overrides the file, and an
    explicit (CLI) value overrides both; the cap limits what any request asks for."""
    from scholarkg.services.llm import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT

    url, state = fake
    for var in ("SCHOLARKG_LLM_TIMEOUT", "SCHOLARKG_LLM_CONCURRENCY", "SCHOLARKG_LLM_MAX_TOKENS"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    with LLMClient.from_settings(load_settings(home=home), base_url=url, use_cache=False) as c:
        assert (c.timeout, c.concurrency, c.max_tokens_cap) == (
            DEFAULT_TIMEOUT, DEFAULT_CONCURRENCY, None,
        )  # fmt: skip
        assert (DEFAULT_TIMEOUT, DEFAULT_CONCURRENCY) == (600.0, 1)
    home.mkdir()
    (home / "config.toml").write_text("[llm]\ntimeout = 900\nconcurrency = 3\nmax_tokens = 7\n")
    settings = load_settings(home=home)
    assert (settings.llm.timeout, settings.llm.concurrency, settings.llm.max_tokens) == (900, 3, 7)
    monkeypatch.setenv("SCHOLARKG_LLM_TIMEOUT", "1200")
    monkeypatch.setenv("SCHOLARKG_LLM_CONCURRENCY", "2")
    settings = load_settings(home=home)
    with LLMClient.from_settings(settings, base_url=url, model="fake-model", use_cache=False,
                                 timeout=30.0) as client:  # fmt: skip
        assert (client.timeout, client.concurrency, client.max_tokens_cap) == (30.0, 2, 7)
        client.complete_many(["echo:a", "echo:b"], max_tokens=64)
        client.chat("echo:c", max_tokens=3)
    assert [r["body"]["max_tokens"] for r in state.requests if "body" in r] == [7, 7, 3]
    monkeypatch.setenv("SCHOLARKG_LLM_CONCURRENCY", "two")
    with pytest.raises(ConfigError, match=r"\$SCHOLARKG_LLM_CONCURRENCY: expected"):
        load_settings(home=home)


def test_complete_many_defaults_to_the_clients_concurrency(fake: tuple[str, ServerState]) -> None:
    url, state = fake
    with make_client(url, concurrency=1) as client:
        client.complete_many([f"delay:0.1:{i}" for i in range(4)])
    assert state.max_inflight == 1
    with make_client(url, concurrency=3) as client:
        client.complete_many([f"delay:0.2:{i}" for i in range(6)])
    assert state.max_inflight == 3


def test_a_timeout_says_which_option_to_change(fake: tuple[str, ServerState]) -> None:
    url, _ = fake
    with (
        make_client(url, timeout=0.2, max_retries=0) as client,
        pytest.raises(LLMTimeoutError) as err,
    ):
        client.chat("slowalways:x")
    text = str(err.value)
    assert "no response within 0.2 s" in text
    for option in ("--timeout", "SCHOLARKG_LLM_TIMEOUT", "--concurrency 1", "--max-tokens"):
        assert option in text

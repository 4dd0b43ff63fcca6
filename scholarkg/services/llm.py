"""A small OpenAI-compatible client: chat and completion mode, retries, a response cache, usage.

Benchmarks call language models thousands of times, against very different servers (OpenAI,
vLLM, Ollama, llama.cpp server, LiteLLM, or ``scholarkg llm serve``). They all speak the
``/v1/chat/completions`` and ``/v1/completions`` protocol, so one client over plain httpx
serves them all. We deliberately do not use the ``openai`` package: it is not a dependency,
it does not cache, and its retry loop cannot be tuned to honour ``Retry-After`` the way
shared inference servers expect. Likewise we do not use ``tenacity``: the loop below is
twelve lines and must treat ``Retry-After`` specially.

What the client guarantees:

* **Endpoint and credentials** come from :class:`scholarkg.config.LLMSettings`
  (``SCHOLARKG_LLM_BASE_URL``, ``SCHOLARKG_LLM_MODEL``, ``SCHOLARKG_LLM_API_KEY``) or
  explicit arguments. The base URL includes the API prefix, e.g. ``http://127.0.0.1:8089/v1``
  (as every OpenAI-compatible server documents it). The API key travels only in the
  ``Authorization`` header; it is never logged, printed, put in an error or in ``repr``.
* **Retries** with exponential backoff and jitter on 429, 5xx (except 501/505), timeouts and
  connection errors; a ``Retry-After`` header (seconds or HTTP date) replaces the backoff.
  Other 4xx errors and malformed bodies are not retried: repeating them gives the same answer.
* **Cache**: a sqlite file keyed by sha256 of (mode, model, prompt or messages, generation
  parameters). The base URL is deliberately *not* part of the key, so a local server that
  comes back on another port still hits the cache. With temperature > 0 the cache returns
  the first sample drawn, which is what makes a benchmark run repeatable.
* **Order**: :meth:`LLMClient.complete_many` runs requests in a bounded thread pool and
  returns completions in input order. A failure stops the batch, but every completion
  already received is cached, so re-running resumes where it stopped.
* **Accounting**: prompt/completion tokens from each response's ``usage`` and wall time,
  summed per client in :attr:`LLMClient.usage` (cache hits are counted, not re-billed).
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import logging
import math
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

import httpx

from scholarkg.config import Settings
from scholarkg.errors import ConfigError, InputError, LLMError

log = logging.getLogger(__name__)

#: One chat message, ``{"role": "user", "content": "..."}``.
Message = Mapping[str, str]
#: A chat-mode input is a plain string (sent as one user message) or a list of messages.
PromptInput = str | Sequence[Message]
Mode = Literal["chat", "completion"]
#: ``progress(n_done)`` after each finished request, like the store's batch callbacks.
ProgressFn = Callable[[int], None]

CACHE_FILENAME = "llm_responses.sqlite"
#: Seconds per request. The bundled SmolLM2-135M on two shared cores writes ~3 tokens/s and
#: reads a 3,000-word prompt in tens of seconds, so a 512-token answer can take ~4 minutes;
#: ten leave room for that (override: ``--timeout``, ``SCHOLARKG_LLM_TIMEOUT``, ``[llm] timeout``).
DEFAULT_TIMEOUT = 600.0
#: Requests in flight. The local server generates one request at a time, and a queued request's
#: wait counts against its timeout, so one; raise it for API endpoints
#: (``--concurrency``, ``SCHOLARKG_LLM_CONCURRENCY``, ``[llm] concurrency``).
DEFAULT_CONCURRENCY = 1
#: What to change when a request times out (the error says it)
TIMEOUT_HINT = (
    "a slow (e.g. local CPU) model needs a longer --timeout (SCHOLARKG_LLM_TIMEOUT, [llm] "
    "timeout), fewer requests in flight (--concurrency 1, SCHOLARKG_LLM_CONCURRENCY) or fewer "
    "tokens per answer (--max-tokens, SCHOLARKG_LLM_MAX_TOKENS; 'llm serve --max-new-tokens')"
)
_CACHE_KEY_VERSION = 1
_NOT_RETRIED_5XX = frozenset({501, 505})


class LLMHTTPError(LLMError):
    """The server answered with an HTTP error status (after retries when it was retryable)."""

    def __init__(self, message: str, *, status: int) -> None:
        super().__init__(message)
        self.status = status


class LLMTimeoutError(LLMError):
    """No answer within the per-request timeout, on every attempt."""


class LLMConnectionError(LLMError):
    """The server could not be reached (refused, DNS, reset), on every attempt."""


class LLMResponseError(LLMError):
    """The server answered 2xx but the body is not an OpenAI-style completion."""


@dataclass(frozen=True)
class GenerationParams:
    """Sampling parameters sent with every request (and part of the cache key).

    ``temperature=0`` asks for greedy decoding; ``max_tokens=None`` leaves the limit to the
    server. ``stop`` strings end generation and are not included in the returned text.
    """

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int | None = 512
    stop: tuple[str, ...] = ()
    seed: int | None = None

    def __post_init__(self) -> None:
        if not (isinstance(self.temperature, int | float) and 0.0 <= self.temperature <= 2.0):
            raise InputError(f"must be in [0, 2], got {self.temperature!r}", field="temperature")
        if not (isinstance(self.top_p, int | float) and 0.0 < self.top_p <= 1.0):
            raise InputError(f"must be in (0, 1], got {self.top_p!r}", field="top_p")
        if self.max_tokens is not None and (
            not isinstance(self.max_tokens, int) or self.max_tokens < 1
        ):
            raise InputError(
                f"must be a positive integer, got {self.max_tokens!r}", field="max_tokens"
            )
        if isinstance(self.stop, str) or not all(isinstance(s, str) and s for s in self.stop):
            raise InputError("must be a sequence of non-empty strings", field="stop")

    def with_overrides(self, **overrides: Any) -> GenerationParams:
        """A copy with the non-``None`` overrides applied (``stop`` may be any sequence)."""
        clean = {k: v for k, v in overrides.items() if v is not None}
        unknown = set(clean) - {f for f in self.__dataclass_fields__}
        if unknown:
            raise InputError(f"unknown generation parameter(s): {sorted(unknown)}")
        if "stop" in clean:
            stop = clean["stop"]
            clean["stop"] = (stop,) if isinstance(stop, str) else tuple(stop)
        return replace(self, **clean)

    def payload(self) -> dict[str, Any]:
        """The request fields in OpenAI spelling; unset optional fields are left out."""
        body: dict[str, Any] = {"temperature": self.temperature, "top_p": self.top_p}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if self.stop:
            body["stop"] = list(self.stop)
        if self.seed is not None:
            body["seed"] = self.seed
        return body


@dataclass(frozen=True)
class Completion:
    """One generated answer with its token usage and the time it took (incl. retries)."""

    text: str
    model: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool = False

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass
class UsageTotals:
    """What one client spent. Tokens and seconds count fresh requests only, not cache hits."""

    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    #: responses that carried no ``usage`` object (their tokens are unknown, counted as 0)
    missing_usage: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def as_dict(self) -> dict[str, Any]:
        """Plain values for run records."""
        return {**asdict(self), "total_tokens": self.total_tokens}


class ResponseCache:
    """Completed responses in sqlite, safe across threads and processes.

    One connection guarded by a lock serves all threads of a client (sqlite calls take
    microseconds next to a model call); WAL mode and a busy timeout let several processes
    (parallel benchmark runs) share one file. Writes are ``INSERT OR REPLACE`` of complete
    rows, so a crash never leaves a half-written answer behind.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._conn = sqlite3.connect(self.path, timeout=30.0, check_same_thread=False)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(
                "CREATE TABLE IF NOT EXISTS responses ("
                " key TEXT PRIMARY KEY, model TEXT NOT NULL, created REAL NOT NULL,"
                " response TEXT NOT NULL)"
            )
            self._conn.commit()
        except sqlite3.Error as err:
            raise ConfigError(f"{self.path}: cannot open the LLM response cache: {err}") from err

    @staticmethod
    def key(mode: Mode, model: str, prompt: Any, params: GenerationParams) -> str:
        """sha256 of the canonical JSON of everything that determines the answer."""
        doc = {
            "v": _CACHE_KEY_VERSION,
            "mode": mode,
            "model": model,
            "input": prompt,
            "params": params.payload(),
        }
        text = json.dumps(doc, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, key: str) -> Completion | None:
        with self._lock:
            row = self._conn.execute(
                "SELECT response FROM responses WHERE key = ?", (key,)
            ).fetchone()
        if row is None:
            return None
        try:
            data = json.loads(row[0])
            return Completion(**{**data, "cached": True})
        except (json.JSONDecodeError, TypeError):
            log.warning("ignoring unreadable cache entry %s in %s", key[:12], self.path)
            return None

    def put(self, key: str, completion: Completion) -> None:
        data = asdict(completion)
        data.pop("cached")
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, model, created, response)"
                " VALUES (?, ?, ?, ?)",
                (key, completion.model, time.time(), json.dumps(data, ensure_ascii=False)),
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def _retry_after_seconds(value: str | None) -> float | None:
    """``Retry-After`` as seconds: either a number or an HTTP date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


def _server_message(resp: httpx.Response) -> str:
    """The error text a server put in its body (OpenAI style ``{"error": {"message"}}``)."""
    try:
        body = resp.json()
    except ValueError:
        return resp.text.strip()[:300]
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return str(err)[:300]
    return json.dumps(body)[:300]


class LLMClient:
    """OpenAI-compatible chat/completion client with retries, cache, concurrency and usage.

    Use :meth:`from_settings` in commands and tasks; the constructor is for tests and callers
    that bring their own endpoint. ``model=None`` means "the only model the server lists"
    (handy with ``scholarkg llm serve``); it is resolved once, on first use.
    """

    def __init__(
        self,
        base_url: str,
        model: str | None = None,
        api_key: str | None = None,
        *,
        params: GenerationParams | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        concurrency: int = DEFAULT_CONCURRENCY,
        max_tokens_cap: int | None = None,
        max_retries: int = 4,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        max_retry_after: float = 600.0,
        cache: ResponseCache | str | Path | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        try:
            url = httpx.URL(base_url)
        except httpx.InvalidURL:
            url = httpx.URL("invalid:")
        if url.scheme not in ("http", "https") or not url.host:
            raise ConfigError(
                f"LLM base URL {base_url!r} must be http(s)://host[:port]/<prefix>, "
                "e.g. http://127.0.0.1:8089/v1"
            )
        self.base_url = str(base_url).rstrip("/")
        self._model = model
        self.params = params or GenerationParams()
        self.timeout = float(timeout)
        if int(concurrency) < 1:
            raise InputError(f"must be >= 1, got {concurrency}", field="concurrency")
        #: requests in flight when a caller does not say (``complete_many``)
        self.concurrency = int(concurrency)
        #: no request asks for more tokens than this (``None``: as asked)
        self.max_tokens_cap = max_tokens_cap
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_retry_after = float(max_retry_after)
        if isinstance(cache, str | Path):
            cache = ResponseCache(cache)
        self.cache: ResponseCache | None = cache
        headers = {"Accept": "application/json"}
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self._http = httpx.Client(
            timeout=httpx.Timeout(self.timeout), headers=headers, transport=transport
        )
        self._lock = threading.Lock()
        self._model_lock = threading.Lock()
        self._usage = UsageTotals()

    @classmethod
    def from_settings(
        cls,
        settings: Settings,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        use_cache: bool = True,
        **kwargs: Any,
    ) -> LLMClient:
        """Client for the configured endpoint; explicit arguments win over settings.

        The cache lives in ``settings.cache_dir`` unless ``use_cache`` is false.
        """
        url = base_url or settings.llm.base_url
        if not url:
            raise ConfigError(
                "no LLM endpoint: set SCHOLARKG_LLM_BASE_URL (or llm.base_url in config.toml, or"
                " --base-url);"
                " `scholarkg llm serve` starts a local one and prints its URL"
            )
        cache = settings.cache_dir / CACHE_FILENAME if use_cache else None
        # explicit (CLI) values win over settings; None means "not given"
        given = {k: v for k, v in kwargs.items() if v is not None}
        llm = settings.llm
        for key, value in (("timeout", llm.timeout), ("concurrency", llm.concurrency),
                           ("max_tokens_cap", llm.max_tokens)):  # fmt: skip
            if key not in given and value is not None:
                given[key] = value
        return cls(
            url,
            model or settings.llm.model,
            api_key or settings.llm.api_key,
            cache=cache,
            **given,
        )

    def settings_record(self) -> dict[str, Any]:
        """What a run record keeps about how the client talked to the server."""
        return {
            "timeout": self.timeout,
            "concurrency": self.concurrency,
            "max_tokens_cap": self.max_tokens_cap,
            "max_retries": self.max_retries,
        }

    def __repr__(self) -> str:  # no API key, ever
        return f"LLMClient(base_url={self.base_url!r}, model={self._model!r})"

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()
        if self.cache is not None:
            self.cache.close()

    # --- accounting -------------------------------------------------------------------------

    @property
    def usage(self) -> UsageTotals:
        """A snapshot of the totals so far (safe to read while requests run)."""
        with self._lock:
            return replace(self._usage)

    def reset_usage(self) -> None:
        with self._lock:
            self._usage = UsageTotals()

    # --- public calls -------------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The model name sent with requests (resolved from ``/models`` when not configured)."""
        if self._model is None:
            # its own lock: resolving makes a request, and a retry takes ``self._lock``
            with self._model_lock:
                if self._model is None:
                    self._model = self._only_model()
        return self._model

    def models(self) -> list[str]:
        """Model ids the server lists at ``GET /models``."""
        body = self._request("GET", "/models")
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or not all(isinstance(m, dict) and "id" in m for m in data):
            raise LLMResponseError(
                f"{self.base_url}/models: malformed response (expected data[].id): "
                f"{json.dumps(body)[:200]}"
            )
        return [str(m["id"]) for m in data]

    def chat(self, prompt: PromptInput, *, system: str | None = None, **params: Any) -> Completion:
        """One chat completion; ``prompt`` is a user message or a list of messages."""
        return self._generate("chat", self._messages(prompt, system), self._params(params))

    def complete(self, prompt: str, **params: Any) -> Completion:
        """One completion-mode request (``/completions``): raw text in, no chat template."""
        if not isinstance(prompt, str):
            raise InputError("completion mode takes a plain string prompt", field="prompt")
        return self._generate("completion", prompt, self._params(params))

    def complete_many(
        self,
        prompts: Sequence[PromptInput],
        *,
        concurrency: int | None = None,
        mode: Mode = "chat",
        system: str | None = None,
        progress: ProgressFn | None = None,
        **params: Any,
    ) -> list[Completion]:
        """Many requests, at most ``concurrency`` in flight (``None``: the client's
        :attr:`concurrency`); results keep the input order."""
        if concurrency is None:
            concurrency = self.concurrency
        if concurrency < 1:
            raise InputError(f"must be >= 1, got {concurrency}", field="concurrency")
        gen = self._params(params)
        if mode == "chat":
            inputs: list[Any] = [self._messages(p, system) for p in prompts]
        elif mode == "completion":
            for i, p in enumerate(prompts):
                if not isinstance(p, str):
                    raise InputError(
                        "completion mode takes plain string prompts", line=i + 1, field="prompt"
                    )
            inputs = list(prompts)
        else:
            raise InputError(f"unknown mode {mode!r}; use 'chat' or 'completion'", field="mode")
        if not inputs:
            return []
        _ = self.model  # resolve once before the threads start
        results: list[Completion | None] = [None] * len(inputs)
        done = 0
        done_lock = threading.Lock()

        def run(i: int) -> None:
            nonlocal done
            results[i] = self._generate(mode, inputs[i], gen)
            if progress is not None:
                with done_lock:
                    done += 1
                    progress(done)

        with ThreadPoolExecutor(max_workers=min(concurrency, len(inputs))) as pool:
            futures = [pool.submit(run, i) for i in range(len(inputs))]
            _, pending = wait(futures, return_when=FIRST_EXCEPTION)
            for f in pending:
                f.cancel()
            for f in futures:  # first failure in input order
                if f.done() and not f.cancelled():
                    exc = f.exception()
                    if exc is not None:
                        raise exc
        return [r for r in results if r is not None]

    # --- internals ---------------------------------------------------------------------------

    def _params(self, overrides: Mapping[str, Any]) -> GenerationParams:
        params = self.params.with_overrides(**overrides)
        cap = self.max_tokens_cap
        if cap is not None and (params.max_tokens is None or params.max_tokens > cap):
            params = replace(params, max_tokens=cap)
        return params

    @staticmethod
    def _messages(prompt: PromptInput, system: str | None) -> list[dict[str, str]]:
        if isinstance(prompt, str):
            messages = [{"role": "user", "content": prompt}]
        else:
            messages = []
            for i, m in enumerate(prompt):
                if not isinstance(m, Mapping) or not isinstance(m.get("content"), str):
                    raise InputError(
                        "each message needs a string 'content'", line=i + 1, field="content"
                    )
                if m.get("role") not in ("system", "user", "assistant"):
                    raise InputError(
                        f"role must be system, user or assistant, got {m.get('role')!r}",
                        line=i + 1,
                        field="role",
                    )
                messages.append({"role": str(m["role"]), "content": str(m["content"])})
        if system is not None:
            messages.insert(0, {"role": "system", "content": system})
        return messages

    def _only_model(self) -> str:
        ids = self.models()
        if len(ids) != 1:
            raise ConfigError(
                f"{self.base_url} serves {len(ids)} models {ids[:10]}; choose one with "
                "SCHOLARKG_LLM_MODEL or --model"
            )
        return ids[0]

    def _generate(self, mode: Mode, prompt: Any, params: GenerationParams) -> Completion:
        model = self.model
        key = ResponseCache.key(mode, model, prompt, params) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                with self._lock:
                    self._usage.cache_hits += 1
                return hit
        body = {"model": model, **params.payload()}
        if mode == "chat":
            body["messages"] = prompt
            path = "/chat/completions"
        else:
            body["prompt"] = prompt
            path = "/completions"
        start = time.perf_counter()
        resp = self._request("POST", path, body)
        seconds = time.perf_counter() - start
        completion = self._parse(path, resp, mode, model, seconds)
        with self._lock:
            u = self._usage
            u.requests += 1
            u.seconds += seconds
            u.prompt_tokens += completion.prompt_tokens
            u.completion_tokens += completion.completion_tokens
            if not isinstance(resp.get("usage"), dict):
                u.missing_usage += 1
        if self.cache is not None:
            self.cache.put(key, completion)
        return completion

    def _parse(
        self, path: str, body: dict[str, Any], mode: Mode, model: str, seconds: float
    ) -> Completion:
        url = self.base_url + path
        try:
            choice = body["choices"][0]
            text = (choice["message"].get("content") or "") if mode == "chat" else choice["text"]
            if not isinstance(text, str):
                raise TypeError("text is not a string")
        except (KeyError, IndexError, TypeError, AttributeError) as err:
            what = "choices[0].message.content" if mode == "chat" else "choices[0].text"
            raise LLMResponseError(
                f"{url}: malformed response (no {what}: {err!s}): {json.dumps(body)[:200]}"
            ) from err
        usage_field = body.get("usage")
        usage: dict[str, Any] = usage_field if isinstance(usage_field, dict) else {}
        return Completion(
            text=text,
            model=str(body.get("model") or model),
            finish_reason=choice.get("finish_reason"),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
            seconds=seconds,
        )

    def _delay(self, attempt: int) -> float:
        """Exponential backoff with jitter (half to full of the step), capped."""
        step = min(self.max_backoff, self.backoff * (2.0**attempt))
        return step * (0.5 + random.random() / 2)

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One logical request with retries; returns the decoded JSON body."""
        url = self.base_url + path
        last: LLMError | None = None
        attempts = self.max_retries + 1
        for attempt in range(attempts):
            retry_after: float | None = None
            try:
                resp = self._http.request(method, url, json=body)
            except httpx.TimeoutException:
                last = LLMTimeoutError(f"{url}: no response within {self.timeout:g} s")
            except httpx.TransportError as err:
                last = LLMConnectionError(f"{url}: cannot connect ({type(err).__name__}: {err})")
            else:
                status = resp.status_code
                if status < 400:
                    try:
                        return resp.json()
                    except ValueError as err:
                        raise LLMResponseError(
                            f"{url}: malformed response (not JSON, HTTP {status}): "
                            f"{resp.text.strip()[:200]!r}"
                        ) from err
                message = f"{url}: HTTP {status}: {_server_message(resp)}"
                if status == 401 or status == 403:
                    message += " (check SCHOLARKG_LLM_API_KEY)"
                if status != 429 and (status < 500 or status in _NOT_RETRIED_5XX):
                    raise LLMHTTPError(message, status=status)
                last = LLMHTTPError(message, status=status)
                retry_after = _retry_after_seconds(resp.headers.get("Retry-After"))
            if attempt == attempts - 1:
                break
            if retry_after is not None and retry_after > self.max_retry_after:
                raise LLMError(f"{last} (server asks to wait {retry_after:.0f} s; giving up)")
            delay = retry_after if retry_after is not None else self._delay(attempt)
            with self._lock:
                self._usage.retries += 1
            log.warning("%s; retry %d/%d in %.2f s", last, attempt + 1, self.max_retries, delay)
            time.sleep(delay)
        assert last is not None
        hint = f"; {TIMEOUT_HINT}" if isinstance(last, LLMTimeoutError) else ""
        raise type(last)(f"{last} (gave up after {attempts} attempts){hint}", **_extra(last))


def _extra(err: LLMError) -> dict[str, Any]:
    return {"status": err.status} if isinstance(err, LLMHTTPError) else {}

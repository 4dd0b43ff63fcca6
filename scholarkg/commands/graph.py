"""``scholarkg graph``: whole-graph algorithms on the loaded graph, and their projections.

PageRank here is the project's one definition (GDS's, the Neo4j GDS manual, PageRank). On Neo4j
with GDS it runs in the server on a resident native projection and only the top rows cross
Bolt (``graphalgo/resident.py``); on the embedded store, or with ``--client-projection``, on a
client-side resident projection (``graphalgo/projection.py``): the first run on a graph state
builds it (pulling the edges once), later runs reuse it from memory or the disk cache.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    err_console,
    no_csv,
    print_rows,
    settings,
    store_session,
    to_json,
)
from scholarkg.console import working
from scholarkg.errors import InputError
from scholarkg.schema.ddl import check_label
from scholarkg.store.base import PageRankConfig

if TYPE_CHECKING:
    from scholarkg.graphalgo.topk import TopPageRank
    from scholarkg.store.base import GraphStore

app = typer.Typer(
    help="Graph algorithms (PageRank, personalized PageRank, FastRP embeddings) and projections."
)

LabelOpt = Annotated[str, typer.Option("--label", help="Node label to project.")]
RelOpt = Annotated[
    list[str] | None,
    typer.Option("--rel-type", "-r", help="Relationship type(s) to project (default CITES)."),
]


def _rel_types(rel_type: list[str] | None) -> tuple[str, ...]:
    return tuple(rel_type or ("CITES",))


@app.command()
def pagerank(
    label: LabelOpt = "Paper",
    rel_type: RelOpt = None,
    source: Annotated[
        list[str] | None,
        typer.Option(
            "--source",
            "-s",
            help="Personalized PageRank from these works (any id the graph knows: DOI, "
            "OpenAlex, arXiv, S2, node id).",
        ),
    ] = None,
    damping_factor: Annotated[float, typer.Option(help="GDS dampingFactor.")] = 0.85,
    max_iterations: Annotated[int, typer.Option(help="GDS maxIterations.")] = 20,
    tolerance: Annotated[float, typer.Option(help="GDS tolerance.")] = 1e-7,
    top: Annotated[int, typer.Option("--top", "-k", help="Rows to print.")] = 20,
    loaded_only: Annotated[
        bool,
        typer.Option(
            "--loaded-only",
            help="Rank over the whole graph, list loaded works only (no reference stubs).",
        ),
    ] = False,
    write: Annotated[
        str | None,
        typer.Option("--write", help="Also store every score on its node in this property."),
    ] = None,
    client_projection: Annotated[
        bool,
        typer.Option(
            "--client-projection",
            help="Neo4j: pull the edges into this process and rank there (pays for sweeps of "
            "many personalized queries on a graph that fits memory; default: in GDS).",
        ),
    ] = False,
    estimate: Annotated[
        bool,
        typer.Option("--estimate", help="Neo4j: print GDS's memory estimate, run nothing."),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Print where the time went.")
    ] = False,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """PageRank (GDS semantics) over LABEL nodes and REL-TYPE edges; the top nodes by score.

    On Neo4j with GDS it runs in the server on a resident projection (one per graph
    version) and only the top rows come back; whole-graph scores are kept there, so a second
    call only reads them. Examples: ``scholarkg graph pagerank``, ``scholarkg graph pagerank
    --source s2:123 --top 10``, ``scholarkg graph pagerank --write pagerank`` (then sort by
    ``p.pagerank`` in Cypher), ``scholarkg --backend neo4j graph pagerank --estimate``.
    """
    if top < 1:
        raise InputError("--top must be >= 1", field="top")
    if estimate:
        _print_estimate(label, _rel_types(rel_type), fmt)
        return
    from scholarkg.graphalgo.topk import check_score_property

    prop = check_score_property(label, write) if write else None

    t0 = time.perf_counter()
    with store_session(write=prop is not None) as store:
        sources = _paper_ids(store, label, source or ())
        config = PageRankConfig(
            damping_factor=damping_factor,
            max_iterations=max_iterations,
            tolerance=tolerance,
            source_nodes={s: 1.0 for s in sources} if sources else None,
        )
        with working("PageRank (the projection is built once per graph state)"):
            result, cards = _top_rows(
                store, label, top, config, rel_types=_rel_types(rel_type), write=prop,
                loaded_only=loaded_only, client_projection=client_projection,
            )  # fmt: skip
    _report_pagerank(
        result, cards, label=label, fmt=fmt, wall=time.perf_counter() - t0,
        personalized=bool(source), loaded_only=loaded_only, prop=prop, verbose=verbose,
    )  # fmt: skip


def _report_pagerank(
    result: TopPageRank,
    cards: dict[str, tuple[Any, bool]],
    *,
    label: str,
    fmt: OutputFormat,
    wall: float,
    personalized: bool,
    loaded_only: bool,
    prop: str | None,
    verbose: bool,
) -> None:
    """Print ``graph pagerank``'s top rows (``cards``: id → title, stub) and how it ran:
    JSON with every digit, or a table (six decimals) and a line on the projection.
    Personalized, a node the walk never reaches (score 0) is not a result: it was listed
    among the top rows when fewer nodes than ``--top`` are reachable from the sources."""
    ranked = [(i, v) for i, v in result.rows if v > 0] if personalized else list(result.rows)
    unreached = len(result.rows) - len(ranked)
    rows_out: list[dict[str, Any]] = [  # json keeps every digit, tables and csv six
        {
            "rank": n,
            "id": i,
            "score": v if fmt == "json" else round(v, 6),
            "stub": cards[i][1] if fmt == "json" else ("stub" if cards[i][1] else ""),
            "title": cards[i][0],
        }
        for n, (i, v) in enumerate(ranked, start=1)
    ]
    timings = {k: round(v, 3) for k, v in result.timings.items()}
    summary: dict[str, Any] = {
        "nodes": result.nodes,
        "edges": result.edges,
        "projection": result.projection,
        "projection_seconds": timings.get("projection_seconds"),
        "pagerank_seconds": timings.get("pagerank_seconds"),
        "ran_iterations": result.ran_iterations,
        "did_converge": result.did_converge,
        "computed": result.computed,
        "engine": result.engine,
        "records": result.records,
        "written": result.written,
        "wall_seconds": round(wall, 3),
        "timings": timings,
        "unreached_left_out": unreached,
    }
    if fmt == "json":
        print(to_json({"summary": summary, "top": rows_out}))
        return
    what = "personalized PageRank" if personalized else "PageRank"
    of = f" of {result.nodes}" if result.nodes is not None else ""
    only = " (loaded works)" if loaded_only else ""
    print_rows(rows_out, fmt, title=f"{what}: top {len(rows_out)}{of} {label}{only}",
               nowrap=("id",))  # fmt: skip
    if unreached:
        err_console.print(
            f"note: only {len(ranked)} {label} node(s) are reachable from the source(s); "
            f"{unreached} with score 0 left out",
            highlight=False,
        )
    if fmt != "table":
        return
    graph = f"{result.nodes} nodes, {result.edges} edges; " if result.nodes is not None else ""
    ran = (
        f", {result.ran_iterations} iterations"
        if result.ran_iterations is not None
        else ("" if result.computed else ", scores kept from an earlier run")
    )
    console.print(
        f"{graph}projection {result.projection} ({timings.get('projection_seconds', 0):.2f} s),"
        f" {result.engine} PageRank {timings.get('pagerank_seconds', 0):.2f} s{ran}"
        + (f"; wrote {result.written} scores to {label}.{prop}" if prop else ""),
        highlight=False,
    )
    if verbose:
        _print_timings(result.timings, wall, result.records)


def _paper_ids(store: Any, label: str, refs: Any) -> list[str]:
    """Works named by any id the graph knows (Paper); other labels take node ids as given."""
    if label != "Paper":
        return list(refs)
    from scholarkg.services.paper_lookup import resolve_paper

    return [resolve_paper(store, r, field_name="source").id for r in refs]


def _cards(store: Any, label: str, ids: list[str]) -> dict[str, tuple[Any, bool]]:
    """``{id: (title, stub)}`` of ranked nodes (a node without a title: ``None``)."""
    rows = store.run_named("graphalgo/paper_cards", {"ids": ids}, label=check_label(label))
    found = {str(r["id"]): (r.get("title"), bool(r.get("stub"))) for r in rows}
    return {i: found.get(i, (None, False)) for i in ids}


def _print_timings(timings: dict[str, float], wall: float, records: int | None) -> None:
    """Where the time went: wall seconds per step beside GDS's own milliseconds."""
    steps = [
        ("projection", "projection_seconds", ("projectMillis",)),
        (
            "PageRank",
            "pagerank_seconds",
            (
                "preProcessingMillis",
                "computeMillis",
                "postProcessingMillis",
                "mutateMillis",
                "stream_server_millis",
            ),
        ),
        ("top k read", "top_k_seconds", ("top_k_server_millis",)),
        ("write", "write_seconds", ("writeMillis",)),
    ]
    rows = []
    for name, wall_key, gds_keys in steps:
        if wall_key not in timings:
            continue
        gds = ", ".join(f"{k} {timings[k]:.0f}" for k in gds_keys if k in timings)
        rows.append({"step": name, "wall_s": f"{timings[wall_key]:.3f}", "server_ms": gds})
    rows.append({"step": "command (store session incl.)", "wall_s": f"{wall:.3f}", "server_ms": ""})
    print_rows(rows, "table", title="where the time went")
    if records is not None:
        console.print(f"records returned by the server for the top k: {records}", highlight=False)


def _top_rows(
    store: GraphStore,
    label: str,
    top: int,
    config: PageRankConfig,
    *,
    rel_types: tuple[str, ...],
    write: str | None,
    loaded_only: bool,
    client_projection: bool,
) -> tuple[TopPageRank, dict[str, tuple[Any, bool]]]:
    """PageRank's ``top`` rows and their cards (title, stub?); ``loaded_only`` asks for more
    of the ranking until ``top`` loaded works are in it (the scores are written once)."""
    from scholarkg.graphalgo.topk import pagerank_top

    want = top * 4 if loaded_only else top
    write_to = write
    while True:
        result = pagerank_top(
            store, want, config, label=label, rel_types=rel_types, write=write_to,
            client_projection=client_projection,
        )  # fmt: skip
        cards = _cards(store, label, [i for i, _ in result.rows])
        kept = [(i, v) for i, v in result.rows if not (loaded_only and cards[i][1])]
        if len(kept) >= top or len(result.rows) < want:
            break
        want *= 4
        write_to = None  # every score is written by the first call
    result.rows = kept[:top]
    return result, cards


def _print_estimate(label: str, rel_types: tuple[str, ...], fmt: str) -> None:
    """GDS's own memory estimates for the current graph (Neo4j with GDS only)."""
    from scholarkg.graphalgo.resident import estimate as estimate_memory
    from scholarkg.graphalgo.resident import has_gds

    with store_session() as store:
        if not has_gds(store):
            raise InputError(
                "--estimate reports GDS's memory estimates: use --backend neo4j with GDS",
                field="estimate",
            )
        est = estimate_memory(store, label, rel_types)
    mib = 2**20
    rows = [
        {
            "what": "projection (gds.graph.project.estimate)",
            "min": f"{est['projection_min'] / mib:,.1f} MiB",
            "max": f"{est['projection_max'] / mib:,.1f} MiB",
        },
        {
            "what": "projection + PageRank (gds.pageRank.mutate.estimate)",
            "min": f"{est['pagerank_min'] / mib:,.1f} MiB",
            "max": f"{est['pagerank_max'] / mib:,.1f} MiB",
        },
    ]
    if fmt == "json":
        print(to_json(est))
        return
    title = (
        f"GDS memory estimate: {est['nodes']:,} {label} nodes, {est['relationships']:,} "
        f"{'/'.join(rel_types)} relationships (concurrency {est['concurrency']})"
    )
    print_rows(rows, fmt, title=title)
    if fmt == "table":
        console.print(f"PageRank's own part: {est['pagerank_algorithm']}", highlight=False)


@app.command()
def projections(
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """The projections cached next to the store (one per graph, label and relationship
    types) and, on Neo4j with GDS, the resident GDS graphs holding server heap."""
    from scholarkg.graphalgo.projection import cached_projections

    rows = cached_projections()
    if settings().backend == "neo4j":
        with store_session() as store:
            if "gds" in store.capabilities:
                for row in store.run_named("graphalgo/gds_resident_graphs", {}):
                    rows.append({"backend": "neo4j (GDS heap)", **row})
    if not rows and fmt == "table":
        console.print("no cached projections (they are built by the first graph algorithm run)")
        return
    if fmt == "table":  # the screen gets a size and the file name; json/csv keep everything
        rows = [
            {
                **{k: v for k, v in r.items() if k not in ("bytes", "file")},
                "size": f"{r['bytes'] / 2**20:.1f} MB" if r.get("bytes") else "",
                **({"file": Path(r["file"]).name} if r.get("file") else {}),
            }
            for r in rows
        ]
    print_rows(rows, fmt, title="cached projections")


@app.command("drop-projection")
def drop_projection(label: LabelOpt = "Paper", rel_type: RelOpt = None) -> None:
    """Forget the projection of LABEL / REL-TYPE in the current graph (disk cache, and on
    Neo4j its GDS graphs). It is rebuilt by the next algorithm run."""
    from scholarkg.graphalgo.projection import ProjectionKey, default_catalog

    catalog = default_catalog()
    with store_session() as store:
        key = ProjectionKey.of(store, label, _rel_types(rel_type))
        was_cached = catalog.drop(store, label, key.rel_types)
    what = f"({label}, {', '.join(key.rel_types)}) of graph {key.graph!r}"
    if was_cached:
        console.print(f"dropped the projection of {what}")
    else:
        console.print(f"no cached projection of {what} on disk (memory and GDS copies dropped)")


# ----------------------------------------------------------------------------- FastRP embeddings


def _weights(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise InputError(
            f"--iteration-weights must be numbers separated by commas, got {text!r}",
            field="iteration_weights",
        ) from None


@app.command()
def embed(
    label: LabelOpt = "Paper",
    rel_type: RelOpt = None,
    dimension: Annotated[int, typer.Option(help="GDS embeddingDimension.")] = 128,
    iteration_weights: Annotated[
        str, typer.Option(help="GDS iterationWeights, comma-separated.")
    ] = "0,1,1",
    normalization_strength: Annotated[float, typer.Option(help="GDS normalizationStrength.")] = 0.0,
    node_self_influence: Annotated[float, typer.Option(help="GDS nodeSelfInfluence.")] = 0.0,
    random_seed: Annotated[int, typer.Option(help="GDS randomSeed.")] = 42,
    orientation: Annotated[
        str, typer.Option(help="undirected (default), natural or reverse.")
    ] = "undirected",
    engine: Annotated[
        str, typer.Option(help="auto (GDS on Neo4j, numpy otherwise), gds or numpy.")
    ] = "auto",
    estimate: Annotated[
        bool, typer.Option("--estimate", help="Neo4j: GDS's memory estimate only, no run.")
    ] = False,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """FastRP node embeddings (the GDS algorithm) stored in LABEL.fastrp_<dimension> under a
    vector index; then ``graph similar NODE`` answers from the index.

    On Neo4j GDS computes and writes them on the server; on the embedded store the numpy
    FastRP runs on the resident projection. Examples: ``scholarkg graph embed``,
    ``scholarkg graph embed --dimension 256 --normalization-strength -0.5``,
    ``scholarkg --backend neo4j graph embed --estimate``.
    """
    from scholarkg.graphalgo.fastrp import FastRPConfig
    from scholarkg.services.graph_embeddings import embed_graph, estimate_embedding

    no_csv(fmt, "this summary")
    cfg = FastRPConfig(
        embedding_dimension=dimension,
        iteration_weights=_weights(iteration_weights),
        normalization_strength=normalization_strength,
        node_self_influence=node_self_influence,
        random_seed=random_seed,
    )
    rels = _rel_types(rel_type)
    if estimate:
        with store_session() as store:
            est = estimate_embedding(store, label, rels, cfg, orientation=orientation)
        if fmt == "json":
            print(to_json(est))
        else:
            print_rows([est], "table", title="GDS memory estimate: projection + gds.fastRP")
        return
    from scholarkg.commands.common import set_interrupted_note, stage_progress

    set_interrupted_note(
        "some nodes may hold this run's vectors and others their earlier ones (or none). Run "
        "the same command again: it computes and writes every vector anew"
    )
    units = {"iterate": "iterations", "write": "vectors"}
    with (
        store_session(write=True) as store,
        stage_progress(unit=lambda stage: units.get(stage, "")) as progress,
    ):
        report = embed_graph(
            store, label, rels, cfg, orientation=orientation, engine=engine, progress=progress
        )
    summary = report.as_dict()
    if fmt == "json":
        print(to_json(summary))
        return
    console.print(
        f"FastRP ({report.engine}) of {report.node_count} {label} nodes / "
        f"{report.relationship_count} relationships ({orientation}): "
        f"{report.written} vectors in {label}.{report.property} (index {report.index}); "
        f"projection {report.projection_seconds:.2f} s, preProcessingMillis "
        f"{report.pre_processing_millis:.0f}, computeMillis {report.compute_millis:.0f}, "
        f"writeMillis {report.write_millis:.0f}, wall {report.wall_seconds:.2f} s",
        highlight=False,
    )


@app.command()
def similar(
    node: Annotated[
        str,
        typer.Argument(help="The work: DOI, OpenAlex, arXiv or S2 id, alias or node id."),
    ],
    label: LabelOpt = "Paper",
    dimension: Annotated[int, typer.Option(help="Which fastrp_<dimension> vectors.")] = 128,
    top: Annotated[int, typer.Option("--top", "-k", help="Neighbours to return.")] = 10,
    loaded_only: Annotated[
        bool,
        typer.Option("--loaded-only", help="List loaded works only (no reference stubs)."),
    ] = False,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """The TOP nodes nearest to NODE by FastRP embedding, from the vector index (one query,
    TOP rows; run ``graph embed`` first). Score = (1 + cos) / 2; stubs are flagged. For
    related works by co-citation, coupling and text too: ``scholarkg related``."""
    from scholarkg.services.graph_embeddings import similar as nearest

    with store_session() as store:
        node_id = _paper_ids(store, label, [node])[0]
        rows = nearest(
            store, node_id, label=label, dimension=dimension, k=top, loaded_only=loaded_only
        )
    out = [
        {
            "rank": n,
            "id": r["id"],
            "score": round(r["score"], 6),
            "stub": r["stub"] if fmt == "json" else ("stub" if r["stub"] else ""),
            "title": r["title"],
        }
        for n, r in enumerate(rows, start=1)
    ]
    if fmt == "json":
        print(to_json(out))
        return
    print_rows(
        out, fmt, title=f"nearest to {node_id} by FastRP ({label}.fastrp_{dimension})",
        nowrap=("id",),
    )  # fmt: skip

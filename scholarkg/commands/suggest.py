"""``scholarkg suggest`` and ``scholarkg related``: ask the loaded graph what to cite.

Thin faces over :mod:`scholarkg.recommend`: parse options, print rows (ids never broken
across lines, stubs flagged), write TREC runs. Examples::

    scholarkg suggest "Graph neural networks for citation recommendation ..."
    scholarkg suggest --queries drafts.jsonl --out run.trec --top 100
    scholarkg related 10.18653/v1/N19-1423
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    check_choice,
    console,
    err_console,
    print_rows,
    stage_progress,
    store_session,
    to_json,
)
from scholarkg.errors import InputError

TopOpt = Annotated[int, typer.Option("--top", "-k", min=1, help="How many works to list.")]
ModelOpt = Annotated[
    str,
    typer.Option(
        "--model", help="Text encoder of the stored vectors (`embed nodes --model`): minilm."
    ),
]
LoadedOnlyOpt = Annotated[
    bool,
    typer.Option(
        "--loaded-only",
        help="List loaded works only (no reference stubs); ranking still uses the whole graph.",
    ),
]


def _unit(stage: str) -> str:
    """What a stage of ``suggest``/``related`` counts."""
    if stage.startswith("suggesting"):
        return "queries"
    if stage.startswith("fitting"):
        return "works"
    if stage.startswith(("reading", "indexing")):
        return "works"
    return ""


def _read_queries(path: Path) -> list[Any]:
    """``{"id", "text", "exclude": [work ids]}`` per line; errors name the line and field."""
    from scholarkg.recommend.model import Query
    from scholarkg.textio import iter_jsonl

    out = []
    for line, rec in iter_jsonl(path):
        qid, text, exclude = rec.get("id"), rec.get("text"), rec.get("exclude", [])
        if not isinstance(qid, str | int) or str(qid).strip() == "":
            raise InputError("missing query id", path=path, line=line, field="id")
        if not isinstance(text, str) or not text.strip():
            raise InputError("missing or empty text", path=path, line=line, field="text")
        if exclude is None:
            exclude = []
        if not isinstance(exclude, list) or not all(isinstance(x, str) for x in exclude):
            raise InputError("exclude must be a list of work ids", path=path, line=line,
                             field="exclude")  # fmt: skip
        if any(c.isspace() for c in str(qid)):
            raise InputError("a query id may not contain whitespace (TREC columns)",
                             path=path, line=line, field="id")  # fmt: skip
        out.append(Query(str(qid), text, tuple(exclude)))
    if not out:
        raise InputError("no queries in the file", path=path)
    return out


def _resolve_excludes(store: Any, queries: list[Any]) -> tuple[list[Any], list[str]]:
    """Each query's ``exclude`` ids as the graph's Paper ids (any id the graph knows), and
    the ids no work of the graph holds: those are already absent and are dropped, and the
    caller says so (a typo in a held-out evaluation would otherwise leak the work into its
    results without a word; one query's ``--exclude`` refuses an unknown id outright)."""
    from dataclasses import replace

    from scholarkg.services.paper_lookup import resolve_papers

    refs = {x for q in queries for x in q.exclude}
    found = resolve_papers(store, refs) if refs else {}
    out = []
    for q in queries:
        ids = [p.id for x in q.exclude for p in found.get(x, [])]
        out.append(replace(q, exclude=tuple(dict.fromkeys(ids))))
    return out, sorted(x for x in refs if not found.get(x))


def suggest(
    text: Annotated[
        str | None,
        typer.Argument(help="A paragraph, or a draft's title and abstract (or use --queries)."),
    ] = None,
    queries: Annotated[
        Path | None,
        typer.Option(
            "--queries",
            help='Batch: JSON Lines {"id", "text", "exclude": \\[work ids]} (needs --out).',
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Batch: write a TREC run here (doc ids = Paper ids)."),
    ] = None,
    top: TopOpt = 10,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude",
            "-x",
            help="A work to treat as absent with its edges (any id the graph knows); repeat.",
        ),
    ] = None,
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help=(
                "fused (default); baselines: bm25, text, text-refs, text-refs-hybrid, "
                "related-works (OpenAlex's related_works of the excluded work)."
            ),
        ),
    ] = "fused",
    loaded_only: LoadedOnlyOpt = False,
    refit: Annotated[
        bool, typer.Option("--refit", help="Fit the fusion again although it is current.")
    ] = False,
    no_fit: Annotated[
        bool, typer.Option("--no-fit", help="RRF of every input, no fit (a graph to try out).")
    ] = False,
    fit_queries: Annotated[
        int, typer.Option("--fit-queries", min=1, help="Works the fit learns from.")
    ] = 300,
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="auto (the managed Neo4j: graph inputs in the server, --exclude included), "
            "client (the client-side projection: on Neo4j the whole graph pulled once) or "
            "server.",
        ),
    ] = "auto",
    model: ModelOpt = "minilm",
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Works to cite for TEXT from the loaded graph, loaded works and reference stubs alike.

    Text rankers (BM25; dense where `embed nodes` stored vectors) find the works closest to
    TEXT; the citation graph around them (their references, co-citation, coupling,
    personalized PageRank, FastRP neighbours, citations) ranks what to cite; the fusion is
    fitted on this graph's own works (each work's text → its references, itself left out)
    on first use and again whenever the graph changes. Each row says why it is there.
    """
    from scholarkg.recommend.model import METHODS, Recommender

    check_choice("--method", method, METHODS)
    if (text is None) == (queries is None):
        raise InputError("give TEXT or --queries FILE (one of them)")
    if queries is not None and out is None:
        raise InputError("--queries writes a TREC run: give --out RUN.trec", field="out")
    if queries is None and out is not None:
        raise InputError("--out is for --queries batches", field="out")
    batch = _read_queries(queries) if queries is not None else None
    if batch is not None and exclude:
        raise InputError("--exclude is for one TEXT; a batch gives each query's own exclude")
    with store_session() as store, stage_progress(unit=_unit) as progress:
        rec = Recommender(store, model=model, engine=engine, progress=progress)
        record = rec.prepare(
            fit=not no_fit and method == "fused", refit=refit, fit_queries=fit_queries
        )
        if batch is not None:
            batch, unknown = _resolve_excludes(store, batch)
            if unknown:
                shown = ", ".join(unknown[:5]) + (", …" if len(unknown) > 5 else "")
                err_console.print(
                    f"note: {len(unknown):,} exclude id(s) name no work in the graph, so they "
                    f"exclude nothing: {shown}",
                    highlight=False,
                )

            def step(done: int, total: int) -> None:
                progress("suggesting", done, total)

            answers = rec.suggest_many(batch, top, method=method, progress=step)
        else:
            from scholarkg.services.paper_lookup import resolve_paper

            ids = [resolve_paper(store, x, field_name="exclude").id for x in exclude or ()]
            depth = top * 4 if loaded_only else top
            answer = rec.suggest(text or "", depth, exclude=ids, method=method)
            if loaded_only:
                answer.rows = [r for r in answer.rows if not r.stub][:top]
                for n, r in enumerate(answer.rows, 1):
                    r.rank = n
    if batch is not None:
        _write_batch(answers, out, fmt, loaded_only)  # type: ignore[arg-type]  # out checked above
        return
    _print_answer(answer, record, fmt)


def _write_batch(answers: dict[str, Any], out: Path, fmt: str, loaded_only: bool) -> None:
    from scholarkg.benchmark.metrics.trec import write_run

    run = {qid: {r.id: r.score for r in a.rows} for qid, a in answers.items()}
    if loaded_only:
        raise InputError("--loaded-only lists rows for reading; a TREC run keeps every work")
    write_run(out, run, tag="scholarkg-suggest")
    n = sum(len(a.rows) for a in answers.values())
    if fmt == OutputFormat.json:
        print(to_json({"run": str(out), "queries": len(answers), "rows": n}))
    else:
        console.print(f"wrote {n} rows for {len(answers)} queries to {out}", highlight=False)


def _print_answer(answer: Any, record: Any, fmt: str) -> None:
    if fmt == OutputFormat.json:
        data = answer.as_dict()
        data["fit"] = None if record is None else record.as_dict()
        print(to_json(data))
        return
    rows = [
        {
            "rank": r.rank,
            "id": r.id,
            "stub": "stub" if r.stub else "",
            "year": r.year,
            "title": r.title or "(no title: a reference known by its id)",
            "why": r.why(),
        }
        for r in answer.rows
    ]
    if fmt == OutputFormat.csv:
        print_rows([r.as_dict() | {"why": r.why()} for r in answer.rows], "csv")
        return
    print_rows(rows, "table", title=f"works to cite ({answer.fusion})", nowrap=("id",))
    for note in answer.notes:
        err_console.print(f"note: {note}", highlight=False)
    if record is not None:
        err_console.print(record.summary(), highlight=False, style="dim")


def related(
    work: Annotated[
        str, typer.Argument(help="The work: DOI, OpenAlex, arXiv or S2 id, alias or node id.")
    ],
    top: TopOpt = 10,
    loaded_only: LoadedOnlyOpt = False,
    model: ModelOpt = "minilm",
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Works related to WORK: co-citation (works citing both), bibliographic coupling
    (references shared), FastRP graph embedding and text, fused; each row gives the counts
    and similarities behind it."""
    from scholarkg.recommend.related import related_works
    from scholarkg.services.paper_lookup import resolve_paper

    with store_session() as store, stage_progress(unit=_unit) as progress:
        paper = resolve_paper(store, work)
        result = related_works(
            store, paper.id, k=top, loaded_only=loaded_only, model=model, progress=progress
        )
    if fmt == OutputFormat.json:
        print(to_json({"work": paper.as_dict(), **result.as_dict()}))
        return
    rows = [r.as_row() for r in result.rows]
    if fmt == OutputFormat.csv:
        print_rows(rows, "csv")
        return
    title = f"related to {paper.id}" + (f": {paper.title}" if paper.title else "")
    print_rows(rows, "table", title=title, nowrap=("id",))
    for note in result.notes:
        err_console.print(f"note: {note}", highlight=False)

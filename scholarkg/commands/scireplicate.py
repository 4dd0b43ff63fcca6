"""``scholarkg scireplicate search-…``: the Sci-Reproducer agents' look-ups on the graph.

Each verb is one method of :class:`scholarkg.benchmark.tasks.scireplicate.lookups.
ScireplicateLookups` (named Cypher queries and the section full-text index). ``--task``
(``<paper_id>:<task_id>``) picks the paper and masks that task's target body, as the agent
sees the repository; ``--paper`` alone shows everything.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    no_csv,
    store_session,
    to_json,
)

app = typer.Typer(
    help="SciReplicate-Bench agent look-ups (paper sections, literature, code) on the graph.",
    no_args_is_help=True,
)

PaperOpt = Annotated[str | None, typer.Option("--paper", help="The paper's paper_id (0..35).")]
TaskOpt = Annotated[
    str | None,
    typer.Option("--task", help="<paper_id>:<task_id>: its paper, with its target body masked."),
]


def _lookups(store: Any, paper: str | None, task: str | None) -> Any:
    from scholarkg.benchmark.tasks.scireplicate.lookups import ScireplicateLookups

    return ScireplicateLookups(store, paper, task=task)


def _emit(payload: Any, fmt: str, text: str) -> None:
    no_csv(fmt, "a lookup's answer")
    if fmt == "json":
        print(to_json(payload))
    else:
        console.print(text, highlight=False, markup=False, soft_wrap=True)


@app.command("search-paper")
def search_paper(
    query: Annotated[str, typer.Argument(help="Words to look for in the paper's sections.")],
    paper: PaperOpt = None,
    task: TaskOpt = None,
    k: Annotated[int, typer.Option("-k", min=1, help="Sections to return.")] = 3,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """SearchPaper: the paper's sections that best match QUERY (full-text index)."""
    with store_session() as store:
        hits = _lookups(store, paper, task).search_paper(query, k=k)
    text = "\n\n".join(f"## {h.title} [{h.label or '-'}]\n{h.text}" for h in hits) or "no match"
    _emit([h.as_dict() for h in hits], fmt, text)


@app.command("search-section")
def search_section(
    label: Annotated[str, typer.Argument(help="A \\label (sec:method) or a section title.")],
    paper: PaperOpt = None,
    task: TaskOpt = None,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """SearchSection: a section of the paper by its label or title."""
    with store_session() as store:
        hit = _lookups(store, paper, task).search_section(label)
    text = f"## {hit.title} [{hit.label or '-'}]\n{hit.text}" if hit else "no such section"
    _emit(hit.as_dict() if hit else None, fmt, text)


@app.command("search-literature")
def search_literature(
    ref: Annotated[str, typer.Argument(help="Bibliography key or words of the cited title.")],
    query: Annotated[str, typer.Argument(help="What to look for in the cited paper.")] = "",
    paper: PaperOpt = None,
    task: TaskOpt = None,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """SearchLiterature: a paper the paper cites, and what it (or the citing text) says."""
    with store_session() as store:
        hit = _lookups(store, paper, task).search_literature(ref, query)
    if hit is None:
        _emit(None, fmt, "no such cited paper")
        return
    lines = [f"{hit.title} [{hit.bib_key}] ({hit.paper})"]
    if hit.abstract:
        lines.append(f"abstract: {hit.abstract}")
    lines += [f"cited as: {s}" for s in hit.citing_sentences]
    lines += [f"## {s.title}\n{s.text}" for s in hit.sections]
    _emit(hit.as_dict(), fmt, "\n".join(lines))


@app.command("search-code")
def search_code(
    name: Annotated[str, typer.Argument(help="fn, Class, Class.method or pkg.module.fn.")],
    paper: PaperOpt = None,
    task: TaskOpt = None,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """SearchCode: the definition of a class, function, method, global or attribute."""
    with store_session() as store:
        hits = _lookups(store, paper, task).search_code(name)
    text = "\n\n".join(
        f"# {h.path}:{h.start_line}-{h.end_line} {h.kind} {h.namespace}\n{h.source}" for h in hits
    )
    _emit([h.as_dict() for h in hits], fmt, text or "no definition")


@app.command("search-file")
def search_file(
    path: Annotated[str, typer.Argument(help="A path or path suffix (utils/helpers.py).")],
    paper: PaperOpt = None,
    task: TaskOpt = None,
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """SearchFile: the content of a repository file."""
    with store_session() as store:
        hit = _lookups(store, paper, task).search_file(path)
    _emit(hit.as_dict() if hit else None, fmt, f"# {hit.path}\n{hit.content}" if hit else "no file")

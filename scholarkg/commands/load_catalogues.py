"""``scholarkg load openalex | arxiv | crossref | bibtex``: the open catalogues and a
researcher's own bibliography, one Paper per work.

Each verb streams its files through identity resolution (``loaders/identity.py``: a record
lands on the Paper that shares any of its ids, whatever source created it), then the usual
resumable MERGE batches (``loaders/steps.run_steps``: checkpoints, ``--resume``). The bar
shows works per second. ``load openalex --bulk`` builds a *new* graph from a snapshot instead
(``loaders/openalex_bulk.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Annotated

import typer

from scholarkg.commands.common import console, set_interrupted_note, settings, store_session
from scholarkg.commands.load_common import BatchOpt, ResumeOpt, interrupt_hint, stop_hint
from scholarkg.console import err_console, progress_display
from scholarkg.errors import InputError, NotSupported, ScholarKGError
from scholarkg.loaders import chunk_size
from scholarkg.loaders import steps as steps_lib
from scholarkg.loaders.held_references import HeldReferences
from scholarkg.loaders.identity import IdentityResolver, SourceGroup, mark_existing_stubs
from scholarkg.loaders.openalex_updates import UpdatePlan
from scholarkg.loaders.steps import LoadSummary, Step
from scholarkg.loaders.summary import print_summary
from scholarkg.store.base import GraphStore

PathsArg = Annotated[
    list[Path], typer.Argument(exists=True, help="Files or folders (plain or .gz).")
]


def run_catalogue_load(
    files: Sequence[Path],
    read: Callable[[Path], Iterable[SourceGroup]],
    *,
    kind: str,
    title: str,
    resume: bool,
    batch_size: int | Callable[[GraphStore, LoadSummary], int],
    after: Callable[[GraphStore, IdentityResolver, LoadSummary], None] | None = None,
    expected: int | Callable[[Sequence[Path]], int | None] | None = None,
    before: Callable[[GraphStore, LoadSummary], Sequence[Path]] | None = None,
    done: Callable[[GraphStore, IdentityResolver, Path], None] | None = None,
    held: Callable[[GraphStore, Sequence[Path]], HeldReferences | None] | None = None,
) -> LoadSummary:
    """Schema, one resumable step per file through one resolver, the summary table;
    ``expected`` (the works all files hold, when known, or how to count them in the files
    read) gives the progress an ETA.
    ``before`` may narrow ``files`` once the store is open (``load openalex`` skips the
    partitions the graph took); ``done`` runs after each file is wholly stored;
    ``batch_size`` may be chosen once the store is open too (``load openalex`` without
    ``--batch-size``: ``loaders/chunk_size.py``); ``held`` gives the resolver the load's
    foresight (``load openalex``: ``loaders/held_references.py``), whose references still
    held at the end are written before the last merges."""
    summary = LoadSummary()
    with store_session(write=True, creates_graph=True) as store:
        store.apply_schema()
        if before is not None:
            files = before(store, summary)
        upgraded = mark_existing_stubs(store)
        if upgraded:
            summary.notes.append(
                f"{upgraded:,} Paper(s) known only by an id (loaded before the Stub label) "
                "labelled Stub"
            )
        if callable(batch_size):
            batch_size = batch_size(store, summary)
        held_refs = held(store, files) if held is not None else None
        resolver = IdentityResolver(store, chunk=batch_size, held=held_refs)

        def step(f: Path) -> Step:
            return Step(
                kind, f, kind, lambda: resolver.resolve(read(f)), family=False,
                done=None if done is None else partial(done, store, resolver, f),
                resolver=resolver,
            )  # fmt: skip

        steps = [step(f) for f in files]
        try:
            total = expected(files) if callable(expected) else expected
            with progress_display(unit="works", expected=total) as progress:
                steps_lib.run_steps(
                    store, steps, settings=settings(), resume=resume, batch_size=batch_size,
                    summary=summary, progress=progress,
                )  # fmt: skip
            if held_refs:  # what is still held (one stage line, also in a log)
                with progress_display(unit="records") as show:
                    left = resolver.write_held(
                        batch_size, progress=partial(show, "writing the references still held")
                    )
            else:
                left = resolver.write_held(batch_size)  # nothing: the journal goes
            if left:
                summary.notes.append(
                    f"{left:,} reference(s) held for a work whose record did not come "
                    "(or held again by a resumed load) written at the end"
                )
            resolver.finish()
            if after is not None:
                after(store, resolver, summary)
        except ScholarKGError:
            if summary.stopped is not None:
                err_console.print(f"[yellow]{stop_hint(summary)}[/yellow]")
            raise
        except KeyboardInterrupt:  # Ctrl-C, SIGTERM: cli.main says this line
            set_interrupted_note(interrupt_hint(summary))
            raise
        finally:
            summary.notes += resolver.report.notes()
            if held_refs is not None:
                held_refs.close()
        summary.graph = store.counts()
    print_summary(summary, title=title)
    return summary


def load_openalex(
    paths: PathsArg,
    resume: ResumeOpt = False,
    batch_size: Annotated[
        int | None,
        typer.Option(
            "--batch-size",
            min=1,
            help="Works resolved and written at a time (default 2,000; 4,000 on a graph "
            "already holding 500,000 Papers or more, where it loads faster).",
        ),
    ] = None,
    bulk: Annotated[
        bool,
        typer.Option(
            "--bulk",
            help="Build a NEW graph from a snapshot (GRAPH.BULK / Neo4j's importer; refuses "
            "a graph that has nodes).",
        ),
    ] = False,
    only_stubs: Annotated[
        bool,
        typer.Option(
            "--only-stubs",
            help="Load only the records that describe a work the graph holds as a stub "
            "(:Paper:Stub, known only as a reference); the rest are read, skipped and counted.",
        ),
    ] = False,
    everything: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Read every updated_date partition and merged_ids file of a snapshot folder, "
            "also those the graph took already (by default only newer ones are read).",
        ),
    ] = False,
) -> None:
    """OpenAlex works: a snapshot folder (data/works/updated_date=…/part_*.gz, with
    data/merged_ids), part files, JSONL, or saved API pages {"meta", "results"}.

    Re-running on a newer snapshot keeps the graph current: each work's properties and
    OpenAlex reference list are replaced, references from other sources stay. From a snapshot
    folder only the updated_date partitions newer than those the graph took (recorded in the
    graph) and the merged_ids files since then are read; --all reads everything.
    With --only-stubs, fills in the graph's stubs from these files and loads nothing else.
    """
    from scholarkg.loaders import openalex
    from scholarkg.loaders import openalex_updates as updates

    works, merged = openalex.snapshot_files(paths)
    merged_authors = openalex.merged_author_files(paths)
    if only_stubs:
        if bulk:
            raise InputError(
                "--only-stubs fills in the stubs of an existing graph; --bulk builds a new "
                "graph: use one or the other"
            )
        _load_openalex_stubs(
            works, merged, merged_authors, resume=resume,
            batch_size=batch_size or chunk_size.DEFAULT_CHUNK,
        )  # fmt: skip
        return
    if bulk:
        _load_openalex_bulk(works, merged, updates.plan_update(paths, works, merged,
                                                               updates.TakenState()))  # fmt: skip
        _bulk_author_identity(merged_authors)
        return
    plan = updates.plan_update(paths, works, merged, updates.TakenState(), everything=True)

    def skip_taken(store: GraphStore, summary: LoadSummary) -> list[Path]:
        nonlocal plan
        plan = updates.plan_update(
            paths, works, merged, updates.taken_state(store), everything=everything
        )
        summary.notes += plan.notes()
        parser.expect(plan.works)  # each file's first chunks parsed while the one before ends
        return plan.works

    def partition_done(store: GraphStore, resolver: IdentityResolver, path: Path) -> None:
        day = plan.completes.get(path)
        if day is not None:  # the partition is wholly stored: its merges first, then the record
            resolver.finish()
            updates.record_taken(store, updated_through=day)

    def retire(store: GraphStore, resolver: IdentityResolver, summary: LoadSummary) -> None:
        from scholarkg.loaders.identity import retire_ids

        for path in plan.merged:
            n = retire_ids(store, openalex.read_merged_ids(path), resolver)
            summary.notes.append(f"{path.name}: {n:,} stored work(s) retired as merged")
        summary.notes += retire_author_files(store, merged_authors)
        updates.record_taken(store, merged_through=plan.merged_through)

    # parse workers pay off once there is more to parse than their start-up costs (~1 s)
    big = sum(f.stat().st_size for f in works) >= PARSE_WORKERS_FROM_BYTES
    first_chunk = batch_size or chunk_size.DEFAULT_CHUNK  # until the store says otherwise
    with openalex.WorkParser(1, ahead_lines=parse_ahead(first_chunk)) as parser:
        if big:
            parser.warm()  # it starts while the store opens

        def chunk(store: GraphStore, summary: LoadSummary) -> int:
            """``--batch-size``, else the chunk the graph's size calls for (said in the
            summary), with the parser's lead to match."""
            if batch_size is not None:
                return batch_size
            papers = chunk_size.stored_papers(store)
            chosen = chunk_size.chunk_for(papers)
            if chosen != chunk_size.DEFAULT_CHUNK:
                summary.notes.append(
                    f"chunks of {chosen:,} works: the graph held {papers:,} Papers "
                    f"(--batch-size chooses another)"
                )
            parser.look_ahead(parse_ahead(chosen))
            return chosen

        run_catalogue_load(
            works, partial(openalex.read_works, parser=parser if big else None),
            kind="openalex-works", title="load openalex", resume=resume,
            batch_size=chunk, after=retire, expected=manifest_works,
            before=skip_taken, done=partition_done, held=openalex_foresight,
        )  # fmt: skip


def openalex_foresight(store: GraphStore, files: Sequence[Path]) -> HeldReferences:
    """``load openalex``'s foresight: the works ``files`` describe (read once before the
    load, ``loaders/coming_works.py``), and the graph's journal of references held
    (``loaders/held_references.py``), with what an earlier run left held."""
    from scholarkg.loaders import openalex
    from scholarkg.loaders.checkpoint import checkpoint_scope_prefix
    from scholarkg.loaders.coming_works import scan_coming_works
    from scholarkg.loaders.held_references import journal_path

    cfg = settings()
    with progress_display(unit="works") as show:

        def progress(done: int) -> None:
            show("reading ahead: the works the files describe", done)

        coming = scan_coming_works(files, is_page=openalex.is_page, progress=progress)
    journal = journal_path(cfg.checkpoints_dir, checkpoint_scope_prefix(cfg, store.graph))
    return HeldReferences(coming, journal)


#: work files this large (bytes, gzipped or not) are parsed in a worker process
PARSE_WORKERS_FROM_BYTES = 2_000_000


def parse_ahead(chunk: int) -> int:
    """How many lines the parse worker reads ahead of a load resolving ``chunk`` works at a
    time: two chunks, at most 40,000 lines (each line ahead holds a parsed work)."""
    return min(2 * chunk, 40_000)


def _load_openalex_stubs(
    works: Sequence[Path],
    merged: Sequence[Path],
    merged_authors: Sequence[Path],
    *,
    resume: bool,
    batch_size: int,
) -> None:
    """``load openalex --only-stubs``: retired ids first (a stub named by a retired W id is
    then found by its survivor's record), a scan of every record for those that describe a
    stub (``loaders/stubs.py``; no writes meanwhile), then the normal load of only those.
    The scan is kept until the load completes, so a rerun after an interruption loads the
    same records (``--resume`` then skips what its checkpoints hold)."""
    from scholarkg.loaders import openalex, stubs
    from scholarkg.loaders.checkpoint import checkpoint_scope_prefix
    from scholarkg.loaders.identity import retire_ids

    cfg = settings()
    notes: list[str] = []
    with store_session(write=True, creates_graph=True) as store:
        store.apply_schema()
        mark_existing_stubs(store)
        journal = stubs.StubJournal(
            cfg.checkpoints_dir, checkpoint_scope_prefix(cfg, store.graph) + "openalex-stubs",
            works,
        )  # fmt: skip
        scan = journal.load()
        continued = scan is not None
        if scan is None:
            resume = False  # a new scan chooses new records: old checkpoints do not apply
            resolver = IdentityResolver(store, chunk=batch_size)
            for path in merged:
                n = retire_ids(store, openalex.read_merged_ids(path), resolver)
                notes.append(f"{path.name}: {n:,} stored work(s) retired as merged")
            notes += retire_author_files(store, merged_authors)
            with progress_display(unit="records", expected=manifest_works(works)) as show:
                scan = stubs.scan_for_stubs(
                    store, works, openalex.iter_work_objects, openalex.work_keys,
                    batch_size=batch_size, progress=show,
                )  # fmt: skip
            journal.save(scan)
    chosen = scan.selected
    files = [f for f in works if str(f) in chosen]

    def read(path: Path) -> Iterable[SourceGroup]:
        return openalex.read_selected_works(path, chosen[str(path)])

    def after(store: GraphStore, resolver: IdentityResolver, summary: LoadSummary) -> None:
        summary.notes += notes
        summary.notes += stubs.filled_note(scan, stubs.count_stubs(store), continued=continued)
        journal.clear()

    run_catalogue_load(
        files, read, kind="openalex-stubs", title="load openalex --only-stubs", resume=resume,
        batch_size=batch_size, after=after, expected=scan.chosen or None,
    )  # fmt: skip


def _bulk_author_identity(merged_authors: Sequence[Path]) -> None:
    """After ``load openalex --bulk``: the Authors of one person that the bulk files keyed
    apart (two OpenAlex author ids sharing an ORCID) merged as the incremental load merges
    them, then OpenAlex's retired author ids applied, in the incremental load's order."""
    from scholarkg.loaders.author_identity import merge_shared_author_ids

    with store_session(write=True, creates_graph=True) as store:
        pairs = merge_shared_author_ids(store)
        if pairs:
            console.print(f"{len(pairs):,} Author(s) merged into another node of their person")
        for note in retire_author_files(store, merged_authors):
            console.print(note)


def retire_author_files(store: GraphStore, files: Sequence[Path]) -> list[str]:
    """Apply OpenAlex's ``merged_ids/authors`` files (retired author ids); one note each."""
    from scholarkg.loaders import openalex
    from scholarkg.loaders.author_identity import retire_authors

    notes = []
    for path in files:
        n = retire_authors(store, openalex.read_merged_author_ids(path))
        notes.append(f"{path.name}: {n:,} stored author(s) retired as merged (authors)")
    return notes


def manifest_works(files: Sequence[Path]) -> int | None:
    """How many works ``files`` hold by the snapshot's ``data/works/manifest`` (each
    entry's ``meta.record_count``, keyed by its ``updated_date=…/part_….gz`` tail), or
    None when a file is not in a manifest: only for the progress lines' ETA, so a missing
    or unreadable manifest is no error."""
    import json

    counts: dict[str, int] = {}
    read: set[Path] = set()
    total = 0
    for f in files:
        manifest = f.parent.parent / "manifest"
        if manifest not in read:
            read.add(manifest)
            try:
                entries = json.loads(manifest.read_text(encoding="utf-8"))["entries"]
                for entry in entries:
                    tail = "/".join(str(entry["url"]).rsplit("/", 2)[-2:])
                    counts[tail] = int(entry["meta"]["record_count"])
            except (OSError, ValueError, KeyError, TypeError):
                return None
        n = counts.get(f"{f.parent.name}/{f.name}")
        if n is None:
            return None
        total += n
    return total or None


def load_arxiv(paths: PathsArg, resume: ResumeOpt = False, batch_size: BatchOpt = 2_000) -> None:
    """arXiv's metadata snapshot (arxiv-metadata-oai-snapshot.json: one JSON object per line)."""
    from scholarkg.loaders import arxiv

    files = _files(paths, (".json", ".jsonl", ".gz"))
    run_catalogue_load(
        files, arxiv.read_snapshot, kind="arxiv-metadata", title="load arxiv",
        resume=resume, batch_size=batch_size,
    )  # fmt: skip


def load_crossref(paths: PathsArg, resume: ResumeOpt = False, batch_size: BatchOpt = 2_000) -> None:
    """Crossref works: saved REST responses (message.items), arrays or JSONL of works."""
    from scholarkg.loaders import crossref

    files = _files(paths, (".json", ".jsonl", ".gz"))
    run_catalogue_load(
        files, crossref.read_works, kind="crossref-works", title="load crossref",
        resume=resume, batch_size=batch_size,
    )  # fmt: skip


def load_bibtex(paths: PathsArg, resume: ResumeOpt = False, batch_size: BatchOpt = 2_000) -> None:
    """Your own bibliography: .bib files (BibTeX or biblatex; a folder: its *.bib files).

    Each entry lands on the work's one Paper (by its doi, else its arXiv eprint, url or
    "arXiv preprint" journal, else its title and year), beside what OpenAlex, arXiv and
    Crossref loaded; its authors are aligned to the work's listed ones. A .bib ranks below
    the catalogues: it fills in what they lack and overrides nothing. Reloading a file
    replaces only what it stated; a bad entry stops the load naming file, line, key and field.
    """
    from scholarkg.loaders import bibtex

    files = _files(paths, (".bib", ".bib.gz"))
    run_catalogue_load(
        files, bibtex.read_bibliography, kind="bibtex", title="load bibtex",
        resume=resume, batch_size=batch_size,
    )  # fmt: skip


def _files(paths: Sequence[Path], suffixes: tuple[str, ...]) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(suffixes))
        else:
            out.append(p)
    return out


#: what a bulk stage counts, by its last word ("read works", "parse edges", "schema", ...)
_BULK_UNITS = {"nodes": "nodes", "edges": "relationships", "schema": "indexes and constraints"}


def _bulk_unit(stage: str) -> str:
    if stage.startswith("importer "):  # Neo4j's importer's stages count percent
        return "%"
    return _BULK_UNITS.get(stage.split()[-1], "works")


def _load_openalex_bulk(works: Sequence[Path], merged: Sequence[Path], plan: UpdatePlan) -> None:
    from collections import Counter

    from rich.table import Table

    from scholarkg.loaders.left_out import describe_left_out
    from scholarkg.loaders.openalex_bulk import bulk_load_openalex
    from scholarkg.loaders.openalex_updates import record_taken

    cfg = settings()
    if cfg.backend == "neo4j" and cfg.neo4j.uri:
        raise NotSupported(
            "the offline importer needs the database files, so --bulk runs on the managed "
            "Neo4j only; load without --bulk on the server at NEO4J_URI"
        )
    with progress_display(unit=_bulk_unit) as show:

        def progress(stage: str, done: int, total: int | None = None) -> None:
            show(stage, done, total)

        with store_session(write=True, creates_graph=True) as store:
            result = bulk_load_openalex(store, works, merged, settings=cfg, progress=progress)
    with store_session(write=True, creates_graph=True) as store:
        if cfg.backend == "neo4j":  # the importer restarted the server: a new session
            store.apply_schema()
        # the partitions taken, as an incremental load records them: a later update of the
        # snapshot folder reads only newer ones
        days = sorted(plan.completes.values())
        record_taken(
            store, updated_through=days[-1] if days else None, merged_through=plan.merged_through
        )
    # what the records held and the graph does not, in the incremental load's words
    left_out = describe_left_out(result.pop("left_out", None) or Counter())
    table = Table(title="load openalex --bulk")
    table.add_column("what")
    table.add_column("value", justify="right")
    for key, value in result.items():
        text = (
            f"{value:,.1f}"
            if isinstance(value, float)
            else f"{value:,}"
            if isinstance(value, int)
            else str(value)
        )
        table.add_row(key.replace("_", " "), text)
    console.print(table)
    for line in left_out:
        console.print(line, highlight=False, soft_wrap=True)


def mark_stubs() -> None:
    """Label every Paper that no source record described (no title, no source: a work known
    only by an id, as someone's reference) ``Stub``: the one-shot upgrade of a graph loaded
    before the label existed. Loads label stubs themselves (and run this on a graph whose
    Papers carry no Stub label yet); safe to run again."""
    with store_session(write=True, creates_graph=True) as store:
        marked = mark_existing_stubs(store, force=True)
        stubs = store.counts().nodes.get("Stub", 0)
    console.print(f"labelled {marked:,} Paper(s) Stub; the graph holds {stubs:,} stub(s)")

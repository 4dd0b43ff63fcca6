"""Loading a sequence of files into the graph: the steps, their resumable run, the summary.

Every ``scholarkg load`` verb and the demo do the same thing: for each file, open its
checkpoint (scoped to the store and graph), stream the loader's groups through
``checkpoint.run_resumable`` and collect the counts. That is library work, so it lives here;
the CLI (``commands/load.py``) adds the progress bar and the printed summary.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scholarkg.errors import ScholarKGError
from scholarkg.loaders.checkpoint import (
    Checkpoint,
    Group,
    LoadStats,
    SourceDigests,
    checkpoint_scope_prefix,
    run_resumable,
)
from scholarkg.loaders.identity import IdentityResolver
from scholarkg.loaders.left_out import describe_left_out
from scholarkg.schema.text import describe_cleaning
from scholarkg.store.base import GraphCounts, GraphStore
from scholarkg.store.batch_writes import BatchWriteStore

if TYPE_CHECKING:
    from scholarkg.config import Settings

#: ``progress(stage, records done, total or None while streaming)``
StepProgress = Callable[[str, int, "int | None"], None]


@dataclass
class Step:
    """One file to load: a label for the bar, the file, the loader kind and its groups.

    ``family``: the groups come from a benchmark family's loader, so :func:`run_steps` routes
    their Paper records through identity resolution in family mode (``loaders/identity.py``:
    each record keeps the id the family's tasks know; a node an open catalogue made for the
    same work merges into it). The open catalogues' steps resolve their own groups (one
    resolver over all their files) and set ``family=False``.
    """

    label: str
    source: Path
    kind: str
    groups: Callable[[], Iterable[Group]]
    family: bool = True
    #: called once the file is wholly stored (``load openalex`` records a snapshot partition
    #: as taken when its last file is done: ``loaders/openalex_updates.py``)
    done: Callable[[], None] | None = None
    #: the resolver a catalogue step's ``groups`` pass through: a resumed load tells it how
    #: many records it skips, so resolution applies none of their statements (no prune:
    #: ``IdentityResolver.skip``; a family step's resolver is made here, and told the same)
    resolver: IdentityResolver | None = None
    #: a second pass over a file another step reads (a Graph API response's reference lists,
    #: read after its papers are stored): not another file in the summary's count, and no
    #: warning when it finds nothing
    reread: bool = False


@dataclass
class LoadSummary:
    """Everything a load command prints at the end (and tests inspect)."""

    stats: list[LoadStats] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unknown_directions: set[str] = field(default_factory=set)
    #: what the user should look at although the load succeeded (printed as ``warning:``)
    warnings: list[str] = field(default_factory=list)
    #: the graph's node/relationship totals after the load
    graph: GraphCounts | None = None
    #: set when a step stopped on bad input or a failed write: (its file, source records
    #: stored before the error, i.e. what its checkpoint claims)
    stopped: tuple[Path, int] | None = None
    #: the stop was a failed write, undone back to the checkpoint (not a bad source record)
    stopped_by_store: bool = False
    #: the stop was Ctrl-C or SIGTERM
    interrupted: bool = False
    #: the undo of the batch being written failed (the server was gone): beyond what
    #: ``stopped`` counts, part of that batch is in the graph until ``--resume`` completes it
    undo_failed: bool = False

    def totals(self) -> tuple[Counter[str], Counter[str], Counter[str]]:
        nodes: Counter[str] = Counter()
        rels: Counter[str] = Counter()
        skipped: Counter[str] = Counter()
        for st in self.stats:
            nodes.update(st.write.nodes)
            rels.update(st.write.relationships)
            skipped.update(st.write.skipped_relationships)
            for (rel_type, _), n in st.left_out.items():  # not stored by the reader's choice
                skipped[rel_type] += n
        return nodes, rels, skipped


def shown_name(path: Path) -> str:
    """How progress lines and notes name a file: its name, with its snapshot partition
    folder when it sits in one (every OpenAlex partition holds a ``part_000.gz``)."""
    if path.parent.name.startswith("updated_date="):
        return f"{path.parent.name}/{path.name}"
    return path.name


def run_steps(
    store: GraphStore,
    steps: Sequence[Step],
    *,
    settings: Settings,
    resume: bool = False,
    batch_size: int = 5_000,
    summary: LoadSummary | None = None,
    progress: StepProgress | None = None,
) -> LoadSummary:
    """Run ``steps`` in order; checkpoints live under ``<home>/checkpoints`` of ``settings``.

    On bad input the ``InputError`` propagates after ``summary.stopped`` records how much of
    that file is stored, so the caller can say how to resume. The steps run inside the
    store's ``loading()`` (``BatchWriteStore.loading``: the embedded server merges pending
    matrix changes less often while a load reads between its writes).
    """
    loading = store.loading() if isinstance(store, BatchWriteStore) else nullcontext()
    with loading:
        return _run_steps(
            store, steps, settings=settings, resume=resume, batch_size=batch_size,
            summary=summary, progress=progress,
        )  # fmt: skip


def _run_steps(
    store: GraphStore,
    steps: Sequence[Step],
    *,
    settings: Settings,
    resume: bool,
    batch_size: int,
    summary: LoadSummary | None,
    progress: StepProgress | None,
) -> LoadSummary:
    summary = summary if summary is not None else LoadSummary()
    directory = settings.checkpoints_dir
    for step in steps:
        stage = f"{step.label} ({shown_name(step.source)})"
        if progress is not None:
            progress(stage, 0, None)
        checkpoint = Checkpoint.open(
            step.source,
            directory=directory,
            scope=checkpoint_scope_prefix(settings, store.graph) + step.kind,
        )

        def count(n: int, stage: str = stage) -> None:
            if progress is not None:
                progress(stage, n, None)

        stats = LoadStats(source=str(step.source), reread=step.reread)
        resolver = IdentityResolver(store, chunk=batch_size, family=True) if step.family else None
        digests: SourceDigests | None = None
        if (told := resolver or step.resolver) is not None:
            told.skip(checkpoint.skipped_outright(resume=resume))
            told.source = str(Path(step.source).resolve())  # the holds' source records
            # the checkpoint vouches for the file's records as read, not as resolved
            told.digests = digests = SourceDigests()
        groups = step.groups()
        try:
            run_resumable(
                store,
                resolver.resolve(groups) if resolver is not None else groups,
                source=step.source,
                checkpoint=checkpoint,
                resume=resume,
                batch_size=batch_size,
                progress=count,
                stats=stats,
                digests=digests,
            )
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the CLI says what is stored
            summary.stopped = (step.source, checkpoint.done)
            summary.interrupted = True
            summary.undo_failed = stats.undo_failed
            raise
        except ScholarKGError:
            summary.stopped = (step.source, checkpoint.done)
            summary.stopped_by_store = stats.write_failed
            summary.undo_failed = stats.undo_failed
            if resolver is not None and not stats.write_failed:
                # bad input: what was read before it is stored, so its merges can run
                resolver.finish()
            raise
        finally:
            if told is not None:
                told.digests = None  # this file's: a later read through it digests nothing
        if resolver is not None:
            resolver.finish()
            summary.notes += [f"{shown_name(step.source)}: {n}" for n in resolver.report.notes()]
        if step.done is not None:
            step.done()
        if progress is not None:
            progress(stage, stats.records, stats.records)
        summary.stats.append(stats)
        if not stats.records and not stats.skipped_on_resume and not step.reread:
            # not an error (an empty partition or edge list can be right), but a wrong or
            # truncated file loads the same way: rc 0 and "0 source record(s)" said nothing
            summary.warnings.append(
                f"{step.source}: no records in this file (it is empty, or holds only blank "
                "lines or a header); nothing was loaded from it"
            )
        if stats.cleaned:
            total = sum(stats.cleaned.values())
            summary.notes.append(
                f"{shown_name(step.source)}: cleaned {total:,} field value(s) "
                "(control characters, BOMs, CR line ends, lone surrogates, NaN → missing):"
            )
            summary.notes += [f"  {line}" for line in describe_cleaning(stats.cleaned)]
        if stats.left_out:
            summary.notes += [
                f"{shown_name(step.source)}: {line}" for line in describe_left_out(stats.left_out)
            ]
        if stats.skipped_on_resume:
            # the readers count cleaning and left-out relationships as they read, and a
            # resumed load reads the records it skips again: the counts above include them
            counted = (
                " (read again: the counts above include them)"
                if (stats.cleaned or stats.left_out)
                else ""
            )
            summary.notes.append(
                f"{shown_name(step.source)}: resumed, skipped {stats.skipped_on_resume:,} "
                f"record(s) already stored{counted}"
            )
        if stats.prefix_changed:
            summary.notes.append(
                f"{shown_name(step.source)}: file changed since the checkpoint; rewrote from the "
                "last verified point"
            )
    summary.graph = store.counts()
    return summary


# --------------------------------------------------------------------------- step builders


def apc_steps(
    papers: Path, citations: Path | None, comparisons: Path | None, *, chunks: bool
) -> list[Step]:
    """An APC collection: papers (with chunks) first, then the citation and comparison edges."""
    from scholarkg.loaders import apc
    from scholarkg.loaders.checkpoint import single_groups

    steps = [
        Step(
            "papers",
            papers,
            "apc-papers",
            lambda: apc.paper_groups(papers, chunks=chunks),
        )
    ]
    if citations:
        steps.append(
            Step(
                "citations",
                citations,
                "apc-citations",
                lambda: single_groups(apc.read_citations(citations)),
            )
        )
    if comparisons:
        steps.append(
            Step(
                "comparisons",
                comparisons,
                "apc-comparisons",
                lambda: single_groups(apc.read_comparisons(comparisons)),
            )
        )
    return steps


def pwc_steps(
    evaluation_tables: Path | None,
    papers: Path | None,
    links: Path | None,
    report: Any,
) -> list[Step]:
    """Papers with Code dumps; ``report`` (a ``PwcReport``) collects what the tables lacked."""
    from scholarkg.loaders import pwc

    steps = []
    # papers first: their full records (abstracts, authors) before rows add minimal ones
    if papers:
        steps.append(
            Step("pwc papers", papers, "pwc-papers", lambda: pwc.read_papers_with_abstracts(papers))
        )
    if evaluation_tables:
        steps.append(
            Step(
                "pwc evaluation tables",
                evaluation_tables,
                "pwc-evaluation-tables",
                lambda: pwc.read_evaluation_tables(evaluation_tables, report=report),
            )
        )
    if links:
        steps.append(Step("pwc code links", links, "pwc-links", lambda: pwc.read_links(links)))
    return steps


def s2_steps(
    files: Mapping[str, Path | None],
    report: Any,
    lookup: Any,
    *,
    workers: int = 0,
) -> list[Step]:
    """The steps loading Semantic Scholar dataset files (any subset), in dependency order.

    ``lookup`` is the store's corpus-id lookup (``loaders.corpus_lookup``); ``report`` the
    ``SkipReport`` collecting skipped lines; ``workers`` S2ORC parsing processes. One
    definition for ``load s2``, the demo and the tests.
    """
    from scholarkg.loaders.citerec_s2 import PAPER_LISTS, dataset_path, dataset_readers

    readers = dataset_readers(report, lookup, workers=workers)
    unknown = set(files) - {kind for kind, _ in readers} - set(PAPER_LISTS)
    if unknown:
        raise ValueError(f"unknown S2 dataset(s): {sorted(unknown)}")
    steps = []
    for kind, read in readers:
        path = dataset_path(kind, files)
        if path is not None:
            steps.append(
                Step(
                    f"s2 {kind}",
                    path,
                    f"s2-{kind}",
                    partial(read, path),
                    reread=kind in PAPER_LISTS,
                )
            )
    return steps


def synthetic_steps(files: dict[str, Path], report: Any) -> list[Step]:
    """The steps loading a written synthetic LEGOBench corpus (``write_corpus`` file map).

    Order: PwC, then APC (its richer paper records win on shared papers), then the ground
    truth last (its explicit metric directions win over the pattern table).
    """
    from scholarkg.loaders.legobench_graph import read_ground_truth

    gt = files["leaderboards"]
    return [
        *pwc_steps(
            files["evaluation_tables"], files["papers_with_abstracts"], files["links"], report
        ),
        *apc_steps(files["papers"], files["citations"], files["comparisons"], chunks=True),
        Step("ground truth", gt, "ground-truth", lambda: read_ground_truth(gt)),
    ]

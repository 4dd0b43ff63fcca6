"""SciReplicate-Bench ``Data.json`` (+ LaTeX sources, + repositories) -> records.

One group of records per paper (the checkpoint unit): the Paper, its sections and cited
papers (with ``papers_dir``), the Repository with its files and definitions (the task's target
file always comes from ``ori_python_file``, the others from ``repos_dir``), the CodeTasks with
TARGETS / DEPENDS_ON / CALLS_API edges, and each task's reference Implementation with its
ReasoningStep nodes and DATA_FLOW edges (``scholarkg/codegraph.py``, the released rules).

Paper ids follow ``schema/ids.py`` (arXiv id from the paper URL, else title), so a paper
loaded from another corpus is the same node. The release has one known clash (paper 33's URL
repeats paper 0's arXiv id): a later paper whose arXiv id is already taken by a paper with
another title gets the title-based id instead, and the load says so.

Annotated dependencies name code as the released annotations spell it: intra-file ``fn`` or
``Class.attr`` (relative to the target module), cross-file ``pkg.mod.fn``. Entities are keyed
by ``<repository>#<module>.<qualname>``, so an annotation and its parsed definition meet on
one node; when the definition is not loaded (no ``repos_dir``) an ``unresolved`` placeholder
stands in for it.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.codegraph import END_RE, ReasoningGraph, build_reasoning_graph
from scholarkg.errors import InputError
from scholarkg.loaders.checkpoint import Group
from scholarkg.loaders.scireplicate_data import PaperSpec, TaskSpec, module_name, read_benchmark
from scholarkg.loaders.scireplicate_sources import (
    LatexSources,
    ParsedFile,
    parse_python_file,
    python_files,
    read_latex_sources,
)
from scholarkg.schema import ids
from scholarkg.schema.records import (
    CodeTask,
    EdgeRecord,
    HasCode,
    HasSection,
    NodeRecord,
    Paper,
    ReasoningStep,
    Repository,
    Section,
    repository_id,
)
from scholarkg.schema.scireplicate import (
    CallsApi,
    CodeEntity,
    CodeFile,
    Contains,
    DataFlow,
    Defines,
    DependsOn,
    ExternalAPI,
    HasStep,
    HasTask,
    Implementation,
    Implements,
    LiteratureCitation,
    Targets,
)

log = logging.getLogger(__name__)

AnyRecord = NodeRecord | EdgeRecord


def code_sha(code: str) -> str:
    return hashlib.sha256(code.encode("utf-8")).hexdigest()[:16]


def codetask_id(task: TaskSpec) -> str:
    """The CodeTask node id (``codetask:scireplicate:<paper>:<task>``, ids.scoped_id rule)."""
    return ids.scoped_id("codetask", "scireplicate", f"{task.paper_index}:{task.task_index}")


@dataclass
class ScireplicateReport:
    """What the load found, for the summary (counted from the file as read)."""

    papers: int = 0
    tasks: Counter[str] = field(default_factory=Counter)
    steps: int = 0
    recovered_steps: int = 0
    data_flow_edges: int = 0
    recovered_edges: int = 0
    dependencies: Counter[str] = field(default_factory=Counter)
    sections: int = 0
    citations: int = 0
    files: int = 0
    entities: int = 0
    unresolved: int = 0
    unresolved_targets: int = 0
    notes: list[str] = field(default_factory=list)
    missing_sources: list[str] = field(default_factory=list)


def _first_dir(base: Path | None, relative: str | None, index: int) -> Path | None:
    """``base/relative``, ``base/<last part>`` or ``base/<paper index>``: the first that exists."""
    if base is None:
        return None
    candidates = []
    if relative:
        rel = Path(relative.strip().strip("/"))
        candidates += [base / rel, base / rel.name]
    candidates.append(base / str(index))
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None


def reference_graph_records(
    task: TaskSpec, graph: ReasoningGraph, impl_id: str
) -> tuple[list[AnyRecord], int, int, int, int]:
    """ReasoningStep nodes + HAS_STEP + DATA_FLOW of one implementation.

    Returns the records and the counts (well-formed steps, recovered steps, edges between
    well-formed steps, edges touching a recovered step).
    """
    ended = {int(m.group(1)) for m in END_RE.finditer(task.reference_body)}
    weights = graph.weights()
    lines = graph_lines(task.reference_body)
    out: list[AnyRecord] = []
    recovered: set[int] = set()
    for step in graph.steps:
        is_recovered = step.snippet not in ended
        if is_recovered:
            recovered.add(step.snippet)
        step_id = f"{impl_id}/step/{step.snippet}"
        out.append(
            ReasoningStep(
                id=step_id,
                implementation=impl_id,
                ordinal=step.snippet,
                text=step.text,
                weight=weights.get(step.snippet),
                start_line=step.start,
                end_line=step.end,
                recovered=is_recovered,
                code="\n".join(lines[step.start - 1 : step.end]),
            )
        )
        out.append(HasStep(start=impl_id, end=step_id))
    edges_ok = edges_recovered = 0
    for a, b in sorted(graph.edges):
        out.append(DataFlow(start=f"{impl_id}/step/{a}", end=f"{impl_id}/step/{b}"))
        if a in recovered or b in recovered:
            edges_recovered += 1
        else:
            edges_ok += 1
    n_steps = len(graph.steps)
    return out, n_steps - len(recovered), len(recovered), edges_ok, edges_recovered


def graph_lines(code: str) -> list[str]:
    """The lines the reasoning graph's line numbers refer to (the dedented code)."""
    import textwrap

    return textwrap.dedent(code).splitlines()


class _PaperBuilder:
    """Builds one paper's records (one checkpoint group)."""

    def __init__(
        self,
        paper: PaperSpec,
        paper_id: str,
        *,
        papers_dir: Path | None,
        repos_dir: Path | None,
        report: ScireplicateReport,
    ) -> None:
        self.paper = paper
        self.paper_id = paper_id
        self.papers_dir = papers_dir
        self.repos_dir = repos_dir
        self.report = report
        self.records: list[AnyRecord] = []
        self.defined: set[str] = set()
        #: (file path, def line) -> function/method entity id: targets are found by position
        self.by_position: dict[tuple[str, int], str] = {}
        self.repo_id = (
            repository_id(paper.repo_url) if paper.repo_url else f"repo:scireplicate/{paper.index}"
        )

    def build(self) -> list[AnyRecord]:
        self._paper_node()
        self._repository()
        for task in self.paper.tasks:
            self._task(task)
        return self.records

    # -- paper side --------------------------------------------------------------------
    def _paper_node(self) -> None:
        p = self.paper
        sources = self._latex()
        arxiv = ids.normalize_arxiv_id(p.url) if p.url else None
        self.records.append(
            Paper(
                id=self.paper_id,
                title=p.title,
                url=p.url,
                arxiv_id=arxiv if self.paper_id.startswith("arxiv:") else None,
                abstract=sources.abstract if sources else None,
                source="scireplicate",
            )
        )
        if sources is None:
            return
        for s in sources.sections:
            section = Section(
                paper=self.paper_id,
                ordinal=s.ordinal,
                title=s.title,
                level=s.level,
                label=s.label,
                text=s.text,
            )
            self.records += [
                section,
                HasSection(start=self.paper_id, end=section.id, ordinal=s.ordinal),
            ]
            self.report.sections += 1
        for entry in sources.bibliography:
            cited = _bib_paper(entry.fields, entry.title)
            if cited is None:
                continue
            self.records += [
                cited,
                LiteratureCitation(start=self.paper_id, end=cited.id, bib_key=entry.key),
            ]
            self.report.citations += 1

    def _latex(self) -> LatexSources | None:
        if self.papers_dir is None:
            return None
        root = _first_dir(self.papers_dir, self.paper.latex_code_path, self.paper.index)
        if root is None:
            self.report.missing_sources.append(f"paper {self.paper.index}: no LaTeX folder")
            return None
        return read_latex_sources(root)

    # -- repository side ---------------------------------------------------------------
    def _repository(self) -> None:
        p = self.paper
        # without a repository URL the graph still needs an anchor for the files
        repo = Repository(id=self.repo_id, url=p.repo_url or f"scireplicate/{p.index}")
        self.records += [repo, HasCode(start=self.paper_id, end=repo.id)]
        target_files = {t.file_path: t.ori_python_file for t in p.tasks}
        root = _first_dir(self.repos_dir, p.project_path, p.index)
        if self.repos_dir is not None and root is None:
            self.report.missing_sources.append(f"paper {p.index}: no repository folder")
        # a target file's content is the task's ori_python_file (the positions refer to it),
        # so its copy in the repository is never read
        files: dict[str, str] = dict(target_files)
        if root is not None:
            for rel in python_files(root):
                if rel.as_posix() not in files:
                    files[rel.as_posix()] = (root / rel).read_text(
                        encoding="utf-8", errors="replace"
                    )
        for path in sorted(files):
            self._file(path, files[path])

    def _file(self, path: str, content: str) -> None:
        module = module_name(path)
        parsed: ParsedFile = parse_python_file(content)
        code_file = CodeFile(
            repository=self.repo_id,
            path=path,
            module=module,
            content=content,
            parse_error=parsed.parse_error,
        )
        self.records += [code_file, Contains(start=self.repo_id, end=code_file.id)]
        self.report.files += 1
        for e in parsed.entities:
            namespace = f"{module}.{e.qualname}" if module else e.qualname
            entity = CodeEntity(
                repository=self.repo_id,
                namespace=namespace,
                name=e.name,
                kind=e.kind,
                file=code_file.id,
                qualname=e.qualname,
                signature=e.signature,
                source=e.source,
                start_line=e.start_line,
                end_line=e.end_line,
                body_start=e.body_start,
                body_end=e.body_end,
            )
            self.defined.add(entity.id)
            if e.kind in ("function", "method"):
                self.by_position[(path, e.start_line)] = entity.id
            self.records += [entity, Defines(start=code_file.id, end=entity.id)]
            self.report.entities += 1

    def _entity_ref(self, namespace: str) -> str:
        """The id of the entity ``namespace``; an ``unresolved`` placeholder if not loaded."""
        entity_id = f"{self.repo_id}#{namespace}"
        if entity_id not in self.defined:
            self.records.append(
                CodeEntity(
                    id=entity_id,
                    repository=self.repo_id,
                    namespace=namespace,
                    name=namespace.split(".")[-1],
                    kind="unresolved",
                )
            )
            self.defined.add(entity_id)
            self.report.unresolved += 1
        return entity_id

    # -- tasks -------------------------------------------------------------------------
    def _task(self, t: TaskSpec) -> None:
        tid = codetask_id(t)
        self.records.append(
            CodeTask(
                id=tid,
                paper=self.paper_id,
                task_id=f"{t.paper_index}:{t.task_index}",
                name=t.function_name,
                file_path=t.file_path,
                entity_type=t.type,
                namespace=t.namespace,
                description=t.description or t.docstring,
                paper_index=t.paper_index,
                task_index=t.task_index,
                indent=t.indent,
                latex_code=t.latex_code,
                arguments=t.arguments,
                argument_names=list(t.argument_names),
                returns=t.returns,
                return_names=list(t.return_names),
                dependency_text=t.dependency_text,
                intra_file=list(t.intra_file),
                cross_file=list(t.cross_file),
                external_apis=list(t.external_apis),
                missing_details=list(t.missing_details),
                mismatched_details=list(t.mismatched_details),
                reference_code=t.reference_body,
                signature=t.signature,
                signature_start=t.signature_position[0],
                signature_end=t.signature_position[1],
                body_start=t.body_position[0],
                body_end=t.body_position[1],
                script=t.script,
                completion_path=t.completion_path,
                project_path=self.paper.project_path,
                environment=self.paper.environment,
            )
        )
        self.report.tasks[t.type] += 1
        self.records.append(HasTask(start=self.paper_id, end=tid))
        # by the recorded def line first: two released namespaces misspell the def's name
        target = self.by_position.get((t.file_path, t.signature_position[0]))
        if target is None:
            target_ns = f"{t.module}.{_qualname(t)}" if t.module else _qualname(t)
            target = self._entity_ref(target_ns)
            self.report.unresolved_targets += 1
        self.records.append(Targets(start=tid, end=target))
        for dep in t.intra_file:
            ns = f"{t.module}.{dep}" if t.module else dep
            self.records.append(
                DependsOn(start=tid, end=self._entity_ref(ns), scope="intra", annotation=dep)
            )
            self.report.dependencies["intra-file"] += 1
        for dep in t.cross_file:
            self.records.append(
                DependsOn(start=tid, end=self._entity_ref(dep), scope="cross", annotation=dep)
            )
            self.report.dependencies["cross-file"] += 1
        for api in t.external_apis:
            node = ExternalAPI(name=api)
            self.records += [node, CallsApi(start=tid, end=node.id)]
            self.report.dependencies["external API"] += 1
        graph = build_reasoning_graph(t.reference_body)
        if graph.parse_error is not None:
            raise InputError(
                f"$[{t.paper_index}].task_details[{t.task_index}]: reference code does not "
                f"parse ({graph.parse_error})",
                field="ReferenceCode_With_Comments",
            )
        impl = Implementation(
            task=tid, kind="reference", code=t.reference_body, code_sha=code_sha(t.reference_body)
        )
        self.records += [impl, Implements(start=impl.id, end=tid)]
        recs, ok, recovered, edges_ok, edges_rec = reference_graph_records(t, graph, impl.id)
        self.records += recs
        self.report.steps += ok
        self.report.recovered_steps += recovered
        self.report.data_flow_edges += edges_ok
        self.report.recovered_edges += edges_rec


def _qualname(task: TaskSpec) -> str:
    """``Class.method`` for methods, ``function`` for functions (from the namespace)."""
    parts = task.namespace.split(".")
    return ".".join(parts[-2:]) if task.type == "method" and len(parts) >= 2 else parts[-1]


def _bib_paper(fields: dict[str, str], title: str | None) -> Paper | None:
    """A cited paper by the ids.py rules (arXiv eprint > DOI > title + year); None if no key."""
    arxiv = None
    for key in ("eprint", "arxivid", "journal", "url"):
        value = fields.get(key, "")
        if value and (found := ids.normalize_arxiv_id(value.split("arXiv:")[-1].split()[0])):
            arxiv = found
            break
    doi = ids.normalize_doi(fields["doi"]) if fields.get("doi") else None
    year_text = fields.get("year", "")[:4]
    year = int(year_text) if year_text.isdigit() else None
    if not (arxiv or doi or title):
        return None
    try:
        return Paper(title=title, arxiv_id=arxiv, doi=doi, year=year, source="scireplicate-bib")
    except ValueError:
        return None


def paper_ids(papers: Sequence[PaperSpec], report: ScireplicateReport) -> list[str]:
    """Stable Paper ids; a repeated arXiv id with another title falls back to the title id."""
    taken: dict[str, str] = {}
    out: list[str] = []
    for p in papers:
        arxiv = ids.normalize_arxiv_id(p.url) if p.url else None
        pid = ids.paper_id(arxiv_id=arxiv, title=p.title)
        if (
            arxiv
            and pid in taken
            and ids.normalize_title(taken[pid]) != ids.normalize_title(p.title)
        ):
            pid = ids.paper_id(title=p.title)
            report.notes.append(
                f"paper {p.index}: its URL repeats the arXiv id {arxiv} of another paper; "
                f"identified by title instead ({pid})"
            )
        taken.setdefault(pid, p.title)
        out.append(pid)
    return out


def read_scireplicate(
    path: str | Path,
    *,
    papers_dir: Path | None = None,
    repos_dir: Path | None = None,
    report: ScireplicateReport | None = None,
) -> Iterator[Group]:
    """Checkpoint groups ``(paper number, records)`` for ``scholarkg load scireplicate``."""
    report = report if report is not None else ScireplicateReport()
    papers = read_benchmark(path)
    pids = paper_ids(papers, report)
    for paper, pid in zip(papers, pids, strict=True):
        builder = _PaperBuilder(
            paper, pid, papers_dir=papers_dir, repos_dir=repos_dir, report=report
        )
        records = builder.build()
        report.papers += 1
        yield paper.index + 1, records


def report_rows(report: ScireplicateReport) -> list[tuple[str, Any]]:
    """The counts the load prints, in the order the issue lists them."""
    rows: list[tuple[str, Any]] = [
        ("papers", report.papers),
        ("tasks", sum(report.tasks.values())),
    ]
    rows += [(f"tasks: {kind}", report.tasks[kind]) for kind in sorted(report.tasks)]
    steps = f"{report.steps}"
    if report.recovered_steps:
        steps += f" (+{report.recovered_steps} recovered: Begin marker without End)"
    edges = f"{report.data_flow_edges}"
    if report.recovered_edges:
        edges += f" (+{report.recovered_edges} touching a recovered step)"
    rows += [("reasoning steps", steps), ("data-flow edges", edges)]
    for kind in ("intra-file", "cross-file", "external API"):
        rows.append((f"dependencies: {kind}", report.dependencies[kind]))
    rows += [
        ("sections", report.sections),
        ("cited papers", report.citations),
        ("code files", report.files),
        ("code entities", report.entities),
        ("unresolved code (placeholders)", report.unresolved),
        ("tasks whose target def was not found", report.unresolved_targets),
    ]
    return rows

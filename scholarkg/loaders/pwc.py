"""Papers with Code dumps → leaderboard graph records (ORKG-style results).

Formats (``paperswithcode/paperswithcode-data`` README; ``paperswithcode/sota-extractor``
``taskdb/v01/schemas.py``):

``evaluation-tables.json``: a JSON array of recursive Task objects
``{task, description, categories[], datasets[], subtasks[Task], synonyms[], source_link}``;
Dataset ``{dataset, description, dataset_links[], dataset_citations[], subdatasets[Dataset],
sota: {metrics[], rows[]}}``; row ``{model_name, paper_title, paper_url, paper_date|null,
code_links[], model_links[], metrics: {name: number | "85.2%" | ...}, uses_additional_data}``.

Graph written (one Result per row × metric)::

    (Paper)-[:HAS_RESULT]->(Result {method, paper, task, dataset, metric, score, raw_score, date})
    (Result)-[:FOR_METHOD]->(Method) (Result)-[:ON_DATASET]->(Dataset)
    (Result)-[:FOR_TASK]->(Task)     (Result)-[:USING_METRIC]->(Metric {direction})
    (Result)-[:IN_LEADERBOARD]->(Leaderboard {task, dataset, metric, source: "pwc"})
    (Leaderboard)-[:ON_DATASET|FOR_TASK|USING_METRIC]->(...)   (Task)-[:SUBTASK_OF]->(Task)

Papers behind rows: ``arxiv:<id>`` when ``paper_url`` is an arXiv URL; else a title-hash id
``paper:<hash(normalised title)>`` (no year: the same title must give the same id in every
PwC file, and rows often have ``paper_date: null``); else no paper (the Result has no
HAS_RESULT edge and is counted). Subdatasets become Dataset nodes of their own name
(``ImageNet ReaL``); the graph has no dataset-variant relationship type yet.

Scores: numbers stay numbers; strings go through ``base.parse_number`` (``"85.2%"`` → 85.2,
``"1,234"`` → 1234.0). ``raw_score`` always keeps the source text; an unparseable value stores
``score = null`` and is counted in the report, never dropped.

``papers-with-abstracts.json`` → Paper (+ Author/AUTHORED_BY; the methods the paper mentions as
``(Paper)-[:USES_METHOD]->(Method)``).
``links-between-papers-and-code.json`` → Repository +
``(Paper)-[:HAS_CODE {is_official, framework, mentioned_in_paper, mentioned_in_github}]``.

Memory: the dumps are single JSON arrays, read whole by ``base.iter_json_array`` (the real
evaluation-tables.json is ~300 MB and needs a few GB of RAM as Python objects). A streaming
parser (ijson) would remove that cost; not added as a dependency yet.

Every reader yields *groups* ``(record number, records)`` (one per top-level array item) so
``checkpoint.run_resumable`` can resume; ``records(groups)`` flattens them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.loaders.base import author_names, build, iter_json_array, parse_number
from scholarkg.loaders.checkpoint import AnyRecord, Group
from scholarkg.loaders.metric_direction import DirectionResolver
from scholarkg.schema import ids
from scholarkg.schema.records import (
    Author,
    Authorship,
    Dataset,
    HasCode,
    HasResult,
    InLeaderboard,
    Leaderboard,
    LeaderboardDataset,
    LeaderboardMetric,
    LeaderboardTask,
    Method,
    Metric,
    Paper,
    Repository,
    Result,
    ResultDataset,
    ResultMethod,
    ResultMetric,
    ResultTask,
    SubtaskOf,
    Task,
    UsesMethod,
)

log = logging.getLogger(__name__)

SOURCE = "pwc"
MAX_EXAMPLES = 10


@dataclass
class PwcReport:
    """What a PwC load could not store as-is; printed by ``scholarkg load pwc``."""

    results: int = 0
    unparseable_scores: int = 0
    unparseable_examples: list[str] = field(default_factory=list)
    results_without_paper: int = 0
    rows_without_method: int = 0
    directions: DirectionResolver = field(default_factory=DirectionResolver)

    @property
    def unknown_directions(self) -> list[str]:
        return sorted(self.directions.unknown)

    def summary(self) -> dict[str, Any]:
        return {
            "results": self.results,
            "unparseable_scores": self.unparseable_scores,
            "unparseable_examples": self.unparseable_examples,
            "results_without_paper": self.results_without_paper,
            "rows_without_method": self.rows_without_method,
            "unknown_directions": self.unknown_directions,
        }


def records(groups: Iterable[Group]) -> Iterator[AnyRecord]:
    """Flatten groups into a plain record stream (for ``writer.write_records``)."""
    for _, recs in groups:
        yield from recs


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def title_paper_id(title: str) -> str:
    """Title-hash Paper id shared by every PwC file (no year: dates are often missing)."""
    return ids.paper_id(title=title)


def paper_ref(
    *, url: str | None, arxiv_id: str | None = None, title: str | None = None
) -> str | None:
    """Paper id for a PwC row/link: arXiv id or arXiv URL > title hash > ``None``."""
    for cand in (arxiv_id, url):
        if cand and (a := ids.normalize_arxiv_id(str(cand))):
            return f"arxiv:{a}"
    if url and "arxiv.org/" in url:  # e.g. .../abs/2101.00001v2 with a query string
        tail = url.split("arxiv.org/", 1)[1].split("?", 1)[0].split("#", 1)[0]
        tail = tail.removeprefix("abs/").removeprefix("pdf/")
        if a := ids.normalize_arxiv_id(tail):
            return f"arxiv:{a}"
    if title:
        return title_paper_id(title)
    return None


def _iso_date(value: Any) -> str | None:
    """First 10 chars of an ISO date, or ``None`` (PwC dates are ``YYYY-MM-DD`` or null)."""
    text = _text(value)
    return text[:10] if text else None


# --------------------------------------------------------------------------- evaluation tables


class _TableWalker:
    """Walks one top-level task tree and collects its records (one group)."""

    def __init__(self, path: Path, number: int, report: PwcReport) -> None:
        self.path = path
        self.number = number
        self.report = report
        self.out: list[AnyRecord] = []
        self.seen: set[tuple[str, str]] = set()

    def fail(self, message: str, where: str) -> InputError:
        return InputError(message, path=self.path, line=self.number, field=where)

    def node(self, rec: AnyRecord) -> None:
        key = (type(rec).__name__, rec.id if hasattr(rec, "id") else "")
        if key in self.seen:  # a paper/method/metric repeats across rows of one tree
            return
        self.seen.add(key)
        self.out.append(rec)

    def build(self, model: type[Any], data: dict[str, Any], where: str) -> Any:
        try:
            return build(model, data, path=self.path, line=self.number)
        except InputError as err:
            raise InputError(
                err.message, path=self.path, line=self.number,
                field=f"{where}.{err.field}" if err.field else where,
            ) from err  # fmt: skip

    def task(self, obj: Any, where: str, parent: Task | None) -> None:
        if not isinstance(obj, dict):
            raise self.fail("expected a task object", where)
        name = _text(obj.get("task"))
        if not name:
            raise self.fail("missing task name", f"{where}.task")
        cats = obj.get("categories") or []
        task = self.build(
            Task,
            {
                "name": name,
                "description": _text(obj.get("description")),
                "area": _text(cats[0]) if isinstance(cats, list) and cats else None,
                "parent": parent.id if parent else None,
            },
            where,
        )
        self.node(task)
        if parent is not None:
            self.out.append(SubtaskOf(start=task.id, end=parent.id))
        for i, ds in enumerate(self._list(obj, "datasets", where)):
            self.dataset(ds, f"{where}.datasets[{i}]", task)
        for i, sub in enumerate(self._list(obj, "subtasks", where)):
            self.task(sub, f"{where}.subtasks[{i}]", task)

    def _list(self, obj: dict[str, Any], key: str, where: str) -> list[Any]:
        value = obj.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(f"expected a list, got {type(value).__name__}", f"{where}.{key}")
        return value

    def dataset(self, obj: Any, where: str, task: Task) -> None:
        if not isinstance(obj, dict):
            raise self.fail("expected a dataset object", where)
        name = _text(obj.get("dataset"))
        if not name:
            raise self.fail("missing dataset name", f"{where}.dataset")
        dataset = self.build(
            Dataset, {"name": name, "description": _text(obj.get("description"))}, where
        )
        self.node(dataset)
        sota = obj.get("sota") or {}
        if not isinstance(sota, dict):
            raise self.fail("expected an object", f"{where}.sota")
        for i, row in enumerate(self._list(sota, "rows", f"{where}.sota")):
            self.row(row, f"{where}.sota.rows[{i}]", task, dataset)
        for i, sub in enumerate(self._list(obj, "subdatasets", where)):
            self.dataset(sub, f"{where}.subdatasets[{i}]", task)

    def row(self, row: Any, where: str, task: Task, dataset: Dataset) -> None:
        if not isinstance(row, dict):
            raise self.fail("expected a row object", where)
        metrics = row.get("metrics") or {}
        if not isinstance(metrics, dict):
            raise self.fail("expected an object {metric: value}", f"{where}.metrics")
        title = _text(row.get("paper_title"))
        method_name = _text(row.get("model_name")) or title
        if not method_name:
            # nothing names the entry: storing it would invent an identity
            self.report.rows_without_method += 1
            log.warning("%s record %d %s: row without model_name or paper_title skipped",
                        self.path, self.number, where)  # fmt: skip
            return
        url = _text(row.get("paper_url"))
        date = _iso_date(row.get("paper_date"))
        pid = paper_ref(url=url, title=title)
        if pid is not None:
            data: dict[str, Any] = {"id": pid, "title": title, "date": date, "url": url}
            if pid.startswith("arxiv:"):
                data["arxiv_id"] = pid[6:]
            self.node(self.build(Paper, {k: v for k, v in data.items() if v}, where))
        method = self.build(Method, {"name": method_name}, f"{where}.model_name")
        self.node(method)
        extra = row.get("uses_additional_data")
        for metric_name, raw in metrics.items():
            mwhere = f"{where}.metrics.{metric_name}"
            mname = _text(metric_name)
            if not mname or raw is None or (isinstance(raw, str) and not raw.strip()):
                continue  # an empty cell is not a result
            metric = self.build(
                Metric,
                {"name": mname, "direction": self.report.directions.direction(mname)},
                mwhere,
            )
            self.node(metric)
            if isinstance(raw, bool) or not isinstance(raw, int | float | str):
                raise self.fail(f"expected a number or text, got {type(raw).__name__}", mwhere)
            score = parse_number(raw)  # NaN / inf → None, counted below
            if score is None:
                self.report.unparseable_scores += 1
                if len(self.report.unparseable_examples) < MAX_EXAMPLES:
                    self.report.unparseable_examples.append(f"{mname}={raw!r}")
            board = self.build(
                Leaderboard,
                {"task": task.name, "dataset": dataset.name, "metric": mname, "source": SOURCE},
                mwhere,
            )
            if ("Leaderboard", board.id) not in self.seen:
                self.node(board)
                self.out += [
                    LeaderboardTask(start=board.id, end=task.id),
                    LeaderboardDataset(start=board.id, end=dataset.id),
                    LeaderboardMetric(start=board.id, end=metric.id),
                ]
            result = self.build(
                Result,
                {
                    "method": method_name, "paper": pid, "task": task.name,
                    "dataset": dataset.name, "metric": mname, "score": score,
                    "raw_score": str(raw).strip(), "date": date,
                    "uses_additional_data": extra if isinstance(extra, bool) else None,
                },
                mwhere,
            )  # fmt: skip
            self.node(result)
            self.report.results += 1
            if pid is not None:
                self.out.append(HasResult(start=pid, end=result.id))
            else:
                self.report.results_without_paper += 1
            self.out += [
                ResultMethod(start=result.id, end=method.id),
                ResultDataset(start=result.id, end=dataset.id),
                ResultTask(start=result.id, end=task.id),
                ResultMetric(start=result.id, end=metric.id),
                InLeaderboard(start=result.id, end=board.id),
            ]


def _ordered(recs: list[AnyRecord]) -> list[AnyRecord]:
    """Nodes before edges within a group (the writer needs endpoints before relationships)."""
    nodes = [r for r in recs if not hasattr(r, "start")]
    edges = [r for r in recs if hasattr(r, "start")]
    return nodes + edges


def read_evaluation_tables(path: str | Path, *, report: PwcReport | None = None) -> Iterator[Group]:
    """Yield one group per top-level task of ``evaluation-tables.json`` (subtasks included)."""
    path = Path(path)
    report = report if report is not None else PwcReport()
    for number, obj in iter_json_array(path):
        walker = _TableWalker(path, number, report)
        walker.task(obj, "task", None)
        yield number, _ordered(walker.out)


# --------------------------------------------------------------------------- papers, links


def read_papers_with_abstracts(path: str | Path) -> Iterator[Group]:
    """Yield Paper (+ Author/AUTHORED_BY, mentioned Method) groups from papers-with-abstracts."""
    path = Path(path)
    for number, obj in iter_json_array(path):
        if not isinstance(obj, dict):
            raise InputError("expected a paper object", path=path, line=number)
        title = _text(obj.get("title"))
        url = _text(obj.get("paper_url"))
        pid = paper_ref(url=_text(obj.get("url_abs")), arxiv_id=_text(obj.get("arxiv_id")),
                        title=title)  # fmt: skip
        if pid is None:
            raise InputError(
                "paper has neither arxiv_id nor title", path=path, line=number, field="title"
            )
        data = {
            "id": pid,
            "arxiv_id": pid[6:] if pid.startswith("arxiv:") else None,
            "title": title,
            "abstract": _text(obj.get("abstract")),
            "date": _iso_date(obj.get("date")),
            "venue": _text(obj.get("proceeding")),
            "url": url or _text(obj.get("url_abs")),
            "source": SOURCE,
        }
        paper = build(Paper, {k: v for k, v in data.items() if v}, path=path, line=number)
        nodes: list[AnyRecord] = [paper]
        edges: list[AnyRecord] = []
        raw = obj.get("authors")
        # a blank or null name is skipped, its position kept (the dumps have them: a whole
        # dump stopped at the first would be lost); any other non-name is an error
        listed = (
            [(pos, n) for pos, n in enumerate(raw) if n is not None and str(n).strip()]
            if isinstance(raw, list)
            else []
        )
        names = author_names([n for _, n in listed] if isinstance(raw, list) else raw,
                             path=path, line=number)  # fmt: skip
        for (pos, _), author_name in zip(listed, names, strict=True):
            author = build(Author, {"name": author_name}, path=path, line=number)
            nodes.append(author)
            edges.append(Authorship(start=paper.id, end=author.id, position=pos))
        methods = obj.get("methods") or []
        if not isinstance(methods, list):
            raise InputError("expected a list", path=path, line=number, field="methods")
        for i, m in enumerate(methods):
            name = _text(m.get("name")) if isinstance(m, dict) else _text(m)
            if not name:
                continue
            full = _text(m.get("full_name")) if isinstance(m, dict) else None
            try:
                method = Method(name=name, full_name=full)
            except ValueError as err:
                raise InputError(str(err), path=path, line=number, field=f"methods[{i}]") from err
            nodes.append(method)
            edges.append(UsesMethod(start=paper.id, end=method.id))
        yield number, nodes + edges


def read_links(path: str | Path) -> Iterator[Group]:
    """Yield Repository + HAS_CODE groups (and a minimal Paper so the edge always lands)."""
    path = Path(path)
    for number, obj in iter_json_array(path):
        if not isinstance(obj, dict):
            raise InputError("expected a link object", path=path, line=number)
        repo_url = _text(obj.get("repo_url"))
        if not repo_url:
            raise InputError("missing repository URL", path=path, line=number, field="repo_url")
        title = _text(obj.get("paper_title"))
        pid = paper_ref(
            url=_text(obj.get("paper_url_abs")), arxiv_id=_text(obj.get("paper_arxiv_id")),
            title=title,
        )  # fmt: skip
        if pid is None:
            raise InputError(
                "link names no paper (paper_arxiv_id or paper_title)",
                path=path, line=number, field="paper_title",
            )  # fmt: skip
        arxiv = pid[6:] if pid.startswith("arxiv:") else None
        data = {"id": pid, "title": title, "arxiv_id": arxiv}
        paper = build(Paper, {k: v for k, v in data.items() if v}, path=path, line=number)
        repo = build(Repository, {"url": repo_url}, path=path, line=number)
        flags: dict[str, Any] = {}
        for key in ("is_official", "mentioned_in_paper", "mentioned_in_github"):
            value = obj.get(key)
            if value is not None and not isinstance(value, bool):
                raise InputError(
                    f"expected true/false, got {value!r}", path=path, line=number, field=key
                )
            flags[key] = value
        edge = build(
            HasCode,
            {"start": paper.id, "end": repo.id, "framework": _text(obj.get("framework")), **flags},
            path=path,
            line=number,
        )
        yield number, [paper, repo, edge]

"""LEGOBench leaderboards into the graph: the released ``rplm.xlsx`` and ground-truth JSONL.

``rplm.xlsx`` (read by ``legobench_rplm.read_rplm_gold``) becomes, per row (the LEGOBench graph
model in docs/families/legobench.md)::

    (:Leaderboard {id: "lego:rplm:<row>", task, dataset, metric, source: "legobench-rplm", row})
      -[:HAS_ENTRY {gt_rank, option_index}]->(:TitleLine {text, text_norm, gt_rank})
    (:Leaderboard)-[:ON_DATASET]->(:Dataset) -[:FOR_TASK]->(:Task) -[:USING_METRIC]->(:Metric)

Title lines are stored **verbatim** (split fragments, quotes, LaTeX escapes, duplicates):
matching answers relies on GT and options sharing those defects (§6). One TitleLine per GT
position, so a duplicated line stays two entries. ``link_title_lines`` is the optional pass
that adds ``(:TitleLine)-[:OF_PAPER]->(:Paper)`` where the line's normalised text equals
exactly one Paper's ``title_norm``; a split fragment matches no paper and stays unlinked.

``leaderboards.jsonl`` (the synthetic generator's ground truth; one object per line)::

    {"task", "dataset", "metric", "higher_is_better": bool,
     "ranking": [paper ids, best first], "scores": [...], "methods": [...]}

is read by :func:`read_leaderboards` (the only reader of this format; RPG and LGPLM use it
too) and becomes ``(:Leaderboard {id: ids.leaderboard_id(task, dataset, metric)})
-[:HAS_ENTRY {gt_rank, score, method}]->(:Paper {id: ids.paper_ref_id(ref)})`` — ``arxiv:<id>``
for arXiv ids, ``apc:<id>`` for any other bare collection id, as the APC loader stores them.
The Leaderboard id is the same as Papers with Code's for the same triple, so ground truth and
PwC results meet on one node.
Its explicit ``higher_is_better`` sets the Metric direction (data beats the pattern table);
load it after ``pwc`` so an ``unknown`` from the table does not overwrite it. Papers are not
created here (the file has no titles): entries whose paper is not in the graph are skipped
and counted by the writer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scholarkg.errors import InputError
from scholarkg.loaders.base import build, iter_jsonl
from scholarkg.loaders.checkpoint import AnyRecord, Group
from scholarkg.loaders.legobench_rplm import read_rplm_gold
from scholarkg.loaders.metric_direction import DirectionResolver
from scholarkg.schema import ids
from scholarkg.schema.records import (
    Dataset,
    HasEntry,
    HasPaperEntry,
    Leaderboard,
    LeaderboardDataset,
    LeaderboardMetric,
    LeaderboardTask,
    Metric,
    RPLMLeaderboard,
    Task,
    TitleLine,
)
from scholarkg.store.base import GraphStore

RPLM_SOURCE = "legobench-rplm"


def _board_edges(
    board: Leaderboard, task: Task, dataset: Dataset, metric: Metric
) -> list[AnyRecord]:
    return [
        LeaderboardTask(start=board.id, end=task.id),
        LeaderboardDataset(start=board.id, end=dataset.id),
        LeaderboardMetric(start=board.id, end=metric.id),
    ]


def option_indices(options: list[str], gt: list[str]) -> list[int | None]:
    """For each GT line, the index of the same line in ``options`` (k-th copy ↔ k-th copy)."""
    positions: dict[str, list[int]] = defaultdict(list)
    for i, line in enumerate(options):
        positions[line].append(i)
    used: dict[str, int] = defaultdict(int)
    out: list[int | None] = []
    for line in gt:
        k = used[line]
        out.append(positions[line][k] if k < len(positions[line]) else None)
        used[line] += 1
    return out


def read_rplm_graph(
    path: str | Path, *, directions: DirectionResolver | None = None
) -> Iterator[Group]:
    """One group per ``rplm.xlsx`` row: Leaderboard, Task/Dataset/Metric, TitleLines, edges."""
    path = Path(path)
    directions = directions if directions is not None else DirectionResolver()
    for inst in read_rplm_gold(path):
        line = inst.row + 2  # spreadsheet row (header = 1)
        task = build(Task, {"name": inst.task}, path=path, line=line)
        dataset = build(Dataset, {"name": inst.dataset}, path=path, line=line)
        metric = build(
            Metric,
            {"name": inst.metric, "direction": directions.direction(inst.metric)},
            path=path,
            line=line,
        )
        board = build(
            RPLMLeaderboard,
            {
                "sheet_row": inst.row,
                "task": inst.task,
                "dataset": inst.dataset,
                "metric": inst.metric,
                "source": RPLM_SOURCE,
            },
            path=path,
            line=line,
        )
        nodes: list[AnyRecord] = [task, dataset, metric, board]
        edges: list[AnyRecord] = _board_edges(board, task, dataset, metric)
        for rank, (text, opt) in enumerate(
            zip(inst.gt, option_indices(inst.options, inst.gt), strict=True), start=1
        ):
            title_line = TitleLine(leaderboard=board.id, gt_rank=rank, text=text)
            nodes.append(title_line)
            edges.append(
                HasEntry(start=board.id, end=title_line.id, gt_rank=rank, option_index=opt)
            )
        yield inst.row + 1, nodes + edges


def link_title_lines(store: GraphStore) -> int:
    """Add ``OF_PAPER`` from each TitleLine to the one Paper with its normalised title.

    Lines matching no paper, or several (ambiguous titles), stay unlinked: a wrong link would
    be worse than none. Idempotent (MERGE). Returns how many lines are linked afterwards.
    """
    rows = store.run_named("legobench/legobench_link_title_lines", {})
    return int(rows[0]["linked"]) if rows else 0


@dataclass(frozen=True)
class GroundTruthBoard:
    """One ``leaderboards.jsonl`` line, validated, with the ids every consumer uses.

    ``id`` is ``ids.leaderboard_id(task, dataset, metric)`` (the Leaderboard node's id, and
    the instance id of RPG, RPLM and LGPLM); ``papers`` are stored Paper ids by
    ``ids.paper_ref_id``, best first. ``scores`` / ``methods`` are aligned with ``papers``
    or empty when the file has none.
    """

    line: int
    id: str
    task: str
    dataset: str
    metric: str
    papers: tuple[str, ...]
    higher_is_better: bool | None = None
    scores: tuple[float | None, ...] = ()
    methods: tuple[str, ...] = ()


def _list(obj: dict[str, Any], key: str, path: Path, line: int) -> list[Any]:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f"expected a list, got {type(value).__name__}", path=path, line=line,
                         field=key)  # fmt: skip
    return value


def read_leaderboards(
    path: str | Path, *, require_ranking: bool = True
) -> Iterator[GroundTruthBoard]:
    """The one reader of ``leaderboards.jsonl`` (format in the module docstring).

    Every consumer (the graph loader below, RPG's ground truth, LGPLM's gold) goes through it,
    so a file means one thing everywhere: the same Leaderboard ids, the same Paper ids (a
    non-arXiv id ``xyz`` is ``apc:xyz`` for the loader and the tasks alike), the same checks.
    ``require_ranking=False`` admits lines with only ``methods`` + ``scores`` (LGPLM's gold
    needs no papers). Errors name file, line and field.
    """
    path = Path(path)
    seen: dict[str, int] = {}
    for line, obj in iter_jsonl(path):
        for key in ("task", "dataset", "metric"):
            if not isinstance(obj.get(key), str) or not obj[key].strip():
                raise InputError("missing or empty text", path=path, line=line, field=key)
        higher = obj.get("higher_is_better")
        if higher is not None and not isinstance(higher, bool):
            raise InputError(f"expected true/false, got {higher!r}", path=path, line=line,
                             field="higher_is_better")  # fmt: skip
        ranking = _list(obj, "ranking", path, line)
        if not ranking and require_ranking:
            raise InputError("empty ranking", path=path, line=line, field="ranking")
        papers: list[str] = []
        for i, ref in enumerate(ranking):
            if not isinstance(ref, str) or not ref.strip():
                raise InputError("expected a paper id", path=path, line=line,
                                 field=f"ranking[{i}]")  # fmt: skip
            papers.append(ids.paper_ref_id(ref))
        if len(set(papers)) != len(papers):
            raise InputError("duplicate paper id", path=path, line=line, field="ranking")
        scores = _list(obj, "scores", path, line)
        methods = _list(obj, "methods", path, line)
        for key, values in (("scores", scores), ("methods", methods)):
            if values and ranking and len(values) != len(ranking):
                raise InputError(
                    f"{len(values)} {key} for {len(ranking)} ranked papers",
                    path=path, line=line, field=key,
                )  # fmt: skip
        if not ranking and scores and methods and len(scores) != len(methods):
            raise InputError(f"must be a list as long as methods ({len(methods)})",
                             path=path, line=line, field="scores")  # fmt: skip
        for j, value in enumerate(scores):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float)
            ):
                raise InputError(f"scores[{j}] is not a number", path=path, line=line,
                                 field="scores")  # fmt: skip
        if not all(isinstance(m, str) for m in methods):
            raise InputError("must be a list of strings", path=path, line=line, field="methods")
        board_id = ids.leaderboard_id(obj["task"], obj["dataset"], obj["metric"])
        if board_id in seen:
            raise InputError(
                f"duplicate leaderboard ({obj['task']}, {obj['dataset']}, {obj['metric']}); "
                f"first on line {seen[board_id]}",
                path=path, line=line, field="task",
            )  # fmt: skip
        seen[board_id] = line
        yield GroundTruthBoard(
            line=line, id=board_id, task=obj["task"], dataset=obj["dataset"],
            metric=obj["metric"], papers=tuple(papers), higher_is_better=higher,
            scores=tuple(None if v is None else float(v) for v in scores),
            methods=tuple(methods),
        )  # fmt: skip


def read_ground_truth(path: str | Path) -> Iterator[Group]:
    """One group per ``leaderboards.jsonl`` line: Leaderboard, its nodes and HAS_ENTRY edges."""
    path = Path(path)
    for gt in read_leaderboards(path):
        line = gt.line
        task = build(Task, {"name": gt.task}, path=path, line=line)
        dataset = build(Dataset, {"name": gt.dataset}, path=path, line=line)
        metric_data: dict[str, Any] = {"name": gt.metric}
        if gt.higher_is_better is not None:
            metric_data["direction"] = "higher" if gt.higher_is_better else "lower"
        metric = build(Metric, metric_data, path=path, line=line)
        board = build(
            Leaderboard,
            {"task": gt.task, "dataset": gt.dataset, "metric": gt.metric},
            path=path,
            line=line,
        )
        if board.id != gt.id:  # one id rule: the record and the reader must agree
            raise InputError(f"leaderboard id {board.id!r} != {gt.id!r}", path=path, line=line)
        nodes: list[AnyRecord] = [task, dataset, metric, board]
        edges: list[AnyRecord] = _board_edges(board, task, dataset, metric)
        for rank, pid in enumerate(gt.papers, start=1):
            data: dict[str, Any] = {"start": board.id, "end": pid, "gt_rank": rank}
            if gt.scores:
                data["score"] = gt.scores[rank - 1]
            if gt.methods:
                data["method"] = gt.methods[rank - 1]
            edges.append(build(HasPaperEntry, data, path=path, line=line))
        yield line, nodes + edges

"""Updates that read only what changed: which ``updated_date=`` partitions of an OpenAlex
snapshot folder the graph already took, and which ``merged_ids`` files it applied.

OpenAlex's snapshot holds every work once, in the ``data/works/updated_date=YYYY-MM-DD/``
partition of the day it last changed; ``data/merged_ids/works/YYYY-MM-DD.csv.gz`` lists the
works merged away on that day. A graph that took a snapshot's partitions up to day *D* is
brought up to date by the partitions after *D* and the merged_ids files after the last one it
applied. The graph records both days on one node, ``(:LoadState {id: "openalex:works"})``:

* ``updated_through``: the newest partition every file of which is stored (written as each
  partition completes, so an interrupted update, re-run, starts at the partition it stopped
  in, and ``--resume`` continues that partition's file from its checkpoint);
* ``merged_through``: the newest merged_ids file applied.

Only files found by walking a folder are skipped or recorded: a file named on the command line
is always read (the user asked for it) and moves nothing, and a walk of one partition folder
(``data/works/updated_date=2026-02-10``) moves nothing either: it cannot tell that the
partitions before it were taken. ``--all`` reads every partition
again (the load is idempotent, so that is safe, only slower).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from scholarkg.store.base import GraphStore

#: the ``LoadState`` node of OpenAlex works
STATE_ID = "openalex:works"
_PARTITION = re.compile(r"updated_date=(\d{4}-\d{2}-\d{2})")
_DAY = re.compile(r"^(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True)
class TakenState:
    """What the graph already took of OpenAlex snapshots (ISO days, ``None``: nothing)."""

    updated_through: str | None = None
    merged_through: str | None = None


def partition_day(path: Path) -> str | None:
    """The ``updated_date=`` day of a work file, if it sits in a partition folder."""
    m = _PARTITION.search(path.as_posix())
    return m.group(1) if m else None


def merged_day(path: Path) -> str | None:
    """The day a ``merged_ids`` file is named after (``2026-03-01.csv.gz``)."""
    m = _DAY.match(path.name)
    return m.group(1) if m else None


def taken_state(store: GraphStore) -> TakenState:
    """The graph's record of what it took (``TakenState()`` when it holds none)."""
    rows = store.run_named("loads/load_state", {"id": STATE_ID})
    if not rows:
        return TakenState()
    row = rows[0]
    return TakenState(
        updated_through=_text(row.get("updated_through")),
        merged_through=_text(row.get("merged_through")),
    )


def record_taken(
    store: GraphStore, *, updated_through: str | None = None, merged_through: str | None = None
) -> None:
    """Move the record forward: a day is only ever replaced by a later one."""
    have = taken_state(store)
    props: dict[str, str] = {}
    if updated_through and (have.updated_through or "") < updated_through:
        props["updated_through"] = updated_through
    if merged_through and (have.merged_through or "") < merged_through:
        props["merged_through"] = merged_through
    if props:
        store.merge_nodes("LoadState", [{"id": STATE_ID, **props}])


def _text(value: object) -> str | None:
    return str(value) if value not in (None, "") else None


@dataclass
class UpdatePlan:
    """The files a load reads, the ones it skips, and where the record moves."""

    works: list[Path]
    merged: list[Path]
    skipped_works: list[Path] = field(default_factory=list)
    skipped_merged: list[Path] = field(default_factory=list)
    #: work file -> the partition day that is complete once this file is stored
    completes: dict[Path, str] = field(default_factory=dict)
    #: the newest merged_ids day among the folder files read (recorded once they are applied)
    merged_through: str | None = None
    #: what the graph had taken before this load
    before: TakenState = field(default_factory=TakenState)

    def notes(self) -> list[str]:
        out: list[str] = []
        if self.skipped_works:
            days = sorted({d for f in self.skipped_works if (d := partition_day(f))})
            out.append(
                f"skipped {len(self.skipped_works):,} work file(s) in {len(days):,} "
                f"updated_date partition(s) {days[0]} … {days[-1]}: the graph took them "
                f"already (through {self.before.updated_through}); --all reads them again"
            )
        if self.skipped_merged:
            out.append(
                f"skipped {len(self.skipped_merged):,} merged_ids file(s) up to "
                f"{self.before.merged_through}: applied already; --all applies them again"
            )
        if not self.works and not self.merged and (self.skipped_works or self.skipped_merged):
            out.append("nothing newer than what the graph holds: nothing to load")
        return out


def plan_update(
    paths: Sequence[Path],
    works: Sequence[Path],
    merged: Sequence[Path],
    state: TakenState,
    *,
    everything: bool = False,
) -> UpdatePlan:
    """Which of ``works`` / ``merged`` (``openalex.snapshot_files(paths)``, in load order) to
    read given what the graph took (``state``); ``everything`` (``--all``) skips nothing."""
    folders = [p for p in paths if p.is_dir()]
    walked = {f for f in (*works, *merged) if _under(f, folders)}
    plan = UpdatePlan(works=[], merged=[], before=state)
    taken = "" if everything else (state.updated_through or "")
    for f in works:
        day = partition_day(f)
        if f in walked and day is not None and day <= taken:
            plan.skipped_works.append(f)
        else:
            plan.works.append(f)
    applied = "" if everything else (state.merged_through or "")
    for f in merged:
        day = merged_day(f)
        if f in walked and day is not None and day <= applied:
            plan.skipped_merged.append(f)
        else:
            plan.merged.append(f)
    # a partition is complete after its last file (files are in partition order); only
    # partitions read wholly from a folder walk move the record
    last: dict[str, Path] = {}
    partial: set[str] = set()
    for f in plan.works:
        day = partition_day(f)
        if day is None:
            continue
        if f in walked and _partition_below(f, folders):
            last[day] = f
        else:
            partial.add(day)
    plan.completes = {f: day for day, f in last.items() if day not in partial}
    days = [d for f in plan.merged if f in walked and (d := merged_day(f))]
    plan.merged_through = max(days) if days else None
    return plan


def _under(path: Path, folders: Iterable[Path]) -> bool:
    return any(path.is_relative_to(folder) for folder in folders)


def _partition_below(path: Path, folders: Iterable[Path]) -> bool:
    """``path``'s ``updated_date=`` folder lies inside a walked folder, not above it: a walk
    of ``data/works`` sees every partition, a walk of one partition folder sees no other, so
    only the first tells that the partitions before a day were all taken."""
    return any(
        path.is_relative_to(folder)
        and _PARTITION.search(path.relative_to(folder).as_posix()) is not None
        for folder in folders
    )

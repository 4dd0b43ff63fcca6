"""Score LEGOBench RPLM answer workbooks against ``rplm.xlsx``.

Glue between the workbook readers (``scholarkg.loaders.legobench_rplm``) and the pure metrics
(``scholarkg.benchmark.metrics.ranking``). Answers align with the gold sheet **by position**
(the released files carry no stable key), so this module checks the alignment: same number
of rows, and where the answer workbook repeats the ``GT`` column, the same GT text per row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from scholarkg.benchmark.metrics.ranking import (
    ProgressFn,
    RankedListScores,
    evaluate_ranked_lists,
)
from scholarkg.errors import InputError
from scholarkg.loaders.legobench_rplm import (
    RPLMInstance,
    RPLMResponse,
    read_rplm_gold,
    read_rplm_responses,
)


def check_alignment(
    gold: Sequence[RPLMInstance], responses: Sequence[RPLMResponse], predictions_path: Path
) -> None:
    """Raise :class:`InputError` if the answer workbook does not line up with the gold rows."""
    if len(gold) != len(responses):
        raise InputError(
            f"{len(responses)} answer rows but the gold sheet has {len(gold)}; rows align by "
            "position, so both files must have the same rows in the same order",
            path=predictions_path,
        )
    for inst, resp in zip(gold, responses, strict=True):
        if resp.gt is not None and resp.gt != "\n".join(inst.gt):
            raise InputError(
                f"GT differs from the gold sheet's row {inst.row}; the files are not aligned",
                path=predictions_path,
                line=resp.row + 2,
                field="GT",
            )


def score_rplm_files(
    gold_path: str | Path,
    predictions_path: str | Path,
    *,
    protocol: str = "clean",
    matcher: str = "substring",
    progress: ProgressFn | None = None,
) -> RankedListScores:
    """RPLM scores of one answer workbook (``<stem>_gen_rank`` column) against ``rplm.xlsx``.

    ``protocol="legobench-paper"`` reproduces the published Table 4 from the released files;
    ``clean`` (default) is the platform definition. See ``evaluate_ranked_lists``.
    """
    gold = list(read_rplm_gold(gold_path))
    return _score(gold, Path(predictions_path), protocol, matcher, progress)[1]


def _score(
    gold: list[RPLMInstance],
    path: Path,
    protocol: str,
    matcher: str,
    progress: ProgressFn | None,
) -> tuple[str, RankedListScores]:
    stem, responses = read_rplm_responses(path)
    check_alignment(gold, responses, path)
    scores = evaluate_ranked_lists(
        [g.gt for g in gold],
        [r.text for r in responses],  # None = blank cell
        protocol=protocol,
        matcher=matcher,
        progress=progress,
    )
    return stem, scores


def score_rplm_many(
    gold_path: str | Path,
    predictions_paths: Sequence[str | Path],
    *,
    protocol: str = "clean",
    matcher: str = "substring",
    progress: Callable[[str, int, int], None] | None = None,
) -> list[tuple[str, RankedListScores]]:
    """``[(model stem, scores)]`` for several answer workbooks; the gold sheet is read once.

    ``progress(stem, n_done, n_total)`` is called after each scored instance.
    """
    gold = list(read_rplm_gold(gold_path))
    out = []
    for p in predictions_paths:
        path = Path(p)
        cb: ProgressFn | None = None
        if progress is not None:

            def cb(done: int, total: int, _name: str = path.stem) -> None:
                progress(_name, done, total)

        out.append(_score(gold, path, protocol, matcher, cb))
    return out

"""Which way is better for a metric: ``higher``, ``lower`` or ``unknown``.

Papers with Code never says (``paperswithcode/paperswithcode-data`` README), yet ranking a
leaderboard needs it. We
treat direction as *data*: a documented table of name patterns (below) gives the common
cases, a user file overrides or extends it, and anything else stays ``"unknown"`` and is
reported, never guessed. A wrong guess would silently invert a leaderboard.

Patterns are matched against the metric name normalised with ``ids.normalize_text``
(case-folded, punctuation → space: ``"Hits@10"`` → ``"hits 10"``, ``"Top-1 Error"`` →
``"top 1 error"``). ``LOWER_PATTERNS`` are tried first because several lower-is-better names
contain a higher-is-better word ("word error rate" vs "rate", "top-1 error" vs "top-1",
"mean rank" vs "rank"). First match wins.

Override file (``--directions``), JSON or TOML, either flat or under a ``directions`` table::

    {"Top-1 Accuracy": "higher", "Params (M)": "lower"}

    [directions]
    "Avg. Latency" = "lower"

Override keys are matched on the normalised name too, so spelling variants share an entry.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from scholarkg.errors import InputError
from scholarkg.schema.ids import normalize_text
from scholarkg.schema.records import Direction
from scholarkg.textio import load_json, read_text


def _words(*alternatives: str) -> re.Pattern[str]:
    """A pattern matching any alternative as whole words of the normalised name."""
    return re.compile(r"(?:^|\s)(?:" + "|".join(alternatives) + r")(?:$|\s)")


#: (pattern, why) — lower is better. Checked before ``HIGHER_PATTERNS``.
LOWER_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_words(r"error", r"errors", r"error rate", r"err"), "error rates"),
    (_words(r"wer", r"cer", r"per", r"ter", r"eer", r"ser"), "word/char/phone/equal error rate"),
    (_words(r"perplexity", r"ppl"), "perplexity"),
    (_words(r"bits (?:per )?(?:character|char|dim|dimension|byte|sub word)",
            r"bpc", r"bpd", r"bpb"),
     "bits per character / dimension"),
    (_words(r"mae", r"mse", r"rmse", r"rmsle", r"mape", r"smape", r"nll", r"log loss"),
     "regression errors and likelihood losses"),
    (_words(r"loss", r"cross entropy"), "losses"),
    (_words(r"fid", r"kid", r"fvd", r"lpips"), "generative distances"),
    (_words(r"distance", r"chamfer", r"epe", r"end point error", r"ade", r"fde", r"hausdorff"),
     "distances"),
    (_words(r"latency", r"inference time", r"runtime", r"time", r"seconds", r"ms"), "time"),
    (_words(r"mean rank", r"mr", r"median rank"), "mean rank (MRR is higher)"),
    (_words(r"ece", r"calibration error", r"brier", r"brier score"), "calibration"),
    (_words(r"miss rate", r"false positive rate", r"fpr", r"fnr", r"false alarm"), "miss rates"),
)  # fmt: skip

#: (pattern, why) — higher is better.
HIGHER_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (_words(r"acc", r"accuracy", r"top \d+", r"top \d+ accuracy", r"balanced accuracy"),
     "accuracy"),
    (_words(r"f1", r"f1 score", r"f score", r"f measure", r"macro f1", r"micro f1", r"f 1",
            r"f0 5", r"f2"), "F-scores"),
    (_words(r"precision", r"recall", r"p \d+", r"r \d+", r"recall \d+", r"precision \d+"),
     "precision / recall"),
    (_words(r"bleu", r"bleu \d", r"sacrebleu", r"rouge", r"rouge \w+", r"meteor", r"cider",
            r"spice", r"chrf", r"bertscore", r"bleurt", r"comet"), "generation overlap"),
    (_words(r"map", r"ap", r"ap\d+", r"ap \d+", r"box ap", r"mask ap", r"average precision",
            r"map \d+", r"ndcg", r"ndcg \d+", r"mrr", r"mrr \d+"), "ranking / detection"),
    (_words(r"hits", r"hits \d+", r"hit", r"hit \d+", r"hit rate", r"success rate"), "hits@k"),
    (_words(r"em", r"exact match", r"match"), "exact match"),
    (_words(r"auc", r"roc auc", r"auroc", r"auprc", r"pr auc"), "areas under curves"),
    (_words(r"iou", r"miou", r"dice", r"jaccard", r"pq", r"panoptic quality"), "overlap"),
    (_words(r"psnr", r"ssim", r"ms ssim", r"inception score", r"is"), "image quality"),
    (_words(r"pearson", r"spearman", r"correlation", r"kendall", r"r2", r"r 2", r"mcc",
            r"kappa"), "correlations"),
    (_words(r"score", r"reward", r"return", r"win rate", r"pass \d+", r"pass k", r"sr",
            r"coverage", r"mota", r"motp", r"idf1", r"hota"), "scores and success rates"),
)  # fmt: skip


@functools.lru_cache(maxsize=4096)
def infer_direction(name: str) -> Direction:
    """Direction from the pattern table, or ``"unknown"`` when no pattern names it.

    Cached: a PwC load asks once per result row and metric, for a few thousand distinct names.
    """
    norm = normalize_text(name)
    for pattern, _ in LOWER_PATTERNS:
        if pattern.search(norm):
            return "lower"
    for pattern, _ in HIGHER_PATTERNS:
        if pattern.search(norm):
            return "higher"
    return "unknown"


def load_overrides(path: str | Path) -> dict[str, Direction]:
    """Read a JSON or TOML override file into ``{normalised metric name: direction}``."""
    path = Path(path)
    if not path.is_file():
        raise InputError("file not found", path=path)
    data: Any
    if path.suffix.lower() == ".json":
        data = load_json(path)  # names line and column, or the XML/HTML file it is
    else:
        try:
            data = tomllib.loads(read_text(path))
        except tomllib.TOMLDecodeError as err:
            raise InputError(f"invalid TOML: {err}", path=path) from err
    if isinstance(data, Mapping) and isinstance(data.get("directions"), Mapping):
        data = data["directions"]
    if not isinstance(data, Mapping):
        raise InputError('expected a mapping {metric name: "higher"|"lower"}', path=path)
    out: dict[str, Direction] = {}
    for name, value in data.items():
        if not isinstance(value, str) or value.strip().lower() not in ("higher", "lower"):
            raise InputError(
                f'direction must be "higher" or "lower", got {value!r}', path=path, field=name
            )
        norm = normalize_text(str(name))
        if not norm:
            raise InputError("empty metric name", path=path, field=str(name))
        out[norm] = cast(Direction, value.strip().lower())  # "higher" or "lower", checked above
    return out


@dataclass
class DirectionResolver:
    """Resolves metric directions (override > pattern table) and remembers the unknown ones.

    One resolver per load, so the load report can list every metric left ``unknown``.
    """

    overrides: dict[str, Direction] = field(default_factory=dict)
    unknown: set[str] = field(default_factory=set)

    @classmethod
    def from_file(cls, path: str | Path | None) -> DirectionResolver:
        return cls(overrides=load_overrides(path) if path else {})

    def direction(self, name: str) -> Direction:
        norm = normalize_text(name)
        if norm in self.overrides:
            return self.overrides[norm]
        found = infer_direction(name)
        if found == "unknown":
            self.unknown.add(name)
        return found


UNKNOWN_HINT = (
    'pass a --directions file (JSON or TOML: {"metric name": "higher"|"lower"}) '
    "to set them; leaderboards on these metrics are shown best-first by assuming higher"
)

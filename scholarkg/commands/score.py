"""The two file scorers that belong to no task, and ``scholarkg score ir|lists``, their aliases.

``bench score`` is the one scoring command. Its NAME is a task that scores its own files
(``bench score legobench-rplm --data rplm.xlsx ...``) or one of the two scorers here, for run
files that belong to no task:

* ``ir``: a retrieval run (TREC run or JSONL ranked lists) against TREC or BEIR qrels, with
  any trec_eval-compatible metrics (``--metrics``); ``--data`` is the qrels, ``--predictions``
  the run;
* ``lists``: ranked title lists (LEGOBench-style leaderboards) scored with CIS, BEM, KTau and
  CP; ``--data`` is the gold lists, ``--predictions`` the answers.

``scholarkg score ir`` and ``score lists`` are aliases kept for the commands people already
type: they take the same options (``--qrels``/``--gold`` for ``--data``, ``--run`` for
``--predictions``, ``-m`` for ``--metrics``) and call :func:`run_file_scorer`, the function
``bench score ir|lists`` calls. Each scorer's own options are
:class:`~scholarkg.benchmark.task.TaskOption`s, parsed like a task's
(:func:`~scholarkg.commands.task_args.parse_task_args`). File formats:
``scholarkg.benchmark.metrics.trec``.

JSONL formats of ``lists`` (one object per line):

- gold: ``{"id": "lb1", "ranking": ["best title", "second title", ...]}``
- predictions: ``{"id": "lb1", "response": "free text naming the titles in order"}``
  or ``{"id": "lb1", "ranking": ["title", ...]}`` (joined one title per line).

Instances are aligned by ``id`` in gold-file order; a prediction for an unknown id, a
missing prediction or an empty prediction is an error naming the file and line.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from scholarkg.benchmark.metrics.ranking import MATCHERS, PROTOCOLS
from scholarkg.benchmark.task import TaskOption, resolve_declared_options
from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    console,
    fmt_number,
    no_csv,
    print_rows,
    stage_progress,
    to_json,
)
from scholarkg.errors import InputError

app = typer.Typer(
    help="Score run files against gold files (aliases of 'bench score ir|lists').",
    no_args_is_help=True,
)

DEFAULT_IR_METRICS = "P@10,R@10,nDCG@10,MRR@10,MAP,RP"


@dataclass(frozen=True)
class FileScorer:
    """A scorer of files that belong to no task: its options are declared like a task's, so
    ``bench score`` parses them with the task-option parser and lists them in errors."""

    name: str
    description: str
    options: tuple[TaskOption, ...]
    score: Callable[[Path, Path, Mapping[str, Any], str], None]
    #: short flags the old ``score`` commands took, as the long flag they stand for
    short_flags: Mapping[str, str]
    fit_options: tuple[TaskOption, ...] = ()

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return resolve_declared_options(
            self.name, self.options, given, f"scorer {self.name!r}", "no options"
        )

    def resolve_fit_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        raise InputError(f"scorer {self.name!r} has nothing to fit")


def _score_ir(qrels: Path, run: Path, options: Mapping[str, Any], fmt: str) -> None:
    """A retrieval run against TREC or BEIR qrels (trec_eval conventions).

    Scored TREC runs are ordered by score, ties by docid descending, as trec_eval does.
    Queries in the qrels without a ranking score 0 and count; a run query missing from the
    qrels is an error unless --unjudged-queries ignore. JSON output is
    {"aggregate": {...}, "per_query": {qid: {...}}}.
    """
    from scholarkg.benchmark.metrics.ir import evaluate, parse_metrics
    from scholarkg.benchmark.metrics.trec import (
        is_jsonl,
        read_qrels,
        read_ranked_jsonl,
        read_run,
    )

    metrics = str(options["metrics"])
    threshold = float(options["threshold"])
    per_query = bool(options["per_query"])
    unjudged_queries = str(options["unjudged_queries"])
    no_csv(fmt, "a score report")
    specs = parse_metrics(metrics)  # fail on a bad name before reading big files
    gold = read_qrels(qrels)
    known = gold if unjudged_queries == "error" else None
    ranked: dict[str, Any]
    if is_jsonl(run):
        ranked = dict(read_ranked_jsonl(run, known_qids=known))
    else:
        ranked = dict(read_run(run, known_qids=known))
    ranked = {qid: r for qid, r in ranked.items() if qid in gold}
    with stage_progress(unit="queries") as progress:
        result = evaluate(
            gold,
            ranked,
            specs,
            relevance_threshold=threshold,
            progress=lambda done, total: progress("scoring queries", done, total),
        )
    if fmt == "json":
        print(to_json(result.to_dict()))
        return
    rows = [
        {"metric": name, "value": fmt_number(value)} for name, value in result.aggregate.items()
    ]
    print_rows(rows, "table", title="IR metrics")
    console.print(f"[dim]{run.name} vs {qrels.name}: mean over {len(gold)} queries[/dim]")
    if per_query:
        print_rows(
            [
                {"qid": qid, **{k: fmt_number(v) for k, v in vals.items()}}
                for qid, vals in result.per_query.items()
            ],
            "table",
            title="per query",
        )


def _score_lists(gold: Path, predictions: Path, options: Mapping[str, Any], fmt: str) -> None:
    """Ranked title lists: CIS (%), BEM (fraction), KTau (tau-b), CP (%).

    Gold lines: {"id": ..., "ranking": ["title", ...]} best first. Prediction lines:
    {"id": ..., "response": "free text"} or {"id": ..., "ranking": ["title", ...]} (read as
    one title per line). Aligned by id in gold order; every gold id needs exactly one non-empty
    prediction. JSON output keys: cis, bem, ktau, cp, n_instances.
    """
    from scholarkg.benchmark.metrics.ranking import evaluate_ranked_lists
    from scholarkg.benchmark.metrics.trec import read_predictions, read_ranked_jsonl

    protocol = str(options["protocol"])
    matcher = str(options["matcher"])

    no_csv(fmt, "a score report")
    gold_lists = read_ranked_jsonl(gold, allow_duplicates=True)
    responses = read_predictions(predictions, known_ids=gold_lists)
    missing = [rid for rid in gold_lists if rid not in responses]
    if missing:
        raise InputError(
            f"no prediction for {len(missing)} gold id(s): "
            f"{', '.join(repr(m) for m in missing[:5])}{' …' if len(missing) > 5 else ''}",
            path=predictions,
            field="id",
        )
    ids = list(gold_lists)
    with stage_progress(unit="lists") as progress:
        scores = evaluate_ranked_lists(
            [gold_lists[i] for i in ids],
            [responses[i] for i in ids],
            protocol=protocol,
            matcher=matcher,
            progress=lambda done, total: progress("scoring lists", done, total),
        )
    summary = {
        "cis": scores.cis,
        "bem": scores.bem,
        "ktau": scores.ktau,
        "cp": scores.cp,
        "n_instances": scores.n_instances,
    }
    if fmt == "json":
        print(to_json(summary))
        return
    rows = [
        {
            "CIS": fmt_number(scores.cis, 2),
            "BEM": fmt_number(scores.bem, 3),
            "KTau": fmt_number(scores.ktau, 3),
            "CP": fmt_number(scores.cp, 2),
            "complete": f"{scores.n_complete}/{scores.n_instances}",
        }
    ]
    print_rows(rows, "table", title=f"ranked lists ({protocol}, matcher={matcher})")
    for note in scores.notes:
        console.print(f"[dim]{note}[/dim]")


IR = FileScorer(
    name="ir",
    description="a retrieval run (TREC or JSONL) against TREC or BEIR qrels, trec_eval metrics",
    options=(
        TaskOption(
            "metrics",
            str,
            DEFAULT_IR_METRICS,
            "comma-separated metric names (P@10, R@5, Hit@10, nDCG@10, MRR@10, MAP, RP, "
            "NDCG_10%, ...); an unknown name prints the full list",
        ),
        TaskOption("threshold", float, 1.0, "minimum grade counted as relevant (binary metrics)"),
        TaskOption("per_query", bool, False, "table format: also print one row per query"),
        TaskOption(
            "unjudged_queries",
            str,
            "error",
            "a run query not in the qrels: error (usually mismatched ids) or ignore "
            "(trec_eval's behaviour; e.g. DORIS-MAE's binary qrels leave out queries "
            "without a relevant document)",
            choices=("error", "ignore"),
        ),
    ),
    score=_score_ir,
    short_flags={"-m": "--metrics"},
)
LISTS = FileScorer(
    name="lists",
    description="ranked title lists (LEGOBench-style) against gold lists: CIS, BEM, KTau, CP",
    options=(
        TaskOption(
            "protocol",
            str,
            "clean",
            "clean (platform definition) or legobench-paper",
            choices=PROTOCOLS,
        ),
        TaskOption(
            "matcher",
            str,
            "substring",
            "title matcher",
            choices=MATCHERS,
        ),
    ),
    score=_score_lists,
    short_flags={},
)
#: the scorers ``bench score`` takes in place of a task name
FILE_SCORERS: dict[str, FileScorer] = {s.name: s for s in (IR, LISTS)}


def run_file_scorer(
    name: str, data: Path, predictions: Sequence[Path], args: Sequence[str], fmt: str
) -> None:
    """``bench score ir|lists`` and its aliases ``score ir|lists``: one code path."""
    from scholarkg.commands.task_args import parse_task_args

    scorer = FILE_SCORERS[name]
    if len(predictions) != 1:
        raise InputError(
            f"bench score {name} scores one file; got {len(predictions)} --predictions",
            field="predictions",
        )
    words = [scorer.short_flags.get(w, w) for w in args]
    options = scorer.resolve_options(parse_task_args(scorer, words))
    scorer.score(data, predictions[0], options, fmt)


def _options_help(scorer: FileScorer) -> str:
    short = {long: short for short, long in scorer.short_flags.items()}
    lines = [
        f"{o.flag}{f' ({short[o.flag]})' if o.flag in short else ''}: {o.help} "
        f"(default: {o.default})"
        for o in scorer.options
    ]
    return "\n\n".join(lines)


#: typer settings of the aliases: their scorer options are parsed like task options
_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True}


@app.command(
    "ir",
    context_settings=_PASS_THROUGH,
    help="Alias of 'scholarkg bench score ir': " + IR.description + ".\n\n"
    + inspect.cleandoc(_score_ir.__doc__ or "").split("\n\n", 1)[1] + "\n\n"
    + _options_help(IR),
)  # fmt: skip
def ir(
    ctx: typer.Context,
    qrels: Annotated[
        Path, typer.Option("--qrels", "--data", help="Qrels: TREC 'qid iter docid grade' or BEIR.")
    ],
    run: Annotated[
        Path,
        typer.Option(
            "--run",
            "--predictions",
            help="TREC run 'qid Q0 docid rank score tag', or JSONL lines "
            '{"id": "qid", "ranking": ["docid", ...]} (detected from the first line).',
        ),
    ],
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    run_file_scorer("ir", qrels, [run], list(ctx.args), fmt)


@app.command(
    "lists",
    context_settings=_PASS_THROUGH,
    help="Alias of 'scholarkg bench score lists': " + LISTS.description + ".\n\n"
    + inspect.cleandoc(_score_lists.__doc__ or "").split("\n\n", 1)[1] + "\n\n"
    + _options_help(LISTS),
)  # fmt: skip
def lists(
    ctx: typer.Context,
    gold: Annotated[
        Path,
        typer.Option(
            "--gold", "--data", help='JSONL {"id": ..., "ranking": ["title", ...]} best first.'
        ),
    ],
    predictions: Annotated[
        Path,
        typer.Option(
            "--predictions",
            help='JSONL {"id": ..., "response": "free text"} or {"id": ..., "ranking": [...]}.',
        ),
    ],
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    run_file_scorer("lists", gold, [predictions], list(ctx.args), fmt)

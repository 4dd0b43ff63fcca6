"""``scholarkg score``: score run files against gold files, no database needed.

``score ir`` scores a retrieval run (TREC run or JSONL ranked lists) against TREC qrels with
trec_eval-compatible metrics; ``score lists`` scores ranked title lists (LEGOBench-style
leaderboards) with CIS, BEM, KTau and CP. Both are thin faces over
``scholarkg.benchmark.metrics``; file formats are described in
``scholarkg.benchmark.metrics.trec``.

JSONL formats of ``score lists`` (one object per line):

- gold: ``{"id": "lb1", "ranking": ["best title", "second title", ...]}``
- predictions: ``{"id": "lb1", "response": "free text naming the titles in order"}``
  or ``{"id": "lb1", "ranking": ["title", ...]}`` (joined one title per line).

Instances are aligned by ``id`` in gold-file order; a prediction for an unknown id, a
missing prediction or an empty prediction is an error naming the file and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from scholarkg.commands.common import (
    FormatOpt,
    OutputFormat,
    check_choice,
    console,
    count_bar,
    fmt_number,
    no_csv,
    print_rows,
    to_json,
)
from scholarkg.errors import InputError

app = typer.Typer(
    help="Score run files against gold files (no graph needed).", no_args_is_help=True
)

DEFAULT_IR_METRICS = "P@10,R@10,nDCG@10,MRR@10,MAP,RP"


@app.command("ir")
def ir(
    qrels: Annotated[Path, typer.Option("--qrels", help="TREC qrels: 'qid iter docid grade'.")],
    run: Annotated[
        Path,
        typer.Option(
            "--run",
            help="TREC run 'qid Q0 docid rank score tag', or JSONL lines "
            '{"id": "qid", "ranking": ["docid", ...]} (detected from the first line).',
        ),
    ],
    metrics: Annotated[
        str,
        typer.Option(
            "--metrics",
            "-m",
            help="Comma-separated metric names (P@10, R@5, Hit@10, nDCG@10, MRR@10, MAP, RP, "
            "NDCG_10%, ...); an unknown name prints the full list.",
        ),
    ] = DEFAULT_IR_METRICS,
    threshold: Annotated[
        float,
        typer.Option("--threshold", help="Minimum grade counted as relevant (binary metrics)."),
    ] = 1.0,
    fmt: FormatOpt = OutputFormat.table,
    per_query: Annotated[
        bool, typer.Option("--per-query", help="Table format: also print one row per query.")
    ] = False,
    unjudged_queries: Annotated[
        str,
        typer.Option(
            "--unjudged-queries",
            help="A run query that is not in the qrels: error (default: usually mismatched "
            "ids) or ignore (trec_eval's behaviour; benchmarks whose qrels leave out queries "
            "without a relevant document, e.g. DORIS-MAE's binary metrics).",
        ),
    ] = "error",
) -> None:
    """Score a retrieval run against TREC qrels (trec_eval conventions).

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

    no_csv(fmt, "a score report")
    check_choice("--unjudged-queries", unjudged_queries, ("error", "ignore"))
    specs = parse_metrics(metrics)  # fail on a bad name before reading big files
    gold = read_qrels(qrels)
    known = gold if unjudged_queries == "error" else None
    ranked: dict[str, Any]
    if is_jsonl(run):
        ranked = dict(read_ranked_jsonl(run, known_qids=known))
    else:
        ranked = dict(read_run(run, known_qids=known))
    ranked = {qid: r for qid, r in ranked.items() if qid in gold}
    with count_bar(quiet=True) as bar:
        task = bar.add_task("scoring queries", total=len(gold))
        result = evaluate(
            gold,
            ranked,
            specs,
            relevance_threshold=threshold,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
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


@app.command("lists")
def lists(
    gold: Annotated[
        Path,
        typer.Option("--gold", help='JSONL {"id": ..., "ranking": ["title", ...]} best first.'),
    ],
    predictions: Annotated[
        Path,
        typer.Option(
            "--predictions",
            help='JSONL {"id": ..., "response": "free text"} or {"id": ..., "ranking": [...]}.',
        ),
    ],
    protocol: Annotated[
        str, typer.Option(help="clean (platform definition) or legobench-paper.")
    ] = "clean",
    matcher: Annotated[
        str, typer.Option(help="Title matcher: substring (default), normalized or line.")
    ] = "substring",
    fmt: FormatOpt = OutputFormat.table,
) -> None:
    """Score ranked title lists: CIS (%), BEM (fraction), KTau (tau-b), CP (%).

    Gold lines: {"id": ..., "ranking": ["title", ...]} best first. Prediction lines:
    {"id": ..., "response": "free text"} or {"id": ..., "ranking": ["title", ...]} (read as
    one title per line). Aligned by id in gold order; every gold id needs exactly one non-empty
    prediction. JSON output keys: cis, bem, ktau, cp, n_instances.
    """
    from scholarkg.benchmark.metrics.ranking import evaluate_ranked_lists
    from scholarkg.benchmark.metrics.trec import read_predictions, read_ranked_jsonl

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
    with count_bar(quiet=True) as bar:
        task = bar.add_task("scoring lists", total=len(ids))
        scores = evaluate_ranked_lists(
            [gold_lists[i] for i in ids],
            [responses[i] for i in ids],
            protocol=protocol,
            matcher=matcher,
            progress=lambda done, total: bar.update(task, completed=done, total=total),
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
    for note in getattr(scores, "notes", ()):
        console.print(f"[dim]{note}[/dim]")

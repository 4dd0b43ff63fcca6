"""LEGOBench's three tasks on the shared :class:`~scholarkg.benchmark.task.BenchmarkTask`.

Each class *declares* what it is (canonical metric names as the paper prints them, with
units; options; answer kinds; rankers; report layout; prediction-file format) and implements
build / answer / score; :func:`~scholarkg.benchmark.runner.run_task` runs and records them like
every other task. Instance ids are Leaderboard node ids in all three, so per-leaderboard
results join across RPG, RPLM and LGPLM.

* :class:`RPGTask` (``legobench-rpg``): rank a leaderboard's papers from the graph and text;
  four configurations (``--config cn-tabs|pcn-tabs|cn-ft|pcn-ft``); rankers from
  ``rpg/rankers.py`` (``pagerank`` is the paper's baseline, ``ours`` our learned ranker).
* :class:`RPLMTask` (``legobench-rplm``) and :class:`LGPLMTask` (``legobench-lgplm``): an
  LLM answers a prompt built from the graph, or answers made elsewhere are imported. They
  share one skeleton, :class:`LLMLeaderboardTask` (answers from a model or a file, answers
  written to the graph as ``ANSWERED {text}`` edges to the instance nodes).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from scholarkg.benchmark.metrics.ranking import MATCHERS, PROTOCOLS
from scholarkg.benchmark.results import PublishedRow, ReportLayout, TaskMetric, TaskResult
from scholarkg.benchmark.task import (
    Answers,
    AnswerSource,
    BenchmarkTask,
    Instance,
    PredictionFormat,
    StageProgress,
    TaskOption,
)
from scholarkg.errors import InputError
from scholarkg.loaders.legobench_rplm import parse_query
from scholarkg.store.base import full_store

if TYPE_CHECKING:
    from scholarkg.benchmark.runs import RunGraph, RunRecord
    from scholarkg.store.base import GraphReader, GraphStore

FAMILY = "legobench"
#: the node every LEGOBench instance id names
INSTANCE_LABEL = "Leaderboard"


# =========================================================================== RPG

_RPG_CONFIGS = ("cn-tabs", "pcn-tabs", "cn-ft", "pcn-ft")
_RPG_RANKERS = ("pagerank", "ours", "ours-strict", "date", "indegree", "pagerank-hybrid")


#: Table 3 of the LEGOBench paper (Singh et al., arXiv 2401.06233), PageRank baseline per encoder:
#: BEM %, KTau
_RPG_TABLE3: dict[str, tuple[tuple[str, float, float], ...]] = {
    "cn-tabs": (("SciBERT", 2.66, -0.010), ("SPECTER", 2.60, -0.009), ("SciNCL", 2.25, -0.015),
                ("OAG-BERT", 2.62, -0.009)),
    "pcn-tabs": (("SciBERT", 8.26, -0.187), ("SPECTER", 8.74, -0.177), ("SciNCL", 8.51, -0.175),
                 ("OAG-BERT", 8.34, -0.201)),
    "cn-ft": (("SciBERT", 0.184, -0.006), ("SPECTER", 0.851, -0.008), ("SciNCL", 0.888, -0.006),
              ("OAG-BERT", 0.665, -0.010)),
    "pcn-ft": (("SciBERT", 6.743, -0.140), ("SPECTER", 6.978, -0.137), ("SciNCL", 6.283, -0.015),
               ("OAG-BERT", 7.201, -0.132)),
}  # fmt: skip


class RPGTask(BenchmarkTask):
    """LEGOBench RPG: rank the papers of a leaderboard ⟨task, dataset, metric⟩.

    Gold: the graph's ``(:Leaderboard)-[:HAS_ENTRY {gt_rank}]->(:Paper)`` (or
    ``--ground-truth leaderboards.jsonl``); a seeded dev/test split by leaderboard key; GT
    papers a ranker does not retrieve tie at the bottom (``KTau_found`` drops them).
    """

    name = "legobench-rpg"
    family = FAMILY
    description = (
        "Ranked paper generation: rank the papers of a leaderboard ⟨task, dataset, metric⟩ "
        "from the graph and text (the paper's PageRank baseline + ours)."
    )
    reference = "Singh et al., arXiv 2401.06233, task definitions, Table 3"
    metrics = (
        TaskMetric("BEM", "percent", decimals=2, description="% of leaderboards exactly right"),
        TaskMetric("KTau", "score", decimals=3, description="Kendall τ-b, missing at bottom"),
        TaskMetric("KTau_found", "score", decimals=3, description="τ-b, missing dropped"),
        TaskMetric("CIS", "percent", decimals=1, description="% with every GT paper ranked"),
        TaskMetric("CP", "percent", decimals=1, description="% of GT pairs ranked in order"),
        TaskMetric("recall", "fraction", decimals=3, description="GT papers retrieved"),
        TaskMetric("mean_candidates", "count", decimals=1, higher_is_better=False),
        TaskMetric("n_leaderboards", "count", decimals=0),
        TaskMetric("n_candidates", "count", decimals=1, description="per leaderboard only"),
    )
    options = (
        TaskOption("config", str, "cn-tabs", "graph + text configuration", _RPG_CONFIGS),
        TaskOption(
            "ground_truth", Path, None, "leaderboards.jsonl (default: the graph's Leaderboards)"
        ),
        TaskOption("split", str, "test", "held-out test, dev or all", ("test", "dev", "all")),
        TaskOption("seed", int, 13, "seed of the dev/test split"),
        TaskOption("dev_fraction", float, 0.5, "share of leaderboards in dev"),
        TaskOption("encoder", str, "minilm", "PageRank edge-weight encoder", ("minilm", "hashing")),
        TaskOption("tune", bool, False, "fit 'ours' on the dev split first (never on test)"),
    )
    answer_kinds = frozenset({"ranker"})
    rankers = _RPG_RANKERS
    baseline = "pagerank"
    ours = ("ours", "ours-strict")
    layout = ReportLayout(
        title="LEGOBench RPG (layout of Table 3)",
        columns=("BEM", "KTau", "KTau_found", "CIS", "CP", "mean_candidates"),
        config_keys=("config", "split"),
        instance_label="leaderboard",
        published=tuple(
            PublishedRow(
                f"PageRank, {enc} (paper)",
                {"BEM": bem, "KTau": tau},
                "LEGOBench Table 3, real data",
                {"config": cfg},
            )
            for cfg, rows in _RPG_TABLE3.items()
            for enc, bem, tau in rows
        ),
    )
    fit_options = (
        TaskOption("papers", int, 4000, "papers in the synthetic world"),
        TaskOption("leaderboards", int, 200, "leaderboards in the synthetic world"),
        TaskOption("seed", int, 13, "seed of the world and of the dev split"),
        TaskOption("configs", list, list(_RPG_CONFIGS), "configurations to fit"),
        TaskOption("model_sets", list, ["graph_only", "with_context"], "stored model sets to fit"),
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        gt = options.get("ground_truth")
        return {
            "config": options["config"],
            "split": options["split"],
            "seed": options["seed"],
            "dev_fraction": options["dev_fraction"],
            "ground_truth": str(gt) if gt else "graph",
            "missing_policy": "bottom",
        }

    def _instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Any]:
        from scholarkg.benchmark.tasks.legobench.rpg import core as rpg

        if not 0.0 < float(options["dev_fraction"]) < 1.0:
            raise InputError("--dev-fraction must be in (0, 1)", field="dev_fraction")
        return rpg.load_instances(store, options.get("ground_truth"))

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        from scholarkg.benchmark.tasks.legobench.rpg import core as rpg

        chosen = rpg.select_split(
            self._instances(store, options), options["split"], seed=options["seed"],
            dev_fraction=options["dev_fraction"],
        )  # fmt: skip
        if not chosen:
            raise InputError(f"no leaderboards in split {options['split']!r}", field="split")
        return [Instance(i.query.id, {"rpg": i}) for i in chosen]

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        import time

        from scholarkg.benchmark.tasks.legobench.rpg import core as rpg
        from scholarkg.benchmark.tasks.legobench.rpg.rankers import make_ranker
        from scholarkg.benchmark.tasks.legobench.rpg.training import tune_pairwise

        cfg = rpg.get_config(options["config"])
        name = source.name
        if options["tune"] and not name.startswith("ours"):
            raise InputError("--tune applies to the 'ours' rankers only", field="tune")
        # only PageRank reads edge weights; the other rankers never load a model
        embedder = None
        if name.startswith("pagerank"):
            embedder = rpg.load_rpg_embedder(options["encoder"])
        params: dict[str, Any] | None = dict(source.params) or None
        if options["tune"]:
            dev = rpg.select_split(
                self._instances(store, options), "dev", seed=options["seed"],
                dev_fraction=options["dev_fraction"],
            )  # fmt: skip
            params, _ = tune_pairwise(
                full_store(store, "RPG's tuning"), dev, cfg,
                progress=None if progress is None else lambda d, t: progress("tune", d, t),
            )  # fmt: skip
        ranker = make_ranker(name, cfg, embedder=embedder, params=params)
        t0 = time.perf_counter()
        ranker.bind(full_store(store, f"RPG's {name!r} ranker")).prepare()
        prepare_s = time.perf_counter() - t0
        by_instance: dict[str, Any] = {}
        latencies: list[float] = []
        for n, inst in enumerate(instances, 1):
            ranking = ranker.rank_query(inst.data["rpg"].query, query_id=inst.id)
            by_instance[inst.id] = ranking
            latencies.append(ranking.elapsed_s)
            if progress is not None:
                progress("answer", n, len(instances))
        return Answers(
            by_instance=by_instance,
            source=source,
            params={"ranker": ranker.name, **ranker.describe()},
            models={"encoder": embedder.name} if embedder is not None else {},
            extra={
                "prepare_s": prepare_s,
                "mean_query_s": sum(latencies) / len(latencies) if latencies else 0.0,
                "tuned_on": "dev" if options["tune"] else None,
            },
        )

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        from scholarkg.benchmark.tasks.legobench.rpg.core import score_rpg

        rpg_instances = [i.data["rpg"] for i in instances]
        rankings = {i.id: answers.by_instance.get(i.id) for i in instances}
        predictions = {k: (list(r.ids) if r is not None else []) for k, r in rankings.items()}
        scores = score_rpg(rpg_instances, predictions)
        counts = {
            k: float(r.info.get("n_candidates", len(r.ids))) if r is not None else 0.0
            for k, r in rankings.items()
        }
        for qid, c in counts.items():
            scores.per_instance[qid]["n_candidates"] = c
        aggregate = dict(scores.metrics)
        aggregate["mean_candidates"] = sum(counts.values()) / len(counts) if counts else 0.0
        return TaskResult(
            aggregate=aggregate,
            per_instance=scores.per_instance,
            notes=["GT papers missing from a ranking tie at its bottom"],
        )

    def stored_models(self) -> dict[str, Any] | None:
        from scholarkg.benchmark.tasks.legobench.rpg.model import stored_models

        return stored_models()

    def fit(self, store: GraphStore, options: Mapping[str, Any]) -> dict[str, Any]:
        from scholarkg.benchmark.tasks.legobench.rpg.training import fit_synthetic

        opts = self.resolve_fit_options(options)
        return fit_synthetic(
            store, n_papers=opts["papers"], n_leaderboards=opts["leaderboards"],
            seed=opts["seed"], configs=opts["configs"], model_sets=opts["model_sets"],
        )  # fmt: skip


# =========================================================================== LLM tasks


class LLMLeaderboardTask(BenchmarkTask):
    """The skeleton RPLM and LGPLM share: instances carry a prompt; answers come from a model
    (``--model``/``--base-url``) or a predictions file; answers go to the graph as
    ``(:Run)-[:ANSWERED {text}]->(instance node)``.

    Subclasses declare :attr:`prediction_format`, build instances whose ``data`` holds
    ``prompt`` and ``align`` (an :class:`~scholarkg.benchmark.tasks.predictions.AlignmentKey`)
    and score the answer texts; generation defaults come from :meth:`generation_defaults`.
    """

    answer_kinds = frozenset({"model", "predictions"})
    #: JSONL answer field / released workbook column of this task's prediction files
    prediction_format: ClassVar[PredictionFormat]
    #: the label of the nodes instance ids name (answers are written to them)
    instance_node_label: ClassVar[str] = INSTANCE_LABEL
    #: options every LLM task takes (generation settings; recorded with the answers)
    generation_options: ClassVar[tuple[TaskOption, ...]] = (
        TaskOption("ids", list, None, "only these instance (Leaderboard) ids"),
        TaskOption("max_tokens", int, None, "override the paper's token limit"),
        TaskOption("mode", str, "completion", "completion (paper) or chat", ("completion", "chat")),
        TaskOption(
            "concurrency",
            int,
            None,
            "requests in flight (default: SCHOLARKG_LLM_CONCURRENCY, else 1)",
        ),
    )
    _generation_names: ClassVar[frozenset[str]] = frozenset({"max_tokens", "mode", "concurrency"})

    def generation_defaults(self) -> Any:
        """The task's generation settings dataclass with the paper's defaults."""
        raise NotImplementedError

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return {
            k: (str(v) if isinstance(v, Path) else v)
            for k, v in options.items()
            if k not in self._generation_names
        }

    def settings(self, options: Mapping[str, Any]) -> Any:
        from dataclasses import replace

        given = {k: options[k] for k in self._generation_names if options.get(k) is not None}
        return replace(self.generation_defaults(), **given)

    def answer(
        self,
        store: GraphReader,
        instances: Sequence[Instance],
        source: AnswerSource,
        options: Mapping[str, Any],
        progress: StageProgress | None = None,
    ) -> Answers:
        from scholarkg.benchmark.tasks.llm_run import collect_answers

        settings = self.settings(options)
        collected = collect_answers(
            self.prediction_format,
            [i.id for i in instances],
            [i.data["prompt"] for i in instances],
            client=source.client if source.kind == "model" else None,
            predictions_path=source.path if source.kind == "predictions" else None,
            settings=settings,
            align=[i.data["align"] for i in instances],
            progress=progress,
        )
        template = self.template()
        return Answers(
            by_instance={
                i.id: a for i, a in zip(instances, collected.answers, strict=True) if a is not None
            },
            source=source,
            params=asdict(settings) if source.kind == "model" else {},
            models=collected.models,
            extra={
                **collected.config,
                "prompt": template.record(),
                **self.instance_summary(instances),
            },
            prompts={template.name: template.text},
        )

    def template(self) -> Any:
        raise NotImplementedError

    def instance_summary(self, instances: Sequence[Instance]) -> dict[str, Any]:
        """Facts about the built instances the run should keep (e.g. truncated contexts)."""
        return {}

    def record_answers(
        self,
        store: RunGraph,
        record: RunRecord,
        instances: Sequence[Instance],
        answers: Answers,
    ) -> None:
        """One ``ANSWERED {text}`` edge per instance (``""`` for no answer), so a reader sees a
        model's answer next to the leaderboard in the browser."""
        rows = [
            {"start": record.id, "end": i.id,
             "props": {"text": answers.by_instance.get(i.id) or ""}}
            for i in instances
        ]  # fmt: skip
        store.merge_relationships("ANSWERED", "Run", self.instance_node_label, rows)

    def answer_texts(self, instances: Sequence[Instance], answers: Answers) -> list[str | None]:
        return [answers.by_instance.get(i.id) for i in instances]


# --------------------------------------------------------------------------- RPLM


#: Table 4 of the LEGOBench paper (Singh et al., arXiv 2401.06233): model, CIS, BEM, KTau, CP; None
#: where it prints "-"
_RPLM_TABLE4: tuple[tuple[str, float, float | None, float | None, float], ...] = (
    ("GPT-4", 21.89, 0.08, 0.10, 51.93),
    ("Gemini Pro", 18.91, 0.09, 0.06, 46.06),
    ("Vicuna 7B", 16.92, 0.10, 0.05, 36.87),
    ("Llama 2 Chat 7B", 16.17, 0.11, 0.02, 35.87),
    ("Vicuna 13B", 14.18, 0.09, 0.07, 34.66),
    ("Llama 2 Chat 13B", 10.20, 0.07, 0.01, 29.71),
    ("Falcon Instruct 7B", 7.46, 0.23, 0.00, 16.38),
    ("Zephyr Beta 7B", 7.21, 0.10, -0.14, 13.25),
    ("Mistral Instruct 7B", 3.48, 0.07, -0.05, 7.97),
    ("Mistral 7B", 1.74, 0.29, -0.04, 3.25),
    ("Falcon 7B", 1.24, 0.20, -0.17, 1.65),
    ("Galactica 6.7B", 0.50, None, None, 0.00),
    ("Llama 2 7B", 0.25, None, None, 1.36),
    ("Llama 2 13B", 0.25, None, None, 0.46),
)


class RPLMTask(LLMLeaderboardTask):
    """LEGOBench RPLM: an LLM orders a shuffled list of a leaderboard's paper titles."""

    name = "legobench-rplm"
    family = FAMILY
    description = (
        "Ranked paper list modelling: an LLM orders a shuffled list of a leaderboard's paper "
        "titles (run with a model, import answers, or score the released workbooks)."
    )
    reference = "Singh et al., arXiv 2401.06233, metric definitions, Table 4"
    metrics = (
        TaskMetric("CIS", "percent", decimals=2, description="% complete answers"),
        TaskMetric("BEM", "fraction", decimals=3, description="exact among complete"),
        TaskMetric("KTau", "score", decimals=3, description="Kendall τ-b over complete"),
        TaskMetric("CP", "percent", decimals=2, description="% concordant GT pairs"),
        TaskMetric("n_scored", "count", decimals=0),
        TaskMetric("n_complete", "count", decimals=0),
    )
    options = (
        TaskOption("protocol", str, "clean", "clean or legobench-paper (Table 4)", PROTOCOLS),
        TaskOption("matcher", str, "substring", "title matcher", MATCHERS),
        TaskOption("seed", int, 0, "seed of the per-leaderboard option shuffle"),
        TaskOption("shuffle", str, "seeded", "option order", ("seeded", "stored")),
        TaskOption(
            "entries", str, "auto", "which leaderboards", ("auto", "titleline", "paper", "all")
        ),
        *LLMLeaderboardTask.generation_options,
    )
    baseline = None
    layout = ReportLayout(
        title="LEGOBench RPLM (layout of Table 4)",
        columns=("CIS", "BEM", "KTau", "CP"),
        config_keys=("protocol", "matcher"),
        instance_label="leaderboard",
        published=tuple(
            PublishedRow(
                f"{model} (paper)",
                {
                    k: v
                    for k, v in (("CIS", cis), ("BEM", bem), ("KTau", tau), ("CP", cp))
                    if v is not None
                },
                "LEGOBench Table 4 (released answers)",
                {"protocol": "legobench-paper"},
            )
            for model, cis, bem, tau, cp in _RPLM_TABLE4
        ),
    )
    scores_files = True
    prediction_format = PredictionFormat(
        task="legobench-rplm",
        answer_field="response",
        description="Leaderboard id -> raw completion listing the paper titles, best first.",
        workbook_suffix="_gen_rank",
        parse_prompt=parse_query,
    )

    def generation_defaults(self) -> Any:
        from scholarkg.benchmark.tasks.legobench.rplm import RPLMSettings

        return RPLMSettings()

    def template(self) -> Any:
        from scholarkg.benchmark.tasks.legobench.rplm import rplm_template

        return rplm_template()

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        from scholarkg.benchmark.tasks.legobench.rplm import alignment_keys, build_rplm_instances

        prompts = build_rplm_instances(
            store, seed=options["seed"], shuffle=options["shuffle"], entries=options["entries"],
            ids=options.get("ids"), template=self.template(),
        )  # fmt: skip
        keys = alignment_keys(prompts)
        return [
            Instance(p.id, {"rplm": p, "prompt": p.prompt, "align": k})
            for p, k in zip(prompts, keys, strict=True)
        ]

    def instance_summary(self, instances: Sequence[Instance]) -> dict[str, Any]:
        prompts = [i.data["rplm"] for i in instances]
        return {
            "entry_kinds": sorted({p.entry_kind for p in prompts}),
            "n_stored_order": sum(p.shuffle == "stored" for p in prompts),
        }

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        from scholarkg.benchmark.tasks.legobench.rplm import score_rplm

        prompts = [i.data["rplm"] for i in instances]
        scores = score_rplm(
            prompts, self.answer_texts(instances, answers), protocol=options["protocol"],
            matcher=options["matcher"],
        )  # fmt: skip
        per = {instances[rec["index"]].id: _rplm_instance(rec) for rec in scores.per_instance}
        return _rplm_result(scores, per)

    def released_instances(self, data: Path) -> list[Instance]:
        """The rows of the released ``rplm.xlsx``, by position (the released answer workbooks
        carry no other key, §4)."""
        from scholarkg.loaders.legobench_rplm import read_rplm_gold

        return [Instance(str(k), {"rplm": g}) for k, g in enumerate(read_rplm_gold(data))]

    def read_predictions(self, path: Path, instances: Sequence[Instance]) -> dict[str, Any]:
        """The ``<stem>_gen_rank`` answers of a released workbook, aligned by position with
        ``instances`` (the gold sheet's rows; InputError when the rows or their GT differ). A
        workbook answers every row (a blank cell is ``None``)."""
        from scholarkg.benchmark.tasks.legobench.rplm_scoring import check_alignment
        from scholarkg.loaders.legobench_rplm import read_rplm_responses

        _stem, responses = read_rplm_responses(path)
        check_alignment([i.data["rplm"] for i in instances], responses, path)
        return {i.id: r.text for i, r in zip(instances, responses, strict=True)}


def _rplm_instance(rec: Mapping[str, Any]) -> dict[str, float | None]:
    tau = rec["ktau"]
    return {
        "complete": 1.0 if rec["complete"] else 0.0,
        # exactness is only defined for complete answers (BEM's denominator)
        "exact": (1.0 if rec["exact"] else 0.0) if rec["complete"] else None,
        "KTau": None if tau is None or math.isnan(tau) else float(tau),
        "CP": 100.0 * rec["cp"],
    }


def _rplm_result(scores: Any, per: dict[str, dict[str, float | None]]) -> TaskResult:
    return TaskResult(
        aggregate={
            "CIS": scores.cis,
            "BEM": scores.bem,
            "KTau": scores.ktau,
            "CP": scores.cp,
            "n_scored": float(scores.n_scored),
            "n_complete": float(scores.n_complete),
        },
        per_instance=per,
        notes=list(scores.notes),
    )


# --------------------------------------------------------------------------- LGPLM


class LGPLMTask(LLMLeaderboardTask):
    """LEGOBench LGPLM: an LLM writes the (method, score) table from retrieved passages."""

    name = "legobench-lgplm"
    family = FAMILY
    description = (
        "Leaderboard generation: an LLM writes the (method, score) table from the top-10 BM25 "
        "passages of the leaderboard papers' full text."
    )
    reference = (
        "Singh et al., arXiv 2401.06233, task definitions (name matching and tolerance are "
        "ours: not comparable to Table 5)"
    )
    metrics = (
        TaskMetric("MR", "percent", decimals=3, description="% of gold methods generated"),
        TaskMetric("MP", "percent", decimals=2, description="% of generated methods correct"),
        TaskMetric("SP_generated", "percent", decimals=2, description="scores / generated (§3.4)"),
        TaskMetric("SP_correct", "percent", decimals=2, description="scores / correct (§4.3)"),
        TaskMetric("n_gold_methods", "count", decimals=0),
        TaskMetric("n_generated", "count", decimals=0),
        TaskMetric("n_correct_methods", "count", decimals=0),
        TaskMetric("n_correct_scores", "count", decimals=0),
    )
    options = (
        TaskOption("k", int, 10, "BM25 passages per leaderboard"),
        TaskOption("gold", Path, None, "leaderboards.jsonl with methods and scores"),
        TaskOption("average", str, "micro", "micro (pooled counts) or macro", ("micro", "macro")),
        TaskOption("max_context_tokens", int, None, "cut the context (approximate tokens)"),
        *LLMLeaderboardTask.generation_options,
    )
    layout = ReportLayout(
        title="LEGOBench LGPLM (layout of Table 5)",
        columns=("MR", "MP", "SP_generated", "SP_correct"),
        config_keys=("k", "average", "max_context_tokens"),
        instance_label="leaderboard",
    )
    prediction_format = PredictionFormat(
        task="legobench-lgplm",
        answer_field="answer",
        description="Leaderboard id -> raw output holding a markdown (method, score) table.",
        workbook_suffix="_ldb",
        parse_prompt=parse_query,
    )

    def configuration(self, options: Mapping[str, Any]) -> dict[str, Any]:
        # the paper gives no scoring code: name matching and tolerance are ours
        return {**super().configuration(options), "comparable_to_paper": False}

    def generation_defaults(self) -> Any:
        from scholarkg.benchmark.tasks.legobench.lgplm import LGPLMSettings

        return LGPLMSettings()

    def template(self) -> Any:
        from scholarkg.benchmark.tasks.legobench.lgplm import lgplm_template

        return lgplm_template()

    def build_instances(self, store: GraphReader, options: Mapping[str, Any]) -> list[Instance]:
        from scholarkg.benchmark.tasks.legobench.lgplm import build_lgplm_instances
        from scholarkg.benchmark.tasks.predictions import AlignmentKey

        prompts = build_lgplm_instances(
            store, k=options["k"], gold_path=options.get("gold"), ids=options.get("ids"),
            max_context_tokens=options.get("max_context_tokens"), template=self.template(),
        )  # fmt: skip
        if not prompts:
            raise InputError(
                "no leaderboard has both gold entries and full-text chunks of its papers; load "
                "leaderboards, Results (or pass a leaderboards.jsonl) and papers with full text"
            )
        return [
            Instance(p.id, {"lgplm": p, "prompt": p.prompt,
                            "align": AlignmentKey(p.id, None, (p.task, p.dataset, p.metric))})
            for p in prompts
        ]  # fmt: skip

    def instance_summary(self, instances: Sequence[Instance]) -> dict[str, Any]:
        return {
            "retriever": "bm25s per leaderboard, query '<task> <dataset> <metric>'",
            "context_token_count": "approximate (words and punctuation)",
            "n_context_truncated": sum(i.data["lgplm"].context_truncated for i in instances),
        }

    def score(
        self, instances: Sequence[Instance], answers: Answers, options: Mapping[str, Any]
    ) -> TaskResult:
        from scholarkg.benchmark.metrics.extraction import (
            NOT_COMPARABLE_NOTE,
            extraction_percentages,
        )
        from scholarkg.benchmark.tasks.legobench.lgplm import score_lgplm

        prompts = [i.data["lgplm"] for i in instances]
        scores = score_lgplm(
            prompts, self.answer_texts(instances, answers), average=options["average"]
        )
        per = {
            prompts[rec["index"]].id: _canonical_extraction(extraction_percentages(rec))
            for rec in scores.per_instance
        }
        return TaskResult(
            aggregate={
                "MR": scores.mr,
                "MP": scores.mp,
                "SP_generated": scores.sp_generated,
                "SP_correct": scores.sp_correct,
                "n_gold_methods": float(scores.n_gold_methods),
                "n_generated": float(scores.n_generated),
                "n_correct_methods": float(scores.n_correct_methods),
                "n_correct_scores": float(scores.n_correct_scores),
            },
            per_instance=per,
            notes=[NOT_COMPARABLE_NOTE],
        )


def _canonical_extraction(values: Mapping[str, float | None]) -> dict[str, float | None]:
    names = {"mr": "MR", "mp": "MP", "sp_generated": "SP_generated", "sp_correct": "SP_correct"}
    return {names.get(k, k): v for k, v in values.items()}


__all__ = ["LGPLMTask", "LLMLeaderboardTask", "RPGTask", "RPLMTask"]

"""Fitting RPG's pairwise model on the dev split, and reproducing the stored models.

:func:`tune_pairwise` fits one configuration on given dev leaderboards (features scaled by
their RMS on the dev pairs, L2 strength by 5-fold cross-validation over leaderboards).
:func:`fit_synthetic` rebuilds the stored models from scratch — the seeded synthetic world,
loaded into an empty graph, fitted per configuration without and then with Papers with Code
Results — and returns the document ``models/rpg_pairwise.json`` holds, provenance included.
``scholarkg bench fit legobench-rpg`` calls it; ``tests/legobench/test_rpg_training.py``
re-fits and compares with the stored file.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scholarkg.benchmark.tasks.legobench.rpg.core import (
    CONFIGS,
    ProgressFn,
    RPGConfig,
    RPGInstance,
    read_ground_truth,
    select_split,
)
from scholarkg.benchmark.tasks.legobench.rpg.features import CONTEXT_FEATURES, PAIR_FEATURES
from scholarkg.benchmark.tasks.legobench.rpg.model import PairwiseModel, fit_logistic
from scholarkg.benchmark.tasks.legobench.rpg.rankers import (
    DEFAULT_HYBRID_K,
    PairwiseRanker,
    graph_has_results,
)
from scholarkg.store.base import GraphStore

DEFAULT_L2_GRID: tuple[float, ...] = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
CV_FOLDS = 5


@dataclass
class PairData:
    """Training pairs: one row per ordered GT pair found among a query's candidates."""

    x: np.ndarray  # (rows, len(PAIR_FEATURES)), raw features
    y: np.ndarray  # 1 when the row's first paper is better
    group: np.ndarray  # leaderboard index (for grouped cross-validation)
    n_leaderboards: int


def collect_pairs(
    ranker: PairwiseRanker,
    dev: Sequence[RPGInstance],
    *,
    progress: ProgressFn | None = None,
) -> PairData:
    """Feature rows of every GT pair of ``dev`` whose papers are both candidates.

    Each pair appears in both orientations (label 1 and 0): with antisymmetric features and
    no intercept that is the same fit as one random orientation, without the randomness.
    """
    xs: list[np.ndarray] = []
    ys: list[np.ndarray] = []
    gs: list[np.ndarray] = []
    for g, inst in enumerate(dev):
        cands = ranker.candidates(inst.query)
        pos = {pid: i for i, pid in enumerate(cands)}
        found = [pos[p] for p in inst.gold if p in pos]
        if len(found) >= 2:
            _, x = ranker.pair_tensor(inst.query, cands)
            a = np.asarray([found[i] for i in range(len(found)) for _ in found[i + 1 :]])
            b = np.asarray([found[j] for i in range(len(found)) for j in range(i + 1, len(found))])
            xs.extend([x[a, b], x[b, a]])
            ys.extend([np.ones(len(a)), np.zeros(len(a))])
            gs.extend([np.full(len(a), g), np.full(len(a), g)])
        if progress is not None:
            progress(g + 1, len(dev))
    k = len(PAIR_FEATURES)
    return PairData(
        x=np.concatenate(xs) if xs else np.zeros((0, k)),
        y=np.concatenate(ys) if ys else np.zeros(0),
        group=np.concatenate(gs) if gs else np.zeros(0, dtype=int),
        n_leaderboards=len(dev),
    )


def tune_pairwise(
    store: GraphStore,
    dev: Sequence[RPGInstance],
    config: RPGConfig,
    *,
    hybrid_k: int = DEFAULT_HYBRID_K,
    l2_grid: Sequence[float] = DEFAULT_L2_GRID,
    progress: ProgressFn | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fit the pairwise model on ``dev``; returns (``PairwiseModel.to_params()``, CV trials).

    Features are scaled by their RMS on the dev pairs; the L2 strength is the grid value with
    the lowest mean held-out log loss over ``CV_FOLDS`` folds *of leaderboards* (pairs of one
    leaderboard are never split across train and validation), then the model is refitted on
    all of dev. Context features are used only when the graph holds ``Result`` nodes. Pass dev
    instances only: the caller guarantees the test split never reaches this function.
    """
    has_results = graph_has_results(store)
    feats = PAIR_FEATURES if has_results else tuple(
        f for f in PAIR_FEATURES if f not in CONTEXT_FEATURES
    )  # fmt: skip
    # all-ones coefficients: only so that pair_tensor computes the context features too
    probe = PairwiseModel(
        coef=tuple(1.0 for _ in PAIR_FEATURES), scale=tuple(1.0 for _ in PAIR_FEATURES),
        hybrid_k=hybrid_k,
    )  # fmt: skip
    ranker = PairwiseRanker(config, probe, retrieval="hybrid")
    ranker.bind(store)
    ranker._has_results = has_results
    ranker.prepare()
    data = collect_pairs(ranker, dev, progress=progress)
    cols = [PAIR_FEATURES.index(f) for f in feats]
    x = data.x[:, cols]
    scale = np.sqrt(np.mean(x**2, axis=0)) if len(x) else np.ones(len(cols))
    scale = np.where(scale > 0, scale, 1.0)
    xs = x / scale
    folds = data.group % CV_FOLDS
    trials: list[dict[str, Any]] = []
    for l2 in l2_grid:
        losses, correct, total = [], 0, 0
        for f in range(CV_FOLDS):
            train, val = folds != f, folds == f
            if not val.any() or not train.any():
                continue
            w = fit_logistic(xs[train], data.y[train], l2)
            z = xs[val] @ w
            losses.append(float(np.mean(np.logaddexp(0.0, z) - data.y[val] * z)))
            correct += int(np.sum((z > 0) == (data.y[val] == 1)))
            total += int(val.sum())
        trials.append({
            "l2": l2, "cv_log_loss": float(np.mean(losses)) if losses else math.nan,
            "cv_pair_accuracy": correct / total if total else math.nan,
        })  # fmt: skip
    scored = [t for t in trials if not math.isnan(t["cv_log_loss"])]
    best_l2 = min(scored, key=lambda t: (t["cv_log_loss"], -t["l2"]))["l2"] if scored else 1.0
    w = fit_logistic(xs, data.y, best_l2)
    # the single strongest signal on the same pairs, for honesty (ties count one half)
    newer = data.x[:, PAIR_FEATURES.index("newer")]
    date_acc = float(np.mean(np.where(newer == 0, 0.5, (newer > 0) == (data.y == 1))))
    cv_acc = next((t["cv_pair_accuracy"] for t in trials if t["l2"] == best_l2), math.nan)
    model = PairwiseModel(
        coef=tuple(float(c) for c in w),
        scale=tuple(float(s) for s in scale),
        l2=float(best_l2),
        hybrid_k=hybrid_k,
        features=feats,
        fit_info={
            "split": "dev",
            "n_leaderboards": data.n_leaderboards,
            "n_pairs": int(len(data.y) // 2),
            "context": has_results,
            "cv_pair_accuracy": round(float(cv_acc), 4) if len(data.y) else None,
            "date_pair_accuracy": round(date_acc, 4) if len(data.y) else None,
        },
    )
    return model.to_params(), trials


#: the synthetic world the stored models were fitted on (``benchmarks/bench_rpg.py --quality``)
SYNTHETIC_WORLD: dict[str, Any] = {
    "n_papers": 4000,
    "n_leaderboards": 200,
    "seed": 13,
    "dev_fraction": 0.5,
}
#: which graph each stored model set is fitted on
MODEL_SET_DATA = {
    "graph_only": "papers (title, abstract, date, full-text chunks), CITES, COMPARES_WITH",
    "with_context": "the same + Papers with Code evaluation tables (Result nodes)",
}


def fit_synthetic(
    store: GraphStore,
    *,
    n_papers: int = SYNTHETIC_WORLD["n_papers"],
    n_leaderboards: int = SYNTHETIC_WORLD["n_leaderboards"],
    seed: int = SYNTHETIC_WORLD["seed"],
    dev_fraction: float = SYNTHETIC_WORLD["dev_fraction"],
    configs: Sequence[str] | None = None,
    model_sets: Sequence[str] = ("graph_only", "with_context"),
    hybrid_k: int = DEFAULT_HYBRID_K,
    l2_grid: Sequence[float] = DEFAULT_L2_GRID,
    workdir: Path | None = None,
    log: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Re-fit the stored RPG models on the seeded synthetic world; the JSON document.

    ``store`` must be an empty graph: it is filled with the world (the caller clears it). The
    world is generated with ``seed``, written in the real file formats and loaded with the
    real loaders; the dev split uses the same seed. ``graph_only`` is fitted first, then the
    Papers with Code tables are loaded and ``with_context`` is fitted. Deterministic: the
    same arguments give the same coefficients (``tests/legobench/test_rpg_training.py``).
    """
    from scholarkg.errors import InputError
    from scholarkg.synthetic.legobench_corpus import generate, write_corpus

    say = log or (lambda _msg: None)
    names = list(configs) if configs is not None else list(CONFIGS)
    unknown = [n for n in (*names,) if n not in CONFIGS] + [
        s for s in model_sets if s not in MODEL_SET_DATA
    ]
    if unknown:
        raise InputError(f"unknown configuration or model set {unknown}", field="configs")
    if store.counts().total_nodes:
        raise InputError(
            f"graph {store.graph!r} is not empty; fitting loads the synthetic world into it",
            field="graph",
        )
    corpus = generate(n_papers=n_papers, n_leaderboards=n_leaderboards, seed=seed)
    # the world's files are only read here: without a workdir they go to a temporary folder
    # that is removed afterwards (every fit used to leave one behind in /tmp)
    with tempfile.TemporaryDirectory(prefix="scholarkg_rpg_fit_") as tmp:
        files = write_corpus(corpus, Path(workdir or tmp) / "corpus")
        return _fit_world(
            store, files, names, model_sets, n_papers=n_papers, n_leaderboards=n_leaderboards,
            seed=seed, dev_fraction=dev_fraction, hybrid_k=hybrid_k, l2_grid=l2_grid, say=say,
        )  # fmt: skip


def _fit_world(
    store: GraphStore,
    files: dict[str, Path],
    names: list[str],
    model_sets: Sequence[str],
    *,
    n_papers: int,
    n_leaderboards: int,
    seed: int,
    dev_fraction: float,
    hybrid_k: int,
    l2_grid: Sequence[float],
    say: Callable[[str], None],
) -> dict[str, Any]:
    """``fit_synthetic`` once the world's files are written: load them, fit, the document."""
    from scholarkg.loaders import pwc
    from scholarkg.loaders.apc import read_citations, read_comparisons, read_papers
    from scholarkg.loaders.writer import write_records

    store.apply_schema()
    write_records(store, read_papers(files["papers"]))
    write_records(store, read_citations(files["citations"]))
    write_records(store, read_comparisons(files["comparisons"]))
    instances = read_ground_truth(files["leaderboards"])
    dev = select_split(instances, "dev", seed=seed, dev_fraction=dev_fraction)
    say(f"synthetic world: {n_papers} papers, {len(instances)} leaderboards, {len(dev)} dev")
    doc: dict[str, Any] = {
        "model": "logistic-pairwise",
        "provenance": {
            "fitted_by": f"{__name__}.fit_synthetic",
            "command": (
                f"scholarkg bench fit legobench-rpg --papers {n_papers} "
                f"--leaderboards {n_leaderboards} --seed {seed}"
            ),
            "corpus": {
                "generator": "scholarkg.synthetic.legobench_corpus.generate",
                "n_papers": n_papers,
                "n_leaderboards": n_leaderboards,
                "seed": seed,
            },
            "split": {
                "name": "dev",
                "seed": seed,
                "dev_fraction": dev_fraction,
                "n_leaderboards": len(dev),
                "note": "the test split never reaches the fit",
            },
            "training": {
                "objective": "L2-regularised logistic regression on GT pairs, no intercept",
                "features_scaled_by": "RMS on the dev pairs",
                "l2_grid": list(l2_grid),
                "cv_folds": CV_FOLDS,
                "cv_groups": "leaderboards",
                "hybrid_k": hybrid_k,
            },
            "data": {s: MODEL_SET_DATA[s] for s in model_sets},
        },
    }
    for set_name in ("graph_only", "with_context"):
        if set_name not in model_sets:
            continue
        if set_name == "with_context":
            write_records(
                store, pwc.records(pwc.read_evaluation_tables(files["evaluation_tables"]))
            )
        doc[set_name] = {}
        for name in names:
            params, _ = tune_pairwise(store, dev, CONFIGS[name], hybrid_k=hybrid_k, l2_grid=l2_grid)
            doc[set_name][name] = params
            say(f"{set_name} {name}: l2 {params['l2']:g}, {params['fit']['n_pairs']} pairs")
    return doc


def write_models(doc: dict[str, Any], path: Path) -> Path:
    """Write a stored-models document as the JSON file ``model.stored_models`` reads."""
    import json

    from scholarkg.textio import atomic_write_text

    atomic_write_text(path, json.dumps(doc, indent=1, sort_keys=False) + "\n")
    return path
